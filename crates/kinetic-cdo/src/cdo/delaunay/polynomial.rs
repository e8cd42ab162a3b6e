//! The kinetic certificate of an edge as a polynomial in time, and its first failure.
//!
//! For linear motion (gravity cancels: the determinant is translation invariant, and all four
//! particles share the same acceleration) and radii that grow at most linearly, the power test
//! of an edge's quadrilateral is a polynomial of degree ≤ 4 in the time `τ` from now: rows
//! `(x(τ), y(τ), w(τ))` with `x, y` linear and `w` quadratic.
//!
//! Its first failure is found without a closed-form quartic formula (which loses all accuracy
//! near double roots): the real line is cut at the roots of the derivative, found the same way
//! recursively, into pieces on which the polynomial is monotone; on a monotone piece a sign
//! change brackets exactly one root, which bisection pins down to the last bit. The first piece
//! on which the certificate goes from `<= 0` to `> 0` holds the event. This is root isolation
//! by derivative sequences (the idea behind Sturm's theorem for the case of few roots): it
//! never misses a sign change that floating-point evaluation can see, and never reports a
//! touching (even-multiplicity) root as a failure.

/// Coefficients `c[0] + c[1] τ + … + c[4] τ⁴`.
pub(crate) type Quartic = [f64; 5];

/// One row of the certificate: the site's motion relative to the fourth site `d`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RelativeMotion {
    /// Position relative to `d` now.
    pub(crate) position: [f64; 2],
    /// Velocity relative to `d`.
    pub(crate) velocity: [f64; 2],
    /// Radius now and its rate.
    pub(crate) radius: (f64, f64),
}

/// The certificate polynomial `det[(x, y, |p|² − r² + r_d²)]` for rows `a, b, c` relative to
/// `d` (whose radius and rate are `d_radius`), with the magnitude its constant term is computed
/// with (for deciding the sign of the constant term without an exact test).
// Always inlined: called once per edge recomputation, and a call passes the three rows and the
// polynomial through memory (measured: -5 % instructions per collision, 4 000 disks, φ = 0.7).
#[allow(clippy::inline_always)]
#[inline(always)]
pub(crate) fn certificate(rows: [RelativeMotion; 3], d_radius: (f64, f64)) -> (Quartic, f64) {
    let (polynomial, [ax, ay, aw], [bx, by, bw], [cx, cy, cw]) = expand::<false>(rows, d_radius);
    let magnitude = ax[0].abs() * (by[0].abs() * cw[0].abs() + cy[0].abs() * bw[0].abs())
        + ay[0].abs() * (bx[0].abs() * cw[0].abs() + cx[0].abs() * bw[0].abs())
        + aw[0].abs() * (bx[0].abs() * cy[0].abs() + by[0].abs() * cx[0].abs());
    (polynomial, magnitude)
}

/// Per coefficient of [`certificate`], the sum of the absolute values of every product it adds
/// up (the same expansion on absolute values, subtractions turned into additions): the scale
/// its rounding error is relative to.
pub(crate) fn certificate_magnitudes(rows: [RelativeMotion; 3], d_radius: (f64, f64)) -> Quartic {
    expand::<true>(rows, d_radius).0
}

/// The relative rounding error, per unit of [`certificate_magnitudes`], below which a
/// coefficient of [`certificate`] carries no sign: a few dozen roundings (row differences,
/// squares, three levels of products and sums) of at most `ε` each.
const NOISE: f64 = 64.0 * f64::EPSILON;

/// The certificate with every coefficient that is at rounding level (relative to its
/// magnitude, [`certificate_magnitudes`]) set to 0; `None` if every coefficient is: the
/// quadrilateral is co-circular at all times to within rounding (e.g. a rectangle whose sides
/// stay parallel), and neither diagonal is preferred.
pub(crate) fn without_noise(polynomial: &Quartic, magnitudes: &Quartic) -> Option<Quartic> {
    let mut clean = *polynomial;
    for (c, m) in clean.iter_mut().zip(magnitudes) {
        if c.abs() <= NOISE * m {
            *c = 0.0;
        }
    }
    clean.iter().any(|&c| c != 0.0).then_some(clean)
}

