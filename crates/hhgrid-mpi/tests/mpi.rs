//! The MPI tests of hhgrid-mpi (`harness = false`): every check runs on `MPI_COMM_WORLD`.
//! `cargo test -p hhgrid-mpi` runs it as one process; `.ci/run` launches it with
//! `mpirun -n K` for K = 1, 2, 3, 4.
//!
//! * For periodic and bounded boxes, cuboids spanning at least three hierarchy levels, 50 steps
//!   of motion: the pairs of all ranks (gathered to rank 0) are compared with two independent
//!   oracles on the same objects, a single-process `hhgrid` run (with explicit periodic images)
//!   and a brute-force minimum-image test; no pair may be reported twice. Every step, the ids
//!   of the owned objects over all ranks must be exactly `0..N`, and each object's box and
//!   payload must equal a single-process replay of the same motion.
//! * Bad input: each case must end with the same typed error on every rank (no hang; CI runs
//!   this under `timeout`).

#![allow(missing_docs)]

use contact_core::BroadPhase;
use geometry_core::{Aabb, DVec3};
use hhgrid::{HhGridConfig, HierarchicalHashGrid};
use hhgrid_mpi::workload::{Motion, Workload, advance};
use hhgrid_mpi::{DistConfig, DistError, DistributedGrid, Domain};
use mpi::collective::SystemOperation;
use mpi::datatype::PartitionMut;
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives};
use std::collections::BTreeSet;

const OBJECTS: usize = 1200;
const STEPS: usize = 50;
const MAX_SIZE: f64 = 6.0;

/// Every rank's `data`, concatenated in rank order (on every rank).
fn all_gather(world: &SimpleCommunicator, data: &[u64]) -> Vec<u64> {
    let count = data.len() as i32;
    let mut counts = vec![0i32; world.size() as usize];
    world.all_gather_into(&count, &mut counts[..]);
    let displs: Vec<i32> = counts
        .iter()
        .scan(0, |acc, &c| {
            let d = *acc;
            *acc += c;
            Some(d)
        })
        .collect();
    let mut out = vec![0u64; counts.iter().map(|&c| c as usize).sum()];
    let mut partition = PartitionMut::new(&mut out[..], counts, displs);
    world.all_gather_varcount_into(data, &mut partition);
    out
}

fn workload() -> Workload {
    Workload { edge_min: 0.5, edge_max: MAX_SIZE, pairs_per_object: 2.0, motion_fraction: 0.2, seed: 9 }
}

fn domain(periodic: bool) -> Domain {
    let edge = workload().edge_for(OBJECTS as f64);
    Domain::new(DVec3::splat(-3.0), DVec3::splat(edge - 3.0), [periodic; 3]).unwrap()
}

fn wrapped(grid_domain: &hhgrid_mpi::Decomposition, b: Aabb) -> Aabb {
    let shift = grid_domain.wrap_shift(b.center());
    if shift == DVec3::ZERO { b } else { Aabb { min: b.min + shift, max: b.max + shift } }
}

/// Oracle 1: one hhgrid holding every object and, on periodic axes, its images near the box.
fn hhgrid_oracle(domain: &Domain, boxes: &[Aabb]) -> (BTreeSet<(u64, u64)>, usize) {
    let mut grid = HierarchicalHashGrid::new(HhGridConfig::default()).unwrap();
    let period = domain.extent();
    let mut id_of = Vec::new();
    for (id, b) in boxes.iter().enumerate() {
        for code in 0..27u8 {
            let shift = hhgrid_mpi::shift_of(code, period);
            let skip = (0..3).any(|k| shift[k] != 0.0 && !domain.periodic[k]);
            if skip {
                continue;
            }
            let image = Aabb { min: b.min + shift, max: b.max + shift };
            let near = (0..3).all(|k| {
                image.max[k] >= domain.min[k] - MAX_SIZE && image.min[k] <= domain.max[k] + MAX_SIZE
            });
            if code == hhgrid_mpi::NO_SHIFT || near {
                let h = grid.insert(image).unwrap();
                if h.index() as usize >= id_of.len() {
                    id_of.resize(h.index() as usize + 1, 0);
                }
                id_of[h.index() as usize] = id as u64;
            }
        }
    }
    let mut pairs = Vec::new();
    grid.find_pairs(&mut pairs);
    let set = pairs
        .into_iter()
        .map(|(a, b)| (id_of[a.index() as usize], id_of[b.index() as usize]))
        .filter(|(a, b)| a != b)
        .map(|(a, b)| (a.min(b), a.max(b)))
        .collect();
    (set, grid.grid_count())
}

