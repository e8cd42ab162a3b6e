//! `hhgrid`: the hierarchical hash grid against all-pairs, sweep and prune, sort and sweep and
//! parry's BVH on the thesis's workload (Schornbaum 2009, §4, Figs. 20–30).
//!
//! Every scenario is a [`Workload`]: `N` random cuboids in a periodic domain sized so that there
//! are `pairs_per_object × N` overlapping pairs on average, each drifting by up to a fraction of
//! its size per step. For each scenario and `N`, every contender of the scenario runs the *same*
//! sequence of steps (the workload is generated once and cloned):
//!
//! 1. **setup**: create the structure and insert all `N` boxes (timed once: Figs. 21, 27);
//! 2. the first `find_pairs`, then a few warm-up steps;
//! 3. measured **steps**: the workload moves every object and lists the moved objects'
//!    handles and boxes (not timed), then `broad.update_many(&moved)` (the trait's loop of
//!    `update`, or the structure's own batch update) and one `find_pairs` (timed, as update and
//!    detection separately and together). Steps are grouped into samples; the report gives the
//!    median (and minimum) time per step over the samples, and divides by `N` for
//!    "ns per object and step".
//!
//! Every detection's pair count is recorded, and each contender must report the same count as
//! the scenario's reference (the default hierarchical hash grid) at every step both measured, plus
//! the same pair *set* (an order-independent fingerprint over object indices) at the first and
//! the last detection. A difference is an error note.
//!
//! Contenders whose cost grows quadratically (all-pairs, incremental sweep and prune's `O(N²)`
//! setup, and any contender whose measured cost grows that way) are skipped at sizes where their
//! predicted time exceeds the mode's budget; the notes say where.

use super::{Suite, SuiteContext, sweep};
use crate::BenchError;
use crate::broadphase::{
    IncrementalSap, Motion, ParryBvh, Sizes, SortAndSweep, Workload, WorkloadConfig, release_free_memory,
    resident_bytes,
};
use crate::report::format::{count, duration, significant};
use crate::report::{LogLogPlot, Mode, Record, Report, Series, Table};
use crate::timing::Timing;
use ::hhgrid::{BaseCellSize, HhGridConfig, HierarchicalHashGrid, UpdateStrategy};
use contact_core::{AllPairs, BroadPhase};
use geometry_core::{Aabb, DVec3};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::Hash;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

/// The hhgrid suite (see the [module documentation](self)).
#[derive(Debug, Clone, Copy, Default)]
pub struct HhGrid;

const NAME: &str = "hhgrid";
/// The contender all ratios are taken against.
const PARRY: &str = "parry3d-bvh";
const PARRY_REINSERT: &str = "parry3d-bvh[reinsert]";
const SAP: &str = "incremental-sap";
const HHGRID: &str = "hhgrid";
/// Seed of every workload (the object count is mixed in).
const SEED: u64 = 0x5c40_2009;

/// A hierarchical hash grid configuration measured by the suite.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HhVariant {
    /// `HhGridConfig::default()` (hierarchy factor 2, incremental updates).
    Default,
    /// `HhGridConfig::thesis()`: the thesis's exact parameters (16 reserved slots per cell).
    Thesis,
    /// The default with another hierarchy factor (Figs. 23, 24).
    Factor(f64),
    /// The default with `UpdateStrategy::ClearAndReinsert` (Fig. 25).
    ClearAndReinsert,
    /// The default without incremental detection (`incremental_share: 0`): Algorithm 4 over
    /// everything at every detection.
    FullDetection,
}

impl HhVariant {
    /// The configuration.
    pub fn config(self) -> HhGridConfig {
        match self {
            HhVariant::Default => HhGridConfig::default(),
            HhVariant::Thesis => HhGridConfig::thesis(),
            HhVariant::Factor(f) => HhGridConfig { hierarchy_factor: f, ..HhGridConfig::default() },
            HhVariant::ClearAndReinsert => {
                HhGridConfig { update_strategy: UpdateStrategy::ClearAndReinsert, ..HhGridConfig::default() }
            }
            HhVariant::FullDetection => HhGridConfig { incremental_share: 0.0, ..HhGridConfig::default() },
        }
    }
}

/// A broad phase measured by the suite.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Contender {
    /// `hhgrid::HierarchicalHashGrid` in one configuration.
    HhGrid(HhVariant),
    /// `contact_core::AllPairs`: the brute-force `O(N²)` test.
    AllPairs,
    /// [`IncrementalSap`]: the thesis's sweep and prune.
    IncrementalSap,
    /// [`SortAndSweep`]: stateless radix sort and sweep.
    SortAndSweep,
    /// [`ParryBvh`]: parry3d's BVH, driven as rapier drives it.
    ParryBvh,
    /// [`ParryBvh::with_jump_reinsertion`]: the same, reinserting leaves that jumped (wrapped).
    ParryBvhReinsert,
}

impl Contender {
    /// The name used in records, tables and plots, e.g. `hhgrid[f=1.5]`.
    pub fn id(self) -> String {
        match self {
            Contender::HhGrid(HhVariant::Default) => HHGRID.to_owned(),
            Contender::HhGrid(HhVariant::Thesis) => "hhgrid[thesis]".to_owned(),
            Contender::HhGrid(HhVariant::Factor(f)) => format!("hhgrid[f={f}]"),
            Contender::HhGrid(HhVariant::ClearAndReinsert) => "hhgrid[clear-reinsert]".to_owned(),
            Contender::HhGrid(HhVariant::FullDetection) => "hhgrid[full-detection]".to_owned(),
            Contender::AllPairs => "all-pairs".to_owned(),
            Contender::IncrementalSap => SAP.to_owned(),
            Contender::SortAndSweep => "sort-and-sweep".to_owned(),
            Contender::ParryBvh => PARRY.to_owned(),
            Contender::ParryBvhReinsert => PARRY_REINSERT.to_owned(),
        }
    }

    /// The least exponents `(setup, step)` of the cost growth with `N` assumed when predicting
    /// the time at a larger size (measured growth takes over when steeper).
    fn assumed_growth(self) -> (f64, f64) {
        match self {
            Contender::AllPairs => (1.0, 2.0),
            Contender::IncrementalSap => (2.0, 1.0),
            _ => (1.0, 1.0),
        }
    }
}

/// One workload of the sweep, with the contenders measured on it.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// Short name, e.g. `cubes-20`.
    pub id: &'static str,
    /// What it is, for the tables.
    pub title: &'static str,
    /// The thesis figures it reproduces.
    pub figures: &'static str,
    /// Size distribution.
    pub sizes: Sizes,
    /// Mean overlapping pairs per object.
    pub pairs_per_object: f64,
    /// Motion model.
    pub motion: Motion,
    /// Relative domain edges.
    pub domain_aspect: [f64; 3],
    /// Size factor applied after calibration.
    pub size_scale: f64,
    /// The contenders; the first is the reference for the pair-count check.
    pub contenders: Vec<Contender>,
}

impl Scenario {
    /// The workload parameters for `objects` objects.
    pub fn workload(&self, objects: usize) -> WorkloadConfig {
        WorkloadConfig {
            objects,
            sizes: self.sizes,
            pairs_per_object: self.pairs_per_object,
            motion: self.motion,
            domain_aspect: self.domain_aspect,
            size_scale: self.size_scale,
            seed: SEED ^ objects as u64,
        }
    }

    fn parameters(&self, objects: usize) -> BTreeMap<String, Value> {
        let sizes = match self.sizes {
            Sizes::Cubes => "cubes".to_owned(),
            Sizes::Varying { ratio } => format!("varying x{ratio}"),
            Sizes::Elongated { aspect } => format!("{aspect}x1x1"),
        };
        let motion = match self.motion {
            Motion::Drift { fraction } => json!(fraction),
            Motion::Teleport => json!("teleport"),
            Motion::Sparse { moving, fraction } => json!({ "moving": moving, "fraction": fraction }),
        };
        BTreeMap::from([
            ("scenario".to_owned(), json!(self.id)),
            ("figures".to_owned(), json!(self.figures)),
            ("objects".to_owned(), json!(objects)),
            ("sizes".to_owned(), json!(sizes)),
            ("pairs_per_object".to_owned(), json!(self.pairs_per_object)),
            ("motion".to_owned(), motion),
            ("domain_aspect".to_owned(), json!(self.domain_aspect)),
            ("size_scale".to_owned(), json!(self.size_scale)),
        ])
    }
}

/// The scenarios of the thesis's §4, in the order they are measured.
pub fn scenarios() -> Vec<Scenario> {
    use Contender as C;
    use HhVariant as V;
    let thesis = Scenario {
        id: "cubes-20",
        title: "equal cubes, 2 pairs/object, 20 % motion",
        figures: "20, 21, 22, 23, 25, 27, 28",
        sizes: Sizes::Cubes,
        pairs_per_object: 2.0,
        motion: Motion::Drift { fraction: 0.2 },
        domain_aspect: [1.0; 3],
        size_scale: 1.0,
        contenders: vec![
            C::HhGrid(V::Default),
            C::HhGrid(V::Thesis),
            C::HhGrid(V::Factor(1.5)),
            C::HhGrid(V::Factor(3.0)),
            C::HhGrid(V::Factor(4.0)),
            C::HhGrid(V::ClearAndReinsert),
            C::AllPairs,
            C::IncrementalSap,
            C::SortAndSweep,
            C::ParryBvh,
            C::ParryBvhReinsert,
        ],
    };
    let peers = vec![C::HhGrid(V::Default), C::SortAndSweep, C::ParryBvh, C::ParryBvhReinsert];
    vec![
        thesis.clone(),
        Scenario {
            id: "sizes12-20",
            title: "cubes with edges uniform in [1, 12], 2 pairs/object, 20 % motion",
            figures: "20, 21, 22, 24",
            sizes: Sizes::Varying { ratio: 12.0 },
            contenders: vec![
                C::HhGrid(V::Default),
                C::HhGrid(V::Thesis),
                C::HhGrid(V::Factor(1.5)),
                C::HhGrid(V::Factor(3.0)),
                C::HhGrid(V::Factor(4.0)),
                C::AllPairs,
                C::SortAndSweep,
                C::ParryBvh,
                C::ParryBvhReinsert,
            ],
            ..thesis.clone()
        },
        Scenario {
            id: "cubes-dense",
            title: "equal cubes, 8 pairs/object, 20 % motion",
            figures: "22",
            pairs_per_object: 8.0,
            contenders: peers.clone(),
            ..thesis.clone()
        },
        Scenario {
            id: "sizes12-dense",
            title: "cubes with edges uniform in [1, 12], 8 pairs/object, 20 % motion",
            figures: "22",
            sizes: Sizes::Varying { ratio: 12.0 },
            pairs_per_object: 8.0,
            contenders: peers.clone(),
            ..thesis.clone()
        },
        Scenario {
            id: "teleport",
            title: "equal cubes, 2 pairs/object, every object to a random place each step",
            figures: "25",
            motion: Motion::Teleport,
            contenders: vec![
                C::HhGrid(V::Default),
                C::HhGrid(V::ClearAndReinsert),
                C::SortAndSweep,
                C::ParryBvh,
                C::ParryBvhReinsert,
            ],
            ..thesis.clone()
        },
        Scenario {
            id: "elongated",
            title: "10 x 1 x 1 bars (random axis), 2 pairs/object, 20 % motion",
            figures: "26",
            sizes: Sizes::Elongated { aspect: 10.0 },
            contenders: peers.clone(),
            ..thesis.clone()
        },
        Scenario {
            id: "anisotropic",
            title: "equal cubes in a 1024 : 1 : 1 domain, 2 pairs/object, 20 % motion",
            figures: "26",
            domain_aspect: [1024.0, 1.0, 1.0],
            contenders: peers,
            ..thesis.clone()
        },
        Scenario {
            id: "cubes-1",
            title: "equal cubes, 2 pairs/object, 1 % motion",
            figures: "29",
            motion: Motion::Drift { fraction: 0.01 },
            contenders: vec![
                C::HhGrid(V::Default),
                C::AllPairs,
                C::IncrementalSap,
                C::SortAndSweep,
                C::ParryBvh,
                C::ParryBvhReinsert,
            ],
            ..thesis.clone()
        },
        Scenario {
            id: "no-collisions",
            title: "cubes-1 with every size x 1e-5 (no overlaps), 1 % motion",
            figures: "30",
            motion: Motion::Drift { fraction: 0.01 },
            size_scale: 1e-5,
            contenders: vec![
                C::HhGrid(V::Default),
                C::AllPairs,
                C::IncrementalSap,
                C::SortAndSweep,
                C::ParryBvh,
                C::ParryBvhReinsert,
            ],
            ..thesis.clone()
        },
        Scenario {
            id: "resting-95",
            title: "equal cubes, 2 pairs/object, 5 % of the objects move by 2 % of their size per step, \
                    the others rest (only the movers are updated)",
            figures: "beyond the thesis",
            motion: Motion::Sparse { moving: 0.05, fraction: 0.02 },
            contenders: vec![
                C::HhGrid(V::Default),
                C::HhGrid(V::FullDetection),
                C::IncrementalSap,
                C::SortAndSweep,
                C::ParryBvh,
                C::ParryBvhReinsert,
            ],
            ..thesis
        },
    ]
}

