//! Errors of the hierarchical hash grid.

use geometry_core::GeometryError;
use thiserror::Error;

/// Why an operation on a [`HierarchicalHashGrid`](crate::HierarchicalHashGrid) was refused.
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
