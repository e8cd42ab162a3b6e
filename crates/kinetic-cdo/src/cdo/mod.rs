//! Collision-detection optimisation (CDO) structures: who can collide with whom.
//!
//! The engine predicts collisions only between *candidates* that a structure names, and the
//! structure keeps its candidate sets right as particles move by scheduling *certificates* whose
//! failure is a topological event (a particle crossing into another cell, two box endpoints
//! swapping, a particle leaving its neighbour-list shell). A structure is correct when two
//! particles that touch are candidates of each other at that moment (the paper's definition).
//!
//! | structure | candidates of `i` | topological event |
//! |---|---|---|
//! | [`BruteForce`] | every other particle (the reference) | none |
//! | [`RegularSubdivision`] | particles in the `3^D` cells around `i`'s (dense array of cells, side ≥ largest diameter) | `i`'s centre crosses a cell side |
//! | [`SpatialTree`] | the same, but only non-empty cells exist, in an ordered map keyed by cell coordinates | the same |
//! | [`SegmentTrees`] | particles whose bounding boxes overlap `i`'s | two box endpoints meet on an axis |
//! | [`NeighbourLists`] | particles whose bounding spheres (shell `δ`) overlap `i`'s | `i` leaves its shell |
//! | [`LaguerreDelaunay`] (2D) | `i`'s neighbours in the regular triangulation of the disks | four disks become co-circular in power (an edge flips) |

mod brute;
mod cells;
mod delaunay;
mod neighbour_list;
mod segment;

pub use brute::BruteForce;
pub use cells::MAX_DENSE_CELLS;
pub(crate) use cells::for_each_distinct_neighbour_cell;
pub use cells::{CellLists, CellStore, DenseCells, RegularSubdivision, SpatialTree, TreeCells};
pub use delaunay::LaguerreDelaunay;
pub use neighbour_list::DEFAULT_RELATIVE_SHELL;
pub use neighbour_list::NeighbourLists;
pub use segment::SegmentTrees;

use crate::queue::EventQueue;
use crate::{SimError, State};

/// The finest length a structure resolves, relative to the largest coordinate it handles
/// (`2^-48`, 16 ulps of that coordinate): interval endpoints `x ± r` or a shell `δ/2` below it
/// are (nearly) lost in the rounding of `x`, and the structure would miss collisions or stop
/// advancing. Structures that depend on such lengths refuse them at build with
/// [`SimError::Unsupported`].
pub(crate) const RESOLUTION: f64 = 1.0 / (1u64 << 48) as f64;

/// The largest coordinate magnitude of `state` along any axis now, and the box sides.
pub(crate) fn coordinate_scale<const D: usize>(state: &State<D>) -> f64 {
    let sides = state.sim_box().lengths().into_iter().fold(0.0, f64::max);
    (0..state.len()).flat_map(|i| state.stored_position(i)).fold(sides, |m, x| m.max(x.abs()))
}

/// The certificate slots of a structure inside the engine's event queue.
///
/// Slot `s` of the structure is slot `offset + s` of the queue; the structure only ever sees its
/// own numbering.
///
/// ```
/// # use kinetic_cdo::queue::EventQueue;
/// # use kinetic_cdo::{CandidatePair, Cdo, Certificates, CollisionKind, Particle, SimBox};
/// # use kinetic_cdo::{SimConfig, SimError, Simulation, State, Stop};
/// # type Certs<'a, Q> = Certificates<'a, Q>;
/// /// Schedules its certificates 0 and 1 at t = 1 and 2, and records every failure.
/// #[derive(Default)]
/// struct Recorder {
///     failed: Vec<(usize, f64)>,
/// }
/// impl Cdo<2> for Recorder {
///     fn build<Q: EventQueue>(
///         &mut self,
///         _: &mut State<2>,
///         c: &mut Certs<Q>,
///     ) -> Result<(), SimError> {
///         c.schedule(0, 1.0);
///         c.schedule(1, 2.0);
///         Ok(())
///     }
///     fn certificate_failed<Q: EventQueue>(
///         &mut self,
///         slot: usize,
///         _: &mut State<2>,
///         c: &mut Certs<Q>,
///         _: &mut Vec<CandidatePair<2>>,
///     ) -> Option<usize> {
///         self.failed.push((slot, c.now()));
///         c.cancel(slot);
///         None
///     }
/// #     fn certificate_slots(&self, _: usize) -> usize {
/// #         2
/// #     }
/// #     fn name(&self) -> &'static str {
/// #         "test"
/// #     }
/// #     fn for_each_candidate(
/// #         &self, i: usize, s: &State<2>, mut f: impl FnMut(usize, [f64; 2]),
/// #     ) {
/// #         (0..s.len()).filter(|&k| k != i).for_each(|k| f(k, [0.0; 2]));
/// #     }
/// #     fn trajectory_changed<Q: EventQueue>(
/// #         &mut self, _: usize, _: &State<2>, _: &mut Certs<Q>,
/// #     ) {
/// #     }
/// #     fn memory_bytes(&self) -> usize {
/// #         0
/// #     }
/// }
///
/// let particles = vec![
///     Particle::new([1.0, 1.0], [0.0, 0.0], 0.5, 1.0),
///     Particle::new([3.0, 1.0], [0.0, 0.0], 0.5, 1.0),
///     Particle::new([5.0, 1.0], [0.0, 0.0], 0.5, 1.0),
/// ];
/// let sim_box = SimBox::walls([6.0, 2.0]).unwrap();
/// let structure = Recorder::default();
/// let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
/// sim.run(Stop::Time(3.0)).unwrap();
/// // The slots come back in the structure's own numbering, whatever the number of particles.
/// assert_eq!(sim.structure().failed, [(0, 1.0), (1, 2.0)]);
/// ```
pub struct Certificates<'a, Q: EventQueue> {
    pub(crate) queue: &'a mut Q,
    pub(crate) offset: usize,
    pub(crate) now: f64,
}

