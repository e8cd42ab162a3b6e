//! The JSON output `SUITE.json`.

use super::{Note, Record, Report, RunInfo};
use crate::BenchError;
use serde::{Deserialize, Serialize};

/// The document written to `SUITE.json`.
///
/// ```
/// use collide_benches::report::{JsonReport, Record, Report, RunInfo, Mode};
/// let run = RunInfo::collect(std::path::Path::new("."), "cargo xtask bench", Mode::Full);
/// let mut report = Report::new("demo", "Demo", run);
/// report.records.push(Record::new("demo", "a", "time", 1.0, "s").compared_to("peer", 4.0));
/// let text = collide_benches::report::json::to_string(&report).unwrap();
/// let back: JsonReport = serde_json::from_str(&text).unwrap();
/// assert_eq!(back.records[0].ratio, Some(0.25));
/// assert_eq!(back.run.mode, Mode::Full);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonReport {
    /// The suite name.
    pub suite: String,
    /// The report title.
    pub title: String,
    /// Machine, date, command, commit, compiler and mode.
    pub run: RunInfo,
    /// Skipped peers, failures, disagreements.
    pub notes: Vec<Note>,
    /// Every measured value.
    pub records: Vec<Record>,
}

impl From<&Report> for JsonReport {
    fn from(report: &Report) -> Self {
        Self {
            suite: report.suite.clone(),
            title: report.title.clone(),
            run: report.run.clone(),
            notes: report.notes.clone(),
            records: report.records.clone(),
        }
    }
}

/// The report as pretty-printed JSON (with a trailing newline).
///
/// Non-finite values cannot be represented in JSON; records holding them are written with
/// `value: null`, which fails to parse back into a [`Record`]. Suites do not record them.
///
/// # Errors
/// If serialisation fails.
pub fn to_string(report: &Report) -> Result<String, BenchError> {
    let mut text = serde_json::to_string_pretty(&JsonReport::from(report))
        .map_err(|e| BenchError::json(format!("serialising {}.json", report.suite), e))?;
    text.push('\n');
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Level, Mode};
    use std::path::Path;

    #[test]
    fn records_round_trip() {
        let run = RunInfo::collect(Path::new("."), "cargo xtask bench --only demo", Mode::Quick);
        let mut report = Report::new("demo", "Demo", run);
        report.records = vec![
            Record::new("demo", "octa/L7", "validation_time_median", 0.0123, "s")
                .param("family", "octa_sphere")
                .param("level", 7)
                .param("triangles", 131_072)
                .compared_to("trimesh", 0.0456),
            Record::new("demo", "octa/L7", "validation_time_median", 0.0456, "s").implementation("trimesh"),
            Record::flag("demo", "octa/L7", "closed", true),
            Record::new("demo", "octa/L7", "signed_volume", 4.188_790_204_786_391, "length^3"),
        ];
        report.info("skipped a peer");
        let text = to_string(&report).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let first = &value["records"][0];
        for key in
            ["suite", "case", "parameters", "metric", "value", "unit", "implementation", "baseline", "ratio"]
        {
            assert!(first.get(key).is_some(), "missing {key}");
        }
        assert!(first["parameters"].is_object());
        assert_eq!(first["parameters"]["level"], 7);
        assert_eq!(first["baseline"], "trimesh");
        assert!(value["records"][1]["baseline"].is_null());
        let back: JsonReport = serde_json::from_str(&text).unwrap();
        assert_eq!(back, JsonReport::from(&report));
        assert_eq!(back.records[3].value, 4.188_790_204_786_391);
        assert_eq!(back.notes[0].level, Level::Info);
    }
}
