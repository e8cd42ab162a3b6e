//! `raycross`: point containment by ray crossing against mesh size and number of test points
//! (Muth et al. 2006, §2.2, §3.1 and §3.2, Figs. 9 and 14).
//!
//! For the octa-sphere levels 0–7 (`8·4^L` triangles) and the three gyroid foams, and regular
//! grids of `n³` cell-centre points (`point_grid`, `n` ∈ {10, 20, 40, 80}) filling the
//! surrounding cube `surrounding_cube(mesh.bounding_box(), MARGIN)`, the suite measures
//!
//! 1. **build**: `RayCrossing::new`, `PaperRayCrossing::new` and parry3d-f64's oriented
//!    `TriMesh` ([`ParryTriMesh::build`]), each on a fresh copy of the mesh (the copy untimed);
//!    reported per triangle;
//! 2. **classification**: one `contains_batch` over all points of the grid, for the fast exact
//!    mode, the paper's mode and parry, reported per point. Everything runs in a one-thread rayon
//!    pool. Paper mode is `O(points in the box × triangles)`; a case whose predicted time exceeds
//!    the mode's budget is skipped (a note lists them);
//! 3. **checks**: the fast and paper modes must classify every point identically (an error
//!    otherwise); the fast mode's answers are counted (inside, outside, on the boundary) and
//!    parry's answers are compared with them: disagreements on points strictly inside or outside,
//!    and parry's answer for the points exactly on the surface, are reported (not errors: parry
//!    computes in floating point and has no on-boundary answer).
//!
//! Plus the target case of the issue: [`RANDOM_POINTS`] uniform random points (seed
//! [`RANDOM_SEED`]) in the bounding box of the medium foam; paper mode measures a prefix of them
//! when all would exceed the budget.

use super::geometry::MeshCase;
use super::{Suite, SuiteContext, sweep};
use crate::BenchError;
use crate::containment::ParryTriMesh;
use crate::report::format::{count, duration, significant};
use crate::report::{LogLogPlot, Mode, Record, Report, Series, Table};
use crate::timing::{Timing, TimingConfig, time, time_each};
use contact_core::{Containment, PointContainment};
use geometry_core::generators::{FoamSize, point_grid, surrounding_cube};
use geometry_core::{Aabb, DVec3, TriMesh};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use raycross::{PaperRayCrossing, RayCrossing, RayStats};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::Display;
use std::time::{Duration, Instant};

/// The raycross suite (see the [module documentation](self)).
#[derive(Debug, Clone, Copy, Default)]
pub struct RayCross;

const NAME: &str = "raycross";
const PARRY: &str = "parry3d-f64";
/// Relative margin of the surrounding cube: its edge is `1 + 2·0.1 = 1.2` times the longest edge
/// of the mesh's bounding box, so `(1/1.2)³ ≈ 58 %` of a grid's points lie in the box of a
/// sphere or foam (the rest are rejected by the box test of both modes).
pub const MARGIN: f64 = 0.1;
/// Random points of the target case.
pub const RANDOM_POINTS: usize = 64_000;
/// Seed of the target case's points (`ChaCha8Rng`).
pub const RANDOM_SEED: u64 = 0x4d75_7468_2006;
/// The paper mode's cost per (point in the box × triangle) assumed before the first measurement
/// (measured: 10–25 ns, the most for small meshes).
const PAPER_COST_GUESS: f64 = 2e-8;
/// The least work (points in the box × triangles) of a paper run that calibrates the cost model.
const CALIBRATION_WORK: f64 = 1e5;

/// The test points of a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointSet {
    /// `point_grid(surrounding_cube(bbox, MARGIN), n)`: `n³` points.
    Grid(usize),
    /// Uniform random points in the mesh's bounding box, seeded with [`RANDOM_SEED`].
    Random(usize),
}

impl PointSet {
    /// The name used in case names, e.g. `grid20` or `random64000`.
    pub fn id(self) -> String {
        match self {
            PointSet::Grid(n) => format!("grid{n}"),
            PointSet::Random(n) => format!("random{n}"),
        }
    }

    /// The number of points.
    pub fn len(self) -> usize {
        match self {
            PointSet::Grid(n) => n * n * n,
            PointSet::Random(n) => n,
        }
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The points for `mesh`.
    ///
    /// # Errors
    /// The generator's error, as text.
    ///
    /// ```
    /// use collide_benches::suites::raycross::PointSet;
    /// use geometry_core::generators::octa_sphere;
    /// let mesh = octa_sphere(1).unwrap();
    /// assert_eq!(PointSet::Grid(10).generate(&mesh).unwrap().len(), 1000);
    /// let random = PointSet::Random(50).generate(&mesh).unwrap();
    /// assert!(random.iter().all(|&p| mesh.bounding_box().contains_point(p)));
    /// assert_eq!(random, PointSet::Random(50).generate(&mesh).unwrap());
    /// ```
    pub fn generate(self, mesh: &TriMesh) -> Result<Vec<DVec3>, String> {
        let bbox = mesh.bounding_box();
        match self {
            PointSet::Grid(n) => surrounding_cube(&bbox, MARGIN)
                .and_then(|cube| point_grid(&cube, n))
                .map_err(|e| format!("the point grid failed: {e}")),
            PointSet::Random(n) => {
                let mut rng = ChaCha8Rng::seed_from_u64(RANDOM_SEED);
                let extents = bbox.extents();
                Ok((0..n)
                    .map(|_| {
                        let u = DVec3::new(rng.random(), rng.random(), rng.random());
                        // `min + extents·u` can round past `max` by an ulp; keep the points in the box.
                        (bbox.min + extents * u).clamp(bbox.min, bbox.max)
                    })
                    .collect())
            }
        }
    }

    fn parameters(self) -> BTreeMap<String, Value> {
        match self {
            PointSet::Grid(n) => BTreeMap::from([
                ("points_kind".to_owned(), json!("grid")),
                ("grid_n".to_owned(), json!(n)),
                ("margin".to_owned(), json!(MARGIN)),
            ]),
            PointSet::Random(_) => BTreeMap::from([
                ("points_kind".to_owned(), json!("random_in_bbox")),
                ("seed".to_owned(), json!(RANDOM_SEED)),
            ]),
        }
    }
}

/// One measured combination of mesh and points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Case {
    /// The mesh.
    pub mesh: MeshCase,
    /// The points.
    pub points: PointSet,
}

