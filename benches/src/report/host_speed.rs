//! How fast the host was while a suite ran: a dependent floating-point chain and random loads
//! from a private cache, a shared cache and main memory, measured when the suite starts and
//! when it ends.
//!
//! The machines this project is measured on are shared virtual machines whose speed changes
//! from day to day: on the same 2-vCPU model, the same code and the same benchmark measured
//! both 106 and 244 ns per object, with a random load from 4 MB taking 56 ns on the slow day.
//! Ratios between contenders measured in one run stay meaningful; absolute times do not, unless
//! one knows how fast the host was. These numbers say that, so two reports' absolute
//! figures are compared only when their host speeds agree, and a run during which the host
//! changed speed shows it (start and end differ). (A guide, not a conversion factor: on
//! one day here a load from 4 MiB took 44 ns in the morning and 18 ns an hour later, while the
//! hash grid's benchmark at 10⁴ objects ran only a tenth faster.)

use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::sync::OnceLock;
use std::time::Instant;

/// The host's speed at one moment, in nanoseconds per step of four probes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HostSpeed {
    /// One step of a dependent `x = x · a + b` chain in `f64` (latency bound: follows the
    /// clock).
    pub arithmetic_ns: f64,
    /// One load of a pointer chase through a random cycle in 256 KiB (a private cache on
    /// current x86 and ARM servers).
    pub cache_load_ns: f64,
    /// The same in 4 MiB: a shared last-level cache, whose latency on these virtual machines
    /// has measured from 18 to 56 ns (18 and 44 ns on the same day). `0` in reports written before it was
    /// measured.
    #[serde(default)]
    pub shared_cache_load_ns: f64,
    /// One load of a pointer chase through a random cycle in 64 MiB (main memory, past any
    /// shared cache this project has run on).
    pub memory_load_ns: f64,
}

/// Bytes of the cache-resident chase.
const CACHE_BYTES: usize = 256 << 10;
/// Bytes of the shared-cache chase.
const SHARED_CACHE_BYTES: usize = 4 << 20;
/// Bytes of the memory chase.
const MEMORY_BYTES: usize = 64 << 20;

impl HostSpeed {
    /// Measures the four probes, each the fastest of three repetitions (load from other work
    /// only ever slows a repetition down). Takes about a quarter of a second, and the first
    /// call in a process about a second more (it lays out the 64 MiB cycle, kept for later
    /// calls).
    ///
    /// ```
    /// let speed = collide_benches::report::HostSpeed::measure();
    /// assert!(speed.arithmetic_ns > 0.0 && speed.memory_load_ns.is_finite());
    /// ```
    pub fn measure() -> Self {
        static MEMORY: OnceLock<Vec<u32>> = OnceLock::new();
        let best = |probe: &dyn Fn() -> f64| (0..3).map(|_| probe()).fold(f64::INFINITY, f64::min);
        let arithmetic_ns = best(&|| multiply_add_chain(2_000_000));
        let cache = random_cycle(CACHE_BYTES / 4, 0x5eed_0001);
        let cache_load_ns = best(&|| chase(&cache, 2_000_000));
        let shared_cache = random_cycle(SHARED_CACHE_BYTES / 4, 0x5eed_0003);
        let shared_cache_load_ns = best(&|| chase(&shared_cache, 1_000_000));
        // Shuffling 64 MiB takes longer than the chase itself: once per process.
        let memory = MEMORY.get_or_init(|| random_cycle(MEMORY_BYTES / 4, 0x5eed_0002));
        let memory_load_ns = best(&|| chase(memory, 300_000));
        Self { arithmetic_ns, cache_load_ns, shared_cache_load_ns, memory_load_ns }
    }

    /// The numbers in words, e.g. `"1.31 ns per f64 multiply-add; random loads 4.52 ns
    /// (256 KiB), 18.4 ns (4 MiB), 178 ns (64 MiB)"`.
    ///
    /// ```
    /// use collide_benches::report::HostSpeed;
    /// let speed = HostSpeed {
    ///     arithmetic_ns: 1.31,
    ///     cache_load_ns: 4.52,
    ///     shared_cache_load_ns: 18.44,
    ///     memory_load_ns: 177.8,
    /// };
    /// assert_eq!(
    ///     speed.describe(),
    ///     "1.31 ns per f64 multiply-add; random loads 4.52 ns (256 KiB), 18.4 ns (4 MiB), 178 ns (64 MiB)"
    /// );
    /// ```
    pub fn describe(&self) -> String {
        let ns = |x: f64| crate::report::format::significant(x, 3);
        format!(
            "{} ns per f64 multiply-add; random loads {} ns (256 KiB), {} ns (4 MiB), {} ns (64 MiB)",
            ns(self.arithmetic_ns),
            ns(self.cache_load_ns),
            ns(self.shared_cache_load_ns),
            ns(self.memory_load_ns)
        )
    }
}

/// Nanoseconds per step of a dependent multiply-add chain of `steps` steps.
fn multiply_add_chain(steps: u32) -> f64 {
    // Constants the optimiser cannot see, so the chain is computed step by step; |a| < 1 keeps
    // x bounded (it converges to b / (1 − a)).
    let (a, b) = (black_box(0.999_999_9), black_box(1e-7));
    let mut x = black_box(1.0_f64);
    let started = Instant::now();
    for _ in 0..steps {
        x = x * a + b;
    }
    let elapsed = started.elapsed().as_secs_f64();
    black_box(x);
    elapsed * 1e9 / f64::from(steps)
}

/// A single cycle through `len` slots in random order (Sattolo's algorithm): `next[i]` is the
/// slot after `i`, so a chase visits every slot before it repeats and the hardware prefetchers
/// cannot guess the next address.
fn random_cycle(len: usize, seed: u64) -> Vec<u32> {
    let mut order: Vec<u32> = (0..len as u32).collect();
    let mut state = seed;
    for i in (1..len).rev() {
        // xorshift64*: plenty for a shuffle that only has to defeat prefetching.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let j = (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as usize % i;
        order.swap(i, j);
    }
    let mut next = vec![0u32; len];
    for w in 0..len {
        next[order[w] as usize] = order[(w + 1) % len];
    }
    next
}

/// Nanoseconds per load of `loads` dependent loads through `next`.
fn chase(next: &[u32], loads: u32) -> f64 {
    let mut at = 0u32;
    let started = Instant::now();
    for _ in 0..loads {
        at = next[at as usize];
    }
    let elapsed = started.elapsed().as_secs_f64();
    black_box(at);
    elapsed * 1e9 / f64::from(loads)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cycle_visits_every_slot_once() {
        for len in [1, 2, 3, 10, 1000] {
            let next = random_cycle(len, 7);
            let mut seen = vec![false; len];
            let mut at = 0usize;
            for _ in 0..len {
                assert!(!seen[at], "slot {at} visited twice (len {len})");
                seen[at] = true;
                at = next[at] as usize;
            }
            assert_eq!(at, 0, "the chase is not one cycle (len {len})");
            assert!(seen.iter().all(|&s| s));
        }
    }

    #[test]
    fn probes_are_positive_and_finite() {
        for _ in 0..2 {
            let started = Instant::now();
            let speed = HostSpeed::measure();
            for value in
                [speed.arithmetic_ns, speed.cache_load_ns, speed.shared_cache_load_ns, speed.memory_load_ns]
            {
                assert!(value.is_finite() && value > 0.0, "{speed:?}");
            }
            eprintln!("{} in {:.2} s", speed.describe(), started.elapsed().as_secs_f64());
        }
    }
}
