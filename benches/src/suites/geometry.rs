//! `geometry`: mesh generation and validation throughput.
//!
//! For `octa_sphere(level)`, levels 0–7, and the gyroid foams (`foam(FoamSize::…)`): triangle and
//! vertex counts, generation time, validation time (`TriMesh::new` on the arrays of
//! `mesh.clone().into_parts()`, the clone untimed), validation throughput and the facts of
//! `mesh.report()`. Peer: Python `trimesh` (`Trimesh(vertices, faces, process=False)` plus
//! `is_watertight`, `is_winding_consistent`, `volume`), which must agree on watertightness,
//! winding and volume.

use super::{Suite, SuiteContext, sweep};
use crate::BenchError;
use crate::peers::PythonEnv;
use crate::report::format::{count, duration, si, significant, yes_no};
use crate::report::{LogLogPlot, Record, Report, Series, Table};
use crate::timing::{Timing, TimingConfig, time_each};
use geometry_core::TriMesh;
use geometry_core::generators::{FoamSize, GeneratorError, foam, octa_sphere};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::Path;

/// The geometry suite (see the [module documentation](self)).
#[derive(Debug, Clone, Copy, Default)]
pub struct Geometry;

const NAME: &str = "geometry";
const PEER: &str = "trimesh";
const PEER_SCRIPT: &str = include_str!("../../peers/trimesh_geometry.py");
/// Relative tolerance for the volume comparison with the peer.
const VOLUME_RTOL: f64 = 1e-9;

/// One mesh of the sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeshCase {
    /// `octa_sphere(level)`.
    OctaSphere(usize),
    /// `foam(size)`.
    Foam(FoamSize),
}

impl MeshCase {
    /// The mesh family, one series per family in the plots.
    pub fn family(self) -> &'static str {
        match self {
            MeshCase::OctaSphere(_) => "octa_sphere",
            MeshCase::Foam(_) => "foam",
        }
    }

    /// The case name, e.g. `octa_sphere/L3` or `foam/small`.
    pub fn name(self) -> String {
        match self {
            MeshCase::OctaSphere(level) => format!("octa_sphere/L{level}"),
            MeshCase::Foam(size) => format!("foam/{}", foam_size_name(size)),
        }
    }

    /// The generator parameters.
    pub fn parameters(self) -> BTreeMap<String, Value> {
        let mut p = BTreeMap::from([("family".to_owned(), json!(self.family()))]);
        match self {
            MeshCase::OctaSphere(level) => p.insert("level".into(), json!(level)),
            MeshCase::Foam(size) => p.insert("size".into(), json!(foam_size_name(size))),
        };
        p
    }

    /// Runs the generator.
    ///
    /// # Errors
    /// The generator's error.
    pub fn generate(self) -> Result<TriMesh, GeneratorError> {
        match self {
            MeshCase::OctaSphere(level) => octa_sphere(level),
            MeshCase::Foam(size) => foam(size),
        }
    }

    /// The sweep: octa-sphere levels 0–7 (the paper's range) and the three foams. The whole sweep
    /// takes seconds, so quick and full mode measure the same meshes (full mode repeats more).
    pub fn sweep() -> Vec<MeshCase> {
        (0..=7)
            .map(MeshCase::OctaSphere)
            .chain([FoamSize::Small, FoamSize::Medium, FoamSize::Large].map(MeshCase::Foam))
            .collect()
    }
}

fn foam_size_name(size: FoamSize) -> &'static str {
    match size {
        FoamSize::Small => "small",
        FoamSize::Medium => "medium",
        FoamSize::Large => "large",
    }
}

/// What was measured for one mesh.
#[derive(Debug, Clone)]
struct Row {
    case: MeshCase,
    triangles: usize,
    vertices: usize,
    edges: usize,
    generation: Timing,
    validation: Timing,
    closed: bool,
    oriented: bool,
    outward: bool,
    euler: i64,
    components: usize,
    volume: f64,
    peer: Option<PeerResult>,
}

impl Row {
    /// Genus of a closed orientable surface with `components` pieces: `χ = 2c − 2g`.
    fn genus(&self) -> Option<i64> {
        (self.closed && self.oriented).then(|| self.components as i64 - self.euler / 2)
    }
}

