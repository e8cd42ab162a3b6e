//! Shared `f64` geometry for the collision-detection workspace.
//!
//! Everything here is built on [`glam`]'s double-precision types ([`DVec3`], [`DQuat`], [`DMat3`]),
//! re-exported so that downstream crates agree on one version.
//!
//! * Primitives: [`Aabb`], [`Sphere`], [`Ellipsoid`], [`Plane`], [`Triangle`], [`Ray`], [`Segment`].
//!   Constructors validate their input and return a typed [`GeometryError`] instead of panicking.
//! * [`TriMesh`]: an indexed triangle mesh that can only be built through a validating constructor.
//!   Its [`MeshReport`] tells whether it is closed, consistently oriented and outward-facing.
//! * [`scaled`]: lengths, directions and distance tests without overflow or underflow.
//! * [`predicates`]: exact orientation tests `orient2d` / `orient3d` (Shewchuk's adaptive predicates).
//! * [`generators`]: the meshes and point sets used by the papers' experiments (octahedral sphere,
//!   gyroid foam, regular point grids).
//! * [`io`]: reading and writing OBJ, STL (ASCII and binary), PLY and OFF files.
//!
//! ```
//! use geometry_core::{generators::octa_sphere, DVec3};
//!
//! let sphere = octa_sphere(3).unwrap();
//! assert_eq!(sphere.faces().len(), 8 * 4usize.pow(3));
//! let report = sphere.report();
//! assert!(report.is_closed() && report.is_consistently_oriented() && report.is_outward());
//! assert_eq!(report.euler_characteristic(), 2);
//! assert!(sphere.bounding_box().contains_point(DVec3::ZERO));
//! ```

pub mod aabb;
mod dyadic;
pub mod ellipsoid;
pub mod error;
pub mod generators;
pub mod io;
pub mod mesh;
pub mod plane;
pub mod predicates;
pub mod ray;
pub mod scaled;
pub mod sphere;
pub mod triangle;

pub use aabb::Aabb;
pub use ellipsoid::Ellipsoid;
pub use error::{GeometryError, MeshError, SolidError};
pub use glam::{self, DAffine3, DMat3, DQuat, DVec2, DVec3};
pub use mesh::{MeshReport, TriMesh};
pub use plane::Plane;
pub use predicates::Sign;
pub use ray::{Ray, Segment};
pub use sphere::Sphere;
pub use triangle::Triangle;

/// Returns `Ok(v)` when every component of `v` is finite, otherwise the error
/// [`GeometryError::NonFinite`] naming `what`.
pub(crate) fn check_finite(what: &'static str, v: DVec3) -> Result<DVec3, GeometryError> {
    if v.is_finite() { Ok(v) } else { Err(GeometryError::NonFinite { what }) }
}