/// Oracle 2: all pairs by the minimum-image box test.
fn brute_force_oracle(domain: &Domain, boxes: &[Aabb]) -> BTreeSet<(u64, u64)> {
    let period = domain.extent();
    let mut set = BTreeSet::new();
    for (i, a) in boxes.iter().enumerate() {
        for (j, b) in boxes.iter().enumerate().skip(i + 1) {
            let overlaps = (0..3).all(|k| {
                let shifts: &[f64] = if domain.periodic[k] { &[-1.0, 0.0, 1.0] } else { &[0.0] };
                shifts.iter().any(|&s| {
                    let (lo, hi) = (b.min[k] + s * period[k], b.max[k] + s * period[k]);
                    a.min[k] <= hi && lo <= a.max[k]
                })
            });
            if overlaps {
                set.insert((i as u64, j as u64));
            }
        }
    }
    set
}

/// Distributed run over 50 steps, checked against the oracles at every step (on rank 0).
fn pairs_match_the_oracles(
    world: &SimpleCommunicator,
    periodic: bool,
    slabs: bool,
) -> Result<String, String> {
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    let (domain, dims) = if slabs {
        // One slab per rank along x, barely wider than the largest object (6.6 vs 6): most
        // objects reach both neighbours, and with two ranks both sides are the same rank with
        // different periodic shifts. Same volume as the cube, so the same density.
        let cube = domain(periodic).extent();
        let x = (6.6 * size as f64).max(13.0);
        let yz = (cube.x * cube.y * cube.z / x).sqrt();
        (Domain::new(DVec3::ZERO, DVec3::new(x, yz, yz), [periodic; 3]).unwrap(), [size, 1, 1])
    } else {
        (domain(periodic), [0; 3])
    };
    let all = workload().generate(&domain, Aabb { min: domain.min, max: domain.max }, OBJECTS, 0);
    let chunk = all[rank * OBJECTS / size..(rank + 1) * OBJECTS / size].to_vec();
    let config = DistConfig { dims, ..DistConfig::new(domain, MAX_SIZE) };
    let mut grid: DistributedGrid<Motion> =
        DistributedGrid::new(world, config, chunk).map_err(|e| e.to_string())?;
    let decomp = grid.decomposition().clone();
    let mut reference: Vec<(Aabb, Motion)> = all.iter().map(|(b, m)| (wrapped(&decomp, *b), *m)).collect();
    let mut pairs = Vec::new();
    let (mut total_pairs, mut levels, mut ghosts, mut migrants) = (0usize, usize::MAX, 0usize, 0usize);
    let mut failure: Option<String> = None;
    for step in 0..=STEPS {
        if step > 0 {
            for (_, aabb, motion) in grid.owned_mut() {
                advance(&domain, aabb, motion);
            }
            for (aabb, motion) in &mut reference {
                advance(&domain, aabb, motion);
                *aabb = wrapped(&decomp, *aabb);
            }
        }
        let stats = grid.step(&mut pairs).map_err(|e| format!("step {step}: {e}"))?;
        ghosts += stats.ghosts;
        migrants += stats.migrants_sent;
        let mut owned = Vec::new();
        for (id, b, m) in grid.owned() {
            owned.push(id);
            owned.extend(b.min.to_array().iter().chain(&b.max.to_array()).chain(m).map(|x| x.to_bits()));
        }
        let owned = all_gather(world, &owned);
        let flat: Vec<u64> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
        let gathered = all_gather(world, &flat);
        let mut counters = [ghosts as u64, migrants as u64];
        world.all_reduce_into(
            &[ghosts as u64, migrants as u64][..],
            &mut counters[..],
            SystemOperation::sum(),
        );
        if rank != 0 || failure.is_some() {
            continue;
        }
        let checked = (|| {
            // No object lost or duplicated; each exactly as a single-process replay.
            let records: Vec<&[u64]> = owned.chunks_exact(13).collect();
            let ids: Vec<u64> = records.iter().map(|r| r[0]).collect();
            let distinct: BTreeSet<u64> = ids.iter().copied().collect();
            if ids.len() != OBJECTS
                || distinct.len() != OBJECTS
                || distinct.last() != Some(&(OBJECTS as u64 - 1))
            {
                return Err(format!(
                    "step {step}: {} owned objects, {} distinct ids",
                    ids.len(),
                    distinct.len()
                ));
            }
            for r in &records {
                let (b, m) = &reference[r[0] as usize];
                let expected: Vec<u64> =
                    b.min.to_array().iter().chain(&b.max.to_array()).chain(m).map(|x| x.to_bits()).collect();
                if r[1..] != expected[..] {
                    return Err(format!(
                        "step {step}: object {} differs from the single-process replay",
                        r[0]
                    ));
                }
            }
            // Pairs: none twice, the same set as both oracles.
            let list: Vec<(u64, u64)> = gathered.chunks_exact(2).map(|p| (p[0], p[1])).collect();
            let set: BTreeSet<(u64, u64)> = list.iter().copied().collect();
            if set.len() != list.len() {
                return Err(format!("step {step}: {} pairs reported more than once", list.len() - set.len()));
            }
            let boxes: Vec<Aabb> = reference.iter().map(|(b, _)| *b).collect();
            let (oracle, grid_count) = hhgrid_oracle(&domain, &boxes);
            levels = levels.min(grid_count);
            if set != oracle {
                let missing = oracle.difference(&set).take(3).collect::<Vec<_>>();
                let extra = set.difference(&oracle).take(3).collect::<Vec<_>>();
                return Err(format!(
                    "step {step}: {} pairs vs hhgrid oracle {}; missing {missing:?}, extra {extra:?}",
                    set.len(),
                    oracle.len()
                ));
            }
            if set != brute_force_oracle(&domain, &boxes) {
                return Err(format!("step {step}: pairs differ from the brute-force oracle"));
            }
            Ok(set.len())
        })();
        match checked {
            Ok(n) => total_pairs += n,
            Err(e) => failure = Some(e),
        }
        if step == STEPS {
            ghosts = counters[0] as usize;
            migrants = counters[1] as usize;
        }
    }
    if let Some(e) = failure {
        return Err(e);
    }
    if rank == 0 {
        if levels < 3 {
            return Err(format!("the objects span only {levels} hierarchy levels"));
        }
        if total_pairs < OBJECTS * STEPS {
            return Err(format!("too few pairs to be a test: {total_pairs}"));
        }
        if size > 1 && (ghosts == 0 || migrants == 0) {
            return Err(format!("no ghosts ({ghosts}) or migrants ({migrants}) over {size} ranks"));
        }
    }
    Ok(format!(
        "{} pairs over {} steps, {levels} grid levels, {ghosts} ghost-steps, {migrants} migrations",
        total_pairs,
        STEPS + 1
    ))
}

