//! Exact ellipsoid–plane contact for planes of any orientation.

use contact_core::{Contact, ContactGenerator};
use geometry_core::{DVec3, Ellipsoid, Plane, scaled};
use std::convert::Infallible;

/// The exact contact of ellipsoid `e` (body A) with the solid half-space `n·x <= d` below
/// `wall` (body B).
///
/// The ellipsoid's deepest point towards the wall is its support point in direction `−n`,
/// `c − Q diag(a) ŵ` with `w = diag(a) Qᵀn` (`Q` the orientation, `a` the semi-axes) and
/// `h = |w|` the ellipsoid's half-extent along `n` (`= √(nᵀA⁻¹n)`, computed without squaring
/// the semi-axes, so exact to rounding at any aspect ratio and any scale); the depth is
/// `h − (n·c − d)`. The normal (from A to B) is `−n`; `witness_b` lies on the plane. The contact
/// is always returned: a negative depth is the separation distance.
///
/// ```
/// use ellipsoid_pw::contact_ellipsoid_plane;
/// use geometry_core::{DQuat, DVec3, Ellipsoid, Plane};
/// let ground = Plane::from_point_normal(DVec3::ZERO, DVec3::Z).unwrap();
/// let e = Ellipsoid::new(DVec3::new(0.0, 0.0, 0.9), DQuat::IDENTITY, DVec3::new(2.0, 1.0, 1.0)).unwrap();
/// let c = contact_ellipsoid_plane(&e, &ground);
/// assert!((c.depth - 0.1).abs() < 1e-15 && c.normal == -DVec3::Z);
/// assert!(c.witness_b().z.abs() < 1e-15);
/// ```
pub fn contact_ellipsoid_plane(e: &Ellipsoid, wall: &Plane) -> Contact {
    let n = wall.normal();
    let (rotation, axes) = (e.orientation(), e.semi_axes());
    // The support in direction n of the ellipsoid x = c + Q diag(a) u, |u| = 1, is reached at
    // u = w/|w| with w = diag(a) Qᵀn, and h = |w|: no squared semi-axes (which over- or
    // underflow, and lose the thin axes of an elongated body next to the long ones).
    let w = axes * (rotation.conjugate() * n);
    let half_extent = scaled::length(w);
    let u = scaled::normalize(w).unwrap_or(DVec3::ZERO);
    let deepest = e.center() - rotation * (axes * u);
    let depth = half_extent - wall.signed_distance(e.center());
    // witness_a = point + normal·depth/2 must be the deepest point, with normal = −n.
    Contact { point: deepest + n * (0.5 * depth), normal: -n, depth }
}

/// [`ContactGenerator`] for ellipsoid (A) against a solid half-space (B): the exact contact of
/// [`contact_ellipsoid_plane`] while `depth >= -margin`.
///
/// ```
/// use contact_core::ContactGenerator;
/// use ellipsoid_pw::EllipsoidPlaneContact;
/// use geometry_core::{DQuat, DVec3, Ellipsoid, Plane};
/// let ground = Plane::from_point_normal(DVec3::ZERO, DVec3::Z).unwrap();
/// let e = Ellipsoid::new(DVec3::new(0.0, 0.0, 1.5), DQuat::IDENTITY, DVec3::ONE).unwrap();
/// assert_eq!(EllipsoidPlaneContact { margin: 0.0 }.contact(&e, &ground).unwrap(), None);
/// assert!(EllipsoidPlaneContact { margin: 0.6 }.contact(&e, &ground).unwrap().is_some());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct EllipsoidPlaneContact {
    /// Report contacts up to this separation.
    pub margin: f64,
}

impl ContactGenerator<Ellipsoid, Plane> for EllipsoidPlaneContact {
    type Error = Infallible;

    fn contact(&self, a: &Ellipsoid, b: &Plane) -> Result<Option<Contact>, Infallible> {
        let contact = contact_ellipsoid_plane(a, b);
        Ok((contact.depth >= -self.margin).then_some(contact))
    }
}
