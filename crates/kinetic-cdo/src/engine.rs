//! The event-driven engine (the paper's §2 algorithm), generic over the collision-detection
//! structure and the event calendar.
//!
//! Each particle owns one queue slot holding its *earliest* predicted event: a collision with a
//! candidate, a wall hit, or a predict-trajectory event at the end of its prediction horizon.
//! The structure owns the slots after the particles' for its certificates. Processing:
//! * **collision**: if the partner's counter still equals the one recorded at prediction, the
//!   collision is real: both particles get new velocities, their counters are incremented (which
//!   invalidates every other event that mentions them, in `O(1)`), the structure reschedules
//!   their certificates and both are predicted afresh. Otherwise the partner moved since, and
//!   only the stale particle is predicted again.
//! * **wall**: reflect, increment the counter, predict.
//! * **predict-trajectory** (horizon reached): advance the particle and predict again.
//! * **topological** (certificate failure): the structure updates itself and names the new
//!   candidate pairs; each gets one collision check, kept if earlier than the particle's event.
//!
//! Events are never scheduled before the clock: every predicted time is `now + τ` with `τ >= 0`
//! from the root finders of [`crate::kinematics`], which also collide at once a pair that
//! rounding left overlapping while approaching (the drift guard).

use std::io::Write;
use std::time::Instant;

use crate::cdo::{CandidatePair, Cdo, Certificates};
use crate::jam::JamWatch;
use crate::kinematics::{collision_impulse, gap_closing_time, pair_contact_time};
use crate::queue::{BinaryHeapQueue, EventQueue};
use crate::stats::{Counters, Observables, Table1};
use crate::system::{Body, RadiusLaw};
use crate::vector::{add_scaled, dot, sub};
use crate::{Particle, SimBox, SimError, State};

/// Run parameters.
///
/// ```
/// use kinetic_cdo::SimConfig;
/// let config = SimConfig::<3> { restitution: 0.9, gravity: [0.0, 0.0, -9.81], ..SimConfig::default() };
/// assert_eq!(config.tc_duration, 0.0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimConfig<const D: usize> {
    /// Normal coefficient of restitution `e` in `(0, 1]` (1 = elastic), for pairs and walls.
    pub restitution: f64,
    /// The guard against inelastic collapse (the TC model of Luding & McNamara 1998): a
    /// collision involving a particle that already collided (with a particle or a wall) less
    /// than `tc_duration` ago is elastic. Without it, `e < 1` lets a cluster collide infinitely
    /// often in finite time (an inelastic collapse, which [`Simulation::run`] reports as
    /// [`SimError::Jammed`]).
    /// `0` disables the guard; it has no effect when `e = 1`.
    ///
    /// Under gravity with `e < 1` the guard is required (`tc_duration > 0`, else
    /// [`SimError::InvalidParameter`] naming `tc_duration`): a particle bouncing on a wall then
    /// collapses onto it after infinitely many bounces in finite time, a resting contact an
    /// event-driven run cannot get past. Choose it well above the clock's rounding over the run
    /// (e.g. `1e-3` of the bounce time scale): the last bounces then stay elastic at a speed of
    /// about `|g| tc_duration / 2`.
    pub tc_duration: f64,
    /// Constant gravitational acceleration.
    ///
    /// Along a periodic axis the whole system falls without end. Brute force, the segment
    /// trees and the triangulation follow only the relative motion; the subdivision, the
    /// spatial tree and the neighbour lists follow cells in the box, which the particles cross
    /// ever faster, so they slow down without end (measured, release build: `g = 1e6` in a box
    /// of side 9 with walls across, 50 disks: 200 collisions took the subdivision 17 s; in
    /// 20 s the spatial tree reached 156 and the neighbour lists 45; `g = 1e3` ran as without
    /// gravity). Where no collision is scheduled [`Simulation::next_collision`]'s quiet-event
    /// cutoff may end them early instead. Positions are unwrapped, so
    /// separations also lose precision once the fall is many box sides long (measured with
    /// brute force: clean after falling `6e11` sides, overlaps of 7 % of a radius after `2e14`).
    pub gravity: [f64; D],
    /// The paper's predict-trajectory interval `Δt`: no collision is scheduled more than `Δt`
    /// after a particle's trajectory was last computed; a predict-trajectory event recomputes
    /// it. `None` (the default) predicts as far ahead as the structure allows: ballistic
    /// trajectories are exact, so the horizon only adds events (at least one per particle per
    /// `Δt` of simulated time; a horizon below the clock's rounding counts as one ulp of the
    /// clock, so time always advances).
    pub prediction_horizon: Option<f64>,
    /// Time every topological event and prediction (Table 1's C and D); costs ~50 ns per event.
    pub measure_times: bool,
}

impl<const D: usize> Default for SimConfig<D> {
    fn default() -> Self {
        Self {
            restitution: 1.0,
            tc_duration: 0.0,
            gravity: [0.0; D],
            prediction_horizon: None,
            measure_times: false,
        }
    }
}

/// What happened at a collision.
///
/// ```
/// use kinetic_cdo::{BruteForce, CollisionKind, Particle, SimBox, SimConfig, Simulation};
/// // Particle 1 runs into particle 0, which then runs into the wall at x = 0.
/// let particles = vec![
///     Particle::new([2.0, 2.0], [0.0, 0.0], 0.5, 1.0),
///     Particle::new([4.0, 2.0], [-1.0, 0.0], 0.5, 1.0),
/// ];
/// let sim_box = SimBox::walls([6.0, 4.0]).unwrap();
/// let structure = BruteForce::default();
/// let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
/// assert_eq!(sim.next_collision().unwrap().kind, CollisionKind::Pair(0, 1));
/// let wall = CollisionKind::Wall { particle: 0, axis: 0, high: false };
/// assert_eq!(sim.next_collision().unwrap().kind, wall);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CollisionKind {
    /// Two particles, smaller index first.
    Pair(usize, usize),
    /// A particle and the wall of `axis` (`high`: the wall at `L`, else at 0).
    Wall {
        /// The particle.
        particle: usize,
        /// The wall's axis.
        axis: usize,
        /// Whether it is the wall at `L_axis`.
        high: bool,
    },
}

/// A processed collision.
///
/// ```
/// use kinetic_cdo::{BruteForce, CollisionKind, Particle, SimBox, SimConfig, Simulation};
/// let particles = vec![
///     Particle::new([2.0, 2.0], [0.0, 0.0], 0.5, 1.0),
///     Particle::new([4.0, 2.0], [-1.0, 0.0], 0.5, 1.0),
/// ];
/// let sim_box = SimBox::walls([6.0, 4.0]).unwrap();
/// let structure = BruteForce::default();
/// let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
/// // Gap 2 − 1 at speed 1; equal masses swap velocities, and particle 0 then travels from
/// // x = 2 to x = 0.5 at speed 1.
/// let first = sim.next_collision().unwrap();
/// assert!((first.time - 1.0).abs() < 1e-12 && first.kind == CollisionKind::Pair(0, 1));
/// let second = sim.next_collision().unwrap();
/// assert!((second.time - 2.5).abs() < 1e-12);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Collision {
    /// When.
    pub time: f64,
    /// Who.
    pub kind: CollisionKind,
}

/// The event held in a particle's slot.
#[derive(Debug, Clone, Copy, PartialEq)]
enum ParticleEvent {
    None,
    Collision { partner: u32, partner_counter: u32 },
    Wall { axis: u8, high: bool },
    Predict,
}

/// When [`Simulation::run`] stops.
///
/// ```
/// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation, Stop};
/// // Bouncing between the walls at x = 0 and 4: hits at t = 2.5, 5.5, 8.5, …
/// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0)];
/// let sim_box = SimBox::walls([4.0, 2.0]).unwrap();
/// let structure = BruteForce::default();
/// let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
/// sim.run(Stop::Collisions(3)).unwrap();
/// assert_eq!(sim.counters().wall_collisions, 3);
/// assert!((sim.state().now() - 8.5).abs() < 1e-12);
/// sim.run(Stop::Time(10.0)).unwrap();
/// assert_eq!(sim.state().now(), 10.0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stop {
    /// After this many more collisions (pairs and walls), or earlier when
    /// [`Simulation::next_collision`] returns `None` (see its quiet-event cutoff).
    Collisions(u64),
    /// At this simulation time.
    Time(f64),
}

/// How often [`Simulation::run_with_snapshots`] writes a frame.
///
/// ```
/// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation, SnapshotEvery, Stop};
/// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0)];
/// let sim_box = SimBox::walls([4.0, 2.0]).unwrap();
/// let structure = BruteForce::default();
/// let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
/// // A frame at the start, then one after each of 3 wall hits.
/// let mut out = Vec::new();
/// let every = SnapshotEvery::Collisions(1);
/// sim.run_with_snapshots(Stop::Collisions(3), every, &mut out).unwrap();
/// let text = String::from_utf8(out).unwrap();
/// assert_eq!(text.lines().filter(|l| l.starts_with("P ")).count(), 4);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SnapshotEvery {
    /// Every `k` collisions (pairs and walls).
    Collisions(u64),
    /// Every `τ` of simulation time (frames at exact multiples of `τ` after the start).
    Time(f64),
}