/// Every rank must end with the same error, accepted by `expected`.
fn same_error_everywhere<T>(
    world: &SimpleCommunicator,
    result: &Result<T, DistError>,
    expected: impl Fn(&DistError) -> bool,
) -> Result<String, String> {
    let words = result.as_ref().err().map_or([0u64; 6], DistError::to_words);
    let all = all_gather(world, &words);
    let first = &all[..6];
    if all.chunks_exact(6).any(|w| w != first) {
        return Err("ranks ended differently".to_owned());
    }
    if first[0] == 0 {
        return Err("no error".to_owned());
    }
    let e = DistError::from_words(first.try_into().expect("six words"));
    if expected(&e) { Ok(format!("every rank: {e}")) } else { Err(format!("unexpected error: {e}")) }
}

fn objects_on(world: &SimpleCommunicator, rank: usize, periodic: bool) -> Vec<(Aabb, Motion)> {
    if world.rank() as usize == rank {
        let domain = domain(periodic);
        workload().generate(&domain, Aabb { min: domain.min, max: domain.max }, 200, 1)
    } else {
        Vec::new()
    }
}

/// Runs two good steps, lets the owner of object 0 change it with `spoil`, steps again.
fn spoiled_step(
    world: &SimpleCommunicator,
    periodic: bool,
    spoil: impl Fn(&mut Aabb),
) -> Result<(), DistError> {
    let config = DistConfig::new(domain(periodic), MAX_SIZE);
    let mut grid = DistributedGrid::new(world, config, objects_on(world, 0, periodic))?;
    let mut pairs = Vec::new();
    grid.step(&mut pairs)?;
    grid.step(&mut pairs)?;
    for (id, aabb, _) in grid.owned_mut() {
        if id == 0 {
            spoil(aabb);
        }
    }
    grid.step(&mut pairs).map(|_| ())
}

