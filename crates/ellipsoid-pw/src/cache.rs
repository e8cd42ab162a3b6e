//! Warm starts across time steps: the last `Λ` of each pair.
//!
//! Two stores implement [`LambdaStore`]: [`LambdaCache`], a hash map keyed by any pair
//! identifier, and [`BodyLambdaCache`], per-body contact lists keyed by two body indices (the
//! "contact history" layout of DEM codes), which touches one short list per pair instead of a
//! random hash slot, and so stays in cache when pairs arrive in spatial order from a broad phase.

use crate::PwError;
use hashbrown::HashMap;
use smallvec::SmallVec;
use std::hash::Hash;

/// Where [`PerramWertheim::solve_cached`](crate::PerramWertheim::solve_cached) keeps each
/// pair's `Λ` between steps.
///
/// ```
/// use ellipsoid_pw::{BodyLambdaCache, LambdaCache, LambdaStore};
/// fn remember<S: LambdaStore<(u32, u32)>>(store: &mut S, key: (u32, u32), lambda: f64) {
///     *store.slot(key).unwrap() = lambda;
/// }
/// let (mut by_key, mut by_body) = (LambdaCache::new(), BodyLambdaCache::new());
/// assert!(by_key.slot((1, 2)).unwrap().is_nan()); // a pair not seen before
/// remember(&mut by_key, (1, 2), 0.3);
/// remember(&mut by_body, (1, 2), 0.3);
/// assert_eq!((by_key.get(&(1, 2)), by_body.get(1, 2)), (Some(0.3), Some(0.3)));
/// ```
pub trait LambdaStore<K> {
    /// The `Λ` slot of `key`, marked used in the current step; NaN for a pair not seen in the
    /// previous step (or whose last solve failed). The solver writes the new `Λ` into it (NaN
    /// when the solve fails); a value written by hand outside `[0, 1]` is ignored (cold start).
    ///
    /// # Errors
    /// When the store cannot hold `key` (see [`BodyLambdaCache`]).
    fn slot(&mut self, key: K) -> Result<&mut f64, PwError>;
}

/// The last `Λ` of each pair, keyed by any pair identifier (e.g. two body indices or broad-phase
/// handles), so that [`PerramWertheim::solve_cached`](crate::PerramWertheim::solve_cached) can
/// warm-start Newton from the previous step.
///
/// Pairs that stop being tested (they left the broad phase's pair list) are dropped by
/// [`end_step`](Self::end_step): an entry survives only if it was used since the previous call.
///
/// ```
/// use ellipsoid_pw::LambdaCache;
/// let mut cache = LambdaCache::new();
/// cache.insert((1, 2), 0.4).unwrap();
/// assert_eq!(cache.get(&(1, 2)), Some(0.4));
/// cache.end_step(); // (1, 2) was used during this step: kept
/// cache.end_step(); // not used since: dropped
/// assert!(cache.is_empty());
/// ```
#[derive(Debug, Clone)]
pub struct LambdaCache<K> {
    entries: HashMap<K, (f64, u64)>,
    step: u64,
}

impl<K> Default for LambdaCache<K> {
    fn default() -> Self {
        Self { entries: HashMap::new(), step: 0 }
    }
}

impl<K: Hash + Eq> LambdaCache<K> {
    /// An empty cache.
    ///
    /// ```
    /// let cache = ellipsoid_pw::LambdaCache::<u64>::new();
    /// assert!(cache.is_empty());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// The stored `Λ` of `key`.
    ///
    /// ```
    /// let cache = ellipsoid_pw::LambdaCache::<u64>::new();
    /// assert_eq!(cache.get(&7), None);
    /// ```
    pub fn get(&self, key: &K) -> Option<f64> {
        self.entries.get(key).map(|&(lambda, _)| lambda).filter(|lambda| !lambda.is_nan())
    }

    /// Stores `Λ` for `key` and marks it used in the current step.
    ///
    /// # Errors
    /// [`PwError::InvalidLambda`] for a `lambda` outside `[0, 1]` or NaN (nothing is stored).
    ///
    /// ```
    /// use ellipsoid_pw::{LambdaCache, PwError};
    /// let mut cache = LambdaCache::new();
    /// cache.insert(7u64, 0.25).unwrap();
    /// assert_eq!(cache.insert(8u64, 5.0), Err(PwError::InvalidLambda { value: 5.0 }));
    /// assert_eq!(cache.len(), 1);
    /// ```
    pub fn insert(&mut self, key: K, lambda: f64) -> Result<(), PwError> {
        if !(0.0..=1.0).contains(&lambda) {
            return Err(PwError::InvalidLambda { value: lambda });
        }
        self.entries.insert(key, (lambda, self.step));
        Ok(())
    }

