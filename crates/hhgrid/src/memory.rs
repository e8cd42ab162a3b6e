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
/// assert_eq!(memory.total_bytes, memory.object_bytes + memory.grid_bytes + memory.other_bytes);
/// assert!(memory.total_bytes > 1000 * 48); // at least the boxes themselves
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryUsage {
    /// Per-object arrays: boxes, metadata, locations, free list.
    pub object_bytes: usize,
    /// The grids: cell arrays, occupied-cell lists and their object containers, offset tables,
    /// and detection's packed snapshot of the cells' boxes.
    pub grid_bytes: usize,
    /// The all-pairs list, the everywhere container, incremental detection's copy of the last
    /// pairs and change flags, and the struct itself.
    pub other_bytes: usize,
    /// The sum of the three.
    pub total_bytes: usize,
}

impl HierarchicalHashGrid {
    /// The memory held, by part (see [`MemoryUsage`] for an example).
    pub fn memory_usage(&self) -> MemoryUsage {
        let object_bytes = self.aabbs.capacity() * size_of::<Aabb>()
            + self.meta.capacity() * size_of::<Meta>()
            + self.locations.capacity() * size_of::<Location>()
            + self.free_capacity() * size_of::<u32>();
        let grid_bytes = self.grids.iter().map(crate::hash_grid::HashGrid::memory_bytes).sum::<usize>()
            + self.packed.iter().map(crate::packed::PackedGrid::memory_bytes).sum::<usize>()
            + self.packed_positions.capacity() * size_of::<u32>()
            + self.order.capacity() * size_of::<u32>();
        let other_bytes = (self.all_pairs.capacity() + self.everywhere.capacity()) * size_of::<u32>()
            + self.changes.memory_bytes()
            + size_of::<Self>();
        MemoryUsage {
            object_bytes,
            grid_bytes,
            other_bytes,
            total_bytes: object_bytes + grid_bytes + other_bytes,
        }
    }
}
