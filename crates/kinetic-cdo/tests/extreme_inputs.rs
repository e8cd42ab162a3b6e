//! Extreme and invalid inputs found by an independent adversarial review: each test failed
//! (wrong answer, hang, panic or abort) before its fix.
//!
//! 1. Inelastic collapse under gravity: a bounce dying out used to lose its wall hit (the
//!    discriminant underflowed) and the particle fell through the floor; restitution < 1 under
//!    gravity now needs the TC guard.
//! 2. Radii too small for the segment endpoints (or neighbour-list shells) to be resolved.
//! 3. Snapshot intervals that cannot advance.
//! 4. `dense_packing` with a non-finite or negative relaxation.
//! 5. `run(Stop::Time(NaN))` and stop times in the past.
//! 6. (engine unit test) a prediction horizon below the clock's rounding.
//! 7. `scale_velocities` beyond the constructor's speed limit.
//! 8. `random_placement` of a particle wider than a walled box.
//! 9. Radius generators asked for more radii than can be allocated.
//! 10. Equal masses of 1e160 (the reduced mass overflowed: NaN velocities) and 1e-170 (it
//!     underflowed to 0: the pair collided forever).
//! 11. Positions past t ≈ 1e154 without gravity (∞·0 in the unused gravity term: NaN).
//! 12. Head-on pairs at length and speed scales from 2^-330 to 2^300 (the contact time's
//!     discriminant, a fourth power of the scale, overflowed or underflowed).
//! 13. The triangulation at length scales beyond about 2^±260 or time scales far from 1 (its
//!     certificates, quartics in the lengths and speeds, underflowed to 0 or overflowed: it
//!     missed collisions with walls and stopped early with periodic sides); its bounding
//!     corners past t ≈ 1e154 without gravity (NaN, as in 11).
//! 14. Pairs whose separation times relative speed is below about 1e-308 (lengths of 2^-300
//!     and speeds of 2^-800): the pair's `d·u` underflowed to 0, the pair was taken as
//!     receding, and disks passed through each other, in every structure.
//! 15. Gravity along a periodic axis: brute force re-predicted a particle each time it had
//!     fallen a quarter period, ever more often as everything sped up, until `next_collision`
//!     gave up (after 149 collisions at g = 1e6 in a box of side 9).
//! 16. A small particle crossing a huge walled box: the spatial tree and the neighbour lists
//!     made more cell crossings before its wall hit than `next_collision`'s quiet-event budget,
//!     which returned `None` although the wall hit was scheduled (the cutoff now applies only
//!     while no collision is scheduled).
//! 17. Subnormal speeds (below 2.2e-308): bringing them to unit scale multiplied by 2^1030,
//!     which overflows; the neighbour lists' shell-exit times came out NaN (a debug assertion
//!     in `Simulation::new`, a NaN time in the queue in release), also during fast compressions.
//! 18. `compress` at a finite but huge rate (1e200): the kinetic energy became infinite, the
//!     thermostat failed naming a parameter the caller never passed, and the radii kept
//!     growing; such a rate is now refused up front, changing nothing.
//! 19. Jams: two touching disks spanning the gap between two walls, one moving into the
//!     other, bounce between the walls forever at one instant, and `run(Stop::Time(..))` never
//!     returned (a rattle in a gap of an ulp, or an inelastic collapse, likewise); `run` now
//!     reports `SimError::Jammed`.
//! 20. Pairs predicted from far away (`|d|` up to 5·10⁸ radius sums, as brute force predicts
//!     every pair): the contact time's discriminant, a difference of two numbers of size
//!     `|d|²|u|²`, was rounding noise; spheres collided at their closest approach (50 %
//!     overlap) or without ever touching.

use std::sync::mpsc;
use std::time::Duration;

use kinetic_cdo::{
    BruteForce, Cdo, Collision, CollisionKind, LaguerreDelaunay, NeighbourLists, Particle,
    RegularSubdivision, SegmentTrees, SimBox, SimConfig, SimError, Simulation, SnapshotEvery, SpatialTree,
    Stop, init,
};

/// Runs `f` on a thread and panics if it does not finish within `seconds` (a hang).
fn within<T: Send + 'static>(seconds: u64, label: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(Duration::from_secs(seconds)) {
        Ok(v) => v,
        Err(e) => panic!("{label}: no result within {seconds} s ({e})"),
    }
}

fn floor_box() -> SimBox<2> {
    SimBox::walls([10.0, 10.0]).unwrap()
}

// 1.

#[test]
fn inelastic_gravity_needs_the_tc_guard() {
    let ball = vec![Particle::new([5.0, 5.0], [0.0, 0.0], 0.5, 1.0)];
    let config = SimConfig::<2> { gravity: [0.0, -1.0], restitution: 0.5, ..SimConfig::default() };
    let result = Simulation::new(ball.clone(), floor_box(), config, BruteForce::default());
    assert!(
        matches!(result, Err(SimError::InvalidParameter { name: "tc_duration", value, .. }) if value == 0.0),
        "{:?}",
        result.map(|s| s.state().position(0))
    );
    // Elastic under gravity, and inelastic without gravity, stay accepted.
    let elastic = SimConfig::<2> { gravity: [0.0, -1.0], ..SimConfig::default() };
    assert!(Simulation::new(ball.clone(), floor_box(), elastic, BruteForce::default()).is_ok());
    let no_gravity = SimConfig::<2> { restitution: 0.5, ..SimConfig::default() };
    assert!(Simulation::new(ball.clone(), floor_box(), no_gravity, BruteForce::default()).is_ok());
    // With the guard the ball settles into fast elastic bounces and never leaves the box.
    let guarded = SimConfig { tc_duration: 1e-3, ..config };
    let mut sim = Simulation::new(ball, floor_box(), guarded, BruteForce::default()).unwrap();
    let mut sim = within(60, "guarded bounce", move || {
        sim.run(Stop::Time(100.0)).unwrap();
        sim
    });
    assert_eq!(sim.state().now(), 100.0);
    assert!(sim.max_overlap() < 1e-9, "{}", sim.max_overlap());
    let y = sim.state().position(0)[1];
    assert!((0.5 - 1e-9..=9.5).contains(&y), "y = {y}");
    assert!(sim.next_collision().is_some());
}

/// A bounce whose speed squares to below the smallest `f64` (1e-162² underflows): its wall hit
/// used to be predicted at infinity, so the ball fell through the floor with no collision.
#[test]
fn dying_bounce_under_gravity_stays_in_the_box() {
    let ball = vec![Particle::new([5.0, 0.5], [0.0, 1e-162], 0.5, 1.0)];
    let config = SimConfig::<2> { gravity: [0.0, -1.0], ..SimConfig::default() };
    let mut sim = Simulation::new(ball, floor_box(), config, BruteForce::default()).unwrap();
    let sim = within(60, "dying bounce", move || {
        sim.run(Stop::Collisions(1000)).unwrap();
        sim
    });
    assert_eq!(sim.counters().wall_collisions, 1000);
    assert!(sim.max_overlap() < 1e-9, "{}", sim.max_overlap());
    assert!(sim.state().position(0)[1] >= 0.5 * (1.0 - 1e-9));
}

