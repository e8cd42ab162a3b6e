//! The set of segment trees (§3.4): kinetic sweep and prune.
//!
//! Each particle's bounding box projects to a segment on every axis. The segment endpoints are
//! kept sorted per axis, and the order changes only when two adjacent endpoints meet: the
//! topological event, certified per endpoint against its right neighbour. Particles are
//! neighbours (candidates) while their boxes overlap; an overlap can only begin or end at a swap,
//! and whether two boxes overlap is read off the endpoint *ranks*, so the neighbour sets stay
//! exactly consistent with the sorted orders whatever the rounding of the coordinates.
//!
//! The paper stores each axis in an AVL tree and swaps references to endpoints without
//! rebalancing; the tree is never searched by value after construction, so a plain array with
//! a rank per endpoint gives the same operations (swap adjacent, find neighbours) in `O(1)`.
//!
//! Periodic axes are handled as circles: the order is cyclic, the last endpoint's right
//! neighbour is the first one, a segment may wrap (its lower endpoint ranks after its upper), and
//! gaps are measured modulo the period.

use super::{CandidatePair, Cdo, Certificates};
use crate::queue::EventQueue;
use crate::{SimError, State};

/// Kinetic sorted endpoint lists per axis, with overlapping-box neighbour lists.
///
/// The segments must be resolvable in `f64`: building (also after a compression) fails with
/// [`SimError::Unsupported`] when a radius is below `2^-48` (about `3.6e-15`) of the largest box
/// side or coordinate; use another structure for such particles.
///
/// ```
/// use kinetic_cdo::{Particle, SegmentTrees, SimBox, SimConfig, Simulation};
/// let particles = vec![
///     Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0),
///     Particle::new([4.0, 1.0], [-1.0, 0.0], 0.5, 1.0),
/// ];
/// let mut sim = Simulation::new(particles, SimBox::walls([10.0, 10.0]).unwrap(), SimConfig::default(), SegmentTrees::new()).unwrap();
/// let c = sim.next_collision().unwrap();
/// assert!((c.time - 1.0).abs() < 1e-12);
/// // Their boxes started to overlap on x at t = 0.5: one swap before the collision.
/// assert_eq!(sim.counters().topological_events, 1);
/// ```
#[derive(Debug, Clone)]
pub struct SegmentTrees<const D: usize> {
    /// Per axis: endpoint ids (`2i` lower, `2i + 1` upper) in sorted order.
    order: Vec<Vec<u32>>,
    /// Per axis: the position of each endpoint in `order`.
    rank: Vec<Vec<u32>>,
    neighbours: Vec<Vec<u32>>,
    lengths: [f64; D],
    periodic: [bool; D],
}

impl<const D: usize> Default for SegmentTrees<D> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const D: usize> SegmentTrees<D> {
    /// An empty structure; [`Cdo::build`] fills it.
    ///
    /// ```
    /// use kinetic_cdo::{Cdo, Particle, SegmentTrees, SimBox, SimConfig, Simulation};
    /// let structure = SegmentTrees::<2>::new();
    /// assert_eq!(structure.name(), "segment trees");
    /// let particles = vec![
    ///     Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0),
    ///     Particle::new([1.8, 1.7], [0.0, 0.0], 0.5, 1.0),
    /// ];
    /// let sim_box = SimBox::walls([10.0, 10.0]).unwrap();
    /// let sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
    /// assert_eq!(sim.structure().neighbours(0), [1]); // filled at build
    /// ```
    pub fn new() -> Self {
        Self {
            order: Vec::new(),
            rank: Vec::new(),
            neighbours: Vec::new(),
            lengths: [1.0; D],
            periodic: [false; D],
        }
    }

    /// The neighbours (overlapping boxes) of particle `i`.
    ///
    /// ```
    /// use kinetic_cdo::{Particle, SegmentTrees, SimBox, SimConfig, Simulation};
    /// // The boxes of 0 and 1 overlap on both axes ([0.5, 1.5] and [1.3, 2.3] on x, [0.5, 1.5]
    /// // and [1.2, 2.2] on y) although the disks do not touch; 2 is far off.
    /// let particles = vec![
    ///     Particle::new([1.0, 1.0], [0.0, 0.0], 0.5, 1.0),
    ///     Particle::new([1.8, 1.7], [0.0, 0.0], 0.5, 1.0),
    ///     Particle::new([5.0, 5.0], [0.0, 0.0], 0.5, 1.0),
    /// ];
    /// let sim_box = SimBox::walls([10.0, 10.0]).unwrap();
    /// let structure = SegmentTrees::new();
    /// let sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
    /// assert_eq!(sim.structure().neighbours(0), [1]);
    /// assert_eq!(sim.structure().neighbours(1), [0]);
    /// assert!(sim.structure().neighbours(2).is_empty());
    /// ```
    pub fn neighbours(&self, i: usize) -> &[u32] {
        &self.neighbours[i]
    }