    /// Ends a time step: drops every entry not stored since the previous `end_step`.
    ///
    /// ```
    /// let mut cache = ellipsoid_pw::LambdaCache::new();
    /// cache.insert(1u64, 0.5).unwrap();
    /// cache.end_step();
    /// assert_eq!(cache.len(), 1);
    /// cache.end_step();
    /// assert_eq!(cache.len(), 0);
    /// ```
    pub fn end_step(&mut self) {
        let step = self.step;
        self.entries.retain(|_, &mut (_, used)| used == step);
        self.step += 1;
    }

    /// Number of pairs held.
    ///
    /// ```
    /// assert_eq!(ellipsoid_pw::LambdaCache::<u64>::new().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the cache is empty.
    ///
    /// ```
    /// assert!(ellipsoid_pw::LambdaCache::<u64>::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Forgets every pair.
    ///
    /// ```
    /// let mut cache = ellipsoid_pw::LambdaCache::new();
    /// cache.insert(1u64, 0.5).unwrap();
    /// cache.clear();
    /// assert!(cache.is_empty());
    /// ```
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

impl<K: Hash + Eq> LambdaStore<K> for LambdaCache<K> {
    /// Never fails.
    fn slot(&mut self, key: K) -> Result<&mut f64, PwError> {
        let step = self.step;
        let entry = self.entries.entry(key).or_insert((f64::NAN, step));
        entry.1 = step;
        Ok(&mut entry.0)
    }
}

/// One entry of a body's contact list: the partner, its `Λ` and the step it was last used.
#[derive(Debug, Clone, Copy)]
struct Partner {
    other: u32,
    used: u32,
    lambda: f64,
}

/// The last `Λ` of each pair of bodies `(i, j)`, stored in body `min(i, j)`'s contact list.
///
/// The key's order matters: `Λ` of `(i, j)` belongs to A = `i`; the list stores the pair under
/// `min(i, j)` and remembers `Λ` for the order it was given, so always pass the pair in the same
/// order (a broad phase reports each pair the same way every step). Memory grows with the largest
/// body index (about 80 bytes per body up to it); [`end_step`](Self::end_step) drops pairs not
/// used since the previous call. Body indices must be below [`MAX_BODIES`](Self::MAX_BODIES)
/// `= 2^28` ([`PwError::BodyIndexOutOfRange`]); should the allocator refuse the memory for the
/// lists, [`PwError::CacheAllocationFailed`] is returned (nothing panics or aborts). For larger or
/// sparse indices use a [`LambdaCache`].
///
/// ```
/// use ellipsoid_pw::{BodyLambdaCache, PerramWertheim};
/// use geometry_core::{DQuat, DVec3, Ellipsoid};
/// let pw = PerramWertheim::newton();
/// let mut cache = BodyLambdaCache::new();
/// let a = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::new(1.0, 0.5, 0.5)).unwrap();
/// let b = Ellipsoid::new(DVec3::new(1.4, 0.2, 0.0), DQuat::IDENTITY, DVec3::ONE).unwrap();
/// let first = pw.solve_cached(&mut cache, (0, 1), &a, &b).unwrap();
/// cache.end_step();
/// let again = pw.solve_cached(&mut cache, (0, 1), &a, &b).unwrap();
/// assert_eq!(again.iterations, 1); // warm-started at the answer
/// assert_eq!(cache.len(), 1);
/// ```
#[derive(Debug, Clone, Default)]
pub struct BodyLambdaCache {
    lists: Vec<SmallVec<[Partner; 4]>>,
    step: u32,
}

impl BodyLambdaCache {
    /// Body indices must be below this, `2^28` (the lists for all bodies below it take about
    /// 21 GB).
    ///
    /// ```
    /// use ellipsoid_pw::{BodyLambdaCache, LambdaStore, PwError};
    /// let max = BodyLambdaCache::MAX_BODIES;
    /// assert_eq!(max, 268_435_456); // 2^28
    /// let mut cache = BodyLambdaCache::new();
    /// // The pair is listed under body 0, so the largest index costs no memory here.
    /// *cache.slot((0, max - 1)).unwrap() = 0.5;
    /// assert_eq!(cache.get(0, max - 1), Some(0.5));
    /// assert_eq!(cache.slot((0, max)).err(), Some(PwError::BodyIndexOutOfRange { index: max }));
    /// ```
    pub const MAX_BODIES: u32 = 1 << 28;