/// How many steps to run and how long to spend on one contender.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepPlan {
    /// Untimed steps after the first detection.
    pub warmup: usize,
    /// Timed steps planned for `N` objects: `clamp(object_steps / N, min_steps, max_steps)`.
    pub object_steps: usize,
    /// Lower bound of the planned steps.
    pub min_steps: usize,
    /// Upper bound of the planned steps.
    pub max_steps: usize,
    /// The timed steps are split into this many samples (groups of consecutive steps).
    pub samples: usize,
    /// At least this many samples are taken, even past the budget.
    pub min_samples: usize,
    /// Stop sampling once this much time was spent on the timed steps.
    pub budget: Duration,
    /// Skip a contender at a size where its predicted total time exceeds this.
    pub case_budget: Duration,
}

impl StepPlan {
    /// The plan for a mode (within the mode's timing configuration).
    pub fn for_context(ctx: &SuiteContext) -> Self {
        let t = &ctx.timing;
        match ctx.mode {
            Mode::Quick => Self {
                warmup: 10,
                object_steps: 200_000,
                min_steps: 6,
                max_steps: 60,
                samples: t.samples,
                min_samples: t.min_samples,
                budget: t.max_total_time.min(Duration::from_millis(400)),
                case_budget: Duration::from_secs(3),
            },
            Mode::Full => Self {
                warmup: 10,
                object_steps: 2_000_000,
                min_steps: 5,
                max_steps: 200,
                samples: t.samples,
                min_samples: t.min_samples,
                budget: t.max_total_time.min(Duration::from_secs(8)),
                case_budget: Duration::from_secs(40),
            },
        }
    }

    /// Timed steps planned for `objects` objects.
    pub fn steps(&self, objects: usize) -> usize {
        (self.object_steps / objects.max(1)).clamp(self.min_steps, self.max_steps)
    }
}

/// The object counts of the sweep.
pub fn sizes_for(mode: Mode) -> Vec<usize> {
    match mode {
        Mode::Quick => vec![100, 300, 1_000, 3_000, 10_000],
        Mode::Full => vec![100, 300, 1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000],
    }
}

/// What one contender did on one scenario and size.
#[derive(Debug, Clone)]
struct Measurement {
    contender: Contender,
    /// Creating the structure and inserting every object, seconds.
    setup: f64,
    /// The first `find_pairs` after the setup, seconds.
    first_detection: f64,
    /// Update + detection per step.
    step: Timing,
    /// Update + detection per step, averaged over every timed step (what a long run pays; where
    /// some steps cost much more than others, the median over samples of single steps can land
    /// on either kind).
    mean_step: f64,
    /// Median over the samples of the update time per step.
    update: f64,
    /// Median over the samples of the detection time per step.
    detect: f64,
    /// Timed steps.
    steps: usize,
    /// Pair count of every detection: the first, the warm-up steps, the timed steps.
    pair_counts: Vec<usize>,
    /// Order-independent fingerprints of the pair sets of the first and the last detection.
    fingerprints: (u64, u64),
    /// `grid_count()` after the run (hierarchical hash grids only).
    grids: Option<usize>,
    /// The structure's own memory accounting after the run, bytes.
    bytes: Option<usize>,
}

/// SplitMix64's finaliser: mixes a pair key into a well-spread word.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A fingerprint of a pair set over object indices, independent of order and orientation.
fn fingerprint<H: Hash + Eq>(pairs: &[(H, H)], index: &HashMap<H, u32>) -> u64 {
    pairs.iter().fold(0u64, |acc, (a, b)| {
        let (a, b) = (index[a], index[b]);
        acc.wrapping_add(mix(u64::from(a.min(b)) << 32 | u64::from(a.max(b))))
    })
}

/// Runs one contender on a clone of `workload` (see the module documentation).
fn run_contender<B: BroadPhase>(
    make: impl FnOnce() -> Result<B, String>,
    workload: &Workload,
    plan: &StepPlan,
    inspect: impl Fn(&B) -> (Option<usize>, Option<usize>),
) -> Result<Measurement, String> {
    let mut w = workload.clone();
    let n = w.boxes().len();
    let err = |e: B::Error| e.to_string();

    let t = Instant::now();
    let mut broad = make()?;
    let mut handles = Vec::with_capacity(n);
    for b in w.boxes() {
        handles.push(broad.insert(*b).map_err(err)?);
    }
    let setup = t.elapsed().as_secs_f64();
    let index: HashMap<B::Handle, u32> = handles.iter().enumerate().map(|(i, h)| (*h, i as u32)).collect();

    let mut pairs = Vec::new();
    let t = Instant::now();
    broad.find_pairs(&mut pairs);
    let first_detection = t.elapsed().as_secs_f64();
    let mut batch = Vec::new();
    let mut pair_counts = vec![pairs.len()];
    let first_fingerprint = fingerprint(&pairs, &index);

    for _ in 0..plan.warmup {
        w.step();
        moved_boxes(&handles, &w, &mut batch);
        broad.update_many(&batch).map_err(err)?;
        broad.find_pairs(&mut pairs);
        pair_counts.push(pairs.len());
    }

    let steps = plan.steps(n);
    let samples = plan.samples.clamp(1, steps);
    let group = steps.div_ceil(samples);
    let (mut totals, mut updates, mut detects) = (Vec::new(), Vec::new(), Vec::new());
    let mut timed_total = 0.0;
    let timed = Instant::now();
    let mut done = 0;
    while totals.len() < samples {
        let (mut update, mut detect) = (0.0, 0.0);
        for _ in 0..group {
            w.step();
            moved_boxes(&handles, &w, &mut batch);
            let t0 = Instant::now();
            broad.update_many(&batch).map_err(err)?;
            let t1 = Instant::now();
            broad.find_pairs(&mut pairs);
            let t2 = Instant::now();
            update += (t1 - t0).as_secs_f64();
            detect += (t2 - t1).as_secs_f64();
            pair_counts.push(pairs.len());
        }
        done += group;
        timed_total += update + detect;
        totals.push((update + detect) / group as f64);
        updates.push(update / group as f64);
        detects.push(detect / group as f64);
        if totals.len() >= plan.min_samples.max(1) && timed.elapsed() >= plan.budget {
            break;
        }
    }
    let median = |v: &[f64]| Timing::from_samples(v, group).map_or(f64::NAN, |t| t.median);
    let (grids, bytes) = inspect(&broad);
    Ok(Measurement {
        contender: Contender::AllPairs, // set by the caller
        setup,
        first_detection,
        step: Timing::from_samples(&totals, group).expect("at least one sample"),
        mean_step: timed_total / done as f64,
        update: median(&updates),
        detect: median(&detects),
        steps: done,
        pair_counts,
        fingerprints: (first_fingerprint, fingerprint(&pairs, &index)),
        grids,
        bytes,
    })
}

/// Fills `batch` with the handles and new boxes of the objects the workload's last step moved:
/// every object, or under sparse motion only the movers (a simulation does not update resting
/// bodies). Not timed: a simulation has its bodies' boxes at hand, in the order it keeps them.
fn moved_boxes<H: Copy>(handles: &[H], w: &Workload, batch: &mut Vec<(H, Aabb)>) {
    let boxes = w.boxes();
    batch.clear();
    match w.moved() {
        Some(movers) => batch.extend(movers.iter().map(|&i| (handles[i], boxes[i]))),
        None => batch.extend(handles.iter().copied().zip(boxes.iter().copied())),
    }
}

fn measure(contender: Contender, workload: &Workload, plan: &StepPlan) -> Result<Measurement, String> {
    let m = match contender {
        Contender::HhGrid(variant) => run_contender(
            || HierarchicalHashGrid::new(variant.config()).map_err(|e| e.to_string()),
            workload,
            plan,
            |g| (Some(g.grid_count()), Some(g.memory_usage().total_bytes)),
        ),
        Contender::AllPairs => run_contender(|| Ok(AllPairs::new()), workload, plan, |_| (None, None)),
        Contender::IncrementalSap => {
            run_contender(|| Ok(IncrementalSap::new()), workload, plan, |s| (None, Some(s.heap_bytes())))
        }
        Contender::SortAndSweep => {
            run_contender(|| Ok(SortAndSweep::new()), workload, plan, |s| (None, Some(s.heap_bytes())))
        }
        Contender::ParryBvh => {
            run_contender(|| Ok(ParryBvh::new()), workload, plan, |s| (None, Some(s.heap_bytes())))
        }
        Contender::ParryBvhReinsert => run_contender(
            || Ok(ParryBvh::with_jump_reinsertion()),
            workload,
            plan,
            |s| (None, Some(s.heap_bytes())),
        ),
    };
    m.map(|m| Measurement { contender, ..m })
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic payload".to_owned())
}

/// Everything measured on one scenario at one size.
#[derive(Debug, Clone)]
struct CaseResult {
    scenario: usize,
    objects: usize,
    domain: [f64; 3],
    expected_pairs: f64,
    measurements: Vec<Measurement>,
    /// Contenders that failed (error or panic), with the reason.
    failures: Vec<String>,
}

impl CaseResult {
    fn get(&self, contender: &str) -> Option<&Measurement> {
        self.measurements.iter().find(|m| m.contender.id() == contender)
    }
}

/// What the size caps remember of one run.
#[derive(Debug, Clone, Copy)]
struct Observed {
    objects: usize,
    setup: f64,
    /// The larger of the median step and the first detection, seconds.
    step: f64,
}

/// The size-cap bookkeeping: what was measured per scenario and contender, and which stopped.
#[derive(Debug, Default)]
struct Caps {
    history: HashMap<(usize, String), Vec<Observed>>,
    stopped: HashSet<(usize, String)>,
    skipped: Vec<String>,
}

