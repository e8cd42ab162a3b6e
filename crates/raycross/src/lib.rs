//! Point-in-polyhedron by ray crossing for closed triangle meshes.
//!
//! Two implementations of [`contact_core::PointContainment`]:
//! * [`PaperRayCrossing`]: the method of Muth et al. (2006) §2.2, Fig. 6 — random segments,
//!   per-face box rejection, the ratio `r`, area and volume signs, re-casting on degeneracies —
//!   with counters of rays and degeneracies ([`RayStats`]). Signs are computed exactly, so a
//!   "zero" is a true degeneracy, never rounding noise.
//! * [`RayCrossing`]: the fast exact mode: one ray per point along `+x`, candidates from a grid
//!   over the faces' yz-projections, exact predicates, and Simulation of Simplicity for
//!   degeneracies, so no ray is ever re-cast and points on the surface are reported
//!   [`Containment::OnBoundary`](contact_core::Containment::OnBoundary). Batches run in
//!   parallel, and points sharing a ray line (as in regular grids) share the line's work.
//!
//! Both accept closed, edge-manifold, consistently oriented meshes of non-zero signed volume in
//! either orientation, and refuse others with [`RayCrossError::NotSolid`]. [`vertices_inside`]
//! is the paper's use case: which vertices of one posed body lie inside another.
//!
//! ```
//! use contact_core::{Containment, PointContainment};
//! use geometry_core::{generators::{foam, FoamSize}, DVec3};
//! use raycross::{PaperRayCrossing, RayCrossing};
//!
//! let body = foam(FoamSize::Small).unwrap();
//! let fast = RayCrossing::new(body.clone()).unwrap();
//! let paper = PaperRayCrossing::new(body).unwrap();
//! let points: Vec<DVec3> = (0..200).map(|i| DVec3::new(f64::from(i) / 100.0 - 1.0, 0.13, -0.31)).collect();
//! assert_eq!(fast.contains_batch(&points).unwrap(), paper.contains_batch(&points).unwrap());
//! ```

mod error;
mod fast;
mod paper;
mod posed;

pub use error::RayCrossError;
pub use fast::RayCrossing;
pub use paper::{PaperRayCrossing, RayStats};
pub use posed::vertices_inside;
