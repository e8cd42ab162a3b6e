//! The brute-force broad phase: the baseline and test oracle for all others.

use crate::{BroadPhase, BroadPhaseError};
use geometry_core::Aabb;

/// Handle of an [`AllPairs`] object: a slot index plus a generation counter, so that the handle
/// of a removed object is never mistaken for a later object that reuses the slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AllPairsHandle {
    slot: u32,
    generation: u32,
}

#[derive(Debug, Clone)]
struct Slot {
    generation: u32,
    aabb: Option<Aabb>,
}

/// Tests every pair of stored boxes: `O(n²)` per [`find_pairs`](BroadPhase::find_pairs),
/// `O(1)` insert, remove and update.
///
/// Pairs are reported in increasing slot order `(a, b)` with `a < b`; slots are reused after
/// removal (lowest freed slot last-in-first-out), so the order depends on the insertion history.
///
/// ```
/// use contact_core::{AllPairs, BroadPhase};
/// use geometry_core::{Aabb, DVec3};
/// let mut broad = AllPairs::new();
/// let a = broad.insert(Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap()).unwrap();
/// let b = broad.insert(Aabb::new(DVec3::splat(3.0), DVec3::splat(4.0)).unwrap()).unwrap();
/// let mut pairs = Vec::new();
/// broad.find_pairs(&mut pairs);
/// assert!(pairs.is_empty());
/// broad.update(b, Aabb::new(DVec3::splat(0.5), DVec3::splat(2.0)).unwrap()).unwrap();
/// broad.find_pairs(&mut pairs);
/// assert_eq!(pairs, vec![(a, b)]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct AllPairs {
    slots: Vec<Slot>,
    free: Vec<u32>,
    len: usize,
}

impl AllPairs {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// The stored box of `handle`, if the handle is live.
    ///
    /// ```
    /// use contact_core::{AllPairs, BroadPhase};
    /// use geometry_core::{Aabb, DVec3};
    /// let mut broad = AllPairs::new();
    /// let unit = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
    /// let h = broad.insert(unit).unwrap();
    /// assert_eq!(broad.aabb(h), Some(unit));
    /// ```
    pub fn aabb(&self, handle: AllPairsHandle) -> Option<Aabb> {
        let slot = self.slots.get(handle.slot as usize)?;
        if slot.generation == handle.generation { slot.aabb } else { None }
    }

    fn live_slot(&mut self, handle: AllPairsHandle) -> Result<&mut Slot, BroadPhaseError> {
        match self.slots.get_mut(handle.slot as usize) {
            Some(slot) if slot.generation == handle.generation && slot.aabb.is_some() => Ok(slot),
            _ => Err(BroadPhaseError::UnknownHandle),
        }
    }
}

impl BroadPhase for AllPairs {
    type Handle = AllPairsHandle;
    type Error = BroadPhaseError;

    fn insert(&mut self, aabb: Aabb) -> Result<AllPairsHandle, BroadPhaseError> {
        let aabb = aabb.validate()?;
        self.len += 1;
        if let Some(slot) = self.free.pop() {
            let s = &mut self.slots[slot as usize];
            s.aabb = Some(aabb);
            return Ok(AllPairsHandle { slot, generation: s.generation });
        }
        let slot = u32::try_from(self.slots.len()).expect("more than u32::MAX objects");
        self.slots.push(Slot { generation: 0, aabb: Some(aabb) });
        Ok(AllPairsHandle { slot, generation: 0 })
    }

    fn remove(&mut self, handle: AllPairsHandle) -> Result<(), BroadPhaseError> {
        let slot = self.live_slot(handle)?;
        slot.aabb = None;
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(handle.slot);
        self.len -= 1;
        Ok(())
    }

    fn update(&mut self, handle: AllPairsHandle, aabb: Aabb) -> Result<(), BroadPhaseError> {
        let aabb = aabb.validate()?;
        self.live_slot(handle)?.aabb = Some(aabb);
        Ok(())
    }

    fn find_pairs(&mut self, pairs: &mut Vec<(AllPairsHandle, AllPairsHandle)>) {
        pairs.clear();
        let live: Vec<(AllPairsHandle, Aabb)> = self
            .slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                s.aabb.map(|b| (AllPairsHandle { slot: i as u32, generation: s.generation }, b))
            })
            .collect();
        for (i, (ha, a)) in live.iter().enumerate() {
            for (hb, b) in &live[i + 1..] {
                if a.overlaps(b) {
                    pairs.push((*ha, *hb));
                }
            }
        }
    }

    fn len(&self) -> usize {
        self.len
    }
}
