//! `hhgrid-mpi-driver`: the thesis workload (random cuboids, 2 overlapping pairs per object, at
//! most 20 % of an object's size of motion per step) on any number of ranks.
//!
//! ```text
//! mpirun -n 4 hhgrid-mpi-driver --objects-per-rank 200000 --steps 20   # weak scaling
//! mpirun -n 4 hhgrid-mpi-driver --objects 400000 --steps 20            # strong scaling
//! ```
//!
//! Options: `--objects-per-rank N` (the box grows with the ranks: each rank's subdomain holds
//! `N` objects on average) or `--objects N` (a fixed cube shared by all ranks); `--steps S`
//! (measured, default 20) after `--warmup W` (default 2); `--edge-min A --edge-max B` (cuboid
//! edges uniform in `[A, B]`, default 1 and 1: unit cubes); `--pairs-per-object P` (default 2);
//! `--motion F` (default 0.2); `--bounded` (walls instead of a periodic box); `--seed S`.
//!
//! `--pingpong` instead measures point-to-point latency and bandwidth between ranks 0 and 1 (the
//! `α` and `β` of the benchmark's time model) and prints one `"pingpong"` record.
//!
//! Output on rank 0, JSON lines: one `"setup"` record, one `"step"` record per measured step with
//! per-rank arrays (owned objects, ghosts held, ghosts and bytes sent, migrants, messages, and
//! the times of migration, ghost exchange, update, detection and the whole step in seconds), and
//! a `"summary"` record (means over the measured steps). Errors go to standard error on rank 0,
//! with exit status 2 on every rank.

use geometry_core::DVec3;
use hhgrid_mpi::workload::{Motion, Workload, advance};
use hhgrid_mpi::{DistConfig, DistributedGrid, Domain, Payload, dims_create};
use mpi::traits::{Communicator, CommunicatorCollectives, Destination, Root, Source};
use std::fmt::Write;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Debug, Clone)]
struct Options {
    objects_per_rank: Option<f64>,
    objects: Option<u64>,
    steps: usize,
    warmup: usize,
    workload: Workload,
    bounded: bool,
    pingpong: bool,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        objects_per_rank: None,
        objects: None,
        steps: 20,
        warmup: 2,
        workload: Workload::thesis(),
        bounded: false,
        pingpong: false,
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        let number = |v: &String| v.parse::<f64>().map_err(|_| format!("{flag}: not a number: {v}"));
        match flag.as_str() {
            "--objects-per-rank" => o.objects_per_rank = Some(number(value()?)?),
            "--objects" => o.objects = Some(value()?.parse().map_err(|_| format!("{flag}: not a count"))?),
            "--steps" => o.steps = value()?.parse().map_err(|_| format!("{flag}: not a count"))?,
            "--warmup" => o.warmup = value()?.parse().map_err(|_| format!("{flag}: not a count"))?,
            "--edge-min" => o.workload.edge_min = number(value()?)?,
            "--edge-max" => o.workload.edge_max = number(value()?)?,
            "--pairs-per-object" => o.workload.pairs_per_object = number(value()?)?,
            "--motion" => o.workload.motion_fraction = number(value()?)?,
            "--seed" => o.workload.seed = value()?.parse().map_err(|_| format!("{flag}: not a seed"))?,
            "--bounded" => o.bounded = true,
            "--pingpong" => o.pingpong = true,
            other => return Err(format!("unknown option {other} (see the source's header for the options)")),
        }
    }
    let w = &o.workload;
    let positive = |x: f64| x.is_finite() && x > 0.0;
    if !(positive(w.edge_min) && w.edge_max >= w.edge_min && w.edge_max.is_finite()) {
        return Err("need 0 < edge-min <= edge-max".to_owned());
    }
    if !(positive(w.pairs_per_object) && w.motion_fraction.is_finite() && w.motion_fraction >= 0.0) {
        return Err("pairs-per-object must be > 0 and motion >= 0".to_owned());
    }
    match (o.objects_per_rank, o.objects) {
        _ if o.pingpong => {}
        (Some(n), None) if positive(n) => {}
        (None, Some(n)) if n > 0 => {}
        _ => return Err("give exactly one of --objects-per-rank N or --objects N (N > 0)".to_owned()),
    }
    if o.steps == 0 {
        return Err("--steps must be at least 1".to_owned());
    }
    Ok(o)
}

