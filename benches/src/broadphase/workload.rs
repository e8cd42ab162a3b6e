//! The thesis's benchmark scenario (Schornbaum 2009, §4): random cuboids drifting through a
//! periodic domain whose size keeps the mean number of overlapping pairs per object constant.
//!
//! * `N` cuboids, centres uniform in the domain `[0, L_x) × [0, L_y) × [0, L_z)`, periodic:
//!   an object leaving on one side re-enters on the other (its box is simply recomputed around
//!   the wrapped centre; boxes are not split across the boundary, so pairs are not counted
//!   across it either).
//! * Each object moves with a constant velocity: a uniformly random direction and a speed uniform
//!   in `[0, fraction × size]` per step, where size is the object's longest edge (thesis: 20 %,
//!   1 % for the high-coherence runs). [`Motion::Teleport`] instead puts every object at a fresh
//!   random position each step, so that every object changes its grid cell (the thesis's
//!   "abnormal" motion of Fig. 25).
//! * Sizes ([`Sizes`]): unit cubes; cubes with edges uniform in `[1, ratio]` (several grid
//!   levels); or `aspect × 1 × 1` bars along a random axis.
//! * The domain edges are `s × domain_aspect` with `s` calibrated **analytically** so that the
//!   expected number of overlapping pairs is `pairs_per_object × N`. The thesis's "two
//!   intersections per object" means exactly that with `pairs_per_object = 2` ("the number of
//!   detected potential collisions is twice the number of currently simulated objects", §4.1),
//!   i.e. every object overlaps **four** others on average.
//!
//! Calibration: two boxes with edges `e_i`, `e_j` overlap iff on every axis their centres are
//! within `d_k = (e_ik + e_jk) / 2`. For centres uniform in `[0, L)` (no wrap-around of boxes)
//! `P(|x_i − x_j| ≤ d) = 2u − u²` with `u = d / L` (1 when `u ≥ 1`), independently per axis, so
//! the expected number of pairs is `N(N−1)/2 · E[Π_k p(d_k / L_k)]`, the expectation over the
//! size distribution (exact for cubes and bars, a 64-point midpoint rule per size for varying
//! cubes). Constant-velocity motion with wrap-around keeps every centre uniform and independent,
//! so the expectation holds at every step. For equal cubes of edge `a` this gives
//! `a / L = 1 − √(1 − (4 / (N − 1))^{1/3})`; the usual periodic estimate `(N − 1)(2a)³ / L³ = 4`
//! undercounts the boundary loss (about 24 % fewer pairs at `N = 100`, 2 % at `N = 10⁵`).
//!
//! `size_scale` shrinks every object *after* calibration (thesis Fig. 30: sizes × 10⁻⁵, same
//! spatial distribution, practically no overlaps; speeds scale with the sizes).

use geometry_core::{Aabb, DVec3};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::f64::consts::TAU;

/// How object sizes are drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sizes {
    /// Unit cubes (one grid level).
    Cubes,
    /// Cubes with edges uniform in `[1, ratio]` (thesis: up to a factor of 12).
    Varying {
        /// Largest over smallest edge, `>= 1`.
        ratio: f64,
    },
    /// `aspect × 1 × 1` bars, the long axis chosen uniformly among x, y and z (thesis Fig. 26:
    /// 10 × 1 × 1).
    Elongated {
        /// Long over short edge, `>= 1`.
        aspect: f64,
    },
}

/// How objects move between steps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Motion {
    /// Constant velocity, random direction, speed uniform in `[0, fraction × longest edge]`.
    Drift {
        /// Bound of the per-step displacement relative to the object's size (thesis: 0.2, 0.01).
        fraction: f64,
    },
    /// A fresh uniformly random position every step (every object changes its cell).
    Teleport,
    /// Most objects rest: a fixed random subset (`moving` × N objects, rounded) moves at a
    /// constant velocity of exactly `fraction × longest edge` per step in a random direction,
    /// the others never move (a scene where most bodies sleep). [`Workload::moved`] lists the
    /// movers, so that a simulation updates only their boxes.
    Sparse {
        /// Share of the objects that move, in `[0, 1]`.
        moving: f64,
        /// Per-step displacement relative to the object's size.
        fraction: f64,
    },
}

/// Parameters of a [`Workload`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorkloadConfig {
    /// Number of objects `N`.
    pub objects: usize,
    /// Size distribution.
    pub sizes: Sizes,
    /// Target mean number of overlapping pairs divided by `N` (thesis: 2).
    pub pairs_per_object: f64,
    /// Motion model.
    pub motion: Motion,
    /// Relative domain edges (`[1, 1, 1]`: a cube; `[1024, 1, 1]`: thesis Fig. 26).
    pub domain_aspect: [f64; 3],
    /// Factor applied to every object's size after calibration (1; thesis Fig. 30: 1e-5).
    pub size_scale: f64,
    /// Seed of the `ChaCha8` generator.
    pub seed: u64,
}

