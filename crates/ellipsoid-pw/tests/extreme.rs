//! Thin bodies, extreme aspect ratios and extreme scales, against the double-double world-frame
//! oracle of `common::precise` (independent of the crate's body-frame formulation):
//!
//! 1. the reviewers' reproducers as fixed cases: a small body against a 562-long needle (true
//!    `F = 0.75561…`, also computed by the reviewers with 40-digit mpmath), and equal spheres of
//!    radius `1e∓170` at distance `1.5` radii (`F = (1.5 / 2)² = 0.5625` in closed form);
//! 2. proptest: semi-axes log-uniform in `[1e-3, 1e3]` (aspect up to 1e6), random orientations,
//!    centre distance chosen so that the oracle's `F` lies in `[0.25, 4]` or within `1e-6` of 1:
//!    both methods within [`F_TOL`] of the oracle, the overlap decision right whenever
//!    `|F − 1|` exceeds the margin, and `solve(a, b)` equal to `solve(b, a)` (`F`, `Λ ↔ 1 − Λ`,
//!    `n ↔ −n`, the point);
//! 3. scale: a pair scaled by `2^k`, `|k| <= 1000`, gives bit-identical `F`, `Λ` and normal, and the
//!    point and `u_n` scaled by exactly `2^k`;
//! 4. range: lengths spanning more than `2^100` are refused with a typed error, and pairs just
//!    inside the limit are solved with finite results.

mod common;

use common::precise::{place_at, precise_f};
use common::{arb_quat, arb_unit, describe, ellipsoid, rel};
use ellipsoid_pw::{PerramWertheim, PwError};
use geometry_core::{DQuat, DVec3, Ellipsoid};
use proptest::prelude::*;

/// Relative agreement of `F` with the oracle on thin pairs. Perturbation bound: the crate rounds
/// the relative rotation (`~1e-16` rad), which moves a 1e3-long axis tip by `~1e-13`, i.e. a
/// relative `1e-10` of a `1e-3` thickness; with a factor for the few roundings of the solve.
const F_TOL: f64 = 1e-8;

/// Overlap decisions are checked only where the oracle's `|F − 1|` exceeds this.
const DECISION_MARGIN: f64 = 1e-7;

