//! Incremental detection (beyond the thesis): when few objects changed since the previous
//! detection, reuse its pairs.
//!
//! A pair's overlap depends only on its two boxes (and on the objects' options, fixed at
//! insertion). So after a detection, the pairs of two objects that were neither updated with a
//! new box, nor removed, nor inserted since are exactly the previous detection's pairs between
//! such objects. The pairs involving a changed object are found by a box query for each changed
//! object against the whole structure (every grid, the everywhere container, the all-pairs
//! list). A pair of two changed objects is found from both sides; it is reported by the one with
//! the smaller id only.
//!
//! Cost: a pass over the previous pairs plus a query per changed object, instead of a full
//! detection. The structure keeps a copy of the pairs of each unfiltered detection that followed
//! few changes (a filter may change between calls, so filtered detections are neither cached
//! nor served incrementally; after many changes the next detection is a full one anyway, so the
//! copy is skipped) and one flag per object id. When a scene comes to rest, the first detection
//! with few changes is therefore a full one that fills the cache, and the following ones are
//! incremental.

use crate::detect::PairFilter;
use crate::hierarchy::Location;
use crate::query::gather_candidates;
use crate::{Handle, HierarchicalHashGrid, PairOrder};
use rayon::prelude::*;

/// Changed objects per parallel work unit.
const CHANGED_PER_UNIT: usize = 256;

/// What a detection leaves in the cache of pairs.
#[derive(Clone, Copy)]
enum Cache<'a> {
    /// The incremental path edited the cache into the detection's pairs.
    Current,
    /// A full detection found these pairs.
    Copy(&'a [(Handle, Handle)]),
    /// Nothing: a filtered detection, incremental detection disabled, or more changes than the
    /// share allows (then the next detection is a full one whatever happens).
    Drop,
}

/// What changed since the previous detection, and that detection's pairs.
#[derive(Debug, Clone, Default)]
pub(crate) struct ChangeLog {
    /// The pairs of the previous detection, valid only when `cached_valid`.
    cached: Vec<(Handle, Handle)>,
    /// Whether `cached` holds the pairs of the previous detection (an unfiltered one, with
    /// incremental detection enabled).
    cached_valid: bool,
    /// Ids inserted, removed or given a new box since the previous detection, each once, in the
    /// order in which they first changed.
    changed: Vec<u32>,
    /// `flags[id]`: whether `id` is in `changed`.
    flags: Vec<bool>,
    /// More changes than this (the share limit at the previous detection) make the next
    /// detection a full one, so recording stops there: a step that moves everything pays for
    /// no more than `limit` records.
    limit: usize,
    /// Whether more than `limit` changes happened (the record is incomplete).
    saturated: bool,
    /// Detections served by the incremental path (for tests).
    pub(crate) incremental_runs: usize,
}

impl ChangeLog {
    /// Records that object `id` was inserted, removed or given a new box.
    #[inline]
    pub(crate) fn mark(&mut self, id: u32) {
        let i = id as usize;
        if self.saturated || self.flags.get(i) == Some(&true) {
            return;
        }
        if self.changed.len() >= self.limit {
            self.saturated = true;
            return;
        }
        if i >= self.flags.len() {
            self.flags.resize(i + 1, false);
        }
        self.flags[i] = true;
        self.changed.push(id);
    }

    /// Forgets the changes and updates the cached pairs as `cache` says. `limit` is the number
    /// of changes beyond which the next detection will be a full one.
    fn finish(&mut self, cache: Cache<'_>, limit: usize) {
        for &id in &self.changed {
            self.flags[id as usize] = false;
        }
        self.changed.clear();
        self.limit = limit;
        self.saturated = false;
        self.cached_valid = !matches!(cache, Cache::Drop);
        match cache {
            Cache::Current => {}
            Cache::Copy(pairs) => {
                self.cached.clear();
                self.cached.extend_from_slice(pairs);
            }
            Cache::Drop => self.cached.clear(),
        }
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.cached.capacity() * size_of::<(Handle, Handle)>()
            + self.changed.capacity() * size_of::<u32>()
            + self.flags.capacity()
    }
}

