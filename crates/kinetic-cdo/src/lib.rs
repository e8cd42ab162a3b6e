//! Event-driven simulation of hard disks and spheres with kinetic collision-detection
//! structures, after Gavrilova et al., "Collision detection optimization in a multi-particle
//! system" (the paper's algorithm, structures and Table 1), with the structures and calendars
//! of today's fastest event-driven codes beside them.
//!
//! * [`Simulation`]: the event-driven engine of the paper's §2 (collision, predict-trajectory
//!   and topological events; stale events invalidated by per-particle counters), generic over
//!   the dimension `D`, the structure ([`Cdo`]) and the calendar ([`queue::EventQueue`]).
//!   Polydisperse radii and masses, constant gravity, restitution with the TC-model guard
//!   against inelastic collapse, reflecting walls and periodic sides per axis,
//!   Lubachevsky–Stillinger compression ([`Simulation::compress`]), pressure from the collision
//!   virial ([`Observables`]), XYZ snapshots, and the paper's Table 1 counters ([`Table1`]).
//!   A run that cannot get past an instant (touching particles jammed between walls, an
//!   inelastic collapse) stops with [`SimError::Jammed`] instead of looping forever.
//! * Structures: [`BruteForce`] (the reference), [`LaguerreDelaunay`] (§3.1, 2D, walls or
//!   periodic sides), [`RegularSubdivision`] (§3.2),
//!   [`SpatialTree`] (§3.3), [`SegmentTrees`] (§3.4, kinetic sweep and prune), and
//!   [`NeighbourLists`] (bounding-sphere lists with a shell, beyond the paper).
//! * Calendars: [`queue::BinaryHeapQueue`] and [`queue::CalendarQueue`] (after Paul 2007).
//! * [`init`]: random placements and dense packings grown by the engine.
//!
//! ```
//! use kinetic_cdo::{RegularSubdivision, SimBox, SimConfig, Simulation, Stop, init};
//! let sim_box = SimBox::periodic([20.0, 20.0]).unwrap();
//! let radii = init::polydisperse_radii(150, 0.5, 2.0, 3).unwrap();
//! let particles = init::random_placement(&sim_box, &radii, init::MassRule::UnitDensity, 1.0, 3).unwrap();
//! let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), RegularSubdivision::new()).unwrap();
//! sim.run(Stop::Collisions(1000)).unwrap();
//! let p = sim.state().momentum();
//! assert!(p.iter().all(|c| c.abs() < 1e-10));
//! ```

// Loops over the axes `0..D` index several `[f64; D]` arrays in lockstep; iterator chains
// would hide that they are the same axis.
#![allow(clippy::needless_range_loop)]

mod cdo;
mod engine;
mod error;
pub mod init;
mod jam;
pub(crate) mod kinematics;
mod pairs;
pub mod queue;
mod stats;
mod system;
mod vector;

pub use cdo::{
    BruteForce, CandidatePair, Cdo, CellLists, CellStore, Certificates, DEFAULT_RELATIVE_SHELL, DenseCells,
    LaguerreDelaunay, MAX_DENSE_CELLS, NeighbourLists, RegularSubdivision, SegmentTrees, SpatialTree,
    TreeCells,
};
pub use engine::{
    COMPRESSION_COLLISIONS_PER_PARTICLE, Collision, CollisionKind, MAX_MAGNITUDE, MIN_LENGTH,
    OVERLAP_TOLERANCE, QUIET_EVENTS_PER_SLOT, SimConfig, Simulation, SnapshotEvery, Stop,
};
pub use error::SimError;
pub use jam::{JAM_COLLISIONS_PER_PARTICLE, JAM_MIN_COLLISIONS, JAM_WINDOW};
pub use stats::{Counters, Observables, Table1};
pub use system::{Particle, SimBox, State, ball_volume};
