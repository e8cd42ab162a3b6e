//! Independent tests of `LaguerreDelaunay` under periodic sides: the regular triangulation of
//! the torus.
//!
//! A box with one periodic axis and walls on the other is triangulated as a torus too, closed
//! over a gap beyond the walls (as the crate documents): its period on the walled axis is the
//! side `L_w` plus `2g = max(2 r_max, min(L_p / 4, L_p − L_w))`, its images start `g` before
//! the wall. The oracle then takes the images of that torus, and the crate's edges are its
//! contacts that do not cross the gap.
//!
//! The reference is the same power-diagram oracle as in `delaunay.rs` (`delaunay_oracle`,
//! nothing from the crate's geometry), applied to the disks in 3 × 3 periodic images (5 × 5 for a
//! handful of disks, see [`copies`]): the cells of the central images are those of the infinite
//! periodic system, so the torus' edges are exactly the contacts of a central disk with
//! any image. An edge `([a, b], k)` of the crate joins `a` at `position(a)` to the image of `b`
//! at `position(b) + k ⊙ L` (positions unwrapped).
//!
//! Kinetic correctness: between two consecutive events the maintained triangulation must equal
//! one built from scratch from the particles at that instant, edge for edge with the periods,
//! and `is_regular` must hold (the lock-step runs against the brute-force oracle are in
//! `lockstep.rs`).

// Shared with `delaunay.rs`, which uses the rest of it.
#[allow(dead_code)]
mod delaunay_oracle;

use delaunay_oracle::{Contact, Disk, PowerDiagram};
use kinetic_cdo::{LaguerreDelaunay, Particle, SimBox, SimConfig, SimError, Simulation, State, Stop, init};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

type Sim = Simulation<2, LaguerreDelaunay>;

/// Particles and box lengths.
type System = (Vec<Particle<2>>, [f64; 2]);

fn simulation(particles: Vec<Particle<2>>, lengths: [f64; 2]) -> Sim {
    Simulation::new(
        particles,
        SimBox::periodic(lengths).unwrap(),
        SimConfig::default(),
        LaguerreDelaunay::new(),
    )
    .expect("a valid system")
}

/// A random polydisperse system in a periodic square: random sequential addition up to
/// φ = 0.45, `init::dense_packing` beyond.
fn random_system(n: usize, gamma: f64, phi: f64, seed: u64) -> System {
    let (particles, sim_box) = random_system_in(n, gamma, phi, seed, [true, true]);
    (particles, sim_box.lengths())
}

/// [`random_system`] in a square whose sides are periodic as `periodic` says.
fn random_system_in(
    n: usize,
    gamma: f64,
    phi: f64,
    seed: u64,
    periodic: [bool; 2],
) -> (Vec<Particle<2>>, SimBox<2>) {
    let radii = init::polydisperse_radii(n, 0.5, gamma, seed).unwrap();
    let side = init::cube_side_for::<2>(&radii, phi);
    let sim_box = SimBox::new([side, side], periodic).unwrap();
    let particles = if phi <= 0.45 {
        init::random_placement(&sim_box, &radii, init::MassRule::Unit, 1.0, seed).unwrap()
    } else {
        init::dense_packing(&sim_box, &radii, init::MassRule::Unit, phi, 1.0, seed).unwrap()
    };
    (particles, sim_box)
}

/// `n` disks of radius `radius` at uniformly random places in a square of side `side`, with
/// random velocities in `[−1, 1]²` (they may overlap: the simulation then refuses them).
fn scattered(rng: &mut ChaCha8Rng, n: usize, side: f64, radius: f64) -> Vec<Particle<2>> {
    (0..n)
        .map(|_| {
            let x = [rng.random_range(0.0..side), rng.random_range(0.0..side)];
            Particle::new(x, [rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)], radius, 1.0)
        })
        .collect()
}