// 2.

fn first_collision<const D: usize, S: Cdo<D> + Send + 'static>(
    structure: S,
    sim_box: SimBox<D>,
) -> Result<Option<Collision>, SimError> {
    let at = |x: f64| std::array::from_fn(|a| if a == 0 { x } else { 5.0 });
    let towards = |v: f64| std::array::from_fn(|a| if a == 0 { v } else { 0.0 });
    let particles = vec![
        Particle::new(at(2.0), towards(1.0), 1e-16, 1.0),
        Particle::new(at(8.0), towards(-1.0), 1e-16, 1.0),
    ];
    within(60, "tiny radii", move || {
        Simulation::new(particles, sim_box, SimConfig::default(), structure).map(|mut s| s.next_collision())
    })
}

/// Radii of 1e-16 at coordinates ~5: the right collision (pair at t = 3) or a typed error, never
/// a missed collision. Segment trees used to report a wall at t = 8 (walls) or nothing
/// (periodic); neighbour lists nothing.
#[test]
fn tiny_radii_collide_or_are_refused() {
    fn check<const D: usize>(sim_box: SimBox<D>, failures: &mut Vec<String>) {
        let outcomes = [
            ("brute force", first_collision(BruteForce::default(), sim_box)),
            ("subdivision", first_collision(RegularSubdivision::new(), sim_box)),
            ("segment trees", first_collision(SegmentTrees::new(), sim_box)),
            ("neighbour lists", first_collision(NeighbourLists::default(), sim_box)),
        ];
        for (name, outcome) in outcomes {
            match outcome {
                Ok(Some(c)) if c.kind == CollisionKind::Pair(0, 1) && (c.time - 3.0).abs() < 1e-12 => {}
                Err(SimError::Unsupported { .. }) if name != "brute force" => {}
                other => failures.push(format!("{name}, {D}D, {:?}: {other:?}", sim_box.periodic_axes())),
            }
        }
    }
    let mut failures = Vec::new();
    check(SimBox::walls([10.0, 10.0]).unwrap(), &mut failures);
    check(SimBox::periodic([10.0, 10.0]).unwrap(), &mut failures);
    check(SimBox::walls([10.0; 3]).unwrap(), &mut failures);
    check(SimBox::periodic([10.0; 3]).unwrap(), &mut failures);
    match first_collision(LaguerreDelaunay::new(), SimBox::walls([10.0, 10.0]).unwrap()) {
        Ok(Some(c)) if c.kind == CollisionKind::Pair(0, 1) => {}
        other => failures.push(format!("Laguerre–Delaunay: {other:?}")),
    }
    assert!(failures.is_empty(), "{failures:#?}");
    // The refusal names the structure's limit, and a resolvable radius still works.
    let err = first_collision(SegmentTrees::new(), SimBox::walls([10.0, 10.0]).unwrap()).unwrap_err();
    assert!(err.to_string().contains("segment trees"), "{err}");
    let p = vec![
        Particle::new([2.0, 5.0], [1.0, 0.0], 1e-12, 1.0),
        Particle::new([8.0, 5.0], [-1.0, 0.0], 1e-12, 1.0),
    ];
    let mut sim =
        Simulation::new(p, SimBox::walls([10.0, 10.0]).unwrap(), SimConfig::default(), SegmentTrees::new())
            .unwrap();
    assert_eq!(sim.next_collision().unwrap().kind, CollisionKind::Pair(0, 1));
}

/// One tiny particle alone (no pair to miss yet) is refused at build too.
#[test]
fn segment_trees_refuse_a_lone_tiny_particle() {
    let p = vec![Particle::new([2.0, 5.0], [1.0, 0.0], 1e-16, 1.0)];
    let result =
        Simulation::new(p, SimBox::walls([10.0, 10.0]).unwrap(), SimConfig::default(), SegmentTrees::new());
    assert!(matches!(result, Err(SimError::Unsupported { .. })), "{:?}", result.map(|_| ()));
}

// 3.

#[test]
fn snapshot_intervals_that_cannot_advance_are_refused() {
    let cases = [
        (Stop::Time(2.0), SnapshotEvery::Time(0.0), "every"),
        (Stop::Time(2.0), SnapshotEvery::Time(-1.0), "every"),
        (Stop::Time(2.0), SnapshotEvery::Time(f64::NAN), "every"),
        (Stop::Time(2.0), SnapshotEvery::Time(f64::INFINITY), "every"),
        (Stop::Collisions(10), SnapshotEvery::Time(0.0), "every"),
        (Stop::Time(2.0), SnapshotEvery::Collisions(0), "every"),
        (Stop::Collisions(10), SnapshotEvery::Collisions(0), "every"),
        (Stop::Time(f64::NAN), SnapshotEvery::Time(0.5), "stop"),
        (Stop::Time(f64::NAN), SnapshotEvery::Collisions(1), "stop"),
    ];
    for (stop, every, name) in cases {
        let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.3], 0.5, 1.0)];
        let mut sim =
            Simulation::new(particles, floor_box(), SimConfig::default(), BruteForce::default()).unwrap();
        let label = format!("{stop:?} every {every:?}");
        let (result, out) = within(20, &label, move || {
            let mut out = Vec::new();
            let result = sim.run_with_snapshots(stop, every, &mut out);
            (result, out)
        });
        let err = result.expect_err(&label);
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput, "{label}");
        let source = err.into_inner().and_then(|e| e.downcast::<SimError>().ok());
        assert!(
            matches!(source.as_deref(), Some(SimError::InvalidParameter { name: n, .. }) if *n == name),
            "{label}: {source:?}"
        );
        assert!(out.is_empty(), "{label}: wrote {} bytes", out.len());
    }
    // An interval lost in the clock's rounding: frames would never advance.
    let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.3], 0.5, 1.0)];
    let mut sim =
        Simulation::new(particles, floor_box(), SimConfig::default(), BruteForce::default()).unwrap();
    sim.run(Stop::Time(1.0)).unwrap();
    let mut sim = within(20, "tiny interval", move || {
        let mut out = Vec::new();
        assert!(sim.run_with_snapshots(Stop::Time(2.0), SnapshotEvery::Time(1e-17), &mut out).is_err());
        assert!(out.is_empty());
        sim
    });
    let mut out = Vec::new();
    sim.run_with_snapshots(Stop::Time(2.0), SnapshotEvery::Time(0.25), &mut out).unwrap();
    assert_eq!(String::from_utf8(out).unwrap().lines().filter(|l| l.starts_with("P ")).count(), 5);
}

