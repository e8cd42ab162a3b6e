//! A packed snapshot of the grids' cell contents, rebuilt at the start of every detection.
//!
//! The hash grids keep only object ids in their cells (what O(1) insert, remove and update
//! need). Detection, though, tests every object against its neighbours' boxes, and fetching each
//! candidate's box from the per-object array is a random memory access per candidate. The
//! snapshot copies each cell's entries into one contiguous array, the cells in increasing
//! storage index (`x + nx·(y + ny·z)`): the *traversal order* of detection. Building it reads
//! each box once, in object order (see [`fill`]); detection then streams through it, and the
//! rows of neighbouring cells are in cache when they are needed.
//!
//! Per cell, detection gathers the cell's entries and those of its forward neighbours into one
//! buffer ([`Gathered`]), copying whole blocks of entries (the snapshot ends with a few entries
//! of padding for that), and tests each entry against the rest in one loop.
//!
//! Sorting by storage index also places the three cells `x - 1, x, x + 1` of a row (for a cell
//! not on the grid's x border, where the periodic wrap intervenes) next to each other, so that
//! detection reads the 13 forward neighbours of a cell as one single cell and four runs of
//! entries instead of 13 separate lookups. The `(cell, slot)` keys of the occupied cells are
//! sorted, and `rows[slot]` translates a slot into its entries. Insert, remove and update never
//! pay for the order; in a large grid the layout also moves the grid's occupied list itself
//! into traversal order (and its cell table follows), so that the slots of neighbouring cells
//! are near each other ([`REORDER_FROM`]).
//!
//! An entry holds its box in `f32`, rounded outward, in the form `[min, -max]`: then "b may
//! overlap a" is the single lane-wise comparison `b.bounds <= a.query()` with
//! `a.query() = [max, -min]`, which the compiler turns into a few SIMD instructions without
//! branches. With the id and generation (for the handle), an entry takes 32 bytes against 56 for
//! an `f64` box with its id, so rows take less cache. Outward rounding makes the test
//! conservative (it passes for every pair of overlapping `f64` boxes). The few candidates that
//! pass (mostly overlapping pairs) are then proven to overlap from the rounded boxes as well,
//! one `f32` step inward, or, within about a step of touching, tested on the exact `f64` boxes:
//! the reported pairs are exactly those of the `f64` test, and most are reported without reading
//! the per-object arrays (random accesses for large N).

use crate::hash_grid::{EMPTY, HashGrid, OccupiedCell};
use crate::hierarchy::{Location, Meta};
use crate::sharing::SharedSlice;
use geometry_core::{Aabb, DVec3};
use std::sync::{Mutex, PoisonError};

const _: () = assert!(EMPTY == u32::MAX, "row_of relies on EMPTY exceeding every slot");

/// From this many occupied cells, each layout also reorders the grid's occupied list into
/// traversal order (see [`HashGrid::adopt_order`]). Detection finds a neighbour cell's entries
/// through its slot in that list, and inserts and removes leave the slots in no particular
/// order, so in a grid larger than the cache every such lookup was a cache miss. Reordered, the
/// lookups of the forward neighbours move through the list as the traversal does (measured,
/// thesis workload, update and detection: 196 -> 160 ns per object at 10⁶ objects, 147 -> 146
/// at 10⁵, and 98 -> 99 at 10⁴, where the list is cached anyway and only the reordering costs).
const REORDER_FROM: usize = 1 << 15;

/// From this many objects, a parallel [`fill`] writes the entries with several tasks: below, the
/// pass is short and cached, and two tasks only added their start-up (measured at 10⁴ equal
/// cubes: 11.6 ns per object serial, 12.6 with two tasks).
const PARALLEL_WRITE_FROM: usize = 1 << 15;

/// From this many objects, [`fill`] prefetches the entries it writes.
const PREFETCH_FROM: usize = 1 << 17;

/// `x` rounded to the next `f32` at or below it (`-inf` and `f32::MAX` at the ends of the range).
/// Branch-free: whether rounding to nearest went up is a coin flip for arbitrary coordinates.
#[inline]
fn round_down(x: f64) -> f32 {
    let f = x as f32;
    let bits = f.to_bits();
    // One step down from `f` (only used when `f > x`, so `f` is neither NaN nor `-inf`):
    // towards zero for positive `f`, away from it for negative, the negative of the smallest
    // subnormal for either zero.
    let below = if f > 0.0 {
        bits - 1
    } else if f < 0.0 {
        bits + 1
    } else {
        0x8000_0001
    };
    f32::from_bits(if f64::from(f) > x { below } else { bits })
}