/// The torus triangulated for `state`'s box: its periods, and where its fundamental domain
/// starts. On a periodic axis the box's side from 0; on a walled axis (of a box with a
/// periodic one) the side plus the documented gap, half of it beyond each wall.
fn torus(state: &State<2>) -> ([f64; 2], [f64; 2]) {
    let lengths = state.sim_box().lengths();
    let periodic = state.sim_box().periodic_axes();
    let largest = (0..state.len()).map(|i| state.radius(i)).fold(0.0, f64::max);
    let (walled, across) = if periodic[0] { (lengths[1], lengths[0]) } else { (lengths[0], lengths[1]) };
    let gap = (2.0 * largest).max((0.25 * across).min(across - walled)) / 2.0;
    (
        [0, 1].map(|a| if periodic[a] { lengths[a] } else { lengths[a] + 2.0 * gap }),
        [0, 1].map(|a| if periodic[a] { 0.0 } else { -gap }),
    )
}

/// The whole periods that bring `x` into the fundamental domain of the torus `(period, low)`.
fn home(x: [f64; 2], (period, low): ([f64; 2], [f64; 2])) -> [i32; 2] {
    [0, 1].map(|a| -((x[a] - low[a]) / period[a]).floor() as i32)
}

/// The whole periods of the images the oracle takes (the central one first, then ring by
/// ring): 3 × 3, and 5 × 5 for a handful of disks, whose empty power circles may reach past
/// the first ring. (On a square torus an empty power circle is narrower than the diagonal of a
/// period, so every disk whose power it could decide lies within the second ring.)
fn copies(n: usize) -> Vec<[i32; 2]> {
    let reach = if n <= FEW { 2 } else { 1 };
    let mut copies: Vec<[i32; 2]> =
        (-reach..=reach).flat_map(|y| (-reach..=reach).map(move |x| [x, y])).collect();
    copies.sort_by_key(|c| c[0].abs().max(c[1].abs()));
    copies
}

/// Up to this many disks the oracle takes 5 × 5 images.
const FEW: usize = 16;

/// The images of the disks: image `c · n + i` is disk `i` brought into the box and shifted by
/// copy `c` of [`copies`].
fn images(state: &State<2>) -> Vec<Disk> {
    let torus = torus(state);
    let l = torus.0;
    let mut disks = Vec::new();
    for copy in copies(state.len()) {
        for i in 0..state.len() {
            let p = state.position(i);
            let h = home(p, torus);
            let centre = [0, 1].map(|a| p[a] + f64::from(h[a] + copy[a]) * l[a]);
            disks.push(Disk { centre, radius: state.radius(i) });
        }
    }
    disks
}

