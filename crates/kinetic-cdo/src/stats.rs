//! What a run counts and measures: event counters (the paper's Table 1) and observables
//! (pressure from the collision virial).

/// Event counters since the simulation was built (or [`reset`](Counters::reset)).
///
/// ```
/// use kinetic_cdo::{Particle, RegularSubdivision, SimBox, SimConfig, Simulation};
/// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0)];
/// let mut sim = Simulation::new(particles, SimBox::walls([10.0, 10.0]).unwrap(), SimConfig::default(), RegularSubdivision::new()).unwrap();
/// sim.next_collision(); // the wall at x = 10, after crossing 8 cell sides
/// assert_eq!(sim.counters().wall_collisions, 1);
/// assert_eq!(sim.counters().topological_events, 8);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Counters {
    /// Binary collisions processed.
    pub collisions: u64,
    /// Wall collisions processed.
    pub wall_collisions: u64,
    /// Topological events (certificate failures) processed.
    pub topological_events: u64,
    /// Certificates only re-checked (no topological change), for structures that bound how
    /// far ahead they solve for failures.
    pub certificate_rechecks: u64,
    /// Collision checks against new neighbours after topological events.
    pub new_neighbours: u64,
    /// Trajectory predictions: full scans of a particle's candidates (after each collision, on
    /// predict-trajectory events and when an event's partner turned out to have moved).
    pub predictions: u64,
    /// Predict-trajectory events reached at the end of a prediction horizon.
    pub horizon_events: u64,
    /// Collision events found stale when they reached the front of the queue (partner moved).
    pub stale_events: u64,
    /// Pair collision-time computations.
    pub pair_checks: u64,
    /// The most topological events between two consecutive collisions (the paper's E, max).
    pub max_topological_between_collisions: u64,
    /// Topological events since the last collision (running).
    pub(crate) topological_since_collision: u64,
    /// Time spent in topological events, if timing is on (ns).
    pub topological_nanos: u64,
    /// Time spent in predictions, if timing is on (ns).
    pub prediction_nanos: u64,
    /// Time spent building the structure and the initial events (ns).
    pub init_nanos: u64,
}

impl Counters {
    /// Zeroes every counter but the initialisation time.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation, Stop};
    /// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0)];
    /// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// sim.run(Stop::Collisions(2)).unwrap();
    /// let mut counters = *sim.counters();
    /// assert_eq!(counters.wall_collisions, 2);
    /// counters.reset();
    /// assert_eq!((counters.wall_collisions, counters.predictions), (0, 0));
    /// assert_eq!(counters.init_nanos, sim.counters().init_nanos);
    /// ```
    pub fn reset(&mut self) {
        *self = Self { init_nanos: self.init_nanos, ..Self::default() };
    }

    /// All collisions (pairs and walls).
    ///
    /// ```
    /// use kinetic_cdo::Counters;
    /// let mut counters = Counters::default();
    /// counters.collisions = 3;
    /// counters.wall_collisions = 2;
    /// assert_eq!(counters.all_collisions(), 5);
    /// ```
    pub fn all_collisions(&self) -> u64 {
        self.collisions + self.wall_collisions
    }
}

/// The paper's Table 1, measured: one row per structure and run.
///
/// ```
/// use kinetic_cdo::{NeighbourLists, SimBox, SimConfig, Simulation, Stop, init};
/// let sim_box = SimBox::periodic([10.0, 10.0]).unwrap();
/// let particles = init::random_placement(&sim_box, &vec![0.5; 40], init::MassRule::Unit, 1.0, 2).unwrap();
/// let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), NeighbourLists::default()).unwrap();
/// sim.run(Stop::Collisions(500)).unwrap();
/// let row = sim.table1();
/// assert!(row.neighbours_mean < 40.0 && row.memory_bytes > 0);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Table1 {
    /// A: candidates per particle, mean over particles at the end of the run.
    pub neighbours_mean: f64,
    /// A: candidates per particle, maximum.
    pub neighbours_max: usize,
    /// B: new neighbours (collision checks) per topological event.
    pub new_per_topological: f64,
    /// C: time per topological event, ns (0 unless timing was on).
    pub ns_per_topological: f64,
    /// D: time per prediction (predict-trajectory event), ns (0 unless timing was on).
    pub ns_per_prediction: f64,
    /// E: topological events per collision, mean (over all collisions, pair and wall).
    pub topological_per_collision: f64,
    /// E: the most topological events between two consecutive collisions.
    pub topological_between_collisions_max: u64,
    /// F: initialisation time, ns.
    pub init_ns: f64,
    /// G: memory of the structure, bytes.
    pub memory_bytes: usize,
}

