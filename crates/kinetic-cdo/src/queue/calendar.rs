//! A bounded calendar queue after G. Paul, "A complexity O(1) priority queue for event driven
//! molecular dynamics simulations", J. Comput. Phys. 221 (2007) 615–625.

use super::EventQueue;
use super::heap::{Entry, push, remove_at, update_at};

/// `Node::prev` of a slot that holds no pending time.
const ABSENT: u32 = u32::MAX;
/// `Node::prev` of a slot held by the front heap (its `next` is then its heap index).
const IN_FRONT: u32 = u32::MAX - 1;
/// `Node::prev` of the first slot of a bucket or overflow list.
const LIST_HEAD: u32 = u32::MAX - 2;
/// End of a list (`Node::next`, list heads).
const NIL: u32 = u32::MAX;

/// The fraction of the pending events that a refilled year is sized to hold; the rest waits in
/// the overflow list for the next refill.
const YEAR_FRACTION: f64 = 0.9;
/// The fraction of the earliest pending events whose density sets the bucket width.
const FRONT_FRACTION: f64 = 0.25;
/// The number of events per bucket a refilled year aims at (at the front).
const EVENTS_PER_BUCKET: usize = 2;
/// At most this many buckets per pending event.
const MAX_BUCKETS_PER_EVENT: f64 = 2.0;
/// A refill scans all slots sequentially when at least `1/DENSE_SCAN` of them are pending.
const DENSE_SCAN: usize = 4;
/// Pending events beyond `2 × (count at the last refill)` plus this dissolve the year early.
const REGROW_SLACK: usize = 32;

/// One slot: its pending time and its links (bucket list, or front-heap index).
#[derive(Debug, Clone, Copy)]
struct Node {
    time: f64,
    /// Next slot in the list ([`NIL`] at the end), or the heap index when in the front heap.
    next: u32,
    /// Previous slot in the list, or [`LIST_HEAD`], [`IN_FRONT`] or [`ABSENT`].
    prev: u32,
}

/// A bounded calendar queue: `O(1)` expected time per operation when pending times are spread
/// smoothly over the near future, in the spirit of Paul (2007).
///
/// # Structure
///
/// The current *year* `[base, base + B·w)` is cut into `B` buckets ("days") of width `w`; an
/// event at time `t` belongs to day `⌊(t − base)/w⌋`, and events from day `B` on wait in an
/// *overflow* list. Each bucket and the overflow are intrusive doubly linked lists over slot
/// indices, so moving or cancelling an event is `O(1)`. The *current* bucket is held in a small
/// indexed binary heap of `(time, slot)` pairs (the "front"), which makes `peek` `O(1)` and keeps
/// the order exact — `(time, slot)` lexicographic, exactly as [`BinaryHeapQueue`](super::BinaryHeapQueue)
/// — even when many events share one bucket (a lattice start with all events at one instant
/// costs `O(log k)` per operation for `k` tied events instead of a quadratic rescan). When the
/// front runs empty, the queue advances to the next non-empty bucket and loads it into the front;
/// events scheduled into the current or an already-passed day (allowed: the clock is the last
/// peeked time, which may lie in a passed day) go straight into the front. Since the day is a
/// monotone function of the time, every event in the front precedes every event in a later
/// bucket, which precedes every overflow event.
///
/// # Sizing
///
/// The year is rebuilt from the overflow when it is used up (the overflow then holds every
/// pending event). With `m` events pending, the new year
/// * starts at the earliest pending time `t₀`;
/// * has buckets of width `w = 2 (t₂₅ − t₀) / (m/4)`, where `t₂₅` is the 25 % quantile of the
///   pending times: about two events per bucket at the density of the nearest quarter of the
///   events, which is where the queue works next (the density usually thins out later);
/// * ends at the 90 % quantile `t₉₀`: `B = ⌈(t₉₀ − t₀)/w⌉`, at most `2m`.
///
/// The quantiles come from an evenly strided sample of about `m/16` pending times (all of them
/// up to 64, about 1024 at most; `O(m)` selection), so a refill costs `O(m)`: one pass over the
/// slots (or the overflow list, if few slots are pending), one pass to file the events. At least a quarter of the events (about 90 %
/// unless the cap on `B` bites) sit in the year, and each must leave it (processed, cancelled or
/// moved) before the next refill, so refills cost `O(1)` amortised per operation. If the
/// quantiles coincide with `t₀` (many ties), the width comes from the 90 % quantile or the whole
/// spread instead; if all times are equal, one bucket holds them all. The year is also dissolved
/// into the overflow (rebuilt at the next `peek`) when the number of pending events grows beyond
/// twice its count at the last refill plus 32, so a year shaped by a few early events does not
/// have to absorb a large later population.
///
/// In a hold model (10⁵ slots, the earliest event repeatedly rescheduled at `now + Exp(1)`) this
/// runs about 2–3 times as fast as [`BinaryHeapQueue`](super::BinaryHeapQueue). Memory: 16 bytes
/// per slot, 4 bytes per bucket (about one bucket per pending event), the front heap, and a
/// refill buffer of 16 bytes per pending event.
///
/// ```
/// use kinetic_cdo::queue::{CalendarQueue, EventQueue};
/// let mut queue = CalendarQueue::with_slots(4);
/// queue.schedule(3, 0.5);
/// queue.schedule(1, 0.5);
/// queue.schedule(2, 1e12); // far future: waits in the overflow
/// // Equal times: the smaller slot comes first.
/// assert_eq!(queue.peek(), Some((1, 0.5)));
/// queue.schedule(1, 2.0); // move slot 1 later
/// assert_eq!(queue.peek(), Some((3, 0.5)));
/// queue.cancel(3);
/// assert_eq!(queue.peek(), Some((1, 2.0)));
/// queue.cancel(1);
/// assert_eq!(queue.peek(), Some((2, 1e12)));
/// assert_eq!(queue.len(), 1);
/// ```
#[derive(Debug, Clone)]
pub struct CalendarQueue {
    /// Per slot: pending time and links.
    nodes: Vec<Node>,
    /// The events of days `..=cur` as a binary heap of `(time, slot)`.
    front: Vec<Entry>,
    /// List heads of days `0..buckets` (those up to `cur` are empty), then the overflow list.
    heads: Vec<u32>,
    /// `B`, the number of days in the year; 0 between years (everything goes to the overflow).
    buckets: usize,
    /// `buckets` as `f64`.
    buckets_f: f64,
    /// Start of the year.
    base: f64,
    /// `1 / w` (0 between years).
    inv_width: f64,
    /// The current day: the front holds every event of days `..=cur`.
    cur: usize,
    /// Number of pending slots.
    len: usize,
    /// Dissolve the year when `len` exceeds this.
    regrow_at: usize,
    /// Refill buffer, kept to reuse its allocation.
    scratch: Vec<Entry>,
    /// Sample of pending times for shaping a year, kept to reuse its allocation.
    sample: Vec<f64>,
    /// The time of the last event returned by `peek` (checked against in debug builds).
    clock: f64,
}

