//! Both event calendars against a brute-force model written here (one optional time per slot,
//! scanned linearly): after any sequence of schedules, moves, cancels, peeks and clears, every
//! `peek`, `time_of` and `len` agrees with the model, ties broken by the smaller slot. The two
//! calendars also produce bit-identical event sequences on a long run, and the edge cases of the
//! contract (ties, far-future events, scheduling at the peeked time, clear and restart, no slots,
//! cancel cycles, out-of-range slots) are checked one by one.

use kinetic_cdo::queue::{BinaryHeapQueue, CalendarQueue, EventQueue};
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The model's minimum: the first slot (in slot order) with the smallest time.
fn model_peek(model: &[Option<f64>]) -> Option<(usize, f64)> {
    let mut best: Option<(usize, f64)> = None;
    for (slot, time) in model.iter().enumerate() {
        if let Some(t) = *time
            && best.is_none_or(|(_, b)| t < b)
        {
            best = Some((slot, t));
        }
    }
    best
}

/// `(slot, time bits)`, so that times are compared exactly (`-0.0` vs `0.0` included).
fn bits(event: Option<(usize, f64)>) -> Option<(usize, u64)> {
    event.map(|(s, t)| (s, t.to_bits()))
}

/// A queue driven in lockstep with the model; every operation checks the queue against it.
struct Checked<Q> {
    queue: Q,
    model: Vec<Option<f64>>,
    /// The last peeked time: the earliest time the contract allows to schedule.
    clock: f64,
}

impl<Q: EventQueue> Checked<Q> {
    fn new(slots: usize) -> Self {
        let queue = Q::with_slots(slots);
        assert_eq!(queue.slots(), slots);
        Self { queue, model: vec![None; slots], clock: f64::NEG_INFINITY }
    }

    fn len(&self) -> usize {
        self.model.iter().flatten().count()
    }

    fn check_slot(&self, slot: usize) {
        assert_eq!(
            self.queue.time_of(slot).map(f64::to_bits),
            self.model[slot].map(f64::to_bits),
            "time_of({slot})"
        );
        assert_eq!(self.queue.len(), self.len(), "len");
        assert_eq!(self.queue.is_empty(), self.len() == 0, "is_empty");
    }

    fn check_all(&self) {
        for slot in 0..self.model.len() {
            self.check_slot(slot);
        }
    }

    fn schedule(&mut self, slot: usize, time: f64) {
        assert!(time >= self.clock, "test bug: {time} before the clock {}", self.clock);
        self.queue.schedule(slot, time);
        self.model[slot] = Some(time);
        self.check_slot(slot);
    }

    fn cancel(&mut self, slot: usize) {
        self.queue.cancel(slot);
        self.model[slot] = None;
        self.check_slot(slot);
    }

    fn peek(&mut self) -> Option<(usize, f64)> {
        let got = self.queue.peek();
        assert_eq!(bits(got), bits(model_peek(&self.model)), "peek");
        if let Some((_, t)) = got {
            self.clock = t;
        }
        got
    }

    /// Peeks and removes the earliest event.
    fn pop(&mut self) -> Option<(usize, f64)> {
        let event = self.peek();
        if let Some((slot, _)) = event {
            self.cancel(slot);
        }
        event
    }

    fn clear(&mut self) {
        self.queue.clear();
        self.model.fill(None);
        self.clock = f64::NEG_INFINITY;
        self.check_all();
        assert_eq!(self.queue.peek(), None);
    }
}

/// How far after the clock a new time lies.
#[derive(Debug, Clone, Copy)]
enum Delta {
    /// Exactly the clock.
    Zero,
    /// A few ulps after the clock.
    Ulps(u8),
    /// Below 1e-9 (vanishes against a large clock: a tie).
    Tiny(f64),
    Uniform(f64),
    Exponential(f64),
    /// 1e6 to 1e12.
    Huge(f64),
    /// Exactly the time of some pending slot (or the clock if none is pending).
    Tie(u16),
}