    /// Endpoint `e`'s coordinate and velocity along axis `a` now.
    #[inline]
    fn endpoint(state: &State<D>, a: usize, e: u32) -> (f64, f64) {
        let i = (e / 2) as usize;
        let sign = if e % 2 == 1 { 1.0 } else { -1.0 };
        let x = state.stored_position(i)[a] + sign * state.radius(i);
        let v = state.velocity(i)[a] + sign * state.radius_rate(i);
        (x, v)
    }

    /// Whether the segments of `i` and `k` overlap on axis `a`, by ranks.
    #[inline]
    fn overlap_on(&self, a: usize, i: usize, k: usize) -> bool {
        let rank = &self.rank[a];
        let (lo_i, hi_i) = (rank[2 * i], rank[2 * i + 1]);
        let (lo_k, hi_k) = (rank[2 * k], rank[2 * k + 1]);
        let inside = |p: u32, lo: u32, hi: u32| if lo < hi { lo < p && p < hi } else { p > lo || p < hi };
        inside(lo_k, lo_i, hi_i) || inside(lo_i, lo_k, hi_k)
    }

    fn boxes_overlap(&self, i: usize, k: usize) -> bool {
        (0..D).all(|a| self.overlap_on(a, i, k))
    }

    /// Reschedules the certificate of the endpoint at position `p` of axis `a` (against its
    /// right neighbour).
    fn schedule_at<Q: EventQueue>(
        &self,
        a: usize,
        p: usize,
        state: &State<D>,
        certificates: &mut Certificates<'_, Q>,
    ) {
        let m = self.order[a].len();
        let e = self.order[a][p];
        let slot = a * m + e as usize;
        let next = if p + 1 < m {
            p + 1
        } else if self.periodic[a] && m > 2 {
            0
        } else {
            certificates.cancel(slot);
            return;
        };
        let f = self.order[a][next];
        if e / 2 == f / 2 {
            // A particle's own endpoints never swap.
            certificates.cancel(slot);
            return;
        }
        let (x_e, v_e) = Self::endpoint(state, a, e);
        let (x_f, v_f) = Self::endpoint(state, a, f);
        let mut gap = x_f - x_e;
        if self.periodic[a] {
            let length = self.lengths[a];
            gap = gap.rem_euclid(length);
            // A gap a hair below zero (rounding just after a swap) wraps to almost a period.
            if gap > length * (1.0 - 1e-9) {
                gap -= length;
            }
        }
        let rate = v_f - v_e;
        let tau = if rate < 0.0 { gap.max(0.0) / -rate } else { f64::INFINITY };
        certificates.schedule(slot, certificates.now() + tau);
    }

    fn position_before(&self, a: usize, p: usize) -> Option<usize> {
        if p > 0 {
            Some(p - 1)
        } else if self.periodic[a] && self.order[a].len() > 2 {
            Some(self.order[a].len() - 1)
        } else {
            None
        }
    }

    fn link(&mut self, i: usize, k: usize) {
        self.neighbours[i].push(k as u32);
        self.neighbours[k].push(i as u32);
    }

    fn unlink(&mut self, i: usize, k: usize) {
        for (x, y) in [(i, k), (k, i)] {
            let list = &mut self.neighbours[x];
            if let Some(p) = list.iter().position(|&z| z as usize == y) {
                list.swap_remove(p);
            }
        }
    }
}

