//! Errors of the hierarchical hash grid.

use geometry_core::GeometryError;
use thiserror::Error;

/// Why an operation on a [`HierarchicalHashGrid`](crate::HierarchicalHashGrid) was refused.
///
/// ```
/// use contact_core::BroadPhase;
/// use geometry_core::{Aabb, DVec3};
/// use hhgrid::{HhGridConfig, HhGridError, HierarchicalHashGrid, ObjectOptions};
/// let bad = HhGridConfig { hierarchy_factor: 1.0, ..HhGridConfig::default() };
/// let err = HierarchicalHashGrid::new(bad).unwrap_err();
/// assert!(matches!(err, HhGridError::InvalidConfig { field: "hierarchy_factor", .. }));
/// let mut grid = HierarchicalHashGrid::default();
/// let inverted = Aabb { min: DVec3::ONE, max: DVec3::ZERO };
/// assert!(matches!(grid.insert(inverted), Err(HhGridError::InvalidAabb(_))));
/// let plane = grid.insert_unbounded(ObjectOptions::default()).unwrap();
/// let unit = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
/// assert_eq!(grid.update(plane, unit), Err(HhGridError::UpdateOfUnbounded));
/// grid.remove(plane).unwrap();
/// assert_eq!(grid.remove(plane), Err(HhGridError::UnknownHandle));
/// ```
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum HhGridError {
    /// A configuration field is out of range.
    #[error("invalid configuration: {field} {reason}")]
    InvalidConfig {
        /// The field.
        field: &'static str,
        /// What is required of it.
        reason: &'static str,
    },
    /// A bounding box is non-finite or inverted.
    #[error("invalid bounding box: {0}")]
    InvalidAabb(#[from] GeometryError),
    /// The handle was never issued by this structure, or its object was removed.
    #[error("unknown or removed handle")]
    UnknownHandle,
    /// The object was inserted as unbounded and has no box to update.
    #[error("unbounded objects have no bounding box to update")]
    UpdateOfUnbounded,
    /// With [`UpdateStrategy::ClearAndReinsert`](crate::UpdateStrategy::ClearAndReinsert), boxes
    /// were updated but the grids were not rebuilt yet; call
    /// [`rebuild`](crate::HierarchicalHashGrid::rebuild) (detection does it automatically).
    /// Not returned while the structure is still in all-pairs mode (below the threshold), whose
    /// list needs no rebuild.
    #[error("updates are pending a rebuild (ClearAndReinsert strategy): call rebuild() first")]
    RebuildPending,
    /// More objects than `u32` indices can address.
    #[error("too many objects")]
    TooManyObjects,
}