/// The peer script's measurement of one mesh.
#[derive(Debug, Clone, Deserialize)]
struct PeerResult {
    case: String,
    is_watertight: bool,
    is_winding_consistent: bool,
    volume: f64,
    median: f64,
    min: f64,
    max: f64,
    samples: usize,
    iterations_per_sample: usize,
}

impl PeerResult {
    fn timing(&self) -> Timing {
        Timing {
            median: self.median,
            min: self.min,
            max: self.max,
            samples: self.samples,
            iterations_per_sample: self.iterations_per_sample,
        }
    }
}

#[derive(Debug, Deserialize)]
struct PeerOutput {
    trimesh: String,
    numpy: String,
    python: String,
    results: Vec<PeerResult>,
}

impl Suite for Geometry {
    fn name(&self) -> &'static str {
        NAME
    }

    fn description(&self) -> &'static str {
        "mesh generation and TriMesh validation throughput: octa_sphere levels 0-7 and the gyroid foams (peer: trimesh)"
    }

    fn python_peers(&self) -> &'static [&'static str] {
        &["trimesh"]
    }

    fn run(&self, ctx: &SuiteContext) -> Result<Report, BenchError> {
        let mut report = ctx.report(self, "geometry: mesh generation and validation throughput");
        report.introduction.push(
            "For each mesh: **generation** is one call of the generator (`octa_sphere(level)` or \
             `foam(size)`; generators return a validated `TriMesh`, so this includes one validation); \
             **validation** is `TriMesh::new(vertices, faces)` on the arrays of `mesh.clone().into_parts()` \
             (the clone is not timed): index and finiteness checks, the exact degeneracy test of every \
             face (parallel, rayon) and the `MeshReport` (edges, orientation, components, volume, \
             normals, areas). Throughput is triangles per second at the median validation time."
                .to_owned(),
        );
        report.introduction.push(ctx.timing_sentence());
        let cases = MeshCase::sweep();

        let peer = match ctx.python(&["numpy", PEER]) {
            Ok(env) => Some(env),
            Err(reason) => {
                let text = format!("peer {PEER} skipped: {reason}");
                eprintln!("note: {text}");
                report.info(text);
                None
            }
        };
        let transfer = tempfile::Builder::new()
            .prefix("collide-geometry-")
            .tempdir()
            .map_err(|e| BenchError::io("creating a temporary directory for the peer", e))?;
        let mut manifest = Vec::new();

        let mut rows = sweep(
            &mut report,
            &cases,
            |c| c.name(),
            |&case| {
                let (row, mesh) =
                    measure(case, &ctx.timing).map_err(|e| format!("the generator failed: {e}"))?;
                if peer.is_some() {
                    let entry = write_transfer(transfer.path(), manifest.len(), &case.name(), &mesh)
                        .map_err(|e| e.to_string())?;
                    manifest.push(entry);
                }
                Ok(row)
            },
        );

        if let Some(env) = &peer
            && !manifest.is_empty()
        {
            match run_peer(env, transfer.path(), &manifest, ctx) {
                Ok(output) => {
                    report.info(format!(
                        "peer: trimesh {}, numpy {} (Python {}, `{}`)",
                        output.trimesh,
                        output.numpy,
                        output.python,
                        env.python.strip_prefix(&ctx.root).unwrap_or(&env.python).display()
                    ));
                    for result in output.results {
                        if let Some(row) = rows.iter_mut().find(|r| r.case.name() == result.case) {
                            row.peer = Some(result);
                        }
                    }
                }
                Err(e) => report.error(format!("peer {PEER} failed to run: {e}")),
            }
        }

        add_results(&mut report, &rows, peer.is_some());
        Ok(report)
    }
}