/// The rows' polynomials `(x, y, w)` and the determinant, written out as products. With `BOUND`
/// every input is replaced by its absolute value and every subtraction by an addition.
#[allow(clippy::type_complexity, clippy::inline_always)]
#[inline(always)]
fn expand<const BOUND: bool>(
    rows: [RelativeMotion; 3],
    d_radius: (f64, f64),
) -> (Quartic, [Vec2Poly; 3], [Vec2Poly; 3], [Vec2Poly; 3]) {
    let f = |x: f64| if BOUND { x.abs() } else { x };
    let minus = |a: f64, b: f64| if BOUND { a + b } else { a - b };
    // Each row: x = x0 + x1 τ, y = y0 + y1 τ, w = w0 + w1 τ + w2 τ².
    let (rd0, rd1) = (f(d_radius.0), f(d_radius.1));
    // A closure called three times rather than `array::map`, which the optimiser does not
    // always inline (measured: a quarter of this function's instructions).
    let row = |m: &RelativeMotion| {
        let [x0, y0] = [f(m.position[0]), f(m.position[1])];
        let [x1, y1] = [f(m.velocity[0]), f(m.velocity[1])];
        let (r0, r1) = (f(m.radius.0), f(m.radius.1));
        let w = [
            minus(x0 * x0 + y0 * y0, r0 * r0) + rd0 * rd0,
            2.0 * (minus(x0 * x1 + y0 * y1, r0 * r1) + rd0 * rd1),
            minus(x1 * x1 + y1 * y1, r1 * r1) + rd1 * rd1,
        ];
        [[x0, x1, 0.0], [y0, y1, 0.0], w]
    };
    let polys = [row(&rows[0]), row(&rows[1]), row(&rows[2])];
    let [[ax, ay, aw], [bx, by, bw], [cx, cy, cw]] = polys;
    // Linear × quadratic and linear × linear products, written out.
    let lq = |l: Vec2Poly, q: Vec2Poly| {
        [l[0] * q[0], l[0] * q[1] + l[1] * q[0], l[0] * q[2] + l[1] * q[1], l[1] * q[2]]
    };
    let ll = |a: Vec2Poly, b: Vec2Poly| [a[0] * b[0], a[0] * b[1] + a[1] * b[0], a[1] * b[1]];
    let minus4 = |p: [f64; 4], q: [f64; 4]| {
        [minus(p[0], q[0]), minus(p[1], q[1]), minus(p[2], q[2]), minus(p[3], q[3])]
    };
    let m1 = minus4(lq(by, cw), lq(cy, bw));
    let m2 = minus4(lq(bx, cw), lq(cx, bw));
    let m3 = {
        let (p, q) = (ll(bx, cy), ll(by, cx));
        [minus(p[0], q[0]), minus(p[1], q[1]), minus(p[2], q[2])]
    };
    // x_a m1 − y_a m2 (linear × cubic) + w_a m3 (quadratic × quadratic).
    let mut out = [0.0; 5];
    for k in 0..4 {
        out[k] += minus(ax[0] * m1[k], ay[0] * m2[k]);
        out[k + 1] += minus(ax[1] * m1[k], ay[1] * m2[k]);
    }
    for i in 0..3 {
        for j in 0..3 {
            out[i + j] += aw[i] * m3[j];
        }
    }
    (out, [ax, ay, aw], [bx, by, bw], [cx, cy, cw])
}

/// A polynomial of degree ≤ 2 in `τ` (a linear one has a zero last coefficient).
type Vec2Poly = [f64; 3];

/// `p(τ)` by Horner's rule.
#[inline]
pub(crate) fn eval(p: &[f64], t: f64) -> f64 {
    p.iter().rev().fold(0.0, |acc, &c| acc * t + c)
}

/// The number of coefficients up to the last one that is not zero.
///
/// Nothing smaller is dropped: how much a coefficient matters depends on the powers of `τ`
/// it is multiplied by, not on its size next to the others (a quartic term of 10⁻¹⁴ against
/// a constant of 5 is worth 0.01 at τ = 1 000). Rounding-level coefficients are set to 0
/// beforehand by [`without_noise`], from their own magnitudes.
fn degree_len(p: &[f64]) -> usize {
    p.iter().rposition(|&c| c != 0.0).map_or(0, |last| last + 1)
}

/// `p'` (as many coefficients as `p`, the last one 0).
fn derivative(p: &[f64; 5], len: usize) -> [f64; 5] {
    let mut d = [0.0; 5];
    for k in 1..len {
        d[k - 1] = k as f64 * p[k];
    }
    d
}

/// Steps of [`bracketed_root`] before its bisections turn to the exponent: more than the
/// Newton steps and halvings of any bracket within a few orders of magnitude of its root.
const LINEAR_STEPS: usize = 64;

/// The root of `p` in `[lo, hi]` (`0 ≤ lo < hi`), where `p` is monotone with a sign change:
/// Newton steps kept inside a shrinking bracket, bisection when a step would leave it or
/// shrinks too slowly (as in `rtsafe`). Far from the root, Newton's steps on a cubic shrink by
/// only a third each, and a bracket many orders of magnitude wider than the root (a small
/// root next to large ones) would take hundreds of them. After [`LINEAR_STEPS`] without
/// convergence, a bracket wider than a factor of 4 is bisected in the exponent (the midpoint
/// of the two bit patterns), which narrows any bracket of doubles to a factor of 4 in at most
/// 64 more steps. (Not from the start: from a bracket `[0, 1]` around a root near 1 it would
/// first try 10⁻¹⁵⁴, 10⁻⁷⁷, ...)
fn bracketed_root(p: &[f64], lo: f64, hi: f64) -> f64 {
    // Far more than the bisections any bracket of doubles needs.
    const MAX_STEPS: usize = 2_200;
    let mut slope_coefficients = [0.0; 4];
    for k in 1..p.len() {
        slope_coefficients[k - 1] = k as f64 * p[k];
    }
    let d = &slope_coefficients[..p.len().saturating_sub(1)];
    let rising = eval(p, hi) > eval(p, lo);
    let (mut lo, mut hi) = (lo, hi);
    let midpoint = |lo: f64, hi: f64, steps: usize| {
        if steps >= LINEAR_STEPS && hi > 4.0 * lo {
            // Non-negative doubles are ordered like their bit patterns.
            f64::from_bits(lo.to_bits() / 2 + hi.to_bits() / 2)
        } else {
            0.5 * (lo + hi)
        }
    };
    let mut x = midpoint(lo, hi, 0);
    // The last two step lengths: a Newton step must be under half the one before the last.
    let (mut step, mut step_before) = (hi - lo, hi - lo);
    for steps in 0..MAX_STEPS {
        let value = eval(p, x);
        if value == 0.0 {
            return x;
        }
        if (value > 0.0) == rising {
            hi = x;
        } else {
            lo = x;
        }
        let slope = eval(d, x);
        let newton = x - value / slope;
        let newton_step = (newton - x).abs();
        if slope != 0.0 && newton > lo && newton < hi && newton_step < 0.5 * step_before {
            // Converged when the step is at the last bits of x.
            if newton_step <= 2.0 * f64::EPSILON * x {
                return newton;
            }
            (step_before, step) = (step, newton_step);
            x = newton;
        } else {
            x = midpoint(lo, hi, steps);
            (step_before, step) = (step, hi - x);
        }
        // Down to the last bits: the end where `p` has its sign after the root, for a
        // certificate the first time it has failed.
        if hi - lo <= 4.0 * f64::EPSILON * hi {
            return hi;
        }
        // Down to adjacent subnormals, whose spacing is far above the last bits: the root
        // rounded to the nearer one (where |p| is smaller; p is monotone and nearly linear).
        if hi - lo <= f64::from_bits(1) {
            return if eval(p, lo).abs() < eval(p, hi).abs() { lo } else { hi };
        }
    }
    x
}