impl Case {
    /// E.g. `octa_sphere/L3/grid20`.
    pub fn name(self) -> String {
        format!("{}/{}", self.mesh.name(), self.points.id())
    }
}

/// What a mode measures, and how.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The meshes, in order.
    pub meshes: Vec<MeshCase>,
    /// Grid sizes `n` (`n³` points) measured on every mesh.
    pub grids: Vec<usize>,
    /// The random-points target case: mesh and number of points.
    pub random: Option<(MeshCase, usize)>,
    /// Paper-mode runs predicted to take longer than this (seconds) are skipped (random points:
    /// measured on a prefix that fits).
    pub paper_budget: f64,
    /// A classification whose first run takes at least this long (seconds) is not repeated: the
    /// first run is its one sample.
    pub single_run_above: f64,
    /// Repetition of shorter measurements.
    pub timing: TimingConfig,
}

impl Plan {
    /// The plan of `ctx.mode`, with `ctx.timing` capped so the quick suite stays near a minute.
    pub fn for_context(ctx: &SuiteContext) -> Self {
        let foams = |sizes: &[FoamSize]| sizes.iter().map(|&s| MeshCase::Foam(s)).collect::<Vec<_>>();
        let spheres = |top: usize| (0..=top).map(MeshCase::OctaSphere).collect::<Vec<_>>();
        let capped = |samples: usize, max_total: Duration| TimingConfig {
            samples: ctx.timing.samples.min(samples),
            min_samples: ctx.timing.min_samples.min(2),
            max_total_time: ctx.timing.max_total_time.min(max_total),
            ..ctx.timing
        };
        match ctx.mode {
            Mode::Quick => Self {
                meshes: [spheres(6), foams(&[FoamSize::Small, FoamSize::Medium])].concat(),
                grids: vec![10, 20, 40],
                random: Some((MeshCase::Foam(FoamSize::Medium), RANDOM_POINTS)),
                paper_budget: 2.0,
                single_run_above: 0.2,
                timing: capped(5, Duration::from_millis(500)),
            },
            Mode::Full => Self {
                meshes: [spheres(7), foams(&FoamSize::ALL)].concat(),
                grids: vec![10, 20, 40, 80],
                random: Some((MeshCase::Foam(FoamSize::Medium), RANDOM_POINTS)),
                paper_budget: 600.0,
                single_run_above: 2.0,
                timing: capped(11, Duration::from_secs(10)),
            },
        }
    }

    /// Every case, mesh by mesh (each mesh's grids, then its random points if it is the target).
    pub fn cases(&self) -> Vec<Case> {
        let mut cases = Vec::new();
        for &mesh in &self.meshes {
            cases.extend(self.grids.iter().map(|&n| Case { mesh, points: PointSet::Grid(n) }));
            if let Some((target, n)) = self.random
                && target == mesh
            {
                cases.push(Case { mesh, points: PointSet::Random(n) });
            }
        }
        cases
    }
}

/// Build times of one mesh's structures.
#[derive(Debug, Clone)]
struct MeshRow {
    case: MeshCase,
    triangles: usize,
    vertices: usize,
    fast: Timing,
    paper: Timing,
    parry: Option<Timing>,
}

/// One mesh's structures, kept while its cases are measured.
struct Prepared {
    row: MeshRow,
    mesh: TriMesh,
    bbox: Aabb,
    fast: RayCrossing,
    paper: PaperRayCrossing,
    parry: Option<ParryTriMesh>,
}

/// Inside / outside / on-boundary counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Counts {
    inside: usize,
    outside: usize,
    boundary: usize,
}

impl Counts {
    fn of(answers: &[Containment]) -> Self {
        let mut c = Self::default();
        for a in answers {
            match a {
                Containment::Inside => c.inside += 1,
                Containment::Outside => c.outside += 1,
                Containment::OnBoundary => c.boundary += 1,
            }
        }
        c
    }
}

/// A paper-mode run.
#[derive(Debug, Clone)]
struct PaperRun {
    /// Points classified (all, or a prefix for random points).
    points: usize,
    /// Of those, in the bounding box.
    in_box: usize,
    timing: Timing,
    stats: RayStats,
    /// Points where paper and fast mode differ.
    mismatches: usize,
    /// The first differing point, with both answers.
    first_mismatch: Option<(DVec3, Containment, Containment)>,
}

#[derive(Debug, Clone)]
enum PaperOutcome {
    Measured(PaperRun),
    /// Skipped: the predicted time of one run, seconds.
    Skipped(f64),
}

/// parry's run and its agreement with the exact answers.
#[derive(Debug, Clone, Copy)]
struct ParryRun {
    timing: Timing,
    /// parry says inside, the exact answer is strictly outside.
    false_inside: usize,
    /// parry says outside, the exact answer is strictly inside.
    false_outside: usize,
    /// Points exactly on the surface that parry calls inside.
    boundary_inside: usize,
    /// Points exactly on the surface that parry calls outside.
    boundary_outside: usize,
}

impl ParryRun {
    /// Compares parry's answers (inside or outside) with the exact ones.
    fn compare(timing: Timing, exact: &[Containment], parry: &[Containment]) -> Self {
        let mut run =
            Self { timing, false_inside: 0, false_outside: 0, boundary_inside: 0, boundary_outside: 0 };
        for (&ours, &theirs) in exact.iter().zip(parry) {
            let inside = theirs.is_inside_or_boundary();
            match ours {
                Containment::OnBoundary if inside => run.boundary_inside += 1,
                Containment::OnBoundary => run.boundary_outside += 1,
                Containment::Outside if inside => run.false_inside += 1,
                Containment::Inside if !inside => run.false_outside += 1,
                Containment::Inside | Containment::Outside => {}
            }
        }
        run
    }

