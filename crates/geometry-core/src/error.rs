//! Typed errors for invalid geometry.
//!
//! Three error types, one per layer:
//! * [`GeometryError`]: a primitive (box, sphere, ellipsoid, plane, ray) was given bad numbers.
//! * [`MeshError`]: [`TriMesh::new`](crate::TriMesh::new) refused the vertex and face arrays.
//! * [`SolidError`]: a valid mesh is not a closed, consistently oriented, outward-facing surface,
//!   which algorithms that need an inside and an outside (point-in-polyhedron) require.

use thiserror::Error;

/// A primitive was constructed from invalid numbers.
///
/// ```
/// use geometry_core::{Aabb, DVec3, GeometryError, Sphere};
/// let err = Sphere::new(DVec3::ZERO, -1.0).unwrap_err();
/// assert!(matches!(err, GeometryError::NonPositive { value, .. } if value == -1.0));
/// let nan = DVec3::new(0.0, f64::NAN, 0.0);
/// assert!(matches!(Aabb::new(DVec3::ZERO, nan), Err(GeometryError::NonFinite { .. })));
/// assert!(matches!(Aabb::from_points(&[]), Err(GeometryError::Empty { .. })));
/// ```
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum GeometryError {
    /// A coordinate or parameter was NaN or infinite.
    #[error("{what} has a non-finite (NaN or infinite) component")]
    NonFinite {
        /// Which input was bad, e.g. `"aabb min"`.
        what: &'static str,
    },
    /// A size that must be strictly positive (radius, semi-axis, extent) was zero or negative.
    #[error("{what} must be > 0, got {value}")]
    NonPositive {
        /// Which size was bad.
        what: &'static str,
        /// The value given.
        value: f64,
    },
    /// A box was given a `min` corner that is greater than its `max` corner on some axis.
    #[error("aabb min {min:?} exceeds max {max:?} on some axis")]
    InvertedBox {
        /// The `min` corner given.
        min: [f64; 3],
        /// The `max` corner given.
        max: [f64; 3],
    },
    /// A direction, normal or quaternion was exactly zero (any other finite value is normalised
    /// without underflow, by scaling with its largest component first).
    #[error("{what} must be a non-zero vector")]
    ZeroVector {
        /// Which vector was bad.
        what: &'static str,
    },
    /// A list of points that must not be empty was empty.
    #[error("{what} needs at least one point")]
    Empty {
        /// Which list was empty.
        what: &'static str,
    },
}