impl Caps {
    /// The predicted wall time of `contender` at `objects` on scenario `s` under `plan`: setup
    /// and step time extrapolated with the steeper of the assumed and the last measured growth
    /// exponents (within 1–2), times the steps the plan would run. `None` before any
    /// measurement.
    fn predict(&self, s: usize, contender: Contender, objects: usize, plan: &StepPlan) -> Option<f64> {
        let h = self.history.get(&(s, contender.id()))?;
        let last = *h.last()?;
        let (setup_growth, step_growth) = contender.assumed_growth();
        let growth = |value: fn(&Observed) -> f64, assumed: f64| match h.len() {
            0 | 1 => assumed,
            len => {
                let (a, b) = (h[len - 2], h[len - 1]);
                let measured = (value(&b) / value(&a)).ln() / (b.objects as f64 / a.objects as f64).ln();
                if measured.is_finite() { measured.clamp(1.0, 2.0).max(assumed) } else { assumed }
            }
        };
        let r = objects as f64 / last.objects as f64;
        let setup = last.setup * r.powf(growth(|o| o.setup, setup_growth));
        let step = last.step * r.powf(growth(|o| o.step, step_growth));
        let steps = plan.steps(objects);
        let group = steps.div_ceil(plan.samples.clamp(1, steps));
        let within_budget = (plan.budget.as_secs_f64() / step).ceil() as usize;
        let timed = steps.min(within_budget.max(plan.min_samples * group));
        Some(setup + step * (1 + plan.warmup + timed) as f64)
    }

    /// Whether `contender` may run at `objects` on scenario `s` (`scenario` names it in the note).
    fn allows(
        &mut self,
        s: usize,
        scenario: &str,
        contender: Contender,
        objects: usize,
        plan: &StepPlan,
    ) -> bool {
        let key = (s, contender.id());
        if self.stopped.contains(&key) {
            return false;
        }
        let Some(predicted) = self.predict(s, contender, objects, plan) else { return true };
        if predicted <= plan.case_budget.as_secs_f64() {
            return true;
        }
        let last = self.history[&key].last().map_or(0, |o| o.objects);
        self.skipped.push(format!(
            "`{}` on `{scenario}` stops at N = {} (predicted {} at N = {}, budget {})",
            contender.id(),
            count(last),
            duration(predicted),
            count(objects),
            duration(plan.case_budget.as_secs_f64())
        ));
        self.stopped.insert(key);
        false
    }

    fn record(&mut self, s: usize, m: &Measurement, objects: usize) {
        let observed = Observed {
            objects,
            setup: m.setup.max(1e-9),
            step: m.step.median.max(m.first_detection).max(1e-9),
        };
        self.history.entry((s, m.contender.id())).or_default().push(observed);
    }
}

/// Measures every scenario at every size in `objects` (the sweep), returning the successful cases.
fn measure_all(
    report: &mut Report,
    scenarios: &[Scenario],
    objects: &[usize],
    plan: &StepPlan,
) -> Vec<CaseResult> {
    let cases: Vec<(usize, usize)> =
        (0..scenarios.len()).flat_map(|s| objects.iter().map(move |&n| (s, n))).collect();
    let mut caps = Caps::default();
    let results = sweep(
        report,
        &cases,
        |&(s, n)| format!("{}/N={n}", scenarios[s].id),
        |&(s, n)| {
            let scenario = &scenarios[s];
            let workload = Workload::new(scenario.workload(n)).map_err(|e| e.to_string())?;
            let mut result = CaseResult {
                scenario: s,
                objects: n,
                domain: workload.domain().to_array(),
                expected_pairs: workload.expected_pairs(),
                measurements: Vec::new(),
                failures: Vec::new(),
            };
            for (i, &contender) in scenario.contenders.iter().enumerate() {
                // The reference (first) contender always runs.
                if i > 0 && !caps.allows(s, scenario.id, contender, n, plan) {
                    continue;
                }
                match catch_unwind(AssertUnwindSafe(|| measure(contender, &workload, plan))) {
                    Ok(Ok(m)) => {
                        caps.record(s, &m, n);
                        result.measurements.push(m);
                    }
                    Ok(Err(e)) => result.failures.push(format!("`{}`: {e}", contender.id())),
                    Err(p) => result.failures.push(format!(
                        "`{}` panicked: {}",
                        contender.id(),
                        panic_text(p.as_ref())
                    )),
                }
            }
            Ok(result)
        },
    );
    for text in caps.skipped {
        report.info(text);
    }
    results
}

/// One row of the memory table.
#[derive(Debug, Clone)]
struct MemoryRow {
    objects: usize,
    contender: Contender,
    /// The structure's own accounting, bytes.
    accounted: Option<usize>,
    /// The part of `accounted` that is a reusable workspace (hhgrid's detection snapshot).
    workspace: Option<usize>,
    /// Growth of the resident set while building (minus the caller's buffers), bytes.
    rss_delta: Option<i64>,
    /// What had been done when the memory was measured.
    after: &'static str,
}

/// What [`memory_of`] does after updating every object: a detection, or part of one.
type StepFn<B> = fn(&mut B, &mut PairBuffer<B>);
type PairBuffer<B> = Vec<(<B as BroadPhase>::Handle, <B as BroadPhase>::Handle)>;

/// Builds a structure from `workload`'s boxes, updates every object to the next step's box
/// (when `step` is given) and calls `step`, then returns the structure's own memory count and
/// the growth of the resident set.
fn memory_of<B: BroadPhase>(
    make: impl FnOnce() -> Result<B, String>,
    workload: &Workload,
    step: Option<StepFn<B>>,
    accounted: impl Fn(&B) -> OwnCount,
) -> Result<(OwnCount, Option<i64>), String> {
    let mut w = workload.clone();
    release_free_memory();
    let before = resident_bytes();
    let mut broad = make()?;
    let mut handles = Vec::with_capacity(w.boxes().len());
    for b in w.boxes() {
        handles.push(broad.insert(*b).map_err(|e| e.to_string())?);
    }
    let mut pairs = Vec::new();
    if let Some(step) = step {
        for (h, b) in handles.iter().zip(w.step()) {
            broad.update(*h, *b).map_err(|e| e.to_string())?;
        }
        step(&mut broad, &mut pairs);
    }
    let after = resident_bytes();
    let callers =
        handles.capacity() * size_of::<B::Handle>() + pairs.len() * size_of::<(B::Handle, B::Handle)>();
    let delta = before.zip(after).map(|(b, a)| a as i64 - b as i64 - callers as i64);
    Ok((accounted(&broad), delta))
}

/// A structure's own count of its bytes, and the part of it that is a reusable workspace.
type OwnCount = (Option<usize>, Option<usize>);

const AFTER_STEP: &str = "setup + one step";

fn detect<B: BroadPhase>(broad: &mut B, pairs: &mut PairBuffer<B>) {
    broad.find_pairs(pairs);
}

fn sort_only(sweep: &mut SortAndSweep, _: &mut PairBuffer<SortAndSweep>) {
    sweep.sort();
}

/// Memory at large sizes on the thesis scenario: each structure built (and stepped once) in turn.
fn measure_memory(report: &mut Report, objects: &[usize]) -> Vec<MemoryRow> {
    let contenders = [
        Contender::HhGrid(HhVariant::Default),
        Contender::ParryBvh,
        Contender::SortAndSweep,
        Contender::AllPairs,
    ];
    let cases: Vec<(usize, Contender)> =
        objects.iter().flat_map(|&n| contenders.iter().map(move |&c| (n, c))).collect();
    let thesis = &scenarios()[0];
    let mut workloads: HashMap<usize, Workload> = HashMap::new();
    sweep(
        report,
        &cases,
        |(n, c)| format!("memory/{}/N={n}", c.id()),
        |&(n, contender)| {
            if !workloads.contains_key(&n) {
                workloads.clear();
                workloads.insert(n, Workload::new(thesis.workload(n)).map_err(|e| e.to_string())?);
            }
            let w = &workloads[&n];
            let (((accounted, workspace), rss_delta), after) = match contender {
                Contender::HhGrid(v) => (
                    memory_of(
                        || HierarchicalHashGrid::new(v.config()).map_err(|e| e.to_string()),
                        w,
                        Some(detect::<HierarchicalHashGrid>),
                        |g| {
                            let m = g.memory_usage();
                            (Some(m.total_bytes), Some(m.workspace_bytes))
                        },
                    )?,
                    AFTER_STEP,
                ),
                Contender::ParryBvh => (
                    memory_of(
                        || Ok(ParryBvh::new()),
                        w,
                        Some(detect::<ParryBvh>),
                        |b| (Some(b.heap_bytes()), None),
                    )?,
                    AFTER_STEP,
                ),
                Contender::ParryBvhReinsert => (
                    memory_of(
                        || Ok(ParryBvh::with_jump_reinsertion()),
                        w,
                        Some(detect::<ParryBvh>),
                        |b| (Some(b.heap_bytes()), None),
                    )?,
                    AFTER_STEP,
                ),
                // The sweep itself allocates nothing but the output, and takes O(N^{5/3}).
                Contender::SortAndSweep => (
                    memory_of(
                        || Ok(SortAndSweep::new()),
                        w,
                        Some(sort_only),
                        |s| (Some(s.heap_bytes()), None),
                    )?,
                    "setup + one update and sort (no sweep)",
                ),
                Contender::IncrementalSap => (
                    memory_of(
                        || Ok(IncrementalSap::new()),
                        w,
                        Some(detect::<IncrementalSap>),
                        |s| (Some(s.heap_bytes()), None),
                    )?,
                    AFTER_STEP,
                ),
                // Detection is O(N²) and allocates only a temporary list of the live boxes.
                Contender::AllPairs => {
                    (memory_of(|| Ok(AllPairs::new()), w, None, |_| (None, None))?, "setup")
                }
            };
            Ok(MemoryRow { objects: n, contender, accounted, workspace, rss_delta, after })
        },
    )
}

impl Suite for HhGrid {
    fn name(&self) -> &'static str {
        NAME
    }

    fn description(&self) -> &'static str {
        "hierarchical hash grid vs all-pairs, incremental sweep and prune, sort and sweep and parry's BVH on the thesis workloads (Schornbaum 2009 Figs. 20-30)"
    }

    fn run(&self, ctx: &SuiteContext) -> Result<Report, BenchError> {
        let mut report = ctx.report(self, "hhgrid: hierarchical hash grid broad phase (Schornbaum 2009, §4)");
        let plan = StepPlan::for_context(ctx);
        introduction(&mut report, &plan);
        let memory = measure_memory(&mut report, &[100_000, 1_000_000]);
        let scenarios = scenarios();
        let results = measure_all(&mut report, &scenarios, &sizes_for(ctx.mode), &plan);
        add_results(&mut report, &scenarios, &results, &memory);
        base_cell_section(&mut report, if ctx.mode == Mode::Quick { 20_000 } else { 100_000 });
        let parallel_sizes: &[usize] =
            if ctx.mode == Mode::Quick { &[10_000, 100_000] } else { &[10_000, 100_000, 1_000_000] };
        parallel_section(&mut report, &scenarios, parallel_sizes);
        targets_section(&mut report);
        Ok(report)
    }
}

