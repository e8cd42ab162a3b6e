//! Optional peers: other implementations measured in the same run for comparison.
//!
//! Python peers live in a virtual environment `.venv-peers/` at the workspace root, made by
//! `cargo xtask peers` from [`PYTHON_PACKAGES`]. A suite asks [`PythonEnv::find`] for the modules
//! it needs at run time; when they are missing it skips the peer and says so in its report, it
//! never fails. A new suite adds the packages it needs to [`PYTHON_PACKAGES`] (naming itself in
//! `used_by`) and keeps its peer script in `benches/peers/`.

use crate::BenchError;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The peers' virtual environment, relative to the workspace root.
pub const PEERS_VENV: &str = ".venv-peers";

/// A Python package that some suite can compare against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PythonPackage {
    /// The name to `pip install`.
    pub pip: &'static str,
    /// The module to import.
    pub module: &'static str,
    /// The suites that use it.
    pub used_by: &'static [&'static str],
    /// What it is used for, one line.
    pub purpose: &'static str,
}

/// Everything `cargo xtask peers` installs. Add a line for a new peer.
pub const PYTHON_PACKAGES: &[PythonPackage] = &[
    PythonPackage {
        pip: "numpy",
        module: "numpy",
        used_by: &["geometry"],
        purpose: "arrays; every Python peer script reads its inputs with it",
    },
    PythonPackage {
        pip: "trimesh",
        module: "trimesh",
        used_by: &["geometry"],
        purpose: "mesh construction, watertightness, winding consistency and volume",
    },
    PythonPackage {
        pip: "libigl",
        module: "igl",
        used_by: &["fmm-dlp"],
        purpose: "fast winding number (Barnes–Hut, order 2, β = 2), the fmm-dlp suite's peer",
    },
    PythonPackage {
        pip: "fmm3dpy",
        module: "fmm3dpy",
        used_by: &["fmm-dlp"],
        purpose: "FMM3D's Laplace FMM with dipoles (ε = 10⁻³), the fmm-dlp target case's second peer",
    },
];

/// The interpreter of the peers' virtual environment under `root`.
pub fn venv_python(root: &Path) -> PathBuf {
    root.join(PEERS_VENV).join("bin").join("python")
}

/// A Python interpreter that has the modules a suite asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PythonEnv {
    /// The interpreter.
    pub python: PathBuf,
    /// The Python version, e.g. `3.11.7`.
    pub python_version: String,
    /// The version of each requested module.
    pub modules: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct Probe {
    python: String,
    modules: BTreeMap<String, Option<String>>,
}

const PROBE: &str = r#"
import importlib, json, sys
found = {}
for name in sys.argv[1:]:
    try:
        found[name] = str(getattr(importlib.import_module(name), "__version__", "unknown"))
    except Exception:
        found[name] = None
print(json.dumps({"python": sys.version.split()[0], "modules": found}))
"#;

impl PythonEnv {
    /// Looks for an interpreter with all of `modules`: first `.venv-peers/bin/python` under
    /// `root`, then `python3` on `PATH`.
    ///
    /// # Errors
    /// A one-line reason, for the report's note, when neither has every module.
    pub fn find(root: &Path, modules: &[&str]) -> Result<Self, String> {
        let candidates = [
            (venv_python(root), format!("{PEERS_VENV}/bin/python")),
            (PathBuf::from("python3"), "python3".into()),
        ];
        let mut reasons = Vec::new();
        for (python, shown) in candidates {
            if python.is_absolute() && !python.exists() {
                reasons.push(format!("{shown} does not exist"));
                continue;
            }
            match Self::probe(&python, modules) {
                Ok(env) => return Ok(env),
                Err(reason) => reasons.push(format!("{shown}: {reason}")),
            }
        }
        Err(format!("{} ({}); run `cargo xtask peers` to install", modules.join(", "), reasons.join("; ")))
    }

