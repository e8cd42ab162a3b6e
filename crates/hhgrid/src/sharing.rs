//! Independent tasks run on rayon's pool, with the calling thread taking part when it is not
//! one of the pool's workers.
//!
//! A parallel rayon call made from a thread outside the pool (a simulation's main loop calling
//! [`find_pairs_parallel`](crate::HierarchicalHashGrid::find_pairs_parallel)) hands its work to
//! the pool and blocks until the workers are done: the caller's core idles while workers that
//! slept through the serial update loop wake up, and on the 2-vCPU virtual machines the
//! benchmarks ran on, a woken worker sometimes waited up to a scheduler tick on the core of the
//! thread that woke it. Detections of a few milliseconds then ran no faster than on one thread
//! (measured at 10⁴ and 10⁵ equal cubes: 0.9–1.3× in rayon's default pool). Here the caller
//! starts on the tasks at once and the workers it wakes take the tasks still left when they
//! arrive: a worker that comes late finds less to do, and one that never comes costs the caller
//! no more than a wake-up at the end. Within the pool (a call inside
//! [`ThreadPool::install`](rayon::ThreadPool::install), or nested in another task) rayon's work
//! stealing distributes the tasks as usual.
//!
//! Every task writes its own output, so the results do not depend on which thread ran which
//! task.

use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// Runs `task(i)` once for every `i` in `0..count`, in parallel (see the module documentation),
/// and returns when all have run.
pub(crate) fn for_each_index(count: usize, task: impl Fn(usize) + Sync) {
    if count <= 1 {
        (0..count).for_each(task);
    } else if rayon::current_thread_index().is_some() {
        (0..count).into_par_iter().for_each(&task);
    } else {
        let next = AtomicUsize::new(0);
        // Tasks are handed out one at a time, in order, to whichever thread asks first.
        let work = || {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= count {
                    break;
                }
                task(i);
            }
        };
        rayon::in_place_scope(|scope| {
            for _ in 1..rayon::current_num_threads().min(count) {
                scope.spawn(|_| work());
            }
            work();
        });
    }
}

/// The outputs of `task(i)` for every `i` in `0..count`, in index order, computed in parallel
/// as by [`for_each_index`].
pub(crate) fn map_indices<T: Send + Sync>(count: usize, task: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let slots: Vec<std::sync::OnceLock<T>> = (0..count).map(|_| std::sync::OnceLock::new()).collect();
    for_each_index(count, |i| {
        // Each index runs once, so each slot is set once.
        let _ = slots[i].set(task(i));
    });
    slots.into_iter().map(|slot| slot.into_inner().expect("every index ran")).collect()
}

/// Runs `task(k, chunk)` for every chunk `k` of `chunk_len` elements of `slice` (the last one
/// shorter), in parallel as by [`for_each_index`], each chunk mutably by one task.
pub(crate) fn for_each_chunk_mut<T: Send>(
    slice: &mut [T],
    chunk_len: usize,
    task: impl Fn(usize, &mut [T]) + Sync,
) {
    // Each chunk behind a lock that only its own task takes, so that tasks given by index can
    // borrow it mutably.
    let chunks: Vec<Mutex<&mut [T]>> = slice.chunks_mut(chunk_len).map(Mutex::new).collect();
    for_each_index(chunks.len(), |k| {
        let mut chunk = chunks[k].lock().unwrap_or_else(PoisonError::into_inner);
        task(k, &mut chunk);
    });
}

/// Appends `produce(i)` for every `i` in `0..count` to `out`, in index order, computed in
/// chunks of `chunk_len` in parallel as by [`for_each_index`].
pub(crate) fn extend_by_index<T: Send>(
    out: &mut Vec<T>,
    count: usize,
    chunk_len: usize,
    produce: impl Fn(usize) -> T + Sync,
) {
    out.reserve(count);
    let start = out.len();
    for_each_chunk_mut(&mut out.spare_capacity_mut()[..count], chunk_len, |k, chunk| {
        for (i, slot) in (k * chunk_len..).zip(chunk) {
            slot.write(produce(i));
        }
    });
    // SAFETY: the chunks cover the first `count` elements of the free capacity and every one
    // was written just above (a panicking task would have propagated before this point,
    // leaking the values written instead of exposing unwritten ones).
    unsafe { out.set_len(start + count) };
}

