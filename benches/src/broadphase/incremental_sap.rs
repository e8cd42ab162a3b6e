//! Incremental sweep and prune, as the thesis benchmarked it (the pe engine's implementation of
//! Erleben et al., "Physics-based Animation", §12.2.2).

use super::slots::{SlotHandle, Slots};
use contact_core::{BroadPhase, BroadPhaseError};
use geometry_core::Aabb;
use hashbrown::HashSet;

/// One end of an object's interval on one axis.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Endpoint {
    value: f64,
    /// `slot << 1 | is_max`.
    tag: u32,
}

impl Endpoint {
    fn new(value: f64, slot: u32, is_max: bool) -> Self {
        Self { value, tag: slot << 1 | u32::from(is_max) }
    }

    fn owner(self) -> u32 {
        self.tag >> 1
    }

    fn is_max(self) -> bool {
        self.tag & 1 == 1
    }

    fn kind(self) -> usize {
        (self.tag & 1) as usize
    }

    /// Whether `self` sorts strictly before `other`: by value, and at equal values every minimum
    /// before every maximum, so that touching intervals (`a.max == b.min`) have `b.min` before
    /// `a.max` and count as overlapping.
    fn before(self, other: Endpoint) -> bool {
        self.value < other.value || (self.value == other.value && !self.is_max() && other.is_max())
    }
}

/// The key of the unordered pair of slots `a != b`.
fn pair_key(a: u32, b: u32) -> u64 {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    u64::from(lo) << 32 | u64::from(hi)
}

/// Sweep and prune with persistent sorted endpoint lists and an incrementally maintained pair
/// set: the algorithm of the thesis's §4.5 comparison.
///
/// * Per axis, the `2N` interval end points are kept sorted (by value; minima before maxima at
///   equal values, so touching boxes overlap).
/// * [`update`](BroadPhase::update) writes the new end points and restores the order by
///   **insertion sort** of the object's endpoints, starting from their old positions: cheap when
///   objects move little between steps (temporal coherence), `O(N)` per object in the worst case.
/// * Every time a minimum and a maximum of two objects swap, the pair's overlap on that axis
///   starts or stops; a start adds the pair to the **pair set** if the two boxes now overlap on
///   all three axes, a stop removes it. [`find_pairs`](BroadPhase::find_pairs) reports that set.
/// * [`insert`](BroadPhase::insert) places the six endpoints by binary search and a shift of
///   the arrays (renumbering the moved endpoints) and finds the new object's pairs by testing it
///   against every stored box: `O(N)` per insertion, so inserting `N` objects one by one takes
///   `O(N²)`, like the pe implementation in the thesis's Fig. 27.
///   [`remove`](BroadPhase::remove) is `O(N + pairs)`.
///
/// Pairs are reported in the order of the pair set (a hash set, so effectively unordered), each
/// as `(a, b)` with `a.slot() < b.slot()`.
///
/// ```
/// use collide_benches::broadphase::IncrementalSap;
/// use contact_core::BroadPhase;
/// use geometry_core::{Aabb, DVec3};
/// let cube = |x: f64| Aabb::new(DVec3::new(x, 0.0, 0.0), DVec3::new(x + 1.0, 1.0, 1.0)).unwrap();
/// let mut sap = IncrementalSap::new();
/// let a = sap.insert(cube(0.0)).unwrap();
/// let b = sap.insert(cube(3.0)).unwrap();
/// let mut pairs = Vec::new();
/// sap.find_pairs(&mut pairs);
/// assert!(pairs.is_empty());
/// sap.update(b, cube(1.0)).unwrap(); // touching counts
/// sap.find_pairs(&mut pairs);
/// assert_eq!(pairs, vec![(a, b)]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct IncrementalSap {
    /// Liveness and generations; the data live in the arrays below, indexed by slot.
    objects: Slots<()>,
    /// Where each object's endpoints are in `axes` (`[axis][min, max]`), by slot.
    positions: Vec<[[u32; 2]; 3]>,
    /// The boxes, by slot (stale for free slots).
    boxes: Vec<Aabb>,
    axes: [Vec<Endpoint>; 3],
    pairs: HashSet<u64>,
}

/// The parts of [`IncrementalSap`] that the insertion sort touches, borrowed separately from
/// the axis being sorted.
struct SortContext<'a> {
    positions: &'a mut [[[u32; 2]; 3]],
    boxes: &'a [Aabb],
    pairs: &'a mut HashSet<u64>,
}