fn arb_delta() -> impl Strategy<Value = Delta> {
    prop_oneof![
        1 => Just(Delta::Zero),
        1 => (1u8..4).prop_map(Delta::Ulps),
        1 => (0.0..1e-9f64).prop_map(Delta::Tiny),
        3 => (0.0..1.0f64).prop_map(Delta::Uniform),
        3 => (0.0..1.0f64).prop_map(|u| Delta::Exponential(-(1.0 - u).ln())),
        1 => (1e6..1e12f64).prop_map(Delta::Huge),
        2 => any::<u16>().prop_map(Delta::Tie),
    ]
}

/// What to do with the event a `Pop` peeked.
#[derive(Debug, Clone, Copy)]
enum Then {
    Remove,
    Reschedule(Delta),
    Keep,
}

#[derive(Debug, Clone, Copy)]
enum Op {
    /// Insert or move slot `raw % slots`.
    Schedule(u16, Delta),
    Cancel(u16),
    /// Peek (advancing the clock) and act on the event.
    Pop(Then),
    /// Clear, then restart the clock at the given time (typically earlier than before).
    Clear(f64),
}

fn arb_op() -> impl Strategy<Value = Op> {
    let then = prop_oneof![
        2 => Just(Then::Remove),
        3 => arb_delta().prop_map(Then::Reschedule),
        1 => Just(Then::Keep),
    ];
    prop_oneof![
        40 => (any::<u16>(), arb_delta()).prop_map(|(s, d)| Op::Schedule(s, d)),
        10 => any::<u16>().prop_map(Op::Cancel),
        40 => then.prop_map(Op::Pop),
        1 => (-1e3..1e3f64).prop_map(Op::Clear),
    ]
}

impl<Q: EventQueue> Checked<Q> {
    /// The time `delta` denotes now.
    fn time_after(&self, delta: Delta) -> f64 {
        let clock = if self.clock.is_finite() { self.clock } else { 0.0 };
        match delta {
            Delta::Zero => clock,
            Delta::Ulps(k) => (0..k).fold(clock, |t, _| t.next_up()),
            Delta::Tiny(d) | Delta::Uniform(d) | Delta::Exponential(d) | Delta::Huge(d) => clock + d,
            Delta::Tie(k) => {
                let pending: Vec<f64> = self.model.iter().flatten().copied().collect();
                if pending.is_empty() { clock } else { pending[usize::from(k) % pending.len()] }
            }
        }
    }

