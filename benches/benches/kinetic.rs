//! Criterion micro-benchmarks of `kinetic-cdo`: 1000 collisions of 4000 hard spheres at
//! φ = 0.4 (periodic, monodisperse, one dense packing shared by all) per structure and queue,
//! and the two event calendars on a hold model.
//!
//! `cargo bench -p collide-benches --bench kinetic` measures; `cargo test -p collide-benches
//! --benches` runs every benchmark once as a smoke test. The paper's Table 1 and the target
//! sizes are `cargo xtask bench --only kinetic`.
#![allow(missing_docs)]

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use kinetic_cdo::queue::{BinaryHeapQueue, CalendarQueue, EventQueue};
use kinetic_cdo::{
    Cdo, NeighbourLists, Particle, RegularSubdivision, SegmentTrees, SimBox, SimConfig, Simulation,
    SpatialTree, Stop, init,
};
use rand::{RngExt, SeedableRng};
use std::hint::black_box;

const PARTICLES: usize = 4_000;
const COLLISIONS: u64 = 1_000;

fn packing() -> (Vec<Particle<3>>, SimBox<3>) {
    let radii = vec![0.5; PARTICLES];
    let side = init::cube_side_for::<3>(&radii, 0.4);
    let sim_box = SimBox::periodic([side; 3]).expect("valid box");
    let particles =
        init::dense_packing(&sim_box, &radii, init::MassRule::Unit, 0.4, 2.0, 7).expect("packing");
    (particles, sim_box)
}

fn run_structure<S: Cdo<3> + Clone, Q: EventQueue + Clone>(
    c: &mut Criterion,
    name: &str,
    start: &Simulation<3, S, Q>,
) {
    let mut group = c.benchmark_group("kinetic/phi0.4");
    group.throughput(Throughput::Elements(COLLISIONS));
    group.bench_function(name, |b| {
        b.iter_batched_ref(
            || start.clone(),
            |sim| sim.run(black_box(Stop::Collisions(COLLISIONS))).expect("a dilute gas cannot jam"),
            BatchSize::LargeInput,
        );
    });
    group.finish();
}

fn structures(c: &mut Criterion) {
    let (particles, sim_box) = packing();
    let config = SimConfig::default();
    let nl = Simulation::new(particles.clone(), sim_box, config, NeighbourLists::default()).expect("valid");
    run_structure(c, "neighbour_lists_heap", &nl);
    let nl_calendar = Simulation::<3, _, CalendarQueue>::with_queue(
        particles.clone(),
        sim_box,
        config,
        NeighbourLists::default(),
    )
    .expect("valid");
    run_structure(c, "neighbour_lists_calendar", &nl_calendar);
    let cells =
        Simulation::new(particles.clone(), sim_box, config, RegularSubdivision::new()).expect("valid");
    run_structure(c, "subdivision_heap", &cells);
    let tree = Simulation::new(particles.clone(), sim_box, config, SpatialTree::new()).expect("valid");
    run_structure(c, "spatial_tree_heap", &tree);
    let segments = Simulation::new(particles, sim_box, config, SegmentTrees::new()).expect("valid");
    run_structure(c, "segment_trees_heap", &segments);
}

/// Hold model: pop the earliest slot and reschedule it an exponential time later.
fn hold<Q: EventQueue>(queue: &mut Q, delays: &[f64]) -> f64 {
    let mut now = 0.0;
    for &delay in delays {
        let (slot, time) = queue.peek().expect("never empty");
        now = time;
        queue.schedule(slot, time + delay);
    }
    now
}

fn queues(c: &mut Criterion) {
    const SLOTS: usize = 64_000;
    const OPERATIONS: usize = 10_000;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let initial: Vec<f64> = (0..SLOTS).map(|_| rng.random_range(0.0..1.0)).collect();
    let delays: Vec<f64> = (0..OPERATIONS).map(|_| -rng.random_range(1e-12..1.0f64).ln()).collect();
    let mut group = c.benchmark_group("kinetic/queue_hold_64k");
    group.throughput(Throughput::Elements(OPERATIONS as u64));
    group.bench_function("binary_heap", |b| {
        b.iter_batched_ref(
            || {
                let mut q = BinaryHeapQueue::with_slots(SLOTS);
                initial.iter().enumerate().for_each(|(s, &t)| q.schedule(s, t));
                q
            },
            |q| hold(q, &delays),
            BatchSize::LargeInput,
        );
    });
    group.bench_function("calendar", |b| {
        b.iter_batched_ref(
            || {
                let mut q = CalendarQueue::with_slots(SLOTS);
                initial.iter().enumerate().for_each(|(s, &t)| q.schedule(s, t));
                q
            },
            |q| hold(q, &delays),
            BatchSize::LargeInput,
        );
    });
    group.finish();
}

criterion_group!(benches, structures, queues);
criterion_main!(benches);
