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
/// The tolerance is relative: a step is small once `|δ| <= step_tolerance · min(t', 1 − t')` at
/// the predicted root `t' = t + δ`, so `Λ` is resolved relative to its distance from the nearer
/// end of `[0, 1]` (an absolute tolerance is meaningless when `Λ` or `1 − Λ` is tiny). A small
/// step alone does not prove convergence (from a start at an end of `[0, 1]` of a thin pair the
/// first steps are tiny because `|S''|` is huge there), so it is *certified*: `S'` is evaluated
/// at the mirror point `t' + d` (`d = max(|δ|, 10⁻³ · tolerance · min(t', 1 − t'))`), and only if
/// its sign is opposite to that at `t` (the root is then bracketed within `|δ| + d`) does the iteration stop; otherwise it continues from the mirror
/// point. Hence the result does not depend on the start: a warm start changes only the number of
/// iterations. `x` and `F` at `t'` follow from the last expansion without another solve
/// (`x − δy` to `O(δ²)`, `S + S'δ + S''δ²/2` to `O(δ³)`).
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
    // S'(0) > 0 > S'(1) in the solver variable: [0, 1] brackets the root.
    let (mut low, mut high) = (0.0f64, 1.0f64);
    let mut t = start.clamp(0.0, 1.0);
    // A small step awaiting certification: the predicted root, the step, and the expansion it
    // came from (the next evaluation, at the mirror point, decides; one call site for the
    // expansion keeps it inlined: measured, a second one cost a fifth of a warm solve).
    let mut pending: Option<(f64, f64, LocalExpansion)> = None;
    let mut iteration = 0;
    while iteration < max_iterations {
        iteration += 1;
        let local = s.local_expansion(t);
        let (slope, curvature) = (local.slope, local.curvature);
        if let Some((predicted, step, before)) = pending.take()
            && slope != 0.0
            && (slope > 0.0) != (before.slope > 0.0)
        {
            // The root lies between the last iterate and this mirror point: certified.
            return Ok(finish(predicted, iteration, &before, step));
        }
        // (Otherwise not converged after all: go on from the mirror point.)
        if slope > 0.0 {
            low = t;
        } else if slope < 0.0 {
            high = t;
        } else {
            return Ok(finish(t, iteration, &local, 0.0));
        }
        let denominator = 2.0 * curvature * curvature - slope * local.third;
        let step = if local.third.is_finite() && denominator > curvature * curvature {
            -2.0 * slope * curvature / denominator
        } else {
            -slope / curvature
        };
        let predicted = t + step;
        let nearer_end = predicted.min(1.0 - predicted);
        // (A step below one ulp of t leaves t' = t on the bracket's end: still a candidate.)
        if predicted >= low && predicted <= high && step.abs() <= step_tolerance * nearer_end {
            // Where the quadratic model itself says the rest of the climb is negligible
            // (`|S' δ| ≤ 1e-13 S`, at S > 0: never at an end of [0, 1], where S = 0), the step
            // is trusted without the extra evaluation: the common case of a well-conditioned
            // pair near its answer (measured: certifying every stop made a warm solve 40 %
            // slower).
            if slope.abs() * step.abs() <= 1e-13 * local.value {
                return Ok(finish(predicted, iteration, &local, step));
            }
            // Certify: the root must lie between t and the mirror point t' ± d (d at least
            // |δ|, and far enough from t' that S' there is not rounding noise); the bracket's
            // end beyond t', if nearer, already has the opposite sign.
            let reach = step.abs().max(nearer_end * (1e-3 * step_tolerance).max(64.0 * f64::EPSILON));
            let mirror = predicted + reach.copysign(step);
            if mirror > low && mirror < high {
                pending = Some((predicted, step, local));
                t = mirror;
                continue;
            }
            return Ok(finish(predicted, iteration, &local, step));
        } else if predicted > low && predicted < high {
            t = predicted;
        } else {
            // Outside the bracket (or NaN from a vanishing curvature): bisect instead, in the
            // geometric mean when the bracket spans orders of magnitude near an end.
            t = if low > 0.0 && high <= 0.5 && high > 4.0 * low {
                (low * high).sqrt()
            } else if high < 1.0 && low >= 0.5 && (1.0 - low) > 4.0 * (1.0 - high) {
                1.0 - ((1.0 - low) * (1.0 - high)).sqrt()
            } else {
                0.5 * (low + high)
            };
        }
        // The bracket cannot shrink further (relative to the nearer end): its middle is the answer.
        let width = 2.0 * f64::EPSILON * low.min(1.0 - high).max(f64::MIN_POSITIVE);
        if high - low <= width || !(t > low && t < high) {
            let t = 0.5 * (low + high);
            let (x, f) = s.solution(t);
            return Ok(NewtonResult { lambda: t, iterations: iteration, x, f });
        }
    }
    Err(PwError::NoConvergence { iterations: max_iterations })
}
