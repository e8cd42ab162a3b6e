//! Gauss–Legendre rules and the collapsed (Duffy) rule on triangles.

/// The `q`-point Gauss–Legendre rule on `[0, 1]`: nodes and weights, exact for polynomials of
/// degree `2q − 1`. Nodes by Newton's method on `P_q` from Chebyshev-like starting guesses.
///
/// ```
/// let rule = fmm_dlp::gauss_legendre(3);
/// // ∫₀¹ x⁵ dx = 1/6, exactly integrated by three points.
/// let integral: f64 = rule.iter().map(|&(x, w)| w * x.powi(5)).sum();
/// assert!((integral - 1.0 / 6.0).abs() < 1e-15);
/// ```
pub fn gauss_legendre(q: usize) -> Vec<(f64, f64)> {
    let mut rule = Vec::with_capacity(q);
    for i in 0..q {
        // Initial guess for the i-th root of P_q on [−1, 1].
        let mut x = (std::f64::consts::PI * (i as f64 + 0.75) / (q as f64 + 0.5)).cos();
        let mut derivative = 1.0;
        for _ in 0..100 {
            // P_q(x) and P_q'(x) by the three-term recurrence.
            let (mut p0, mut p1) = (1.0f64, x);
            for k in 2..=q {
                let p2 = ((2 * k - 1) as f64 * x * p1 - (k - 1) as f64 * p0) / k as f64;
                p0 = p1;
                p1 = p2;
            }
            let pq = if q == 0 {
                1.0
            } else if q == 1 {
                x
            } else {
                p1
            };
            let pq_minus_1 = if q == 1 { 1.0 } else { p0 };
            derivative = q as f64 * (x * pq - pq_minus_1) / (x * x - 1.0);
            let step = pq / derivative;
            x -= step;
            if step.abs() < 1e-16 {
                break;
            }
        }
        let weight = 2.0 / ((1.0 - x * x) * derivative * derivative);
        // Map [−1, 1] → [0, 1].
        rule.push((0.5 * (1.0 - x), 0.5 * weight));
    }
    rule.sort_by(|a, b| a.0.total_cmp(&b.0));
    rule
}

/// Points `(s, t)` in the reference triangle `s, t ≥ 0, s + t ≤ 1` and weights summing to ½
/// (its area), exact for polynomials of total degree `2q − 2`: the Duffy map
/// `(u, v) ↦ (u, (1 − u) v)` of the tensor `q × q` Gauss rule, with Jacobian `1 − u`.
///
/// ```
/// let rule = fmm_dlp::triangle_rule(4);
/// let area: f64 = rule.iter().map(|&(_, _, w)| w).sum();
/// assert!((area - 0.5).abs() < 1e-15);
/// // ∫ s² t ds dt over the reference triangle = 1/60.
/// let moment: f64 = rule.iter().map(|&(s, t, w)| w * s * s * t).sum();
/// assert!((moment - 1.0 / 60.0).abs() < 1e-15);
/// ```
pub fn triangle_rule(q: usize) -> Vec<(f64, f64, f64)> {
    let line = gauss_legendre(q);
    let mut rule = Vec::with_capacity(q * q);
    for &(u, wu) in &line {
        for &(v, wv) in &line {
            rule.push((u, (1.0 - u) * v, wu * wv * (1.0 - u)));
        }
    }
    rule
}
