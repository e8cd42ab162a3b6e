//! The detection step (thesis Algorithm 4), serial and parallel with identical output.
//!
//! The work is cut into units in a fixed order: for each grid, finest first, runs of consecutive
//! occupied cells; then the all-pairs list; then the everywhere container. Each unit writes its
//! pairs to its own buffer and the buffers are concatenated in unit order, so the parallel
//! output equals the serial one pair for pair.

use crate::hash_grid::SELF_NEIGHBOUR;
use crate::packed::PackedGrid;
use crate::{Handle, HierarchicalHashGrid, PairOrder};
use geometry_core::Aabb;
use rayon::prelude::*;

/// A user filter applied to every overlapping pair before it is reported.
pub type PairFilter<'a> = &'a (dyn Fn(Handle, Handle) -> bool + Sync);

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

impl HierarchicalHashGrid {
    /// Finds all overlapping pairs in parallel (rayon). The output is identical to
    /// [`find_pairs`](contact_core::BroadPhase::find_pairs): same pairs, same order.
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

    pub(crate) fn detect(
        &mut self,
        pairs: &mut Vec<(Handle, Handle)>,
        filter: Option<PairFilter<'_>>,
        parallel: bool,
    ) {
        pairs.clear();
        self.rebuild();
        if self.dynamic_len == 0 {
            return;
        }
        for grid in &mut self.grids {
            grid.keep_sorted(parallel);
        }
        // Snapshot the cells' boxes (see the `packed` module), one grid per task when parallel.
        let mut packed = std::mem::take(&mut self.packed);
        packed.resize_with(self.grids.len(), PackedGrid::default);
        if parallel {
            packed.par_iter_mut().zip(&self.grids).for_each(|(p, g)| p.fill(g, &self.aabbs, true));
        } else {
            packed.iter_mut().zip(&self.grids).for_each(|(p, g)| p.fill(g, &self.aabbs, false));
        }
        self.packed = packed;
        let units = self.units(if parallel { CELLS_PER_UNIT } else { usize::MAX });
        if parallel && units.len() > 1 {
            let buffers: Vec<Vec<(Handle, Handle)>> = units
                .par_iter()
                .map(|&unit| {
                    let mut buffer = Vec::new();
                    self.run_unit(unit, filter, &mut buffer);
                    buffer
                })
                .collect();
            pairs.reserve(buffers.iter().map(Vec::len).sum());
            for buffer in buffers {
                pairs.extend_from_slice(&buffer);
            }
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

    /// Algorithm 4 for occupied cells `start..end` of the grid of the given rank, reading boxes
    /// from the packed snapshot.
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
        for slot in start..end {
            let cell = grid.occupied[slot].cell;
            let objects = packed.row(slot);
            // Pairs within the cell.
            for (i, a) in objects.iter().enumerate() {
                for b in &objects[i + 1..] {
                    self.consider(a.id, &a.aabb, b.id, &b.aabb, filter, out);
                }
            }
            // Against the 13 forward neighbours: every pair of adjacent cells is visited once.
            let offsets = grid.neighbour_offsets(cell);
            for &offset in &offsets[SELF_NEIGHBOUR + 1..] {
                let others = packed.cell(grid, cell.wrapping_add_signed(offset));
                for a in objects {
                    for b in others {
                        self.consider(a.id, &a.aabb, b.id, &b.aabb, filter, out);
                    }
                }
            }
            // Against the 27-cell neighbourhood of each object's reference point in every
            // coarser grid: pairs across grids are found from the finer object only.
            for &h in coarser {
                let (coarse, coarse_packed) = (&self.grids[h as usize], &self.packed[h as usize]);
                for a in objects {
                    // A box placeable in a finer grid is placeable in every coarser one.
                    let Some(c) = coarse.coordinates(a.aabb.min) else { continue };
                    let home = coarse.hash(c);
                    for &offset in coarse.neighbour_offsets(home) {
                        for b in coarse_packed.cell(coarse, home.wrapping_add_signed(offset)) {
                            self.consider(a.id, &a.aabb, b.id, &b.aabb, filter, out);
                        }
                    }
                }
            }
        }
    }

    /// The everywhere container against every object, and within itself.
    fn detect_everywhere(&self, filter: Option<PairFilter<'_>>, out: &mut Vec<(Handle, Handle)>) {
        for (i, &a) in self.everywhere.iter().enumerate() {
            let box_a = &self.aabbs[a as usize];
            for &b in self.everywhere[i + 1..].iter().chain(&self.all_pairs) {
                self.consider(a, box_a, b, &self.aabbs[b as usize], filter, out);
            }
            for &g in &self.order {
                for b in &self.packed[g as usize].entries {
                    self.consider(a, box_a, b.id, &b.aabb, filter, out);
                }
            }
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
        if !box_a.overlaps(box_b) {
            return;
        }
        let (ma, mb) = (&self.meta[a as usize], &self.meta[b as usize]);
        if (ma.options.is_static && mb.options.is_static)
            || !ma.options.groups.interacts_with(mb.options.groups)
        {
            return;
        }
        let (ha, hb) =
            (Handle { index: a, generation: ma.generation }, Handle { index: b, generation: mb.generation });
        let pair = if ha < hb { (ha, hb) } else { (hb, ha) };
        if filter.is_none_or(|f| f(pair.0, pair.1)) {
            out.push(pair);
        }
    }
}