impl<const D: usize> Cdo<D> for SegmentTrees<D> {
    fn name(&self) -> &'static str {
        "segment trees"
    }

    fn build<Q: EventQueue>(
        &mut self,
        state: &mut State<D>,
        certificates: &mut Certificates<'_, Q>,
    ) -> Result<(), SimError> {
        let n = state.len();
        // Radii only grow (compression), so the smallest one now is the smallest of the run.
        let r_min = (0..n).map(|i| state.radius(i)).fold(f64::INFINITY, f64::min);
        if r_min < super::coordinate_scale(state) * super::RESOLUTION {
            return Err(SimError::Unsupported {
                what: "segment trees with a radius below 2^-48 of the box side or coordinates: the \
                       segment endpoints x - r and x + r would coincide in rounding and collisions \
                       be missed",
            });
        }
        self.lengths = state.sim_box().lengths();
        self.periodic = state.sim_box().periodic_axes();
        self.order.clear();
        self.rank.clear();
        for a in 0..D {
            let mut keyed: Vec<(f64, u32)> = (0..2 * n as u32)
                .map(|e| {
                    let x = Self::endpoint(state, a, e).0;
                    let x = if self.periodic[a] { x.rem_euclid(self.lengths[a]) } else { x };
                    (x, e)
                })
                .collect();
            keyed.sort_unstable_by(|p, q| p.0.total_cmp(&q.0).then(p.1.cmp(&q.1)));
            let order: Vec<u32> = keyed.iter().map(|&(_, e)| e).collect();
            let mut rank = vec![0u32; 2 * n];
            for (p, &e) in order.iter().enumerate() {
                rank[e as usize] = p as u32;
            }
            self.order.push(order);
            self.rank.push(rank);
        }
        self.neighbours = vec![Vec::new(); n];
        // Boxes can only overlap if centres are within two of the largest radii per axis.
        let points: Vec<[f64; D]> = (0..n).map(|i| state.stored_position(i)).collect();
        let reach = 2.0 * state.max_radius_cap();
        let mut pairs = Vec::new();
        crate::pairs::for_each_close_pair(&points, state.sim_box(), reach, |i, k, _| pairs.push((i, k)));
        for (i, k) in pairs {
            if self.boxes_overlap(i, k) {
                self.link(i, k);
            }
        }
        for a in 0..D {
            for p in 0..2 * n {
                self.schedule_at(a, p, state, certificates);
            }
        }
        Ok(())
    }

    fn certificate_slots(&self, particles: usize) -> usize {
        2 * D * particles
    }

    #[inline]
    fn for_each_candidate(&self, i: usize, state: &State<D>, mut f: impl FnMut(usize, [f64; D])) {
        let xi = state.stored_position(i);
        for &k in &self.neighbours[i] {
            let k = k as usize;
            let d = crate::vector::sub(state.stored_position(k), xi);
            f(k, state.sim_box().nearest_image_shift(d));
        }
    }

    fn trajectory_changed<Q: EventQueue>(
        &mut self,
        i: usize,
        state: &State<D>,
        certificates: &mut Certificates<'_, Q>,
    ) {
        for a in 0..D {
            for e in [2 * i, 2 * i + 1] {
                let p = self.rank[a][e] as usize;
                self.schedule_at(a, p, state, certificates);
                if let Some(q) = self.position_before(a, p) {
                    self.schedule_at(a, q, state, certificates);
                }
            }
        }
    }

    fn certificate_failed<Q: EventQueue>(
        &mut self,
        slot: usize,
        state: &mut State<D>,
        certificates: &mut Certificates<'_, Q>,
        new_pairs: &mut Vec<CandidatePair<D>>,
    ) -> Option<usize> {
        let m = self.order[0].len();
        let a = slot / m;
        let e = (slot % m) as u32;
        let p = self.rank[a][e as usize] as usize;
        let q = if p + 1 < m { p + 1 } else { 0 };
        let f = self.order[a][q];
        let (i, k) = ((e / 2) as usize, (f / 2) as usize);
        let before = self.boxes_overlap(i, k);
        self.order[a].swap(p, q);
        self.rank[a][e as usize] = q as u32;
        self.rank[a][f as usize] = p as u32;
        let after = self.boxes_overlap(i, k);
        let mut created = 0;
        if after && !before {
            self.link(i, k);
            let shift = state
                .sim_box()
                .nearest_image(crate::vector::sub(state.stored_position(k), state.stored_position(i)));
            let d = crate::vector::sub(state.stored_position(k), state.stored_position(i));
            new_pairs.push((i as u32, k as u32, std::array::from_fn(|c| shift[c] - d[c])));
            created = 1;
        } else if before && !after {
            self.unlink(i, k);
        }
        // f now sits at p and e at q: reschedule the endpoint before p, f and e.
        if let Some(r) = self.position_before(a, p) {
            self.schedule_at(a, r, state, certificates);
        }
        self.schedule_at(a, p, state, certificates);
        self.schedule_at(a, q, state, certificates);
        Some(created)
    }

    fn memory_bytes(&self) -> usize {
        let lists: usize = self.order.iter().chain(&self.rank).map(|v| v.capacity() * 4).sum();
        lists + self.neighbours.iter().map(|v| v.capacity() * 4 + size_of::<Vec<u32>>()).sum::<usize>()
    }
}
