//! Event times and collision rules for ballistic motion.
//!
//! Every event time in the crate comes from one of two root finders, written so that the root
//! returned is never in the past and never suffers cancellation:
//! * [`gap_closing_time`] for a one-dimensional gap `h + bτ + ½aτ²` (wall hits, cell crossings,
//!   leaving a neighbour-list shell under gravity);
//! * [`pair_contact_time`] for `|d + uτ|² = (σ + sτ)²` (two spheres, possibly growing).
//!
//! Both return `0` for a pair or gap that rounding has already pushed past contact while it is
//! still closing: that is the guard against drift. A particle can end up a few ulps inside a
//! wall or another particle after a collision, but the next approach collides at once instead
//! of passing through, so overlaps never grow beyond rounding.

/// The first `τ >= 0` at which the gap `h + bτ + ½aτ²` closes (reaches 0 while decreasing), or
/// `f64::INFINITY` if it never does. A gap that is already `<= 0` and closing gives 0; a
/// tangential touch (the gap reaches 0 with zero rate) is not a crossing.
#[inline]
pub(crate) fn gap_closing_time(h: f64, b: f64, a: f64) -> f64 {
    if a == 0.0 {
        return if b < 0.0 { h.max(0.0) / -b } else { f64::INFINITY };
    }
    // At or past the boundary and closing, or at rest on it and pushed across: now.
    if h <= 0.0 && (b < 0.0 || (b == 0.0 && a < 0.0)) {
        return 0.0;
    }
    if a < 0.0 {
        // Pushed towards the boundary: the gap always closes. `b² − 2ah` as a hypotenuse, so a
        // rate whose square underflows (a bounce dying out under gravity, |b| ~ 1e-162) still
        // gives its root: with a plain `b * b` the discriminant rounds to 0, the hit is lost and
        // the particle falls through the wall.
        if h < 0.0 && b * b < 2.0 * a * h {
            // Past the boundary by rounding, leaving too slowly to ever get back out before it
            // is pushed in again: collide now (the reflection sends it out).
            return 0.0;
        }
        // (`hypot` only where the square would lose digits: it costs several times a sqrt, and
        // this runs for every wall prediction under gravity.)
        let sq = if h >= 0.0 && b.abs() < 1e-150 {
            b.hypot((-2.0 * a * h).sqrt())
        } else {
            (b * b - 2.0 * a * h).sqrt()
        };
        let tau = if b < 0.0 { 2.0 * h / (-b + sq) } else { (b + sq) / -a };
        return tau.max(0.0);
    }
    let disc = b * b - 2.0 * a * h;
    if disc <= 0.0 {
        return f64::INFINITY;
    }
    let sq = disc.sqrt();
    // The closing root is the one where the rate b + aτ equals −sq; pick the stable form.
    let tau = if b < 0.0 { 2.0 * h / (-b + sq) } else { (-b - sq) / a };
    if tau >= 0.0 { tau } else { f64::INFINITY }
}

/// The first `τ >= 0` at which `|d + uτ| = σ + sτ` with the pair approaching: `d` the centre
/// separation, `u` the relative velocity, `σ` the current radius sum and `s` its growth rate.
#[inline]
pub(crate) fn pair_contact_time<const D: usize>(d: [f64; D], u: [f64; D], sigma: f64, s: f64) -> f64 {
    contact_time(d, u, sigma, s, true)
}

/// [`pair_contact_time`]; with `may_scale`, inputs whose squares or their products leave the
/// safe range are evaluated [`at_unit_scale`] (the discriminant is a fourth power of the scale:
/// lengths and speeds of 1e78 overflowed it, 1e-80 underflowed it).
#[inline]
fn contact_time<const D: usize>(d: [f64; D], u: [f64; D], sigma: f64, s: f64, may_scale: bool) -> f64 {
    use crate::vector::dot;
    /// Squares and discriminants outside `[LOW, 1/LOW]` are evaluated at unit scale.
    const LOW: f64 = 1e-200;
    // |d + uτ|² − (σ + sτ)² = Aτ² + 2Bτ + C.
    let b = dot(d, u) - sigma * s;
    if s == 0.0 && b > 0.0 {
        // Receding rigid spheres never meet (the common case: decided by one dot product; its
        // sign survives any overflow, and a product that underflowed to 0 goes on below).
        return f64::INFINITY;
    }
    let a = dot(u, u) - s * s;
    let dd = dot(d, d);
    let c = dd - sigma * sigma;
    // The discriminant is a fourth power of the scale: lengths and speeds of 1e78 overflowed
    // it, 1e-80 underflowed it (and squared lengths of 1e-170 underflow to 0, which reads as
    // touching). Such inputs are evaluated at unit scale; the checks sit on the branches that
    // need them, so that a receding or well-scaled pair pays next to nothing (a scan of the
    // inputs first cost 6 % of a simulation's speed).
    let in_range = |x: f64| (LOW..=1.0 / LOW).contains(&x);
    let rescaled = || at_unit_scale(d, u, sigma, s, |d, u, sigma, s| contact_time(d, u, sigma, s, false));
    // A `b` of 0 may be a product that underflowed (tiny separations times tiny speeds, below
    // 1e-308 together): an approaching pair was taken as receding and passed through. Only
    // such a pair pays for the test.
    let b_may_have_underflowed = || b == 0.0 && may_scale && u.iter().any(|&x| x != 0.0);
    if c <= 0.0 {
        if may_scale && !in_range(dd) || b_may_have_underflowed() {
            return rescaled();
        }
        if b < 0.0 {
            return 0.0;
        }
        // Overlapping by rounding but separating: only growth can bring them back.
        if a < 0.0 {
            let disc = discriminant(d, u, sigma, s);
            return (b + disc.sqrt()) / -a;
        }
        return f64::INFINITY;
    }
    if a >= 0.0 && b >= 0.0 {
        return if b_may_have_underflowed() { rescaled() } else { f64::INFINITY };
    }
    let disc = discriminant(d, u, sigma, s);
    if may_scale && !(in_range(disc.abs()) && in_range(c)) {
        return rescaled();
    }
    if disc < 0.0 {
        return f64::INFINITY;
    }
    let denom = -b + disc.sqrt();
    if denom > 0.0 { c / denom } else { f64::INFINITY }
}

