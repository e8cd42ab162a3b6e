//! The hierarchy of hash grids: object storage, insertion (Algorithm 3), removal, update
//! (Algorithm 2 and clear-and-reinsert), grid growth and the all-pairs mode.

use crate::hash_grid::HashGrid;
use crate::memory::reserve_a_quarter_more;
use crate::prefetch::{self, prefetch};
use crate::{
    BaseCellSize, CollisionGroups, Handle, HhGridConfig, HhGridError, ObjectOptions, UpdateStrategy,
};
use geometry_core::Aabb;

/// Where an object is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Location {
    /// The slot is free.
    Free,
    /// In the all-pairs list (before the switch to grids), at this position.
    AllPairs(u32),
    /// In grid `grid` (stable grid id, below [`MAX_GRIDS`], so that a location takes 12
    /// bytes), cell `cell`, at `position` of the cell's container.
    Grid { grid: u16, cell: u32, position: u32 },
    /// In the container tested against everything (unbounded objects, and boxes too large or
    /// too far out for any grid's `f64` cell arithmetic), at this position.
    Everywhere(u32),
}

const _: () = assert!(size_of::<Location>() == 12 && MAX_GRIDS - 1 <= u16::MAX as usize);

/// The most grids a hierarchy creates. Only a hierarchy factor near its minimum over sizes
/// spanning hundreds of orders of magnitude needs more levels; objects of the further levels
/// are kept in the test-against-everything container (correct, only slower for them).
pub(crate) const MAX_GRIDS: usize = 1 << 16;

/// Per-object data read by detection, kept compact: the fields of [`ObjectOptions`] are
/// stored unnested, so that its padding and the flag's share one word (16 bytes, not 20).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Meta {
    pub(crate) generation: u32,
    pub(crate) groups: CollisionGroups,
    pub(crate) is_static: bool,
    pub(crate) unbounded: bool,
}

const _: () = assert!(size_of::<Meta>() == 16);

impl Meta {
    fn new(options: ObjectOptions, unbounded: bool) -> Self {
        Self { generation: 0, groups: options.groups, is_static: options.is_static, unbounded }
    }

    /// The options the object was inserted with.
    pub(crate) fn options(&self) -> ObjectOptions {
        ObjectOptions { is_static: self.is_static, groups: self.groups }
    }
}

/// A hierarchical hash grid broad phase (Schornbaum 2009).
///
/// Objects are axis-aligned boxes. Each is stored in one cell of one grid: the grid whose cell
/// size `c` satisfies `c / f ≤ size < c` (size = longest box edge, `f` = hierarchy factor),
/// the cell that contains the box's minimum corner (the fixed reference point). Pairs are found
/// by Algorithm 4 of the thesis: within each cell, against 13 of the 26 neighbour cells, and for
/// every object against the 27-cell neighbourhood in every coarser grid (narrowed by default to
/// the cells that can hold an overlapping box) — each overlapping pair exactly once.
///
/// ```
/// use contact_core::BroadPhase;
/// use geometry_core::{Aabb, DVec3};
/// use hhgrid::{HhGridConfig, HierarchicalHashGrid};
///
/// let mut grid = HierarchicalHashGrid::new(HhGridConfig { all_pairs_threshold: 0, ..HhGridConfig::default() }).unwrap();
/// let small = grid.insert(Aabb::new(DVec3::ZERO, DVec3::splat(0.1)).unwrap()).unwrap();
/// let large = grid.insert(Aabb::new(DVec3::splat(-5.0), DVec3::splat(0.05)).unwrap()).unwrap();
/// let far = grid.insert(Aabb::new(DVec3::splat(100.0), DVec3::splat(100.1)).unwrap()).unwrap();
/// assert_eq!(grid.grid_count(), 2);
/// let mut pairs = Vec::new();
/// grid.find_pairs(&mut pairs);
/// assert_eq!(pairs, vec![(small, large)]);
/// grid.update(far, Aabb::new(DVec3::splat(0.05), DVec3::splat(0.2)).unwrap()).unwrap();
/// grid.find_pairs(&mut pairs);
/// assert_eq!(pairs.len(), 3); // it now overlaps both, and the 0.15-wide box opened a third level
/// assert_eq!(grid.grid_count(), 3);
/// ```
#[derive(Debug, Clone)]
pub struct HierarchicalHashGrid {
    pub(crate) config: HhGridConfig,
    pub(crate) aabbs: Vec<Aabb>,
    pub(crate) meta: Vec<Meta>,
    pub(crate) locations: Vec<Location>,
    free: Vec<u32>,
    pub(crate) len: usize,
    /// Live objects that are not static: with none, detection has nothing to do.
    pub(crate) dynamic_len: usize,
    /// Live objects that are static or not in every collision group: with none, detection
    /// reports overlapping pairs without looking up the objects' options.
    pub(crate) restricted_len: usize,
    /// Grids by stable id (creation order).
    pub(crate) grids: Vec<HashGrid>,
    /// Grid ids sorted by cell size, finest first.
    pub(crate) order: Vec<u32>,
    /// `c0`, fixed by the first object placed in a grid (thesis eq. 3.3.2).
    base_cell_size: Option<f64>,
    pub(crate) grids_active: bool,
    pub(crate) all_pairs: Vec<u32>,
    pub(crate) everywhere: Vec<u32>,
    pub(crate) rebuild_pending: bool,
    /// Detection's packed snapshot of each grid (by grid id), kept to reuse its allocations.
    pub(crate) packed: Vec<crate::packed::PackedGrid>,
    /// The snapshot's scratch space: each object's entry index.
    pub(crate) packed_positions: Vec<u32>,
    /// Objects changed since the previous detection, and its pairs (incremental detection).
    pub(crate) changes: crate::incremental::ChangeLog,
    /// [`MAX_GRIDS`], lowered by tests.
    grid_limit: usize,
}

