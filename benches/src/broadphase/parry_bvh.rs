//! parry3d's dynamic BVH (the broad phase of rapier) behind the [`BroadPhase`] trait.

use super::slots::{SlotHandle, Slots};
use contact_core::{BroadPhase, BroadPhaseError};
use geometry_core::Aabb;
use parry3d::bounding_volume::Aabb as ParryAabb;
use parry3d::math::Vector as ParryVector;
use parry3d::partitioning::{Bvh, BvhWorkspace};
use std::fmt;

/// The smallest `f32` box that contains `aabb`: minima rounded toward −∞ and maxima toward +∞,
/// so that two `f64` boxes that overlap (or touch) always give overlapping `f32` boxes.
///
/// ```
/// use collide_benches::broadphase::parry_bvh::outward_f32;
/// let (lo, hi) = outward_f32([0.1, -0.1, 1e6 + 0.3], [0.1, 2.0, 1e6 + 0.3]);
/// for k in 0..3 {
///     assert!(f64::from(lo[k]) <= [0.1, -0.1, 1e6 + 0.3][k]);
///     assert!(f64::from(hi[k]) >= [0.1, 2.0, 1e6 + 0.3][k]);
/// }
/// assert_eq!(hi[1], 2.0); // exactly representable values stay
/// ```
pub fn outward_f32(min: [f64; 3], max: [f64; 3]) -> ([f32; 3], [f32; 3]) {
    let down = |x: f64| {
        let y = x as f32;
        if f64::from(y) > x { y.next_down() } else { y }
    };
    let up = |x: f64| {
        let y = x as f32;
        if f64::from(y) < x { y.next_up() } else { y }
    };
    (min.map(down), max.map(up))
}

fn to_parry(aabb: &Aabb) -> ParryAabb {
    let (lo, hi) = outward_f32(aabb.min.to_array(), aabb.max.to_array());
    ParryAabb::new(ParryVector::from_array(lo), ParryVector::from_array(hi))
}

/// parry3d's [`Bvh`] driven the way rapier's `BroadPhaseBvh` drives it, with exact `f64` output.
///
/// * The tree is persistent: [`insert`](BroadPhase::insert) and [`update`](BroadPhase::update)
///   call `Bvh::insert_or_update_partially` with the object's slot as leaf index (no enlarged
///   "fat" margin: leaves are the boxes themselves), [`remove`](BroadPhase::remove) calls
///   `Bvh::remove`.
/// * [`find_pairs`](BroadPhase::find_pairs), after any change, runs rapier's per-step
///   maintenance: `optimize_incremental` (rapier's default `SubtreeOptimizer`) then `refit`. It
///   then traverses the tree against itself (`traverse_bvtt_single_tree` without change
///   detection, since every overlapping pair must be reported, not only the new ones).
/// * parry works in `f32`: leaves are the boxes rounded outward ([`outward_f32`]), so no
///   overlapping pair is missed, and each candidate is confirmed with the exact `f64`
///   [`Aabb::overlaps`], so the output is exactly the overlapping set.
///
/// [`ParryBvh::with_jump_reinsertion`] adds one thing rapier does not do: an object whose new box
/// does not even touch its old one (a teleport, or a wrap-around in a periodic domain) is
/// removed from the tree and reinserted, instead of being refitted in place, where it would
/// stretch every ancestor across the gap until the incremental optimiser happens to rebuild them.
///
/// Pairs are reported in traversal order, `(a, b)` in no particular slot order.
///
/// ```
/// use collide_benches::broadphase::ParryBvh;
/// use contact_core::BroadPhase;
/// use geometry_core::{Aabb, DVec3};
/// let mut bvh = ParryBvh::new();
/// // In f32 these boxes touch; in f64 they are 1e-9 apart.
/// let a = bvh.insert(Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap()).unwrap();
/// let b = bvh.insert(Aabb::new(DVec3::new(1.0 + 1e-9, 0.0, 0.0), DVec3::splat(2.0)).unwrap()).unwrap();
/// let mut pairs = Vec::new();
/// bvh.find_pairs(&mut pairs);
/// assert!(pairs.is_empty());
/// bvh.update(b, Aabb::new(DVec3::ONE, DVec3::splat(2.0)).unwrap()).unwrap();
/// bvh.find_pairs(&mut pairs);
/// assert_eq!(pairs.len(), 1);
/// ```
#[derive(Clone, Default)]
pub struct ParryBvh {
    /// The exact boxes, by slot (= leaf index).
    slots: Slots<Aabb>,
    tree: Bvh,
    workspace: BvhWorkspace,
    /// Whether a leaf changed since the last refit.
    dirty: bool,
    /// Remove and reinsert leaves whose new box is disjoint from the old one.
    reinsert_jumps: bool,
}

