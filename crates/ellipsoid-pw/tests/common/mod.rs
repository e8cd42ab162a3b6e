//! Oracles and random inputs shared by the `ellipsoid-pw` test files, written independently of the
//! crate's sources: only `geometry_core` types and elementary ellipsoid geometry are used.
//!
//! * `q(x) = (x − c)ᵀ A (x − c)`, evaluated in the body frame (`q ≤ 1` is the solid);
//! * support functions: `max over the solid of n·x = n·c + h(n)` with `h(n) = |diag(a) Rᵀ n|`
//!   (`= sqrt(nᵀ A⁻¹ n)`), and the support point where it is attained;
//! * the touching scale of two ellipsoids from the separating-hyperplane theorem: the ellipsoids
//!   scaled by `μ` about their centres are disjoint iff some direction `n` has
//!   `n·R > μ (h_A(n) + h_B(n))` (`R = c_B − c_A`), so they touch at
//!   `μ* = max_n n·R / (h_A(n) + h_B(n))` and the Perram–Wertheim value is `F = μ*²`. The ratio is
//!   quasi-concave on the half-space `n·R > 0` (its super-level sets are convex cones), so a local
//!   maximum is global; it is found by dense sampling of the sphere plus compass search. The
//!   maximiser is the common normal, and the touching point is the support point of `μ*·A` along it;
//! * brute-force minimisation of a function over an ellipsoid surface (grid + compass search);
//! * a plain re-implementation of `S(λ) = λ(1−λ) Rᵀ G(λ)⁻¹ R` for cross-checks.
// Every test file includes this module and uses a different subset of it.
#![allow(dead_code)]

pub(crate) mod precise;

use ellipsoid_pw::PwResult;
use geometry_core::{DMat3, DQuat, DVec3, Ellipsoid};
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::f64::consts::{FRAC_1_SQRT_2, PI, TAU};

/// A seeded generator.
pub(crate) fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// A uniformly distributed unit quaternion (Shoemake's method).
pub(crate) fn random_quat(rng: &mut ChaCha8Rng) -> DQuat {
    let u1: f64 = rng.random();
    let u2: f64 = rng.random();
    let u3: f64 = rng.random();
    let (s1, s2) = ((1.0 - u1).sqrt(), u1.sqrt());
    DQuat::from_xyzw(
        s1 * (TAU * u2).sin(),
        s1 * (TAU * u2).cos(),
        s2 * (TAU * u3).sin(),
        s2 * (TAU * u3).cos(),
    )
}

/// A uniformly distributed unit vector.
pub(crate) fn random_unit(rng: &mut ChaCha8Rng) -> DVec3 {
    let z: f64 = rng.random_range(-1.0..1.0);
    let phi: f64 = rng.random_range(0.0..TAU);
    let s = (1.0 - z * z).sqrt();
    DVec3::new(s * phi.cos(), s * phi.sin(), z)
}

/// Semi-axes with largest possible value `size` and aspect ratio at most `max_aspect`
/// (each axis log-uniform in `[size / max_aspect, size]`).
pub(crate) fn random_axes(rng: &mut ChaCha8Rng, size: f64, max_aspect: f64) -> DVec3 {
    let mut axis = || size * max_aspect.powf(-rng.random_range(0.0..1.0));
    DVec3::new(axis(), axis(), axis())
}

/// `10^x` for `x` uniform in `range`.
pub(crate) fn log_uniform(rng: &mut ChaCha8Rng, lo_exp: f64, hi_exp: f64) -> f64 {
    10f64.powf(rng.random_range(lo_exp..hi_exp))
}

/// An ellipsoid from valid input.
pub(crate) fn ellipsoid(center: DVec3, orientation: DQuat, semi_axes: DVec3) -> Ellipsoid {
    Ellipsoid::new(center, orientation, semi_axes).expect("valid ellipsoid")
}

