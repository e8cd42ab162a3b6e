//! Neighbour lists with a shell: the structure of today's fastest event-driven codes (Donev,
//! Torquato & Stillinger 2005; Smallenburg 2022), beyond the paper.
//!
//! Each particle `i` is confined to a *bounding sphere*: centre `c_i` (its position when its
//! list was last built) and radius `r_i + δ/2`, with `δ` the shell. Two particles can only touch
//! while both are inside their bounding spheres if `|c_i − c_k| <= r_i + r_k + δ`, so those are
//! the neighbours, kept symmetric. The topological event is `i`'s centre reaching distance `δ/2`
//! from `c_i`; `i` then takes a new centre, drops out of its old neighbours' lists and joins the
//! new ones, found through a linked-cell grid of the centres (side ≥ largest diameter + `δ`). A
//! thin shell means few candidates but frequent rebuilds; the default is tuned by the benchmark.
//!
//! Memory layout, which the event rate depends on: every list lives in one flat slab with a
//! fixed capacity per particle (doubled for all when one overflows), so scanning a particle's
//! neighbours reads consecutive memory; the grid keeps each centre wrapped into the box with
//! its radius next to it, so a rebuild reads one small record per nearby particle.
//!
//! Under gravity the exit time is taken from the conservative bound `|d| + |v|τ + ½|g|τ² = δ/2`
//! (rebuilding a little early is always correct).

use super::cells::{CellStore, DenseCells, MAX_CELLS_PER_AXIS, for_each_offset};
use super::{CandidatePair, Cdo, Certificates};
use crate::kinematics::gap_closing_time;
use crate::queue::EventQueue;
use crate::vector::{dot, sub};
use crate::{SimError, State};

/// Neighbour lists over bounding spheres with shell `δ`.
///
/// ```
/// use kinetic_cdo::{NeighbourLists, Particle, SimBox, SimConfig, Simulation};
/// let particles = vec![
///     Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0),
///     Particle::new([4.0, 1.0], [-1.0, 0.0], 0.5, 1.0),
/// ];
/// let sim_box = SimBox::periodic([10.0, 10.0]).unwrap();
/// let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), NeighbourLists::with_shell(0.4)).unwrap();
/// // 3 apart: not yet neighbours (radii 0.5 + 0.5 + shell 0.4 = 1.4).
/// assert_eq!(sim.structure().neighbours(0).count(), 0);
/// let c = sim.next_collision().unwrap();
/// assert!((c.time - 1.0).abs() < 1e-12);
/// assert_eq!(sim.structure().neighbours(0).collect::<Vec<_>>(), [1]);
/// ```
#[derive(Debug, Clone)]
pub struct NeighbourLists<const D: usize> {
    shell: Shell,
    delta: f64,
    /// Per particle: its centre (its position at its last rebuild, in the box) and its reach
    /// `radius_cap + δ/2`.
    spheres: Vec<Sphere<D>>,
    /// The flat neighbour slab: particle `i` owns `capacity` entries from `i · capacity`.
    capacity: usize,
    len: Vec<u32>,
    index: Vec<u32>,
    /// The grid of wrapped centres.
    grid: DenseCells<D>,
    cells: [usize; D],
    side: [f64; D],
    home: Vec<[usize; D]>,
    lengths: [f64; D],
    periodic: [bool; D],
    /// Scratch marks for rebuilds (stamp per particle).
    mark: Vec<u32>,
    stamp: u32,
    /// Scratch list of a rebuild's links.
    links: Vec<u32>,
}

/// A centre wrapped into the box, with the particle's reach.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Sphere<const D: usize> {
    centre: [f64; D],
    reach: f64,
}

/// How the shell thickness is given.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Shell {
    Absolute(f64),
    /// A multiple of the largest diameter.
    Relative(f64),
}

/// The default shell, as a fraction of the largest diameter (tuned in the kinetic benchmark).
///
/// ```
/// use kinetic_cdo::{DEFAULT_RELATIVE_SHELL, NeighbourLists, Particle, SimBox, SimConfig};
/// use kinetic_cdo::Simulation;
/// let particles = vec![
///     Particle::new([2.0, 2.0], [1.0, 0.0], 0.8, 1.0),
///     Particle::new([6.0, 6.0], [0.0, 1.0], 0.4, 1.0),
/// ];
/// let sim_box = SimBox::periodic([10.0, 10.0]).unwrap();
/// let structure = NeighbourLists::default();
/// let sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
/// // The largest diameter is 1.6.
/// assert!((sim.structure().shell() - DEFAULT_RELATIVE_SHELL * 1.6).abs() < 1e-15);
/// ```
pub const DEFAULT_RELATIVE_SHELL: f64 = 0.25;

