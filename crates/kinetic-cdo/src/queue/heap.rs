//! An indexed binary min-heap of `(time, slot)` entries.
//!
//! The sift routines are free functions over the entry array with a callback that records where an
//! entry landed, so that [`CalendarQueue`](super::CalendarQueue) can keep its current bucket in the
//! same kind of heap while storing the positions in its own per-slot records.

use super::EventQueue;

/// Marks a slot that holds no pending time in [`BinaryHeapQueue::pos`].
const ABSENT: u32 = u32::MAX;

/// A heap entry: the pending time next to its slot, so comparisons never chase an index.
pub(super) type Entry = (f64, u32);

/// The event order shared by both calendars: earlier time first, ties broken by the smaller slot.
///
/// Plain `<`/`==` on finite times (so `-0.0` and `0.0` tie and fall back to the slot).
#[inline]
pub(super) fn before(a: Entry, b: Entry) -> bool {
    a.0 < b.0 || (a.0 == b.0 && a.1 < b.1)
}

/// Moves the entry at `i` towards the root until its parent comes before it, calling
/// `set_pos(slot, index)` for every entry that moved, the sifted one included.
#[inline]
pub(super) fn sift_up(heap: &mut [Entry], mut i: usize, mut set_pos: impl FnMut(u32, u32)) {
    let item = heap[i];
    while i > 0 {
        let parent = (i - 1) / 2;
        let p = heap[parent];
        if !before(item, p) {
            break;
        }
        heap[i] = p;
        set_pos(p.1, i as u32);
        i = parent;
    }
    heap[i] = item;
    set_pos(item.1, i as u32);
}

/// Moves the entry at `i` towards the leaves until no child comes before it, calling
/// `set_pos(slot, index)` for every entry that moved, the sifted one included.
#[inline]
pub(super) fn sift_down(heap: &mut [Entry], mut i: usize, mut set_pos: impl FnMut(u32, u32)) {
    let len = heap.len();
    let item = heap[i];
    loop {
        let left = 2 * i + 1;
        if left >= len {
            break;
        }
        let right = left + 1;
        let mut child = left;
        if right < len && before(heap[right], heap[left]) {
            child = right;
        }
        let c = heap[child];
        if !before(c, item) {
            break;
        }
        heap[i] = c;
        set_pos(c.1, i as u32);
        i = child;
    }
    heap[i] = item;
    set_pos(item.1, i as u32);
}

/// Appends `item` and restores heap order.
#[inline]
pub(super) fn push(heap: &mut Vec<Entry>, item: Entry, set_pos: impl FnMut(u32, u32)) {
    heap.push(item);
    let last = heap.len() - 1;
    sift_up(heap, last, set_pos);
}

/// Removes the entry at `i` (filling the hole with the last entry and sifting it in place).
#[inline]
pub(super) fn remove_at(heap: &mut Vec<Entry>, i: usize, set_pos: impl FnMut(u32, u32)) {
    let removed = heap[i];
    let Some(last) = heap.pop() else { return };
    if i < heap.len() {
        heap[i] = last;
        if before(last, removed) {
            sift_up(heap, i, set_pos);
        } else {
            sift_down(heap, i, set_pos);
        }
    }
}

/// Changes the time of the entry at `i` in place (no pop and reinsert) and restores heap order.
#[inline]
pub(super) fn update_at(heap: &mut [Entry], i: usize, time: f64, set_pos: impl FnMut(u32, u32)) {
    let old = heap[i].0;
    heap[i].0 = time;
    // The slot is unchanged, so the order relative to the old key is decided by the times alone.
    if time < old {
        sift_up(heap, i, set_pos);
    } else if time > old {
        sift_down(heap, i, set_pos);
    }
}

