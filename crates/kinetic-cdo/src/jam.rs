//! Recognising a run that cannot advance: unboundedly many collisions at one instant.
//!
//! An event-driven run processes collisions one at a time; it cannot get past an instant at
//! which infinitely many happen. Two ways lead there:
//! * a chain of touching particles spanning the gap between two walls (or a touching lattice
//!   filling a box) that one of them moves into: the momentum bounces between the walls
//!   through the chain forever, all at one instant;
//! * inelastic collapse (restitution below 1 without the TC guard): a cluster collides
//!   infinitely often before a finite time.
//!
//! Rounding blurs "one instant": collision times computed from touching pairs come out an
//! ulp or a few late, so the clock of a jammed run creeps forward by rounding noise. So a jam
//! is recognised as a run of consecutive collisions within a window that is tiny against the
//! time scale of the colliding particles themselves (the sum of radii over the relative
//! speed, or a radius over the speed towards a wall): a [`JAM_WINDOW`] of it. The run must
//! hold more collisions than a legitimate simultaneous burst can: every particle of a lattice
//! colliding at once with each neighbour makes a few per particle, far below
//! [`JAM_COLLISIONS_PER_PARTICLE`].

/// Collisions per particle (plus [`JAM_MIN_COLLISIONS`]) within one vanishing window at which
/// [`Simulation::run`](crate::Simulation::run) reports
/// [`SimError::Jammed`](crate::SimError::Jammed): a run of `n` particles is jammed once it
/// reaches `n · JAM_COLLISIONS_PER_PARTICLE + JAM_MIN_COLLISIONS` collisions in one window.
///
/// ```
/// use kinetic_cdo::{BruteForce, JAM_COLLISIONS_PER_PARTICLE, JAM_MIN_COLLISIONS, Particle};
/// use kinetic_cdo::{SimBox, SimConfig, SimError, Simulation, Stop};
/// // Two touching disks spanning the gap between the walls, one moving into the other.
/// let particles = vec![
///     Particle::new([0.5, 2.0], [1.0, 0.0], 0.5, 1.0),
///     Particle::new([1.5, 2.0], [0.0, 0.0], 0.5, 1.0),
/// ];
/// let sim_box = SimBox::walls([2.0, 4.0]).unwrap();
/// let structure = BruteForce::default();
/// let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
/// let Err(SimError::Jammed { collisions, .. }) = sim.run(Stop::Time(1.0)) else { panic!() };
/// assert!(collisions >= 2 * JAM_COLLISIONS_PER_PARTICLE + JAM_MIN_COLLISIONS);
/// ```
pub const JAM_COLLISIONS_PER_PARTICLE: u64 = 1024;

/// The collisions a jam needs in a system of any size, on top of
/// [`JAM_COLLISIONS_PER_PARTICLE`] per particle.
///
/// ```
/// use kinetic_cdo::{BruteForce, JAM_COLLISIONS_PER_PARTICLE, JAM_MIN_COLLISIONS, Particle};
/// use kinetic_cdo::{SimBox, SimConfig, SimError, Simulation, Stop};
/// // Three touching disks spanning the gap between the walls, the first pushing the others.
/// let particles = vec![
///     Particle::new([0.5, 2.0], [1.0, 0.0], 0.5, 1.0),
///     Particle::new([1.5, 2.0], [0.0, 0.0], 0.5, 1.0),
///     Particle::new([2.5, 2.0], [0.0, 0.0], 0.5, 1.0),
/// ];
/// let sim_box = SimBox::walls([3.0, 4.0]).unwrap();
/// let structure = BruteForce::default();
/// let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
/// let Err(SimError::Jammed { collisions, .. }) = sim.run(Stop::Time(1.0)) else { panic!() };
/// assert!(collisions >= JAM_MIN_COLLISIONS + 3 * JAM_COLLISIONS_PER_PARTICLE);
/// ```
pub const JAM_MIN_COLLISIONS: u64 = 4096;

