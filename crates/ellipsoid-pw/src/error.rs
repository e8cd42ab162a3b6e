//! Why a contact could not be computed.

use thiserror::Error;

/// The errors of this crate. Invalid shapes cannot reach it: [`geometry_core::Ellipsoid::new`]
/// already refuses non-finite data, zero quaternions and semi-axes `<= 0`.
#[derive(Debug, Clone, Copy, PartialEq, Error)]
#[non_exhaustive]
pub enum PwError {
    /// The two centres coincide: `S(λ) ≡ 0`, so `F = 0` and neither `Λ` nor a normal exists.
    /// (The bodies certainly overlap; a simulation must separate them by other means.)
    #[error("the ellipsoid centres coincide: the Perram–Wertheim normal is undefined")]
    CoincidentCentres,
    /// The maximiser did not meet its tolerance within the iteration limit.
    #[error("the Perram–Wertheim maximiser did not converge in {iterations} iterations")]
    NoConvergence {
        /// Iterations spent.
        iterations: u32,
    },
    /// A result was not finite: the data overflow `f64` (e.g. coordinates near `1e300`).
    #[error("the contact is not finite (the input overflows f64)")]
    NonFinite,
    /// A warm-start `λ` outside `[0, 1]` or NaN.
    #[error("the warm-start λ = {value} is not in [0, 1]")]
    InvalidLambda {
        /// The rejected value.
        value: f64,
    },
}
