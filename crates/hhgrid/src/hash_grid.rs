//! One hash grid of the hierarchy (thesis §2.5, §3.1, §3.2, §3.4).
//!
//! Space is divided into cubic cells of edge `cell_size`; a cell with integer coordinates
//! `(i, j, k)` is stored at `(i mod nx, j mod ny, k mod nz)` of a block of `nx × ny × nz` cells
//! (powers of two), so that cells adjacent in space stay adjacent in storage ("geometrically based
//! hashing"). The modulo is a bit mask on the two's-complement integer, which is correct for
//! negative coordinates (thesis Code Snippets 8–11 handle the sign by hand).
//!
//! Storage is compact, because at the thesis's density (growth beyond 1/8 object per cell) most
//! cells are empty:
//! * `cells`: for each cell the index of its entry in `occupied`, or [`EMPTY`], in pages that
//!   exist only where cells are occupied (see the `cell_table` module);
//! * `occupied`: the occupied cells (the thesis's grid-global list of §3.4), each with its object
//!   container; removing the last object swap-removes the entry in O(1).
//!
//! Neighbour offsets are precomputed (thesis §3.1, Figs. 11–12): one table of 27 offsets shared
//! by all inner cells, and one table for each of the 26 kinds of border cell (on the low or high
//! face along each axis), with the periodic wrap built in. A cell finds its table from its
//! coordinates, so no per-cell pointer is stored.

use geometry_core::{Aabb, DVec3};
use smallvec::SmallVec;

use crate::cell_table::CellTable;
pub(crate) use crate::cell_table::EMPTY;

/// Beyond this many cells from the origin, `f64` can no longer place a box in a cell reliably
/// (thesis eq. 3.2.2); such objects are kept in the test-against-everything container.
const MAX_CELL_COORDINATE: f64 = (1u64 << 40) as f64;

/// `⌊v⌋` for `|v| < 2^53`, without the libm call that `f64::floor` becomes on baseline x86-64
/// (no SSE4.1 rounding instruction): truncate, then step down for negative non-integers. Out of
/// range the result is meaningless but the call is harmless (callers that skip the range check
/// discard it).
#[inline]
fn floor_to_i64(v: f64) -> i64 {
    let t = v as i64;
    if (t as f64) > v { t.wrapping_sub(1) } else { t }
}

/// The object container of a cell. Up to four objects are stored inline.
pub(crate) type CellObjects = SmallVec<[u32; 4]>;

/// An occupied cell: its index in `cells` and its objects.
#[derive(Debug, Clone)]
pub(crate) struct OccupiedCell {
    pub(crate) cell: u32,
    pub(crate) objects: CellObjects,
}

/// Neighbour direction index `n = (dx+1) + 3(dy+1) + 9(dz+1)`; 13 is the cell itself and
/// 14..27 are the 13 "forward" neighbours tested within a grid (half of the 26, thesis Fig. 17).
pub(crate) const SELF_NEIGHBOUR: usize = 13;

/// One hash grid.
#[derive(Debug, Clone)]
pub(crate) struct HashGrid {
    /// Hierarchy level `k`: the cell size is `c0 · f^k`.
    pub(crate) level: i32,
    pub(crate) cell_size: f64,
    inv_cell_size: f64,
    /// The cell size of level `k - 1`: objects at least this large belong here (thesis eq. 3.3.3).
    pub(crate) min_object_size: f64,
    /// At least the longest edge of every object stored here since the grid was made (below
    /// `cell_size` by the placement rule). Queries use it to skip the layer of cells below their
    /// range that no object reaches from (see [`reference_range`](Self::reference_range)).
    max_object_size: f64,
    bits: [u32; 3],
    pub(crate) cells: CellTable,
    pub(crate) occupied: Vec<OccupiedCell>,
    /// Offset tables by border class `cx + 3 cy + 9 cz` (class 0: low face, 1: inner, 2: high face).
    offsets: Box<[[i32; 27]; 27]>,
    pub(crate) object_count: usize,
    cell_reserve: usize,
}

