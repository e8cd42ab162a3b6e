//! `fmm-dlp`: point containment by the double layer potential (Muth et al. 2006, §2.1 and §3),
//! against mesh size and number of test points.
//!
//! For the octa-sphere levels and the gyroid foams, and the regular `n³` grids of the
//! `raycross` suite (cell centres filling the surrounding cube), each case measures one thread:
//!
//! * the fast multipole evaluator with the three tree depths — **PC** (pre-chosen, from the
//!   triangles only), **WC** (well chosen, knowing the number of points) and **Auto** (PC's tree
//!   cut per batch by the cost model) — evaluating every point as the paper does, as setup time
//!   (`FmmDlp::new`) and evaluation time (`classify_with_stats`, including the exact
//!   re-evaluations), and their sum;
//! * the default configuration (**PC + grouping**: PC depth, points in regions clear of the
//!   surface grouped and evaluated once per group, `FmmConfig::group_clear_regions`), the same
//!   way;
//! * the exact evaluator (`ExactDlp`) on a prefix of the points that fits the budget, reported per
//!   point–triangle pair and extrapolated to the whole grid;
//! * `raycross::RayCrossing` (build and classification), for comparison, whose classification
//!   is also the oracle: every FMM classification must agree with it (an error otherwise).
//!
//! Plus the error of `J̃` against the exact `J` as a function of the expansion degree `p`, and
//! the target case of the issue (64 000 random points against the 131 072-triangle sphere).

use super::geometry::MeshCase;
use super::raycross::PointSet;
use super::{Suite, SuiteContext, sweep};
use crate::BenchError;
use crate::peers::PythonEnv;
use crate::report::format::{duration, significant};
use crate::report::{LogLogPlot, Mode, Record, Report, Series, Table};
use contact_core::{Containment, PointContainment};
use fmm_dlp::{ExactDlp, FmmConfig, FmmDlp, TreeDepth};
use geometry_core::generators::FoamSize;
use geometry_core::{DVec3, TriMesh};
use raycross::RayCrossing;
use std::path::Path;
use std::time::Instant;

const PEER: &str = "libigl";
const PEER_SCRIPT: &str = include_str!("../../peers/igl_winding.py");
/// FMM3D's Laplace dipole FMM at ε = 10⁻³, the second peer (target case only: it
/// takes seconds there).
const FMM3D_SCRIPT: &str = include_str!("../../peers/fmm3d_dipole.py");

/// The registered suite.
#[derive(Debug, Clone, Copy, Default)]
pub struct FmmDlpSuite;

const NAME: &str = "fmm-dlp";

/// What a mode covers.
#[derive(Debug, Clone)]
struct Plan {
    meshes: Vec<MeshCase>,
    grids: Vec<usize>,
    /// Seconds of exact evaluation allowed per case (a prefix of the points is evaluated).
    exact_budget: f64,
    target: Option<(MeshCase, usize)>,
    error_mesh: MeshCase,
}

impl Plan {
    fn for_mode(mode: Mode) -> Self {
        let spheres = |top: usize| (0..=top).map(MeshCase::OctaSphere).collect::<Vec<_>>();
        match mode {
            Mode::Quick => Self {
                meshes: [spheres(5), vec![MeshCase::Foam(FoamSize::Small)]].concat(),
                grids: vec![10, 20],
                exact_budget: 0.2,
                target: Some((MeshCase::OctaSphere(7), 64_000)),
                error_mesh: MeshCase::OctaSphere(3),
            },
            Mode::Full => Self {
                meshes: [spheres(7), FoamSize::ALL.iter().map(|&s| MeshCase::Foam(s)).collect()].concat(),
                grids: vec![10, 20, 40, 80],
                exact_budget: 5.0,
                target: Some((MeshCase::OctaSphere(7), 64_000)),
                error_mesh: MeshCase::OctaSphere(4),
            },
        }
    }
}