/// A random pair: `a` at a random centre, `b` at distance `k · (max a + max b)` in a random
/// direction, random orientations and shapes (aspect ≤ `max_aspect`, sizes within a factor `size_spread`).
pub(crate) fn random_pair(
    rng: &mut ChaCha8Rng,
    max_aspect: f64,
    size_spread: f64,
    k_range: (f64, f64),
) -> (Ellipsoid, Ellipsoid) {
    let sa = size_spread.powf(rng.random_range(-0.5..0.5));
    let sb = size_spread.powf(rng.random_range(-0.5..0.5));
    let axes_a = random_axes(rng, sa, max_aspect);
    let axes_b = random_axes(rng, sb, max_aspect);
    let ca =
        DVec3::new(rng.random_range(-3.0..3.0), rng.random_range(-3.0..3.0), rng.random_range(-3.0..3.0));
    let k = rng.random_range(k_range.0..k_range.1);
    let cb = ca + random_unit(rng) * (k * (axes_a.max_element() + axes_b.max_element()));
    let (qa, qb) = (random_quat(rng), random_quat(rng));
    (ellipsoid(ca, qa, axes_a), ellipsoid(cb, qb, axes_b))
}

/// A pair in the band between the inscribed- and circumscribed-sphere distances: centre distance
/// uniform in `[min a + min b, max a + max b]`, random orientations, aspect ≤ `max_aspect`,
/// sizes within a factor `size_spread`.
pub(crate) fn band_pair(rng: &mut ChaCha8Rng, max_aspect: f64, size_spread: f64) -> (Ellipsoid, Ellipsoid) {
    let sa = size_spread.powf(rng.random_range(-0.5..0.5));
    let sb = size_spread.powf(rng.random_range(-0.5..0.5));
    let axes_a = random_axes(rng, sa, max_aspect);
    let axes_b = random_axes(rng, sb, max_aspect);
    let lo = axes_a.min_element() + axes_b.min_element();
    let hi = axes_a.max_element() + axes_b.max_element();
    let d = if hi > lo { rng.random_range(lo..hi) } else { lo };
    let ca =
        DVec3::new(rng.random_range(-3.0..3.0), rng.random_range(-3.0..3.0), rng.random_range(-3.0..3.0));
    let cb = ca + random_unit(rng) * d;
    let (qa, qb) = (random_quat(rng), random_quat(rng));
    (ellipsoid(ca, qa, axes_a), ellipsoid(cb, qb, axes_b))
}

/// `κ = −S''(Λ)/S(Λ)` from the plain `S` (second differences): a location error `δ` in Λ costs F a
/// relative `κδ²/2`.
pub(crate) fn relative_curvature(a: &Ellipsoid, b: &Ellipsoid, lambda: f64) -> f64 {
    let h = 1e-4 * lambda.min(1.0 - lambda).max(1e-6);
    let (lo, mid, hi) =
        (s_of_lambda(a, b, lambda - h), s_of_lambda(a, b, lambda), s_of_lambda(a, b, lambda + h));
    (-(hi - 2.0 * mid + lo) / (h * h) / mid).abs()
}

/// Proptest strategy: a unit quaternion (normalised from a box, rejecting short samples).
pub(crate) fn arb_quat() -> impl Strategy<Value = DQuat> {
    [-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64]
        .prop_filter("not too short", |q| q.iter().map(|c| c * c).sum::<f64>() > 0.01)
        .prop_map(|q| DQuat::from_xyzw(q[0], q[1], q[2], q[3]).normalize())
}

/// Proptest strategy: a unit vector.
pub(crate) fn arb_unit() -> impl Strategy<Value = DVec3> {
    [-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64]
        .prop_filter("not too short", |v| v.iter().map(|c| c * c).sum::<f64>() > 0.01)
        .prop_map(|v| DVec3::from_array(v).normalize())
}

/// Proptest strategy: semi-axes of size about 1 with aspect ratio ≤ `max_aspect`.
pub(crate) fn arb_axes(max_aspect: f64) -> impl Strategy<Value = DVec3> {
    (-0.5..0.5f64, 0.0..1.0f64, 0.0..1.0f64, 0.0..1.0f64).prop_map(move |(s, x, y, z)| {
        let size = 10f64.powf(s);
        DVec3::new(size * max_aspect.powf(-x), size * max_aspect.powf(-y), size * max_aspect.powf(-z))
    })
}