/// The targets against this run's records, as the report's first section.
fn targets_section(report: &mut Report) {
    let value = |case: &str, implementation: &str, metric: &str| {
        report
            .records
            .iter()
            .find(|r| r.case == case && r.implementation == implementation && r.metric == metric)
            .map(|r| r.value)
    };
    let objects = |r: &Record| r.parameters.get("objects").and_then(Value::as_u64).unwrap_or(0) as usize;
    let verdict = |met: bool| if met { "met" } else { "**not met**" }.to_owned();
    let mut table = Table::new(vec!["target".to_owned(), "measured".to_owned(), "verdict".to_owned()]);
    for (n, limit) in [(10_000usize, 40.0), (1_000_000, 60.0)] {
        let target = format!("update + detection ≤ {limit} ns per object at N = {}, equal cubes", count(n));
        let row = match value(&format!("cubes-20/N={n}"), "hhgrid", "step_time_per_object_median") {
            Some(v) => vec![target, format!("{} ns", significant(v * 1e9, 3)), verdict(v * 1e9 <= limit)],
            None => vec![target, "not measured in this mode".to_owned(), "–".to_owned()],
        };
        table.push_row(row);
    }
    let mut resting: Vec<(usize, f64, f64)> = report
        .records
        .iter()
        .filter(|r| {
            r.case.starts_with("resting-95/")
                && r.implementation == "hhgrid"
                && r.metric == "step_time_per_object_median"
        })
        .filter_map(|r| {
            let n = objects(r);
            let mean = value(&r.case, "hhgrid", "step_time_mean")?;
            Some((n, r.value * 1e9, mean / n as f64 * 1e9))
        })
        .collect();
    resting.sort_by_key(|&(n, _, _)| n);
    for (label, pick) in [
        ("median", (|&(_, m, _): &(usize, f64, f64)| m) as fn(&(usize, f64, f64)) -> f64),
        ("mean", |&(_, _, m)| m),
    ] {
        let Some(&largest) = resting.last() else { break };
        let above: Vec<String> = resting.iter().filter(|c| pick(c) > 10.0).map(|c| count(c.0)).collect();
        let note = if above.is_empty() {
            String::new()
        } else {
            format!(" (above 10 ns at N = {})", above.join(", "))
        };
        table.push_row(vec![
            format!("resting scene (5 % move by 2 %): ≤ 10 ns per object, {label} over the timed steps"),
            format!("{} ns at N = {}{note}", significant(pick(&largest), 3), count(largest.0)),
            verdict(above.is_empty()),
        ]);
    }
    if let Some(b) = value("memory/N=1000000", "hhgrid", "index_bytes_per_object") {
        table.push_row(vec![
            "index memory ≤ 128 bytes per object at N = 1 000 000 (without the reusable workspace)"
                .to_owned(),
            format!("{} B", significant(b, 3)),
            verdict(b <= 128.0),
        ]);
    }
    let mut speedups: Vec<(String, usize, f64)> = report
        .records
        .iter()
        .filter(|r| r.case.starts_with("parallel/") && r.metric == "parallel_speedup")
        .map(|r| {
            let scenario = r.case.trim_start_matches("parallel/");
            (scenario.split("/N=").next().unwrap_or(scenario).to_owned(), objects(r), r.value)
        })
        .collect();
    speedups.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    if !speedups.is_empty() {
        let all_met = speedups.iter().all(|s| s.2 >= 1.6);
        let any_met = speedups.iter().any(|s| s.2 >= 1.6);
        let measured: Vec<String> =
            speedups.iter().map(|(s, n, v)| format!("`{s}` N = {}: {v:.2}×", count(*n))).collect();
        table.push_row(vec![
            "parallel detection with 2 threads ≥ 1.6× (rayon's default pool)".to_owned(),
            measured.join("; "),
            if all_met {
                "met".to_owned()
            } else if any_met {
                "**partly met**".to_owned()
            } else {
                verdict(false)
            },
        ]);
    }
    report
        .section("Targets")
        .paragraph(
            "The issue's targets (single thread unless stated, thesis workload: 2 pairs per object, \
             every object moving up to 20 % of its size per step) against this run's medians; the \
             tables below give every value.",
        )
        .table(table);
    let targets = report.sections.pop().expect("just pushed");
    report.sections.insert(0, targets);
}