/// An object's box (`f32`, rounded outward, as `[min, -max]`), id and generation, side by side
/// (32 bytes): everything detection needs to test a candidate and, for most pairs, to report it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PackedEntry {
    bounds: [f32; 6],
    pub(crate) id: u32,
    pub(crate) generation: u32,
}

/// The comparison vector `[max, -min]` of an entry's rounded box as the first box `a` of tests
/// (see [`PackedEntry::query`]).
pub(crate) type Query = [f32; 6];

impl PackedEntry {
    /// The padding after the rows: NaN bounds, which fail every comparison.
    const PADDING: Self = Self { bounds: [f32::NAN; 6], id: 0, generation: 0 };

    #[inline]
    fn new(aabb: &Aabb, id: u32, generation: u32) -> Self {
        let (lo, hi) = (aabb.min, aabb.max);
        // -round_up(x) == round_down(-x): negation is exact.
        let bounds = [
            round_down(lo.x),
            round_down(lo.y),
            round_down(lo.z),
            round_down(-hi.x),
            round_down(-hi.y),
            round_down(-hi.z),
        ];
        Self { bounds, id, generation }
    }

    /// A box containing the object's exact box (its rounded one, in `f64`), or `None` when a
    /// bound lies beyond the `f32` range (rounded to an infinity). Read from the entry at hand,
    /// where the exact box is a random memory access for large N.
    #[inline]
    pub(crate) fn enclosing_box(&self) -> Option<Aabb> {
        let b = self.bounds.map(f64::from);
        let aabb = Aabb { min: DVec3::new(b[0], b[1], b[2]), max: DVec3::new(-b[3], -b[4], -b[5]) };
        (aabb.min.is_finite() && aabb.max.is_finite()).then_some(aabb)
    }

    /// The comparison vectors of this entry as the first box `a` of tests against entries `b`.
    #[inline]
    pub(crate) fn query(&self) -> Query {
        let b = &self.bounds;
        [-b[3], -b[4], -b[5], -b[0], -b[1], -b[2]]
    }

    /// Whether this entry's (rounded) box overlaps the box of `query`: true for every
    /// overlapping pair of exact boxes, and rarely for a pair a rounding step apart.
    /// Branch-free so that it vectorises.
    #[inline]
    #[allow(clippy::needless_bitwise_bool, reason = "no short-circuit: one mask, no branch per lane")]
    pub(crate) fn may_overlap(&self, query: &Query) -> bool {
        let (b, q) = (&self.bounds, query);
        (b[0] <= q[0]) & (b[1] <= q[1]) & (b[2] <= q[2]) & (b[3] <= q[3]) & (b[4] <= q[4]) & (b[5] <= q[5])
    }

    /// Whether the exact boxes certainly overlap, judged from the rounded ones alone (to be
    /// asked after [`may_overlap`](Self::may_overlap)), so that most overlapping pairs are
    /// reported without fetching their `f64` boxes from memory.
    ///
    /// On each lane, the exact value behind this entry's `x` is at most `next_up(x)`, and the
    /// exact value behind the query's `y` at least `next_down(y)` (both roundings were
    /// outward); for `f32` values `next_up(x) <= next_down(y)` holds once `x < next_down(y)`.
    /// `next_down(y)` is bounded below without branches in `f64`, where `f32` values and the
    /// steps below are exact: `y - |y|·2⁻²³` for a normal `y` (the gap below `y` is at most
    /// `|y|·2⁻²³`), `y - 2⁻¹⁴⁹` for a subnormal or zero one; infinities give NaN or `-inf`, so
    /// the test fails. The one finite exception, `next_down(-f32::MAX) = -inf`, is excluded by
    /// raising `x = -inf` to `-f32::MAX` (which only makes the test stricter). It fails also for
    /// boxes within about an `f32` step of touching, which detection then tests on the exact
    /// boxes.
    #[inline]
    pub(crate) fn certainly_overlaps(&self, query: &Query) -> bool {
        let below = |y: f32| {
            let y = f64::from(y);
            let gap = if y.abs() >= f64::from(f32::MIN_POSITIVE) {
                y.abs() * 2f64.powi(-23)
            } else {
                2f64.powi(-149)
            };
            y - gap
        };
        let (b, q) = (&self.bounds, query);
        (0..6).fold(true, |all, k| all & (f64::from(b[k].max(f32::MIN)) < below(q[k])))
    }
}

