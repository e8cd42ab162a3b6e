//! Where, when and how a benchmark ran: machine, date, command, commit, compiler, mode.

use super::HostSpeed;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

/// How thorough a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The default: reduced sizes and repeats, the whole run in a few minutes.
    Quick,
    /// The papers' sizes and more repeats (`--full`).
    Full,
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mode::Quick => "quick",
            Mode::Full => "full",
        })
    }
}

/// The hardware and operating system a run measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineInfo {
    /// The CPU model name from `/proc/cpuinfo` (`"unknown"` where unavailable).
    pub cpu_model: String,
    /// Logical processors listed in `/proc/cpuinfo`.
    pub logical_cpus: usize,
    /// Threads this process may use (`std::thread::available_parallelism`).
    pub available_parallelism: usize,
    /// Total memory from `/proc/meminfo`, in bytes (`None` where unavailable).
    pub memory_bytes: Option<u64>,
    /// Operating system and kernel release.
    pub os: String,
}

impl MachineInfo {
    /// Reads the current machine's description.
    pub fn detect() -> Self {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        let (cpu_model, logical_cpus) = parse_cpuinfo(&cpuinfo);
        let available_parallelism = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
        let os = if kernel.trim().is_empty() {
            std::env::consts::OS.to_owned()
        } else {
            format!("{} {}", std::env::consts::OS, kernel.trim())
        };
        Self {
            cpu_model,
            logical_cpus: logical_cpus.max(1),
            available_parallelism,
            memory_bytes: parse_meminfo_total(&meminfo),
            os,
        }
    }

    /// Memory as a human-readable string, e.g. `"23.4 GiB"`.
    pub fn memory_display(&self) -> String {
        self.memory_bytes
            .map_or_else(|| "unknown".to_owned(), |b| format!("{:.1} GiB", b as f64 / 1024f64.powi(3)))
    }
}

/// The CPU model name and the number of `processor` entries in `/proc/cpuinfo` text.
///
/// ```
/// let text = "processor\t: 0\nmodel name\t: Example CPU @ 3.0GHz\n\nprocessor\t: 1\nmodel name\t: Example CPU @ 3.0GHz\n";
/// let (model, n) = collide_benches::report::run_info::parse_cpuinfo(text);
/// assert_eq!((model.as_str(), n), ("Example CPU @ 3.0GHz", 2));
/// ```
pub fn parse_cpuinfo(text: &str) -> (String, usize) {
    let field = |line: &str, key: &str| -> Option<String> {
        let (k, v) = line.split_once(':')?;
        (k.trim() == key).then(|| v.trim().to_owned())
    };
    let model = text
        .lines()
        .find_map(|l| field(l, "model name"))
        // Some ARM kernels name the model only as "Hardware" or "CPU part".
        .or_else(|| text.lines().find_map(|l| field(l, "Hardware")))
        .unwrap_or_else(|| "unknown".to_owned());
    let count = text.lines().filter(|l| field(l, "processor").is_some()).count();
    (model, count)
}

/// `MemTotal` from `/proc/meminfo` text, in bytes.
///
/// ```
/// let bytes = collide_benches::report::run_info::parse_meminfo_total("MemTotal:       2048 kB\n");
/// assert_eq!(bytes, Some(2048 * 1024));
/// ```
pub fn parse_meminfo_total(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.trim_start_matches("MemTotal:").trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kib * 1024)
}

/// Everything the report header states about a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The machine.
    pub machine: MachineInfo,
    /// When the run started, `YYYY-MM-DD HH:MM:SS UTC`.
    pub date_utc: String,
    /// The command line that produced the report, e.g. `cargo xtask bench --only geometry`.
    pub command: String,
    /// `git rev-parse --short HEAD`, with `+dirty` when the work tree has changes.
    pub git_commit: String,
    /// The compiler that built the benchmarks (`rustc --version`).
    pub rustc: String,
    /// `release`, or `debug` when built without optimisations (such numbers mean little).
    pub build_profile: String,
    /// Quick or full.
    pub mode: Mode,
    /// How fast the host was when the suite started and when it ended (see [`HostSpeed`]);
    /// `None` where not measured (reports written before it was, and [`collect`](Self::collect)
    /// itself, which does not spend the half second).
    #[serde(default)]
    pub host_speed: Option<(HostSpeed, HostSpeed)>,
}

impl RunInfo {
    /// Collects the run description for `command` run in `mode` from the work tree at `root`.
    pub fn collect(root: &Path, command: impl Into<String>, mode: Mode) -> Self {
        Self {
            machine: MachineInfo::detect(),
            date_utc: format_utc(SystemTime::now()),
            command: command.into(),
            git_commit: git_commit(root),
            rustc: env!("COLLIDE_BENCHES_RUSTC_VERSION").to_owned(),
            build_profile: if cfg!(debug_assertions) { "debug" } else { "release" }.to_owned(),
            mode,
            host_speed: None,
        }
    }

