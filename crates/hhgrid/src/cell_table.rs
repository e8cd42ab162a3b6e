//! The map from a grid's cells to their slots in its occupied list, stored in pages.
//!
//! A grid folds all of space onto `2^a × 2^b × 2^c` cells and grows ×8 whenever it holds more
//! than `max_density` objects per cell (1/8 by default), so at any time it has 8 to 64 cells per
//! object. A plain array of one `u32` per cell then costs 32 to 256 bytes per object, most of
//! it for cells that nothing can reach: objects usually fill a region smaller than the grid's
//! period (in the thesis's benchmark at 10⁶ objects, the domain spans 89 of a grid's 256 cells per
//! axis, 4 % of the cells).
//!
//! The table is therefore cut into pages of [`PAGE`] consecutive cells (a stretch of one row
//! along x, or several whole rows of a narrow grid). A page is allocated when one of its cells
//! becomes occupied and returned to a free list when its last occupied cell empties, so memory
//! follows the occupied region. Beyond the occupied pages it costs the directory (one `u32` per
//! page, 1/512 of the plain array), the shared empty page (2 KiB, more than a whole plain array
//! for grids below 512 cells), and the free pages, which stay in the pool for reuse. Every unallocated page is represented by page 0 of the
//! pool, which is all [`EMPTY`] and never written: a lookup is two dependent loads without a
//! branch.

use crate::memory::reserve_a_quarter_more;
use crate::sharing::SharedSlice;

/// Marks an empty cell.
pub(crate) const EMPTY: u32 = u32::MAX;

/// log₂ of the cells per page: 512 cells, 2 KiB, 32 cache lines (pages of 64 cells were
/// measured slower at 10⁶ objects).
const PAGE_BITS: u32 = 9;

/// Cells per page.
pub(crate) const PAGE: usize = 1 << PAGE_BITS;

/// The directory entry of a page that is not allocated: the shared all-empty page.
const NO_PAGE: u32 = 0;

/// A map from cell index (below [`CellTable::len`]) to the cell's slot, or [`EMPTY`]; the
/// tests below compare it with a plain array.
#[derive(Debug, Clone)]
pub(crate) struct CellTable {
    /// Where each page of cells starts in the pool (page number × [`PAGE`], saving a shift per
    /// lookup), or [`NO_PAGE`].
    directory: Vec<u32>,
    /// The allocated pages, `PAGE` slots each; page 0 is the shared empty page.
    pool: Vec<u32>,
    /// Occupied cells per pool page (for freeing a page when its last cell empties).
    occupied_in: Vec<u32>,
    /// Pool pages free for reuse (all their cells `EMPTY`).
    free_pages: Vec<u32>,
    /// The number of cells (fewer than a page in the smallest grids).
    cells: usize,
}

impl CellTable {
    /// A table of `cells` empty cells; `cells` is a power of two.
    pub(crate) fn new(cells: usize) -> Self {
        debug_assert!(cells.is_power_of_two());
        Self {
            directory: vec![NO_PAGE; (cells >> PAGE_BITS).max(1)],
            pool: vec![EMPTY; PAGE],
            occupied_in: vec![0],
            free_pages: Vec::new(),
            cells,
        }
    }

    /// The number of cells.
    pub(crate) fn len(&self) -> usize {
        self.cells
    }

    /// Where cell `cell` is stored in the pool.
    #[inline]
    fn index(&self, cell: u32) -> usize {
        self.directory[(cell >> PAGE_BITS) as usize] as usize | (cell as usize & (PAGE - 1))
    }

    /// The slot of cell `cell`, or [`EMPTY`].
    /// Prefetches the entry of `cell` (see [`crate::prefetch`]; the directory is small enough to
    /// stay in the cache).
    #[inline]
    pub(crate) fn prefetch(&self, cell: u32) {
        crate::prefetch::prefetch(&self.pool, self.index(cell));
    }

    #[inline]
    pub(crate) fn get(&self, cell: u32) -> u32 {
        self.pool[self.index(cell)]
    }

    /// The slots of the `len` consecutive cells from `first` when they lie in one page (all but
    /// `len - 1` in [`PAGE`] runs do): one directory lookup for the run.
    #[inline]
    pub(crate) fn run_in_page(&self, first: u32, len: u32) -> Option<&[u32]> {
        let last = first + len - 1;
        ((first ^ last) >> PAGE_BITS == 0).then(|| {
            let start = self.index(first);
            &self.pool[start..start + len as usize]
        })
    }

    /// Sets the slot of cell `cell` (not [`EMPTY`]: use [`clear`](Self::clear)), allocating its
    /// page if needed.
    #[inline]
    pub(crate) fn set(&mut self, cell: u32, slot: u32) {
        debug_assert_ne!(slot, EMPTY);
        let entry = (cell >> PAGE_BITS) as usize;
        let mut start = self.directory[entry];
        if start == NO_PAGE {
            start = self.allocate_page() << PAGE_BITS;
            self.directory[entry] = start;
        }
        let index = start as usize | (cell as usize & (PAGE - 1));
        if self.pool[index] == EMPTY {
            self.occupied_in[(start >> PAGE_BITS) as usize] += 1;
        }
        self.pool[index] = slot;
    }

