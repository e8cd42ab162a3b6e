//! Criterion micro-benchmarks of `raycross`: building the fast (`RayCrossing`) and paper
//! (`PaperRayCrossing`) structures, and classifying a regular 20³ grid of points in the
//! surrounding cube (margin 0.1, as in the `raycross` suite) against the octa-sphere of level 5
//! (8192 triangles) and the small gyroid foam (28 512 triangles). Everything runs in a
//! one-thread rayon pool, like the suite.
//!
//! `cargo bench -p collide-benches --bench raycross` measures; `cargo test -p collide-benches
//! --benches` runs every benchmark once as a smoke test. The sweeps of the paper's Figs. 9 and 14
//! are `cargo xtask bench --only raycross`.
#![allow(missing_docs)]

use contact_core::PointContainment;
use criterion::{
    BatchSize, BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use geometry_core::generators::{FoamSize, foam, octa_sphere, point_grid, surrounding_cube};
use geometry_core::{DVec3, TriMesh};
use raycross::{PaperRayCrossing, RayCrossing};
use std::time::Duration;

const GRID: usize = 20;
const MARGIN: f64 = 0.1;

fn meshes() -> Vec<(&'static str, TriMesh)> {
    vec![
        ("octa_sphere_L5", octa_sphere(5).expect("level is in range")),
        ("foam_small", foam(FoamSize::Small).expect("preset is valid")),
    ]
}

fn grid(mesh: &TriMesh) -> Vec<DVec3> {
    let cube = surrounding_cube(&mesh.bounding_box(), MARGIN).expect("margin is valid");
    point_grid(&cube, GRID).expect("grid size is in range")
}

fn single_thread() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a one-thread pool")
}

fn build(c: &mut Criterion) {
    let pool = single_thread();
    let mut group = c.benchmark_group("raycross/build");
    for (name, mesh) in meshes() {
        group.throughput(Throughput::Elements(mesh.faces().len() as u64));
        group.bench_with_input(BenchmarkId::new("fast", name), &mesh, |b, mesh| {
            pool.install(|| {
                b.iter_batched(
                    || mesh.clone(),
                    |m| RayCrossing::new(m).expect("closed mesh"),
                    BatchSize::LargeInput,
                );
            });
        });
        group.bench_with_input(BenchmarkId::new("paper", name), &mesh, |b, mesh| {
            pool.install(|| {
                b.iter_batched(
                    || mesh.clone(),
                    |m| PaperRayCrossing::new(m).expect("closed mesh"),
                    BatchSize::LargeInput,
                );
            });
        });
    }
    group.finish();
}

fn classify(c: &mut Criterion) {
    let pool = single_thread();
    let mut group = c.benchmark_group(format!("raycross/classify_grid{GRID}"));
    // Paper mode is O(points × faces): ~0.05–1 s per call here, so few, flat samples.
    group.sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(5));
    for (name, mesh) in meshes() {
        let points = grid(&mesh);
        group.throughput(Throughput::Elements(points.len() as u64));
        let fast = RayCrossing::new(mesh.clone()).expect("closed mesh");
        group.bench_with_input(BenchmarkId::new("fast", name), &points, |b, points| {
            pool.install(|| b.iter(|| fast.contains_batch(points).expect("finite points")));
        });
        let paper = PaperRayCrossing::new(mesh).expect("closed mesh");
        group.bench_with_input(BenchmarkId::new("paper", name), &points, |b, points| {
            pool.install(|| b.iter(|| paper.contains_batch(points).expect("finite points")));
        });
    }
    group.finish();
}

criterion_group!(benches, build, classify);
criterion_main!(benches);
