//! Warm starts across time steps: the last `Λ` of each pair.

use hashbrown::HashMap;
use std::hash::Hash;

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
/// cache.insert((1, 2), 0.4);
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
        self.entries.get(key).map(|&(lambda, _)| lambda)
    }

    /// Stores `Λ` for `key` and marks it used in the current step.
    ///
    /// ```
    /// let mut cache = ellipsoid_pw::LambdaCache::new();
    /// cache.insert(7u64, 0.25);
    /// assert_eq!(cache.len(), 1);
    /// ```
    pub fn insert(&mut self, key: K, lambda: f64) {
        self.entries.insert(key, (lambda, self.step));
    }

    /// Ends a time step: drops every entry not stored since the previous `end_step`.
    ///
    /// ```
    /// let mut cache = ellipsoid_pw::LambdaCache::new();
    /// cache.insert(1u64, 0.5);
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
    /// cache.insert(1u64, 0.5);
    /// cache.clear();
    /// assert!(cache.is_empty());
    /// ```
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}