impl SortContext<'_> {
    /// Moves the endpoint at `index` of `axis` to its sorted place, firing the overlap events of
    /// the endpoints it passes.
    fn sort_endpoint(&mut self, list: &mut [Endpoint], axis: usize, index: usize) {
        let e = list[index];
        let mut j = index;
        while j > 0 && e.before(list[j - 1]) {
            let f = list[j - 1];
            list[j] = f;
            self.positions[f.owner() as usize][axis][f.kind()] = j as u32;
            if f.owner() != e.owner() && e.is_max() != f.is_max() {
                // `e` now comes before `f`: a minimum passing a maximum starts an overlap on
                // this axis, a maximum passing a minimum ends one.
                self.event(e.owner(), f.owner(), !e.is_max());
            }
            j -= 1;
        }
        if j == index {
            while j + 1 < list.len() && list[j + 1].before(e) {
                let f = list[j + 1];
                list[j] = f;
                self.positions[f.owner() as usize][axis][f.kind()] = j as u32;
                if f.owner() != e.owner() && e.is_max() != f.is_max() {
                    // `e` now comes after `f`: a maximum passing a minimum starts an overlap, a
                    // minimum passing a maximum ends one.
                    self.event(e.owner(), f.owner(), e.is_max());
                }
                j += 1;
            }
        }
        list[j] = e;
        self.positions[e.owner() as usize][axis][e.kind()] = j as u32;
    }

    fn event(&mut self, a: u32, b: u32, starts: bool) {
        if starts {
            if self.boxes[a as usize].overlaps(&self.boxes[b as usize]) {
                self.pairs.insert(pair_key(a, b));
            }
        } else {
            self.pairs.remove(&pair_key(a, b));
        }
    }
}

impl IncrementalSap {
    /// An empty structure.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of overlapping pairs currently in the pair set.
    pub fn pair_count(&self) -> usize {
        self.pairs.len()
    }

    /// Heap bytes held by the structure (capacities of its arrays and of the pair set).
    ///
    /// ```
    /// use collide_benches::broadphase::IncrementalSap;
    /// assert_eq!(IncrementalSap::new().heap_bytes(), 0);
    /// ```
    pub fn heap_bytes(&self) -> usize {
        self.objects.heap_bytes()
            + self.positions.capacity() * size_of::<[[u32; 2]; 3]>()
            + self.boxes.capacity() * size_of::<Aabb>()
            + self.axes.iter().map(|a| a.capacity() * size_of::<Endpoint>()).sum::<usize>()
            // hashbrown: one control byte per bucket plus the key; capacity() is ~7/8 of buckets.
            + (self.pairs.capacity() * 8).div_ceil(7) * (size_of::<u64>() + 1)
    }

    fn live(&self, handle: SlotHandle) -> Result<(), BroadPhaseError> {
        self.objects.get(handle).copied().ok_or(BroadPhaseError::UnknownHandle)
    }

    /// Renumbers the endpoints of `axis` from `from` on (after an insertion or removal).
    fn renumber(&mut self, axis: usize, from: usize) {
        for (i, e) in self.axes[axis].iter().enumerate().skip(from) {
            self.positions[e.owner() as usize][axis][e.kind()] = i as u32;
        }
    }
}

impl BroadPhase for IncrementalSap {
    type Handle = SlotHandle;
    type Error = BroadPhaseError;

    fn insert(&mut self, aabb: Aabb) -> Result<SlotHandle, BroadPhaseError> {
        let aabb = aabb.validate()?;
        let handle = self.objects.insert(());
        let slot = handle.slot();
        let s = slot as usize;
        if s == self.boxes.len() {
            self.boxes.push(aabb);
            self.positions.push([[0; 2]; 3]);
        } else {
            self.boxes[s] = aabb;
        }
        for axis in 0..3 {
            let lo = Endpoint::new(aabb.min[axis], slot, false);
            let hi = Endpoint::new(aabb.max[axis], slot, true);
            let list = &mut self.axes[axis];
            let i = list.partition_point(|e| e.before(lo));
            list.insert(i, lo);
            let j = i + 1 + list[i + 1..].partition_point(|e| e.before(hi));
            list.insert(j, hi);
            self.renumber(axis, i);
        }
        for (other, b) in self.boxes.iter().enumerate() {
            if other != s && self.objects.at(other as u32).is_some() && b.overlaps(&aabb) {
                self.pairs.insert(pair_key(slot, other as u32));
            }
        }
        Ok(handle)
    }

    fn remove(&mut self, handle: SlotHandle) -> Result<(), BroadPhaseError> {
        self.live(handle)?;
        let slot = handle.slot();
        let s = slot as usize;
        for axis in 0..3 {
            let [lo, hi] = self.positions[s][axis];
            let list = &mut self.axes[axis];
            list.remove(hi as usize);
            list.remove(lo as usize);
            self.renumber(axis, lo as usize);
        }
        self.pairs.retain(|&k| (k >> 32) as u32 != slot && k as u32 != slot);
        self.objects.remove(handle);
        Ok(())
    }

