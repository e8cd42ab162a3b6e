//! The broad-phase baselines of the `hhgrid` suite against the brute-force oracle
//! `contact_core::AllPairs`: random insert / remove / update sequences on an integer lattice
//! (exact touching, zero-thickness boxes) and on floats spanning 1e-3..1e3 in size and ±1e6 in
//! position, plus the thesis workloads. Each `find_pairs` must return the same pair *set*, each
//! pair once.
#![allow(missing_docs)]

use collide_benches::broadphase::{
    IncrementalSap, Motion, ParryBvh, Sizes, SortAndSweep, Workload, WorkloadConfig,
};
use contact_core::{AllPairs, BroadPhase};
use geometry_core::{Aabb, DVec3};
use hhgrid::HierarchicalHashGrid;
use proptest::prelude::*;
use std::collections::HashMap;

#[derive(Debug, Clone)]
enum Op {
    Insert(Aabb),
    /// Remove the live object at this index (modulo the number of live objects).
    Remove(usize),
    Update(usize, Aabb),
    FindPairs,
}

fn lattice_box() -> impl Strategy<Value = Aabb> + Clone {
    (prop::array::uniform3(-4i32..8), prop::array::uniform3(0i32..4)).prop_map(|(min, size)| {
        let min = DVec3::from_array(min.map(f64::from));
        Aabb::new(min, min + DVec3::from_array(size.map(f64::from))).unwrap()
    })
}

fn float_box() -> impl Strategy<Value = Aabb> + Clone {
    // A few clusters anywhere within ±1e6 (so that overlaps happen among a few dozen boxes),
    // cluster radius 1..1e3, box sizes log-uniform in 1e-3..1e3 per axis.
    let offsets = prop::sample::select(vec![-999_000.0, -0.5, 123_456.789, 999_000.0]);
    (offsets, prop::array::uniform3(-1.0f64..1.0), prop::array::uniform3(-3.0f64..3.0), 0.0f64..3.0).prop_map(
        |(offset, unit, log_size, log_spread)| {
            let spread = 10f64.powf(log_spread);
            let centre = DVec3::splat(offset) + spread * DVec3::from_array(unit);
            let half = 0.5 * DVec3::from_array(log_size.map(|l| 10f64.powf(l)));
            Aabb::new(centre - half, centre + half).unwrap()
        },
    )
}

fn ops(boxes: impl Strategy<Value = Aabb> + Clone) -> impl Strategy<Value = Vec<Op>> {
    let op = prop_oneof![
        4 => boxes.clone().prop_map(Op::Insert),
        1 => any::<usize>().prop_map(Op::Remove),
        4 => (any::<usize>(), boxes).prop_map(|(i, b)| Op::Update(i, b)),
        1 => Just(Op::FindPairs),
    ];
    prop::collection::vec(op, 1..80)
}

/// The pairs of `broad` as sorted `(min, max)` object ids, after checking there are no
/// duplicates and no self-pairs.
fn pair_set<B: BroadPhase>(broad: &mut B, ids: &HashMap<B::Handle, usize>) -> Vec<(usize, usize)> {
    let mut pairs = vec![];
    broad.find_pairs(&mut pairs);
    let mut set: Vec<(usize, usize)> = pairs
        .iter()
        .map(|(a, b)| {
            let (a, b) = (ids[a], ids[b]);
            assert_ne!(a, b, "self pair");
            (a.min(b), a.max(b))
        })
        .collect();
    set.sort_unstable();
    let n = set.len();
    set.dedup();
    assert_eq!(set.len(), n, "duplicate pairs");
    set
}