/// How long `pool` takes to run two 500 µs tasks right after its workers idled for 2 ms (the
/// situation of a parallel detection after the serial update loop), as the median over 31
/// tries: 500 µs plus the time a sleeping worker needs to wake up and steal the second task
/// (up to the full 1 ms when it never does). A property of the host, reported so that the
/// speed-ups at small `N` can be read against it.
fn idle_worker_join_time(pool: Option<&rayon::ThreadPool>) -> f64 {
    let busy = |d: Duration| {
        let start = Instant::now();
        while start.elapsed() < d {
            std::hint::spin_loop();
        }
    };
    let join = || rayon::join(|| busy(Duration::from_micros(500)), || busy(Duration::from_micros(500)));
    let mut times: Vec<f64> = (0..31)
        .map(|_| {
            busy(Duration::from_millis(2));
            let t = Instant::now();
            match pool {
                Some(pool) => pool.install(join),
                None => join(),
            };
            t.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// The median of `v` (NaN if empty).
fn median_of(v: &[f64]) -> f64 {
    Timing::from_samples(v, 1).map_or(f64::NAN, |t| t.median)
}

/// Detection with one thread (`find_pairs`) against all of rayon's threads
/// (`find_pairs_parallel`) on the same states, in rayon's default pool and in a pool of as
/// many workers pinned one per core ([`crate::pinned`]): the thesis workload's scenarios
/// `cubes-20` and `sizes12-20`, full detection (Algorithm 4; incremental detection off, so
/// every call does the whole work), after every object moved. The three calls rotate in
/// order from step to step; each must report the same pairs in the same order.
fn parallel_section(report: &mut Report, scenarios: &[Scenario], sizes: &[usize]) {
    let threads = rayon::current_num_threads();
    let pinned = crate::pinned::pinned_pool(threads);
    let join_time = idle_worker_join_time(None);
    report.records.push(Record::new(NAME, "parallel/idle-worker-join", "join_time", join_time, "s"));
    let pinned_join_time = pinned.as_ref().map(|pool| idle_worker_join_time(Some(pool)));
    if let Some(t) = pinned_join_time {
        report.records.push(Record::new(NAME, "parallel/idle-worker-join-pinned", "join_time", t, "s"));
    }
    let mut table = Table::new([
        "scenario",
        "N",
        "serial detection (median)",
        "parallel, default pool (median)",
        "speed-up",
        "parallel, pinned pool (median)",
        "speed-up (pinned)",
    ])
    .align_right(&[1, 2, 3, 4, 5, 6]);
    let mut mismatches = Vec::new();
    for scenario in scenarios.iter().filter(|s| s.id == "cubes-20" || s.id == "sizes12-20") {
        for &n in sizes {
            let Ok(mut workload) = Workload::new(scenario.workload(n)) else { continue };
            let Ok(mut grid) = HierarchicalHashGrid::new(HhVariant::FullDetection.config()) else { return };
            let handles: Vec<_> = workload.boxes().iter().filter_map(|b| grid.insert(*b).ok()).collect();
            // One output per way of running: serial, default pool, pinned pool.
            let mut outputs: [Vec<(hhgrid::Handle, hhgrid::Handle)>; 3] = Default::default();
            let run = |grid: &mut HierarchicalHashGrid,
                       way: usize,
                       out: &mut Vec<(hhgrid::Handle, hhgrid::Handle)>| {
                let t = Instant::now();
                match (way, &pinned) {
                    (0, _) => grid.find_pairs(out),
                    (1, _) | (_, None) => grid.find_pairs_parallel(out),
                    (_, Some(pool)) => pool.install(|| grid.find_pairs_parallel(out)),
                }
                t.elapsed().as_secs_f64()
            };
            let ways = if pinned.is_some() { 3 } else { 2 };
            for (way, out) in outputs.iter_mut().enumerate().take(ways) {
                run(&mut grid, way, out);
            }
            let steps = (2_000_000 / n).clamp(5, 40);
            // Per way: times, and per-step ratios of the serial time to its time.
            let mut times: [Vec<f64>; 3] = Default::default();
            let mut ratios: [Vec<f64>; 3] = Default::default();
            for step in 0..steps {
                workload.step();
                for (h, b) in handles.iter().zip(workload.boxes()) {
                    let _ = grid.update(*h, *b);
                }
                let mut step_times = [0.0; 3];
                for k in 0..ways {
                    let way = (step + k) % ways;
                    step_times[way] = run(&mut grid, way, &mut outputs[way]);
                }
                for way in 1..ways {
                    if outputs[way] != outputs[0] {
                        let pool = if way == 1 { "default pool" } else { "pinned pool" };
                        mismatches.push(format!("{} at N = {n}, step {step}, {pool}", scenario.id));
                    }
                    ratios[way].push(step_times[0] / step_times[way]);
                }
                for way in 0..ways {
                    times[way].push(step_times[way]);
                }
            }
            // N in the case too: the sizes' records differ in nothing else.
            let id = format!("parallel/{}/N={n}", scenario.id);
            let ts = median_of(&times[0]);
            let mut row = vec![format!("`{}`", scenario.id), count(n), duration(ts)];
            let mut records = vec![("detect_serial", ts, "s")];
            for (way, (time_metric, ratio_metric)) in [
                ("detect_parallel", "parallel_speedup"),
                ("detect_parallel_pinned", "parallel_speedup_pinned"),
            ]
            .into_iter()
            .enumerate()
            .map(|(k, names)| (k + 1, names))
            {
                if way < ways {
                    let (tp, ratio) = (median_of(&times[way]), median_of(&ratios[way]));
                    records.extend([(time_metric, tp, "s"), (ratio_metric, ratio, "x")]);
                    row.extend([duration(tp), format!("{ratio:.2}×")]);
                } else {
                    row.extend(["–".to_owned(), "–".to_owned()]);
                }
            }
            for (metric, v, unit) in records {
                report.records.push(
                    Record::new(NAME, id.clone(), metric, v, unit)
                        .param("objects", n)
                        .param("threads", threads),
                );
            }
            table.push_row(row);
        }
    }
    let pinned_note = match pinned_join_time {
        Some(t) => format!(
            "In the pinned pool, whose {threads} workers are pinned one per core (as HPC codes run \
             their threads, `OMP_PROC_BIND=true`), the same two tasks took {}. Without pinning the \
             kernel sometimes put a woken worker on the core of the worker that woke it, which then \
             waited a whole scheduler tick (4 ms) while the other core idled; pinning rules that \
             out.",
            duration(t)
        ),
        None => "No pinned pool on this host (pinning is implemented for Linux only).".to_owned(),
    };
    let section = report.section(format!("Parallel detection: one thread against {threads}"));
    section
        .paragraph(format!(
            "`find_pairs` (serial) against `find_pairs_parallel` (rayon, {threads} threads) on the same \
             states, full detection (Algorithm 4 over every object, after every object moved 20 %), \
             in rayon's default pool (what a program gets without asking) and in a pool with pinned \
             workers; the order of the three runs rotates from step to step. The speed-ups are \
             medians of per-step ratios of the serial time to the parallel one. The issue's target: \
             at least 1.6× with 2 threads. The parallel path cuts the traversal into runs of 512 \
             occupied cells and concatenates their pairs in order, and fills the packed snapshot \
             in parallel; its output equals the serial one pair for pair (checked at every step \
             below: {}). Each parallel detection follows the serial update loop, so it starts with \
             idle worker threads: on this host two 500 µs tasks handed to rayon's default pool \
             after its workers idled for 2 ms took {} (median; 0.5 ms if a worker starts at once, \
             1 ms if it never does), a wake-up cost that weighs on detections of a few \
             milliseconds. Called from outside the pool (the default-pool column), the calling \
             thread therefore works through the tasks itself from the start, and the workers it \
             wakes share the tasks still left when they arrive; inside the pool (the pinned \
             column, run in `ThreadPool::install`) rayon's work stealing shares them. {pinned_note}",
            if mismatches.is_empty() { "no difference".to_owned() } else { mismatches.join(", ") },
            duration(join_time),
        ))
        .table(table);
    for m in mismatches {
        report.error(format!("parallel detection differs from serial: {m}"));
    }
}

/// Detection time as a function of which object is inserted first, under the thesis's rule for
/// the first grid's cell size and under [`BaseCellSize::DensestLevel`]: `objects` boxes with
/// half-extents uniform in `[0.5, 1.5]` per axis at about 1.8 overlaps per object; six runs
/// per rule, each with a different box moved to the front of the insertion order.
fn base_cell_section(report: &mut Report, objects: usize) {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0xc0);
    let domain = 2.6 * (objects as f64).cbrt();
    let boxes: Vec<Aabb> = (0..objects)
        .map(|_| {
            let c = DVec3::new(rng.random::<f64>(), rng.random::<f64>(), rng.random::<f64>()) * domain;
            let h = DVec3::new(
                rng.random_range(0.5..1.5),
                rng.random_range(0.5..1.5),
                rng.random_range(0.5..1.5),
            );
            Aabb::new(c - h, c + h).expect("finite box")
        })
        .collect();
    let mut table =
        Table::new(["rule", "detection min", "median", "max", "max / min", "largest grid's share (min)"])
            .align_right(&[1, 2, 3, 4, 5]);
    for (name, rule) in [
        ("thesis (first object × √f)", BaseCellSize::FirstObject),
        ("DensestLevel", BaseCellSize::DensestLevel),
    ] {
        let mut times = Vec::new();
        let mut shares = Vec::new();
        for first in 0..6 {
            let config = HhGridConfig { base_cell_size: rule, ..HhGridConfig::default() };
            let Ok(mut grid) = HierarchicalHashGrid::new(config) else { return };
            let front = (first * 997 + 7) % objects;
            for i in std::iter::once(front).chain((0..objects).filter(|&i| i != front)) {
                if grid.insert(boxes[i]).is_err() {
                    return;
                }
            }
            let mut pairs = Vec::new();
            grid.find_pairs(&mut pairs);
            let start = std::time::Instant::now();
            for _ in 0..5 {
                grid.find_pairs(&mut pairs);
            }
            times.push(start.elapsed().as_secs_f64() / 5.0);
            let largest = grid.grid_summary().iter().map(|g| g.3).max().unwrap_or(0);
            shares.push(largest as f64 / objects as f64);
        }
        times.sort_by(f64::total_cmp);
        let (min, max) = (times[0], times[times.len() - 1]);
        let median = 0.5 * (times[2] + times[3]);
        let share = shares.iter().copied().fold(1.0, f64::min);
        for (metric, v) in [
            ("base_cell_detect_min", min),
            ("base_cell_detect_median", median),
            ("base_cell_detect_max", max),
        ] {
            report.records.push(
                Record::new(NAME, format!("base_cell/{rule:?}"), metric, v, "s").param("objects", objects),
            );
        }
        table.push_row([
            name.to_owned(),
            duration(min),
            duration(median),
            duration(max),
            format!("{:.2}×", max / min),
            format!("{:.1} %", 100.0 * share),
        ]);
    }
    report
        .section(format!("First grid's cell size: {} boxes, six insertion orders per rule", count(objects)))
        .paragraph(
            "The thesis sizes the first grid from the first object inserted (× √f). With boxes of varied \
             size, which object comes first decides how the population splits over levels, and detection \
             time with it. `BaseCellSize::DensestLevel` (beyond the thesis) chooses the first cell size when \
             the structure leaves all-pairs mode, centring one level on the densest size window of the \
             objects at hand. Each run: one detection (untimed), then the mean of five; one thread.",
        )
        .table(table);
}

fn introduction(report: &mut Report, plan: &StepPlan) {
    report.introduction.push(
        "The thesis's scenario (§4): N random cuboids, homogeneously distributed in a periodic domain \
         whose size grows with N so that the mean number of overlapping pairs per object stays \
         constant, each moving with a constant random velocity of at most a fraction of its size per \
         step (an object leaving the domain re-enters on the other side with its box recomputed). \
         **\"Two intersections per object\"** is read as the thesis defines it in §4.1: the number of \
         overlapping pairs is twice the number of objects (pairs = 2N, i.e. four partners per object). \
         The domain is calibrated analytically: for centres uniform in [0, L), two boxes overlap on an \
         axis with probability 2u − u², u = (e_i + e_j) / 2L, so E[pairs] = N(N−1)/2 · E[Π_k (2u_k − u_k²)] \
         (see *Workload calibration* for the measured means)."
            .to_owned(),
    );
    report.introduction.push(format!(
        "For each scenario and N every contender runs the same sequence of steps: **setup** = creating \
         the structure and inserting all N boxes; then one detection and {} untimed warm-up steps (the \
         same number at every N); then the timed steps (`clamp({} / N, {}, {})` of them, rounded up \
         to a whole number of equal samples, fewer for slow contenders once {} are spent), each = one `update_many` with the new boxes of every object (in the resting scene, of the movers \
         only, in index order) plus one `find_pairs` (moving the objects and listing their handles and boxes \
         is not timed). `update_many` is the `BroadPhase` trait's loop of `update(handle, aabb)` for every \
         contender except hhgrid, whose own version prefetches the records of the objects a few places ahead. The timed steps are split into up to {} samples; times are the median \
         (and minimum) per step over the samples; **ns/object** = step time / N. Ratios are taken \
         against parry3d's BVH measured in the same run (below 1 = faster than parry). Single thread; \
         hhgrid with `find_pairs` (serial). The timed window is longer at small N (up to {} steps) \
         than at large N (down to {}), so a structure that ages with motion is timed older at \
         small N: the refitted `parry3d-bvh` costs more per object at 10⁴ than at 10⁶ partly for \
         that reason (see Fig. 20 and 22), and its ratios across N mix N with the tree's age; \
         `parry3d-bvh[reinsert]` ages less.",
        plan.warmup,
        plan.object_steps,
        plan.min_steps,
        plan.max_steps,
        duration(plan.budget.as_secs_f64()),
        plan.samples,
        plan.max_steps.div_ceil(plan.samples.clamp(1, plan.max_steps)) * plan.samples.clamp(1, plan.max_steps),
        plan.min_steps,
    ));
    report.introduction.push(
        "Contenders: **hhgrid** = `HierarchicalHashGrid` with `HhGridConfig::default()` (hierarchy \
         factor 2, 16³ initial cells, growth at 1/8 object per cell, incremental updates, incremental \
         detection when at most a quarter of the objects changed, which never happens in the thesis's \
         scenarios, where every object moves; `hhgrid[thesis]` = `HhGridConfig::thesis()`, which \
         differs in reserving 16 slots per cell, in never detecting incrementally, and in searching \
         the whole 27-cell stencil of Algorithm 4 in every coarser grid (the default narrows it to \
         the reference cells a box overlapping the object can have, \
         `HhGridConfig::narrow_coarse_stencil`; with equal cubes there is one grid and no \
         difference); `hhgrid[f=…]` \
         other hierarchy factors; `hhgrid[clear-reinsert]` the other update strategy; \
         `hhgrid[full-detection]` the default without incremental detection). \
         **all-pairs** = `contact_core::AllPairs`. **incremental-sap** = sweep and prune as the thesis \
         benchmarked it (pe engine after Erleben et al.): sorted endpoint lists per axis maintained by \
         insertion sort, an incrementally maintained pair set, O(N) insertion. **sort-and-sweep** = \
         stateless: every detection radix-sorts all boxes on the axis of largest centre variance and \
         sweeps (each box meets the O(N^(2/3)) boxes of its slab, so detection grows as N^(5/3) in these \
         uniform 3-D scenes). **parry3d-bvh** = parry3d 0.31's `Bvh` driven like rapier's \
         `BroadPhaseBvh` (`insert_or_update_partially` per moved leaf, `optimize_incremental` + `refit` \
         per step, self-traversal `traverse_bvtt_single_tree`), leaves rounded outward to f32 and \
         candidates confirmed in f64. Refitting in place degrades the tree when leaves move far: here \
         every object that wraps around the periodic domain jumps across it and stretches all its \
         ancestors, so **parry3d-bvh[reinsert]** also removes and reinserts a leaf whose new box does not \
         touch its old one (what a user would do for a teleported body). Every contender reports \
         exactly the overlapping pairs (closed boxes): pair counts are checked against the reference \
         at every step both ran, pair sets at the first detection and at the last where both ran \
         as long (see *Pair-count agreement*)."
            .to_owned(),
    );
}

/// Which number a figure shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Metric {
    /// Median time per step, seconds.
    Step,
    /// Median time per step divided by N, shown in ns.
    StepPerObject,
    /// Mean time per step (over every timed step) divided by N, shown in ns.
    MeanStepPerObject,
    /// Setup time, seconds.
    Setup,
    /// Median update time per step / N, ns.
    UpdatePerObject,
    /// Median detection time per step / N, ns.
    DetectPerObject,
}

impl Metric {
    fn value(self, m: &Measurement, n: usize) -> f64 {
        let n = n as f64;
        match self {
            Metric::Step => m.step.median,
            Metric::StepPerObject => m.step.median / n * 1e9,
            Metric::MeanStepPerObject => m.mean_step / n * 1e9,
            Metric::Setup => m.setup,
            Metric::UpdatePerObject => m.update / n * 1e9,
            Metric::DetectPerObject => m.detect / n * 1e9,
        }
    }

    fn cell(self, v: f64) -> String {
        match self {
            Metric::Step | Metric::Setup => duration(v),
            Metric::StepPerObject
            | Metric::MeanStepPerObject
            | Metric::UpdatePerObject
            | Metric::DetectPerObject => {
                format!("{} ns", significant(v, 3))
            }
        }
    }

    fn axis(self) -> &'static str {
        match self {
            Metric::Step => "time per step (s, median)",
            Metric::StepPerObject => "ns per object and step (median)",
            Metric::MeanStepPerObject => "ns per object and step (mean)",
            Metric::Setup => "setup time (s)",
            Metric::UpdatePerObject => "update ns per object and step",
            Metric::DetectPerObject => "detection ns per object and step",
        }
    }
}

