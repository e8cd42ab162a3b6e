//! The Markdown report `SUITE.md`.

use super::{Level, Report, Table};
use std::fmt::Write as _;

/// Escapes a table cell: `|` would end the cell and a newline the row.
///
/// ```
/// use collide_benches::report::markdown::escape_cell;
/// assert_eq!(escape_cell("a|b\nc"), "a\\|b c");
/// ```
pub fn escape_cell(cell: &str) -> String {
    cell.replace('|', "\\|").replace(['\r', '\n'], " ")
}

/// Renders a table as GitHub-flavoured Markdown. Short rows are padded with empty cells.
///
/// ```
/// use collide_benches::report::Table;
/// use collide_benches::report::markdown::table;
/// let mut t = Table::new(["mesh", "triangles"]).align_right(&[1]);
/// t.push_row(["sphere", "8"]);
/// assert_eq!(table(&t), "| mesh | triangles |\n| :--- | ---: |\n| sphere | 8 |\n");
/// ```
pub fn table(t: &Table) -> String {
    let columns = t.headers.len().max(t.rows.iter().map(Vec::len).max().unwrap_or(0));
    let cell = |row: &[String], i: usize| row.get(i).map_or_else(String::new, |c| escape_cell(c));
    let line = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
    let mut out = line((0..columns).map(|i| cell(&t.headers, i)).collect());
    out += &line(
        (0..columns)
            .map(|i| {
                if t.right_aligned.get(i).copied().unwrap_or(false) { "---:" } else { ":---" }.to_owned()
            })
            .collect(),
    );
    for row in &t.rows {
        out += &line((0..columns).map(|i| cell(row, i)).collect());
    }
    out
}

/// Renders the whole report: title, run table, introduction, sections, figures, notes.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", report.title);
    let mut run = Table::new(["run", "value"]);
    for (field, value) in report.run.rows() {
        run.push_row([field, value]);
    }
    out += &table(&run);
    out.push('\n');
    for paragraph in &report.introduction {
        let _ = writeln!(out, "{paragraph}\n");
    }
    if report.has_errors() {
        let _ = writeln!(out, "> **ERROR**: this run reported problems; see [Notes](#notes).\n");
    }
    for section in &report.sections {
        let _ = writeln!(out, "## {}\n", section.heading);
        for paragraph in &section.paragraphs {
            let _ = writeln!(out, "{paragraph}\n");
        }
        for t in &section.tables {
            out += &table(t);
            out.push('\n');
        }
    }
    if !report.plots.is_empty() {
        out += "## Figures\n\n";
        for plot in &report.plots {
            let _ = writeln!(out, "![{}]({})\n", plot.title, report.plot_file_name(plot));
        }
    }
    if !report.notes.is_empty() {
        out += "## Notes\n\n";
        for note in &report.notes {
            let tag = match note.level {
                Level::Info => "",
                Level::Error => "**ERROR**: ",
            };
            let _ = writeln!(out, "- {tag}{}", note.text.replace('\n', " "));
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "Every measured value above is also in [`{0}.csv`]({0}.csv) and [`{0}.json`]({0}.json), with its \
         parameters (times in seconds unless the record's unit says otherwise); values derived from \
         them in the tables (per-object times, shares, sums) follow from those records.",
        report.suite
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{LogLogPlot, Mode, Record, RunInfo, Series};
    use std::path::Path;

    fn report() -> Report {
        let run = RunInfo::collect(Path::new("."), "cargo xtask bench --only demo", Mode::Quick);
        let mut r = Report::new("demo", "Demo suite", run);
        r.introduction.push("What is measured.".into());
        let mut t = Table::new(["case", "time | median", "n"]).align_right(&[1, 2]);
        t.push_row(["a", "1.00 ms", "3"]);
        t.push_row(["b|c", "2.00 ms"]);
        r.section("Timings").paragraph("Medians of 7 runs.").table(t);
        r.records.push(Record::new("demo", "a", "time", 1e-3, "s"));
        r.plots
            .push(LogLogPlot::new("time", "Time", "n", "s").with_series(Series::new("a", vec![(1.0, 1.0)])));
        r.info("peer xyz is not installed: skipped");
        r.notes.push(crate::report::Note { level: Level::Error, text: "case b failed".into() });
        r
    }

    #[test]
    fn well_formed_tables() {
        let md = render(&report());
        assert!(md.starts_with("# Demo suite\n\n| run | value |\n| :--- | :--- |\n"));
        assert!(md.contains("| command | `cargo xtask bench --only demo` |"));
        assert!(md.contains("| mode | quick |"));
        // Every table line has the same number of unescaped pipes as its header.
        for block in md.split("\n\n").filter(|b| b.starts_with('|')) {
            let pipes = |l: &str| l.replace("\\|", "").matches('|').count();
            let mut lines = block.lines();
            let header = pipes(lines.next().unwrap());
            for line in lines {
                assert_eq!(pipes(line), header, "ragged row {line:?} in\n{block}");
            }
        }
        assert!(md.contains("| case | time \\| median | n |\n| :--- | ---: | ---: |\n| a | 1.00 ms | 3 |\n"));
        assert!(md.contains("| b\\|c | 2.00 ms |  |"));
        assert!(md.contains("![Time](demo-time.svg)"));
        assert!(md.contains("- peer xyz is not installed: skipped"));
        assert!(md.contains("- **ERROR**: case b failed"));
        assert!(md.contains("> **ERROR**"));
    }
}