/// Compares the crate's edges with the power diagram of the images: every crate edge joins a
/// central disk to an image whose cell touches it (`points` counts single-point contacts, the
/// flippable diagonals of co-circular quadrilaterals), every contact of a central cell along a
/// segment longer than the oracle's margin is a crate edge (unless it crosses the gap beyond a
/// wall), and there are `3n` edges (a triangulation of the torus; fewer are listed when some
/// cross the gap). Returns the number of point contacts among the crate's edges.
fn check_against_images(sim: &Sim, label: &str) -> usize {
    let state = sim.state();
    let n = state.len();
    let torus = torus(state);
    let (l, low) = torus;
    let walled = state.sim_box().periodic_axes().map(|periodic| !periodic);
    assert!(sim.structure().is_regular(state), "{label}: is_regular is false");
    assert_eq!(sim.structure().triangle_count(), 2 * n, "{label}: triangle count");
    let edges = sim.structure().edges_with_periods();
    if walled.contains(&true) {
        assert!(edges.len() <= 3 * n, "{label}: edge count");
        for &(edge, k) in &edges {
            assert!((0..2).all(|a| !walled[a] || k[a] == 0), "{label}: edge {edge:?} {k:?} crosses a wall");
        }
    } else {
        assert_eq!(edges.len(), 3 * n, "{label}: edge count");
    }
    let disks = images(state);
    let copies = copies(n);
    let reach = f64::from(copies.iter().map(|c| c[0].abs()).max().unwrap_or(0));
    let diagram = PowerDiagram::new(
        &disks,
        [
            [low[0] - reach * l[0], low[1] - reach * l[1]],
            [low[0] + (1.0 + reach) * l[0], low[1] + (1.0 + reach) * l[1]],
        ],
    );
    let homes: Vec<[i32; 2]> = (0..n).map(|i| home(state.position(i), torus)).collect();
    let copy_index = |c: [i32; 2]| copies.iter().position(|&x| x == c);
    let mut points = 0;
    for &([a, b], k) in &edges {
        // a's central image, and b's image joined to it: position(b) + k L + home(a) L.
        let c = [0, 1].map(|x| k[x] + homes[a][x] - homes[b][x]);
        let copy =
            copy_index(c).unwrap_or_else(|| panic!("{label}: edge {a}-{b} {k:?} spans more than a box"));
        match diagram.contact(a, copy * n + b) {
            Some(Contact::Segment { .. }) => {}
            Some(Contact::Point) => points += 1,
            None => panic!("{label}: edge {a}-{b} {k:?} joins cells that do not touch"),
        }
    }
    for ([x, y], contact) in diagram.segments() {
        let Contact::Segment { length, .. } = contact else { continue };
        if x >= n || length <= diagram.margin {
            continue;
        }
        // x is central (the central copy has the lowest indices): the edge from x to y's image.
        let (copy, b) = (y / n, y % n);
        let k = [0, 1].map(|a| copies[copy][a] + homes[b][a] - homes[x][a]);
        if (0..2).any(|a| walled[a] && k[a] != 0) {
            // Through the gap beyond a wall: not a pair of disks that can meet.
            continue;
        }
        let edge = if x < b { ([x, b], k) } else { ([b, x], k.map(|v| -v)) };
        assert!(edges.binary_search(&edge).is_ok(), "{label}: the diagram's edge {edge:?} is missing");
    }
    points
}

/// The edges with each edge's periods taken between the images of its ends in the box (the
/// simulation wraps the positions it is given, so periods relative to positions differ
/// between two simulations of the same system by the ends' wraps).
fn edges_between_wrapped(sim: &Sim) -> Vec<([usize; 2], [i32; 2])> {
    let state = sim.state();
    let torus = torus(state);
    let mut edges: Vec<([usize; 2], [i32; 2])> = sim
        .structure()
        .edges_with_periods()
        .into_iter()
        .map(|([a, b], k)| {
            let (ha, hb) = (home(state.position(a), torus), home(state.position(b), torus));
            ([a, b], [0, 1].map(|x| k[x] + ha[x] - hb[x]))
        })
        .collect();
    edges.sort_unstable();
    edges
}

/// Every pair of touching disks (in the image where they touch) must share an edge.
fn assert_touching_pairs_are_edges(sim: &Sim, label: &str) -> usize {
    let state = sim.state();
    let l = state.sim_box().lengths();
    let edges = sim.structure().edges_with_periods();
    let mut touching = 0;
    for i in 0..state.len() {
        for k in i + 1..state.len() {
            let (a, b) = (state.position(i), state.position(k));
            let d = state.sim_box().nearest_image([b[0] - a[0], b[1] - a[1]]);
            if (d[0] * d[0] + d[1] * d[1]).sqrt() <= (state.radius(i) + state.radius(k)) * (1.0 + 1e-12) {
                touching += 1;
                let periods = [0, 1].map(|x| ((a[x] + d[x] - b[x]) / l[x]).round() as i32);
                assert!(
                    edges.binary_search(&([i, k], periods)).is_ok(),
                    "{label}: touching {i}, {k} share no edge"
                );
            }
        }
    }
    touching
}