impl HashGrid {
    pub(crate) fn new(
        level: i32,
        cell_size: f64,
        min_object_size: f64,
        dims: [u32; 3],
        cell_reserve: usize,
    ) -> Self {
        let bits = dims.map(u32::trailing_zeros);
        let total = 1usize << (bits[0] + bits[1] + bits[2]);
        let mut grid = Self {
            level,
            cell_size,
            inv_cell_size: 1.0 / cell_size,
            min_object_size,
            max_object_size: 0.0,
            bits,
            cells: CellTable::new(total),
            occupied: Vec::new(),
            offsets: Box::new([[0; 27]; 27]),
            object_count: 0,
            cell_reserve,
        };
        grid.compute_offsets();
        grid
    }

    /// Records that an object with longest edge `size` is stored here.
    #[inline]
    pub(crate) fn note_object_size(&mut self, size: f64) {
        self.max_object_size = self.max_object_size.max(size);
    }

    /// The reference cells (lowest corner and cells per axis, capped at the grid's size) that
    /// may hold an object overlapping `query`, or `None` when a corner lies beyond the grid's
    /// `f64` cell arithmetic.
    ///
    /// An object overlapping `query` has `max >= query.min`, so its reference point (`min`) lies
    /// at least `query.min - size` with `size <= max_object_size`: its cell is at least the cell
    /// of that point, which is often the query's own low cell rather than the one below it (the
    /// bound that the placement rule `size < cell_size` alone gives). The subtraction is padded
    /// by a few rounding units, so that rounding can only widen the range.
    pub(crate) fn reference_range(&self, query: &Aabb) -> Option<([i64; 3], [u64; 3])> {
        let reach = self.max_object_size;
        let pad = (query.min.abs() + reach) * (4.0 * f64::EPSILON) + reach;
        let lo = self.coordinates(query.min - pad)?;
        let hi = self.coordinates(query.max)?;
        let dims = self.dims();
        let len = |a: usize| ((hi[a] - lo[a] + 1) as u64).min(u64::from(dims[a]));
        Some((lo, [len(0), len(1), len(2)]))
    }

    pub(crate) fn dims(&self) -> [u32; 3] {
        self.bits.map(|b| 1 << b)
    }

    pub(crate) fn cell_count(&self) -> usize {
        self.cells.len()
    }

    fn compute_offsets(&mut self) {
        let dims = self.dims();
        let strides = [1i64, i64::from(dims[0]), i64::from(dims[0]) * i64::from(dims[1])];
        // offset[axis][class][delta + 1]
        let axis_offset = |axis: usize, class: usize, delta: i64| -> i64 {
            let (n, s) = (i64::from(dims[axis]), strides[axis]);
            match (class, delta) {
                (_, 0) => 0,
                (2, 1) => -(n - 1) * s,
                (_, 1) => s,
                (0, -1) => (n - 1) * s,
                (_, _) => -s,
            }
        };
        for class in 0..27 {
            let (cx, cy, cz) = (class % 3, (class / 3) % 3, class / 9);
            for n in 0..27 {
                let (dx, dy, dz) = ((n % 3) as i64 - 1, ((n / 3) % 3) as i64 - 1, (n / 9) as i64 - 1);
                let offset = axis_offset(0, cx, dx) + axis_offset(1, cy, dy) + axis_offset(2, cz, dz);
                self.offsets[class][n] = i32::try_from(offset).expect("at most 1024 cells per axis");
            }
        }
    }

    /// Integer cell coordinates of `p` (unbounded, before hashing), or `None` when `p` is too far
    /// from the origin relative to the cell size for `f64` to place it reliably.
    #[inline]
    pub(crate) fn coordinates(&self, p: DVec3) -> Option<[i64; 3]> {
        let q = p * self.inv_cell_size;
        if q.abs().max_element() < MAX_CELL_COORDINATE {
            Some([floor_to_i64(q.x), floor_to_i64(q.y), floor_to_i64(q.z)])
        } else {
            None
        }
    }