/// The window of a jam, as a fraction of the colliding particles' own time scale (2⁻³⁰).
/// Rounding makes a jammed clock creep by an ulp or a few of that time scale per collision,
/// about 10⁻¹⁶ of it: millions of collisions stay within the window (so a jam whose clock
/// creeps is recognised in systems of up to about 10⁴ particles; one at a single instant in
/// any). A dense packing just off jamming collides far less often: right after a compression
/// that jammed (100 disks, `φ = 0.83`) 2000 collisions took `4·10⁻⁶` of the time scale, and
/// with a window of 2⁻²⁰ such bursts were taken for jams.
///
/// ```
/// use kinetic_cdo::JAM_WINDOW;
/// assert_eq!(JAM_WINDOW, 2f64.powi(-30));
/// // A million collisions each creeping by an ulp of the time scale stay within the window.
/// assert!(1e6 * f64::EPSILON < JAM_WINDOW);
/// ```
pub const JAM_WINDOW: f64 = 1.0 / 1_073_741_824.0;

/// The run of consecutive collisions within one vanishing window.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct JamWatch {
    /// The time of the window's first collision.
    start: f64,
    /// The window's width: [`JAM_WINDOW`] times the smallest time scale seen in it.
    width: f64,
    /// The collisions in the window.
    collisions: u64,
}

impl JamWatch {
    /// Records a collision at `time` of particles whose own time scale is `time_scale` (an
    /// infinite or NaN scale, from particles that do not approach, allows no creep at all).
    pub(crate) fn record(&mut self, time: f64, time_scale: f64) {
        let own = if time_scale.is_finite() { JAM_WINDOW * time_scale } else { 0.0 };
        let width = self.width.min(own);
        if self.collisions > 0 && time - self.start <= width {
            self.collisions += 1;
            self.width = width;
        } else {
            *self = Self { start: time, width: own, collisions: 1 };
        }
    }

    /// The collisions of the current window, if they amount to a jam of `particles` particles.
    pub(crate) fn jammed(&self, particles: usize) -> Option<u64> {
        let limit =
            JAM_COLLISIONS_PER_PARTICLE.saturating_mul(particles as u64).saturating_add(JAM_MIN_COLLISIONS);
        (self.collisions >= limit).then_some(self.collisions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collisions_at_one_instant_add_up_to_a_jam() {
        let mut watch = JamWatch::default();
        let limit = JAM_COLLISIONS_PER_PARTICLE * 2 + JAM_MIN_COLLISIONS;
        for _ in 0..limit - 1 {
            watch.record(3.0, 1.0);
        }
        assert_eq!(watch.jammed(2), None);
        watch.record(3.0, 1.0);
        assert_eq!(watch.jammed(2), Some(limit));
    }

    #[test]
    fn a_creeping_clock_is_still_one_instant() {
        let mut watch = JamWatch::default();
        let mut t = 0.0f64;
        for _ in 0..10_000 {
            watch.record(t, 1.0);
            // A few ulps of the time scale per collision.
            t += 4.0 * f64::EPSILON;
        }
        assert_eq!(watch.jammed(2), Some(10_000));
    }

    #[test]
    fn collisions_spread_over_time_never_jam() {
        let mut watch = JamWatch::default();
        // One collision per 1e-5 of a time scale of 1: outside the 2^-30 window.
        for step in 0..100_000 {
            watch.record(f64::from(step) * 1e-5, 1.0);
        }
        assert_eq!(watch.jammed(1), None);
        // A fast pair shrinks the window: what fitted the slow pairs' window no longer does.
        let mut watch = JamWatch::default();
        watch.record(0.0, 1.0);
        watch.record(1e-10, 1.0);
        assert_eq!(watch.collisions, 2);
        watch.record(2e-10, 1e-3);
        assert_eq!(watch.collisions, 1);
    }

    #[test]
    fn non_approaching_particles_allow_no_creep() {
        let mut watch = JamWatch::default();
        watch.record(1.0, f64::INFINITY);
        watch.record(1.0, 1.0);
        assert_eq!(watch.collisions, 2);
        watch.record(1.0 + 1e-12, 1.0);
        assert_eq!(watch.collisions, 1);
    }
}