/// Setup and evaluation of one FMM variant on one case.
#[derive(Debug, Clone, Copy, Default)]
struct FmmRun {
    setup: f64,
    evaluation: f64,
    exact_fallbacks: usize,
}

impl Row {
    /// The case every record of the row carries: the mesh and the point set (`grid40`, or
    /// `random` for the target case's random points).
    fn case(&self) -> String {
        let points = if self.grid > 0 { format!("grid{}", self.grid) } else { "random".into() };
        format!("{}/{points}", self.mesh.name())
    }
}

impl FmmRun {
    fn total(&self) -> f64 {
        self.setup + self.evaluation
    }
}

#[derive(Debug, Clone)]
struct Row {
    mesh: MeshCase,
    triangles: usize,
    points: usize,
    grid: usize,
    pc: FmmRun,
    wc: FmmRun,
    auto: FmmRun,
    /// The default configuration: PC depth with grouping of clear regions.
    grouped: FmmRun,
    /// Seconds per point–triangle pair of the exact evaluator.
    exact_per_pair: f64,
    raycross_build: f64,
    raycross_classify: f64,
    mismatches: usize,
    /// libigl's fast winding number: seconds of one call (tree + evaluation) and the points it
    /// classifies differently from raycross (winding number > ½ read as inside; points on the
    /// surface excluded).
    igl: Option<(f64, usize)>,
    /// FMM3D's dipole FMM (target case only): seconds of the FMM call and its disagreements
    /// with raycross, counted as for libigl.
    fmm3d: Option<(f64, usize)>,
}

/// The Python peers found, and a directory to exchange arrays with them.
#[derive(Clone, Copy)]
struct Peers<'a> {
    igl: Option<&'a PythonEnv>,
    fmm3d: Option<&'a PythonEnv>,
    dir: &'a Path,
}

/// Runs a peer script on one case through `env`, in `dir`: it reads the mesh and the points,
/// writes one value of `J` (or the winding number) per point and prints its time. Returns
/// the seconds and the points it classifies differently from raycross (value > ½ read as
/// inside; points on the surface excluded).
fn run_peer(
    (env, dir): (&PythonEnv, &Path),
    (name, script): (&str, &str),
    mesh: &TriMesh,
    points: &[DVec3],
    truth: &[Containment],
) -> Result<(f64, usize), String> {
    let write = |name: &str, bytes: Vec<u8>| {
        std::fs::write(dir.join(name), bytes).map_err(|e| format!("writing {name}: {e}"))
    };
    let coordinates = |ps: &[DVec3]| ps.iter().flat_map(DVec3::to_array).flat_map(f64::to_le_bytes).collect();
    write("V.f64", coordinates(mesh.vertices()))?;
    write("F.i64", mesh.faces().iter().flatten().flat_map(|&i| i64::from(i).to_le_bytes()).collect())?;
    write("Q.f64", coordinates(points))?;
    let stdout = env.run_script(dir, name, script, &[dir.as_os_str()]).map_err(|e| e.to_string())?;
    let parsed: serde_json::Value = serde_json::from_str(&stdout).map_err(|e| format!("peer output: {e}"))?;
    let seconds = parsed["seconds"].as_f64().ok_or("peer output has no seconds")?;
    let bytes = std::fs::read(dir.join("W.f64")).map_err(|e| format!("reading W.f64: {e}"))?;
    let winding: Vec<f64> =
        bytes.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes"))).collect();
    if winding.len() != points.len() {
        return Err(format!("peer returned {} values for {} points", winding.len(), points.len()));
    }
    let disagreements = winding
        .iter()
        .zip(truth)
        .filter(|(w, t)| match t {
            Containment::Inside => **w <= 0.5,
            Containment::Outside => **w > 0.5,
            Containment::OnBoundary => false,
        })
        .count();
    Ok((seconds, disagreements))
}