/// `⌊log₂ |x|⌋` for a finite `x` that is not 0, subnormals included: `2^e ≤ |x| < 2^(e + 1)`.
#[inline]
pub(super) fn floor_log2(x: f64) -> i32 {
    let bits = x.to_bits() & !(1 << 63);
    let biased = (bits >> 52) as i32;
    if biased == 0 {
        // Subnormal: the value is the mantissa times 2^−1074.
        63 - bits.leading_zeros() as i32 - 1074
    } else {
        biased - 1023
    }
}

/// `2^e` as the nearest double in the direction that keeps it a bound from above on values
/// of that size: `f64::MAX` past the largest power, the smallest subnormal below the range.
pub(super) fn power_of_two(e: i32) -> f64 {
    if e > 1023 {
        f64::MAX
    } else if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1 << (e.max(-1074) + 1074))
    }
}

/// The exponent of a power of two at or above every root's absolute value: Fujiwara's bound,
/// twice the largest `|p_k / lead|^(1 / (n − k))` (the constant term halved first), with each
/// ratio rounded up to a power of two from the exponents alone (no division, no `powf`: it is
/// at most 4 times Fujiwara's, and strictly above every root). Unlike Cauchy's
/// `1 + max |p_k / lead|`, it scales with the roots when time is measured in other units.
/// `p`'s coefficients must be finite, its last one not 0; `None` when every root is 0.
fn root_bound_exponent(p: &[f64]) -> Option<i32> {
    let n = p.len() - 1;
    // 2^e_lead ≤ |lead|.
    let lead = floor_log2(p[n]);
    let mut largest = None;
    for (k, &c) in p[..n].iter().enumerate() {
        if c != 0.0 {
            // |c / lead| < 2^(e_c + 1 − e_lead), its (n − k)-th root below 2^⌈(e_c + 1 − e_lead) / (n − k)⌉.
            let ratio = floor_log2(c) + 1 - lead - i32::from(k == 0);
            let degree = n as i32 - k as i32;
            let root = ratio.div_euclid(degree) + i32::from(ratio.rem_euclid(degree) != 0);
            largest = Some(largest.map_or(root, |l: i32| l.max(root)));
        }
    }
    largest.map(|l| l + 1)
}

/// [`root_bound_exponent`]'s power of two, as the time unit of [`first_failure`]; `None` if
/// it would leave the range where the rescaled coefficients stay normal numbers, or where the
/// smallest root, measured in that unit, would be too small to be a normal number.
fn root_bound_unit(p: &[f64]) -> Option<f64> {
    let exponent = root_bound_exponent(p)?;
    // Kept where 2^(4e) and its inverse are normal numbers.
    if !(-250..=250).contains(&exponent) {
        return None;
    }
    let unit = power_of_two(exponent);
    let mut power = 1.0;
    let mut largest = 0.0f64;
    for &c in p {
        let scaled = c * power;
        if c != 0.0 && !scaled.is_normal() {
            return None;
        }
        largest = largest.max(scaled.abs());
        power *= unit;
    }
    // Every root is at least min_k |p₀ / p_k|^(1/k) / 2 (Fujiwara's bound on the reversed
    // polynomial), so at least |p₀| / (2 · largest) when that is below 1.
    if p[0] != 0.0 && p[0].abs() < largest * 2f64.powi(-1000) {
        return None;
    }
    Some(unit)
}

/// The sorted real roots of `p` (with `len` significant coefficients) in `(lo, hi)`, at most
/// 4, each sign change once.
fn roots_between(p: &[f64; 5], len: usize, lo: f64, hi: f64) -> ([f64; 4], usize) {
    let mut roots = [0.0; 4];
    let mut count = 0;
    match len {
        0 | 1 => {}
        2 => {
            let r = -p[0] / p[1];
            if r > lo && r < hi {
                roots[0] = r;
                count = 1;
            }
        }
        _ => {
            let d = derivative(p, len);
            let (critical, m) = roots_between(&d, degree_len(&d[..len - 1]), lo, hi);
            let mut left = lo;
            for k in 0..=m {
                let right = if k < m { critical[k] } else { hi };
                let (a, b) = (eval(&p[..len], left), eval(&p[..len], right));
                if a == 0.0 && left > lo {
                    roots[count] = left;
                    count += 1;
                } else if (a < 0.0 && b > 0.0) || (a > 0.0 && b < 0.0) {
                    roots[count] = bracketed_root(&p[..len], left, right);
                    count += 1;
                }
                left = right;
            }
        }
    }
    (roots, count)
}

