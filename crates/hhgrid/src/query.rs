//! AABB and ray queries against the structure.

use crate::hash_grid::HashGrid;
use crate::{Handle, HhGridError, HierarchicalHashGrid};
use geometry_core::{Aabb, Ray};

impl HierarchicalHashGrid {
    /// Every object whose box overlaps `query` (touching counts), in no particular order.
    /// Unbounded objects always match.
    ///
    /// In each grid, an object overlapping `query` has its reference cell at most one cell below
    /// the query's cell range (at most the grid's largest object size below it), so only those
    /// cells are visited (or, when that range holds more
    /// cells than the grid has occupied ones, the occupied cells are scanned instead).
    ///
    /// `out` is cleared first; on an error it is left as it was (check the result before
    /// reading it).
    ///
    /// # Errors
    /// [`HhGridError::InvalidAabb`] for an invalid query box; [`HhGridError::RebuildPending`]
    /// while [`ClearAndReinsert`](crate::UpdateStrategy::ClearAndReinsert) updates await
    /// [`rebuild`](HierarchicalHashGrid::rebuild) (in grid mode).
    ///
    /// ```
    /// use contact_core::BroadPhase;
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid::HierarchicalHashGrid;
    /// let mut grid = HierarchicalHashGrid::default();
    /// let handles: Vec<_> = (0..50)
    ///     .map(|i| grid.insert(Aabb::new(DVec3::splat(f64::from(i)), DVec3::splat(f64::from(i) + 0.5)).unwrap()).unwrap())
    ///     .collect();
    /// let mut hits = Vec::new();
    /// grid.query_aabb(&Aabb::new(DVec3::splat(9.9), DVec3::splat(11.2)).unwrap(), &mut hits).unwrap();
    /// hits.sort();
    /// assert_eq!(hits, vec![handles[10], handles[11]]);
    /// ```
    pub fn query_aabb(&self, query: &Aabb, out: &mut Vec<Handle>) -> Result<(), HhGridError> {
        let query = query.validate()?;
        if self.rebuild_pending {
            return Err(HhGridError::RebuildPending);
        }
        out.clear();
        let mut accept = |id: u32| {
            let meta = &self.meta[id as usize];
            if meta.unbounded || self.aabbs[id as usize].overlaps(&query) {
                out.push(self.handle_of(id));
            }
        };
        for &id in self.all_pairs.iter().chain(&self.everywhere) {
            accept(id);
        }
        for grid in &self.grids {
            for_each_candidate(grid, &query, &mut accept);
        }
        Ok(())
    }

    /// Every object whose box the ray meets for `0 <= t <= max_t`, with the entry parameter `t`,
    /// sorted by `t` (then handle). Use `f64::INFINITY` for an unlimited ray; unbounded objects
    /// are reported at `t = 0`.
    ///
    /// The candidates are gathered with [`query_aabb`](Self::query_aabb) over the box of the ray
    /// segment and then slab-tested: cheap for short rays, proportional to the occupied cells for
    /// rays across the whole scene.
    ///
    /// The cut-off is exact: a box is reported when the ray meets it for some `t <= max_t` in
    /// exact arithmetic ([`Ray::intersect_aabb_up_to`]); its `t` is the rounded entry. `out` is
    /// cleared first; on an error it is left as it was.
    ///
    /// # Errors
    /// [`HhGridError::InvalidAabb`] for a NaN or negative `max_t`; as [`query_aabb`](Self::query_aabb).
    ///
    /// ```
    /// use contact_core::BroadPhase;
    /// use geometry_core::{Aabb, DVec3, Ray};
    /// use hhgrid::HierarchicalHashGrid;
    /// let mut grid = HierarchicalHashGrid::default();
    /// let near = grid.insert(Aabb::new(DVec3::new(2.0, -1.0, -1.0), DVec3::new(3.0, 1.0, 1.0)).unwrap()).unwrap();
    /// let far = grid.insert(Aabb::new(DVec3::new(5.0, -1.0, -1.0), DVec3::new(6.0, 1.0, 1.0)).unwrap()).unwrap();
    /// let ray = Ray::new(DVec3::ZERO, DVec3::X).unwrap();
    /// let mut hits = Vec::new();
    /// grid.cast_ray(&ray, f64::INFINITY, &mut hits).unwrap();
    /// assert_eq!(hits, vec![(near, 2.0), (far, 5.0)]);
    /// grid.cast_ray(&ray, 4.0, &mut hits).unwrap();
    /// assert_eq!(hits, vec![(near, 2.0)]);
    /// ```
    pub fn cast_ray(&self, ray: &Ray, max_t: f64, out: &mut Vec<(Handle, f64)>) -> Result<(), HhGridError> {
        if max_t.is_nan() || max_t < 0.0 {
            return Err(HhGridError::InvalidAabb(geometry_core::GeometryError::NonPositive {
                what: "ray max_t",
                value: max_t,
            }));
        }
        if self.rebuild_pending {
            return Err(HhGridError::RebuildPending);
        }
        out.clear();
        let end = ray.at(max_t);
        let mut accept = |id: u32| {
            if self.meta[id as usize].unbounded {
                out.push((self.handle_of(id), 0.0));
            } else if let Some((t, _)) = ray.intersect_aabb_up_to(&self.aabbs[id as usize], max_t) {
                // (Decided exactly, `max_t` included: comparing the rounded entry with `max_t`
                // missed boxes entered a rounding before it and reported some entered after.)
                out.push((self.handle_of(id), t));
            }
        };
        for &id in self.all_pairs.iter().chain(&self.everywhere) {
            accept(id);
        }
        // The slab test decides a hit exactly, but the segment's end point `end` is rounded: the
        // candidate box is widened by a bound on its error (within 2 units of
        // `|origin| + |direction|·max_t`; plus the smallest subnormal), so that culling never
        // drops a box the test accepts: else the answer for a box entered exactly at `max_t`
        // depended on unrelated objects.
        let span = ray.origin().abs() + ray.direction().abs() * max_t;
        let pad = span * (8.0 * f64::EPSILON) + ray.direction().abs() * f64::MIN_POSITIVE + f64::MIN_POSITIVE;
        match Aabb::new(ray.origin().min(end) - pad, ray.origin().max(end) + pad) {
            Ok(segment_box) => {
                for grid in &self.grids {
                    for_each_candidate(grid, &segment_box, &mut accept);
                }
            }
            // An infinite ray: every object is a candidate.
            Err(_) => {
                for grid in &self.grids {
                    for occupied in &grid.occupied {
                        occupied.objects.iter().for_each(|&id| accept(id));
                    }
                }
            }
        }
        out.sort_unstable_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        Ok(())
    }
}

