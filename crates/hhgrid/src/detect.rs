//! The detection step (thesis Algorithm 4), serial and parallel with identical output.
//!
//! The work is cut into units in a fixed order: for each grid, finest first, runs of consecutive
//! occupied cells; then the all-pairs list; then the everywhere container. Each unit writes its
//! pairs to its own buffer and the buffers are concatenated in unit order, so the parallel
//! output equals the serial one pair for pair.

use crate::hash_grid::{HashGrid, SELF_NEIGHBOUR};
use crate::packed::{Gathered, PackedEntry, PackedGrid, Query};
use crate::{Handle, HierarchicalHashGrid, PairOrder};
use geometry_core::Aabb;
use rayon::prelude::*;
use smallvec::SmallVec;
use std::sync::{Mutex, PoisonError};

/// A user filter applied to every overlapping pair before it is reported.
///
/// ```
/// use contact_core::BroadPhase;
/// use geometry_core::{Aabb, DVec3};
/// use hhgrid::{HierarchicalHashGrid, PairFilter};
/// let mut grid = HierarchicalHashGrid::default();
/// let unit = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
/// let h: Vec<_> = (0..3).map(|_| grid.insert(unit).unwrap()).collect();
/// // Of the three overlapping pairs, keep those that involve the first object.
/// let first = h[0];
/// let involves_first: PairFilter<'_> = &|a, b| a == first || b == first;
/// let mut pairs = Vec::new();
/// grid.find_pairs_filtered(involves_first, &mut pairs);
/// pairs.sort();
/// assert_eq!(pairs, vec![(h[0], h[1]), (h[0], h[2])]);
/// ```
pub type PairFilter<'a> = &'a (dyn Fn(Handle, Handle) -> bool + Sync);

/// Neighbour directions (see [`SELF_NEIGHBOUR`]) with `dx = 0` whose run of three cells along x
/// covers the forward neighbours other than `+x`: `(dy, dz)` = `(1, 0)`, `(-1, 1)`, `(0, 1)`,
/// `(1, 1)`.
const FORWARD_RUN_CENTRES: [usize; 4] = [16, 19, 22, 25];

/// Occupied cells per parallel work unit.
const CELLS_PER_UNIT: usize = 512;

#[derive(Debug, Clone, Copy)]
enum Unit {
    /// Occupied cells `start..end` of the grid at position `rank` of the size order.
    Cells {
        rank: usize,
        start: usize,
        end: usize,
    },
    AllPairs,
    Everywhere,
}

/// The cells of a coarser grid that an object searches (see
/// [`HhGridConfig::narrow_coarse_stencil`](crate::HhGridConfig::narrow_coarse_stencil)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CoarseCells {
    /// The 27-cell neighbourhood of this cell (the object's reference cell).
    Stencil(u32),
    /// The reference range (lowest cell coordinates, cells per axis).
    Range(([i64; 3], [u64; 3])),
}

/// Neighbour directions with `dx = 0`: their runs of three cells cover all 27.
const ALL_RUN_CENTRES: [usize; 9] = [1, 4, 7, 10, 13, 16, 19, 22, 25];

/// Gathers the entries of the 27-cell neighbourhood of cell `home` of `grid` into `gathered`:
/// nine runs of three cells along x, or, on the grid's x border, the 27 cells one by one.
fn gather_stencil(grid: &HashGrid, packed: &PackedGrid, home: u32, gathered: &mut Gathered) {
    let offsets = grid.neighbour_offsets(home);
    let cell = |n: usize| home.wrapping_add_signed(offsets[n]);
    if grid.x_is_inner(home) {
        // (A loop, not `array::map`, which was not inlined: measured 13 % of detection.)
        let mut ranges = [[0u32; 2]; 9];
        for (range, n) in ranges.iter_mut().zip(ALL_RUN_CENTRES) {
            *range = packed.run_range(grid, cell(n));
        }
        gathered.gather(packed, &ranges);
    } else {
        let mut ranges = [[0u32; 2]; 27];
        for (n, range) in ranges.iter_mut().enumerate() {
            *range = packed.cell_range(grid, cell(n));
        }
        gathered.gather(packed, &ranges);
    }
}

