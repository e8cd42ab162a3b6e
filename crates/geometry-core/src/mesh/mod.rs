//! Validated indexed triangle meshes.
//!
//! A [`TriMesh`] can only be made by [`TriMesh::new`], which rejects input that no algorithm can
//! use (non-finite coordinates, out-of-range indices, zero-area faces) and computes a
//! [`MeshReport`] of the properties that only *some* algorithms need: closedness, consistent
//! orientation, outward orientation, Euler characteristic.

mod report;

pub use report::MeshReport;

use crate::predicates::{collinear3d, in_exact_range};
use crate::{Aabb, DAffine3, DVec3, MeshError, SolidError, Triangle};

/// An indexed triangle mesh with `f64` vertices and `u32` indices, validated at construction.
///
/// Faces are counter-clockwise seen from the side their normal points to; for a solid, that is
/// the outside (positive signed volume).
///
/// ```
/// use geometry_core::{TriMesh, DVec3, MeshError};
///
/// // A tetrahedron with outward-facing triangles.
/// let vertices = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
/// let faces = vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
/// let tet = TriMesh::new(vertices.clone(), faces).unwrap();
/// assert!(tet.report().is_closed());
/// assert!((tet.report().signed_volume() - 1.0 / 6.0).abs() < 1e-15);
/// assert!(tet.require_solid().is_ok());
///
/// // A face with an index out of range is refused.
/// let err = TriMesh::new(vertices, vec![[0, 1, 7]]).unwrap_err();
/// assert!(matches!(err, MeshError::IndexOutOfRange { face: 0, index: 7, .. }));
/// ```
#[derive(Debug, Clone)]
pub struct TriMesh {
    vertices: Vec<DVec3>,
    faces: Vec<[u32; 3]>,
    report: MeshReport,
}

impl TriMesh {
    /// Validates the arrays and builds the mesh with its [`MeshReport`].
    ///
    /// # Errors
    /// * [`MeshError::Empty`]: no vertices or no faces.
    /// * [`MeshError::TooManyVertices`]: more than `u32::MAX` vertices.
    /// * [`MeshError::NonFiniteVertex`]: a coordinate is NaN or infinite.
    /// * [`MeshError::CoordinateOutOfRange`]: a coordinate is outside the range where the exact
    ///   predicates are exact (0, or a magnitude from `1e-70` to `1e70`).
    /// * [`MeshError::IndexOutOfRange`]: a face names a vertex that does not exist.
    /// * [`MeshError::DegenerateFace`]: a face repeats an index or has exactly collinear corners.
    ///
    /// The checks run in the order listed, each over every vertex or face, and the first
    /// failing check reports its lowest offending index: a face out of range is reported before
    /// a degenerate face of lower index.
    ///
    /// ```
    /// use geometry_core::{TriMesh, DVec3, MeshError};
    /// let err = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::splat(2.0)], vec![[0, 1, 1]]).unwrap_err();
    /// assert_eq!(err, MeshError::DegenerateFace { face: 0 });
    /// ```
    pub fn new(vertices: Vec<DVec3>, faces: Vec<[u32; 3]>) -> Result<Self, MeshError> {
        if vertices.is_empty() || faces.is_empty() {
            return Err(MeshError::Empty { vertices: vertices.len(), faces: faces.len() });
        }
        if u32::try_from(vertices.len()).is_err() {
            return Err(MeshError::TooManyVertices { vertices: vertices.len() });
        }
        if let Some(vertex) = vertices.iter().position(|v| !v.is_finite()) {
            return Err(MeshError::NonFiniteVertex { vertex });
        }
        if let Some((vertex, axis)) = vertices.iter().enumerate().find_map(|(i, v)| {
            v.to_array().into_iter().position(|x| !in_exact_range(x)).map(|axis| (i, axis))
        }) {
            return Err(MeshError::CoordinateOutOfRange { vertex, axis });
        }
        let vertex_count = vertices.len();
        for (face, tri) in faces.iter().enumerate() {
            if let Some(&index) = tri.iter().find(|&&i| i as usize >= vertex_count) {
                return Err(MeshError::IndexOutOfRange { face, index, vertex_count });
            }
        }
        // Degeneracy is decided exactly; this is the expensive check, so run it in parallel.
        // `find_first_any`-style search would be non-deterministic: take the minimum index.
        let degenerate = {
            use rayon::prelude::*;
            faces
                .par_iter()
                .enumerate()
                .filter(|(_, t)| {
                    let [a, b, c] = **t;
                    a == b
                        || b == c
                        || a == c
                        || collinear3d(vertices[a as usize], vertices[b as usize], vertices[c as usize])
                })
                .map(|(i, _)| i)
                .min()
        };
        if let Some(face) = degenerate {
            return Err(MeshError::DegenerateFace { face });
        }
        let report = MeshReport::compute(&vertices, &faces);
        Ok(Self { vertices, faces, report })
    }

