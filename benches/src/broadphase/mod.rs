//! Broad-phase baselines and the thesis workload for the `hhgrid` suite.
//!
//! Every baseline implements [`contact_core::BroadPhase`], so the suite drives all of them, and
//! the tests check all of them against [`contact_core::AllPairs`], through the same code:
//!
//! * [`IncrementalSap`]: sweep and prune with persistent sorted endpoint lists, insertion-sort
//!   updates and an incrementally maintained pair set (the pe engine's algorithm the thesis
//!   compared against; `O(N)` insertion).
//! * [`SortAndSweep`]: stateless sort (radix) and sweep on the axis of largest variance.
//! * [`ParryBvh`]: parry3d's dynamic BVH driven as rapier drives it, exact in `f64`.
//!
//! [`Workload`] generates the thesis's scenario (random cuboids in a periodic domain with a
//! calibrated density); [`resident_bytes`] and [`release_free_memory`] serve rough memory
//! comparisons by resident set size.

mod incremental_sap;
pub mod parry_bvh;
mod slots;
mod sort_and_sweep;
pub mod workload;

pub use incremental_sap::IncrementalSap;
pub use parry_bvh::ParryBvh;
pub use slots::SlotHandle;
pub use sort_and_sweep::SortAndSweep;
pub use workload::{Motion, Sizes, Workload, WorkloadConfig, WorkloadError};

/// Returns freed heap memory to the operating system where the allocator supports it (glibc's
/// `malloc_trim(0)`, which also releases free pages inside the heap), so that a later growth of
/// the resident set measures new allocations rather than reuse; does nothing elsewhere.
///
/// ```
/// collide_benches::broadphase::release_free_memory();
/// ```
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            fn malloc_trim(pad: usize) -> std::ffi::c_int;
        }
        // SAFETY: `malloc_trim` takes no pointers and only hands free memory of glibc's allocator
        // (the global allocator of Rust programs on this target) back to the kernel.
        unsafe {
            malloc_trim(0);
        }
    }
}

/// The resident set size of this process in bytes (`VmRSS` of `/proc/self/status`), or `None`
/// where that file is unavailable.
///
/// ```
/// # if cfg!(target_os = "linux") {
/// let rss = collide_benches::broadphase::resident_bytes().unwrap();
/// assert!(rss > 0);
/// # }
/// ```
pub fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_vm_rss(&status)
}

/// The `VmRSS:` line of `/proc/self/status` text, in bytes.
///
/// ```
/// use collide_benches::broadphase::parse_vm_rss;
/// assert_eq!(parse_vm_rss("Name:\tx\nVmRSS:\t    2048 kB\n"), Some(2048 * 1024));
/// assert_eq!(parse_vm_rss("Name:\tx\n"), None);
/// ```
pub fn parse_vm_rss(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