/// Gathers the entries of the reference cells `range` (lowest cell coordinates and cells per
/// axis, see [`HashGrid::reference_range`]) of `grid` into `gathered`: for each row of cells
/// along x, one run when the row does not wrap, else cell by cell.
///
/// A box of a finer grid (smaller than half a cell here) spans at most 3 reference cells per
/// axis, usually 2: at most 27 cells and usually 8, against the 27 of the neighbourhood of its
/// reference point that the thesis's Algorithm 4 visits (measured: detection 1.5× faster with
/// sizes varying ×12, where most of the time went to pairs across grids).
fn gather_reference_cells(
    grid: &HashGrid,
    packed: &PackedGrid,
    (lo, lens): ([i64; 3], [u64; 3]),
    gathered: &mut Gathered,
) {
    // A range longer than the grid wraps onto every cell (capped at the grid size).
    let mut ranges: SmallVec<[[u32; 2]; 32]> = SmallVec::new();
    for dz in 0..lens[2] as i64 {
        for dy in 0..lens[1] as i64 {
            let first = grid.hash([lo[0], lo[1] + dy, lo[2] + dz]);
            if grid.row_holds(first, lens[0] as u32) {
                ranges.push(packed.cells_range(grid, first, lens[0] as u32));
            } else {
                for dx in 0..lens[0] as i64 {
                    ranges.push(packed.cell_range(grid, grid.hash([lo[0] + dx, lo[1] + dy, lo[2] + dz])));
                }
            }
        }
    }
    gathered.gather(packed, &ranges);
}

/// Appends the pairs of `buffers` to `pairs`, in order, copying the buffers in parallel. At
/// 10⁶ objects the pairs are 30 MB, and one thread copying them was a serial tail of the
/// parallel detection (measured with two pinned threads: 105 -> 98 ns per object of detection
/// at 10⁶ equal cubes, 69 -> 67 at 10⁵).
fn concatenate(buffers: &[Vec<(Handle, Handle)>], pairs: &mut Vec<(Handle, Handle)>) {
    let total: usize = buffers.iter().map(Vec::len).sum();
    pairs.reserve(total);
    let start = pairs.len();
    // One part of the free capacity per buffer, in order (each behind a lock that only its
    // own task takes, so that tasks given by index can write it).
    let mut rest = &mut pairs.spare_capacity_mut()[..total];
    let mut parts = Vec::with_capacity(buffers.len());
    for buffer in buffers {
        let (part, tail) = rest.split_at_mut(buffer.len());
        parts.push(Mutex::new(part));
        rest = tail;
    }
    crate::sharing::for_each_index(buffers.len(), |i| {
        let mut part = parts[i].lock().unwrap_or_else(PoisonError::into_inner);
        for (slot, &pair) in part.iter_mut().zip(&buffers[i]) {
            slot.write(pair);
        }
    });
    // SAFETY: the parts cover the first `total` elements of the free capacity, each part has
    // its buffer's length, and every element of every part was written just above.
    unsafe { pairs.set_len(start + total) };
}