/// The rows of one grid.
#[derive(Debug, Clone, Default)]
pub(crate) struct PackedGrid {
    /// `cell << 32 | slot` of every occupied cell, in increasing cell index.
    order: Vec<u64>,
    /// The radix sort's buffer.
    sort_scratch: Vec<u64>,
    /// `rows[slot] = [start, end)` of the entries of occupied slot `slot`; one extra row
    /// `[u32::MAX, 0)` at the end stands for every empty cell, so that lookups and the bounds of
    /// a run of cells need no branch (an empty cell widens no `min`/`max`).
    rows: Vec<[u32; 2]>,
    /// Space for reordering the grid's occupied list (see [`REORDER_FROM`]), empty between uses.
    reorder_scratch: Vec<OccupiedCell>,
    /// The entries, in traversal order, and `BLOCK - 1` entries of padding.
    pub(crate) entries: Vec<PackedEntry>,
    /// The number of entries (without the padding).
    len: usize,
}

impl PackedGrid {
    /// Lays out the rows of `grid` (sorted by cell, reusing the allocations) and records the
    /// entry index of each of its objects in `positions[id]`; the entries themselves are
    /// written by [`fill`] afterwards. With `parallel`, the positions are recorded by
    /// several tasks (the result is the same).
    fn layout(&mut self, grid: &mut HashGrid, positions: SharedSlice<u32>, parallel: bool) {
        // Occupied cells per parallel task.
        const CHUNK: usize = 1024;
        let occupied = &grid.occupied;
        self.order.clear();
        self.order.extend(occupied.iter().enumerate().map(|(slot, o)| u64::from(o.cell) << 32 | slot as u64));
        // A linear-time sort, serial: at 10⁵ cells it takes a fraction of a millisecond, less
        // than rayon's comparison sort did on two threads.
        crate::radix::sort_by_cell(&mut self.order, &mut self.sort_scratch, grid.cell_count());
        let reordered = grid.occupied.len() >= REORDER_FROM;
        if reordered {
            grid.adopt_order(&mut self.order, &mut self.reorder_scratch, parallel);
        }
        let occupied = &grid.occupied;
        self.rows.clear();
        let total = if reordered {
            // Slot order is traversal order now: the rows and positions in one pass, each row
            // starting where the previous one ends (with several tasks: each chunk's object
            // count first, then its rows from where the chunks before it end).
            self.rows.resize(occupied.len(), [0, 0]);
            if parallel && occupied.len() > CHUNK {
                let cells: Vec<&[OccupiedCell]> = occupied.chunks(CHUNK).collect();
                let counts = crate::sharing::map_indices(cells.len(), |chunk| {
                    cells[chunk].iter().map(|o| o.objects.len() as u32).sum::<u32>()
                });
                let starts: Vec<u32> = counts
                    .iter()
                    .scan(0u32, |total, &count| {
                        let start = *total;
                        *total += count;
                        Some(start)
                    })
                    .collect();
                crate::sharing::for_each_chunk_mut(&mut self.rows, CHUNK, |chunk, rows| {
                    record_rows(cells[chunk], rows, starts[chunk], positions);
                });
                counts.iter().sum()
            } else {
                record_rows(occupied, &mut self.rows, 0, positions)
            }
        } else {
            // Row lengths in slot order (sequential reads), then their prefix sums in cell
            // order, then the positions.
            self.rows.extend(occupied.iter().map(|o| [0, o.objects.len() as u32]));
            let mut total = 0u32;
            for &key in &self.order {
                let row = &mut self.rows[key as u32 as usize];
                let end = total + row[1];
                *row = [total, end];
                total = end;
            }
            // (Serial even in a parallel detection: below `REORDER_FROM` cells the pass is short
            // and cached, and two tasks made it slower, measured at 10⁴ equal cubes.)
            for (o, &[start, _]) in occupied.iter().zip(&self.rows) {
                record_positions(o, start, positions);
            }
            total
        };
        self.rows.push([u32::MAX, 0]);
        // Every entry below `total` is written by `fill` afterwards, so the old contents are
        // not cleared (that was a pass over the whole array); `BLOCK - 1` entries of padding
        // follow, so that gathering may copy whole blocks (see `Gathered::gather`).
        self.len = total as usize;
        self.entries.resize(self.len + BLOCK - 1, PackedEntry::PADDING);
        self.entries[self.len..].fill(PackedEntry::PADDING);
    }

