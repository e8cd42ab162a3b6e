//! Meshes and point sets used by the papers' experiments.
//!
//! * [`octa_sphere()`]: the unit-sphere approximation of Muth et al. (8 · 4^level triangles).
//! * [`foam()`]: a closed, highly non-convex gyroid foam standing in for the paper's foam meshes.
//! * [`point_grid()`] and [`surrounding_cube`]: the regular `n³` test-point grids.

pub mod foam;
mod marching_tetrahedra;
mod octa_sphere;
mod point_grid;

pub use foam::{
    FOAM_PERIODS, FOAM_THRESHOLD, FoamSize, MAX_FOAM_RESOLUTION, MIN_FOAM_RESOLUTION, foam,
    foam_with_resolution,
};
pub use octa_sphere::{MAX_OCTA_SPHERE_LEVEL, octa_sphere};
pub use point_grid::{point_grid, point_lattice, surrounding_cube};

use thiserror::Error;

/// A generator was asked for something it cannot make.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum GeneratorError {
    /// A size parameter is outside the range the generator supports.
    #[error("{what} = {value} is outside the supported range {min}..={max}")]
    OutOfRange {
        /// Which parameter.
        what: &'static str,
        /// The value given.
        value: usize,
        /// Smallest supported value.
        min: usize,
        /// Largest supported value.
        max: usize,
    },
    /// The generated arrays failed mesh validation (a bug in the generator, reported rather than
    /// hidden).
    #[error("generated mesh is invalid: {0}")]
    InvalidMesh(#[from] crate::MeshError),
    /// A geometric parameter was invalid.
    #[error(transparent)]
    Geometry(#[from] crate::GeometryError),
}
