//! Exact orientation predicates.
//!
//! The sign of an orientation determinant decides the answer of every combinatorial geometric
//! test in this workspace (which side of a plane, does a segment cross a triangle). Rounding can
//! flip that sign when the points are nearly degenerate, so these functions use Jonathan
//! Shewchuk's adaptive-precision predicates (through the [`robust`] crate): a fast floating-point
//! evaluation with an error bound, refined with exact expansion arithmetic only when the bound
//! cannot certify the sign. The returned sign is the sign of the *exact* determinant of the
//! given `f64` coordinates.
//!
//! Conventions (both are right-handed):
//! * [`orient2d`]`(a, b, c)` is the sign of `(b - a) × (c - a)`: positive when `a, b, c` turn
//!   counter-clockwise.
//! * [`orient3d`]`(a, b, c, d)` is the sign of `det[b - a, c - a, d - a] = ((b - a) × (c - a)) · (d - a)`:
//!   positive when `d` lies on the side that the normal of the counter-clockwise triangle
//!   `a, b, c` points to (the outside, for an outward-oriented mesh face).
//!
//! The inputs must be finite, and exactness holds as long as the intermediate products neither
//! overflow nor underflow (coordinates with magnitudes roughly between `1e-70` and `1e70`).
//!
//! ```
//! use geometry_core::predicates::{orient3d, Sign};
//! use geometry_core::DVec3;
//!
//! let (a, b, c) = (DVec3::ZERO, DVec3::X, DVec3::Y);
//! assert_eq!(orient3d(a, b, c, DVec3::Z), Sign::Positive);
//! assert_eq!(orient3d(a, b, c, -DVec3::Z), Sign::Negative);
//! // Exactly coplanar, even though 0.1 + 0.2 is not 0.3 in floating point.
//! assert_eq!(orient3d(a, b, c, DVec3::new(0.1, 0.2, 0.0)), Sign::Zero);
//! ```

use crate::{DVec2, DVec3};

/// The smallest magnitude of a non-zero coordinate for which the predicates are exact.
///
/// ```
/// use geometry_core::predicates::{SMALLEST_EXACT_MAGNITUDE, in_exact_range};
/// assert_eq!(SMALLEST_EXACT_MAGNITUDE, 1e-70);
/// assert!(in_exact_range(SMALLEST_EXACT_MAGNITUDE) && in_exact_range(-SMALLEST_EXACT_MAGNITUDE));
/// assert!(!in_exact_range(SMALLEST_EXACT_MAGNITUDE / 2.0));
/// ```
pub const SMALLEST_EXACT_MAGNITUDE: f64 = 1e-70;

/// The largest magnitude of a coordinate for which the predicates are exact.
///
/// ```
/// use geometry_core::predicates::{LARGEST_EXACT_MAGNITUDE, in_exact_range};
/// assert_eq!(LARGEST_EXACT_MAGNITUDE, 1e70);
/// assert!(in_exact_range(LARGEST_EXACT_MAGNITUDE) && in_exact_range(-LARGEST_EXACT_MAGNITUDE));
/// assert!(!in_exact_range(LARGEST_EXACT_MAGNITUDE * 2.0));
/// ```
pub const LARGEST_EXACT_MAGNITUDE: f64 = 1e70;

/// Whether coordinate `x` lies in the range where the predicates are exact: 0, or a magnitude
/// from [`SMALLEST_EXACT_MAGNITUDE`] to [`LARGEST_EXACT_MAGNITUDE`].
///
/// Within it, a non-zero difference of two coordinates is at least `2⁻⁵²` times the smaller
/// magnitude, so the products of three differences that [`orient3d`] expands, and the rounding
/// errors it tracks, stay far above the smallest normal double (about `1e-290` against
/// `2.2e-308`) and far below the largest (`1e211` against `1.8e308`).
///
/// ```
/// use geometry_core::predicates::in_exact_range;
/// assert!(in_exact_range(0.0) && in_exact_range(-3.5) && in_exact_range(1e60));
/// assert!(!in_exact_range(1e-200) && !in_exact_range(1e100) && !in_exact_range(f64::NAN));
/// ```
pub fn in_exact_range(x: f64) -> bool {
    x == 0.0 || (SMALLEST_EXACT_MAGNITUDE..=LARGEST_EXACT_MAGNITUDE).contains(&x.abs())
}

/// The index of the first point with a coordinate for which [`in_exact_range`] is false (NaN
/// and infinities included), if any: query points beyond the range have squares that underflow
/// or overflow, like mesh vertices beyond it.
///
/// ```
/// use geometry_core::DVec3;
/// use geometry_core::predicates::first_point_outside_exact_range;
/// let points = [DVec3::ZERO, DVec3::new(1.0, 1e-80, 0.0), DVec3::splat(f64::NAN)];
/// assert_eq!(first_point_outside_exact_range(&points), Some(1));
/// assert_eq!(first_point_outside_exact_range(&points[..1]), None);
/// ```
pub fn first_point_outside_exact_range(points: &[crate::DVec3]) -> Option<usize> {
    points.iter().position(|p| !p.to_array().iter().all(|&c| in_exact_range(c)))
}