impl HierarchicalHashGrid {
    /// Detection with the incremental path when it applies (see the module documentation),
    /// otherwise Algorithm 4 over everything; then records the pairs for the next detection.
    pub(crate) fn detect(
        &mut self,
        pairs: &mut Vec<(Handle, Handle)>,
        filter: Option<PairFilter<'_>>,
        parallel: bool,
    ) {
        pairs.clear();
        self.rebuild();
        let share = self.config.incremental_share;
        let enabled = share > 0.0 && filter.is_none();
        let log = &self.changes;
        let few_changes = !log.saturated && log.changed.len() as f64 <= share * self.len as f64;
        let incremental = enabled && log.cached_valid && few_changes;
        if self.dynamic_len == 0 {
            // Only static objects (or none): no pairs.
        } else if incremental {
            let objects = self.aabbs.len();
            self.changes.flags.resize(objects.max(self.changes.flags.len()), false);
            self.detect_changed(pairs, parallel);
            self.changes.incremental_runs += 1;
        } else {
            self.detect_all(pairs, filter, parallel);
        }
        // (`as` saturates; the share is at most 1, so the limit is at most the object count.)
        let limit = if enabled { (share * self.len as f64) as usize } else { 0 };
        // The pairs are kept only after few changes: while most objects move at every step, the
        // next detection will be a full one anyway, and the copy would be wasted. (When motion
        // stops, one full detection with few changes fills the cache, and the next is incremental.)
        let cache = match (enabled && few_changes, incremental && self.dynamic_len > 0) {
            (false, _) => Cache::Drop,
            (true, true) => Cache::Current,
            (true, false) => Cache::Copy(pairs),
        };
        self.changes.finish(cache, limit);
    }

    /// The incremental path: the previous pairs of unchanged objects, then the pairs of the
    /// changed ones. Leaves the result both in `pairs` and in the cache.
    #[allow(clippy::needless_bitwise_bool, reason = "no short-circuit: one branch per pair, not two")]
    fn detect_changed(&mut self, pairs: &mut Vec<(Handle, Handle)>, parallel: bool) {
        // Edit the cached pairs in place (one pass, no copy), then copy them out once.
        let mut cached = std::mem::take(&mut self.changes.cached);
        let flags = &self.changes.flags[..];
        cached.retain(|&(a, b)| !flags[a.index as usize] & !flags[b.index as usize]);
        let retained = cached.len();
        let changed = &self.changes.changed;
        if parallel && changed.len() > CHANGED_PER_UNIT {
            let buffers: Vec<Vec<(Handle, Handle)>> = changed
                .par_chunks(CHANGED_PER_UNIT)
                .map(|ids| {
                    let (mut buffer, mut candidates) = (Vec::new(), Vec::new());
                    for &id in ids {
                        self.pairs_of_changed(id, &mut candidates, &mut buffer);
                    }
                    buffer
                })
                .collect();
            for buffer in buffers {
                cached.extend_from_slice(&buffer);
            }
        } else {
            let mut candidates = Vec::new();
            for &id in changed {
                self.pairs_of_changed(id, &mut candidates, &mut cached);
            }
        }
        if self.config.pair_order == PairOrder::Sorted {
            // The retained pairs are sorted already (a subset of the sorted previous output):
            // sort the new ones and merge.
            cached[retained..].sort_unstable();
            let (old, new) = cached.split_at(retained);
            let (mut i, mut j) = (0, 0);
            while i < old.len() && j < new.len() {
                if old[i] < new[j] {
                    pairs.push(old[i]);
                    i += 1;
                } else {
                    pairs.push(new[j]);
                    j += 1;
                }
            }
            pairs.extend_from_slice(&old[i..]);
            pairs.extend_from_slice(&new[j..]);
            cached.clear();
            cached.extend_from_slice(pairs);
        } else {
            pairs.extend_from_slice(&cached);
        }
        self.changes.cached = cached;
    }

