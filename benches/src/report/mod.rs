//! Report writers shared by every suite: Markdown, CSV, JSON and log-log SVG plots.
//!
//! A suite fills a [`Report`]: the [`RunInfo`] header, prose and [`Table`]s in [`Section`]s, one
//! [`Record`] per measured value, [`LogLogPlot`]s and [`Note`]s (skipped peers, failed cases,
//! disagreements). [`Report::write`] then produces, in the output directory,
//!
//! * `SUITE.md`: the header table, the sections, links to the plots and the notes;
//! * `SUITE.csv`: one line per record, parameters flattened into `param.NAME` columns;
//! * `SUITE.json`: a [`JsonReport`] (run info, notes, records);
//! * `SUITE-PLOT.svg`: one file per plot.
//!
//! ```
//! use collide_benches::report::{Record, Report, RunInfo, Mode, Table};
//! let run = RunInfo::collect(std::path::Path::new("."), "cargo xtask bench --only demo", Mode::Quick);
//! let mut report = Report::new("demo", "A demonstration", run);
//! report.records.push(Record::new("demo", "n=10", "time_median", 1.5e-6, "s").param("n", 10));
//! let mut table = Table::new(["n", "time"]);
//! table.push_row(["10", "1.50 µs"]);
//! report.section("Results").table(table);
//! let dir = tempfile::tempdir().unwrap();
//! let written = report.write(dir.path()).unwrap();
//! assert_eq!(written.len(), 3); // md, csv, json (no plots)
//! assert!(std::fs::read_to_string(dir.path().join("demo.md")).unwrap().contains("| 10 | 1.50 µs |"));
//! ```

pub mod csv;
pub mod format;
pub mod host_speed;
pub mod json;
pub mod markdown;
pub mod plot;
pub mod run_info;

pub use host_speed::HostSpeed;
pub use json::JsonReport;
pub use plot::{LogLogPlot, Series};
pub use run_info::{MachineInfo, Mode, RunInfo};

use crate::BenchError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The implementation that the suites in this workspace measure, as named in [`Record::implementation`].
pub const OURS: &str = "collide";

/// One measured (or derived) value: the unit of the CSV and JSON outputs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The suite that measured it, e.g. `geometry`.
    pub suite: String,
    /// The case within the suite, e.g. `octa_sphere/L5`.
    pub case: String,
    /// The case's parameters (sizes, levels, seeds, ...).
    pub parameters: BTreeMap<String, serde_json::Value>,
    /// What was measured, e.g. `validation_time_median`.
    pub metric: String,
    /// The value, in `unit`. Booleans are recorded as `1` (true) and `0` (false).
    pub value: f64,
    /// The unit of `value`: `s`, `triangles/s`, `count`, `bool`, ...
    pub unit: String,
    /// Whose code produced the value: [`OURS`] or a peer's name (e.g. `trimesh`).
    pub implementation: String,
    /// The peer this value is compared with, if any.
    pub baseline: Option<String>,
    /// `value / (baseline's value of the same metric)`; for times, below 1 means ours is faster.
    pub ratio: Option<f64>,
}

impl Record {
    /// A record of our implementation with no parameters and no baseline.
    pub fn new(
        suite: impl Into<String>,
        case: impl Into<String>,
        metric: impl Into<String>,
        value: f64,
        unit: impl Into<String>,
    ) -> Self {
        Self {
            suite: suite.into(),
            case: case.into(),
            parameters: BTreeMap::new(),
            metric: metric.into(),
            value,
            unit: unit.into(),
            implementation: OURS.to_owned(),
            baseline: None,
            ratio: None,
        }
    }

    /// A boolean record (`1` or `0`, unit `bool`).
    pub fn flag(
        suite: impl Into<String>,
        case: impl Into<String>,
        metric: impl Into<String>,
        value: bool,
    ) -> Self {
        Self::new(suite, case, metric, f64::from(u8::from(value)), "bool")
    }

    /// Adds a parameter.
    #[must_use]
    pub fn param(mut self, key: impl Into<String>, value: impl Into<serde_json::Value>) -> Self {
        self.parameters.insert(key.into(), value.into());
        self
    }

    /// Replaces all parameters.
    #[must_use]
    pub fn params(mut self, parameters: &BTreeMap<String, serde_json::Value>) -> Self {
        self.parameters.clone_from(parameters);
        self
    }

    /// Marks the value as measured on another implementation (a peer).
    #[must_use]
    pub fn implementation(mut self, name: impl Into<String>) -> Self {
        self.implementation = name.into();
        self
    }

    /// Compares the value with `baseline`'s value of the same metric, setting `ratio`.
    #[must_use]
    pub fn compared_to(mut self, baseline: impl Into<String>, baseline_value: f64) -> Self {
        self.baseline = Some(baseline.into());
        self.ratio = Some(self.value / baseline_value);
        self
    }
}

/// A Markdown table: headers and rows of preformatted cells.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    /// Column headers.
    pub headers: Vec<String>,
    /// Rows; each should have as many cells as there are headers.
    pub rows: Vec<Vec<String>>,
    /// Columns to right-align (numbers); the others are left-aligned.
    pub right_aligned: Vec<bool>,
}

