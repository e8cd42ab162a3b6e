//! A rayon thread pool whose workers are pinned one per core, the way HPC codes run their
//! threads (`OMP_PROC_BIND=true`).
//!
//! Without pinning, the kernel places each worker where it sees fit. On the 2-vCPU virtual
//! machines these benchmarks run on, a worker woken by the other one was sometimes placed on
//! that other worker's core, which then waited a whole scheduler tick (4 ms) before either was
//! moved, while the second core idled (measured on the hhgrid parallel detection at 10⁵
//! objects: about one 4 ms stall in every three detections of 6 ms; none with pinning).
//! Benchmarks report both pools: rayon's default one, which is what a program gets without
//! asking, and this one.

/// A pool of `threads` workers, worker `i` pinned to the `i`-th core (modulo their number) of
/// the cores this process may run on; `None` where pinning is not supported (other than
/// Linux) or the pool cannot be built. A worker whose pinning fails runs unpinned.
///
/// ```
/// let pool = collide_benches::pinned::pinned_pool(2);
/// if let Some(pool) = pool {
///     assert_eq!(pool.install(rayon::current_num_threads), 2);
/// }
/// ```
#[must_use]
pub fn pinned_pool(threads: usize) -> Option<rayon::ThreadPool> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let cores = allowed_cores();
    if cores.is_empty() {
        return None;
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("pinned-{i}"))
        .start_handler(move |i| {
            // (Best effort: a worker that cannot be pinned runs unpinned.)
            let _ = pin_current_thread(cores[i % cores.len()]);
        })
        .build()
        .ok()
}

/// The cores the calling thread may run on, in increasing order.
#[cfg(target_os = "linux")]
fn allowed_cores() -> Vec<usize> {
    // SAFETY: `cpu_set_t` is plain data, for which all zero bits is the empty set; the call
    // writes at most `size_of::<cpu_set_t>()` bytes into it.
    let allowed = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &raw mut set) != 0 {
            return Vec::new();
        }
        set
    };
    let setsize = usize::try_from(libc::CPU_SETSIZE).unwrap_or(0);
    // SAFETY: every `core` is below the set's size in bits.
    (0..setsize).filter(|&core| unsafe { libc::CPU_ISSET(core, &allowed) }).collect()
}

#[cfg(not(target_os = "linux"))]
fn allowed_cores() -> Vec<usize> {
    Vec::new()
}

/// Restricts the calling thread to `core`; whether the system accepted it.
#[cfg(target_os = "linux")]
fn pin_current_thread(core: usize) -> bool {
    // SAFETY: as in `allowed_cores`; `core` comes from `allowed_cores`, so it is below the
    // set's size in bits, and the call only reads the set.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(core, &mut set);
        libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &raw const set) == 0
    }
}

#[cfg(not(target_os = "linux"))]
fn pin_current_thread(_core: usize) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_run_on_distinct_allowed_cores() {
        let Some(pool) = pinned_pool(2) else { return };
        let cores = allowed_cores();
        // Where the system refuses pinning (some sandboxes), the workers run unpinned.
        let first = cores[0];
        let accepted = std::thread::spawn(move || pin_current_thread(first)).join().expect("the thread ran");
        if !accepted {
            return;
        }
        // Each worker reports the cores it may now run on.
        let masks: Vec<Vec<usize>> = pool.broadcast(|_| allowed_cores());
        assert_eq!(masks.len(), 2);
        for (i, mask) in masks.iter().enumerate() {
            assert_eq!(mask, &vec![cores[i % cores.len()]], "worker {i}");
        }
    }

    #[test]
    fn pinning_a_thread_restricts_it_to_that_core() {
        let cores = allowed_cores();
        let Some(&last) = cores.last() else { return };
        // On a fresh thread, so that the test's own thread keeps its mask.
        let (accepted, mask) = std::thread::spawn(move || (pin_current_thread(last), allowed_cores()))
            .join()
            .expect("the thread ran");
        if accepted {
            assert_eq!(mask, vec![last]);
        } else {
            assert_eq!(mask, cores, "a refused pinning leaves the mask as it was");
        }
    }
}
