//! Stateless sort and sweep: sort all boxes on one axis every call, then sweep.

use super::slots::{SlotHandle, Slots};
use contact_core::{BroadPhase, BroadPhaseError};
use geometry_core::Aabb;

/// Below this many boxes the sort is the standard library's pattern-defeating quicksort; from
/// here on an LSD radix sort.
const RADIX_THRESHOLD: usize = 256;
/// Bits per radix digit: 6 passes over a 64-bit key at most.
const DIGIT_BITS: u32 = 11;
const BUCKETS: usize = 1 << DIGIT_BITS;
const PASSES: usize = 64_usize.div_ceil(DIGIT_BITS as usize);

/// A box in sweep order: the sweep interval plus the other two axes, contiguous.
#[derive(Debug, Clone, Copy)]
struct SweepBox {
    lo: f64,
    hi: f64,
    /// `[min_u, max_u, min_v, max_v]` of the two other axes.
    rest: [f64; 4],
    dense: u32,
}

/// Sort and sweep without temporal state: every [`find_pairs`](BroadPhase::find_pairs) picks the
/// axis along which the box centres vary most, sorts all boxes by their minimum on that axis
/// (an 11-bit LSD radix sort of the order-preserving bit patterns of the `f64` minima, skipping
/// digits that all keys share; `sort_unstable` below 256 boxes), and sweeps: each box is tested
/// against the following boxes until one starts beyond its maximum.
///
/// The state is just the boxes (a dense array with swap-removal, so
/// [`insert`](BroadPhase::insert), [`remove`](BroadPhase::remove) and
/// [`update`](BroadPhase::update) are `O(1)`); the sort buffers are kept between calls only to
/// avoid reallocating them. `find_pairs` is `O(N + pairs + sweep candidates)` after the
/// `O(N)` radix sort. Pairs are reported in sweep order as `(a, b)` where `a`'s minimum on the
/// sweep axis is not above `b`'s.
///
/// ```
/// use collide_benches::broadphase::SortAndSweep;
/// use contact_core::BroadPhase;
/// use geometry_core::{Aabb, DVec3};
/// let mut sweep = SortAndSweep::new();
/// let a = sweep.insert(Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap()).unwrap();
/// let b = sweep.insert(Aabb::new(DVec3::ONE, DVec3::splat(2.0)).unwrap()).unwrap();
/// let mut pairs = Vec::new();
/// sweep.find_pairs(&mut pairs);
/// assert_eq!(pairs, vec![(a, b)]); // corners touch
/// ```
#[derive(Debug, Clone, Default)]
pub struct SortAndSweep {
    /// Slot → dense index.
    slots: Slots<u32>,
    boxes: Vec<Aabb>,
    handles: Vec<SlotHandle>,
    keys: Vec<(u64, u32)>,
    scratch: Vec<(u64, u32)>,
    sweep: Vec<SweepBox>,
}

/// The bit pattern of `x` as an unsigned integer in the same order as the floats
/// (`-0.0` just before `+0.0`).
fn order_key(x: f64) -> u64 {
    let bits = x.to_bits();
    if bits >> 63 == 1 { !bits } else { bits | 1 << 63 }
}

/// Sorts `keys` by their first component (LSD radix sort, `scratch` as the second buffer).
fn radix_sort(keys: &mut Vec<(u64, u32)>, scratch: &mut Vec<(u64, u32)>) {
    let n = keys.len();
    let mut counts = vec![[0u32; BUCKETS]; PASSES];
    for &(k, _) in keys.iter() {
        for (pass, c) in counts.iter_mut().enumerate() {
            c[((k >> (pass as u32 * DIGIT_BITS)) as usize) & (BUCKETS - 1)] += 1;
        }
    }
    scratch.clear();
    scratch.resize(n, (0, 0));
    for (pass, c) in counts.iter_mut().enumerate() {
        if c.contains(&(n as u32)) {
            continue; // every key has the same digit here
        }
        let mut sum = 0u32;
        for slot in c.iter_mut() {
            let count = *slot;
            *slot = sum;
            sum += count;
        }
        let shift = pass as u32 * DIGIT_BITS;
        for &entry in keys.iter() {
            let d = ((entry.0 >> shift) as usize) & (BUCKETS - 1);
            scratch[c[d] as usize] = entry;
            c[d] += 1;
        }
        std::mem::swap(keys, scratch);
    }
}

impl SortAndSweep {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Heap bytes held: the boxes and handles plus the sort buffers.
    ///
    /// ```
    /// use collide_benches::broadphase::SortAndSweep;
    /// assert_eq!(SortAndSweep::new().heap_bytes(), 0);
    /// ```
    pub fn heap_bytes(&self) -> usize {
        self.slots.heap_bytes()
            + self.boxes.capacity() * size_of::<Aabb>()
            + self.handles.capacity() * size_of::<SlotHandle>()
            + (self.keys.capacity() + self.scratch.capacity()) * size_of::<(u64, u32)>()
            + self.sweep.capacity() * size_of::<SweepBox>()
    }