impl Default for HierarchicalHashGrid {
    fn default() -> Self {
        Self::new(HhGridConfig::default()).expect("the default configuration is valid")
    }
}

impl HierarchicalHashGrid {
    /// An empty structure.
    ///
    /// # Errors
    /// [`HhGridError::InvalidConfig`] when `config` does not [`validate`](HhGridConfig::validate).
    ///
    /// ```
    /// use hhgrid::{HhGridConfig, HierarchicalHashGrid};
    /// let bad = HhGridConfig { hierarchy_factor: 1.0, ..HhGridConfig::default() };
    /// assert!(HierarchicalHashGrid::new(bad).is_err());
    /// ```
    pub fn new(config: HhGridConfig) -> Result<Self, HhGridError> {
        config.validate()?;
        Ok(Self {
            grids_active: config.all_pairs_threshold == 0,
            config,
            aabbs: Vec::new(),
            meta: Vec::new(),
            locations: Vec::new(),
            free: Vec::new(),
            len: 0,
            dynamic_len: 0,
            restricted_len: 0,
            grids: Vec::new(),
            order: Vec::new(),
            base_cell_size: None,
            all_pairs: Vec::new(),
            everywhere: Vec::new(),
            rebuild_pending: false,
            packed: Vec::new(),
            packed_positions: Vec::new(),
            changes: crate::incremental::ChangeLog::default(),
            grid_limit: MAX_GRIDS,
        })
    }

    /// The configuration.
    ///
    /// ```
    /// use hhgrid::HierarchicalHashGrid;
    /// assert_eq!(HierarchicalHashGrid::default().config().hierarchy_factor, 2.0);
    /// ```
    pub fn config(&self) -> &HhGridConfig {
        &self.config
    }

    pub(crate) fn free_capacity(&self) -> usize {
        self.free.capacity()
    }

    /// Number of grids in the hierarchy (levels are created lazily, so the hierarchy is sparse).
    ///
    /// A grid stays when its last object leaves (its level may fill again; detection and
    /// queries skip it). So a structure whose objects keep taking new sizes, with a hierarchy
    /// factor close to 1, accumulates the grids of every level it ever used, a few KiB each, up
    /// to 65 536 grids (beyond which objects go to the container tested against everything);
    /// build a new structure to drop them.
    ///
    /// ```
    /// use contact_core::BroadPhase;
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid::{HhGridConfig, HierarchicalHashGrid};
    /// let mut grid = HierarchicalHashGrid::new(HhGridConfig { all_pairs_threshold: 0, ..HhGridConfig::default() }).unwrap();
    /// grid.insert(Aabb::new(DVec3::ZERO, DVec3::splat(1.0)).unwrap()).unwrap();
    /// grid.insert(Aabb::new(DVec3::ZERO, DVec3::splat(100.0)).unwrap()).unwrap();
    /// assert_eq!(grid.grid_count(), 2); // levels 0 and 7; the five between are not created
    /// ```
    pub fn grid_count(&self) -> usize {
        self.grids.len()
    }

    /// Whether the structure has switched from the all-pairs mode to grids (irreversible).
    ///
    /// ```
    /// use contact_core::BroadPhase;
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid::HierarchicalHashGrid;
    /// let mut grid = HierarchicalHashGrid::default(); // threshold 32
    /// let handles: Vec<_> = (0..33).map(|_| grid.insert(Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap()).unwrap()).collect();
    /// assert!(grid.grids_active());
    /// for h in handles {
    ///     grid.remove(h).unwrap();
    /// }
    /// assert!(grid.grids_active()); // stays on grids
    /// ```
    pub fn grids_active(&self) -> bool {
        self.grids_active
    }

    /// `(level, cell size, cells per axis, objects)` of each grid, finest first.
    ///
    /// ```
    /// use contact_core::BroadPhase;
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid::{HhGridConfig, HierarchicalHashGrid};
    /// let mut grid = HierarchicalHashGrid::new(HhGridConfig { all_pairs_threshold: 0, ..HhGridConfig::default() }).unwrap();
    /// grid.insert(Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap()).unwrap();
    /// let (level, cell, dims, objects) = grid.grid_summary()[0];
    /// assert_eq!((level, dims, objects), (0, [16, 16, 16], 1));
    /// assert!((cell - 2f64.sqrt()).abs() < 1e-15); // first object's size × √f
    /// ```
    pub fn grid_summary(&self) -> Vec<(i32, f64, [u32; 3], usize)> {
        self.order
            .iter()
            .map(|&g| {
                let grid = &self.grids[g as usize];
                (grid.level, grid.cell_size, grid.dims(), grid.object_count)
            })
            .collect()
    }