fn bad_input_cases(world: &SimpleCommunicator) -> Vec<(String, Result<String, String>)> {
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    let last = size - 1;
    let mut out = Vec::new();
    let mut case = |name: &str, r: Result<String, String>| out.push((name.to_owned(), r));

    let config = DistConfig { dims: [size + 1, 1, 1], ..DistConfig::new(domain(true), MAX_SIZE) };
    let r = DistributedGrid::<()>::new(world, config, Vec::new());
    case(
        "dims product differs from the rank count",
        same_error_everywhere(
            world,
            &r,
            |e| matches!(e, DistError::DimsMismatch { ranks, .. } if *ranks == size),
        ),
    );

    if size > 1 {
        // The local grids' configurations must agree too, not only the decomposition's.
        let mut config = DistConfig::new(domain(true), MAX_SIZE);
        if rank == last {
            config.grid = HhGridConfig { hierarchy_factor: 3.0, ..HhGridConfig::default() };
        }
        let r = DistributedGrid::<()>::new(world, config, Vec::new());
        case(
            "one rank passes another hhgrid configuration",
            same_error_everywhere(world, &r, |e| matches!(e, DistError::InvalidConfig(_))),
        );
    }

    let small = Domain::new(DVec3::ZERO, DVec3::splat(10.0), [false; 3]).unwrap();
    let r = DistributedGrid::<()>::new(world, DistConfig::new(small, 11.0), Vec::new());
    case(
        "subdomain thinner than the largest object",
        same_error_everywhere(world, &r, |e| matches!(e, DistError::SubdomainTooThin { .. })),
    );

    let periodic_small = Domain { periodic: [true; 3], ..small };
    let r = DistributedGrid::<()>::new(
        world,
        DistConfig { dims: [1, 1, size], ..DistConfig::new(periodic_small, 5.0) },
        Vec::new(),
    );
    case(
        "periodic box too small for its period or its ranks",
        same_error_everywhere(world, &r, |e| {
            matches!(e, DistError::PeriodTooShort { .. } | DistError::SubdomainTooThin { .. })
        }),
    );

    let mut objects = objects_on(world, last, true);
    if rank == last {
        objects[5].0 = Aabb::new(DVec3::splat(1.0), DVec3::new(1.5, 8.0, 2.0)).unwrap();
    }
    let r = DistributedGrid::new(world, DistConfig::new(domain(true), MAX_SIZE), objects);
    case(
        "object larger than the reach, at creation",
        same_error_everywhere(
            world,
            &r,
            |e| matches!(e, DistError::ObjectTooLarge { id: 5, size, .. } if *size == 7.0),
        ),
    );

    let width = hhgrid_mpi::Decomposition::new(domain(true), size, [0; 3], MAX_SIZE)
        .map_or(f64::NAN, |d| d.subdomain(0).extents().min_element());
    let mut objects = objects_on(world, 0, true);
    if rank == 0 {
        objects[2].0 = Aabb::new(DVec3::ZERO, DVec3::new(1.0, width + 1.0, 1.0)).unwrap();
    }
    let r = DistributedGrid::new(world, DistConfig::new(domain(true), MAX_SIZE), objects);
    case(
        "object larger than a subdomain",
        same_error_everywhere(
            world,
            &r,
            |e| matches!(e, DistError::ObjectTooLarge { id: 2, size, .. } if *size > width),
        ),
    );

    let r = spoiled_step(world, true, |b| b.max.x = b.min.x + 6.5);
    case(
        "object growing beyond the reach during a step",
        same_error_everywhere(world, &r, |e| matches!(e, DistError::ObjectTooLarge { id: 0, .. })),
    );

    let mut objects = objects_on(world, 0, false);
    if rank == 0 {
        objects[3].0 = Aabb::new(DVec3::new(-5.0, 0.0, 0.0), DVec3::new(-4.0, 1.0, 1.0)).unwrap();
    }
    let r = DistributedGrid::new(world, DistConfig::new(domain(false), MAX_SIZE), objects);
    case(
        "object outside a bounded box, at creation",
        same_error_everywhere(world, &r, |e| matches!(e, DistError::OutsideDomain { id: 3, axis: 0, .. })),
    );

    let high = domain(false).max.z;
    let r = spoiled_step(world, false, |b| {
        let h = b.max.z - b.min.z;
        b.max.z = high + 0.5;
        b.min.z = b.max.z - h;
    });
    case(
        "object leaving a bounded box during a step",
        same_error_everywhere(world, &r, |e| matches!(e, DistError::OutsideDomain { id: 0, axis: 2, .. })),
    );

    let r = spoiled_step(world, true, |b| b.min.y = f64::NAN);
    case(
        "non-finite box",
        same_error_everywhere(world, &r, |e| matches!(e, DistError::InvalidObject { id: 0 })),
    );

    // A jump beyond the neighbours exists only when some rank is not a neighbour of another.
    let d = hhgrid_mpi::Decomposition::new(domain(false), size, [size, 1, 1], MAX_SIZE).unwrap();
    if d.neighbours(0).len() + 1 < size {
        let far = d.subdomain(last).center();
        let config = DistConfig { dims: [size, 1, 1], ..DistConfig::new(domain(false), MAX_SIZE) };
        let r = (|| {
            let mut grid = DistributedGrid::new(world, config, objects_on(world, 0, false))?;
            let mut pairs = Vec::new();
            grid.step(&mut pairs)?;
            if rank == 0
                && let Some((_, aabb, _)) = grid.owned_mut().next()
            {
                let h = 0.5 * aabb.extents();
                *aabb = Aabb { min: far - h, max: far + h };
            }
            grid.step(&mut pairs).map(|_| ())
        })();
        case(
            "object jumping beyond the neighbours",
            same_error_everywhere(
                world,
                &r,
                |e| matches!(e, DistError::MovedTooFar { from: 0, to, .. } if *to == last),
            ),
        );
    }

    if size > 1 {
        let max = if rank == last { 5.0 } else { MAX_SIZE };
        let r = DistributedGrid::<()>::new(world, DistConfig::new(domain(true), max), Vec::new());
        case(
            "ranks passing different configurations",
            same_error_everywhere(world, &r, |e| matches!(e, DistError::InvalidConfig(_))),
        );
    }
    out
}