impl HierarchicalHashGrid {
    /// Finds all overlapping pairs in parallel (rayon). The output is identical to
    /// [`find_pairs`](contact_core::BroadPhase::find_pairs): same pairs, same order.
    ///
    /// Runs in the current rayon pool (the global one unless called inside
    /// [`ThreadPool::install`](rayon::ThreadPool::install)). Called from a thread outside the
    /// pool, that thread takes part: it starts on the work at once, and the workers it wakes
    /// share what is left when they arrive, so that a detection of a few milliseconds does not
    /// wait for sleeping workers. On the 2-vCPU AMD virtual machine the benchmarks ran on, at
    /// 10⁵ equal cubes, this took rayon's default pool from 0.96–1.09× the serial speed to
    /// 1.53–1.76× (six runs each of a scratch driver alternating serial and parallel steps),
    /// and in the benchmark's full run from 1.08× to 1.34× (1.39× to 1.95× at 10⁶); the
    /// parallel section of `docs/results/hhgrid.md` has the figures of the latest run.
    ///
    /// ```
    /// use contact_core::BroadPhase;
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid::HierarchicalHashGrid;
    /// let mut grid = HierarchicalHashGrid::default();
    /// for i in 0..100 {
    ///     let p = DVec3::new(f64::from(i) * 0.5, 0.0, 0.0);
    ///     grid.insert(Aabb::new(p, p + DVec3::ONE).unwrap()).unwrap();
    /// }
    /// let (mut serial, mut parallel) = (Vec::new(), Vec::new());
    /// grid.find_pairs(&mut serial);
    /// grid.find_pairs_parallel(&mut parallel);
    /// assert_eq!(serial, parallel);
    /// assert_eq!(serial.len(), 99 + 98); // neighbours at distance 0.5 and 1.0 (touching)
    /// ```
    pub fn find_pairs_parallel(&mut self, pairs: &mut Vec<(Handle, Handle)>) {
        self.detect(pairs, None, true);
    }

    /// Finds all overlapping pairs that `filter` accepts (serial or parallel per the
    /// configuration). The filter runs inside detection, after the group and box tests.
    ///
    /// ```
    /// use contact_core::BroadPhase;
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid::HierarchicalHashGrid;
    /// let mut grid = HierarchicalHashGrid::default();
    /// let a = grid.insert(Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap()).unwrap();
    /// let b = grid.insert(Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap()).unwrap();
    /// let mut pairs = Vec::new();
    /// grid.find_pairs_filtered(&|x, y| x != a && y != a, &mut pairs);
    /// assert!(pairs.is_empty());
    /// ```
    pub fn find_pairs_filtered(&mut self, filter: PairFilter<'_>, pairs: &mut Vec<(Handle, Handle)>) {
        self.detect(pairs, Some(filter), self.config.parallel);
    }

    /// Algorithm 4 over the whole structure (`pairs` empty, updates rebuilt, some object not
    /// static).
    pub(crate) fn detect_all(
        &mut self,
        pairs: &mut Vec<(Handle, Handle)>,
        filter: Option<PairFilter<'_>>,
        parallel: bool,
    ) {
        // Snapshot the cells' boxes (see the `packed` module).
        let objects = (&self.aabbs[..], &self.meta[..], &self.locations[..]);
        crate::packed::fill(&mut self.packed, &mut self.grids, objects, &mut self.packed_positions, parallel);
        let units = self.units(if parallel { CELLS_PER_UNIT } else { usize::MAX });
        if parallel && units.len() > 1 {
            let buffers = crate::sharing::map_indices(units.len(), |i| {
                // Room for 4 pairs per cell (the thesis workload has about 3), so that the
                // buffer rarely grows (measured: 3 % of a parallel detection at 10⁵ cubes).
                let mut buffer = Vec::with_capacity(4 * CELLS_PER_UNIT);
                self.run_unit(units[i], filter, &mut buffer);
                buffer
            });
            concatenate(&buffers, pairs);
        } else {
            for unit in units {
                self.run_unit(unit, filter, pairs);
            }
        }
        if self.config.pair_order == PairOrder::Sorted {
            if parallel {
                pairs.par_sort_unstable();
            } else {
                pairs.sort_unstable();
            }
        }
    }

    fn units(&self, cells_per_unit: usize) -> Vec<Unit> {
        let mut units = Vec::new();
        for (rank, &g) in self.order.iter().enumerate() {
            let occupied = self.grids[g as usize].occupied.len();
            let mut start = 0;
            while start < occupied {
                let end = start.saturating_add(cells_per_unit).min(occupied);
                units.push(Unit::Cells { rank, start, end });
                start = end;
            }
        }
        if !self.all_pairs.is_empty() {
            units.push(Unit::AllPairs);
        }
        if !self.everywhere.is_empty() {
            units.push(Unit::Everywhere);
        }
        units
    }