impl WorkloadConfig {
    /// The thesis's default scenario: unit cubes, two pairs per object, 20 % motion, cubic domain.
    ///
    /// ```
    /// use collide_benches::broadphase::{Motion, Sizes, WorkloadConfig};
    /// let c = WorkloadConfig::thesis(1000);
    /// assert_eq!((c.sizes, c.pairs_per_object, c.motion), (Sizes::Cubes, 2.0, Motion::Drift { fraction: 0.2 }));
    /// ```
    pub fn thesis(objects: usize) -> Self {
        Self {
            objects,
            sizes: Sizes::Cubes,
            pairs_per_object: 2.0,
            motion: Motion::Drift { fraction: 0.2 },
            domain_aspect: [1.0; 3],
            size_scale: 1.0,
            seed: 0x5c40_2009,
        }
    }
}

/// Why a [`WorkloadConfig`] cannot be realised.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum WorkloadError {
    /// A parameter is out of range (named in the message).
    #[error("invalid workload parameter: {0}")]
    Invalid(&'static str),
    /// Even with all objects overlapping there are fewer than `pairs_per_object × N` pairs.
    #[error("{pairs_per_object} pairs per object is unreachable with {objects} objects (at most (N-1)/2)")]
    Unreachable {
        /// Objects asked for.
        objects: usize,
        /// Pairs per object asked for.
        pairs_per_object: f64,
    },
}

/// Representative edge vectors of the size distribution with their weights (summing to 1).
fn size_representatives(sizes: Sizes) -> Vec<(f64, [f64; 3])> {
    match sizes {
        Sizes::Cubes => vec![(1.0, [1.0; 3])],
        Sizes::Varying { ratio } => {
            const POINTS: usize = 64;
            (0..POINTS)
                .map(|i| {
                    let e = 1.0 + (ratio - 1.0) * (i as f64 + 0.5) / POINTS as f64;
                    (1.0 / POINTS as f64, [e; 3])
                })
                .collect()
        }
        Sizes::Elongated { aspect } => (0..3)
            .map(|axis| {
                let mut e = [1.0; 3];
                e[axis] = aspect;
                (1.0 / 3.0, e)
            })
            .collect(),
    }
}

/// `P(|x − y| ≤ d)` for `x, y` uniform in `[0, l)`.
fn axis_probability(d: f64, l: f64) -> f64 {
    let u = d / l;
    if u >= 1.0 { 1.0 } else { 2.0 * u - u * u }
}

/// The probability that two random objects overlap, for domain edges `edges`.
fn overlap_probability(reps: &[(f64, [f64; 3])], scale: f64, edges: [f64; 3]) -> f64 {
    let mut total = 0.0;
    for (wi, ei) in reps {
        for (wj, ej) in reps {
            let p: f64 = (0..3).map(|k| axis_probability(0.5 * scale * (ei[k] + ej[k]), edges[k])).product();
            total += wi * wj * p;
        }
    }
    total
}

/// A running instance of the scenario: the objects' boxes now, and how they move.
#[derive(Debug, Clone)]
pub struct Workload {
    config: WorkloadConfig,
    domain: DVec3,
    expected_pairs: f64,
    centres: Vec<DVec3>,
    half_extents: Vec<DVec3>,
    velocities: Vec<DVec3>,
    /// The moving objects under [`Motion::Sparse`].
    movers: Option<Vec<usize>>,
    boxes: Vec<Aabb>,
    rng: ChaCha8Rng,
    steps: usize,
}