    /// The cell at position `i` of the traversal order.
    #[inline]
    pub(crate) fn cell_at(&self, i: usize) -> u32 {
        (self.order[i] >> 32) as u32
    }

    /// The entry range of the cell at position `i` of the traversal order.
    #[inline]
    pub(crate) fn row_at(&self, i: usize) -> std::ops::Range<usize> {
        let [start, end] = self.rows[self.order[i] as u32 as usize];
        start as usize..end as usize
    }

    /// The row of cell `cell` of `grid`: the sentinel `[u32::MAX, 0)` for an empty cell.
    #[inline]
    fn row_of(&self, grid: &HashGrid, cell: u32) -> [u32; 2] {
        self.row_at_slot(grid.cells.get(cell))
    }

    /// The row of occupied slot `slot`, or the sentinel for [`EMPTY`].
    #[inline]
    fn row_at_slot(&self, slot: u32) -> [u32; 2] {
        // EMPTY (u32::MAX) exceeds every slot and maps to the sentinel row, the last one.
        self.rows[(slot as usize).min(self.rows.len() - 1)]
    }

    /// The entries (without the padding).
    #[inline]
    pub(crate) fn entries(&self) -> &[PackedEntry] {
        &self.entries[..self.len]
    }

    /// The entry range `[start, end)` of cell `cell` of `grid` (empty unless `start < end`).
    #[inline]
    pub(crate) fn cell_range(&self, grid: &HashGrid, cell: u32) -> [u32; 2] {
        self.row_of(grid, cell)
    }

    /// The end of the entries of cell `cell` (0 for an empty cell).
    #[inline]
    pub(crate) fn end_of(&self, grid: &HashGrid, cell: u32) -> usize {
        self.row_of(grid, cell)[1] as usize
    }

    /// The entry range (empty unless `start < end`) of the `len` cells from `first` along x,
    /// which must lie in one row of `grid` (see [`HashGrid::row_holds`]): they are consecutive
    /// in the traversal order, so their entries form one run.
    // Always inlined: called for every run of every stencil, and left as a call it passed its
    // two ranges through memory (measured with callgrind at 10⁴ cubes: a few per cent of
    // detection's instructions).
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub(crate) fn cells_range(&self, grid: &HashGrid, first: u32, len: u32) -> [u32; 2] {
        let widen = |[start, end]: [u32; 2], [s, e]: [u32; 2]| [start.min(s), end.max(e)];
        match grid.cells.run_in_page(first, len) {
            Some(slots) => {
                slots.iter().fold([u32::MAX, 0], |range, &slot| widen(range, self.row_at_slot(slot)))
            }
            None => {
                (first..first + len).fold([u32::MAX, 0], |range, cell| widen(range, self.row_of(grid, cell)))
            }
        }
    }

    /// The entry range (empty unless `start < end`) of the cells `centre - 1`, `centre`,
    /// `centre + 1` of `grid`, which must not lie on the grid's x border (see
    /// [`HashGrid::x_is_inner`]). They are consecutive in the traversal order, so their entries
    /// form one run.
    #[inline]
    pub(crate) fn run_range(&self, grid: &HashGrid, centre: u32) -> [u32; 2] {
        self.cells_range(grid, centre - 1, 3)
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        (self.order.capacity() + self.sort_scratch.capacity()) * std::mem::size_of::<u64>()
            + self.rows.capacity() * std::mem::size_of::<[u32; 2]>()
            + self.reorder_scratch.capacity() * std::mem::size_of::<OccupiedCell>()
            + self.entries.capacity() * std::mem::size_of::<PackedEntry>()
    }
}

/// Records the entry index of each object of `cell`, whose row starts at `start`.
#[inline]
fn record_positions(cell: &OccupiedCell, start: u32, positions: SharedSlice<u32>) {
    for (k, &id) in cell.objects.iter().enumerate() {
        // SAFETY: every object is in exactly one cell of one grid, so each `id` is written
        // once, by one task; `positions` is not otherwise accessed until the layouts return
        // (see `fill`).
        unsafe { positions.write(id as usize, start + k as u32) };
    }
}