/// `B² − AC` of `|d + uτ|² − (σ + sτ)² = Aτ² + 2Bτ + C`, in the form that keeps its digits when
/// the pair is far apart: by Lagrange's identity it is `|σu − sd|² − |d × u|²`. The textbook
/// `(d·u − σs)² − (|u|² − s²)(|d|² − σ²)` subtracts two numbers of size `|d|²|u|²` to get one
/// of size `σ²|u|²`: a pair predicted from `|d| = 5·10⁸ σ` away got a discriminant of pure
/// rounding noise, collided at its closest approach (50 % overlap), or collided without ever
/// touching (found by a review, through `BruteForce`, which predicts every pair from any
/// distance). Here the minors of `d × u` round relative to `|d||u|`, so the discriminant is
/// off by about `ε |d| / σ` of `σ²|u|²`.
#[inline]
fn discriminant<const D: usize>(d: [f64; D], u: [f64; D], sigma: f64, s: f64) -> f64 {
    use crate::vector::{add_scaled, cross_norm_squared, dot};
    let w: [f64; D] = add_scaled(u.map(|x| sigma * x), -s, d);
    dot(w, w) - cross_norm_squared(d, u)
}

/// Whether a quadratic in `τ` whose discriminant multiplies squared lengths (`d`, `length`) by
/// squared speeds (`u`, `speed`), a fourth power of the scale, may overflow or underflow inside
/// the engine's accepted magnitudes: then evaluate it [`at_unit_scale`].
#[inline]
pub(crate) fn needs_unit_scale<const D: usize>(d: [f64; D], u: [f64; D], length: f64, speed: f64) -> bool {
    const SAFE: f64 = 1e-120;
    let (lengths, speeds) = largest_magnitudes(d, u, length, speed);
    let safe = |x: f64| x == 0.0 || (SAFE..=1.0 / SAFE).contains(&x);
    !(safe(lengths) && safe(speeds) && safe(lengths * speeds)) && lengths.is_finite() && speeds.is_finite()
}

/// The largest magnitude among the lengths (`d`, `length`) and among the speeds (`u`, `speed`).
#[inline]
fn largest_magnitudes<const D: usize>(d: [f64; D], u: [f64; D], length: f64, speed: f64) -> (f64, f64) {
    let largest = |v: &[f64], x: f64| v.iter().fold(x.abs(), |m, c| m.max(c.abs()));
    (largest(&d, length), largest(&u, speed))
}

/// Evaluates the time `time(d, u, length, speed)` with the lengths (`d`, `length`) and the
/// speeds (`u`, `speed`) brought to unit scale by powers of two (exact), and scales the time
/// back: `τ` is a length over a speed.
#[cold]
#[inline(never)]
pub(crate) fn at_unit_scale<const D: usize>(
    d: [f64; D],
    u: [f64; D],
    length: f64,
    speed: f64,
    time: impl Fn([f64; D], [f64; D], f64, f64) -> f64,
) -> f64 {
    let (lengths, speeds) = largest_magnitudes(d, u, length, speed);
    if !(lengths.is_finite() && speeds.is_finite()) {
        return time(d, u, length, speed);
    }
    let exponent = |x: f64| if x > 0.0 { x.log2().round() as i32 } else { 0 };
    let (p, q) = (exponent(lengths), exponent(speeds));
    let tau = time(
        d.map(|x| times_power_of_two(x, -p)),
        u.map(|x| times_power_of_two(x, -q)),
        times_power_of_two(length, -p),
        times_power_of_two(speed, -q),
    );
    // τ = τ' · 2^(p − q).
    times_power_of_two(times_power_of_two(tau, p), -q)
}