/// Proptest strategy: a pair of ellipsoids (aspect ≤ 10) at centre distance
/// `k · (max a + max b)`, `k ∈ [0.05, 1.6)`: deep overlaps, near contacts and separated pairs.
pub(crate) fn arb_pair() -> impl Strategy<Value = (Ellipsoid, Ellipsoid)> {
    (
        arb_axes(10.0),
        arb_axes(10.0),
        arb_quat(),
        arb_quat(),
        arb_unit(),
        [-3.0..3.0f64, -3.0..3.0, -3.0..3.0],
        0.05..1.6f64,
    )
        .prop_map(|(axes_a, axes_b, qa, qb, dir, c, k)| {
            let ca = DVec3::from_array(c);
            let cb = ca + dir * (k * (axes_a.max_element() + axes_b.max_element()));
            (ellipsoid(ca, qa, axes_a), ellipsoid(cb, qb, axes_b))
        })
}

/// A length scale of a pair: the sum of the largest semi-axes.
pub(crate) fn pair_scale(a: &Ellipsoid, b: &Ellipsoid) -> f64 {
    a.semi_axes().max_element() + b.semi_axes().max_element()
}

/// My rotation matrix (columns = body axes in world coordinates).
fn rot(e: &Ellipsoid) -> DMat3 {
    DMat3::from_quat(e.orientation())
}

/// `x` in the body frame of `e`.
pub(crate) fn to_local(e: &Ellipsoid, x: DVec3) -> DVec3 {
    rot(e).transpose() * (x - e.center())
}

/// `q(x) = (x − c)ᵀ A (x − c)`.
pub(crate) fn q_form(e: &Ellipsoid, x: DVec3) -> f64 {
    (to_local(e, x) / e.semi_axes()).length_squared()
}

/// `A (x − c)`: half the gradient of `q` (the outward normal direction at a surface point).
pub(crate) fn half_gradient(e: &Ellipsoid, x: DVec3) -> DVec3 {
    let a = e.semi_axes();
    rot(e) * (to_local(e, x) / (a * a))
}

/// `h(n) = max over the centred solid of n·x = sqrt(nᵀ A⁻¹ n)`.
pub(crate) fn support_radius(e: &Ellipsoid, n: DVec3) -> f64 {
    ((rot(e).transpose() * n) * e.semi_axes()).length()
}

/// The point of the solid where `n·x` is largest.
pub(crate) fn support_point(e: &Ellipsoid, n: DVec3) -> DVec3 {
    let a = e.semi_axes();
    let local = rot(e).transpose() * n;
    let x = local * a * a / (local * a).length();
    e.center() + rot(e) * x
}

/// `A⁻¹ = R diag(a²) Rᵀ`, built here.
pub(crate) fn inverse_shape(e: &Ellipsoid) -> DMat3 {
    let r = rot(e);
    let a = e.semi_axes();
    r * DMat3::from_diagonal(a * a) * r.transpose()
}

/// `S(λ) = λ(1−λ) Rᵀ G(λ)⁻¹ R`, `G = (1−λ)A⁻¹ + λB⁻¹`, straight from the definition.
pub(crate) fn s_of_lambda(a: &Ellipsoid, b: &Ellipsoid, lambda: f64) -> f64 {
    let g = inverse_shape(a) * (1.0 - lambda) + inverse_shape(b) * lambda;
    let r = b.center() - a.center();
    lambda * (1.0 - lambda) * r.dot(g.inverse() * r)
}

/// `G(λ)⁻¹ R`, the unnormalised PW normal at `λ`, from the definition.
fn g_inv_r(a: &Ellipsoid, b: &Ellipsoid, lambda: f64) -> DVec3 {
    let g = inverse_shape(a) * (1.0 - lambda) + inverse_shape(b) * lambda;
    g.inverse() * (b.center() - a.center())
}

/// The PW unit normal at `λ` (not necessarily the maximiser).
pub(crate) fn normal_at(a: &Ellipsoid, b: &Ellipsoid, lambda: f64) -> DVec3 {
    g_inv_r(a, b, lambda).normalize()
}

/// The PW contact point `r_a + (1−λ) A⁻¹ G(λ)⁻¹ R` at `λ`.
pub(crate) fn point_at(a: &Ellipsoid, b: &Ellipsoid, lambda: f64) -> DVec3 {
    a.center() + inverse_shape(a) * g_inv_r(a, b, lambda) * (1.0 - lambda)
}

