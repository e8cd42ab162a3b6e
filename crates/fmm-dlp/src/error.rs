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
