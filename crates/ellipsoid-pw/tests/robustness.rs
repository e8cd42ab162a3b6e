//! Bad and extreme input, and the batch entry point:
//!
//! 1. `Ellipsoid::new` rejects non-positive, NaN and infinite semi-axes, non-finite centres and
//!    zero or non-finite quaternions;
//! 2. coincident centres give `PwError::CoincidentCentres` (both methods, cold and warm);
//! 3. no NaN leaks: on extreme valid input (semi-axes 1e-6..1e6, coordinates ±1e6) every `Ok`
//!    result has finite fields, a unit normal, Λ ∈ [0, 1] and μ = √F;
//! 4. `solve_pairs` equals `solve` called in order, bit for bit.

mod common;

use common::{arb_quat, ellipsoid, random_pair, random_quat, result_bits, rng};
use ellipsoid_pw::{PerramWertheim, PwError, PwResult};
use geometry_core::{DQuat, DVec3, Ellipsoid};
use proptest::prelude::*;
use rand::RngExt;

#[test]
fn ellipsoid_new_rejects_bad_input() {
    let ok = |c: DVec3, q: DQuat, a: DVec3| Ellipsoid::new(c, q, a).is_ok();
    let one = DVec3::ONE;
    assert!(ok(DVec3::ZERO, DQuat::IDENTITY, one));
    for bad in [0.0, -1.0, -0.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        for axis in 0..3 {
            let mut axes = one;
            axes[axis] = bad;
            assert!(!ok(DVec3::ZERO, DQuat::IDENTITY, axes), "semi-axis {bad} accepted");
        }
        if !bad.is_finite() {
            assert!(!ok(DVec3::new(0.0, bad, 0.0), DQuat::IDENTITY, one), "centre {bad} accepted");
            assert!(!ok(DVec3::ZERO, DQuat::from_xyzw(0.0, 0.0, bad, 1.0), one), "quaternion {bad} accepted");
        }
    }
    assert!(!ok(DVec3::ZERO, DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0), one), "zero quaternion accepted");
    // A non-unit quaternion is normalised.
    let e = Ellipsoid::new(DVec3::ZERO, DQuat::from_xyzw(0.0, 0.0, 0.0, 3.0), one).unwrap();
    assert_eq!(e.orientation(), DQuat::IDENTITY);
}

#[test]
fn coincident_centres_are_an_error() {
    let mut rng = rng(0xbad0_0001);
    for _ in 0..50 {
        let c =
            DVec3::new(rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0));
        let a = ellipsoid(c, random_quat(&mut rng), common::random_axes(&mut rng, 1.0, 10.0));
        let b = ellipsoid(c, random_quat(&mut rng), common::random_axes(&mut rng, 1.0, 10.0));
        for pw in [PerramWertheim::brent(), PerramWertheim::newton()] {
            assert!(matches!(pw.solve(&a, &b), Err(PwError::CoincidentCentres)));
            assert!(matches!(pw.solve(&a, &a), Err(PwError::CoincidentCentres)));
            assert!(matches!(pw.solve_warm(&a, &b, 0.5), Err(PwError::CoincidentCentres)));
        }
    }
}

