//! The thesis's workload (Schornbaum 2009, §4) for any number of ranks: random cuboids at a
//! density giving a chosen number of overlapping pairs per object, each moving by at most a
//! fraction of its size per step. Pure functions: each rank generates the objects of its own
//! subdomain from its own random stream, and moves the objects it owns.
//!
//! * Edges: independent per axis, uniform in `[edge_min, edge_max]` (`[1, 1]`: the thesis's unit
//!   cubes). The object's size is its longest edge.
//! * Density: two boxes overlap iff their centres are within `(e_i + e_j)/2` on every axis, so an
//!   object has on average `ρ · Π_k E[e_ik + e_jk] = ρ (2ē)³` partners (`ē` the mean edge; uniform
//!   centres, periodic box). `pairs_per_object = p` means `2p` partners per object:
//!   `ρ = 2p / (2ē)³` (thesis: `p = 2`, "twice as many pairs as objects").
//! * Motion: a constant velocity, uniformly random direction, speed uniform in
//!   `[0, motion_fraction · size]` per step (thesis: 20 %); objects reflect off bounded walls.

use geometry_core::{Aabb, DVec3};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::f64::consts::TAU;

/// The payload of a workload object: velocity (3 words) and half extents (3 words).
///
/// ```
/// let m: hhgrid_mpi::workload::Motion = [0.1, 0.0, 0.0, 0.5, 0.5, 0.5];
/// assert_eq!(m[3..], [0.5; 3]);
/// ```
pub type Motion = [f64; 6];

/// Parameters of the workload.
///
/// ```
/// use hhgrid_mpi::workload::Workload;
/// let w = Workload::thesis();
/// // Unit cubes, two pairs per object: ρ = 4 / 2³ = 0.5 objects per unit volume.
/// assert_eq!(w.density(), 0.5);
/// assert!((w.edge_for(500.0) - 10.0).abs() < 1e-12);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Workload {
    /// Smallest edge.
    pub edge_min: f64,
    /// Largest edge.
    pub edge_max: f64,
    /// Mean overlapping pairs per object (thesis: 2).
    pub pairs_per_object: f64,
    /// Bound of the per-step displacement relative to the object's size (thesis: 0.2).
    pub motion_fraction: f64,
    /// Seed; each rank mixes in its own stream number.
    pub seed: u64,
}

impl Workload {
    /// Unit cubes, two pairs per object, 20 % motion.
    ///
    /// ```
    /// use hhgrid_mpi::workload::Workload;
    /// let w = Workload::thesis();
    /// assert_eq!((w.edge_min, w.edge_max, w.pairs_per_object, w.motion_fraction), (1.0, 1.0, 2.0, 0.2));
    /// ```
    pub fn thesis() -> Self {
        Self { edge_min: 1.0, edge_max: 1.0, pairs_per_object: 2.0, motion_fraction: 0.2, seed: 0x5c40_2009 }
    }

    /// Objects per unit volume.
    ///
    /// ```
    /// use hhgrid_mpi::workload::Workload;
    /// // Mean edge 2: 4 partners per object need ρ · (2 · 2)³ = 4.
    /// let w = Workload { edge_min: 1.0, edge_max: 3.0, ..Workload::thesis() };
    /// assert_eq!(w.density(), 4.0 / 64.0);
    /// ```
    pub fn density(&self) -> f64 {
        let mean = 0.5 * (self.edge_min + self.edge_max);
        2.0 * self.pairs_per_object / (2.0 * mean).powi(3)
    }

    /// The edge of a cube holding `objects` objects at the workload's density.
    ///
    /// ```
    /// use hhgrid_mpi::workload::Workload;
    /// assert!((Workload::thesis().edge_for(4000.0) - 20.0).abs() < 1e-12);
    /// ```
    pub fn edge_for(&self, objects: f64) -> f64 {
        (objects / self.density()).cbrt()
    }

    /// `count` objects with centres uniform in `region`, kept inside `domain` on its bounded
    /// axes, from random stream `stream` (e.g. the rank).
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid_mpi::Domain;
    /// use hhgrid_mpi::workload::Workload;
    /// let w = Workload { edge_max: 3.0, ..Workload::thesis() };
    /// let domain = Domain::new(DVec3::ZERO, DVec3::splat(30.0), [false; 3]).unwrap();
    /// let region = Aabb::new(DVec3::ZERO, DVec3::splat(15.0)).unwrap();
    /// let objects = w.generate(&domain, region, 100, 0);
    /// assert_eq!(objects.len(), 100);
    /// assert!(objects.iter().all(|(b, _)| b.min.min_element() >= 0.0 && b.longest_edge() <= 3.0));
    /// ```
    pub fn generate(
        &self,
        domain: &crate::Domain,
        region: Aabb,
        count: usize,
        stream: u64,
    ) -> Vec<(Aabb, Motion)> {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        rng.set_stream(stream);
        (0..count)
            .map(|_| {
                let unit = DVec3::new(rng.random(), rng.random(), rng.random());
                let mut centre = region.min + (region.max - region.min) * unit;
                let edges = DVec3::new(self.edge(&mut rng), self.edge(&mut rng), self.edge(&mut rng));
                let half = 0.5 * edges;
                for axis in 0..3 {
                    if !domain.periodic[axis] {
                        centre[axis] =
                            centre[axis].clamp(domain.min[axis] + half[axis], domain.max[axis] - half[axis]);
                    }
                }
                let speed = rng.random_range(0.0..=1.0) * self.motion_fraction * edges.max_element();
                let v = speed * random_direction(&mut rng);
                (place(domain, centre, half), [v.x, v.y, v.z, half.x, half.y, half.z])
            })
            .collect()
    }