/// Per-rank figures gathered every step (f64 so one gather carries all).
const FIELDS: [&str; 11] = [
    "owned",
    "ghosts",
    "ghosts_sent",
    "ghost_bytes",
    "migrants_sent",
    "migration_bytes",
    "messages",
    "t_migration",
    "t_ghost_exchange",
    "t_update",
    "t_detection",
];

fn json_array(values: impl Iterator<Item = f64>) -> String {
    let items: Vec<String> = values.map(|v| format!("{v}")).collect();
    format!("[{}]", items.join(","))
}

/// Ping-pong between ranks 0 and 1: the one-way time of messages of 8 B to 4 MiB; latency is the
/// smallest message's time, bandwidth the inverse slope of a least-squares line through the
/// messages of 64 KiB and more.
fn pingpong(world: &mpi::topology::SimpleCommunicator, rank: usize) {
    let sizes = [1usize, 128, 8192, 65_536, 262_144, 524_288];
    let mut seconds = Vec::new();
    for &words in &sizes {
        let mut buffer = vec![0u64; words];
        let repeats = (2_000_000 / (words + 1000)).clamp(20, 2000);
        world.barrier();
        let started = Instant::now();
        for _ in 0..repeats {
            if rank == 0 {
                world.process_at_rank(1).send(&buffer[..]);
                world.process_at_rank(1).receive_into(&mut buffer[..]);
            } else if rank == 1 {
                world.process_at_rank(0).receive_into(&mut buffer[..]);
                world.process_at_rank(0).send(&buffer[..]);
            }
        }
        seconds.push(started.elapsed().as_secs_f64() / (2 * repeats) as f64);
    }
    if rank == 0 {
        let bytes: Vec<f64> = sizes.iter().map(|&w| 8.0 * w as f64).collect();
        let large: Vec<(f64, f64)> =
            bytes.iter().zip(&seconds).filter(|(b, _)| **b >= 65_536.0).map(|(b, t)| (*b, *t)).collect();
        let m = large.len() as f64;
        let (mb, mt) =
            (large.iter().map(|p| p.0).sum::<f64>() / m, large.iter().map(|p| p.1).sum::<f64>() / m);
        let slope = large.iter().map(|(b, t)| (b - mb) * (t - mt)).sum::<f64>()
            / large.iter().map(|(b, _)| (b - mb).powi(2)).sum::<f64>();
        let bandwidth = 1.0 / slope.max(1e-15);
        println!(
            "{{\"type\":\"pingpong\",\"bytes\":{},\"seconds\":{},\"latency\":{},\"bandwidth\":{bandwidth}}}",
            json_array(bytes.iter().copied()),
            json_array(seconds.iter().copied()),
            seconds[0],
        );
    }
}

