//! The paper's use case: which vertices of one posed body lie inside another.

use crate::{RayCrossError, RayCrossing};
use contact_core::{Containment, PointContainment};
use geometry_core::scaled::affine_inverse;
use geometry_core::{DAffine3, TriMesh};

/// The vertices of `other` (placed by `other_pose`) that lie inside or on `body` (placed by
/// `body_pose`), as `(vertex index, containment)` in vertex order.
///
/// As in the paper's Fig. 2, vertices outside `body`'s bounding box are discarded before any ray
/// is cast; the rest are classified in `body`'s own frame (the inverse of `body_pose` is applied
/// to them), in parallel.
///
/// # Errors
/// [`RayCrossError::InvalidPose`] for a non-finite or singular pose;
/// [`RayCrossError::NonFinitePoint`] if a transformed vertex overflows;
/// [`RayCrossError::PointOutOfRange`] if a transformed vertex within `body`'s bounding box has a
/// coordinate outside the exact range (for example a tiny nonzero one); both name the vertex of
/// `other`.
///
/// ```
/// use contact_core::Containment;
/// use geometry_core::{generators::octa_sphere, DAffine3, DVec3};
/// use raycross::{vertices_inside, RayCrossing};
///
/// let ball = RayCrossing::new(octa_sphere(3).unwrap()).unwrap();
/// let other = octa_sphere(1).unwrap();
/// // The other ball, shrunk and moved so that its +x vertex pokes into the first ball.
/// let pose = DAffine3::from_scale_rotation_translation(DVec3::splat(0.5), Default::default(), DVec3::new(-1.4, 0.0, 0.0));
/// let hits = vertices_inside(&ball, &DAffine3::IDENTITY, &other, &pose).unwrap();
/// assert_eq!(hits, vec![(0, Containment::Inside)]); // vertex 0 is +x
/// ```
pub fn vertices_inside(
    body: &RayCrossing,
    body_pose: &DAffine3,
    other: &TriMesh,
    other_pose: &DAffine3,
) -> Result<Vec<(u32, Containment)>, RayCrossError> {
    // (Inverted on the equilibrated linear part: through the determinant, a pose scaling by
    // 1e103 gave an all-zero inverse, and ones scaling by 1e-110, or by 1e-150 along x and 1e150
    // along y, were refused as singular.)
    let world_to_body = affine_inverse(body_pose).ok_or(RayCrossError::InvalidPose)?;
    if affine_inverse(other_pose).is_none() {
        return Err(RayCrossError::InvalidPose);
    }
    // Map other's vertices into body's frame: to world, then into body's frame (two steps, so
    // that a huge but valid pair of poses overflows only where a vertex really does).
    let bbox = body.mesh().bounding_box();
    let mut indices = Vec::new();
    let mut points = Vec::new();
    for (i, &v) in other.vertices().iter().enumerate() {
        let p = world_to_body.transform_point3(other_pose.transform_point3(v));
        if !p.is_finite() {
            return Err(RayCrossError::NonFinitePoint { index: i });
        }
        if bbox.contains_point(p) {
            indices.push(i as u32);
            points.push(p);
        }
    }
    // Errors name the vertex of `other`, not the position among the vertices kept.
    let classes = body.contains_batch(&points).map_err(|e| match e {
        RayCrossError::PointOutOfRange { index } => {
            RayCrossError::PointOutOfRange { index: indices[index] as usize }
        }
        RayCrossError::NonFinitePoint { index } => {
            RayCrossError::NonFinitePoint { index: indices[index] as usize }
        }
        other => other,
    })?;
    Ok(indices.into_iter().zip(classes).filter(|(_, c)| *c != Containment::Outside).collect())
}
