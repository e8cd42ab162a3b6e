//! The broad-phase trait.

use geometry_core::{Aabb, GeometryError};
use std::fmt::Debug;
use std::hash::Hash;
use thiserror::Error;

/// A dynamic set of axis-aligned boxes that reports which pairs overlap.
///
/// Objects are identified by a `Handle` that the structure hands out on
/// [`insert`](BroadPhase::insert); the caller maps handles to its own bodies. Contract for
/// [`find_pairs`](BroadPhase::find_pairs):
/// * it **clears** the caller's buffer, then pushes every pair of distinct objects whose closed
///   boxes overlap (touching counts, as in [`Aabb::overlaps`]) **exactly once**, and no other pair;
/// * pairs are reported as given by the implementation (document the order and whether
///   `(a, b)` has `a < b`); compare as sets when mixing implementations.
///
/// Implementations may report *more* than overlapping pairs only if they document it (e.g. a
/// margin); the workspace's implementations report exactly the overlapping ones.
///
/// ```
/// use contact_core::{AllPairs, BroadPhase};
/// use geometry_core::{Aabb, DVec3};
///
/// fn count_pairs<B: BroadPhase>(broad: &mut B, boxes: &[Aabb]) -> usize {
///     for b in boxes {
///         broad.insert(*b).unwrap();
///     }
///     let mut pairs = Vec::new();
///     broad.find_pairs(&mut pairs);
///     pairs.len()
/// }
///
/// let boxes: Vec<Aabb> = (0..4)
///     .map(|i| Aabb::new(DVec3::splat(i as f64), DVec3::splat(i as f64 + 1.5)).unwrap())
///     .collect();
/// assert_eq!(count_pairs(&mut AllPairs::new(), &boxes), 3);
/// ```
pub trait BroadPhase {
    /// Identifies an inserted object. Handles of removed objects must not alias later ones
    /// (or the implementation must document when they may).
    type Handle: Copy + Eq + Ord + Hash + Debug + Send + Sync;
    /// Why an operation was refused.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Adds an object with bounding box `aabb` and returns its handle.
    ///
    /// # Errors
    /// Implementation-defined; at least for an invalid box (non-finite or inverted).
    fn insert(&mut self, aabb: Aabb) -> Result<Self::Handle, Self::Error>;

    /// Removes an object.
    ///
    /// # Errors
    /// Implementation-defined; at least for an unknown or already removed handle.
    fn remove(&mut self, handle: Self::Handle) -> Result<(), Self::Error>;

    /// Replaces an object's bounding box (after it moved, rotated or deformed).
    ///
    /// # Errors
    /// As [`insert`](BroadPhase::insert) and [`remove`](BroadPhase::remove).
    fn update(&mut self, handle: Self::Handle, aabb: Aabb) -> Result<(), Self::Error>;

    /// Replaces the boxes of many objects, in order: the same as [`update`](BroadPhase::update)
    /// of each pair `(handle, aabb)` in turn. Implementations may override it to be faster
    /// (say, by overlapping the memory accesses of consecutive updates), never to act
    /// differently.
    ///
    /// # Errors
    /// The error of the first update that fails; the updates before it are applied, it and
    /// those after it are not.
    ///
    /// ```
    /// use contact_core::{AllPairs, BroadPhase};
    /// use geometry_core::{Aabb, DVec3};
    /// let mut broad = AllPairs::new();
    /// let unit = |x: f64| Aabb::new(DVec3::new(x, 0.0, 0.0), DVec3::new(x + 1.0, 1.0, 1.0)).unwrap();
    /// let (a, b) = (broad.insert(unit(0.0)).unwrap(), broad.insert(unit(5.0)).unwrap());
    /// let mut pairs = Vec::new();
    /// broad.find_pairs(&mut pairs);
    /// assert!(pairs.is_empty());
    /// broad.update_many(&[(a, unit(2.0)), (b, unit(2.5))]).unwrap();
    /// broad.find_pairs(&mut pairs);
    /// assert_eq!(pairs.len(), 1);
    /// // A removed handle stops the batch: the update before it stays applied.
    /// broad.remove(b).unwrap();
    /// assert!(broad.update_many(&[(a, unit(9.0)), (b, unit(9.0)), (a, unit(0.0))]).is_err());
    /// assert_eq!(broad.aabb(a), Some(unit(9.0)));
    /// ```
    fn update_many(&mut self, updates: &[(Self::Handle, Aabb)]) -> Result<(), Self::Error> {
        for &(handle, aabb) in updates {
            self.update(handle, aabb)?;
        }
        Ok(())
    }

    /// Clears `pairs` and fills it with every overlapping pair, each exactly once.
    fn find_pairs(&mut self, pairs: &mut Vec<(Self::Handle, Self::Handle)>);

    /// Number of objects currently stored.
    fn len(&self) -> usize;

    /// Whether no object is stored.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Errors shared by simple broad phases (implementations may define richer ones).
///
/// ```
/// use contact_core::{AllPairs, BroadPhase, BroadPhaseError};
/// use geometry_core::{Aabb, DVec3};
/// let mut broad = AllPairs::new();
/// let h = broad.insert(Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap()).unwrap();
/// broad.remove(h).unwrap();
/// assert!(matches!(broad.remove(h), Err(BroadPhaseError::UnknownHandle)));
/// ```
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum BroadPhaseError {
    /// The handle was never issued by this structure, or its object was removed.
    #[error("unknown or removed broad-phase handle")]
    UnknownHandle,
    /// The bounding box is not finite or has `min > max`.
    #[error("invalid bounding box: {0}")]
    InvalidAabb(#[from] GeometryError),
}
