//! The hierarchical hash grid broad phase split over processes with MPI (the setting of
//! Schornbaum 2009, §1, §3.5, §5: the pe engine ran 1.14·10⁹ bodies on 9120 processes, each with
//! its own hierarchical hash grid, exchanging bodies every step).
//!
//! * [`Decomposition`]: a Cartesian split of a box (periodic or bounded per axis) over the ranks,
//!   with the [`dims_create`] factorisation of `MPI_Dims_create`; pure functions.
//! * [`DistributedGrid`]: each rank owns the objects whose box centre lies in its subdomain and
//!   keeps them in an [`hhgrid::HierarchicalHashGrid`] together with ghost copies of its
//!   neighbours' objects. [`DistributedGrid::step`] migrates objects that left the subdomain
//!   (O(1) remove and insert on both sides), exchanges ghosts with the 26 neighbours, updates the
//!   local grid and finds the pairs. Each overlapping pair is reported by exactly one rank.
//! * [`workload`]: the thesis's benchmark workload for any number of ranks, used by the driver
//!   binary `hhgrid-mpi-driver` (JSON lines of per-step statistics on rank 0).
//!
//! **Reach rule.** An object of size `s` (longest edge) is sent as a ghost to every rank whose
//! subdomain comes within `s` of its centre (on every axis): the issue's "reach = the largest
//! object size in the hierarchy level", applied per object, which is never more and suffices
//! (see [`decomp`]). In periodic boxes the ghost carries the period shift.
//!
//! **Pair-ownership rule.** A pair is reported by the owner of its object with the smaller key
//! `(size, global id)` ([`pair_reporter_is_first`]). That rank always holds both objects, and
//! everywhere else that object is a ghost, so each pair is reported exactly once.
//!
//! **Errors** ([`DistError`]) are agreed on: every rank returns the same error (one all-reduce
//! to find the lowest failing rank, one broadcast of its error), so no rank is left in a
//! collective. Bad input: an object larger than the configured largest size, a rank count or
//! `dims` that cannot tile the box (product mismatch, subdomain thinner than the largest
//! object), an object outside a bounded box, an object jumping beyond the neighbours.
//!
//! ```
//! use geometry_core::DVec3;
//! use hhgrid_mpi::{Decomposition, Domain, DistError};
//! // 10⁴ ranks over a periodic cube: 25 × 20 × 20 subdomains.
//! let domain = Domain::new(DVec3::ZERO, DVec3::splat(1000.0), [true; 3]).unwrap();
//! let d = Decomposition::new(domain, 10_000, [0, 0, 0], 1.0).unwrap();
//! assert_eq!(d.dims(), [25, 20, 20]);
//! assert_eq!(d.neighbours(0).len(), 26);
//! // Seven ranks over a 12-wide bounded box cannot hold objects of size 2.
//! let small = Domain::new(DVec3::ZERO, DVec3::splat(12.0), [false; 3]).unwrap();
//! assert!(matches!(Decomposition::new(small, 7, [0, 0, 0], 2.0), Err(DistError::SubdomainTooThin { .. })));
//! ```

pub mod decomp;
mod error;
mod grid;
pub mod workload;

pub use decomp::{Decomposition, Domain, NO_SHIFT, dims_create, pair_reporter_is_first, shift_of};
pub use error::DistError;
pub use grid::{DistConfig, DistributedGrid, MAX_OBJECTS, Payload};

/// What one [`DistributedGrid::step`] did on one rank. Times are wall-clock seconds and include
/// waiting for neighbours; bytes count message payloads (8 bytes per word).
///
/// ```
/// use hhgrid_mpi::StepStats;
/// let s = StepStats { migration: 0.001, ghost_exchange: 0.002, update: 0.003, detection: 0.004, ..StepStats::default() };
/// assert!((s.total() - 0.01).abs() < 1e-15);
/// assert!((s.communication_fraction() - 0.3).abs() < 1e-12);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepStats {
    /// Checking and wrapping boxes, agreeing on errors, sending and inserting migrants.
    pub migration: f64,
    /// Collecting and exchanging ghost copies.
    pub ghost_exchange: f64,
    /// Updating owned objects and ghosts in the local grid.
    pub update: f64,
    /// Local pair detection and the pair-ownership filter.
    pub detection: f64,
    /// Objects owned at the start of the step.
    pub owned_before: usize,
    /// Objects owned after migration.
    pub owned: usize,
    /// Objects sent to other ranks.
    pub migrants_sent: usize,
    /// Objects received from other ranks.
    pub migrants_received: usize,
    /// Bytes of migrant records sent.
    pub migration_bytes_sent: usize,
    /// Ghost copies sent to other ranks (own periodic images are not sent).
    pub ghosts_sent: usize,
    /// Bytes of ghost records sent.
    pub ghost_bytes_sent: usize,
    /// Ghost copies held after the step (received, and own periodic images).
    pub ghosts: usize,
    /// Point-to-point messages sent (one per neighbour and phase, empty ones included).
    pub messages_sent: usize,
    /// Pairs found in the local grid (before the ownership rule).
    pub local_pairs: usize,
    /// Pairs this rank reports.
    pub pairs: usize,
}

impl StepStats {
    /// Migration + ghost exchange + update + detection.
    ///
    /// ```
    /// let s = hhgrid_mpi::StepStats { update: 0.5, detection: 1.5, ..Default::default() };
    /// assert_eq!(s.total(), 2.0);
    /// ```
    pub fn total(&self) -> f64 {
        self.migration + self.ghost_exchange + self.update + self.detection
    }

    /// (Migration + ghost exchange) / total: the share spent communicating (and waiting).
    ///
    /// ```
    /// let s = hhgrid_mpi::StepStats { ghost_exchange: 1.0, detection: 3.0, ..Default::default() };
    /// assert_eq!(s.communication_fraction(), 0.25);
    /// ```
    pub fn communication_fraction(&self) -> f64 {
        (self.migration + self.ghost_exchange) / self.total()
    }

    /// Bytes sent in the step.
    ///
    /// ```
    /// let s = hhgrid_mpi::StepStats { ghost_bytes_sent: 640, migration_bytes_sent: 104, ..Default::default() };
    /// assert_eq!(s.bytes_sent(), 744);
    /// ```
    pub fn bytes_sent(&self) -> usize {
        self.migration_bytes_sent + self.ghost_bytes_sent
    }
}
