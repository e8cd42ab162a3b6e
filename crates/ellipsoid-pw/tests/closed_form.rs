//! Perram–Wertheim results against closed forms:
//!
//! 1. spheres given as ellipsoids (any orientations): `F = (d/(r₁+r₂))²`, `Λ = r₁/(r₁+r₂)`,
//!    `u_n = d − r₁ − r₂`, normal `R/|R|`, point `c_A + R r₁/(r₁+r₂)`;
//! 2. Woo's regression: the (0.1, 0.2, 0.1)·s and (0.2, 0.1, 0.1)·s ellipsoids touching along x and
//!    then 0.01·s closer, for s from 1/6 to 1000/3, also rigidly moved;
//! 3. bodies whose principal axes are aligned, with the centre line along a common principal axis:
//!    both bodies are symmetric under the two reflections through planes containing that line, so
//!    the (unique) touching point of the scaled bodies lies on the line and
//!    `F = (d/(a_i + b_i))²`, `u_n = d − a_i − b_i` exactly (tangent when `d = a_i + b_i`).

mod common;

use common::{
    arb_quat, arb_unit, ellipsoid, random_axes, random_quat, random_unit, rel, rng, support_radius,
};
use ellipsoid_pw::{Method, PerramWertheim};
use geometry_core::{DMat3, DQuat, DVec3};
use proptest::prelude::*;
use rand::RngExt;

/// The documented Brent accuracy of Λ (26 bits, boost-style tolerance): about 1e-7.
const BRENT_LAMBDA_TOL: f64 = 1e-7;