impl<Q: EventQueue> Certificates<'_, Q> {
    /// Schedules certificate `slot` to fail at `time` (>= now; `INFINITY` cancels it).
    ///
    /// ```
    /// # use kinetic_cdo::queue::EventQueue;
    /// # use kinetic_cdo::{CandidatePair, Cdo, Certificates, CollisionKind, Particle, SimBox};
    /// # use kinetic_cdo::{SimConfig, SimError, Simulation, State, Stop};
    /// # type Certs<'a, Q> = Certificates<'a, Q>;
    /// /// Schedules certificate 0 to fail at t = 1, and 1 never.
    /// #[derive(Default)]
    /// struct Recorder {
    ///     failed: Vec<(usize, f64)>,
    /// }
    /// impl Cdo<2> for Recorder {
    ///     fn build<Q: EventQueue>(
    ///         &mut self,
    ///         _: &mut State<2>,
    ///         c: &mut Certs<Q>,
    ///     ) -> Result<(), SimError> {
    ///         c.schedule(0, 1.0);
    ///         c.schedule(1, f64::INFINITY);
    ///         Ok(())
    ///     }
    ///     fn certificate_failed<Q: EventQueue>(
    ///         &mut self,
    ///         slot: usize,
    ///         _: &mut State<2>,
    ///         c: &mut Certs<Q>,
    ///         _: &mut Vec<CandidatePair<2>>,
    ///     ) -> Option<usize> {
    ///         self.failed.push((slot, c.now()));
    ///         c.cancel(slot);
    ///         None
    ///     }
    /// #     fn certificate_slots(&self, _: usize) -> usize {
    /// #         2
    /// #     }
    /// #     fn name(&self) -> &'static str {
    /// #         "test"
    /// #     }
    /// #     fn for_each_candidate(
    /// #         &self, i: usize, s: &State<2>, mut f: impl FnMut(usize, [f64; 2]),
    /// #     ) {
    /// #         (0..s.len()).filter(|&k| k != i).for_each(|k| f(k, [0.0; 2]));
    /// #     }
    /// #     fn trajectory_changed<Q: EventQueue>(
    /// #         &mut self, _: usize, _: &State<2>, _: &mut Certs<Q>,
    /// #     ) {
    /// #     }
    /// #     fn memory_bytes(&self) -> usize {
    /// #         0
    /// #     }
    /// }
    ///
    /// let particles = vec![Particle::new([1.0, 1.0], [0.0, 0.0], 0.5, 1.0)];
    /// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
    /// let structure = Recorder::default();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// sim.run(Stop::Time(3.0)).unwrap();
    /// assert_eq!(sim.structure().failed, [(0, 1.0)]);
    /// ```
    #[inline]
    pub fn schedule(&mut self, slot: usize, time: f64) {
        debug_assert!(time >= self.now, "certificate {slot} scheduled in the past: {time} < {}", self.now);
        if time.is_finite() {
            self.queue.schedule(self.offset + slot, time.max(self.now));
        } else {
            self.queue.cancel(self.offset + slot);
        }
    }

    /// Cancels certificate `slot`.
    ///
    /// ```
    /// # use kinetic_cdo::queue::EventQueue;
    /// # use kinetic_cdo::{CandidatePair, Cdo, Certificates, CollisionKind, Particle, SimBox};
    /// # use kinetic_cdo::{SimConfig, SimError, Simulation, State, Stop};
    /// # type Certs<'a, Q> = Certificates<'a, Q>;
    /// /// Schedules certificates 0 and 1 at t = 1 and 2; the failure of 0 cancels 1.
    /// #[derive(Default)]
    /// struct Recorder {
    ///     failed: Vec<(usize, f64)>,
    /// }
    /// impl Cdo<2> for Recorder {
    ///     fn build<Q: EventQueue>(
    ///         &mut self,
    ///         _: &mut State<2>,
    ///         c: &mut Certs<Q>,
    ///     ) -> Result<(), SimError> {
    ///         c.schedule(0, 1.0);
    ///         c.schedule(1, 2.0);
    ///         Ok(())
    ///     }
    ///     fn certificate_failed<Q: EventQueue>(
    ///         &mut self,
    ///         slot: usize,
    ///         _: &mut State<2>,
    ///         c: &mut Certs<Q>,
    ///         _: &mut Vec<CandidatePair<2>>,
    ///     ) -> Option<usize> {
    ///         self.failed.push((slot, c.now()));
    ///         c.cancel(slot);
    ///         c.cancel(1);
    ///         None
    ///     }
    /// #     fn certificate_slots(&self, _: usize) -> usize {
    /// #         2
    /// #     }
    /// #     fn name(&self) -> &'static str {
    /// #         "test"
    /// #     }
    /// #     fn for_each_candidate(
    /// #         &self, i: usize, s: &State<2>, mut f: impl FnMut(usize, [f64; 2]),
    /// #     ) {
    /// #         (0..s.len()).filter(|&k| k != i).for_each(|k| f(k, [0.0; 2]));
    /// #     }
    /// #     fn trajectory_changed<Q: EventQueue>(
    /// #         &mut self, _: usize, _: &State<2>, _: &mut Certs<Q>,
    /// #     ) {
    /// #     }
    /// #     fn memory_bytes(&self) -> usize {
    /// #         0
    /// #     }
    /// }
    ///
    /// let particles = vec![Particle::new([1.0, 1.0], [0.0, 0.0], 0.5, 1.0)];
    /// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
    /// let structure = Recorder::default();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// sim.run(Stop::Time(3.0)).unwrap();
    /// assert_eq!(sim.structure().failed, [(0, 1.0)]);
    /// ```
    #[inline]
    pub fn cancel(&mut self, slot: usize) {
        self.queue.cancel(self.offset + slot);
    }

    /// The simulation clock.
    ///
    /// ```
    /// # use kinetic_cdo::queue::EventQueue;
    /// # use kinetic_cdo::{CandidatePair, Cdo, Certificates, CollisionKind, Particle, SimBox};
    /// # use kinetic_cdo::{SimConfig, SimError, Simulation, State, Stop};
    /// # type Certs<'a, Q> = Certificates<'a, Q>;
    /// /// A clock: certificate 0 fails at t = 1.5 and then every time unit.
    /// #[derive(Default)]
    /// struct Recorder {
    ///     failed: Vec<(usize, f64)>,
    /// }
    /// impl Cdo<2> for Recorder {
    ///     fn build<Q: EventQueue>(
    ///         &mut self,
    ///         _: &mut State<2>,
    ///         c: &mut Certs<Q>,
    ///     ) -> Result<(), SimError> {
    ///         c.schedule(0, 1.5);
    ///         Ok(())
    ///     }
    ///     fn certificate_failed<Q: EventQueue>(
    ///         &mut self,
    ///         slot: usize,
    ///         _: &mut State<2>,
    ///         c: &mut Certs<Q>,
    ///         _: &mut Vec<CandidatePair<2>>,
    ///     ) -> Option<usize> {
    ///         self.failed.push((slot, c.now()));
    ///         c.schedule(slot, c.now() + 1.0);
    ///         None
    ///     }
    /// #     fn certificate_slots(&self, _: usize) -> usize {
    /// #         1
    /// #     }
    /// #     fn name(&self) -> &'static str {
    /// #         "test"
    /// #     }
    /// #     fn for_each_candidate(
    /// #         &self, i: usize, s: &State<2>, mut f: impl FnMut(usize, [f64; 2]),
    /// #     ) {
    /// #         (0..s.len()).filter(|&k| k != i).for_each(|k| f(k, [0.0; 2]));
    /// #     }
    /// #     fn trajectory_changed<Q: EventQueue>(
    /// #         &mut self, _: usize, _: &State<2>, _: &mut Certs<Q>,
    /// #     ) {
    /// #     }
    /// #     fn memory_bytes(&self) -> usize {
    /// #         0
    /// #     }
    /// }
    ///
    /// let particles = vec![Particle::new([1.0, 1.0], [0.0, 0.0], 0.5, 1.0)];
    /// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
    /// let structure = Recorder::default();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// sim.run(Stop::Time(4.0)).unwrap();
    /// assert_eq!(sim.structure().failed, [(0, 1.5), (0, 2.5), (0, 3.5)]);
    /// ```
    pub fn now(&self) -> f64 {
        self.now
    }
}