impl<const D: usize> Default for NeighbourLists<D> {
    fn default() -> Self {
        Self::with_relative_shell(DEFAULT_RELATIVE_SHELL)
    }
}

/// `x = q·L + w` with `w` in `[0, L)`; returns `(w, q·L)` without a libm call.
#[inline]
fn split_periods(x: f64, length: f64) -> (f64, f64) {
    let t = x / length;
    let mut q = t as i64 as f64;
    if q > t {
        q -= 1.0;
    }
    let mut w = x - q * length;
    if w >= length {
        w -= length;
        q += 1.0;
    } else if w < 0.0 {
        w += length;
        q -= 1.0;
    }
    (w, q * length)
}

impl<const D: usize> NeighbourLists<D> {
    fn from_shell(shell: Shell) -> Self {
        Self {
            shell,
            delta: 0.0,
            spheres: Vec::new(),
            capacity: 0,
            len: Vec::new(),
            index: Vec::new(),
            grid: DenseCells::default(),
            cells: [1; D],
            side: [1.0; D],
            home: Vec::new(),
            lengths: [1.0; D],
            periodic: [false; D],
            mark: Vec::new(),
            stamp: 0,
            links: Vec::new(),
        }
    }

    /// Lists with an absolute shell thickness `δ` (at least [`MIN_LENGTH`](crate::MIN_LENGTH),
    /// else [`SimError::InvalidParameter`], and `δ/2` at least `2^-48` of the largest box side
    /// or coordinate, else [`SimError::Unsupported`]; checked at build).
    ///
    /// ```
    /// use kinetic_cdo::{NeighbourLists, Particle, SimBox, SimConfig, SimError, Simulation};
    /// let sim_box = SimBox::periodic([10.0, 10.0]).unwrap();
    /// let particles = vec![Particle::new([2.0, 2.0], [1.0, 0.0], 0.5, 1.0)];
    /// let structure = NeighbourLists::with_shell(0.4);
    /// let config = SimConfig::default();
    /// let sim = Simulation::new(particles.clone(), sim_box, config, structure).unwrap();
    /// assert_eq!(sim.structure().shell(), 0.4);
    /// let none = NeighbourLists::with_shell(0.0);
    /// let refused = Simulation::new(particles, sim_box, config, none);
    /// assert!(matches!(refused, Err(SimError::InvalidParameter { .. })));
    /// ```
    pub fn with_shell(delta: f64) -> Self {
        Self::from_shell(Shell::Absolute(delta))
    }

    /// Lists with `δ = fraction × the largest diameter` (`δ` at least
    /// [`MIN_LENGTH`](crate::MIN_LENGTH); checked at build).
    ///
    /// ```
    /// use kinetic_cdo::{NeighbourLists, Particle, SimBox, SimConfig, Simulation};
    /// let particles = vec![
    ///     Particle::new([2.0, 2.0], [1.0, 0.0], 0.5, 1.0),
    ///     Particle::new([6.0, 6.0], [0.0, 1.0], 0.25, 1.0),
    /// ];
    /// let sim_box = SimBox::periodic([10.0, 10.0]).unwrap();
    /// let structure = NeighbourLists::with_relative_shell(0.5);
    /// let sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
    /// assert_eq!(sim.structure().shell(), 0.5); // half the largest diameter, 1
    /// ```
    pub fn with_relative_shell(fraction: f64) -> Self {
        Self::from_shell(Shell::Relative(fraction))
    }

    /// The shell thickness in use (after build).
    ///
    /// ```
    /// use kinetic_cdo::{NeighbourLists, Particle, SimBox, SimConfig, Simulation};
    /// let particles = vec![Particle::new([2.0, 2.0], [1.0, 0.0], 0.5, 1.0)];
    /// let sim_box = SimBox::walls([10.0, 10.0]).unwrap();
    /// let structure = NeighbourLists::with_relative_shell(0.3);
    /// let sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
    /// assert!((sim.structure().shell() - 0.3).abs() < 1e-15); // 0.3 × the diameter, 1
    /// ```
    pub fn shell(&self) -> f64 {
        self.delta
    }

