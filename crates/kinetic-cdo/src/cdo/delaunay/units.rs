//! The units of length and time certificates are expanded in.
//!
//! A certificate's coefficients are products of four lengths and speeds (its constant term
//! scales as a length to the fourth power, its `τ⁴` term as a speed to the fourth): a box of
//! `1e-90` makes them underflow to 0 and one of `1e80` overflow, although both are well inside
//! the engine's accepted magnitudes. Far from unit scale the rows are therefore taken in units
//! that are powers of two near the mean spacing (length) and the re-check horizon (time): the
//! rescaling is exact, the coefficients stay near 1, and the roots come back in the caller's
//! time by one exact multiplication.

use super::polynomial::RelativeMotion;

/// Powers of two that bring a certificate's rows to unit scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Units {
    /// One over the length unit: multiplies positions and radii.
    per_length: f64,
    /// The time unit over the length unit: multiplies velocities and radius rates.
    per_speed: f64,
    /// The time unit: multiplies a root found in these units.
    time: f64,
    /// One over the time unit: multiplies a time limit given in the caller's units.
    per_time: f64,
}

/// Within `2^±UNSCALED_EXPONENT` of 1 for both the length unit and the time unit, rows are
/// taken as they are: their coefficients, products of four factors within `2^±(2 · 64)` of 1,
/// stay far inside the range of `f64` (`2^±1022`), and the common case pays nothing.
const UNSCALED_EXPONENT: i32 = 64;

/// `2^e` for `|e| ≤ 1022`, exactly.
fn power_of_two(e: i32) -> f64 {
    debug_assert!(e.abs() <= 1022);
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// The exponent of the power of two nearest `x` on a logarithmic scale, for a positive finite
/// `x`; `None` otherwise.
fn nearest_exponent(x: f64) -> Option<i32> {
    (x > 0.0 && x.is_finite()).then(|| x.log2().round() as i32)
}

impl Units {
    /// The units for lengths near `length` and times near `time`, or `None` when both are
    /// close enough to 1 for the rows to be taken as they are. A length or time that is not
    /// positive and finite (an infinite horizon: every particle at rest relative to the others)
    /// leaves that unit at 1.
    pub(super) fn near(length: f64, time: f64) -> Option<Self> {
        // The engine's lengths lie within 2^±333 and its spacings with them; times reach
        // further (a horizon is a length over a speed). Clamped so that each unit and their
        // ratio are normal powers of two whatever the input.
        let a = nearest_exponent(length).unwrap_or(0).clamp(-400, 400);
        let b = nearest_exponent(time).unwrap_or(0).clamp(-620, 620);
        (a.abs() > UNSCALED_EXPONENT || b.abs() > UNSCALED_EXPONENT).then(|| Self {
            per_length: power_of_two(-a),
            per_speed: power_of_two(b - a),
            time: power_of_two(b),
            per_time: power_of_two(-b),
        })
    }

    /// `rows` and the reference site's radius and rate in these units.
    #[inline]
    pub(super) fn rows(self, rows: &mut [RelativeMotion; 3], reference_radius: &mut (f64, f64)) {
        for row in rows.iter_mut() {
            row.position = row.position.map(|x| x * self.per_length);
            row.velocity = row.velocity.map(|v| v * self.per_speed);
            row.radius = (row.radius.0 * self.per_length, row.radius.1 * self.per_speed);
        }
        *reference_radius = (reference_radius.0 * self.per_length, reference_radius.1 * self.per_speed);
    }

    /// A duration in the caller's units, in these.
    #[inline]
    pub(super) fn duration_in_units(self, duration: f64) -> f64 {
        duration * self.per_time
    }

    /// A duration in these units, in the caller's.
    #[inline]
    pub(super) fn duration_from_units(self, duration: f64) -> f64 {
        duration * self.time
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_scale_needs_no_units() {
        assert_eq!(Units::near(1.0, 1.0), None);
        assert_eq!(Units::near(1e-15, 1e15), None);
        assert_eq!(Units::near(0.5, f64::INFINITY), None);
        assert!(Units::near(1e-90, 1.0).is_some());
        assert!(Units::near(1.0, 1e80).is_some());
    }

    #[test]
    fn rescaling_is_exact_and_undone_exactly() {
        let units = Units::near(3e-90, 7e-91).unwrap();
        let mut rows =
            [RelativeMotion { position: [3e-90, -1e-90], velocity: [1.0, 0.25], radius: (1e-90, 0.0) }; 3];
        let mut reference = (2e-90, 0.5);
        units.rows(&mut rows, &mut reference);
        // Powers of two: each value is rescaled without rounding and comes back bit for bit.
        let back = rows[0].position[0] / units.per_length;
        assert_eq!(back, 3e-90);
        assert_eq!(rows[0].velocity[1] / units.per_speed, 0.25);
        assert_eq!(reference.0 / units.per_length, 2e-90);
        assert!((0.1..10.0).contains(&rows[0].position[0].abs()));
        assert_eq!(units.duration_from_units(units.duration_in_units(1.5e-90)), 1.5e-90);
    }
}
