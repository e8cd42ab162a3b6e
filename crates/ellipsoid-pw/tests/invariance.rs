//! Invariances of the Perram–Wertheim result, for both maximisers:
//!
//! * a common rigid motion leaves F, Λ, u_n unchanged and moves normal and point with the bodies;
//! * swapping A and B keeps F, u_n and the point and maps Λ ↦ 1 − Λ, normal ↦ −normal
//!   (`S_BA(λ) = S_AB(1 − λ)`);
//! * scaling sizes and positions by s keeps F and Λ and scales u_n and the point.
//!
//! Tolerances: Newton's Λ is converged to rounding, so everything is compared to ~1e-10. Brent's Λ
//! is a 26-bit location (±1e-7), so two Brent runs on transformed inputs may land 2e-7 apart; F is
//! second order in that error, the normal and point first order.

mod common;

use common::{arb_pair, arb_quat, pair_scale, rel};
use ellipsoid_pw::{Method, PerramWertheim, PwResult};
use geometry_core::{DQuat, DVec3, Ellipsoid};
use proptest::prelude::*;

struct Tol {
    f: f64,
    lambda: f64,
    /// u_n, absolute.
    u_n: f64,
    /// The normal.
    normal: f64,
    /// The point, absolute.
    point: f64,
}

/// Tolerances for comparing two results of `pw` on `a`, `b` near `res`: the Λ tolerance times the
/// sensitivity of the normal and the point to Λ (own formulas), doubled; u_n = |R|(1 − 1/μ)(R̂·n̂)
/// inherits the normal's error.
fn tolerances(pw: &PerramWertheim, a: &Ellipsoid, b: &Ellipsoid, res: &PwResult) -> Tol {
    let scale = pair_scale(a, b);
    let (dn, dp) = common::lambda_sensitivity(a, b, res.lambda);
    let (f, lambda_tol, base) = match pw.method {
        Method::Brent => (1e-10, 2.5e-7, 1e-9),
        Method::Newton => (1e-11, 1e-10, 1e-9),
    };
    let normal = base + 2.0 * lambda_tol * dn;
    let distance = (b.center() - a.center()).length();
    let u_n = base * scale + distance * (1.0 - 1.0 / res.mu).abs() * normal;
    Tol { f, lambda: lambda_tol, u_n, normal, point: base * scale + 2.0 * lambda_tol * dp }
}

fn solvers() -> [(&'static str, PerramWertheim); 2] {
    [("brent", PerramWertheim::brent()), ("newton", PerramWertheim::newton())]
}

fn solve(name: &str, pw: &PerramWertheim, a: &Ellipsoid, b: &Ellipsoid) -> Result<PwResult, TestCaseError> {
    pw.solve(a, b).map_err(|e| TestCaseError::fail(format!("{name}: {e:?} for {}", common::describe(a, b))))
}

fn moved(e: &Ellipsoid, q: DQuat, t: DVec3, s: f64) -> Ellipsoid {
    common::ellipsoid((q * e.center() + t) * s, q * e.orientation(), e.semi_axes() * s)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn rigid_motion_invariance(
        (a, b) in arb_pair(),
        q in arb_quat(),
        t in [-10.0..10.0f64, -10.0..10.0, -10.0..10.0],
    ) {
        let t = DVec3::from_array(t);
        let (a2, b2) = (moved(&a, q, t, 1.0), moved(&b, q, t, 1.0));
        for (name, pw) in solvers() {
            let r1 = solve(name, &pw, &a, &b)?;
            let tol = tolerances(&pw, &a, &b, &r1);
            let r2 = solve(name, &pw, &a2, &b2)?;
            let ctx = common::describe(&a, &b);
            prop_assert!(rel(r2.f, r1.f) <= tol.f, "{name}: F {} vs {} for {ctx}", r2.f, r1.f);
            prop_assert!((r2.lambda - r1.lambda).abs() <= tol.lambda, "{name}: Λ {} vs {}", r2.lambda, r1.lambda);
            prop_assert!((r2.u_n - r1.u_n).abs() <= tol.u_n, "{name}: u_n {} vs {}", r2.u_n, r1.u_n);
            prop_assert!((r2.normal - q * r1.normal).length() <= tol.normal, "{name}: normal {:?} vs {:?}", r2.normal, q * r1.normal);
            let p = q * r1.point + t;
            prop_assert!(
                (r2.point - p).length() <= tol.point + 1e-14 * t.length(),
                "{name}: point {:?} vs {p:?}", r2.point
            );
        }
    }

    #[test]
    fn swap_symmetry((a, b) in arb_pair()) {
        for (name, pw) in solvers() {
            let ab = solve(name, &pw, &a, &b)?;
            let tol = tolerances(&pw, &a, &b, &ab);
            let ba = solve(name, &pw, &b, &a)?;
            let ctx = common::describe(&a, &b);
            prop_assert!(rel(ba.f, ab.f) <= tol.f, "{name}: F {} vs {} for {ctx}", ba.f, ab.f);
            prop_assert!((ba.lambda - (1.0 - ab.lambda)).abs() <= tol.lambda, "{name}: Λ {} vs 1 − {}", ba.lambda, ab.lambda);
            prop_assert!((ba.u_n - ab.u_n).abs() <= tol.u_n, "{name}: u_n {} vs {}", ba.u_n, ab.u_n);
            prop_assert!((ba.normal + ab.normal).length() <= tol.normal, "{name}: normal {:?} vs {:?}", ba.normal, ab.normal);
            prop_assert!((ba.point - ab.point).length() <= tol.point, "{name}: point {:?} vs {:?}", ba.point, ab.point);
            prop_assert_eq!(ba.overlapping, ab.overlapping);
        }
    }

    #[test]
    fn scaling_invariance((a, b) in arb_pair(), log_s in -3.0..3.0f64) {
        let s = 10f64.powf(log_s);
        let (a2, b2) = (moved(&a, DQuat::IDENTITY, DVec3::ZERO, s), moved(&b, DQuat::IDENTITY, DVec3::ZERO, s));
        for (name, pw) in solvers() {
            let r1 = solve(name, &pw, &a, &b)?;
            let tol = tolerances(&pw, &a, &b, &r1);
            let r2 = solve(name, &pw, &a2, &b2)?;
            let ctx = common::describe(&a, &b);
            prop_assert!(rel(r2.f, r1.f) <= tol.f, "{name}: F {} vs {} for {ctx}, s = {s}", r2.f, r1.f);
            prop_assert!((r2.lambda - r1.lambda).abs() <= tol.lambda, "{name}: Λ {} vs {}", r2.lambda, r1.lambda);
            prop_assert!((r2.u_n / s - r1.u_n).abs() <= tol.u_n, "{name}: u_n {} vs {}·s", r2.u_n, r1.u_n);
            prop_assert!((r2.normal - r1.normal).length() <= tol.normal, "{name}: normal");
            prop_assert!(
                (r2.point / s - r1.point).length() <= tol.point + 1e-14 * r1.point.length(),
                "{name}: point {:?} vs {:?}·s", r2.point, r1.point
            );
        }
    }
}
