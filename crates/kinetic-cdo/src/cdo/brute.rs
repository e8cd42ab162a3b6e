//! Every pair is a candidate: the reference every other structure is checked against.

use super::{CandidatePair, Cdo, Certificates};
use crate::queue::EventQueue;
use crate::{SimError, State};

/// Every other particle is a candidate, under periodic boundaries in each of the `3^p` images
/// around the nearest one (`p` periodic axes), so a collision with any image reachable before
/// the next event is found. `O(n)` per prediction, no topological events.
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
}

impl<const D: usize> Cdo<D> for BruteForce {
    fn name(&self) -> &'static str {
        "brute force"
    }

    fn build<Q: EventQueue>(
        &mut self,
        state: &mut State<D>,
        _: &mut Certificates<'_, Q>,
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
        Ok(())
    }

    fn certificate_slots(&self, _: usize) -> usize {
        0
    }

    fn for_each_candidate(&self, i: usize, state: &State<D>, mut f: impl FnMut(usize, [f64; D])) {
        let xi = state.position(i);
        let lengths = state.sim_box().lengths();
        let periodic = state.sim_box().periodic_axes();
        for k in 0..state.len() {
            if k == i {
                continue;
            }
            // The nearest image now, then its neighbouring images.
            let d = crate::vector::sub(state.position(k), xi);
            let periods: [f64; D] = std::array::from_fn(|a| {
                if periodic[a] { -lengths[a] * (d[a] / lengths[a]).round() } else { 0.0 }
            });
            for s in &self.shifts {
                let shift: [f64; D] = std::array::from_fn(|a| periods[a] + s[a]);
                f(k, shift);
            }
        }
    }

    fn trajectory_changed<Q: EventQueue>(&mut self, _: usize, _: &State<D>, _: &mut Certificates<'_, Q>) {}

    fn certificate_failed<Q: EventQueue>(
        &mut self,
        _: usize,
        _: &mut State<D>,
        _: &mut Certificates<'_, Q>,
        _: &mut Vec<CandidatePair<D>>,
    ) -> Option<usize> {
        unreachable!("brute force schedules no certificates")
    }

    fn candidate_count(&self, _: usize, state: &State<D>) -> usize {
        state.len() - 1
    }

    fn memory_bytes(&self) -> usize {
        self.shifts.iter().map(|s| s.capacity() * 8).sum::<usize>() + self.shifts.capacity() * 24
    }
}