/// An indexed binary min-heap over event slots: `O(log n)` [`schedule`](EventQueue::schedule)
/// and [`cancel`](EventQueue::cancel), `O(1)` [`peek`](EventQueue::peek).
///
/// The heap array stores `(time, slot)` pairs in heap order, ordered lexicographically (ties
/// broken by the smaller slot); a second array maps every slot to its heap position. Moving a
/// pending slot changes its entry in place and sifts it up or down.
///
/// ```
/// use kinetic_cdo::queue::{BinaryHeapQueue, EventQueue};
/// let mut queue = BinaryHeapQueue::with_slots(3);
/// queue.schedule(1, 2.0);
/// queue.schedule(2, 2.0);
/// queue.schedule(0, 5.0);
/// // Equal times: the smaller slot comes first.
/// assert_eq!(queue.peek(), Some((1, 2.0)));
/// queue.schedule(1, 7.0); // move slot 1 later
/// assert_eq!(queue.peek(), Some((2, 2.0)));
/// queue.cancel(2);
/// assert_eq!(queue.peek(), Some((0, 5.0)));
/// assert_eq!(queue.len(), 2);
/// assert_eq!(queue.time_of(1), Some(7.0));
/// ```
#[derive(Debug, Clone)]
pub struct BinaryHeapQueue {
    /// Pending `(time, slot)` entries in heap order.
    heap: Vec<Entry>,
    /// Heap index of every slot, or [`ABSENT`].
    pos: Vec<u32>,
    /// The time of the last event returned by `peek` (checked against in debug builds).
    clock: f64,
}

impl EventQueue for BinaryHeapQueue {
    /// An empty queue for slots `0..slots`.
    ///
    /// # Panics
    ///
    /// If `slots >= u32::MAX` (slots are stored as `u32`).
    fn with_slots(slots: usize) -> Self {
        assert!(slots < ABSENT as usize, "BinaryHeapQueue: {slots} slots do not fit in u32 indices");
        Self { heap: Vec::new(), pos: vec![ABSENT; slots], clock: f64::NEG_INFINITY }
    }

    fn slots(&self) -> usize {
        self.pos.len()
    }

    /// Sets `slot`'s pending time to `time`, inserting it or moving it in place.
    ///
    /// # Panics
    ///
    /// If `slot >= self.slots()`. In debug builds also if `time` is not finite or is earlier than
    /// the last peeked time.
    #[inline]
    fn schedule(&mut self, slot: usize, time: f64) {
        assert!(slot < self.pos.len(), "slot {slot} out of range 0..{}", self.pos.len());
        debug_assert!(time.is_finite(), "non-finite event time {time} for slot {slot}");
        debug_assert!(
            time >= self.clock,
            "event time {time} for slot {slot} is earlier than the last peeked time {}",
            self.clock
        );
        let i = self.pos[slot];
        let pos = &mut self.pos;
        let set_pos = |s: u32, i: u32| pos[s as usize] = i;
        if i == ABSENT {
            push(&mut self.heap, (time, slot as u32), set_pos);
        } else {
            update_at(&mut self.heap, i as usize, time, set_pos);
        }
    }

    /// Removes `slot`'s pending time, if any.
    ///
    /// # Panics
    ///
    /// If `slot >= self.slots()`.
    #[inline]
    fn cancel(&mut self, slot: usize) {
        assert!(slot < self.pos.len(), "slot {slot} out of range 0..{}", self.pos.len());
        let i = self.pos[slot];
        if i == ABSENT {
            return;
        }
        self.pos[slot] = ABSENT;
        let pos = &mut self.pos;
        remove_at(&mut self.heap, i as usize, |s, i| pos[s as usize] = i);
    }

    #[inline]
    fn peek(&mut self) -> Option<(usize, f64)> {
        let &(time, slot) = self.heap.first()?;
        self.clock = time;
        Some((slot as usize, time))
    }

    /// The pending time of `slot`, if any.
    ///
    /// # Panics
    ///
    /// If `slot >= self.slots()`.
    #[inline]
    fn time_of(&self, slot: usize) -> Option<f64> {
        let i = self.pos[slot];
        (i != ABSENT).then(|| self.heap[i as usize].0)
    }

    fn len(&self) -> usize {
        self.heap.len()
    }

    fn clear(&mut self) {
        for &(_, slot) in &self.heap {
            self.pos[slot as usize] = ABSENT;
        }
        self.heap.clear();
        self.clock = f64::NEG_INFINITY;
    }

    fn memory_bytes(&self) -> usize {
        self.heap.capacity() * size_of::<Entry>() + self.pos.capacity() * size_of::<u32>()
    }
}
