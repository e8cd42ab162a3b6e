//! Lengths and directions without overflow or underflow.
//!
//! `|v|²` overflows for lengths above about `1.3e154` and loses every digit below about
//! `1.5e-154`, although the length itself is an ordinary number: these functions scale by the
//! largest component first, so they work for every finite vector (the result is within a few
//! rounding units of the exact one).
//!
//! ```
//! use geometry_core::{scaled, DVec3};
//! let tiny = DVec3::new(3e-200, 4e-200, 0.0);
//! assert_eq!(tiny.length(), 0.0); // the squares underflowed
//! assert!((scaled::length(tiny) / 5e-200 - 1.0).abs() < 1e-15);
//! let direction = scaled::normalize(tiny).unwrap();
//! assert!((direction - DVec3::new(0.6, 0.8, 0.0)).length() < 1e-15);
//! ```

use crate::dyadic::Dyadic;
use crate::{DAffine3, DMat3, DVec3};

/// The Euclidean length of `v`, without overflow or underflow for any finite `v` (infinite only
/// where the length itself exceeds `f64::MAX`; NaN for a NaN component).
///
/// ```
/// use geometry_core::{scaled, DVec3};
/// assert_eq!(scaled::length(DVec3::new(3e300, 4e300, 0.0)), 5e300);
/// assert_eq!(scaled::length(DVec3::ZERO), 0.0);
/// ```
pub fn length(v: DVec3) -> f64 {
    let largest = v.abs().max_element();
    if largest == 0.0 || !largest.is_finite() {
        // Zero, infinite, or NaN (`max_element` may skip a NaN component: say so).
        return if v.is_nan() { f64::NAN } else { largest };
    }
    largest * (v / largest).length()
}

/// `v` scaled to unit length, for any finite non-zero `v` however large or small; `None` for
/// the zero vector and for non-finite input.
///
/// ```
/// use geometry_core::{scaled, DVec3};
/// assert_eq!(scaled::normalize(DVec3::new(0.0, 1e-310, 0.0)), Some(DVec3::Y));
/// assert_eq!(scaled::normalize(DVec3::ZERO), None);
/// ```
pub fn normalize(v: DVec3) -> Option<DVec3> {
    let largest = v.abs().max_element();
    if largest == 0.0 || !largest.is_finite() || v.is_nan() {
        return None;
    }
    (v / largest).try_normalize()
}

/// Whether the distance between `a` and `b` is at most `reach_a + reach_b` (two closed balls
/// share a point, or with `reach_b = 0` a ball holds a point), for any finite inputs: without
/// overflow or underflow of the squares, and with differences and sums that would overflow
/// taken at half scale (exact for normal numbers).
///
/// The answer is that of the exact distance of the given `f64` values: a floating-point
/// comparison decides when the two sides differ by more than its error bound, and near a tie
/// (touching balls, a point on the sphere) the sign of `|b - a|² - (reach_a + reach_b)²` is
/// computed exactly, on the values as dyadic rationals. Rounding alone would say that balls of radii 6
/// and 15 whose centres lie `(8, 19, -4)` apart, exactly 21, miss.
///
/// ```
/// use geometry_core::{scaled, DVec3};
/// assert!(scaled::within_reach(DVec3::ZERO, DVec3::new(2e300, 0.0, 0.0), 1e300, 1e300));
/// assert!(!scaled::within_reach(DVec3::ZERO, DVec3::new(1e-199, 0.0, 0.0), 1e-200, 0.0));
/// // Touching exactly: |(8, 19, -4)| = 21 = 6 + 15.
/// assert!(scaled::within_reach(DVec3::new(-2.0, -16.0, 11.0), DVec3::new(6.0, 3.0, 7.0), 6.0, 15.0));
/// ```
pub fn within_reach(a: DVec3, b: DVec3, reach_a: f64, reach_b: f64) -> bool {
    let (delta, reach) = (b - a, reach_a + reach_b);
    let (delta, reach) = if delta.is_finite() && reach.is_finite() {
        (delta, reach)
    } else {
        // Halving is exact for normal numbers and keeps the comparison.
        (b * 0.5 - a * 0.5, reach_a * 0.5 + reach_b * 0.5)
    };
    let distance = length(delta);
    // Each difference and the sum are within half a unit (relative 2⁻⁵³) of the exact ones,
    // and `length` adds a few units more: 8 units of the larger side bound the error.
    let bound = 8.0 * f64::EPSILON * distance.max(reach);
    if distance > reach + bound {
        false
    } else if distance < reach - bound {
        true
    } else {
        exact_reach_sign(a, b, reach_a, reach_b) <= 0
    }
}

