//! The pending re-checks of certificates that were solved only up to the horizon.
//!
//! Each re-check is due one horizon after it was scheduled, so while the horizon stays the
//! same or grows, appending keeps a list of them in order of time, and the engine's queue need
//! only hold the earliest. When the horizon shortens (the particles speed up), the next
//! re-checks may be due before the last ones: a new run starts, itself in order. The horizon
//! changes only when the rms speed moves by a tenth, and a run empties within one horizon, so
//! there are rarely more than two.

use std::collections::VecDeque;

/// Pending re-checks `(time, slot)` as runs, each in order of time: the newest, where entries
/// are added, and the older ones, still draining after the horizon shortened (usually none).
/// Entries whose slot was recomputed since they were added are stale; the caller tells them
/// apart (see [`take_due`](Self::take_due)), and they are dropped when they come up.
#[derive(Debug, Clone, Default)]
pub(super) struct Rechecks {
    newest: VecDeque<(f64, u32)>,
    older: Vec<VecDeque<(f64, u32)>>,
}

impl Rechecks {
    /// Adds a re-check of `slot` due at `time`.
    #[inline]
    pub(super) fn push(&mut self, time: f64, slot: u32) {
        if self.newest.back().is_some_and(|&(last, _)| last > time) {
            self.older.push(std::mem::take(&mut self.newest));
        }
        self.newest.push_back((time, slot));
    }

    /// Takes the earliest entry that `current(time, slot)` accepts if it is due at `now`,
    /// dropping the stale entries before it in every run; returns it and the time of the
    /// earliest entry left (which may be stale: it is dropped when it comes up).
    pub(super) fn take_due(
        &mut self,
        now: f64,
        current: impl Fn(f64, u32) -> bool,
    ) -> (Option<u32>, Option<f64>) {
        let drop_stale = |run: &mut VecDeque<(f64, u32)>| {
            while run.front().is_some_and(|&(time, slot)| !current(time, slot)) {
                run.pop_front();
            }
        };
        drop_stale(&mut self.newest);
        for run in &mut self.older {
            drop_stale(run);
        }
        self.older.retain(|run| !run.is_empty());
        let front = |run: &VecDeque<(f64, u32)>| run.front().map_or(f64::INFINITY, |&(time, _)| time);
        // The run with the earliest entry (the newest when tied or alone).
        let mut earliest = &mut self.newest;
        for run in &mut self.older {
            if front(run) < front(earliest) {
                earliest = run;
            }
        }
        let due = if front(earliest) <= now { earliest.pop_front().map(|(_, slot)| slot) } else { None };
        let next = self.older.iter().map(front).fold(front(&self.newest), f64::min);
        (due, (next < f64::INFINITY).then_some(next))
    }

    /// Drops every entry.
    pub(super) fn clear(&mut self) {
        self.newest.clear();
        self.older.clear();
    }

    /// Heap memory held, in bytes.
    pub(super) fn memory_bytes(&self) -> usize {
        let entry = std::mem::size_of::<(f64, u32)>();
        self.newest.capacity() * entry
            + self.older.capacity() * std::mem::size_of::<VecDeque<(f64, u32)>>()
            + self.older.iter().map(|run| run.capacity() * entry).sum::<usize>()
    }

    /// The number of runs holding entries (for the tests).
    #[cfg(test)]
    fn runs(&self) -> usize {
        usize::from(!self.newest.is_empty()) + self.older.len()
    }
}

#[cfg(test)]
mod tests {
    use super::Rechecks;

    /// Against a plain sorted list: random pushes at `now + horizon` with a horizon that grows
    /// and shrinks, random staleness, and takes at increasing times; every current entry comes
    /// out once, when due, earliest first.
    #[test]
    fn rechecks_come_out_in_order_of_time_across_runs() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut random = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut several_runs = 0;
        for _ in 0..50 {
            let mut rechecks = Rechecks::default();
            // The oracle: current entry time per slot.
            let mut pending: Vec<Option<f64>> = vec![None; 40];
            let (mut now, mut horizon) = (0.0, 1.0);
            let mut runs_seen = 0;
            for _ in 0..400 {
                if random() < 0.05 {
                    horizon *= if random() < 0.5 { 0.5 } else { 2.0 };
                }
                let slot = (random() * 40.0) as usize;
                if random() < 0.6 {
                    let time = now + horizon;
                    rechecks.push(time, slot as u32);
                    pending[slot] = Some(time);
                } else if random() < 0.3 {
                    pending[slot] = None;
                }
                runs_seen = runs_seen.max(rechecks.runs());
                now += random() * 0.3;
                // Take everything due, as the engine would on successive firings.
                loop {
                    let (due, next) =
                        rechecks.take_due(now, |time, slot| pending[slot as usize] == Some(time));
                    let expected = pending
                        .iter()
                        .enumerate()
                        .filter_map(|(s, t)| t.filter(|&t| t <= now).map(|t| (t, s)))
                        .min_by(|a, b| a.0.total_cmp(&b.0));
                    match (due, expected) {
                        (None, None) => {
                            let earliest = pending.iter().flatten().copied().fold(f64::INFINITY, f64::min);
                            // The next wake-up is never after the earliest current entry.
                            assert!(next.unwrap_or(f64::INFINITY) <= earliest);
                            break;
                        }
                        (Some(slot), Some((time, _))) => {
                            assert_eq!(pending[slot as usize], Some(time), "not the earliest due entry");
                            pending[slot as usize] = None;
                        }
                        (got, wanted) => panic!("took {got:?}, expected {wanted:?}"),
                    }
                }
            }
            several_runs += usize::from(runs_seen > 1);
        }
        assert!(several_runs > 25, "the horizon shortened enough to start a run in {several_runs} of 50");
    }
}
