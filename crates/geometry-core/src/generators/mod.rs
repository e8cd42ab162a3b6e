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
///
/// ```
/// use geometry_core::generators::{GeneratorError, MAX_OCTA_SPHERE_LEVEL, octa_sphere};
/// let err = octa_sphere(MAX_OCTA_SPHERE_LEVEL + 1).unwrap_err();
/// assert!(matches!(err, GeneratorError::OutOfRange { value, max, .. }
///     if value == MAX_OCTA_SPHERE_LEVEL + 1 && max == MAX_OCTA_SPHERE_LEVEL));
/// ```
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum GeneratorError {
    /// A size parameter is outside the range the generator supports.
    #[error("{what} = {value} is outside the supported range {min}..={max}")]
    OutOfRange {
        /// Which parameter.
        what: &'static str,
        /// The value given, or the count asked for (saturated at `usize::MAX` where it is
        /// larger, as `point_lattice`'s points per axis can be).
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
    /// The output does not fit in memory (a point set within the supported sizes can still
    /// need more than the machine has: 2000³ points take 192 GB).
    #[error("{what}: {bytes} bytes could not be allocated")]
    OutOfMemory {
        /// What was being generated.
        what: &'static str,
        /// The size of the allocation that failed.
        bytes: usize,
    },
}

/// An empty vector with room for `count` points, or [`GeneratorError::OutOfMemory`] (instead
/// of aborting the process) when the allocator refuses.
pub(crate) fn point_buffer(count: usize, what: &'static str) -> Result<Vec<crate::DVec3>, GeneratorError> {
    let mut points = Vec::new();
    points.try_reserve_exact(count).map_err(|_| GeneratorError::OutOfMemory {
        what,
        bytes: count.saturating_mul(std::mem::size_of::<crate::DVec3>()),
    })?;
    Ok(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A buffer the allocator must refuse is an error, not an abort. (A request beyond
    /// `isize::MAX` bytes is refused on every machine; one that merely exceeds the memory, like
    /// 2000³ points, is refused or not depending on the system's overcommit policy.)
    #[test]
    fn an_impossible_point_buffer_is_an_error() {
        let count = usize::MAX / 16;
        assert!(matches!(
            point_buffer(count, "test"),
            Err(GeneratorError::OutOfMemory { what: "test", bytes: usize::MAX })
        ));
        assert_eq!(point_buffer(1000, "test").unwrap().capacity(), 1000);
    }
}