/// Generates the mesh once (returned for the peer), then times generation and validation.
fn measure(case: MeshCase, timing: &TimingConfig) -> Result<(Row, TriMesh), GeneratorError> {
    let mesh = case.generate()?;
    // Each output is dropped before the next call, as the peer's are (kept alive, the meshes of
    // a sample made first-touch page faults part of every build).
    let generation = time_each(timing, || (), |()| case.generate().expect("the generator succeeded before"));
    let validation = time_each(
        timing,
        || mesh.clone().into_parts(),
        |(v, f)| TriMesh::new(v, f).expect("a generated mesh is valid"),
    );
    let r = mesh.report();
    let row = Row {
        case,
        triangles: mesh.faces().len(),
        vertices: mesh.vertices().len(),
        edges: r.edge_count(),
        generation,
        validation,
        closed: r.is_closed(),
        oriented: r.is_consistently_oriented(),
        outward: r.is_outward(),
        euler: r.euler_characteristic(),
        components: r.connected_components(),
        volume: r.signed_volume(),
        peer: None,
    };
    Ok((row, mesh))
}

/// Writes the mesh as raw little-endian arrays for the peer and returns its manifest entry.
fn write_transfer(dir: &Path, index: usize, case: &str, mesh: &TriMesh) -> Result<Value, BenchError> {
    let vertices_file = format!("{index}.vertices.f64");
    let faces_file = format!("{index}.faces.u32");
    let vertices: Vec<u8> =
        mesh.vertices().iter().flat_map(geometry_core::DVec3::to_array).flat_map(f64::to_le_bytes).collect();
    let faces: Vec<u8> = mesh.faces().iter().flatten().flat_map(|i| i.to_le_bytes()).collect();
    for (file, bytes) in [(&vertices_file, vertices), (&faces_file, faces)] {
        let path = dir.join(file);
        std::fs::write(&path, bytes).map_err(|e| BenchError::io(format!("writing {}", path.display()), e))?;
    }
    Ok(json!({
        "case": case,
        "vertices": vertices_file,
        "faces": faces_file,
        "n_vertices": mesh.vertices().len(),
        "n_faces": mesh.faces().len(),
    }))
}

fn run_peer(
    env: &PythonEnv,
    dir: &Path,
    cases: &[Value],
    ctx: &SuiteContext,
) -> Result<PeerOutput, BenchError> {
    let t = &ctx.timing;
    let manifest = json!({
        "timing": {
            "samples": t.samples,
            "min_samples": t.min_samples,
            "min_sample_time": t.min_sample_time.as_secs_f64(),
            "max_total_time": t.max_total_time.as_secs_f64(),
        },
        "cases": cases,
    });
    let path = dir.join("manifest.json");
    std::fs::write(&path, manifest.to_string())
        .map_err(|e| BenchError::io(format!("writing {}", path.display()), e))?;
    eprintln!("[{NAME}] running peer {PEER} on {} meshes", cases.len());
    let stdout = env.run_script(dir, "trimesh_geometry.py", PEER_SCRIPT, &[OsStr::new("manifest.json")])?;
    serde_json::from_str(&stdout).map_err(|e| BenchError::json("parsing the trimesh peer's output", e))
}

/// Whether our report and the peer's agree: watertight ⇔ closed, winding ⇔ consistently
/// oriented, and (for closed meshes) volumes within [`VOLUME_RTOL`].
fn agreement(row: &Row, peer: &PeerResult) -> (bool, bool, Option<f64>, bool) {
    let watertight = row.closed == peer.is_watertight;
    let winding = row.oriented == peer.is_winding_consistent;
    let volume_rel = (row.closed && peer.is_watertight).then(|| {
        (row.volume - peer.volume).abs() / row.volume.abs().max(peer.volume.abs()).max(f64::MIN_POSITIVE)
    });
    let all = watertight && winding && volume_rel.is_none_or(|d| d <= VOLUME_RTOL);
    (watertight, winding, volume_rel, all)
}