impl CalendarQueue {
    /// The day of `time` in the current year, or `self.buckets` for the overflow.
    #[inline]
    fn day(&self, time: f64) -> usize {
        let x = (time - self.base) * self.inv_width;
        // Saturating casts: anything before `base` is day 0; NaN (from an infinite difference)
        // fails the comparison and lands in the overflow.
        if x < self.buckets_f { x as usize } else { self.buckets }
    }

    /// Pushes `slot` onto the front of list `d`.
    #[inline]
    fn link(&mut self, slot: usize, d: usize) {
        let head = self.heads[d];
        self.nodes[slot].prev = LIST_HEAD;
        self.nodes[slot].next = head;
        if head != NIL {
            self.nodes[head as usize].prev = slot as u32;
        }
        self.heads[d] = slot as u32;
    }

    /// Removes `slot` from list `d`, which holds it.
    #[inline]
    fn unlink(&mut self, slot: usize, d: usize) {
        let Node { next, prev, .. } = self.nodes[slot];
        if prev == LIST_HEAD {
            self.heads[d] = next;
        } else {
            self.nodes[prev as usize].next = next;
        }
        if next != NIL {
            self.nodes[next as usize].prev = prev;
        }
    }

    /// Files the (unlinked) `slot` at `time` into the front, a bucket or the overflow.
    #[inline]
    fn insert(&mut self, slot: usize, time: f64) {
        self.nodes[slot].time = time;
        let d = self.day(time);
        if d < self.buckets && d <= self.cur {
            self.nodes[slot].prev = IN_FRONT;
            let nodes = &mut self.nodes;
            push(&mut self.front, (time, slot as u32), |s, i| nodes[s as usize].next = i);
        } else {
            self.link(slot, d);
        }
    }

    /// Removes `slot`, held by the front at heap index `i`, from the front.
    #[inline]
    fn remove_from_front(&mut self, i: u32) {
        let nodes = &mut self.nodes;
        remove_at(&mut self.front, i as usize, |s, i| nodes[s as usize].next = i);
    }

    /// Ends the year: no buckets, everything scheduled goes to the overflow.
    fn reset_year(&mut self) {
        self.buckets = 0;
        self.buckets_f = 0.0;
        self.base = 0.0;
        self.inv_width = 0.0;
        self.cur = 0;
        self.heads.clear();
        self.heads.push(NIL);
        self.regrow_at = usize::MAX;
    }

