//! The physical state: particles on ballistic trajectories in a box, each stored at its own
//! last-update time so an event touches only the particles it involves.

use crate::SimError;
use crate::vector::{add_scaled, sub};

/// A hard disk (`D = 2`) or sphere (`D = 3`) as the user hands it to a simulation.
///
/// ```
/// use kinetic_cdo::Particle;
/// let p = Particle::new([0.5, 0.5], [1.0, 0.0], 0.1, 1.0);
/// assert_eq!(p.radius, 0.1);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Particle<const D: usize> {
    /// Centre.
    pub position: [f64; D],
    /// Velocity.
    pub velocity: [f64; D],
    /// Radius (> 0).
    pub radius: f64,
    /// Mass (> 0).
    pub mass: f64,
}

impl<const D: usize> Particle<D> {
    /// A particle from its centre, velocity, radius and mass (checked when a simulation is built).
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, SimError, Simulation};
    /// let p = Particle::new([1.0, 2.0, 3.0], [0.0, -1.0, 0.0], 0.5, 2.0);
    /// assert_eq!((p.position, p.velocity), ([1.0, 2.0, 3.0], [0.0, -1.0, 0.0]));
    /// assert_eq!((p.radius, p.mass), (0.5, 2.0));
    /// // Not checked here: the simulation refuses the negative mass.
    /// let bad = Particle::new([1.0, 1.0], [0.0, 0.0], 0.5, -1.0);
    /// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
    /// let sim = Simulation::new(vec![bad], sim_box, SimConfig::default(), BruteForce::default());
    /// assert!(matches!(sim, Err(SimError::InvalidMass { index: 0, .. })));
    /// ```
    pub fn new(position: [f64; D], velocity: [f64; D], radius: f64, mass: f64) -> Self {
        Self { position, velocity, radius, mass }
    }
}

/// The simulation box `[0, L₀) × … × [0, L_{D−1})`, each axis either periodic or bounded by
/// two reflecting walls.
///
/// ```
/// use kinetic_cdo::SimBox;
/// let b = SimBox::new([10.0, 5.0], [true, false]).unwrap();
/// assert_eq!(b.volume(), 50.0);
/// assert!(SimBox::<2>::periodic([0.0, 1.0]).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimBox<const D: usize> {
    lengths: [f64; D],
    periodic: [bool; D],
}

impl<const D: usize> SimBox<D> {
    /// A box with the given side lengths; `periodic[a]` makes axis `a` periodic, otherwise it is
    /// bounded by reflecting walls at `0` and `L_a`.
    ///
    /// ```
    /// use kinetic_cdo::{MAX_MAGNITUDE, SimBox, SimError};
    /// let b = SimBox::new([4.0, 3.0], [true, false]).unwrap();
    /// assert_eq!((b.lengths(), b.periodic_axes()), ([4.0, 3.0], [true, false]));
    /// let zero = SimBox::new([4.0, 0.0], [true, false]);
    /// assert_eq!(zero, Err(SimError::InvalidBox { axis: 1, length: 0.0 }));
    /// assert!(SimBox::new([f64::NAN, 1.0], [true, true]).is_err());
    /// assert!(SimBox::new([2.0 * MAX_MAGNITUDE, 1.0], [true, true]).is_err());
    /// ```
    ///
    /// # Errors
    /// [`SimError::InvalidBox`] if a side is not finite and positive, or larger than
    /// [`MAX_MAGNITUDE`](crate::MAX_MAGNITUDE).
    pub fn new(lengths: [f64; D], periodic: [bool; D]) -> Result<Self, SimError> {
        for (axis, &length) in lengths.iter().enumerate() {
            if !(length.is_finite() && length > 0.0 && length <= crate::engine::MAX_MAGNITUDE) {
                return Err(SimError::InvalidBox { axis, length });
            }
        }
        Ok(Self { lengths, periodic })
    }