    fn update(&mut self, handle: SlotHandle, aabb: Aabb) -> Result<(), BroadPhaseError> {
        let aabb = aabb.validate()?;
        self.live(handle)?;
        let s = handle.slot() as usize;
        let old = std::mem::replace(&mut self.boxes[s], aabb);
        let mut ctx =
            SortContext { positions: &mut self.positions, boxes: &self.boxes, pairs: &mut self.pairs };
        for (axis, list) in self.axes.iter_mut().enumerate() {
            let [lo, hi] = ctx.positions[s][axis];
            list[lo as usize].value = aabb.min[axis];
            list[hi as usize].value = aabb.max[axis];
            // Sort first the endpoint that moves away from the other one, so that neither has
            // to pass its partner: a minimum moving left, else a maximum moving right.
            let max_first = aabb.min[axis] >= old.min[axis] && aabb.max[axis] > old.max[axis];
            if max_first {
                ctx.sort_endpoint(list, axis, hi as usize);
                let lo = ctx.positions[s][axis][0];
                ctx.sort_endpoint(list, axis, lo as usize);
            } else {
                ctx.sort_endpoint(list, axis, lo as usize);
                let hi = ctx.positions[s][axis][1];
                ctx.sort_endpoint(list, axis, hi as usize);
            }
        }
        Ok(())
    }

    fn find_pairs(&mut self, pairs: &mut Vec<(SlotHandle, SlotHandle)>) {
        pairs.clear();
        pairs.extend(
            self.pairs
                .iter()
                .map(|&k| (self.objects.handle_of((k >> 32) as u32), self.objects.handle_of(k as u32))),
        );
    }

    fn len(&self) -> usize {
        self.objects.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geometry_core::DVec3;

    fn aabb(min: [f64; 3], max: [f64; 3]) -> Aabb {
        Aabb::new(DVec3::from_array(min), DVec3::from_array(max)).unwrap()
    }

    /// The endpoint lists are sorted and the stored positions point at the right entries.
    fn check_invariants(sap: &IncrementalSap) {
        for (axis, list) in sap.axes.iter().enumerate() {
            assert_eq!(list.len(), 2 * sap.len());
            for w in list.windows(2) {
                assert!(!w[1].before(w[0]), "axis {axis} unsorted: {w:?}");
            }
            for (i, e) in list.iter().enumerate() {
                assert_eq!(sap.positions[e.owner() as usize][axis][e.kind()] as usize, i);
                let b = sap.boxes[e.owner() as usize];
                assert_eq!(e.value, if e.is_max() { b.max[axis] } else { b.min[axis] });
            }
        }
    }

    #[test]
    fn jumps_and_shrinks_keep_the_lists_sorted() {
        let mut sap = IncrementalSap::new();
        let a = sap.insert(aabb([0.0; 3], [1.0; 3])).unwrap();
        let b = sap.insert(aabb([2.0; 3], [3.0; 3])).unwrap();
        let c = sap.insert(aabb([0.5; 3], [2.5; 3])).unwrap();
        check_invariants(&sap);
        assert_eq!(sap.pair_count(), 2);
        // `a` jumps over `b` entirely; `c` shrinks to a point inside `b`; `b` grows.
        sap.update(a, aabb([5.0; 3], [6.0; 3])).unwrap();
        check_invariants(&sap);
        assert_eq!(sap.pair_count(), 1);
        sap.update(c, aabb([2.5; 3], [2.5; 3])).unwrap();
        check_invariants(&sap);
        sap.update(b, aabb([-1.0; 3], [5.0; 3])).unwrap();
        check_invariants(&sap);
        let mut pairs = Vec::new();
        sap.find_pairs(&mut pairs);
        let mut pairs: Vec<_> = pairs.into_iter().map(|(x, y)| (x.min(y), x.max(y))).collect();
        pairs.sort_unstable();
        assert_eq!(pairs, vec![(a, b), (b, c)]);
        sap.remove(b).unwrap();
        check_invariants(&sap);
        assert_eq!(sap.pair_count(), 0);
        assert!(matches!(sap.remove(b), Err(BroadPhaseError::UnknownHandle)));
        assert!(sap.update(b, aabb([0.0; 3], [1.0; 3])).is_err());
        let d = sap.insert(aabb([5.5, 5.5, 6.0], [7.0; 3])).unwrap();
        check_invariants(&sap);
        assert_eq!(d.slot(), b.slot());
        sap.find_pairs(&mut pairs);
        assert_eq!(pairs.len(), 1);
        assert!(sap.heap_bytes() > 0);
    }

    #[test]
    fn invalid_boxes_are_refused() {
        let mut sap = IncrementalSap::new();
        let bad = Aabb { min: DVec3::ONE, max: DVec3::ZERO };
        assert!(matches!(sap.insert(bad), Err(BroadPhaseError::InvalidAabb(_))));
        let h = sap.insert(aabb([0.0; 3], [1.0; 3])).unwrap();
        assert!(matches!(sap.update(h, bad), Err(BroadPhaseError::InvalidAabb(_))));
        assert_eq!(sap.len(), 1);
    }
}
