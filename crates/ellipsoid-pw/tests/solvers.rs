//! The two maximisers and the warm-start machinery agree with each other and with cold solves:
//!
//! 1. Brent and Newton give the same F (1e-12 relative) and Λ (Brent's 26-bit location, 1e-7) on
//!    random pairs with aspect ratios 1..10;
//! 2. a warm start from a perturbed Λ gives the same F and Λ (Newton) and changes nothing (Brent);
//! 3. `solve_cached` along trajectories of small motions equals cold `solve` step by step and
//!    needs no more iterations in total; `LambdaCache` keeps what was used since the last step;
//! 4. the `ContactGenerator` implementation reports `result.contact()` exactly when u_n ≤ margin.

mod common;

use common::{arb_pair, pair_scale, random_pair, random_quat, random_unit, rel, rng};
use contact_core::ContactGenerator;
use ellipsoid_pw::{LambdaCache, PerramWertheim};
use geometry_core::{DQuat, DVec3, Ellipsoid};
use proptest::prelude::*;
use rand::RngExt;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn brent_and_newton_agree((a, b) in arb_pair()) {
        let brent = PerramWertheim::brent().solve(&a, &b).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        let newton = PerramWertheim::newton().solve(&a, &b).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        let ctx = common::describe(&a, &b);
        prop_assert!(rel(brent.f, newton.f) <= 1e-12, "F: Brent {} vs Newton {} for {ctx}", brent.f, newton.f);
        prop_assert!((brent.lambda - newton.lambda).abs() <= 1e-7, "Λ: Brent {} vs Newton {} for {ctx}", brent.lambda, newton.lambda);
        prop_assert_eq!(brent.overlapping, newton.overlapping);
    }

    #[test]
    fn warm_start_gives_the_same_answer((a, b) in arb_pair(), shift in -0.05..0.05f64) {
        let ctx = common::describe(&a, &b);
        let newton = PerramWertheim::newton();
        let cold = newton.solve(&a, &b).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        let guess = (cold.lambda + shift).clamp(1e-3, 1.0 - 1e-3);
        let warm = newton.solve_warm(&a, &b, guess).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        prop_assert!(rel(warm.f, cold.f) <= 1e-12, "Newton F: warm {} vs cold {} (guess {guess}) for {ctx}", warm.f, cold.f);
        prop_assert!(
            (warm.lambda - cold.lambda).abs() <= 1e-9,
            "Newton Λ: warm {} vs cold {} (root of S' by bisection: {}) for {ctx}",
            warm.lambda, cold.lambda, common::lambda_root(&a, &b)
        );
        // Starting at the answer itself converges at once to the same answer.
        let again = newton.solve_warm(&a, &b, cold.lambda).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        prop_assert!(rel(again.f, cold.f) <= 1e-12);
        prop_assert!(again.iterations <= cold.iterations.max(2), "{} iterations from the answer, {} cold", again.iterations, cold.iterations);
        // Brent ignores the guess.
        let brent = PerramWertheim::brent();
        let cold = brent.solve(&a, &b).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        let warm = brent.solve_warm(&a, &b, guess).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        prop_assert_eq!(common::result_bits(&warm), common::result_bits(&cold));
    }
}

/// A body moving by small steps (translation ≤ 1 % of its size, rotation ≤ 0.02 rad per step).
struct Mover {
    body: Ellipsoid,
    velocity: DVec3,
    spin: DVec3,
}

impl Mover {
    fn step(&mut self) {
        let q = DQuat::from_scaled_axis(self.spin) * self.body.orientation();
        self.body = common::ellipsoid(self.body.center() + self.velocity, q, self.body.semi_axes());
    }
}