    /// The storage index of the cell of `aabb.min` when this grid can hold `aabb` there: both
    /// corners placeable ([`coordinates`](Self::coordinates) is `Some`) and at most two cells
    /// spanned per axis. The same decision as computing both corners' coordinates, in one
    /// branch-free pass (the per-object cost of an update).
    ///
    /// Only the minimum corner is converted to integers: with `c = ⌊lo⌋`, the maximum corner
    /// spans at most one more cell exactly when `hi < c + 2` (compared in `f64`, where `c + 2`
    /// is exact below the coordinate limit).
    #[inline]
    pub(crate) fn home_cell(&self, aabb: &Aabb) -> Option<u32> {
        let (lo, hi) = (aabb.min * self.inv_cell_size, aabb.max * self.inv_cell_size);
        // `hi >= lo` (the box is valid and the scale positive), so these bound both corners.
        let mut fits = (lo.cmpgt(DVec3::splat(-MAX_CELL_COORDINATE))
            & hi.cmplt(DVec3::splat(MAX_CELL_COORDINATE)))
        .all();
        let mut c = [0i64; 3];
        for k in 0..3 {
            let t = lo[k] as i64;
            let t_float = t as f64;
            // ⌊lo⌋: one less than the truncation for negative non-integers.
            let below = t_float > lo[k];
            // (Wrapping: out of range `t` saturates, and `fits` is false for it anyway.)
            c[k] = t.wrapping_sub(i64::from(below));
            fits &= hi[k] < t_float - f64::from(u8::from(below)) + 2.0;
        }
        fits.then(|| self.hash(c))
    }

    /// The storage index of the cell with coordinates `c` (modulo by bit masks).
    #[inline]
    pub(crate) fn hash(&self, c: [i64; 3]) -> u32 {
        let [bx, by, bz] = self.bits;
        let mask = |b: u32| (1i64 << b) - 1;
        ((c[0] & mask(bx)) | ((c[1] & mask(by)) << bx) | ((c[2] & mask(bz)) << (bx + by))) as u32
    }

    /// The neighbour offset table of a cell (27 entries, index [`SELF_NEIGHBOUR`] is 0).
    #[inline]
    pub(crate) fn neighbour_offsets(&self, cell: u32) -> &[i32; 27] {
        let [bx, by, bz] = self.bits;
        let class = |v: u32, bits: u32| -> usize {
            let max = (1u32 << bits) - 1;
            if v == 0 {
                0
            } else if v == max {
                2
            } else {
                1
            }
        };
        let x = cell & ((1 << bx) - 1);
        let y = (cell >> bx) & ((1 << by) - 1);
        let z = cell >> (bx + by);
        &self.offsets[class(x, bx) + 3 * class(y, by) + 9 * class(z, bz)]
    }

    /// Whether cell `cell` lies off the grid's x border (`0 < x < nx - 1`): then its row
    /// neighbours `cell - 1` and `cell + 1` are its x neighbours, without periodic wrap.
    #[inline]
    pub(crate) fn x_is_inner(&self, cell: u32) -> bool {
        let x = cell & ((1 << self.bits[0]) - 1);
        x.wrapping_sub(1) < (1 << self.bits[0]) - 2
    }

    /// Whether the `len` cells from `cell` along x lie in its row without periodic wrap (then
    /// they are consecutive in storage).
    #[inline]
    pub(crate) fn row_holds(&self, cell: u32, len: u32) -> bool {
        (cell & ((1 << self.bits[0]) - 1)) + len <= 1 << self.bits[0]
    }

    /// The objects of cell `cell`, if it is occupied.
    #[inline]
    pub(crate) fn objects_in(&self, cell: u32) -> Option<&CellObjects> {
        let slot = self.cells.get(cell);
        (slot != EMPTY).then(|| &self.occupied[slot as usize].objects)
    }

    /// Adds `object` to `cell`; returns its position in the cell's container.
    pub(crate) fn insert(&mut self, object: u32, cell: u32) -> u32 {
        let slot = self.cells.get(cell);
        let objects = if slot == EMPTY {
            self.cells.set(cell, self.occupied.len() as u32);
            let objects = if self.cell_reserve > 4 {
                CellObjects::with_capacity(self.cell_reserve)
            } else {
                CellObjects::new()
            };
            crate::memory::reserve_a_quarter_more(&mut self.occupied, 1);
            self.occupied.push(OccupiedCell { cell, objects });
            &mut self.occupied.last_mut().expect("just pushed").objects
        } else {
            &mut self.occupied[slot as usize].objects
        };
        objects.push(object);
        self.object_count += 1;
        (objects.len() - 1) as u32
    }

