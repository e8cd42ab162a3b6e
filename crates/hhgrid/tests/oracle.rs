//! The hierarchical hash grid against a brute-force oracle written here, independently of the
//! crate: after any sequence of inserts, removes and updates, detection reports exactly the
//! overlapping pairs (respecting static flags, groups, unbounded objects), each once; the
//! parallel path equals the serial one; queries equal brute force.

use contact_core::BroadPhase;
use geometry_core::{Aabb, DVec3, Ray};
use hhgrid::{
    BaseCellSize, CollisionGroups, Handle, HhGridConfig, HierarchicalHashGrid, ObjectOptions, PairOrder,
    UpdateStrategy,
};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone, Copy)]
struct Object {
    aabb: Option<Aabb>,
    options: ObjectOptions,
}

/// Closed-interval overlap on every axis, or an unbounded partner.
fn oracle_overlap(a: &Object, b: &Object) -> bool {
    match (a.aabb, b.aabb) {
        (Some(x), Some(y)) => (0..3).all(|k| x.min[k] <= y.max[k] && y.min[k] <= x.max[k]),
        _ => true,
    }
}

fn oracle_may_pair(a: &Object, b: &Object) -> bool {
    let groups = |x: CollisionGroups, y: CollisionGroups| {
        x.memberships & y.filter != 0 && y.memberships & x.filter != 0
    };
    !(a.options.is_static && b.options.is_static)
        && groups(a.options.groups, b.options.groups)
        && oracle_overlap(a, b)
}

fn oracle_pairs(model: &BTreeMap<Handle, Object>) -> BTreeSet<(Handle, Handle)> {
    let entries: Vec<_> = model.iter().collect();
    let mut pairs = BTreeSet::new();
    for (i, (ha, a)) in entries.iter().enumerate() {
        for (hb, b) in &entries[i + 1..] {
            if oracle_may_pair(a, b) {
                pairs.insert((**ha.min(hb), **ha.max(hb)));
            }
        }
    }
    pairs
}

/// Boxes in a few clusters anywhere within ±1e6, with sizes from 1e-3 to 1e3. Half are
/// "coherent" (sizes and spacing of one scale, so that neighbours within a grid overlap), half
/// are independent in size and offset (so that boxes overlap across grid levels).
fn arb_box() -> impl Strategy<Value = Aabb> {
    (
        0usize..3,
        [-1.0..1.0f64, -1.0..1.0, -1.0..1.0],
        -3.0..3.0f64,
        [-0.3..0.3f64, -0.3..0.3, -0.3..0.3],
        -3.0..3.0f64,
        prop::bool::ANY,
        prop::bool::weighted(0.05),
    )
        .prop_map(|(cluster, offset, exponent, jitter, other_exponent, coherent, point)| {
            let centres =
                [DVec3::new(-1e6, 3.0, 1e6), DVec3::new(0.25, -0.5, 0.0), DVec3::new(7e5, -9e5, -2.5e5)];
            let offset_scale = if coherent { 10f64.powf(exponent + 0.4) } else { 10f64.powf(other_exponent) };
            let min = centres[cluster] + DVec3::from(offset) * offset_scale;
            let size =
                if point { DVec3::ZERO } else { DVec3::from(jitter.map(|j| 10f64.powf(exponent + j))) };
            Aabb::new(min, min + size).unwrap()
        })
}

/// A box far beyond the coordinates the grids hash (up to ±10³⁰⁰ per axis): it lives in the
/// container tested against everything.
fn arb_far_box() -> impl Strategy<Value = Aabb> {
    (
        [8.0..300.0f64, 8.0..300.0, 8.0..300.0],
        [prop::bool::ANY, prop::bool::ANY, prop::bool::ANY],
        -3.0..3.0f64,
    )
        .prop_map(|(exponents, negative, size)| {
            let min = DVec3::from(std::array::from_fn::<f64, 3, _>(|a| {
                let x = 10f64.powf(exponents[a]);
                if negative[a] { -x } else { x }
            }));
            Aabb::new(min, min + DVec3::splat(10f64.powf(size))).unwrap()
        })
}

fn arb_options() -> impl Strategy<Value = ObjectOptions> {
    (prop::bool::weighted(0.2), prop::bool::weighted(0.2), 1u32..4, 1u32..4).prop_map(
        |(is_static, grouped, m, f)| ObjectOptions {
            is_static,
            groups: if grouped {
                CollisionGroups { memberships: m, filter: f }
            } else {
                CollisionGroups::ALL
            },
        },
    )
}

#[derive(Debug, Clone)]
enum Op {
    Insert(Aabb, ObjectOptions),
    InsertUnbounded(ObjectOptions),
    Remove(usize),
    /// Move by a fraction of the box's size (the thesis's motion), or jump anywhere.
    Nudge(usize, [f64; 3]),
    Replace(usize, Aabb),
    /// Scale the box's edges by a factor, keeping its minimum corner (rotation or deformation:
    /// the object may change grid level).
    Scale(usize, f64),
    /// `update_many` of nudges (an object may appear more than once), with a removed object's
    /// handle slipped in at the given position when one exists: the batch then stops there.
    Batch(Vec<(usize, [f64; 3])>, Option<usize>),
    Detect,
}