fn solvers() -> [(&'static str, PerramWertheim); 2] {
    [("brent", PerramWertheim::brent()), ("newton", PerramWertheim::newton())]
}

/// The reviewers' pair, with their digits as printed.
#[allow(clippy::unreadable_literal)]
fn reproducer_a() -> (Ellipsoid, Ellipsoid) {
    let a = Ellipsoid::new(
        DVec3::ZERO,
        DQuat::from_xyzw(0.5936325235792861, 0.7264237011887997, -0.18881499431575421, -0.29027216749388063),
        DVec3::new(0.0019599729911177494, 0.011913369307071707, 0.08511205802070097),
    )
    .unwrap();
    let b = Ellipsoid::new(
        DVec3::new(-0.006515980137574391, -0.010427915237230237, -0.011702576050008875),
        DQuat::from_xyzw(-0.5497843336037255, 0.16074559343034753, 0.587596776023892, 0.5715138401849607),
        DVec3::new(562.4121213279194, 0.1400793149514335, 0.0019002152608867025),
    )
    .unwrap();
    (a, b)
}

/// Checks both methods, both orders, against the oracle `truth`.
fn check_pair(a: &Ellipsoid, b: &Ellipsoid, truth: f64) -> Result<(), String> {
    let ctx = describe(a, b);
    for (name, pw) in solvers() {
        let ab = pw.solve(a, b).map_err(|e| format!("{name} (a, b): {e} for {ctx}"))?;
        let ba = pw.solve(b, a).map_err(|e| format!("{name} (b, a): {e} for {ctx}"))?;
        for (order, r) in [("(a, b)", &ab), ("(b, a)", &ba)] {
            if rel(r.f, truth) > F_TOL {
                return Err(format!("{name} {order}: F = {} vs oracle {truth} for {ctx}", r.f));
            }
            if (truth - 1.0).abs() > DECISION_MARGIN && r.overlapping != (truth < 1.0) {
                return Err(format!(
                    "{name} {order}: overlapping = {} but oracle F = {truth}",
                    r.overlapping
                ));
            }
        }
        if rel(ab.f, ba.f) > F_TOL {
            return Err(format!("{name}: F(a, b) = {} but F(b, a) = {} for {ctx}", ab.f, ba.f));
        }
    }
    Ok(())
}

#[test]
fn small_body_against_a_needle_matches_the_oracle() {
    let (a, b) = reproducer_a();
    let truth = precise_f(&a, &b);
    // The oracle agrees with the reviewers' independent 40-digit mpmath value.
    assert!((truth - 0.75561).abs() < 1e-5, "oracle {truth}");
    check_pair(&a, &b, truth).unwrap();
    for (name, pw) in solvers() {
        assert!(pw.solve(&a, &b).unwrap().overlapping, "{name}");
    }
}

#[test]
fn tiny_and_huge_spheres_are_solved() {
    for size in [1e-170, 1e170, 1e-300, 1e300, 5e-324 * 4.0] {
        let a = ellipsoid(DVec3::ZERO, DQuat::IDENTITY, DVec3::splat(size));
        let b = ellipsoid(DVec3::new(1.5 * size, 0.0, 0.0), DQuat::IDENTITY, DVec3::splat(size));
        for (name, pw) in solvers() {
            let r = pw.solve(&a, &b).unwrap_or_else(|e| panic!("{name} at {size:e}: {e}"));
            // Equal spheres: F = (d / 2r)², normal +x, point midway, u_n = d − 2r.
            assert!(rel(r.f, 0.5625) < 1e-12, "{name} at {size:e}: F = {}", r.f);
            assert!(r.overlapping, "{name} at {size:e}");
            assert!((r.normal - DVec3::X).length() < 1e-12, "{name} at {size:e}: {:?}", r.normal);
            assert!(
                rel(r.point.x, 0.75 * size) < 1e-7 && r.point.y == 0.0,
                "{name} at {size:e}: {:?}",
                r.point
            );
            assert!(rel(r.u_n, -0.5 * size) < 1e-12, "{name} at {size:e}: u_n = {}", r.u_n);
        }
    }
}

/// `2^k` exactly.
fn pow2(k: i32) -> f64 {
    let mut x = 1.0f64;
    for _ in 0..k.unsigned_abs() {
        x = if k > 0 { x * 2.0 } else { x * 0.5 };
    }
    x
}

/// Semi-axes log-uniform in `[1e-3, 1e3]`.
fn arb_thin_axes() -> impl Strategy<Value = DVec3> {
    [-3.0..3.0f64, -3.0..3.0, -3.0..3.0].prop_map(|e| DVec3::from_array(e.map(|x| 10f64.powf(x))))
}

/// A target `F`: spread over `[0.25, 4]`, or within `1e-6` of tangency.
fn arb_target() -> impl Strategy<Value = f64> {
    prop_oneof![(-2.0..2.0f64).prop_map(f64::exp2), (-1e-6..1e-6f64).prop_map(|d| 1.0 + d)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn thin_pairs_match_the_oracle_in_both_orders(
        axes_a in arb_thin_axes(), axes_b in arb_thin_axes(), qa in arb_quat(), qb in arb_quat(),
        dir in arb_unit(), target in arb_target(),
    ) {
        let a = ellipsoid(DVec3::new(0.3, -0.2, 0.1), qa, axes_a);
        let b = place_at(&a, &ellipsoid(a.center() + dir, qb, axes_b), target);
        let truth = precise_f(&a, &b);
        check_pair(&a, &b, truth).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn scaling_by_a_power_of_two_is_exact(
        axes_a in arb_thin_axes(), axes_b in arb_thin_axes(), qa in arb_quat(), qb in arb_quat(),
        dir in arb_unit(), distance in 1e-3..3e3f64, k in -1000..1000i32,
    ) {
        let a = ellipsoid(DVec3::new(0.3, -0.2, 0.1), qa, axes_a);
        let b = ellipsoid(a.center() + dir * distance, qb, axes_b);
        let s = pow2(k);
        let (sa, sb) = (
            ellipsoid(a.center() * s, qa, axes_a * s),
            ellipsoid(b.center() * s, qb, axes_b * s),
        );
        // Keep to inputs that scale exactly (no overflow, no subnormal coordinates).
        let exact = |e: &Ellipsoid, se: &Ellipsoid| {
            e.center().to_array().iter().zip(se.center().to_array()).all(|(x, y)| *x == 0.0 || (y / s == *x && y.abs() >= f64::MIN_POSITIVE))
                && (se.semi_axes() / s == e.semi_axes()) && se.semi_axes().min_element() >= f64::MIN_POSITIVE
                && (sb.center() - sa.center()) / s == b.center() - a.center()
        };
        prop_assume!(exact(&a, &sa) && exact(&b, &sb));
        for (name, pw) in solvers() {
            let r = pw.solve(&a, &b).map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
            let rs = pw.solve(&sa, &sb).map_err(|e| TestCaseError::fail(format!("{name} at 2^{k}: {e}")))?;
            prop_assert_eq!((r.f, r.lambda, r.normal, r.overlapping), (rs.f, rs.lambda, rs.normal, rs.overlapping), "{} at 2^{}", name, k);
            prop_assert_eq!(r.point * s, rs.point, "{} at 2^{}", name, k);
            prop_assert_eq!(r.u_n * s, rs.u_n, "{} at 2^{}", name, k);
        }
    }
}

#[test]
fn lengths_spanning_more_than_the_supported_range_are_refused() {
    let unit = ellipsoid(DVec3::ZERO, DQuat::IDENTITY, DVec3::ONE);
    // Ratios up to 2^100 are accepted, beyond are refused (the unit sphere contributes 1).
    let inside = pow2(98);
    let outside = pow2(101);
    for (name, pw) in solvers() {
        // A huge or tiny body, a thin one, and a huge distance.
        for (b_axes, b_center) in [
            (DVec3::splat(inside), DVec3::new(3.0 * inside, 0.0, 0.0)),
            (DVec3::splat(1.0 / inside), DVec3::new(3.0, 0.0, 0.0)),
            (DVec3::new(1.0, 2.0, 1.0 / inside), DVec3::new(0.0, 3.0, 0.0)),
            (DVec3::ONE, DVec3::new(inside, 0.0, 0.0)),
        ] {
            let b = ellipsoid(b_center, DQuat::from_rotation_z(0.3), b_axes);
            // Size ratios near 2^100 put Λ near 2^-100, ~145 golden-section steps from 1/2:
            // Brent needs a larger budget than its default 100 evaluations there.
            let pw = PerramWertheim { max_iterations: 400, ..pw };
            let r = pw.solve(&unit, &b).unwrap_or_else(|e| panic!("{name}: {e} for {b:?}"));
            assert!(
                r.f.is_finite() && r.f > 0.0 && r.normal.is_finite() && r.point.is_finite(),
                "{name}: {r:?}"
            );
            // The independent oracle agrees (its double-double range covers these ratios).
            assert!(rel(r.f, precise_f(&unit, &b)) < 1e-9, "{name}: {r:?}");
        }
        for (b_axes, b_center) in [
            (DVec3::splat(outside), DVec3::new(3.0 * outside, 0.0, 0.0)),
            (DVec3::splat(1.0 / outside), DVec3::new(3.0, 0.0, 0.0)),
            (DVec3::new(1.0, 1.0, 1.0 / outside), DVec3::new(0.0, 3.0, 0.0)),
            (DVec3::ONE, DVec3::new(outside, 0.0, 0.0)),
            (DVec3::ONE, DVec3::new(1.0 / outside, 0.0, 0.0)),
        ] {
            let b = ellipsoid(b_center, DQuat::IDENTITY, b_axes);
            let got = pw.solve(&unit, &b);
            assert!(matches!(got, Err(PwError::LengthRatioOutOfRange)), "{name}: {got:?} for {b:?}");
        }
    }
}

/// Spheres of radii 1 and `k` at distance `2k` (touching only for `k = 1`): `Λ = 1 / (1 + k)`,
/// `F = (2k / (1 + k))²`, contact point at `μ = 2k / (1 + k)` on the line from the small
/// centre. For `k` beyond about 1e12, `S` is constant to rounding over a wide stretch around its
/// maximum: Brent, which reads values only, returned `Λ = 3.2e-16` instead of 1e-17 at
/// `k = 1e17` (with the contact point at 0.06 instead of 2) and ran out of evaluations at
/// 1e14–1e16 (found by an adversarial review). Both orders of the pair.
#[test]
fn spheres_of_very_different_sizes_have_the_closed_form_solution() {
    for k in [1e3, 1e6, 1e9, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e25, 1e29] {
        let small = ellipsoid(DVec3::ZERO, DQuat::IDENTITY, DVec3::ONE);
        let large = ellipsoid(DVec3::new(2.0 * k, 0.0, 0.0), DQuat::IDENTITY, DVec3::splat(k));
        let lambda = 1.0 / (1.0 + k);
        let mu = 2.0 * k / (1.0 + k);
        for (name, pw) in solvers() {
            let r = pw.solve(&small, &large).unwrap_or_else(|e| panic!("{name} at {k:e}: {e}"));
            assert!(rel(r.lambda, lambda) < 1e-7, "{name} at {k:e}: Λ = {:e}", r.lambda);
            assert!(rel(r.f, mu * mu) < 1e-12, "{name} at {k:e}: F = {}", r.f);
            assert!(rel(r.point.x, mu) < 1e-7, "{name} at {k:e}: {:?}", r.point);
            // Warm starts anywhere give the same answer (Newton's bracket once stopped at an
            // absolute width of ε: from 3e-16 it ended at 3.7e-17 for Λ = 1e-17).
            for guess in [0.0, 1e-30, 0.3 * lambda, 3.0 * lambda, 30.0 * lambda, 1e-3, 0.5, 1.0] {
                let warm = pw
                    .solve_warm(&small, &large, guess)
                    .unwrap_or_else(|e| panic!("{name} at {k:e} from {guess:e}: {e}"));
                assert!(
                    rel(warm.lambda, lambda) < 1e-7,
                    "{name} at {k:e} from {guess:e}: Λ = {:e}",
                    warm.lambda
                );
            }
            let r = pw.solve(&large, &small).unwrap_or_else(|e| panic!("{name} at {k:e}, swapped: {e}"));
            // (Λ near 1 is held to the spacing of doubles there.)
            let expected = 1.0 - lambda;
            assert!(
                (r.lambda - expected).abs() <= 1e-7 * lambda + 2.0 * f64::EPSILON,
                "{name} at {k:e}, swapped: Λ = {}",
                r.lambda
            );
            // (Here the point is found from the large sphere's centre, 2k away: within a few
            // rounding units of 2k.)
            assert!(
                (r.point.x - mu).abs() <= 1e-7 * mu + 8.0 * f64::EPSILON * 2.0 * k,
                "{name} at {k:e}, swapped: {:?}",
                r.point
            );
        }
    }
}

// 5. Found by a second blind review (an independent mpmath oracle).

/// Two thin bodies (needles or discs of aspect ratio `aspect`, random orientations) placed so
/// that the double-double oracle's `F` is `target` (up to aspect ratios of 1e12).
fn thin_pair(rng: &mut rand_chacha::ChaCha8Rng, aspect: f64, target: f64) -> (Ellipsoid, Ellipsoid) {
    use rand::RngExt;
    let thin = |rng: &mut rand_chacha::ChaCha8Rng| {
        if rng.random::<bool>() {
            DVec3::new(1.0, 1.0 / aspect, 1.0 / aspect)
        } else {
            DVec3::new(1.0, 1.0, 1.0 / aspect)
        }
    };
    let a = ellipsoid(DVec3::ZERO, common::random_quat(rng), thin(rng));
    let direction = common::random_unit(rng);
    let b = ellipsoid(direction * 0.7, common::random_quat(rng), thin(rng));
    // (Beyond 1e12 the double-double oracle cannot place them: the pair stays 0.7 apart.)
    let b = if aspect <= 1e12 { place_at(&a, &b, target) } else { b };
    (a, b)
}

/// Pairs of thin bodies: up to aspect ratios of 1e12 each every pair is solved, within `1e-6`
/// of the double-double oracle, with the right overlap flag; from 1e16 on (where `F` came out
/// wrong by up to a factor 1e19, with wrong overlap flags and answers depending on the argument
/// order) each order is refused with `IllConditioned` or agrees with the other order.
#[test]
fn thin_pairs_are_answered_consistently_or_refused() {
    let pw = PerramWertheim::newton();
    let mut rng = common::rng(77);
    for aspect in [1e2, 1e4, 1e6, 1e8, 1e10, 1e12] {
        for target in [0.5, 0.9, 1.1, 2.0] {
            for _ in 0..25 {
                let (a, b) = thin_pair(&mut rng, aspect, target);
                let truth = precise_f(&a, &b);
                for (x, y) in [(&a, &b), (&b, &a)] {
                    let r = pw
                        .solve(x, y)
                        .unwrap_or_else(|e| panic!("aspect {aspect:e}: {e} for {}", describe(x, y)));
                    assert!(
                        rel(r.f, truth) <= 1e-6,
                        "aspect {aspect:e}: F {} vs {truth} for {}",
                        r.f,
                        describe(x, y)
                    );
                    assert_eq!(r.overlapping, truth < 1.0, "aspect {aspect:e}: {}", describe(x, y));
                }
            }
        }
    }
    let mut refused = 0;
    for aspect in [1e16, 1e18, 1e20, 1e24, 1e28] {
        for _ in 0..50 {
            let (a, b) = thin_pair(&mut rng, aspect, 0.9);
            match (pw.solve(&a, &b), pw.solve(&b, &a)) {
                (Ok(x), Ok(y)) => assert!(
                    rel(x.f, y.f) <= 1e-6 && x.overlapping == y.overlapping,
                    "aspect {aspect:e}: F {} vs {} swapped for {}",
                    x.f,
                    y.f,
                    describe(&a, &b)
                ),
                (x, y) => {
                    for outcome in [x.map(|r| r.f), y.map(|r| r.f)] {
                        assert!(
                            matches!(outcome, Ok(_) | Err(PwError::IllConditioned)),
                            "aspect {aspect:e}: {outcome:?}"
                        );
                    }
                    refused += 1;
                }
            }
        }
    }
    assert!(refused > 0, "no pair refused at aspect ratios of 1e16 and more");
}

/// Pairs whose largest length is 2^1023 or more: radius 1e308 against radius 1e307 at distance
/// 1e307 (F = (1e307 / 1.1e308)² = 1/121) was refused as non-finite (debug builds panicked).
#[test]
fn pairs_at_the_top_of_the_range_are_solved() {
    let a = ellipsoid(DVec3::ZERO, DQuat::IDENTITY, DVec3::splat(1e308));
    let b = ellipsoid(DVec3::new(1e307, 0.0, 0.0), DQuat::IDENTITY, DVec3::splat(1e307));
    for (name, pw) in solvers() {
        let r = pw.solve(&a, &b).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(rel(r.f, 1.0 / 121.0) <= 1e-14, "{name}: F = {}", r.f);
        assert!(r.overlapping && r.u_n.is_finite(), "{name}: {r:?}");
    }
}

/// The pre-filter's bounding-sphere tests at tiny scale: spheres of radius 1e-161 and 0.7e-161
/// overlapping by 0.5 % were reported separated, and spheres of radius 1e-160 and 0.7e-160 apart
/// by 6e-6 overlapping (their squared distances were subnormal). At every scale 2^k the answer
/// must be that of the pair at unit scale.
#[test]
fn the_prefilter_decides_alike_at_every_scale() {
    use ellipsoid_pw::{Separation, algebraic_separation};
    let pairs = [
        (1.7 * 0.9974, Separation::Overlapping),
        (1.7 * 1.000_003, Separation::Separated),
        (1.2, Separation::Overlapping),
        (3.0, Separation::Separated),
    ];
    for (distance, expected) in pairs {
        for k in [-1000, -600, -540, -100, 0, 100, 900] {
            let s = pow2(k);
            let a = ellipsoid(DVec3::ZERO, DQuat::IDENTITY, DVec3::splat(s));
            let direction = DVec3::new(0.6, -0.48, 0.64);
            let b = ellipsoid(direction * (distance * s), DQuat::IDENTITY, DVec3::splat(0.7 * s));
            assert_eq!(algebraic_separation(&a, &b), expected, "distance {distance} at scale 2^{k}");
        }
    }
}

/// The exact ellipsoid–sphere contact at extreme length ratios: a needle `(1, t, t)` with a
/// sphere of radius 0.5 at `(0, 2, 0)` (depth `0.5 − (2 − t)`, normal `+y` in closed form) is
/// solved for `t` down to `2^-199` (`2^-200` of the centre distance), and refused beyond (at `t = 1e-77` it came out with a zero
/// normal and a claimed penetration, at `1e-155` NaN).
#[test]
fn sphere_contacts_at_extreme_length_ratios_are_exact_or_refused() {
    use ellipsoid_pw::contact_ellipsoid_sphere;
    use geometry_core::Sphere;
    let s = Sphere::new(DVec3::new(0.0, 2.0, 0.0), 0.5).unwrap();
    for k in [10, 40, 70, 99, 150, 199] {
        let t = pow2(-k);
        let needle = ellipsoid(DVec3::ZERO, DQuat::IDENTITY, DVec3::new(1.0, t, t));
        let c = contact_ellipsoid_sphere(&needle, &s).unwrap_or_else(|e| panic!("t = 2^-{k}: {e}"));
        assert!(rel(c.depth, 0.5 - (2.0 - t)) <= 1e-14, "t = 2^-{k}: depth {}", c.depth);
        assert!((c.normal - DVec3::Y).length() <= 1e-14, "t = 2^-{k}: normal {}", c.normal);
    }
    for t in [6e-61, 1e-77, 1e-160] {
        let needle = ellipsoid(DVec3::ZERO, DQuat::IDENTITY, DVec3::new(1.0, t, t));
        assert_eq!(contact_ellipsoid_sphere(&needle, &s), Err(PwError::LengthRatioOutOfRange), "t = {t:e}");
    }
}