/// A figure of the thesis: some series (scenario, contender) and ratios between them.
struct Figure {
    name: &'static str,
    heading: &'static str,
    text: &'static str,
    metric: Metric,
    /// `(scenario id, contender id, label)`.
    columns: Vec<(&'static str, String, String)>,
    /// `(numerator column, denominator column)`.
    ratios: Vec<(usize, usize)>,
}

fn col(scenario: &'static str, contender: Contender, label: &str) -> (&'static str, String, String) {
    (scenario, contender.id(), label.to_owned())
}

fn figures() -> Vec<Figure> {
    use Contender as C;
    use HhVariant as V;
    // The resting scene's contenders, in both of its tables.
    let resting_columns = || {
        vec![
            col("resting-95", C::HhGrid(V::Default), "hhgrid (incremental)"),
            col("resting-95", C::HhGrid(V::FullDetection), "hhgrid, full detection"),
            col("resting-95", C::IncrementalSap, "incremental SAP"),
            col("resting-95", C::ParryBvh, "parry BVH"),
            col("resting-95", C::ParryBvhReinsert, "parry BVH, reinsert"),
        ]
    };
    let hh = C::HhGrid(V::Default);
    let sweep = |s: &'static str, hh_label: &str| {
        vec![
            col(s, hh, hh_label),
            col(s, C::IncrementalSap, "incremental SAP"),
            col(s, C::AllPairs, "all-pairs"),
            col(s, C::ParryBvh, "parry BVH"),
            col(s, C::ParryBvhReinsert, "parry BVH, reinsert"),
            col(s, C::SortAndSweep, "sort and sweep"),
        ]
    };
    let factors = |s: &'static str| {
        vec![
            col(s, C::HhGrid(V::Factor(1.5)), "f = 1.5"),
            col(s, hh, "f = 2"),
            col(s, C::HhGrid(V::Factor(3.0)), "f = 3"),
            col(s, C::HhGrid(V::Factor(4.0)), "f = 4"),
            col(s, C::ParryBvh, "parry BVH"),
        ]
    };
    vec![
        Figure {
            name: "fig20-vs-all-pairs",
            heading: "Fig. 20: scaling against all-pairs",
            text: "Time per step, equal cubes (one grid) and sizes varying ×12 (several grids), 2 pairs \
                   per object, 20 % motion. The thesis: all-pairs quadratic, hhgrid linear, all-pairs \
                   faster only for very few objects.",
            metric: Metric::Step,
            columns: vec![
                col("cubes-20", hh, "hhgrid, cubes"),
                col("sizes12-20", hh, "hhgrid, sizes ×12"),
                col("cubes-20", C::AllPairs, "all-pairs, cubes"),
                col("sizes12-20", C::AllPairs, "all-pairs, sizes ×12"),
                col("cubes-20", C::ParryBvh, "parry BVH, cubes"),
                col("cubes-20", C::ParryBvhReinsert, "parry BVH reinsert, cubes"),
                col("cubes-20", C::SortAndSweep, "sort and sweep, cubes"),
            ],
            ratios: vec![(0, 2), (1, 3), (0, 4), (0, 5)],
        },
        Figure {
            name: "fig21-setup",
            heading: "Fig. 21: setup time",
            text: "Creating the structure and inserting all N objects (one `insert` each).",
            metric: Metric::Setup,
            columns: vec![
                col("cubes-20", hh, "hhgrid, cubes"),
                col("sizes12-20", hh, "hhgrid, sizes ×12"),
                col("cubes-20", C::ParryBvh, "parry BVH, cubes"),
                col("sizes12-20", C::ParryBvh, "parry BVH, sizes ×12"),
                col("cubes-20", C::SortAndSweep, "sort and sweep, cubes"),
            ],
            ratios: vec![(0, 2), (1, 3)],
        },
        Figure {
            name: "fig22-scaling",
            heading: "Fig. 22: scaling with one or several grids and two densities",
            text: "ns per object and step; 2 and 8 pairs per object, equal cubes (one grid) and sizes \
                   varying ×12 (several grids). The thesis: more pairs and more grids cost more per \
                   object; linear scaling apart from the cache-to-memory transition.",
            metric: Metric::StepPerObject,
            columns: vec![
                col("cubes-20", hh, "hhgrid, cubes, 2/obj"),
                col("cubes-dense", hh, "hhgrid, cubes, 8/obj"),
                col("sizes12-20", hh, "hhgrid, sizes ×12, 2/obj"),
                col("sizes12-dense", hh, "hhgrid, sizes ×12, 8/obj"),
                col("cubes-20", C::ParryBvh, "parry, cubes, 2/obj"),
                col("cubes-dense", C::ParryBvh, "parry, cubes, 8/obj"),
                col("sizes12-20", C::ParryBvh, "parry, sizes ×12, 2/obj"),
                col("sizes12-dense", C::ParryBvh, "parry, sizes ×12, 8/obj"),
            ],
            ratios: vec![(0, 4), (1, 5), (2, 6), (3, 7)],
        },
        Figure {
            name: "fig23-factor-cubes",
            heading: "Fig. 23: hierarchy factor, equal cubes",
            text: "ns per object and step for hierarchy factors 1.5, 2, 3, 4 (equal cubes: one grid; a \
                   smaller factor means smaller cells relative to the objects).",
            metric: Metric::StepPerObject,
            columns: factors("cubes-20"),
            ratios: vec![(0, 1), (2, 1), (3, 1), (1, 4)],
        },
        Figure {
            name: "fig24-factor-sizes",
            heading: "Fig. 24: hierarchy factor, sizes varying ×12",
            text: "As Fig. 23 with sizes varying ×12: a smaller factor gives fewer objects per cell but \
                   more grids (grid counts below). The last hhgrid column is `HhGridConfig::thesis()` \
                   (f = 2), which searches the whole 27-cell stencil of Algorithm 4 in every coarser \
                   grid where the default narrows it (`narrow_coarse_stencil`), and also reserves 16 slots \
                   per cell and never detects incrementally (which never applies here, where \
                   every object moves); their ratio is mostly the effect of the narrowing.",
            metric: Metric::StepPerObject,
            columns: {
                let mut columns = factors("sizes12-20");
                columns.push(col("sizes12-20", C::HhGrid(V::Thesis), "f = 2, thesis config"));
                columns
            },
            ratios: vec![(0, 1), (2, 1), (3, 1), (1, 4), (1, 5)],
        },
        Figure {
            name: "fig25-update",
            heading: "Fig. 25: update strategies",
            text: "ns per object and step (update + detection) for incremental updates and for clearing \
                   and reinserting all objects, at 20 % motion and at \"abnormal\" motion (every object \
                   placed at a random position each step, so every object changes cell). The update / \
                   detection split is in the next table.",
            metric: Metric::StepPerObject,
            columns: vec![
                col("cubes-20", hh, "incremental, 20 %"),
                col("cubes-20", C::HhGrid(V::ClearAndReinsert), "clear + reinsert, 20 %"),
                col("teleport", hh, "incremental, abnormal"),
                col("teleport", C::HhGrid(V::ClearAndReinsert), "clear + reinsert, abnormal"),
                col("teleport", C::ParryBvh, "parry BVH, abnormal"),
                col("teleport", C::ParryBvhReinsert, "parry BVH reinsert, abnormal"),
                col("teleport", C::SortAndSweep, "sort and sweep, abnormal"),
            ],
            ratios: vec![(1, 0), (3, 2), (2, 4), (2, 5)],
        },
        Figure {
            name: "fig26-worst-cases",
            heading: "Fig. 26: elongated objects and anisotropic distribution",
            text: "ns per object and step: equal cubes; 10 × 1 × 1 bars along random axes; cubes in a \
                   1024 : 1 : 1 domain (the grid keeps equal cell counts per axis).",
            metric: Metric::StepPerObject,
            columns: vec![
                col("cubes-20", hh, "hhgrid, cubes"),
                col("elongated", hh, "hhgrid, 10×1×1"),
                col("anisotropic", hh, "hhgrid, 1024:1:1"),
                col("cubes-20", C::ParryBvh, "parry, cubes"),
                col("elongated", C::ParryBvh, "parry, 10×1×1"),
                col("anisotropic", C::ParryBvh, "parry, 1024:1:1"),
                col("elongated", C::SortAndSweep, "sort and sweep, 10×1×1"),
                col("anisotropic", C::SortAndSweep, "sort and sweep, 1024:1:1"),
            ],
            ratios: vec![(1, 0), (2, 0), (1, 4), (2, 5)],
        },
        Figure {
            name: "fig27-setup-vs-sap",
            heading: "Fig. 27: setup against incremental sweep and prune",
            text: "Inserting all N objects one by one: O(1) per object for hhgrid, O(N) per object for \
                   the incremental SAP (sorted insertion into three endpoint arrays).",
            metric: Metric::Setup,
            columns: vec![
                col("cubes-20", hh, "hhgrid"),
                col("cubes-20", C::IncrementalSap, "incremental SAP"),
                col("cubes-20", C::ParryBvh, "parry BVH"),
                col("cubes-20", C::SortAndSweep, "sort and sweep"),
                col("cubes-20", C::AllPairs, "all-pairs"),
            ],
            ratios: vec![(1, 0), (0, 2)],
        },
        Figure {
            name: "fig28-vs-sap-20",
            heading: "Fig. 28: against sweep and prune, 20 % motion",
            text: "Time per step. The thesis: too little temporal coherence for sweep and prune, which \
                   falls behind even all-pairs. Read the columns against that: in our full runs the \
                   incremental sweep and prune stayed faster than all-pairs at every N both ran, so \
                   that part of the thesis's finding is not reproduced here.",
            metric: Metric::Step,
            columns: sweep("cubes-20", "hhgrid"),
            ratios: vec![(0, 1), (0, 3), (0, 4), (5, 3)],
        },
        Figure {
            name: "fig29-vs-sap-1",
            heading: "Fig. 29: against sweep and prune, 1 % motion",
            text: "Time per step with high temporal coherence (at most 1 % of the size per step).",
            metric: Metric::Step,
            columns: sweep("cubes-1", "hhgrid"),
            ratios: vec![(0, 1), (0, 3), (0, 4), (5, 3)],
        },
        Figure {
            name: "fig30-no-collisions",
            heading: "Fig. 30: against sweep and prune, no collisions",
            text: "Time per step with every object scaled by 10⁻⁵ after calibration (same spatial \
                   distribution, no overlaps) and 1 % motion: the best case for sweep and prune.",
            metric: Metric::Step,
            columns: sweep("no-collisions", "hhgrid"),
            ratios: vec![(0, 1), (0, 3), (0, 4), (5, 3)],
        },
        Figure {
            name: "resting-scene",
            heading: "Beyond the thesis: a resting scene (5 % of the objects move by 2 %)",
            text: "ns per object (all N) and step when only 5 % of the objects move, each by 2 % of its \
                   size per step, and only the movers are updated (the issue's target: ≤ 10 ns per \
                   object). `hhgrid` (default configuration) detects incrementally: it keeps the \
                   previous pairs of the objects that did not change, re-tests the listed pairs of \
                   the changed ones, and queries only those that left their fat boxes \
                   (`HhGridConfig::incremental_share`, default 0.25; `incremental_margin`, default \
                   0.1 of the object's size, plus a lead in the direction of motion); `hhgrid[full-detection]` \
                   runs Algorithm 4 over everything as the thesis does. Incremental sweep and prune \
                   is incremental by nature; parry's BVH refits and traverses the whole tree.",
            metric: Metric::StepPerObject,
            columns: [resting_columns(), vec![col("resting-95", C::SortAndSweep, "sort and sweep")]].concat(),
            ratios: vec![(0, 1), (0, 2), (0, 3), (0, 4)],
        },
        Figure {
            name: "resting-scene-mean",
            heading: "Beyond the thesis: a resting scene, mean over every timed step",
            text: "The same runs as the table above, averaged over every timed step instead of the \
                   median over samples. Incremental detection costs more at the steps where many \
                   movers leave their fat boxes, and the movers, all started together at one speed, \
                   leave them in waves, so that steps with a wave cost a few times more than steps \
                   without. Where a sample is a single step (the large sizes), the median lands on \
                   either kind; the mean is what a long simulation pays per step.",
            metric: Metric::MeanStepPerObject,
            columns: resting_columns(),
            ratios: vec![(0, 1), (0, 2), (0, 3), (0, 4)],
        },
    ]
}

/// The measurement of `contender` on scenario `scenario` at `objects`.
fn lookup<'a>(
    results: &'a [CaseResult],
    scenarios: &[Scenario],
    scenario: &str,
    contender: &str,
    objects: usize,
) -> Option<&'a Measurement> {
    results
        .iter()
        .find(|r| r.objects == objects && scenarios[r.scenario].id == scenario)
        .and_then(|r| r.get(contender))
}