/// The random systems of the construction tests: `(n, γ, φ, seed)`, n 30–150, γ 1–10,
/// φ 0.1–0.8.
const CONSTRUCTION_CASES: [(usize, f64, f64, u64); 8] = [
    (30, 1.0, 0.1, 1),
    (60, 3.0, 0.3, 2),
    (100, 10.0, 0.45, 3),
    (50, 10.0, 0.1, 4),
    (80, 2.0, 0.6, 5),
    (60, 10.0, 0.7, 6),
    (70, 4.0, 0.8, 7),
    (150, 1.0, 0.7, 8),
];

/// Construction on random polydisperse disks in periodic squares equals the oracle's
/// triangulation of the torus.
#[test]
fn construction_matches_the_power_diagram_of_the_images() {
    for (n, gamma, phi, seed) in CONSTRUCTION_CASES {
        let (particles, lengths) = random_system(n, gamma, phi, seed);
        let sim = simulation(particles, lengths);
        let label = format!("n = {n}, γ = {gamma}, φ = {phi}, seed {seed}");
        assert_eq!(check_against_images(&sim, &label), 0, "{label}: a degenerate edge in random input");
        assert_touching_pairs_are_edges(&sim, &label);
    }
}

/// A void wider than the band of images the construction tries first (it then takes every
/// image): disks fill 55 % of the box's width, the rest is empty.
#[test]
fn construction_with_a_wide_void() {
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    let side = 40.0;
    let particles: Vec<Particle<2>> = (0..20 * 36)
        .map(|j| {
            let mut jitter = || rng.random_range(-0.2..0.2);
            let x = [1.0 + f64::from(j % 20) * 1.1 + jitter(), 0.5 + f64::from(j / 20) * 1.1 + jitter()];
            Particle::new(x, [0.0, 0.0], 0.3, 1.0)
        })
        .collect();
    let sim = simulation(particles, [side, side]);
    check_against_images(&sim, "a void of 45 % of the width");
}

/// Positions far from the box (a system that drifted many periods) give the same
/// triangulation, between the same images.
#[test]
fn construction_does_not_depend_on_the_image_given() {
    let (particles, lengths) = random_system(80, 3.0, 0.5, 11);
    let reference = simulation(particles.clone(), lengths);
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let shifts: Vec<[i32; 2]> =
        (0..particles.len()).map(|_| [rng.random_range(-50..50), rng.random_range(-50..50)]).collect();
    let moved: Vec<Particle<2>> = particles
        .iter()
        .zip(&shifts)
        .map(|(p, s)| {
            let x = [0, 1].map(|a| p.position[a] + f64::from(s[a]) * lengths[a]);
            Particle::new(x, p.velocity, p.radius, p.mass)
        })
        .collect();
    let sim = simulation(moved, lengths);
    check_against_images(&sim, "shifted by whole periods");
    assert_eq!(edges_between_wrapped(&sim), edges_between_wrapped(&reference));
}

/// Square and triangular lattices filling the periodic box: co-circular quadrilaterals in every
/// image, where the construction must choose the same diagonal in every image (or the torus
/// would not close). Equal radii, touching, and radii varying by row.
#[test]
fn construction_on_periodic_lattices() {
    let square = |k: usize, s: f64, radius: &dyn Fn(usize) -> f64| {
        let mut particles = Vec::new();
        for row in 0..k {
            for col in 0..k {
                let x = [(col as f64 + 0.5) * s, (row as f64 + 0.5) * s];
                particles.push(Particle::new(x, [0.1, -0.2], radius(row), 1.0));
            }
        }
        (particles, [k as f64 * s; 2])
    };
    let triangular = |k: usize, s: f64, radius: f64| {
        let h = s * 3f64.sqrt() / 2.0;
        let mut particles = Vec::new();
        for row in 0..k {
            for col in 0..k {
                let x = [(col as f64 + 0.5 * (row % 2) as f64 + 0.25) * s, (row as f64 + 0.5) * h];
                particles.push(Particle::new(x, [0.1, -0.2], radius, 1.0));
            }
        }
        (particles, [k as f64 * s, k as f64 * h])
    };
    let cases: Vec<(&str, System)> = vec![
        ("square 8×8, r = 0.3", square(8, 1.0, &|_| 0.3)),
        ("square 10×10 touching", square(10, 1.0, &|_| 0.5)),
        ("square 6×6, radii by row", square(6, 1.0, &|row| 0.2 + 0.05 * (row % 3) as f64)),
        ("triangular 8×8", triangular(8, 1.0, 0.4)),
    ];
    for (label, (particles, lengths)) in cases {
        let sim = simulation(particles, lengths);
        check_against_images(&sim, label);
        assert_touching_pairs_are_edges(&sim, label);
    }
}