    /// Applies `ops`, checking every step; a full check after every peek.
    fn run(&mut self, ops: &[Op]) {
        let slots = self.model.len();
        for &op in ops {
            match op {
                Op::Schedule(raw, delta) if slots > 0 => {
                    self.schedule(usize::from(raw) % slots, self.time_after(delta));
                }
                Op::Cancel(raw) if slots > 0 => self.cancel(usize::from(raw) % slots),
                Op::Schedule(..) | Op::Cancel(_) => {}
                Op::Pop(then) => {
                    if let Some((slot, _)) = self.peek() {
                        match then {
                            Then::Remove => self.cancel(slot),
                            Then::Reschedule(delta) => self.schedule(slot, self.time_after(delta)),
                            Then::Keep => {}
                        }
                    }
                    self.check_all();
                }
                Op::Clear(restart) => {
                    self.clear();
                    self.clock = restart;
                }
            }
        }
        // Drain: the remaining events come out in order.
        while self.pop().is_some() {}
        self.check_all();
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    /// Small queues, short histories: every operation against the model.
    #[test]
    fn small_queues_match_model(slots in 0usize..48, start in -1e3..1e3f64, ops in prop::collection::vec(arb_op(), 0..300)) {
        let mut heap = Checked::<BinaryHeapQueue>::new(slots);
        heap.clock = start;
        heap.run(&ops);
        let mut calendar = Checked::<CalendarQueue>::new(slots);
        calendar.clock = start;
        calendar.run(&ops);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Larger queues (many buckets, refills, overflow traffic), longer histories.
    #[test]
    fn larger_queues_match_model(slots in 1usize..400, start in -1e3..1e3f64, ops in prop::collection::vec(arb_op(), 0..3000)) {
        let mut heap = Checked::<BinaryHeapQueue>::new(slots);
        heap.clock = start;
        heap.run(&ops);
        let mut calendar = Checked::<CalendarQueue>::new(slots);
        calendar.clock = start;
        calendar.run(&ops);
    }
}

/// A random delta from the mix the property tests use.
fn random_delta(rng: &mut ChaCha8Rng) -> f64 {
    match rng.random_range(0..10) {
        0 => 0.0,
        1 => rng.random_range(0.0..1e-9),
        2 => 1e6 * rng.random_range(0.0..1.0),
        3..=5 => rng.random_range(0.0..1.0),
        _ => -(1.0 - rng.random::<f64>()).ln(),
    }
}

/// Both calendars, driven with the same operations.
struct Pair {
    heap: BinaryHeapQueue,
    calendar: CalendarQueue,
}

impl Pair {
    fn schedule(&mut self, slot: usize, time: f64) {
        self.heap.schedule(slot, time);
        self.calendar.schedule(slot, time);
    }

    fn cancel(&mut self, slot: usize) {
        self.heap.cancel(slot);
        self.calendar.cancel(slot);
    }

    fn fill(&mut self, rng: &mut ChaCha8Rng, t0: f64) {
        for slot in 0..self.heap.slots() {
            self.schedule(slot, t0 + random_delta(rng));
        }
    }
}

/// Drives both calendars with the same long random history (hold model with moves, cancels,
/// ties, far-future events and a clear with an earlier restart in the middle) and returns both
/// event sequences and the index of the first event after the restart.
fn long_run(slots: usize, steps: usize, seed: u64) -> ([Vec<(usize, u64)>; 2], usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut pair =
        Pair { heap: BinaryHeapQueue::with_slots(slots), calendar: CalendarQueue::with_slots(slots) };
    let mut sequences = [Vec::new(), Vec::new()];
    let mut restart = 0;
    pair.fill(&mut rng, 100.0);
    let mut now = 100.0;
    for step in 0..steps {
        if step == steps / 2 {
            pair.heap.clear();
            pair.calendar.clear();
            restart = sequences[0].len();
            // Restart from an earlier time.
            now = -50.0;
            pair.fill(&mut rng, now);
        }
        let a = pair.heap.peek();
        let b = pair.calendar.peek();
        sequences[0].extend(bits(a));
        sequences[1].extend(bits(b));
        let Some((slot, t)) = a else {
            // Drained by cancels: refill one slot after the clock.
            pair.schedule(rng.random_range(0..slots), now + random_delta(&mut rng));
            continue;
        };
        now = t;
        match rng.random_range(0..20) {
            0 => pair.cancel(slot),
            1 => {
                // Move some other slot (possibly pending, possibly not).
                let other = rng.random_range(0..slots);
                pair.schedule(other, now + random_delta(&mut rng));
            }
            2 => pair.cancel(rng.random_range(0..slots)),
            3 => pair.schedule(slot, now + 1e12 * rng.random::<f64>()),
            _ => pair.schedule(slot, now + random_delta(&mut rng)),
        }
        assert_eq!(pair.heap.len(), pair.calendar.len(), "len at step {step}");
    }
    (sequences, restart)
}

/// Two runs differing only in the calendar process identical event sequences.
#[test]
fn both_calendars_give_identical_sequences() {
    for (slots, seed) in [(1, 1), (7, 2), (300, 3), (5000, 4)] {
        let ([heap, calendar], restart) = long_run(slots, 60_000, seed);
        assert!(heap.len() > 40_000, "the run should process events");
        assert_eq!(heap.len(), calendar.len());
        if let Some(step) = heap.iter().zip(&calendar).position(|(a, b)| a != b) {
            panic!(
                "slots {slots}: sequences differ at event {step}: {:?} vs {:?}",
                heap[step], calendar[step]
            );
        }
        // The clock only runs forward (outside the restart), and the restart went back in time.
        for window in [&heap[..restart], &heap[restart..]] {
            assert!(window.windows(2).all(|w| f64::from_bits(w[0].1) <= f64::from_bits(w[1].1)));
        }
        assert!(f64::from_bits(heap[restart].1) < f64::from_bits(heap[restart - 1].1));
    }
}

/// A medium hold-model run with a model check at every step.
fn hold_against_model<Q: EventQueue>(slots: usize, steps: usize, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut q = Checked::<Q>::new(slots);
    for slot in 0..slots {
        q.schedule(slot, random_delta(&mut rng));
    }
    for _ in 0..steps {
        let (slot, now) = q.peek().expect("hold model never empties");
        q.schedule(slot, now + random_delta(&mut rng));
        if rng.random_range(0..50) == 0 {
            let other = rng.random_range(0..slots);
            q.cancel(other);
            q.schedule(other, now + 1e3 * rng.random::<f64>());
        }
    }
    q.check_all();
}

#[test]
fn hold_model_matches_model() {
    hold_against_model::<BinaryHeapQueue>(500, 20_000, 11);
    hold_against_model::<CalendarQueue>(500, 20_000, 11);
}

fn zero_slots<Q: EventQueue>() {
    let mut q = Q::with_slots(0);
    assert_eq!(q.slots(), 0);
    assert_eq!(q.len(), 0);
    assert!(q.is_empty());
    assert_eq!(q.peek(), None);
    q.clear();
    assert_eq!(q.peek(), None);
    assert!(q.is_empty());
}

#[test]
fn queue_with_zero_slots() {
    zero_slots::<BinaryHeapQueue>();
    zero_slots::<CalendarQueue>();
}

fn all_ties<Q: EventQueue>(slots: usize) {
    let mut q = Checked::<Q>::new(slots);
    // Inserted in a scrambled order.
    for i in 0..slots {
        q.schedule((i * 7919) % slots, 1.0);
    }
    // They come out in slot order; each is moved to 2.0 as it is processed, and one new tie is
    // scheduled at exactly the clock.
    for expected in 0..slots {
        assert_eq!(q.peek(), Some((expected, 1.0)));
        q.schedule(expected, 2.0);
    }
    q.schedule(slots / 2, 2.0);
    for expected in 0..slots {
        assert_eq!(q.pop(), Some((expected, 2.0)));
        if expected == 10 {
            // A tie at the clock with a smaller, already processed slot comes next.
            q.schedule(3, 2.0);
            assert_eq!(q.pop(), Some((3, 2.0)));
        }
    }
    assert_eq!(q.pop(), None);
}

#[test]
fn all_events_at_the_same_time() {
    all_ties::<BinaryHeapQueue>(2000);
    all_ties::<CalendarQueue>(2000);
}

/// Signed zeros compare equal, so they tie and fall back to the slot, in both calendars.
fn signed_zeros<Q: EventQueue>() {
    let mut q = Checked::<Q>::new(3);
    q.schedule(2, -0.0);
    q.schedule(1, 0.0);
    assert_eq!(bits(q.pop()), bits(Some((1, 0.0))));
    assert_eq!(bits(q.pop()), bits(Some((2, -0.0))));
}

#[test]
fn signed_zeros_tie() {
    signed_zeros::<BinaryHeapQueue>();
    signed_zeros::<CalendarQueue>();
}

fn far_future_mixed<Q: EventQueue>() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let slots = 200;
    let mut q = Checked::<Q>::new(slots);
    q.schedule(0, 1e12);
    q.schedule(1, 3e12);
    for slot in 2..slots {
        q.schedule(slot, rng.random_range(0.0..1.0));
    }
    // Process near events for a while (each rescheduled near, a few far).
    for step in 0..20_000 {
        let (slot, now) = q.peek().unwrap();
        assert!(now < 1e12);
        let t = if step % 1000 == 0 { 2e12 + now } else { now + -(1.0 - rng.random::<f64>()).ln() };
        q.schedule(slot, t);
    }
    // Drop the near events; the far ones come out in order, the rescheduled ones among them.
    for slot in 2..slots {
        if q.model[slot].is_some_and(|t| t < 1e12) {
            q.cancel(slot);
        }
    }
    assert_eq!(q.peek(), Some((0, 1e12)));
    // Near events again, relative to the far clock (the ulp of 1e12 is 1.2e-4), and a tie.
    q.schedule(5, 1e12 + 1e-3);
    q.schedule(6, 1e12);
    assert_eq!(q.pop(), Some((0, 1e12)));
    assert_eq!(q.pop(), Some((6, 1e12)));
    assert_eq!(q.pop(), Some((5, 1e12 + 1e-3)));
    while q.pop().is_some() {}
    assert!(q.queue.is_empty());
}

#[test]
fn far_future_events_mixed_with_near_ones() {
    far_future_mixed::<BinaryHeapQueue>();
    far_future_mixed::<CalendarQueue>();
}

fn at_peeked_time<Q: EventQueue>() {
    let mut q = Checked::<Q>::new(10);
    q.schedule(5, 1.0);
    q.schedule(7, 2.0);
    q.schedule(8, 0.5);
    q.schedule(8, 1e9);
    assert_eq!(q.peek(), Some((5, 1.0)));
    q.schedule(3, 1.0); // at the clock, smaller slot: becomes the front
    assert_eq!(q.peek(), Some((3, 1.0)));
    q.schedule(9, 1.0); // at the clock, larger slot: after slot 5
    q.cancel(3);
    assert_eq!(q.peek(), Some((5, 1.0)));
    q.cancel(5);
    assert_eq!(q.peek(), Some((9, 1.0)));
    q.schedule(9, 1.5); // moving the front later
    assert_eq!(q.peek(), Some((9, 1.5)));
    q.cancel(9);
    assert_eq!(q.peek(), Some((7, 2.0)));
    // Empty the queue at the clock, then schedule at the clock again.
    q.cancel(7);
    q.cancel(8);
    assert_eq!(q.peek(), None);
    q.schedule(4, 2.0);
    q.schedule(2, 2.0);
    assert_eq!(q.pop(), Some((2, 2.0)));
    assert_eq!(q.pop(), Some((4, 2.0)));
    // Peek far ahead, cancel, and schedule between the peeked time and the next pending one.
    q.schedule(1, 10.0);
    q.schedule(0, 1e6);
    assert_eq!(q.peek(), Some((1, 10.0)));
    q.cancel(1);
    q.schedule(6, 10.0);
    q.schedule(1, 20.0);
    assert_eq!(q.pop(), Some((6, 10.0)));
    assert_eq!(q.pop(), Some((1, 20.0)));
    assert_eq!(q.pop(), Some((0, 1e6)));
    assert_eq!(q.pop(), None);
}

#[test]
fn scheduling_at_the_peeked_time() {
    at_peeked_time::<BinaryHeapQueue>();
    at_peeked_time::<CalendarQueue>();
}

fn clear_restart<Q: EventQueue>() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let slots = 300;
    let mut q = Checked::<Q>::new(slots);
    for round in 0..4 {
        let t0 = [1e6, -5.0, 1e12, 0.0][round];
        for slot in 0..slots {
            if rng.random_range(0..3) > 0 {
                q.schedule(slot, t0 + 10.0 * rng.random::<f64>());
            }
        }
        for _ in 0..500 {
            let Some((slot, now)) = q.peek() else { break };
            q.schedule(slot, now + 10.0 * rng.random::<f64>());
        }
        // Clear mid-run (time_of, len and peek are checked by `clear`), then restart earlier.
        q.clear();
        assert!(q.queue.time_of(0).is_none());
    }
    let before = q.queue.memory_bytes();
    q.clear();
    assert_eq!(q.queue.memory_bytes(), before, "clear keeps allocations");
}

