//! Regular test-point grids, as used by Muth et al. (`10³`, `20³`, `40³`, `80³` points).

use super::GeneratorError;
use crate::{Aabb, DVec3};

/// The cube centred on `aabb`'s centre whose edge is `aabb`'s longest edge times `1 + 2·margin`.
///
/// The result always contains `aabb`; where rounding would make the cube miss it by an ulp, the
/// cube is widened to the box (so it is a cube up to rounding).
///
/// # Errors
/// [`GeneratorError::Geometry`] for a negative or non-finite margin, and for a cube that would
/// reach beyond the largest double (a box that wide with a margin).
///
/// ```
/// use geometry_core::{generators::surrounding_cube, Aabb, DVec3};
/// let b = Aabb::new(DVec3::ZERO, DVec3::new(2.0, 1.0, 1.0)).unwrap();
/// let cube = surrounding_cube(&b, 0.25).unwrap();
/// assert_eq!(cube.extents(), DVec3::splat(3.0));
/// assert_eq!(cube.center(), b.center());
/// ```
pub fn surrounding_cube(aabb: &Aabb, margin: f64) -> Result<Aabb, GeneratorError> {
    if !margin.is_finite() {
        return Err(crate::GeometryError::NonFinite { what: "surrounding_cube margin" }.into());
    }
    if margin < 0.0 {
        return Err(
            crate::GeometryError::NonPositive { what: "surrounding_cube margin", value: margin }.into()
        );
    }
    // Half the longest edge; from the halved corners where the edge itself overflows (a box
    // from -1e308 to 1e308 is valid, and so is its cube).
    let mut half_edge = 0.5 * aabb.longest_edge();
    if !half_edge.is_finite() {
        half_edge = (aabb.max * 0.5 - aabb.min * 0.5).max_element();
    }
    let half = DVec3::splat(half_edge * (1.0 + 2.0 * margin));
    let center = aabb.center();
    // Centre and half-edge are rounded separately, so `center ± half` can miss the box by an
    // ulp; widening to the box keeps the promise that the cube contains it.
    Ok(Aabb::new((center - half).min(aabb.min), (center + half).max(aabb.max))?)
}

/// `n³` points at the centres of an `n × n × n` cell grid over `region`, in x-fastest order
/// (index `i + n·(j + n·k)`).
///
/// Cell centres, not corners: for the symmetric test bodies the corner lattice puts many points
/// exactly on symmetry planes and mesh vertices, which is a separate (degenerate) test case.
///
/// # Errors
/// [`GeneratorError::OutOfRange`] for `n == 0` or `n > 2000` (8·10⁹ points);
/// [`GeneratorError::OutOfMemory`] when the points do not fit in memory;
/// [`GeneratorError::Geometry`] for an invalid region (its fields are public: NaN or inverted)
/// or one wider than the largest double on some axis.
///
/// ```
/// use geometry_core::{generators::point_grid, Aabb, DVec3};
/// let region = Aabb::new(DVec3::ZERO, DVec3::splat(2.0)).unwrap();
/// let pts = point_grid(&region, 2).unwrap();
/// assert_eq!(pts.len(), 8);
/// assert_eq!(pts[0], DVec3::splat(0.5));
/// assert_eq!(pts[7], DVec3::splat(1.5));
/// ```
pub fn point_grid(region: &Aabb, n: usize) -> Result<Vec<DVec3>, GeneratorError> {
    const MAX_N: usize = 2000;
    if n == 0 || n > MAX_N {
        return Err(GeneratorError::OutOfRange { what: "point_grid n", value: n, min: 1, max: MAX_N });
    }
    region.validate()?;
    let step = region.extents() / n as f64;
    if !step.is_finite() {
        // The box spans more than the largest double on some axis.
        return Err(crate::GeometryError::NonFinite { what: "point_grid region extents" }.into());
    }
    let coordinate = |axis: usize, i: usize| region.min[axis] + (i as f64 + 0.5) * step[axis];
    let mut points = super::point_buffer(n * n * n, "point_grid")?;
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                points.push(DVec3::new(coordinate(0, i), coordinate(1, j), coordinate(2, k)));
            }
        }
    }
    Ok(points)
}