/// A slice written by several tasks at once, each at its own indices (the parallel fill of the
/// snapshot, the relabelling of a cell table).
#[derive(Clone, Copy)]
pub(crate) struct SharedSlice<T> {
    start: *mut T,
    len: usize,
}

// SAFETY: the tasks write disjoint indices (see `write`) and nothing reads the slice while they
// run; `T` is sent between threads by value only.
unsafe impl<T: Send> Send for SharedSlice<T> {}
unsafe impl<T: Send> Sync for SharedSlice<T> {}

impl<T> SharedSlice<T> {
    pub(crate) fn new(slice: &mut [T]) -> Self {
        Self { start: slice.as_mut_ptr(), len: slice.len() }
    }

    /// Writes `value` at index `i` (checked against the length).
    ///
    /// # Safety
    /// No other thread may access index `i` while the slice is shared, and the slice it was
    /// made from must outlive the sharing and not be otherwise accessed meanwhile.
    #[inline]
    pub(crate) unsafe fn write(self, i: usize, value: T) {
        assert!(i < self.len, "index {i} out of a shared slice of {}", self.len);
        // SAFETY: in bounds (just checked); exclusive per the caller's guarantee.
        unsafe { self.start.add(i).write(value) }
    }

    /// Prefetches index `i` (see [`crate::prefetch`]); nothing for an index out of range.
    #[inline]
    pub(crate) fn prefetch(self, i: usize) {
        if i < self.len {
            crate::prefetch::prefetch_address(self.start.wrapping_add(i));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    /// Every index runs exactly once, from outside the pool (caller taking part), inside it,
    /// and in a one-thread pool; the outputs come back in index order.
    #[test]
    fn every_index_runs_once_in_order() {
        let check = || {
            for count in [0, 1, 2, 3, 17, 1000] {
                let runs: Vec<AtomicU32> = (0..count).map(|_| AtomicU32::new(0)).collect();
                for_each_index(count, |i| {
                    runs[i].fetch_add(1, Ordering::Relaxed);
                });
                assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 1), "count {count}");
                let squares = map_indices(count, |i| i * i);
                assert_eq!(squares, (0..count).map(|i| i * i).collect::<Vec<_>>());
            }
        };
        assert!(rayon::current_thread_index().is_none());
        check();
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(check);
        }
    }

    /// Chunks cover the slice once each, with their indices; extending appends every index's
    /// value in order after what was there (counts on both sides of the chunk length).
    #[test]
    fn chunks_and_extensions_cover_every_index_once() {
        for count in [0usize, 1, 7, 8, 9, 100] {
            let mut values = vec![0usize; count];
            for_each_chunk_mut(&mut values, 8, |k, chunk| {
                for (i, v) in chunk.iter_mut().enumerate() {
                    *v += k * 8 + i + 1;
                }
            });
            assert_eq!(values, (1..=count).collect::<Vec<_>>());
            let mut out = vec![String::from("kept")];
            extend_by_index(&mut out, count, 8, |i| i.to_string());
            let expected: Vec<String> =
                std::iter::once("kept".to_owned()).chain((0..count).map(|i| i.to_string())).collect();
            assert_eq!(out, expected);
        }
    }

    /// A task's panic reaches the caller (from a worker or from the caller's own share).
    #[test]
    fn a_panicking_task_panics_the_caller() {
        let result = std::panic::catch_unwind(|| {
            for_each_index(64, |i| assert!(i != 40, "task 40"));
        });
        assert!(result.is_err());
    }
}