/// An event-driven simulation of hard disks (`D = 2`) or spheres (`D = 3`).
///
/// ```
/// use kinetic_cdo::{NeighbourLists, SimBox, SimConfig, Simulation, Stop, init};
/// let sim_box = SimBox::periodic([12.0, 12.0, 12.0]).unwrap();
/// let radii = vec![0.5; 200];
/// let particles = init::random_placement(&sim_box, &radii, init::MassRule::Unit, 1.0, 7).unwrap();
/// let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), NeighbourLists::default()).unwrap();
/// let energy = sim.state().kinetic_energy();
/// sim.run(Stop::Collisions(2000)).unwrap();
/// assert!((sim.state().kinetic_energy() - energy).abs() < 1e-12 * energy);
/// assert!(sim.max_overlap() < 1e-12);
/// ```
#[derive(Debug, Clone)]
pub struct Simulation<const D: usize, S: Cdo<D>, Q: EventQueue = BinaryHeapQueue> {
    state: State<D>,
    structure: S,
    queue: Q,
    events: Vec<ParticleEvent>,
    /// The end of each particle's prediction horizon (infinite without one).
    horizon: Vec<f64>,
    config: SimConfig<D>,
    counters: Counters,
    observables: Observables,
    kinetic: f64,
    last_event: f64,
    pairs: Vec<CandidatePair<D>>,
    /// Consecutive collisions at one instant (to rounding), to report a jam.
    jam: JamWatch,
}

impl<const D: usize, S: Cdo<D>> Simulation<D, S, BinaryHeapQueue> {
    /// A simulation with the binary-heap calendar; see [`Simulation::with_queue`].
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, SimError, Simulation};
    /// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
    /// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0)];
    /// let sim = Simulation::new(particles, sim_box, SimConfig::default(), BruteForce::default());
    /// assert_eq!(sim.unwrap().state().now(), 0.0);
    /// // A disk sticking out through the wall at x = 0 is refused.
    /// let outside = vec![Particle::new([0.25, 1.0], [1.0, 0.0], 0.5, 1.0)];
    /// let structure = BruteForce::default();
    /// let refused = Simulation::new(outside, sim_box, SimConfig::default(), structure);
    /// assert!(matches!(refused, Err(SimError::OutsideBox { index: 0, axis: 0 })));
    /// ```
    ///
    /// # Errors
    /// As [`Simulation::with_queue`].
    pub fn new(
        particles: Vec<Particle<D>>,
        sim_box: SimBox<D>,
        config: SimConfig<D>,
        structure: S,
    ) -> Result<Self, SimError> {
        Self::with_queue(particles, sim_box, config, structure)
    }
}