    /// The stored box of a live object (`None` for unknown handles and unbounded objects).
    ///
    /// ```
    /// use contact_core::BroadPhase;
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid::HierarchicalHashGrid;
    /// let mut grid = HierarchicalHashGrid::default();
    /// let unit = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
    /// let h = grid.insert(unit).unwrap();
    /// assert_eq!(grid.aabb(h), Some(unit));
    /// ```
    pub fn aabb(&self, handle: Handle) -> Option<Aabb> {
        let id = self.resolve(handle).ok()?;
        (!self.meta[id as usize].unbounded).then(|| self.aabbs[id as usize])
    }

    /// Inserts a box with options (static flag, collision groups).
    ///
    /// # Errors
    /// [`HhGridError::InvalidAabb`] for a non-finite or inverted box;
    /// [`HhGridError::TooManyObjects`] beyond `u32::MAX - 1` objects.
    ///
    /// ```
    /// use contact_core::BroadPhase;
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid::{HierarchicalHashGrid, ObjectOptions};
    /// let mut grid = HierarchicalHashGrid::default();
    /// let wall = ObjectOptions { is_static: true, ..ObjectOptions::default() };
    /// grid.insert_with(Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap(), wall).unwrap();
    /// grid.insert_with(Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap(), wall).unwrap();
    /// let mut pairs = Vec::new();
    /// grid.find_pairs(&mut pairs);
    /// assert!(pairs.is_empty()); // no static–static pairs
    /// ```
    pub fn insert_with(&mut self, aabb: Aabb, options: ObjectOptions) -> Result<Handle, HhGridError> {
        let aabb = aabb.validate()?;
        self.insert_object(aabb, options, false)
    }

    /// Inserts an unbounded object (an infinite plane, say): it is paired with every other
    /// object (subject to the static flag, groups and the filter), as the thesis's global
    /// container for infinite objects (§3.3).
    ///
    /// # Errors
    /// [`HhGridError::TooManyObjects`].
    ///
    /// ```
    /// use contact_core::BroadPhase;
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid::{HierarchicalHashGrid, ObjectOptions};
    /// let mut grid = HierarchicalHashGrid::default();
    /// let ground = grid.insert_unbounded(ObjectOptions { is_static: true, ..Default::default() }).unwrap();
    /// let ball = grid.insert(Aabb::new(DVec3::splat(1e3), DVec3::splat(1e3 + 1.0)).unwrap()).unwrap();
    /// let mut pairs = Vec::new();
    /// grid.find_pairs(&mut pairs);
    /// assert_eq!(pairs, vec![(ground, ball)]);
    /// ```
    pub fn insert_unbounded(&mut self, options: ObjectOptions) -> Result<Handle, HhGridError> {
        let everything =
            Aabb::new(geometry_core::DVec3::splat(f64::MIN), geometry_core::DVec3::splat(f64::MAX))?;
        self.insert_object(everything, options, true)
    }

    fn insert_object(
        &mut self,
        aabb: Aabb,
        options: ObjectOptions,
        unbounded: bool,
    ) -> Result<Handle, HhGridError> {
        let id = if let Some(id) = self.free.pop() {
            self.aabbs[id as usize] = aabb;
            let meta = &mut self.meta[id as usize];
            *meta = Meta { generation: meta.generation, ..Meta::new(options, unbounded) };
            id
        } else {
            let id = u32::try_from(self.aabbs.len())
                .ok()
                .filter(|&i| i < u32::MAX)
                .ok_or(HhGridError::TooManyObjects)?;
            reserve_a_quarter_more(&mut self.aabbs, 1);
            reserve_a_quarter_more(&mut self.meta, 1);
            reserve_a_quarter_more(&mut self.locations, 1);
            self.aabbs.push(aabb);
            self.meta.push(Meta::new(options, unbounded));
            self.locations.push(Location::Free);
            id
        };
        self.len += 1;
        self.note_change(id);
        if !options.is_static {
            self.dynamic_len += 1;
        }
        if options.is_restricting() {
            self.restricted_len += 1;
        }
        if unbounded {
            self.put_everywhere(id);
        } else if self.grids_active {
            self.assign(id);
        } else if self.all_pairs.len() + 1 > self.config.all_pairs_threshold {
            // Only objects with a box count (in all-pairs mode they are exactly the list; the
            // unbounded ones are tested against everything anyway): counting those too switched
            // a scene that inserts its planes first at its first box.
            // The threshold is exceeded: switch to grids, irreversibly (thesis §3.7).
            self.grids_active = true;
            let waiting = std::mem::take(&mut self.all_pairs);
            if self.base_cell_size.is_none() && self.config.base_cell_size == BaseCellSize::DensestLevel {
                let sizes: Vec<f64> =
                    waiting.iter().chain([&id]).map(|&o| self.aabbs[o as usize].longest_edge()).collect();
                self.base_cell_size = densest_level_cell_size(sizes, self.config.hierarchy_factor);
            }
            for other in waiting {
                self.assign(other);
            }
            self.assign(id);
        } else {
            self.locations[id as usize] = Location::AllPairs(self.all_pairs.len() as u32);
            self.all_pairs.push(id);
        }
        Ok(Handle { index: id, generation: self.meta[id as usize].generation })
    }