impl Workload {
    /// Calibrates the domain and draws the objects.
    ///
    /// # Errors
    /// [`WorkloadError`] for out-of-range parameters or an unreachable density.
    ///
    /// ```
    /// use collide_benches::broadphase::{Workload, WorkloadConfig};
    /// let w = Workload::new(WorkloadConfig::thesis(1000)).unwrap();
    /// assert_eq!(w.boxes().len(), 1000);
    /// assert!((w.expected_pairs() - 2000.0).abs() < 1e-6);
    /// ```
    pub fn new(config: WorkloadConfig) -> Result<Self, WorkloadError> {
        let positive = |x: f64| x.is_finite() && x > 0.0;
        if config.objects < 2 {
            return Err(WorkloadError::Invalid("objects must be at least 2"));
        }
        if !positive(config.pairs_per_object) {
            return Err(WorkloadError::Invalid("pairs_per_object must be positive and finite"));
        }
        if !config.domain_aspect.iter().all(|&a| positive(a)) {
            return Err(WorkloadError::Invalid("domain_aspect must be positive and finite"));
        }
        if !positive(config.size_scale) {
            return Err(WorkloadError::Invalid("size_scale must be positive and finite"));
        }
        match config.sizes {
            Sizes::Varying { ratio: r } | Sizes::Elongated { aspect: r } if !(r.is_finite() && r >= 1.0) => {
                return Err(WorkloadError::Invalid("size ratio must be finite and >= 1"));
            }
            _ => {}
        }
        if let Motion::Drift { fraction } | Motion::Sparse { fraction, .. } = config.motion
            && !(fraction.is_finite() && fraction >= 0.0)
        {
            return Err(WorkloadError::Invalid("motion fraction must be finite and >= 0"));
        }
        if let Motion::Sparse { moving, .. } = config.motion
            && !(0.0..=1.0).contains(&moving)
        {
            return Err(WorkloadError::Invalid("moving share must lie in [0, 1]"));
        }
        let n = config.objects as f64;
        let target = 2.0 * config.pairs_per_object / (n - 1.0);
        if target >= 1.0 {
            return Err(WorkloadError::Unreachable {
                objects: config.objects,
                pairs_per_object: config.pairs_per_object,
            });
        }
        let reps = size_representatives(config.sizes);
        let edges = |s: f64| config.domain_aspect.map(|a| s * a);
        let probability = |s: f64| overlap_probability(&reps, 1.0, edges(s));
        // Bisection on s (the probability falls monotonically as the domain grows).
        let (mut lo, mut hi) = (1e-9, 1.0);
        while probability(hi) > target {
            hi *= 2.0;
        }
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if probability(mid) > target {
                lo = mid;
            } else {
                hi = mid;
            }
            if hi - lo <= 1e-15 * hi {
                break;
            }
        }
        let domain = DVec3::from_array(edges(0.5 * (lo + hi)));
        let expected_pairs =
            0.5 * n * (n - 1.0) * overlap_probability(&reps, config.size_scale, domain.to_array());