impl<const D: usize, S: Cdo<D>, Q: EventQueue> Simulation<D, S, Q> {
    /// A simulation of `particles` in `sim_box` at time 0, with the calendar `Q`.
    ///
    /// Positions along periodic axes are wrapped into the box.
    ///
    /// ```
    /// use kinetic_cdo::queue::CalendarQueue;
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation};
    /// let particles = vec![
    ///     Particle::new([11.0, 1.0], [1.0, 0.0], 0.5, 1.0), // wrapped to x = 1
    ///     Particle::new([4.0, 1.0], [-1.0, 0.0], 0.5, 1.0),
    /// ];
    /// let sim_box = SimBox::periodic([10.0, 10.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let mut sim: Simulation<2, BruteForce, CalendarQueue> =
    ///     Simulation::with_queue(particles, sim_box, SimConfig::default(), structure).unwrap();
    /// assert_eq!(sim.state().position(0), [1.0, 1.0]);
    /// // Gap 3 − 1 closed at speed 2.
    /// assert!((sim.next_collision().unwrap().time - 1.0).abs() < 1e-12);
    /// ```
    ///
    /// # Errors
    /// [`SimError::Empty`], [`SimError::NonFiniteParticle`], [`SimError::InvalidRadius`],
    /// [`SimError::InvalidMass`], [`SimError::OutsideBox`] (a particle crossing a wall),
    /// [`SimError::BoxTooSmall`] (a periodic side shorter than 3 largest diameters, or than the
    /// structure needs), [`SimError::NoRoomBetweenWalls`] (a particle as wide as the gap between
    /// two walls), [`SimError::Overlap`] naming the first overlapping pair found (deeper than
    /// [`OVERLAP_TOLERANCE`]), and
    /// [`SimError::InvalidParameter`] for a restitution outside `(0, 1]`, a negative or
    /// non-finite TC duration, horizon or gravity, and a zero TC duration with restitution < 1
    /// under gravity (see [`SimConfig::tc_duration`]).
    pub fn with_queue(
        particles: Vec<Particle<D>>,
        sim_box: SimBox<D>,
        config: SimConfig<D>,
        structure: S,
    ) -> Result<Self, SimError> {
        validate_config(&config)?;
        let state = validated_state(particles, sim_box, config.gravity)?;
        let n = state.len();
        let slots = n + structure.certificate_slots(n);
        let mut sim = Self {
            state,
            structure,
            queue: Q::with_slots(slots),
            events: vec![ParticleEvent::None; n],
            horizon: vec![f64::INFINITY; n],
            config,
            counters: Counters::default(),
            observables: Observables::default(),
            kinetic: 0.0,
            last_event: 0.0,
            pairs: Vec::new(),
            jam: JamWatch::default(),
        };
        sim.reschedule_all()?;
        sim.kinetic = sim.state.kinetic_energy();
        Ok(sim)
    }

    /// The state (clock, particles, box).
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation, Stop};
    /// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0)];
    /// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// sim.run(Stop::Time(2.0)).unwrap();
    /// let state = sim.state();
    /// assert_eq!((state.now(), state.len(), state.sim_box()), (2.0, 1, &sim_box));
    /// assert_eq!(state.position(0), [3.0, 1.0]);
    /// ```
    pub fn state(&self) -> &State<D> {
        &self.state
    }

    /// The collision-detection structure.
    ///
    /// ```
    /// use kinetic_cdo::{Particle, RegularSubdivision, SimBox, SimConfig, Simulation};
    /// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0)];
    /// let sim_box = SimBox::walls([4.0, 6.0]).unwrap();
    /// let structure = RegularSubdivision::new();
    /// let sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
    /// // Cells of side >= the largest diameter, 1: ⌊4 / 1⌋ × ⌊6 / 1⌋.
    /// assert_eq!(sim.structure().cells_per_axis(), [4, 6]);
    /// ```
    pub fn structure(&self) -> &S {
        &self.structure
    }

    /// The run parameters.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation};
    /// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0)];
    /// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
    /// let config = SimConfig { restitution: 0.9, ..SimConfig::default() };
    /// let sim = Simulation::new(particles, sim_box, config, BruteForce::default()).unwrap();
    /// assert_eq!(sim.config(), &config);
    /// ```
    pub fn config(&self) -> &SimConfig<D> {
        &self.config
    }

    /// Event counters.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation};
    /// // Particle 1 runs into particle 0, which then runs into the wall at x = 0.
    /// let particles = vec![
    ///     Particle::new([2.0, 2.0], [0.0, 0.0], 0.5, 1.0),
    ///     Particle::new([4.0, 2.0], [-1.0, 0.0], 0.5, 1.0),
    /// ];
    /// let sim_box = SimBox::walls([6.0, 4.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// sim.next_collision();
    /// sim.next_collision();
    /// assert_eq!((sim.counters().collisions, sim.counters().wall_collisions), (1, 1));
    /// ```
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// Zeroes the event counters (not the initialisation time).
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Counters, Particle, SimBox, SimConfig, Simulation, Stop};
    /// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0)];
    /// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// sim.run(Stop::Collisions(2)).unwrap();
    /// assert_eq!(sim.counters().wall_collisions, 2);
    /// let init = sim.counters().init_nanos;
    /// sim.reset_counters();
    /// let mut zero = Counters::default();
    /// zero.init_nanos = init;
    /// assert_eq!(*sim.counters(), zero);
    /// ```
    pub fn reset_counters(&mut self) {
        self.counters.reset();
    }

    /// Observables since the last [`reset_observables`](Self::reset_observables).
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation, Stop};
    /// // One particle alone in a periodic box: no collisions, constant kinetic energy ½ · 2 · 1².
    /// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 2.0)];
    /// let sim_box = SimBox::periodic([10.0, 10.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// sim.run(Stop::Time(4.0)).unwrap();
    /// let obs = sim.observables();
    /// assert_eq!((obs.since, obs.duration, obs.collisions), (0.0, 4.0, 0));
    /// assert!((obs.mean_kinetic_energy() - 1.0).abs() < 1e-12);
    /// ```
    pub fn observables(&self) -> &Observables {
        &self.observables
    }

    /// Starts a new measurement window now.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation, Stop};
    /// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0)];
    /// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// sim.run(Stop::Time(3.0)).unwrap(); // one wall hit, at t = 2.5
    /// assert_eq!(sim.observables().wall_collisions, 1);
    /// sim.reset_observables();
    /// sim.run(Stop::Time(5.0)).unwrap(); // none until t = 5.5
    /// let obs = sim.observables();
    /// assert_eq!((obs.since, obs.duration, obs.wall_collisions), (3.0, 2.0, 0));
    /// ```
    pub fn reset_observables(&mut self) {
        self.observables = Observables { since: self.state.now, ..Observables::default() };
        self.kinetic = self.state.kinetic_energy();
        self.last_event = self.state.now;
    }

    /// Heap memory of the event calendar, bytes.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation};
    /// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0)];
    /// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
    /// assert!(sim.queue_memory_bytes() > 0); // the particle's slot at least
    /// ```
    pub fn queue_memory_bytes(&self) -> usize {
        self.queue.memory_bytes()
    }

    /// Processes events until the next collision (pair or wall) and returns it; `None` if no
    /// event will ever happen, or if [`QUIET_EVENTS_PER_SLOT`] events per queue slot pass
    /// without a collision while none is scheduled (a system that never collides, e.g. one
    /// particle in a periodic box, still crosses cells forever).
    ///
    /// A scheduled collision is certain to happen, or to be preceded by another one: a wall
    /// hit, or a pair collision whose partner has not collided since it was predicted. While
    /// one is scheduled the cutoff does not apply, however many events the structure has of
    /// its own before it (one particle of radius 0.1 crossing a walled square of side 1e4
    /// makes 5·10⁴ cell crossings of the [`SpatialTree`](crate::SpatialTree) before its wall
    /// hit, more than the cutoff's budget for its few queue slots). So `None` means: no event
    /// at all, or a long quiet stretch with no collision predicted, which needs a periodic
    /// axis (along a walled axis every moving particle has a wall hit scheduled) and pairs
    /// the structure has not yet made candidates. [`run`](Self::run) with [`Stop::Time`] has
    /// no cutoff.
    ///
    /// ```
    /// use kinetic_cdo::{CollisionKind, Particle, SimBox, SimConfig, Simulation, SpatialTree};
    /// // Far more cell crossings than the cutoff's budget before the wall at x = 1e4.
    /// let particles = vec![Particle::new([1.0, 5.0], [1.0, 0.0], 0.1, 1.0)];
    /// let sim_box = SimBox::walls([1e4, 1e4]).unwrap();
    /// let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), SpatialTree::new()).unwrap();
    /// let hit = sim.next_collision().unwrap();
    /// assert_eq!(hit.kind, CollisionKind::Wall { particle: 0, axis: 0, high: true });
    /// assert!((hit.time - (1e4 - 0.1 - 1.0)).abs() < 1e-9);
    /// ```
    pub fn next_collision(&mut self) -> Option<Collision> {
        let limit = QUIET_EVENTS_PER_SLOT * self.queue.slots().max(1) as u64;
        loop {
            for _ in 0..limit {
                let (slot, time) = self.queue.peek()?;
                if let Some(c) = self.process(slot, time) {
                    return Some(c);
                }
            }
            if !self.collision_scheduled() {
                return None;
            }
        }
    }

    /// Whether some particle's slot holds a collision that must happen unless another one
    /// comes first: a wall hit, or a pair collision whose partner has not collided since it
    /// was predicted (a particle's trajectory changes only at its own collisions, and each
    /// re-predicts its event). Scans every particle, so it is only asked after a quiet stretch.
    fn collision_scheduled(&self) -> bool {
        self.events.iter().enumerate().any(|(i, event)| {
            let certain = match *event {
                ParticleEvent::Wall { .. } => true,
                ParticleEvent::Collision { partner, partner_counter } => {
                    self.state.counter[partner as usize] == partner_counter
                }
                ParticleEvent::Predict | ParticleEvent::None => false,
            };
            certain && self.queue.time_of(i).is_some()
        })
    }

    /// The time of the next pending event, if any (the clock does not move).
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation};
    /// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0)];
    /// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// // The wall at x = 4 is reached when the centre is at 3.5.
    /// let t = sim.next_event_time().unwrap();
    /// assert!((t - 2.5).abs() < 1e-12);
    /// assert_eq!(sim.state().now(), 0.0);
    /// ```
    pub fn next_event_time(&mut self) -> Option<f64> {
        self.queue.peek().map(|(_, t)| t)
    }

    /// Runs until `stop`. With [`Stop::Time`], the clock ends exactly at that time (particles
    /// are not moved; their positions follow from their trajectories).
    ///
    /// A stop time that is NaN, or before the clock (in the past), processes nothing and leaves
    /// the clock where it is; the clock's own time processes the events due now;
    /// `Stop::Time(f64::INFINITY)` runs until no event is left (forever whenever a particle
    /// moves: walls keep reflecting it, and periodic sides keep it crossing cells and periods),
    /// without moving the clock to infinity.
    ///
    /// # Errors
    /// [`SimError::Jammed`] when the run cannot get past an instant: more than
    /// [`JAM_COLLISIONS_PER_PARTICLE`](crate::JAM_COLLISIONS_PER_PARTICLE) collisions per
    /// particle (plus [`JAM_MIN_COLLISIONS`](crate::JAM_MIN_COLLISIONS)) within a vanishing
    /// window (see [`JAM_WINDOW`](crate::JAM_WINDOW)), as when a chain of touching particles
    /// spans the gap between two walls and one of them moves into it, or in an inelastic
    /// collapse. The simulation stays valid (no overlap, the clock at the jam), but a further
    /// run reports the same jam.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, SimError, Simulation, Stop};
    /// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0)];
    /// let mut sim = Simulation::new(particles, SimBox::walls([4.0, 4.0]).unwrap(), SimConfig::default(), BruteForce::default()).unwrap();
    /// sim.run(Stop::Time(3.0)).unwrap();
    /// assert_eq!(sim.state().now(), 3.0);
    /// sim.run(Stop::Time(f64::NAN)).unwrap(); // nothing happens
    /// sim.run(Stop::Time(1.0)).unwrap(); // in the past: nothing happens
    /// assert_eq!(sim.state().now(), 3.0);
    /// assert_eq!(sim.counters().wall_collisions, 1);
    ///
    /// // Two touching disks spanning the gap between the walls at x = 0 and x = 2, one moving
    /// // into the other: they would bounce between the walls forever at t = 0.
    /// let particles = vec![
    ///     Particle::new([0.5, 2.0], [1.0, 0.0], 0.5, 1.0),
    ///     Particle::new([1.5, 2.0], [0.0, 0.0], 0.5, 1.0),
    /// ];
    /// let mut sim = Simulation::new(particles, SimBox::walls([2.0, 4.0]).unwrap(), SimConfig::default(), BruteForce::default()).unwrap();
    /// let jam = sim.run(Stop::Time(1.0)).unwrap_err();
    /// assert!(matches!(jam, SimError::Jammed { time: 0.0, .. }));
    /// assert!(sim.is_jammed());
    /// ```
    pub fn run(&mut self, stop: Stop) -> Result<(), SimError> {
        if let Stop::Time(t) = stop
            && (t.is_nan() || t < self.state.now)
        {
            return Ok(());
        }
        match stop {
            Stop::Collisions(k) => {
                for _ in 0..k {
                    if self.next_collision().is_none() {
                        break;
                    }
                    self.check_jam()?;
                }
            }
            Stop::Time(t) => {
                while let Some((slot, time)) = self.queue.peek() {
                    if time > t {
                        break;
                    }
                    if self.process(slot, time).is_some() {
                        self.check_jam()?;
                    }
                }
                if t > self.state.now && t.is_finite() {
                    self.advance_clock(t);
                }
            }
        }
        Ok(())
    }

    /// Whether the latest collisions amount to a jam (see [`run`](Self::run)'s errors): for a
    /// caller driving [`next_collision`](Self::next_collision) itself, which keeps returning
    /// the jam's collisions at one instant.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation};
    /// // Two touching disks spanning the gap between the walls, one moving into the other.
    /// let particles = vec![Particle::new([0.5, 2.0], [1.0, 0.0], 0.5, 1.0), Particle::new([1.5, 2.0], [0.0, 0.0], 0.5, 1.0)];
    /// let mut sim = Simulation::new(particles, SimBox::walls([2.0, 4.0]).unwrap(), SimConfig::default(), BruteForce::default()).unwrap();
    /// let mut steps = 0;
    /// while !sim.is_jammed() {
    ///     let c = sim.next_collision().unwrap();
    ///     assert_eq!(c.time, 0.0);
    ///     steps += 1;
    /// }
    /// assert!(steps > 1000);
    /// ```
    pub fn is_jammed(&self) -> bool {
        self.jam.jammed(self.state.len()).is_some()
    }

    fn check_jam(&self) -> Result<(), SimError> {
        match self.jam.jammed(self.state.len()) {
            Some(collisions) => Err(SimError::Jammed { time: self.state.now, collisions }),
            None => Ok(()),
        }
    }

    /// Runs until `stop`, writing an XYZ frame (see [`write_xyz`](Self::write_xyz)) at the start
    /// and then every `every`. A [`Stop::Collisions`] budget also ends, as
    /// [`next_collision`](Self::next_collision) does, once [`QUIET_EVENTS_PER_SLOT`] events per
    /// queue slot pass without a collision (a system that never collides would otherwise write
    /// frames forever).
    ///
    /// # Errors
    /// Any I/O error of `out`; and, before anything is written or run, an error of kind
    /// [`std::io::ErrorKind::InvalidInput`] whose source is a [`SimError::InvalidParameter`] for
    /// `SnapshotEvery::Collisions(0)`, a `SnapshotEvery::Time` interval that is not finite and
    /// positive or too short to advance the clock (`now + τ == now`: frames would never
    /// advance), or a NaN `Stop::Time`; an error of kind [`std::io::ErrorKind::Other`] whose
    /// source is [`SimError::Jammed`] when the run jams (as [`run`](Self::run); the frames
    /// before the jam are written).
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, SimError, Simulation, SnapshotEvery, Stop};
    /// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0)];
    /// let mut sim = Simulation::new(particles, SimBox::walls([4.0, 4.0]).unwrap(), SimConfig::default(), BruteForce::default()).unwrap();
    /// let mut out = Vec::new();
    /// let e = sim.run_with_snapshots(Stop::Time(2.0), SnapshotEvery::Time(0.0), &mut out).unwrap_err();
    /// assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    /// let source = e.into_inner().unwrap().downcast::<SimError>().unwrap();
    /// assert!(matches!(*source, SimError::InvalidParameter { name: "every", .. }));
    /// assert!(out.is_empty());
    /// ```
    pub fn run_with_snapshots(
        &mut self,
        stop: Stop,
        every: SnapshotEvery,
        out: &mut impl Write,
    ) -> std::io::Result<()> {
        let invalid = |name: &'static str, value: f64, reason: &'static str| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                SimError::InvalidParameter { name, value, reason },
            )
        };
        match every {
            SnapshotEvery::Collisions(0) => {
                return Err(invalid("every", 0.0, "a snapshot every 0 collisions: must be >= 1"));
            }
            SnapshotEvery::Time(tau)
                if !(tau.is_finite() && tau > 0.0 && self.state.now + tau > self.state.now) =>
            {
                return Err(invalid(
                    "every",
                    tau,
                    "a snapshot interval must be finite, > 0 and long enough to advance the clock",
                ));
            }
            _ => {}
        }
        if let Stop::Time(t) = stop
            && t.is_nan()
        {
            return Err(invalid("stop", t, "the stop time must not be NaN"));
        }
        self.write_xyz(out)?;
        match (stop, every) {
            (_, SnapshotEvery::Collisions(k)) => {
                let start = self.counters.all_collisions();
                loop {
                    let done = self.counters.all_collisions() - start;
                    let chunk = match stop {
                        Stop::Collisions(total) if done >= total => break,
                        Stop::Collisions(total) => k.min(total - done),
                        Stop::Time(_) => k,
                    };
                    let before = self.counters.all_collisions();
                    match stop {
                        Stop::Time(t) => {
                            for _ in 0..chunk {
                                match self.queue.peek() {
                                    Some((_, time)) if time <= t => {
                                        self.next_collision();
                                        self.check_jam().map_err(std::io::Error::other)?;
                                    }
                                    _ => {
                                        self.run(Stop::Time(t)).map_err(std::io::Error::other)?;
                                        return Ok(());
                                    }
                                }
                            }
                        }
                        Stop::Collisions(_) => {
                            self.run(Stop::Collisions(chunk)).map_err(std::io::Error::other)?;
                        }
                    }
                    if self.counters.all_collisions() == before {
                        break;
                    }
                    self.write_xyz(out)?;
                }
            }
            (_, SnapshotEvery::Time(tau)) => {
                let start = self.state.now;
                let mut frame = 1u64;
                // Under a collision budget, the run ends as `next_collision` does when
                // QUIET_EVENTS_PER_SLOT events per queue slot pass without a collision (a system
                // that never collides would otherwise write frames forever).
                let quiet_limit = QUIET_EVENTS_PER_SLOT * self.queue.slots().max(1) as u64;
                let mut quiet = 0u64;
                loop {
                    let t = start + tau * frame as f64;
                    let limit = match stop {
                        Stop::Time(end) => end,
                        Stop::Collisions(_) => f64::INFINITY,
                    };
                    if let Stop::Collisions(total) = stop {
                        // Stop at the collision budget even mid-frame.
                        let target = self.counters.all_collisions() + total;
                        while let Some((slot, time)) = self.queue.peek() {
                            if time > t || self.counters.all_collisions() >= target {
                                break;
                            }
                            if self.process(slot, time).is_some() {
                                quiet = 0;
                                self.check_jam().map_err(std::io::Error::other)?;
                            } else {
                                quiet += 1;
                            }
                        }
                        if quiet >= quiet_limit && self.collision_scheduled() {
                            quiet = 0;
                        }
                        if self.counters.all_collisions() >= target
                            || self.queue.is_empty()
                            || quiet >= quiet_limit
                        {
                            return Ok(());
                        }
                        self.advance_clock(t);
                        self.write_xyz(out)?;
                        frame += 1;
                        continue;
                    }
                    if t > limit {
                        self.run(Stop::Time(limit)).map_err(std::io::Error::other)?;
                        return Ok(());
                    }
                    self.run(Stop::Time(t)).map_err(std::io::Error::other)?;
                    self.write_xyz(out)?;
                    frame += 1;
                }
            }
        }
        Ok(())
    }

    /// Writes the current configuration as an extended-XYZ frame: the particle count, a comment
    /// line with the time and the box (`Lattice`, `Properties=species:S:1:pos:R:3:radius:R:1`),
    /// then one line per particle, positions wrapped into the box (`z = 0` in 2D).
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation, SnapshotEvery, Stop};
    /// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0)];
    /// let mut sim = Simulation::new(particles, SimBox::walls([4.0, 4.0]).unwrap(), SimConfig::default(), BruteForce::default()).unwrap();
    /// let mut out = Vec::new();
    /// sim.run_with_snapshots(Stop::Time(2.0), SnapshotEvery::Time(0.5), &mut out).unwrap();
    /// let text = String::from_utf8(out).unwrap();
    /// assert_eq!(text.lines().filter(|l| l.starts_with("P ")).count(), 5); // t = 0, 0.5, …, 2
    /// assert!(text.contains("P 2.5 1 0 0.5")); // t = 1.5: x = 1 + 1.5
    /// ```
    ///
    /// # Errors
    /// Any I/O error of `out`.
    pub fn write_xyz(&self, out: &mut impl Write) -> std::io::Result<()> {
        let n = self.state.len();
        let l = self.state.sim_box().lengths();
        let side = |a: usize| if a < D { l[a] } else { 0.0 };
        writeln!(out, "{n}")?;
        writeln!(
            out,
            "Lattice=\"{} 0 0 0 {} 0 0 0 {}\" Properties=species:S:1:pos:R:3:radius:R:1 Time={}",
            side(0),
            side(1),
            side(2),
            self.state.now
        )?;
        for i in 0..n {
            let x = self.state.position_wrapped(i);
            let c = |a: usize| if a < D { x[a] } else { 0.0 };
            writeln!(out, "P {} {} {} {}", c(0), c(1), c(2), self.state.radius(i))?;
        }
        Ok(())
    }

    /// The deepest overlap now, relative to the pair's radius sum (walls: to the radius);
    /// `<= 0` when nothing overlaps. `O(n)` through a cell grid.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation};
    /// let particles = vec![
    ///     Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0),
    ///     Particle::new([3.0, 1.0], [0.0, 0.0], 0.5, 1.0),
    /// ];
    /// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// // The closest: the pair, 2 apart for a radius sum of 1 ((1 − 2) / 1), and each disk, 1
    /// // from a wall for a radius of 0.5 ((0.5 − 1) / 0.5).
    /// assert_eq!(sim.max_overlap(), -1.0);
    /// sim.next_collision(); // the pair touches
    /// assert!(sim.max_overlap().abs() < 1e-12);
    /// ```
    pub fn max_overlap(&self) -> f64 {
        max_overlap(&self.state)
    }

    /// The paper's Table 1 for this run so far.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation, Stop};
    /// let particles = vec![
    ///     Particle::new([1.0, 1.0], [1.0, 0.5], 0.5, 1.0),
    ///     Particle::new([3.0, 1.0], [-0.5, 1.0], 0.5, 1.0),
    ///     Particle::new([2.0, 3.0], [0.3, -1.0], 0.5, 1.0),
    /// ];
    /// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
    /// let structure = BruteForce::default();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// sim.run(Stop::Collisions(10)).unwrap();
    /// // Brute force: both other particles are candidates of each.
    /// let row = sim.table1();
    /// assert_eq!((row.neighbours_mean, row.neighbours_max), (2.0, 2));
    /// ```
    pub fn table1(&self) -> Table1 {
        let n = self.state.len();
        let mut total = 0usize;
        let mut max = 0usize;
        for i in 0..n {
            let c = self.structure.candidate_count(i, &self.state);
            total += c;
            max = max.max(c);
        }
        let c = &self.counters;
        let per = |x: u64, y: u64| if y > 0 { x as f64 / y as f64 } else { 0.0 };
        Table1 {
            neighbours_mean: total as f64 / n as f64,
            neighbours_max: max,
            new_per_topological: per(c.new_neighbours, c.topological_events),
            ns_per_topological: per(c.topological_nanos, c.topological_events),
            ns_per_prediction: per(c.prediction_nanos, c.predictions),
            topological_per_collision: per(c.topological_events, c.all_collisions()),
            topological_between_collisions_max: c.max_topological_between_collisions,
            init_ns: c.init_nanos as f64,
            memory_bytes: self.structure.memory_bytes(),
        }
    }

    /// Rescales every velocity by `factor` (a thermostat step) and reschedules all events.
    ///
    /// ```
    /// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, SimError, Simulation};
    /// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0)];
    /// let mut sim = Simulation::new(particles, SimBox::walls([4.0, 4.0]).unwrap(), SimConfig::default(), BruteForce::default()).unwrap();
    /// sim.scale_velocities(2.0).unwrap();
    /// assert_eq!(sim.state().velocity(0), [2.0, 0.0]);
    /// // The constructor's speed limit (1e100) holds here too; nothing changes on refusal.
    /// assert_eq!(sim.scale_velocities(1e300), Err(SimError::Overflow { index: 0 }));
    /// assert_eq!(sim.state().velocity(0), [2.0, 0.0]);
    /// ```
    ///
    /// # Errors
    /// [`SimError::InvalidParameter`] if `factor` is not finite and > 0, and
    /// [`SimError::Overflow`] (naming the first such particle; nothing is changed) if a scaled
    /// speed would exceed [`MAX_MAGNITUDE`], the limit [`Simulation::new`] applies.
    pub fn scale_velocities(&mut self, factor: f64) -> Result<(), SimError> {
        if !(factor.is_finite() && factor > 0.0) {
            return Err(SimError::InvalidParameter {
                name: "factor",
                value: factor,
                reason: "must be finite and > 0",
            });
        }
        if let Some(index) = (0..self.state.len())
            .find(|&i| too_fast(self.state.velocity(i).map(|v| v * factor), self.state.mass[i]))
        {
            return Err(SimError::Overflow { index });
        }
        let now = self.state.now;
        for i in 0..self.state.len() {
            self.state.advance(i, now);
            self.state.bodies[i].vel = self.state.bodies[i].vel.map(|v| v * factor);
            self.state.counter[i] = self.state.counter[i].wrapping_add(1);
        }
        self.kinetic = self.state.kinetic_energy();
        self.reschedule_all()
    }

    /// Lubachevsky–Stillinger compression: radii grow during the event-driven run, all in
    /// proportion, at `rate` (the relative growth of every radius per unit time, e.g. `0.01` for
    /// 1 % of the radius per time unit), until the packing fraction is `target`; then radii stay
    /// fixed. Collisions during growth separate the pair faster than its surfaces grow (see
    /// the crate's `kinematics` module), which heats the system, so every `thermostat_every` collisions the
    /// velocities are rescaled to the kinetic energy at the start (`0` counts as `1`: after
    /// every collision), and once more at the end.
    ///
    /// ```
    /// use kinetic_cdo::{NeighbourLists, SimBox, SimConfig, Simulation, init};
    /// let sim_box = SimBox::periodic([20.0, 20.0]).unwrap();
    /// let particles = init::random_placement(&sim_box, &vec![0.3; 300], init::MassRule::Unit, 1.0, 5).unwrap();
    /// let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), NeighbourLists::default()).unwrap();
    /// sim.compress(0.6, 0.1, 300).unwrap();
    /// assert!((sim.state().packing_fraction() - 0.6).abs() < 1e-9);
    /// assert!(sim.max_overlap() < 1e-9);
    /// ```
    ///
    /// # Errors
    /// [`SimError::InvalidParameter`] for a non-positive rate, or one at which the largest
    /// radius would grow faster than [`MAX_MAGNITUDE`] (nothing changed), [`SimError::PackingOutOfReach`] if
    /// `target` is below the current packing fraction or not below 1, or if the compression jams
    /// (more than [`COMPRESSION_COLLISIONS_PER_PARTICLE`] collisions per particle; the radii
    /// reached are kept, the kinetic energy restored, and the simulation stays usable), and
    /// [`SimError::BoxTooSmall`] if the grown particles no longer fit the structure or a
    /// periodic side, [`SimError::NoRoomBetweenWalls`] if the largest grown particle would be at
    /// least as wide as the gap between two walls (both before any growth).
    pub fn compress(&mut self, target: f64, rate: f64, thermostat_every: u64) -> Result<(), SimError> {
        if !(rate.is_finite() && rate > 0.0) {
            return Err(SimError::InvalidParameter {
                name: "rate",
                value: rate,
                reason: "must be finite and > 0",
            });
        }
        let phi = self.state.packing_fraction();
        if !(target.is_finite() && target >= phi * (1.0 - 1e-12) && target < 1.0) {
            return Err(SimError::PackingOutOfReach {
                requested: target,
                reason: "compression needs current packing fraction <= target < 1",
            });
        }
        if target <= phi {
            // Already there (to rounding).
            return Ok(());
        }
        let scale = self.state.radii.at(self.state.now);
        let cap = scale * (target / phi).powf(1.0 / D as f64);
        // The surfaces' speed: collisions during growth separate pairs at about twice it, so
        // it obeys the speed limit (a rate of 1e200 made the kinetic energy infinite, and the
        // thermostat then failed with the simulation left growing).
        let surface_speed = rate * scale * self.state.max_base_radius;
        if surface_speed > MAX_MAGNITUDE {
            return Err(SimError::InvalidParameter {
                name: "rate",
                value: rate,
                reason: "the largest radius would grow faster than MAX_MAGNITUDE",
            });
        }
        let diameter = 2.0 * self.state.max_base_radius * cap;
        check_sides(&self.state.sim_box, diameter)?;
        let energy = self.state.kinetic_energy();
        let start = self.state.now;
        let end = start + (cap - scale) / (rate * scale);
        let before = self.state.radii;
        self.state.radii = RadiusLaw { scale, rate: rate * scale, since: start, cap };
        if let Err(e) = self.reschedule_all() {
            // The structure cannot hold the grown particles: leave everything as it was.
            self.state.radii = before;
            self.reschedule_all()?;
            return Err(e);
        }
        let thermostat_every = thermostat_every.max(1);
        let mut since_thermostat = 0;
        // Near jamming the collision rate diverges and growth stalls; give up after a budget
        // far above what an unjammed compression needs, keeping the radii reached.
        let budget = COMPRESSION_COLLISIONS_PER_PARTICLE * self.state.len() as u64;
        let mut spent = 0u64;
        while let Some((slot, time)) = self.queue.peek() {
            if time > end {
                break;
            }
            if self.process(slot, time).is_some() {
                spent += 1;
                if spent > budget {
                    let reached = self.state.radii.at(self.state.now);
                    self.state.radii =
                        RadiusLaw { scale: reached, rate: 0.0, since: self.state.now, cap: reached };
                    // The thermostat's last word, as after a compression that succeeds.
                    let now_energy = self.state.kinetic_energy();
                    if now_energy > 0.0 && energy > 0.0 {
                        self.scale_velocities((energy / now_energy).sqrt())?;
                    } else {
                        self.reschedule_all()?;
                    }
                    return Err(SimError::PackingOutOfReach {
                        requested: target,
                        reason: "the compression jammed (collision budget spent) before reaching it",
                    });
                }
                since_thermostat += 1;
                if since_thermostat >= thermostat_every {
                    since_thermostat = 0;
                    let now_energy = self.state.kinetic_energy();
                    if now_energy > 0.0 && energy > 0.0 {
                        self.scale_velocities((energy / now_energy).sqrt())?;
                    }
                }
            }
        }
        self.advance_clock(end.max(self.state.now));
        self.state.radii = RadiusLaw { scale: cap, rate: 0.0, since: self.state.now, cap };
        let now_energy = self.state.kinetic_energy();
        if now_energy > 0.0 && energy > 0.0 {
            self.scale_velocities((energy / now_energy).sqrt())?;
        } else {
            self.reschedule_all()?;
        }
        Ok(())
    }

    /// Rebuilds the structure and predicts every particle from scratch.
    fn reschedule_all(&mut self) -> Result<(), SimError> {
        let start = Instant::now();
        // New trajectories (new radii after a compression, rescaled velocities): the collisions
        // counted towards a jam so far are not part of what follows (after a compression that
        // jammed, every later run reported the compression's own burst as a jam).
        self.jam = JamWatch::default();
        self.queue.clear();
        let n = self.state.len();
        {
            let mut certificates = Certificates { queue: &mut self.queue, offset: n, now: self.state.now };
            self.structure.build(&mut self.state, &mut certificates)?;
        }
        for i in 0..n {
            self.horizon[i] = horizon_end(self.config.prediction_horizon, self.state.now);
            self.predict(i);
        }
        self.counters.init_nanos = start.elapsed().as_nanos() as u64;
        Ok(())
    }

    fn advance_clock(&mut self, t: f64) {
        self.observables.kinetic_integral += self.kinetic * (t - self.last_event);
        self.observables.duration = t - self.observables.since;
        self.last_event = t;
        self.state.now = t;
    }

    /// Processes the event in `slot` at `time`; returns the collision if it was one.
    fn process(&mut self, slot: usize, time: f64) -> Option<Collision> {
        debug_assert!(time >= self.state.now, "event in the past: {time} < {}", self.state.now);
        self.advance_clock(time);
        let n = self.state.len();
        if slot >= n {
            self.topological(slot - n);
            return None;
        }
        let i = slot;
        match self.events[i] {
            ParticleEvent::Collision { partner, partner_counter } => {
                let k = partner as usize;
                if self.state.counter[k] != partner_counter {
                    self.counters.stale_events += 1;
                    self.predict(i);
                    return None;
                }
                self.jam.record(time, self.pair_time_scale(i, k));
                self.collide(i, k);
                Some(Collision { time, kind: CollisionKind::Pair(i.min(k), i.max(k)) })
            }
            ParticleEvent::Wall { axis, high } => {
                let speed = (self.state.velocity_at(i, time)[axis as usize]).abs();
                self.jam.record(time, self.state.radius_at(i, time) / speed);
                self.hit_wall(i, axis as usize, high);
                Some(Collision { time, kind: CollisionKind::Wall { particle: i, axis: axis as usize, high } })
            }
            ParticleEvent::Predict => {
                self.counters.horizon_events += 1;
                self.state.advance(i, time);
                self.horizon[i] = horizon_end(self.config.prediction_horizon, time);
                self.predict(i);
                None
            }
            ParticleEvent::None => {
                self.queue.cancel(i);
                None
            }
        }
    }

    /// The time the pair `i`, `k` takes to cross its own size at its relative speed now: the
    /// scale a jam's window is measured against (infinite if the two move together).
    fn pair_time_scale(&self, i: usize, k: usize) -> f64 {
        let now = self.state.now;
        let u = sub(self.state.velocity_at(k, now), self.state.velocity_at(i, now));
        (self.state.radius_at(i, now) + self.state.radius_at(k, now)) / dot(u, u).sqrt()
    }

    fn topological(&mut self, slot: usize) {
        let start = self.config.measure_times.then(Instant::now);
        let n = self.state.len();
        let mut pairs = std::mem::take(&mut self.pairs);
        let outcome = {
            let mut certificates = Certificates { queue: &mut self.queue, offset: n, now: self.state.now };
            self.structure.certificate_failed(slot, &mut self.state, &mut certificates, &mut pairs)
        };
        let Some(created) = outcome else {
            self.counters.certificate_rechecks += 1;
            pairs.clear();
            self.pairs = pairs;
            return;
        };
        self.counters.topological_events += 1;
        self.counters.topological_since_collision += 1;
        self.counters.new_neighbours += created as u64;
        for &(a, k, shift) in &pairs {
            self.consider_pair(a as usize, k as usize, shift);
        }
        pairs.clear();
        self.pairs = pairs;
        if let Some(start) = start {
            self.counters.topological_nanos += start.elapsed().as_nanos() as u64;
        }
    }

    /// One collision check for a new candidate pair; kept if earlier than `a`'s event.
    fn consider_pair(&mut self, a: usize, k: usize, shift: [f64; D]) {
        let now = self.state.now;
        let t = now + self.contact_time(a, k, shift);
        if t <= self.horizon[a] && t < self.queue.time_of(a).unwrap_or(f64::INFINITY) {
            self.events[a] =
                ParticleEvent::Collision { partner: k as u32, partner_counter: self.state.counter[k] };
            self.queue.schedule(a, t);
        }
    }

    /// Time from now until `i` and `k + shift` touch (infinite if never).
    #[inline]
    fn contact_time(&mut self, i: usize, k: usize, shift: [f64; D]) -> f64 {
        self.counters.pair_checks += 1;
        let now = self.state.now;
        let d = self.state.separation_at(i, k, shift, now);
        let u = sub(self.state.velocity_at(k, now), self.state.velocity_at(i, now));
        let sigma = self.state.radius_at(i, now) + self.state.radius_at(k, now);
        let growth = self.state.radius_rate(i) + self.state.radius_rate(k);
        pair_contact_time(d, u, sigma, growth)
    }

    /// Predicts particle `i`'s earliest event from scratch and puts it in its slot.
    fn predict(&mut self, i: usize) {
        let start = self.config.measure_times.then(Instant::now);
        self.counters.predictions += 1;
        let now = self.state.now;
        let state = &self.state;
        let xi = state.position_at(i, now);
        let vi = state.velocity_at(i, now);
        let ri = state.radius_at(i, now);
        let rate_i = state.radius_rate(i);
        let mut best_tau = self.horizon[i] - now;
        let mut best = if best_tau.is_finite() { ParticleEvent::Predict } else { ParticleEvent::None };
        let mut checks = 0u64;
        // The inner loop of the whole simulation: one cache line (the `Body`) per candidate,
        // and the radius law and gravity hoisted out of it.
        let scale = state.radii.at(now);
        let growth = state.radii.rate;
        let base_i = state.bodies[i].radius;
        let gravity = state.gravity;
        let falling = gravity.iter().any(|&g| g != 0.0);
        self.structure.for_each_candidate(i, state, |k, shift| {
            checks += 1;
            let body = &state.bodies[k];
            let dt = now - body.time;
            let mut xk = add_scaled(body.pos, dt, body.vel);
            let mut vk = body.vel;
            if falling {
                xk = add_scaled(xk, 0.5 * dt * dt, gravity);
                vk = add_scaled(vk, dt, gravity);
            }
            let d = sub(crate::vector::add(xk, shift), xi);
            let u = sub(vk, vi);
            let base = base_i + body.radius;
            let tau = pair_contact_time(d, u, base * scale, base * growth);
            if tau < best_tau {
                best_tau = tau;
                best = ParticleEvent::Collision { partner: k as u32, partner_counter: state.counter[k] };
            }
        });
        self.counters.pair_checks += checks;
        let lengths = state.sim_box.lengths();
        let periodic = state.sim_box.periodic_axes();
        let g = state.gravity;
        for a in 0..D {
            if periodic[a] {
                continue;
            }
            let low = gap_closing_time(xi[a] - ri, vi[a] - rate_i, g[a]);
            if low < best_tau {
                best_tau = low;
                best = ParticleEvent::Wall { axis: a as u8, high: false };
            }
            let high = gap_closing_time(lengths[a] - xi[a] - ri, -vi[a] - rate_i, -g[a]);
            if high < best_tau {
                best_tau = high;
                best = ParticleEvent::Wall { axis: a as u8, high: true };
            }
        }
        self.events[i] = best;
        if best == ParticleEvent::None {
            self.queue.cancel(i);
        } else {
            self.queue.schedule(i, now + best_tau);
        }
        if let Some(start) = start {
            self.counters.prediction_nanos += start.elapsed().as_nanos() as u64;
        }
    }

    /// The restitution for a collision involving particles that last collided at `last`.
    fn restitution(&self, last: &[f64]) -> f64 {
        let now = self.state.now;
        if self.config.tc_duration > 0.0 && last.iter().any(|&t| now - t < self.config.tc_duration) {
            1.0
        } else {
            self.config.restitution
        }
    }

    fn collide(&mut self, i: usize, k: usize) {
        let now = self.state.now;
        self.state.advance(i, now);
        self.state.advance(k, now);
        let d = self.state.sim_box.nearest_image(sub(self.state.bodies[k].pos, self.state.bodies[i].pos));
        let distance = dot(d, d).sqrt();
        let n = d.map(|c| c / distance);
        let u = sub(self.state.bodies[k].vel, self.state.bodies[i].vel);
        let u_n = dot(u, n);
        let growth = self.state.radius_rate(i) + self.state.radius_rate(k);
        let e = self.restitution(&[self.state.last_collision[i], self.state.last_collision[k]]);
        let (mi, mk) = (self.state.mass[i], self.state.mass[k]);
        // The change of the relative normal velocity, shared between the two in proportion to
        // the other's share of the mass: `mk / (mi + mk)` as `1 / (1 + mi / mk)`, which depends
        // only on the ratio. (Through an impulse divided by each mass, masses or impulses below
        // f64's normal range lost their precision: masses of 7e-323 and 3e-323 lost a fifth of
        // the energy, and masses of 5e-324 gave no impulse at all, the pair colliding forever.)
        // Never pull a pair together: rounding can leave u_n a hair above the growth rate.
        let change = collision_impulse(u_n, growth, e, 1.0).max(0.0);
        let (share_i, share_k) = (1.0 / (1.0 + mi / mk), 1.0 / (1.0 + mk / mi));
        // mi·mk/(mi + mk) for the virial, without overflow (masses of 1e160).
        let (light, heavy) = if mi <= mk { (mi, mk) } else { (mk, mi) };
        let impulse = change * (light / (1.0 + light / heavy));
        let before = 0.5
            * (mi * dot(self.state.bodies[i].vel, self.state.bodies[i].vel)
                + mk * dot(self.state.bodies[k].vel, self.state.bodies[k].vel));
        self.state.bodies[i].vel = add_scaled(self.state.bodies[i].vel, -change * share_i, n);
        self.state.bodies[k].vel = add_scaled(self.state.bodies[k].vel, change * share_k, n);
        let after = 0.5
            * (mi * dot(self.state.bodies[i].vel, self.state.bodies[i].vel)
                + mk * dot(self.state.bodies[k].vel, self.state.bodies[k].vel));
        self.kinetic += after - before;
        self.observables.virial += impulse * distance;
        self.observables.collisions += 1;
        self.counters.collisions += 1;
        self.finish_collision(&[i, k]);
    }

    fn hit_wall(&mut self, i: usize, axis: usize, high: bool) {
        let now = self.state.now;
        self.state.advance(i, now);
        let rate = self.state.radius_rate(i);
        let e = self.restitution(&[self.state.last_collision[i]]);
        let v = self.state.bodies[i].vel[axis];
        // Reflect in the frame of the particle's growing surface, always away from the wall: when
        // the hit is due less than an ulp of the clock ahead, the particle is not advanced and
        // may still be leaving; its speed relative to the wall is what it will have on arrival.
        let new = if high { -rate - e * (v + rate).abs() } else { rate + e * (v - rate).abs() };
        let m = self.state.mass[i];
        self.kinetic += 0.5 * m * (new * new - v * v);
        self.observables.wall_impulse += m * (new - v).abs();
        self.observables.wall_collisions += 1;
        self.state.bodies[i].vel[axis] = new;
        self.counters.wall_collisions += 1;
        self.finish_collision(&[i]);
    }

    /// Bookkeeping shared by pair and wall collisions of `involved`.
    fn finish_collision(&mut self, involved: &[usize]) {
        let now = self.state.now;
        let c = &mut self.counters;
        c.max_topological_between_collisions =
            c.max_topological_between_collisions.max(c.topological_since_collision);
        c.topological_since_collision = 0;
        let n = self.state.len();
        for &i in involved {
            self.state.counter[i] = self.state.counter[i].wrapping_add(1);
            self.state.last_collision[i] = now;
            self.horizon[i] = horizon_end(self.config.prediction_horizon, now);
        }
        let mut certificates = Certificates { queue: &mut self.queue, offset: n, now };
        self.structure.trajectories_changed(involved, &self.state, &mut certificates);
        for &i in involved {
            self.predict(i);
        }
    }
}