/// What is wrong with the first unusable point of a batch of query points (see
/// [`check_query_points`]).
///
/// ```
/// use geometry_core::DVec3;
/// use geometry_core::predicates::{BadQueryPoint, check_query_points};
/// let far = [DVec3::new(1e100, 0.0, 0.0)];
/// assert_eq!(check_query_points(&far), Err(BadQueryPoint::OutOfRange(0)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadQueryPoint {
    /// The point at this index has a NaN or infinite coordinate.
    NonFinite(usize),
    /// The point at this index is finite but has a coordinate outside [`in_exact_range`].
    OutOfRange(usize),
}

/// Checks a batch of query points for the exact predicates: the first non-finite point, or, if
/// every point is finite, the first one outside the exact range. Non-finite points are looked
/// for first, over the whole batch, as `PointContainment::contains_batch` requires (the batch
/// index of the first non-finite point, even after an out-of-range one).
///
/// ```
/// use geometry_core::DVec3;
/// use geometry_core::predicates::{BadQueryPoint, check_query_points};
/// let points = [DVec3::ZERO, DVec3::new(1.0, 1e-80, 0.0), DVec3::splat(f64::NAN)];
/// assert_eq!(check_query_points(&points), Err(BadQueryPoint::NonFinite(2)));
/// assert_eq!(check_query_points(&points[..2]), Err(BadQueryPoint::OutOfRange(1)));
/// assert_eq!(check_query_points(&points[..1]), Ok(()));
/// ```
///
/// # Errors
/// The [`BadQueryPoint`] found.
pub fn check_query_points(points: &[crate::DVec3]) -> Result<(), BadQueryPoint> {
    if let Some(index) = points.iter().position(|p| !p.is_finite()) {
        return Err(BadQueryPoint::NonFinite(index));
    }
    first_point_outside_exact_range(points).map_or(Ok(()), |index| Err(BadQueryPoint::OutOfRange(index)))
}

/// The sign of an exact determinant.
///
/// ```
/// use geometry_core::predicates::orient3d;
/// use geometry_core::{DVec3, Sign};
/// let (a, b, c) = (DVec3::ZERO, DVec3::X, DVec3::Y);
/// // The determinant here is exactly the height z of the fourth point: its sign is exact.
/// assert_eq!(orient3d(a, b, c, DVec3::new(0.3, 0.3, 1e-60)), Sign::Positive);
/// assert_eq!(orient3d(a, b, c, DVec3::new(0.3, 0.3, -1e-60)), Sign::Negative);
/// assert!(Sign::Negative < Sign::Zero && Sign::Zero < Sign::Positive);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sign {
    /// Strictly negative.
    Negative,
    /// Exactly zero: the points are degenerate (collinear or coplanar).
    Zero,
    /// Strictly positive.
    Positive,
}

impl Sign {
    /// The sign of `value`; `NaN` maps to [`Sign::Zero`] (inputs must be finite, see module docs).
    ///
    /// ```
    /// use geometry_core::Sign;
    /// assert_eq!(Sign::of(-2.5), Sign::Negative);
    /// assert_eq!(Sign::of(0.0), Sign::Zero);
    /// ```
    #[inline]
    pub fn of(value: f64) -> Sign {
        if value > 0.0 {
            Sign::Positive
        } else if value < 0.0 {
            Sign::Negative
        } else {
            Sign::Zero
        }
    }

    /// The sign as `-1`, `0` or `1`.
    ///
    /// ```
    /// use geometry_core::Sign;
    /// assert_eq!(Sign::Negative.as_i32(), -1);
    /// ```
    #[inline]
    pub fn as_i32(self) -> i32 {
        match self {
            Sign::Negative => -1,
            Sign::Zero => 0,
            Sign::Positive => 1,
        }
    }

    /// The opposite sign.
    ///
    /// ```
    /// use geometry_core::Sign;
    /// assert_eq!(Sign::Positive.flip(), Sign::Negative);
    /// assert_eq!(Sign::Zero.flip(), Sign::Zero);
    /// ```
    #[inline]
    #[must_use]
    pub fn flip(self) -> Sign {
        match self {
            Sign::Negative => Sign::Positive,
            Sign::Zero => Sign::Zero,
            Sign::Positive => Sign::Negative,
        }
    }
}

#[inline]
fn c2(p: DVec2) -> robust::Coord<f64> {
    robust::Coord { x: p.x, y: p.y }
}

#[inline]
fn c3(p: DVec3) -> robust::Coord3D<f64> {
    robust::Coord3D { x: p.x, y: p.y, z: p.z }
}

