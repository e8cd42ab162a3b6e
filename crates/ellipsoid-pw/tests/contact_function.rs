//! `ContactFunction`: S(λ) against the definition (own plain implementation), its derivatives
//! against central differences, S(0) = S(1) = 0, concavity, and max S = F by brute force
//! (10⁴-point grid then golden-section refinement), both on the crate's S and on the plain one.

mod common;

use common::{arb_pair, rel, s_of_lambda};
use ellipsoid_pw::{ContactFunction, PerramWertheim};
use proptest::prelude::*;

/// Maximum of `f` on [0, 1]: the best of `n + 1` grid points, then golden section around it.
fn grid_golden_max(f: impl Fn(f64) -> f64, n: usize) -> f64 {
    let step = 1.0 / n as f64;
    let best = (0..=n).map(|i| i as f64 * step).max_by(|x, y| f(*x).total_cmp(&f(*y))).expect("non-empty");
    let (mut lo, mut hi) = ((best - step).max(0.0), (best + step).min(1.0));
    let inv_phi = (5f64.sqrt() - 1.0) / 2.0;
    let mut x1 = hi - inv_phi * (hi - lo);
    let mut x2 = lo + inv_phi * (hi - lo);
    let (mut f1, mut f2) = (f(x1), f(x2));
    for _ in 0..80 {
        if f1 < f2 {
            lo = x1;
            (x1, f1) = (x2, f2);
            x2 = lo + inv_phi * (hi - lo);
            f2 = f(x2);
        } else {
            hi = x2;
            (x2, f2) = (x1, f1);
            x1 = hi - inv_phi * (hi - lo);
            f1 = f(x1);
        }
    }
    f1.max(f2).max(f(best))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn value_and_derivatives((a, b) in arb_pair()) {
        let ctx = common::describe(&a, &b);
        let cf = ContactFunction::new(&a, &b).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        let f = PerramWertheim::newton().solve(&a, &b).map_err(|e| TestCaseError::fail(format!("{e:?}")))?.f;
        prop_assert!(cf.value(0.0).abs() <= 1e-14 * f, "S(0) = {} for {ctx}", cf.value(0.0));
        prop_assert!(cf.value(1.0).abs() <= 1e-14 * f, "S(1) = {} for {ctx}", cf.value(1.0));
        for i in 0..=100 {
            let lambda = f64::from(i) / 100.0;
            let (s, s1, s2) = cf.derivatives(lambda);
            let v = cf.value(lambda);
            prop_assert!((s - v).abs() <= 1e-13 * f, "derivatives().0 = {s} vs value = {v} at λ = {lambda}");
            prop_assert!((v - s_of_lambda(&a, &b, lambda)).abs() <= 1e-11 * f,
                "S({lambda}) = {v} vs definition {} for {ctx}", s_of_lambda(&a, &b, lambda));
            // Concave on the whole interval, endpoints included.
            prop_assert!(s2 < 0.0, "S''({lambda}) = {s2} for {ctx}");
            if (5..=95).contains(&i) {
                let h1 = 1e-6;
                let fd1 = (cf.value(lambda + h1) - cf.value(lambda - h1)) / (2.0 * h1);
                prop_assert!((s1 - fd1).abs() <= 1e-6 * (f + s1.abs()), "S'({lambda}) = {s1} vs difference {fd1} for {ctx}");
                let h2 = 1e-4;
                let fd2 = (cf.value(lambda + h2) - 2.0 * v + cf.value(lambda - h2)) / (h2 * h2);
                prop_assert!((s2 - fd2).abs() <= 1e-4 * (f + s2.abs()), "S''({lambda}) = {s2} vs difference {fd2} for {ctx}");
            }
        }
    }

    #[test]
    fn maximum_of_s_is_f((a, b) in arb_pair()) {
        let ctx = common::describe(&a, &b);
        let cf = ContactFunction::new(&a, &b).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        let max_crate = grid_golden_max(|l| cf.value(l), 10_000);
        let max_plain = grid_golden_max(|l| s_of_lambda(&a, &b, l), 10_000);
        for pw in [PerramWertheim::newton(), PerramWertheim::brent()] {
            let res = pw.solve(&a, &b).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
            prop_assert!(rel(res.f, max_crate) <= 1e-10, "F = {} vs max of value() {max_crate} for {ctx}", res.f);
            prop_assert!(rel(res.f, max_plain) <= 1e-10, "F = {} vs max of S {max_plain} for {ctx}", res.f);
            prop_assert!(rel(cf.value(res.lambda), res.f) <= 1e-12, "S(Λ) = {} vs F = {}", cf.value(res.lambda), res.f);
        }
    }
}