/// One FMM variant: `depth`, with or without grouping of clear regions.
fn run_fmm(
    mesh: &TriMesh,
    depth: TreeDepth,
    grouped: bool,
    points: &[DVec3],
    truth: &[Containment],
) -> Result<(FmmRun, usize), String> {
    let config = FmmConfig { depth, group_clear_regions: grouped, ..FmmConfig::default() };
    // The copy of the mesh is the caller's, not the setup's (the peers' timings leave their
    // input arrays out too).
    let mesh = mesh.clone();
    let start = Instant::now();
    let fmm = FmmDlp::new(mesh, config).map_err(|e| e.to_string())?;
    let setup = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let (classes, exact_fallbacks) = fmm.classify_with_stats(points).map_err(|e| e.to_string())?;
    let evaluation = start.elapsed().as_secs_f64();
    let mismatches = classes.iter().zip(truth).filter(|(a, b)| a != b).count();
    Ok((FmmRun { setup, evaluation, exact_fallbacks }, mismatches))
}

fn measure(mesh_case: MeshCase, points_set: PointSet, plan: &Plan, peers: Peers<'_>) -> Result<Row, String> {
    let mesh = mesh_case.generate().map_err(|e| e.to_string())?;
    let points = points_set.generate(&mesh)?;
    let copy = mesh.clone();
    let start = Instant::now();
    let ray = RayCrossing::new(copy).map_err(|e| e.to_string())?;
    let raycross_build = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let truth = ray.contains_batch(&points).map_err(|e| e.to_string())?;
    let raycross_classify = start.elapsed().as_secs_f64();
    let (pc, m1) = run_fmm(&mesh, TreeDepth::PreChosen, false, &points, &truth)?;
    let (wc, m2) = run_fmm(&mesh, TreeDepth::WellChosen { points: points.len() }, false, &points, &truth)?;
    let (auto, m3) = run_fmm(&mesh, TreeDepth::Automatic, false, &points, &truth)?;
    let (grouped, m5) = run_fmm(&mesh, TreeDepth::PreChosen, true, &points, &truth)?;
    // The exact evaluator on a prefix that fits the budget (at least one point).
    let n = mesh.faces().len();
    let exact = ExactDlp::new(mesh.clone()).map_err(|e| e.to_string())?;
    let prefix = ((plan.exact_budget / (n as f64 * 15e-9)) as usize).clamp(1, points.len());
    let start = Instant::now();
    let exact_classes = exact.contains_batch(&points[..prefix]).map_err(|e| e.to_string())?;
    let exact_per_pair = start.elapsed().as_secs_f64() / (prefix * n) as f64;
    let m4 = exact_classes.iter().zip(&truth).filter(|(a, b)| a != b).count();
    let grid = match points_set {
        PointSet::Grid(g) => g,
        PointSet::Random(_) => 0,
    };
    let igl = peers
        .igl
        .map(|env| run_peer((env, peers.dir), ("igl_winding.py", PEER_SCRIPT), &mesh, &points, &truth))
        .transpose()?;
    let fmm3d = peers
        .fmm3d
        .filter(|_| grid == 0)
        .map(|env| run_peer((env, peers.dir), ("fmm3d_dipole.py", FMM3D_SCRIPT), &mesh, &points, &truth))
        .transpose()?;
    Ok(Row {
        mesh: mesh_case,
        triangles: n,
        points: points.len(),
        grid,
        pc,
        wc,
        auto,
        grouped,
        exact_per_pair,
        raycross_build,
        raycross_classify,
        mismatches: m1 + m2 + m3 + m4 + m5,
        igl,
        fmm3d,
    })
}

