//! The error type of the benchmark tooling.

use std::path::PathBuf;

/// Something went wrong while running a suite or writing its report.
///
/// Problems *inside* a measured case (a generator that panics, a peer that disagrees) are not
/// errors: they become [`Note`](crate::report::Note)s in the report so the other rows are still
/// written. A `BenchError` stops the suite.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BenchError {
    /// Reading or writing a file, or starting a process, failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Serialising or parsing JSON failed.
    #[error("{context}: {source}")]
    Json {
        /// What was being done.
        context: String,
        /// The underlying error.
        #[source]
        source: serde_json::Error,
    },
    /// Writing CSV failed.
    #[error("writing CSV: {0}")]
    Csv(#[from] csv::Error),
    /// Drawing a plot failed.
    #[error("drawing plot {name}: {message}")]
    Plot {
        /// The plot's file name.
        name: String,
        /// What the plotting backend said.
        message: String,
    },
    /// A suite name given on the command line is not registered.
    #[error("unknown suite {name:?}; known suites: {known}")]
    UnknownSuite {
        /// The name given.
        name: String,
        /// The registered names, comma separated.
        known: String,
    },
    /// An external command (Python, pip, git) failed.
    #[error("{program} failed: {message}")]
    Command {
        /// The program that was run.
        program: PathBuf,
        /// Its exit status and the tail of its standard error.
        message: String,
    },
}

impl BenchError {
    /// Wraps an I/O error with a description of what was being done.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Self::Io { context: context.into(), source }
    }

    /// Wraps a JSON error with a description of what was being done.
    pub fn json(context: impl Into<String>, source: serde_json::Error) -> Self {
        Self::Json { context: context.into(), source }
    }
}