    fn disagreements(&self) -> usize {
        self.false_inside + self.false_outside
    }
}

/// One measured case.
#[derive(Debug, Clone)]
struct Row {
    case: Case,
    triangles: usize,
    points: usize,
    in_box: usize,
    counts: Counts,
    fast: Timing,
    paper: PaperOutcome,
    parry: Option<ParryRun>,
}

impl Row {
    fn paper(&self) -> Option<&PaperRun> {
        match &self.paper {
            PaperOutcome::Measured(run) => Some(run),
            PaperOutcome::Skipped(_) => None,
        }
    }
}

/// The predicted paper-mode time: seconds per (point in the box × triangle). The cost per
/// point-triangle falls with the mesh size (per-point overheads) and differs a little between
/// meshes, so the model uses the largest cost measured on the current mesh, or, before the mesh's
/// first run, the cost of the last mesh measured (meshes come in growing size within a family).
#[derive(Debug, Clone, Copy)]
struct PaperModel {
    cost: f64,
    mesh: Option<MeshCase>,
}

impl PaperModel {
    fn new() -> Self {
        Self { cost: PAPER_COST_GUESS, mesh: None }
    }

    fn predict(&self, work: f64) -> f64 {
        self.cost * work
    }

    fn learn(&mut self, mesh: MeshCase, work: f64, seconds: f64) {
        if work >= CALIBRATION_WORK {
            let cost = seconds / work;
            self.cost = if self.mesh == Some(mesh) { self.cost.max(cost) } else { cost };
            self.mesh = Some(mesh);
        }
    }
}

impl Suite for RayCross {
    fn name(&self) -> &'static str {
        NAME
    }

    fn description(&self) -> &'static str {
        "ray-crossing point containment (fast exact and paper mode) vs triangles and grid size: octa_sphere levels 0-7 and the foams (Muth 2006 Figs. 9, 14; peer: parry3d-f64)"
    }

    fn run(&self, ctx: &SuiteContext) -> Result<Report, BenchError> {
        let mut report =
            ctx.report(self, "raycross: point containment by ray crossing (Muth et al. 2006, §3.1–3.2)");
        let plan = Plan::for_context(ctx);
        introduction(&mut report, &plan, ctx.peers);
        if !ctx.peers {
            report.info(format!("peer {PARRY} skipped: peers turned off by --no-peers"));
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .stack_size(16 << 20)
            .build()
            .map_err(|e| BenchError::io("building a one-thread rayon pool", std::io::Error::other(e)))?;
        let (meshes, rows) = pool.install(|| measure_all(&mut report, &plan, ctx.peers));
        add_results(&mut report, &plan, &meshes, &rows, ctx.peers);
        Ok(report)
    }
}

fn introduction(report: &mut Report, plan: &Plan, peers: bool) {
    report.introduction.push(format!(
        "The paper's experiments (§3.1, §3.2): test points on a regular grid in the surrounding cube \
         of the body (n³ points, n ∈ {{10, 20, 40, 80}}) are classified inside/outside against the \
         octa-sphere of level L (8·4^L triangles, L = 0…7: the unit octahedron refined and projected \
         onto the sphere) and against three foam meshes (here the gyroid foams of `geometry_core`, \
         28 512 / 118 368 / 493 752 triangles for the paper's 28 952 / 120 868 / 494 124). Figs. 9 and \
         14 plot the ray-crossing time against the number of triangles, one line per grid. Here the \
         grid is `point_grid(surrounding_cube(mesh.bounding_box(), {MARGIN}), n)`: cell centres of an \
         n³ grid over the cube whose edge is {} × the longest box edge, so ≈ 58 % of the points lie \
         in the body's bounding box. This run: grids n ∈ {{{}}}, {} meshes.",
        1.0 + 2.0 * MARGIN,
        plan.grids.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "),
        plan.meshes.len(),
    ));
    report.introduction.push(format!(
        "Measured, all in a one-thread rayon pool: **build** = `RayCrossing::new(mesh)` (fast exact \
         mode: one ray per point along ±x (towards the nearer side of the box), candidate faces from a grid over the faces' yz-projections, exact \
         predicates, symbolic perturbation; points on the surface come back `OnBoundary`), \
         `PaperRayCrossing::new(mesh)` (the paper's Fig. 6: bounding-box prefilter, random segment PR \
         tested against every face whose box the segment's box meets, ratio r, area and volume signs \
         (exact), re-cast on a degeneracy) and parry's mesh, each on a fresh copy of the mesh, the \
         copy made just before and the structure dropped just after each call (neither timed, so \
         builds reuse freed memory instead of paying first-touch page faults), reported per triangle; **classification** = one `contains_batch` over all the \
         points, reported per point (of the whole grid, points outside the box included). Times are \
         medians of up to {} samples (at least {}, at most ≈ {} per measurement after a warm-up call); \
         a classification whose first run takes ≥ {} is not repeated (one sample). Paper mode costs \
         O(points in the box × triangles); runs predicted to exceed {} are skipped (listed in the \
         notes), predicted from the cost per point-triangle measured on the same mesh (or the \
         previous one).",
        plan.timing.samples,
        plan.timing.min_samples,
        duration(plan.timing.max_total_time.as_secs_f64()),
        duration(plan.single_run_above),
        duration(plan.paper_budget),
    ));
    report.introduction.push(format!(
        "Checks: fast and paper mode must classify every point identically (both are exact; an error \
         otherwise). Peer: {PARRY} 0.31's `TriMesh::with_flags(vertices, faces, TriMeshFlags::ORIENTED)` \
         (BVH plus angle-weighted vertex and edge pseudo-normals) and `contains_local_point`, which \
         projects the point onto the nearest triangle and calls it inside when it lies behind the \
         pseudo-normal of the nearest feature; points outside the bounding box are answered without \
         asking parry, as both ray-crossing modes do. parry computes in floating point and has no \
         on-boundary answer, so disagreements are counted on points the exact test calls strictly \
         inside or outside, and parry's answers for points exactly on the surface are listed \
         separately.{}",
        if peers { "" } else { " (Not measured in this run: --no-peers.)" }
    ));
    if let Some((mesh, n)) = plan.random {
        report.introduction.push(format!(
            "Target case: {} uniform random points (`ChaCha8Rng`, seed {RANDOM_SEED:#x}) in the bounding \
             box of `{}` (every point needs a ray; no grid line is shared).",
            count(n),
            mesh.name()
        ));
    }
}