    /// The vertex positions.
    ///
    /// ```
    /// use geometry_core::generators::octa_sphere;
    /// assert_eq!(octa_sphere(0).unwrap().vertices().len(), 6);
    /// ```
    #[inline]
    pub fn vertices(&self) -> &[DVec3] {
        &self.vertices
    }

    /// The faces as triples of vertex indices.
    ///
    /// ```
    /// use geometry_core::generators::octa_sphere;
    /// assert_eq!(octa_sphere(1).unwrap().faces().len(), 32);
    /// ```
    #[inline]
    pub fn faces(&self) -> &[[u32; 3]] {
        &self.faces
    }

    /// The validation report (closedness, orientation, normals, areas, ...).
    ///
    /// ```
    /// use geometry_core::generators::octa_sphere;
    /// assert!(octa_sphere(2).unwrap().report().is_outward());
    /// ```
    #[inline]
    pub fn report(&self) -> &MeshReport {
        &self.report
    }

    /// The bounding box of all vertices.
    ///
    /// ```
    /// use geometry_core::{generators::octa_sphere, DVec3};
    /// assert_eq!(octa_sphere(0).unwrap().bounding_box().max, DVec3::ONE);
    /// ```
    #[inline]
    pub fn bounding_box(&self) -> Aabb {
        self.report.bounding_box()
    }

    /// Face `i` as a [`Triangle`].
    ///
    /// # Panics
    /// If `i >= self.faces().len()`.
    ///
    /// ```
    /// use geometry_core::generators::octa_sphere;
    /// let t = octa_sphere(0).unwrap().triangle(0);
    /// assert!((t.area() - 3f64.sqrt() / 2.0).abs() < 1e-15);
    /// ```
    #[inline]
    pub fn triangle(&self, i: usize) -> Triangle {
        let [a, b, c] = self.faces[i];
        Triangle::new(self.vertices[a as usize], self.vertices[b as usize], self.vertices[c as usize])
    }