    fn run_unit(&self, unit: Unit, filter: Option<PairFilter<'_>>, out: &mut Vec<(Handle, Handle)>) {
        match unit {
            Unit::Cells { rank, start, end } => self.detect_cells(rank, start, end, filter, out),
            Unit::AllPairs => {
                for (i, &a) in self.all_pairs.iter().enumerate() {
                    let box_a = &self.aabbs[a as usize];
                    for &b in &self.all_pairs[i + 1..] {
                        self.consider(a, box_a, b, &self.aabbs[b as usize], filter, out);
                    }
                }
            }
            Unit::Everywhere => self.detect_everywhere(filter, out),
        }
    }

    /// Algorithm 4 for the occupied cells at positions `start..end` of the traversal order of
    /// the grid of the given rank, reading boxes from the packed snapshot.
    fn detect_cells(
        &self,
        rank: usize,
        start: usize,
        end: usize,
        filter: Option<PairFilter<'_>>,
        out: &mut Vec<(Handle, Handle)>,
    ) {
        let g = self.order[rank] as usize;
        let (grid, packed) = (&self.grids[g], &self.packed[g]);
        let coarser = &self.order[rank + 1..];
        let (mut gathered, mut hits) = (Gathered::default(), Vec::new());
        for i in start..end {
            let cell = packed.cell_at(i);
            let row = packed.row_at(i);
            let offsets = grid.neighbour_offsets(cell);
            if grid.x_is_inner(cell) {
                // The +x neighbour's entries directly follow the cell's own (traversal order is
                // cell order), so the cell and its +x neighbour are one range.
                let own_end = row.end.max(packed.end_of(grid, cell + 1));
                // The other 12 forward neighbours: four runs of three cells along x, centred on
                // (y + 1, z), (y - 1, z + 1), (y, z + 1) and (y + 1, z + 1).
                let run = |n: usize| packed.run_range(grid, cell.wrapping_add_signed(offsets[n]));
                // (Spelled out: `array::map` was not inlined here; measured 3 % of detection.)
                let [n0, n1, n2, n3] = FORWARD_RUN_CENTRES;
                let ranges = [[row.start as u32, own_end as u32], run(n0), run(n1), run(n2), run(n3)];
                gathered.gather(packed, &ranges);
            } else {
                // On the x border the wrap separates a row's cells: the 13 forward neighbours
                // one cell at a time (every pair of adjacent cells is visited once).
                let mut ranges = [[0u32; 2]; 14];
                ranges[0] = [row.start as u32, row.end as u32];
                for (range, &offset) in ranges[1..].iter_mut().zip(&offsets[SELF_NEIGHBOUR + 1..]) {
                    *range = packed.cell_range(grid, cell.wrapping_add_signed(offset));
                }
                gathered.gather(packed, &ranges);
            }
            self.detect_cell(row.len(), &gathered, &mut hits, filter, out);
            // Against every coarser grid: pairs across grids are found from the finer object
            // only, against the coarse objects of the 27-cell neighbourhood of its reference
            // point (Algorithm 4) or, narrowed, of the reference cells that may hold a box
            // overlapping its own. The candidates are gathered once for the objects of the
            // cell that need the same coarse cells (most of them).
            for &h in coarser {
                let (coarse, coarse_packed) = (&self.grids[h as usize], &self.packed[h as usize]);
                if coarse.object_count == 0 {
                    // A grid stays when its last object leaves (its level may fill again).
                    continue;
                }
                let mut gathered_for = None;
                for a in &packed.entries[row.clone()] {
                    let Some(cells) = self.coarse_cells(coarse, a) else { continue };
                    if gathered_for != Some(cells) {
                        gathered_for = Some(cells);
                        match cells {
                            CoarseCells::Range(range) => {
                                gather_reference_cells(coarse, coarse_packed, range, &mut gathered);
                            }
                            CoarseCells::Stencil(home) => {
                                gather_stencil(coarse, coarse_packed, home, &mut gathered);
                            }
                        }
                    }
                    self.test_candidates(a, gathered.entries(), &mut hits, filter, out);
                }
            }
        }
    }