impl fmt::Debug for ParryBvh {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParryBvh")
            .field("len", &self.slots.len())
            .field("leaves", &self.tree.leaf_count())
            .field("dirty", &self.dirty)
            .field("reinsert_jumps", &self.reinsert_jumps)
            .finish_non_exhaustive()
    }
}

impl ParryBvh {
    /// An empty tree.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty tree that removes and reinserts a leaf whose new box is disjoint from its old
    /// one, instead of updating it in place.
    ///
    /// ```
    /// use collide_benches::broadphase::ParryBvh;
    /// use contact_core::BroadPhase;
    /// use geometry_core::{Aabb, DVec3};
    /// let mut bvh = ParryBvh::with_jump_reinsertion();
    /// let a = bvh.insert(Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap()).unwrap();
    /// let b = bvh.insert(Aabb::new(DVec3::splat(5.0), DVec3::splat(6.0)).unwrap()).unwrap();
    /// bvh.update(b, Aabb::new(DVec3::splat(0.5), DVec3::splat(1.5)).unwrap()).unwrap(); // a jump
    /// let mut pairs = Vec::new();
    /// bvh.find_pairs(&mut pairs);
    /// assert_eq!(pairs.len(), 1);
    /// ```
    pub fn with_jump_reinsertion() -> Self {
        Self { reinsert_jumps: true, ..Self::default() }
    }

    /// Heap bytes held: parry's `Bvh::heap_memory_size` (nodes, parents, leaf map) plus the
    /// exact boxes. parry's reusable workspace is not counted.
    ///
    /// ```
    /// use collide_benches::broadphase::ParryBvh;
    /// assert_eq!(ParryBvh::new().heap_bytes(), 0);
    /// ```
    pub fn heap_bytes(&self) -> usize {
        self.tree.heap_memory_size() + self.slots.heap_bytes()
    }
}

impl BroadPhase for ParryBvh {
    type Handle = SlotHandle;
    type Error = BroadPhaseError;

    fn insert(&mut self, aabb: Aabb) -> Result<SlotHandle, BroadPhaseError> {
        let aabb = aabb.validate()?;
        let handle = self.slots.insert(aabb);
        self.tree.insert_or_update_partially(to_parry(&aabb), handle.slot(), 0.0);
        self.dirty = true;
        Ok(handle)
    }

    fn remove(&mut self, handle: SlotHandle) -> Result<(), BroadPhaseError> {
        self.slots.remove(handle).ok_or(BroadPhaseError::UnknownHandle)?;
        self.tree.remove(handle.slot());
        self.dirty = true;
        Ok(())
    }

    fn update(&mut self, handle: SlotHandle, aabb: Aabb) -> Result<(), BroadPhaseError> {
        let aabb = aabb.validate()?;
        let stored = self.slots.get_mut(handle).ok_or(BroadPhaseError::UnknownHandle)?;
        let old = std::mem::replace(stored, aabb);
        if self.reinsert_jumps && !old.overlaps(&aabb) {
            self.tree.remove(handle.slot());
        }
        self.tree.insert_or_update_partially(to_parry(&aabb), handle.slot(), 0.0);
        self.dirty = true;
        Ok(())
    }

    fn find_pairs(&mut self, pairs: &mut Vec<(SlotHandle, SlotHandle)>) {
        pairs.clear();
        if self.dirty {
            self.tree.optimize_incremental(&mut self.workspace);
            self.tree.refit(&mut self.workspace);
            self.dirty = false;
        }
        let slots = &self.slots;
        self.tree.traverse_bvtt_single_tree::<false>(&mut self.workspace, &mut |a, b| {
            let (Some(ba), Some(bb)) = (slots.at(a), slots.at(b)) else {
                return;
            };
            if ba.overlaps(bb) {
                pairs.push((slots.handle_of(a), slots.handle_of(b)));
            }
        });
    }

    fn len(&self) -> usize {
        self.slots.len()
    }
}