/// How many events per queue slot [`Simulation::next_collision`] processes without a collision
/// before it concludes that none is coming.
///
/// ```
/// use kinetic_cdo::{Cdo, Particle, QUIET_EVENTS_PER_SLOT, RegularSubdivision};
/// use kinetic_cdo::{SimBox, SimConfig, Simulation};
/// // One disk in a periodic box never collides, but crosses cell sides forever.
/// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.3], 0.5, 1.0)];
/// let sim_box = SimBox::periodic([10.0, 10.0]).unwrap();
/// let structure = RegularSubdivision::new();
/// let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
/// assert_eq!(sim.next_collision(), None);
/// // The particle's slot and the structure's certificate slots.
/// let slots = 1 + sim.structure().certificate_slots(1) as u64;
/// assert_eq!(sim.counters().topological_events, QUIET_EVENTS_PER_SLOT * slots);
/// ```
pub const QUIET_EVENTS_PER_SLOT: u64 = 10_000;

/// The collisions per particle a compression may spend before [`Simulation::compress`] gives
/// up as jammed (an unjammed compression to φ = 0.5 in 3D or 0.7 in 2D needs a few hundred).
///
/// ```
/// use kinetic_cdo::{BruteForce, COMPRESSION_COLLISIONS_PER_PARTICLE, Particle, SimBox};
/// use kinetic_cdo::{SimConfig, SimError, Simulation};
/// // Two disks cannot cover 80 % of a square (at most 2π(2 − √2)²/4 ≈ 54 %, in opposite
/// // corners): the compression jams and gives up.
/// let particles = vec![
///     Particle::new([1.0, 1.0], [1.0, 0.5], 0.5, 1.0),
///     Particle::new([3.0, 3.0], [-0.5, 1.0], 0.5, 1.0),
/// ];
/// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
/// let structure = BruteForce::default();
/// let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
/// let e = sim.compress(0.8, 0.1, 10).unwrap_err();
/// assert!(matches!(e, SimError::PackingOutOfReach { requested: 0.8, .. }));
/// assert!(sim.counters().all_collisions() > 2 * COMPRESSION_COLLISIONS_PER_PARTICLE);
/// ```
pub const COMPRESSION_COLLISIONS_PER_PARTICLE: u64 = 20_000;