/// The first `τ` in `[0, limit]` at which the certificate `p` (valid while `<= 0`) becomes
/// positive, or `INFINITY` if it does not fail by `limit`. `now_invalid` is the exact sign test
/// at `τ = 0`: when it says the certificate already fails and the polynomial is not
/// decreasing, the event is now; when it says valid, a rounding-positive constant term is read
/// as 0. Coefficients at rounding level must have been set to 0 ([`without_noise`]): every
/// other one is taken as it is.
pub(crate) fn first_failure(p: &Quartic, now_invalid: bool, limit: f64) -> f64 {
    let mut p = *p;
    // The sign just after τ = 0 beyond the constant term: the first derivative that is not 0.
    let rising = p[1..].iter().find(|&&c| c != 0.0).map(|&c| c > 0.0);
    if now_invalid {
        if rising != Some(false) {
            return 0.0;
        }
    } else if p[0] > 0.0 {
        p[0] = 0.0;
    }
    if p[0] == 0.0 && rising == Some(true) {
        // Co-circular now and failing right after.
        return 0.0;
    }
    let len = degree_len(&p);
    if len <= 1 {
        return f64::INFINITY;
    }
    // Descartes' rule of signs: no sign change in the coefficients, no positive root (the
    // common case for an edge whose quadrilateral is not about to become co-circular).
    if p[..len].iter().all(|&c| c <= 0.0) {
        return f64::INFINITY;
    }
    // Measured in units of a bound on the roots (a power of two: the rescaling is exact),
    // each coefficient is the size of its term over the interval searched, so the root
    // isolation's arithmetic (Newton steps, brackets at the last bits) works on numbers of
    // comparable size whatever the time scale of the motion.
    let (unit, bound) = if let Some(unit) = root_bound_unit(&p[..len]) {
        (unit, (limit / unit).min(1.0))
    } else {
        // Out of range (not met with physical inputs): τ itself, up to the same bound (capped
        // at the largest double: roots beyond it are beyond any time). Horner's rule on a
        // finite τ never makes a NaN; where it overflows, the infinity has the sign of the
        // value, which is all the isolation below reads.
        let exponent = root_bound_exponent(&p[..len]).unwrap_or(-1074);
        (1.0, power_of_two(exponent).min(limit))
    };
    let mut power = 1.0;
    for c in &mut p[..len] {
        *c *= power;
        power *= unit;
    }
    let d = derivative(&p, len);
    let (critical, m) = roots_between(&d, degree_len(&d[..len - 1]), 0.0, bound);
    let mut left = 0.0;
    for k in 0..=m {
        let right = if k < m { critical[k] } else { bound };
        let (a, b) = (eval(&p[..len], left), eval(&p[..len], right));
        if a <= 0.0 && b > 0.0 {
            let root = if a == 0.0 && left > 0.0 { left } else { bracketed_root(&p[..len], left, right) };
            return root * unit;
        }
        left = right;
    }
    f64::INFINITY
}

/// Whether `p` certainly has no root in `(0, limit)`: Descartes' rule of signs applied to
/// `(1 + x)⁴ p(limit · x / (1 + x))`, which maps `(0, limit)` onto `(0, ∞)`; no sign change in
/// its coefficients means no root there. Five coefficients and a sign count: the cheap test
/// that lets most edges skip root isolation. An infinite `limit` (every particle at rest) is
/// the whole of `(0, ∞)`, where the rule applies to `p` itself. It may answer `false` when in
/// doubt (a coefficient within its rounding error of 0, an overflow or underflow), never
/// `true` wrongly.
// Always inlined (its cheap first test decides nearly every call; measured: -3 % instructions
// per collision), the rest out of line.
#[allow(clippy::inline_always)]
#[inline(always)]
pub(crate) fn no_root_before(p: &Quartic, limit: f64) -> bool {
    // Cheaper first, and enough for most certificates over a short horizon: on [0, limit],
    // p(τ) ≤ p₀ + Σ |p_k| limit^k, negative when the constant term dominates (with a margin
    // far above the sum's rounding). Sound only where nothing overflows or underflows
    // unseen: the powers of the limit stay normal numbers between 10⁻²⁴⁰ and 10²⁴⁰ (an
    // infinite term fails the comparison), and a product that rounds to a subnormal is off
    // by at most 2⁻¹⁰⁷⁵, far below the margin on a normal p₀.
    if p[0] <= -f64::MIN_POSITIVE && (1e-60..=1e60).contains(&limit) {
        let mut power = 1.0;
        let mut rest = 0.0;
        for &c in &p[1..] {
            power *= limit;
            rest += c.abs() * power;
        }
        if rest < -p[0] * (1.0 - 1e-12) {
            return true;
        }
    }
    no_sign_change_before(p, limit)
}