fn add_results(report: &mut Report, rows: &[Row], peer_available: bool) {
    let mut meshes = Table::new([
        "mesh",
        "triangles",
        "vertices",
        "generation (median)",
        "generation (min)",
        "validation (median)",
        "validation (min)",
        "validation throughput",
    ])
    .align_right(&[1, 2, 3, 4, 5, 6, 7]);
    let mut facts = Table::new([
        "mesh",
        "closed",
        "consistently oriented",
        "outward",
        "edges",
        "Euler characteristic",
        "components",
        "genus",
        "signed volume",
    ])
    .align_right(&[4, 5, 6, 7, 8]);
    let mut peers = Table::new([
        "mesh",
        "triangles",
        "collide, rayon on all cores (median)",
        "trimesh, one thread (median)",
        "collide / trimesh",
        "watertight",
        "winding consistent",
        "trimesh volume",
        "volume rel. diff.",
        "agree",
    ])
    .align_right(&[1, 2, 3, 4, 7, 8]);

    for row in rows {
        let case = row.case.name();
        let mut params = row.case.parameters();
        params.insert("triangles".into(), json!(row.triangles));
        params.insert("vertices".into(), json!(row.vertices));
        let rec = |metric: &str, value: f64, unit: &str| {
            Record::new(NAME, &case, metric, value, unit).params(&params)
        };
        let flag = |metric: &str, value: bool| Record::flag(NAME, &case, metric, value).params(&params);

        meshes.push_row([
            format!("`{case}`"),
            count(row.triangles),
            count(row.vertices),
            duration(row.generation.median),
            duration(row.generation.min),
            duration(row.validation.median),
            duration(row.validation.min),
            format!("{}triangles/s", si(row.validation.throughput(row.triangles))),
        ]);
        let genus = row.genus();
        facts.push_row([
            format!("`{case}`"),
            yes_no(row.closed).to_owned(),
            yes_no(row.oriented).to_owned(),
            yes_no(row.outward).to_owned(),
            count(row.edges),
            row.euler.to_string(),
            count(row.components),
            genus.map_or_else(|| "—".to_owned(), |g| g.to_string()),
            significant(row.volume, 10),
        ]);

        let mut records = vec![
            rec("triangles", row.triangles as f64, "count"),
            rec("vertices", row.vertices as f64, "count"),
            rec("edges", row.edges as f64, "count"),
            rec("generation_time_median", row.generation.median, "s"),
            rec("generation_time_min", row.generation.min, "s"),
        ];
        let validation = [
            rec("validation_time_median", row.validation.median, "s"),
            rec("validation_time_min", row.validation.min, "s"),
            rec("validation_throughput", row.validation.throughput(row.triangles), "triangles/s"),
        ];
        match &row.peer {
            Some(p) => {
                let pt = p.timing();
                let theirs = [pt.median, pt.min, pt.throughput(row.triangles)];
                records.extend(validation.into_iter().zip(theirs).map(|(r, b)| r.compared_to(PEER, b)));
            }
            None => records.extend(validation),
        }
        records.extend([
            flag("closed", row.closed),
            flag("consistently_oriented", row.oriented),
            flag("outward", row.outward),
            rec("euler_characteristic", row.euler as f64, "1"),
            rec("connected_components", row.components as f64, "count"),
            rec("signed_volume", row.volume, "length^3"),
        ]);
        if let Some(g) = genus {
            records.push(rec("genus", g as f64, "1"));
        }

        if let Some(p) = &row.peer {
            let pt = p.timing();
            let (watertight, winding, volume_rel, all) = agreement(row, p);
            if !all {
                report.error(format!(
                    "`{case}`: collide and trimesh DISAGREE: closed {} vs is_watertight {}, consistently \
                     oriented {} vs is_winding_consistent {}, signed volume {} vs {}",
                    row.closed, p.is_watertight, row.oriented, p.is_winding_consistent, row.volume, p.volume
                ));
            }
            peers.push_row([
                format!("`{case}`"),
                count(row.triangles),
                duration(row.validation.median),
                duration(pt.median),
                significant(row.validation.median / pt.median, 3),
                format!(
                    "{} ({})",
                    yes_no(p.is_watertight),
                    if watertight { "agrees" } else { "**DIFFERS**" }
                ),
                format!(
                    "{} ({})",
                    yes_no(p.is_winding_consistent),
                    if winding { "agrees" } else { "**DIFFERS**" }
                ),
                significant(p.volume, 10),
                volume_rel.map_or_else(
                    || "—".to_owned(),
                    |d| if d == 0.0 { "0".to_owned() } else { format!("{d:.1e}") },
                ),
                if all { "yes".to_owned() } else { "**NO**".to_owned() },
            ]);
            let theirs = |metric: &str, value: f64, unit: &str| rec(metric, value, unit).implementation(PEER);
            records.extend([
                theirs("validation_time_median", pt.median, "s"),
                theirs("validation_time_min", pt.min, "s"),
                theirs("validation_throughput", pt.throughput(row.triangles), "triangles/s"),
                Record::flag(NAME, &case, "closed", p.is_watertight).params(&params).implementation(PEER),
                Record::flag(NAME, &case, "consistently_oriented", p.is_winding_consistent)
                    .params(&params)
                    .implementation(PEER),
                theirs("signed_volume", p.volume, "length^3"),
            ]);
            let mut agree = flag("peer_agreement", all);
            agree.baseline = Some(PEER.to_owned());
            records.push(agree);
            if let Some(d) = volume_rel {
                let mut r = rec("volume_relative_difference", d, "1");
                r.baseline = Some(PEER.to_owned());
                records.push(r);
            }
        }
        report.records.extend(records);
    }

    report
        .section("Meshes")
        .paragraph(
            "Generation and validation time per mesh; throughput = triangles / median validation time.",
        )
        .table(meshes);
    report
        .section("Validation results")
        .paragraph(
            "From `mesh.report()`. Genus from χ = 2c − 2g (c components), shown only for closed, \
             consistently oriented meshes. Signed volume is positive for outward faces.",
        )
        .table(facts);
    let section = report.section(format!("Peer: {PEER}"));
    if peer_available && rows.iter().any(|r| r.peer.is_some()) {
        section
            .paragraph(
                "trimesh times `Trimesh(vertices, faces, process=False)` followed by `is_watertight`, \
                 `is_winding_consistent` and `volume` on a fresh object each call (single-threaded \
                 numpy; faces passed as int64). Both sides measured in this run with the same \
                 sampling scheme, each output dropped before the next call. collide's degeneracy test \
                 runs in parallel on every core of this machine and trimesh on one thread, so the \
                 ratio compares what each library does by default, not per core. `collide / trimesh` \
                 below 1 means collide validates faster; note \
                 that collide does more (exact degeneracy test of every face, components, normals, \
                 areas). The two must agree on closedness/watertightness, winding and (closed meshes) \
                 volume to a relative 1e-9.",
            )
            .table(peers);
    } else {
        section.paragraph(format!("Not measured: {PEER} was not available (see Notes)."));
    }

    // Plots: one series per family, peers dashed.
    let families: Vec<&str> = rows.iter().map(|r| r.case.family()).fold(Vec::new(), |mut acc, f| {
        if !acc.contains(&f) {
            acc.push(f);
        }
        acc
    });
    let series = |f: &str, value: &dyn Fn(&Row) -> Option<f64>| -> Vec<(f64, f64)> {
        rows.iter()
            .filter(|r| r.case.family() == f)
            .filter_map(|r| value(r).map(|v| (r.triangles as f64, v)))
            .collect()
    };
    let mut validation =
        LogLogPlot::new("validation", "TriMesh validation time", "triangles", "validation time (s, median)");
    let mut generation =
        LogLogPlot::new("generation", "Mesh generation time", "triangles", "generation time (s, median)");
    for &f in &families {
        validation.series.push(Series::new(f, series(f, &|r| Some(r.validation.median))));
        generation.series.push(Series::new(f, series(f, &|r| Some(r.generation.median))));
    }
    for (i, &f) in families.iter().enumerate() {
        let theirs = series(f, &|r| r.peer.as_ref().map(|p| p.median));
        if !theirs.is_empty() {
            validation.series.push(Series::dashed(format!("{f} ({PEER})"), theirs).with_color(i));
        }
    }
    for plot in [validation, generation] {
        if plot.ranges().is_some() {
            report.plots.push(plot);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Mode, RunInfo};

    #[test]
    fn sweep_sizes() {
        let sweep = MeshCase::sweep();
        assert_eq!(sweep.len(), 11);
        assert_eq!(sweep[0].name(), "octa_sphere/L0");
        assert_eq!(sweep[7].name(), "octa_sphere/L7");
        assert!(sweep.contains(&MeshCase::Foam(FoamSize::Large)));
        assert_eq!(MeshCase::Foam(FoamSize::Medium).parameters()["size"], "medium");
    }

    #[test]
    fn transfer_files_are_raw_little_endian() {
        let dir = tempfile::tempdir().unwrap();
        let mesh = octa_sphere(1).unwrap();
        let entry = write_transfer(dir.path(), 0, "octa_sphere/L1", &mesh).unwrap();
        assert_eq!(entry["n_faces"], 32);
        let v = std::fs::read(dir.path().join("0.vertices.f64")).unwrap();
        let f = std::fs::read(dir.path().join("0.faces.u32")).unwrap();
        assert_eq!(v.len(), mesh.vertices().len() * 24);
        assert_eq!(f.len(), 32 * 12);
        assert_eq!(f64::from_le_bytes(v[..8].try_into().unwrap()), mesh.vertices()[0].x);
        assert_eq!(u32::from_le_bytes(f[4..8].try_into().unwrap()), mesh.faces()[0][1]);
    }

    /// The whole pipeline on the small octa-sphere levels (no peer, one sample).
    #[test]
    fn pipeline_on_small_meshes() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunInfo::collect(dir.path(), "test", Mode::Quick);
        let mut ctx = SuiteContext::new(Mode::Quick, run, dir.path().to_owned());
        ctx.timing = TimingConfig::smoke();
        ctx.peers = false;
        let rows: Vec<Row> =
            (0..=3).map(|l| measure(MeshCase::OctaSphere(l), &ctx.timing).unwrap().0).collect();
        assert!(rows.iter().all(|r| r.genus() == Some(0)));
        let mut report = ctx.report(&Geometry, "test");
        add_results(&mut report, &rows, false);
        assert!(!report.has_errors());
        assert_eq!(report.plots.len(), 2);
        let triangles: Vec<f64> =
            report.records.iter().filter(|r| r.metric == "triangles").map(|r| r.value).collect();
        assert_eq!(triangles, [8.0, 32.0, 128.0, 512.0]);
        let files = report.write(dir.path()).unwrap();
        assert_eq!(files.len(), 5);
        let md = std::fs::read_to_string(dir.path().join("geometry.md")).unwrap();
        assert!(md.contains("| `octa_sphere/L3` | 512 | 258 |"), "{md}");
        assert!(md.contains("Not measured: trimesh"));
    }

    #[test]
    fn disagreement_is_an_error() {
        let mesh = octa_sphere(2).unwrap();
        let r = mesh.report();
        let t = Timing::from_samples(&[1e-4], 1).unwrap();
        let peer = |volume: f64, watertight: bool| PeerResult {
            case: "octa_sphere/L2".into(),
            is_watertight: watertight,
            is_winding_consistent: true,
            volume,
            median: 2e-4,
            min: 2e-4,
            max: 2e-4,
            samples: 1,
            iterations_per_sample: 1,
        };
        let row = Row {
            case: MeshCase::OctaSphere(2),
            triangles: 128,
            vertices: 66,
            edges: r.edge_count(),
            generation: t,
            validation: t,
            closed: true,
            oriented: true,
            outward: true,
            euler: 2,
            components: 1,
            volume: r.signed_volume(),
            peer: Some(peer(r.signed_volume() * (1.0 + 1e-12), true)),
        };
        assert!(agreement(&row, row.peer.as_ref().unwrap()).3);
        let run = RunInfo::collect(Path::new("."), "test", Mode::Quick);
        let ctx = SuiteContext::new(Mode::Quick, run, ".".into());

        let mut good = ctx.report(&Geometry, "t");
        add_results(&mut good, std::slice::from_ref(&row), true);
        assert!(!good.has_errors());
        let ratio = good
            .records
            .iter()
            .find(|r| r.metric == "validation_time_median" && r.implementation == "collide")
            .unwrap();
        assert_eq!((ratio.baseline.as_deref(), ratio.ratio), (Some("trimesh"), Some(0.5)));

        let mut bad_row = row.clone();
        bad_row.peer = Some(peer(r.signed_volume() * 1.01, true));
        let mut bad = ctx.report(&Geometry, "t");
        add_results(&mut bad, &[bad_row], true);
        assert!(bad.has_errors());
        let mut leaky = row;
        leaky.peer = Some(peer(0.0, false));
        assert!(!agreement(&leaky, leaky.peer.as_ref().unwrap()).0);
    }
}
