//! Oracle tests for the exact orientation predicates.
//!
//! Every expected sign is computed independently: each `f64` coordinate is converted *exactly*
//! to a big rational (decoded from its bit pattern), the determinant is evaluated in exact
//! rational arithmetic, and its sign is compared with the library's answer. Small-integer inputs
//! are additionally checked against `i128` determinants.

use geometry_core::predicates::{Sign, collinear3d, orient2d, orient3d};
use geometry_core::{DVec2, DVec3, Triangle};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, Zero};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------------
// Exact arithmetic oracle
// ---------------------------------------------------------------------------------------------

/// The exact value of a finite `f64` as a big rational: `±mantissa · 2^exponent`, decoded from
/// the IEEE-754 bit pattern.
fn exact(x: f64) -> BigRational {
    assert!(x.is_finite(), "exact() needs a finite input, got {x}");
    let bits = x.to_bits();
    let negative = bits >> 63 == 1;
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let fraction = bits & ((1u64 << 52) - 1);
    let (mantissa, exponent) =
        if biased == 0 { (fraction, -1074_i64) } else { (fraction | (1u64 << 52), biased - 1075) };
    let mut m = BigInt::from(mantissa);
    if negative {
        m = -m;
    }
    if exponent >= 0 {
        BigRational::from_integer(m << (exponent as usize))
    } else {
        BigRational::new(m, BigInt::one() << ((-exponent) as usize))
    }
}

fn sign_of(r: &BigRational) -> Sign {
    if r.is_zero() {
        Sign::Zero
    } else if r.is_positive() {
        Sign::Positive
    } else {
        Sign::Negative
    }
}

/// Exact `(b - a) × (c - a)` (the z component of the 2D cross product).
fn exact_det2(a: DVec2, b: DVec2, c: DVec2) -> BigRational {
    let (ax, ay) = (exact(a.x), exact(a.y));
    let (ux, uy) = (exact(b.x) - &ax, exact(b.y) - &ay);
    let (vx, vy) = (exact(c.x) - &ax, exact(c.y) - &ay);
    ux * vy - uy * vx
}

type Vec3Q = [BigRational; 3];

fn exact3(p: DVec3) -> Vec3Q {
    [exact(p.x), exact(p.y), exact(p.z)]
}

fn sub3(p: &Vec3Q, q: &Vec3Q) -> Vec3Q {
    [&p[0] - &q[0], &p[1] - &q[1], &p[2] - &q[2]]
}

fn cross3(u: &Vec3Q, v: &Vec3Q) -> Vec3Q {
    [&u[1] * &v[2] - &u[2] * &v[1], &u[2] * &v[0] - &u[0] * &v[2], &u[0] * &v[1] - &u[1] * &v[0]]
}

