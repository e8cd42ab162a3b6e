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

    /// A task's panic reaches the caller (from a worker or from the caller's own share).
    #[test]
    fn a_panicking_task_panics_the_caller() {
        let result = std::panic::catch_unwind(|| {
            for_each_index(64, |i| assert!(i != 40, "task 40"));
        });
        assert!(result.is_err());
    }
}