/// [`TriMesh::new`](crate::TriMesh::new) refused its input.
///
/// Topological properties (closed, manifold, oriented) are *not* errors: they are reported in
/// [`MeshReport`](crate::MeshReport); see [`SolidError`] for algorithms that require them.
///
/// ```
/// use geometry_core::{DVec3, MeshError, TriMesh};
/// let empty = TriMesh::new(vec![], vec![]).unwrap_err();
/// assert_eq!(empty, MeshError::Empty { vertices: 0, faces: 0 });
/// let v = vec![DVec3::ZERO, DVec3::X, DVec3::new(0.0, f64::NAN, 0.0)];
/// let nan = TriMesh::new(v, vec![[0, 1, 2]]).unwrap_err();
/// assert_eq!(nan, MeshError::NonFiniteVertex { vertex: 2 });
/// // 1e100 is beyond the exact range (magnitudes up to 1e70).
/// let v = vec![DVec3::ZERO, DVec3::X, DVec3::new(0.0, 1e100, 0.0)];
/// let far = TriMesh::new(v, vec![[0, 1, 2]]).unwrap_err();
/// assert_eq!(far, MeshError::CoordinateOutOfRange { vertex: 2, axis: 1 });
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum MeshError {
    /// The mesh has no vertices or no faces.
    #[error("mesh is empty ({vertices} vertices, {faces} faces)")]
    Empty {
        /// Number of vertices given.
        vertices: usize,
        /// Number of faces given.
        faces: usize,
    },
    /// A vertex has a NaN or infinite coordinate.
    #[error("vertex {vertex} has a non-finite coordinate")]
    NonFiniteVertex {
        /// Index of the offending vertex.
        vertex: usize,
    },
    /// A vertex has a coordinate outside the range where the exact predicates are exact
    /// ([`predicates::in_exact_range`](crate::predicates::in_exact_range): 0, or a magnitude from
    /// `1e-70` to `1e70`). Beyond it their products overflow or lose digits, and every answer
    /// that depends on a sign (degenerate faces, orientation, containment) could be wrong.
    /// Scaling the mesh by a power of two is exact and brings it into range.
    #[error(
        "vertex {vertex} has a coordinate (axis {axis}) outside the range of the exact predicates (0, or 1e-70 to 1e70 in magnitude)"
    )]
    CoordinateOutOfRange {
        /// Index of the offending vertex.
        vertex: usize,
        /// The axis of the offending coordinate (0 for x, 1 for y, 2 for z).
        axis: usize,
    },
    /// A face refers to a vertex index that does not exist.
    #[error("face {face} refers to vertex {index}, but there are only {vertex_count} vertices")]
    IndexOutOfRange {
        /// Index of the offending face.
        face: usize,
        /// The out-of-range vertex index.
        index: u32,
        /// Number of vertices in the mesh.
        vertex_count: usize,
    },
    /// A face has zero area: it repeats a vertex index, or its three corners are exactly
    /// collinear (decided by exact predicates, not by a tolerance).
    #[error("face {face} has zero area (repeated or exactly collinear corners)")]
    DegenerateFace {
        /// Index of the offending face.
        face: usize,
    },
    /// There are more vertices than a `u32` index can address.
    #[error("mesh has {vertices} vertices, more than u32 indices can address")]
    TooManyVertices {
        /// Number of vertices given.
        vertices: usize,
    },
}

/// A valid mesh does not bound a solid in the way an inside/outside test needs.
///
/// ```
/// use geometry_core::{DVec3, SolidError, TriMesh};
/// let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
/// // An outward tetrahedron without its slanted face: the 3 edges of that face are open.
/// let open = TriMesh::new(v.clone(), vec![[0, 2, 1], [0, 1, 3], [0, 3, 2]]).unwrap();
/// assert_eq!(open.require_solid(), Err(SolidError::Open { boundary_edges: 3 }));
/// // The whole tetrahedron with every face reversed encloses a volume of -1/6.
/// let inward = TriMesh::new(v, vec![[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]]).unwrap();
/// match inward.require_solid() {
///     Err(SolidError::InwardFacing { signed_volume }) => {
///         assert!((signed_volume + 1.0 / 6.0).abs() < 1e-15)
///     }
///     other => panic!("expected InwardFacing, got {other:?}"),
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum SolidError {
    /// Some edges are used by only one face: the surface has holes.
    #[error("mesh is open: {boundary_edges} edges belong to a single face")]
    Open {
        /// Number of edges used by exactly one face.
        boundary_edges: usize,
    },
    /// Some edges are shared by more than two faces.
    #[error("mesh is non-manifold: {edges} edges are shared by more than two faces")]
    NonManifold {
        /// Number of edges used by three or more faces.
        edges: usize,
    },
    /// Two faces sharing an edge traverse it in the same direction.
    #[error("mesh is inconsistently oriented: {edges} edges are traversed twice in the same direction")]
    InconsistentOrientation {
        /// Number of edges whose two faces disagree.
        edges: usize,
    },
    /// The mesh is closed and consistent, but its normals point inwards (negative signed volume).
    /// [`TriMesh::into_outward`](crate::TriMesh::into_outward) fixes this.
    #[error("mesh faces point inwards (signed volume {signed_volume})")]
    InwardFacing {
        /// The signed volume, which is negative.
        signed_volume: f64,
    },
    /// The mesh encloses no volume (signed volume exactly zero), e.g. a doubly covered surface.
    /// The signed volume sums the shells with their orientations, so a mesh of an outward shell
    /// and a separate inward shell of the same volume (an outward unit cube beside an inward
    /// one) is refused too.
    #[error("mesh encloses zero volume")]
    ZeroVolume,
}
