//! Memory accounting.

use crate::HierarchicalHashGrid;
use crate::hierarchy::{Location, Meta};
use geometry_core::Aabb;
use std::mem::size_of;

/// Bytes held by a [`HierarchicalHashGrid`], by part (allocated capacity, not just length).
///
/// ```
/// use contact_core::BroadPhase;
/// use geometry_core::{Aabb, DVec3};
/// use hhgrid::HierarchicalHashGrid;
/// let mut grid = HierarchicalHashGrid::default();
/// for i in 0..1000 {
///     let p = DVec3::splat(f64::from(i));
///     grid.insert(Aabb::new(p, p + DVec3::ONE).unwrap()).unwrap();
/// }
/// let memory = grid.memory_usage();
/// let mut pairs = Vec::new();
/// grid.find_pairs(&mut pairs);
/// let memory = grid.memory_usage();
/// assert_eq!(
///     memory.total_bytes,
///     memory.object_bytes + memory.grid_bytes + memory.workspace_bytes + memory.other_bytes
/// );
/// assert!(memory.index_bytes() > 1000 * 48); // at least the boxes themselves
/// assert!(memory.workspace_bytes > 0); // detection's snapshot
/// grid.release_workspace();
/// assert_eq!(grid.memory_usage().workspace_bytes, 0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryUsage {
    /// Per-object arrays: boxes, metadata, locations, free list.
    pub object_bytes: usize,
    /// The grids: cell tables, occupied-cell lists and their object containers, offset tables.
    pub grid_bytes: usize,
    /// Detection's workspace: the packed snapshot of the cells' boxes, rebuilt from the grids at
    /// every full detection and kept only to reuse its allocation
    /// ([`release_workspace`](HierarchicalHashGrid::release_workspace) frees it).
    pub workspace_bytes: usize,
    /// The all-pairs list, the everywhere container, incremental detection's copy of the last
    /// pairs and change flags, and the struct itself.
    pub other_bytes: usize,
    /// The sum of the four.
    pub total_bytes: usize,
}

/// Makes room for one more element in `v`, growing its capacity by a quarter when full instead
/// of doubling it as `Vec::push` does: the arrays that grow with the objects (the per-object
/// arrays, the occupied-cell lists, the cell tables' page pools) then hold at most 25 % unused
/// capacity, against up to 100 %, at the price of more (still amortised O(1)) reallocations
/// while they grow. On the thesis scenario at 10⁶ objects, the index took 136 bytes per object
/// with doubling and 129 with this (the per-object arrays then held 16 % spare capacity).
#[inline]
pub(crate) fn reserve_a_quarter_more<T>(v: &mut Vec<T>, additional: usize) {
    if v.capacity() - v.len() < additional {
        v.reserve_exact(additional.max(v.len() / 4).max(16));
    }
}

impl MemoryUsage {
    /// The memory of the index itself: everything but the detection workspace, which carries
    /// nothing from one detection to the next.
    ///
    /// ```
    /// use contact_core::BroadPhase;
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid::HierarchicalHashGrid;
    /// let mut grid = HierarchicalHashGrid::default();
    /// for i in 0..100 {
    ///     let p = DVec3::splat(f64::from(i));
    ///     grid.insert(Aabb::new(p, p + DVec3::ONE).unwrap()).unwrap();
    /// }
    /// grid.find_pairs(&mut Vec::new());
    /// let before = grid.memory_usage();
    /// assert_eq!(before.index_bytes(), before.total_bytes - before.workspace_bytes);
    /// grid.release_workspace(); // frees only the workspace: the index keeps its size
    /// assert_eq!(grid.memory_usage().index_bytes(), before.index_bytes());
    /// ```
    pub fn index_bytes(&self) -> usize {
        self.total_bytes - self.workspace_bytes
    }
}

impl HierarchicalHashGrid {
    /// The memory held, by part (see [`MemoryUsage`] for an example).
    ///
    /// ```
    /// use contact_core::BroadPhase;
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid::HierarchicalHashGrid;
    /// let mut grid = HierarchicalHashGrid::default();
    /// let empty = grid.memory_usage();
    /// for i in 0..1000 {
    ///     let p = DVec3::splat(f64::from(i));
    ///     grid.insert(Aabb::new(p, p + DVec3::ONE).unwrap()).unwrap();
    /// }
    /// let full = grid.memory_usage();
    /// // The per-object arrays hold at least the 1000 boxes.
    /// assert!(full.object_bytes >= 1000 * std::mem::size_of::<Aabb>());
    /// assert!(full.total_bytes > empty.total_bytes);
    /// ```
    pub fn memory_usage(&self) -> MemoryUsage {
        let object_bytes = self.aabbs.capacity() * size_of::<Aabb>()
            + self.meta.capacity() * size_of::<Meta>()
            + self.locations.capacity() * size_of::<Location>()
            + self.free_capacity() * size_of::<u32>();
        let grid_bytes = self.grids.iter().map(crate::hash_grid::HashGrid::memory_bytes).sum::<usize>()
            + self.order.capacity() * size_of::<u32>();
        let workspace_bytes = self.packed.iter().map(crate::packed::PackedGrid::memory_bytes).sum::<usize>()
            + self.packed.capacity() * size_of::<crate::packed::PackedGrid>()
            + self.packed_positions.capacity() * size_of::<u32>();
        let other_bytes = (self.all_pairs.capacity() + self.everywhere.capacity()) * size_of::<u32>()
            + self.changes.memory_bytes()
            + size_of::<Self>();
        MemoryUsage {
            object_bytes,
            grid_bytes,
            workspace_bytes,
            other_bytes,
            total_bytes: object_bytes + grid_bytes + workspace_bytes + other_bytes,
        }
    }

    /// Frees detection's workspace (see [`MemoryUsage::workspace_bytes`]), for example before a
    /// long pause in the simulation or a checkpoint; the next full detection allocates it again.
    /// Nothing else changes (see [`MemoryUsage`] for an example).
    ///
    /// ```
    /// use contact_core::BroadPhase;
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid::{HhGridConfig, HierarchicalHashGrid};
    /// let config = HhGridConfig { all_pairs_threshold: 0, ..HhGridConfig::default() };
    /// let mut grid = HierarchicalHashGrid::new(config).unwrap();
    /// for i in 0..10 {
    ///     let p = DVec3::new(f64::from(i) * 0.5, 0.0, 0.0);
    ///     grid.insert(Aabb::new(p, p + DVec3::ONE).unwrap()).unwrap();
    /// }
    /// let (mut before, mut after) = (Vec::new(), Vec::new());
    /// grid.find_pairs(&mut before);
    /// grid.release_workspace();
    /// assert_eq!(grid.memory_usage().workspace_bytes, 0);
    /// grid.find_pairs(&mut after);
    /// assert_eq!(before, after);
    /// assert_eq!(before.len(), 9 + 8); // neighbours 0.5 apart overlap, 1.0 apart touch
    /// ```
    pub fn release_workspace(&mut self) {
        self.packed = Vec::new();
        self.packed_positions = Vec::new();
    }
}
