//! Progress of long sweeps on standard error.
//!
//! On a terminal this is an [`indicatif`] bar; otherwise (CI logs, redirected output) one line per
//! case, so a log still shows where a slow run is.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Instant;

/// A progress display for one sweep of `total` cases.
#[derive(Debug)]
pub struct Progress {
    label: String,
    total: u64,
    done: u64,
    bar: Option<ProgressBar>,
    started: Instant,
}

impl Progress {
    /// Starts a display labelled `label` (usually the suite name) for `total` cases.
    pub fn new(label: impl Into<String>, total: usize) -> Self {
        let label = label.into();
        let total = total as u64;
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{prefix:>12} [{bar:30}] {pos}/{len} {elapsed:>4} {wide_msg}")
                    .expect("the template is valid")
                    .progress_chars("=> "),
            );
            bar.set_prefix(label.clone());
            bar
        });
        Self { label, total, done: 0, bar, started: Instant::now() }
    }

    /// Announces that `case` is being measured.
    pub fn start(&self, case: &str) {
        match &self.bar {
            Some(bar) => bar.set_message(case.to_owned()),
            None => eprintln!("[{} {}/{}] {case}", self.label, self.done + 1, self.total),
        }
    }

    /// Marks one case as finished.
    pub fn advance(&mut self) {
        self.done += 1;
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    /// Prints a line without disturbing the bar.
    pub fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }

    /// Removes the bar and prints a summary line.
    pub fn finish(self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        eprintln!("[{}] {} cases in {:.1} s", self.label, self.done, self.started.elapsed().as_secs_f64());
    }
}