    /// A fully periodic box.
    ///
    /// ```
    /// use kinetic_cdo::SimBox;
    /// let b = SimBox::periodic([2.0, 3.0, 4.0]).unwrap();
    /// assert_eq!(b.periodic_axes(), [true, true, true]);
    /// assert!(SimBox::periodic([2.0, -3.0, 4.0]).is_err());
    /// ```
    ///
    /// # Errors
    /// As [`SimBox::new`].
    pub fn periodic(lengths: [f64; D]) -> Result<Self, SimError> {
        Self::new(lengths, [true; D])
    }

    /// A box with reflecting walls on every side.
    ///
    /// ```
    /// use kinetic_cdo::SimBox;
    /// let b = SimBox::walls([2.0, 3.0]).unwrap();
    /// assert_eq!(b.periodic_axes(), [false, false]);
    /// assert_eq!(b.wrap([5.0, -1.0]), [5.0, -1.0]); // nothing to wrap between walls
    /// ```
    ///
    /// # Errors
    /// As [`SimBox::new`].
    pub fn walls(lengths: [f64; D]) -> Result<Self, SimError> {
        Self::new(lengths, [false; D])
    }

    /// Side lengths.
    ///
    /// ```
    /// use kinetic_cdo::SimBox;
    /// assert_eq!(SimBox::walls([2.0, 5.0]).unwrap().lengths(), [2.0, 5.0]);
    /// ```
    pub fn lengths(&self) -> [f64; D] {
        self.lengths
    }

    /// Which axes are periodic.
    ///
    /// ```
    /// use kinetic_cdo::SimBox;
    /// let b = SimBox::new([2.0, 5.0, 1.0], [false, true, false]).unwrap();
    /// assert_eq!(b.periodic_axes(), [false, true, false]);
    /// ```
    pub fn periodic_axes(&self) -> [bool; D] {
        self.periodic
    }

    /// Volume (area in 2D).
    ///
    /// ```
    /// use kinetic_cdo::SimBox;
    /// assert_eq!(SimBox::periodic([2.0, 3.0, 4.0]).unwrap().volume(), 24.0);
    /// ```
    pub fn volume(&self) -> f64 {
        self.lengths.iter().product()
    }

    /// `d` shifted by whole periods along periodic axes to the nearest image (`|d_a| <= L_a/2`).
    ///
    /// ```
    /// use kinetic_cdo::SimBox;
    /// let b = SimBox::new([10.0, 10.0], [true, false]).unwrap();
    /// // +7 along the periodic x is -3 the other way round; y has walls and is kept.
    /// assert_eq!(b.nearest_image([7.0, -6.0]), [-3.0, -6.0]);
    /// assert_eq!(b.nearest_image([-12.0, 0.0]), [-2.0, 0.0]);
    /// ```
    pub fn nearest_image(&self, d: [f64; D]) -> [f64; D] {
        crate::vector::add(d, self.nearest_image_shift(d))
    }

    /// The whole periods that take the displacement `d` to its [nearest image](Self::nearest_image)
    /// (0 on walled axes): what a structure adds to a particle's centre to reach the image of it
    /// nearest to another.
    #[inline]
    pub(crate) fn nearest_image_shift(&self, d: [f64; D]) -> [f64; D] {
        std::array::from_fn(|a| {
            if self.periodic[a] { -self.lengths[a] * (d[a] / self.lengths[a]).round() } else { 0.0 }
        })
    }

    /// `x` wrapped into the box along periodic axes (walls leave it unchanged).
    ///
    /// ```
    /// use kinetic_cdo::SimBox;
    /// let b = SimBox::new([10.0, 10.0], [true, false]).unwrap();
    /// assert_eq!(b.wrap([12.5, 12.5]), [2.5, 12.5]); // y has walls: unchanged
    /// assert_eq!(b.wrap([-0.5, 3.0]), [9.5, 3.0]);
    /// // Inside [0, L) even for a tiny negative coordinate (where 10 - 1e-20 rounds to 10).
    /// let x = b.wrap([-1e-20, 3.0])[0];
    /// assert!((0.0..10.0).contains(&x));
    /// ```
    pub fn wrap(&self, mut x: [f64; D]) -> [f64; D] {
        for a in 0..D {
            if self.periodic[a] {
                x[a] = x[a].rem_euclid(self.lengths[a]);
                // rem_euclid can return exactly L for tiny negative inputs.
                if x[a] >= self.lengths[a] {
                    x[a] = 0.0;
                }
            }
        }
        x
    }
}