/// The largest speed (and box side) accepted: squares of such magnitudes, and their products
/// with masses and times, stay far inside the range of `f64`.
///
/// ```
/// use kinetic_cdo::{BruteForce, MAX_MAGNITUDE, Particle, SimBox, SimConfig, SimError};
/// use kinetic_cdo::Simulation;
/// assert!(SimBox::walls([MAX_MAGNITUDE, 1.0]).is_ok());
/// assert!(SimBox::walls([2.0 * MAX_MAGNITUDE, 1.0]).is_err());
/// let fast = vec![Particle::new([1.0, 1.0], [2.0 * MAX_MAGNITUDE, 0.0], 0.5, 1.0)];
/// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
/// let sim = Simulation::new(fast, sim_box, SimConfig::default(), BruteForce::default());
/// assert!(matches!(sim, Err(SimError::Overflow { index: 0 })));
/// ```
pub const MAX_MAGNITUDE: f64 = 1e100;

/// The smallest radius (and neighbour-list shell) accepted, `1 / MAX_MAGNITUDE`: event times
/// square sizes, and the square of a length below about 1e-154 underflows to zero, which would
/// turn a finite time into an instant one (an endless loop of events at one time).
///
/// ```
/// use kinetic_cdo::{BruteForce, MAX_MAGNITUDE, MIN_LENGTH, Particle, SimBox, SimConfig};
/// use kinetic_cdo::{SimError, Simulation};
/// assert!((MIN_LENGTH * MAX_MAGNITUDE - 1.0).abs() < 1e-15);
/// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
/// let tiny = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.5 * MIN_LENGTH, 1.0)];
/// let sim = Simulation::new(tiny, sim_box, SimConfig::default(), BruteForce::default());
/// assert!(matches!(sim, Err(SimError::InvalidRadius { index: 0, .. })));
/// let small = vec![Particle::new([1.0, 1.0], [1.0, 0.0], MIN_LENGTH, 1.0)];
/// assert!(Simulation::new(small, sim_box, SimConfig::default(), BruteForce::default()).is_ok());
/// ```
pub const MIN_LENGTH: f64 = 1e-100;