/// Sets `rows` to the rows of `cells`, consecutive from entry `start`, and records their
/// objects' positions; returns the end of the last row.
fn record_rows(
    cells: &[OccupiedCell],
    rows: &mut [[u32; 2]],
    start: u32,
    positions: SharedSlice<u32>,
) -> u32 {
    let mut end = start;
    for (cell, row) in cells.iter().zip(rows) {
        record_positions(cell, end, positions);
        *row = [end, end + cell.objects.len() as u32];
        end = row[1];
    }
    end
}

/// Refills the snapshots `packed` (one per grid of `grids`, by grid id) from the objects'
/// arrays, reusing their allocations; `positions` is scratch space. With `parallel`, grids and
/// chunks of objects are processed by several tasks (the result is the same).
///
/// Two passes, so that the per-object arrays are read in order: the layouts record where each
/// object's entry goes, then the objects are visited by id and their entries written there.
/// Reading each object's box in cell order instead was a random access per object, a third
/// of detection's time at 10⁶ objects (measured); scattered stores do not stall the way
/// scattered loads do.
pub(crate) fn fill(
    packed: &mut Vec<PackedGrid>,
    grids: &mut [HashGrid],
    objects: (&[Aabb], &[Meta], &[Location]),
    positions: &mut Vec<u32>,
    parallel: bool,
) {
    // Objects per parallel task of the entry pass.
    const CHUNK: usize = 4096;
    let (aabbs, meta, locations) = objects;
    packed.resize_with(grids.len(), PackedGrid::default);
    // (Not cleared: the entry pass reads the positions of grid objects only, which the layouts
    // write.)
    positions.resize(aabbs.len(), 0);
    let shared = SharedSlice::new(positions);
    if parallel {
        // (Each grid's lock is taken by its own task only.)
        let layouts: Vec<Mutex<(&mut PackedGrid, &mut HashGrid)>> =
            packed.iter_mut().zip(grids.iter_mut()).map(Mutex::new).collect();
        crate::sharing::for_each_index(layouts.len(), |g| {
            let mut layout = layouts[g].lock().unwrap_or_else(PoisonError::into_inner);
            let (packed, grid) = &mut *layout;
            packed.layout(grid, shared, true);
        });
    } else {
        packed.iter_mut().zip(grids).for_each(|(p, g)| p.layout(g, shared, false));
    }
    let targets: Vec<SharedSlice<PackedEntry>> =
        packed.iter_mut().map(|p| SharedSlice::new(&mut p.entries[..p.len])).collect();
    let positions = &positions[..];
    // The entries written are scattered over the snapshot: in one larger than the cache, each
    // is prefetched a few objects ahead (measured, thesis workload at 10⁶ objects: update and
    // detection 163 -> 150 ns per object; at 10⁴, where the snapshot is cached, it only cost).
    let prefetching = locations.len() >= PREFETCH_FROM;
    let write = |first: usize, locations: &[Location]| {
        for (k, location) in locations.iter().enumerate() {
            if prefetching
                && let Some(&Location::Grid { grid, .. }) = locations.get(k + crate::prefetch::DISTANCE)
            {
                let ahead = first + k + crate::prefetch::DISTANCE;
                targets[grid as usize].prefetch(positions[ahead] as usize);
            }
            if let Location::Grid { grid, .. } = *location {
                let id = first + k;
                let entry = PackedEntry::new(&aabbs[id], id as u32, meta[id].generation);
                // SAFETY: the layouts gave the objects of a grid distinct positions within its
                // entries, and each object is visited by one task; the entries are not
                // otherwise accessed until this pass returns.
                unsafe { targets[grid as usize].write(positions[id] as usize, entry) };
            }
        }
    };
    if parallel && locations.len() >= PARALLEL_WRITE_FROM {
        let chunks: Vec<&[Location]> = locations.chunks(CHUNK).collect();
        crate::sharing::for_each_index(chunks.len(), |chunk| write(chunk * CHUNK, chunks[chunk]));
    } else {
        write(0, locations);
    }
}

/// Entries copied at a time by [`Gathered::gather`].
pub(crate) const BLOCK: usize = 4;

