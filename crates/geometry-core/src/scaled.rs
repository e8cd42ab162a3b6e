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

use crate::DVec3;

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
/// ```
/// use geometry_core::{scaled, DVec3};
/// assert!(scaled::within_reach(DVec3::ZERO, DVec3::new(2e300, 0.0, 0.0), 1e300, 1e300));
/// assert!(!scaled::within_reach(DVec3::ZERO, DVec3::new(1e-199, 0.0, 0.0), 1e-200, 0.0));
/// ```
pub fn within_reach(a: DVec3, b: DVec3, reach_a: f64, reach_b: f64) -> bool {
    let (delta, reach) = (b - a, reach_a + reach_b);
    if delta.is_finite() && reach.is_finite() {
        length(delta) <= reach
    } else {
        length(b * 0.5 - a * 0.5) <= reach_a * 0.5 + reach_b * 0.5
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