    pub(crate) fn resolve(&self, handle: Handle) -> Result<u32, HhGridError> {
        match (self.meta.get(handle.index as usize), self.locations.get(handle.index as usize)) {
            (Some(meta), Some(location))
                if meta.generation == handle.generation && *location != Location::Free =>
            {
                Ok(handle.index)
            }
            _ => Err(HhGridError::UnknownHandle),
        }
    }

    /// Records a change of object `id` for incremental detection (when enabled).
    #[inline]
    fn note_change(&mut self, id: u32) {
        if self.config.incremental_share > 0.0 {
            self.changes.mark(id);
        }
    }

    #[inline]
    pub(crate) fn handle_of(&self, id: u32) -> Handle {
        Handle { index: id, generation: self.meta[id as usize].generation }
    }

    fn put_everywhere(&mut self, id: u32) {
        self.locations[id as usize] = Location::Everywhere(self.everywhere.len() as u32);
        self.everywhere.push(id);
    }

    /// The cell size of level `k`: `c0 · f^k`. Every cell size comes from this one function, so
    /// the level tests below are consistent with the grids' stored sizes.
    fn cell_size_of(&self, level: i32) -> f64 {
        self.base_cell_size.expect("set before any grid exists") * self.config.hierarchy_factor.powi(level)
    }

    /// The level `k` with `cell(k-1) <= size < cell(k)` (thesis eq. 3.3.3; Algorithm 3 finds the
    /// same level by walking the grid list).
    fn level_for(&self, size: f64) -> i32 {
        const LIMIT: i32 = 200_000;
        let c0 = self.base_cell_size.expect("set before any grid exists");
        let guess = ((size.ln() - c0.ln()) / self.config.hierarchy_factor.ln()).floor() + 1.0;
        let mut level = guess.clamp(-f64::from(LIMIT), f64::from(LIMIT)) as i32;
        while level < LIMIT && size >= self.cell_size_of(level) {
            level += 1;
        }
        while level > -LIMIT && size < self.cell_size_of(level - 1) {
            level -= 1;
        }
        level
    }

    /// The id of the grid of `level`, created (and placed in the size order) if missing; `None`
    /// when it is missing and there are [`MAX_GRIDS`] grids already.
    fn grid_of_level(&mut self, level: i32) -> Option<u32> {
        let position = self.order.partition_point(|&g| self.grids[g as usize].level < level);
        if let Some(&g) = self.order.get(position)
            && self.grids[g as usize].level == level
        {
            return Some(g);
        }
        if self.grids.len() >= self.grid_limit {
            return None;
        }
        let id = self.grids.len() as u32;
        let grid = HashGrid::new(
            level,
            self.cell_size_of(level),
            self.cell_size_of(level - 1),
            self.config.initial_cells,
            self.config.cell_reserve,
        );
        self.grids.push(grid);
        self.order.insert(position, id);
        Some(id)
    }

    /// Places object `id` (not currently stored anywhere) in its grid (Algorithm 3), or in the
    /// everywhere container when no grid can hold it reliably.
    pub(crate) fn assign(&mut self, id: u32) {
        let aabb = self.aabbs[id as usize];
        let size = aabb.longest_edge();
        if !size.is_finite() {
            self.put_everywhere(id);
            return;
        }
        if self.base_cell_size.is_none() {
            // Thesis eq. 3.3.2: the first object sits midway between its grid's size bounds.
            let c = size * self.config.hierarchy_factor.sqrt();
            self.base_cell_size = Some(if c > 0.0 && c.is_finite() { c } else { 1.0 });
        }
        let mut level = if size > 0.0 {
            self.level_for(size)
        } else {
            // A point fits any grid; use the finest existing one.
            self.order.first().map_or(0, |&g| self.grids[g as usize].level)
        };
        loop {
            let Some(g) = self.grid_of_level(level) else {
                self.put_everywhere(id);
                return;
            };
            let grid = &self.grids[g as usize];
            let (Some(lo), Some(hi)) = (grid.coordinates(aabb.min), grid.coordinates(aabb.max)) else {
                self.put_everywhere(id);
                return;
            };
            // The detection relies on every box spanning at most two cells per axis. Exactly, a box
            // smaller than the cell always does; after rounding, a box within an ulp of the cell
            // size may not, and then goes one level up.
            if (0..3).any(|a| hi[a] - lo[a] > 1) {
                level += 1;
                continue;
            }
            let cell = grid.hash(lo);
            self.store_in_grid(id, g, cell);
            self.grow_if_dense(g);
            return;
        }
    }

    fn store_in_grid(&mut self, id: u32, g: u32, cell: u32) {
        let grid = &mut self.grids[g as usize];
        grid.note_object_size(self.aabbs[id as usize].longest_edge());
        let position = grid.insert(id, cell);
        // `g < MAX_GRIDS` (see `grid_of_level`).
        self.locations[id as usize] = Location::Grid { grid: g as u16, cell, position };
    }