/// Exact sign of `(b - a) × (c - a)`: positive when `a, b, c` are counter-clockwise.
///
/// ```
/// use geometry_core::predicates::{orient2d, Sign};
/// use geometry_core::DVec2;
/// assert_eq!(orient2d(DVec2::ZERO, DVec2::X, DVec2::Y), Sign::Positive);
/// assert_eq!(orient2d(DVec2::ZERO, DVec2::X, DVec2::new(2.0, 0.0)), Sign::Zero);
/// ```
#[inline]
pub fn orient2d(a: DVec2, b: DVec2, c: DVec2) -> Sign {
    // robust::orient2d is positive for counter-clockwise (a, b, c): the same convention.
    Sign::of(robust::orient2d(c2(a), c2(b), c2(c)))
}

/// Exact sign of `det[b - a, c - a, d - a]`: positive when `d` is on the side the normal of the
/// counter-clockwise triangle `a, b, c` points to.
///
/// ```
/// use geometry_core::predicates::{orient3d, Sign};
/// use geometry_core::DVec3;
/// assert_eq!(orient3d(DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z), Sign::Positive);
/// ```
#[inline]
pub fn orient3d(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> Sign {
    // robust::orient3d(a, b, c, d) = det[a - d, b - d, c - d], which is positive when d lies
    // *below* the counter-clockwise triangle a, b, c: the opposite of our convention.
    Sign::of(robust::orient3d(c3(a), c3(b), c3(c), c3(d))).flip()
}

/// Projection onto the coordinate plane that drops `axis` (0 = x, 1 = y, 2 = z), keeping the
/// cyclic order of the other two axes so that orientations keep their meaning.
///
/// ```
/// use geometry_core::predicates::drop_axis;
/// use geometry_core::{DVec2, DVec3};
/// assert_eq!(drop_axis(DVec3::new(1.0, 2.0, 3.0), 1), DVec2::new(3.0, 1.0));
/// ```
#[inline]
pub fn drop_axis(p: DVec3, axis: usize) -> DVec2 {
    match axis {
        0 => DVec2::new(p.y, p.z),
        1 => DVec2::new(p.z, p.x),
        _ => DVec2::new(p.x, p.y),
    }
}

/// Whether `p` lies on the closed triangle `abc`, exactly: coplanar (exact `orient3d`), and
/// inside or on the boundary of the triangle in a coordinate projection where the triangle is
/// not degenerate. A degenerate (collinear) triangle contains no point.
///
/// ```
/// use geometry_core::predicates::on_triangle;
/// use geometry_core::DVec3;
/// let (a, b, c) = (DVec3::ZERO, DVec3::X, DVec3::Y);
/// assert!(on_triangle(a, b, c, DVec3::new(0.25, 0.25, 0.0)));
/// assert!(on_triangle(a, b, c, DVec3::new(0.5, 0.5, 0.0))); // on the hypotenuse
/// // Off the plane by the smallest coordinate of the exact range.
/// assert!(!on_triangle(a, b, c, DVec3::new(0.25, 0.25, 1e-70)));
/// ```
pub fn on_triangle(a: DVec3, b: DVec3, c: DVec3, p: DVec3) -> bool {
    if orient3d(a, b, c, p) != Sign::Zero {
        return false;
    }
    for axis in 0..3 {
        let (a2, b2, c2, p2) =
            (drop_axis(a, axis), drop_axis(b, axis), drop_axis(c, axis), drop_axis(p, axis));
        let area = orient2d(a2, b2, c2);
        if area != Sign::Zero {
            let against = area.flip();
            return orient2d(a2, b2, p2) != against
                && orient2d(b2, c2, p2) != against
                && orient2d(c2, a2, p2) != against;
        }
    }
    false
}

/// Exact test whether three points in space are collinear (including coincident points).
///
/// Three points are collinear exactly when the cross product `(b - a) × (c - a)` is the zero
/// vector, i.e. when all three of its components, which are the 2D orientations of the
/// projections onto the coordinate planes, vanish.
///
/// ```
/// use geometry_core::predicates::collinear3d;
/// use geometry_core::DVec3;
/// assert!(collinear3d(DVec3::ZERO, DVec3::ONE, DVec3::splat(3.0)));
/// assert!(!collinear3d(DVec3::ZERO, DVec3::X, DVec3::Y));
/// ```
pub fn collinear3d(a: DVec3, b: DVec3, c: DVec3) -> bool {
    let xy = |p: DVec3| DVec2::new(p.x, p.y);
    let yz = |p: DVec3| DVec2::new(p.y, p.z);
    let zx = |p: DVec3| DVec2::new(p.z, p.x);
    orient2d(xy(a), xy(b), xy(c)) == Sign::Zero
        && orient2d(yz(a), yz(b), yz(c)) == Sign::Zero
        && orient2d(zx(a), zx(b), zx(c)) == Sign::Zero
}