/// A collision budget with frames in time, for a system that never collides (one disk in a
/// periodic box, re-predicted every 0.1 by the horizon): the run ends as `next_collision`
/// does after QUIET_EVENTS_PER_SLOT events per slot without a collision, instead of writing
/// frames forever.
#[test]
fn snapshots_of_a_system_that_never_collides_end() {
    let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.3], 0.5, 1.0)];
    let config = SimConfig { prediction_horizon: Some(0.1), ..SimConfig::default() };
    let mut sim =
        Simulation::new(particles, SimBox::periodic([4.0, 4.0]).unwrap(), config, BruteForce::default())
            .unwrap();
    let frames = within(60, "never colliding", move || {
        let mut out = Vec::new();
        sim.run_with_snapshots(Stop::Collisions(5), SnapshotEvery::Time(1.0), &mut out).unwrap();
        assert_eq!(sim.counters().all_collisions(), 0);
        String::from_utf8(out).unwrap().lines().filter(|l| l.starts_with("P ")).count()
    });
    // About one frame per 10 horizon events, up to the quiet-event limit.
    assert!(frames > 10, "{frames} frames");
}

// 4.

#[test]
fn dense_packing_refuses_bad_relaxation() {
    let radii = vec![0.5; 20];
    let side = init::cube_side_for::<2>(&radii, 0.3);
    let sim_box = SimBox::periodic([side, side]).unwrap();
    for relax in [f64::INFINITY, f64::NAN, -1.0, f64::NEG_INFINITY] {
        let radii = radii.clone();
        let result = within(30, &format!("relax {relax}"), move || {
            init::dense_packing(&sim_box, &radii, init::MassRule::Unit, 0.3, relax, 1)
        });
        assert!(
            matches!(result, Err(SimError::InvalidParameter { name: "relax_per_particle", .. })),
            "relax {relax}: {:?}",
            result.map(|p| p.len())
        );
    }
    assert!(init::dense_packing(&sim_box, &radii, init::MassRule::Unit, 0.3, 0.0, 1).is_ok());
}

// 5.

#[test]
fn nan_and_past_stop_times_do_nothing() {
    let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.3], 0.5, 1.0)];
    let mut sim =
        Simulation::new(particles, floor_box(), SimConfig::default(), BruteForce::default()).unwrap();
    sim.run(Stop::Time(5.0)).unwrap();
    let before = (sim.state().now(), sim.counters().all_collisions(), sim.state().position(0));
    let sim = within(20, "Stop::Time(NaN)", move || {
        sim.run(Stop::Time(f64::NAN)).unwrap();
        sim.run(Stop::Time(1.0)).unwrap();
        sim.run(Stop::Time(5.0)).unwrap();
        sim.run(Stop::Time(f64::NEG_INFINITY)).unwrap();
        sim
    });
    assert_eq!((sim.state().now(), sim.counters().all_collisions(), sim.state().position(0)), before);
}

// 7.

#[test]
fn scale_velocities_keeps_the_speed_limit() {
    let particles = vec![
        Particle::new([1.0, 1.0], [0.0, 0.0], 0.5, 1.0),
        Particle::new([3.0, 3.0], [1.0, 0.3], 0.5, 1.0),
    ];
    let mut sim =
        Simulation::new(particles, floor_box(), SimConfig::default(), BruteForce::default()).unwrap();
    let before = sim.state().velocity(1);
    for factor in [1e300, 1e101] {
        assert_eq!(sim.scale_velocities(factor), Err(SimError::Overflow { index: 1 }));
        assert_eq!(sim.state().velocity(1), before);
    }
    sim.scale_velocities(1e99).unwrap();
    assert!(sim.next_collision().is_some());
}

// 8.

#[test]
fn random_placement_refuses_a_particle_wider_than_the_walls() {
    let result =
        init::random_placement(&SimBox::walls([1.0, 1.0]).unwrap(), &[2.0], init::MassRule::Unit, 1.0, 0);
    assert_eq!(result, Err(SimError::OutsideBox { index: 0, axis: 0 }));
    let narrow = SimBox::new([10.0, 1.0, 10.0], [true, false, true]).unwrap();
    let result = init::random_placement(&narrow, &[0.2, 0.6], init::MassRule::Unit, 1.0, 0);
    assert_eq!(result, Err(SimError::OutsideBox { index: 1, axis: 1 }));
    // Exactly as wide as the box: it would touch both walls, and once it moved across, bounce
    // between them infinitely often at one instant. Refused by both.
    let walls = SimBox::walls([1.0, 4.0]).unwrap();
    let result = init::random_placement(&walls, &[0.5], init::MassRule::Unit, 0.0, 0);
    assert_eq!(result, Err(SimError::NoRoomBetweenWalls { axis: 0, length: 1.0, diameter: 1.0 }));
    let touching_both = vec![Particle::new([0.5, 2.0], [0.0, 1.0], 0.5, 1.0)];
    let result = Simulation::new(touching_both, walls, SimConfig::default(), BruteForce::default());
    assert_eq!(result.err(), Some(SimError::NoRoomBetweenWalls { axis: 0, length: 1.0, diameter: 1.0 }));
}

// 9.

#[test]
fn radius_generators_refuse_impossible_sizes() {
    let mut sizes = vec![usize::MAX, 1 << 61];
    // An allocation of 8 TiB fails under the kernel's default overcommit heuristic.
    if std::fs::read_to_string("/proc/sys/vm/overcommit_memory").is_ok_and(|m| m.trim() == "0") {
        sizes.push(1 << 40);
    }
    for n in sizes {
        assert!(
            matches!(
                init::polydisperse_radii(n, 0.5, 2.0, 1),
                Err(SimError::InvalidParameter { name: "n", .. })
            ),
            "polydisperse {n}"
        );
        assert!(
            matches!(
                init::bidisperse_radii::<3>(n, 0.5, 2.0, 0.5),
                Err(SimError::InvalidParameter { name: "n", .. })
            ),
            "bidisperse {n}"
        );
    }
    assert_eq!(init::polydisperse_radii(3, 0.5, 2.0, 1).unwrap().len(), 3);
    // Radii a simulation refuses (below MIN_LENGTH) are refused here already (a physics review
    // found r_max = 1e-200 accepted, its radii refused later by every placement).
    for (r_max, gamma) in [(1e-200, 1.0), (1e-99, 100.0)] {
        let refused = |r: Result<Vec<f64>, SimError>| {
            matches!(r, Err(SimError::InvalidParameter { name: "r_max", .. }))
        };
        assert!(refused(init::polydisperse_radii(3, r_max, gamma, 1)), "{r_max:e}, {gamma}");
        assert!(refused(init::bidisperse_radii::<2>(3, r_max, gamma, 0.5)), "{r_max:e}, {gamma}");
    }
    let smallest = init::polydisperse_radii(3, kinetic_cdo::MIN_LENGTH * 4.0, 4.0, 1).unwrap();
    assert!(smallest.iter().all(|&r| r >= kinetic_cdo::MIN_LENGTH));
}

