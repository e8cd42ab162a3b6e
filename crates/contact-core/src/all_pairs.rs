//! The brute-force broad phase: the baseline and test oracle for all others.

use crate::{BroadPhase, BroadPhaseError};
use geometry_core::Aabb;

/// Handle of an [`AllPairs`] object: a slot index plus a generation counter, so that the handle
/// of a removed object is never mistaken for a later object that reuses the slot (a slot is
/// retired after its 2³²-th object rather than wrap its generation around).
///
/// ```
/// use contact_core::{AllPairs, BroadPhase, BroadPhaseError};
/// use geometry_core::{Aabb, DVec3};
/// let unit = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
/// let mut broad = AllPairs::new();
/// let old = broad.insert(unit).unwrap();
/// broad.remove(old).unwrap();
/// let new = broad.insert(unit).unwrap(); // reuses the freed slot
/// assert_ne!(old, new);
/// assert_eq!(broad.aabb(old), None);
/// assert!(matches!(broad.remove(old), Err(BroadPhaseError::UnknownHandle)));
/// ```
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
/// removal (the most recently freed slot first), so the order depends on the insertion history.
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
    ///
    /// ```
    /// use contact_core::{AllPairs, BroadPhase};
    /// let mut broad = AllPairs::new();
    /// assert!(broad.is_empty() && broad.len() == 0);
    /// let mut pairs = vec![];
    /// broad.find_pairs(&mut pairs);
    /// assert!(pairs.is_empty());
    /// ```
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
        // A slot whose generations are spent (2³² objects) is retired, not reused: its next
        // handle would repeat generation 0 and alias the handles of long-removed objects.
        if let Some(next) = slot.generation.checked_add(1) {
            slot.generation = next;
            self.free.push(handle.slot);
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use geometry_core::DVec3;

    /// A slot whose generation is spent is retired: without it, the 2³²-th reuse of one slot
    /// gave generation 0 again, and a long-stale handle removed the live object.
    #[test]
    fn a_slot_with_spent_generations_is_retired() {
        let unit = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
        let mut broad = AllPairs::new();
        let stale = broad.insert(unit).unwrap();
        broad.remove(stale).unwrap();
        // Fast-forward the slot to its last generation (2³² reuses take minutes).
        broad.slots[stale.slot as usize].generation = u32::MAX;
        let last = broad.insert(unit).unwrap();
        assert_eq!((last.slot, last.generation), (stale.slot, u32::MAX));
        broad.remove(last).unwrap();
        let next = broad.insert(unit).unwrap();
        assert_ne!(next.slot, stale.slot, "the spent slot was reused");
        assert!(broad.remove(stale).is_err());
        assert!(broad.remove(last).is_err());
        assert_eq!(broad.len(), 1);
    }
}
