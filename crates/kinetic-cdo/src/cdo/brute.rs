//! Every pair is a candidate: the reference every other structure is checked against.

use super::{CandidatePair, Cdo, Certificates};
use crate::queue::EventQueue;
use crate::{SimError, State};

/// Every other particle is a candidate, under periodic boundaries in each of the `3^p` images
/// around the nearest one (`p` periodic axes). `O(n)` per prediction.
///
/// Those images cover every collision as long as neither particle travels a quarter of the
/// shortest periodic side after the prediction; so under periodic boundaries each particle
/// carries a certificate that fails when it has travelled that far from where it was last
/// predicted, and is then predicted again against every image (its only topological event).
/// Travel is measured along the periodic axes in the frame falling freely with gravity: only
/// changes of separations matter, so a whole system falling along a periodic axis is not
/// re-predicted ever more often as it speeds up.
///
/// ```
/// use kinetic_cdo::{BruteForce, Particle, SimBox, SimConfig, Simulation};
/// let particles = vec![
///     Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0),
///     Particle::new([4.0, 1.0], [-1.0, 0.0], 0.5, 1.0),
/// ];
/// let mut sim = Simulation::new(particles, SimBox::periodic([10.0, 10.0]).unwrap(), SimConfig::default(), BruteForce::default()).unwrap();
/// let c = sim.next_collision().unwrap();
/// assert!((c.time - 1.0).abs() < 1e-12);
/// ```
#[derive(Debug, Clone, Default)]
pub struct BruteForce {
    /// The image shifts to try, per periodic-axis combination.
    shifts: Vec<Vec<f64>>,
    /// A quarter of the shortest periodic side (infinite without periodic sides).
    quarter: f64,
    /// Per particle: where it was when last predicted.
    anchors: Vec<Vec<f64>>,
}

impl BruteForce {
    /// Anchors particle `i` where it is now and schedules its travel certificate.
    fn anchor<const D: usize, Q: EventQueue>(
        &mut self,
        i: usize,
        state: &State<D>,
        certificates: &mut Certificates<'_, Q>,
    ) {
        if !self.quarter.is_finite() {
            return;
        }
        self.anchors[i] = state.stored_position(i).to_vec();
        // Travel along the periodic axes (the only ones with images), measured in the frame
        // that falls freely from rest at t = 0: every particle shares it, so the changes of
        // separations, which decide the nearest images, are differences of travels in it. In
        // that frame a particle moves at the constant `v − g t` (measured at rest, a whole
        // system falling along a periodic axis re-predicted ever more often as it sped up, and
        // `next_collision` gave up). The speed is taken relative to its largest component, so
        // that no square underflows.
        let (v, g, now) = (state.velocity(i), state.gravity(), state.now());
        let periodic = state.sim_box().periodic_axes();
        let u: [f64; D] = std::array::from_fn(|a| if periodic[a] { v[a] - g[a] * now } else { 0.0 });
        let largest = u.iter().fold(0.0, |m: f64, c| m.max(c.abs()));
        let tau = if largest > 0.0 {
            let speed = largest * u.iter().map(|c| (c / largest).powi(2)).sum::<f64>().sqrt();
            self.quarter / speed
        } else {
            f64::INFINITY
        };
        certificates.schedule(i, certificates.now() + tau);
    }
}

impl<const D: usize> Cdo<D> for BruteForce {
    fn name(&self) -> &'static str {
        "brute force"
    }

    fn build<Q: EventQueue>(
        &mut self,
        state: &mut State<D>,
        certificates: &mut Certificates<'_, Q>,
    ) -> Result<(), SimError> {
        let lengths = state.sim_box().lengths();
        let periodic = state.sim_box().periodic_axes();
        let mut shifts = vec![vec![0.0; D]];
        for a in 0..D {
            if periodic[a] {
                let mut next = Vec::with_capacity(shifts.len() * 3);
                for s in &shifts {
                    for k in [-1.0, 0.0, 1.0] {
                        let mut t = s.clone();
                        t[a] = k * lengths[a];
                        next.push(t);
                    }
                }
                shifts = next;
            }
        }
        self.shifts = shifts;
        self.quarter =
            (0..D).filter(|&a| periodic[a]).map(|a| lengths[a] / 4.0).fold(f64::INFINITY, f64::min);
        self.anchors = vec![Vec::new(); state.len()];
        for i in 0..state.len() {
            self.anchor(i, state, certificates);
        }
        Ok(())
    }

    fn certificate_slots(&self, particles: usize) -> usize {
        particles
    }

    fn for_each_candidate(&self, i: usize, state: &State<D>, mut f: impl FnMut(usize, [f64; D])) {
        let xi = state.stored_position(i);
        for k in 0..state.len() {
            if k == i {
                continue;
            }
            // The nearest image now, then its neighbouring images.
            let d = crate::vector::sub(state.stored_position(k), xi);
            let periods = state.sim_box().nearest_image_shift(d);
            for s in &self.shifts {
                let shift: [f64; D] = std::array::from_fn(|a| periods[a] + s[a]);
                f(k, shift);
            }
        }
    }

    fn trajectory_changed<Q: EventQueue>(
        &mut self,
        i: usize,
        state: &State<D>,
        certificates: &mut Certificates<'_, Q>,
    ) {
        self.anchor(i, state, certificates);
    }

    fn certificate_failed<Q: EventQueue>(
        &mut self,
        i: usize,
        state: &mut State<D>,
        certificates: &mut Certificates<'_, Q>,
        new_pairs: &mut Vec<CandidatePair<D>>,
    ) -> Option<usize> {
        // Travelled a quarter period: predict against every image around the new nearest ones.
        self.for_each_candidate(i, state, |k, shift| new_pairs.push((i as u32, k as u32, shift)));
        self.anchor(i, state, certificates);
        Some(0)
    }

    fn candidate_count(&self, _: usize, state: &State<D>) -> usize {
        state.len() - 1
    }

    fn memory_bytes(&self) -> usize {
        self.shifts.iter().map(|s| s.capacity() * 8).sum::<usize>() + self.shifts.capacity() * 24
    }
}