/// A brute-force simulation of `particles` in a walled box of the given sides.
fn brute_force_in_walls(particles: Vec<Particle<2>>, sides: [f64; 2]) -> Simulation<2, BruteForce> {
    Simulation::new(particles, SimBox::walls(sides).unwrap(), SimConfig::default(), BruteForce::default())
        .unwrap()
}

/// An elastic head-on collision of equal masses exchanges the velocities, whatever the
/// (accepted) mass (10.).
#[test]
fn equal_masses_of_any_size_exchange_velocities() {
    for mass in [1e-300, 1e-170, 1e-100, 1.0, 1e100, 1e160, 1e300] {
        let label = format!("mass {mass}");
        let velocities = within(10, &label.clone(), move || {
            let particles = vec![
                Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, mass),
                Particle::new([3.0, 1.0], [-1.0, 0.0], 0.5, mass),
            ];
            let mut sim = brute_force_in_walls(particles, [6.0, 2.0]);
            let first = sim.next_collision().unwrap();
            assert!(
                matches!(first.kind, CollisionKind::Pair(0, 1)) && first.time == 0.5,
                "{label}: {first:?}"
            );
            let velocities = [sim.state().velocity(0), sim.state().velocity(1)];
            let second = sim.next_collision().unwrap();
            assert!(!matches!(second.kind, CollisionKind::Pair(..)), "{label}: collided again: {second:?}");
            velocities
        });
        assert_eq!(velocities, [[-1.0, 0.0], [1.0, 0.0]], "mass {mass}");
    }
}

/// A particle at rest without gravity stays where it is, however late (11.).
#[test]
fn positions_stay_finite_at_huge_times_without_gravity() {
    let mut sim = brute_force_in_walls(vec![Particle::new([1.0, 1.0], [0.0, 0.0], 0.5, 1.0)], [4.0, 4.0]);
    sim.run(Stop::Time(1e300)).unwrap();
    assert_eq!(sim.state().position(0), [1.0, 1.0]);
}

/// Scaling every length and speed by the same power of two leaves the collision time unchanged
/// (exactly: the scaling is exact): a head-on pair meets at t = 1 at every scale the engine
/// accepts, with every structure (12.).
#[test]
fn head_on_pairs_meet_on_time_at_every_scale() {
    for exponent in (-330..=300).step_by(30) {
        let s = 2f64.powi(exponent);
        let particles = vec![
            Particle::new([2.0 * s, 5.0 * s], [s, 0.0], s, 1.0),
            Particle::new([6.0 * s, 5.0 * s], [-s, 0.0], s, 1.0),
        ];
        let sim_box = SimBox::walls([10.0 * s, 10.0 * s]).unwrap();
        let label = format!("scale 2^{exponent}");
        let first = |structure: &dyn Fn() -> Option<Collision>, name: &str| {
            let c = structure().unwrap_or_else(|| panic!("{label} {name}: no collision"));
            assert!(matches!(c.kind, CollisionKind::Pair(0, 1)) && c.time == 1.0, "{label} {name}: {c:?}");
        };
        let run = |make: &dyn Fn(Vec<Particle<2>>) -> Option<Collision>| make(particles.clone());
        first(
            &|| {
                run(&|p| {
                    Simulation::new(p, sim_box, SimConfig::default(), BruteForce::default())
                        .unwrap()
                        .next_collision()
                })
            },
            "brute force",
        );
        first(
            &|| {
                run(&|p| {
                    Simulation::new(p, sim_box, SimConfig::default(), RegularSubdivision::<2>::new())
                        .unwrap()
                        .next_collision()
                })
            },
            "subdivision",
        );
        first(
            &|| {
                run(&|p| {
                    Simulation::new(p, sim_box, SimConfig::default(), SegmentTrees::<2>::new())
                        .unwrap()
                        .next_collision()
                })
            },
            "segment trees",
        );
        first(
            &|| {
                run(&|p| {
                    Simulation::new(p, sim_box, SimConfig::default(), NeighbourLists::<2>::default())
                        .unwrap()
                        .next_collision()
                })
            },
            "neighbour lists",
        );
    }
}

// 13.

/// The first `events` collisions of brute force and of the triangulation on `particles`
/// must agree (the same pairs and walls, times within 1e-9), and the triangulation must stay
/// regular after each.
fn triangulation_agrees(
    label: &str,
    particles: Vec<Particle<2>>,
    sim_box: SimBox<2>,
    config: SimConfig<2>,
    events: usize,
) {
    let mut brute = Simulation::new(particles.clone(), sim_box, config, BruteForce::default()).unwrap();
    let mut triangulation = Simulation::new(particles, sim_box, config, LaguerreDelaunay::new()).unwrap();
    for k in 0..events {
        let e = brute.next_collision().unwrap_or_else(|| panic!("{label}: brute force ended at {k}"));
        let f = triangulation
            .next_collision()
            .unwrap_or_else(|| panic!("{label}: the triangulation ended at {k}"));
        assert!(
            e.kind == f.kind && (e.time - f.time).abs() <= 1e-9 * e.time.abs(),
            "{label}: collision {k}: brute force {e:?}, triangulation {f:?}"
        );
        assert!(
            triangulation.structure().is_regular(triangulation.state()),
            "{label}: not regular after collision {k}"
        );
    }
}

/// 40 polydisperse disks (φ = 0.4) at rest positions from random placement, in a walled or
/// periodic square.
fn forty_disks(periodic: bool) -> (Vec<Particle<2>>, f64) {
    let radii = init::polydisperse_radii(40, 0.5, 2.0, 3).unwrap();
    let side = init::cube_side_for::<2>(&radii, 0.4);
    let unit_box = SimBox::new([side; 2], [periodic; 2]).unwrap();
    (init::random_placement(&unit_box, &radii, init::MassRule::Unit, 1.0, 5).unwrap(), side)
}

/// `particles` with lengths and speeds multiplied by `length` and `speed`.
fn rescaled(particles: &[Particle<2>], length: f64, speed: f64) -> Vec<Particle<2>> {
    particles
        .iter()
        .map(|p| {
            Particle::new(
                p.position.map(|x| x * length),
                p.velocity.map(|v| v * speed),
                p.radius * length,
                p.mass,
            )
        })
        .collect()
}