fn add_figure(report: &mut Report, figure: &Figure, scenarios: &[Scenario], results: &[CaseResult]) {
    let mut sizes: Vec<usize> = results.iter().map(|r| r.objects).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut headers = vec!["N".to_owned()];
    headers.extend(figure.columns.iter().map(|c| c.2.clone()));
    headers.extend(
        figure.ratios.iter().map(|&(a, b)| format!("{} / {}", figure.columns[a].2, figure.columns[b].2)),
    );
    let width = headers.len();
    let mut table = Table::new(headers).align_right(&(0..width).collect::<Vec<_>>());
    let value = |c: usize, n: usize| {
        let (s, id, _) = &figure.columns[c];
        lookup(results, scenarios, s, id, n).map(|m| figure.metric.value(m, n))
    };
    for &n in &sizes {
        let mut row = vec![count(n)];
        row.extend(
            (0..figure.columns.len())
                .map(|c| value(c, n).map_or_else(|| "—".to_owned(), |v| figure.metric.cell(v))),
        );
        row.extend(figure.ratios.iter().map(|&(a, b)| match (value(a, n), value(b, n)) {
            (Some(x), Some(y)) => significant(x / y, 3),
            _ => "—".to_owned(),
        }));
        if row.iter().skip(1).any(|c| c != "—") {
            table.push_row(row);
        }
    }
    let section = report.section(figure.heading);
    section.paragraph(figure.text);
    if figure.ratios.is_empty() {
        section.table(table);
    } else {
        section.paragraph("Ratio columns: below 1 means the first is faster.").table(table);
    }
    let mut plot = LogLogPlot::new(figure.name, figure.heading, "objects N", figure.metric.axis());
    for (i, (s, id, label)) in figure.columns.iter().enumerate() {
        let points: Vec<(f64, f64)> = sizes
            .iter()
            .filter_map(|&n| {
                lookup(results, scenarios, s, id, n).map(|m| (n as f64, figure.metric.value(m, n)))
            })
            .collect();
        if points.is_empty() {
            continue;
        }
        let series = if id.starts_with(HHGRID) {
            Series::new(label.clone(), points)
        } else {
            Series::dashed(label.clone(), points)
        };
        plot.series.push(series.with_color(i));
    }
    if plot.ranges().is_some() {
        report.plots.push(plot);
    }
}

/// Checks every contender's pair counts and fingerprints against the scenario's reference.
/// Returns the agreement table and the `(case index, contender id)` of every disagreeing run.
fn verify(
    report: &mut Report,
    scenarios: &[Scenario],
    results: &[CaseResult],
) -> (Table, HashSet<(usize, String)>) {
    let mut disagreeing = HashSet::new();
    let mut table =
        Table::new(["scenario", "N", "contenders", "detections compared", "agree"]).align_right(&[1, 3]);
    for (case, r) in results.iter().enumerate() {
        let scenario = &scenarios[r.scenario];
        for f in &r.failures {
            report.error(format!("`{}/N={}`: {f}", scenario.id, r.objects));
        }
        let Some(reference) = r.measurements.first() else { continue };
        let mut compared = 0;
        let mut all = true;
        for m in &r.measurements[1..] {
            let common = m.pair_counts.len().min(reference.pair_counts.len());
            compared += common;
            let mismatch = (0..common).find(|&i| m.pair_counts[i] != reference.pair_counts[i]);
            let last_comparable = m.pair_counts.len() == reference.pair_counts.len();
            let sets_differ = m.fingerprints.0 != reference.fingerprints.0
                || (last_comparable && m.fingerprints.1 != reference.fingerprints.1);
            if mismatch.is_some() || sets_differ {
                disagreeing.insert((case, m.contender.id()));
            }
            if let Some(i) = mismatch {
                all = false;
                report.error(format!(
                    "`{}/N={}`: `{}` reports {} pairs at detection {i}, `{}` {}",
                    scenario.id,
                    r.objects,
                    m.contender.id(),
                    m.pair_counts[i],
                    reference.contender.id(),
                    reference.pair_counts[i]
                ));
            } else if sets_differ {
                all = false;
                report.error(format!(
                    "`{}/N={}`: `{}` reports the same pair counts as `{}` but different pair sets",
                    scenario.id,
                    r.objects,
                    m.contender.id(),
                    reference.contender.id()
                ));
            }
        }
        table.push_row([
            format!("`{}`", scenario.id),
            count(r.objects),
            r.measurements.iter().map(|m| m.contender.id()).collect::<Vec<_>>().join(", "),
            count(compared),
            if all { "yes".to_owned() } else { "**NO**".to_owned() },
        ]);
    }
    (table, disagreeing)
}

fn add_results(report: &mut Report, scenarios: &[Scenario], results: &[CaseResult], memory: &[MemoryRow]) {
    let (agreement, disagreeing) = verify(report, scenarios, results);

    // Records.
    for (index, r) in results.iter().enumerate() {
        let scenario = &scenarios[r.scenario];
        let n = r.objects;
        let case = format!("{}/N={n}", scenario.id);
        let mut params = scenario.parameters(n);
        params.insert("domain".into(), json!(r.domain));
        let parry = r.get(PARRY);
        report.records.push(
            Record::new(NAME, &case, "expected_pairs_per_object", r.expected_pairs / n as f64, "1")
                .params(&params)
                .implementation("workload"),
        );
        for m in &r.measurements {
            let mut p = params.clone();
            p.insert("contender".into(), json!(m.contender.id()));
            p.insert("steps".into(), json!(m.steps));
            let rec = |metric: &str, value: f64, unit: &str| {
                Record::new(NAME, &case, metric, value, unit).params(&p).implementation(m.contender.id())
            };
            let vs_parry = |record: Record, f: &dyn Fn(&Measurement) -> f64| match parry {
                Some(b) if m.contender != Contender::ParryBvh => record.compared_to(PARRY, f(b)),
                _ => record,
            };
            let per_object = |t: f64| t / n as f64;
            report.records.extend([
                vs_parry(rec("step_time_median", m.step.median, "s"), &|b| b.step.median),
                rec("step_time_min", m.step.min, "s"),
                rec("step_time_mean", m.mean_step, "s"),
                vs_parry(rec("step_time_per_object_median", per_object(m.step.median), "s"), &|b| {
                    per_object(b.step.median)
                }),
                rec("update_time_median", m.update, "s"),
                rec("detect_time_median", m.detect, "s"),
                vs_parry(rec("setup_time", m.setup, "s"), &|b| b.setup),
                rec("setup_time_per_object", per_object(m.setup), "s"),
                rec("first_detection_time", m.first_detection, "s"),
                rec("pairs_per_object_mean", mean(&m.pair_counts) / n as f64, "1"),
            ]);
            if let Some(g) = m.grids {
                report.records.push(rec("grid_count", g as f64, "count"));
            }
            if let Some(b) = m.bytes {
                report.records.push(rec("memory_bytes_per_object", b as f64 / n as f64, "B"));
            }
            let agrees = !disagreeing.contains(&(index, m.contender.id()));
            report.records.push(
                Record::flag(NAME, &case, "pairs_agree_with_reference", agrees)
                    .params(&p)
                    .implementation(m.contender.id()),
            );
        }
    }

    calibration_section(report, scenarios, results);
    for figure in figures() {
        add_figure(report, &figure, scenarios, results);
        if figure.name == "fig24-factor-sizes" {
            grid_count_section(report, scenarios, results);
        }
        if figure.name == "fig25-update" {
            update_split_section(report, scenarios, results);
        }
    }
    memory_section(report, scenarios, results, memory);
    report
        .section("Pair-count agreement")
        .paragraph(
            "Every detection's pair count (the first after setup, the warm-up and the timed steps) of \
             every contender against the first contender of the scenario (hhgrid), over the steps both \
             ran; plus the pair sets themselves (order-independent fingerprint over object indices) at \
             the first detection, and at the last where the contender ran as many detections as \
             the reference (a contender cut short by the time budget is compared by counts only \
             after the first).",
        )
        .table(agreement);
}

fn mean(values: &[usize]) -> f64 {
    if values.is_empty() { f64::NAN } else { values.iter().sum::<usize>() as f64 / values.len() as f64 }
}

fn calibration_section(report: &mut Report, scenarios: &[Scenario], results: &[CaseResult]) {
    let mut table = Table::new([
        "scenario",
        "N",
        "domain L_x × L_y × L_z",
        "expected pairs / N",
        "measured pairs / N",
        "measured / expected",
        "detections",
    ])
    .align_right(&[1, 3, 4, 5, 6]);
    let mut overall = Vec::new();
    for r in results {
        let scenario = &scenarios[r.scenario];
        let Some(m) = r.measurements.first() else { continue };
        let n = r.objects as f64;
        let measured = mean(&m.pair_counts) / n;
        let expected = r.expected_pairs / n;
        if scenario.size_scale == 1.0 {
            overall.push(measured / expected);
        }
        table.push_row([
            format!("`{}`", scenario.id),
            count(r.objects),
            r.domain.iter().map(|l| significant(*l, 4)).collect::<Vec<_>>().join(" × "),
            significant(expected, 4),
            significant(measured, 4),
            if expected > 0.0 { significant(measured / expected, 4) } else { "—".to_owned() },
            count(m.pair_counts.len()),
        ]);
    }
    let summary = if overall.is_empty() {
        String::new()
    } else {
        let avg = overall.iter().sum::<f64>() / overall.len() as f64;
        let (lo, hi) =
            overall.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| (a.min(x), b.max(x)));
        format!(
            " Over all calibrated cases, measured / expected averages {} (range {} – {}).",
            significant(avg, 4),
            significant(lo, 3),
            significant(hi, 3)
        )
    };
    report
        .section("Workload calibration")
        .paragraph(format!(
            "Object edges: cubes 1; sizes ×12 uniform in [1, 12]; bars 10 × 1 × 1. \"Measured\" is the mean \
             pair count over every detection of the scenario's reference run (all contenders agree, see \
             the last section) divided by N.{summary} For equal cubes of edge a the calibration is \
             a / L = 1 − √(1 − (4 / (N − 1))^(1/3)); calibrating by the common periodic estimate \
             (N − 1)(2a)³ / L³ = 4 instead would give fewer pairs of non-wrapping boxes, by the boundary \
             loss (24 % at N = 100, 2.6 % at N = 10⁵). `no-collisions` multiplies the calibrated cube \
             sizes by 10⁻⁵, so it expects ~0 pairs."
        ))
        .table(table);
}

fn grid_count_section(report: &mut Report, scenarios: &[Scenario], results: &[CaseResult]) {
    let variants = [1.5, 2.0, 3.0, 4.0];
    let id = |f: f64| if f == 2.0 { HHGRID.to_owned() } else { Contender::HhGrid(HhVariant::Factor(f)).id() };
    let mut table =
        Table::new(["scenario", "N", "f = 1.5", "f = 2", "f = 3", "f = 4"]).align_right(&[1, 2, 3, 4, 5]);
    for r in results {
        let s = scenarios[r.scenario].id;
        if s != "cubes-20" && s != "sizes12-20" {
            continue;
        }
        let mut row = vec![format!("`{s}`"), count(r.objects)];
        row.extend(
            variants
                .iter()
                .map(|&f| r.get(&id(f)).and_then(|m| m.grids).map_or_else(|| "—".to_owned(), count)),
        );
        table.push_row(row);
    }
    report
        .section("Fig. 24 (continued): number of grids")
        .paragraph(
            "`grid_count()` after the run (below the all-pairs threshold of 32 objects no grid exists).",
        )
        .table(table);
}

fn update_split_section(report: &mut Report, scenarios: &[Scenario], results: &[CaseResult]) {
    let mut table = Table::new([
        "scenario",
        "N",
        "strategy",
        "update ns/object",
        "detection ns/object",
        "total ns/object",
        "update share",
    ])
    .align_right(&[1, 3, 4, 5, 6]);
    let strategies = [
        (HHGRID.to_owned(), "incremental"),
        (Contender::HhGrid(HhVariant::ClearAndReinsert).id(), "clear + reinsert"),
    ];
    for r in results {
        let s = scenarios[r.scenario].id;
        if s != "cubes-20" && s != "teleport" {
            continue;
        }
        for (id, label) in &strategies {
            let Some(m) = r.get(id) else { continue };
            let n = r.objects;
            let (u, d) = (Metric::UpdatePerObject.value(m, n), Metric::DetectPerObject.value(m, n));
            table.push_row([
                format!("`{s}`"),
                count(n),
                (*label).to_owned(),
                format!("{} ns", significant(u, 3)),
                format!("{} ns", significant(d, 3)),
                format!("{} ns", significant(Metric::StepPerObject.value(m, n), 3)),
                format!("{} %", significant(100.0 * u / (u + d), 3)),
            ]);
        }
    }
    report
        .section("Fig. 25 (continued): update and detection phases")
        .paragraph(
            "Medians of the update loop (`update` of every object) and of `find_pairs` separately. \
             With clear-and-reinsert, `update` only stores the new box and the reinsertion happens at \
             the start of the next detection, so its cost appears under detection.",
        )
        .table(table);
}

