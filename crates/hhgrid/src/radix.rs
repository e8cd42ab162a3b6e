//! Least-significant-digit radix sort of the snapshot's `cell << 32 | slot` keys by cell.
//!
//! Detection sorts the occupied cells of every grid by cell index at each full detection (see
//! the `packed` module). The cell indices are bounded by the grid's cell count (at most 2³⁰),
//! so two or three counting passes of [`DIGIT_BITS`] bits sort them in linear time; the
//! comparison sort it replaces took about 110 instructions per key for a few thousand cells
//! (measured with callgrind), a tenth of a full detection.

/// Bits sorted per counting pass.
const DIGIT_BITS: u32 = 11;

/// Below this many keys a comparison sort is cheaper than clearing the counters.
const SMALL: usize = 256;

/// Sorts `keys` by their upper 32 bits (the cell), whose values are below `cells`; `scratch`
/// is reused between calls. Keys with equal cells keep their order (the sort is stable), but
/// detection's cells are unique anyway.
pub(crate) fn sort_by_cell(keys: &mut Vec<u64>, scratch: &mut Vec<u64>, cells: usize) {
    if keys.len() < SMALL {
        keys.sort_unstable();
        return;
    }
    let bits = usize::BITS - cells.saturating_sub(1).leading_zeros();
    let passes = bits.div_ceil(DIGIT_BITS).max(1);
    scratch.clear();
    scratch.resize(keys.len(), 0);
    let mut counts = vec![0usize; 1 << DIGIT_BITS];
    let mask = (1u64 << DIGIT_BITS) - 1;
    for pass in 0..passes {
        let shift = 32 + pass * DIGIT_BITS;
        counts.fill(0);
        for &key in keys.iter() {
            counts[((key >> shift) & mask) as usize] += 1;
        }
        let mut total = 0;
        for count in &mut counts {
            let start = total;
            total += *count;
            *count = start;
        }
        for &key in keys.iter() {
            let digit = &mut counts[((key >> shift) & mask) as usize];
            scratch[*digit] = key;
            *digit += 1;
        }
        std::mem::swap(keys, scratch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same order as a comparison sort, for key counts on both sides of the small-input
    /// cut-off and cell ranges needing one to three passes.
    #[test]
    fn sorts_like_a_comparison_sort() {
        let mut state = 3u64;
        let mut next = || {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            state >> 20
        };
        let mut scratch = Vec::new();
        for cells in [1usize, 2, 64, 2048, 2049, 1 << 18, 1 << 22, 1 << 30] {
            for len in [0usize, 1, 5, SMALL - 1, SMALL, 1000, 5000] {
                // Unique cells (as detection's are), each with its slot.
                let mut seen = std::collections::HashSet::new();
                let mut keys: Vec<u64> = (0..len)
                    .map(|_| next() % cells as u64)
                    .filter(|&c| seen.insert(c))
                    .enumerate()
                    .map(|(slot, cell)| cell << 32 | slot as u64)
                    .collect();
                let mut expected = keys.clone();
                expected.sort_unstable();
                sort_by_cell(&mut keys, &mut scratch, cells);
                assert_eq!(keys, expected, "{cells} cells, {len} keys");
            }
        }
    }
}
