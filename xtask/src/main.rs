//! `cargo xtask`: the workspace's benchmark command line.
//!
//! * `cargo xtask bench [--full] [--only SUITE]... [--list] [--out DIR] [--no-peers]` runs the
//!   suites of `collide-benches` and writes their reports into `docs/results/`.
//! * `cargo xtask peers [--list] [--python PYTHON]` creates `.venv-peers/` and pip-installs the
//!   optional Python peers the suites compare against.
//!
//! The alias in `.cargo/config.toml` builds this in release mode, so suites measure optimised code.

use clap::{Args, Parser, Subcommand};
use collide_benches::peers::{self, PYTHON_PACKAGES, PythonEnv};
use collide_benches::report::{Mode, RunInfo};
use collide_benches::suites::{self, SUITES, SuiteContext};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

#[derive(Debug, Parser)]
#[command(
    name = "xtask",
    bin_name = "cargo xtask",
    about = "Benchmark tooling for the collide workspace",
    version
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run benchmark suites (release mode) and write docs/results/SUITE.{md,csv,json,svg}.
    Bench(BenchArgs),
    /// Create .venv-peers/ and pip-install the optional Python peers.
    Peers(PeersArgs),
}

#[derive(Debug, Args)]
struct BenchArgs {
    /// Use the papers' sizes and more repeats (default: a quick run of a few minutes).
    #[arg(long)]
    full: bool,
    /// Run only these suites (repeatable, or a comma-separated list).
    #[arg(long, value_name = "SUITE", value_delimiter = ',')]
    only: Vec<String>,
    /// List the suites with one-line descriptions and exit.
    #[arg(long, conflicts_with_all = ["full", "only", "out", "no_peers"])]
    list: bool,
    /// Output directory, relative to the workspace root unless absolute.
    #[arg(long, value_name = "DIR", default_value = "docs/results")]
    out: PathBuf,
    /// Do not look for or run peers.
    #[arg(long)]
    no_peers: bool,
}

#[derive(Debug, Args)]
struct PeersArgs {
    /// Show the peer packages and whether they are installed, without installing.
    #[arg(long)]
    list: bool,
    /// The Python interpreter that creates the virtual environment.
    #[arg(long, value_name = "PYTHON", default_value = "python3")]
    python: String,
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives inside the workspace").to_owned()
}

/// The command as a user would type it, e.g. `cargo xtask bench --only geometry`.
fn command_line() -> String {
    let quote = |a: String| {
        if !a.is_empty() && a.chars().all(|c| c.is_ascii_alphanumeric() || "-_=,./:".contains(c)) {
            a
        } else {
            format!("'{}'", a.replace('\'', r"'\''"))
        }
    };
    std::iter::once("cargo xtask".to_owned())
        .chain(std::env::args().skip(1).map(quote))
        .collect::<Vec<_>>()
        .join(" ")
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let root = workspace_root();
    match cli.command {
        Command::Bench(args) => bench(&root, &args),
        Command::Peers(args) => install_peers(&root, &args),
    }
}

fn list_suites(root: &Path) {
    use std::io::Write;
    // Written through a locked handle, stopping quietly when the reader goes away (`| head`):
    // `println!` panics on a closed pipe.
    let mut stdout = std::io::stdout().lock();
    let width = SUITES.iter().map(|s| s.name().len()).max().unwrap_or(0);
    for suite in SUITES {
        let peers = suite.python_peers();
        let peer_note = if peers.is_empty() {
            String::new()
        } else {
            let state = match PythonEnv::find(root, peers) {
                Ok(_) => "installed",
                Err(_) => "not installed: cargo xtask peers",
            };
            format!(" [peers: {} ({state})]", peers.join(", "))
        };
        if writeln!(stdout, "{:width$}  {}{peer_note}", suite.name(), suite.description()).is_err() {
            return;
        }
    }
}

fn bench(root: &Path, args: &BenchArgs) -> ExitCode {
    if args.list {
        list_suites(root);
        return ExitCode::SUCCESS;
    }
    let selected = match suites::select(&args.only) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mode = if args.full { Mode::Full } else { Mode::Quick };
    let out = if args.out.is_absolute() { args.out.clone() } else { root.join(&args.out) };
    if cfg!(debug_assertions) {
        eprintln!(
            "warning: xtask was built without optimisations; use `cargo xtask` (release) for real numbers"
        );
    }
    // The output directory must be writable before minutes of measurements, not after.
    let probe = out.join(".xtask-write-probe");
    if let Err(e) = std::fs::create_dir_all(&out).and_then(|()| std::fs::write(&probe, b"")) {
        eprintln!("error: cannot write to the output directory {}: {e}", out.display());
        return ExitCode::FAILURE;
    }
    let _ = std::fs::remove_file(&probe);
    let run = RunInfo::collect(root, command_line(), mode);
    let mut ctx = SuiteContext::new(mode, run, root.to_owned());
    ctx.peers = !args.no_peers;

    let started = Instant::now();
    let outcomes = suites::run(&selected, &ctx, &out);
    let mut ok = true;
    eprintln!();
    for outcome in &outcomes {
        ok &= outcome.is_ok();
        if let Some(e) = &outcome.failure {
            eprintln!("{}: FAILED after {:.1} s: {e}", outcome.suite, outcome.elapsed.as_secs_f64());
            continue;
        }
        let status = if outcome.errors == 0 {
            "ok".to_owned()
        } else {
            format!("{} ERROR(S), see the report's notes", outcome.errors)
        };
        eprintln!("{}: {status} in {:.1} s", outcome.suite, outcome.elapsed.as_secs_f64());
        for file in &outcome.files {
            eprintln!("  {}", file.strip_prefix(root).unwrap_or(file).display());
        }
    }
    eprintln!("total {:.1} s ({mode} mode)", started.elapsed().as_secs_f64());
    if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

fn install_peers(root: &Path, args: &PeersArgs) -> ExitCode {
    use std::io::Write;
    if !args.list
        && let Err(e) = peers::install(root, &args.python, PYTHON_PACKAGES)
    {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    // As in `list_suites`: a locked handle, stopping quietly on a closed pipe (`| head`).
    let mut stdout = std::io::stdout().lock();
    let mut all = true;
    for package in PYTHON_PACKAGES {
        let state = if let Ok(env) = PythonEnv::find(root, &[package.module]) {
            format!(
                "{} ({})",
                env.modules[package.module],
                env.python.strip_prefix(root).unwrap_or(&env.python).display()
            )
        } else {
            all = false;
            "not installed".to_owned()
        };
        if writeln!(
            stdout,
            "{:10} {:28} used by {}: {}",
            package.pip,
            state,
            package.used_by.join(", "),
            package.purpose
        )
        .is_err()
        {
            break;
        }
    }
    if args.list || all { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