#[test]
fn cached_warm_starts_match_cold_solves() {
    let mut rng = rng(0xcace_0003);
    let pairs = 8usize;
    let steps = 600;
    let mut movers: Vec<(Mover, Mover)> = (0..pairs)
        .map(|_| {
            let (a, b) = random_pair(&mut rng, 10.0, 3.0, (0.4, 1.2));
            let size = pair_scale(&a, &b);
            let mut mover = |body: Ellipsoid| Mover {
                body,
                velocity: random_unit(&mut rng) * (0.005 * size),
                spin: random_unit(&mut rng) * rng.random_range(0.0..0.02),
            };
            (mover(a), mover(b))
        })
        .collect();
    let newton = PerramWertheim::newton();
    let mut cache = LambdaCache::new();
    assert!(cache.is_empty());
    let (mut warm_iterations, mut cold_iterations) = (0u64, 0u64);
    for step in 0..steps {
        for (key, (ma, mb)) in movers.iter_mut().enumerate() {
            ma.step();
            mb.step();
            let (a, b) = (&ma.body, &mb.body);
            if (b.center() - a.center()).length() < 1e-3 {
                continue;
            }
            let ctx = format!("step {step}, pair {key}: {}", common::describe(a, b));
            let warm = newton.solve_cached(&mut cache, key, a, b).unwrap_or_else(|e| panic!("{ctx}: {e:?}"));
            let cold = newton.solve(a, b).unwrap_or_else(|e| panic!("{ctx}: {e:?}"));
            assert!(rel(warm.f, cold.f) <= 1e-12, "{ctx}: F warm {} vs cold {}", warm.f, cold.f);
            assert!(
                (warm.lambda - cold.lambda).abs() <= 1e-9,
                "{ctx}: Λ warm {} vs cold {}",
                warm.lambda,
                cold.lambda
            );
            assert!((warm.normal - cold.normal).length() <= 1e-8, "{ctx}: normal");
            assert_eq!(cache.get(&key), Some(warm.lambda), "{ctx}: the cache must hold the new Λ");
            warm_iterations += u64::from(warm.iterations);
            cold_iterations += u64::from(cold.iterations);
        }
        cache.end_step();
        assert!(cache.len() <= pairs);
    }
    println!("solve_cached: {warm_iterations} warm iterations, {cold_iterations} cold iterations");
    assert!(
        warm_iterations <= cold_iterations,
        "warm starts took more iterations ({warm_iterations}) than cold starts ({cold_iterations})"
    );
}

#[test]
fn lambda_cache_drops_stale_entries() {
    let mut rng = rng(0xcace_0004);
    let (a, b) = random_pair(&mut rng, 5.0, 2.0, (0.5, 1.5));
    let (c, d) = random_pair(&mut rng, 5.0, 2.0, (0.5, 1.5));
    let pw = PerramWertheim::newton();
    let mut cache = LambdaCache::new();
    let first = pw.solve_cached(&mut cache, "ab", &a, &b).unwrap();
    pw.solve_cached(&mut cache, "cd", &c, &d).unwrap();
    assert_eq!(cache.len(), 2);
    assert_eq!(cache.get(&"ab"), Some(first.lambda));
    assert!(cache.get(&"xy").is_none());
    cache.end_step();
    // Both were used since the previous end_step: kept.
    assert_eq!(cache.len(), 2);
    let second = pw.solve_cached(&mut cache, "ab", &a, &b).unwrap();
    assert_eq!(cache.get(&"ab"), Some(second.lambda));
    cache.end_step();
    // "cd" was not used during the last step: dropped.
    assert_eq!(cache.len(), 1);
    assert!(cache.get(&"cd").is_none());
    assert_eq!(cache.get(&"ab"), Some(second.lambda));
    cache.end_step();
    assert!(cache.is_empty());
    pw.solve_cached(&mut cache, "ab", &a, &b).unwrap();
    cache.clear();
    assert!(cache.is_empty());
}

#[test]
fn contact_generator_follows_the_margin() {
    let mut rng = rng(0xc0de_0005);
    for case in 0..500 {
        let (a, b) = random_pair(&mut rng, 10.0, 3.0, (0.3, 1.3));
        let margin = if case % 2 == 0 { 0.0 } else { rng.random_range(0.0..0.5) * pair_scale(&a, &b) };
        for pw in [PerramWertheim::brent(), PerramWertheim::newton()] {
            let mut pw = pw;
            pw.margin = margin;
            let res = pw.solve(&a, &b).unwrap();
            let contact = pw.contact(&a, &b).unwrap();
            if res.u_n <= margin {
                assert_eq!(contact, Some(res.contact()), "case {case}");
            } else {
                assert_eq!(contact, None, "case {case}: u_n = {} > margin {margin}", res.u_n);
            }
        }
    }
}

#[test]
fn default_is_newton_with_documented_settings() {
    let d = PerramWertheim::default();
    assert!(matches!(d.method, ellipsoid_pw::Method::Newton));
    assert_eq!(d.brent_bits, 26);
    assert_eq!(d.newton_step_tolerance, 1e-7);
    assert_eq!(d.max_iterations, 100);
    assert_eq!(d.margin, 0.0);
    assert!(matches!(PerramWertheim::brent().method, ellipsoid_pw::Method::Brent));
    let mut rng = rng(11);
    let q = random_quat(&mut rng);
    let a = common::ellipsoid(DVec3::ZERO, q, DVec3::new(1.0, 2.0, 3.0));
    let b = common::ellipsoid(DVec3::new(2.0, 1.0, 0.0), q, DVec3::new(0.5, 1.0, 1.5));
    assert_eq!(
        common::result_bits(&d.solve(&a, &b).unwrap()),
        common::result_bits(&PerramWertheim::newton().solve(&a, &b).unwrap())
    );
}
