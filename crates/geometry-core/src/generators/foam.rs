//! Gyroid foam (SKELETON: being written by a helper).

use super::GeneratorError;
use crate::TriMesh;

/// The three foam sizes of Muth et al. §3.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FoamSize {
    /// About 28952 triangles.
    Small,
    /// About 120868 triangles.
    Medium,
    /// About 494124 triangles.
    Large,
}

/// Foam of a preset size.
pub fn foam(size: FoamSize) -> Result<TriMesh, GeneratorError> {
    let _ = size;
    todo!()
}

/// Foam at a resolution.
pub fn foam_with_resolution(resolution: usize) -> Result<TriMesh, GeneratorError> {
    let _ = resolution;
    todo!()
}
