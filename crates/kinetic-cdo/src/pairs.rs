//! All pairs of points closer than a reach, by a one-off cell grid: the building block of
//! structure set-up, the overlap check on input and the overlap monitor in tests.

use crate::SimBox;

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
    let cell_of = |x: [f64; D]| -> [usize; D] {
        std::array::from_fn(|a| {
            let w = if periodic[a] { x[a].rem_euclid(lengths[a]) } else { x[a] };
            ((w / side[a]).floor().max(0.0) as usize).min(cells[a] - 1)
        })
    };
    let linear = |c: [usize; D]| -> usize {
        let mut index = 0;
        let mut stride = 1;
        for a in 0..D {
            index += c[a] * stride;
            stride *= cells[a];
        }
        index
    };
    let total: usize = cells.iter().product();
    // Counting sort of the points by cell.
    let home: Vec<[usize; D]> = points.iter().map(|&x| cell_of(x)).collect();
    let mut start = vec![0usize; total + 1];
    for c in &home {
        start[linear(*c) + 1] += 1;
    }
    for c in 0..total {
        start[c + 1] += start[c];
    }
    let mut fill = start.clone();
    let mut sorted = vec![0u32; n];
    for (i, c) in home.iter().enumerate() {
        let l = linear(*c);
        sorted[fill[l]] = i as u32;
        fill[l] += 1;
    }
    // The distinct neighbouring cell coordinates per axis.
    let neighbours_on_axis = |a: usize, c: usize| -> ([usize; 3], usize) {
        let k = cells[a];
        let mut out = [0usize; 3];
        let mut len = 0;
        for o in [-1i64, 0, 1] {
            let t = c as i64 + o;
            let t = if periodic[a] {
                t.rem_euclid(k as i64) as usize
            } else if t < 0 || t >= k as i64 {
                continue;
            } else {
                t as usize
            };
            if !out[..len].contains(&t) {
                out[len] = t;
                len += 1;
            }
        }
        (out, len)
    };
    for i in 0..n {
        let axes: [([usize; 3], usize); D] = std::array::from_fn(|a| neighbours_on_axis(a, home[i][a]));
        let combinations: usize = axes.iter().map(|(_, len)| *len).product();
        for code in 0..combinations {
            let mut c = code;
            let mut cell = [0usize; D];
            for a in 0..D {
                cell[a] = axes[a].0[c % axes[a].1];
                c /= axes[a].1;
            }
            let l = linear(cell);
            for &k in &sorted[start[l]..start[l + 1]] {
                let k = k as usize;
                if k <= i {
                    continue;
                }
                let d = sim_box.nearest_image(crate::vector::sub(points[k], points[i]));
                if d.iter().all(|c| c.abs() <= reach) {
                    f(i, k, d);
                }
            }
        }
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
            let lengths = [rng.random_range(1.0..10.0), rng.random_range(1.0..10.0), rng.random_range(1.0..10.0)];
            let sim_box = SimBox::new(lengths, periodic).unwrap();
            let n = rng.random_range(0..200);
            let points: Vec<[f64; 3]> = (0..n)
                .map(|_| std::array::from_fn(|a| rng.random_range(0.0..lengths[a])))
                .collect();
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