/// Applies `ops` to `broad` and to the oracle, comparing the pair sets at every `FindPairs` and
/// at the end.
fn check_against_oracle<B: BroadPhase>(mut broad: B, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut oracle = AllPairs::new();
    // Live objects: (id, handle in `broad`, handle in the oracle).
    let mut live: Vec<(usize, B::Handle, contact_core::AllPairsHandle)> = Vec::new();
    let mut ids = HashMap::new();
    let mut oracle_ids = HashMap::new();
    let mut next_id = 0;
    let compare = |broad: &mut B,
                   oracle: &mut AllPairs,
                   ids: &HashMap<B::Handle, usize>,
                   oracle_ids: &HashMap<contact_core::AllPairsHandle, usize>|
     -> Result<(), TestCaseError> {
        let ours = pair_set(broad, ids);
        let expected = pair_set(oracle, oracle_ids);
        prop_assert_eq!(ours, expected);
        prop_assert_eq!(broad.len(), oracle.len());
        Ok(())
    };
    for op in ops {
        match op {
            Op::Insert(aabb) => {
                let h = broad.insert(*aabb).unwrap();
                let o = oracle.insert(*aabb).unwrap();
                ids.insert(h, next_id);
                oracle_ids.insert(o, next_id);
                live.push((next_id, h, o));
                next_id += 1;
            }
            Op::Remove(i) if !live.is_empty() => {
                let (id, h, o) = live.swap_remove(i % live.len());
                broad.remove(h).unwrap();
                oracle.remove(o).unwrap();
                prop_assert!(broad.remove(h).is_err(), "removing twice must fail");
                ids.remove(&h);
                oracle_ids.remove(&o);
                let _ = id;
            }
            Op::Update(i, aabb) if !live.is_empty() => {
                let (_, h, o) = live[i % live.len()];
                broad.update(h, *aabb).unwrap();
                oracle.update(o, *aabb).unwrap();
            }
            Op::FindPairs => compare(&mut broad, &mut oracle, &ids, &oracle_ids)?,
            Op::Remove(_) | Op::Update(..) => {}
        }
    }
    compare(&mut broad, &mut oracle, &ids, &oracle_ids)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn incremental_sap_lattice(ops in ops(lattice_box())) {
        check_against_oracle(IncrementalSap::new(), &ops)?;
    }

    #[test]
    fn incremental_sap_floats(ops in ops(float_box())) {
        check_against_oracle(IncrementalSap::new(), &ops)?;
    }

    #[test]
    fn sort_and_sweep_lattice(ops in ops(lattice_box())) {
        check_against_oracle(SortAndSweep::new(), &ops)?;
    }

    #[test]
    fn sort_and_sweep_floats(ops in ops(float_box())) {
        check_against_oracle(SortAndSweep::new(), &ops)?;
    }

    #[test]
    fn parry_bvh_lattice(ops in ops(lattice_box())) {
        check_against_oracle(ParryBvh::new(), &ops)?;
    }

    #[test]
    fn parry_bvh_floats(ops in ops(float_box())) {
        check_against_oracle(ParryBvh::new(), &ops)?;
    }

    #[test]
    fn parry_bvh_reinserting_jumps_lattice(ops in ops(lattice_box())) {
        check_against_oracle(ParryBvh::with_jump_reinsertion(), &ops)?;
    }

    #[test]
    fn parry_bvh_reinserting_jumps_floats(ops in ops(float_box())) {
        check_against_oracle(ParryBvh::with_jump_reinsertion(), &ops)?;
    }
}

/// Every thesis workload, a few hundred objects, 25 steps (the sort-and-sweep radix path and
/// the insertion sort's long moves under teleportation are exercised here); the hierarchical
/// hash grid the suite measures them against too.
#[test]
fn thesis_workloads_match_the_oracle() {
    let base = WorkloadConfig::thesis(600);
    let configs = [
        base,
        WorkloadConfig { sizes: Sizes::Varying { ratio: 12.0 }, pairs_per_object: 8.0, ..base },
        WorkloadConfig { sizes: Sizes::Elongated { aspect: 10.0 }, ..base },
        WorkloadConfig { domain_aspect: [1024.0, 1.0, 1.0], ..base },
        WorkloadConfig { motion: Motion::Teleport, ..base },
        WorkloadConfig { size_scale: 1e-5, motion: Motion::Drift { fraction: 0.01 }, ..base },
    ];
    for config in configs {
        let ops = workload_ops(config, 25);
        for result in [
            check_against_oracle(IncrementalSap::new(), &ops),
            check_against_oracle(SortAndSweep::new(), &ops),
            check_against_oracle(ParryBvh::new(), &ops),
            check_against_oracle(ParryBvh::with_jump_reinsertion(), &ops),
            check_against_oracle(HierarchicalHashGrid::default(), &ops),
        ] {
            if let Err(e) = result {
                panic!("{config:?}: {e}");
            }
        }
    }
}

fn workload_ops(config: WorkloadConfig, steps: usize) -> Vec<Op> {
    let mut w = Workload::new(config).unwrap();
    let mut ops: Vec<Op> = w.boxes().iter().map(|b| Op::Insert(*b)).collect();
    ops.push(Op::FindPairs);
    for _ in 0..steps {
        ops.extend(w.step().iter().enumerate().map(|(i, b)| Op::Update(i, *b)));
        ops.push(Op::FindPairs);
    }
    ops
}