/// The sign (−1, 0 or 1) of `|b - a|² - (reach_a + reach_b)²`, computed exactly on the given
/// finite values as dyadic rationals (big-integer mantissas): exact for every finite input.
/// (Expansion arithmetic after scaling by a power of two lost the square of a difference's
/// rounding error when it fell below the subnormals: a point `2⁻⁶⁰¹` off a unit sphere's
/// centre along x and `2⁻³⁰⁰` along y, at exact distance `1 + 2⁻¹²⁰²`, came out on it.)
fn exact_reach_sign(a: DVec3, b: DVec3, reach_a: f64, reach_b: f64) -> i32 {
    let exact = Dyadic::from_f64;
    let square = |x: &Dyadic| x.mul(x);
    let difference = |k: usize| exact(b[k]).sub(&exact(a[k]));
    let distance_squared = square(&difference(0)).add(&square(&difference(1))).add(&square(&difference(2)));
    let reach = exact(reach_a).add(&exact(reach_b));
    distance_squared.sub(&square(&reach)).signum()
}

/// The inverse of a finite, invertible affine map, or `None` (not finite, singular, or with an
/// inverse beyond `f64`'s range).
///
/// The linear part is equilibrated before it is inverted: each row, then each column, scaled
/// by a power of two (exactly) so that its largest entry lies in `[1, 2)`; the inverse is
/// scaled back. Inverting through the determinant directly fails for ordinary maps whose
/// determinant leaves the range: a scale by `1e103` (its determinant overflows while the
/// cofactors do not, and the inverse came out all zeros) or by `1e-110` (its determinant
/// underflows to 0). One power of two for the whole matrix is not enough for anisotropic maps:
/// `diag(1e-150, 1e150, 1)` has determinant 1, but scaled to entries below 2 its determinant
/// underflowed and the map was refused as singular.
///
/// ```
/// use geometry_core::{scaled, DAffine3, DVec3};
/// let pose = DAffine3::from_scale_rotation_translation(DVec3::splat(1e103), Default::default(), DVec3::X);
/// let inverse = scaled::affine_inverse(&pose).unwrap();
/// let p = DVec3::new(3e103, 0.0, 0.0);
/// assert!((inverse.transform_point3(p) - DVec3::new(3.0, 0.0, 0.0)).length() < 1e-15);
/// let squeeze = DAffine3::from_scale(DVec3::new(1e-150, 1e150, 1.0));
/// let inverse = scaled::affine_inverse(&squeeze).unwrap();
/// assert_eq!(inverse.transform_point3(DVec3::new(1e-150, 1e150, 2.0)), DVec3::new(1.0, 1.0, 2.0));
/// assert!(scaled::affine_inverse(&DAffine3::from_scale(DVec3::new(1.0, 0.0, 1.0))).is_none());
/// ```
pub fn affine_inverse(pose: &DAffine3) -> Option<DAffine3> {
    if !pose.is_finite() {
        return None;
    }
    let (balanced, rows, columns) = equilibrated(&pose.matrix3)?;
    if balanced.determinant() == 0.0 {
        return None;
    }
    // m = diag(rows)⁻¹ · balanced · diag(columns)⁻¹, so m⁻¹ = diag(columns) · balanced⁻¹ · diag(rows).
    let inverse = balanced.inverse();
    let linear = DMat3::from_cols(
        columns * inverse.x_axis * rows.x,
        columns * inverse.y_axis * rows.y,
        columns * inverse.z_axis * rows.z,
    );
    let inverse = DAffine3::from_mat3_translation(linear, -(linear * pose.translation));
    inverse.is_finite().then_some(inverse)
}