/// The volume of a `D`-ball of radius `r` (π r² in 2D, 4/3 π r³ in 3D).
///
/// ```
/// assert!((kinetic_cdo::ball_volume::<2>(1.0) - std::f64::consts::PI).abs() < 1e-15);
/// ```
pub fn ball_volume<const D: usize>(r: f64) -> f64 {
    use std::f64::consts::PI;
    match D {
        1 => 2.0 * r,
        2 => PI * r * r,
        3 => 4.0 / 3.0 * PI * r * r * r,
        _ => {
            // V_d = π^{d/2} / Γ(d/2 + 1) r^d, via the recurrence V_d = 2π/d · V_{d−2}.
            let mut v = if D.is_multiple_of(2) { 1.0 } else { 2.0 };
            let mut d = if D.is_multiple_of(2) { 2 } else { 3 };
            while d <= D {
                v *= 2.0 * PI / d as f64;
                d += 2;
            }
            v * r.powi(D as i32)
        }
    }
}

/// How radii change with time: `r_i(t) = base_i · (scale + rate · (t − since))`, a constant
/// scale unless a Lubachevsky–Stillinger compression is running.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RadiusLaw {
    pub(crate) scale: f64,
    pub(crate) rate: f64,
    pub(crate) since: f64,
    /// The largest scale this law reaches (its end point while growing).
    pub(crate) cap: f64,
}

impl RadiusLaw {
    pub(crate) const FIXED: Self = Self { scale: 1.0, rate: 0.0, since: 0.0, cap: 1.0 };

    #[inline]
    pub(crate) fn at(&self, t: f64) -> f64 {
        self.scale + self.rate * (t - self.since)
    }
}

/// A particle's trajectory: `pos` and `vel` at its own time `time`, and its base radius (the
/// radius is `radius × RadiusLaw::at(t)`). For `D = 3` it is exactly one 64-byte cache line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Body<const D: usize> {
    pub(crate) pos: [f64; D],
    pub(crate) vel: [f64; D],
    pub(crate) time: f64,
    pub(crate) radius: f64,
}

/// The state every structure and the engine share: particles stored at their own last-update
/// times, the box, gravity, the radius law and the clock.
///
/// Positions are *unwrapped* (a particle crossing a periodic side keeps a continuous
/// trajectory), so structures can store images as whole periods without them going stale; use
/// [`State::position_wrapped`] for output.
///
/// ```
/// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation, Stop};
/// let particles = vec![Particle::new([9.5, 1.0], [1.0, 0.0], 0.25, 2.0)];
/// let mut sim = Simulation::new(particles, SimBox::periodic([10.0, 10.0]).unwrap(), SimConfig::default(), BruteForce::default()).unwrap();
/// sim.run(Stop::Time(1.0)).unwrap();
/// let state = sim.state();
/// assert_eq!(state.position(0), [10.5, 1.0]); // unwrapped
/// assert_eq!(state.position_wrapped(0), [0.5, 1.0]);
/// assert_eq!(state.kinetic_energy(), 1.0);
/// ```
#[derive(Debug, Clone)]
pub struct State<const D: usize> {
    /// The data every collision check reads, together (one cache line per sphere).
    pub(crate) bodies: Vec<Body<D>>,
    pub(crate) mass: Vec<f64>,
    /// Incremented whenever the particle's trajectory changes; events remember it.
    pub(crate) counter: Vec<u32>,
    pub(crate) last_collision: Vec<f64>,
    pub(crate) sim_box: SimBox<D>,
    pub(crate) gravity: [f64; D],
    pub(crate) radii: RadiusLaw,
    pub(crate) now: f64,
    pub(crate) max_base_radius: f64,
    /// The whole periods structures have moved each particle by ([`State::shift_by_periods`]),
    /// taken back out by [`State::position`] so that positions stay unwrapped whatever the
    /// structure does (the neighbour lists keep their centres in the box: a mean square
    /// displacement from `position` came out 255 instead of 750).
    pub(crate) unwrap: Vec<[f64; D]>,
}