/// Max `|J̃ − J|` over a 10³ grid for `p = 0..=12` (and the largest error bound).
fn error_table(mesh_case: MeshCase) -> Result<Vec<(usize, f64, f64)>, String> {
    let mesh = mesh_case.generate().map_err(|e| e.to_string())?;
    let points = PointSet::Grid(10).generate(&mesh)?;
    let exact = ExactDlp::new(mesh.clone())
        .map_err(|e| e.to_string())?
        .potentials(&points)
        .map_err(|e| e.to_string())?;
    (0..=12)
        .map(|p| {
            let fmm = FmmDlp::new(mesh.clone(), FmmConfig { order: p, ..FmmConfig::default() })
                .map_err(|e| e.to_string())?;
            let evaluation = fmm.evaluate(&points).map_err(|e| e.to_string())?;
            let error =
                evaluation.potentials.iter().zip(&exact).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            let bound = evaluation.error_bounds.iter().copied().fold(0.0, f64::max);
            Ok((p, error, bound))
        })
        .collect()
}

impl Suite for FmmDlpSuite {
    fn name(&self) -> &'static str {
        NAME
    }

    fn description(&self) -> &'static str {
        "double layer potential: exact and fast multipole (PC / WC / automatic depth) vs raycross; error vs p"
    }

    fn python_peers(&self) -> &'static [&'static str] {
        &["igl", "fmm3dpy"]
    }

    fn run(&self, ctx: &SuiteContext) -> Result<Report, BenchError> {
        let plan = Plan::for_mode(ctx.mode);
        let mut report = ctx.report(self, "fmm-dlp: point containment by the double layer potential");
        report.introduction.push(
            "Per mesh and point grid (the `n³` cell centres of the `raycross` suite's surrounding cube, \
             margin 0.1): the fast multipole evaluator with pre-chosen (**PC**), well-chosen (**WC**) and \
             automatic (**Auto**) tree depth, each evaluating every point as the paper does, and the \
             default configuration (**PC + grouping**: PC depth, and points lying in one region clear of \
             the surface grouped and evaluated once per group, beyond the paper: `J` is constant off the \
             surface), each as setup (`FmmDlp::new`) plus evaluation (`classify_with_stats`, exact \
             re-evaluations included); the exact evaluator per point–triangle \
             pair (timed on a prefix of the points); and `raycross` (build and classification), whose \
             answers are the oracle. Defaults: `p = 5`, `d = 3`. One thread, one run per measurement \
             (the runs take from milliseconds to minutes)."
                .to_owned(),
        );
        let igl = match ctx.python(&["numpy", "igl"]) {
            Ok(env) => Some(env),
            Err(reason) => {
                report.info(format!("peer {PEER} (fast winding number) skipped: {reason}"));
                None
            }
        };
        let fmm3d = match ctx.python(&["numpy", "fmm3dpy"]) {
            Ok(env) => Some(env),
            Err(reason) => {
                report.info(format!("peer FMM3D (Laplace dipole FMM) skipped: {reason}"));
                None
            }
        };
        let transfer = tempfile::Builder::new()
            .prefix("collide-fmm-dlp-")
            .tempdir()
            .map_err(|e| BenchError::io("creating a temporary directory for the peer", e))?;
        let peers = Peers { igl: igl.as_ref(), fmm3d: fmm3d.as_ref(), dir: transfer.path() };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .map_err(|e| BenchError::io("building a one-thread rayon pool", std::io::Error::other(e)))?;
        let mut cases = Vec::new();
        for &mesh in &plan.meshes {
            for &g in &plan.grids {
                cases.push((mesh, PointSet::Grid(g)));
            }
        }
        if let Some((mesh, n)) = plan.target {
            cases.push((mesh, PointSet::Random(n)));
        }
        let rows = pool.install(|| {
            sweep(
                &mut report,
                &cases,
                |(m, s)| format!("{}/{}", m.name(), s.id()),
                |&(m, s)| measure(m, s, &plan, peers),
            )
        });
        let errors = pool.install(|| {
            sweep(
                &mut report,
                &[plan.error_mesh],
                |m| format!("error vs p, {}", m.name()),
                |&m| error_table(m),
            )
        });
        for row in &rows {
            if row.mismatches > 0 {
                report.error(format!(
                    "{} with {} points: {} classifications differ from raycross",
                    row.mesh.name(),
                    row.points,
                    row.mismatches
                ));
            }
        }
        add_tables(&mut report, &rows);
        if let Some(table) = errors.first() {
            let mut t = Table::new(["p", "max |J̃ − J|", "largest Eq. 26–27 bound"]).align_right(&[1, 2]);
            for &(p, error, bound) in table {
                t.push_row([p.to_string(), format!("{error:.2e}"), format!("{bound:.2e}")]);
                report.records.push(
                    Record::new(
                        NAME,
                        format!("error/{}/p{p}", plan.error_mesh.name()),
                        "max_abs_error",
                        error,
                        "1",
                    )
                    .param("p", p),
                );
            }
            report
                .section(format!(
                    "Error of J̃ against the exact J vs p ({}, 10³ grid, d = 3)",
                    plan.error_mesh.name()
                ))
                .paragraph(
                    "The error decays geometrically with p; the Eq. 26–27 bound is a worst case far above it \
                     (it ignores the cancellation between the triangles of a closed surface).",
                )
                .table(t);
        }
        add_plots(&mut report, &rows, &plan.grids);
        Ok(report)
    }
}

