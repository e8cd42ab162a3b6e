//! Errors of the double-layer-potential tests.

use geometry_core::SolidError;
use thiserror::Error;

/// Why an evaluator could not be built or a query could not be answered.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum DlpError {
    /// The mesh is not closed, manifold and outward oriented, so `J` is not an indicator.
    #[error("mesh does not bound a solid: {0}")]
    NotSolid(SolidError),
    /// A query point has a NaN or infinite coordinate.
    #[error("query point {index} has a non-finite coordinate")]
    NonFinitePoint {
        /// Index of the first offending point in the batch (0 for a single query).
        index: usize,
    },
    /// A query point has a coordinate outside the range where the exact predicates are exact
    /// (a non-zero magnitude below `1e-70` or above `1e70`, the range mesh vertices must keep
    /// too): its squares would underflow or overflow, and one such point corrupted the answers
    /// for the whole batch (infinite group radii).
    #[error(
        "query point {index} has a coordinate outside the exact range (0, or 1e-70 to 1e70 in magnitude)"
    )]
    PointOutOfRange {
        /// Index of the first offending point in the batch (0 for a single query).
        index: usize,
    },
    /// A configuration value is out of range.
    #[error("invalid configuration: {what}")]
    InvalidConfig {
        /// What is wrong.
        what: &'static str,
    },
    /// The pose is not a finite, invertible affine map.
    #[error("pose is not a finite, invertible affine transform")]
    InvalidPose,
}

impl From<contact_core::NonFinitePoint> for DlpError {
    /// The batch index of a non-finite query point (see `PointContainment::contains_batch`).
    fn from(e: contact_core::NonFinitePoint) -> Self {
        Self::NonFinitePoint { index: e.index }
    }
}