/// One system rescaled by powers of two in length and in speed, with walls and periodic:
/// the triangulation's collisions must be brute force's, whose pair contact times are exact at
/// every scale (test 12). Powers of two rescale the unit system exactly, so the same run is
/// expected at every scale.
#[test]
fn the_triangulation_agrees_with_brute_force_at_every_scale() {
    for periodic in [false, true] {
        let (unit, side) = forty_disks(periodic);
        for length_exponent in [-330, -270, -200, -100, 0, 100, 200, 270, 300] {
            for speed_exponent in [-330, -150, 0, 150, 320] {
                let (length, speed) = (2f64.powi(length_exponent), 2f64.powi(speed_exponent));
                let label =
                    format!("lengths 2^{length_exponent}, speeds 2^{speed_exponent}, periodic {periodic}");
                let sim_box = SimBox::new([side * length; 2], [periodic; 2]).unwrap();
                triangulation_agrees(
                    &label,
                    rescaled(&unit, length, speed),
                    sim_box,
                    SimConfig::default(),
                    150,
                );
            }
        }
    }
}

/// Systems whose own scales mislead (found by a review of a first fix that took its units
/// from the mean spacing and the rms speed): a common drift far faster than the relative
/// motion (rows towards the bounding triangle's resting corners see the drift), an exactly
/// common drift (no relative motion at all) at a tiny length scale, and a release from
/// near rest under gravity; and a clock beyond 1e154 without gravity, where the corners'
/// unused gravity term made them NaN.
#[test]
fn the_triangulation_agrees_where_the_system_scales_mislead() {
    let (unit, side) = forty_disks(false);
    let walls = |length: f64| SimBox::walls([side * length; 2]).unwrap();
    let mut drifting = unit.clone();
    for (i, p) in drifting.iter_mut().enumerate() {
        p.velocity = [1.0, if i % 2 == 0 { 1e-150 } else { -1e-150 }];
    }
    triangulation_agrees("drift with a spread of 1e-150", drifting, walls(1.0), SimConfig::default(), 150);
    let tiny = 2f64.powi(-200);
    let common: Vec<_> = rescaled(&unit, tiny, 1.0)
        .into_iter()
        .map(|p| Particle { velocity: [1.0 / tiny, 0.0], ..p })
        .collect();
    triangulation_agrees(
        "common drift 2^200 at lengths 2^-200",
        common,
        walls(tiny),
        SimConfig::default(),
        150,
    );
    let resting: Vec<_> =
        unit.iter().map(|p| Particle { velocity: p.velocity.map(|v| v * 1e-150), ..*p }).collect();
    let gravity = SimConfig { gravity: [0.0, -1.0], ..SimConfig::default() };
    triangulation_agrees("release from near rest under gravity", resting, walls(1.0), gravity, 300);
    let (late, speed) = (2f64.powi(200), 2f64.powi(-320));
    triangulation_agrees(
        "times beyond 1e154",
        rescaled(&unit, late, speed),
        walls(late),
        SimConfig::default(),
        150,
    );
}

// 14.

/// A head-on pair whose `d·u` (a length times a speed) is below `f64`'s range meets on time in
/// every structure: at `t = 2^(length exponent − speed exponent)` exactly (the contact time
/// is evaluated at unit scale by powers of two).
#[test]
fn tiny_separations_at_tiny_speeds_still_meet() {
    for (length_exponent, speed_exponent) in
        [(-300, -800), (-200, -900), (-100, -1000), (-330, -700), (0, -1000)]
    {
        let (l, v) = (2f64.powi(length_exponent), 2f64.powi(speed_exponent));
        let particles = vec![
            Particle::new([2.0 * l, 5.0 * l], [v, 0.0], l, 1.0),
            Particle::new([6.0 * l, 5.0 * l], [-v, 0.0], l, 1.0),
            Particle::new([5.0 * l, 8.5 * l], [0.0, 0.0], l, 1.0),
        ];
        let sim_box = SimBox::walls([10.0 * l, 10.0 * l]).unwrap();
        let expected = 2f64.powi(length_exponent - speed_exponent);
        let label = format!("lengths 2^{length_exponent}, speeds 2^{speed_exponent}");
        let check = |c: Option<Collision>, name: &str| {
            let c = c.unwrap_or_else(|| panic!("{label} {name}: no collision"));
            assert!(
                matches!(c.kind, CollisionKind::Pair(0, 1)) && c.time == expected,
                "{label} {name}: {c:?}"
            );
        };
        let config = SimConfig::default();
        let p = || particles.clone();
        check(
            Simulation::new(p(), sim_box, config, BruteForce::default()).unwrap().next_collision(),
            "brute force",
        );
        check(
            Simulation::new(p(), sim_box, config, RegularSubdivision::<2>::new()).unwrap().next_collision(),
            "subdivision",
        );
        check(
            Simulation::new(p(), sim_box, config, SegmentTrees::<2>::new()).unwrap().next_collision(),
            "segment trees",
        );
        check(
            Simulation::new(p(), sim_box, config, NeighbourLists::<2>::default()).unwrap().next_collision(),
            "neighbour lists",
        );
        check(
            Simulation::new(p(), sim_box, config, LaguerreDelaunay::new()).unwrap().next_collision(),
            "triangulation",
        );
    }
}

// 15.

/// The first `events` collisions of `structure` on `particles`.
fn first_collisions<S: Cdo<2>>(
    particles: Vec<Particle<2>>,
    sim_box: SimBox<2>,
    config: SimConfig<2>,
    structure: S,
    events: usize,
) -> Vec<Collision> {
    let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    (0..events).map_while(|_| sim.next_collision()).collect()
}

/// Walls on x, periodic along y, gravity along y: in the frame falling with the particles
/// nothing changes (the walls are parallel to gravity), so the collisions must be those
/// without gravity, in brute force and in the structures that follow relative motion.
#[test]
fn gravity_along_a_periodic_axis_changes_no_collision() {
    let radii = init::polydisperse_radii(50, 0.5, 2.0, 3).unwrap();
    let side = init::cube_side_for::<2>(&radii, 0.3);
    let sim_box = SimBox::new([side; 2], [false, true]).unwrap();
    let particles = init::random_placement(&sim_box, &radii, init::MassRule::Unit, 1.0, 7).unwrap();
    let falling = |g: f64| SimConfig { gravity: [0.0, -g], ..SimConfig::default() };
    let expected = first_collisions(particles.clone(), sim_box, falling(0.0), BruteForce::default(), 200);
    for g in [1e3, 1e6] {
        for (structure, found) in [
            (
                "brute force",
                first_collisions(particles.clone(), sim_box, falling(g), BruteForce::default(), 200),
            ),
            (
                "segment trees",
                first_collisions(particles.clone(), sim_box, falling(g), SegmentTrees::<2>::new(), 200),
            ),
            (
                "triangulation",
                first_collisions(particles.clone(), sim_box, falling(g), LaguerreDelaunay::new(), 200),
            ),
        ] {
            assert_eq!(found.len(), expected.len(), "{structure}, g = {g}: ended early");
            for (k, (e, f)) in expected.iter().zip(&found).enumerate() {
                assert!(
                    e.kind == f.kind && (e.time - f.time).abs() <= 1e-6 * e.time,
                    "{structure}, g = {g}: collision {k}: without gravity {e:?}, with {f:?}"
                );
            }
        }
    }
}