    fn edge(&self, rng: &mut ChaCha8Rng) -> f64 {
        if self.edge_max > self.edge_min {
            rng.random_range(self.edge_min..=self.edge_max)
        } else {
            self.edge_min
        }
    }
}

/// Moves an object by its velocity, reflecting it off the walls of bounded axes (the box stays
/// inside). Periodic axes are left to the grid, which wraps objects back into the box.
///
/// ```
/// use geometry_core::{Aabb, DVec3};
/// use hhgrid_mpi::Domain;
/// use hhgrid_mpi::workload::advance;
/// let domain = Domain::new(DVec3::ZERO, DVec3::splat(10.0), [false; 3]).unwrap();
/// let mut b = Aabb::new(DVec3::new(8.5, 1.0, 1.0), DVec3::new(9.5, 2.0, 2.0)).unwrap();
/// let mut m = [1.0, 0.0, 0.0, 0.5, 0.5, 0.5];
/// advance(&domain, &mut b, &mut m);
/// assert_eq!((b.max.x, m[0]), (9.5, -1.0)); // bounced at x = 10
/// ```
pub fn advance(domain: &crate::Domain, aabb: &mut Aabb, motion: &mut Motion) {
    let half = DVec3::new(motion[3], motion[4], motion[5]);
    let mut centre = aabb.center() + DVec3::new(motion[0], motion[1], motion[2]);
    for axis in 0..3 {
        if domain.periodic[axis] {
            continue;
        }
        let (lo, hi) = (domain.min[axis] + half[axis], domain.max[axis] - half[axis]);
        if centre[axis] < lo {
            centre[axis] = 2.0 * lo - centre[axis];
            motion[axis] = -motion[axis];
        } else if centre[axis] > hi {
            centre[axis] = 2.0 * hi - centre[axis];
            motion[axis] = -motion[axis];
        }
    }
    *aabb = place(domain, centre, half);
}

/// The box around `centre`, nudged by rounding errors back inside bounded walls.
fn place(domain: &crate::Domain, centre: DVec3, half: DVec3) -> Aabb {
    let (mut min, mut max) = (centre - half, centre + half);
    for axis in 0..3 {
        if domain.periodic[axis] {
            continue;
        }
        if min[axis] < domain.min[axis] {
            min[axis] = domain.min[axis];
            max[axis] = domain.min[axis] + 2.0 * half[axis];
        }
        if max[axis] > domain.max[axis] {
            max[axis] = domain.max[axis];
            min[axis] = domain.max[axis] - 2.0 * half[axis];
        }
    }
    Aabb { min, max }
}

/// A uniformly distributed unit vector (Archimedes: `z` uniform in `[-1, 1]`).
fn random_direction(rng: &mut ChaCha8Rng) -> DVec3 {
    let z: f64 = rng.random_range(-1.0..=1.0);
    let phi: f64 = rng.random_range(0.0..TAU);
    let r = (1.0 - z * z).max(0.0).sqrt();
    DVec3::new(r * phi.cos(), r * phi.sin(), z)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Domain;

    #[test]
    fn density_gives_the_requested_pairs_per_object() {
        // Periodic box, counted by minimum image with brute force.
        for (lo, hi) in [(1.0, 1.0), (1.0, 3.0)] {
            let w = Workload { edge_min: lo, edge_max: hi, ..Workload::thesis() };
            let n = 3000;
            let edge = w.edge_for(n as f64);
            let domain = Domain::new(DVec3::ZERO, DVec3::splat(edge), [true; 3]).unwrap();
            let region = Aabb::new(DVec3::ZERO, DVec3::splat(edge)).unwrap();
            let mut total = 0usize;
            for stream in 0..4 {
                let objects = w.generate(&domain, region, n, stream);
                for (i, (a, _)) in objects.iter().enumerate() {
                    for (b, _) in &objects[i + 1..] {
                        let d = a.center() - b.center();
                        let d = (d - (d / edge).round() * edge).abs();
                        let reach = 0.5 * (a.extents() + b.extents());
                        total += usize::from(d.cmple(reach).all());
                    }
                }
            }
            let per_object = total as f64 / (4 * n) as f64;
            assert!((per_object / 2.0 - 1.0).abs() < 0.08, "{lo}..{hi}: {per_object}");
        }
    }

    #[test]
    fn motion_is_bounded_and_stays_inside_walls() {
        let w = Workload { edge_max: 4.0, ..Workload::thesis() };
        let domain = Domain::new(DVec3::ZERO, DVec3::splat(20.0), [false, true, false]).unwrap();
        let region = Aabb::new(DVec3::ZERO, DVec3::splat(20.0)).unwrap();
        let mut objects = w.generate(&domain, region, 500, 7);
        for _ in 0..100 {
            for (b, m) in &mut objects {
                let (before, size) = (b.center(), b.longest_edge());
                advance(&domain, b, m);
                assert!((b.longest_edge() - size).abs() < 1e-9);
                assert!((b.center() - before).length() <= 0.2 * size * (1.0 + 1e-9));
                for axis in [0, 2] {
                    assert!(b.min[axis] >= 0.0 && b.max[axis] <= 20.0);
                }
            }
        }
    }
}
