//! The Perram–Wertheim solver against oracles that do not use the PW function at all:
//!
//! 1. the separating-hyperplane oracle `μ* = max_n n·R / (h_A(n) + h_B(n))`, `F = μ*²`, with its
//!    maximiser as the normal and the support point of `μ*·A` as the point (see `common`), on random
//!    pairs from deep overlap to well apart; plus the optimality conditions of the scaled tangency
//!    (`q_A(point) = q_B(point) = F`, `A(point − c_A) ∥ n`, `B(point − c_B) ∥ −n`) and Woo's u_n;
//! 2. constructed external tangency: `B` placed so that its support point along `−m` is the surface
//!    point `p` of `A` with outward normal `m`; the placement is cross-checked by bisection on a
//!    shift along `m` with the oracle's "do they intersect?" answer;
//! 3. certificates: when `F < 1` the PW point lies in both solids; when `F > 1` the plane through
//!    the point with the PW normal separates them (support functions).
//!
//! Brent's Λ is a 26-bit location (±1e-7): its normal and point are compared with tolerances made
//! from that bound and the sensitivity of the PW normal and point to Λ (own formulas in `common`);
//! its F with `κ·δ²` (`κ` the relative curvature of S at Λ).

mod common;

use common::{
    arb_pair, band_pair, ellipsoid, half_gradient, lambda_root, lambda_sensitivity, pair_scale, q_form,
    random_quat, random_unit, rel, relative_curvature, rng, support_point, support_radius, touch_oracle,
};
use ellipsoid_pw::{ContactFunction, Method, PerramWertheim, PwResult};
use geometry_core::{DVec3, Ellipsoid};
use proptest::prelude::*;
use rand::RngExt;

const BRENT_LAMBDA_TOL: f64 = 1e-7;