/// Appends to `out` every object of `grid` whose reference cell may hold a box overlapping
/// `query` (each object at most once), as [`for_each_candidate`] visits them.
///
/// The same candidates, gathered in phases (all cell slots of the range, then the objects of
/// the occupied ones) so that the memory loads of one phase are independent of each other and
/// the processor overlaps their cache misses, where a visit per cell waits for each in turn.
/// For a box query against a structure much larger than the cache, this is most of the cost.
pub(crate) fn gather_candidates(grid: &HashGrid, query: &Aabb, out: &mut Vec<u32>) {
    /// Ranges up to this many cells (a box of its own grid spans at most 3 × 3 × 3 reference
    /// cells) are gathered in phases; larger ones are visited cell by cell.
    const MAX_PHASED: usize = 64;
    if grid.object_count == 0 {
        return;
    }
    if let Some((start, lens)) = grid.reference_range(query) {
        let lens = lens.map(|l| l as usize);
        if lens[0] * lens[1] * lens[2] <= MAX_PHASED.min(grid.occupied.len()) {
            let mut slots = [0u32; MAX_PHASED];
            let mut k = 0;
            for dz in 0..lens[2] as i64 {
                for dy in 0..lens[1] as i64 {
                    for dx in 0..lens[0] as i64 {
                        let cell = grid.hash([start[0] + dx, start[1] + dy, start[2] + dz]);
                        slots[k] = grid.cells.get(cell);
                        k += 1;
                    }
                }
            }
            for &slot in &slots[..k] {
                if slot != crate::hash_grid::EMPTY {
                    // One or two ids per cell, typically: a loop of pushes, not a call to
                    // `memcpy` per cell.
                    for &id in &grid.occupied[slot as usize].objects {
                        out.push(id);
                    }
                }
            }
            return;
        }
    }
    let first = out.len();
    if for_each_candidate(grid, query, &mut |id| out.push(id)) == Visit::OccupiedList {
        // The occupied list's order is a matter of memory layout (`optimize_layout` sorts it),
        // and the incremental detection's pair order must not follow it: by id instead.
        out[first..].sort_unstable();
    }
}

/// How [`for_each_candidate`] went through a grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Visit {
    /// The cells of the query's range, in range order (or none: an empty grid).
    Range,
    /// Every occupied cell, in the order of the occupied list.
    OccupiedList,
}

/// Calls `f` on every object of `grid` whose reference cell may hold a box overlapping `query`
/// (each object at most once), and says in which order it visited them.
pub(crate) fn for_each_candidate(grid: &HashGrid, query: &Aabb, f: &mut impl FnMut(u32)) -> Visit {
    // (A grid whose objects all left stays, empty; a query's range would still visit its cells.)
    if grid.object_count == 0 {
        return Visit::Range;
    }
    // A range at least as long as the grid wraps onto every cell: it is capped at the grid size,
    // and when it holds more cells than are occupied, the occupied ones are visited instead.
    let range = grid
        .reference_range(query)
        .filter(|(_, lens)| lens[0] * lens[1] * lens[2] <= grid.occupied.len() as u64);
    if let Some((start, lens)) = range {
        for dz in 0..lens[2] as i64 {
            for dy in 0..lens[1] as i64 {
                for dx in 0..lens[0] as i64 {
                    let cell = grid.hash([start[0] + dx, start[1] + dy, start[2] + dz]);
                    if let Some(objects) = grid.objects_in(cell) {
                        objects.iter().for_each(|&id| f(id));
                    }
                }
            }
        }
        Visit::Range
    } else {
        for occupied in &grid.occupied {
            occupied.objects.iter().for_each(|&id| f(id));
        }
        Visit::OccupiedList
    }
}
