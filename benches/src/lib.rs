//! Benchmark tooling for the collide workspace: the suites behind `cargo xtask bench`, their
//! sweep runners and peer adapters, and the report writers every suite shares.
//!
//! * [`broadphase`]: the broad-phase baselines (incremental sweep and prune, sort and sweep,
//!   parry's BVH) and the thesis workload behind the `hhgrid` suite.
//! * [`containment`]: parry3d-f64's point containment behind `contact_core::PointContainment`,
//!   the peer of the `raycross` suite.
//! * [`suites`]: the [`Suite`](suites::Suite) trait, the [`SUITES`](suites::SUITES) registry and
//!   the runner. Each suite writes `docs/results/SUITE.{md,csv,json}` and `SUITE-PLOT.svg`.
//! * [`report`]: Markdown tables, CSV, JSON records, log-log SVG plots and the run description
//!   (machine, date, command, commit, compiler, mode).
//! * [`pinned`]: a rayon pool whose workers are pinned one per core.
//! * [`timing`]: median/min of repeated, batched wall-clock measurements.
//! * [`peers`]: optional Python peers in `.venv-peers/`, found at run time.
//! * [`progress`]: progress of long sweeps on standard error.
//!
//! Criterion micro-benchmarks live in `benches/benches/`.

pub mod broadphase;
pub mod containment;
pub mod error;
pub mod peers;
pub mod pinned;
pub mod progress;
pub mod report;
pub mod suites;
pub mod timing;

pub use error::BenchError;