impl Table {
    /// An empty table with these headers; columns whose first row parses as a number are
    /// right-aligned unless [`Table::align_right`] says otherwise.
    pub fn new<S: Into<String>>(headers: impl IntoIterator<Item = S>) -> Self {
        let headers: Vec<String> = headers.into_iter().map(Into::into).collect();
        Self { right_aligned: vec![false; headers.len()], headers, rows: Vec::new() }
    }

    /// Sets which columns are right-aligned.
    #[must_use]
    pub fn align_right(mut self, columns: &[usize]) -> Self {
        for &c in columns {
            if let Some(slot) = self.right_aligned.get_mut(c) {
                *slot = true;
            }
        }
        self
    }

    /// Appends a row.
    pub fn push_row<S: Into<String>>(&mut self, cells: impl IntoIterator<Item = S>) {
        self.rows.push(cells.into_iter().map(Into::into).collect());
    }
}

/// A titled part of the Markdown report: paragraphs and tables, in that order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Section {
    /// The `##` heading.
    pub heading: String,
    /// Paragraphs of Markdown shown before the tables.
    pub paragraphs: Vec<String>,
    /// The tables.
    pub tables: Vec<Table>,
}

impl Section {
    /// Adds a paragraph.
    pub fn paragraph(&mut self, text: impl Into<String>) -> &mut Self {
        self.paragraphs.push(text.into());
        self
    }

    /// Adds a table.
    pub fn table(&mut self, table: Table) -> &mut Self {
        self.tables.push(table);
        self
    }
}

/// How serious a [`Note`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Context, e.g. a peer that is not installed and was skipped.
    Info,
    /// Something the reader must look at, e.g. a case that failed or a peer that disagrees. The
    /// report is still written, but `cargo xtask bench` exits with an error.
    Error,
}

/// A remark shown in the report and on standard error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    /// How serious it is.
    pub level: Level,
    /// The text (one line of Markdown).
    pub text: String,
}

/// Everything one suite run produced, ready to be written.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The suite name, which is also the file stem of the outputs.
    pub suite: String,
    /// The `#` title of the Markdown report.
    pub title: String,
    /// The header facts.
    pub run: RunInfo,
    /// Paragraphs shown under the header table (what is measured, how).
    pub introduction: Vec<String>,
    /// The report body.
    pub sections: Vec<Section>,
    /// Every measured value.
    pub records: Vec<Record>,
    /// The figures, written as `SUITE-NAME.svg`.
    pub plots: Vec<LogLogPlot>,
    /// Remarks: skipped peers, failures, disagreements.
    pub notes: Vec<Note>,
}

impl Report {
    /// An empty report for `suite`.
    pub fn new(suite: impl Into<String>, title: impl Into<String>, run: RunInfo) -> Self {
        Self {
            suite: suite.into(),
            title: title.into(),
            run,
            introduction: Vec::new(),
            sections: Vec::new(),
            records: Vec::new(),
            plots: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Appends a new section and returns it for filling.
    pub fn section(&mut self, heading: impl Into<String>) -> &mut Section {
        self.sections.push(Section { heading: heading.into(), ..Section::default() });
        self.sections.last_mut().expect("just pushed")
    }

    /// Adds an informational note.
    pub fn info(&mut self, text: impl Into<String>) {
        self.notes.push(Note { level: Level::Info, text: text.into() });
    }

    /// Adds an error note (the run's exit status becomes a failure) and prints it at once.
    pub fn error(&mut self, text: impl Into<String>) {
        let text = text.into();
        eprintln!("ERROR [{}]: {text}", self.suite);
        self.notes.push(Note { level: Level::Error, text });
    }

    /// Whether any note is an error.
    pub fn has_errors(&self) -> bool {
        self.notes.iter().any(|n| n.level == Level::Error)
    }

    /// The file name of one of this report's plots.
    pub fn plot_file_name(&self, plot: &LogLogPlot) -> String {
        format!("{}-{}.svg", self.suite, plot.name)
    }

    /// Writes `SUITE.md`, `SUITE.csv`, `SUITE.json` and the plots into `dir` (created if needed)
    /// and returns the paths written.
    ///
    /// # Errors
    /// If the directory cannot be created, a file cannot be written or a plot cannot be drawn.
    pub fn write(&self, dir: &Path) -> Result<Vec<PathBuf>, BenchError> {
        std::fs::create_dir_all(dir).map_err(|e| BenchError::io(format!("creating {}", dir.display()), e))?;
        let mut written = Vec::new();
        let mut put = |name: String, contents: &[u8]| -> Result<(), BenchError> {
            let path = dir.join(name);
            std::fs::write(&path, contents)
                .map_err(|e| BenchError::io(format!("writing {}", path.display()), e))?;
            written.push(path);
            Ok(())
        };
        for plot in &self.plots {
            put(self.plot_file_name(plot), plot.render_svg()?.as_bytes())?;
        }
        put(format!("{}.md", self.suite), markdown::render(self).as_bytes())?;
        put(format!("{}.csv", self.suite), &csv::to_bytes(&self.records)?)?;
        put(format!("{}.json", self.suite), json::to_string(self)?.as_bytes())?;
        Ok(written)
    }
}
