//! Errors of the ray-crossing tests.

use geometry_core::SolidError;
use thiserror::Error;

/// Why a ray-crossing structure could not be built or a query not answered.
///
/// ```
/// use contact_core::PointContainment;
/// use geometry_core::{DAffine3, DVec3, SolidError, TriMesh, generators::octa_sphere};
/// use raycross::{RayCrossError, RayCrossing, vertices_inside};
/// // A tetrahedron without its slanted face: the 3 edges of that face are open.
/// let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
/// let open = TriMesh::new(v, vec![[0, 2, 1], [0, 1, 3], [0, 3, 2]]).unwrap();
/// let err = RayCrossing::new(open).unwrap_err();
/// assert_eq!(err, RayCrossError::NotSolid(SolidError::Open { boundary_edges: 3 }));
/// assert!(RayCrossing::new(octa_sphere(1).unwrap().flipped()).is_ok()); // inward is fine
/// let ball = RayCrossing::new(octa_sphere(2).unwrap()).unwrap();
/// let nan = ball.contains_batch(&[DVec3::ZERO, DVec3::splat(f64::NAN)]).unwrap_err();
/// assert_eq!(nan, RayCrossError::NonFinitePoint { index: 1 });
/// let tiny = ball.contains_batch(&[DVec3::ZERO, DVec3::new(1e-80, 0.0, 0.0)]).unwrap_err();
/// assert_eq!(tiny, RayCrossError::PointOutOfRange { index: 1 });
/// let flat = DAffine3::from_scale(DVec3::new(1.0, 0.0, 1.0)); // singular
/// let posed = vertices_inside(&ball, &flat, &octa_sphere(0).unwrap(), &DAffine3::IDENTITY);
/// assert_eq!(posed.unwrap_err(), RayCrossError::InvalidPose);
/// ```
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum RayCrossError {
    /// The mesh does not bound a solid: it is open, non-manifold or inconsistently oriented, or
    /// its signed volume is exactly zero. (Inward-facing meshes are accepted: parity does not
    /// need orientation. The signed volume sums the shells with their orientations, so an
    /// outward shell beside an inward one of the same volume is refused, although parity would
    /// classify it: see [`SolidError::ZeroVolume`].)
    #[error("mesh does not bound a solid: {0}")]
    NotSolid(SolidError),
    /// A query point has a NaN or infinite coordinate (`index` in a batch, 0 for one point).
    #[error("query point {index} has a non-finite coordinate")]
    NonFinitePoint {
        /// Position of the point in the batch.
        index: usize,
    },
    /// A query point has a coordinate outside the range where the exact predicates are exact
    /// (a non-zero magnitude below `1e-70` or above `1e70`, the range mesh vertices must keep
    /// too): beyond it, the batch path and the single-point path could disagree.
    #[error(
        "query point {index} has a coordinate outside the exact range (0, or 1e-70 to 1e70 in magnitude)"
    )]
    PointOutOfRange {
        /// Position of the point in the batch.
        index: usize,
    },
    /// A pose is not finite or not invertible.
    #[error("pose is not a finite, invertible affine transform")]
    InvalidPose,
    /// Paper mode met a degeneracy on every one of its random rays (only possible for
    /// adversarial input: with exact signs a random ray is degenerate with probability ~0).
    #[error("{rays} random rays in a row were degenerate")]
    TooManyDegenerateRays {
        /// How many rays were cast.
        rays: u32,
    },
}

impl From<contact_core::NonFinitePoint> for RayCrossError {
    /// The batch index of a non-finite query point (see `PointContainment::contains_batch`).
    fn from(e: contact_core::NonFinitePoint) -> Self {
        Self::NonFinitePoint { index: e.index }
    }
}

/// The first point that is not finite ([`RayCrossError::NonFinitePoint`]) or, if all are, the
/// first with a coordinate outside the exact range ([`RayCrossError::PointOutOfRange`]).
pub(crate) fn check_points(points: &[geometry_core::DVec3]) -> Result<(), RayCrossError> {
    use geometry_core::predicates::{BadQueryPoint, check_query_points};
    check_query_points(points).map_err(|bad| match bad {
        BadQueryPoint::NonFinite(index) => RayCrossError::NonFinitePoint { index },
        BadQueryPoint::OutOfRange(index) => RayCrossError::PointOutOfRange { index },
    })
}
