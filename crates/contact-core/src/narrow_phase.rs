//! The narrow-phase trait and the closed-form sphere–sphere generator.

use crate::Contact;
use geometry_core::{Sphere, scaled};
use std::convert::Infallible;

/// Computes the contact between two shapes of types `A` and `B`.
///
/// The generator value carries the method's settings (tolerances, iteration limits, a
/// speculative margin). It returns `Ok(None)` when the shapes are apart by more than the
/// generator's margin (zero unless documented), and otherwise a [`Contact`] following that
/// type's convention: normal from `a` to `b`, positive depth for penetration.
///
/// ```
/// use contact_core::{ContactGenerator, SphereContact};
/// use geometry_core::{DVec3, Sphere};
/// let a = Sphere::new(DVec3::ZERO, 1.0).unwrap();
/// let far = Sphere::new(DVec3::new(5.0, 0.0, 0.0), 1.0).unwrap();
/// assert_eq!(SphereContact.contact(&a, &far).unwrap(), None);
/// ```
pub trait ContactGenerator<A: ?Sized, B: ?Sized = A> {
    /// Why a contact could not be computed (e.g. an iteration failed to converge).
    type Error: std::error::Error + Send + Sync + 'static;

    /// The contact between `a` and `b`, or `None` when they are apart.
    ///
    /// # Errors
    /// Implementation-defined.
    fn contact(&self, a: &A, b: &B) -> Result<Option<Contact>, Self::Error>;
}

/// Exact-form contact between two [`Sphere`]s (balls), the workhorse of DEM.
///
/// For centres `c_a`, `c_b`, radii `r_a`, `r_b` and distance `d = |c_b - c_a|`: a contact exists
/// when `d <= r_a + r_b`, with `normal = (c_b - c_a) / d`, `depth = r_a + r_b - d`, and `point`
/// midway between the surface points `c_a + r_a n` and `c_b - r_b n`. Concentric spheres have no
/// defined normal; the generator then reports `+x` (documented, deterministic).
///
/// ```
/// use contact_core::{ContactGenerator, SphereContact};
/// use geometry_core::{DVec3, Sphere};
/// let a = Sphere::new(DVec3::ZERO, 1.0).unwrap();
/// let b = Sphere::new(DVec3::new(0.0, 1.0, 0.0), 0.5).unwrap();
/// let c = SphereContact.contact(&a, &b).unwrap().unwrap();
/// assert_eq!((c.normal, c.depth), (DVec3::Y, 0.5));
/// assert_eq!(c.point, DVec3::new(0.0, 0.75, 0.0));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SphereContact;

impl ContactGenerator<Sphere> for SphereContact {
    type Error = Infallible;

    fn contact(&self, a: &Sphere, b: &Sphere) -> Result<Option<Contact>, Infallible> {
        // Without squared lengths, which overflow or underflow for huge or tiny balls.
        if !a.intersects(b) {
            return Ok(None);
        }
        let (ca, cb, ra, rb) = (a.center(), b.center(), a.radius(), b.radius());
        // Differences and sums that overflow (centres or radii near the largest double) are
        // taken at half scale, which is exact for normal numbers.
        let (delta, reach) = (cb - ca, ra + rb);
        let half = !delta.is_finite() || !reach.is_finite();
        let (delta, reach, unit) =
            if half { (cb * 0.5 - ca * 0.5, ra * 0.5 + rb * 0.5, 2.0) } else { (delta, reach, 1.0) };
        let normal = scaled::normalize(delta).unwrap_or(geometry_core::DVec3::X);
        // The balls overlap: the depth lies between 0 and the sum of the radii (capped at the
        // largest double).
        let depth = ((reach - scaled::length(delta)).max(0.0) * unit).min(f64::MAX);
        // Midway between the surface points c_a + r_a n and c_b − r_b n.
        let point = (ca * 0.5 + cb * 0.5) + normal * (ra * 0.5 - rb * 0.5);
        Ok(Some(Contact { point, normal, depth }))
    }
}