/// Whether the linear map `m` reverses orientation (its determinant is negative), judged on
/// `m` equilibrated by powers of two (as in [`affine_inverse`]), so that the determinant of a
/// tiny, huge or strongly anisotropic reflection neither underflows to `-0` nor overflows.
/// `false` for a singular or non-finite `m`.
///
/// ```
/// use geometry_core::{scaled, DMat3, DVec3};
/// let tiny_mirror = DMat3::from_diagonal(DVec3::new(-1e-110, 1e-110, 1e-110));
/// assert_eq!(tiny_mirror.determinant(), 0.0); // underflowed
/// assert!(scaled::reverses_orientation(&tiny_mirror));
/// assert!(scaled::reverses_orientation(&DMat3::from_diagonal(DVec3::new(-1e-300, 1e300, 1e-200))));
/// ```
pub fn reverses_orientation(m: &DMat3) -> bool {
    m.is_finite() && equilibrated(m).is_some_and(|(balanced, _, _)| balanced.determinant() < 0.0)
}

/// `diag(rows) · m · diag(columns)` with powers of two that bring the largest entry of each
/// row, and then of each column, into `[1, 2)` (below 1 for the smallest subnormals), with
/// `rows` and `columns`; `None` when a row or a column is zero (a singular matrix). Scaling by
/// powers of two is exact (unless it reaches the subnormals), and positive factors keep the
/// determinant's sign.
fn equilibrated(m: &DMat3) -> Option<(DMat3, DVec3, DVec3)> {
    let largest_of = |v: DVec3| v.abs().max_element();
    let row_scale = |i: usize| {
        let largest = largest_of(m.row(i));
        (largest > 0.0).then(|| power_of_two_near_reciprocal(largest))
    };
    let rows = DVec3::new(row_scale(0)?, row_scale(1)?, row_scale(2)?);
    let by_rows = DMat3::from_cols(rows * m.x_axis, rows * m.y_axis, rows * m.z_axis);
    let column_scale = |j: usize| {
        let largest = largest_of(by_rows.col(j));
        (largest > 0.0).then(|| power_of_two_near_reciprocal(largest))
    };
    let columns = DVec3::new(column_scale(0)?, column_scale(1)?, column_scale(2)?);
    let balanced =
        DMat3::from_cols(by_rows.x_axis * columns.x, by_rows.y_axis * columns.y, by_rows.z_axis * columns.z);
    Some((balanced, rows, columns))
}

/// `Π factors` for finite factors, without overflow or underflow of the partial products: each
/// factor split into a mantissa in `[1, 2)` and a power of two, the mantissas multiplied and the
/// exponents added, the result scaled once. Zero when a factor is zero (also when others are
/// huge: a flat box's volume), infinite or zero only when the product itself leaves `f64`'s
/// range; NaN for a NaN factor. (Multiplied left to right, `1e200 · 1e200 · 1e-200` overflowed
/// and `1e200 · 1e200 · 0` was NaN.)
pub(crate) fn product(factors: &[f64]) -> f64 {
    if factors.iter().any(|x| x.is_nan()) {
        return f64::NAN;
    }
    if factors.contains(&0.0) {
        return 0.0;
    }
    let mut mantissa = 1.0f64;
    let mut exponent = 0i64;
    for &x in factors {
        if x.is_infinite() {
            return mantissa.signum() * x;
        }
        let scale = power_of_two_near_reciprocal(x.abs());
        mantissa *= x * scale;
        exponent -= i64::from(((scale.to_bits() >> 52) & 0x7ff) as i32 - 1023);
        // Keep the running mantissa in [1, 2) so that any number of factors fits.
        let renormalise = power_of_two_near_reciprocal(mantissa.abs());
        mantissa *= renormalise;
        exponent -= i64::from(((renormalise.to_bits() >> 52) & 0x7ff) as i32 - 1023);
    }
    // mantissa · 2^exponent, in steps that stay within the normal powers of two.
    while exponent != 0 && mantissa != 0.0 && mantissa.is_finite() {
        let step = exponent.clamp(-1000, 1000);
        mantissa *= f64::from_bits(((step + 1023) as u64) << 52);
        exponent -= step;
    }
    mantissa
}