// 16.

/// The first collision of one particle crossing a walled box `side` wide along x.
fn crossing<const D: usize, S: Cdo<D>>(side: f64, radius: f64, structure: S) -> Option<Collision> {
    let mut position = [side / 2.0; D];
    position[0] = 1.0;
    let mut velocity = [0.0; D];
    velocity[0] = 1.0;
    let particles = vec![Particle::new(position, velocity, radius, 1.0)];
    let mut sim =
        Simulation::new(particles, SimBox::walls([side; D]).unwrap(), SimConfig::default(), structure)
            .unwrap();
    sim.next_collision()
}

/// The wall hit of a small particle crossing a box thousands of diameters wide comes after
/// 5·10⁴ (spatial tree) or 4·10⁵ (neighbour lists) of the structure's own events; a scheduled collision is certain, so the
/// quiet-event cutoff must not end the search before it.
#[test]
fn a_scheduled_wall_hit_outlasts_the_quiet_event_cutoff() {
    let expected = |side: f64, radius: f64| Collision {
        time: side - radius - 1.0,
        kind: CollisionKind::Wall { particle: 0, axis: 0, high: true },
    };
    let close = |found: Option<Collision>, side: f64, radius: f64, label: &str| {
        let want = expected(side, radius);
        let got = found.unwrap_or_else(|| panic!("{label}: no collision, expected {want:?}"));
        assert!(
            got.kind == want.kind && (got.time - want.time).abs() <= 1e-12 * side,
            "{label}: {got:?}, expected {want:?}"
        );
    };
    let found = within(120, "crossings", || {
        [
            crossing::<2, _>(1e4, 0.1, SpatialTree::new()),
            crossing::<2, _>(1e4, 0.1, NeighbourLists::default()),
            crossing::<3, _>(1e4, 0.1, SpatialTree::new()),
            crossing::<2, _>(1e4, 0.1, BruteForce::default()),
        ]
    });
    close(found[0], 1e4, 0.1, "2D spatial tree");
    close(found[1], 1e4, 0.1, "2D neighbour lists");
    close(found[2], 1e4, 0.1, "3D spatial tree");
    close(found[3], 1e4, 0.1, "2D brute force");
}

/// The same crossing under a collision budget with frames in time: the run must reach the
/// wall hit (and write the frames on the way), not end in the quiet stretch before it.
#[test]
fn snapshots_reach_a_scheduled_wall_hit() {
    let particles = vec![Particle::new([1.0, 5.0], [1.0, 0.0], 0.1, 1.0)];
    let mut sim = Simulation::new(
        particles,
        SimBox::walls([1e4, 1e4]).unwrap(),
        SimConfig::default(),
        SpatialTree::new(),
    )
    .unwrap();
    let frames = within(120, "snapshots", move || {
        let mut out = Vec::new();
        sim.run_with_snapshots(Stop::Collisions(1), SnapshotEvery::Time(1000.0), &mut out).unwrap();
        assert_eq!(sim.counters().wall_collisions, 1);
        String::from_utf8(out).unwrap().lines().filter(|l| l.starts_with("P ")).count()
    });
    // t = 0, 1000, ..., 9000 before the hit at 9998.9.
    assert_eq!(frames, 10);
}

// 17.

/// A particle crawling at a subnormal speed, with every structure: the run reaches its end
/// time without a NaN event time (a debug assertion of the queue), and the particle moved
/// by its speed times the time.
#[test]
fn subnormal_speeds_schedule_finite_events() {
    for speed in [5e-324, 1e-320, 1e-310, 2.3e-308] {
        for periodic in [false, true] {
            let particles = vec![Particle::new([5.0, 5.0], [speed, 0.0], 0.5, 1.0)];
            let sim_box = SimBox::new([10.0, 10.0], [periodic, periodic]).unwrap();
            let label = format!("speed {speed:e}, periodic {periodic}");
            let moved = within(60, &label, move || {
                let mut sim =
                    Simulation::new(particles, sim_box, SimConfig::default(), NeighbourLists::<2>::default())
                        .unwrap();
                sim.run(Stop::Time(1.0)).unwrap();
                assert_eq!(sim.state().now(), 1.0);
                sim.state().particles()[0].position[0] - 5.0
            });
            assert_eq!(moved, 0.0, "{label}: a subnormal displacement rounds away at x = 5");
        }
    }
}

/// A fast compression with the neighbour lists (rates 10 to 1000) scheduled NaN shell exits:
/// now it ends with a typed result and a valid state.
#[test]
fn fast_compressions_with_neighbour_lists_keep_event_times_finite() {
    let sim_box = SimBox::periodic([20.0, 20.0]).unwrap();
    let particles = init::random_placement(&sim_box, &[0.4; 200], init::MassRule::Unit, 1.0, 1).unwrap();
    for rate in [10.0, 1000.0] {
        let particles = particles.clone();
        let (outcome, overlap) = within(120, &format!("rate {rate}"), move || {
            let mut sim =
                Simulation::new(particles, sim_box, SimConfig::default(), NeighbourLists::<2>::default())
                    .unwrap();
            let outcome = sim.compress(0.5, rate, 100);
            (outcome, sim.max_overlap())
        });
        assert!(
            matches!(outcome, Ok(()) | Err(SimError::PackingOutOfReach { .. })),
            "rate {rate}: {outcome:?}"
        );
        assert!(overlap <= kinetic_cdo::OVERLAP_TOLERANCE, "rate {rate}: overlap {overlap}");
    }
}

// 18.

/// A compression rate at which the surfaces would outrun the speed limit is refused before
/// anything changes; the largest rate within it compresses normally.
#[test]
fn compressions_faster_than_the_speed_limit_are_refused() {
    let sim_box = SimBox::periodic([20.0, 20.0]).unwrap();
    let particles = init::random_placement(&sim_box, &[0.4; 200], init::MassRule::Unit, 1.0, 1).unwrap();
    for rate in [1e200, 1e300, f64::MAX] {
        let mut sim =
            Simulation::new(particles.clone(), sim_box, SimConfig::default(), BruteForce::default()).unwrap();
        let (phi, energy) = (sim.state().packing_fraction(), sim.state().kinetic_energy());
        let outcome = sim.compress(0.5, rate, 100);
        assert!(
            matches!(outcome, Err(SimError::InvalidParameter { name: "rate", .. })),
            "rate {rate:e}: {outcome:?}"
        );
        assert_eq!((sim.state().packing_fraction(), sim.state().kinetic_energy()), (phi, energy));
        sim.run(Stop::Collisions(100)).unwrap();
        assert_eq!(sim.state().packing_fraction(), phi, "rate {rate:e}: the radii grew after the refusal");
    }
}

