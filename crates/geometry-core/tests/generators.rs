//! Oracle tests for the point-set generators `point_grid` and `surrounding_cube`.
//!
//! Expected grid coordinates come from the closed form of the cell centres,
//! `((2n - 2i - 1) · min + (2i + 1) · max) / 2n`, evaluated independently of the generator's own
//! `min + (i + 1/2) · step`; ordering, symmetry and containment are checked per point.

// Per-axis loops index several arrays (points, region corners) by the same axis.
#![allow(clippy::needless_range_loop)]

use geometry_core::generators::{point_grid, surrounding_cube};
use geometry_core::{Aabb, DVec3};
use proptest::prelude::*;

/// Proptest settings: `cases` cases, no regression files (shrunk failures are printed instead).
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(cases) }
}

fn vec3(s: impl Strategy<Value = f64> + Clone) -> impl Strategy<Value = DVec3> {
    (s.clone(), s.clone(), s).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

/// A box with extents between 1e-3 and 1e3 and corners within ±1e3.
fn region() -> impl Strategy<Value = Aabb> {
    (vec3(-1e3..1e3f64), vec3(-3.0..3.0f64)).prop_map(|(min, log_ext)| {
        Aabb::new(min, min + DVec3::new(10f64.powf(log_ext.x), 10f64.powf(log_ext.y), 10f64.powf(log_ext.z)))
            .unwrap()
    })
}

/// Index of the grid point `(i, j, k)` in x-fastest order.
fn idx(n: usize, i: usize, j: usize, k: usize) -> usize {
    i + n * (j + n * k)
}

/// Checks everything documented about `point_grid(region, n)`.
fn check_grid(region: &Aabb, n: usize) -> Result<(), TestCaseError> {
    let points = point_grid(region, n).unwrap();
    prop_assert_eq!(points.len(), n * n * n);
    let nf = n as f64;
    for axis in 0..3 {
        let (lo, hi) = (region.min[axis], region.max[axis]);
        let ext = hi - lo;
        let magnitude = lo.abs().max(hi.abs());
        let tol = 8.0 * f64::EPSILON * magnitude;
        // The coordinate along `axis` of grid index `t` on that axis.
        let coord = |t: usize| {
            let at = |i: usize, j: usize, k: usize| points[idx(n, i, j, k)][axis];
            match axis {
                0 => at(t, 0, 0),
                1 => at(0, t, 0),
                _ => at(0, 0, t),
            }
        };
        let cs: Vec<f64> = (0..n).map(coord).collect();
        for (t, &c) in cs.iter().enumerate() {
            let tf = t as f64;
            let want = ((2.0 * nf - 2.0 * tf - 1.0) * lo + (2.0 * tf + 1.0) * hi) / (2.0 * nf);
            prop_assert!((c - want).abs() <= tol, "axis {} index {}: {} vs {}", axis, t, c, want);
            prop_assert!(
                lo < c && c < hi,
                "axis {} index {}: {} not strictly inside ({}, {})",
                axis,
                t,
                c,
                lo,
                hi
            );
            // Symmetric about the centre.
            let mirror = cs[n - 1 - t];
            prop_assert!(
                (c + mirror - (lo + hi)).abs() <= 2.0 * tol,
                "axis {}: {} + {} vs {}",
                axis,
                c,
                mirror,
                lo + hi
            );
        }
        // Uniform spacing ext / n, and half a step from each face.
        for w in cs.windows(2) {
            prop_assert!(
                (w[1] - w[0] - ext / nf).abs() <= 2.0 * tol,
                "axis {}: spacing {} vs {}",
                axis,
                w[1] - w[0],
                ext / nf
            );
        }
        prop_assert!((cs[0] - lo - 0.5 * ext / nf).abs() <= tol);
        prop_assert!((hi - cs[n - 1] - 0.5 * ext / nf).abs() <= tol);
    }
    // Every point is the tensor product of the per-axis coordinates, in x-fastest order.
    let xs: Vec<f64> = (0..n).map(|i| points[idx(n, i, 0, 0)].x).collect();
    let ys: Vec<f64> = (0..n).map(|j| points[idx(n, 0, j, 0)].y).collect();
    let zs: Vec<f64> = (0..n).map(|k| points[idx(n, 0, 0, k)].z).collect();
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                prop_assert_eq!(points[idx(n, i, j, k)], DVec3::new(xs[i], ys[j], zs[k]));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn point_grid_closed_form(region in region(), n in 1usize..=12) {
        check_grid(&region, n)?;
    }
}

#[test]
fn point_grid_paper_sizes() {
    let region = Aabb::new(DVec3::splat(-1.2), DVec3::splat(1.2)).unwrap();
    for n in [10, 20, 40, 80] {
        check_grid(&region, n).unwrap();
    }
}

#[test]
fn point_grid_exact_dyadic_cells() {
    // Cells of width 1 starting at an integer: the centres are exactly k + 0.5.
    let region = Aabb::new(DVec3::new(-2.0, 0.0, 3.0), DVec3::new(2.0, 4.0, 7.0)).unwrap();
    let points = point_grid(&region, 4).unwrap();
    let mut expected = Vec::new();
    for k in 0..4 {
        for j in 0..4 {
            for i in 0..4 {
                expected.push(DVec3::new(-1.5 + f64::from(i), 0.5 + f64::from(j), 3.5 + f64::from(k)));
            }
        }
    }
    assert_eq!(points, expected);
    // One cell: the single point is the centre.
    assert_eq!(point_grid(&region, 1).unwrap(), vec![DVec3::new(0.0, 2.0, 5.0)]);
    // The documented example.
    let cube = Aabb::new(DVec3::ZERO, DVec3::splat(2.0)).unwrap();
    let pts = point_grid(&cube, 2).unwrap();
    assert_eq!(pts[0], DVec3::splat(0.5));
    assert_eq!(pts[1], DVec3::new(1.5, 0.5, 0.5));
    assert_eq!(pts[2], DVec3::new(0.5, 1.5, 0.5));
    assert_eq!(pts[4], DVec3::new(0.5, 0.5, 1.5));
    assert_eq!(pts[7], DVec3::splat(1.5));
    // Non-cubic regions: spacing differs per axis.
    let slab = Aabb::new(DVec3::ZERO, DVec3::new(8.0, 2.0, 1.0)).unwrap();
    let pts = point_grid(&slab, 2).unwrap();
    assert_eq!(pts[0], DVec3::new(2.0, 0.5, 0.25));
    assert_eq!(pts[7], DVec3::new(6.0, 1.5, 0.75));
}

// ---------------------------------------------------------------------------------------------
// surrounding_cube
// ---------------------------------------------------------------------------------------------

/// Any valid box with corners within ±1e3, sometimes flat.
fn any_box() -> impl Strategy<Value = Aabb> {
    (vec3(-1e3..1e3f64), vec3(prop_oneof![3 => 0.0..100.0f64, 1 => Just(0.0)]))
        .prop_map(|(min, ext)| Aabb::new(min, min + ext).unwrap())
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn surrounding_cube_is_a_cube_centred_on_the_box(b in any_box(), margin in prop_oneof![Just(0.0), 0.0..1.0f64]) {
        let c = surrounding_cube(&b, margin).unwrap();
        // A cube of edge longest · (1 + 2 margin), centred on the box centre.
        let e = b.max - b.min;
        let longest = e.x.max(e.y).max(e.z);
        let edge = longest * (1.0 + 2.0 * margin);
        let scale = 1.0 + b.min.abs().max(b.max.abs()).max_element();
        let tol = 1e-12 * scale;
        for i in 0..3 {
            let ci = c.max[i] - c.min[i];
            prop_assert!((ci - edge).abs() <= tol, "axis {}: edge {} vs {}", i, ci, edge);
            let centre = 0.5 * (b.min[i] + b.max[i]);
            prop_assert!((0.5 * (c.min[i] + c.max[i]) - centre).abs() <= tol);
        }
        // With a clear margin around a box that is not a single point, containment holds
        // strictly whatever the rounding.
        if margin > 1e-9 && longest > 0.0 {
            for i in 0..3 {
                prop_assert!(c.min[i] < b.min[i] && b.max[i] < c.max[i], "axis {}: cube {:?} box {:?}", i, c, b);
            }
        }
    }

    #[test]
    fn surrounding_cube_contains_the_box(b in any_box(), margin in prop_oneof![Just(0.0), 0.0..1.0f64]) {
        let c = surrounding_cube(&b, margin).unwrap();
        for i in 0..3 {
            prop_assert!(c.min[i] <= b.min[i] && b.max[i] <= c.max[i], "axis {}: cube {:?} box {:?}", i, c, b);
        }
    }
}

/// A deterministic instance of `surrounding_cube_contains_the_box`: the box `[0.1, 0.2] × 0 × 0`
/// with margin 0. In exact arithmetic the cube is `[0.1, 0.2] × [-0.05, 0.05]²`; rounding the
/// centre `(0.1 + 0.2) / 2` and the half edge `(0.2 - 0.1) / 2` separately may not reproduce the
/// box's own faces.
#[test]
fn surrounding_cube_with_zero_margin_contains_a_decimal_box() {
    let b = Aabb::new(DVec3::new(0.1, 0.0, 0.0), DVec3::new(0.2, 0.0, 0.0)).unwrap();
    let c = surrounding_cube(&b, 0.0).unwrap();
    assert!(c.contains_aabb(&b) && c.min.x <= 0.1 && c.max.x >= 0.2, "cube {c:?} does not contain box {b:?}");
}

#[test]
fn surrounding_cube_exact_cases() {
    let b = Aabb::new(DVec3::ZERO, DVec3::new(2.0, 1.0, 1.0)).unwrap();
    let c = surrounding_cube(&b, 0.25).unwrap();
    assert_eq!(c, Aabb::new(DVec3::new(-0.5, -1.0, -1.0), DVec3::new(2.5, 2.0, 2.0)).unwrap());
    let c0 = surrounding_cube(&b, 0.0).unwrap();
    assert_eq!(c0, Aabb::new(DVec3::new(0.0, -0.5, -0.5), DVec3::new(2.0, 1.5, 1.5)).unwrap());
    // A cube with margin 0 is its own surrounding cube.
    let cube = Aabb::new(DVec3::splat(-3.0), DVec3::splat(5.0)).unwrap();
    assert_eq!(surrounding_cube(&cube, 0.0).unwrap(), cube);
    // A point box stays a point.
    let p = Aabb::new(DVec3::ONE, DVec3::ONE).unwrap();
    assert_eq!(surrounding_cube(&p, 0.5).unwrap(), p);
}

/// Regions and lattices too large for `f64` or `usize` are errors, not panics, infinite points
/// or a wrong count (found by an independent review).
#[test]
fn point_sets_beyond_the_ranges_are_errors() {
    use geometry_core::generators::{GeneratorError, point_lattice};
    let m = f64::MAX;
    let huge = geometry_core::Aabb::new(DVec3::splat(-m), DVec3::splat(m)).unwrap();
    assert!(matches!(point_grid(&huge, 2), Err(GeneratorError::Geometry(_))));
    let nan = geometry_core::Aabb { min: DVec3::ZERO, max: DVec3::new(f64::NAN, 1.0, 1.0) };
    assert!(matches!(point_grid(&nan, 2), Err(GeneratorError::Geometry(_))));
    for (lo, hi, step) in [(0.0, 1.0, 1e-320), (0.0, m, 1.0), (-m, m, 1e300)] {
        match point_lattice(lo, hi, step) {
            Err(GeneratorError::OutOfRange { value, max, .. }) => {
                assert!(value > max, "{lo} {hi} {step}: {value}");
            }
            other => panic!("{lo} {hi} {step}: {other:?}"),
        }
    }
    // A span wider than the largest double in a few steps is a valid lattice (`hi - lo`
    // overflowed, and it was refused as too many points), exactly {-1e308, 0, 1e308} per axis.
    let wide = point_lattice(-1e308, 1e308, 1e308).unwrap();
    let axis: Vec<f64> = wide[..3].iter().map(|p| p.x).collect();
    assert_eq!((wide.len(), axis), (27, vec![-1e308, 0.0, 1e308]));
    // A rounded-up count whose last point would pass the largest double is refused (it came out
    // infinite), found by the second review: 0 + 2·1e308, and 1e308 + 8·1e307.
    for (lo, hi, step) in [(0.0, m, 1e308), (1e308, m, 1e307)] {
        assert!(matches!(point_lattice(lo, hi, step), Err(GeneratorError::Geometry(_))), "{lo} {hi} {step}");
    }
    // Every point of an accepted lattice is finite, up to the top of the range.
    for (lo, hi, step) in [(0.0, m, m / 2.0), (-m, m, m / 4.0), (m / 2.0, m, m / 8.0)] {
        let points = point_lattice(lo, hi, step).unwrap();
        assert!(points.iter().all(|p| p.is_finite()), "{lo} {hi} {step}");
    }
}

/// Boxes as wide as the doubles allow: their cube is the box itself when it is one (the
/// longest edge, 2e308, overflowed and the valid cube was refused), and an error only when the
/// margin pushes the cube beyond the largest double.
#[test]
fn surrounding_cube_of_the_widest_boxes() {
    let widest = Aabb::new(DVec3::splat(-1e308), DVec3::splat(1e308)).unwrap();
    assert_eq!(surrounding_cube(&widest, 0.0).unwrap(), widest);
    let slab = Aabb::new(DVec3::new(-1e308, 0.0, 0.0), DVec3::new(1e308, 1.0, 1.0)).unwrap();
    let cube = surrounding_cube(&slab, 0.0).unwrap();
    assert_eq!(cube.extents().x, f64::INFINITY, "an edge of 2e308 is not representable as a difference");
    assert_eq!(
        (cube.min, cube.max),
        (DVec3::new(-1e308, -1e308 + 0.5, -1e308 + 0.5), DVec3::new(1e308, 1e308, 1e308))
    );
    assert_eq!(surrounding_cube(&widest, 0.25).unwrap().max, DVec3::splat(1.5e308));
    assert!(surrounding_cube(&widest, 0.5).is_err(), "edges of 4e308");
    // Far from the origin, where min + max overflows.
    let far = Aabb::new(DVec3::splat(1e308), DVec3::splat(1.5e308)).unwrap();
    let cube = surrounding_cube(&far, 0.0).unwrap();
    assert_eq!((cube.min, cube.max), (far.min, far.max));
}
