//! Point-containment peers for the `raycross` suite.
//!
//! [`ParryTriMesh`] puts parry3d-f64's inside/outside test of a triangle mesh behind
//! [`contact_core::PointContainment`], so the suite drives it through the same code as
//! `raycross::RayCrossing` and `raycross::PaperRayCrossing`.

use contact_core::{Containment, NonFinitePoint, PointContainment};
use geometry_core::{Aabb, DVec3, TriMesh};
use parry3d_f64::math::Vector as ParryVector;
use parry3d_f64::query::PointQuery;
use parry3d_f64::shape::{TriMesh as ParryMesh, TriMeshBuilderError, TriMeshFlags};
use std::fmt;

/// parry3d-f64's point containment for a closed triangle mesh.
///
/// The mesh is built with [`TriMeshFlags::ORIENTED`], which makes parry compute the angle-weighted
/// pseudo-normals of vertices and edges (Bærentzen & Aanæs 2005). `contains_local_point` then
/// projects the point onto the closest triangle (a best-first search of the mesh's BVH) and
/// calls it inside when `(point − projection) · n ≤ 0`, with `n` the pseudo-normal of the
/// feature (face, edge or vertex) the projection landed on. Without the flag parry would only
/// test whether the point lies *on* some triangle. The test needs outward faces:
/// [`ParryTriMesh::convert`] reverses inward-facing meshes.
///
/// The answer is computed in floating point, so it may be wrong for points very close to the
/// surface, and it never says [`Containment::OnBoundary`]: a point on the surface comes back
/// `Inside` or `Outside`. Points outside the mesh's bounding box are answered `Outside` without
/// asking parry (the same prefilter both ray-crossing modes apply, so the comparison is about the
/// test inside the box).
///
/// ```
/// use collide_benches::containment::ParryTriMesh;
/// use contact_core::{Containment, PointContainment};
/// use geometry_core::{generators::octa_sphere, DVec3};
///
/// let sphere = ParryTriMesh::new(&octa_sphere(3).unwrap()).unwrap();
/// assert_eq!(sphere.contains(DVec3::splat(0.1)).unwrap(), Containment::Inside);
/// assert_eq!(sphere.contains(DVec3::splat(0.7)).unwrap(), Containment::Outside);
/// assert_eq!(sphere.contains(DVec3::new(3.0, 0.0, 0.0)).unwrap(), Containment::Outside);
/// assert!(sphere.contains(DVec3::NAN).is_err());
/// ```
pub struct ParryTriMesh {
    mesh: ParryMesh,
    bbox: Aabb,
}

/// The input of [`ParryTriMesh::build`]: vertices converted to parry's vector type, outward
/// faces, and the bounding box.
#[derive(Debug, Clone)]
pub struct ParryParts {
    /// Vertices as parry's `DVec3` (glam 0.33 through glamx).
    pub vertices: Vec<ParryVector>,
    /// Faces, outward oriented.
    pub indices: Vec<[u32; 3]>,
    /// The mesh's bounding box.
    pub bbox: Aabb,
}

impl ParryTriMesh {
    /// Converts and builds in one go ([`convert`](Self::convert) then [`build`](Self::build)).
    ///
    /// # Errors
    /// parry's builder error (only for a mesh without faces).
    pub fn new(mesh: &TriMesh) -> Result<Self, TriMeshBuilderError> {
        Self::build(Self::convert(mesh))
    }

    /// Copies the mesh into parry's types (through arrays, since parry uses another glam
    /// version), reversing every face if the mesh faces inward.
    ///
    /// ```
    /// use collide_benches::containment::ParryTriMesh;
    /// use geometry_core::generators::octa_sphere;
    /// let mesh = octa_sphere(1).unwrap();
    /// let parts = ParryTriMesh::convert(&mesh);
    /// assert_eq!(parts.vertices.len(), mesh.vertices().len());
    /// assert_eq!(parts.indices, mesh.faces());
    /// ```
    pub fn convert(mesh: &TriMesh) -> ParryParts {
        let vertices = mesh.vertices().iter().map(|v| ParryVector::from_array(v.to_array())).collect();
        let outward = mesh.report().is_outward();
        let indices =
            mesh.faces().iter().map(|&[a, b, c]| if outward { [a, b, c] } else { [a, c, b] }).collect();
        ParryParts { vertices, indices, bbox: mesh.bounding_box() }
    }

    /// Builds parry's mesh with [`TriMeshFlags::ORIENTED`]: the BVH over the faces and the
    /// pseudo-normals.
    ///
    /// # Errors
    /// parry's builder error (only for a mesh without faces).
    pub fn build(parts: ParryParts) -> Result<Self, TriMeshBuilderError> {
        let mesh = ParryMesh::with_flags(parts.vertices, parts.indices, TriMeshFlags::ORIENTED)?;
        Ok(Self { mesh, bbox: parts.bbox })
    }

    /// parry's mesh.
    pub fn parry_mesh(&self) -> &ParryMesh {
        &self.mesh
    }
}

impl fmt::Debug for ParryTriMesh {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParryTriMesh")
            .field("triangles", &self.mesh.num_triangles())
            .field("bbox", &self.bbox)
            .finish_non_exhaustive()
    }
}

impl PointContainment for ParryTriMesh {
    type Error = NonFinitePoint;

    fn contains(&self, point: DVec3) -> Result<Containment, NonFinitePoint> {
        if !point.is_finite() {
            return Err(NonFinitePoint { index: 0 });
        }
        if !self.bbox.contains_point(point) {
            return Ok(Containment::Outside);
        }
        Ok(if self.mesh.contains_local_point(ParryVector::from_array(point.to_array())) {
            Containment::Inside
        } else {
            Containment::Outside
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geometry_core::generators::{FoamSize, foam};

    #[test]
    fn inward_meshes_are_reversed() {
        let mesh = geometry_core::generators::octa_sphere(2).unwrap();
        let (v, f) = mesh.clone().into_parts();
        let inward = TriMesh::new(v, f.iter().map(|&[a, b, c]| [a, c, b]).collect()).unwrap();
        assert!(!inward.report().is_outward());
        let parry = ParryTriMesh::new(&inward).unwrap();
        assert_eq!(parry.contains(DVec3::ZERO).unwrap(), Containment::Inside);
        assert_eq!(parry.contains(DVec3::splat(0.9)).unwrap(), Containment::Outside);
    }

    #[test]
    fn agrees_with_exact_ray_crossing_away_from_the_surface() {
        let mesh = foam(FoamSize::Small).unwrap();
        let exact = raycross::RayCrossing::new(mesh.clone()).unwrap();
        let parry = ParryTriMesh::new(&mesh).unwrap();
        let points: Vec<DVec3> = (0..400)
            .map(|i| {
                let t = f64::from(i) / 400.0;
                DVec3::new(2.2 * t - 1.1, 0.37 * (7.0 * t).sin(), 0.61 * (3.0 * t).cos())
            })
            .collect();
        assert_eq!(parry.contains_batch(&points).unwrap(), exact.contains_batch(&points).unwrap());
    }
}
