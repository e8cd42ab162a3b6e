//! The shared vocabulary of the collision-detection workspace.
//!
//! Small and stable on purpose: every broad phase, narrow phase and inside/outside test of the
//! workspace speaks these types, so that a simulation can swap one method for another.
//!
//! * [`Contact`]: a contact point, normal and penetration depth, with one documented sign
//!   convention.
//! * [`Containment`] and [`PointContainment`]: inside / outside / on-boundary queries of a point
//!   against a solid (ray crossing, double layer potential).
//! * [`BroadPhase`]: insert, remove and update axis-aligned boxes, and find all overlapping
//!   pairs (hierarchical hash grid, sweep and prune, ...).
//! * [`ContactGenerator`]: a narrow phase that turns a pair of shapes into a [`Contact`]
//!   (Perram–Wertheim ellipsoids, spheres, ...).
//!
//! Reference implementations that double as test oracles: [`AllPairs`] (the brute-force broad
//! phase) and [`SphereContact`] (closed-form sphere–sphere contact).
//!
//! ```
//! use contact_core::{AllPairs, BroadPhase, ContactGenerator, SphereContact};
//! use geometry_core::{DVec3, Sphere};
//!
//! let spheres = [
//!     Sphere::new(DVec3::ZERO, 1.0).unwrap(),
//!     Sphere::new(DVec3::new(1.5, 0.0, 0.0), 1.0).unwrap(),
//!     Sphere::new(DVec3::new(9.0, 0.0, 0.0), 1.0).unwrap(),
//! ];
//! let mut broad = AllPairs::new();
//! let handles: Vec<_> = spheres.iter().map(|s| broad.insert(s.aabb()).unwrap()).collect();
//! let mut pairs = Vec::new();
//! broad.find_pairs(&mut pairs);
//! assert_eq!(pairs, vec![(handles[0], handles[1])]);
//!
//! let contact = SphereContact.contact(&spheres[0], &spheres[1]).unwrap().unwrap();
//! assert_eq!(contact.normal, DVec3::X);
//! assert!((contact.depth - 0.5).abs() < 1e-15);
//! ```

mod all_pairs;
mod broad_phase;
mod contact;
mod containment;
mod narrow_phase;

pub use all_pairs::{AllPairs, AllPairsHandle};
pub use broad_phase::{BroadPhase, BroadPhaseError};
pub use contact::{Contact, ContactError};
pub use containment::{Containment, NonFinitePoint, PointContainment};
pub use narrow_phase::{ContactGenerator, SphereContact};
