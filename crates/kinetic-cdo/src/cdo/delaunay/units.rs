//! The units of length and time one certificate is expanded in.
//!
//! A certificate's coefficients are sums of products of four lengths and speeds, one factor
//! or two from each row (its constant term scales as a length to the fourth power, its `τ⁴`
//! term as a speed to the fourth): rows of `1e-90` make them underflow to 0 and rows of `1e80`
//! overflow, although both are inside the engine's accepted magnitudes, and so do speeds far
//! from the lengths over the time scale. Such rows are therefore taken in units of their own:
//! the length unit a power of two near the largest position or radius among them, the speed
//! unit one near the largest velocity or radius rate. The rescaling is exact, the largest
//! factors become about 1 (no overflow; a product underflows only if it is negligible next to
//! the products of the largest factors in the same coefficient), and the roots come back in the
//! caller's time by one exact multiplication.
//!
//! The units are chosen per certificate, from its rows alone: the scales of a system are no
//! guide (a cluster in the corner of a huge box, a common drift far faster than the relative
//! motion, rows towards the bounding triangle's corners at rest).

use super::polynomial::{RelativeMotion, floor_log2, power_of_two};

/// Powers of two that bring one certificate's rows to unit scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Units {
    /// One over the length unit: multiplies positions and radii.
    per_length: f64,
    /// The time unit over the length unit (one over the speed unit): multiplies velocities
    /// and radius rates.
    per_speed: f64,
    /// The time unit: multiplies a root found in these units.
    time: f64,
    /// One over the time unit: multiplies a time limit given in the caller's units.
    per_time: f64,
}

/// Rows whose largest position and largest velocity both lie within `2^±UNSCALED_EXPONENT`
/// (or whose velocities are all 0) are taken as they are: every product of four such factors
/// stays within `2^±800`, far inside the range of `f64`, and the common case pays only for
/// finding the two largest values.
const UNSCALED_EXPONENT: i32 = 200;

/// Whether `x` (not negative) lies within `2^±UNSCALED_EXPONENT`.
#[inline]
fn moderate(x: f64) -> bool {
    const LOW: f64 = f64::from_bits(((1023 - UNSCALED_EXPONENT) as u64) << 52);
    const HIGH: f64 = f64::from_bits(((1023 + UNSCALED_EXPONENT) as u64) << 52);
    (LOW..=HIGH).contains(&x)
}

impl Units {
    /// The units for `rows` and the reference site's radius and rate, or `None` when they
    /// can be taken as they are (see [`UNSCALED_EXPONENT`]).
    // Always inlined: called for every certificate, and the common answer is `None`.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub(super) fn for_rows(rows: &[RelativeMotion; 3], reference_radius: (f64, f64)) -> Option<Self> {
        // `a > b ? a : b` rather than `f64::max`, whose NaN rules cost several instructions
        // per call (the values here are finite), in pairs (a chain of dependent maxima would
        // wait on each one).
        let larger = |a: f64, b: f64| if a > b { a } else { b };
        let largest = |[a, b, c, d, e, f]: [f64; 6]| larger(larger(a, b), larger(larger(c, d), larger(e, f)));
        let [p, q, r] = rows.map(|row| row.position.map(f64::abs));
        // Radii need no look: a disk's radius is below its distance to another (they do not
        // overlap), and a corner's is 0. Radius rates (a compression) may exceed the speeds.
        let length = largest([p[0], p[1], q[0], q[1], r[0], r[1]]);
        let [u, v, w] = rows.map(|row| row.velocity.map(f64::abs));
        let rates = larger(
            larger(rows[0].radius.1.abs(), rows[1].radius.1.abs()),
            larger(rows[2].radius.1.abs(), reference_radius.1.abs()),
        );
        let speed = larger(largest([u[0], u[1], v[0], v[1], w[0], w[1]]), rates);
        if moderate(length) && (speed == 0.0 || moderate(speed)) {
            return None;
        }
        Some(Self::near(length, speed))
    }

    /// Units in which `length` and `speed` (positive or 0, finite) are about 1.
    #[cold]
    fn near(length: f64, speed: f64) -> Self {
        // Accepted inputs keep lengths within 2^±340; the clamps keep every power of two below
        // normal whatever the input (the time unit within 2^±1010, and 2^±1000 of the length
        // unit, so that the speed factor is too).
        let a = if length > 0.0 { floor_log2(length) } else { 0 }.clamp(-400, 400);
        // Without motion (every speed 0) the time unit is 1; else the speed unit is about
        // the largest speed, and the time unit the length unit over it.
        let b = if speed > 0.0 {
            (a - floor_log2(speed)).clamp(a - 1000, a + 1000).clamp(-1010, 1010)
        } else {
            0
        };
        Self {
            per_length: power_of_two(-a),
            per_speed: power_of_two(b - a),
            time: power_of_two(b),
            per_time: power_of_two(-b),
        }
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

    fn rows(position: f64, velocity: f64) -> [RelativeMotion; 3] {
        [RelativeMotion {
            position: [position, -0.5 * position],
            velocity: [velocity, 0.25 * velocity],
            radius: (0.25 * position, 0.0),
        }; 3]
    }

    #[test]
    fn unit_scale_needs_no_units() {
        assert_eq!(Units::for_rows(&rows(1.0, 1.0), (0.5, 0.0)), None);
        assert_eq!(Units::for_rows(&rows(1e-50, 1e50), (0.5e-50, 0.0)), None);
        assert_eq!(Units::for_rows(&rows(1.0, 0.0), (0.5, 0.0)), None);
        assert!(Units::for_rows(&rows(1e-90, 1.0), (0.5e-90, 0.0)).is_some());
        assert!(Units::for_rows(&rows(1e80, 1.0), (0.5e80, 0.0)).is_some());
        assert!(Units::for_rows(&rows(1.0, 1e-70), (0.5, 0.0)).is_some());
    }

    #[test]
    fn rescaling_is_exact_and_brings_the_largest_values_near_1() {
        for (position, velocity) in
            [(3e-90, 0.25), (3e90, 1e-80), (1.0, 1e-300), (1e100, 1e100), (1e-100, 0.0)]
        {
            let mut scaled = rows(position, velocity);
            let mut reference = (position, 0.0);
            let units = Units::for_rows(&scaled, reference).unwrap();
            units.rows(&mut scaled, &mut reference);
            // Powers of two: each value comes back bit for bit.
            assert_eq!(scaled[0].position[0] / units.per_length, position);
            assert_eq!(scaled[0].velocity[0] / units.per_speed, velocity);
            assert_eq!(reference.0 / units.per_length, position);
            assert!((0.5..2.0).contains(&scaled[0].position[0]), "{position}: {scaled:?}");
            if velocity > 0.0 {
                assert!((0.5..2.0).contains(&scaled[0].velocity[0]), "{velocity}: {scaled:?}");
            }
            let duration = 1.5 * units.time;
            assert_eq!(units.duration_in_units(duration), 1.5);
            assert_eq!(units.duration_from_units(1.5), duration);
        }
    }
}