/// An object whose longest edge is exactly the limit, straddling the periodic seam: wrapping it
/// into the box rounds both corners, and the stored box must stay acceptable at every later
/// step (it came out a few units longer, and the next step refused it).
fn objects_at_the_limit_wrap_and_stay_accepted(world: &SimpleCommunicator) -> Result<String, String> {
    let domain = Domain::new(DVec3::ZERO, DVec3::splat(30.1), [true; 3]).unwrap();
    let limit = 6.0;
    let edges = [
        Aabb::new(DVec3::new(-4.0001, 1.0, 1.0), DVec3::new(1.999_900_000_000_000_2, 2.0, 2.0)).unwrap(),
        Aabb::new(DVec3::new(27.5, 5.0, 5.0), DVec3::new(33.5, 6.0, 6.0)).unwrap(),
    ];
    if edges.iter().any(|b| b.longest_edge() != limit) {
        return Err(format!("test boxes are not at the limit: {edges:?}"));
    }
    let objects = if world.rank() == 0 { edges.map(|b| (b, ())).to_vec() } else { Vec::new() };
    let mut grid =
        DistributedGrid::new(world, DistConfig::new(domain, limit), objects).map_err(|e| e.to_string())?;
    let mut pairs = Vec::new();
    for step in 0..5 {
        grid.step(&mut pairs).map_err(|e| format!("step {step}: {e}"))?;
    }
    let stored: Vec<f64> = grid.owned().map(|(_, b, ())| b.longest_edge()).collect();
    Ok(format!("5 steps; stored edges {stored:?}"))
}

/// Two runs of the same input report, on every rank, the same pairs in the same order.
fn runs_repeat_pair_for_pair(world: &SimpleCommunicator) -> Result<String, String> {
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    let domain = domain(true);
    let all = workload().generate(&domain, Aabb { min: domain.min, max: domain.max }, OBJECTS, 0);
    let chunk = all[rank * OBJECTS / size..(rank + 1) * OBJECTS / size].to_vec();
    let run = || -> Result<Vec<Vec<(u64, u64)>>, String> {
        let mut grid: DistributedGrid<Motion> =
            DistributedGrid::new(world, DistConfig::new(domain, MAX_SIZE), chunk.clone())
                .map_err(|e| e.to_string())?;
        let (mut pairs, mut steps) = (Vec::new(), Vec::new());
        for _ in 0..10 {
            for (_, aabb, motion) in grid.owned_mut() {
                advance(&domain, aabb, motion);
            }
            grid.step(&mut pairs).map_err(|e| e.to_string())?;
            steps.push(pairs.clone());
        }
        Ok(steps)
    };
    let (first, second) = (run()?, run()?);
    match first.iter().zip(&second).position(|(a, b)| a != b) {
        Some(step) => Err(format!("step {step}: the pairs or their order differ between two runs")),
        None => Ok(format!(
            "10 steps, {} pairs on this rank, identical",
            first.iter().map(Vec::len).sum::<usize>()
        )),
    }
}

