//! Repeated wall-clock measurements summarised by their median and minimum.
//!
//! Each *sample* runs the routine a calibrated number of times (so that very fast routines are
//! not dominated by timer resolution) and divides by that count. The first call is a warm-up and
//! is never counted. Shared machines are noisy: report the median, keep the minimum as the
//! best-case figure, and compare implementations measured in the same run.
//!
//! ```
//! use collide_benches::timing::{time, TimingConfig};
//! let t = time(&TimingConfig::smoke(), || (0..1000u64).sum::<u64>());
//! assert!(t.min <= t.median && t.median <= t.max);
//! assert!(t.samples >= 1);
//! ```

use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// How often to repeat a measurement.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TimingConfig {
    /// The number of samples to take when the time budget allows.
    pub samples: usize,
    /// The number of samples always taken, even past the budget.
    pub min_samples: usize,
    /// Iterations are batched so that one sample lasts at least this long.
    pub min_sample_time: Duration,
    /// Once this much time has been spent on one measurement, stop after `min_samples`.
    pub max_total_time: Duration,
}

impl TimingConfig {
    /// The default of `cargo xtask bench`: 7 samples of at least 2 ms, at most ~3 s per measurement
    /// (but never fewer than 3 samples).
    pub fn quick() -> Self {
        Self {
            samples: 7,
            min_samples: 3,
            min_sample_time: Duration::from_millis(2),
            max_total_time: Duration::from_secs(3),
        }
    }

    /// `cargo xtask bench --full`: 21 samples of at least 10 ms, at most ~30 s per measurement
    /// (but never fewer than 5 samples).
    pub fn full() -> Self {
        Self {
            samples: 21,
            min_samples: 5,
            min_sample_time: Duration::from_millis(10),
            max_total_time: Duration::from_secs(30),
        }
    }

    /// A single short sample, for tests of the pipeline itself.
    pub fn smoke() -> Self {
        Self {
            samples: 1,
            min_samples: 1,
            min_sample_time: Duration::from_micros(100),
            max_total_time: Duration::from_millis(50),
        }
    }
}

/// The summary of one repeated measurement, in seconds per call of the routine.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// Median over the samples, in seconds per call.
    pub median: f64,
    /// Fastest sample, in seconds per call.
    pub min: f64,
    /// Slowest sample, in seconds per call.
    pub max: f64,
    /// How many samples were taken.
    pub samples: usize,
    /// How many calls each sample made.
    pub iterations_per_sample: usize,
}

impl Timing {
    /// Summarises per-call sample times (seconds). Returns `None` for an empty slice.
    ///
    /// ```
    /// use collide_benches::timing::Timing;
    /// let t = Timing::from_samples(&[3.0, 1.0, 2.0, 10.0], 5).unwrap();
    /// assert_eq!((t.median, t.min, t.max, t.samples), (2.5, 1.0, 10.0, 4));
    /// ```
    pub fn from_samples(per_call: &[f64], iterations_per_sample: usize) -> Option<Self> {
        if per_call.is_empty() {
            return None;
        }
        let mut sorted = per_call.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let median = if n % 2 == 1 { sorted[n / 2] } else { 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]) };
        Some(Self { median, min: sorted[0], max: sorted[n - 1], samples: n, iterations_per_sample })
    }

    /// Items processed per second at the median time, for `items` items per call.
    ///
    /// ```
    /// use collide_benches::timing::Timing;
    /// let t = Timing::from_samples(&[0.5], 1).unwrap();
    /// assert_eq!(t.throughput(1000), 2000.0);
    /// ```
    pub fn throughput(&self, items: usize) -> f64 {
        items as f64 / self.median
    }
}

/// Times `routine`, batching calls so each sample lasts at least `config.min_sample_time`.
///
/// The routine's result is passed through [`black_box`] so the work is not optimised away.
pub fn time<O>(config: &TimingConfig, mut routine: impl FnMut() -> O) -> Timing {
    time_batched(config, || (), |()| routine())
}