    /// All faces as [`Triangle`]s.
    ///
    /// ```
    /// use geometry_core::generators::octa_sphere;
    /// let area: f64 = octa_sphere(0).unwrap().triangles().map(|t| t.area()).sum();
    /// assert!((area - 4.0 * 3f64.sqrt()).abs() < 1e-12);
    /// ```
    pub fn triangles(&self) -> impl ExactSizeIterator<Item = Triangle> + '_ {
        (0..self.faces.len()).map(|i| self.triangle(i))
    }

    /// Gives the arrays back.
    ///
    /// ```
    /// use geometry_core::generators::octa_sphere;
    /// let (vertices, faces) = octa_sphere(0).unwrap().into_parts();
    /// assert_eq!((vertices.len(), faces.len()), (6, 8));
    /// ```
    pub fn into_parts(self) -> (Vec<DVec3>, Vec<[u32; 3]>) {
        (self.vertices, self.faces)
    }

    /// The mesh with every face reversed (normals negated).
    ///
    /// ```
    /// use geometry_core::generators::octa_sphere;
    /// let inward = octa_sphere(1).unwrap().flipped();
    /// assert!(inward.report().is_consistently_oriented() && !inward.report().is_outward());
    /// ```
    #[must_use]
    pub fn flipped(&self) -> TriMesh {
        let faces = self.faces.iter().map(|&[a, b, c]| [a, c, b]).collect();
        // Flipping cannot create a degenerate face, and all properties except the orientation-
        // dependent ones carry over, but recomputing keeps one source of truth.
        TriMesh::new(self.vertices.clone(), faces).expect("flipping preserves validity")
    }

    /// Turns a closed, consistently oriented mesh outward: flips every face if the signed volume is
    /// negative, otherwise returns the mesh unchanged.
    ///
    /// # Errors
    /// The first of [`SolidError::Open`], [`SolidError::NonManifold`],
    /// [`SolidError::InconsistentOrientation`], [`SolidError::ZeroVolume`] that applies: without
    /// a closed consistent surface, "outward" has no meaning.
    ///
    /// ```
    /// use geometry_core::generators::octa_sphere;
    /// let fixed = octa_sphere(2).unwrap().flipped().into_outward().unwrap();
    /// assert!(fixed.report().is_outward());
    /// ```
    pub fn into_outward(self) -> Result<TriMesh, SolidError> {
        match self.require_solid() {
            Ok(()) => Ok(self),
            Err(SolidError::InwardFacing { .. }) => Ok(self.flipped()),
            Err(e) => Err(e),
        }
    }

    /// Checks that the mesh bounds a solid the way point-in-polyhedron algorithms need:
    /// closed, edge-manifold, consistently oriented, with positive signed volume.
    ///
    /// These are properties of edges and of the total volume, not of how several closed shells
    /// nest. Ray crossing (`raycross`) classifies by parity; the double layer potential
    /// (`fmm-dlp`) is the winding number, but `fmm-dlp` too decides by parity where it is not 0
    /// or 1. The two agree everywhere, and with the intuitive solid wherever every point's
    /// winding number is 0 or 1: disjoint outward shells, and inward shells (cavities) inside
    /// outward ones. On meshes this check also accepts, outward shells nested or overlapping
    /// (winding 2) are outside by parity, and the inside of an inward shell standing alone
    /// beside an outward one (winding −1) is inside.
    ///
    /// # Errors
    /// The first failing property, in the order [`SolidError::Open`], [`SolidError::NonManifold`],
    /// [`SolidError::InconsistentOrientation`], [`SolidError::ZeroVolume`], [`SolidError::InwardFacing`].
    ///
    /// ```
    /// use geometry_core::{generators::octa_sphere, SolidError};
    /// let sphere = octa_sphere(1).unwrap();
    /// assert!(sphere.require_solid().is_ok());
    /// assert!(matches!(sphere.flipped().require_solid(), Err(SolidError::InwardFacing { .. })));
    /// ```
    pub fn require_solid(&self) -> Result<(), SolidError> {
        self.report.require_solid()
    }

    /// The mesh with every vertex mapped by the affine transform `transform`.
    ///
    /// A transform with negative determinant (a reflection) reverses the faces so that an outward
    /// mesh stays outward.
    ///
    /// # Errors
    /// As [`TriMesh::new`]: a transform can produce non-finite coordinates, or collapse faces
    /// (a singular matrix, or rounding on tiny faces).
    ///
    /// ```
    /// use geometry_core::{generators::octa_sphere, DAffine3, DQuat, DVec3};
    /// let pose = DAffine3::from_rotation_translation(DQuat::from_rotation_y(0.3), DVec3::new(5.0, 0.0, 0.0));
    /// let moved = octa_sphere(2).unwrap().transformed(&pose).unwrap();
    /// assert!(moved.report().is_outward());
    /// assert!((moved.bounding_box().center() - DVec3::new(5.0, 0.0, 0.0)).length() < 1e-9);
    /// ```
    pub fn transformed(&self, transform: &DAffine3) -> Result<TriMesh, MeshError> {
        let vertices = self.vertices.iter().map(|&v| transform.transform_point3(v)).collect();
        // (The sign on the scaled matrix: the determinant of a mirror by 1e-110 underflows to
        // -0, which left its faces inward.)
        let faces = if crate::scaled::reverses_orientation(&transform.matrix3) {
            self.faces.iter().map(|&[a, b, c]| [a, c, b]).collect()
        } else {
            self.faces.clone()
        };
        TriMesh::new(vertices, faces)
    }
}
