//! What the Laguerre–Delaunay structure runs instead of its triangulation when the torus has
//! none (an empty power circle spans a period of the box): the regular subdivision, which finds
//! the same collisions with `O(1)` candidates per particle; or every pair where the subdivision
//! cannot be built (a periodic side within rounding of three largest diameters: the engine
//! admits it, but the subdivision's cell count rounds below three).

use super::super::{BruteForce, CandidatePair, Cdo, Certificates, RegularSubdivision};
use crate::queue::EventQueue;
use crate::{SimError, State};

/// The structure that stands in for a triangulation given up (see
/// [`LaguerreDelaunay::fell_back`](super::LaguerreDelaunay::fell_back)).
#[derive(Debug, Clone)]
pub(super) enum Fallback {
    /// Cell lists over the whole box: `O(1)` candidates per particle.
    Subdivision(RegularSubdivision<2>),
    /// Every pair, where the subdivision cannot be built.
    AllPairs(BruteForce),
}

/// Forwards a call to whichever structure stands in.
macro_rules! delegate {
    ($fallback:expr, $structure:ident => $call:expr) => {
        match $fallback {
            Fallback::Subdivision($structure) => $call,
            Fallback::AllPairs($structure) => $call,
        }
    };
}

impl Fallback {
    /// Builds the subdivision for the state now, or every pair where the box is too small for
    /// it, and schedules its certificates (in slots below `n`, inside the triangulation's
    /// `6n + 4`).
    ///
    /// # Errors
    /// What [`BruteForce`]'s build returns (nothing for a valid state).
    pub(super) fn build<Q: EventQueue>(
        state: &mut State<2>,
        certificates: &mut Certificates<'_, Q>,
    ) -> Result<Self, SimError> {
        let mut cells = RegularSubdivision::<2>::new();
        match cells.build(state, certificates) {
            Ok(()) => Ok(Self::Subdivision(cells)),
            Err(SimError::BoxTooSmall { .. }) => {
                // The subdivision's build stops before it schedules anything.
                let mut all = BruteForce::default();
                all.build(state, certificates)?;
                Ok(Self::AllPairs(all))
            }
            Err(other) => Err(other),
        }
    }

    /// The stand-in's name ("subdivision" or "brute force").
    pub(super) fn name(&self) -> &'static str {
        delegate!(self, s => Cdo::<2>::name(s))
    }

    pub(super) fn for_each_candidate(&self, i: usize, state: &State<2>, f: impl FnMut(usize, [f64; 2])) {
        delegate!(self, s => s.for_each_candidate(i, state, f));
    }

    pub(super) fn trajectory_changed<Q: EventQueue>(
        &mut self,
        i: usize,
        state: &State<2>,
        certificates: &mut Certificates<'_, Q>,
    ) {
        delegate!(self, s => s.trajectory_changed(i, state, certificates));
    }

    pub(super) fn certificate_failed<Q: EventQueue>(
        &mut self,
        slot: usize,
        state: &mut State<2>,
        certificates: &mut Certificates<'_, Q>,
        new_pairs: &mut Vec<CandidatePair<2>>,
    ) -> Option<usize> {
        delegate!(self, s => s.certificate_failed(slot, state, certificates, new_pairs))
    }

    pub(super) fn memory_bytes(&self) -> usize {
        delegate!(self, s => Cdo::<2>::memory_bytes(s))
    }
}