fn check_finite(res: &PwResult) -> Result<(), String> {
    let fields = [res.f, res.lambda, res.mu, res.u_n];
    if !(fields.iter().all(|x| x.is_finite()) && res.normal.is_finite() && res.point.is_finite()) {
        return Err("non-finite field".into());
    }
    if (res.normal.length() - 1.0).abs() > 1e-9 {
        return Err(format!("normal of length {}", res.normal.length()));
    }
    if !(0.0..=1.0).contains(&res.lambda) {
        return Err(format!("Λ = {} outside [0, 1]", res.lambda));
    }
    if res.f < 0.0 || (res.mu - res.f.sqrt()).abs() > 1e-12 * res.mu {
        return Err(format!("F = {}, μ = {}", res.f, res.mu));
    }
    let c = res.contact();
    if !(c.point.is_finite() && c.normal.is_finite() && c.depth.is_finite()) {
        return Err("non-finite contact".into());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn no_nan_leaks(
        axes_a in [-6.0..6.0f64, -6.0..6.0, -6.0..6.0],
        axes_b in [-6.0..6.0f64, -6.0..6.0, -6.0..6.0],
        ca in [-1e6..1e6f64, -1e6..1e6, -1e6..1e6],
        offset in [-6.0..6.0f64, -6.0..6.0, -6.0..6.0, -1.0..1.0, -1.0..1.0, -1.0..1.0],
        qa in arb_quat(),
        qb in arb_quat(),
        guess in 0.0..=1.0f64,
    ) {
        let axes_a = DVec3::from_array(axes_a.map(|x| 10f64.powf(x)));
        let axes_b = DVec3::from_array(axes_b.map(|x| 10f64.powf(x)));
        let ca = DVec3::from_array(ca);
        // The offset is ±10^(-6..6) per coordinate, so B's centre spans near and far.
        let cb = ca + DVec3::new(
            offset[3].signum() * 10f64.powf(offset[0]),
            offset[4].signum() * 10f64.powf(offset[1]),
            offset[5].signum() * 10f64.powf(offset[2]),
        );
        let a = ellipsoid(ca, qa, axes_a);
        let b = ellipsoid(cb, qb, axes_b);
        let ctx = common::describe(&a, &b);
        for (name, pw) in [("brent", PerramWertheim::brent()), ("newton", PerramWertheim::newton())] {
            for (how, res) in [("cold", pw.solve(&a, &b)), ("warm", pw.solve_warm(&a, &b, guess))] {
                // Errors are allowed on extreme input (their kinds are reported by
                // `extreme_input_error_rate`); only Ok results must be clean.
                if let Ok(res) = res {
                    check_finite(&res).map_err(|e| TestCaseError::fail(format!("{name} {how}: {e} for {ctx}")))?;
                }
            }
        }
    }
}

/// Counts how often extreme input gives an error rather than a result (reported, not asserted).
#[test]
fn extreme_input_error_rate() {
    let mut rng = rng(0xbad0_0002);
    let mut errors = Vec::new();
    // (error, log10 of the larger aspect ratio of the two bodies) -> count
    let mut by_aspect = std::collections::BTreeMap::new();
    let n = 20_000;
    for _ in 0..n {
        let mut axes = || {
            DVec3::new(
                10f64.powf(rng.random_range(-6.0..6.0)),
                10f64.powf(rng.random_range(-6.0..6.0)),
                10f64.powf(rng.random_range(-6.0..6.0)),
            )
        };
        let (axes_a, axes_b) = (axes(), axes());
        let ca =
            DVec3::new(rng.random_range(-1e6..1e6), rng.random_range(-1e6..1e6), rng.random_range(-1e6..1e6));
        let dir = common::random_unit(&mut rng);
        let cb = ca + dir * 10f64.powf(rng.random_range(-6.0..7.0));
        let a = ellipsoid(ca, random_quat(&mut rng), axes_a);
        let b = ellipsoid(cb, random_quat(&mut rng), axes_b);
        for pw in [PerramWertheim::brent(), PerramWertheim::newton()] {
            match pw.solve(&a, &b) {
                Ok(res) => {
                    check_finite(&res).unwrap_or_else(|e| panic!("{e} for {}", common::describe(&a, &b)));
                }
                Err(e) => {
                    let aspect = |x: DVec3| x.max_element() / x.min_element();
                    let decade = aspect(axes_a).max(aspect(axes_b)).log10().floor() as i32;
                    *by_aspect.entry((format!("{e:?}"), decade)).or_insert(0usize) += 1;
                    errors.push(format!("{e:?}"));
                }
            }
        }
    }
    println!("extreme input errors by (kind, aspect decade): {by_aspect:?}");
    println!(
        "extreme input: {} errors in {} solves; first few: {:?}",
        errors.len(),
        2 * n,
        &errors[..errors.len().min(5)]
    );
}

#[test]
fn solve_pairs_equals_sequential_solve() {
    let mut rng = rng(0x9a12_0003);
    let mut bodies = Vec::new();
    for _ in 0..60 {
        let (a, b) = random_pair(&mut rng, 10.0, 3.0, (0.2, 1.5));
        bodies.push(a);
        bodies.push(b);
    }
    // A duplicate body gives coincident centres: errors must come back in place too.
    bodies.push(bodies[0]);
    let mut pairs: Vec<(usize, usize)> = (0..bodies.len() - 1).map(|i| (i, i + 1)).collect();
    for _ in 0..2_000 {
        pairs.push((rng.random_range(0..bodies.len()), rng.random_range(0..bodies.len())));
    }
    pairs.push((0, bodies.len() - 1));
    pairs.push((3, 3));
    for pw in [PerramWertheim::brent(), PerramWertheim::newton()] {
        let batch = pw.solve_pairs(&bodies, &pairs);
        assert_eq!(batch.len(), pairs.len());
        let mut errors = 0;
        for (k, (&(i, j), got)) in pairs.iter().zip(&batch).enumerate() {
            let want = pw.solve(&bodies[i], &bodies[j]);
            match (got, &want) {
                (Ok(g), Ok(w)) => assert_eq!(result_bits(g), result_bits(w), "pair {k} = ({i}, {j})"),
                (Err(g), Err(w)) => {
                    errors += 1;
                    assert_eq!(format!("{g:?}"), format!("{w:?}"), "pair {k} = ({i}, {j})");
                }
                _ => panic!("pair {k} = ({i}, {j}): batch and sequential disagree on success"),
            }
        }
        assert!(errors >= 2, "the coincident pairs must be errors");
    }
    assert!(PerramWertheim::newton().solve_pairs(&bodies, &[]).is_empty());
}
