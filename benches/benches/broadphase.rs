//! Criterion micro-benchmarks of the broad phases of the `hhgrid` suite on the thesis workload
//! (equal cubes, two overlapping pairs per object, 20 % motion): one simulation step (update of
//! every object plus one `find_pairs`) and the setup (inserting every object).
//!
//! `cargo bench -p collide-benches --bench broadphase` measures; `cargo test -p collide-benches
//! --benches` runs every benchmark once as a smoke test. The sweeps of the thesis figures are
//! `cargo xtask bench --only hhgrid`.
#![allow(missing_docs)]

use collide_benches::broadphase::{IncrementalSap, ParryBvh, SortAndSweep, Workload, WorkloadConfig};
use contact_core::BroadPhase;
use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use geometry_core::Aabb;
use hhgrid::HierarchicalHashGrid;

const SIZES: [usize; 2] = [1_000, 10_000];

/// Benchmarks one step of `make()`'s structure: the workload moves and the moved boxes are
/// listed with their handles (not timed), then every object is updated by one `update_many` and
/// the pairs are found.
fn bench_step<B: BroadPhase>(c: &mut Criterion, name: &str, make: impl Fn() -> B) {
    let mut group = c.benchmark_group(format!("step/{name}"));
    for n in SIZES {
        let mut workload = Workload::new(WorkloadConfig::thesis(n)).expect("valid workload");
        let mut broad = make();
        let handles: Vec<B::Handle> =
            workload.boxes().iter().map(|b| broad.insert(*b).expect("valid box")).collect();
        let mut pairs = Vec::new();
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter_batched(
                || handles.iter().copied().zip(workload.step().iter().copied()).collect(),
                |moved: Vec<(B::Handle, Aabb)>| {
                    broad.update_many(&moved).expect("live handles");
                    broad.find_pairs(&mut pairs);
                    pairs.len()
                },
                BatchSize::LargeInput,
            );
        });
    }
    group.finish();
}

/// Benchmarks inserting every object of the workload into a fresh structure.
fn bench_setup<B: BroadPhase>(c: &mut Criterion, name: &str, make: impl Fn() -> B) {
    let mut group = c.benchmark_group(format!("setup/{name}"));
    for n in SIZES {
        let boxes = Workload::new(WorkloadConfig::thesis(n)).expect("valid workload").boxes().to_vec();
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter_batched(
                &make,
                |mut broad| {
                    for aabb in &boxes {
                        broad.insert(*aabb).expect("valid box");
                    }
                    broad
                },
                BatchSize::LargeInput,
            );
        });
    }
    group.finish();
}

fn steps(c: &mut Criterion) {
    bench_step(c, "hhgrid", HierarchicalHashGrid::default);
    bench_step(c, "incremental-sap", IncrementalSap::new);
    bench_step(c, "sort-and-sweep", SortAndSweep::new);
    bench_step(c, "parry3d-bvh", ParryBvh::new);
}

fn setups(c: &mut Criterion) {
    bench_setup(c, "hhgrid", HierarchicalHashGrid::default);
    bench_setup(c, "sort-and-sweep", SortAndSweep::new);
    bench_setup(c, "parry3d-bvh", ParryBvh::new);
}

criterion_group!(benches, steps, setups);
criterion_main!(benches);