    /// The neighbours of particle `i`.
    ///
    /// ```
    /// use kinetic_cdo::{NeighbourLists, Particle, SimBox, SimConfig, Simulation};
    /// // Centres 1.2 apart, within 0.5 + 0.5 + the shell 0.4; the third disk is far off.
    /// let particles = vec![
    ///     Particle::new([2.0, 2.0], [0.0, 0.0], 0.5, 1.0),
    ///     Particle::new([3.2, 2.0], [0.0, 0.0], 0.5, 1.0),
    ///     Particle::new([7.0, 7.0], [0.0, 0.0], 0.5, 1.0),
    /// ];
    /// let sim_box = SimBox::walls([10.0, 10.0]).unwrap();
    /// let structure = NeighbourLists::with_shell(0.4);
    /// let sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
    /// let lists = sim.structure();
    /// assert_eq!(lists.neighbours(0).collect::<Vec<_>>(), [1]);
    /// assert_eq!(lists.neighbours(1).collect::<Vec<_>>(), [0]);
    /// assert_eq!(lists.neighbours(2).len(), 0);
    /// ```
    pub fn neighbours(&self, i: usize) -> impl ExactSizeIterator<Item = usize> + '_ {
        let start = i * self.capacity;
        self.index[start..start + self.len[i] as usize].iter().map(|&k| k as usize)
    }

    /// Moves particle `i` into the box along periodic axes (by whole periods, no physical
    /// change) and makes its position now its centre, in the grid.
    fn recentre(&mut self, i: usize, state: &mut State<D>, reach: f64, in_grid: bool) {
        let now = state.now();
        let x = state.position_at(i, now);
        let mut periods = [0.0; D];
        for a in 0..D {
            if self.periodic[a] {
                periods[a] = -split_periods(x[a], self.lengths[a]).1;
            }
        }
        state.shift_by_periods(i, periods);
        let centre = state.position_at(i, now);
        let home: [usize; D] =
            std::array::from_fn(|a| ((centre[a] / self.side[a]).max(0.0) as usize).min(self.cells[a] - 1));
        if !in_grid {
            self.grid.insert(home, i as u32);
        } else if home != self.home[i] {
            self.grid.remove(self.home[i], i as u32);
            self.grid.insert(home, i as u32);
        }
        self.home[i] = home;
        self.spheres[i] = Sphere { centre, reach };
    }

    /// The whole periods that put `x_k` next to `x_i`, for positions within half a shell of
    /// their centres in the box: one comparison per axis, no rounding call.
    #[inline]
    fn image(&self, xi: [f64; D], xk: [f64; D]) -> [f64; D] {
        std::array::from_fn(|a| {
            if self.periodic[a] {
                let d = xk[a] - xi[a];
                let half = 0.5 * self.lengths[a];
                if d > half {
                    -self.lengths[a]
                } else if d < -half {
                    self.lengths[a]
                } else {
                    0.0
                }
            } else {
                0.0
            }
        })
    }

    /// Appends `k` to `i`'s list, growing the slab if `i`'s part is full.
    #[inline]
    fn push(&mut self, i: usize, k: usize) {
        if self.len[i] as usize == self.capacity {
            self.grow();
        }
        let at = i * self.capacity + self.len[i] as usize;
        self.index[at] = k as u32;
        self.len[i] += 1;
    }

    /// Doubles every particle's capacity.
    fn grow(&mut self) {
        let n = self.len.len();
        let old = self.capacity;
        let new = (2 * old).max(8);
        let mut index = vec![0u32; n * new];
        for i in 0..n {
            let l = self.len[i] as usize;
            index[i * new..i * new + l].copy_from_slice(&self.index[i * old..i * old + l]);
        }
        self.index = index;
        self.capacity = new;
    }

    /// Removes `i` from `k`'s list.
    #[inline]
    fn drop_from(&mut self, k: usize, i: usize) {
        let start = k * self.capacity;
        let l = self.len[k] as usize;
        if let Some(p) = self.index[start..start + l].iter().position(|&z| z as usize == i) {
            self.index[start + p] = self.index[start + l - 1];
            self.len[k] -= 1;
        }
    }

    /// Calls `f(k, shift)` for every particle whose bounding sphere overlaps `i`'s (with
    /// `k > i` only if `only_higher`), `shift` putting `k` next to `i`.
    #[inline]
    fn for_each_overlap(&self, i: usize, only_higher: bool, mut f: impl FnMut(usize, [f64; D])) {
        let me = self.spheres[i];
        let home = self.home[i];
        for_each_offset::<D>(None, |offset| {
            let mut target = [0usize; D];
            for a in 0..D {
                let t = home[a] as i64 + offset[a];
                let k = self.cells[a] as i64;
                target[a] = if self.periodic[a] {
                    t.rem_euclid(k) as usize
                } else if t < 0 || t >= k {
                    return;
                } else {
                    t as usize
                };
            }
            self.grid.for_each_member(target, |k| {
                let k = k as usize;
                if k == i || (only_higher && k < i) {
                    return;
                }
                let other = self.spheres[k];
                let shift = self.image(me.centre, other.centre);
                let d: [f64; D] = std::array::from_fn(|a| other.centre[a] + shift[a] - me.centre[a]);
                let reach = me.reach + other.reach;
                if dot(d, d) <= reach * reach {
                    f(k, shift);
                }
            });
        });
    }

    fn schedule_exit<Q: EventQueue>(
        &self,
        i: usize,
        state: &State<D>,
        certificates: &mut Certificates<'_, Q>,
    ) {
        let d = sub(state.stored_position(i), self.spheres[i].centre);
        let v = state.velocity(i);
        let g = state.gravity();
        let half = 0.5 * self.delta;
        let tau = if g.iter().all(|&c| c == 0.0) {
            // |d + vτ|² = (δ/2)²: the positive root of Aτ² + 2Bτ + C with C <= 0.
            let exit = |d: [f64; D], v: [f64; D], half: f64, _: f64| {
                let a = dot(v, v);
                let b = dot(d, v);
                let c = dot(d, d) - half * half;
                if c >= 0.0 {
                    0.0
                } else if a == 0.0 {
                    f64::INFINITY
                } else {
                    let sq = (b * b - a * c).sqrt();
                    if b <= 0.0 { (-b + sq) / a } else { -c / (b + sq) }
                }
            };
            if crate::kinematics::needs_unit_scale(d, v, half, 0.0) {
                crate::kinematics::at_unit_scale(d, v, half, 0.0, exit)
            } else {
                exit(d, v, half, 0.0)
            }
        } else {
            let speed = dot(v, v).sqrt();
            let accel = dot(g, g).sqrt();
            gap_closing_time(half - dot(d, d).sqrt(), -speed, -accel)
        };
        certificates.schedule(i, certificates.now() + tau);
    }
}