// 19.

/// Runs `particles` with `structure` until `stop` on a thread (a hang fails the test) and
/// returns the outcome with the simulation afterwards.
fn run_outcome<S: Cdo<2> + Send + 'static>(
    label: &str,
    particles: Vec<Particle<2>>,
    sim_box: SimBox<2>,
    config: SimConfig<2>,
    structure: S,
    stop: Stop,
) -> (Result<(), SimError>, Simulation<2, S>) {
    within(60, label, move || {
        let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
        (sim.run(stop), sim)
    })
}

/// Checks that `particles` jam (at `expected_time`, to `tolerance`) in every 2D structure,
/// under a time and a collision budget, and that each jammed simulation is still valid.
fn jams_everywhere(
    particles: &[Particle<2>],
    sim_box: SimBox<2>,
    config: SimConfig<2>,
    expected_time: f64,
    tolerance: f64,
) {
    let energy = Simulation::new(particles.to_vec(), sim_box, config, BruteForce::default())
        .unwrap()
        .state()
        .kinetic_energy();
    let check = |label: &str, outcome: Result<(), SimError>, overlap: f64, state: &kinetic_cdo::State<2>| {
        let Err(SimError::Jammed { time, collisions }) = outcome else {
            panic!("{label}: expected a jam, got {outcome:?} at t = {}", state.now());
        };
        assert!(
            (time - expected_time).abs() <= tolerance,
            "{label}: jammed at {time}, expected {expected_time}"
        );
        assert_eq!(time, state.now(), "{label}: the clock is not at the jam");
        let limit = kinetic_cdo::JAM_COLLISIONS_PER_PARTICLE * particles.len() as u64
            + kinetic_cdo::JAM_MIN_COLLISIONS;
        assert!(collisions >= limit, "{label}: reported after {collisions} collisions");
        assert!(overlap <= 1e-9, "{label}: overlap {overlap}");
        if config.restitution == 1.0 {
            let e = state.kinetic_energy();
            assert!((e - energy).abs() <= 1e-9 * energy, "{label}: energy {energy} -> {e}");
        }
    };
    for stop in [Stop::Time(1e3), Stop::Collisions(100_000_000)] {
        let p = particles.to_vec();
        macro_rules! each {
            ($($name:literal => $structure:expr),* $(,)?) => {$(
                let label = format!("{} ({stop:?})", $name);
                let (outcome, sim) = run_outcome(&label, p.clone(), sim_box, config, $structure, stop);
                check(&label, outcome, sim.max_overlap(), sim.state());
                assert!(sim.is_jammed(), "{label}: is_jammed() is false after the jam");
            )*};
        }
        each!(
            "brute force" => BruteForce::default(),
            "subdivision" => RegularSubdivision::new(),
            "spatial tree" => SpatialTree::new(),
            "segment trees" => SegmentTrees::<2>::new(),
            "neighbour lists" => NeighbourLists::default(),
            "triangulation" => LaguerreDelaunay::new(),
        );
    }
}

/// Two touching disks spanning the gap between two walls, one moving into the other: the
/// momentum bounces between the walls through them forever at t = 0. `run` used to never
/// return; it now reports the jam.
#[test]
fn a_pair_spanning_the_walls_jams_at_once() {
    let particles = vec![
        Particle::new([0.5, 2.0], [1.0, 0.0], 0.5, 1.0),
        Particle::new([1.5, 2.0], [0.0, 0.0], 0.5, 1.0),
    ];
    jams_everywhere(&particles, SimBox::walls([2.0, 4.0]).unwrap(), SimConfig::default(), 0.0, 0.0);
}

/// The same pair with a gap of 2⁻⁵⁰ between the second disk and its wall: not a jam in exact
/// arithmetic, but a rattle of four collisions every 2⁻⁴⁹ time units, so the clock creeps
/// by about an ulp per collision (10¹⁵ collisions to reach t = 1). The window in units of
/// the pair's own time scale recognises it; a test of exact equality of times would not.
#[test]
fn a_pair_rattling_in_a_gap_of_an_ulp_jams() {
    let gap = 2f64.powi(-50);
    let particles = vec![
        Particle::new([0.5, 2.0], [1.0, 0.0], 0.5, 1.0),
        Particle::new([1.5, 2.0], [0.0, 0.0], 0.5, 1.0),
    ];
    jams_everywhere(&particles, SimBox::walls([2.0 + gap, 4.0]).unwrap(), SimConfig::default(), 0.0, 1e-6);
}

/// A chain of three touching disks of an inexact radius spanning the walls at rest, set
/// moving by a fourth that strikes the middle one obliquely at an inexact time: the clock of
/// the jam creeps by rounding instead of standing still, and must still be recognised.
#[test]
fn a_chain_struck_from_the_side_jams_at_the_strike() {
    let r = 0.37;
    let height = 10.0 * r;
    let y = height / 2.0;
    let (bx, by) = (3.0 * r, y);
    // The striker touches the middle disk at 30° from the vertical after falling `drop`.
    let drop = 0.613;
    let (sx, sy) = (bx + 2.0 * r * 0.5, by + 2.0 * r * 0.75f64.sqrt() + drop);
    let particles = vec![
        Particle::new([r, y], [0.0, 0.0], r, 1.0),
        Particle::new([bx, by], [0.0, 0.0], r, 1.0),
        Particle::new([5.0 * r, y], [0.0, 0.0], r, 1.0),
        Particle::new([sx, sy], [0.0, -1.0], r, 1.0),
    ];
    let sim_box = SimBox::walls([6.0 * r, height]).unwrap();
    jams_everywhere(&particles, sim_box, SimConfig::default(), drop, 1e-12);
}

/// Inelastic collapse: three disks in a row, the outer two closing in on the middle one,
/// restitution 0.03 (below 7 − 4√3 ≈ 0.072, where three bodies can collapse) and no TC
/// guard: the middle disk bounces between the others ever faster, infinitely often before
/// t ≈ 2.3453 (an independent 1D event-driven model gives the same limit), which is reported as a
/// jam. With e = 0.3 the same start ends after a few collisions.
#[test]
fn inelastic_collapse_without_the_tc_guard_jams() {
    let particles = vec![
        Particle::new([2.0, 5.0], [1.0, 0.0], 0.5, 1.0),
        Particle::new([5.0, 5.0], [0.0, 0.0], 0.5, 1.0),
        Particle::new([8.5, 5.0], [-1.0, 0.0], 0.5, 1.0),
    ];
    let sim_box = SimBox::walls([10.0, 10.0]).unwrap();
    let inelastic = |e: f64| SimConfig { restitution: e, ..SimConfig::default() };
    let (outcome, sim) = run_outcome(
        "collapse",
        particles.clone(),
        sim_box,
        inelastic(0.03),
        BruteForce::default(),
        Stop::Time(3.0),
    );
    let Err(SimError::Jammed { time, .. }) = outcome else { panic!("e = 0.03: {outcome:?}") };
    assert!((time - 2.3453).abs() < 1e-3, "collapse at {time}");
    assert!(sim.max_overlap() <= 1e-9);
    let (outcome, sim) = run_outcome(
        "no collapse",
        particles,
        sim_box,
        inelastic(0.3),
        BruteForce::default(),
        Stop::Time(3.0),
    );
    assert_eq!(outcome, Ok(()));
    assert_eq!(sim.state().now(), 3.0);
    assert!(sim.counters().collisions < 100, "{:?}", sim.counters());
}