    /// Pairs of one cell's `own` entries, gathered first in `gathered` and followed there by
    /// their candidates within the grid (any neighbour stored right after the cell, then the
    /// other forward neighbours): each entry `p` against the gathered entries after it.
    #[inline]
    fn detect_cell(
        &self,
        own: usize,
        gathered: &Gathered,
        hits: &mut Vec<u32>,
        filter: Option<PairFilter<'_>>,
        out: &mut Vec<(Handle, Handle)>,
    ) {
        let candidates = gathered.entries();
        for (p, a) in candidates[..own].iter().enumerate() {
            self.test_candidates(a, &candidates[p + 1..], hits, filter, out);
        }
    }

    /// Entry `a` against every one of `candidates`, gathered in one run (see [`Gathered`]):
    /// one loop without data-dependent branches tests them all, writing each candidate's
    /// position to `hits` and advancing the write position only when the rounded boxes may
    /// overlap; then the few hits are confirmed. With a handful of entries per cell, separate
    /// loops per neighbour cell and a branch per test made the processor mispredict several
    /// loop exits per entry (measured: a fifth of detection).
    #[inline]
    fn test_candidates(
        &self,
        a: &PackedEntry,
        candidates: &[PackedEntry],
        hits: &mut Vec<u32>,
        filter: Option<PairFilter<'_>>,
        out: &mut Vec<(Handle, Handle)>,
    ) {
        if hits.len() < candidates.len() {
            hits.resize(candidates.len(), 0);
        }
        let query = a.query();
        let mut found = 0;
        for (j, b) in candidates.iter().enumerate() {
            hits[found] = j as u32;
            found += usize::from(b.may_overlap(&query));
        }
        for &j in &hits[..found] {
            self.confirm(a, &query, &candidates[j as usize], filter, out);
        }
    }

    /// The cells of the coarser grid `coarse` whose objects entry `a` (of a finer grid) must be
    /// tested against: its narrowed reference range when
    /// [`narrow_coarse_stencil`](crate::HhGridConfig::narrow_coarse_stencil) is on and the range
    /// is no larger than the stencil, else the 27-cell stencil of Algorithm 4; `None` if the
    /// object cannot be placed in `coarse` at all.
    #[inline]
    fn coarse_cells(&self, coarse: &HashGrid, a: &PackedEntry) -> Option<CoarseCells> {
        let exact = || &self.aabbs[a.id as usize];
        let at_most_stencil =
            |(_, lens): &([i64; 3], [u64; 3])| lens[0].saturating_mul(lens[1]).saturating_mul(lens[2]) <= 27;
        let narrowed = if self.config.narrow_coarse_stencil {
            // The range of a box containing the object's is a superset of its own, so the
            // entry's rounded box serves (each coarse object still meets the object once),
            // without fetching the exact box from memory. But far from the origin, or at scales
            // near f32's smallest, one rounding step can exceed the coarse cells, and the rounded
            // box then spans many of them (measured: detection 700× slower for boxes of 1 mm a
            // million units from the origin): such a range yields to the exact box's, and that
            // one, if it is still wider, to the stencil.
            let enclosing = a.enclosing_box().unwrap_or(*exact());
            coarse
                .reference_range(&enclosing)
                .filter(at_most_stencil)
                .or_else(|| coarse.reference_range(exact()).filter(at_most_stencil))
        } else {
            None
        };
        // (A box placeable in a finer grid is placeable in every coarser one, so the stencil is
        // the fallback, never needed for boxes of ordinary sizes and positions.)
        narrowed
            .map(CoarseCells::Range)
            .or_else(|| coarse.coordinates(exact().min).map(|c| CoarseCells::Stencil(coarse.hash(c))))
    }

