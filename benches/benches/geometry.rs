//! Criterion micro-benchmarks of `geometry-core`: octa-sphere generation, `TriMesh::new`
//! validation, and the exact `orient3d` predicate on general versus near-degenerate input.
//!
//! `cargo bench -p collide-benches --bench geometry` measures; `cargo test -p collide-benches
//! --benches` runs every benchmark once as a smoke test.
#![allow(missing_docs)]

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use geometry_core::generators::octa_sphere;
use geometry_core::predicates::orient3d;
use geometry_core::{DVec3, TriMesh};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

const LEVELS: [usize; 3] = [2, 4, 6];
const QUADRUPLES: usize = 1024;

fn generation(c: &mut Criterion) {
    let mut group = c.benchmark_group("octa_sphere");
    for level in LEVELS {
        group.throughput(Throughput::Elements(8 * 4u64.pow(level as u32)));
        group.bench_with_input(BenchmarkId::from_parameter(level), &level, |b, &level| {
            b.iter(|| octa_sphere(black_box(level)).expect("level is in range"));
        });
    }
    group.finish();
}

fn validation(c: &mut Criterion) {
    let mut group = c.benchmark_group("trimesh_new");
    for level in LEVELS {
        let mesh = octa_sphere(level).expect("level is in range");
        group.throughput(Throughput::Elements(mesh.faces().len() as u64));
        group.bench_with_input(BenchmarkId::new("octa_sphere", level), &mesh, |b, mesh| {
            b.iter_batched(
                || mesh.clone().into_parts(),
                |(vertices, faces)| TriMesh::new(vertices, faces).expect("generated meshes are valid"),
                BatchSize::LargeInput,
            );
        });
    }
    group.finish();
}

fn random_point(rng: &mut ChaCha8Rng) -> DVec3 {
    DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0))
}

/// Uniform random quadruples: the floating-point filter decides almost all of them.
fn general_quadruples(rng: &mut ChaCha8Rng) -> Vec<[DVec3; 4]> {
    (0..QUADRUPLES).map(|_| std::array::from_fn(|_| random_point(rng))).collect()
}

/// `d` on the plane of `a, b, c` up to the rounding of `a + s(b − a) + t(c − a)`: the determinant
/// is within a few ulps of zero, so the filter fails and the adaptive stages (often the exact one)
/// decide.
fn near_degenerate_quadruples(rng: &mut ChaCha8Rng) -> Vec<[DVec3; 4]> {
    (0..QUADRUPLES)
        .map(|_| {
            let [a, b, c] = std::array::from_fn(|_| random_point(rng));
            let (s, t) = (rng.random_range(-1.0..2.0), rng.random_range(-1.0..2.0));
            [a, b, c, a + s * (b - a) + t * (c - a)]
        })
        .collect()
}

fn predicates(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(0x0c0_111de);
    let inputs = [
        ("general", general_quadruples(&mut rng)),
        ("near_degenerate", near_degenerate_quadruples(&mut rng)),
    ];
    let mut group = c.benchmark_group("orient3d");
    group.throughput(Throughput::Elements(QUADRUPLES as u64));
    for (name, quadruples) in &inputs {
        group.bench_with_input(BenchmarkId::from_parameter(name), quadruples, |b, quadruples| {
            b.iter(|| {
                quadruples.iter().map(|&[a, b, c, d]| orient3d(a, b, c, black_box(d)).as_i32()).sum::<i32>()
            });
        });
    }
    group.finish();
}

criterion_group!(benches, generation, validation, predicates);
criterion_main!(benches);