/// The corner lattice `lo + i·step` on every axis, for `i = 0 ..= round((hi − lo) / step)`,
/// in x-fastest order: exact for dyadic `lo` and `step`, so that points land exactly on the
/// faces, edges and vertices of test bodies with dyadic coordinates (the degenerate cases that
/// [`point_grid`] avoids on purpose). The count is rounded, so the last point may lie up to
/// half a step beyond `hi` (`point_lattice(0.0, 1.0, 0.4)` ends at 1.2).
///
/// # Errors
/// [`GeneratorError::Geometry`] for non-finite input, `step <= 0`, `hi < lo`, or a last point
/// beyond the largest double (`point_lattice(0.0, f64::MAX, 1e308)` would end at `2e308`);
/// [`GeneratorError::OutOfRange`] for more than 2001 points per axis;
/// [`GeneratorError::OutOfMemory`] when the points do not fit in memory.
///
/// ```
/// use geometry_core::{generators::point_lattice, DVec3};
/// let pts = point_lattice(-0.5, 0.5, 0.5).unwrap();
/// assert_eq!(pts.len(), 27);
/// assert_eq!(pts[0], DVec3::splat(-0.5));
/// assert_eq!(pts[1], DVec3::new(0.0, -0.5, -0.5));
/// assert_eq!(pts[26], DVec3::splat(0.5));
/// assert!(point_lattice(0.0, 1.0, 0.0).is_err()); // step <= 0
/// assert!(point_lattice(1.0, 0.0, 0.5).is_err()); // hi < lo
/// assert!(point_lattice(f64::NAN, 0.0, 0.5).is_err());
/// assert!(point_lattice(0.0, 1e6, 1e-3).is_err()); // too many points
/// assert!(point_lattice(0.0, f64::MAX, 1e308).is_err()); // would reach 2e308
/// // A span wider than the largest double, in few steps.
/// let wide = point_lattice(-1e308, 1e308, 1e308).unwrap();
/// assert_eq!((wide.len(), wide[1].x, wide[2].x), (27, 0.0, 1e308));
/// ```
pub fn point_lattice(lo: f64, hi: f64, step: f64) -> Result<Vec<DVec3>, GeneratorError> {
    const MAX_PER_AXIS: usize = 2001;
    if !(lo.is_finite() && hi.is_finite() && step.is_finite()) {
        return Err(crate::GeometryError::NonFinite { what: "point_lattice bounds or step" }.into());
    }
    if step <= 0.0 {
        return Err(crate::GeometryError::NonPositive { what: "point_lattice step", value: step }.into());
    }
    if hi < lo {
        return Err(
            crate::GeometryError::NonPositive { what: "point_lattice hi - lo", value: hi - lo }.into()
        );
    }
    // `hi - lo` may overflow while the count does not: halve both first then.
    let span = hi - lo;
    let intervals =
        if span.is_finite() { (span / step).round() } else { ((0.5 * hi - 0.5 * lo) / step * 2.0).round() };
    if intervals >= MAX_PER_AXIS as f64 {
        return Err(GeneratorError::OutOfRange {
            what: "point_lattice points per axis",
            // Saturating: the count can exceed any usize, or be infinite.
            value: (intervals as usize).saturating_add(1),
            min: 1,
            max: MAX_PER_AXIS,
        });
    }
    let n = intervals as usize + 1;
    // One rounding (fused): `i·step` alone may overflow where `lo + i·step` does not.
    let coordinate = |i: usize| (i as f64).mul_add(step, lo);
    if !coordinate(n - 1).is_finite() {
        // Rounding the count up can carry the last point past the largest double.
        return Err(crate::GeometryError::NonFinite { what: "point_lattice last point" }.into());
    }
    let mut points = super::point_buffer(n * n * n, "point_lattice")?;
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                points.push(DVec3::new(coordinate(i), coordinate(j), coordinate(k)));
            }
        }
    }
    Ok(points)
}