/// A cell's candidates, gathered from the snapshot's rows into one run (the detection of one
/// cell, see `HierarchicalHashGrid::detect_cell`).
#[derive(Debug, Default)]
pub(crate) struct Gathered {
    entries: Vec<PackedEntry>,
    len: usize,
}

impl Gathered {
    /// Replaces the contents by the entries of `ranges` of `packed` (each `[start, end)`,
    /// empty unless `start < end`), in order.
    ///
    /// Copies whole blocks of [`BLOCK`] entries, reading into the snapshot's padding and
    /// writing past the new end (overwritten by the next range, or never read): a fixed-size
    /// copy is a few vector moves, where `copy_from_slice` of a handful of entries calls
    /// `memcpy` (measured: 9 % of detection for its call overhead).
    #[inline]
    pub(crate) fn gather(&mut self, packed: &PackedGrid, ranges: &[[u32; 2]]) {
        let total: usize = ranges.iter().map(|&[s, e]| e.saturating_sub(s) as usize).sum();
        if self.entries.len() < total + BLOCK {
            self.entries.resize(total + BLOCK, PackedEntry::PADDING);
        }
        let mut len = 0;
        for &[start, end] in ranges {
            let (start, end) = (start as usize, end as usize);
            let mut from = start;
            while from < end {
                let to = len + (from - start);
                self.entries[to..to + BLOCK].copy_from_slice(&packed.entries[from..from + BLOCK]);
                from += BLOCK;
            }
            len += end.saturating_sub(start);
        }
        self.len = len;
    }

    /// The gathered entries.
    #[inline]
    pub(crate) fn entries(&self) -> &[PackedEntry] {
        &self.entries[..self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geometry_core::DVec3;

    /// Values at the edges of `f32`: zeros, subnormals, the largest finite values and beyond,
    /// values exactly representable and an `f64` step off them.
    fn awkward_values() -> Vec<f64> {
        let mut values = vec![0.0, -0.0, 1e-300, -1e-300, 1e-45, -1e-45, 1e300, -1e300];
        for base in
            [1.0f64, 0.1, 3.0, 1e-40, 1e-38, f64::from(f32::MAX), f64::from(f32::MIN_POSITIVE), 12345.678]
        {
            for v in [base, -base] {
                values.extend([v, v.next_up(), v.next_down(), f64::from(v as f32)]);
            }
        }
        values
    }

    #[test]
    fn round_down_gives_the_largest_f32_not_above() {
        for x in awkward_values() {
            let r = round_down(x);
            assert!(f64::from(r) <= x, "{x:e} -> {r:e}");
            let next = r.next_up();
            assert!(f64::from(next) > x || r == f32::MAX, "{x:e} -> {r:e} is not the largest");
            assert!(r != f32::INFINITY && !r.is_nan());
        }
    }

    /// The rounded tests agree with the exact one where they must: `may_overlap` passes for
    /// every overlapping pair, `certainly_overlaps` only for overlapping ones.
    #[test]
    fn rounded_tests_bracket_the_exact_test() {
        let values = awkward_values();
        let mut state = 7u64;
        let mut pick = || {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            values[(state >> 33) as usize % values.len()]
        };
        let mut checked = [0usize; 3];
        for _ in 0..200_000 {
            let mut corner = || {
                let (p, q) = (pick(), pick());
                (p.min(q), p.max(q))
            };
            let axes = [corner(), corner(), corner(), corner(), corner(), corner()];
            let boxes = [0, 3].map(|k| {
                let min = DVec3::new(axes[k].0, axes[k + 1].0, axes[k + 2].0);
                let max = DVec3::new(axes[k].1, axes[k + 1].1, axes[k + 2].1);
                Aabb::new(min, max).unwrap()
            });
            let (a, b) = (PackedEntry::new(&boxes[0], 0, 0), PackedEntry::new(&boxes[1], 1, 0));
            let exact = boxes[0].overlaps(&boxes[1]);
            let query = a.query();
            assert!(!exact || b.may_overlap(&query), "{boxes:?}");
            assert!(!b.certainly_overlaps(&query) || exact, "{boxes:?}");
            checked[usize::from(exact)] += 1;
            checked[2] += usize::from(b.certainly_overlaps(&query));
        }
        // Disjoint, overlapping, and overlapping proven from the rounded boxes alone.
        assert!(checked.iter().all(|&n| n > 1000), "{checked:?}");
    }
}