/// `dims_create` against the MPI library's own `MPI_Dims_create` (an independent oracle).
fn dims_match_the_mpi_library() -> Result<String, String> {
    let (mut identical, mut better) = (0, 0);
    for n in 1..=2000usize {
        for fixed in [[0, 0, 0], [2, 0, 0], [0, 3, 0], [0, 0, 5]] {
            let ours = hhgrid_mpi::dims_create(n, fixed);
            if !n.is_multiple_of(fixed.iter().filter(|&&d| d > 0).product::<usize>()) {
                // MPI's default error handler would abort: only ours is asked.
                if ours.is_ok() {
                    return Err(format!("n = {n}, fixed {fixed:?}: accepted {ours:?}"));
                }
                continue;
            }
            let mut theirs = fixed.map(|d| d as std::ffi::c_int);
            // SAFETY: MPI is initialised; `theirs` holds exactly `ndims` = 3 integers.
            let code = unsafe { mpi::ffi::MPI_Dims_create(n as std::ffi::c_int, 3, theirs.as_mut_ptr()) };
            let ours = ours.map_err(|e| format!("n = {n}, fixed {fixed:?}: {e}"))?;
            let theirs = theirs.map(|x| x as usize);
            if code != 0 || theirs.iter().product::<usize>() != n {
                return Err(format!("n = {n}, fixed {fixed:?}: MPI returned {theirs:?} (code {code})"));
            }
            // Implementations differ where several factorisations are "as close as possible"
            // (Open MPI 4.1 gives 10×6×6 for 360, ours 9×8×5): where they differ, ours must be
            // no less balanced, by its largest factor and by its sum (the internal faces).
            let largest = |d: [usize; 3]| (0..3).filter(|&k| fixed[k] == 0).map(|k| d[k]).max();
            let sum = |d: [usize; 3]| d.iter().sum::<usize>();
            if ours == theirs {
                identical += 1;
            } else if largest(ours) <= largest(theirs) && sum(ours) <= sum(theirs) {
                better += 1;
            } else {
                return Err(format!(
                    "n = {n}, fixed {fixed:?}: ours {ours:?} less balanced than MPI's {theirs:?}"
                ));
            }
        }
    }
    Ok(format!("{identical} factorisations identical to the MPI library's, {better} more balanced"))
}

fn main() {
    let universe = mpi::initialize().expect("MPI initialises once");
    let world = universe.world();
    let (rank, size) = (world.rank(), world.size());
    let mut results = vec![
        (
            format!("periodic box, {size} ranks: pairs = oracles"),
            pairs_match_the_oracles(&world, true, false),
        ),
        (
            format!("bounded box, {size} ranks: pairs = oracles"),
            pairs_match_the_oracles(&world, false, false),
        ),
        (
            format!("periodic slabs as thin as the largest object, {size} ranks: pairs = oracles"),
            pairs_match_the_oracles(&world, true, true),
        ),
        (
            format!("bounded slabs as thin as the largest object, {size} ranks: pairs = oracles"),
            pairs_match_the_oracles(&world, false, true),
        ),
    ];
    results.push(("dims_create against MPI_Dims_create".to_owned(), dims_match_the_mpi_library()));
    results.push((
        "objects exactly at the size limit stay accepted after wrapping".to_owned(),
        objects_at_the_limit_wrap_and_stay_accepted(&world),
    ));
    results.push((
        "two runs give the same pairs in the same order".to_owned(),
        runs_repeat_pair_for_pair(&world),
    ));
    results.extend(bad_input_cases(&world));
    let mut failed = 0u32;
    for (name, result) in &results {
        // A failure on any rank fails the case everywhere.
        let mine = u32::from(result.is_err());
        let mut any = 0u32;
        world.all_reduce_into(&mine, &mut any, SystemOperation::max());
        failed += any;
        match result {
            Err(e) => eprintln!("FAILED [rank {rank}/{size}] {name}: {e}"),
            Ok(note) if rank == 0 && any == 0 => println!("ok {name}: {note}"),
            Ok(_) if rank == 0 => println!("FAILED {name} (on another rank)"),
            Ok(_) => {}
        }
    }
    if rank == 0 {
        println!("{} of {} checks passed on {size} rank(s)", results.len() as u32 - failed, results.len());
    }
    drop(universe);
    if failed > 0 {
        std::process::exit(1);
    }
}
