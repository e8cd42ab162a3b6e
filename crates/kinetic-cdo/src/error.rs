//! What the simulation refuses to start from, and why a run can stop short.

use thiserror::Error;

/// Why a simulation could not be set up or changed. Each variant names the offending datum, so
/// a caller can fix the input instead of guessing.
///
/// ```
/// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, SimError, Simulation};
/// assert_eq!(SimBox::walls([4.0, -1.0]), Err(SimError::InvalidBox { axis: 1, length: -1.0 }));
/// // Two disks of radius 0.5 whose centres are 0.5 apart.
/// let particles = vec![
///     Particle::new([1.0, 1.0], [0.0, 0.0], 0.5, 1.0),
///     Particle::new([1.5, 1.0], [0.0, 0.0], 0.5, 1.0),
/// ];
/// let sim_box = SimBox::walls([4.0, 4.0]).unwrap();
/// let structure = BruteForce::default();
/// let e = Simulation::new(particles, sim_box, SimConfig::default(), structure).err().unwrap();
/// assert_eq!(e, SimError::Overlap { first: 0, second: 1, distance: 0.5, contact: 1.0 });
/// assert!(e.to_string().starts_with("particles 0 and 1 overlap"));
/// ```
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum SimError {
    /// No particles were given.
    #[error("the simulation needs at least one particle")]
    Empty,
    /// A box side is not finite, not positive, or above [`MAX_MAGNITUDE`](crate::MAX_MAGNITUDE).
    #[error("box side {axis} has length {length}; it must be finite, > 0 and <= 1e100")]
    InvalidBox {
        /// The axis.
        axis: usize,
        /// The rejected length.
        length: f64,
    },
    /// A particle has a non-finite coordinate or velocity component.
    #[error("particle {index} has a non-finite position or velocity")]
    NonFiniteParticle {
        /// The particle.
        index: usize,
    },
    /// A particle's speed is so large that event times would overflow `f64` (its squared
    /// speed, or kinetic energy, exceeds [`MAX_MAGNITUDE`](crate::MAX_MAGNITUDE) squared).
    #[error("particle {index} moves too fast for f64 event times (speed above 1e100)")]
    Overflow {
        /// The particle.
        index: usize,
    },
    /// A particle's radius is not finite or below [`MIN_LENGTH`](crate::MIN_LENGTH) (zero and
    /// negative radii included).
    #[error("particle {index} has radius {radius}; it must be finite and >= 1e-100")]
    InvalidRadius {
        /// The particle.
        index: usize,
        /// The rejected radius.
        radius: f64,
    },
    /// A particle's mass is not finite or not positive.
    #[error("particle {index} has mass {mass}; it must be finite and > 0")]
    InvalidMass {
        /// The particle.
        index: usize,
        /// The rejected mass.
        mass: f64,
    },
    /// A particle sticks out of a reflecting wall.
    #[error("particle {index} crosses the wall of axis {axis}")]
    OutsideBox {
        /// The particle.
        index: usize,
        /// The axis whose walls it crosses.
        axis: usize,
    },
    /// The largest particle is at least as wide as the gap between the two walls of an axis
    /// (at the start, or after the growth a compression asks for): it would touch both walls
    /// at once and bounce between them infinitely often at one instant.
    ///
    /// Only single particles are checked. A chain of touching particles that spans the gap
    /// (two disks of diameter 1 side by side between walls 2 apart), or a touching lattice
    /// that fills a box, jams the same way once one of them moves into the others: the
    /// collisions then all happen at one instant, and [`Simulation::run`](crate::Simulation::run)
    /// reports [`SimError::Jammed`].
    #[error("the walls of axis {axis} are {length} apart; the largest diameter ({diameter}) must be smaller")]
    NoRoomBetweenWalls {
        /// The axis.
        axis: usize,
        /// The distance between its walls (the box side).
        length: f64,
        /// The largest particle diameter.
        diameter: f64,
    },
    /// A particle touches a wall at rest while gravity pushes it into the wall: a resting
    /// contact, which an event-driven simulation cannot represent (give it a velocity, or lift
    /// it off the wall).
    #[error("particle {index} rests on the wall of axis {axis} under gravity (resting contact)")]
    RestingOnWall {
        /// The particle.
        index: usize,
        /// The wall's axis.
        axis: usize,
    },
    /// Two particles overlap at the start.
    #[error("particles {first} and {second} overlap (centre distance {distance} < radius sum {contact})")]
    Overlap {
        /// The smaller index of the pair.
        first: usize,
        /// The larger index of the pair.
        second: usize,
        /// Their centre distance (nearest periodic image).
        distance: f64,
        /// The sum of their radii.
        contact: f64,
    },
    /// A periodic side is too short for the largest particle: the nearest periodic image must
    /// be unique for touching particles, and cell-based structures need 3 cells per axis.
    #[error(
        "periodic box side {axis} ({length}) must be at least {required} (3 largest diameters, plus any shell)"
    )]
    BoxTooSmall {
        /// The axis.
        axis: usize,
        /// Its length.
        length: f64,
        /// The smallest accepted length.
        required: f64,
    },
    /// A configuration value is out of range (restitution, gravity, shell, growth rate, …).
    #[error("invalid parameter {name} = {value}: {reason}")]
    InvalidParameter {
        /// The parameter.
        name: &'static str,
        /// The rejected value.
        value: f64,
        /// What it must satisfy.
        reason: &'static str,
    },
    /// The structure does not support this set-up.
    #[error("unsupported: {what}")]
    Unsupported {
        /// What is not supported.
        what: &'static str,
    },
    /// The requested packing fraction cannot be reached by the method asked for.
    #[error("packing fraction {requested} is out of reach: {reason}")]
    PackingOutOfReach {
        /// The requested packing fraction.
        requested: f64,
        /// Why.
        reason: &'static str,
    },
    /// A run cannot get past an instant: more than
    /// [`JAM_COLLISIONS_PER_PARTICLE`](crate::JAM_COLLISIONS_PER_PARTICLE) collisions per particle
    /// happened within a vanishing window (see [`JAM_WINDOW`](crate::JAM_WINDOW)). A chain of
    /// touching particles spanning the gap between two walls that one of them moves into, or a
    /// touching lattice filling a box, bounces the momentum between the walls forever at one
    /// instant; an inelastic collapse (restitution below 1 without the TC guard) collides
    /// infinitely often before a finite time. The simulation stays valid, its clock at the jam.
    #[error(
        "jammed at t = {time}: {collisions} collisions within a vanishing time window (a chain of \
         touching particles between walls, or an inelastic collapse)"
    )]
    Jammed {
        /// The instant the run cannot get past.
        time: f64,
        /// The collisions counted at that instant.
        collisions: u64,
    },
}
