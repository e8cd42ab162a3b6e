//! The two maximisers of `S` on `[0, 1]`.
//!
//! * Brent's method (Brent 1973, *Algorithms for Minimization without Derivatives*, ch. 5):
//!   golden-section search accelerated by parabolic interpolation, derivative-free, the method
//!   Woo documents (through boost's `brent_find_minima`, which stops when the abscissa is known to
//!   a given number of bits; half the mantissa, 26 bits, is its usual choice).
//! * Safeguarded Newton-type iteration on `S'(λ) = 0` with Halley's (cubically convergent)
//!   step: `S` is concave with `S'(0) > 0 > S'(1)`, so `[0, 1]` brackets the root; each iterate
//!   tightens the bracket by the sign of `S'`, and a step that leaves the bracket is replaced by
//!   bisection, so convergence is guaranteed.

use crate::contact_function::LocalExpansion;
use crate::{ContactFunction, PwError};
use geometry_core::DVec3;

/// The golden section `(3 - √5) / 2`.
const GOLDEN: f64 = 0.381_966_011_250_105_1;

/// Brent's minimisation of `objective = -S` on `[0, 1]` (in the solver variable `t`), to a
/// relative abscissa tolerance `2^-bits`. Returns `(Λ_t, function evaluations)`.
pub(crate) fn brent(
    objective: impl Fn(f64) -> f64,
    bits: u32,
    max_iterations: u32,
) -> Result<(f64, u32), PwError> {
    let tolerance = 0.5f64.powi(bits.clamp(1, 52) as i32);
    // A tiny absolute tolerance keeps the test meaningful should Λ approach 0.
    let absolute = 1e-300;
    let (mut a, mut b) = (0.0f64, 1.0f64);
    let mut x = a + GOLDEN * (b - a);
    let (mut w, mut v) = (x, x);
    let mut fx = objective(x);
    let (mut fw, mut fv) = (fx, fx);
    let (mut d, mut e) = (0.0f64, 0.0f64);
    let mut evaluations = 1;
    while evaluations <= max_iterations {
        let middle = 0.5 * (a + b);
        let tol1 = tolerance * x.abs() + absolute;
        let tol2 = 2.0 * tol1;
        if (x - middle).abs() <= tol2 - 0.5 * (b - a) {
            return Ok((x, evaluations));
        }
        let mut golden = true;
        if e.abs() > tol1 {
            // Try a parabola through (v, fv), (w, fw), (x, fx).
            let r = (x - w) * (fx - fv);
            let mut q = (x - v) * (fx - fw);
            let mut p = (x - v) * q - (x - w) * r;
            q = 2.0 * (q - r);
            if q > 0.0 {
                p = -p;
            }
            q = q.abs();
            let previous = e;
            e = d;
            // Accept the parabolic step only if it falls inside the bracket and moves less
            // than half the step before last (otherwise the interpolation is not converging).
            if p.abs() < (0.5 * q * previous).abs() && p > q * (a - x) && p < q * (b - x) {
                d = p / q;
                let u = x + d;
                if u - a < tol2 || b - u < tol2 {
                    d = tol1.copysign(middle - x);
                }
                golden = false;
            }
        }
        if golden {
            e = if x >= middle { a - x } else { b - x };
            d = GOLDEN * e;
        }
        let u = if d.abs() >= tol1 { x + d } else { x + tol1.copysign(d) };
        let fu = objective(u);
        evaluations += 1;
        if fu <= fx {
            if u >= x {
                a = x;
            } else {
                b = x;
            }
            (v, fv, w, fw, x, fx) = (w, fw, x, fx, u, fu);
        } else {
            if u < x {
                a = u;
            } else {
                b = u;
            }
            if fu <= fw || w == x {
                (v, fv, w, fw) = (w, fw, u, fu);
            } else if fu <= fv || v == x || v == w {
                (v, fv) = (u, fu);
            }
        }
    }
    Err(PwError::NoConvergence { iterations: max_iterations })
}

/// A point inside the bracket `(low, high)` of the maximiser: its midpoint, or, where the
/// bracket spans more than four octaves, its geometric middle (from 0, a thousandth of `high`).
/// `Λ` can be as small as `2^-100`, and far from unit size ratios `S` is so flat that Newton's
/// steps leave the bracket: halving from ½ then took more than 100 iterations to reach
/// `Λ = 1e-18`, where splitting in ratio takes about 15.
fn split(low: f64, high: f64) -> f64 {
    if low == 0.0 {
        high * (1.0 / 1024.0)
    } else if high > 16.0 * low {
        (low * high).sqrt()
    } else {
        0.5 * (low + high)
    }
}