/// Λ from the optimality condition alone: `x(λ) = argmin λ q_A + (1−λ) q_B` is [`point_at`], and
/// `S'(λ) = q_A(x(λ)) − q_B(x(λ))` (envelope theorem) decreases from `q_A(c_B) > 0` at 0 to
/// `−q_B(c_A) < 0` at 1; its root is found by bisection to the last bit.
pub(crate) fn lambda_root(a: &Ellipsoid, b: &Ellipsoid) -> f64 {
    let slope = |l: f64| {
        let x = point_at(a, b, l);
        q_form(a, x) - q_form(b, x)
    };
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if slope(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// `(|dn/dλ|, |dp/dλ|)` of [`normal_at`] and [`point_at`], by central differences: turns an error
/// bound on Λ into error bounds on the normal and the point.
pub(crate) fn lambda_sensitivity(a: &Ellipsoid, b: &Ellipsoid, lambda: f64) -> (f64, f64) {
    let h = 1e-6;
    let (lo, hi) = ((lambda - h).max(0.0), (lambda + h).min(1.0));
    let dn = (normal_at(a, b, hi) - normal_at(a, b, lo)).length() / (hi - lo);
    let dp = (point_at(a, b, hi) - point_at(a, b, lo)).length() / (hi - lo);
    (dn, dp)
}

/// The surface point of `e` at body-frame spherical angles `(θ, φ)`.
pub(crate) fn surface_point(e: &Ellipsoid, theta: f64, phi: f64) -> DVec3 {
    let a = e.semi_axes();
    let local = DVec3::new(a.x * theta.sin() * phi.cos(), a.y * theta.sin() * phi.sin(), a.z * theta.cos());
    e.center() + rot(e) * local
}

/// Compass search: maximises `f` over unit vectors starting from `start` with angular step `step`.
/// Returns the maximiser and the maximum.
pub(crate) fn maximise_on_sphere(f: impl Fn(DVec3) -> f64, start: DVec3, step: f64) -> (DVec3, f64) {
    let mut n = start.normalize();
    let mut best = f(n);
    let mut step = step;
    let mut iterations = 0u32;
    while step > 1e-13 {
        iterations += 1;
        assert!(iterations < 2_000_000, "compass search on the sphere did not converge");
        let (e1, e2) = n.any_orthonormal_pair();
        let d1 = (e1 + e2) * FRAC_1_SQRT_2;
        let d2 = (e1 - e2) * FRAC_1_SQRT_2;
        let mut moved = false;
        for d in [e1, -e1, e2, -e2, d1, -d1, d2, -d2] {
            let m = (n + d * step).normalize();
            let v = f(m);
            if v > best {
                n = m;
                best = v;
                moved = true;
                break;
            }
        }
        step = if moved { (step * 2.0).min(0.5) } else { step * 0.5 };
    }
    (n, best)
}

/// Compass search: minimises `f(u, v)` from `start` with initial step `step`.
pub(crate) fn minimise_2d(f: impl Fn(f64, f64) -> f64, start: (f64, f64), step: f64) -> ((f64, f64), f64) {
    let (mut u, mut v) = start;
    let mut best = f(u, v);
    let mut step = step;
    let initial = step;
    let mut iterations = 0u32;
    while step > 1e-13 * initial.max(1.0) {
        iterations += 1;
        assert!(iterations < 2_000_000, "2-D compass search did not converge");
        let mut moved = false;
        for (du, dv) in [
            (1.0, 0.0),
            (-1.0, 0.0),
            (0.0, 1.0),
            (0.0, -1.0),
            (FRAC_1_SQRT_2, FRAC_1_SQRT_2),
            (-FRAC_1_SQRT_2, -FRAC_1_SQRT_2),
            (FRAC_1_SQRT_2, -FRAC_1_SQRT_2),
            (-FRAC_1_SQRT_2, FRAC_1_SQRT_2),
        ] {
            let (nu, nv) = (u + du * step, v + dv * step);
            let value = f(nu, nv);
            if value < best {
                (u, v, best) = (nu, nv, value);
                moved = true;
                break;
            }
        }
        step = if moved { (step * 2.0).min(initial) } else { step * 0.5 };
    }
    ((u, v), best)
}

/// Points spread evenly over the unit sphere (Fibonacci lattice).
pub(crate) fn fibonacci_sphere(count: usize) -> Vec<DVec3> {
    let golden = PI * (3.0 - 5f64.sqrt());
    (0..count)
        .map(|i| {
            let z = 1.0 - (i as f64 + 0.5) * 2.0 / count as f64;
            let s = (1.0 - z * z).sqrt();
            let phi = golden * i as f64;
            DVec3::new(s * phi.cos(), s * phi.sin(), z)
        })
        .collect()
}

/// The independent touching oracle of a pair (see the module docs).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Touch {
    /// `μ*`: the common scale at which the ellipsoids touch.
    pub(crate) mu: f64,
    /// `F = μ*²`.
    pub(crate) f: f64,
    /// Unit common normal, from A towards B.
    pub(crate) normal: DVec3,
    /// The touching point of the scaled ellipsoids.
    pub(crate) point: DVec3,
}

/// Computes [`Touch`] by maximising `n·R / (h_A(n) + h_B(n))` over unit `n`.
pub(crate) fn touch_oracle(a: &Ellipsoid, b: &Ellipsoid) -> Touch {
    let r = b.center() - a.center();
    let ratio = |n: DVec3| n.dot(r) / (support_radius(a, n) + support_radius(b, n));
    let start = fibonacci_sphere(600)
        .into_iter()
        .chain([r.normalize()])
        .max_by(|x, y| ratio(*x).total_cmp(&ratio(*y)))
        .expect("non-empty");
    let (normal, mu) = maximise_on_sphere(ratio, start, 0.05);
    let ha = support_radius(a, normal);
    let point = a.center() + (support_point(a, normal) - a.center()) * mu;
    debug_assert!(ha > 0.0);
    Touch { mu, f: mu * mu, normal, point }
}

/// Brute-force minimum of `g` over the surface of `e`: a `θ × φ` grid, then compass search from
/// the best grid point. Returns the minimum and the surface point attaining it.
pub(crate) fn surface_min(e: &Ellipsoid, g: impl Fn(DVec3) -> f64) -> (f64, DVec3) {
    const N_THETA: usize = 120;
    const N_PHI: usize = 240;
    let mut best = (f64::INFINITY, 0.0, 0.0);
    for i in 0..N_THETA {
        let theta = (i as f64 + 0.5) * PI / N_THETA as f64;
        for j in 0..N_PHI {
            let phi = j as f64 * TAU / N_PHI as f64;
            let value = g(surface_point(e, theta, phi));
            if value < best.0 {
                best = (value, theta, phi);
            }
        }
    }
    let ((theta, phi), value) =
        minimise_2d(|t, p| g(surface_point(e, t, p)), (best.1, best.2), PI / N_THETA as f64);
    (value, surface_point(e, theta, phi))
}

/// Relative difference `|x − y| / |y|` (absolute when `y == 0`).
pub(crate) fn rel(x: f64, y: f64) -> f64 {
    if y == 0.0 { x.abs() } else { (x - y).abs() / y.abs() }
}

/// All the fields of a result, as bits, for exact comparisons.
pub(crate) fn result_bits(r: &PwResult) -> Vec<u64> {
    let mut bits = vec![r.f.to_bits(), r.lambda.to_bits(), r.mu.to_bits(), r.u_n.to_bits()];
    bits.extend(r.normal.to_array().map(f64::to_bits));
    bits.extend(r.point.to_array().map(f64::to_bits));
    bits.push(u64::from(r.overlapping));
    bits.push(u64::from(r.iterations));
    bits
}

/// A short description of a pair, for failure messages.
pub(crate) fn describe(a: &Ellipsoid, b: &Ellipsoid) -> String {
    format!(
        "a = Ellipsoid::new({:?}, {:?}, {:?}), b = Ellipsoid::new({:?}, {:?}, {:?})",
        a.center(),
        a.orientation(),
        a.semi_axes(),
        b.center(),
        b.orientation(),
        b.semi_axes()
    )
}