/// Exact `det[b - a, c - a, d - a]`.
fn exact_det3(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> BigRational {
    let qa = exact3(a);
    let u = sub3(&exact3(b), &qa);
    let v = sub3(&exact3(c), &qa);
    let w = sub3(&exact3(d), &qa);
    let n = cross3(&u, &v);
    &n[0] * &w[0] + &n[1] * &w[1] + &n[2] * &w[2]
}

/// Exact collinearity: `(b - a) × (c - a)` is the zero vector.
fn exact_collinear(a: DVec3, b: DVec3, c: DVec3) -> bool {
    let qa = exact3(a);
    let n = cross3(&sub3(&exact3(b), &qa), &sub3(&exact3(c), &qa));
    n.iter().all(Zero::is_zero)
}

fn check2(a: DVec2, b: DVec2, c: DVec2) -> Result<(), TestCaseError> {
    let expected = sign_of(&exact_det2(a, b, c));
    prop_assert_eq!(orient2d(a, b, c), expected, "orient2d({:?}, {:?}, {:?})", a, b, c);
    Ok(())
}

fn check3(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> Result<(), TestCaseError> {
    let expected = sign_of(&exact_det3(a, b, c, d));
    prop_assert_eq!(orient3d(a, b, c, d), expected, "orient3d({:?}, {:?}, {:?}, {:?})", a, b, c, d);
    Ok(())
}

fn check_collinear(a: DVec3, b: DVec3, c: DVec3) -> Result<(), TestCaseError> {
    let expected = exact_collinear(a, b, c);
    prop_assert_eq!(collinear3d(a, b, c), expected, "collinear3d({:?}, {:?}, {:?})", a, b, c);
    prop_assert_eq!(
        Triangle::new(a, b, c).is_degenerate(),
        expected,
        "Triangle::is_degenerate({:?}, {:?}, {:?})",
        a,
        b,
        c
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Self-tests of the oracle
// ---------------------------------------------------------------------------------------------

fn pow2(e: i64) -> BigRational {
    if e >= 0 {
        BigRational::from_integer(BigInt::one() << (e as usize))
    } else {
        BigRational::new(BigInt::one(), BigInt::one() << ((-e) as usize))
    }
}

#[test]
fn exact_conversion_known_values() {
    assert!(exact(0.0).is_zero());
    assert!(exact(-0.0).is_zero());
    assert_eq!(exact(1.0), BigRational::one());
    assert_eq!(exact(-1.5), BigRational::new(BigInt::from(-3), BigInt::from(2)));
    assert_eq!(exact(0.1), BigRational::new(BigInt::from(3_602_879_701_896_397_u64), BigInt::one() << 55));
    assert_eq!(exact(0.5), pow2(-1));
    assert_eq!(exact(2f64.powi(60)), pow2(60));
    assert_eq!(exact(f64::MIN_POSITIVE), pow2(-1022));
    assert_eq!(exact(f64::from_bits(1)), pow2(-1074));
    assert_eq!(exact(f64::MAX), BigRational::from_integer(BigInt::from((1u64 << 53) - 1)) * pow2(971));
    // 0.1 + 0.2 != 0.3, and the exact values say so too.
    assert_ne!(exact(0.1) + exact(0.2), exact(0.3));
    assert_ne!(exact(0.1 + 0.2), exact(0.3));
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn exact_conversion_matches_integers_and_order(i in any::<i32>(), x in any::<f64>(), y in any::<f64>()) {
        prop_assume!(x.is_finite() && y.is_finite());
        prop_assert_eq!(exact(f64::from(i)), BigRational::from_integer(BigInt::from(i)));
        // Conversion preserves order and equality.
        prop_assert_eq!(exact(x).cmp(&exact(y)), x.partial_cmp(&y).unwrap());
        // Halving a normal number is exact.
        if x.is_normal() && (x / 2.0).is_normal() {
            prop_assert_eq!(exact(x / 2.0), exact(x) * pow2(-1));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------------------------

/// Proptest settings: `cases` cases, no regression files (shrunk failures are printed instead).
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(cases) }
}

/// A float of magnitude roughly `1e-30 ..= 1e30` with a uniformly random 52-bit mantissa.
fn log_uniform() -> impl Strategy<Value = f64> + Clone {
    (any::<bool>(), 0u64..(1u64 << 52), -99i32..=98).prop_map(|(negative, fraction, e)| {
        let m = f64::from_bits(0x3ff0_0000_0000_0000 | fraction); // in [1, 2)
        let v = m * 2f64.powi(e);
        if negative { -v } else { v }
    })
}

/// A mix of ordinary, wide-range, small-integer and zero coordinates.
fn coord() -> impl Strategy<Value = f64> + Clone {
    prop_oneof![
        4 => -1000.0..1000.0f64,
        3 => log_uniform(),
        2 => (-8i32..=8).prop_map(f64::from),
        1 => Just(0.0),
    ]
}

/// Coordinates drawn from decimal fractions that are not representable in binary, and from
/// rounded sums of them: the classic "looks degenerate but is not" inputs.
fn decimal_coord() -> impl Strategy<Value = f64> + Clone {
    prop::sample::select(vec![
        0.1,
        0.2,
        0.3,
        0.6,
        0.7,
        0.9,
        1.0,
        0.1 + 0.2,
        0.3 - 0.1,
        0.7 - 0.4,
        1.0 / 3.0,
        2.0 / 3.0,
        -0.1,
        -0.3,
        0.0,
        1.1,
    ])
}

fn pt2(s: impl Strategy<Value = f64> + Clone) -> impl Strategy<Value = DVec2> {
    (s.clone(), s).prop_map(|(x, y)| DVec2::new(x, y))
}

fn pt3(s: impl Strategy<Value = f64> + Clone) -> impl Strategy<Value = DVec3> {
    (s.clone(), s.clone(), s).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

/// Moves `x` by `steps` ulps (towards +inf for positive `steps`).
///
/// Zero is left alone: its neighbours are subnormal, and the predicates are documented to be
/// exact only while no intermediate product underflows (magnitudes above roughly `1e-70`).
fn ulps(mut x: f64, steps: i32) -> f64 {
    if x == 0.0 {
        return x;
    }
    for _ in 0..steps.unsigned_abs() {
        x = if steps > 0 { x.next_up() } else { x.next_down() };
    }
    x
}

/// A per-coordinate ulp perturbation, zero half of the time.
fn perturbation() -> impl Strategy<Value = i32> {
    prop_oneof![3 => Just(0), 1 => -2i32..=2]
}

/// A scale `10^k` (rounded), `k` in `-30..=30`.
fn decimal_scale() -> impl Strategy<Value = f64> + Clone {
    (-30i32..=30).prop_map(|k| 10f64.powi(k))
}

// ---------------------------------------------------------------------------------------------
// orient2d
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn orient2d_general_points(a in pt2(coord()), b in pt2(coord()), c in pt2(coord())) {
        check2(a, b, c)?;
    }

    #[test]
    fn orient2d_rounded_points_on_a_line(
        a in pt2(coord()),
        b in pt2(coord()),
        t in prop_oneof![-2.0..3.0f64, Just(0.5), Just(0.1), Just(1.0 / 3.0)],
        (px, py) in (perturbation(), perturbation()),
    ) {
        // c = a + t (b - a), rounded: almost always just off the line, sometimes exactly on it.
        let c = a + t * (b - a);
        let c = DVec2::new(ulps(c.x, px), ulps(c.y, py));
        check2(a, b, c)?;
        check2(c, a, b)?;
    }

    #[test]
    fn orient2d_decimal_fractions(a in pt2(decimal_coord()), b in pt2(decimal_coord()), c in pt2(decimal_coord())) {
        check2(a, b, c)?;
    }

    #[test]
    fn orient2d_scaled_lattice_configurations(
        a in pt2((-4i32..=4).prop_map(f64::from)),
        b in pt2((-4i32..=4).prop_map(f64::from)),
        k in -3i32..=3,
        s in decimal_scale(),
        p in perturbation(),
    ) {
        // Exactly collinear in the lattice; scaling by a rounded power of ten and one optional ulp
        // nudge turns the configuration into a near-degenerate one at magnitudes 1e-30..1e30.
        let c = a + f64::from(k) * (b - a);
        let (a, b, c) = (a * s, b * s, c * s);
        let c = DVec2::new(ulps(c.x, p), c.y);
        check2(a, b, c)?;
    }

    #[test]
    fn orient2d_exact_lattice_degeneracies(
        a in pt2((-1000i32..=1000).prop_map(f64::from)),
        b in pt2((-1000i32..=1000).prop_map(f64::from)),
        t_eighths in -40i32..=40,
    ) {
        // c = a + t (b - a) with t a multiple of 1/8: exactly representable, exactly collinear.
        let t = f64::from(t_eighths) / 8.0;
        let c = a + t * (b - a);
        prop_assert_eq!(orient2d(a, b, c), Sign::Zero);
        prop_assert_eq!(orient2d(c, b, a), Sign::Zero);
    }
}

fn i128_det2(a: [i64; 2], b: [i64; 2], c: [i64; 2]) -> i128 {
    let (ux, uy) = (i128::from(b[0] - a[0]), i128::from(b[1] - a[1]));
    let (vx, vy) = (i128::from(c[0] - a[0]), i128::from(c[1] - a[1]));
    ux * vy - uy * vx
}

fn sign_i128(v: i128) -> Sign {
    match v.signum() {
        -1 => Sign::Negative,
        0 => Sign::Zero,
        _ => Sign::Positive,
    }
}

const LIM: i64 = 1 << 20;

fn int_pt2() -> impl Strategy<Value = [i64; 2]> {
    [-LIM..LIM, -LIM..LIM]
}

fn int_pt3() -> impl Strategy<Value = [i64; 3]> {
    [-LIM..LIM, -LIM..LIM, -LIM..LIM]
}

fn f2(p: [i64; 2]) -> DVec2 {
    DVec2::new(p[0] as f64, p[1] as f64)
}

fn f3(p: [i64; 3]) -> DVec3 {
    DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64)
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn orient2d_integer_coordinates_vs_i128(a in int_pt2(), b in int_pt2(), c in int_pt2()) {
        prop_assert_eq!(orient2d(f2(a), f2(b), f2(c)), sign_i128(i128_det2(a, b, c)));
    }

    #[test]
    fn orient2d_integer_near_collinear_vs_i128(
        a in [-1000i64..1000, -1000i64..1000],
        d in [-1000i64..1000, -1000i64..1000],
        k in -1000i64..1000,
        nudge in [-1i64..=1, -1i64..=1],
    ) {
        // c = a + k d (+ a unit nudge): exactly collinear, or off the line by the smallest amount.
        let c = [a[0] + k * d[0] + nudge[0], a[1] + k * d[1] + nudge[1]];
        let b = [a[0] + d[0], a[1] + d[1]];
        let expected = sign_i128(i128_det2(a, b, c));
        prop_assert_eq!(orient2d(f2(a), f2(b), f2(c)), expected);
        if nudge == [0, 0] {
            prop_assert_eq!(expected, Sign::Zero);
        }
    }
}

#[test]
fn orient2d_known_small_cases() {
    let (o, x, y) = (DVec2::ZERO, DVec2::X, DVec2::Y);
    assert_eq!(orient2d(o, x, y), Sign::Positive); // counter-clockwise
    assert_eq!(orient2d(o, y, x), Sign::Negative); // clockwise
    assert_eq!(orient2d(x, y, o), Sign::Positive); // cyclic shift keeps the sign
    assert_eq!(orient2d(o, x, DVec2::new(2.0, 0.0)), Sign::Zero);
    assert_eq!(orient2d(o, o, y), Sign::Zero); // repeated point
    assert_eq!(orient2d(o, o, o), Sign::Zero);
    assert_eq!(orient2d(DVec2::new(1.0, 1.0), DVec2::new(2.0, 2.0), DVec2::new(-5.0, -5.0)), Sign::Zero);
    assert_eq!(orient2d(DVec2::new(1.0, 1.0), DVec2::new(2.0, 2.0), DVec2::new(-5.0, -4.0)), Sign::Positive);
    // (0.1, 0.1), (0.2, 0.2), (0.3, 0.3): all coordinates equal per point, so exactly collinear.
    assert_eq!(orient2d(DVec2::splat(0.1), DVec2::splat(0.2), DVec2::splat(0.3)), Sign::Zero);
    // Shewchuk's classic example: a point one ulp off the line y = x near 0.5.
    let p = DVec2::new(0.5, 0.5f64.next_up());
    assert_eq!(orient2d(DVec2::new(12.0, 12.0), DVec2::new(24.0, 24.0), p), Sign::Positive);
    let q = DVec2::new(0.5, 0.5f64.next_down());
    assert_eq!(orient2d(DVec2::new(12.0, 12.0), DVec2::new(24.0, 24.0), q), Sign::Negative);
}

/// A dense sweep over the near-degenerate grid of Kettner et al.: points `(0.5, 0.5) + (i, j)` ulps
/// tested against the line y = x through (12, 12) and (24, 24). Naive floating-point evaluation
/// gets many of these wrong.
#[test]
fn orient2d_ulp_grid_sweep() {
    let (q, r) = (DVec2::new(12.0, 12.0), DVec2::new(24.0, 24.0));
    let mut seen = [0usize; 3];
    for i in -32..=32 {
        for j in -32..=32 {
            let p = DVec2::new(ulps(0.5, i), ulps(0.5, j));
            let expected = sign_of(&exact_det2(p, q, r));
            assert_eq!(orient2d(p, q, r), expected, "p = {p:?}");
            seen[(expected.as_i32() + 1) as usize] += 1;
        }
    }
    assert!(seen.iter().all(|&n| n > 0), "sweep covers all three signs: {seen:?}");
}

// ---------------------------------------------------------------------------------------------
// orient3d
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn orient3d_general_points(a in pt3(coord()), b in pt3(coord()), c in pt3(coord()), d in pt3(coord())) {
        check3(a, b, c, d)?;
    }

    #[test]
    fn orient3d_rounded_points_on_a_plane(
        a in pt3(coord()),
        b in pt3(coord()),
        c in pt3(coord()),
        s in prop_oneof![-2.0..3.0f64, Just(0.5), Just(0.1)],
        t in prop_oneof![-2.0..3.0f64, Just(0.25), Just(0.3)],
        (px, py, pz) in (perturbation(), perturbation(), perturbation()),
    ) {
        let d = a + s * (b - a) + t * (c - a);
        let d = DVec3::new(ulps(d.x, px), ulps(d.y, py), ulps(d.z, pz));
        check3(a, b, c, d)?;
        check3(d, a, b, c)?;
    }

    #[test]
    fn orient3d_decimal_fractions(
        a in pt3(decimal_coord()),
        b in pt3(decimal_coord()),
        c in pt3(decimal_coord()),
        d in pt3(decimal_coord()),
    ) {
        check3(a, b, c, d)?;
    }

    #[test]
    fn orient3d_scaled_lattice_configurations(
        a in pt3((-4i32..=4).prop_map(f64::from)),
        b in pt3((-4i32..=4).prop_map(f64::from)),
        c in pt3((-4i32..=4).prop_map(f64::from)),
        (k, l) in (-3i32..=3, -3i32..=3),
        s in decimal_scale(),
        p in perturbation(),
    ) {
        let d = a + f64::from(k) * (b - a) + f64::from(l) * (c - a);
        let (a, b, c, d) = (a * s, b * s, c * s, d * s);
        let d = DVec3::new(d.x, ulps(d.y, p), d.z);
        check3(a, b, c, d)?;
    }

    #[test]
    fn orient3d_mixed_magnitudes(
        a in pt3(log_uniform()),
        b in pt3(log_uniform()),
        c in pt3(log_uniform()),
        t in 0.0..1.0f64,
        p in perturbation(),
    ) {
        // A fourth point on (or one ulp off) the rounded segment between two wide-range points.
        let d = a + t * (b - a);
        let d = DVec3::new(ulps(d.x, p), d.y, d.z);
        check3(a, b, c, d)?;
        check3(a, b, d, c)?;
    }

    #[test]
    fn orient3d_exact_lattice_degeneracies(
        a in pt3((-1000i32..=1000).prop_map(f64::from)),
        b in pt3((-1000i32..=1000).prop_map(f64::from)),
        c in pt3((-1000i32..=1000).prop_map(f64::from)),
        (s8, t8) in (-16i32..=16, -16i32..=16),
    ) {
        // Dyadic combinations of integer points are exact in f64: exactly coplanar.
        let d = a + f64::from(s8) / 8.0 * (b - a) + f64::from(t8) / 8.0 * (c - a);
        prop_assert_eq!(orient3d(a, b, c, d), Sign::Zero);
        prop_assert_eq!(orient3d(d, c, b, a), Sign::Zero);
    }

    #[test]
    fn orient3d_known_side_of_lattice_plane(
        a in [-50i64..50, -50i64..50, -50i64..50],
        u in [-50i64..50, -50i64..50, -50i64..50],
        v in [-50i64..50, -50i64..50, -50i64..50],
        (s, t) in (-5i64..=5, -5i64..=5),
        h in -3i64..=3,
    ) {
        // d - a = s u + t v + h (u × v)  =>  det[u, v, d - a] = h |u × v|²: its sign is sign(h)
        // (or zero when u and v are parallel).
        let n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
        let d: [i64; 3] = std::array::from_fn(|i| a[i] + s * u[i] + t * v[i] + h * n[i]);
        let b: [i64; 3] = std::array::from_fn(|i| a[i] + u[i]);
        let c: [i64; 3] = std::array::from_fn(|i| a[i] + v[i]);
        let expected = if n == [0, 0, 0] { Sign::Zero } else { sign_i128(i128::from(h)) };
        prop_assert_eq!(orient3d(f3(a), f3(b), f3(c), f3(d)), expected);
    }
}

fn i128_det3(a: [i64; 3], b: [i64; 3], c: [i64; 3], d: [i64; 3]) -> i128 {
    let m = |p: [i64; 3]| [0, 1, 2].map(|i| i128::from(p[i] - a[i]));
    let (u, v, w) = (m(b), m(c), m(d));
    u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0])
        + u[2] * (v[0] * w[1] - v[1] * w[0])
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn orient3d_integer_coordinates_vs_i128(a in int_pt3(), b in int_pt3(), c in int_pt3(), d in int_pt3()) {
        prop_assert_eq!(orient3d(f3(a), f3(b), f3(c), f3(d)), sign_i128(i128_det3(a, b, c, d)));
    }

    #[test]
    fn orient3d_integer_near_coplanar_vs_i128(
        a in [-300i64..300, -300i64..300, -300i64..300],
        u in [-300i64..300, -300i64..300, -300i64..300],
        v in [-300i64..300, -300i64..300, -300i64..300],
        (s, t) in (-1000i64..1000, -1000i64..1000),
        nudge in [-1i64..=1, -1i64..=1, -1i64..=1],
    ) {
        let b: [i64; 3] = std::array::from_fn(|i| a[i] + u[i]);
        let c: [i64; 3] = std::array::from_fn(|i| a[i] + v[i]);
        let d: [i64; 3] = std::array::from_fn(|i| a[i] + s * u[i] + t * v[i] + nudge[i]);
        let expected = sign_i128(i128_det3(a, b, c, d));
        prop_assert_eq!(orient3d(f3(a), f3(b), f3(c), f3(d)), expected);
        if nudge == [0, 0, 0] {
            prop_assert_eq!(expected, Sign::Zero);
        }
    }
}

#[test]
fn orient3d_known_small_cases() {
    let (o, x, y, z) = (DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z);
    // d above the counter-clockwise triangle (o, x, y), whose normal is +z.
    assert_eq!(orient3d(o, x, y, z), Sign::Positive);
    assert_eq!(orient3d(o, x, y, -z), Sign::Negative);
    assert_eq!(orient3d(o, y, x, z), Sign::Negative);
    assert_eq!(orient3d(o, x, y, DVec3::new(0.1, 0.2, 0.0)), Sign::Zero);
    assert_eq!(orient3d(o, x, y, DVec3::new(7.0, -3.0, 0.0)), Sign::Zero);
    assert_eq!(orient3d(o, o, y, z), Sign::Zero);
    // Unit cube corners: (1,1,1) lies above the face (o, x, y) and the plane x + y + z = 1
    // separates o from (1,1,1).
    assert_eq!(orient3d(x, y, z, DVec3::ONE), Sign::Positive);
    assert_eq!(orient3d(x, y, z, o), Sign::Negative);
    // 1/3 rounds down, so 3 · fl(1/3) < 1: the point is just below the plane x + y + z = 1.
    assert_eq!(orient3d(x, y, z, DVec3::splat(1.0 / 3.0)), Sign::Negative);
    // Coplanar with decimal coordinates that are equal per point: the plane x = y contains them.
    let p = |v: f64, w: f64| DVec3::new(v, v, w);
    assert_eq!(orient3d(p(0.1, 0.7), p(0.2, 0.3), p(0.3, 0.9), p(0.6, 0.1)), Sign::Zero);
}

#[test]
fn orient3d_ulp_grid_sweep() {
    // Plane through three points with z = x + y (exact at these integers); sweep the height of a
    // point near (0.5, 0.25, 0.75) over a few ulps.
    let (a, b, c) = (DVec3::new(12.0, 0.0, 12.0), DVec3::new(0.0, 24.0, 24.0), DVec3::new(24.0, 12.0, 36.0));
    let mut seen = [0usize; 3];
    for i in -8..=8 {
        for j in -8..=8 {
            for k in -8..=8 {
                let d = DVec3::new(ulps(0.5, i), ulps(0.25, j), ulps(0.75, k));
                let expected = sign_of(&exact_det3(a, b, c, d));
                assert_eq!(orient3d(a, b, c, d), expected, "d = {d:?}");
                seen[(expected.as_i32() + 1) as usize] += 1;
            }
        }
    }
    assert!(seen.iter().all(|&n| n > 0), "sweep covers all three signs: {seen:?}");
}

// ---------------------------------------------------------------------------------------------
// collinear3d (and Triangle::is_degenerate, which is documented to use it)
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn collinear3d_general_points(a in pt3(coord()), b in pt3(coord()), c in pt3(coord())) {
        check_collinear(a, b, c)?;
    }

    #[test]
    fn collinear3d_rounded_points_on_a_line(
        a in pt3(coord()),
        b in pt3(coord()),
        t in prop_oneof![-2.0..3.0f64, Just(0.5), Just(2.0), Just(0.1)],
        (px, py, pz) in (perturbation(), perturbation(), perturbation()),
    ) {
        let c = a + t * (b - a);
        let c = DVec3::new(ulps(c.x, px), ulps(c.y, py), ulps(c.z, pz));
        check_collinear(a, b, c)?;
        check_collinear(c, b, a)?;
    }

    #[test]
    fn collinear3d_decimal_fractions(a in pt3(decimal_coord()), b in pt3(decimal_coord()), c in pt3(decimal_coord())) {
        check_collinear(a, b, c)?;
    }

    #[test]
    fn collinear3d_exact_lattice_lines(
        a in pt3((-1000i32..=1000).prop_map(f64::from)),
        b in pt3((-1000i32..=1000).prop_map(f64::from)),
        t_quarters in -40i32..=40,
        nudge_axis in 0usize..3,
        nudge in prop_oneof![Just(0i32), Just(1), Just(-1)],
    ) {
        let t = f64::from(t_quarters) / 4.0;
        let on_line = a + t * (b - a);
        let mut c = on_line;
        c[nudge_axis] = ulps(c[nudge_axis], nudge);
        // Exactly collinear unless nudged off the line; a nudge along the nudged axis keeps the
        // point on the line only when the line is parallel to that axis (or a = b).
        let d = b - a;
        let parallel_to_axis = (0..3).all(|i| i == nudge_axis || d[i] == 0.0);
        let expected = c == on_line || parallel_to_axis;
        prop_assert_eq!(collinear3d(a, b, c), expected, "a={:?} b={:?} c={:?}", a, b, c);
        prop_assert_eq!(exact_collinear(a, b, c), expected);
    }
}