/// Overlaps shallower than this fraction of the radius sum are accepted at start: rounding
/// leaves pairs that just collided a few ulps inside each other, so that a snapshot of a
/// running simulation ([`State::particles`]) is a valid start. The drift guard of
/// the crate's `kinematics` module separates such pairs at their next approach.
///
/// The depth of those overlaps grows with the clock (a collision time is rounded to an ulp of
/// the clock, so the pair meets up to `ulp(t) · |u|` deep) and with the coordinates' size
/// (positions are unwrapped). A snapshot is therefore a valid start only while both stay
/// well below this tolerance: with unit diameters and speeds of about 10, until `t` of about
/// `10⁴`. Later snapshots can be refused with [`SimError::Overlap`] (measured: 12 disks at
/// `kT = 100`, a pair 1.5e-10 deep at `t = 7·10⁴`); restarting the clock from such a state needs
/// the pairs moved apart by the caller.
///
/// ```
/// use kinetic_cdo::{BruteForce, OVERLAP_TOLERANCE, Particle, SimBox, SimConfig, SimError};
/// use kinetic_cdo::Simulation;
/// // Two disks of radius 0.5 whose centres are 1 − depth apart (radius sum 1).
/// let pair = |depth: f64| {
///     vec![
///         Particle::new([2.0, 2.0], [0.0, 0.0], 0.5, 1.0),
///         Particle::new([3.0 - depth, 2.0], [0.0, 0.0], 0.5, 1.0),
///     ]
/// };
/// let (sim_box, config) = (SimBox::walls([5.0, 4.0]).unwrap(), SimConfig::default());
/// let brute = BruteForce::default;
/// let shallow = Simulation::new(pair(0.5 * OVERLAP_TOLERANCE), sim_box, config, brute());
/// assert!(shallow.is_ok());
/// let deep = Simulation::new(pair(2.0 * OVERLAP_TOLERANCE), sim_box, config, brute());
/// assert!(matches!(deep, Err(SimError::Overlap { first: 0, second: 1, .. })));
/// ```
pub const OVERLAP_TOLERANCE: f64 = 1e-10;