    fn grow_if_dense(&mut self, g: u32) {
        let grid = &self.grids[g as usize];
        if grid.object_count as f64 <= grid.cell_count() as f64 * self.config.max_density {
            return;
        }
        if let Some(objects) = self.grids[g as usize].grow() {
            for id in objects {
                let grid = &self.grids[g as usize];
                // Every object is placed by its box's minimum corner, which the grid hashed
                // before it grew, unless the box was updated since under clear-and-reinsert
                // (stored, not yet placed) to one beyond the coordinates the grid hashes. Any
                // cell holds such an object until the rebuild that the pending update implies,
                // before any detection or query, places it anew.
                let placed = grid.coordinates(self.aabbs[id as usize].min);
                debug_assert!(placed.is_some() || self.rebuild_pending, "an object the grid cannot place");
                let cell = placed.map_or(0, |lo| grid.hash(lo));
                self.store_in_grid(id, g, cell);
            }
        }
    }

    /// Takes object `id` out of wherever it is stored (its slot stays allocated).
    fn unlink(&mut self, id: u32) {
        match self.locations[id as usize] {
            Location::Free => {}
            Location::AllPairs(position) => {
                self.all_pairs.swap_remove(position as usize);
                if let Some(&moved) = self.all_pairs.get(position as usize) {
                    self.locations[moved as usize] = Location::AllPairs(position);
                }
            }
            Location::Everywhere(position) => {
                self.everywhere.swap_remove(position as usize);
                if let Some(&moved) = self.everywhere.get(position as usize) {
                    self.locations[moved as usize] = Location::Everywhere(position);
                }
            }
            Location::Grid { grid, cell, position } => {
                if let Some(moved) = self.grids[grid as usize].remove(cell, position) {
                    self.locations[moved as usize] = Location::Grid { grid, cell, position };
                }
            }
        }
        self.locations[id as usize] = Location::Free;
    }

    pub(crate) fn remove_object(&mut self, handle: Handle) -> Result<(), HhGridError> {
        let id = self.resolve(handle)?;
        self.unlink(id);
        self.note_change(id);
        // A later object under this id must not inherit the fat box.
        self.changes.forget_fat_box(id);
        let meta = &mut self.meta[id as usize];
        // A slot whose generations are spent (2³² objects) is retired, not reused: its next
        // handle would repeat generation 0 and alias the handles of long-removed objects.
        let next_generation = meta.generation.checked_add(1);
        if let Some(next) = next_generation {
            meta.generation = next;
        }
        if !meta.is_static {
            self.dynamic_len -= 1;
        }
        if meta.options().is_restricting() {
            self.restricted_len -= 1;
        }
        if next_generation.is_some() {
            self.free.push(id);
        }
        self.len -= 1;
        Ok(())
    }

    /// Replaces the boxes of many objects: the same as [`update`](BroadPhase::update) of each
    /// in turn, with the memory accesses of consecutive updates overlapped (see
    /// [`crate::prefetch`]). Each update asks for the records of the object
    /// [`DISTANCE`](prefetch::DISTANCE) places ahead; in a structure larger than the cache,
    /// a pipeline also asks, for the objects whose cell changes, for the table entries of their
    /// old and new cells (read when their records have arrived) and then for those cells'
    /// object lists (read when the table entries have). Worth it when the updated objects are
    /// scattered over a large structure: the movers of a resting scene, or every object once the
    /// cells they leave and enter no longer fit in the cache.
    pub(crate) fn update_objects(&mut self, updates: &[(Handle, Aabb)]) -> Result<(), HhGridError> {
        /// From this many objects, the cells are prefetched as well (measured, thesis workload:
        /// update 66 -> 39 ns per object at 10⁶ objects, 55 -> 45 at 3·10⁵; but update and
        /// detection 101 -> 117 ns per object at 10⁴, where the cells are in the cache and the
        /// pipeline's extra cell computations are pure cost).
        const CELLS_FROM: usize = 1 << 17;
        const DISTANCE: usize = prefetch::DISTANCE;
        // Three stages, half the distance apart (measured: 8 apart gave the fastest updates at
        // 10⁶ objects).
        const STAGE: usize = DISTANCE / 2;
        const RING: usize = 2 * STAGE;
        if self.aabbs.len() < CELLS_FROM {
            for (i, &(handle, aabb)) in updates.iter().enumerate() {
                if let Some(&(ahead, _)) = updates.get(i + DISTANCE) {
                    self.prefetch_records(ahead.index);
                }
                self.update_object(handle, aabb)?;
            }
            return Ok(());
        }
        // The cells that the update at position `m` leaves and enters, found by the table
        // stage and kept for the object-list stage `STAGE` updates later (the ring holds more).
        let mut moves = [None; RING];
        for (i, &(handle, aabb)) in updates.iter().enumerate() {
            if let Some(&(ahead, _)) = updates.get(i + 3 * STAGE) {
                self.prefetch_records(ahead.index);
            }
            if let Some((ahead, new_box)) = updates.get(i + 2 * STAGE) {
                let cells = self.cell_change(ahead.index, new_box);
                if let Some((g, cells)) = cells {
                    for c in cells {
                        self.grids[g].cells.prefetch(c);
                    }
                }
                moves[(i + 2 * STAGE) % RING] = cells;
            }
            if let Some((g, cells)) = moves[(i + STAGE) % RING].take() {
                for c in cells {
                    self.grids[g].prefetch_occupied(c);
                }
            }
            self.update_object(handle, aabb)?;
        }
        Ok(())
    }

