//! Point-in-polyhedron by the double layer potential, after Muth, Of, Eberhard & Steinbach
//! (2006), §2.1.
//!
//! For a closed surface `Γ` with outward normals,
//!
//! ```text
//! J(x) = −(1/4π) ∫_Γ n_y·∇_y 1/|x − y| ds_y
//! ```
//!
//! is the solid angle subtended by `Γ` at `x` over `4π`: 1 inside, 0 outside, and on the surface
//! the interior angle fraction (½ on a face). Two evaluators:
//!
//! * [`ExactDlp`]: the exact sum of per-triangle solid angles (Van Oosterom–Strackee), `O(N)` per
//!   point, with exact signs for faces seen edge-on.
//! * [`FmmDlp`]: the fast multipole method of the paper (solid harmonics up to degree `p`, mesh
//!   and evaluation cluster trees, M2M / M2L / L2L, exact nearfield), with a per-point error
//!   bound, an order for a requested accuracy ([`FmmDlp::order_for_accuracy`]) and exact
//!   re-evaluation wherever the bound could change the answer. Beyond the
//!   paper, its classification evaluates one point per group of points lying in a region clear
//!   of the surface (`regions` module, [`FmmConfig::group_clear_regions`]).
//!
//! Both classify through [`containment_of`] and implement `contact_core::PointContainment`.

mod classify;
mod error;
mod exact;
mod fmm;
pub mod harmonics;
mod octree;
mod quadrature;
mod regions;

pub use classify::{INDICATOR_TOLERANCE, containment_of};
pub use error::DlpError;
pub use exact::ExactDlp;
pub use fmm::{
    ACCEPTANCE_MARGIN, FmmConfig, FmmDlp, FmmEvaluation, MIN_ACCEPTANCE_ORDER, MIN_ACCEPTANCE_SEPARATION,
    TreeDepth, leaf_size_for,
};
pub use quadrature::{gauss_legendre, triangle_rule, triangle_rule_of_degree};

use contact_core::{Containment, PointContainment};
use geometry_core::DVec3;

/// The first point that is not finite ([`DlpError::NonFinitePoint`]) or, if all are, the first
/// with a coordinate outside the exact range ([`DlpError::PointOutOfRange`]).
pub(crate) fn check_points(points: &[DVec3]) -> Result<(), DlpError> {
    use geometry_core::predicates::{BadQueryPoint, check_query_points};
    check_query_points(points).map_err(|bad| match bad {
        BadQueryPoint::NonFinite(index) => DlpError::NonFinitePoint { index },
        BadQueryPoint::OutOfRange(index) => DlpError::PointOutOfRange { index },
    })
}

impl PointContainment for ExactDlp {
    type Error = DlpError;

    /// ```
    /// use contact_core::{Containment, PointContainment};
    /// use fmm_dlp::ExactDlp;
    /// use geometry_core::{DVec3, generators::octa_sphere};
    /// let dlp = ExactDlp::new(octa_sphere(2).unwrap()).unwrap();
    /// assert_eq!(dlp.contains(DVec3::ZERO).unwrap(), Containment::Inside);
    /// assert_eq!(dlp.contains(DVec3::X).unwrap(), Containment::OnBoundary); // a mesh vertex
    /// ```
    fn contains(&self, point: DVec3) -> Result<Containment, DlpError> {
        check_points(&[point])?;
        Ok(exact::exact_containment(self.mesh(), point, &self.parity))
    }

    fn contains_batch(&self, points: &[DVec3]) -> Result<Vec<Containment>, DlpError> {
        use rayon::prelude::*;
        check_points(points)?;
        Ok(points
            .par_iter()
            .with_min_len(64)
            .map(|&x| exact::exact_containment(self.mesh(), x, &self.parity))
            .collect())
    }
}

impl PointContainment for FmmDlp {
    type Error = DlpError;

    /// ```
    /// use contact_core::{Containment, PointContainment};
    /// use fmm_dlp::{FmmConfig, FmmDlp};
    /// use geometry_core::{DVec3, generators::octa_sphere};
    /// let fmm = FmmDlp::new(octa_sphere(3).unwrap(), FmmConfig::default()).unwrap();
    /// assert_eq!(fmm.contains(DVec3::ZERO).unwrap(), Containment::Inside);
    /// assert_eq!(fmm.contains(DVec3::X).unwrap(), Containment::OnBoundary); // a mesh vertex
    /// ```
    fn contains(&self, point: DVec3) -> Result<Containment, DlpError> {
        Ok(self.classify(&[point])?[0])
    }

    fn contains_batch(&self, points: &[DVec3]) -> Result<Vec<Containment>, DlpError> {
        self.classify(points)
    }
}
