//! Gauss–Legendre rules, the collapsed (Duffy) rule and symmetric low-degree rules on triangles.

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

/// A rule on the reference triangle `{s, t ≥ 0, s + t ≤ 1}` (weights summing to ½) exact for
/// polynomials of total degree `degree`, with as few points as this crate knows: the symmetric
/// rules of Strang & Fix (1973), Dunavant (1985) and Radon up to degree 5 (1 point up to
/// degree 1, 3 for degree 2, 6 for degrees 3–4, 7 for degree 5), the collapsed Gauss rule
/// [`triangle_rule`] above (`(⌈degree/2⌉ + 1)²` points). Their points and weights are the
/// closed forms of those papers, evaluated here; every rule is tested for exactness on all
/// monomials of its degree.
///
/// ```
/// let rule = fmm_dlp::triangle_rule_of_degree(4);
/// assert_eq!(rule.len(), 6);
/// // ∫ s² t² ds dt over the reference triangle = 2!·2!/6! = 1/180.
/// let moment: f64 = rule.iter().map(|&(s, t, w)| w * s * s * t * t).sum();
/// assert!((moment - 1.0 / 180.0).abs() < 1e-15);
/// ```
pub fn triangle_rule_of_degree(degree: usize) -> Vec<(f64, f64, f64)> {
    // Orbits of barycentric points (a, a, 1 − 2a) with their weight (normalised to area 1).
    let orbits: Vec<(f64, f64)> = match degree {
        0 | 1 => return vec![(1.0 / 3.0, 1.0 / 3.0, 0.5)],
        2 => vec![(1.0 / 6.0, 1.0 / 3.0)],
        3 | 4 => {
            // Dunavant's degree-4 rule: a = (8 − √10 ± √(38 − 44√(2/5)))/18 and weights
            // (620 ± √(213125 − 53320√10))/3720, the larger weight with the larger a.
            let root = (38.0 - 44.0 * (0.4f64).sqrt()).sqrt();
            let weight_root = (213_125.0 - 53_320.0 * 10f64.sqrt()).sqrt();
            vec![
                ((8.0 - 10f64.sqrt() + root) / 18.0, (620.0 + weight_root) / 3720.0),
                ((8.0 - 10f64.sqrt() - root) / 18.0, (620.0 - weight_root) / 3720.0),
            ]
        }
        5 => {
            // Radon's 7-point rule: the centroid (weight 9/40) and a = (6 ∓ √15)/21 with
            // weights (155 ∓ √15)/1200.
            let r15 = 15f64.sqrt();
            let mut rule = vec![(1.0 / 3.0, 1.0 / 3.0, 9.0 / 80.0)];
            for (a, w) in
                [((6.0 - r15) / 21.0, (155.0 - r15) / 1200.0), ((6.0 + r15) / 21.0, (155.0 + r15) / 1200.0)]
            {
                let b = 1.0 - 2.0 * a;
                rule.extend([(a, a, 0.5 * w), (a, b, 0.5 * w), (b, a, 0.5 * w)]);
            }
            return rule;
        }
        _ => return triangle_rule(degree.div_ceil(2) + 1),
    };
    let mut rule = Vec::with_capacity(3 * orbits.len());
    for (a, w) in orbits {
        let b = 1.0 - 2.0 * a;
        rule.extend([(a, a, 0.5 * w), (a, b, 0.5 * w), (b, a, 0.5 * w)]);
    }
    rule
}
