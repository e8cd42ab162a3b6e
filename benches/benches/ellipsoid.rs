//! Criterion micro-benchmarks of `ellipsoid-pw` on pairs of aspect ratio 3 in the undecided
//! band (the pairs of the `ellipsoid` suite): Brent, Newton cold, Newton warm (from `Λ` one small
//! step earlier) and the algebraic pre-filter, per pair.
//!
//! `cargo bench -p collide-benches --bench ellipsoid` measures; `cargo test -p collide-benches
//! --benches` runs every benchmark once as a smoke test. The sweep over aspect ratios and the
//! pipeline are `cargo xtask bench --only ellipsoid`.
#![allow(missing_docs)]

use collide_benches::suites::ellipsoid::{BandPair, band_pairs};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ellipsoid_pw::{PerramWertheim, algebraic_separation};
use std::hint::black_box;

const PAIRS: usize = 1_000;

fn per_pair(c: &mut Criterion) {
    let pairs: Vec<BandPair> = band_pairs(3.0, PAIRS, 42);
    let (brent, newton) = (PerramWertheim::brent(), PerramWertheim::newton());
    let previous: Vec<f64> =
        pairs.iter().map(|p| newton.solve(&p.a, &p.b_before).expect("band pair").lambda).collect();
    let mut group = c.benchmark_group("ellipsoid/aspect3");
    group.throughput(Throughput::Elements(PAIRS as u64));
    group.bench_function("brent", |b| {
        b.iter(|| {
            pairs
                .iter()
                .map(|p| brent.solve(black_box(&p.a), black_box(&p.b)).map_or(0.0, |r| r.f))
                .sum::<f64>()
        });
    });
    group.bench_function("newton_cold", |b| {
        b.iter(|| {
            pairs
                .iter()
                .map(|p| newton.solve(black_box(&p.a), black_box(&p.b)).map_or(0.0, |r| r.f))
                .sum::<f64>()
        });
    });
    group.bench_function("newton_warm", |b| {
        b.iter(|| {
            pairs
                .iter()
                .zip(&previous)
                .map(|(p, &l)| newton.solve_warm(black_box(&p.a), black_box(&p.b), l).map_or(0.0, |r| r.f))
                .sum::<f64>()
        });
    });
    group.bench_function("algebraic_prefilter", |b| {
        b.iter(|| {
            pairs
                .iter()
                .map(|p| u32::from(algebraic_separation(black_box(&p.a), black_box(&p.b)) as u8))
                .sum::<u32>()
        });
    });
    group.finish();
}

criterion_group!(benches, per_pair);
criterion_main!(benches);