    /// Empties cell `cell`, returning its page to the free list if it was the page's last
    /// occupied cell.
    #[inline]
    pub(crate) fn clear(&mut self, cell: u32) {
        let entry = (cell >> PAGE_BITS) as usize;
        let start = self.directory[entry];
        let index = start as usize | (cell as usize & (PAGE - 1));
        if start == NO_PAGE || self.pool[index] == EMPTY {
            return;
        }
        self.pool[index] = EMPTY;
        let page = start >> PAGE_BITS;
        let count = &mut self.occupied_in[page as usize];
        *count -= 1;
        if *count == 0 {
            self.directory[entry] = NO_PAGE;
            self.free_pages.push(page);
        }
    }

    /// A handle that sets the slots of occupied cells from several tasks at once (see
    /// [`Relabeller`]); the table cannot be used otherwise while it lives.
    pub(crate) fn relabeller(&mut self) -> Relabeller<'_> {
        Relabeller { directory: &self.directory, pool: SharedSlice::new(&mut self.pool) }
    }

    fn allocate_page(&mut self) -> u32 {
        if let Some(page) = self.free_pages.pop() {
            return page;
        }
        let page = self.occupied_in.len() as u32;
        reserve_a_quarter_more(&mut self.pool, PAGE);
        reserve_a_quarter_more(&mut self.occupied_in, 1);
        self.pool.resize(self.pool.len() + PAGE, EMPTY);
        self.occupied_in.push(0);
        page
    }

    /// Allocated pages, without the shared empty one (for tests and accounting).
    #[cfg(test)]
    pub(crate) fn allocated_pages(&self) -> usize {
        self.occupied_in.len() - 1 - self.free_pages.len()
    }

    /// Heap bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        (self.directory.capacity()
            + self.pool.capacity()
            + self.occupied_in.capacity()
            + self.free_pages.capacity())
            * size_of::<u32>()
    }
}

/// Sets new slots for cells that are occupied, from several tasks at once (reordering the
/// occupied list, see `HashGrid::adopt_order`): occupied cells have their pages, so no page is
/// allocated or freed, and distinct cells are distinct entries of the pool.
#[derive(Clone, Copy)]
pub(crate) struct Relabeller<'a> {
    directory: &'a [u32],
    pool: SharedSlice<u32>,
}

impl Relabeller<'_> {
    /// Sets the slot of the occupied cell `cell` to `slot`.
    ///
    /// # Safety
    /// No other task may relabel `cell` while the relabeller is shared.
    #[inline]
    pub(crate) unsafe fn relabel(self, cell: u32, slot: u32) {
        let start = self.directory[(cell >> PAGE_BITS) as usize];
        // An empty page here would mean writing the shared empty page.
        assert_ne!(start, NO_PAGE, "relabelling an empty cell");
        // SAFETY: `cell` is relabelled by this task only (the caller's guarantee), and its
        // entry is in the page of its own, which no other cell shares.
        unsafe { self.pool.write(start as usize | (cell as usize & (PAGE - 1)), slot) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Against a plain array (the oracle): any sequence of sets and clears gives the same
        /// lookups, and exactly the pages holding an occupied cell stay allocated.
        #[test]
        fn agrees_with_a_plain_array(ops in proptest::collection::vec((0u32..4096, 0u32..3, 0u32..1000), 0..400)) {
            let mut table = CellTable::new(4096);
            let mut plain = vec![EMPTY; 4096];
            for (cell, kind, slot) in ops {
                if kind == 0 {
                    table.clear(cell);
                    plain[cell as usize] = EMPTY;
                } else {
                    table.set(cell, slot);
                    plain[cell as usize] = slot;
                }
            }
            for (cell, &slot) in plain.iter().enumerate() {
                prop_assert_eq!(table.get(cell as u32), slot);
            }
            let pages_in_use = plain.chunks(PAGE).filter(|page| page.iter().any(|&s| s != EMPTY)).count();
            prop_assert_eq!(table.allocated_pages(), pages_in_use);
            prop_assert!(table.pool[..PAGE].iter().all(|&s| s == EMPTY), "the shared page was written");
        }
    }

    #[test]
    fn runs_within_a_page_are_read_at_once() {
        let mut table = CellTable::new(1 << 12);
        for cell in (0..4096).step_by(7) {
            table.set(cell, cell * 3);
        }
        for first in 0..4093 {
            for len in 1..=3 {
                let slots: Vec<u32> = (first..first + len).map(|c| table.get(c)).collect();
                match table.run_in_page(first, len) {
                    Some(run) => assert_eq!(run, &slots[..]),
                    None => assert_ne!(first as usize / PAGE, (first + len - 1) as usize / PAGE),
                }
            }
        }
    }

    #[test]
    fn freed_pages_are_reused() {
        let mut table = CellTable::new(1 << 12);
        for round in 0..10u32 {
            let cell = round * 1000 % 4096;
            table.set(cell, round);
            assert_eq!(table.get(cell), round);
            table.clear(cell);
            assert_eq!(table.get(cell), EMPTY);
        }
        assert_eq!(table.allocated_pages(), 0);
        assert_eq!(table.pool.len(), 2 * PAGE, "one page allocated and reused every time");
    }
}
