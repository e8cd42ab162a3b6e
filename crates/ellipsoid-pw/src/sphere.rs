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
/// ellipsoid, or a hyperellipsoid"). Newton starts at the lower bound `max(0, |a∘y| − a_max²)`
/// of the root (not at 0), so a far centre converges in a few steps, and everything is computed
/// in units of a power of two near the pair's size, so the result does not depend on the
/// absolute scale (no overflow or underflow of the squared semi-axes).
///
/// When the centre is inside the ellipsoid (a penetration deeper than the sphere's radius),
/// the contact is Perram–Wertheim's for the sphere as an ellipsoid, an approximation.
/// The contact is always returned: a negative depth is the separation distance.
///
/// # Errors
/// In the inside case, those of [`PerramWertheim::solve`]; in the outside case,
/// [`PwError::LengthRatioOutOfRange`] when the smallest semi-axis is more than `2^200 ≈ 1.6e60`
/// times smaller than the largest semi-axis or the centre's distance along an axis (the
/// closest-point iteration's fourth powers of length ratios then leave the normal range of
/// `f64`: at `1e-77` the contact came out with a zero normal and a claimed penetration, at
/// `1e-155` NaN).
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
    // Work in units of a power of two near the largest of the semi-axes and the centre's
    // coordinates (exact), so that the squares below neither overflow nor underflow.
    let largest = axes.max_element().max(y.abs().max_element());
    if axes.min_element() < largest * SMALLEST_LENGTH_RATIO {
        return Err(PwError::LengthRatioOutOfRange);
    }
    let unit = power_of_two_near(largest);
    let (axes_u, y_u) = (axes / unit, y / unit);
    let squares = axes_u * axes_u;
    let weighted = axes_u * y_u;
    // The root lies in [|w| − a_max², |w| − a_min²] (w = a∘y), since |q(t)| is bracketed by
    // |w|/(t + a_max²) and |w|/(t + a_min²): starting from the lower bound (where φ >= 0) keeps
    // Newton left of the root and monotone, and for a far centre it starts within a_max² of the
    // root instead of growing t from 0 by a factor 1.5 per step.
    let mut t = (weighted.length() - squares.max_element()).max(0.0);
    for _ in 0..200 {
        let q = weighted / (squares + t);
        let phi = q.length_squared() - 1.0;
        let slope = -2.0 * (q * q / (squares + t)).element_sum();
        let step = phi / slope;
        // φ(t₀) >= 0, and Newton on a convex decreasing function stays left of the root.
        if step.is_nan() || step >= 0.0 {
            break;
        }
        t -= step;
        if -step <= 1e-15 * t {
            break;
        }
    }
    let closest = squares * y_u / (squares + t);
    let outward = (closest / squares).normalize();
    let distance = (y_u - closest).length() * unit;
    let depth = s.radius() - distance;
    let normal = rotation * outward;
    let witness_a = e.center() + (rotation * closest) * unit;
    Ok(Contact { point: witness_a - normal * (0.5 * depth), normal, depth })
}

/// `2^-200`: the smallest ratio of the smallest semi-axis to the largest length of the outside
/// case (its fourth power, `2^-800`, stays a normal number).
const SMALLEST_LENGTH_RATIO: f64 = 6.223_015_277_861_142e-61;

/// The power of two nearest below `x > 0` (1 for zero or non-finite input), usable as an exact
/// unit of length.
fn power_of_two_near(x: f64) -> f64 {
    if !(x.is_finite() && x > 0.0) {
        return 1.0;
    }
    let exponent = x.log2().floor().clamp(-1022.0, 1023.0);
    2f64.powi(exponent as i32)
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
