//! The algebraic pre-filter never contradicts Perram–Wertheim: `Separated ⇒ F > 1 − 1e-12`,
//! `Overlapping ⇒ F < 1 + 1e-12`, on 10⁶ random pairs in the band between the inscribed- and
//! circumscribed-sphere distances, where the answer is not obvious; it must decide most of them;
//! and it decides the clear cases. (The 10⁶ pairs take well under a second even in the debug test
//! profile at opt-level 1, so the test is not ignored in debug builds.)

mod common;

use common::{band_pair, ellipsoid, random_axes, random_quat, random_unit, rng};
use ellipsoid_pw::{PerramWertheim, Separation, algebraic_separation};
use geometry_core::DVec3;
use rand::RngExt;

#[test]
fn prefilter_never_contradicts_pw() {
    let pairs: usize = 1_000_000;
    let mut rng = rng(0xf117_0001);
    let pw = PerramWertheim::newton();
    let (mut separated, mut overlapping, mut undecided) = (0usize, 0usize, 0usize);
    let start = std::time::Instant::now();
    for case in 0..pairs {
        let (a, b) = band_pair(&mut rng, 10.0, 1.0);
        let f = pw
            .solve(&a, &b)
            .unwrap_or_else(|e| panic!("case {case}: {e:?} for {}", common::describe(&a, &b)))
            .f;
        match algebraic_separation(&a, &b) {
            Separation::Separated => {
                separated += 1;
                assert!(
                    f > 1.0 - 1e-12,
                    "case {case}: Separated but F = {f} for {}",
                    common::describe(&a, &b)
                );
            }
            Separation::Overlapping => {
                overlapping += 1;
                assert!(
                    f < 1.0 + 1e-12,
                    "case {case}: Overlapping but F = {f} for {}",
                    common::describe(&a, &b)
                );
            }
            Separation::Undecided => undecided += 1,
        }
    }
    let fraction = undecided as f64 / pairs as f64;
    println!(
        "pre-filter on {pairs} band pairs in {:.2?}: {separated} separated, {overlapping} overlapping, \
         {undecided} undecided (fraction {fraction:.4})",
        start.elapsed()
    );
    assert!(fraction < 0.5, "the pre-filter leaves {fraction:.3} of the band pairs undecided");
}

/// Pairs of sizes 1..10 apart and 10 % size ratios: the filter must still not contradict PW.
#[test]
fn prefilter_never_contradicts_pw_mixed_sizes() {
    let pairs: usize = 200_000;
    let mut rng = rng(0xf117_0002);
    let pw = PerramWertheim::newton();
    for case in 0..pairs {
        let (a, b) = band_pair(&mut rng, 10.0, 10.0);
        let f = pw.solve(&a, &b).unwrap().f;
        match algebraic_separation(&a, &b) {
            Separation::Separated => assert!(
                f > 1.0 - 1e-12,
                "case {case}: Separated but F = {f} for {}",
                common::describe(&a, &b)
            ),
            Separation::Overlapping => {
                assert!(
                    f < 1.0 + 1e-12,
                    "case {case}: Overlapping but F = {f} for {}",
                    common::describe(&a, &b)
                );
            }
            Separation::Undecided => {}
        }
    }
}

#[test]
fn prefilter_clear_cases() {
    let mut rng = rng(0xf117_0003);
    for case in 0..2_000 {
        let (size_a, size_b) =
            (common::log_uniform(&mut rng, -1.0, 1.0), common::log_uniform(&mut rng, -1.0, 1.0));
        let axes_a = random_axes(&mut rng, size_a, 10.0);
        let axes_b = random_axes(&mut rng, size_b, 10.0);
        let reach = axes_a.max_element() + axes_b.max_element();
        let ca =
            DVec3::new(rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0));
        let a = ellipsoid(ca, random_quat(&mut rng), axes_a);
        // Far apart: beyond the circumscribed spheres.
        let far = ellipsoid(
            ca + random_unit(&mut rng) * (reach * rng.random_range(1.05..10.0)),
            random_quat(&mut rng),
            axes_b,
        );
        assert!(
            matches!(algebraic_separation(&a, &far), Separation::Separated),
            "case {case}: far pair not Separated: {}",
            common::describe(&a, &far)
        );
        // Concentric, and inside the inscribed spheres' reach.
        let same = ellipsoid(ca, random_quat(&mut rng), axes_b);
        assert!(
            matches!(algebraic_separation(&a, &same), Separation::Overlapping),
            "case {case}: concentric pair not Overlapping: {}",
            common::describe(&a, &same)
        );
        let inner = axes_a.min_element() + axes_b.min_element();
        let near = ellipsoid(
            ca + random_unit(&mut rng) * (inner * rng.random_range(0.01..0.95)),
            random_quat(&mut rng),
            axes_b,
        );
        assert!(
            matches!(algebraic_separation(&a, &near), Separation::Overlapping),
            "case {case}: pair within the inscribed spheres not Overlapping: {}",
            common::describe(&a, &near)
        );
    }
}