/// Few particles: the torus is triangulated when every empty power circle is smaller than the
/// box, and otherwise the structure falls back to the subdivision; never an error, a
/// panic or a triangulation that is not regular.
#[test]
fn few_particles_are_triangulated_or_fall_back() {
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let (mut built, mut fell_back) = (0, 0);
    for n in 1..=12 {
        for _ in 0..20 {
            let side = 10.0;
            let particles = scattered(&mut rng, n, side, 0.05);
            match Simulation::new(
                particles,
                SimBox::periodic([side; 2]).unwrap(),
                SimConfig::default(),
                LaguerreDelaunay::new(),
            ) {
                Ok(sim) if sim.structure().fell_back() => {
                    fell_back += 1;
                    assert_eq!(sim.structure().triangle_count(), 0);
                    assert!(sim.structure().edges_with_periods().is_empty());
                }
                Ok(sim) => {
                    built += 1;
                    check_against_images(&sim, &format!("{n} particles"));
                }
                Err(SimError::Overlap { .. }) => {}
                Err(e) => panic!("{n} particles: {e}"),
            }
        }
    }
    assert!(built > 100 && fell_back > 10, "built {built}, fell back {fell_back}");
}

/// Between every two consecutive events of random periodic runs (γ up to 10, φ 0.1–0.8) the
/// kinetic triangulation equals the one rebuilt from scratch at that instant, with the same
/// periods, and `is_regular` holds; every 25th comparison also runs the oracle.
#[test]
fn kinetic_triangulation_equals_rebuild_between_events() {
    for (n, gamma, phi, seed, collisions) in KINETIC_CASES {
        let label = format!("n = {n}, γ = {gamma}, φ = {phi}, seed {seed}");
        let (particles, lengths) = random_system(n, gamma, phi, seed);
        follow_and_compare_with_rebuilds(simulation(particles, lengths), collisions, &label);
    }
}

/// The random runs of the kinetic tests: `(n, γ, φ, seed, collisions)`.
const KINETIC_CASES: [(usize, f64, f64, u64, u64); 4] =
    [(40, 1.0, 0.1, 31, 200), (60, 10.0, 0.3, 32, 300), (60, 3.0, 0.6, 33, 400), (60, 10.0, 0.8, 34, 400)];

/// A new simulation of `state`'s particles as they are now, in the same box: the triangulation
/// built from scratch.
fn rebuilt(state: &State<2>) -> Sim {
    let particles = (0..state.len())
        .map(|i| Particle::new(state.position(i), state.velocity(i), state.radius(i), state.mass(i)))
        .collect();
    Simulation::new(particles, *state.sim_box(), SimConfig::default(), LaguerreDelaunay::new())
        .expect("a valid system")
}

/// Moves `sim`, just after an event, to halfway to the next one (where no certificate is
/// failing) and returns that time; `None` when no time lies strictly between the two.
fn halfway_to_the_next_event(sim: &mut Sim) -> Option<f64> {
    let t1 = sim.state().now();
    let t2 = sim.next_event_time().unwrap_or(t1 + 1.0);
    let t_mid = t1 + 0.5 * (t2 - t1);
    (t_mid > t1 && t_mid < t2).then(|| {
        sim.run(Stop::Time(t_mid)).unwrap();
        t_mid
    })
}