impl<const D: usize> Cdo<D> for NeighbourLists<D> {
    fn name(&self) -> &'static str {
        "neighbour lists"
    }

    fn build<Q: EventQueue>(
        &mut self,
        state: &mut State<D>,
        certificates: &mut Certificates<'_, Q>,
    ) -> Result<(), SimError> {
        let n = state.len();
        let diameter = 2.0 * state.max_radius_cap();
        self.delta = match self.shell {
            Shell::Absolute(d) => d,
            Shell::Relative(f) => f * diameter,
        };
        if !(self.delta.is_finite() && self.delta >= crate::engine::MIN_LENGTH) {
            return Err(SimError::InvalidParameter {
                name: "shell",
                value: self.delta,
                reason: "must be finite and >= 1e-100 (its square must not underflow)",
            });
        }
        if 0.5 * self.delta < super::coordinate_scale(state) * super::RESOLUTION {
            return Err(SimError::Unsupported {
                what: "neighbour lists with half a shell below 2^-48 of the box side or coordinates: \
                       a particle's motion out of its shell would be lost in rounding (give a \
                       thicker shell with NeighbourLists::with_shell)",
            });
        }
        self.lengths = state.sim_box().lengths();
        self.periodic = state.sim_box().periodic_axes();
        let reach = diameter + self.delta;
        for a in 0..D {
            let k = (self.lengths[a] / reach).floor().clamp(1.0, MAX_CELLS_PER_AXIS) as usize;
            if self.periodic[a] && k < 3 {
                return Err(SimError::BoxTooSmall {
                    axis: a,
                    length: self.lengths[a],
                    required: 3.0 * reach,
                });
            }
            self.cells[a] = k;
        }
        // Keep the grid near n cells (enlarging cells is always correct).
        let limit = 2 * n.max(8);
        while self.cells.iter().fold(1usize, |a, &b| a.saturating_mul(b)) > limit {
            let a = (0..D).max_by_key(|&a| self.cells[a]).unwrap();
            if self.cells[a] <= 3 {
                break;
            }
            self.cells[a] = (self.cells[a] / 2).max(3);
        }
        for a in 0..D {
            self.side[a] = self.lengths[a] / self.cells[a] as f64;
        }
        self.grid.reset(self.cells, n);
        self.spheres = vec![Sphere { centre: [0.0; D], reach: 0.0 }; n];
        self.home = vec![[0; D]; n];
        for i in 0..n {
            let reach = state.radius_cap(i) + 0.5 * self.delta;
            self.recentre(i, state, reach, false);
        }
        self.capacity = 8;
        self.len = vec![0; n];
        self.index = vec![0; n * self.capacity];
        let mut pairs = Vec::new();
        for i in 0..n {
            self.for_each_overlap(i, true, |k, _| pairs.push((i, k)));
        }
        for (i, k) in pairs {
            self.push(i, k);
            self.push(k, i);
        }
        self.mark = vec![0; n];
        self.stamp = 0;
        for i in 0..n {
            self.schedule_exit(i, state, certificates);
        }
        Ok(())
    }

    fn certificate_slots(&self, particles: usize) -> usize {
        particles
    }

    #[inline]
    fn for_each_candidate(&self, i: usize, _: &State<D>, mut f: impl FnMut(usize, [f64; D])) {
        // Images from the centres: a particle's stored position can be far from where it is
        // now (it is stored at its last collision), its centre is within δ/2.
        let start = i * self.capacity;
        let ci = self.spheres[i].centre;
        for &k in &self.index[start..start + self.len[i] as usize] {
            let k = k as usize;
            f(k, self.image(ci, self.spheres[k].centre));
        }
    }

    fn candidate_count(&self, i: usize, _: &State<D>) -> usize {
        self.len[i] as usize
    }

    fn trajectory_changed<Q: EventQueue>(
        &mut self,
        i: usize,
        state: &State<D>,
        certificates: &mut Certificates<'_, Q>,
    ) {
        self.schedule_exit(i, state, certificates);
    }

    fn certificate_failed<Q: EventQueue>(
        &mut self,
        i: usize,
        state: &mut State<D>,
        certificates: &mut Certificates<'_, Q>,
        new_pairs: &mut Vec<CandidatePair<D>>,
    ) -> Option<usize> {
        // Detach from the old neighbours, remembering them.
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.mark.fill(0);
            self.stamp = 1;
        }
        let start = i * self.capacity;
        for p in 0..self.len[i] as usize {
            let k = self.index[start + p] as usize;
            self.mark[k] = self.stamp;
            self.drop_from(k, i);
        }
        self.len[i] = 0;
        // Re-centre, then link with every overlapping bounding sphere.
        let reach = self.spheres[i].reach;
        self.recentre(i, state, reach, true);
        let before = new_pairs.len();
        let mut found = std::mem::take(&mut self.mark);
        let stamp = self.stamp;
        let mut links = std::mem::take(&mut self.links);
        self.for_each_overlap(i, false, |k, shift| {
            links.push(k as u32);
            if found[k] != stamp {
                new_pairs.push((i as u32, k as u32, shift));
            }
            found[k] = stamp;
        });
        self.mark = found;
        for &k in &links {
            self.push(i, k as usize);
            self.push(k as usize, i);
        }
        links.clear();
        self.links = links;
        self.schedule_exit(i, state, certificates);
        Some(new_pairs.len() - before)
    }

    fn memory_bytes(&self) -> usize {
        self.spheres.capacity() * size_of::<Sphere<D>>()
            + self.home.capacity() * size_of::<[usize; D]>()
            + (self.len.capacity() + self.index.capacity() + self.mark.capacity()) * 4
            + self.grid.memory_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::split_periods;

    #[test]
    fn periods_split_exactly() {
        for (x, w, p) in
            [(2.5, 0.5, 2.0), (-0.5, 1.5, -2.0), (-4.0, 0.0, -4.0), (0.0, 0.0, 0.0), (1.999, 1.999, 0.0)]
        {
            let (a, b) = split_periods(x, 2.0);
            assert!((a - w).abs() < 1e-15 && b == p, "{x}: {a} {b}");
        }
        let (w, _) = split_periods(-1e-17, 2.0);
        assert!((0.0..2.0).contains(&w));
    }
}