    /// Prefetches what an update of object `id` reads first: its metadata, location, box and
    /// change flag.
    #[inline]
    fn prefetch_records(&self, id: u32) {
        let id = id as usize;
        prefetch(&self.meta, id);
        prefetch(&self.locations, id);
        prefetch(&self.aabbs, id);
        self.changes.prefetch(id);
    }

    /// The grid and the old and new cells of object `id` if it is in a grid and its new box
    /// `new_box` falls in another cell of it.
    #[inline]
    fn cell_change(&self, id: u32, new_box: &Aabb) -> Option<(usize, [u32; 2])> {
        let Some(&Location::Grid { grid, cell, .. }) = self.locations.get(id as usize) else { return None };
        let g = &self.grids[grid as usize];
        // (An invalid box is refused by the update itself; its cell is merely not prefetched.)
        let new_cell = g.home_cell(new_box).filter(|&c| c != cell)?;
        Some((grid as usize, [cell, new_cell]))
    }

    pub(crate) fn update_object(&mut self, handle: Handle, aabb: Aabb) -> Result<(), HhGridError> {
        let id = self.resolve(handle)?;
        // Only the verdict: the box itself is used as given (moving it through the `Result`
        // went through the stack and stalled store forwarding; measured 8 % of an update).
        aabb.validate()?;
        if self.meta[id as usize].unbounded {
            return Err(HhGridError::UpdateOfUnbounded);
        }
        if self.aabbs[id as usize] != aabb {
            self.note_change(id);
        }
        self.aabbs[id as usize] = aabb;
        match self.locations[id as usize] {
            Location::AllPairs(_) | Location::Free => {}
            Location::Everywhere(_) => {
                self.unlink(id);
                self.assign(id);
            }
            Location::Grid { grid, cell, position } => {
                if self.config.update_strategy == UpdateStrategy::ClearAndReinsert {
                    self.rebuild_pending = true;
                    return Ok(());
                }
                // Algorithm 2: is the grid still suitably sized? Then recompute the hash and move
                // the object only if its cell changed.
                let g = &self.grids[grid as usize];
                let size = aabb.longest_edge();
                let suitable = size < g.cell_size && (size >= g.min_object_size || size == 0.0);
                if suitable && let Some(new_cell) = g.home_cell(&aabb) {
                    self.grids[grid as usize].note_object_size(size);
                    if new_cell != cell {
                        if let Some(moved) = self.grids[grid as usize].remove(cell, position) {
                            self.locations[moved as usize] = Location::Grid { grid, cell, position };
                        }
                        self.store_in_grid(id, u32::from(grid), new_cell);
                    }
                    return Ok(());
                }
                self.unlink(id);
                self.assign(id);
            }
        }
        Ok(())
    }

    /// Applies pending updates of the [`ClearAndReinsert`](UpdateStrategy::ClearAndReinsert)
    /// strategy: empties every grid (through the occupied-cell lists) and reinserts all objects
    /// with their current boxes. Detection calls this automatically; queries require it.
    ///
    /// ```
    /// use contact_core::BroadPhase;
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid::{HhGridConfig, HhGridError, HierarchicalHashGrid, UpdateStrategy};
    /// let config = HhGridConfig { update_strategy: UpdateStrategy::ClearAndReinsert, all_pairs_threshold: 0, ..HhGridConfig::default() };
    /// let mut grid = HierarchicalHashGrid::new(config).unwrap();
    /// let h = grid.insert(Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap()).unwrap();
    /// grid.update(h, Aabb::new(DVec3::splat(5.0), DVec3::splat(6.0)).unwrap()).unwrap();
    /// let query = Aabb::new(DVec3::splat(5.5), DVec3::splat(5.6)).unwrap();
    /// let mut hits = Vec::new();
    /// assert_eq!(grid.query_aabb(&query, &mut hits), Err(HhGridError::RebuildPending));
    /// grid.rebuild();
    /// grid.query_aabb(&query, &mut hits).unwrap();
    /// assert_eq!(hits, vec![h]);
    /// ```
    pub fn rebuild(&mut self) {
        if !self.rebuild_pending {
            return;
        }
        self.rebuild_pending = false;
        let mut objects = Vec::with_capacity(self.len);
        for &g in &self.order.clone() {
            objects.extend(self.grids[g as usize].drain());
        }
        for id in objects {
            let before = self.locations[id as usize];
            self.assign(id);
            // A point goes to the finest grid there is, which may be a new one: an object that
            // did not change may land in another grid, whose queries do not reach as far as
            // its fat box. Its fat box becomes its box (the listed pairs stay a superset).
            let grid_of = |l: Location| if let Location::Grid { grid, .. } = l { Some(grid) } else { None };
            if grid_of(before) != grid_of(self.locations[id as usize]) {
                self.changes.forget_fat_box(id);
            }
        }
    }

