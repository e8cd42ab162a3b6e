//! The benchmark suites and the runner behind `cargo xtask bench`.
//!
//! A suite is a type implementing [`Suite`], listed once in [`SUITES`]. The runner selects suites
//! by name, gives each a [`SuiteContext`] (mode, timing configuration, run description, workspace
//! root, peer policy), and writes the [`Report`] it returns into the output directory. A suite
//! that returns an error does not stop the others.
//!
//! ```
//! use collide_benches::suites::{self, SUITES};
//! assert!(SUITES.iter().any(|s| s.name() == "geometry"));
//! let picked = suites::select(&["geometry".to_owned()]).unwrap();
//! assert_eq!(picked.len(), 1);
//! assert!(suites::select(&["no-such-suite".to_owned()]).is_err());
//! ```

pub mod ellipsoid;
pub mod fmm_dlp;
pub mod geometry;
pub mod hhgrid;
pub mod hhgrid_mpi;
pub mod kinetic;
pub mod raycross;

use crate::BenchError;
use crate::peers::PythonEnv;
use crate::progress::Progress;
use crate::report::{HostSpeed, Level, Mode, Note, Report, RunInfo};
use crate::timing::TimingConfig;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A benchmark suite: a sweep that measures something and reports it.
///
/// Implementations are unit structs registered in [`SUITES`]. `run` should
/// * size its sweep by [`SuiteContext::mode`] (the quick mode of *all* suites together must stay
///   within a few minutes on a 2-core machine),
/// * time with [`crate::timing`] using [`SuiteContext::timing`], and seed all randomness with
///   `rand_chacha` fixed seeds,
/// * show progress with [`crate::progress::Progress`],
/// * turn a failing case or a disagreeing peer into [`Report::error`] rather than an `Err`, so the
///   other rows are still written, and a missing peer into [`Report::info`].
pub trait Suite: Sync {
    /// The name used by `--only` and as the output file stem (lowercase, `-` separated).
    fn name(&self) -> &'static str;

    /// One line for `--list`.
    fn description(&self) -> &'static str;

    /// The Python modules of the peers this suite compares against (shown by `--list`).
    fn python_peers(&self) -> &'static [&'static str] {
        &[]
    }

    /// Runs the sweep and returns the filled report.
    ///
    /// # Errors
    /// Only for problems that make the whole report meaningless (e.g. a temporary directory cannot
    /// be created).
    fn run(&self, ctx: &SuiteContext) -> Result<Report, BenchError>;
}

/// Every suite, in the order `cargo xtask bench` runs them.
pub static SUITES: &[&dyn Suite] = &[
    &geometry::Geometry,
    &hhgrid::HhGrid,
    &hhgrid_mpi::HhGridMpi,
    &raycross::RayCross,
    &fmm_dlp::FmmDlpSuite,
    &ellipsoid::EllipsoidSuite,
    &kinetic::KineticSuite,
    &kinetic::KineticPhysicsSuite,
];

/// Finds a registered suite by name.
pub fn find(name: &str) -> Option<&'static dyn Suite> {
    SUITES.iter().copied().find(|s| s.name() == name)
}

/// The suites named in `only` (all when empty), in registry order, without duplicates.
///
/// # Errors
/// [`BenchError::UnknownSuite`] for a name that is not registered.
pub fn select(only: &[String]) -> Result<Vec<&'static dyn Suite>, BenchError> {
    for name in only {
        if find(name).is_none() {
            return Err(BenchError::UnknownSuite {
                name: name.clone(),
                known: SUITES.iter().map(|s| s.name()).collect::<Vec<_>>().join(", "),
            });
        }
    }
    Ok(SUITES.iter().copied().filter(|s| only.is_empty() || only.iter().any(|n| n == s.name())).collect())
}

/// What a suite gets to run with.
#[derive(Debug, Clone)]
pub struct SuiteContext {
    /// Quick or full.
    pub mode: Mode,
    /// How to repeat measurements.
    pub timing: TimingConfig,
    /// The report header facts, collected once at the start of the run.
    pub run: RunInfo,
    /// The workspace root (where `.venv-peers/` lives).
    pub root: PathBuf,
    /// Whether peers may be used (`--no-peers` turns them off).
    pub peers: bool,
}

impl SuiteContext {
    /// A context for `mode` with that mode's default timing.
    pub fn new(mode: Mode, run: RunInfo, root: PathBuf) -> Self {
        let timing = match mode {
            Mode::Quick => TimingConfig::quick(),
            Mode::Full => TimingConfig::full(),
        };
        Self { mode, timing, run, root, peers: true }
    }

    /// An empty report for `suite`, carrying this run's header facts.
    pub fn report(&self, suite: &dyn Suite, title: impl Into<String>) -> Report {
        Report::new(suite.name(), title, self.run.clone())
    }

    /// A Python interpreter with all of `modules`, or the reason (for the report's note) why the
    /// peer is skipped.
    ///
    /// # Errors
    /// The reason, when peers are turned off or no interpreter has the modules.
    pub fn python(&self, modules: &[&str]) -> Result<PythonEnv, String> {
        if self.peers {
            PythonEnv::find(&self.root, modules)
        } else {
            Err("peers turned off by --no-peers".to_owned())
        }
    }

    /// A one-sentence description of the timing method, for report introductions.
    pub fn timing_sentence(&self) -> String {
        let t = &self.timing;
        format!(
            "Each time is the median (and minimum) of up to {} samples (at least {}, fewer only once {} \
             have been spent on one measurement) after one warm-up call; calls faster than {} are \
             batched and the batch time divided by the number of calls.",
            t.samples,
            t.min_samples,
            crate::report::format::duration(t.max_total_time.as_secs_f64()),
            crate::report::format::duration(t.min_sample_time.as_secs_f64()),
        )
    }
}