fn memory_section(report: &mut Report, scenarios: &[Scenario], results: &[CaseResult], memory: &[MemoryRow]) {
    let mut table = Table::new([
        "N",
        "contender",
        "structure's own count (B/object)",
        "of which reusable workspace (B/object)",
        "index without workspace (B/object)",
        "RSS growth (B/object)",
        "measured after",
    ])
    .align_right(&[0, 2, 3, 4, 5]);
    for row in memory {
        let n = row.objects as f64;
        let per_object =
            |b: Option<usize>| b.map_or_else(|| "—".to_owned(), |b| significant(b as f64 / n, 3));
        // Parry's own count leaves out its workspace already.
        let index = match row.contender {
            Contender::ParryBvh | Contender::ParryBvhReinsert => row.accounted,
            _ => row.accounted.zip(row.workspace).map(|(total, workspace)| total - workspace),
        };
        table.push_row([
            count(row.objects),
            row.contender.id(),
            per_object(row.accounted),
            per_object(row.workspace),
            per_object(index),
            row.rss_delta.map_or_else(|| "—".to_owned(), |b| significant(b as f64 / n, 3)),
            row.after.to_owned(),
        ]);
        let case = format!("memory/N={}", row.objects);
        let params = scenarios[0].parameters(row.objects);
        if let Some(b) = row.accounted {
            report.records.push(
                Record::new(NAME, &case, "memory_bytes_per_object", b as f64 / n, "B")
                    .params(&params)
                    .implementation(row.contender.id()),
            );
        }
        if let Some(b) = index {
            report.records.push(
                Record::new(NAME, &case, "index_bytes_per_object", b as f64 / n, "B")
                    .params(&params)
                    .implementation(row.contender.id()),
            );
        }
        if let Some(b) = row.rss_delta {
            report.records.push(
                Record::new(NAME, &case, "rss_growth_per_object", b as f64 / n, "B")
                    .params(&params)
                    .implementation(row.contender.id()),
            );
        }
    }
    // The incremental SAP cannot be built at these sizes in reasonable time (O(N²) setup): its own
    // count at the largest N of the sweep instead (its memory is linear in N).
    let sap = results
        .iter()
        .filter(|r| scenarios[r.scenario].id == "cubes-20")
        .filter_map(|r| r.get(SAP).and_then(|m| m.bytes).map(|b| (r.objects, b)))
        .max_by_key(|&(n, _)| n);
    if let Some((n, bytes)) = sap {
        table.push_row([
            count(n),
            SAP.to_owned(),
            significant(bytes as f64 / n as f64, 3),
            "—".to_owned(),
            "—".to_owned(),
            "—".to_owned(),
            "the sweep (largest N it ran)".to_owned(),
        ]);
    }
    report
        .section("Memory per object")
        .paragraph(
            "Thesis scenario (`cubes-20`). *Structure's own count*: hhgrid's `memory_usage().total_bytes`; \
             for the baselines the capacities of their arrays and hash tables (parry: \
             `Bvh::heap_memory_size` plus the exact f64 boxes; not its reusable workspace). \
             *Reusable workspace*: hhgrid's detection snapshot (`memory_usage().workspace_bytes`: the \
             cells' boxes packed in traversal order, rebuilt at every full detection, kept only to \
             reuse the allocation; `release_workspace` frees it). *Index without workspace*: what the \
             structure must keep between detections (hhgrid's `memory_usage().index_bytes()`; parry's \
             own count, which leaves out its workspace already); the issue's target is at most 128 \
             bytes per object at 10⁶ objects. *RSS growth*: \
             `VmRSS` after minus before building (and one step), minus the caller's handle and pair \
             buffers, after handing freed memory back to the system (glibc `malloc_trim`): a rough \
             cross-check that includes allocator slack and workspaces. Measured before the sweep, \
             structures built one after another in the same process.",
        )
        .table(table);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::RunInfo;
    use crate::timing::TimingConfig;

    fn smoke_plan() -> StepPlan {
        StepPlan {
            warmup: 1,
            object_steps: 1000,
            min_steps: 3,
            max_steps: 6,
            samples: 3,
            min_samples: 1,
            budget: Duration::from_millis(50),
            case_budget: Duration::from_secs(5),
        }
    }

    #[test]
    fn contender_ids_are_unique_per_scenario() {
        for s in scenarios() {
            let mut ids: Vec<String> = s.contenders.iter().map(|c| c.id()).collect();
            assert_eq!(ids[0], HHGRID, "{}: the reference is the default hhgrid", s.id);
            ids.sort();
            ids.dedup();
            assert_eq!(ids.len(), s.contenders.len(), "{}", s.id);
            assert!(s.contenders.iter().all(|c| match c {
                Contender::HhGrid(v) => v.config().validate().is_ok(),
                _ => true,
            }));
        }
        let all = scenarios();
        for f in figures() {
            for (s, id, _) in &f.columns {
                let scenario =
                    all.iter().find(|x| x.id == *s).unwrap_or_else(|| panic!("{}: no scenario {s}", f.name));
                assert!(scenario.contenders.iter().any(|c| &c.id() == id), "{}: {id} not in {s}", f.name);
            }
            for &(a, b) in &f.ratios {
                assert!(a < f.columns.len() && b < f.columns.len() && a != b);
            }
        }
    }

    #[test]
    fn step_plan_bounds() {
        let plan = smoke_plan();
        assert_eq!((plan.steps(10), plan.steps(300), plan.steps(1_000_000)), (6, 3, 3));
        let run = RunInfo::collect(std::path::Path::new("."), "test", Mode::Quick);
        let ctx = SuiteContext::new(Mode::Quick, run, ".".into());
        let quick = StepPlan::for_context(&ctx);
        assert_eq!((quick.steps(100), quick.steps(10_000)), (60, 20));
    }

    #[test]
    fn caps_skip_quadratic_growth() {
        let plan =
            StepPlan { case_budget: Duration::from_secs(1), budget: Duration::from_secs(10), ..smoke_plan() };
        let mut caps = Caps::default();
        let measured = |contender, setup: f64, step: f64| Measurement {
            contender,
            setup,
            first_detection: step,
            step: Timing::from_samples(&[step], 1).unwrap(),
            mean_step: step,
            update: 0.0,
            detect: step,
            steps: 1,
            pair_counts: vec![],
            fingerprints: (0, 0),
            grids: None,
            bytes: None,
        };
        assert!(caps.allows(0, "s", Contender::AllPairs, 100, &plan));
        caps.record(0, &measured(Contender::AllPairs, 1e-6, 1e-4), 100);
        // 10× the objects: 100× the step time (assumed quadratic), 1 + 1 + 3 steps of 10 ms.
        let p = caps.predict(0, Contender::AllPairs, 1000, &plan).unwrap();
        assert!((p - (1e-5 + 5.0 * 1e-2)).abs() < 1e-9, "{p}");
        assert!(caps.allows(0, "s", Contender::AllPairs, 1000, &plan));
        caps.record(0, &measured(Contender::AllPairs, 1e-5, 0.19), 1000);
        assert!(!caps.allows(0, "s", Contender::AllPairs, 3000, &plan)); // 9 × 0.19 s per step
        assert!(!caps.allows(0, "s", Contender::AllPairs, 10_000, &plan));
        assert_eq!(caps.skipped.len(), 1);
        // Linear contenders extrapolate linearly, and from the two last sizes once measured.
        caps.record(0, &measured(Contender::SortAndSweep, 1e-4, 1e-3), 1000);
        assert!(caps.allows(0, "s", Contender::SortAndSweep, 30_000, &plan)); // 3 ms + 5 × 30 ms
        caps.record(0, &measured(Contender::SortAndSweep, 1e-3, 4e-2), 10_000);
        let p = caps.predict(0, Contender::SortAndSweep, 100_000, &plan).unwrap();
        assert!((p - (1e-2 + 5.0 * 1.6)).abs() < 1e-9, "{p}"); // step growth N^1.6 as measured
    }

    /// The whole pipeline on two small sizes of every scenario: all contenders agree, records,
    /// tables and plots come out.
    #[test]
    fn pipeline_on_small_sizes() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunInfo::collect(dir.path(), "test", Mode::Quick);
        let mut ctx = SuiteContext::new(Mode::Quick, run, dir.path().to_owned());
        ctx.timing = TimingConfig::smoke();
        let mut report = ctx.report(&HhGrid, "test");
        let scenarios = scenarios();
        let results = measure_all(&mut report, &scenarios, &[60, 400], &smoke_plan());
        assert_eq!(results.len(), 2 * scenarios.len());
        let memory = measure_memory(&mut report, &[2000]);
        assert_eq!(memory.len(), 4);
        add_results(&mut report, &scenarios, &results, &memory);
        assert!(!report.has_errors(), "{:?}", report.notes);
        for r in &results {
            let s = &scenarios[r.scenario];
            assert_eq!(r.measurements.len(), s.contenders.len(), "{}", s.id);
            let counts = &r.measurements[0].pair_counts;
            assert!(counts.len() >= 5);
            if s.size_scale == 1.0 && r.objects == 400 {
                let measured = mean(counts) / r.objects as f64;
                assert!((measured / s.pairs_per_object - 1.0).abs() < 0.5, "{}: {measured}", s.id);
            }
        }
        let hh = lookup(&results, &scenarios, "sizes12-20", HHGRID, 400).unwrap();
        assert!(hh.grids.unwrap() > 1);
        let ratio = report
            .records
            .iter()
            .find(|r| r.metric == "step_time_median" && r.implementation == HHGRID)
            .unwrap();
        assert_eq!(ratio.baseline.as_deref(), Some(PARRY));
        assert!(report.plots.len() >= 10);
        report.write(dir.path()).unwrap();
        let md = std::fs::read_to_string(dir.path().join("hhgrid.md")).unwrap();
        for heading in [
            "Fig. 20",
            "Fig. 27",
            "Fig. 30",
            "Workload calibration",
            "Memory per object",
            "Pair-count agreement",
        ] {
            assert!(md.contains(heading), "missing {heading}");
        }
        assert!(!md.contains("**NO**"));
    }

    #[test]
    fn disagreement_is_an_error() {
        let run = RunInfo::collect(std::path::Path::new("."), "test", Mode::Quick);
        let ctx = SuiteContext::new(Mode::Quick, run, ".".into());
        let mut report = ctx.report(&HhGrid, "test");
        let scenarios = scenarios();
        let mut results = measure_all(&mut report, &scenarios[..1], &[100], &smoke_plan());
        assert!(!report.has_errors());
        results[0].measurements[1].pair_counts[2] += 1;
        let mut bad = ctx.report(&HhGrid, "test");
        verify(&mut bad, &scenarios, &results);
        assert!(bad.has_errors());
        results[0].measurements[1].pair_counts[2] -= 1;
        results[0].measurements[2].fingerprints.0 ^= 1;
        let mut bad = ctx.report(&HhGrid, "test");
        verify(&mut bad, &scenarios, &results);
        assert!(bad.has_errors());
    }
}