    /// The everywhere container against every object, and within itself.
    fn detect_everywhere(&self, filter: Option<PairFilter<'_>>, out: &mut Vec<(Handle, Handle)>) {
        for (i, &a) in self.everywhere.iter().enumerate() {
            let box_a = &self.aabbs[a as usize];
            for &b in self.everywhere[i + 1..].iter().chain(&self.all_pairs) {
                self.consider(a, box_a, b, &self.aabbs[b as usize], filter, out);
            }
            for &g in &self.order {
                for b in self.packed[g as usize].entries() {
                    self.consider(a, box_a, b.id, &self.aabbs[b.id as usize], filter, out);
                }
            }
        }
    }

    /// The exact test and the report of a candidate `b` of object `a` (whose entry's
    /// [`query`](PackedEntry::query) is `query`) that passed the rounded test (mostly
    /// overlapping pairs): almost all are confirmed from the rounded boxes too (see
    /// [`PackedEntry::certainly_overlaps`]), the rest on the exact `f64` boxes.
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "measured: 4 % of detection when left out of line")]
    fn confirm(
        &self,
        a: &PackedEntry,
        query: &Query,
        b: &PackedEntry,
        filter: Option<PairFilter<'_>>,
        out: &mut Vec<(Handle, Handle)>,
    ) {
        if b.certainly_overlaps(query) || self.aabbs[a.id as usize].overlaps(&self.aabbs[b.id as usize]) {
            let ha = Handle { index: a.id, generation: a.generation };
            let hb = Handle { index: b.id, generation: b.generation };
            self.report(ha, hb, filter, out);
        }
    }

    /// Reports `(a, b)` if their boxes overlap, they may pair (not both static, groups agree)
    /// and the filter accepts them. The box test comes first: it rejects most candidates using
    /// only the boxes at hand. Unbounded objects carry the box of all of space, so the test
    /// passes for them.
    #[inline]
    fn consider(
        &self,
        a: u32,
        box_a: &Aabb,
        b: u32,
        box_b: &Aabb,
        filter: Option<PairFilter<'_>>,
        out: &mut Vec<(Handle, Handle)>,
    ) {
        if box_a.overlaps(box_b) {
            self.report(self.handle_of(a), self.handle_of(b), filter, out);
        }
    }

    /// Reports the overlapping pair `(a, b)`, smaller handle first, if the two may pair (not
    /// both static, groups agree) and the filter accepts them. The options are looked up only
    /// when some live object has restricting ones.
    #[inline]
    pub(crate) fn report(
        &self,
        a: Handle,
        b: Handle,
        filter: Option<PairFilter<'_>>,
        out: &mut Vec<(Handle, Handle)>,
    ) {
        if self.restricted_len > 0 {
            let (oa, ob) = (&self.meta[a.index as usize], &self.meta[b.index as usize]);
            if (oa.is_static && ob.is_static) || !oa.groups.interacts_with(ob.groups) {
                return;
            }
        }
        let pair = if a < b { (a, b) } else { (b, a) };
        if filter.is_none_or(|f| f(pair.0, pair.1)) {
            out.push(pair);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::CoarseCells;
    use crate::{HhGridConfig, HierarchicalHashGrid};
    use contact_core::{AllPairs, BroadPhase};
    use geometry_core::{Aabb, DVec3};

    /// Boxes beyond the `f32` range (whose rounded entries are infinite) in several grids: the
    /// narrowed search across grids falls back to the exact boxes and finds every pair, with
    /// and without the narrowing.
    #[test]
    fn pairs_across_grids_beyond_the_f32_range() {
        for narrow in [true, false] {
            let config = HhGridConfig {
                all_pairs_threshold: 0,
                narrow_coarse_stencil: narrow,
                ..HhGridConfig::default()
            };
            let mut grid = HierarchicalHashGrid::new(config).unwrap();
            let mut oracle = AllPairs::default();
            let mut handles = Vec::new();
            for (i, (edge, offset)) in
                [(1.0, 0.0), (3.0, -1.5), (9.0, -4.0), (0.5, 0.7), (2.0, 1.2)].into_iter().enumerate()
            {
                // Far beyond f32::MAX (3.4e38), negative too, with edges of 1e27 and more.
                let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
                let min = DVec3::splat(sign * 1e39 + offset * 1e27);
                let aabb = Aabb::new(min, min + DVec3::splat(edge * 1e27)).unwrap();
                handles.push((grid.insert(aabb).unwrap(), oracle.insert(aabb).unwrap()));
            }
            assert!(grid.grid_count() >= 3, "{:?}", grid.grid_summary());
            let theirs = same_pairs(&mut grid, &mut oracle, &handles);
            assert!(!theirs.is_empty(), "narrow: {narrow}");
        }
    }

    /// Detects with both structures and checks that they report the same pairs; returns them
    /// as pairs of insertion indices.
    fn same_pairs(
        grid: &mut HierarchicalHashGrid,
        oracle: &mut AllPairs,
        handles: &[(crate::Handle, contact_core::AllPairsHandle)],
    ) -> Vec<(usize, usize)> {
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        grid.find_pairs(&mut ours);
        oracle.find_pairs(&mut theirs);
        let ours_index = |h| handles.iter().position(|&(a, _)| a == h).unwrap();
        let theirs_index = |h| handles.iter().position(|&(_, b)| b == h).unwrap();
        let sorted = |(i, j): (usize, usize)| (i.min(j), i.max(j));
        let mut ours: Vec<_> =
            ours.into_iter().map(|(a, b)| sorted((ours_index(a), ours_index(b)))).collect();
        let mut theirs: Vec<_> =
            theirs.into_iter().map(|(a, b)| sorted((theirs_index(a), theirs_index(b)))).collect();
        ours.sort_unstable();
        theirs.sort_unstable();
        assert_eq!(ours, theirs);
        theirs
    }

    /// Boxes of about 1 mm a million units from the origin, where an `f32` step is 0.0625 and
    /// so spans dozens of the coarser grids' cells: the narrowed search across grids uses the
    /// exact box's reference range (a few cells), not the rounded box's, and finds every pair.
    #[test]
    fn rounded_ranges_far_from_the_origin_yield_to_exact_ones() {
        let config = HhGridConfig { all_pairs_threshold: 0, ..HhGridConfig::default() };
        let mut grid = HierarchicalHashGrid::new(config).unwrap();
        let mut oracle = AllPairs::default();
        let mut handles = Vec::new();
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut uniform = || {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        for i in 0..600 {
            let edge = 1e-3 * [1.0, 0.45, 0.2][i % 3];
            let min = DVec3::splat(1e6) + DVec3::new(uniform(), uniform(), uniform()) * 0.01;
            let aabb = Aabb::new(min, min + DVec3::splat(edge)).unwrap();
            handles.push((grid.insert(aabb).unwrap(), oracle.insert(aabb).unwrap()));
        }
        assert!(grid.grid_count() >= 3, "{:?}", grid.grid_summary());
        assert!(!same_pairs(&mut grid, &mut oracle, &handles).is_empty());
        let mut across = 0;
        for (rank, &g) in grid.order.iter().enumerate() {
            for &h in &grid.order[rank + 1..] {
                for a in grid.packed[g as usize].entries() {
                    match grid.coarse_cells(&grid.grids[h as usize], a) {
                        Some(CoarseCells::Range((_, lens))) => {
                            assert!(lens.iter().product::<u64>() <= 27, "{lens:?}");
                        }
                        other => panic!("{other:?}"),
                    }
                    across += 1;
                }
            }
        }
        assert!(across > 0);
    }
}