        let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
        let mut centres = Vec::with_capacity(config.objects);
        let mut half_extents = Vec::with_capacity(config.objects);
        let mut velocities = Vec::with_capacity(config.objects);
        for _ in 0..config.objects {
            centres.push(random_point(&mut rng, domain));
            let edges = match config.sizes {
                Sizes::Cubes => DVec3::ONE,
                Sizes::Varying { ratio } => DVec3::splat(rng.random_range(1.0..=ratio)),
                Sizes::Elongated { aspect } => {
                    let mut e = DVec3::ONE;
                    e[rng.random_range(0..3usize)] = aspect;
                    e
                }
            };
            let half = 0.5 * config.size_scale * edges;
            let velocity = match config.motion {
                Motion::Drift { fraction } => {
                    let speed = rng.random_range(0.0..=1.0) * fraction * 2.0 * half.max_element();
                    speed * random_direction(&mut rng)
                }
                Motion::Sparse { fraction, .. } => {
                    fraction * 2.0 * half.max_element() * random_direction(&mut rng)
                }
                Motion::Teleport => DVec3::ZERO,
            };
            half_extents.push(half);
            velocities.push(velocity);
        }
        let movers = match config.motion {
            Motion::Sparse { moving, .. } => {
                // A uniformly random subset of exactly round(moving × N) objects (partial
                // Fisher–Yates), in index order; the others rest.
                let k = ((moving * n).round() as usize).min(config.objects);
                let mut indices: Vec<usize> = (0..config.objects).collect();
                for i in 0..k {
                    let j = rng.random_range(i..config.objects);
                    indices.swap(i, j);
                }
                indices.truncate(k);
                indices.sort_unstable();
                let mut resting = vec![true; config.objects];
                for &i in &indices {
                    resting[i] = false;
                }
                for (v, _) in velocities.iter_mut().zip(&resting).filter(|(_, r)| **r) {
                    *v = DVec3::ZERO;
                }
                Some(indices)
            }
            _ => None,
        };
        let boxes = centres.iter().zip(&half_extents).map(|(c, h)| make_box(*c, *h)).collect();
        Ok(Self {
            config,
            domain,
            expected_pairs,
            centres,
            half_extents,
            velocities,
            movers,
            boxes,
            rng,
            steps: 0,
        })
    }

    /// The parameters.
    pub fn config(&self) -> &WorkloadConfig {
        &self.config
    }

    /// The domain edges `(L_x, L_y, L_z)`.
    pub fn domain(&self) -> DVec3 {
        self.domain
    }

    /// The expected number of overlapping pairs (at every step), from the calibration formula
    /// with the actual (scaled) sizes.
    pub fn expected_pairs(&self) -> f64 {
        self.expected_pairs
    }

    /// The current boxes, one per object, in object order.
    pub fn boxes(&self) -> &[Aabb] {
        &self.boxes
    }

    /// The objects that [`step`](Workload::step) moves, in index order, when only some move
    /// ([`Motion::Sparse`]); `None` when every object moves.
    ///
    /// ```
    /// use collide_benches::broadphase::{Motion, Workload, WorkloadConfig};
    /// let config = WorkloadConfig { motion: Motion::Sparse { moving: 0.05, fraction: 0.02 }, ..WorkloadConfig::thesis(1000) };
    /// let mut w = Workload::new(config).unwrap();
    /// let movers = w.moved().unwrap().to_vec();
    /// assert_eq!(movers.len(), 50);
    /// let before = w.boxes().to_vec();
    /// let after = w.step().to_vec();
    /// for i in 0..1000 {
    ///     let d = (before[i].center() - after[i].center()).length();
    ///     if movers.binary_search(&i).is_ok() {
    ///         assert!((d - 0.02).abs() < 1e-12 || d > 1.0); // 2 % of the unit size, or wrapped
    ///     } else {
    ///         assert_eq!(d, 0.0);
    ///     }
    /// }
    /// ```
    pub fn moved(&self) -> Option<&[usize]> {
        self.movers.as_deref()
    }

    /// Number of [`step`](Workload::step)s taken.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// Moves every object (with wrap-around) and returns the new boxes.
    ///
    /// ```
    /// use collide_benches::broadphase::{Workload, WorkloadConfig};
    /// let mut w = Workload::new(WorkloadConfig::thesis(100)).unwrap();
    /// let before = w.boxes().to_vec();
    /// let after = w.step().to_vec();
    /// let domain = w.domain().max_element();
    /// assert!(before.iter().zip(&after).all(|(a, b)| {
    ///     let d = (a.center() - b.center()).length();
    ///     d <= 0.2 + 1e-12 || d >= domain - 1.0 // at most 20 % of the size, or wrapped around
    /// }));
    /// ```
    pub fn step(&mut self) -> &[Aabb] {
        let domain = self.domain;
        match self.config.motion {
            Motion::Drift { .. } => {
                for (c, v) in self.centres.iter_mut().zip(&self.velocities) {
                    *c = wrap(*c + *v, domain);
                }
            }
            Motion::Teleport => {
                for c in &mut self.centres {
                    *c = random_point(&mut self.rng, domain);
                }
            }
            Motion::Sparse { .. } => {
                for &i in self.movers.as_deref().unwrap_or_default() {
                    self.centres[i] = wrap(self.centres[i] + self.velocities[i], domain);
                    self.boxes[i] = make_box(self.centres[i], self.half_extents[i]);
                }
                self.steps += 1;
                return &self.boxes;
            }
        }
        for ((b, c), h) in self.boxes.iter_mut().zip(&self.centres).zip(&self.half_extents) {
            *b = make_box(*c, *h);
        }
        self.steps += 1;
        &self.boxes
    }
}

fn make_box(centre: DVec3, half: DVec3) -> Aabb {
    Aabb::from_center_half_extents(centre, half).expect("finite centre and non-negative extents")
}

fn random_point(rng: &mut ChaCha8Rng, domain: DVec3) -> DVec3 {
    DVec3::new(
        rng.random_range(0.0..domain.x),
        rng.random_range(0.0..domain.y),
        rng.random_range(0.0..domain.z),
    )
}

/// A uniformly distributed unit vector (Archimedes: `z` uniform in `[-1, 1]`).
pub(crate) fn random_direction(rng: &mut ChaCha8Rng) -> DVec3 {
    let z: f64 = rng.random_range(-1.0..=1.0);
    let phi: f64 = rng.random_range(0.0..TAU);
    let r = (1.0 - z * z).max(0.0).sqrt();
    DVec3::new(r * phi.cos(), r * phi.sin(), z)
}

fn wrap(p: DVec3, domain: DVec3) -> DVec3 {
    let w = |x: f64, l: f64| {
        let y = x.rem_euclid(l);
        if y < l { y } else { 0.0 }
    };
    DVec3::new(w(p.x, domain.x), w(p.y, domain.y), w(p.z, domain.z))
}

#[cfg(test)]
mod tests {
    use super::*;
    use contact_core::{AllPairs, BroadPhase};