fn solvers() -> [(&'static str, PerramWertheim); 2] {
    [("brent", PerramWertheim::brent()), ("newton", PerramWertheim::newton())]
}

/// Error bounds of a result: (F relative, normal, point absolute) from the method's Λ accuracy.
fn error_bounds(pw: &PerramWertheim, a: &Ellipsoid, b: &Ellipsoid, res: &PwResult) -> (f64, f64, f64) {
    let scale = pair_scale(a, b);
    match pw.method {
        Method::Newton => (1e-11, 1e-8, 1e-8 * scale),
        Method::Brent => {
            let kappa = relative_curvature(a, b, res.lambda);
            let (dn, dp) = lambda_sensitivity(a, b, res.lambda);
            (
                1e-11 + kappa * BRENT_LAMBDA_TOL.powi(2),
                1e-8 + 2.0 * BRENT_LAMBDA_TOL * dn,
                1e-8 * scale + 2.0 * BRENT_LAMBDA_TOL * dp,
            )
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// F, normal and point against the separating-hyperplane oracle; optimality conditions;
    /// the derived fields.
    #[test]
    fn matches_separating_hyperplane_oracle((a, b) in arb_pair()) {
        let touch = touch_oracle(&a, &b);
        let scale = pair_scale(&a, &b);
        let ctx = common::describe(&a, &b);
        for (name, pw) in solvers() {
            let res = pw.solve(&a, &b).map_err(|e| TestCaseError::fail(format!("{name}: {e:?} for {ctx}")))?;
            let (f_tol, n_tol, p_tol) = error_bounds(&pw, &a, &b, &res);
            // The oracle's maximiser is located to ~1e-8 (the ratio is flat to second order there).
            prop_assert!(rel(res.f, touch.f) <= f_tol, "{name}: F {} vs oracle {} for {ctx}", res.f, touch.f);
            prop_assert!(
                (res.normal - touch.normal).length() <= n_tol + 1e-6,
                "{name}: normal {:?} vs oracle {:?} for {ctx}", res.normal, touch.normal
            );
            prop_assert!(
                (res.point - touch.point).length() <= p_tol + 1e-6 * scale,
                "{name}: point {:?} vs oracle {:?} for {ctx}", res.point, touch.point
            );
            // Optimality: the point is on both μ-scaled surfaces, with opposite outward normals.
            let q_tol = if matches!(pw.method, Method::Newton) { 1e-9 } else {
                1e-9 + 3.0 * p_tol / a.semi_axes().min_element().min(b.semi_axes().min_element())
            };
            prop_assert!(rel(q_form(&a, res.point), res.f) <= q_tol, "{name}: q_A(point) = {} vs F = {}", q_form(&a, res.point), res.f);
            prop_assert!(rel(q_form(&b, res.point), res.f) <= q_tol, "{name}: q_B(point) = {} vs F = {}", q_form(&b, res.point), res.f);
            let ga = half_gradient(&a, res.point).normalize();
            let gb = half_gradient(&b, res.point).normalize();
            prop_assert!((ga - res.normal).length() <= n_tol + 1e-9 + q_tol, "{name}: A's normal {ga:?} vs {:?}", res.normal);
            prop_assert!((gb + res.normal).length() <= n_tol + 1e-9 + q_tol, "{name}: B's normal {gb:?} vs {:?}", -res.normal);
            // The derived fields.
            let r = b.center() - a.center();
            prop_assert!((res.normal.length() - 1.0).abs() <= 1e-12);
            prop_assert!(rel(res.mu, res.f.sqrt()) <= 1e-14);
            prop_assert_eq!(res.overlapping, res.f < 1.0);
            prop_assert!((0.0..=1.0).contains(&res.lambda));
            let woo = (1.0 - 1.0 / res.mu) * r.dot(res.normal);
            prop_assert!((res.u_n - woo).abs() <= 1e-12 * scale, "{name}: u_n {} vs Woo's {woo}", res.u_n);
            let c = res.contact();
            prop_assert_eq!((c.point, c.normal, c.depth), (res.point, res.normal, -res.u_n));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Λ against the root of `S'(λ) = q_A(x(λ)) − q_B(x(λ))` found by bisection (own formulas):
    /// Newton's is documented as converged to ~1e-14 (checked to 1e-12), Brent's to 26 bits (1e-7).
    #[test]
    fn lambda_is_the_root_of_the_optimality_condition((a, b) in arb_pair()) {
        let root = lambda_root(&a, &b);
        let ctx = common::describe(&a, &b);
        for (name, pw) in solvers() {
            let res = pw.solve(&a, &b).map_err(|e| TestCaseError::fail(format!("{name}: {e:?} for {ctx}")))?;
            let tol = if matches!(pw.method, Method::Newton) { 1e-12 } else { BRENT_LAMBDA_TOL };
            let slope = ContactFunction::new(&a, &b).map_or(f64::NAN, |cf| cf.derivatives(res.lambda).1);
            prop_assert!(
                (res.lambda - root).abs() <= tol,
                "{name}: Λ = {} but S' vanishes at {root} (error {:e}; the crate's own S'(Λ) = {slope:e}, \
                 {} iterations) for {ctx}",
                res.lambda, res.lambda - root, res.iterations
            );
        }
    }
}

/// Constructed external tangency: F = 1, point = p, normal = m.
#[test]
fn constructed_tangency() {
    let mut rng = rng(0x7a9e_0001);
    let cases = 200;
    for case in 0..cases {
        let axes_a =
            DVec3::new(rng.random_range(0.2..3.0), rng.random_range(0.2..3.0), rng.random_range(0.2..3.0));
        let axes_b =
            DVec3::new(rng.random_range(0.2..3.0), rng.random_range(0.2..3.0), rng.random_range(0.2..3.0));
        let ca =
            DVec3::new(rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0));
        let a = ellipsoid(ca, random_quat(&mut rng), axes_a);
        let u = random_unit(&mut rng);
        let p = ca + u / q_form(&a, ca + u).sqrt();
        let m = half_gradient(&a, p).normalize();
        let qb = random_quat(&mut rng);
        // B's support point along −m, for B centred at the origin, must land on p.
        let b_at = |t: f64| {
            let b0 = ellipsoid(DVec3::ZERO, qb, axes_b);
            ellipsoid(p - support_point(&b0, -m) + m * t, qb, axes_b)
        };
        let b = b_at(0.0);
        let scale = pair_scale(&a, &b);
        let ctx = format!("case {case}: {}", common::describe(&a, &b));

        // Cross-check the construction: bisection on the shift along m with the oracle's
        // intersection test finds the tangency at t = 0.
        let intersect = |t: f64| touch_oracle(&a, &b_at(t)).mu <= 1.0;
        let h = 0.1 * axes_a.min_element().min(axes_b.min_element());
        let (mut lo, mut hi) = (-h, h);
        assert!(intersect(lo) && !intersect(hi), "{ctx}: bad bracket");
        for _ in 0..45 {
            let mid = 0.5 * (lo + hi);
            if intersect(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let t_star = 0.5 * (lo + hi);
        assert!(
            t_star.abs() <= 1e-9 * scale,
            "{ctx}: oracle bisection found t* = {t_star}, construction says 0"
        );
        let b_bisect = b_at(t_star);

        for (name, pw) in solvers() {
            let res = pw.solve(&a, &b).unwrap_or_else(|e| panic!("{name}, {ctx}: {e:?}"));
            let (_, n_tol, p_tol) = error_bounds(&pw, &a, &b, &res);
            assert!((res.f - 1.0).abs() <= 1e-9, "{name}, {ctx}: F = {} at tangency", res.f);
            assert!(res.u_n.abs() <= 1e-9 * scale, "{name}, {ctx}: u_n = {} at tangency", res.u_n);
            assert!((res.point - p).length() <= p_tol, "{name}, {ctx}: point {:?} vs {p:?}", res.point);
            assert!((res.normal - m).length() <= n_tol, "{name}, {ctx}: normal {:?} vs {m:?}", res.normal);
            let res = pw.solve(&a, &b_bisect).unwrap_or_else(|e| panic!("{name}, {ctx}: {e:?}"));
            assert!((res.f - 1.0).abs() <= 1e-6, "{name}, {ctx}: F = {} at the bisected tangency", res.f);
        }
    }
}

/// When F < 1 the PW point lies in both solids; when F > 1 the plane through the point with the
/// PW normal separates the solids. Pairs in the band between inscribed and circumscribed spheres.
#[test]
fn overlap_and_separation_certificates() {
    let mut rng = rng(0xce27_0002);
    let cases = 30_000;
    let mut counts = [0usize; 2];
    for case in 0..cases {
        let (a, b) = band_pair(&mut rng, 10.0, 10.0);
        let scale = pair_scale(&a, &b);
        for (name, pw) in solvers() {
            let ctx = format!("{name}, case {case}: {}", common::describe(&a, &b));
            let res = pw.solve(&a, &b).unwrap_or_else(|e| panic!("{ctx}: {e:?}"));
            let (_, n_tol, p_tol) = error_bounds(&pw, &a, &b, &res);
            let min_axis = a.semi_axes().min_element().min(b.semi_axes().min_element());
            if res.f < 1.0 {
                counts[0] += 1;
                let q_tol = 1e-9 + 3.0 * p_tol / min_axis;
                let (qa, qb) = (q_form(&a, res.point), q_form(&b, res.point));
                assert!(
                    qa <= 1.0 + q_tol && qb <= 1.0 + q_tol,
                    "{ctx}: F = {} but q_A = {qa}, q_B = {qb}",
                    res.f
                );
            } else {
                counts[1] += 1;
                let n = res.normal;
                let top_a = n.dot(a.center()) + support_radius(&a, n);
                let bottom_b = n.dot(b.center()) - support_radius(&b, n);
                let plane = n.dot(res.point);
                let tol = 1e-9 * scale + p_tol + 2.0 * n_tol * scale;
                assert!(
                    top_a <= plane + tol && plane <= bottom_b + tol,
                    "{ctx}: F = {} but A reaches {top_a}, plane at {plane}, B starts at {bottom_b}",
                    res.f
                );
            }
        }
    }
    println!("certificates: {} overlapping, {} separated results", counts[0], counts[1]);
    assert!(
        counts[0] > cases / 10 && counts[1] > cases / 10,
        "the band should mix both outcomes: {counts:?}"
    );
}
