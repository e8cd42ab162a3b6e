//! A packed snapshot of the grids' cell contents, rebuilt at the start of every detection.
//!
//! The hash grids keep only object ids in their cells (what O(1) insert, remove and update
//! need). Detection, though, tests every object against its neighbours' boxes, and fetching each
//! candidate's box from the per-object array is a random memory access per candidate. The
//! snapshot copies, in occupied-cell order, each cell's `(box, id)` entries into one contiguous
//! array (compressed sparse rows: `starts[slot]..starts[slot + 1]` are the entries of occupied
//! slot `slot`). Building it reads each box once; detection then reads a cell's boxes from one
//! place, and the cells-to-slot map of the grid indexes the rows directly.

use crate::hash_grid::{EMPTY, HashGrid};
use geometry_core::Aabb;

/// An object's box and id, side by side.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PackedEntry {
    pub(crate) aabb: Aabb,
    pub(crate) id: u32,
}

/// The rows of one grid.
#[derive(Debug, Clone, Default)]
pub(crate) struct PackedGrid {
    starts: Vec<u32>,
    pub(crate) entries: Vec<PackedEntry>,
}

impl PackedGrid {
    /// Refills the rows from `grid`, reusing the allocations.
    pub(crate) fn fill(&mut self, grid: &HashGrid, aabbs: &[Aabb]) {
        self.starts.clear();
        self.entries.clear();
        self.starts.reserve(grid.occupied.len() + 1);
        self.entries.reserve(grid.object_count);
        for occupied in &grid.occupied {
            self.starts.push(self.entries.len() as u32);
            self.entries
                .extend(occupied.objects.iter().map(|&id| PackedEntry { aabb: aabbs[id as usize], id }));
        }
        self.starts.push(self.entries.len() as u32);
    }

    /// The entries of occupied slot `slot`.
    #[inline]
    pub(crate) fn row(&self, slot: usize) -> &[PackedEntry] {
        &self.entries[self.starts[slot] as usize..self.starts[slot + 1] as usize]
    }

    /// The entries of cell `cell` of `grid` (empty for an empty cell).
    #[inline]
    pub(crate) fn cell(&self, grid: &HashGrid, cell: u32) -> &[PackedEntry] {
        let slot = grid.cells[cell as usize];
        if slot == EMPTY { &[] } else { self.row(slot as usize) }
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.starts.capacity() * std::mem::size_of::<u32>()
            + self.entries.capacity() * std::mem::size_of::<PackedEntry>()
    }
}