    fn mean_pairs(mut w: Workload, steps: usize) -> f64 {
        let mut broad = AllPairs::new();
        let handles: Vec<_> = w.boxes().iter().map(|b| broad.insert(*b).unwrap()).collect();
        let mut pairs = Vec::new();
        let mut total = 0usize;
        for _ in 0..steps {
            for (h, b) in handles.iter().zip(w.step()) {
                broad.update(*h, *b).unwrap();
            }
            broad.find_pairs(&mut pairs);
            total += pairs.len();
        }
        total as f64 / steps as f64
    }

    #[test]
    fn cube_calibration_matches_the_closed_form() {
        for n in [10usize, 100, 10_000] {
            let w = Workload::new(WorkloadConfig::thesis(n)).unwrap();
            let c = (4.0 / (n as f64 - 1.0)).cbrt();
            let closed_form = 1.0 / (1.0 - (1.0 - c).sqrt());
            assert!((w.domain().x / closed_form - 1.0).abs() < 1e-12, "{n}: {} vs {closed_form}", w.domain());
            assert_eq!(w.domain().x, w.domain().z);
        }
    }

    #[test]
    fn measured_overlaps_match_the_calibration() {
        let cases = [
            WorkloadConfig::thesis(2000),
            WorkloadConfig { sizes: Sizes::Varying { ratio: 12.0 }, ..WorkloadConfig::thesis(2000) },
            WorkloadConfig { sizes: Sizes::Elongated { aspect: 10.0 }, ..WorkloadConfig::thesis(2000) },
            WorkloadConfig { domain_aspect: [1024.0, 1.0, 1.0], ..WorkloadConfig::thesis(2000) },
            WorkloadConfig {
                pairs_per_object: 8.0,
                motion: Motion::Teleport,
                ..WorkloadConfig::thesis(2000)
            },
        ];
        for config in cases {
            let w = Workload::new(config).unwrap();
            let expected = w.expected_pairs();
            assert!((expected / (config.pairs_per_object * 2000.0) - 1.0).abs() < 1e-3, "{config:?}");
            let measured = mean_pairs(w, 40);
            // Pairs are far from independent (a big object has many partners), so allow 15 %.
            assert!((measured / expected - 1.0).abs() < 0.15, "{config:?}: {measured} vs {expected}");
        }
    }

    #[test]
    fn motion_is_bounded_and_periodic_and_deterministic() {
        let config = WorkloadConfig { sizes: Sizes::Varying { ratio: 12.0 }, ..WorkloadConfig::thesis(500) };
        let mut a = Workload::new(config).unwrap();
        let mut b = Workload::new(config).unwrap();
        let domain = a.domain();
        for _ in 0..50 {
            let before: Vec<Aabb> = a.boxes().to_vec();
            let after = a.step().to_vec();
            assert_eq!(after, b.step());
            for (x, y) in before.iter().zip(&after) {
                assert!((x.extents() - y.extents()).abs().max_element() <= 1e-9 * x.longest_edge());
                let c = y.center();
                assert!(c.cmpge(DVec3::ZERO).all() && c.cmplt(domain).all());
                let d = y.center() - x.center();
                let d = DVec3::new(
                    d.x.abs().min(domain.x - d.x.abs()),
                    d.y.abs().min(domain.y - d.y.abs()),
                    d.z.abs().min(domain.z - d.z.abs()),
                );
                assert!(d.length() <= 0.2 * x.longest_edge() * (1.0 + 1e-9));
            }
        }
        assert_eq!(a.steps(), 50);
    }

    #[test]
    fn scaled_sizes_have_no_overlaps_and_bad_configs_are_refused() {
        let config = WorkloadConfig {
            size_scale: 1e-5,
            motion: Motion::Drift { fraction: 0.01 },
            ..WorkloadConfig::thesis(1000)
        };
        let w = Workload::new(config).unwrap();
        assert!(w.expected_pairs() < 1e-9);
        assert_eq!(mean_pairs(w, 3), 0.0);
        assert!(matches!(Workload::new(WorkloadConfig::thesis(4)), Err(WorkloadError::Unreachable { .. })));
        assert!(Workload::new(WorkloadConfig::thesis(6)).is_ok());
        assert!(Workload::new(WorkloadConfig { objects: 1, ..WorkloadConfig::thesis(1) }).is_err());
        assert!(Workload::new(WorkloadConfig { size_scale: 0.0, ..WorkloadConfig::thesis(10) }).is_err());
        assert!(
            Workload::new(WorkloadConfig {
                sizes: Sizes::Varying { ratio: 0.5 },
                ..WorkloadConfig::thesis(10)
            })
            .is_err()
        );
    }
}