/// Asserts that `sim`'s triangulation is regular now and equal (edge for edge, with periods)
/// to one built from scratch, which must find a triangulation too; returns the rebuilt one.
fn assert_equals_rebuilt(sim: &Sim, at: &str) -> Sim {
    let state = sim.state();
    assert!(sim.structure().is_regular(state), "{at}: not regular between events");
    let fresh = rebuilt(state);
    assert!(!fresh.structure().fell_back(), "{at}: the rebuild fell back");
    assert_eq!(edges_between_wrapped(sim), edges_between_wrapped(&fresh), "{at}: kinetic ≠ rebuilt");
    fresh
}

/// Runs `sim` for `collisions` collisions; between every two consecutive events, the kinetic
/// triangulation must be regular and equal the one rebuilt from scratch at that instant (with
/// the same periods), and every 25th time the oracle's.
fn follow_and_compare_with_rebuilds(mut sim: Sim, collisions: u64, label: &str) {
    let mut checks = 0;
    while sim.counters().all_collisions() < collisions {
        let Some(t1) = sim.next_event_time() else { break };
        sim.run(Stop::Time(t1)).unwrap();
        let Some(t_mid) = halfway_to_the_next_event(&mut sim) else { continue };
        let at = format!("{label}, t = {t_mid}");
        assert_equals_rebuilt(&sim, &at);
        if checks % 25 == 0 {
            check_against_images(&sim, &at);
        }
        checks += 1;
    }
    assert!(sim.counters().all_collisions() >= collisions, "{label}: the run stopped early");
    assert!(sim.counters().topological_events > 0, "{label}: no flip at all");
    assert!(checks > collisions as usize / 2, "{label}: only {checks} checks");
}

/// A random polydisperse system in a square with one periodic axis and walls on the other.
fn mixed_system(n: usize, gamma: f64, phi: f64, seed: u64, periodic: [bool; 2]) -> Sim {
    let (particles, sim_box) = random_system_in(n, gamma, phi, seed, periodic);
    Simulation::new(particles, sim_box, SimConfig::default(), LaguerreDelaunay::new())
        .expect("a valid system")
}

/// Construction in boxes with one periodic axis and walls on the other (either way round, the
/// systems of [`CONSTRUCTION_CASES`] with other seeds) equals the oracle's triangulation of the
/// torus closed over the gap beyond the walls, and every touching pair is an edge.
#[test]
fn mixed_box_construction_matches_the_power_diagram_of_the_images() {
    for (k, (n, gamma, phi, seed)) in CONSTRUCTION_CASES.into_iter().enumerate() {
        let seed = seed + 50;
        let periodic = if k % 2 == 0 { [true, false] } else { [false, true] };
        let sim = mixed_system(n, gamma, phi, seed, periodic);
        let label = format!("{periodic:?}, n = {n}, γ = {gamma}, φ = {phi}, seed {seed}");
        assert!(!sim.structure().fell_back(), "{label}: fell back");
        assert_eq!(check_against_images(&sim, &label), 0, "{label}: a degenerate edge in random input");
        assert_touching_pairs_are_edges(&sim, &label);
    }
}

/// A long channel (periodic along it, walls 8 apart, 400 disks at φ ≈ 0.1) stays triangulated:
/// with a gap beyond the walls as thin as a disk, the torus's walled period would be a few disks,
/// and the empty stretches along the channel would span it (it fell back at build
/// or soon after in every one of these runs).
#[test]
fn a_long_channel_stays_triangulated() {
    for seed in 0..3 {
        let radii = vec![0.5; 400];
        let sim_box = SimBox::new([400.0, 8.0], [true, false]).unwrap();
        let particles = init::random_placement(&sim_box, &radii, init::MassRule::Unit, 1.0, seed).unwrap();
        let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), LaguerreDelaunay::new())
            .expect("a valid system");
        let label = format!("channel 400 × 8, seed {seed}");
        assert!(!sim.structure().fell_back(), "{label}: fell back at build");
        check_against_images(&sim, &label);
        sim.run(Stop::Collisions(8_000)).unwrap();
        assert!(!sim.structure().fell_back(), "{label}: fell back while running");
        check_against_images(&sim, &label);
        assert_touching_pairs_are_edges(&sim, &label);
    }
}