fn add_tables(report: &mut Report, rows: &[Row]) {
    let mut table = Table::new([
        "mesh",
        "triangles",
        "points",
        "PC setup + eval",
        "WC setup + eval",
        "Auto setup + eval",
        "PC + grouping setup + eval",
        "exact (per pair)",
        "raycross build + classify",
        "libigl FWN (disagreements)",
        "PC exact re-evals",
    ])
    .align_right(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for row in rows {
        let pair = |r: &FmmRun| format!("{} + {}", duration(r.setup), duration(r.evaluation));
        table.push_row([
            if row.grid > 0 { row.mesh.name() } else { format!("{} (random points)", row.mesh.name()) },
            row.triangles.to_string(),
            row.points.to_string(),
            pair(&row.pc),
            pair(&row.wc),
            pair(&row.auto),
            pair(&row.grouped),
            format!("{:.1} ns", row.exact_per_pair * 1e9),
            format!("{} + {}", duration(row.raycross_build), duration(row.raycross_classify)),
            row.igl.map_or("–".to_owned(), |(t, d)| format!("{} ({d})", duration(t))),
            row.pc.exact_fallbacks.to_string(),
        ]);
        let case = row.case();
        let params = |r: Record| r.param("triangles", row.triangles).param("points", row.points);
        if let Some((seconds, disagreements)) = row.igl {
            report.records.push(params(
                Record::new(NAME, &case, "igl_total", seconds, "s")
                    .implementation(PEER)
                    .param("disagreements", disagreements),
            ));
            // The targets' ratios, ours over the peer's.
            for (variant, run) in [("pc", row.pc), ("grouped", row.grouped)] {
                report.records.push(params(
                    Record::new(NAME, &case, format!("{variant}_total"), run.total(), "s")
                        .compared_to(PEER, seconds),
                ));
            }
        }
        if let Some((seconds, disagreements)) = row.fmm3d {
            report.records.push(params(
                Record::new(NAME, &case, "fmm3d_total", seconds, "s")
                    .implementation("FMM3D")
                    .param("eps", 1e-3)
                    .param("disagreements", disagreements),
            ));
            report.records.push(params(
                Record::new(NAME, &case, "grouped_total", row.grouped.total(), "s")
                    .compared_to("FMM3D", seconds),
            ));
        }
        for (variant, run) in [("pc", row.pc), ("wc", row.wc), ("auto", row.auto), ("grouped", row.grouped)] {
            report.records.push(params(Record::new(NAME, &case, format!("{variant}_setup"), run.setup, "s")));
            report.records.push(params(Record::new(
                NAME,
                &case,
                format!("{variant}_evaluation"),
                run.evaluation,
                "s",
            )));
            report.records.push(params(
                Record::new(NAME, &case, format!("{variant}_total"), run.total(), "s")
                    .compared_to("raycross", row.raycross_build + row.raycross_classify),
            ));
        }
        report.records.push(params(Record::new(NAME, &case, "exact_per_pair", row.exact_per_pair, "s")));
        report.records.push(params(
            Record::new(NAME, &case, "raycross_total", row.raycross_build + row.raycross_classify, "s")
                .implementation("raycross"),
        ));
    }
    report
        .section("Setup and evaluation per case (one thread)")
        .paragraph(
            "The exact evaluator's total is its per-pair time × points × triangles. Every FMM and exact \
             classification was compared with raycross (an error is reported above otherwise). libigl's \
             fast winding number (when installed: `cargo xtask peers`) is one call that builds its tree and \
             evaluates all points, limited to one thread; its disagreements with raycross count points \
             strictly inside or outside that it puts on the other side of ½ (it does not guarantee the \
             classification).",
        )
        .table(table);

    // Table 2 of the paper: evaluation part, PC depth, spheres by grid.
    let spheres: Vec<&Row> =
        rows.iter().filter(|r| matches!(r.mesh, MeshCase::OctaSphere(l) if l >= 5)).collect();
    if !spheres.is_empty() {
        let mut levels: Vec<usize> = spheres.iter().map(|r| r.triangles).collect();
        levels.sort_unstable();
        levels.dedup();
        let mut headers = vec!["points".to_owned()];
        headers.extend(levels.iter().map(ToString::to_string));
        let mut t = Table::new(headers).align_right(&(1..=levels.len()).collect::<Vec<_>>());
        let mut grids: Vec<usize> = spheres.iter().filter(|r| r.grid > 0).map(|r| r.grid).collect();
        grids.sort_unstable();
        grids.dedup();
        // How much each point set's evaluation grows from the smallest mesh to the largest.
        let growth: Vec<String> = grids
            .iter()
            .filter_map(|&g| {
                let at = |n: usize| {
                    spheres.iter().find(|r| r.grid == g && r.triangles == n).map(|r| r.pc.evaluation)
                };
                let (first, last) = (at(*levels.first()?)?, at(*levels.last()?)?);
                (levels.len() > 1).then(|| format!("{g}³ points ×{}", significant(last / first, 2)))
            })
            .collect();
        for g in grids {
            let mut cells = vec![format!("{g}³")];
            for &n in &levels {
                cells.push(
                    spheres
                        .iter()
                        .find(|r| r.grid == g && r.triangles == n)
                        .map_or("–".to_owned(), |r| duration(r.pc.evaluation)),
                );
            }
            t.push_row(cells);
        }
        report
            .section("Paper Table 2: evaluation part, PC depth (octa-spheres by triangles)")
            .paragraph(format!(
                "Evaluation time of all points (PC depth). The paper's Table 2: for a given point set, \
                 the evaluation grows only mildly with the mesh. Here, from the smallest mesh to the \
                 largest: {}.",
                if growth.is_empty() { "one mesh only".to_owned() } else { growth.join(", ") }
            ))
            .table(t);
    }
    if let Some(target) = rows.iter().find(|r| r.grid == 0) {
        let mut t = Table::new(["quantity", "measured", "target"]);
        t.push_row([
            "PC total (setup + classification)".to_owned(),
            duration(target.pc.total()),
            "≤ 0.3 s".to_owned(),
        ]);
        t.push_row(["Auto total".to_owned(), duration(target.auto.total()), "≤ 0.3 s".to_owned()]);
        t.push_row([
            "PC + grouping total (the default configuration)".to_owned(),
            duration(target.grouped.total()),
            "≤ 0.3 s".to_owned(),
        ]);
        t.push_row([
            "misclassifications (vs raycross)".to_owned(),
            target.mismatches.to_string(),
            "0".to_owned(),
        ]);
        t.push_row([
            "exact evaluator per point–triangle pair".to_owned(),
            format!("{:.1} ns", target.exact_per_pair * 1e9),
            "≤ 10 ns".to_owned(),
        ]);
        t.push_row([
            "raycross (build + classify), same points".to_owned(),
            duration(target.raycross_build + target.raycross_classify),
            "–".to_owned(),
        ]);
        if let Some((seconds, disagreements)) = target.igl {
            t.push_row([
                format!(
                    "{PEER} fast winding number (one thread), disagreements with raycross: {disagreements}"
                ),
                duration(seconds),
                "PC ≤ this".to_owned(),
            ]);
            t.push_row([
                "PC total / libigl".to_owned(),
                format!("{:.2}×", target.pc.total() / seconds),
                "≤ 1×".to_owned(),
            ]);
            t.push_row([
                "PC + grouping total / libigl".to_owned(),
                format!("{:.2}×", target.grouped.total() / seconds),
                "≤ 1×".to_owned(),
            ]);
        }
        if let Some((seconds, disagreements)) = target.fmm3d {
            t.push_row([
                format!(
                    "FMM3D Laplace dipole FMM, ε = 10⁻³, 3 dipoles per triangle (one thread), \
                     disagreements with raycross: {disagreements}"
                ),
                duration(seconds),
                "–".to_owned(),
            ]);
            t.push_row([
                "FMM3D / PC + grouping total".to_owned(),
                format!("{:.1}×", seconds / target.grouped.total()),
                "≥ 15×".to_owned(),
            ]);
        }
        report
            .section(format!(
                "Target case: {} random points in the box of the {}-triangle sphere",
                target.points, target.triangles
            ))
            .table(t);
    }
}

/// One measured time per row, where there is one.
type Pick = fn(&Row) -> Option<f64>;

/// A pair of plots (octa-spheres, foams): one time per grid drawn solid, another dashed.
struct PlotView {
    name: &'static str,
    legend: &'static str,
    solid: (&'static str, Pick),
    dashed: (&'static str, Pick),
}

fn add_plots(report: &mut Report, rows: &[Row], grids: &[usize]) {
    // The paper's method (PC) against raycross, then the default configuration (PC +
    // grouping) against libigl's fast winding number.
    let views = [
        PlotView {
            name: "total",
            legend: "PC solid, raycross dashed",
            solid: ("PC", |r| Some(r.pc.total())),
            dashed: ("raycross", |r| Some(r.raycross_build + r.raycross_classify)),
        },
        PlotView {
            name: "grouped",
            legend: "PC + grouping solid, libigl dashed",
            solid: ("PC + grouping", |r| Some(r.grouped.total())),
            dashed: ("libigl", |r| r.igl.map(|(seconds, _)| seconds)),
        },
    ];
    for PlotView { name: view, legend, solid: (solid_name, solid), dashed: (dashed_name, dashed) } in views {
        for family in ["octa_sphere", "foam"] {
            let mut plot = LogLogPlot::new(
                format!("{view}-{family}"),
                format!("Total time (setup + evaluation) vs triangles, {family} ({legend})"),
                "triangles",
                "time (s, one thread)",
            );
            for (i, &g) in grids.iter().enumerate() {
                let pick = |f: Pick| -> Vec<(f64, f64)> {
                    rows.iter()
                        .filter(|r| r.grid == g && r.mesh.family() == family)
                        .filter_map(|r| f(r).map(|t| (r.triangles as f64, t)))
                        .collect()
                };
                let first = pick(solid);
                if first.is_empty() {
                    continue;
                }
                plot.series.push(Series::new(format!("{g}³ {solid_name}"), first).with_color(i));
                let second = pick(dashed);
                if !second.is_empty() {
                    plot.series.push(Series::dashed(format!("{g}³ {dashed_name}"), second).with_color(i));
                }
            }
            if !plot.series.is_empty() {
                report.plots.push(plot);
            }
        }
    }
}
