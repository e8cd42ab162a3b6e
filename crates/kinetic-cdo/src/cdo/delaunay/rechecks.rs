//! The pending re-checks of certificates that were solved only up to the horizon.
//!
//! Each re-check is due one horizon after it was scheduled, so while the horizon stays the
//! same or grows, appending keeps a list of them in order of time, and the engine's queue need
//! only hold the earliest. When the horizon shortens (the particles speed up), the next
//! re-checks may be due before the last ones: a new run starts, itself in order. The horizon
//! changes only when the rms speed moves by a tenth, and a run empties within one horizon, so
//! there are rarely more than two.

use std::collections::VecDeque;

/// Pending re-checks `(time, slot)` as runs, each in order of time. Entries whose slot was
/// recomputed since they were added are stale; the caller tells them apart (see
/// [`take_due`](Self::take_due)), and they are dropped when they come up.
#[derive(Debug, Clone, Default)]
pub(super) struct Rechecks {
    runs: Vec<VecDeque<(f64, u32)>>,
}

impl Rechecks {
    /// Adds a re-check of `slot` due at `time`.
    #[inline]
    pub(super) fn push(&mut self, time: f64, slot: u32) {
        match self.runs.last_mut() {
            Some(run) if run.back().is_none_or(|&(last, _)| last <= time) => run.push_back((time, slot)),
            _ => self.runs.push(VecDeque::from([(time, slot)])),
        }
    }

    /// Takes the earliest entry that `current(time, slot)` accepts if it is due at `now`,
    /// dropping the stale entries before it in every run; returns it and the time of the
    /// earliest entry left (which may be stale: it is dropped when it comes up).
    pub(super) fn take_due(
        &mut self,
        now: f64,
        current: impl Fn(f64, u32) -> bool,
    ) -> (Option<u32>, Option<f64>) {
        for run in &mut self.runs {
            while run.front().is_some_and(|&(time, slot)| !current(time, slot)) {
                run.pop_front();
            }
        }
        // Emptied runs go, except the last (new entries go there: keep its allocation).
        let last = self.runs.len().saturating_sub(1);
        let mut k = 0;
        self.runs.retain(|run| {
            k += 1;
            k - 1 == last || !run.is_empty()
        });
        let earliest = |runs: &[VecDeque<(f64, u32)>]| {
            runs.iter()
                .enumerate()
                .filter_map(|(k, run)| run.front().map(|&(time, _)| (time, k)))
                .min_by(|a, b| a.0.total_cmp(&b.0))
        };
        let due = match earliest(&self.runs) {
            Some((time, k)) if time <= now => self.runs[k].pop_front().map(|(_, slot)| slot),
            _ => None,
        };
        (due, earliest(&self.runs).map(|(time, _)| time))
    }

    /// Drops every entry.
    pub(super) fn clear(&mut self) {
        self.runs.truncate(1);
        if let Some(run) = self.runs.first_mut() {
            run.clear();
        }
    }

    /// Heap memory held, in bytes.
    pub(super) fn memory_bytes(&self) -> usize {
        self.runs.capacity() * std::mem::size_of::<VecDeque<(f64, u32)>>()
            + self.runs.iter().map(|run| run.capacity() * std::mem::size_of::<(f64, u32)>()).sum::<usize>()
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
                runs_seen = runs_seen.max(rechecks.runs.len());
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