/// `x · 2^k` for `|k|` up to about 2000, as two multiplications by normal powers of two (a
/// subnormal speed has an exponent near −1074, and `2^1074` itself overflows): exact unless
/// the result leaves the normal range.
#[inline]
fn times_power_of_two(x: f64, k: i32) -> f64 {
    let half = k / 2;
    x * 2f64.powi(half) * 2f64.powi(k - half)
}

/// The velocity changes of a binary collision along the unit normal `n` (from `i` to `k`).
///
/// With `u_n` the normal relative velocity (negative when approaching) and `s` the rate at which
/// the radius sum grows, the rule is the reflection in the frame of the growing surfaces:
/// `u_n' = s − e(u_n − s)`. For `s = 0` that is the usual `u_n' = −e u_n`; during a
/// Lubachevsky–Stillinger compression it guarantees the pair separates faster than its
/// surfaces grow. Returns the impulse `J` on `k` along `n` (`−J` on `i`).
#[inline]
pub(crate) fn collision_impulse(u_n: f64, s: f64, restitution: f64, reduced_mass: f64) -> f64 {
    reduced_mass * (1.0 + restitution) * (s - u_n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gap(h: f64, b: f64, a: f64, t: f64) -> f64 {
        h + b * t + 0.5 * a * t * t
    }

    #[test]
    fn gap_closing_matches_the_quadratic() {
        let cases = [
            (1.0, -1.0, 0.0, 1.0),
            (1.0, 1.0, 0.0, f64::INFINITY),
            (1.0, 1.0, -2.0, f64::midpoint(1.0, 5f64.sqrt())),
            (1.0, -3.0, 2.0, (3.0 - 5f64.sqrt()) / 2.0),
            (1.0, -1.0, 2.0, f64::INFINITY),
            (-1e-15, 1.0, -2.0, 1.0),
            (-1e-15, -1.0, 0.0, 0.0),
            // At rest on the boundary, accelerated across it.
            (0.0, 0.0, -1.0, 0.0),
            // On the boundary, leaving slowly, pushed back: closes at τ = 2b/|a|.
            (0.0, 0.5, -1.0, 1.0),
        ];
        for (h, b, a, expected) in cases {
            let t = gap_closing_time(h, b, a);
            if expected.is_infinite() {
                assert!(t.is_infinite(), "{h} {b} {a}: {t}");
            } else {
                assert!((t - expected).abs() < 1e-12, "{h} {b} {a}: {t} vs {expected}");
                assert!(gap(h, b, a, t).abs() < 1e-12);
                assert!(b + a * t <= 0.0);
            }
        }
    }

    /// A bounce dying out under gravity: the rate's square underflows, yet the gap still closes
    /// (it used to return infinity: the particle then fell through the floor).
    #[test]
    fn gap_closing_survives_an_underflowing_rate() {
        let t = gap_closing_time(0.0, 1.1e-162, -1.0);
        assert!(t.is_finite() && t >= 0.0, "{t}");
        assert!((t - 2.2e-162).abs() < 1e-175, "{t}");
        // Inside the boundary by rounding, leaving too slowly to get out: collide now.
        assert_eq!(gap_closing_time(-1e-16, 1e-10, -1.0), 0.0);
        // Inside by rounding but leaving fast enough: closes after it got back out.
        let t = gap_closing_time(-1e-16, 1.0, -1.0);
        assert!((t - 2.0).abs() < 1e-12, "{t}");
    }

    #[test]
    fn pair_contact_is_the_first_touch() {
        // Head-on: centres 3 apart, closing at 2, radius sum 1 → touch at τ = 1.
        let t = pair_contact_time([3.0, 0.0], [-2.0, 0.0], 1.0, 0.0);
        assert!((t - 1.0).abs() < 1e-15);
        // Miss: offset 2 sideways with radius sum 1.
        assert!(pair_contact_time([3.0, 2.0], [-2.0, 0.0], 1.0, 0.0).is_infinite());
        // Receding.
        assert!(pair_contact_time([3.0, 0.0], [2.0, 0.0], 1.0, 0.0).is_infinite());
        // Growing radius sum 1 + τ meets a fixed pair 3 apart at τ = 2.
        let t = pair_contact_time([3.0, 0.0], [0.0, 0.0], 1.0, 1.0);
        assert!((t - 2.0).abs() < 1e-15);
        // Rounding overlap while approaching: collide now.
        assert_eq!(pair_contact_time([1.0 - 1e-16, 0.0], [-1.0, 0.0], 1.0, 0.0), 0.0);
    }

    #[test]
    fn elastic_rule_reverses_the_normal_velocity() {
        let j = collision_impulse(-2.0, 0.0, 1.0, 0.5);
        // Δu_n = J / m_red = 4: −2 → +2.
        assert_eq!(j / 0.5, 4.0);
    }
}