    /// Prefetches the occupied-list entry of `cell`, if it is occupied (its table entry should be
    /// in the cache already, see [`CellTable::prefetch`]).
    #[inline]
    pub(crate) fn prefetch_occupied(&self, cell: u32) {
        let slot = self.cells.get(cell);
        if slot != EMPTY {
            crate::prefetch::prefetch(&self.occupied, slot as usize);
        }
    }

    /// Removes the object at `position` of `cell` by swap-remove; returns the object that moved
    /// into `position`, whose stored position the caller must update.
    pub(crate) fn remove(&mut self, cell: u32, position: u32) -> Option<u32> {
        let slot = self.cells.get(cell) as usize;
        let objects = &mut self.occupied[slot].objects;
        objects.swap_remove(position as usize);
        self.object_count -= 1;
        let moved = objects.get(position as usize).copied();
        if objects.is_empty() {
            // The cell leaves the occupied list, also by swap-remove (thesis §3.5).
            self.occupied.swap_remove(slot);
            self.cells.clear(cell);
            if let Some(moved_cell) = self.occupied.get(slot) {
                self.cells.set(moved_cell.cell, slot as u32);
            }
        }
        moved
    }

    /// Empties the grid in O(occupied cells) and returns its objects in traversal order.
    pub(crate) fn drain(&mut self) -> Vec<u32> {
        let mut objects = Vec::with_capacity(self.object_count);
        for occupied in self.occupied.drain(..) {
            self.cells.clear(occupied.cell);
            objects.extend_from_slice(&occupied.objects);
        }
        self.object_count = 0;
        objects
    }

    /// Doubles the cells along every axis (×8 in all, thesis §3.4); returns the objects, which the
    /// caller must reinsert. Returns `None` (and changes nothing) at the size limit.
    pub(crate) fn grow(&mut self) -> Option<Vec<u32>> {
        if self.dims().iter().any(|&n| n >= crate::config::MAX_CELLS_PER_AXIS) {
            return None;
        }
        let objects = self.drain();
        self.bits = self.bits.map(|b| b + 1);
        self.cells = CellTable::new(1usize << (self.bits[0] + self.bits[1] + self.bits[2]));
        self.occupied = Vec::with_capacity(objects.len());
        self.compute_offsets();
        Some(objects)
    }

    /// Sorts the occupied list by cell index, so that walking it (to snapshot the cells for
    /// detection, or to drain the grid) reads `cells` in memory order. Detection traverses the
    /// cells in index order whatever this list's order (see the `packed` module); this only
    /// improves the locality of reading the cells' containers.
    pub(crate) fn sort_occupied(&mut self, parallel: bool) {
        // Cells are unique, so an unstable sort gives the one order.
        if parallel {
            use rayon::slice::ParallelSliceMut;
            self.occupied.par_sort_unstable_by_key(|o| o.cell);
        } else {
            self.occupied.sort_unstable_by_key(|o| o.cell);
        }
        for (slot, o) in self.occupied.iter().enumerate() {
            self.cells.set(o.cell, slot as u32);
        }
    }