#[test]
fn collinear3d_known_small_cases() {
    assert!(collinear3d(DVec3::ZERO, DVec3::ONE, DVec3::splat(3.0)));
    assert!(collinear3d(DVec3::ZERO, DVec3::ZERO, DVec3::ZERO)); // coincident
    assert!(collinear3d(DVec3::ONE, DVec3::ONE, DVec3::new(5.0, -2.0, 7.0))); // two coincide
    assert!(!collinear3d(DVec3::ZERO, DVec3::X, DVec3::Y));
    // Collinear in the xy projection only: not collinear in space.
    assert!(!collinear3d(DVec3::ZERO, DVec3::new(1.0, 1.0, 0.0), DVec3::new(2.0, 2.0, 1.0)));
    // A line parallel to an axis, with the decimal coordinates that defeat naive arithmetic.
    assert!(collinear3d(
        DVec3::new(0.1, 0.2, 0.3),
        DVec3::new(0.7, 0.2, 0.3),
        DVec3::new(0.1 + 0.2, 0.2, 0.3)
    ));
    // The diagonal: (0.1+0.2) on every axis is still on the line x = y = z.
    assert!(collinear3d(DVec3::splat(0.1), DVec3::splat(0.2), DVec3::splat(0.1 + 0.2)));
    // (0.1, 0.2, 0.3) vs (0.2, 0.4, 0.6): 2 · 0.1 == 0.2 exactly (binary scaling), and so on.
    assert!(collinear3d(DVec3::ZERO, DVec3::new(0.1, 0.2, 0.3), DVec3::new(0.2, 0.4, 0.6)));
    // ... but 3 · 0.1 != 0.3, so (0.3, 0.6, 0.9) is off the line through 0 and (0.1, 0.2, 0.3).
    let c = DVec3::new(0.3, 0.6, 0.9);
    assert_eq!(
        collinear3d(DVec3::ZERO, DVec3::new(0.1, 0.2, 0.3), c),
        exact_collinear(DVec3::ZERO, DVec3::new(0.1, 0.2, 0.3), c)
    );
}

// ---------------------------------------------------------------------------------------------
// Sign helpers
// ---------------------------------------------------------------------------------------------

#[test]
fn sign_helpers() {
    assert_eq!(Sign::of(2.5), Sign::Positive);
    assert_eq!(Sign::of(f64::MIN_POSITIVE / 4.0), Sign::Positive);
    assert_eq!(Sign::of(-1e-300), Sign::Negative);
    assert_eq!(Sign::of(0.0), Sign::Zero);
    assert_eq!(Sign::of(-0.0), Sign::Zero);
    assert_eq!(Sign::of(f64::NAN), Sign::Zero);
    assert_eq!(Sign::of(f64::INFINITY), Sign::Positive);
    assert_eq!(Sign::of(f64::NEG_INFINITY), Sign::Negative);
    assert_eq!([Sign::Negative, Sign::Zero, Sign::Positive].map(Sign::as_i32), [-1, 0, 1]);
    assert_eq!(
        [Sign::Negative, Sign::Zero, Sign::Positive].map(Sign::flip),
        [Sign::Positive, Sign::Zero, Sign::Negative]
    );
    assert!(Sign::Negative < Sign::Zero && Sign::Zero < Sign::Positive);
}