/// The end of a prediction horizon `h` started at `t`: `t + h`, but never `t` itself (a horizon
/// below the clock's rounding would schedule predict-trajectory events that cannot advance the
/// clock, an endless loop at one instant), so at least the next representable time.
fn horizon_end(h: Option<f64>, t: f64) -> f64 {
    match h {
        None => f64::INFINITY,
        Some(h) => {
            let end = t + h;
            if end > t { end } else { t.next_up() }
        }
    }
}

/// Whether `velocity` (of a particle of `mass`) is too fast for `f64` event times: its squared
/// speed above [`MAX_MAGNITUDE`] squared, or its kinetic energy not finite.
fn too_fast<const D: usize>(velocity: [f64; D], mass: f64) -> bool {
    let speed_squared = dot(velocity, velocity);
    !(speed_squared * mass.abs().max(1.0)).is_finite() || speed_squared > MAX_MAGNITUDE * MAX_MAGNITUDE
}

fn validate_config<const D: usize>(config: &SimConfig<D>) -> Result<(), SimError> {
    let e = config.restitution;
    if !(e > 0.0 && e <= 1.0) {
        return Err(SimError::InvalidParameter {
            name: "restitution",
            value: e,
            reason: "must be in (0, 1]",
        });
    }
    if !(config.tc_duration.is_finite() && config.tc_duration >= 0.0) {
        return Err(SimError::InvalidParameter {
            name: "tc_duration",
            value: config.tc_duration,
            reason: "must be finite and >= 0",
        });
    }
    if let Some(&g) = config.gravity.iter().find(|g| !(g.is_finite() && g.abs() <= MAX_MAGNITUDE)) {
        return Err(SimError::InvalidParameter {
            name: "gravity",
            value: g,
            reason: "must be finite and at most 1e100",
        });
    }
    if config.restitution < 1.0 && config.tc_duration == 0.0 && config.gravity.iter().any(|&g| g != 0.0) {
        // A particle bouncing on a wall under gravity with e < 1 bounces infinitely often
        // before a finite time (inelastic collapse to a resting contact), which an event-driven
        // run cannot get past. The TC model is the standard remedy.
        return Err(SimError::InvalidParameter {
            name: "tc_duration",
            value: config.tc_duration,
            reason: "must be > 0 (the TC guard) when restitution < 1 under gravity: without it a \
                     bouncing particle collapses onto a wall after infinitely many collisions in \
                     finite time",
        });
    }
    if let Some(h) = config.prediction_horizon
        && !(h.is_finite() && h > 0.0)
    {
        return Err(SimError::InvalidParameter {
            name: "prediction_horizon",
            value: h,
            reason: "must be finite and > 0",
        });
    }
    Ok(())
}