#[test]
fn clear_then_restart_from_an_earlier_time() {
    clear_restart::<BinaryHeapQueue>();
    clear_restart::<CalendarQueue>();
}

fn cycles<Q: EventQueue>() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let mut q = Checked::<Q>::new(50);
    for slot in 1..50 {
        q.schedule(slot, 1.0 + f64::from(slot as u32));
    }
    for i in 0..20_000 {
        let clock = if q.clock.is_finite() { q.clock } else { 0.0 };
        // Slot 0 goes to the front, a bucket, the overflow, or ties, and back out.
        let t = match i % 4 {
            0 => clock,
            1 => clock + rng.random::<f64>(),
            2 => clock + 1e9 * rng.random::<f64>(),
            _ => q.model[rng.random_range(1..50)].unwrap_or(clock),
        };
        q.schedule(0, t);
        if i % 3 == 0 {
            q.schedule(0, t + 0.5); // move before cancelling
        }
        if i % 5 != 0 {
            q.cancel(0);
        }
        q.cancel(0); // cancelling an absent slot is a no-op
        if i % 7 == 0 {
            let (slot, now) = q.peek().unwrap();
            q.schedule(slot, now + 49.0);
        }
    }
    q.check_all();
}

#[test]
fn many_schedule_cancel_cycles_of_one_slot() {
    cycles::<BinaryHeapQueue>();
    cycles::<CalendarQueue>();
}

