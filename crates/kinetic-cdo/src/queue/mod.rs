//! Event calendars: indexed priority queues of event *slots*.
//!
//! The engine gives every source of events a fixed slot: slot `i < n` is particle `i`'s next
//! collision (or wall hit, or trajectory prediction), and the slots after `n` belong to the
//! collision-detection structure (one per cell-crossing certificate, endpoint-swap certificate,
//! …). A slot holds at most one pending time, so rescheduling a slot *replaces* its event: an
//! event that became stale because its own slot was recomputed never reaches the front of the
//! queue. Events that become stale because a *partner* changed are caught by the per-particle
//! collision counters in the engine instead (the paper's cheap invalidation, no O(n) deletion).
//!
//! Two calendars implement [`EventQueue`]:
//! * [`BinaryHeapQueue`]: an indexed binary heap, `O(log n)` per operation.
//! * [`CalendarQueue`]: a bounded calendar queue after Paul (2007), `O(1)` expected per
//!   operation when event times are spread smoothly over the near future.
//!
//! Both order events by `(time, slot)`, so two runs that differ only in the calendar process
//! exactly the same events in exactly the same order.

mod calendar;
mod heap;

pub use calendar::CalendarQueue;
pub use heap::BinaryHeapQueue;

/// An indexed priority queue over slots `0..slots()`, each holding at most one pending time.
///
/// Contract, which both implementations are tested against a brute-force model for:
/// * [`schedule`](Self::schedule) inserts the slot or moves its pending time;
/// * [`cancel`](Self::cancel) removes it (no effect if it holds nothing);
/// * [`peek`](Self::peek) returns the pending `(slot, time)` with the smallest `time`, ties broken
///   by the smaller slot, without removing it;
/// * times passed to `schedule` are finite and never earlier than the time of the last event
///   returned by `peek` (the simulation clock never runs backwards); implementations may rely on
///   this, and callers guarantee it.
///
/// ```
/// use kinetic_cdo::queue::{BinaryHeapQueue, EventQueue};
/// let mut queue = BinaryHeapQueue::with_slots(4);
/// queue.schedule(2, 1.5);
/// queue.schedule(0, 3.0);
/// queue.schedule(2, 4.0); // moves slot 2
/// assert_eq!(queue.peek(), Some((0, 3.0)));
/// queue.cancel(0);
/// assert_eq!(queue.peek(), Some((2, 4.0)));
/// ```
pub trait EventQueue {
    /// An empty queue for slots `0..slots`.
    fn with_slots(slots: usize) -> Self
    where
        Self: Sized;
    /// The number of slots.
    fn slots(&self) -> usize;
    /// Sets `slot`'s pending time to `time` (inserting it if it holds none).
    fn schedule(&mut self, slot: usize, time: f64);
    /// Removes `slot`'s pending time, if any.
    fn cancel(&mut self, slot: usize);
    /// The earliest pending `(slot, time)`, ties broken by the smaller slot.
    fn peek(&mut self) -> Option<(usize, f64)>;
    /// The pending time of `slot`, if any.
    fn time_of(&self, slot: usize) -> Option<f64>;
    /// The number of pending slots.
    fn len(&self) -> usize;
    /// Whether no slot is pending.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Removes every pending time (the clock may restart from any time afterwards).
    fn clear(&mut self);
    /// Heap memory held, in bytes.
    fn memory_bytes(&self) -> usize;
}