/// Kinetic maintenance in boxes with one periodic axis and walls on the other (either way
/// round, the runs of [`KINETIC_CASES`] with other seeds): between every two consecutive events
/// the triangulation equals the one rebuilt from scratch.
#[test]
fn mixed_box_kinetic_triangulation_equals_rebuild_between_events() {
    for (k, (n, gamma, phi, seed, collisions)) in KINETIC_CASES.into_iter().enumerate() {
        let seed = seed + 30;
        let periodic = if k % 2 == 0 { [true, false] } else { [false, true] };
        let label = format!("{periodic:?}, n = {n}, γ = {gamma}, φ = {phi}, seed {seed}");
        follow_and_compare_with_rebuilds(mixed_system(n, gamma, phi, seed, periodic), collisions, &label);
    }
}

/// Few particles in a periodic box, running: whenever an empty power circle comes to span the
/// box (a flip would join a particle to its own image), the structure falls back to the
/// subdivision; either way every collision is the brute-force oracle's (lock-step in
/// `lockstep.rs` covers the same with its oracle; here the structure's own checks: regular
/// while it triangulates, and no overlap).
#[test]
fn few_particles_run_or_fall_back() {
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    let (mut ran, mut fell_back) = (0, 0);
    for n in 3..=10 {
        for trial in 0..20 {
            let side = 10.0;
            let particles = scattered(&mut rng, n, side, 0.3);
            let Ok(mut sim) = Simulation::new(
                particles,
                SimBox::periodic([side; 2]).unwrap(),
                SimConfig::default(),
                LaguerreDelaunay::new(),
            ) else {
                continue;
            };
            ran += 1;
            for _ in 0..200 {
                sim.next_collision();
                let structure = sim.structure();
                assert!(structure.fell_back() || structure.is_regular(sim.state()), "n {n} trial {trial}");
            }
            assert!(sim.max_overlap() <= 1e-9, "n {n} trial {trial}: overlap {}", sim.max_overlap());
            fell_back += usize::from(sim.structure().fell_back());
        }
    }
    assert!(ran > 50 && fell_back > 5, "ran {ran}, fell back {fell_back}");
}

/// Few particles in periodic and mixed boxes: wherever the kinetic structure still holds a
/// triangulation of the torus (halfway between two events), a construction from scratch finds
/// one too, and the same (with 3 × 3 images alone it may not: an empty power circle of a
/// sparse torus can reach past the first ring of images).
#[test]
fn few_particles_rebuild_wherever_the_kinetic_triangulation_holds() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut compared = 0;
    for n in 3..=12 {
        for trial in 0..54 {
            let periodic = [[true, true], [true, false], [false, true]][trial % 3];
            let side = [5.0, 6.0, 8.0][trial / 3 % 3];
            let sim_box = SimBox::new([side; 2], periodic).unwrap();
            let particles = scattered(&mut rng, n, side, [0.3, 0.45, 0.6][trial / 9 % 3]);
            let Ok(mut sim) =
                Simulation::new(particles, sim_box, SimConfig::default(), LaguerreDelaunay::new())
            else {
                continue;
            };
            for _ in 0..150 {
                let Some(t1) = sim.next_event_time() else { break };
                sim.run(Stop::Time(t1)).unwrap();
                if sim.structure().fell_back() {
                    break;
                }
                let Some(t_mid) = halfway_to_the_next_event(&mut sim) else { continue };
                let at = format!("n {n}, trial {trial}, {periodic:?}, t = {t_mid}");
                let fresh = assert_equals_rebuilt(&sim, &at);
                if compared % 10 == 0 {
                    check_against_images(&fresh, &at);
                }
                compared += 1;
            }
        }
    }
    assert!(compared > 1000, "only {compared} comparisons");
}