    fn probe(python: &Path, modules: &[&str]) -> Result<Self, String> {
        let out = Command::new(python)
            .arg("-c")
            .arg(PROBE)
            .args(modules)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run ({e})"))?;
        if !out.status.success() {
            return Err(format!("exited with {}", out.status));
        }
        let probe: Probe =
            serde_json::from_slice(&out.stdout).map_err(|e| format!("unexpected output ({e})"))?;
        let missing: Vec<&str> =
            modules.iter().copied().filter(|m| probe.modules.get(*m).is_none_or(Option::is_none)).collect();
        if !missing.is_empty() {
            return Err(format!("no module {}", missing.join(", ")));
        }
        Ok(Self {
            python: python.to_owned(),
            python_version: probe.python,
            modules: probe.modules.into_iter().filter_map(|(k, v)| Some((k, v?))).collect(),
        })
    }

    /// E.g. `trimesh 4.5.3, numpy 2.1.0 (Python 3.11.7, .venv-peers/bin/python)`.
    pub fn describe(&self) -> String {
        let modules: Vec<String> = self.modules.iter().map(|(m, v)| format!("{m} {v}")).collect();
        format!("{} (Python {}, {})", modules.join(", "), self.python_version, self.python.display())
    }

    /// Writes `script` (the text of a file from `benches/peers/`) as `name` into `dir` and runs it
    /// there with `args`, returning its standard output. Its standard error is passed through.
    ///
    /// # Errors
    /// If the script cannot be written or started, or exits unsuccessfully.
    pub fn run_script(
        &self,
        dir: &Path,
        name: &str,
        script: &str,
        args: &[&OsStr],
    ) -> Result<String, BenchError> {
        let path = dir.join(name);
        std::fs::write(&path, script)
            .map_err(|e| BenchError::io(format!("writing {}", path.display()), e))?;
        let out = Command::new(&self.python)
            .arg(&path)
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stderr(Stdio::inherit())
            .output()
            .map_err(|e| BenchError::io(format!("running {}", self.python.display()), e))?;
        if !out.status.success() {
            return Err(BenchError::Command {
                program: self.python.clone(),
                message: format!("{name} exited with {}", out.status),
            });
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

/// Creates `.venv-peers/` under `root` with `base_python -m venv` (unless it exists) and
/// pip-installs `packages` into it, showing pip's output. Returns the environment's interpreter.
///
/// # Errors
/// If `venv` or `pip` fails.
pub fn install(root: &Path, base_python: &str, packages: &[PythonPackage]) -> Result<PathBuf, BenchError> {
    let python = venv_python(root);
    let run = |program: &Path, args: &[&OsStr]| -> Result<(), BenchError> {
        eprintln!(
            "$ {} {}",
            program.display(),
            args.iter().map(|a| a.to_string_lossy()).collect::<Vec<_>>().join(" ")
        );
        let status = Command::new(program)
            .args(args)
            .current_dir(root)
            .stdin(Stdio::null())
            .status()
            .map_err(|e| BenchError::io(format!("running {}", program.display()), e))?;
        if status.success() {
            Ok(())
        } else {
            Err(BenchError::Command { program: program.to_owned(), message: format!("exited with {status}") })
        }
    };
    if !python.exists() {
        let venv = root.join(PEERS_VENV);
        run(Path::new(base_python), &[OsStr::new("-m"), OsStr::new("venv"), venv.as_os_str()])?;
    }
    let mut args: Vec<&OsStr> =
        ["-m", "pip", "install", "--disable-pip-version-check", "--upgrade"].map(OsStr::new).to_vec();
    args.extend(packages.iter().map(|p| OsStr::new(p.pip)));
    run(&python, &args)?;
    Ok(python)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_module_is_a_reason_not_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let reason = PythonEnv::find(dir.path(), &["no_such_module_collide_xyz"]).unwrap_err();
        assert!(reason.contains("no_such_module_collide_xyz"), "{reason}");
        assert!(reason.contains("cargo xtask peers"), "{reason}");
        assert!(reason.contains(".venv-peers/bin/python does not exist"), "{reason}");
    }

    #[test]
    fn package_list_is_consistent() {
        let suites: Vec<&str> = crate::suites::SUITES.iter().map(|s| s.name()).collect();
        for p in PYTHON_PACKAGES {
            assert!(!p.used_by.is_empty(), "{} is used by no suite", p.pip);
            for s in p.used_by {
                assert!(suites.contains(s), "{} names unknown suite {s}", p.pip);
            }
        }
    }
}