fn solvers() -> [(&'static str, PerramWertheim); 2] {
    [("brent", PerramWertheim::brent()), ("newton", PerramWertheim::newton())]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Spheres of radii 1e-3..1e3 (ratios up to 1e6), overlapping or apart, given as ellipsoids with
    /// random orientations at random centres.
    #[test]
    fn spheres_match_closed_form(
        log_r1 in -3.0..3.0f64,
        log_r2 in -3.0..3.0f64,
        k in 0.01..4.0f64,
        qa in arb_quat(),
        qb in arb_quat(),
        dir in arb_unit(),
        centre in [-1.0..1.0f64, -1.0..1.0, -1.0..1.0],
        log_c in -3.0..3.0f64,
    ) {
        let (r1, r2) = (10f64.powf(log_r1), 10f64.powf(log_r2));
        let ca = DVec3::from_array(centre) * 10f64.powf(log_c);
        let cb = ca + dir * (k * (r1 + r2));
        let a = ellipsoid(ca, qa, DVec3::splat(r1));
        let b = ellipsoid(cb, qb, DVec3::splat(r2));
        // The expectations use the distance of the stored centres, as the solver must.
        let r = b.center() - a.center();
        let d = r.length();
        let f_exp = (d / (r1 + r2)).powi(2);
        let lambda_exp = r1 / (r1 + r2);
        let un_exp = d - r1 - r2;
        let normal_exp = r / d;
        let point_exp = ca + r * lambda_exp;
        // For spheres S(λ) = λ(1−λ)d²/((1−λ)r₁² + λr₂²), and ln S has curvature
        // −2(1+ε)²/ε at Λ with ε = min(r)/max(r): a location error δ costs F a relative
        // (1+ε)²δ²/ε. Newton's Λ is converged (δ ~ 1e-16): F to 1e-12. Brent's Λ is a 26-bit
        // location (δ ≤ 1e-7): F to 1e-12 plus that bound, which only matters for ratios > 40.
        let eps = r1.min(r2) / r1.max(r2);
        for (name, pw) in solvers() {
            let res = pw.solve(&a, &b).map_err(|e| TestCaseError::fail(format!("{name}: {e:?}")))?;
            let brent = matches!(pw.method, Method::Brent);
            let f_tol = if brent { 1e-12 + (1.0 + eps).powi(2) * BRENT_LAMBDA_TOL.powi(2) / eps } else { 1e-12 };
            let lambda_tol = if brent { BRENT_LAMBDA_TOL } else { 1e-12 };
            // d(point)/dΛ = −R for spheres.
            let point_tol = 1e-12 * (ca.length() + d) + if brent { BRENT_LAMBDA_TOL * d } else { 0.0 };
            prop_assert!(rel(res.f, f_exp) <= f_tol, "{name}: F {} vs {f_exp}", res.f);
            prop_assert!((res.lambda - lambda_exp).abs() <= lambda_tol, "{name}: Λ {} vs {lambda_exp}", res.lambda);
            prop_assert!(
                (res.u_n - un_exp).abs() <= f_tol * (r1 + r2),
                "{name}: u_n {} vs {un_exp} (r1 + r2 = {})", res.u_n, r1 + r2
            );
            prop_assert!((res.normal - normal_exp).length() <= 1e-12, "{name}: normal {:?} vs {normal_exp:?}", res.normal);
            prop_assert!((res.point - point_exp).length() <= point_tol, "{name}: point {:?} vs {point_exp:?}", res.point);
            prop_assert!(rel(res.mu, f_exp.sqrt()) <= f_tol, "{name}: μ {}", res.mu);
            prop_assert_eq!(res.overlapping, res.f < 1.0);
        }
    }
}

/// Woo's test case at several scales: touching (F = 1, u_n = 0), then 0.01·s closer
/// (u_n = −0.01·s), also after a common rigid motion.
#[test]
fn woo_regression_at_all_scales() {
    let mut rng = rng(0x0057_0000);
    let motions: Vec<(DQuat, DVec3)> = std::iter::once((DQuat::IDENTITY, DVec3::ZERO))
        .chain((0..8).map(|_| {
            let t = DVec3::new(
                rng.random_range(-5.0..5.0),
                rng.random_range(-5.0..5.0),
                rng.random_range(-5.0..5.0),
            );
            (random_quat(&mut rng), t)
        }))
        .collect();
    for s in [1.0 / 6.0, 1.0 / 3.0, 10.0 / 3.0, 100.0 / 3.0, 1000.0 / 3.0] {
        let axes_a = DVec3::new(0.1, 0.2, 0.1) * s;
        let axes_b = DVec3::new(0.2, 0.1, 0.1) * s;
        for &(q, t) in &motions {
            for (gap, un_exp) in [(0.3, 0.0), (0.29, -0.01)] {
                let ca = t * s;
                let cb = ca + q * DVec3::new(gap * s, 0.0, 0.0);
                let a = ellipsoid(ca, q, axes_a);
                let b = ellipsoid(cb, q, axes_b);
                let d = (b.center() - a.center()).length();
                let reach = axes_a.x + axes_b.x;
                for (name, pw) in solvers() {
                    let res = pw.solve(&a, &b).unwrap();
                    let ctx = format!("{name}, s = {s}, gap = {gap}·s, motion = {q:?} {t:?}");
                    assert!(
                        (res.u_n - un_exp * s).abs() <= 1e-7 * s,
                        "{ctx}: u_n = {} expected {}",
                        res.u_n,
                        un_exp * s
                    );
                    // Exact expectations from the stored numbers (symmetry along the common axis).
                    assert!(rel(res.f, (d / reach).powi(2)) <= 1e-12, "{ctx}: F = {}", res.f);
                    assert!((res.u_n - (d - reach)).abs() <= 1e-12 * s, "{ctx}: u_n = {}", res.u_n);
                    assert!((res.normal - q * DVec3::X).length() <= 1e-12, "{ctx}: normal {:?}", res.normal);
                    let point_exp = ca + (cb - ca) * (axes_a.x / reach);
                    let point_tol = if name == "brent" { 1e-6 * s } else { 1e-10 * s } + 1e-14 * ca.length();
                    assert!((res.point - point_exp).length() <= point_tol, "{ctx}: point {:?}", res.point);
                    if gap == 0.3 {
                        assert!((res.f - 1.0).abs() <= 1e-12, "{ctx}: touching but F = {}", res.f);
                    } else {
                        assert!(res.overlapping && res.f < 1.0, "{ctx}: F = {}", res.f);
                    }
                }
            }
        }
    }
}

/// The 24 proper rotations of the cube: maps the body axes onto (signed) body axes.
fn cube_rotations() -> Vec<DMat3> {
    let mut out = Vec::new();
    let perms = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
    for p in perms {
        for signs in 0..8u32 {
            let cols: Vec<DVec3> = (0..3)
                .map(|i| {
                    let mut v = [0.0; 3];
                    v[p[i]] = if signs >> i & 1 == 1 { -1.0 } else { 1.0 };
                    DVec3::from_array(v)
                })
                .collect();
            let m = DMat3::from_cols(cols[0], cols[1], cols[2]);
            if m.determinant() > 0.0 {
                out.push(m);
            }
        }
    }
    assert_eq!(out.len(), 24);
    out
}

/// Aligned principal axes with the centre line along a common principal axis: F = (d/(a_i+b_i))²,
/// exactly 1 at tangency (d = a_i + b_i), for random shapes, common orientations, axis
/// permutations of B, and distances from deep overlap to well apart.
#[test]
fn principal_axes_contacts() {
    let mut rng = rng(0x00a1_1e9e);
    let cube = cube_rotations();
    for case in 0..400 {
        let q = random_quat(&mut rng);
        let perm = DQuat::from_mat3(&cube[rng.random_range(0..cube.len())]);
        let (size_a, size_b) =
            (common::log_uniform(&mut rng, -1.0, 1.0), common::log_uniform(&mut rng, -1.0, 1.0));
        let axes_a = random_axes(&mut rng, size_a, 10.0);
        let axes_b = random_axes(&mut rng, size_b, 10.0);
        let axis = rng.random_range(0..3usize);
        let sign = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
        let mut local_dir = DVec3::ZERO;
        local_dir[axis] = sign;
        let dir = q * local_dir;
        let ca =
            DVec3::new(rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0));
        let a = ellipsoid(ca, q, axes_a);
        let b_probe = ellipsoid(ca, q * perm, axes_b);
        // B's semi-axis along the line (its support radius along one of its principal axes).
        let b_along = support_radius(&b_probe, dir);
        let reach = axes_a[axis] + b_along;
        let k = if case % 2 == 0 { 1.0 } else { rng.random_range(0.2..2.5) };
        let b = ellipsoid(ca + dir * (k * reach), q * perm, axes_b);
        let r = b.center() - a.center();
        let d = r.length();
        let f_exp = (d / reach).powi(2);
        let point_exp = ca + r * (axes_a[axis] / reach);
        for (name, pw) in solvers() {
            let brent = name == "brent";
            let ctx = format!("{name}, case {case}: {}", common::describe(&a, &b));
            let res = pw.solve(&a, &b).unwrap_or_else(|e| panic!("{ctx}: {e:?}"));
            let f_tol = if brent { 1e-9 } else { 1e-12 };
            assert!(rel(res.f, f_exp) <= f_tol, "{ctx}: F = {} expected {f_exp}", res.f);
            assert!((res.u_n - (d - reach)).abs() <= f_tol * reach, "{ctx}: u_n = {}", res.u_n);
            assert!((res.normal - r / d).length() <= 1e-9, "{ctx}: normal {:?} vs {:?}", res.normal, r / d);
            let point_tol = if brent { 1e-6 } else { 1e-9 } * reach;
            assert!(
                (res.point - point_exp).length() <= point_tol,
                "{ctx}: point {:?} vs {point_exp:?}",
                res.point
            );
        }
    }
}

/// Tangent spheres: a trivial sanity anchor (F = 1, u_n = 0, contact of zero depth).
#[test]
fn tangent_unit_spheres() {
    let mut rng = rng(7);
    for _ in 0..50 {
        let dir = random_unit(&mut rng);
        let a = ellipsoid(DVec3::ZERO, random_quat(&mut rng), DVec3::ONE);
        let b = ellipsoid(dir * 2.0, random_quat(&mut rng), DVec3::ONE);
        for (name, pw) in solvers() {
            let res = pw.solve(&a, &b).unwrap();
            assert!((res.f - 1.0).abs() <= 1e-12, "{name}: F = {}", res.f);
            assert!(res.u_n.abs() <= 1e-12, "{name}: u_n = {}", res.u_n);
            assert!((res.point - dir).length() <= 1e-6, "{name}: point {:?}", res.point);
            let c = res.contact();
            assert_eq!((c.point, c.normal, c.depth), (res.point, res.normal, -res.u_n));
        }
    }
}