fn arb_batch() -> impl Strategy<Value = Op> {
    (
        prop::collection::vec((any::<usize>(), [-0.3..0.3f64, -0.3..0.3, -0.3..0.3]), 0..40),
        prop::option::weighted(0.2, any::<usize>()),
    )
        .prop_map(|(moves, stale)| Op::Batch(moves, stale))
}

fn arb_ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![
            6 => (arb_box(), arb_options()).prop_map(|(b, o)| Op::Insert(b, o)),
            1 => arb_options().prop_map(Op::InsertUnbounded),
            2 => any::<usize>().prop_map(Op::Remove),
            4 => (any::<usize>(), [-0.3..0.3f64, -0.3..0.3, -0.3..0.3]).prop_map(|(i, d)| Op::Nudge(i, d)),
            2 => (any::<usize>(), arb_box()).prop_map(|(i, b)| Op::Replace(i, b)),
            1 => (any::<usize>(), arb_far_box()).prop_map(|(i, b)| Op::Replace(i, b)),
            1 => arb_batch(),
            1 => Just(Op::Detect),
        ],
        1..120,
    )
}

fn arb_config() -> impl Strategy<Value = HhGridConfig> {
    (
        prop_oneof![Just(2.0f64), Just(1.5), Just(3.0), Just(1.01), Just(7.5)],
        prop_oneof![Just([4u32, 4, 4]), Just([16, 16, 16]), Just([4, 8, 32])],
        prop_oneof![Just(0.125f64), Just(2.0), Just(0.01)],
        prop_oneof![Just(0usize), Just(5), Just(32)],
        prop_oneof![Just(0usize), Just(16)],
        prop::bool::ANY,
        prop::bool::ANY,
        prop::bool::ANY,
        prop_oneof![Just(0.0f64), Just(0.25), Just(1.0)],
        prop_oneof![Just(0.0f64), Just(0.1), Just(1.0)],
        prop::bool::ANY,
    )
        .prop_map(
            |(f, cells, density, threshold, reserve, clear, sorted, densest, share, margin, narrow)| {
                HhGridConfig {
                    hierarchy_factor: f,
                    initial_cells: cells,
                    max_density: density,
                    cell_reserve: reserve,
                    all_pairs_threshold: threshold,
                    update_strategy: if clear {
                        UpdateStrategy::ClearAndReinsert
                    } else {
                        UpdateStrategy::Incremental
                    },
                    pair_order: if sorted { PairOrder::Sorted } else { PairOrder::Traversal },
                    parallel: false,
                    base_cell_size: if densest {
                        BaseCellSize::DensestLevel
                    } else {
                        BaseCellSize::FirstObject
                    },
                    incremental_share: share,
                    incremental_margin: margin,
                    narrow_coarse_stencil: narrow,
                }
            },
        )
}

fn check_detection(
    grid: &mut HierarchicalHashGrid,
    model: &BTreeMap<Handle, Object>,
) -> Result<(), TestCaseError> {
    // The parallel path runs on a twin in the same state (same pending changes), so that both
    // take the same path, incremental or full.
    let mut twin = grid.clone();
    let mut serial = Vec::new();
    grid.find_pairs(&mut serial);
    let mut parallel = Vec::new();
    twin.find_pairs_parallel(&mut parallel);
    prop_assert_eq!(&serial, &parallel, "parallel output differs from serial");
    prop_assert!(serial.iter().all(|(a, b)| a < b), "pairs must have the smaller handle first");
    let reported: BTreeSet<_> = serial.iter().copied().collect();
    prop_assert_eq!(reported.len(), serial.len(), "a pair was reported twice");
    let expected = oracle_pairs(model);
    prop_assert_eq!(&reported, &expected);
    if grid.config().pair_order == PairOrder::Sorted {
        prop_assert!(serial.windows(2).all(|w| w[0] < w[1]));
    }
    Ok(())
}

