//! Errors of the double-layer-potential tests.

use geometry_core::SolidError;
use thiserror::Error;

/// Why an evaluator could not be built or a query could not be answered.
///
/// ```
/// use fmm_dlp::{DlpError, ExactDlp, FmmConfig, FmmDlp};
/// use geometry_core::{DAffine3, DVec3, generators::octa_sphere};
/// let inward = octa_sphere(1).unwrap().flipped();
/// assert!(matches!(ExactDlp::new(inward), Err(DlpError::NotSolid(_))));
/// let fmm = FmmDlp::new(octa_sphere(1).unwrap(), FmmConfig::default()).unwrap();
/// let nan = fmm.classify(&[DVec3::ZERO, DVec3::splat(f64::NAN)]).unwrap_err();
/// assert_eq!(nan, DlpError::NonFinitePoint { index: 1 });
/// let far = fmm.classify(&[DVec3::ZERO, DVec3::new(1e80, 0.0, 0.0)]).unwrap_err();
/// assert_eq!(far, DlpError::PointOutOfRange { index: 1 });
/// let flat = DAffine3::from_scale(DVec3::new(1.0, 1.0, 0.0)); // singular
/// assert_eq!(fmm.classify_posed(&flat, &[DVec3::ZERO]).unwrap_err(), DlpError::InvalidPose);
/// ```
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
