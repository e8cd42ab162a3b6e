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
use geometry_core::{Aabb, DVec3};
use rayon::prelude::*;

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
    /// Refills the rows from `grid`, reusing the allocations; in parallel chunks of occupied
    /// cells when `parallel` (the result is the same).
    pub(crate) fn fill(&mut self, grid: &HashGrid, aabbs: &[Aabb], parallel: bool) {
        const CHUNK: usize = 1024;
        self.starts.clear();
        self.starts.reserve(grid.occupied.len() + 1);
        let mut total = 0u32;
        for occupied in &grid.occupied {
            self.starts.push(total);
            total += occupied.objects.len() as u32;
        }
        self.starts.push(total);
        let placeholder = PackedEntry { aabb: Aabb { min: DVec3::ZERO, max: DVec3::ZERO }, id: 0 };
        self.entries.clear();
        self.entries.resize(total as usize, placeholder);
        let write = |slots: std::ops::Range<usize>, out: &mut [PackedEntry]| {
            let mut k = 0;
            for occupied in &grid.occupied[slots] {
                for &id in &occupied.objects {
                    out[k] = PackedEntry { aabb: aabbs[id as usize], id };
                    k += 1;
                }
            }
        };
        if parallel && grid.occupied.len() > CHUNK {
            // Cut the entries at chunk boundaries, then fill the pieces concurrently.
            let mut pieces = Vec::new();
            let mut rest: &mut [PackedEntry] = &mut self.entries;
            let mut slot = 0;
            while slot < grid.occupied.len() {
                let end = (slot + CHUNK).min(grid.occupied.len());
                let len = (self.starts[end] - self.starts[slot]) as usize;
                let (piece, tail) = rest.split_at_mut(len);
                pieces.push((slot..end, piece));
                rest = tail;
                slot = end;
            }
            pieces.into_par_iter().for_each(|(slots, piece)| write(slots, piece));
        } else {
            write(0..grid.occupied.len(), &mut self.entries);
        }
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