/// A calendar year sized from two events far apart, then flooded with near events.
fn regrowth<Q: EventQueue>() {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let slots = 5000;
    let mut q = Checked::<Q>::new(slots);
    q.schedule(0, 0.0);
    q.schedule(1, 1e12);
    assert_eq!(q.peek(), Some((0, 0.0)));
    for slot in 2..slots {
        q.schedule(slot, rng.random::<f64>());
    }
    for _ in 0..20_000 {
        let (slot, now) = q.peek().unwrap();
        q.schedule(slot, now + rng.random::<f64>());
    }
    q.check_all();
}

#[test]
fn population_growing_after_a_refill() {
    regrowth::<BinaryHeapQueue>();
    regrowth::<CalendarQueue>();
}

#[test]
fn memory_is_reported() {
    let slots = 1000;
    let heap = BinaryHeapQueue::with_slots(slots);
    let calendar = CalendarQueue::with_slots(slots);
    assert!(heap.memory_bytes() >= slots * 4);
    assert!(calendar.memory_bytes() >= slots * 16);
    let mut full_heap = heap.clone();
    let mut full_calendar = calendar.clone();
    for slot in 0..slots {
        full_heap.schedule(slot, slot as f64);
        full_calendar.schedule(slot, slot as f64);
    }
    full_calendar.peek();
    assert!(full_heap.memory_bytes() >= heap.memory_bytes() + slots * 12);
    assert!(full_calendar.memory_bytes() > calendar.memory_bytes());
    // A clone is independent of the original.
    full_heap.cancel(0);
    assert_eq!(heap.len(), 0);
    assert_eq!(full_heap.len(), slots - 1);
}