    /// Reorders the occupied list as `order` says: `order[i]` is `cell << 32 | slot`, sorted by
    /// cell, and slot `order[i] as u32` moves to position `i` (the cell table follows).
    /// Afterwards `order[i] as u32 == i`. `scratch` is reusable space (left empty).
    /// With `parallel`, every step is shared among several tasks (the result is the same).
    pub(crate) fn adopt_order(&mut self, order: &mut [u64], scratch: &mut Vec<OccupiedCell>, parallel: bool) {
        // Cells per parallel task.
        const CHUNK: usize = 4096;
        debug_assert_eq!(order.len(), self.occupied.len());
        scratch.clear();
        // Copies rather than moves: a cell's objects are inline up to four, so copying them
        // costs about what moving does, and a move, which also overwrites the old list, left
        // the snapshot's next pass over the list 2-3 times slower (measured at 10⁵ and 10⁶
        // equal cubes, serial: reordering and recording 36 -> 20 and 42 -> 27 ns per object).
        // The rare longer lists are freed with the old list below.
        let occupied = &self.occupied;
        let copy = |i: usize| occupied[order[i] as u32 as usize].clone();
        if parallel {
            crate::sharing::extend_by_index(scratch, order.len(), CHUNK, copy);
        } else {
            scratch.extend((0..order.len()).map(copy));
        }
        std::mem::swap(&mut self.occupied, scratch);
        scratch.clear();
        let relabeller = self.cells.relabeller();
        let relabel = |first: usize, keys: &mut [u64]| {
            for (slot, key) in (first..).zip(keys) {
                let cell = (*key >> 32) as u32;
                // SAFETY: the cells of `order` are distinct, and each key is in one chunk.
                unsafe { relabeller.relabel(cell, slot as u32) };
                *key = u64::from(cell) << 32 | slot as u64;
            }
        };
        if parallel {
            crate::sharing::for_each_chunk_mut(order, CHUNK, |k, keys| relabel(k * CHUNK, keys));
        } else {
            relabel(0, order);
        }
    }

    /// Heap bytes held by this grid.
    pub(crate) fn memory_bytes(&self) -> usize {
        let spilled: usize = self
            .occupied
            .iter()
            .filter(|o| o.objects.spilled())
            .map(|o| o.objects.capacity() * std::mem::size_of::<u32>())
            .sum();
        self.cells.memory_bytes()
            + self.occupied.capacity() * std::mem::size_of::<OccupiedCell>()
            + spilled
            + std::mem::size_of::<[[i32; 27]; 27]>()
            + std::mem::size_of::<Self>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `adopt_order` (serial and parallel) sorts the occupied list by cell, keeps every cell's
    /// objects, and leaves the cell table and the keys pointing at the new slots.
    #[test]
    fn adopting_the_traversal_order_keeps_every_cell() {
        for parallel in [false, true] {
            adopt_the_traversal_order(parallel);
        }
    }

    fn adopt_the_traversal_order(parallel: bool) {
        let mut grid = HashGrid::new(0, 1.0, 0.5, [16, 16, 16], 0);
        let mut state = 7u64;
        let mut next = move || {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) as u32
        };
        let mut expected = std::collections::BTreeMap::new();
        for object in 0..3000 {
            let cell = next() % grid.cell_count() as u32;
            grid.insert(object, cell);
            expected.entry(cell).or_insert_with(Vec::new).push(object);
        }
        // Some cells emptied again, so that swap-removes scramble the list.
        for cell in expected.keys().copied().step_by(5).collect::<Vec<_>>() {
            for _ in expected.remove(&cell).unwrap() {
                grid.remove(cell, 0);
            }
        }
        let mut order: Vec<u64> =
            grid.occupied.iter().enumerate().map(|(slot, o)| u64::from(o.cell) << 32 | slot as u64).collect();
        order.sort_unstable();
        let mut scratch = Vec::new();
        grid.adopt_order(&mut order, &mut scratch, parallel);
        assert!(scratch.is_empty());
        let cells: Vec<u32> = grid.occupied.iter().map(|o| o.cell).collect();
        assert_eq!(cells, expected.keys().copied().collect::<Vec<_>>());
        for (slot, o) in grid.occupied.iter().enumerate() {
            assert_eq!(grid.cells.get(o.cell), slot as u32);
            assert_eq!(order[slot], u64::from(o.cell) << 32 | slot as u64);
            let mut objects = o.objects.to_vec();
            objects.sort_unstable();
            assert_eq!(objects, expected[&o.cell]);
        }
    }