    /// Moves the events of bucket `d` into the (empty) front.
    fn load(&mut self, d: usize) {
        let mut s = self.heads[d];
        self.heads[d] = NIL;
        while s != NIL {
            let node = self.nodes[s as usize];
            self.nodes[s as usize].prev = IN_FRONT;
            let nodes = &mut self.nodes;
            push(&mut self.front, (node.time, s), |s, i| nodes[s as usize].next = i);
            s = node.next;
        }
    }

    /// With the front empty: moves to the next non-empty bucket, refilling the year from the
    /// overflow if it is used up. Returns `false` if nothing is pending.
    fn advance(&mut self) -> bool {
        debug_assert!(self.front.is_empty());
        let mut d = self.cur + 1;
        while d < self.buckets && self.heads[d] == NIL {
            d += 1;
        }
        if d < self.buckets {
            self.cur = d;
            self.load(d);
            return true;
        }
        if self.heads[self.buckets] == NIL {
            debug_assert_eq!(self.len, 0);
            self.reset_year();
            return false;
        }
        self.refill();
        true
    }

    /// Starts a new year from the overflow list, which holds every pending event (see the type's
    /// documentation for the sizing rule).
    fn refill(&mut self) {
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        if self.len >= self.nodes.len() / DENSE_SCAN {
            // Every pending slot is in the overflow: a sequential pass over the slots is much
            // faster than chasing the list through memory.
            for (slot, node) in self.nodes.iter().enumerate() {
                if node.prev != ABSENT {
                    scratch.push((node.time, slot as u32));
                }
            }
        } else {
            let mut s = self.heads[self.buckets];
            while s != NIL {
                let node = self.nodes[s as usize];
                scratch.push((node.time, s));
                s = node.next;
            }
        }
        let m = scratch.len();
        debug_assert!(m > 0 && m == self.len);
        let (t_min, t_max) = scratch
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &(t, _)| (lo.min(t), hi.max(t)));
        // An evenly strided sample of the pending times stands in for their distribution.
        let sample_len = (m / 16).clamp(m.min(64), 1024);
        self.sample.clear();
        self.sample.extend(scratch.iter().step_by(m / sample_len).map(|&(t, _)| t));
        let (buckets, inv_width) = year_shape(&mut self.sample, t_min, t_max, m);
        self.buckets = buckets;
        self.buckets_f = buckets as f64;
        self.base = t_min;
        self.inv_width = inv_width;
        self.cur = 0;
        self.heads.clear();
        self.heads.resize(buckets + 1, NIL);
        for &(time, slot) in &scratch {
            // The earliest event lands in day 0 (`(t_min - base) * inv_width == 0`), so the
            // front is non-empty afterwards.
            self.insert(slot as usize, time);
        }
        debug_assert!(!self.front.is_empty());
        self.scratch = scratch;
        self.regrow_at = 2 * self.len + REGROW_SLACK;
    }

    /// Moves every pending event into the overflow and ends the year; the next `peek` refills.
    fn dissolve_year(&mut self) {
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        scratch.extend_from_slice(&self.front);
        self.front.clear();
        for d in 0..self.heads.len() {
            let mut s = self.heads[d];
            while s != NIL {
                let node = self.nodes[s as usize];
                scratch.push((node.time, s));
                s = node.next;
            }
        }
        self.reset_year();
        for &(_, slot) in &scratch {
            self.link(slot as usize, 0);
        }
        self.scratch = scratch;
    }
}

/// The number of buckets and the inverse bucket width of a year starting at `t_min`, for `m`
/// pending events whose times run up to `t_max` and of which `sample` is a sample (reordered
/// here).
///
/// The width puts [`EVENTS_PER_BUCKET`] events into a bucket at the density of the earliest
/// [`FRONT_FRACTION`] of the events; the year ends at the [`YEAR_FRACTION`] quantile. The result
/// is always valid: at least one bucket, and a finite positive inverse width.
fn year_shape(sample: &mut [f64], t_min: f64, t_max: f64, m: usize) -> (usize, f64) {
    let index = |q: f64| ((q * sample.len() as f64) as usize).min(sample.len() - 1);
    let (i_front, i_end) = (index(FRONT_FRACTION), index(YEAR_FRACTION));
    let t_end = *sample.select_nth_unstable_by(i_end, f64::total_cmp).1;
    let t_front = *sample[..=i_end].select_nth_unstable_by(i_front.min(i_end), f64::total_cmp).1;
    // Ties at the start make the first estimates zero: fall back to wider quantiles.
    for (t, fraction) in [(t_front, FRONT_FRACTION), (t_end, YEAR_FRACTION), (t_max, 1.0)] {
        let width = (t - t_min) * EVENTS_PER_BUCKET as f64 / (fraction * m as f64);
        let inv_width = width.recip();
        if width > 0.0 && inv_width.is_finite() && inv_width > 0.0 {
            let buckets = ((t_end - t_min) * inv_width).ceil();
            let cap = (MAX_BUCKETS_PER_EVENT * m as f64).ceil();
            // `buckets` may be NaN or infinite for extreme spreads; `as` saturates (NaN → 0).
            return ((buckets.min(cap) as usize).max(1), inv_width);
        }
    }
    // All times equal (or spreads beyond f64): one bucket; the front orders the ties.
    (1, 1.0)
}