/// Where the Newton-type iteration stopped: `Λ`, and `x = H(Λ)⁻¹r` and `F = S(Λ)` carried
/// over from the last iterate.
pub(crate) struct NewtonResult {
    pub(crate) lambda: f64,
    pub(crate) iterations: u32,
    pub(crate) x: DVec3,
    pub(crate) f: f64,
}

/// Safeguarded Newton-type iteration on `S'` from `start ∈ [0, 1]`, taking Halley's
/// third-order step `δ = −2 S'S'' / (2S''² − S'S''')` (the third derivative costs one
/// matrix-vector product, see [`ContactFunction`]), or Newton's `−S'/S''` should Halley's
/// denominator not be safely positive.
///
/// It stops at a small step, `|δ| <= step_tolerance · min(t', 1 − t')` at the predicted root
/// `t' = t + δ` (relative: an absolute tolerance is meaningless when `Λ` or `1 − Λ` is tiny),
/// provided the quadratic model also says the rest of the climb is negligible,
/// `|S' δ| <= 1e-13 S`. A small step alone proves nothing: from a start at or near an end of
/// `[0, 1]` of a thin pair the steps are tiny because `|S''|` is huge there, while `S` (0 at
/// the ends) is still far from its maximum. Such a step is taken and the iteration goes on, so
/// a warm start changes the iteration count and the answer only within the tolerance (measured:
/// up to 2e-11 relative in `F` against a cold start). The last iterate is accurate to
/// about the cube of the step, and `x` and `F` there follow from the last expansion without
/// another solve (`x − δy` to `O(δ²)`, `S + S'δ + S''δ²/2` to `O(δ³)`).
pub(crate) fn newton(
    s: &ContactFunction,
    start: f64,
    step_tolerance: f64,
    max_iterations: u32,
) -> Result<NewtonResult, PwError> {
    let finish = |lambda: f64, iterations: u32, local: &LocalExpansion, step: f64| NewtonResult {
        lambda,
        iterations,
        x: local.x - step * local.y,
        f: local.value + step * (local.slope + 0.5 * step * local.curvature),
    };
    let (mut low, mut high) = (0.0f64, 1.0f64);
    let mut lambda = start;
    let mut previous_step = 0.0f64;
    for iteration in 1..=max_iterations {
        let local = s.local_expansion(lambda);
        let (slope, curvature) = (local.slope, local.curvature);
        if slope > 0.0 {
            low = lambda;
        } else if slope < 0.0 {
            high = lambda;
        } else {
            return Ok(finish(lambda, iteration, &local, 0.0));
        }
        let denominator = 2.0 * curvature * curvature - slope * local.third;
        let step = if local.third.is_finite() && denominator > curvature * curvature {
            -2.0 * slope * curvature / denominator
        } else {
            -slope / curvature
        };
        let predicted = lambda + step;
        // Small relative to the nearer end, and trusted by the model (see above; a second
        // evaluation to certify every stop instead made warm solves a fifth slower, measured).
        if step.abs() <= step_tolerance * predicted.min(1.0 - predicted)
            && slope.abs() * step.abs() <= 1e-13 * local.value
        {
            // Converged (the step may even be below one ulp of λ: then λ is the answer).
            let next = (lambda + step).clamp(low, high);
            return Ok(finish(next, iteration, &local, next - lambda));
        }
        let mut next = lambda + step;
        // Outside the bracket (or NaN from a vanishing curvature), or creeping (a step longer
        // than the one before, in the same direction: far from unit size ratios S' behaves like
        // 1/t² on one side of Λ and like a constant on the other, where Newton's steps grow by
        // half each time, from a start at 0 over 100 iterations to reach Λ = 1e-18): split the
        // bracket instead.
        let creeping =
            previous_step != 0.0 && step.abs() > previous_step.abs() && (step > 0.0) == (previous_step > 0.0);
        if creeping || !(next > low && next < high) {
            next = split(low, high);
        }
        previous_step = next - lambda;
        // A bracket as narrow as the spacing of doubles at its upper end (relative: with Λ
        // near 1e-17 an absolute ε stopped a warm start from 3e-16 at 3.7e-17).
        if high - low <= f64::EPSILON * high {
            let (x, f) = s.solution(next);
            return Ok(NewtonResult { lambda: next, iterations: iteration, x, f });
        }
        lambda = next;
    }
    Err(PwError::NoConvergence { iterations: max_iterations })
}