/// Legitimate bursts of simultaneous collisions are not jams: Newton's cradle (a row of 200
/// touching disks struck at one end passes the momentum along in 200 collisions at one
/// instant) ends with the last disk carrying it and the others at rest.
#[test]
fn newtons_cradle_is_not_a_jam() {
    let n = 200;
    let mut particles: Vec<Particle<2>> =
        (0..n).map(|k| Particle::new([10.0 + k as f64, 5.0], [0.0, 0.0], 0.5, 1.0)).collect();
    particles.insert(0, Particle::new([8.0, 5.0], [1.0, 0.0], 0.5, 1.0));
    let sim_box = SimBox::walls([1000.0, 10.0]).unwrap();
    let (outcome, sim) = run_outcome(
        "cradle",
        particles,
        sim_box,
        SimConfig::default(),
        BruteForce::default(),
        Stop::Time(2.0),
    );
    assert_eq!(outcome, Ok(()));
    assert!(!sim.is_jammed());
    assert_eq!(sim.counters().collisions, n as u64);
    let velocities: Vec<[f64; 2]> = sim.state().particles().iter().map(|p| p.velocity).collect();
    assert_eq!(velocities[n], [1.0, 0.0]);
    assert!(velocities[..n].iter().all(|v| *v == [0.0, 0.0]), "{velocities:?}");
}

/// Snapshots of a jamming run: the frames before the jam are written, then the jam comes back
/// as an I/O error whose source is the `SimError`.
#[test]
fn snapshots_report_a_jam() {
    let particles = vec![
        Particle::new([0.5, 2.0], [1.0, 0.0], 0.5, 1.0),
        Particle::new([1.5, 2.0], [0.0, 0.0], 0.5, 1.0),
    ];
    for every in [SnapshotEvery::Time(0.5), SnapshotEvery::Collisions(10)] {
        for stop in [Stop::Time(3.0), Stop::Collisions(1_000_000)] {
            let particles = particles.clone();
            let (outcome, frames) = within(60, "snapshots", move || {
                let mut sim = Simulation::new(
                    particles,
                    SimBox::walls([2.0, 4.0]).unwrap(),
                    SimConfig::default(),
                    BruteForce::default(),
                )
                .unwrap();
                let mut out = Vec::new();
                let outcome = sim.run_with_snapshots(stop, every, &mut out);
                (outcome, String::from_utf8(out).unwrap().lines().filter(|l| l.trim() == "2").count())
            });
            let e = outcome.expect_err("the jam must be reported");
            let source = e.into_inner().and_then(|s| s.downcast::<SimError>().ok());
            assert!(
                matches!(source.as_deref(), Some(SimError::Jammed { .. })),
                "{every:?}, {stop:?}: {source:?}"
            );
            assert!(frames >= 1, "{every:?}, {stop:?}: the first frame is missing");
        }
    }
}

/// Two spheres of radius 10⁻³ in a walled cube of side `l`, head-on along x from `l/4` and
/// `3l/4` at unit speeds, the second offset by `offset` along y.
fn far_pair(l: f64, offset: f64, periodic: bool) -> (Vec<Particle<3>>, SimBox<3>) {
    let (r, mid) = (1e-3, l / 2.0);
    let particles = vec![
        Particle::new([0.25 * l, mid, mid], [1.0, 0.0, 0.0], r, 1.0),
        Particle::new([0.75 * l, mid + offset, mid], [-1.0, 0.0, 0.0], r, 1.0),
    ];
    (particles, SimBox::new([l; 3], [periodic; 3]).unwrap())
}

/// Item 20. Closed form: the centres close at speed 2 along x from `l/2` apart with a lateral
/// offset `o`, and touch when the x gap is `√(σ² − o²)`: at `(l/2 − √(σ² − o²)) / 2`. With
/// `o > σ` they never touch, and the first event of a walled box is particle 0 reaching the
/// far wall at `0.75 l − r`.
#[test]
fn pairs_predicted_from_far_away_collide_at_contact() {
    let sigma: f64 = 2e-3;
    for l in [1e3, 1e4, 1e5, 1e6] {
        for offset in [0.0, 0.001, 0.0015, 0.0019] {
            let (particles, sim_box) = far_pair(l, offset, false);
            let mut sim =
                Simulation::new(particles, sim_box, SimConfig::default(), BruteForce::default()).unwrap();
            let collision = sim.next_collision().unwrap();
            assert_eq!(collision.kind, CollisionKind::Pair(0, 1), "l {l}, offset {offset}");
            let exact = (0.5 * l - (sigma * sigma - offset * offset).sqrt()) / 2.0;
            // The clock's rounding: an ulp of t, times the closing speed, against σ.
            assert!((collision.time - exact).abs() <= 8.0 * f64::EPSILON * exact, "l {l}, offset {offset}");
            // Positions round to an ulp of the coordinates (about l): that, against σ, is the
            // overlap rounding leaves (it was 0.5 at l = 10⁶, 7.8e-7 at l = 10³).
            let rounding = 8.0 * f64::EPSILON * l / sigma;
            assert!(sim.max_overlap().abs() <= rounding, "l {l}, offset {offset}: {}", sim.max_overlap());
        }
        // Passing 1.5 radius sums apart: the wall comes first.
        let (particles, sim_box) = far_pair(l, 0.003, false);
        let mut sim =
            Simulation::new(particles, sim_box, SimConfig::default(), BruteForce::default()).unwrap();
        let collision = sim.next_collision().unwrap();
        assert!(matches!(collision.kind, CollisionKind::Wall { particle: 0, .. }), "l {l}: {collision:?}");
        assert_eq!(collision.time, 0.75 * l - 1e-3, "l {l}");
    }
    // Periodic, 10 radius sums apart: they pass each other for ever (every image of the other
    // is 10 σ away sideways or a whole period along x), so no pair collides before t = 2l.
    let (particles, sim_box) = far_pair(4e6, 0.02, true);
    let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), BruteForce::default()).unwrap();
    sim.run(Stop::Time(8e6)).unwrap();
    assert_eq!(sim.counters().collisions, 0);
}