/// A candidate pair the engine must check for a collision: `(i, k, shift)` with `k`'s image at
/// `position(k) + shift`.
///
/// ```
/// # use kinetic_cdo::queue::EventQueue;
/// # use kinetic_cdo::{CandidatePair, Cdo, Certificates, CollisionKind, Particle, SimBox};
/// # use kinetic_cdo::{SimConfig, SimError, Simulation, State, Stop};
/// # type Certs<'a, Q> = Certificates<'a, Q>;
/// /// Names no candidate until its certificate fails at t = 0.5, then the pair (0, 1) through
/// /// the image of particle 1 one period to the left.
/// struct Late;
/// impl Cdo<2> for Late {
///     fn build<Q: EventQueue>(
///         &mut self,
///         _: &mut State<2>,
///         c: &mut Certs<Q>,
///     ) -> Result<(), SimError> {
///         c.schedule(0, 0.5);
///         Ok(())
///     }
///     fn certificate_failed<Q: EventQueue>(
///         &mut self,
///         _: usize,
///         _: &mut State<2>,
///         c: &mut Certs<Q>,
///         new_pairs: &mut Vec<CandidatePair<2>>,
///     ) -> Option<usize> {
///         c.cancel(0);
///         new_pairs.push((0, 1, [-10.0, 0.0]));
///         Some(1)
///     }
/// #     fn certificate_slots(&self, _: usize) -> usize {
/// #         1
/// #     }
/// #     fn for_each_candidate(&self, _: usize, _: &State<2>, _: impl FnMut(usize, [f64; 2])) {}
/// #     fn trajectory_changed<Q: EventQueue>(
/// #         &mut self, _: usize, _: &State<2>, _: &mut Certs<Q>,
/// #     ) {
/// #     }
/// #     fn name(&self) -> &'static str {
/// #         "late"
/// #     }
/// #     fn memory_bytes(&self) -> usize {
/// #         0
/// #     }
/// }
/// // Particle 0 at x = 1 moves left towards the image of particle 1 at 8 − 10: gap 3 − 1.
/// let particles = vec![
///     Particle::new([1.0, 5.0], [-1.0, 0.0], 0.5, 1.0),
///     Particle::new([8.0, 5.0], [0.0, 0.0], 0.5, 1.0),
/// ];
/// let sim_box = SimBox::periodic([10.0, 10.0]).unwrap();
/// let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), Late).unwrap();
/// let c = sim.next_collision().unwrap();
/// assert_eq!(c.kind, CollisionKind::Pair(0, 1));
/// assert!((c.time - 2.0).abs() < 1e-12);
/// ```
pub type CandidatePair<const D: usize> = (u32, u32, [f64; D]);