/// Times `routine` on fresh inputs made by `setup`, excluding the time spent in `setup` and in
/// dropping the outputs (like criterion's `iter_batched`).
///
/// Use this for routines that consume their input, e.g. `TriMesh::new(vertices, faces)`.
pub fn time_batched<I, O>(
    config: &TimingConfig,
    mut setup: impl FnMut() -> I,
    mut routine: impl FnMut(I) -> O,
) -> Timing {
    let started = Instant::now();
    // Warm-up call; its duration calibrates the batch size.
    let input = setup();
    let t0 = Instant::now();
    let out = black_box(routine(black_box(input)));
    let first = t0.elapsed();
    drop(out);
    let iterations = if first >= config.min_sample_time {
        1
    } else {
        let per_call = first.as_secs_f64().max(1e-9);
        ((config.min_sample_time.as_secs_f64() / per_call).ceil() as usize).clamp(1, 10_000_000)
    };

    let mut per_call = Vec::with_capacity(config.samples.max(1));
    let mut inputs = Vec::with_capacity(iterations);
    let mut outputs = Vec::with_capacity(iterations);
    while per_call.len() < config.samples.max(1) {
        inputs.extend((0..iterations).map(|_| setup()));
        let t = Instant::now();
        for input in inputs.drain(..) {
            outputs.push(black_box(routine(black_box(input))));
        }
        let elapsed = t.elapsed();
        outputs.clear();
        per_call.push(elapsed.as_secs_f64() / iterations as f64);
        if per_call.len() >= config.min_samples.max(1) && started.elapsed() >= config.max_total_time {
            break;
        }
    }
    Timing::from_samples(&per_call, iterations).expect("at least one sample is always taken")
}

/// Times `routine` on fresh inputs from `setup` like [`time_batched`], but drops
/// each output before the next call (untimed, like the setup), so every build allocates from
/// memory just freed rather than from fresh pages. (With all outputs of a sample kept alive, as
/// `time_batched` does, first-touch page faults dominate the cheap builds: the paper structure of
/// the level-5 sphere takes ~0.3 ms instead of ~0.03 ms.) Each call is timed on its own, so calls
/// below a microsecond carry the timer's overhead.
///
/// ```
/// use collide_benches::timing::{TimingConfig, time_each};
/// let config = TimingConfig::quick();
/// let t = time_each(&config, || vec![1u8; 1 << 16], |v| v.iter().map(|&b| u64::from(b)).sum::<u64>());
/// assert!(t.min > 0.0 && t.min <= t.median && t.median <= t.max);
/// ```
pub fn time_each<I, O>(
    config: &TimingConfig,
    mut setup: impl FnMut() -> I,
    mut routine: impl FnMut(I) -> O,
) -> Timing {
    let started = Instant::now();
    let mut call = || {
        let input = setup();
        let t = Instant::now();
        let output = black_box(routine(black_box(input)));
        let elapsed = t.elapsed();
        drop(output);
        elapsed
    };
    let first = call();
    let iterations = if first >= config.min_sample_time {
        1
    } else {
        let per_call = first.as_secs_f64().max(1e-9);
        ((config.min_sample_time.as_secs_f64() / per_call).ceil() as usize).clamp(1, 1_000_000)
    };
    let mut per_call = Vec::with_capacity(config.samples.max(1));
    while per_call.len() < config.samples.max(1) {
        let total: Duration = (0..iterations).map(|_| call()).sum();
        per_call.push(total.as_secs_f64() / iterations as f64);
        if per_call.len() >= config.min_samples.max(1) && started.elapsed() >= config.max_total_time {
            break;
        }
    }
    Timing::from_samples(&per_call, iterations).expect("at least one sample is always taken")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(Timing::from_samples(&[5.0, 1.0, 3.0], 1).unwrap().median, 3.0);
        assert_eq!(Timing::from_samples(&[4.0, 1.0, 3.0, 2.0], 1).unwrap().median, 2.5);
        assert!(Timing::from_samples(&[], 1).is_none());
    }

    #[test]
    fn batched_excludes_setup_and_respects_sample_counts() {
        let config = TimingConfig {
            samples: 4,
            min_samples: 2,
            min_sample_time: Duration::from_micros(200),
            max_total_time: Duration::from_secs(10),
        };
        let mut setups = 0usize;
        let t = time_batched(
            &config,
            || {
                setups += 1;
                vec![1u8; 64]
            },
            |v| v.len(),
        );
        assert_eq!(t.samples, 4);
        assert!(t.iterations_per_sample >= 1);
        assert_eq!(setups, 1 + 4 * t.iterations_per_sample);
        assert!(t.min > 0.0 && t.min <= t.median && t.median <= t.max);
    }

    #[test]
    fn budget_stops_after_min_samples() {
        let config = TimingConfig {
            samples: 1000,
            min_samples: 2,
            min_sample_time: Duration::from_millis(1),
            max_total_time: Duration::ZERO,
        };
        let t = time(&config, || std::thread::sleep(Duration::from_millis(1)));
        assert_eq!(t.samples, 2);
        assert_eq!(t.iterations_per_sample, 1);
        assert!(t.min >= 1e-3);
    }
}