impl EventQueue for CalendarQueue {
    /// An empty queue for slots `0..slots`.
    ///
    /// # Panics
    ///
    /// If `slots > u32::MAX - 3` (slots are stored as `u32`, with three reserved values).
    fn with_slots(slots: usize) -> Self {
        assert!(slots < LIST_HEAD as usize, "CalendarQueue: {slots} slots do not fit in u32 indices");
        let mut queue = Self {
            nodes: vec![Node { time: 0.0, next: NIL, prev: ABSENT }; slots],
            front: Vec::new(),
            heads: Vec::new(),
            buckets: 0,
            buckets_f: 0.0,
            base: 0.0,
            inv_width: 0.0,
            cur: 0,
            len: 0,
            regrow_at: usize::MAX,
            scratch: Vec::new(),
            sample: Vec::new(),
            clock: f64::NEG_INFINITY,
        };
        queue.reset_year();
        queue
    }

    fn slots(&self) -> usize {
        self.nodes.len()
    }

    /// Sets `slot`'s pending time to `time`, inserting it or moving it (in place when it stays in
    /// the same bucket or in the front).
    ///
    /// # Panics
    ///
    /// If `slot >= self.slots()`. In debug builds also if `time` is not finite or is earlier than
    /// the last peeked time.
    #[inline]
    fn schedule(&mut self, slot: usize, time: f64) {
        assert!(slot < self.nodes.len(), "slot {slot} out of range 0..{}", self.nodes.len());
        debug_assert!(time.is_finite(), "non-finite event time {time} for slot {slot}");
        debug_assert!(
            time >= self.clock,
            "event time {time} for slot {slot} is earlier than the last peeked time {}",
            self.clock
        );
        let node = self.nodes[slot];
        match node.prev {
            ABSENT => {
                self.len += 1;
                if self.len > self.regrow_at {
                    self.dissolve_year();
                }
            }
            IN_FRONT => {
                let d = self.day(time);
                if d < self.buckets && d <= self.cur {
                    self.nodes[slot].time = time;
                    let nodes = &mut self.nodes;
                    update_at(&mut self.front, node.next as usize, time, |s, i| nodes[s as usize].next = i);
                    return;
                }
                self.remove_from_front(node.next);
            }
            _ => {
                let old = self.day(node.time);
                if self.day(time) == old {
                    self.nodes[slot].time = time;
                    return;
                }
                self.unlink(slot, old);
            }
        }
        self.insert(slot, time);
    }

    /// Removes `slot`'s pending time, if any.
    ///
    /// # Panics
    ///
    /// If `slot >= self.slots()`.
    #[inline]
    fn cancel(&mut self, slot: usize) {
        assert!(slot < self.nodes.len(), "slot {slot} out of range 0..{}", self.nodes.len());
        let node = self.nodes[slot];
        match node.prev {
            ABSENT => return,
            IN_FRONT => self.remove_from_front(node.next),
            _ => self.unlink(slot, self.day(node.time)),
        }
        self.nodes[slot].prev = ABSENT;
        self.len -= 1;
    }

    #[inline]
    fn peek(&mut self) -> Option<(usize, f64)> {
        loop {
            if let Some(&(time, slot)) = self.front.first() {
                self.clock = time;
                return Some((slot as usize, time));
            }
            if !self.advance() {
                return None;
            }
        }
    }

    /// The pending time of `slot`, if any.
    ///
    /// # Panics
    ///
    /// If `slot >= self.slots()`.
    #[inline]
    fn time_of(&self, slot: usize) -> Option<f64> {
        let node = self.nodes[slot];
        (node.prev != ABSENT).then_some(node.time)
    }

    fn len(&self) -> usize {
        self.len
    }

    fn clear(&mut self) {
        for node in &mut self.nodes {
            node.prev = ABSENT;
        }
        self.front.clear();
        self.reset_year();
        self.len = 0;
        self.clock = f64::NEG_INFINITY;
    }

    fn memory_bytes(&self) -> usize {
        self.nodes.capacity() * size_of::<Node>()
            + (self.front.capacity() + self.scratch.capacity()) * size_of::<Entry>()
            + self.heads.capacity() * size_of::<u32>()
            + self.sample.capacity() * size_of::<f64>()
    }
}