/// Observables accumulated over a measurement window.
///
/// ```
/// use kinetic_cdo::{RegularSubdivision, SimBox, SimConfig, Simulation, Stop, init};
/// let sim_box = SimBox::periodic([30.0, 30.0]).unwrap();
/// let particles = init::random_placement(&sim_box, &vec![0.5; 100], init::MassRule::Unit, 1.0, 4).unwrap();
/// let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), RegularSubdivision::new()).unwrap();
/// sim.run(Stop::Collisions(200)).unwrap();
/// sim.reset_observables();
/// sim.run(Stop::Collisions(5000)).unwrap();
/// // A dilute gas (φ ≈ 0.09): Z ≈ 1 + 2φ in 2D.
/// let z = sim.observables().compressibility();
/// assert!(z > 1.0 && z < 1.5, "{z}");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Observables {
    /// Window start.
    pub since: f64,
    /// Window length so far.
    pub duration: f64,
    /// Binary collisions in the window.
    pub collisions: u64,
    /// Wall collisions in the window.
    pub wall_collisions: u64,
    /// Σ over binary collisions of `r_ik · Δp_k` (the collision virial).
    pub virial: f64,
    /// Σ over wall collisions of the momentum given to the walls (magnitude).
    pub wall_impulse: f64,
    /// ∫ kinetic energy dt over the window (exact without gravity, where it is piecewise
    /// constant between collisions).
    pub kinetic_integral: f64,
}

impl Observables {
    /// Mean kinetic energy over the window.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation, Stop};
    /// // Kinetic energy ½ · 2 · 2² = 4 until the wall at x = 10 (t = 1), where restitution 0.5
    /// // leaves speed 1 and energy 1: over 3 time units the mean is (4 · 1 + 1 · 2) / 3.
    /// let particles = vec![Particle::new([7.5, 5.0], [2.0, 0.0], 0.5, 2.0)];
    /// let sim_box = SimBox::walls([10.0, 10.0]).unwrap();
    /// let config = SimConfig { restitution: 0.5, ..SimConfig::default() };
    /// let mut sim = Simulation::new(particles, sim_box, config, BruteForce::default()).unwrap();
    /// sim.run(Stop::Time(3.0)).unwrap();
    /// assert!((sim.observables().mean_kinetic_energy() - 2.0).abs() < 1e-12);
    /// ```
    pub fn mean_kinetic_energy(&self) -> f64 {
        if self.duration > 0.0 { self.kinetic_integral / self.duration } else { 0.0 }
    }

    /// Pressure from the collision virial, `P = (2⟨K⟩ + W/τ) / (D V)` (Alder & Wainwright;
    /// Allen & Tildesley §3.6 for hard spheres), for a box of volume `volume` in `D` dimensions.
    /// Meaningful for periodic systems without gravity.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation, Stop};
    /// // One particle alone (no virial): the ideal gas, P = 2 K / (D V) with K = ½ · 2 · 1².
    /// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 2.0)];
    /// let sim_box = SimBox::periodic([10.0, 10.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// sim.run(Stop::Time(5.0)).unwrap();
    /// let p = sim.observables().pressure(2, sim_box.volume());
    /// assert!((p - 2.0 * 1.0 / (2.0 * 100.0)).abs() < 1e-14);
    /// ```
    pub fn pressure(&self, dimension: usize, volume: f64) -> f64 {
        if self.duration <= 0.0 {
            return f64::NAN;
        }
        (2.0 * self.mean_kinetic_energy() + self.virial / self.duration) / (dimension as f64 * volume)
    }

    /// The compressibility factor `Z = PV / (N k T) = 1 + W / (2 ⟨K⟩ τ)`.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation, Stop};
    /// // One particle alone never collides: no virial, the ideal gas's Z = 1.
    /// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.3], 0.5, 1.0)];
    /// let sim_box = SimBox::periodic([10.0, 10.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// sim.run(Stop::Time(5.0)).unwrap();
    /// assert_eq!(sim.observables().compressibility(), 1.0);
    /// ```
    pub fn compressibility(&self) -> f64 {
        1.0 + self.virial / (2.0 * self.mean_kinetic_energy() * self.duration)
    }

    /// Binary collisions per particle per unit time.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation, Stop};
    /// // One head-on collision (at t = 0.5) in 2 time units, after which both head for the walls.
    /// let particles = vec![
    ///     Particle::new([4.0, 5.0], [1.0, 0.0], 0.5, 1.0),
    ///     Particle::new([6.0, 5.0], [-1.0, 0.0], 0.5, 1.0),
    /// ];
    /// let sim_box = SimBox::walls([10.0, 10.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// sim.run(Stop::Time(2.0)).unwrap();
    /// assert_eq!(sim.observables().collisions, 1);
    /// assert_eq!(sim.observables().collision_rate(2), 2.0 * 1.0 / (2.0 * 2.0));
    /// ```
    pub fn collision_rate(&self, particles: usize) -> f64 {
        2.0 * self.collisions as f64 / (particles as f64 * self.duration)
    }
}
