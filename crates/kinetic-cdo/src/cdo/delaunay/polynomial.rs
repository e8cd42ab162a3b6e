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

/// The number of coefficients up to the last one that is not negligible (relative to the
/// largest).
fn degree_len(p: &[f64]) -> usize {
    let scale = p.iter().fold(0.0f64, |m, c| m.max(c.abs()));
    let mut len = p.len();
    while len > 0 && p[len - 1].abs() <= 1e-14 * scale {
        len -= 1;
    }
    len
}

/// `p'` (as many coefficients as `p`, the last one 0).
fn derivative(p: &[f64; 5], len: usize) -> [f64; 5] {
    let mut d = [0.0; 5];
    for k in 1..len {
        d[k - 1] = k as f64 * p[k];
    }
    d
}

/// The root of `p` in `[lo, hi]`, where `p` is monotone with a sign change: Newton steps kept
/// inside a shrinking bracket, bisection when a step would leave it (as in `rtsafe`).
fn bracketed_root(p: &[f64], lo: f64, hi: f64) -> f64 {
    let mut slope_coefficients = [0.0; 4];
    for k in 1..p.len() {
        slope_coefficients[k - 1] = k as f64 * p[k];
    }
    let d = &slope_coefficients[..p.len().saturating_sub(1)];
    let rising = eval(p, hi) > eval(p, lo);
    let (mut lo, mut hi) = (lo, hi);
    let mut x = 0.5 * (lo + hi);
    for _ in 0..100 {
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
        if slope != 0.0 && newton > lo && newton < hi {
            // Converged when the step is at the last bits of x.
            if (newton - x).abs() <= 2.0 * f64::EPSILON * x.abs().max(f64::MIN_POSITIVE) {
                return newton;
            }
            x = newton;
        } else {
            x = 0.5 * (lo + hi);
        }
        if hi - lo <= 4.0 * f64::EPSILON * hi.abs().max(lo.abs()) {
            return hi;
        }
    }
    x
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
/// as 0.
pub(crate) fn first_failure(p: &Quartic, now_invalid: bool, limit: f64) -> f64 {
    let mut p = *p;
    let scale = p.iter().fold(0.0f64, |m, c| m.max(c.abs()));
    if scale == 0.0 {
        return f64::INFINITY;
    }
    // The sign just after τ = 0 beyond the constant term: the first significant derivative.
    let rising = p[1..].iter().find(|c| c.abs() > 1e-14 * scale).is_some_and(|&c| c > 0.0);
    if now_invalid {
        if rising || p[1..].iter().all(|c| c.abs() <= 1e-14 * scale) {
            return 0.0;
        }
    } else if p[0] > 0.0 {
        p[0] = 0.0;
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
    // Cauchy's bound on the roots, or the caller's limit if nearer.
    let lead = p[len - 1];
    let bound = (1.0 + p[..len - 1].iter().fold(0.0f64, |m, c| m.max((c / lead).abs()))).min(limit);
    let d = derivative(&p, len);
    let (critical, m) = roots_between(&d, degree_len(&d[..len - 1]), 0.0, bound);
    let mut left = 0.0;
    for k in 0..=m {
        let right = if k < m { critical[k] } else { bound };
        let (a, b) = (eval(&p[..len], left), eval(&p[..len], right));
        if a <= 0.0 && b > 0.0 {
            return if a == 0.0 && left > 0.0 { left } else { bracketed_root(&p[..len], left, right) };
        }
        left = right;
    }
    f64::INFINITY
}

/// Whether `p` certainly has no root in `(0, limit)`: Descartes' rule of signs applied to
/// `(1 + x)⁴ p(limit · x / (1 + x))`, which maps `(0, limit)` onto `(0, ∞)`; no sign change in
/// its coefficients means no root there. Five coefficients and a sign count: the cheap test
/// that lets most edges skip root isolation.
// Always inlined (its cheap first test decides nearly every call; measured: -3 % instructions
// per collision), the rest out of line.
#[allow(clippy::inline_always)]
#[inline(always)]
pub(crate) fn no_root_before(p: &Quartic, limit: f64) -> bool {
    // Cheaper first, and enough for most certificates over a short horizon: on [0, limit],
    // p(τ) ≤ p₀ + Σ |p_k| limit^k, negative when the constant term dominates (with a margin
    // far above the sum's rounding).
    if p[0] < 0.0 {
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
/// the dominant-constant bound is not enough.
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
    let mut q = [0.0; 5];
    let mut scale = 1.0;
    for k in 0..5 {
        let c = p[k] * scale;
        for j in 0..5 - k {
            q[k + j] += c * BINOMIAL[k][j];
        }
        scale *= limit;
    }
    let magnitude = q.iter().fold(0.0f64, |m, c| m.max(c.abs()));
    // The constant term is the certificate now: however small, it must be negative, or a
    // failure within rounding of now cannot be excluded.
    if q[0] >= 0.0 || q[0].is_nan() || q[0].abs() <= 1e-12 * magnitude {
        return false;
    }
    let mut last = 0.0f64;
    for c in q {
        // Higher coefficients at rounding level carry no sign.
        if c.abs() <= 1e-12 * magnitude {
            continue;
        }
        if last != 0.0 && (c > 0.0) != (last > 0.0) {
            return false;
        }
        last = c;
    }
    true
}

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
        let mut seed = 99u64;
        let mut next = || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
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
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
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
