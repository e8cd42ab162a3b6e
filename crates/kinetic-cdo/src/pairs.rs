//! All pairs of points closer than a reach, by a one-off cell grid: the building block of
//! structure set-up, the overlap check on input and the overlap monitor in tests.

use crate::SimBox;
use crate::cdo::{CellStore, DenseCells, for_each_distinct_neighbour_cell};

/// Calls `f(i, k, d)` once for every unordered pair `i < k` whose nearest-image displacement
/// `d = x_k − x_i` has every component within `reach` (callers then test the distance they care
/// about). `O(n + cells)` for bounded densities.
pub(crate) fn for_each_close_pair<const D: usize>(
    points: &[[f64; D]],
    sim_box: &SimBox<D>,
    reach: f64,
    mut f: impl FnMut(usize, usize, [f64; D]),
) {
    let n = points.len();
    let lengths = sim_box.lengths();
    let periodic = sim_box.periodic_axes();
    // Cap the grid near n cells: enough for O(1) members per cell, never a huge allocation.
    let mut cells = [1usize; D];
    let target = (n.max(1) as f64).powf(1.0 / D as f64).ceil() as usize + 1;
    for a in 0..D {
        cells[a] = ((lengths[a] / reach).floor() as usize).clamp(1, target.max(1));
    }
    let side: [f64; D] = std::array::from_fn(|a| lengths[a] / cells[a] as f64);
    let home: Vec<[usize; D]> = points
        .iter()
        .map(|x| {
            std::array::from_fn(|a| {
                let w = if periodic[a] { x[a].rem_euclid(lengths[a]) } else { x[a] };
                ((w / side[a]).floor().max(0.0) as usize).min(cells[a] - 1)
            })
        })
        .collect();
    let mut grid = DenseCells::<D>::default();
    grid.reset(cells, n);
    for (i, &c) in home.iter().enumerate() {
        grid.insert(c, i as u32);
    }
    for i in 0..n {
        for_each_distinct_neighbour_cell(home[i], cells, periodic, |cell| {
            grid.for_each_member(cell, |k| {
                let k = k as usize;
                if k <= i {
                    return;
                }
                let d = sim_box.nearest_image(crate::vector::sub(points[k], points[i]));
                if d.iter().all(|c| c.abs() <= reach) {
                    f(i, k, d);
                }
            });
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    #[test]
    fn finds_exactly_the_brute_force_pairs() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for case in 0..40 {
            let periodic = [case % 2 == 0, case % 3 == 0, case % 5 == 0];
            let lengths =
                [rng.random_range(1.0..10.0), rng.random_range(1.0..10.0), rng.random_range(1.0..10.0)];
            let sim_box = SimBox::new(lengths, periodic).unwrap();
            let n = rng.random_range(0..200);
            let points: Vec<[f64; 3]> =
                (0..n).map(|_| std::array::from_fn(|a| rng.random_range(0.0..lengths[a]))).collect();
            let reach = rng.random_range(0.05..3.0);
            let mut found = Vec::new();
            for_each_close_pair(&points, &sim_box, reach, |i, k, _| found.push((i, k)));
            found.sort_unstable();
            let mut expected = Vec::new();
            for i in 0..n {
                for k in i + 1..n {
                    let d = sim_box.nearest_image(crate::vector::sub(points[k], points[i]));
                    if d.iter().all(|c| c.abs() <= reach) {
                        expected.push((i, k));
                    }
                }
            }
            assert_eq!(found, expected, "case {case}");
        }
    }
}