    /// The rows of the report header table as `(field, value)` pairs (the host speed's two
    /// only when it was measured).
    pub fn rows(&self) -> Vec<(String, String)> {
        let m = &self.machine;
        let mut rows = vec![
            ("CPU".into(), m.cpu_model.clone()),
            (
                "cores".into(),
                format!("{} logical ({} available to this process)", m.logical_cpus, m.available_parallelism),
            ),
            ("memory".into(), m.memory_display()),
            ("OS".into(), m.os.clone()),
            ("date".into(), self.date_utc.clone()),
            ("command".into(), format!("`{}`", self.command)),
            ("git commit".into(), self.git_commit.clone()),
            ("rustc".into(), self.rustc.clone()),
            ("build".into(), self.build_profile.clone()),
            ("mode".into(), self.mode.to_string()),
        ];
        if let Some((start, end)) = &self.host_speed {
            rows.push(("host speed, start of suite".into(), start.describe()));
            rows.push(("host speed, end of suite".into(), end.describe()));
        }
        rows
    }
}

/// The short commit hash of `HEAD` in `root`, with `+dirty` when `git status --porcelain` lists
/// anything outside `docs/results` (the reports themselves, which a run of several suites
/// writes one after another, do not make the measured code dirty); `"unknown"` outside a git
/// work tree.
pub fn git_commit(root: &Path) -> String {
    let run = |args: &[&str]| -> Option<String> {
        let out = Command::new("git").args(args).current_dir(root).output().ok()?;
        out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let Some(hash) = run(&["rev-parse", "--short", "HEAD"]) else {
        return "unknown".to_owned();
    };
    let dirty = run(&["status", "--porcelain", "--", ".", ":(exclude)docs/results"])
        .is_some_and(|s| !s.trim().is_empty());
    format!("{}{}", hash.trim(), if dirty { "+dirty" } else { "" })
}

/// Formats a time as `YYYY-MM-DD HH:MM:SS UTC`.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// let t = UNIX_EPOCH + Duration::from_secs(951_782_400 + 3661); // 2000-02-29 01:01:01
/// assert_eq!(collide_benches::report::run_info::format_utc(t), "2000-02-29 01:01:01 UTC");
/// ```
pub fn format_utc(time: SystemTime) -> String {
    let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates() {
        assert_eq!(format_utc(UNIX_EPOCH), "1970-01-01 00:00:00 UTC");
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(20_454), (2026, 1, 1));
        assert_eq!(format_utc(UNIX_EPOCH + Duration::from_secs(1_798_761_599)), "2026-12-31 23:59:59 UTC");
    }

    #[test]
    fn this_machine_is_described() {
        let info = RunInfo::collect(Path::new(env!("CARGO_MANIFEST_DIR")), "test", Mode::Quick);
        assert!(info.machine.available_parallelism >= 1);
        assert!(info.rustc.starts_with("rustc ") || info.rustc == "unknown");
        assert_eq!(info.rows().len(), 10);
        assert!(info.date_utc.ends_with(" UTC"));
    }

    #[test]
    fn host_speed_rows_appear_when_measured_and_old_reports_still_read() {
        let mut info = RunInfo::collect(Path::new(env!("CARGO_MANIFEST_DIR")), "test", Mode::Quick);
        let (start, end) = (
            HostSpeed {
                arithmetic_ns: 1.0,
                cache_load_ns: 4.0,
                shared_cache_load_ns: 20.0,
                memory_load_ns: 100.0,
            },
            HostSpeed {
                arithmetic_ns: 2.0,
                cache_load_ns: 8.0,
                shared_cache_load_ns: 40.0,
                memory_load_ns: 200.0,
            },
        );
        info.host_speed = Some((start, end));
        let rows = info.rows();
        assert_eq!(rows.len(), 12);
        assert_eq!(rows[10], ("host speed, start of suite".into(), start.describe()));
        assert_eq!(rows[11], ("host speed, end of suite".into(), end.describe()));
        // Through JSON and back, and a report written before the field existed.
        let text = serde_json::to_string(&info).unwrap();
        assert_eq!(serde_json::from_str::<RunInfo>(&text).unwrap(), info);
        let mut old: serde_json::Value = serde_json::from_str(&text).unwrap();
        old.as_object_mut().unwrap().remove("host_speed");
        let read: RunInfo = serde_json::from_value(old).unwrap();
        assert_eq!(read.host_speed, None);
    }
}