/// A power of two `s` with `s · x` in `[1, 2)` for a positive finite `x` (capped at 2¹⁰²³, so
/// below 1 for the smallest subnormals).
pub(crate) fn power_of_two_near_reciprocal(x: f64) -> f64 {
    // The exponent of `x`, subnormals included (their leading bit, at position 63 - zeros of
    // the bit pattern, stands for 2^(position - 1074)).
    let exponent = if x >= f64::MIN_POSITIVE {
        ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023
    } else {
        -1011 - x.to_bits().leading_zeros() as i32
    };
    // 2^-exponent, capped at the largest normal power (subnormal `x` then stays below 1).
    let e = (-exponent).clamp(-1022, 1023);
    f64::from_bits(((e + 1023) as u64) << 52)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Products whose partial products leave the range while the result does not, zeros beside
    /// huge factors, signs, and results beyond the range.
    #[test]
    fn products_without_spurious_overflow() {
        assert_eq!(product(&[1e200, 1e200, 1e-200]), 1e200 * (1e200 * 1e-200));
        assert_eq!(product(&[1e200, 1e200, 0.0]), 0.0);
        assert_eq!(product(&[1e-160, 1e-160, 1e300]), 1e-160 * (1e-160 * 1e300));
        assert_eq!(product(&[-3.0, 2.0, 0.5]), -3.0);
        assert_eq!(product(&[1e300, 1e300]), f64::INFINITY);
        assert_eq!(product(&[-1e300, 1e300]), f64::NEG_INFINITY);
        assert_eq!(product(&[1e-300, 1e-300]), 0.0);
        assert_eq!(product(&[5e-324, 2.0]), 1e-323);
        assert_eq!(product(&[f64::MAX, 0.5, 2.0]), f64::MAX);
        assert!(product(&[1.0, f64::NAN]).is_nan());
        assert_eq!(product(&[]), 1.0);
        // Powers of two multiply exactly at any scale.
        for (a, b) in [(-1074, 1000), (1023, -1074), (-1000, 900), (500, 523)] {
            assert_eq!(product(&[2f64.powi(a), 2f64.powi(b)]), 2f64.powi(a + b), "2^{a} · 2^{b}");
        }
    }

    /// Against the plain formulas on vectors scaled by powers of two (exact), from 2⁻¹⁰⁰⁰ to
    /// 2¹⁰⁰⁰: the same answers as at unit scale.
    #[test]
    fn scaling_by_powers_of_two_changes_nothing() {
        let vectors = [DVec3::new(3.0, 4.0, 12.0), DVec3::new(-1.0, 1e-3, 0.5), DVec3::new(0.0, 0.0, -7.25)];
        for &v in &vectors {
            for e in (-1000..=1000).step_by(50) {
                let s = 2f64.powi(e);
                let w = v * s;
                assert_eq!(length(w) / s, length(v), "length at 2^{e}");
                assert_eq!(normalize(w), normalize(v), "direction at 2^{e}");
                let r = v.length();
                assert!(within_reach(DVec3::ZERO, w, r * s * 0.5, r * s * 0.5), "touching at 2^{e}");
                assert!(!within_reach(DVec3::ZERO, w, r * s * 0.49, r * s * 0.49), "apart at 2^{e}");
            }
        }
    }

    #[test]
    fn degenerate_and_extreme_inputs() {
        assert!(length(DVec3::new(f64::NAN, 1.0, 0.0)).is_nan());
        assert_eq!(length(DVec3::new(f64::INFINITY, 1.0, 0.0)), f64::INFINITY);
        assert_eq!(normalize(DVec3::new(f64::NAN, 1.0, 0.0)), None);
        assert_eq!(
            normalize(DVec3::new(f64::MAX, f64::MAX, 0.0)).map(|n| (n.length() - 1.0).abs() < 1e-15),
            Some(true)
        );
        // Centres a whole f64 range apart, radii near the largest double.
        let far = DVec3::new(f64::MAX, 0.0, 0.0);
        assert!(within_reach(-far, far, f64::MAX, f64::MAX));
        assert!(!within_reach(-far, far, f64::MAX, f64::MAX * 0.99));
    }
}