    /// Every neighbour offset (inner and border cells, every direction) lands on the cell that
    /// hashing the neighbour's coordinates gives, including across the periodic wrap.
    #[test]
    fn neighbour_offsets_agree_with_hashing() {
        for dims in [[4, 4, 4], [8, 4, 16], [16, 16, 16]] {
            let grid = HashGrid::new(0, 1.0, 0.5, dims, 0);
            for z in 0..i64::from(dims[2]) {
                for y in 0..i64::from(dims[1]) {
                    for x in 0..i64::from(dims[0]) {
                        let cell = grid.hash([x, y, z]);
                        let offsets = grid.neighbour_offsets(cell);
                        for (n, &offset) in offsets.iter().enumerate() {
                            let d = [(n % 3) as i64 - 1, ((n / 3) % 3) as i64 - 1, (n / 9) as i64 - 1];
                            let expected = grid.hash([x + d[0], y + d[1], z + d[2]]);
                            assert_eq!(
                                cell.wrapping_add_signed(offset),
                                expected,
                                "dims {dims:?} cell {x},{y},{z} dir {d:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// Hashing is periodic with the grid size, also for negative coordinates, and cell
    /// coordinates are the floor of position / cell size.
    #[test]
    fn hashing_is_periodic_and_floors_negative_coordinates() {
        let grid = HashGrid::new(0, 0.5, 0.25, [4, 8, 16], 0);
        assert_eq!(grid.coordinates(DVec3::new(-0.1, 0.0, 0.74)), Some([-1, 0, 1]));
        assert_eq!(grid.coordinates(DVec3::new(-0.5, -1.0, -1e-300)), Some([-1, -2, -1]));
        for c in [[-1i64, -1, -1], [-5, 3, -17], [1_000_003, -77, 12]] {
            let wrapped = [c[0] + 4 * 7, c[1] - 8 * 3, c[2] + 16];
            assert_eq!(grid.hash(c), grid.hash(wrapped));
            assert!(grid.hash(c) < 4 * 8 * 16);
        }
        assert_eq!(grid.hash([-1, 0, 0]), 3);
        assert_eq!(grid.coordinates(DVec3::new(1e300, 0.0, 0.0)), None);
    }

    /// `home_cell` makes the decision of computing both corners' coordinates: placeable, at
    /// most two cells spanned per axis, and then the cell of the minimum corner.
    #[test]
    fn home_cell_agrees_with_the_corner_coordinates() {
        let grid = HashGrid::new(0, 0.75, 0.375, [8, 4, 16], 0);
        let values = [
            -1e300,
            -2.0e12,
            -1.5,
            -0.75,
            -0.749_999_999_999_999_9,
            -1e-300,
            0.0,
            0.3,
            0.75,
            1.499_999_999_999_999_8,
            1.5,
            2.25,
            8.2e11,
            1e300,
        ];
        for &lo in &values {
            for &hi in values.iter().filter(|&&hi| hi >= lo) {
                for axis in 0..3 {
                    let mut min = DVec3::splat(0.1);
                    let mut max = DVec3::splat(0.2);
                    min[axis] = lo;
                    max[axis] = hi;
                    let aabb = Aabb::new(min, max).unwrap();
                    let expected = match (grid.coordinates(min), grid.coordinates(max)) {
                        (Some(l), Some(h)) if (0..3).all(|a| h[a] - l[a] <= 1) => Some(grid.hash(l)),
                        _ => None,
                    };
                    assert_eq!(grid.home_cell(&aabb), expected, "{aabb:?}");
                }
            }
        }
    }

    #[test]
    fn swap_remove_keeps_the_occupied_list_consistent() {
        let mut grid = HashGrid::new(0, 1.0, 0.5, [4, 4, 4], 0);
        let cells = [3u32, 7, 3, 9, 7, 3];
        let positions: Vec<u32> =
            cells.iter().enumerate().map(|(id, &c)| grid.insert(id as u32, c)).collect();
        assert_eq!(positions, [0, 0, 1, 0, 1, 2]);
        assert_eq!(grid.occupied.len(), 3);
        // Remove object 0 (cell 3, position 0): object 5 moves into position 0.
        assert_eq!(grid.remove(3, 0), Some(5));
        // Empty cell 9: the last occupied entry (cell 9 itself) goes away.
        assert_eq!(grid.remove(9, 0), None);
        assert_eq!(grid.objects_in(9), None);
        // Empty cell 7 (two objects): the occupied entry of cell 3 is moved into its slot.
        assert_eq!(grid.remove(7, 0), Some(4));
        assert_eq!(grid.remove(7, 0), None);
        assert_eq!(grid.objects_in(3).map(|o| o.to_vec()), Some(vec![5, 2]));
        assert_eq!(grid.occupied.len(), 1);
        assert_eq!(grid.object_count, 2);
    }
}