fn run(config: HhGridConfig, ops: Vec<Op>) -> Result<(), TestCaseError> {
    let mut grid = HierarchicalHashGrid::new(config).unwrap();
    let mut model: BTreeMap<Handle, Object> = BTreeMap::new();
    let mut live: Vec<Handle> = Vec::new();
    let mut removed: Vec<Handle> = Vec::new();
    for op in ops {
        match op {
            Op::Insert(b, options) => {
                let h = grid.insert_with(b, options).unwrap();
                let fresh = model.insert(h, Object { aabb: Some(b), options }).is_none();
                prop_assert!(fresh, "handle reused while live");
                live.push(h);
            }
            Op::InsertUnbounded(options) => {
                let h = grid.insert_unbounded(options).unwrap();
                model.insert(h, Object { aabb: None, options });
                live.push(h);
            }
            Op::Remove(i) if !live.is_empty() => {
                let h = live.swap_remove(i % live.len());
                grid.remove(h).unwrap();
                model.remove(&h);
                prop_assert!(grid.remove(h).is_err());
                removed.push(h);
            }
            Op::Nudge(i, d) if !live.is_empty() => {
                let h = live[i % live.len()];
                let object = model.get_mut(&h).unwrap();
                if let Some(b) = object.aabb {
                    let shift = DVec3::from(d) * b.longest_edge().max(1e-3);
                    let moved = Aabb::new(b.min + shift, b.max + shift).unwrap();
                    grid.update(h, moved).unwrap();
                    object.aabb = Some(moved);
                } else {
                    prop_assert!(grid.update(h, Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap()).is_err());
                }
            }
            Op::Replace(i, b) if !live.is_empty() => {
                let h = live[i % live.len()];
                let object = model.get_mut(&h).unwrap();
                if object.aabb.is_some() {
                    grid.update(h, b).unwrap();
                    object.aabb = Some(b);
                }
            }
            Op::Scale(i, factor) if !live.is_empty() => {
                let h = live[i % live.len()];
                let object = model.get_mut(&h).unwrap();
                if let Some(b) = object.aabb {
                    let scaled = Aabb::new(b.min, b.min + b.extents() * factor).unwrap();
                    grid.update(h, scaled).unwrap();
                    object.aabb = Some(scaled);
                }
            }
            Op::Batch(moves, stale) => {
                // The boxes each entry sets, in order (an object's later entry moves on from its
                // earlier one); only the entries before a stale handle may reach the model.
                let mut boxes: BTreeMap<Handle, Aabb> = BTreeMap::new();
                let mut batch = Vec::new();
                for (i, d) in moves {
                    let Some(&h) = live.get(i % live.len().max(1)) else { break };
                    let Some(b) = boxes.get(&h).copied().or(model[&h].aabb) else { continue };
                    let shift = DVec3::from(d) * b.longest_edge().max(1e-3);
                    let moved = Aabb::new(b.min + shift, b.max + shift).unwrap();
                    boxes.insert(h, moved);
                    batch.push((h, moved));
                }
                let cut = match (stale, removed.last()) {
                    (Some(k), Some(&dead)) => {
                        let k = k % (batch.len() + 1);
                        batch.insert(k, (dead, Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap()));
                        k
                    }
                    _ => batch.len(),
                };
                let result = grid.update_many(&batch);
                prop_assert_eq!(result.is_err(), cut < batch.len());
                for &(h, b) in &batch[..cut] {
                    model.get_mut(&h).unwrap().aabb = Some(b);
                }
            }
            Op::Detect => check_detection(&mut grid, &model)?,
            _ => {}
        }
        prop_assert_eq!(grid.len(), model.len());
    }
    check_detection(&mut grid, &model)?;
    // Queries against brute force (the detection above rebuilt any pending updates).
    let probe = Aabb::new(DVec3::new(-1.0, -1.0, -1.0), DVec3::new(1.0, 1.0, 1.0)).unwrap();
    let mut hits = Vec::new();
    grid.query_aabb(&probe, &mut hits).unwrap();
    let hits: BTreeSet<_> = hits.into_iter().collect();
    let probe_object = Object { aabb: Some(probe), options: ObjectOptions::default() };
    let expected: BTreeSet<_> =
        model.iter().filter(|(_, o)| oracle_overlap(o, &probe_object)).map(|(h, _)| *h).collect();
    prop_assert_eq!(hits, expected);
    // Remove everything: the structure is empty and reports nothing.
    for h in live {
        grid.remove(h).unwrap();
    }
    prop_assert!(grid.is_empty());
    let mut pairs = vec![];
    grid.find_pairs(&mut pairs);
    prop_assert!(pairs.is_empty());
    prop_assert!(grid.grid_summary().iter().all(|&(_, _, _, objects)| objects == 0));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn pairs_equal_brute_force(config in arb_config(), ops in arb_ops()) {
        run(config, ops)?;
    }

    /// Many objects on a small grid: growth, hash aliasing (distant cells sharing storage) and
    /// wrapped neighbour offsets are all exercised.
    #[test]
    fn dense_growth_and_aliasing(seed_boxes in prop::collection::vec(arb_box(), 50..200), moves in prop::collection::vec((any::<usize>(), [-0.2..0.2f64, -0.2..0.2, -0.2..0.2]), 0..200)) {
        let config = HhGridConfig { initial_cells: [4, 4, 4], all_pairs_threshold: 0, ..HhGridConfig::default() };
        let mut ops: Vec<Op> = seed_boxes.into_iter().map(|b| Op::Insert(b, ObjectOptions::default())).collect();
        ops.push(Op::Detect);
        ops.extend(moves.into_iter().map(|(i, d)| Op::Nudge(i, d)));
        run(config, ops)?;
    }
}