/// The transformed-coefficient sign test of [`no_root_before`], out of line: called only when
/// the dominant-constant bound is not enough. A transformed coefficient whose sign rounding
/// could have changed answers "maybe a root", and so does any overflow: the caller's root
/// isolation then decides.
#[inline(never)]
fn no_sign_change_before(p: &Quartic, limit: f64) -> bool {
    // x^k (1 + x)^(4 − k), binomial rows.
    const BINOMIAL: [[f64; 5]; 5] = [
        [1.0, 4.0, 6.0, 4.0, 1.0],
        [1.0, 3.0, 3.0, 1.0, 0.0],
        [1.0, 2.0, 1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0, 0.0],
    ];
    // Above the rounding lost by terms that underflowed (see below).
    const UNDERFLOW: f64 = 1e-319;
    if limit == f64::INFINITY {
        // The whole of (0, ∞): Descartes' rule on p itself.
        return p[0] < 0.0 && p[1..].iter().all(|&c| c <= 0.0);
    }
    let mut q = [0.0; 5];
    // Σ |p_k limit^k|: each q_i is a sum of at most 5 of these terms, times binomials up to
    // 6, each term rounded at most 5 times and the sum 4 times.
    let mut terms = 0.0;
    let mut scale = 1.0;
    for k in 0..5 {
        let c = p[k] * scale;
        terms += c.abs();
        for j in 0..5 - k {
            q[k + j] += c * BINOMIAL[k][j];
        }
        scale *= limit;
    }
    // The rounding error bound of every q_i (below): 6 · 10 roundings of 2⁻⁵³ relative, with
    // room to spare, plus what terms that underflowed to subnormals lost (at most 2⁻¹⁰⁷⁵
    // each, 150 of them with the binomials: below 2⁻¹⁰⁶⁷). That holds while the powers
    // themselves are normal numbers (checked on limit⁵, stricter than needed): a power that
    // underflowed would lose its whole term. An overflow makes the bound infinite or NaN,
    // and nothing passes.
    if scale.is_nan() || scale < f64::MIN_POSITIVE {
        return false;
    }
    let rounding = 64.0 * f64::EPSILON * terms + UNDERFLOW;
    let magnitude = q.iter().fold(0.0f64, |m, c| m.max(c.abs()));
    // The constant term is the certificate now: however small, it must be negative, or a
    // failure within rounding of now cannot be excluded.
    if q[0] >= 0.0 || q[0].abs() <= 1e-12 * magnitude {
        return false;
    }
    // With q₀ < 0, no sign change means every q_i negative. However small, a coefficient of
    // the other sign may bring a root (a tiny last one is p(limit) itself, at the end of
    // the interval), and one that rounding could have made or unmade is not trusted.
    q.iter().all(|&c| c < -rounding)
}