/// Measures every case in turn, showing progress on standard error, and returns the results of
/// the cases that succeeded, in order.
///
/// A case whose `measure` returns `Err(reason)` or panics (e.g. a generator that is not written
/// yet) becomes an [`Level::Error`] note in `report` ("`NAME`: reason; no row for it") and
/// is left out; the sweep goes on with the next case.
///
/// ```
/// use collide_benches::report::{Mode, Report, RunInfo};
/// use collide_benches::suites::sweep;
/// let mut report = Report::new("demo", "Demo", RunInfo::collect(".".as_ref(), "doc", Mode::Quick));
/// let squares = sweep(&mut report, &[1, 2, 3], |n| format!("n={n}"), |&n| {
///     if n == 2 { Err("two is unlucky".to_owned()) } else { Ok(n * n) }
/// });
/// assert_eq!(squares, [1, 9]);
/// assert!(report.has_errors());
/// assert_eq!(report.notes[0].text, "`n=2`: two is unlucky; no row for it");
/// ```
pub fn sweep<C, R>(
    report: &mut Report,
    cases: &[C],
    name: impl Fn(&C) -> String,
    mut measure: impl FnMut(&C) -> Result<R, String>,
) -> Vec<R> {
    let mut progress = Progress::new(report.suite.clone(), cases.len());
    let mut results = Vec::with_capacity(cases.len());
    for case in cases {
        let case_name = name(case);
        progress.start(&case_name);
        let reason = match catch_unwind(AssertUnwindSafe(|| measure(case))) {
            Ok(Ok(result)) => {
                results.push(result);
                None
            }
            Ok(Err(reason)) => Some(reason),
            Err(payload) => Some(format!("panicked: {}", panic_message(payload.as_ref()))),
        };
        if let Some(reason) = reason {
            let text = format!("`{case_name}`: {reason}; no row for it");
            progress.println(&format!("ERROR [{}]: {text}", report.suite));
            report.notes.push(Note { level: Level::Error, text });
        }
        progress.advance();
    }
    progress.finish();
    results
}

/// The message of a panic payload (`&str` or `String`, as `panic!` makes them).
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic payload".to_owned())
}

/// The result of running one suite.
#[derive(Debug)]
pub struct SuiteOutcome {
    /// The suite's name.
    pub suite: &'static str,
    /// Wall-clock time of the suite, including writing its report.
    pub elapsed: Duration,
    /// The files written (empty if the suite failed).
    pub files: Vec<PathBuf>,
    /// The number of error notes in the report.
    pub errors: usize,
    /// Set when the suite itself failed and wrote nothing.
    pub failure: Option<BenchError>,
}

impl SuiteOutcome {
    /// Whether the suite ran and reported no error.
    pub fn is_ok(&self) -> bool {
        self.failure.is_none() && self.errors == 0
    }
}

/// Runs `suites` one after another with `ctx`, writing each report into `out_dir`. Each
/// report's header gets the host's speed measured just before and just after its suite (see
/// [`HostSpeed`]).
pub fn run(suites: &[&'static dyn Suite], ctx: &SuiteContext, out_dir: &Path) -> Vec<SuiteOutcome> {
    suites
        .iter()
        .map(|suite| {
            let started = Instant::now();
            eprintln!("== {} ({} mode) ==", suite.name(), ctx.mode);
            let start_speed = HostSpeed::measure();
            eprintln!("host speed: {}", start_speed.describe());
            let result = suite.run(ctx).and_then(|mut report| {
                report.run.host_speed = Some((start_speed, HostSpeed::measure()));
                let files = report.write(out_dir)?;
                Ok((files, report.notes.iter().filter(|n| n.level == Level::Error).count()))
            });
            let elapsed = started.elapsed();
            match result {
                Ok((files, errors)) => {
                    SuiteOutcome { suite: suite.name(), elapsed, files, errors, failure: None }
                }
                Err(e) => SuiteOutcome {
                    suite: suite.name(),
                    elapsed,
                    files: Vec::new(),
                    errors: 0,
                    failure: Some(e),
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_well_formed() {
        let mut names: Vec<&str> = SUITES.iter().map(|s| s.name()).collect();
        for s in SUITES {
            assert!(s.name().chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'));
            assert!(!s.description().is_empty() && !s.description().contains('\n'));
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), SUITES.len());
    }

    #[test]
    fn sweep_survives_panicking_cases() {
        let run = RunInfo::collect(Path::new("."), "test", Mode::Quick);
        let mut report = Report::new("demo", "Demo", run);
        let out = sweep(&mut report, &[1u32, 2, 3], u32::to_string, |&n| {
            assert!(n != 3, "case three is not implemented");
            Ok(n * 10)
        });
        assert_eq!(out, [10, 20]);
        assert_eq!(report.notes.len(), 1);
        assert_eq!(report.notes[0].text, "`3`: panicked: case three is not implemented; no row for it");
    }

    #[test]
    fn select_keeps_registry_order_without_duplicates() {
        let all = select(&[]).unwrap();
        assert_eq!(all.len(), SUITES.len());
        let twice = select(&["geometry".into(), "geometry".into()]).unwrap();
        assert_eq!(twice.len(), 1);
        match select(&["nope".into()]) {
            Err(BenchError::UnknownSuite { name, known }) => {
                assert_eq!(name, "nope");
                assert!(known.contains("geometry"));
            }
            Err(other) => panic!("expected UnknownSuite, got {other:?}"),
            Ok(v) => panic!("expected an error, got {} suites", v.len()),
        }
    }
}