fn arb_small_change() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => (arb_box(), arb_options()).prop_map(|(b, o)| Op::Insert(b, o)),
        1 => arb_options().prop_map(Op::InsertUnbounded),
        2 => any::<usize>().prop_map(Op::Remove),
        6 => (any::<usize>(), [-0.3..0.3f64, -0.3..0.3, -0.3..0.3]).prop_map(|(i, d)| Op::Nudge(i, d)),
        2 => (any::<usize>(), arb_box()).prop_map(|(i, b)| Op::Replace(i, b)),
        1 => arb_batch(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// Incremental detection: a populated structure, then rounds of a few changes each followed
    /// by a detection, so that most detections take the incremental path (share 1: always).
    #[test]
    fn incremental_rounds_equal_brute_force(
        config in arb_config(),
        share in prop_oneof![Just(0.25f64), Just(1.0)],
        seed_boxes in prop::collection::vec((arb_box(), arb_options()), 20..120),
        rounds in prop::collection::vec(prop::collection::vec(arb_small_change(), 0..6), 1..25),
    ) {
        let config = HhGridConfig { incremental_share: share, ..config };
        let mut ops: Vec<Op> = seed_boxes.into_iter().map(|(b, o)| Op::Insert(b, o)).collect();
        ops.push(Op::Detect);
        for round in rounds {
            ops.extend(round);
            ops.push(Op::Detect);
        }
        run(config, ops)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// Incremental detection with fat boxes: the same few objects creep by a few hundredths of
    /// their size per round, so they keep their fat boxes for several detections, meet and part
    /// from their neighbours without a query, and escape now and then; some shrink or grow
    /// within their fat boxes and so change grid level.
    #[test]
    fn creeping_objects_equal_brute_force(
        margin in prop_oneof![Just(0.02f64), Just(0.1), Just(0.5)],
        sorted in prop::bool::ANY,
        seed_boxes in prop::collection::vec(arb_box(), 40..120),
        creepers in prop::collection::vec((0usize..6, [-0.04..0.04f64, -0.04..0.04, -0.04..0.04]), 1..4),
        rounds in 5usize..40,
        scalings in prop::collection::vec((0usize..6, prop_oneof![Just(0.3f64), Just(0.6), Just(0.95), Just(1.6)], 0usize..40), 0..4),
    ) {
        let config = HhGridConfig {
            incremental_margin: margin,
            pair_order: if sorted { PairOrder::Sorted } else { PairOrder::Traversal },
            ..HhGridConfig::default()
        };
        let mut ops: Vec<Op> = seed_boxes.into_iter().map(|b| Op::Insert(b, ObjectOptions::default())).collect();
        ops.push(Op::Detect);
        for round in 0..rounds {
            // Each creeper keeps its direction: `Nudge` indexes the live list, which creeping
            // leaves unchanged.
            ops.extend(creepers.iter().map(|&(i, d)| Op::Nudge(i, d)));
            ops.extend(scalings.iter().filter(|s| s.2 == round).map(|&(i, factor, _)| Op::Scale(i, factor)));
            ops.push(Op::Detect);
        }
        run(config, ops)?;
    }
}

/// Rays against brute-force slab tests.
#[test]
fn ray_query_matches_brute_force() {
    let mut grid =
        HierarchicalHashGrid::new(HhGridConfig { all_pairs_threshold: 0, ..HhGridConfig::default() })
            .unwrap();
    let mut boxes = Vec::new();
    for i in 0..400u32 {
        let f = f64::from(i);
        let min = DVec3::new((f * 0.37).sin() * 20.0, (f * 0.91).cos() * 20.0, (f * 0.13).sin() * 20.0);
        let size = DVec3::splat(0.2 + (f * 0.71).sin().abs() * 3.0);
        let b = Aabb::new(min, min + size).unwrap();
        boxes.push((grid.insert(b).unwrap(), b));
    }
    for (i, max_t) in [(0u32, 5.0), (1, 40.0), (2, f64::INFINITY)] {
        let f = f64::from(i);
        let ray = Ray::new(DVec3::new(-30.0, f, -f), DVec3::new(1.0, 0.1 * f, 0.05)).unwrap();
        let mut hits = Vec::new();
        grid.cast_ray(&ray, max_t, &mut hits).unwrap();
        let mut expected: Vec<(Handle, f64)> = boxes
            .iter()
            .filter_map(|(h, b)| ray.intersect_aabb(b).filter(|&(t, _)| t <= max_t).map(|(t, _)| (*h, t)))
            .collect();
        expected.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        assert_eq!(hits, expected);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A box entered at (the rounding of) `max_t` is reported exactly when the slab test up to
    /// `max_t` (`Ray::intersect_aabb_up_to`, exact) meets it, whatever else the structure holds.
    /// The target's near face lies on a cell boundary of the first grid (cells of edge·√2), where
    /// the rounded end point of the ray may fall one unit short of it: the candidate culling
    /// once dropped it there, so the answer depended on unrelated objects (grid mode against
    /// all-pairs mode).
    #[test]
    fn ray_entering_a_box_at_max_t_is_decided_as_the_slab_test_decides(
        cell_index in 1i32..40,
        back in 0.05..2.0f64,
        across in [0.01..0.24f64, 0.01..0.24],
        slope in [-0.1..0.1f64, -0.1..0.1],
        length in 0.1..10.0f64,
        fillers in prop_oneof![Just(0u32), Just(60)],
    ) {
        let edge = 0.25;
        let cube = |p: DVec3| Aabb::new(p, p + DVec3::splat(edge)).unwrap();
        let face = f64::from(cell_index) * edge * std::f64::consts::SQRT_2;
        let config = HhGridConfig { all_pairs_threshold: 0, ..HhGridConfig::default() };
        let mut grid = HierarchicalHashGrid::new(config).unwrap();
        let target_box = cube(DVec3::new(face, 0.0, 0.0));
        let target = grid.insert(target_box).unwrap();
        for i in 0..fillers {
            let p = DVec3::new(-10.0 + f64::from(i % 8) * 0.36, 3.0 + f64::from(i / 8) * 0.36, 2.0);
            grid.insert(cube(p)).unwrap();
        }
        // A short ray, so that the grid culls by the cells it crosses (a range of cells longer
        // than the occupied list is not culled at all).
        let origin = DVec3::new(face - back, across[0], across[1]);
        let aim = DVec3::new(face + 0.1, origin.y + slope[0], origin.z + slope[1]);
        let ray = Ray::new(origin, (aim - origin).normalize() * length).unwrap();
        let Some((max_t, _)) = ray.intersect_aabb(&target_box) else { return Ok(()) };
        let mut hits = Vec::new();
        grid.cast_ray(&ray, max_t, &mut hits).unwrap();
        let expected = ray.intersect_aabb_up_to(&target_box, max_t).map(|(t, _)| (target, t));
        prop_assert_eq!(hits.iter().find(|h| h.0 == target).copied(), expected, "{:?} up to {}", ray, max_t);
    }
}

/// Rays whose `max_t` lies within a rounding of a box's entry (an adversarial review's cases):
/// the first two enter exactly at or before `max_t` (exact rational arithmetic: `1e-17` and a
/// grazing ray) and were missed, the third enters `5e-18` of `max_t` after it and was reported.
/// The cut-off is now exact, in grid and all-pairs mode alike.
#[test]
// The review's values, digit for digit (grouping them would hide that they are copied exactly).
#[allow(clippy::unreadable_literal)]
fn ray_cut_off_at_max_t_is_exact() {
    let v = DVec3::new;
    let cases = [
        (
            Aabb::new(
                v(65.62143712784248, -44.8620948163704, 82.1225130453403),
                v(69.90256456468923, -42.54788408587639, 84.5041858584038),
            )
            .unwrap(),
            Ray::new(
                v(-0.12096346046050968, -0.046251503662205325, 0.14148883421854191),
                v(286.1483059646568, -186.69841665026996, 356.82802862896716),
            )
            .unwrap(),
            2.297493964420781e-1,
            true,
        ),
        (
            Aabb::new(
                v(-22.825889291586975, -94.70110865514184, 85.88772017055899),
                v(-22.781827237837547, -94.68695048678373, 85.92376673093726),
            )
            .unwrap(),
            Ray::new(
                v(-14.97701737044548, 190.6905792614275, -289.2079384290044),
                v(-75.2836876003528, -2737.243391608329, 3597.7889136138774),
            )
            .unwrap(),
            1.0425727234308207e-1,
            true,
        ),
        (
            Aabb::new(
                v(11.107531977868447, 71.3177377651482, 27.212270927255517),
                v(11.685770503921745, 71.63855564818806, 27.36558852147496),
            )
            .unwrap(),
            Ray::new(
                v(-0.2866282077716745, -0.2707389826147022, 0.1901485436875464),
                v(24.451257699517143, 146.39192663154893, 55.50046419233018),
            )
            .unwrap(),
            4.890192949502098e-1,
            false,
        ),
    ];
    for threshold in [0, 32] {
        for (k, (b, ray, max_t, hit)) in cases.iter().enumerate() {
            let mut grid = HierarchicalHashGrid::new(HhGridConfig {
                all_pairs_threshold: threshold,
                ..HhGridConfig::default()
            })
            .unwrap();
            let h = grid.insert(*b).unwrap();
            let mut hits = Vec::new();
            grid.cast_ray(ray, *max_t, &mut hits).unwrap();
            assert_eq!(hits.iter().any(|x| x.0 == h), *hit, "case {k}, threshold {threshold}: {hits:?}");
        }
    }
}

#[test]
fn optimize_layout_keeps_the_pair_order_with_a_rebuild_pending() {
    // Clear-and-reinsert empties the grids through their occupied lists, which
    // `optimize_layout` reorders: the pending rebuild must happen before, or the objects of a
    // cell are reinserted in another order and the pairs come out in another order.
    let cube = |x: f64| Aabb::new(DVec3::splat(x), DVec3::splat(x + 1.0)).unwrap();
    let config = HhGridConfig {
        update_strategy: UpdateStrategy::ClearAndReinsert,
        all_pairs_threshold: 0,
        ..HhGridConfig::default()
    };
    let mut grid = HierarchicalHashGrid::new(config).unwrap();
    let a = grid.insert(cube(5.0)).unwrap();
    grid.insert(cube(0.1)).unwrap();
    grid.insert(cube(0.5)).unwrap();
    grid.update(a, cube(0.2)).unwrap();
    let mut optimized = grid.clone();
    optimized.optimize_layout();
    let (mut plain, mut after) = (Vec::new(), Vec::new());
    grid.find_pairs(&mut plain);
    optimized.find_pairs(&mut after);
    assert_eq!(plain.len(), 3);
    assert_eq!(plain, after);
}

#[test]
fn only_static_objects_report_nothing() {
    let mut grid = HierarchicalHashGrid::default();
    let wall = ObjectOptions { is_static: true, ..ObjectOptions::default() };
    for i in 0..100 {
        let p = DVec3::splat(f64::from(i) * 0.1);
        grid.insert_with(Aabb::new(p, p + DVec3::ONE).unwrap(), wall).unwrap();
    }
    let mut pairs = Vec::new();
    grid.find_pairs(&mut pairs);
    assert!(pairs.is_empty());
    let ball = grid.insert(Aabb::new(DVec3::ZERO, DVec3::splat(0.5)).unwrap()).unwrap();
    grid.find_pairs(&mut pairs);
    assert_eq!(pairs.len(), 6); // the walls at 0.0 ... 0.5 (touching counts)
    assert!(pairs.iter().all(|&(a, b)| a == ball || b == ball));
}

#[test]
fn errors_are_typed() {
    use hhgrid::HhGridError;
    let mut grid = HierarchicalHashGrid::default();
    let nan = Aabb { min: DVec3::ZERO, max: DVec3::splat(f64::NAN) };
    assert!(matches!(grid.insert(nan), Err(HhGridError::InvalidAabb(_))));
    let inverted = Aabb { min: DVec3::ONE, max: DVec3::ZERO };
    assert!(matches!(grid.insert(inverted), Err(HhGridError::InvalidAabb(_))));
    let h = grid.insert(Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap()).unwrap();
    assert!(matches!(grid.update(h, inverted), Err(HhGridError::InvalidAabb(_))));
    let plane = grid.insert_unbounded(ObjectOptions::default()).unwrap();
    assert_eq!(
        grid.update(plane, Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap()),
        Err(HhGridError::UpdateOfUnbounded)
    );
    grid.remove(h).unwrap();
    assert_eq!(grid.remove(h), Err(HhGridError::UnknownHandle));
    assert_eq!(grid.update(h, Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap()), Err(HhGridError::UnknownHandle));
    for bad in [
        HhGridConfig { hierarchy_factor: 1.0, ..HhGridConfig::default() },
        HhGridConfig { hierarchy_factor: f64::NAN, ..HhGridConfig::default() },
        HhGridConfig { initial_cells: [2, 16, 16], ..HhGridConfig::default() },
        HhGridConfig { initial_cells: [16, 12, 16], ..HhGridConfig::default() },
        HhGridConfig { initial_cells: [16, 16, 2048], ..HhGridConfig::default() },
        HhGridConfig { max_density: 0.0, ..HhGridConfig::default() },
        // A handful of objects would grow a grid to 1024³ cells (4 GiB), and a reserve this
        // large overflowed or aborted on the first insertion (found by an independent review).
        HhGridConfig { max_density: 1e-9, ..HhGridConfig::default() },
        HhGridConfig { cell_reserve: usize::MAX, ..HhGridConfig::default() },
        HhGridConfig { cell_reserve: 1 << 40, ..HhGridConfig::default() },
        HhGridConfig { incremental_share: 1.5, ..HhGridConfig::default() },
        HhGridConfig { incremental_margin: -0.1, ..HhGridConfig::default() },
        HhGridConfig { incremental_margin: f64::NAN, ..HhGridConfig::default() },
        HhGridConfig { incremental_margin: f64::INFINITY, ..HhGridConfig::default() },
    ] {
        assert!(matches!(HierarchicalHashGrid::new(bad), Err(HhGridError::InvalidConfig { .. })));
    }
    assert!(matches!(
        grid.cast_ray(&Ray::new(DVec3::ZERO, DVec3::X).unwrap(), f64::NAN, &mut Vec::new()),
        Err(HhGridError::InvalidAabb(_))
    ));
}

/// Objects too far out for `f64` cell arithmetic, or with overflowing extents, still pair
/// correctly (they are kept in the container tested against everything).
#[test]
fn extreme_coordinates_stay_correct() {
    let mut grid =
        HierarchicalHashGrid::new(HhGridConfig { all_pairs_threshold: 0, ..HhGridConfig::default() })
            .unwrap();
    let tiny = grid.insert(Aabb::new(DVec3::ZERO, DVec3::splat(1e-3)).unwrap()).unwrap();
    let far = Aabb::new(DVec3::splat(1e300), DVec3::splat(1e300)).unwrap();
    let a = grid.insert(far).unwrap();
    let b = grid.insert(far).unwrap();
    let huge = grid.insert(Aabb::new(DVec3::splat(-1e308), DVec3::splat(1e308)).unwrap()).unwrap();
    let mut pairs = Vec::new();
    grid.find_pairs(&mut pairs);
    let got: BTreeSet<_> = pairs.into_iter().collect();
    let expected: BTreeSet<_> = [(tiny, huge), (a, b), (a, huge), (b, huge)].into_iter().collect();
    assert_eq!(got, expected);
}

/// Uniform numbers in `[0, 1)` from a 64-bit linear congruential generator (for scenes too large
/// for proptest to shrink usefully).
fn uniform_stream(seed: u64) -> impl FnMut() -> f64 {
    let mut state = seed;
    move || {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A scene large enough for every parallel code path (a grid with more occupied cells than the
/// parallel sort and fill thresholds), checked against a sweep along x written here: sort the
/// boxes by `min.x`, and test each against the later ones until their `min.x` passes its
/// `max.x`. Objects move between rounds, so the rows are rebuilt from a changed grid; some are
/// removed (free slots among the objects), and sizes vary so that three grids take part.
#[test]
fn large_scene_parallel_equals_serial_and_sweep() {
    let n = 60_000u32;
    let mut unit = uniform_stream(0x9e37_79b9_7f4a_7c15);
    // Unit cubes in a box sized for about two overlaps per object, some of them negative.
    let side = (f64::from(n) * 8.0 / 2.0).cbrt();
    let mut place = |i: u32| {
        let min = DVec3::new(unit(), unit(), unit()) * side - DVec3::splat(side / 2.0);
        let edge = match i % 11 {
            0 => 3.0,
            5 => 0.3,
            _ => 1.0,
        };
        Aabb::new(min, min + DVec3::splat(edge)).unwrap()
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    for order in [PairOrder::Traversal, PairOrder::Sorted] {
        let config = HhGridConfig { pair_order: order, incremental_share: 0.0, ..HhGridConfig::default() };
        let mut grid = HierarchicalHashGrid::new(config).unwrap();
        let mut objects: Vec<(Handle, Aabb)> = (0..n)
            .map(|i| {
                let b = place(i);
                (grid.insert(b).unwrap(), b)
            })
            .collect();
        for round in 0..2 {
            if round == 1 {
                for (i, (h, b)) in objects.iter_mut().enumerate().step_by(3) {
                    *b = place(i as u32);
                    grid.update(*h, *b).unwrap();
                }
                for (h, _) in objects.iter().step_by(13) {
                    grid.remove(*h).unwrap();
                }
                objects =
                    objects.into_iter().enumerate().filter(|(i, _)| i % 13 != 0).map(|(_, o)| o).collect();
            }
            assert!(grid.grid_count() >= 3, "{:?}", grid.grid_summary());
            let (mut twin, mut pooled) = (grid.clone(), grid.clone());
            let (mut serial, mut parallel, mut inside) = (Vec::new(), Vec::new(), Vec::new());
            grid.find_pairs(&mut serial);
            twin.find_pairs_parallel(&mut parallel);
            assert_eq!(serial, parallel, "{order:?}, round {round}");
            // Called from a worker of a pool (no extra entry into the global pool).
            pool.install(|| pooled.find_pairs_parallel(&mut inside));
            assert_eq!(serial, inside, "{order:?}, round {round}, inside a pool");

            let mut by_x = objects.clone();
            by_x.sort_by(|a, b| a.1.min.x.total_cmp(&b.1.min.x));
            let mut expected = BTreeSet::new();
            for (i, (ha, a)) in by_x.iter().enumerate() {
                for (hb, b) in by_x[i + 1..].iter().take_while(|(_, b)| b.min.x <= a.max.x) {
                    if a.overlaps(b) {
                        expected.insert((*ha.min(hb), *ha.max(hb)));
                    }
                }
            }
            let found: BTreeSet<_> = serial.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
            assert_eq!(found.len(), serial.len(), "duplicate pairs");
            assert_eq!(found, expected, "{order:?}, round {round}");
            assert!(expected.len() > n as usize / 2, "too few pairs to be a test: {}", expected.len());
        }
    }
}

/// With clear-and-reinsert, an update only stores the new box until the next detection; a
/// grid that grows meanwhile re-places its objects, and one whose new box lies beyond the
/// coordinates the grid hashes must not stop it (it panicked: found by an independent review).
#[test]
fn a_grid_grows_while_an_update_beyond_its_coordinates_is_pending() {
    let config = HhGridConfig {
        update_strategy: UpdateStrategy::ClearAndReinsert,
        all_pairs_threshold: 0,
        initial_cells: [4, 4, 4],
        ..HhGridConfig::default()
    };
    let mut grid = HierarchicalHashGrid::new(config).unwrap();
    let unit = |x: f64| Aabb::new(DVec3::splat(x), DVec3::splat(x + 1.0)).unwrap();
    let handles: Vec<_> = (0..8).map(|i| grid.insert(unit(2.0 * f64::from(i))).unwrap()).collect();
    grid.update(handles[0], unit(1e15)).unwrap();
    grid.insert(unit(100.0)).unwrap();
    let far_neighbour = grid.insert(unit(1e15 + 0.5)).unwrap();
    let mut pairs = Vec::new();
    grid.find_pairs(&mut pairs);
    assert_eq!(pairs, vec![(handles[0], far_neighbour)]);
}

/// The switch from all-pairs mode to grids counts the objects with a box only: objects of
/// `insert_unbounded` are tested against everything in either mode (a scene that inserted its
/// planes first switched at its first box, found by a review).
#[test]
fn unbounded_objects_do_not_count_towards_the_all_pairs_threshold() {
    for planes in 0..5usize {
        let mut grid =
            HierarchicalHashGrid::new(HhGridConfig { all_pairs_threshold: 3, ..HhGridConfig::default() })
                .unwrap();
        for _ in 0..planes {
            grid.insert_unbounded(ObjectOptions::default()).unwrap();
        }
        let mut boxes = Vec::new();
        for k in 0..3 {
            let corner = DVec3::splat(2.0 * f64::from(k));
            boxes.push(grid.insert(Aabb::new(corner, corner + 1.0).unwrap()).unwrap());
            assert!(!grid.grids_active(), "{planes} planes, {} boxes", k + 1);
        }
        // The fourth box exceeds the threshold of 3.
        boxes.push(grid.insert(Aabb::new(DVec3::splat(10.0), DVec3::splat(11.0)).unwrap()).unwrap());
        assert!(grid.grids_active(), "{planes} planes");
        // The boxes are apart: each meets every plane and nothing else.
        let mut pairs = Vec::new();
        grid.find_pairs(&mut pairs);
        let with_a_box = pairs.iter().filter(|(a, b)| boxes.contains(a) || boxes.contains(b)).count();
        assert_eq!(with_a_box, 4 * planes, "{planes} planes");
    }
}

/// `update_many` acts as `update` of each in turn, also in a structure large enough for its
/// prefetching pipeline (from 2¹⁷ objects): moves within a cell and across cells, jumps, size
/// changes that move objects between grids, an object updated twice in one batch, and a batch
/// cut short by a removed handle. Two structures receive the same changes, one by batches and
/// one by single updates; their detections must agree pair for pair, in order.
#[test]
fn batch_updates_of_a_large_scene_equal_single_updates() {
    let n = 140_000u32;
    let mut unit = uniform_stream(0x2545_f491_4f6c_dd1d);
    let side = (f64::from(n) * 8.0 / 2.0).cbrt();
    let (mut batched, mut single) = (HierarchicalHashGrid::default(), HierarchicalHashGrid::default());
    let mut objects: Vec<(Handle, Aabb)> = Vec::new();
    for _ in 0..n {
        let min = DVec3::new(unit(), unit(), unit()) * side;
        let b = Aabb::new(min, min + 1.0).unwrap();
        let h = batched.insert(b).unwrap();
        assert_eq!(single.insert(b).unwrap(), h);
        objects.push((h, b));
    }
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for round in 0..3 {
        let mut batch = Vec::new();
        for (i, (h, b)) in objects.iter_mut().enumerate() {
            let moved = match (i + round) % 7 {
                // A nudge, often across a cell boundary.
                0..=3 => {
                    let shift = DVec3::new(unit() - 0.5, unit() - 0.5, unit() - 0.5) * 0.6;
                    Aabb::new(b.min + shift, b.max + shift).unwrap()
                }
                // A jump anywhere.
                4 => {
                    let min = DVec3::new(unit(), unit(), unit()) * side;
                    Aabb::new(min, min + b.extents()).unwrap()
                }
                // A change of size: to another grid and back.
                5 => Aabb::new(b.min, b.min + if b.longest_edge() > 2.0 { 1.0 } else { 3.0 }).unwrap(),
                _ => continue,
            };
            *b = moved;
            batch.push((*h, moved));
            if i % 1000 == 0 {
                // The same object again within the batch.
                let again = Aabb::new(b.min + 0.25, b.max + 0.25).unwrap();
                *b = again;
                batch.push((*h, again));
            }
        }
        batched.update_many(&batch).unwrap();
        for &(h, b) in &batch {
            single.update(h, b).unwrap();
        }
        batched.find_pairs(&mut ours);
        single.find_pairs(&mut theirs);
        assert!(ours.len() > n as usize, "round {round}: {} pairs", ours.len());
        assert!(ours == theirs, "round {round}: the batched structure reports other pairs");
    }
    // A removed handle halfway through a batch: the updates before it are applied, the rest not.
    let (gone, _) = objects.swap_remove(0);
    batched.remove(gone).unwrap();
    single.remove(gone).unwrap();
    let mut batch: Vec<(Handle, Aabb)> =
        objects.iter().map(|&(h, b)| (h, Aabb::new(b.min + 0.4, b.max + 0.4).unwrap())).collect();
    let cut = batch.len() / 2;
    batch.insert(cut, (gone, Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap()));
    assert!(batched.update_many(&batch).is_err());
    for &(h, b) in &batch[..cut] {
        single.update(h, b).unwrap();
    }
    batched.find_pairs(&mut ours);
    single.find_pairs(&mut theirs);
    assert!(ours == theirs, "the cut batch applied other updates than those before the removed handle");
}