fn check_sides<const D: usize>(sim_box: &SimBox<D>, diameter: f64) -> Result<(), SimError> {
    for a in 0..D {
        let length = sim_box.lengths()[a];
        if sim_box.periodic_axes()[a] {
            if length < 3.0 * diameter {
                return Err(SimError::BoxTooSmall { axis: a, length, required: 3.0 * diameter });
            }
        } else if length <= diameter {
            // A particle spanning the gap would touch both walls at once and, once it moved
            // across, bounce between them infinitely often at one instant.
            return Err(SimError::NoRoomBetweenWalls { axis: a, length, diameter });
        }
    }
    Ok(())
}

/// Checks the particles and builds the state at time 0.
fn validated_state<const D: usize>(
    particles: Vec<Particle<D>>,
    sim_box: SimBox<D>,
    gravity: [f64; D],
) -> Result<State<D>, SimError> {
    if particles.is_empty() {
        return Err(SimError::Empty);
    }
    let lengths = sim_box.lengths();
    let periodic = sim_box.periodic_axes();
    let mut max_radius = 0.0f64;
    for (index, p) in particles.iter().enumerate() {
        if p.position.iter().chain(&p.velocity).any(|c| !c.is_finite()) {
            return Err(SimError::NonFiniteParticle { index });
        }
        if !(p.radius.is_finite() && p.radius >= MIN_LENGTH) {
            return Err(SimError::InvalidRadius { index, radius: p.radius });
        }
        if !(p.mass.is_finite() && p.mass > 0.0) {
            return Err(SimError::InvalidMass { index, mass: p.mass });
        }
        // Event times square velocities and distances: keep them inside f64's range.
        if too_fast(p.velocity, p.mass) {
            return Err(SimError::Overflow { index });
        }
        for a in 0..D {
            let slack = OVERLAP_TOLERANCE * p.radius;
            if !periodic[a]
                && (p.position[a] - p.radius < -slack || p.position[a] + p.radius > lengths[a] + slack)
            {
                return Err(SimError::OutsideBox { index, axis: a });
            }
            // At rest against a wall that gravity pushes it into: a resting contact, which an
            // event-driven run cannot represent (it would bounce infinitely often at once).
            if !periodic[a] && p.velocity[a] == 0.0 {
                let on_low = p.position[a] - p.radius <= slack && gravity[a] < 0.0;
                let on_high = p.position[a] + p.radius >= lengths[a] - slack && gravity[a] > 0.0;
                if on_low || on_high {
                    return Err(SimError::RestingOnWall { index, axis: a });
                }
            }
        }
        max_radius = max_radius.max(p.radius);
    }
    check_sides(&sim_box, 2.0 * max_radius)?;
    let n = particles.len();
    let state = State {
        mass: particles.iter().map(|p| p.mass).collect(),
        bodies: particles
            .into_iter()
            .map(|p| Body { pos: sim_box.wrap(p.position), vel: p.velocity, time: 0.0, radius: p.radius })
            .collect(),
        counter: vec![0; n],
        last_collision: vec![f64::NEG_INFINITY; n],
        sim_box,
        gravity,
        radii: RadiusLaw::FIXED,
        now: 0.0,
        max_base_radius: max_radius,
        unwrap: vec![[0.0; D]; n],
    };
    let mut overlap = None;
    let points: Vec<[f64; D]> = state.bodies.iter().map(|b| b.pos).collect();
    crate::pairs::for_each_close_pair(&points, &state.sim_box, 2.0 * max_radius, |i, k, d| {
        let contact = state.bodies[i].radius + state.bodies[k].radius;
        let distance = dot(d, d).sqrt();
        if overlap.is_none() && distance < contact * (1.0 - OVERLAP_TOLERANCE) {
            overlap = Some(SimError::Overlap { first: i, second: k, distance, contact });
        }
    });
    match overlap {
        Some(e) => Err(e),
        None => Ok(state),
    }
}

/// The deepest overlap in `state` now, relative to the radius sum (or the radius, for walls).
pub(crate) fn max_overlap<const D: usize>(state: &State<D>) -> f64 {
    let n = state.len();
    let points: Vec<[f64; D]> = (0..n).map(|i| state.stored_position(i)).collect();
    let mut worst = f64::NEG_INFINITY;
    // The reach with a little slack: a touching pair is as far apart as the radius sum, give or
    // take rounding, and must be seen (at the reach itself, one a rounding apart was missed,
    // and a wall far away reported as the closest: -5e6 for a touching pair in a big box).
    let reach = 2.0 * state.max_radius_cap() * (1.0 + 1e-6);
    crate::pairs::for_each_close_pair(&points, &state.sim_box, reach, |i, k, d| {
        let contact = state.radius(i) + state.radius(k);
        worst = worst.max((contact - dot(d, d).sqrt()) / contact);
    });
    let lengths = state.sim_box.lengths();
    for (i, x) in points.iter().enumerate() {
        let r = state.radius(i);
        for a in 0..D {
            if !state.sim_box.periodic_axes()[a] {
                worst = worst.max((r - x[a]) / r).max((x[a] + r - lengths[a]) / r);
            }
        }
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BruteForce;

    /// A prediction horizon below the clock's rounding (`now + h == now`) used to schedule
    /// predict-trajectory events at `now` forever: `run` never returned.
    #[test]
    fn horizon_below_the_clock_rounding_still_advances() {
        let config = SimConfig::<2> { prediction_horizon: Some(1.0), ..SimConfig::default() };
        let particles = vec![Particle::new([5.0, 5.0], [0.0, 0.0], 0.5, 1.0)];
        let mut sim =
            Simulation::new(particles, SimBox::walls([10.0, 10.0]).unwrap(), config, BruteForce::default())
                .unwrap();
        // Jump the clock to 1e17 (one ulp is 16 there) with the particle at rest: no physical change.
        let t0 = 1e17;
        sim.state.now = t0;
        sim.state.bodies[0].time = t0;
        sim.last_event = t0;
        sim.observables.since = t0;
        sim.reschedule_all().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            sim.run(Stop::Time(t0 + 64.0)).unwrap();
            let _ = tx.send((sim.state.now, sim.counters.horizon_events));
        });
        let (now, events) = rx.recv_timeout(std::time::Duration::from_secs(20)).expect("run hung");
        assert_eq!(now, t0 + 64.0);
        assert!((1..=8).contains(&events), "{events} horizon events");
    }
}