    /// The pairs of changed object `id` (nothing if it was removed) with every object, except
    /// changed objects with a smaller id (they report the pair themselves). `candidates` is
    /// scratch space.
    #[allow(clippy::needless_bitwise_bool, reason = "no short-circuit: see the loop")]
    fn pairs_of_changed(&self, id: u32, candidates: &mut Vec<u32>, out: &mut Vec<(Handle, Handle)>) {
        if self.locations[id as usize] == Location::Free {
            return;
        }
        let box_a = self.aabbs[id as usize];
        candidates.clear();
        candidates.extend_from_slice(&self.all_pairs);
        candidates.extend_from_slice(&self.everywhere);
        // (An object in the everywhere container has a box no grid can place, so the query
        // gathers every grid's objects.)
        for grid in &self.grids {
            gather_candidates(grid, &box_a, candidates);
        }
        let flags = &self.changes.flags;
        let ha = self.handle_of(id);
        // Unbounded objects carry the box of all of space, so the box test passes for them.
        // No short-circuit: without a branch per comparison the processor fetches the boxes of
        // many candidates at once (each is a likely cache miss) instead of one after another.
        for &b in candidates.iter() {
            let box_b = &self.aabbs[b as usize];
            let (lo, hi) = (box_a.min.cmple(box_b.max), box_b.min.cmple(box_a.max));
            let reported_by_b = (b < id) & flags[b as usize];
            if (lo & hi).all() & (b != id) & !reported_by_b {
                self.report(ha, self.handle_of(b), None, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{HhGridConfig, HierarchicalHashGrid, PairOrder};
    use contact_core::BroadPhase;
    use geometry_core::{Aabb, DVec3};

    fn cube(p: DVec3, edge: f64) -> Aabb {
        Aabb::new(p, p + DVec3::splat(edge)).unwrap()
    }

    /// The incremental path is taken exactly when few objects changed, and reports what a full
    /// detection reports (same pairs; in sorted order, the same sequence).
    #[test]
    fn incremental_path_is_taken_and_agrees_with_full_detection() {
        for order in [PairOrder::Traversal, PairOrder::Sorted] {
            let config = HhGridConfig { pair_order: order, ..HhGridConfig::default() };
            let mut incremental = HierarchicalHashGrid::new(config.clone()).unwrap();
            let mut full =
                HierarchicalHashGrid::new(HhGridConfig { incremental_share: 0.0, ..config }).unwrap();
            let mut handles = Vec::new();
            for i in 0..400u32 {
                let f = f64::from(i);
                let p = DVec3::new((f * 0.37).sin(), (f * 0.91).cos(), (f * 0.13).sin()) * 6.0;
                let edge = 0.5 + (f * 0.71).sin().abs();
                handles
                    .push((incremental.insert(cube(p, edge)).unwrap(), full.insert(cube(p, edge)).unwrap()));
            }
            let (mut a, mut b) = (Vec::new(), Vec::new());
            incremental.find_pairs(&mut a);
            incremental.find_pairs(&mut a);
            assert_eq!(incremental.changes.incremental_runs, 0, "the cache fills after few changes");
            for round in 0..30u32 {
                // A few objects move, one is removed and one inserted per round.
                for k in 0..8 {
                    let i = ((round * 37 + k * 11) % 390) as usize;
                    let p = DVec3::new(f64::from(round) * 0.1, f64::from(k) * 0.7, 0.0);
                    incremental.update(handles[i].0, cube(p, 0.8)).unwrap();
                    full.update(handles[i].1, cube(p, 0.8)).unwrap();
                }
                let (h, g) = handles.swap_remove((round as usize * 7) % handles.len());
                incremental.remove(h).unwrap();
                full.remove(g).unwrap();
                let p = DVec3::splat(f64::from(round) * 0.2 - 3.0);
                handles.push((incremental.insert(cube(p, 1.0)).unwrap(), full.insert(cube(p, 1.0)).unwrap()));
                incremental.find_pairs(&mut a);
                full.find_pairs(&mut b);
                if order == PairOrder::Sorted {
                    assert_eq!(a, b);
                } else {
                    let (mut x, mut y) = (a.clone(), b.clone());
                    x.sort_unstable();
                    y.sort_unstable();
                    assert_eq!(x, y);
                }
            }
            assert_eq!(incremental.changes.incremental_runs, 30);
            // Everything moves: more than a quarter changed, so the next detection is full.
            for &(h, _) in &handles {
                let moved = incremental.aabb(h).unwrap();
                incremental.update(h, cube(moved.min + DVec3::splat(0.01), moved.longest_edge())).unwrap();
            }
            incremental.find_pairs(&mut a);
            assert_eq!(incremental.changes.incremental_runs, 30);
        }
    }
}