#[cfg(test)]
mod exact_oracle;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_upward_crossing() {
        // (τ − 1)(τ − 2)(τ − 3)(τ − 4), negative on (1, 2): first upward crossing at 2.
        let p = [24.0, -50.0, 35.0, -10.0, 1.0];
        assert!((first_failure(&[-24.0, 50.0, -35.0, 10.0, -1.0], false, f64::INFINITY) - 1.0).abs() < 1e-12);
        // p itself is positive at 0 (invalid) and falling: valid from 1, fails again at 2.
        assert!((first_failure(&p, true, f64::INFINITY) - 2.0).abs() < 1e-12);
        // Not by 1.5.
        assert!(first_failure(&p, true, 1.5).is_infinite());
    }

    /// A deterministic sequence of uniform numbers in [0, 1) (a linear congruential generator
    /// seeded with `seed`), for the randomised tests below.
    fn uniform(mut seed: u64) -> impl FnMut() -> f64 {
        move || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// The first upward crossing of `p` on `[0, limit]` by a scan of a fine grid and bisection
    /// (the test's own oracle, for polynomials whose roots are well apart).
    fn first_crossing_by_scan(p: &Quartic, limit: f64) -> f64 {
        let steps = 100_000;
        let mut left = 0.0;
        for i in 1..=steps {
            let right = limit * f64::from(i) / f64::from(steps);
            if eval(p, left) <= 0.0 && eval(p, right) > 0.0 {
                let (mut lo, mut hi) = (left, right);
                for _ in 0..200 {
                    let mid = 0.5 * (lo + hi);
                    if eval(p, mid) > 0.0 { hi = mid } else { lo = mid }
                }
                return hi;
            }
            left = right;
        }
        f64::INFINITY
    }

    /// A cooling gas's certificate, as recorded: the constant term −5.3 and the quartic one
    /// −1.4·10⁻¹⁴, whose term is still −0.02 at the root near τ = 1 076. The root isolation
    /// used to drop coefficients below 10⁻¹⁴ of the largest, and found the root at 1 072.6: a
    /// flip three time units early, and then missed collisions.
    #[test]
    // The recorded coefficients, exactly as printed.
    #[allow(clippy::unreadable_literal)]
    fn a_small_high_coefficient_counts_far_away() {
        let p = [
            -5.332965967186382,
            0.0035264988276837977,
            1.3850813776744398e-6,
            -3.506631600070534e-11,
            -1.406406239473453e-14,
        ];
        let horizon = 1254.4643711031008;
        let expected = first_crossing_by_scan(&p, horizon);
        assert!((1075.0..1076.0).contains(&expected), "{expected}");
        let found = first_failure(&p, false, horizon);
        assert!((found - expected).abs() <= 1e-9 * expected, "{found} vs {expected}");
    }

    /// Quartics −c (τ − a)(τ − b)((τ − m)² + q²), valid now and first failing at `a`, with
    /// every length of time from 10⁻⁶ to 10⁸, every overall size, and the complex roots near
    /// or far: the root is found to within rounding, with and without a horizon, and never
    /// when the horizon ends before it.
    #[test]
    fn roots_are_found_at_every_time_scale() {
        let mut next = uniform(7u64);
        for _ in 0..5_000 {
            let scale = 10f64.powf(next() * 14.0 - 6.0);
            let size = 10f64.powf(next() * 20.0 - 10.0);
            let a = scale * (0.1 + next());
            let b = a * (1.5 + 2.0 * next());
            // The complex pair near the real roots, or up to 10⁸ times farther (a bracket
            // far wider than the root it holds).
            let far = 10f64.powf(if next() < 0.5 { 0.0 } else { next() * 8.0 });
            let (m, q) = (far * scale * (4.0 * next() - 2.0), far * scale * (0.1 + 2.0 * next()));
            // Expanded from the roots: (τ² − (a + b) τ + a b)(τ² − 2 m τ + m² + q²).
            let (s1, p1) = (a + b, a * b);
            let (s2, p2) = (2.0 * m, m * m + q * q);
            let p: Quartic =
                [p1 * p2, -(s1 * p2 + p1 * s2), p2 + s1 * s2 + p1, -(s1 + s2), 1.0].map(|c| -size * c);
            for limit in [f64::INFINITY, 2.0 * b] {
                let found = first_failure(&p, false, limit);
                assert!((found - a).abs() <= 1e-8 * a, "{p:?}, limit {limit}: {found}, expected {a}");
            }
            assert!(first_failure(&p, false, 0.9 * a).is_infinite(), "{p:?}: before {}", 0.9 * a);
        }
    }

    /// The power of two bounds every root, and is within 32 of the largest: quartics built
    /// from their roots (real ones of either sign, a complex pair), at every time scale.
    #[test]
    fn the_root_bound_is_a_bound_and_tight() {
        let mut next = uniform(11u64);
        for _ in 0..10_000 {
            let scale = 10f64.powf(next() * 30.0 - 15.0);
            let [a, b, m, q]: [f64; 4] =
                std::array::from_fn(|_| scale * (2.0 * next() - 1.0) * 10f64.powf(-3.0 * next()));
            let (s1, p1) = (a + b, a * b);
            let (s2, p2) = (2.0 * m, m * m + q * q);
            let size = 10f64.powf(next() * 20.0 - 10.0);
            let p: Quartic =
                [p1 * p2, -(s1 * p2 + p1 * s2), p2 + s1 * s2 + p1, -(s1 + s2), 1.0].map(|c| size * c);
            let largest = a.abs().max(b.abs()).max(p2.sqrt());
            let unit = root_bound_unit(&p).expect("in range");
            assert!(unit >= largest * (1.0 - 1e-12), "{p:?}: {unit} < {largest}");
            // |p_k / lead| ≤ C(4, k) R^(4 − k), so Fujiwara's bound is at most 8 R, and the
            // rounding up to powers of two at most 4 times that.
            assert!(unit <= 32.0 * largest, "{p:?}: {unit} ≫ {largest}");
        }
    }

    /// A subnormal leading coefficient is measured exactly too: −10⁻³⁰⁰ + 10⁻³¹⁰ τ⁴, root at
    /// 10^2.5, is rescaled and solved.
    #[test]
    fn subnormal_coefficients_are_rescaled() {
        let p = [-1e-300, 0.0, 0.0, 0.0, 1e-310];
        let unit = root_bound_unit(&p).expect("2^10 keeps every coefficient normal");
        assert!(unit > 10f64.powf(2.5));
        let expected = 10f64.powf(2.5);
        let found = first_failure(&p, false, f64::INFINITY);
        assert!((found - expected).abs() <= 1e-9 * expected, "{found} vs {expected}");
    }

    /// Whether `root` is the first upward crossing of `p`: negative just before it and on a
    /// logarithmic grid from 10⁻³⁰⁰ (or far below the root) up to there, positive just after.
    fn is_first_crossing(p: &Quartic, root: f64) -> bool {
        let before = root * (1.0 - 1e-9);
        let grid_is_negative = (0..=2_000).all(|i| {
            let (low, high) = ((before * 1e-6).min(1e-300).ln(), before.ln());
            let t = (low + (high - low) * f64::from(i) / 2_000.0).exp().min(before);
            eval(p, t) <= 0.0
        });
        grid_is_negative && eval(p, root * (1.0 + 1e-9)) > 0.0
    }

    /// Coefficients so far apart that no power-of-two time unit keeps them all normal: the
    /// root is searched in plain `τ`, up to a bound that neither overflows nor rounds onto
    /// the root (Cauchy's did both). Cases found by an independent fuzz with an exact
    /// Sturm-sequence oracle; the first three have closed forms.
    #[test]
    #[allow(clippy::unreadable_literal)] // coefficients recorded to the last bit
    fn extreme_coefficients_are_solved_unscaled() {
        let cases: [(Quartic, bool, f64, Option<f64>); 5] = [
            // 10¹⁰ = 10⁻³⁰⁰ τ⁴: τ = 10^77.5.
            ([-1e10, 0.0, 0.0, 0.0, 1e-300], false, f64::INFINITY, Some(10f64.powf(77.5))),
            // 10²⁰⁰ = 10⁻¹⁰⁰ τ.
            ([-1e200, 1e-100, 0.0, 0.0, 0.0], false, f64::INFINITY, Some(1e300)),
            (
                [-1.3253306542510808e-194, 6.511575336432376e-288, 0.0, 0.0, 0.0],
                false,
                4.070691302105753e93,
                Some(1.3253306542510808e-194 / 6.511575336432376e-288),
            ),
            // A root that is a subnormal number, 10⁻³⁰⁰ / 3.06·10⁹ (the other terms are below
            // the smallest double there), and huge ones: in units of a bound on those, it
            // would be below the smallest double.
            (
                [
                    -1e-300,
                    3058010609.2159386,
                    1.7639639421446672e-115,
                    -1.2894790431378367e-204,
                    -4.4949273198605625e-131,
                ],
                false,
                f64::INFINITY,
                Some(1e-300 / 3058010609.2159386),
            ),
            // Failing now but falling, then rising again through a root near 1.2·10⁻¹⁶.
            (
                [
                    1.2949616674145592e-298,
                    -3.8227646830627566e255,
                    -5.59931869621531e225,
                    2.491202488817602e287,
                    2.7944397646091186e-246,
                ],
                true,
                f64::INFINITY,
                None,
            ),
        ];
        for (p, now_invalid, limit, closed_form) in cases {
            assert!(root_bound_unit(&p[..degree_len(&p)]).is_none(), "{p:?} is not an extreme case");
            let found = first_failure(&p, now_invalid, limit);
            assert!(found.is_finite() && found > 0.0, "{p:?}: {found}");
            if let Some(expected) = closed_form {
                assert!((found - expected).abs() <= 1e-12 * expected, "{p:?}: {found} vs {expected}");
            }
            let mut past_now = p;
            past_now[0] = past_now[0].min(0.0);
            assert!(is_first_crossing(&past_now, found), "{p:?}: {found}");
        }
    }

    /// An infinite horizon (every particle at rest) is all of time, and a horizon whose powers
    /// overflow or underflow proves nothing: 0 · ∞ is NaN, and a NaN or a lost term once read
    /// as "no root" (cases from the same fuzz).
    #[test]
    #[allow(clippy::unreadable_literal)] // coefficients recorded to the last bit
    fn the_horizon_test_survives_infinities() {
        // −1 + τ², −1 − τ² + τ⁴: roots at 1 and at 1.27.
        assert!(!no_root_before(&[-1.0, 0.0, 1.0, 0.0, 0.0], f64::INFINITY));
        assert!(!no_root_before(&[-1.0, 0.0, -1.0, 0.0, 1.0], f64::INFINITY));
        assert!(no_root_before(&[-1.0, 0.0, -1.0, 0.0, -1.0], f64::INFINITY));
        // Root at 10³⁰⁰, limit^2 overflows.
        assert!(!no_root_before(&[-1e200, 1e-100, 0.0, 0.0, 0.0], 2e300));
        // limit³ underflows, yet the cubic term brings a root at 2.5·10⁻¹⁵².
        let p = [
            -7.363059800360647e-236,
            -5.865724626820871e-130,
            -4.615306091895865e-55,
            4.5755429225245804e219,
            1.3707554209204294e35,
        ];
        let limit = 5.049347113614026e-152;
        assert!(eval(&p, limit) > 0.0);
        assert!(!no_root_before(&p, limit));
    }

    #[test]
    fn descartes_on_the_interval() {
        // −1 + τ² has its root at 1.
        let p = [-1.0, 0.0, 1.0, 0.0, 0.0];
        assert!(no_root_before(&p, 0.9));
        assert!(!no_root_before(&p, 1.1));
        // −(τ − 1)(τ − 2)(τ − 3)(τ − 4): valid now, roots from 1.
        let p = [-24.0, 50.0, -35.0, 10.0, -1.0];
        assert!(no_root_before(&p, 0.5));
        assert!(!no_root_before(&p, 2.5));
        // A constant term at rounding level proves nothing.
        assert!(!no_root_before(&[-1e-17, 1.0, 0.0, 0.0, 0.0], 0.5));
        assert!(!no_root_before(&[24.0, -50.0, 35.0, -10.0, 1.0], 0.5));
    }

    #[test]
    fn no_root_before_never_claims_a_sign_change_away() {
        // Random quartics (coefficients spread over several decades, both signs) and horizons:
        // whenever the test says "no root before the limit", p stays negative on a fine grid
        // of [0, limit].
        let mut next = uniform(99u64);
        let mut claimed = 0;
        for _ in 0..20_000 {
            let p: Quartic = std::array::from_fn(|_| (next() * 2.0 - 1.0) * 10f64.powf(next() * 6.0 - 3.0));
            let limit = 10f64.powf(next() * 4.0 - 2.0);
            if no_root_before(&p, limit) {
                claimed += 1;
                for i in 0..=400 {
                    let t = limit * f64::from(i) / 400.0;
                    assert!(eval(&p, t) < 0.0, "{p:?} limit {limit}: p({t}) = {}", eval(&p, t));
                }
            }
        }
        assert!(claimed > 1_000, "{claimed}");
    }

    #[test]
    fn a_touching_root_is_not_a_failure() {
        // −(τ − 1)²: touches 0 at 1, never positive.
        assert!(first_failure(&[-1.0, 2.0, -1.0, 0.0, 0.0], false, f64::INFINITY).is_infinite());
        // −(τ − 1)² (τ − 3)... sign flips at 3 only: −(τ²−2τ+1)(τ−3) = −τ³+5τ²−7τ+3 at 0 = 3 > 0;
        // use its negation times −1 to start valid: (τ−1)²(τ−3) = τ³ − 5τ² + 7τ − 3.
        assert!((first_failure(&[-3.0, 7.0, -5.0, 1.0, 0.0], false, f64::INFINITY) - 3.0).abs() < 1e-9);
    }

    #[test]
    fn the_certificate_matches_the_determinant_at_any_time() {
        let rows = [
            RelativeMotion { position: [1.0, 0.2], velocity: [0.3, -0.1], radius: (0.2, 0.01) },
            RelativeMotion { position: [-0.4, 1.1], velocity: [-0.2, 0.5], radius: (0.3, 0.0) },
            RelativeMotion { position: [-0.9, -0.7], velocity: [0.1, 0.2], radius: (0.25, 0.02) },
        ];
        let d = (0.15, 0.005);
        let (p, _) = certificate(rows, d);
        for t in [0.0, 0.3, 1.7, -2.0] {
            let m: Vec<[f64; 3]> = rows
                .iter()
                .map(|r| {
                    let x = r.position[0] + r.velocity[0] * t;
                    let y = r.position[1] + r.velocity[1] * t;
                    let rr = r.radius.0 + r.radius.1 * t;
                    let rd = d.0 + d.1 * t;
                    [x, y, x * x + y * y - rr * rr + rd * rd]
                })
                .collect();
            let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
                - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
            assert!((eval(&p, t) - det).abs() < 1e-12, "{t}: {} vs {det}", eval(&p, t));
        }
    }

    #[test]
    fn the_certificate_of_a_static_quad_is_constant() {
        let row =
            |x: f64, y: f64| RelativeMotion { position: [x, y], velocity: [0.0; 2], radius: (0.1, 0.0) };
        let (p, _) = certificate([row(1.0, 0.0), row(0.0, 1.0), row(-1.0, 0.0)], (0.1, 0.0));
        assert!(p[1..].iter().all(|&c| c == 0.0));
        // d = origin is inside the circle through the three: invalid (positive).
        assert!(p[0] > 0.0);
    }

    /// The site `(position, velocity, radius, rate)` rows of four sites relative to the last.
    fn rows_relative_to_last(
        sites: [([f64; 2], [f64; 2], f64, f64); 4],
    ) -> ([RelativeMotion; 3], (f64, f64)) {
        let (xd, vd, rd, sd) = sites[3];
        let row = |(x, v, r, s): ([f64; 2], [f64; 2], f64, f64)| RelativeMotion {
            position: [x[0] - xd[0], x[1] - xd[1]],
            velocity: [v[0] - vd[0], v[1] - vd[1]],
            radius: (r, s),
        };
        ([row(sites[0]), row(sites[1]), row(sites[2])], (rd, sd))
    }

    #[test]
    fn a_cyclic_shift_of_the_four_sites_flips_the_sign() {
        let sites = [
            ([1.0, 0.2], [0.3, -0.1], 0.2, 0.01),
            ([-0.4, 1.1], [-0.2, 0.5], 0.3, 0.0),
            ([-0.9, -0.7], [0.1, 0.2], 0.25, 0.02),
            ([0.1, -0.2], [0.05, 0.0], 0.15, 0.005),
        ];
        let (rows, d) = rows_relative_to_last(sites);
        let (p, _) = certificate(rows, d);
        let shifted = [sites[1], sites[2], sites[3], sites[0]];
        let (rows, d) = rows_relative_to_last(shifted);
        let (q, _) = certificate(rows, d);
        for t in [0.0, 0.4, 1.3] {
            assert!((eval(&p, t) + eval(&q, t)).abs() < 1e-12, "{t}");
        }
    }

    #[test]
    fn magnitudes_bound_the_coefficients() {
        // A deterministic spread of inputs (a small linear congruential sequence).
        let mut unit = uniform(12345u64);
        let mut next = || unit() * 2.0 - 1.0;
        for _ in 0..1000 {
            let sites: [([f64; 2], [f64; 2], f64, f64); 4] =
                std::array::from_fn(|_| ([next(), next()], [next(), next()], next().abs(), next() * 0.01));
            let (rows, d) = rows_relative_to_last(sites);
            let (p, _) = certificate(rows, d);
            let m = certificate_magnitudes(rows, d);
            for k in 0..5 {
                assert!(p[k].abs() <= m[k] * (1.0 + 1e-12), "{k}: {p:?} {m:?}");
            }
        }
    }

    #[test]
    fn noise_is_dropped_and_signal_kept() {
        // A rectangle translating as a whole: co-circular at all times, its certificate zero up
        // to rounding (coordinates that are not binary fractions).
        let v = [0.3, 0.1];
        let sites = [
            ([0.1, 0.7], v, 0.3, 0.0),
            ([1.1, 0.7], v, 0.3, 0.0),
            ([1.1, 1.3], v, 0.3, 0.0),
            ([0.1, 1.3], v, 0.3, 0.0),
        ];
        let (rows, d) = rows_relative_to_last(sites);
        let (p, _) = certificate(rows, d);
        assert_eq!(without_noise(&p, &certificate_magnitudes(rows, d)), None, "{p:?}");
        // The same rectangle widening (left side moving left, right side right): still
        // co-circular at all times.
        let (l, r) = ([-0.3, 0.1], [0.3, 0.1]);
        let sites = [
            ([0.1, 0.7], l, 0.3, 0.0),
            ([1.1, 0.7], r, 0.3, 0.0),
            ([1.1, 1.3], r, 0.3, 0.0),
            ([0.1, 1.3], l, 0.3, 0.0),
        ];
        let (rows, d) = rows_relative_to_last(sites);
        let (p, _) = certificate(rows, d);
        assert_eq!(without_noise(&p, &certificate_magnitudes(rows, d)), None, "{p:?}");
        // One corner moving inwards: a real certificate, kept as it is.
        let sites = [
            ([0.1, 0.7], [0.0; 2], 0.3, 0.0),
            ([1.1, 0.7], [-0.2, 0.1], 0.3, 0.0),
            ([1.1, 1.3], [0.0; 2], 0.3, 0.0),
            ([0.1, 1.3], [0.0; 2], 0.3, 0.0),
        ];
        let (rows, d) = rows_relative_to_last(sites);
        let (p, _) = certificate(rows, d);
        let clean = without_noise(&p, &certificate_magnitudes(rows, d)).expect("a real certificate");
        assert!(clean[1] != 0.0 && clean[1] == p[1], "{p:?} {clean:?}");
    }
}