#[test]
#[should_panic(expected = "out of range")]
fn heap_schedule_out_of_range() {
    BinaryHeapQueue::with_slots(3).schedule(3, 1.0);
}

#[test]
#[should_panic(expected = "out of range")]
fn heap_cancel_out_of_range() {
    BinaryHeapQueue::with_slots(3).cancel(3);
}

#[test]
#[should_panic(expected = "out of range")]
fn calendar_schedule_out_of_range() {
    CalendarQueue::with_slots(3).schedule(3, 1.0);
}

#[test]
#[should_panic(expected = "out of range")]
fn calendar_cancel_out_of_range() {
    CalendarQueue::with_slots(3).cancel(3);
}

#[test]
#[should_panic(expected = "out of bounds")]
fn heap_time_of_out_of_range() {
    BinaryHeapQueue::with_slots(3).time_of(3);
}

#[test]
#[should_panic(expected = "out of bounds")]
fn calendar_time_of_out_of_range() {
    CalendarQueue::with_slots(3).time_of(3);
}

#[cfg(debug_assertions)]
mod contract {
    use super::*;

    fn before_clock<Q: EventQueue>() {
        let mut q = Q::with_slots(2);
        q.schedule(0, 5.0);
        q.peek();
        q.schedule(1, 4.0);
    }

    #[test]
    #[should_panic(expected = "earlier than the last peeked time")]
    fn heap_rejects_time_before_clock() {
        before_clock::<BinaryHeapQueue>();
    }

    #[test]
    #[should_panic(expected = "earlier than the last peeked time")]
    fn calendar_rejects_time_before_clock() {
        before_clock::<CalendarQueue>();
    }

    #[test]
    #[should_panic(expected = "non-finite")]
    fn heap_rejects_nan() {
        BinaryHeapQueue::with_slots(1).schedule(0, f64::NAN);
    }

    #[test]
    #[should_panic(expected = "non-finite")]
    fn calendar_rejects_infinity() {
        CalendarQueue::with_slots(1).schedule(0, f64::INFINITY);
    }
}