    /// Sorts the boxes into sweep order: the first half of [`find_pairs`](BroadPhase::find_pairs)
    /// (which calls it), exposed to measure the sort alone and the memory of its buffers.
    /// Returns the sweep axis.
    ///
    /// ```
    /// use collide_benches::broadphase::SortAndSweep;
    /// use contact_core::BroadPhase;
    /// use geometry_core::{Aabb, DVec3};
    /// let mut sweep = SortAndSweep::new();
    /// for i in 0..3 {
    ///     let x = f64::from(i) * 10.0;
    ///     sweep.insert(Aabb::new(DVec3::new(x, 0.0, 0.0), DVec3::new(x + 1.0, 1.0, 1.0)).unwrap()).unwrap();
    /// }
    /// assert_eq!(sweep.sort(), 0); // the centres spread along x
    /// ```
    pub fn sort(&mut self) -> usize {
        let axis = self.sweep_axis();
        let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
        self.keys.clear();
        self.keys.extend(self.boxes.iter().enumerate().map(|(i, b)| (order_key(b.min[axis]), i as u32)));
        if self.keys.len() < RADIX_THRESHOLD {
            self.keys.sort_unstable_by_key(|e| e.0);
        } else {
            radix_sort(&mut self.keys, &mut self.scratch);
        }
        self.sweep.clear();
        self.sweep.extend(self.keys.iter().map(|&(_, i)| {
            let b = &self.boxes[i as usize];
            SweepBox {
                lo: b.min[axis],
                hi: b.max[axis],
                rest: [b.min[u], b.max[u], b.min[v], b.max[v]],
                dense: i,
            }
        }));
        axis
    }

    /// The axis (0, 1, 2) along which the box centres have the largest variance.
    fn sweep_axis(&self) -> usize {
        let n = self.boxes.len() as f64;
        let (mut sum, mut sum_sq) = ([0.0f64; 3], [0.0f64; 3]);
        for b in &self.boxes {
            let c = (b.min + b.max).to_array();
            for k in 0..3 {
                sum[k] += c[k];
                sum_sq[k] += c[k] * c[k];
            }
        }
        let variance: [f64; 3] = std::array::from_fn(|k| sum_sq[k] - sum[k] * sum[k] / n);
        (0..3).fold(0, |best, k| if variance[k] > variance[best] { k } else { best })
    }
}

impl BroadPhase for SortAndSweep {
    type Handle = SlotHandle;
    type Error = BroadPhaseError;

    fn insert(&mut self, aabb: Aabb) -> Result<SlotHandle, BroadPhaseError> {
        let aabb = aabb.validate()?;
        let handle = self.slots.insert(self.boxes.len() as u32);
        self.boxes.push(aabb);
        self.handles.push(handle);
        Ok(handle)
    }

    fn remove(&mut self, handle: SlotHandle) -> Result<(), BroadPhaseError> {
        let dense = self.slots.remove(handle).ok_or(BroadPhaseError::UnknownHandle)? as usize;
        self.boxes.swap_remove(dense);
        self.handles.swap_remove(dense);
        if let Some(&moved) = self.handles.get(dense) {
            *self.slots.get_mut(moved).expect("moved handle is live") = dense as u32;
        }
        Ok(())
    }

    fn update(&mut self, handle: SlotHandle, aabb: Aabb) -> Result<(), BroadPhaseError> {
        let aabb = aabb.validate()?;
        let dense = *self.slots.get(handle).ok_or(BroadPhaseError::UnknownHandle)?;
        self.boxes[dense as usize] = aabb;
        Ok(())
    }

    fn find_pairs(&mut self, pairs: &mut Vec<(SlotHandle, SlotHandle)>) {
        pairs.clear();
        if self.boxes.len() < 2 {
            return;
        }
        self.sort();
        for (i, a) in self.sweep.iter().enumerate() {
            for b in &self.sweep[i + 1..] {
                if b.lo > a.hi {
                    break;
                }
                if a.rest[0] <= b.rest[1]
                    && b.rest[0] <= a.rest[1]
                    && a.rest[2] <= b.rest[3]
                    && b.rest[2] <= a.rest[3]
                {
                    pairs.push((self.handles[a.dense as usize], self.handles[b.dense as usize]));
                }
            }
        }
    }

    fn len(&self) -> usize {
        self.boxes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn order_keys_preserve_float_order() {
        let values = [f64::NEG_INFINITY, -1e300, -2.5, -1e-300, -0.0, 0.0, 1e-300, 1.0, 3.5e7, f64::INFINITY];
        for w in values.windows(2) {
            assert!(order_key(w[0]) < order_key(w[1]), "{} vs {}", w[0], w[1]);
        }
    }

    #[test]
    fn radix_sort_matches_the_standard_sort() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for n in [0, 1, 2, 300, 5000] {
            let mut keys: Vec<(u64, u32)> = (0..n)
                .map(|i| {
                    let x: f64 = rng.random_range(-1e6..1e6) * if i % 7 == 0 { 1e-9 } else { 1.0 };
                    (order_key(x), i as u32)
                })
                .collect();
            let mut expected = keys.clone();
            expected.sort_by_key(|e| e.0);
            let mut scratch = Vec::new();
            radix_sort(&mut keys, &mut scratch);
            let sorted: Vec<u64> = keys.iter().map(|e| e.0).collect();
            assert_eq!(sorted, expected.iter().map(|e| e.0).collect::<Vec<_>>());
            let mut ids: Vec<u32> = keys.iter().map(|e| e.1).collect();
            ids.sort_unstable();
            assert_eq!(ids, (0..n as u32).collect::<Vec<_>>());
        }
    }
}