/// A kinetic collision-detection structure the engine is generic over.
///
/// The engine calls [`build`](Self::build) once (and again whenever it reschedules everything),
/// asks [`for_each_candidate`](Self::for_each_candidate) whenever it predicts a particle's next
/// collision, tells the structure when a trajectory changed, and hands back every certificate
/// that fails. Implementations must guarantee that particles that touch are candidates.
///
/// ```
/// use kinetic_cdo::queue::EventQueue;
/// use kinetic_cdo::{CandidatePair, Cdo, Certificates, Particle, SimBox, SimConfig, SimError};
/// use kinetic_cdo::{Simulation, State};
///
/// /// Every other particle is a candidate: enough between walls (no periodic images), with no
/// /// certificate to maintain.
/// struct AllPairs;
///
/// impl<const D: usize> Cdo<D> for AllPairs {
///     fn name(&self) -> &'static str {
///         "all pairs"
///     }
///     fn build<Q: EventQueue>(
///         &mut self,
///         _: &mut State<D>,
///         _: &mut Certificates<'_, Q>,
///     ) -> Result<(), SimError> {
///         Ok(())
///     }
///     fn certificate_slots(&self, _: usize) -> usize {
///         0
///     }
///     fn for_each_candidate(&self, i: usize, s: &State<D>, mut f: impl FnMut(usize, [f64; D])) {
///         (0..s.len()).filter(|&k| k != i).for_each(|k| f(k, [0.0; D]));
///     }
///     fn trajectory_changed<Q: EventQueue>(
///         &mut self,
///         _: usize,
///         _: &State<D>,
///         _: &mut Certificates<'_, Q>,
///     ) {
///     }
///     fn certificate_failed<Q: EventQueue>(
///         &mut self,
///         _: usize,
///         _: &mut State<D>,
///         _: &mut Certificates<'_, Q>,
///         _: &mut Vec<CandidatePair<D>>,
///     ) -> Option<usize> {
///         None
///     }
///     fn memory_bytes(&self) -> usize {
///         0
///     }
/// }
///
/// let particles = vec![
///     Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0),
///     Particle::new([4.0, 1.0], [-1.0, 0.0], 0.5, 1.0),
/// ];
/// let sim_box = SimBox::walls([10.0, 10.0]).unwrap();
/// let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), AllPairs).unwrap();
/// assert_eq!(sim.structure().candidate_count(0, sim.state()), 1);
/// assert!((sim.next_collision().unwrap().time - 1.0).abs() < 1e-12); // gap 3 − 1 at speed 2
/// ```
pub trait Cdo<const D: usize> {
    /// A short name for reports ("subdivision", "segment trees", …).
    fn name(&self) -> &'static str;