impl<const D: usize> State<D> {
    /// Number of particles.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation};
    /// let particles = vec![
    ///     Particle::new([1.0, 1.0], [0.0, 0.0], 0.5, 1.0),
    ///     Particle::new([3.0, 1.0], [0.0, 0.0], 0.5, 1.0),
    /// ];
    /// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
    /// assert_eq!(sim.state().len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        self.bodies.len()
    }

    /// Whether there are no particles (never true for a built simulation).
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, SimError, Simulation};
    /// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
    /// let particles = vec![Particle::new([1.0, 1.0], [0.0, 0.0], 0.5, 1.0)];
    /// let sim = Simulation::new(particles, sim_box, SimConfig::default(), BruteForce::default());
    /// assert!(!sim.unwrap().state().is_empty());
    /// let structure = BruteForce::default();
    /// let none = Simulation::<2, _>::new(Vec::new(), sim_box, SimConfig::default(), structure);
    /// assert!(matches!(none, Err(SimError::Empty)));
    /// ```
    pub fn is_empty(&self) -> bool {
        self.bodies.is_empty()
    }

    /// The simulation clock.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation, Stop};
    /// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0)];
    /// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// assert_eq!(sim.state().now(), 0.0);
    /// sim.run(Stop::Time(1.75)).unwrap();
    /// assert_eq!(sim.state().now(), 1.75);
    /// ```
    pub fn now(&self) -> f64 {
        self.now
    }

    /// The box.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation};
    /// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0)];
    /// let sim_box = SimBox::new([4.0, 6.0], [false, true]).unwrap();
    /// let structure = BruteForce::default();
    /// let sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
    /// assert_eq!(sim.state().sim_box(), &sim_box);
    /// assert_eq!(sim.state().sim_box().volume(), 24.0);
    /// ```
    pub fn sim_box(&self) -> &SimBox<D> {
        &self.sim_box
    }

    /// Constant gravitational acceleration.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation};
    /// let particles = vec![Particle::new([2.0, 2.0], [0.0, 0.0], 0.5, 1.0)];
    /// let config = SimConfig { gravity: [0.0, -9.81], ..SimConfig::default() };
    /// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
    /// let sim = Simulation::new(particles, sim_box, config, BruteForce::default()).unwrap();
    /// assert_eq!(sim.state().gravity(), [0.0, -9.81]);
    /// ```
    pub fn gravity(&self) -> [f64; D] {
        self.gravity
    }

    /// Particle `i`'s centre at time `t`, from its ballistic trajectory, in the image the
    /// structure keeps it in (a structure may move a particle by whole periods, see
    /// [`shift_by_periods`](Self::shift_by_periods)): use [`position`](Self::position) for the
    /// unwrapped centre.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation};
    /// let particles = vec![Particle::new([2.0, 8.0], [1.0, 0.0], 0.5, 1.0)];
    /// let config = SimConfig { gravity: [0.0, -2.0], ..SimConfig::default() };
    /// let sim_box = SimBox::walls([10.0, 10.0]).unwrap();
    /// let sim = Simulation::new(particles, sim_box, config, BruteForce::default()).unwrap();
    /// // x₀ + v t + ½ g t² at t = 1: [2 + 1, 8 − 1].
    /// assert_eq!(sim.state().position_at(0, 1.0), [3.0, 7.0]);
    /// ```
    #[inline]
    pub fn position_at(&self, i: usize, t: f64) -> [f64; D] {
        let b = &self.bodies[i];
        let dt = t - b.time;
        let x = add_scaled(b.pos, dt, b.vel);
        // Without gravity, no gravity term: beyond t ≈ 1e154, dt² overflows and ∞·0 is NaN.
        if self.gravity == [0.0; D] { x } else { add_scaled(x, 0.5 * dt * dt, self.gravity) }
    }

    /// Particle `i`'s centre now, unwrapped: a continuous trajectory across periodic sides,
    /// whichever structure runs the simulation.
    ///
    /// ```
    /// use kinetic_cdo::{NeighbourLists, Particle, SimBox, SimConfig, Simulation, Stop};
    /// // The neighbour lists keep their centres in the box; the position stays continuous.
    /// let particles = vec![Particle::new([9.5, 1.0], [1.0, 0.0], 0.5, 1.0)];
    /// let sim_box = SimBox::periodic([10.0, 10.0]).unwrap();
    /// let structure = NeighbourLists::default();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// sim.run(Stop::Time(3.0)).unwrap();
    /// let x = sim.state().position(0);
    /// assert!((x[0] - 12.5).abs() < 1e-12 && x[1] == 1.0);
    /// ```
    pub fn position(&self, i: usize) -> [f64; D] {
        crate::vector::add(self.stored_position(i), self.unwrap[i])
    }

    /// Particle `i`'s centre now in the image the structure keeps it in (what the structures
    /// and the engine compute with).
    #[inline]
    pub(crate) fn stored_position(&self, i: usize) -> [f64; D] {
        self.position_at(i, self.now)
    }

    /// Particle `i`'s centre now, wrapped into the box.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation, Stop};
    /// let particles = vec![Particle::new([1.0, 1.0], [-2.0, 0.5], 0.5, 1.0)];
    /// let sim_box = SimBox::periodic([10.0, 10.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// sim.run(Stop::Time(1.0)).unwrap();
    /// assert_eq!(sim.state().position(0), [-1.0, 1.5]);
    /// assert_eq!(sim.state().position_wrapped(0), [9.0, 1.5]); // -1 + 10
    /// ```
    pub fn position_wrapped(&self, i: usize) -> [f64; D] {
        self.sim_box.wrap(self.position(i))
    }

    /// Particle `i`'s velocity at time `t`.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation};
    /// let particles = vec![Particle::new([2.0, 8.0], [1.0, 0.0], 0.5, 1.0)];
    /// let config = SimConfig { gravity: [0.0, -2.0], ..SimConfig::default() };
    /// let sim_box = SimBox::walls([10.0, 10.0]).unwrap();
    /// let sim = Simulation::new(particles, sim_box, config, BruteForce::default()).unwrap();
    /// // v + g t at t = 1.5 (the floor is reached only at t = √7.5).
    /// assert_eq!(sim.state().velocity_at(0, 1.5), [1.0, -3.0]);
    /// ```
    #[inline]
    pub fn velocity_at(&self, i: usize, t: f64) -> [f64; D] {
        add_scaled(self.bodies[i].vel, t - self.bodies[i].time, self.gravity)
    }

    /// Particle `i`'s velocity now.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation, Stop};
    /// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.5], 0.5, 1.0)];
    /// let sim_box = SimBox::walls([4.0, 10.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// assert_eq!(sim.state().velocity(0), [1.0, 0.5]);
    /// // The wall at x = 4 is reached at t = 2.5 and reverses the x component.
    /// sim.run(Stop::Time(3.0)).unwrap();
    /// assert_eq!(sim.state().velocity(0), [-1.0, 0.5]);
    /// ```
    pub fn velocity(&self, i: usize) -> [f64; D] {
        self.velocity_at(i, self.now)
    }

    /// Particle `i`'s radius at time `t`.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation};
    /// let particles = vec![Particle::new([2.0, 2.0], [1.0, 0.0], 0.5, 1.0)];
    /// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
    /// // No compression running: the radius is the same at every time.
    /// assert_eq!(sim.state().radius_at(0, 0.0), 0.5);
    /// assert_eq!(sim.state().radius_at(0, 7.0), 0.5);
    /// ```
    #[inline]
    pub fn radius_at(&self, i: usize, t: f64) -> f64 {
        self.bodies[i].radius * self.radii.at(t)
    }

    /// Particle `i`'s radius now.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation};
    /// let particles = vec![Particle::new([5.0, 5.0], [1.0, 0.3], 1.0, 1.0)];
    /// let sim_box = SimBox::walls([10.0, 10.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// assert_eq!(sim.state().radius(0), 1.0);
    /// // Four times the packing fraction: twice the radius (area ∝ r²).
    /// let phi = sim.state().packing_fraction();
    /// sim.compress(4.0 * phi, 0.1, 10).unwrap();
    /// assert!((sim.state().radius(0) - 2.0).abs() < 1e-9);
    /// ```
    pub fn radius(&self, i: usize) -> f64 {
        self.radius_at(i, self.now)
    }

    /// The largest radius particle `i` reaches under the current radius law (its radius, unless
    /// a compression is running). Structures size themselves by it.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation};
    /// let particles = vec![
    ///     Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0),
    ///     Particle::new([1.0, 3.0], [0.0, 1.0], 0.25, 1.0),
    /// ];
    /// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
    /// // No compression running: the cap is the radius.
    /// assert_eq!(sim.state().radius_cap(1), 0.25);
    /// assert_eq!(sim.state().radius_cap(1), sim.state().radius(1));
    /// ```
    #[inline]
    pub fn radius_cap(&self, i: usize) -> f64 {
        self.bodies[i].radius * self.radii.cap
    }

    /// The largest [`radius_cap`](Self::radius_cap) over all particles.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation};
    /// let particles = vec![
    ///     Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0),
    ///     Particle::new([1.0, 3.0], [0.0, 1.0], 0.25, 1.0),
    /// ];
    /// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
    /// assert_eq!(sim.state().max_radius_cap(), 0.5);
    /// ```
    pub fn max_radius_cap(&self) -> f64 {
        self.max_base_radius * self.radii.cap
    }

    /// The rate at which particle `i`'s radius grows (0 unless compressing).
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation};
    /// let particles = vec![Particle::new([5.0, 5.0], [1.0, 0.3], 1.0, 1.0)];
    /// let sim_box = SimBox::walls([10.0, 10.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// assert_eq!(sim.state().radius_rate(0), 0.0);
    /// // After a compression the radii stay fixed again.
    /// let phi = sim.state().packing_fraction();
    /// sim.compress(2.0 * phi, 0.1, 10).unwrap();
    /// assert_eq!(sim.state().radius_rate(0), 0.0);
    /// ```
    #[inline]
    pub fn radius_rate(&self, i: usize) -> f64 {
        self.bodies[i].radius * self.radii.rate
    }

    /// Particle `i`'s mass.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation};
    /// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 3.0)];
    /// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
    /// assert_eq!(sim.state().mass(0), 3.0);
    /// ```
    pub fn mass(&self, i: usize) -> f64 {
        self.mass[i]
    }

    /// How many times particle `i`'s trajectory has changed (collisions and wall hits).
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation, Stop};
    /// let particles = vec![
    ///     Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0),
    ///     Particle::new([1.0, 3.0], [0.0, 0.0], 0.5, 1.0),
    /// ];
    /// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// sim.run(Stop::Time(3.0)).unwrap(); // particle 0 hits the wall at x = 4 at t = 2.5
    /// assert_eq!((sim.state().counter(0), sim.state().counter(1)), (1, 0));
    /// ```
    pub fn counter(&self, i: usize) -> u32 {
        self.counter[i]
    }

    /// Total kinetic energy now.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation};
    /// let particles = vec![
    ///     Particle::new([5.0, 5.0], [3.0, 4.0], 0.5, 2.0),
    ///     Particle::new([15.0, 15.0], [1.0, 0.0], 0.5, 1.0),
    /// ];
    /// let sim_box = SimBox::walls([20.0, 20.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
    /// // ½ · 2 · (3² + 4²) + ½ · 1 · 1²
    /// assert_eq!(sim.state().kinetic_energy(), 25.5);
    /// ```
    pub fn kinetic_energy(&self) -> f64 {
        (0..self.len())
            .map(|i| {
                let v = self.velocity(i);
                0.5 * self.mass[i] * crate::vector::dot(v, v)
            })
            .sum()
    }

    /// Total momentum now.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation};
    /// let particles = vec![
    ///     Particle::new([5.0, 5.0], [3.0, 4.0], 0.5, 2.0),
    ///     Particle::new([15.0, 15.0], [-2.0, 0.0], 0.5, 3.0),
    /// ];
    /// let sim_box = SimBox::walls([20.0, 20.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
    /// // 2 · (3, 4) + 3 · (−2, 0)
    /// assert_eq!(sim.state().momentum(), [0.0, 8.0]);
    /// ```
    pub fn momentum(&self) -> [f64; D] {
        let mut p = [0.0; D];
        for i in 0..self.len() {
            p = add_scaled(p, self.mass[i], self.velocity(i));
        }
        p
    }

    /// The packing fraction now: particle volume over box volume.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation};
    /// let particles = vec![
    ///     Particle::new([2.0, 2.0], [1.0, 0.0], 1.0, 1.0),
    ///     Particle::new([6.0, 6.0], [0.0, 1.0], 2.0, 1.0),
    /// ];
    /// let sim_box = SimBox::walls([10.0, 10.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
    /// // (π · 1² + π · 2²) / 10²
    /// let phi = 5.0 * std::f64::consts::PI / 100.0;
    /// assert!((sim.state().packing_fraction() - phi).abs() < 1e-15);
    /// ```
    pub fn packing_fraction(&self) -> f64 {
        let total: f64 = (0..self.len()).map(|i| ball_volume::<D>(self.radius(i))).sum();
        total / self.sim_box.volume()
    }

    /// The particles now, wrapped into the box (a snapshot a new simulation can start from).
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation, Stop};
    /// let particles = vec![Particle::new([9.5, 1.0], [1.0, 0.0], 0.5, 2.0)];
    /// let sim_box = SimBox::periodic([10.0, 10.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// sim.run(Stop::Time(1.0)).unwrap();
    /// let snapshot = sim.state().particles();
    /// assert_eq!(snapshot, [Particle::new([0.5, 1.0], [1.0, 0.0], 0.5, 2.0)]);
    /// // A valid start for a new simulation.
    /// let structure = BruteForce::default();
    /// assert!(Simulation::new(snapshot, sim_box, SimConfig::default(), structure).is_ok());
    /// ```
    pub fn particles(&self) -> Vec<Particle<D>> {
        (0..self.len())
            .map(|i| Particle::new(self.position_wrapped(i), self.velocity(i), self.radius(i), self.mass[i]))
            .collect()
    }

    /// Moves particle `i` by `shift`, which must be whole periods along periodic axes and 0
    /// elsewhere: the same physical state, in another image. Structures use it to keep
    /// coordinates in the box.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation};
    /// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0)];
    /// let sim_box = SimBox::periodic([10.0, 10.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
    /// let mut state = sim.state().clone();
    /// state.shift_by_periods(0, [10.0, 0.0]);
    /// assert_eq!(state.position_at(0, 0.0), [11.0, 1.0]); // another image…
    /// assert_eq!(state.position(0), [1.0, 1.0]); // …of the same particle
    /// ```
    pub fn shift_by_periods(&mut self, i: usize, shift: [f64; D]) {
        debug_assert!((0..D).all(|a| shift[a] == 0.0 || self.sim_box.periodic_axes()[a]));
        self.bodies[i].pos = crate::vector::add(self.bodies[i].pos, shift);
        self.unwrap[i] = crate::vector::sub(self.unwrap[i], shift);
    }

    /// Brings particle `i`'s stored trajectory to time `t` (no physical change).
    #[inline]
    pub(crate) fn advance(&mut self, i: usize, t: f64) {
        let dt = t - self.bodies[i].time;
        if dt != 0.0 {
            let pos = self.position_at(i, t);
            let b = &mut self.bodies[i];
            b.pos = pos;
            b.vel = add_scaled(b.vel, dt, self.gravity);
            b.time = t;
        }
    }

    /// The displacement from `i` to `k`'s image `k + shift`, both taken at time `t`.
    #[inline]
    pub(crate) fn separation_at(&self, i: usize, k: usize, shift: [f64; D], t: f64) -> [f64; D] {
        let xk = crate::vector::add(self.position_at(k, t), shift);
        sub(xk, self.position_at(i, t))
    }
}