/// Measures every case of the plan; returns the build rows (one per mesh) and the case rows.
fn measure_all(report: &mut Report, plan: &Plan, peers: bool) -> (Vec<MeshRow>, Vec<Row>) {
    let cases = plan.cases();
    let mut current: Option<Prepared> = None;
    let mut meshes: Vec<MeshRow> = Vec::new();
    let mut model = PaperModel::new();
    let mut skipped: Vec<(String, f64)> = Vec::new();
    let rows = sweep(
        report,
        &cases,
        |c| c.name(),
        |&case| {
            if current.as_ref().is_none_or(|p| p.row.case != case.mesh) {
                current = None;
                let prepared = prepare(case.mesh, plan, peers)?;
                meshes.push(prepared.row.clone());
                current = Some(prepared);
            }
            let prepared = current.as_ref().expect("prepared above");
            let row = measure_case(prepared, case.points, plan, &mut model)?;
            if let PaperOutcome::Skipped(predicted) = row.paper {
                skipped.push((case.name(), predicted));
            }
            Ok(row)
        },
    );
    if !skipped.is_empty() {
        report.info(format!(
            "paper mode skipped where one run was predicted to exceed {} (O(points in box × triangles)): {}",
            duration(plan.paper_budget),
            skipped
                .iter()
                .map(|(name, t)| format!("`{name}` (≈ {})", duration(*t)))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    (meshes, rows)
}

/// Generates the mesh, builds the three structures and times their construction.
fn prepare(case: MeshCase, plan: &Plan, peers: bool) -> Result<Prepared, String> {
    let mesh = case.generate().map_err(|e| format!("the generator failed: {e}"))?;
    let fast = RayCrossing::new(mesh.clone()).map_err(|e| format!("RayCrossing::new failed: {e}"))?;
    let paper =
        PaperRayCrossing::new(mesh.clone()).map_err(|e| format!("PaperRayCrossing::new failed: {e}"))?;
    let fast_build = time_each(&plan.timing, || mesh.clone(), |m| RayCrossing::new(m).expect("built once"));
    let paper_build =
        time_each(&plan.timing, || mesh.clone(), |m| PaperRayCrossing::new(m).expect("built once"));
    let (parry, parry_build) = if peers {
        let parts = ParryTriMesh::convert(&mesh);
        let parry = ParryTriMesh::build(parts.clone()).map_err(|e| format!("parry's TriMesh failed: {e}"))?;
        let t = time_each(&plan.timing, || parts.clone(), |p| ParryTriMesh::build(p).expect("built once"));
        (Some(parry), Some(t))
    } else {
        (None, None)
    };
    let row = MeshRow {
        case,
        triangles: mesh.faces().len(),
        vertices: mesh.vertices().len(),
        fast: fast_build,
        paper: paper_build,
        parry: parry_build,
    };
    Ok(Prepared { row, bbox: mesh.bounding_box(), mesh, fast, paper, parry })
}

/// Runs `imp` once on `points` and returns the answers and the run's duration (seconds).
fn first_run<C>(imp: &C, points: &[DVec3]) -> Result<(Vec<Containment>, f64), String>
where
    C: PointContainment + Sync,
    C::Error: Display,
{
    let started = Instant::now();
    let answers = imp.contains_batch(points).map_err(|e| e.to_string())?;
    Ok((answers, started.elapsed().as_secs_f64()))
}

/// The timing of `imp` on `points`: the first run alone when it was long, else repeated runs.
fn repeat<C>(imp: &C, points: &[DVec3], first: f64, plan: &Plan) -> Timing
where
    C: PointContainment + Sync,
{
    if first >= plan.single_run_above {
        Timing::from_samples(&[first], 1).expect("one sample")
    } else {
        time(&plan.timing, || imp.contains_batch(points).is_ok())
    }
}

fn measure_case(p: &Prepared, set: PointSet, plan: &Plan, model: &mut PaperModel) -> Result<Row, String> {
    let points = set.generate(&p.mesh)?;
    let triangles = p.row.triangles;
    let in_box_of = |pts: &[DVec3]| pts.iter().filter(|&&q| p.bbox.contains_point(q)).count();
    let in_box = in_box_of(&points);

    let (exact, first) = first_run(&p.fast, &points)?;
    let fast = repeat(&p.fast, &points, first, plan);
    let counts = Counts::of(&exact);

    let predicted = model.predict(in_box as f64 * triangles as f64);
    let prefix = if predicted <= plan.paper_budget {
        Some(points.len())
    } else if matches!(set, PointSet::Random(_)) {
        // Random points are all in the box: measure the prefix that fits the budget.
        let fits = plan.paper_budget / (model.cost * triangles as f64);
        let m = ((fits / 100.0).floor() * 100.0) as usize;
        (m >= 100).then_some(m.min(points.len()))
    } else {
        None
    };
    let paper = match prefix {
        Some(m) => {
            let subset = &points[..m];
            p.paper.reset_stats();
            let (answers, first) = first_run(&p.paper, subset)?;
            let stats = p.paper.stats();
            let sub_in_box = in_box_of(subset);
            model.learn(p.row.case, sub_in_box as f64 * triangles as f64, first);
            let timing = repeat(&p.paper, subset, first, plan);
            let mut mismatches = 0;
            let mut first_mismatch = None;
            for ((&q, &a), &b) in subset.iter().zip(&answers).zip(&exact) {
                if a != b {
                    mismatches += 1;
                    first_mismatch.get_or_insert((q, b, a));
                }
            }
            PaperOutcome::Measured(PaperRun {
                points: m,
                in_box: sub_in_box,
                timing,
                stats,
                mismatches,
                first_mismatch,
            })
        }
        None => PaperOutcome::Skipped(predicted),
    };

    let parry = match &p.parry {
        Some(parry) => {
            let (answers, first) = first_run(parry, &points)?;
            let timing = repeat(parry, &points, first, plan);
            Some(ParryRun::compare(timing, &exact, &answers))
        }
        None => None,
    };

    Ok(Row {
        case: Case { mesh: p.row.case, points: set },
        triangles,
        points: points.len(),
        in_box,
        counts,
        fast,
        paper,
        parry,
    })
}

/// Nanoseconds per item at the median.
fn ns_per(t: &Timing, items: usize) -> f64 {
    t.median / items as f64 * 1e9
}

/// A time per item given in ns, as a duration (`17.1 ns`, `1.56 ms`).
fn ns_text(ns: f64) -> String {
    duration(ns * 1e-9)
}

fn ratio_text(a: f64, b: f64) -> String {
    significant(a / b, 3)
}

/// `{what}_time_median`, `{what}_time_min` (s) and `{what}_time_per_{item}` (ns/item) of `t` over
/// `items`, made by `make(metric, value, unit)`; compared with `baseline` (its timing and item count)
/// when given: all three when the item counts match, else only the time per item.
fn time_records(
    make: &dyn Fn(&str, f64, &str) -> Record,
    what: &str,
    t: &Timing,
    items: usize,
    item: &str,
    baseline: Option<(Timing, usize)>,
) -> Vec<Record> {
    let values = [
        (
            format!("{what}_time_median"),
            t.median,
            "s".to_owned(),
            baseline.map(|(b, n)| (b.median, n == items)),
        ),
        (format!("{what}_time_min"), t.min, "s".to_owned(), baseline.map(|(b, n)| (b.min, n == items))),
        (
            format!("{what}_time_per_{item}"),
            ns_per(t, items),
            format!("ns/{item}"),
            baseline.map(|(b, n)| (ns_per(&b, n), true)),
        ),
    ];
    values
        .into_iter()
        .map(|(metric, value, unit, base)| {
            let r = make(&metric, value, &unit);
            match base {
                Some((b, true)) => r.compared_to(PARRY, b),
                _ => r,
            }
        })
        .collect()
}

fn add_results(report: &mut Report, plan: &Plan, meshes: &[MeshRow], rows: &[Row], peers: bool) {
    add_build(report, meshes);
    add_classification(report, rows);
    add_checks(report, rows, peers);
    if let Some(row) = rows.iter().find(|r| matches!(r.case.points, PointSet::Random(_))) {
        add_target(report, row);
    }
    add_plots(report, plan, meshes, rows);
}

fn add_build(report: &mut Report, meshes: &[MeshRow]) {
    let mut table = Table::new([
        "mesh",
        "triangles",
        "fast build",
        "fast per triangle",
        "paper build",
        "paper per triangle",
        "parry build",
        "parry per triangle",
        "fast / parry",
    ])
    .align_right(&[1, 2, 3, 4, 5, 6, 7, 8]);
    for m in meshes {
        let case = m.case.name();
        let mut params = m.case.parameters();
        params.insert("triangles".into(), json!(m.triangles));
        params.insert("vertices".into(), json!(m.vertices));
        let rec = |metric: &str, value: f64, unit: &str, mode: &str| {
            // The mode in the case too: fast and paper records differ in nothing else.
            Record::new(NAME, format!("{case}/{mode}"), metric, value, unit)
                .params(&params)
                .param("mode", mode)
        };
        let baseline = m.parry.map(|t| (t, m.triangles));
        report.records.extend(time_records(
            &|k, v, u| rec(k, v, u, "fast"),
            "build",
            &m.fast,
            m.triangles,
            "triangle",
            baseline,
        ));
        report.records.extend(time_records(
            &|k, v, u| rec(k, v, u, "paper"),
            "build",
            &m.paper,
            m.triangles,
            "triangle",
            baseline,
        ));
        if let Some(pt) = &m.parry {
            let theirs = |k: &str, v, u: &str| rec(k, v, u, "oriented_trimesh").implementation(PARRY);
            report.records.extend(time_records(&theirs, "build", pt, m.triangles, "triangle", None));
        }
        let dash = || "—".to_owned();
        table.push_row([
            format!("`{case}`"),
            count(m.triangles),
            duration(m.fast.median),
            ns_text(ns_per(&m.fast, m.triangles)),
            duration(m.paper.median),
            ns_text(ns_per(&m.paper, m.triangles)),
            m.parry.map_or_else(dash, |t| duration(t.median)),
            m.parry.map_or_else(dash, |t| ns_text(ns_per(&t, m.triangles))),
            m.parry.map_or_else(dash, |t| ratio_text(m.fast.median, t.median)),
        ]);
    }
    report
        .section("Build")
        .paragraph(
            "Construction of each structure from a copy of the mesh (median). The fast mode checks that \
             the mesh bounds a solid, copies the faces and bins their yz-projections into a grid; the \
             paper mode checks the mesh and stores each face with its bounding box; parry builds its \
             BVH and the pseudo-normals (mesh already converted to parry's vector type).",
        )
        .table(table);
}

fn add_classification(report: &mut Report, rows: &[Row]) {
    let mut table = Table::new([
        "case",
        "triangles",
        "points",
        "in box",
        "fast",
        "fast per point",
        "paper",
        "paper per point",
        "parry",
        "parry per point",
        "fast / parry",
        "paper / fast",
    ])
    .align_right(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    for row in rows {
        let case = row.case.name();
        let mut params = row.case.mesh.parameters();
        params.extend(row.case.points.parameters());
        params.insert("triangles".into(), json!(row.triangles));
        params.insert("points".into(), json!(row.points));
        params.insert("points_in_box".into(), json!(row.in_box));
        params.insert("threads".into(), json!(1));
        let rec = |metric: &str, value: f64, unit: &str, mode: &str| {
            // The mode in the case too: fast and paper records differ in nothing else.
            Record::new(NAME, format!("{case}/{mode}"), metric, value, unit)
                .params(&params)
                .param("mode", mode)
        };
        let baseline = row.parry.map(|p| (p.timing, row.points));
        report.records.extend(time_records(
            &|k, v, u| rec(k, v, u, "fast"),
            "classify",
            &row.fast,
            row.points,
            "point",
            baseline,
        ));
        report.records.extend([
            rec("inside", row.counts.inside as f64, "count", "fast"),
            rec("outside", row.counts.outside as f64, "count", "fast"),
            rec("on_boundary", row.counts.boundary as f64, "count", "fast"),
        ]);
        if let Some(paper) = row.paper() {
            let prefix =
                |r: Record| r.param("paper_points", paper.points).param("paper_points_in_box", paper.in_box);
            let paper_rec = |k: &str, v, u: &str| prefix(rec(k, v, u, "paper"));
            report.records.extend(time_records(
                &paper_rec,
                "classify",
                &paper.timing,
                paper.points,
                "point",
                baseline,
            ));
            let classified = paper.stats.points.max(1) as f64;
            report.records.extend(
                [
                    rec("rays", paper.stats.rays as f64, "count", "paper"),
                    rec("rays_per_point", paper.stats.rays as f64 / classified, "rays/point", "paper"),
                    rec("degeneracies", paper.stats.degeneracies as f64, "count", "paper"),
                    rec(
                        "degeneracies_per_point",
                        paper.stats.degeneracies as f64 / classified,
                        "1/point",
                        "paper",
                    ),
                    rec("points_classified_by_rays", paper.stats.points as f64, "count", "paper"),
                    Record::flag(NAME, &case, "paper_agrees_with_fast", paper.mismatches == 0)
                        .params(&params)
                        .param("mode", "paper"),
                    rec("paper_fast_mismatches", paper.mismatches as f64, "count", "paper"),
                ]
                .map(prefix),
            );
        }
        if let Some(parry) = &row.parry {
            let theirs = |r: Record| r.implementation(PARRY);
            let parry_rec = |k: &str, v, u: &str| theirs(rec(k, v, u, "contains_point"));
            report.records.extend(time_records(
                &parry_rec,
                "classify",
                &parry.timing,
                row.points,
                "point",
                None,
            ));
            report.records.extend(
                [
                    rec("disagreements_strict", parry.disagreements() as f64, "count", "contains_point"),
                    rec("false_inside", parry.false_inside as f64, "count", "contains_point"),
                    rec("false_outside", parry.false_outside as f64, "count", "contains_point"),
                    rec("boundary_points_inside", parry.boundary_inside as f64, "count", "contains_point"),
                    rec("boundary_points_outside", parry.boundary_outside as f64, "count", "contains_point"),
                ]
                .map(theirs),
            );
        }

        let dash = || "—".to_owned();
        let (paper_time, paper_ns, paper_ratio) = match &row.paper {
            PaperOutcome::Measured(run) => {
                let partial = if run.points == row.points {
                    String::new()
                } else {
                    format!(" ({} pts)", count(run.points))
                };
                let ns = ns_per(&run.timing, run.points);
                (
                    format!("{}{partial}", duration(run.timing.median)),
                    ns_text(ns),
                    significant(ns / ns_per(&row.fast, row.points), 3),
                )
            }
            PaperOutcome::Skipped(t) => (format!("skipped (≈ {})", duration(*t)), dash(), dash()),
        };
        table.push_row([
            format!("`{case}`"),
            count(row.triangles),
            count(row.points),
            count(row.in_box),
            duration(row.fast.median),
            ns_text(ns_per(&row.fast, row.points)),
            paper_time,
            paper_ns,
            row.parry.map_or_else(dash, |p| duration(p.timing.median)),
            row.parry.map_or_else(dash, |p| ns_text(ns_per(&p.timing, row.points))),
            row.parry.map_or_else(dash, |p| ratio_text(row.fast.median, p.timing.median)),
            paper_ratio,
        ]);
    }
    report
        .section("Classification time (Figs. 9 and 14)")
        .paragraph(
            "One `contains_batch` over all points, one thread, median. The time per point divides by \
             all the points of the case (those outside the bounding box included: every implementation rejects \
             them with the box test). `fast / parry` and `paper / fast` compare medians (below 1: the \
             first is faster). Where paper mode measured only a prefix of the random points, its time \
             is for that prefix and the ratio uses the time per point. The fast mode's batch shares \
             the work of the points on one ray line (a regular n³ grid has n² lines of n points: the \
             candidate faces and their projected tests are computed once per line), which is why its \
             grid times barely grow with the triangles; the random points of the target case share \
             no lines. Paper mode casts one random segment per point and tests it against every face \
             (box test first), so it grows linearly in both, as in the paper's figures.",
        )
        .table(table);
}

fn add_checks(report: &mut Report, rows: &[Row], peers: bool) {
    let mut table = Table::new([
        "case",
        "inside",
        "outside",
        "on boundary",
        "paper = fast",
        "rays / point",
        "degeneracies",
        "parry disagreements",
        "parry on-boundary points: inside / outside",
    ])
    .align_right(&[1, 2, 3, 5, 6, 7]);
    let mut parry_total = 0usize;
    let mut strict_total = 0usize;
    for row in rows {
        let case = row.case.name();
        let dash = || "—".to_owned();
        let (agree, rays, degeneracies) = match row.paper() {
            Some(run) => {
                if run.mismatches > 0 {
                    let (q, fast, paper) = run.first_mismatch.expect("a mismatch was seen");
                    report.error(format!(
                        "`{case}`: fast and paper mode DISAGREE on {} of {} points (first: {q:?}, fast \
                         {fast:?}, paper {paper:?})",
                        run.mismatches, run.points
                    ));
                }
                let classified = run.stats.points.max(1) as f64;
                (
                    if run.mismatches == 0 {
                        if run.points == row.points {
                            "yes".to_owned()
                        } else {
                            format!("yes (first {})", count(run.points))
                        }
                    } else {
                        format!("**NO** ({} differ)", count(run.mismatches))
                    },
                    significant(run.stats.rays as f64 / classified, 4),
                    count(run.stats.degeneracies as usize),
                )
            }
            None => ("not run".to_owned(), dash(), dash()),
        };
        if let Some(p) = &row.parry {
            parry_total += p.disagreements();
            strict_total += row.counts.inside + row.counts.outside;
        }
        table.push_row([
            format!("`{case}`"),
            count(row.counts.inside),
            count(row.counts.outside),
            count(row.counts.boundary),
            agree,
            rays,
            degeneracies,
            row.parry.map_or_else(dash, |p| {
                if p.disagreements() == 0 {
                    "0".to_owned()
                } else {
                    format!(
                        "{} ({} false inside, {} false outside)",
                        count(p.disagreements()),
                        count(p.false_inside),
                        count(p.false_outside)
                    )
                }
            }),
            row.parry.map_or_else(dash, |p| {
                if row.counts.boundary == 0 {
                    dash()
                } else {
                    format!("{} / {}", count(p.boundary_inside), count(p.boundary_outside))
                }
            }),
        ]);
    }
    if peers && strict_total > 0 {
        report.info(format!(
            "{PARRY} disagreed with the exact answer on {} of {} points strictly inside or outside \
             (all cases together)",
            count(parry_total),
            count(strict_total)
        ));
    }
    report
        .section("Classifications and agreement")
        .paragraph(
            "Counts from the fast exact mode. `paper = fast`: paper mode gave the same answer for every \
             point it classified. Rays and degeneracies: paper mode's counters for this case's run \
             (`RayStats`), rays per point classified by rays (points in the bounding box); a degeneracy \
             (segment through an edge or vertex, or in a face's plane) discards the ray and casts \
             another. parry disagreements: points the exact test calls strictly inside (outside) that \
             parry calls outside (inside).",
        )
        .table(table);
}

fn add_target(report: &mut Report, row: &Row) {
    let fast_ns = ns_per(&row.fast, row.points);
    let mut table = Table::new(["implementation", "points timed", "time", "per point", "per point / fast"])
        .align_right(&[1, 2, 3, 4]);
    table.push_row([
        "fast exact mode".to_owned(),
        count(row.points),
        duration(row.fast.median),
        ns_text(fast_ns),
        "1".to_owned(),
    ]);
    match &row.paper {
        PaperOutcome::Measured(run) => {
            let ns = ns_per(&run.timing, run.points);
            table.push_row([
                "paper mode".to_owned(),
                if run.points == row.points {
                    count(run.points)
                } else {
                    format!("{} (first)", count(run.points))
                },
                duration(run.timing.median),
                ns_text(ns),
                significant(ns / fast_ns, 3),
            ]);
        }
        PaperOutcome::Skipped(t) => {
            table.push_row([
                "paper mode".to_owned(),
                "0".to_owned(),
                format!("skipped (≈ {})", duration(*t)),
                "—".to_owned(),
                "—".to_owned(),
            ]);
        }
    }
    if let Some(p) = &row.parry {
        let ns = ns_per(&p.timing, row.points);
        table.push_row([
            PARRY.to_owned(),
            count(row.points),
            duration(p.timing.median),
            ns_text(ns),
            significant(ns / fast_ns, 3),
        ]);
    }
    let parry = row.parry.map_or_else(String::new, |p| {
        format!(" {PARRY} disagrees with the exact answer on {} of them.", count(p.disagreements()))
    });
    report
        .section("Target case: random points against the medium foam")
        .paragraph(format!(
            "`{}`: {} points in the bounding box of a mesh of {} triangles, one thread. Exact answer: \
             {} inside, {} outside, {} on the boundary.{parry}",
            row.case.name(),
            count(row.points),
            count(row.triangles),
            count(row.counts.inside),
            count(row.counts.outside),
            count(row.counts.boundary),
        ))
        .table(table);
}

fn add_plots(report: &mut Report, plan: &Plan, meshes: &[MeshRow], rows: &[Row]) {
    let figures = [("fig9", "octa_sphere", "octa-sphere (Fig. 9)"), ("fig14", "foam", "foams (Fig. 14)")];
    for (figure, family, label) in figures {
        let of = |n: usize| {
            rows.iter().filter(move |r| r.case.mesh.family() == family && r.case.points == PointSet::Grid(n))
        };
        let mut fast = LogLogPlot::new(
            format!("{figure}-fast"),
            format!("Fast exact mode vs {PARRY} (dashed): {label}"),
            "triangles",
            "classification time (s, median, 1 thread)",
        );
        let mut paper = LogLogPlot::new(
            format!("{figure}-paper"),
            format!("Paper mode (random rays): {label}"),
            "triangles",
            "classification time (s, median, 1 thread)",
        );
        for (i, &n) in plan.grids.iter().enumerate() {
            let name = format!("{n}³ points");
            let points = |value: &dyn Fn(&Row) -> Option<f64>| -> Vec<(f64, f64)> {
                of(n).filter_map(|r| value(r).map(|v| (r.triangles as f64, v))).collect()
            };
            fast.series.push(Series::new(name.clone(), points(&|r| Some(r.fast.median))).with_color(i));
            let theirs = points(&|r| r.parry.map(|p| p.timing.median));
            if !theirs.is_empty() {
                fast.series.push(Series::dashed(format!("{name} ({PARRY})"), theirs).with_color(i));
            }
            paper
                .series
                .push(Series::new(name, points(&|r| r.paper().map(|p| p.timing.median))).with_color(i));
        }
        for plot in [fast, paper] {
            if plot.ranges().is_some() {
                report.plots.push(plot);
            }
        }
    }
    let mut build = LogLogPlot::new("build", "Build time", "triangles", "build time (s, median)");
    for (i, family) in ["octa_sphere", "foam"].into_iter().enumerate() {
        let points = |value: &dyn Fn(&MeshRow) -> Option<f64>| -> Vec<(f64, f64)> {
            meshes
                .iter()
                .filter(|m| m.case.family() == family)
                .filter_map(|m| value(m).map(|v| (m.triangles as f64, v)))
                .collect()
        };
        build.series.push(
            Series::new(format!("fast ({family})"), points(&|m| Some(m.fast.median))).with_color(2 * i),
        );
        build.series.push(
            Series::new(format!("paper ({family})"), points(&|m| Some(m.paper.median))).with_color(2 * i + 1),
        );
        let theirs = points(&|m| m.parry.map(|t| t.median));
        if !theirs.is_empty() {
            build.series.push(Series::dashed(format!("{PARRY} ({family})"), theirs).with_color(4 + i));
        }
    }
    if build.ranges().is_some() {
        report.plots.push(build);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::RunInfo;
    use geometry_core::generators::octa_sphere;

    fn smoke_plan() -> Plan {
        Plan {
            meshes: (0..=2).map(MeshCase::OctaSphere).collect(),
            grids: vec![4, 6],
            random: Some((MeshCase::OctaSphere(2), 300)),
            paper_budget: 1.0,
            single_run_above: 0.2,
            timing: TimingConfig::smoke(),
        }
    }

    #[test]
    fn plans() {
        let run = RunInfo::collect(std::path::Path::new("."), "test", Mode::Quick);
        let quick = Plan::for_context(&SuiteContext::new(Mode::Quick, run.clone(), ".".into()));
        let cases = quick.cases();
        assert_eq!(cases.len(), 9 * 3 + 1);
        assert_eq!(cases[0].name(), "octa_sphere/L0/grid10");
        assert!(cases.iter().any(|c| c.name() == "foam/medium/random64000"));
        let full = Plan::for_context(&SuiteContext::new(Mode::Full, run, ".".into()));
        assert_eq!(full.cases().len(), 11 * 4 + 1);
        assert_eq!(PointSet::Grid(80).len(), 512_000);
    }

    #[test]
    fn model_learns_the_largest_cost_of_the_current_mesh() {
        let (a, b) = (MeshCase::OctaSphere(5), MeshCase::OctaSphere(6));
        let mut m = PaperModel::new();
        m.learn(a, 10.0, 1.0); // too small to calibrate
        assert_eq!(m.cost, PAPER_COST_GUESS);
        m.learn(a, 1e7, 1e-1);
        assert_eq!(m.cost, 1e-8);
        m.learn(a, 1e7, 5e-2);
        assert_eq!(m.cost, 1e-8);
        m.learn(a, 1e7, 2e-1);
        assert_eq!(m.cost, 2e-8);
        // A new mesh replaces the cost, even by a lower one.
        m.learn(b, 1e8, 1.0);
        assert_eq!(m.cost, 1e-8);
        assert_eq!(m.predict(1e9), 10.0);
    }

    #[test]
    fn parry_comparison_counts_boundary_points_apart() {
        use Containment::{Inside as I, OnBoundary as B, Outside as O};
        let t = Timing::from_samples(&[1.0], 1).unwrap();
        let run = ParryRun::compare(t, &[I, I, O, O, B, B, B], &[I, O, I, O, I, I, O]);
        assert_eq!((run.false_outside, run.false_inside), (1, 1));
        assert_eq!((run.boundary_inside, run.boundary_outside), (2, 1));
        assert_eq!(run.disagreements(), 2);
    }

    #[test]
    fn pipeline_on_small_meshes() {
        let plan = smoke_plan();
        let run = RunInfo::collect(std::path::Path::new("."), "test", Mode::Quick);
        let mut report = Report::new(NAME, "test", run);
        let (meshes, rows) = measure_all(&mut report, &plan, true);
        assert_eq!(meshes.len(), 3);
        assert_eq!(rows.len(), 7);
        add_results(&mut report, &plan, &meshes, &rows, true);
        assert!(!report.has_errors(), "{:?}", report.notes);
        for row in &rows {
            let paper = row.paper().expect("small cases fit the budget");
            assert_eq!(paper.mismatches, 0);
            assert_eq!(paper.stats.points as usize, paper.in_box);
            assert_eq!(row.counts.inside + row.counts.outside + row.counts.boundary, row.points);
            assert!(row.parry.is_some());
        }
        // The sphere's centre region is inside: a 6³ grid has inside points at level 2.
        assert!(rows.iter().any(|r| r.counts.inside > 0));
        let fast_vs_parry = report
            .records
            .iter()
            .find(|r| r.metric == "classify_time_median" && r.parameters["mode"] == "fast")
            .unwrap();
        assert_eq!(fast_vs_parry.baseline.as_deref(), Some(PARRY));
        assert_eq!(report.plots.len(), 3); // fig9-fast, fig9-paper, build (no foam)
        let dir = tempfile::tempdir().unwrap();
        report.write(dir.path()).unwrap();
        let md = std::fs::read_to_string(dir.path().join("raycross.md")).unwrap();
        assert!(md.contains("`octa_sphere/L2/random300`"), "{md}");
    }

    #[test]
    fn over_budget_paper_runs_are_skipped_or_cut() {
        let mut plan = smoke_plan();
        plan.paper_budget = 1e-12;
        plan.meshes = vec![MeshCase::OctaSphere(2)];
        let run = RunInfo::collect(std::path::Path::new("."), "test", Mode::Quick);
        let mut report = Report::new(NAME, "test", run);
        let (_, rows) = measure_all(&mut report, &plan, false);
        assert!(rows.iter().all(|r| r.paper().is_none() && r.parry.is_none()));
        assert!(report.notes.iter().any(|n| n.text.contains("paper mode skipped")));
        // A budget that fits a few hundred points of the random case: a prefix is measured.
        let mesh = octa_sphere(4).unwrap();
        let prepared = prepare(MeshCase::OctaSphere(4), &plan, false).unwrap();
        let mut model = PaperModel { cost: 1e-9, mesh: Some(MeshCase::OctaSphere(4)) };
        plan.paper_budget = 1e-9 * mesh.faces().len() as f64 * 250.0;
        let row = measure_case(&prepared, PointSet::Random(1000), &plan, &mut model).unwrap();
        let paper = row.paper().expect("a prefix fits");
        assert_eq!(paper.points, 200);
        assert_eq!(paper.mismatches, 0);
    }
}