    /// (Re)builds the structure from the state at `state.now()` and schedules every certificate.
    ///
    /// # Errors
    /// [`SimError::BoxTooSmall`] if the box cannot hold the structure (e.g. fewer than 3 cells
    /// across a periodic side).
    ///
    /// A structure may move particles by whole periods ([`State::shift_by_periods`]), e.g. to
    /// keep coordinates small; that is the only change it may make to the state.
    fn build<Q: EventQueue>(
        &mut self,
        state: &mut State<D>,
        certificates: &mut Certificates<'_, Q>,
    ) -> Result<(), SimError>;

    /// The number of certificate slots the structure needs for `particles` particles.
    fn certificate_slots(&self, particles: usize) -> usize;

    /// Calls `f(k, shift)` for every candidate partner `k` of `i` (each image at most once; `k`
    /// may repeat with different shifts under periodic boundaries).
    fn for_each_candidate(&self, i: usize, state: &State<D>, f: impl FnMut(usize, [f64; D]));

    /// Particle `i`'s trajectory changed at `state.now()`: reschedule the certificates that
    /// depend on it.
    fn trajectory_changed<Q: EventQueue>(
        &mut self,
        i: usize,
        state: &State<D>,
        certificates: &mut Certificates<'_, Q>,
    );

    /// The trajectories of all of `involved` (the particles of one collision) changed at
    /// `state.now()`, and every one of them is already updated in `state`. By default
    /// [`trajectory_changed`](Self::trajectory_changed) for each; a structure whose
    /// certificates involve several particles overrides it to recompute a certificate shared by
    /// two of them once.
    fn trajectories_changed<Q: EventQueue>(
        &mut self,
        involved: &[usize],
        state: &State<D>,
        certificates: &mut Certificates<'_, Q>,
    ) {
        for &i in involved {
            self.trajectory_changed(i, state, certificates);
        }
    }

    /// Certificate `slot` failed at `state.now()`: update the structure, reschedule, and push
    /// into `new_pairs` every pair that became candidates. Returns the number of *new
    /// neighbours* this topological event created (the paper's B), or `None` if the slot only
    /// asked for its certificate to be re-checked (a structure may schedule such checks to
    /// bound how far ahead it solves for failures) and nothing changed. As in `build`, the
    /// structure may move particles by whole periods.
    ///
    /// The failed certificate stays scheduled at its time until the structure schedules it
    /// anew or cancels it ([`Certificates::cancel`]): a structure must do
    /// one of the two here, or the same certificate fails again at the same instant forever
    /// (a run with [`Stop::Time`](crate::Stop::Time) would then never return).
    fn certificate_failed<Q: EventQueue>(
        &mut self,
        slot: usize,
        state: &mut State<D>,
        certificates: &mut Certificates<'_, Q>,
        new_pairs: &mut Vec<CandidatePair<D>>,
    ) -> Option<usize>;

    /// The number of candidates of `i` (the paper's A).
    fn candidate_count(&self, i: usize, state: &State<D>) -> usize {
        let mut n = 0;
        self.for_each_candidate(i, state, |_, _| n += 1);
        n
    }

    /// Heap memory held by the structure, in bytes (the paper's G).
    fn memory_bytes(&self) -> usize;
}