    /// Sorts every grid's occupied-cell list by cell index, so that walking a list reads the
    /// grid's memory in order (fewer cache misses for large grids when detection copies the
    /// cells into its snapshot). Detection visits the cells in index order whatever the lists'
    /// order, and incremental detection orders what its queries gather by object, so with the
    /// default [`Incremental`](UpdateStrategy::Incremental) updates the pairs and their order
    /// stay the same, now and later; only the memory layout changes.
    ///
    /// With [`ClearAndReinsert`](UpdateStrategy::ClearAndReinsert), pending updates are applied
    /// first ([`rebuild`](Self::rebuild)), so the next detection's pairs come out as without
    /// the call. Later rebuilds reinsert the objects by walking the (now sorted) lists, which
    /// sets the order of objects within a cell: from then on the same pairs can come out in
    /// another order (use [`PairOrder::Sorted`](crate::PairOrder::Sorted) where the order
    /// matters).
    ///
    /// ```
    /// use contact_core::BroadPhase;
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid::HierarchicalHashGrid;
    /// let mut grid = HierarchicalHashGrid::default();
    /// for i in (0..100).rev() {
    ///     let p = DVec3::splat(f64::from(i));
    ///     grid.insert(Aabb::new(p, p + DVec3::splat(1.5)).unwrap()).unwrap();
    /// }
    /// let (mut before, mut after) = (Vec::new(), Vec::new());
    /// grid.find_pairs(&mut before);
    /// grid.optimize_layout();
    /// grid.find_pairs(&mut after);
    /// assert_eq!(before, after);
    /// ```
    pub fn optimize_layout(&mut self) {
        self.rebuild();
        for grid in &mut self.grids {
            grid.sort_occupied(self.config.parallel);
        }
    }
}

/// A cell size whose level `[c/f, c)` holds the most of `sizes` (finite, positive ones): the
/// window `[sᵢ, sᵢ·f)` with the most sizes, found by two pointers over the sorted sizes, is
/// centred in the level (geometrically, as the thesis centres its first object), so that the
/// rest of the population, of which `sizes` is a sample, is unlikely to spill over its edges.
/// `None` when no size is usable.
fn densest_level_cell_size(mut sizes: Vec<f64>, factor: f64) -> Option<f64> {
    sizes.retain(|s| s.is_finite() && *s > 0.0);
    sizes.sort_by(f64::total_cmp);
    let mut best = (0usize, 0usize, 0usize);
    let mut end = 0;
    for (start, &low) in sizes.iter().enumerate() {
        end = end.max(start);
        while end < sizes.len() && sizes[end] < low * factor {
            end += 1;
        }
        if end - start > best.0 {
            best = (end - start, start, end - 1);
        }
    }
    if best.0 == 0 {
        return None;
    }
    // sizes[last] < sizes[first]·f, so [mid/√f, mid·√f) contains both ends. (The product of
    // the square roots, not the root of the product: that underflowed to a cell size of 0 for
    // sizes below 1e-162, and every level's cell size became NaN.)
    let middle = sizes[best.1].sqrt() * sizes[best.2].sqrt();
    let c = middle * factor.sqrt();
    (c.is_finite() && c > 0.0).then_some(c)
}

#[cfg(test)]
mod base_cell_tests {
    use super::*;
    use crate::HhGridConfig;
    use contact_core::BroadPhase;
    use geometry_core::DVec3;

    #[test]
    fn densest_window_is_found() {
        // Sizes 1.0 and 1.1 and five in [3, 5): the window from 3 to 4.9 holds five, and its
        // geometric middle √(3·4.9) is centred in the level: c = √(3·4.9)·√2.
        let c = densest_level_cell_size(vec![1.0, 1.1, 3.0, 3.5, 4.0, 4.5, 4.9, f64::NAN, 0.0], 2.0).unwrap();
        assert!((c - (3.0f64 * 4.9 * 2.0).sqrt()).abs() < 1e-12);
        assert!(c / 2.0 <= 3.0 && 4.9 < c);
        assert_eq!(densest_level_cell_size(vec![f64::NAN], 2.0), None);
    }

    #[test]
    fn densest_window_of_tiny_sizes_is_a_positive_cell() {
        for (s, t) in [(1e-200, 1.5e-200), (1e-300, 1.9e-300), (3e-308, 4e-308)] {
            let c = densest_level_cell_size(vec![s, t], 2.0).unwrap();
            assert!(c / 2.0 <= s && t < c, "{s} {t}: {c}");
        }
    }

    #[test]
    fn densest_level_after_tiny_objects_keeps_a_working_hierarchy() {
        // The switch to grids happens with 33 objects of edge 1e-200 in view: the cell size
        // once underflowed to 0, every level became NaN, and every later object went to the
        // container tested against everything.
        let config = HhGridConfig { base_cell_size: BaseCellSize::DensestLevel, ..HhGridConfig::default() };
        let mut grid = HierarchicalHashGrid::new(config).unwrap();
        for i in 0..33 {
            let p = DVec3::new(f64::from(i) * 3e-200, 0.0, 0.0);
            grid.insert(Aabb::new(p, p + DVec3::splat(1e-200)).unwrap()).unwrap();
        }
        for i in 0..100 {
            let p = DVec3::new(f64::from(i % 10), f64::from(i / 10), 5.0) * 2.0;
            grid.insert(Aabb::new(p, p + DVec3::ONE).unwrap()).unwrap();
        }
        let summary = grid.grid_summary();
        assert!(summary.iter().all(|s| s.1 > 0.0 && s.1.is_finite()), "{summary:?}");
        assert_eq!(summary.iter().map(|s| s.3).sum::<usize>(), 133, "{summary:?}");
    }

