//! Ellipsoid–sphere contact: exact from the closest point of the ellipsoid to the sphere's
//! centre.

use crate::{PerramWertheim, PwError};
use contact_core::{Contact, ContactGenerator};
use geometry_core::{DVec3, Ellipsoid, Sphere};

/// The contact of ellipsoid `e` (body A) with sphere `s` (body B).
///
/// When the sphere's centre lies outside the ellipsoid, the contact is exact: the closest
/// point `x` of the ellipsoid to the centre `p` gives `depth = r − |p − x|`, the normal is the
/// ellipsoid's outward normal at `x` (along `p − x`), and `witness_a = x`. In the ellipsoid's
/// frame `x_i = a_i² y_i / (t + a_i²)` where `y` is the centre and `t > 0` the root of
/// `φ(t) = Σ (a_i y_i / (t + a_i²))² − 1`; `φ` is convex and decreasing, so Newton from `t = 0`
/// increases monotonically to the root (Eberly, "Distance from a point to an ellipse, an
/// ellipsoid, or a hyperellipsoid").
///
/// When the centre is inside the ellipsoid (a penetration deeper than the sphere's radius),
/// the contact is Perram–Wertheim's for the sphere as an ellipsoid, an approximation.
/// The contact is always returned: a negative depth is the separation distance.
///
/// # Errors
/// Only in the inside case, those of [`PerramWertheim::solve`].
///
/// ```
/// use ellipsoid_pw::contact_ellipsoid_sphere;
/// use geometry_core::{DQuat, DVec3, Ellipsoid, Sphere};
/// let e = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::new(3.0, 1.0, 1.0)).unwrap();
/// let s = Sphere::new(DVec3::new(0.0, 1.4, 0.0), 0.5).unwrap();
/// let c = contact_ellipsoid_sphere(&e, &s).unwrap();
/// assert!((c.depth - 0.1).abs() < 1e-14 && (c.normal - DVec3::Y).length() < 1e-14);
/// assert!((c.witness_a() - DVec3::Y).length() < 1e-14);
/// ```
pub fn contact_ellipsoid_sphere(e: &Ellipsoid, s: &Sphere) -> Result<Contact, PwError> {
    let rotation = e.orientation();
    let axes = e.semi_axes();
    let y = rotation.conjugate() * (s.center() - e.center());
    if (y / axes).length_squared() <= 1.0 {
        let as_ellipsoid = Ellipsoid::new(s.center(), rotation, DVec3::splat(s.radius()))
            .expect("a valid sphere is a valid ellipsoid");
        return PerramWertheim::newton().solve(e, &as_ellipsoid).map(|r| r.contact());
    }
    let squares = axes * axes;
    let weighted = axes * y;
    let mut t = 0.0f64;
    for _ in 0..200 {
        let q = weighted / (squares + t);
        let phi = q.length_squared() - 1.0;
        let slope = -2.0 * (q * q / (squares + t)).element_sum();
        let step = phi / slope;
        // φ(0) > 0 outside, and Newton on a convex decreasing function stays left of the root.
        if step.is_nan() || step >= 0.0 {
            break;
        }
        t -= step;
        if -step <= 1e-15 * t {
            break;
        }
    }
    let closest = squares * y / (squares + t);
    let outward = (closest / squares).normalize();
    let distance = (y - closest).length();
    let depth = s.radius() - distance;
    let normal = rotation * outward;
    let witness_a = e.center() + rotation * closest;
    Ok(Contact { point: witness_a - normal * (0.5 * depth), normal, depth })
}

/// [`ContactGenerator`] for ellipsoid (A) against sphere (B): [`contact_ellipsoid_sphere`]
/// while `depth >= -margin`.
///
/// ```
/// use contact_core::ContactGenerator;
/// use ellipsoid_pw::EllipsoidSphereContact;
/// use geometry_core::{DQuat, DVec3, Ellipsoid, Sphere};
/// let e = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::new(3.0, 1.0, 1.0)).unwrap();
/// let s = Sphere::new(DVec3::new(4.0, 0.0, 0.0), 0.5).unwrap();
/// assert_eq!(EllipsoidSphereContact::default().contact(&e, &s).unwrap(), None);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct EllipsoidSphereContact {
    /// Report contacts up to this separation.
    pub margin: f64,
}

impl ContactGenerator<Ellipsoid, Sphere> for EllipsoidSphereContact {
    type Error = PwError;

    fn contact(&self, a: &Ellipsoid, b: &Sphere) -> Result<Option<Contact>, PwError> {
        let contact = contact_ellipsoid_sphere(a, b)?;
        Ok((contact.depth >= -self.margin).then_some(contact))
    }
}