    /// An empty cache.
    ///
    /// ```
    /// assert!(ellipsoid_pw::BodyLambdaCache::new().is_empty());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// The stored `Λ` of the pair `(i, j)` (`None` for an index at or above
    /// [`MAX_BODIES`](Self::MAX_BODIES), which no pair can have).
    ///
    /// ```
    /// use ellipsoid_pw::{BodyLambdaCache, LambdaStore};
    /// let mut cache = BodyLambdaCache::new();
    /// *cache.slot((3, 1)).unwrap() = 0.25;
    /// assert_eq!(cache.get(3, 1), Some(0.25));
    /// assert_eq!(cache.get(1, 3), None);
    /// assert_eq!(cache.get(1, 3 | 1 << 31), None);
    /// ```
    pub fn get(&self, i: u32, j: u32) -> Option<f64> {
        // An index beyond the limit would collide with another pair's tag (bit 31 holds the
        // order): `get(3, 5 | 1 << 31)` returned the Λ of the pair (5, 3).
        if i >= Self::MAX_BODIES || j >= Self::MAX_BODIES {
            return None;
        }
        let (owner, other) = Self::place(i, j);
        self.lists
            .get(owner as usize)?
            .iter()
            .find(|p| p.other == other)
            .map(|p| p.lambda)
            .filter(|lambda| !lambda.is_nan())
    }

    /// Ends a time step: drops every pair not used since the previous `end_step`, in
    /// O(bodies + pairs).
    ///
    /// ```
    /// use ellipsoid_pw::{BodyLambdaCache, LambdaStore};
    /// let mut cache = BodyLambdaCache::new();
    /// *cache.slot((0, 1)).unwrap() = 0.5;
    /// cache.end_step();
    /// assert_eq!(cache.len(), 1);
    /// cache.end_step();
    /// assert!(cache.is_empty());
    /// ```
    pub fn end_step(&mut self) {
        let step = self.step;
        for list in &mut self.lists {
            list.retain(|p| p.used == step);
        }
        self.step = self.step.wrapping_add(1);
    }

    /// Number of pairs held.
    ///
    /// ```
    /// assert_eq!(ellipsoid_pw::BodyLambdaCache::new().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.lists.iter().map(SmallVec::len).sum()
    }

    /// Whether the cache is empty.
    ///
    /// ```
    /// assert!(ellipsoid_pw::BodyLambdaCache::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.lists.iter().all(SmallVec::is_empty)
    }

    /// Forgets every pair (keeps the allocations).
    ///
    /// ```
    /// use ellipsoid_pw::{BodyLambdaCache, LambdaStore};
    /// let mut cache = BodyLambdaCache::new();
    /// *cache.slot((0, 1)).unwrap() = 0.5;
    /// cache.clear();
    /// assert!(cache.is_empty());
    /// ```
    pub fn clear(&mut self) {
        self.lists.iter_mut().for_each(SmallVec::clear);
    }

    /// The list owner and the partner tag of `(i, j)`: the smaller index owns the pair; the tag
    /// keeps the order (bit 31 set when `i > j`), so `(i, j)` and `(j, i)` stay distinct.
    fn place(i: u32, j: u32) -> (u32, u32) {
        if i <= j { (i, j) } else { (j, i | 1 << 31) }
    }
}

impl LambdaStore<(u32, u32)> for BodyLambdaCache {
    /// # Errors
    /// [`PwError::BodyIndexOutOfRange`] if an index is [`MAX_BODIES`](BodyLambdaCache::MAX_BODIES)
    /// or more; [`PwError::CacheAllocationFailed`] if growing the lists fails.
    ///
    /// ```
    /// use ellipsoid_pw::{BodyLambdaCache, LambdaStore, PwError};
    /// let mut cache = BodyLambdaCache::new();
    /// let index = u32::MAX >> 1;
    /// assert_eq!(cache.slot((index, index)).err(), Some(PwError::BodyIndexOutOfRange { index }));
    /// ```
    fn slot(&mut self, (i, j): (u32, u32)) -> Result<&mut f64, PwError> {
        for index in [i, j] {
            if index >= Self::MAX_BODIES {
                return Err(PwError::BodyIndexOutOfRange { index });
            }
        }
        let (owner, other) = Self::place(i, j);
        let owner = owner as usize;
        if self.lists.len() <= owner {
            let bodies = owner + 1;
            self.lists
                .try_reserve_exact(bodies - self.lists.len())
                .map_err(|_| PwError::CacheAllocationFailed { bodies })?;
            self.lists.resize_with(bodies, SmallVec::new);
        }
        let step = self.step;
        let list = &mut self.lists[owner];
        let position = if let Some(position) = list.iter().position(|p| p.other == other) {
            position
        } else {
            list.try_reserve(1).map_err(|_| PwError::CacheAllocationFailed { bodies: owner + 1 })?;
            list.push(Partner { other, used: step, lambda: f64::NAN });
            list.len() - 1
        };
        let partner = &mut list[position];
        partner.used = step;
        Ok(&mut partner.lambda)
    }
}