fn main() -> ExitCode {
    let Some(universe) = mpi::initialize() else {
        eprintln!("error: MPI was already initialised");
        return ExitCode::from(2);
    };
    let world = universe.world();
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    let args: Vec<String> = std::env::args().skip(1).collect();
    let fail = |message: String| {
        if rank == 0 {
            eprintln!("error: {message}");
        }
        ExitCode::from(2)
    };
    let options = match parse(&args) {
        Ok(o) => o,
        Err(e) => return fail(e),
    };
    if options.pingpong {
        if size < 2 {
            return fail("--pingpong needs at least 2 ranks".to_owned());
        }
        pingpong(&world, rank);
        return ExitCode::SUCCESS;
    }
    let w = options.workload;

    // The box: weak scaling stacks cubic subdomains of N objects; strong scaling splits one cube.
    let (extent, dims, total) = if let Some(per_rank) = options.objects_per_rank {
        let dims = match dims_create(size, [0; 3]) {
            Ok(d) => d,
            Err(e) => return fail(e.to_string()),
        };
        let edge = w.edge_for(per_rank);
        let extent = DVec3::new(dims[0] as f64, dims[1] as f64, dims[2] as f64) * edge;
        (extent, dims, (per_rank * size as f64).round() as u64)
    } else {
        let n = options.objects.expect("checked");
        (DVec3::splat(w.edge_for(n as f64)), [0; 3], n)
    };
    let domain = match Domain::new(DVec3::ZERO, extent, [!options.bounded; 3]) {
        Ok(d) => d,
        Err(e) => return fail(e.to_string()),
    };
    // Boxes are built around their centres: rounding can make an edge a few ulps longer.
    let max_size = w.edge_max * (1.0 + 1e-9);
    let config = DistConfig { dims, ..DistConfig::new(domain, max_size) };
    let decomposition = match hhgrid_mpi::Decomposition::new(domain, size, dims, max_size) {
        Ok(d) => d,
        Err(e) => return fail(e.to_string()),
    };
    // Each rank draws the objects of its own subdomain from its own stream.
    let local = (total as usize * (rank + 1) / size) - (total as usize * rank / size);
    let objects = w.generate(&domain, decomposition.subdomain(rank), local, rank as u64);
    let setup_started = Instant::now();
    let mut grid: DistributedGrid<Motion> = match DistributedGrid::new(&world, config, objects) {
        Ok(g) => g,
        Err(e) => return fail(e.to_string()),
    };
    let setup = setup_started.elapsed().as_secs_f64();
    if rank == 0 {
        let d = grid.decomposition();
        let sub = d.subdomain(0).extents();
        println!(
            "{{\"type\":\"setup\",\"ranks\":{size},\"dims\":{:?},\"objects\":{total},\"objects_per_rank\":{},\
             \"scaling\":\"{}\",\"periodic\":{},\"domain\":{:?},\"subdomain\":{:?},\"edge_min\":{},\"edge_max\":{},\
             \"pairs_per_object\":{},\"motion\":{},\"density\":{},\"bytes_per_ghost\":64,\"bytes_per_migrant\":{},\
             \"setup_seconds\":{setup}}}",
            d.dims(),
            total as f64 / size as f64,
            if options.objects_per_rank.is_some() { "weak" } else { "strong" },
            !options.bounded,
            extent.to_array(),
            sub.to_array(),
            w.edge_min,
            w.edge_max,
            w.pairs_per_object,
            w.motion_fraction,
            w.density(),
            8 * (7 + Motion::WORDS),
        );
    }

    let mut pairs = Vec::new();
    let mut sums = vec![0.0; FIELDS.len() + 2];
    for step in 0..options.warmup + options.steps {
        for (_, aabb, motion) in grid.owned_mut() {
            advance(&domain, aabb, motion);
        }
        let started = Instant::now();
        let stats = match grid.step(&mut pairs) {
            Ok(s) => s,
            Err(e) => return fail(format!("step {step}: {e}")),
        };
        let wall = started.elapsed().as_secs_f64();
        let mine = [
            stats.owned as f64,
            stats.ghosts as f64,
            stats.ghosts_sent as f64,
            stats.ghost_bytes_sent as f64,
            stats.migrants_sent as f64,
            stats.migration_bytes_sent as f64,
            stats.messages_sent as f64,
            stats.migration,
            stats.ghost_exchange,
            stats.update,
            stats.detection,
            wall,
            stats.pairs as f64,
        ];
        let root = world.process_at_rank(0);
        if rank == 0 {
            let mut all = vec![0.0f64; mine.len() * size];
            root.gather_into_root(&mine[..], &mut all[..]);
            if step < options.warmup {
                continue;
            }
            let column = |f: usize| all.chunks_exact(mine.len()).map(move |r| r[f]);
            let mut line = format!("{{\"type\":\"step\",\"step\":{}", step - options.warmup);
            for (f, name) in FIELDS.iter().enumerate() {
                write!(line, ",\"{name}\":{}", json_array(column(f)))
                    .expect("writing to a String cannot fail");
            }
            write!(line, ",\"t_step\":{}", json_array(column(FIELDS.len())))
                .expect("writing to a String cannot fail");
            let pairs_total: f64 = column(FIELDS.len() + 1).sum();
            write!(line, ",\"pairs\":{pairs_total}}}").expect("writing to a String cannot fail");
            println!("{line}");
            for (f, sum) in sums.iter_mut().enumerate() {
                // Means over ranks, summed over steps (step time: the slowest rank).
                let c = column(f);
                *sum += if f == FIELDS.len() { c.fold(0.0, f64::max) } else { c.sum::<f64>() / size as f64 };
            }
        } else {
            root.gather_into(&mine[..]);
        }
    }
    if rank == 0 {
        let steps = options.steps as f64;
        let mut line = "{\"type\":\"summary\"".to_owned();
        for (f, name) in FIELDS.iter().enumerate() {
            write!(line, ",\"mean_{name}\":{}", sums[f] / steps).expect("writing to a String cannot fail");
        }
        write!(line, ",\"mean_t_step_max\":{}", sums[FIELDS.len()] / steps)
            .expect("writing to a String cannot fail");
        write!(line, ",\"mean_pairs_per_rank\":{}", sums[FIELDS.len() + 1] / steps)
            .expect("writing to a String cannot fail");
        println!("{line}}}");
    }
    ExitCode::SUCCESS
}