    #[test]
    fn densest_level_puts_most_objects_in_one_grid_and_finds_the_same_pairs() {
        let mut state = 99u64;
        let mut next = || {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let boxes: Vec<Aabb> = (0..400)
            .map(|i| {
                // Mostly sizes near 3, a few small ones; the first object is one of the small ones.
                let half = if i % 10 == 0 { 0.3 + 0.1 * next() } else { 1.4 + 0.2 * next() };
                let c = DVec3::new(next(), next(), next()) * 30.0;
                Aabb::new(c - DVec3::splat(half), c + DVec3::splat(half)).unwrap()
            })
            .collect();
        let config = HhGridConfig { base_cell_size: BaseCellSize::DensestLevel, ..HhGridConfig::default() };
        let mut grid = HierarchicalHashGrid::new(config).unwrap();
        let mut thesis = HierarchicalHashGrid::default();
        for b in &boxes {
            grid.insert(*b).unwrap();
            thesis.insert(*b).unwrap();
        }
        let largest = |g: &HierarchicalHashGrid| g.grid_summary().iter().map(|s| s.3).max().unwrap();
        assert!(largest(&grid) >= 360, "{:?}", grid.grid_summary());
        assert!(largest(&grid) >= largest(&thesis));
        let mut found: Vec<(u32, u32)> = Vec::new();
        let mut pairs = Vec::new();
        grid.find_pairs(&mut pairs);
        found.extend(pairs.iter().map(|(a, b)| (a.index().min(b.index()), a.index().max(b.index()))));
        found.sort_unstable();
        let mut expected = Vec::new();
        for i in 0..boxes.len() {
            for j in i + 1..boxes.len() {
                if boxes[i].overlaps(&boxes[j]) {
                    expected.push((i as u32, j as u32));
                }
            }
        }
        assert_eq!(found, expected);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use contact_core::{AllPairs, BroadPhase};
    use geometry_core::DVec3;

    /// The pairs of `broad` as sorted pairs of object numbers (positions in `handles`).
    fn numbered<B: BroadPhase>(broad: &mut B, handles: &[B::Handle]) -> Vec<(usize, usize)> {
        let mut pairs = Vec::new();
        broad.find_pairs(&mut pairs);
        let number = |h| handles.iter().position(|&x| x == h).expect("a live handle");
        let mut numbered: Vec<_> = pairs
            .into_iter()
            .map(|(a, b)| {
                let (a, b) = (number(a), number(b));
                (a.min(b), a.max(b))
            })
            .collect();
        numbered.sort_unstable();
        numbered
    }

    /// Beyond the grid limit, objects of further levels are kept in the everywhere container and
    /// every pair is still found (against brute force), through updates that move objects
    /// between levels and removals.
    #[test]
    fn levels_beyond_the_grid_limit_go_everywhere() {
        let config = HhGridConfig { all_pairs_threshold: 0, ..HhGridConfig::default() };
        let mut grid = HierarchicalHashGrid::new(config).unwrap();
        grid.grid_limit = 3;
        let mut oracle = AllPairs::new();
        let size = |k: usize| 0.01 * 2f64.powi((k * 5 % 12) as i32);
        let place = |k: usize, shift: f64| {
            let p = DVec3::new((k % 7) as f64, (k / 7 % 5) as f64, shift) * 3.0;
            Aabb::new(p, p + DVec3::splat(size(k))).unwrap()
        };
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for k in 0..60 {
            ours.push(grid.insert(place(k, 0.0)).unwrap());
            theirs.push(oracle.insert(place(k, 0.0)).unwrap());
        }
        assert_eq!(grid.grid_count(), 3);
        assert!(!grid.everywhere.is_empty());
        assert_eq!(numbered(&mut grid, &ours), numbered(&mut oracle, &theirs));
        for k in 0..ours.len() {
            let moved = place(k + 5, 0.3);
            grid.update(ours[k], moved).unwrap();
            oracle.update(theirs[k], moved).unwrap();
        }
        assert_eq!(numbered(&mut grid, &ours), numbered(&mut oracle, &theirs));
        for k in (0..ours.len()).rev().step_by(2) {
            grid.remove(ours.remove(k)).unwrap();
            oracle.remove(theirs.remove(k)).unwrap();
        }
        assert_eq!(numbered(&mut grid, &ours), numbered(&mut oracle, &theirs));
        assert_eq!(grid.grid_count(), 3);
    }

    /// A slot whose generation is spent is retired: without it, the 2³²-th reuse of one slot
    /// gave generation 0 again, and a long-stale handle removed the live object.
    #[test]
    fn a_slot_with_spent_generations_is_retired() {
        let unit = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
        let mut grid = HierarchicalHashGrid::default();
        let stale = grid.insert(unit).unwrap();
        grid.remove(stale).unwrap();
        // Fast-forward the slot to its last generation (2³² reuses take minutes).
        grid.meta[stale.index as usize].generation = u32::MAX;
        let last = grid.insert(unit).unwrap();
        assert_eq!((last.index, last.generation), (stale.index, u32::MAX));
        grid.remove(last).unwrap();
        let next = grid.insert(unit).unwrap();
        assert_ne!(next.index, stale.index, "the spent slot was reused");
        assert!(grid.remove(stale).is_err());
        assert!(grid.remove(last).is_err());
        assert_eq!(grid.len(), 1);
        let mut pairs = Vec::new();
        grid.find_pairs(&mut pairs);
        assert!(pairs.is_empty());
    }
}
