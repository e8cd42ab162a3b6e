//! Spheres.

use crate::{Aabb, DVec3, GeometryError, check_finite};

/// A solid ball with a strictly positive radius.
///
/// ```
/// use geometry_core::{Sphere, DVec3};
/// let a = Sphere::new(DVec3::ZERO, 1.0).unwrap();
/// let b = Sphere::new(DVec3::new(1.5, 0.0, 0.0), 1.0).unwrap();
/// assert!(a.intersects(&b));
/// assert_eq!(a.aabb().max, DVec3::ONE);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sphere {
    center: DVec3,
    radius: f64,
}

impl Sphere {
    /// A sphere of `radius > 0` around `center`.
    ///
    /// # Errors
    /// [`GeometryError::NonFinite`] for a non-finite centre or radius;
    /// [`GeometryError::NonPositive`] for a radius `<= 0`.
    ///
    /// ```
    /// use geometry_core::{Sphere, DVec3, GeometryError};
    /// assert!(matches!(Sphere::new(DVec3::ZERO, 0.0), Err(GeometryError::NonPositive { .. })));
    /// ```
    pub fn new(center: DVec3, radius: f64) -> Result<Self, GeometryError> {
        check_finite("sphere center", center)?;
        if !radius.is_finite() {
            return Err(GeometryError::NonFinite { what: "sphere radius" });
        }
        if radius <= 0.0 {
            return Err(GeometryError::NonPositive { what: "sphere radius", value: radius });
        }
        Ok(Self { center, radius })
    }

    /// The centre.
    ///
    /// ```
    /// use geometry_core::{Sphere, DVec3};
    /// assert_eq!(Sphere::new(DVec3::ONE, 2.0).unwrap().center(), DVec3::ONE);
    /// ```
    #[inline]
    pub fn center(&self) -> DVec3 {
        self.center
    }

    /// The radius.
    ///
    /// ```
    /// use geometry_core::{Sphere, DVec3};
    /// assert_eq!(Sphere::new(DVec3::ONE, 2.0).unwrap().radius(), 2.0);
    /// ```
    #[inline]
    pub fn radius(&self) -> f64 {
        self.radius
    }

    /// The tight bounding box (clamped to `±f64::MAX` for a ball reaching beyond `f64`'s range).
    ///
    /// ```
    /// use geometry_core::{Sphere, DVec3};
    /// assert_eq!(Sphere::new(DVec3::ZERO, 2.0).unwrap().aabb().min, DVec3::splat(-2.0));
    /// ```
    pub fn aabb(&self) -> Aabb {
        let r = DVec3::splat(self.radius);
        bounded(self.center - r, self.center + r)
    }

    /// Whether the two closed balls share a point: touching balls do. Decided for the exact
    /// values of the centres and radii, also at tangency (see [`crate::scaled::within_reach`]).
    ///
    /// ```
    /// use geometry_core::{Sphere, DVec3};
    /// let a = Sphere::new(DVec3::ZERO, 1.0).unwrap();
    /// assert!(!a.intersects(&Sphere::new(DVec3::new(3.0, 0.0, 0.0), 1.0).unwrap()));
    /// ```
    pub fn intersects(&self, other: &Sphere) -> bool {
        // Not through squared distances, which overflow or underflow for huge or tiny balls.
        crate::scaled::within_reach(self.center, other.center, self.radius, other.radius)
    }

    /// Whether `p` lies in the closed ball (exactly, also on the sphere; see
    /// [`crate::scaled::within_reach`]); `false` for a non-finite `p`.
    ///
    /// ```
    /// use geometry_core::{Sphere, DVec3};
    /// assert!(Sphere::new(DVec3::ZERO, 1.0).unwrap().contains_point(DVec3::X));
    /// ```
    pub fn contains_point(&self, p: DVec3) -> bool {
        // (A non-finite point is in no ball: an infinite or NaN one was reported inside.)
        p.is_finite() && crate::scaled::within_reach(self.center, p, self.radius, 0.0)
    }

    /// Volume `4/3 π r³`.
    ///
    /// ```
    /// use geometry_core::{Sphere, DVec3};
    /// let v = Sphere::new(DVec3::ZERO, 1.0).unwrap().volume();
    /// assert!((v - 4.0 / 3.0 * std::f64::consts::PI).abs() < 1e-15);
    /// ```
    pub fn volume(&self) -> f64 {
        let r = self.radius;
        crate::scaled::product(&[4.0 / 3.0 * std::f64::consts::PI, r, r, r])
    }
}

/// The box `[min, max]` with its corners clamped to `±f64::MAX`: the bounding box of a body
/// that reaches beyond `f64`'s range (a ball of radius `1e308` at `1e308`) still holds every
/// representable point of it, and is a valid [`Aabb`] (its corners were infinite).
pub(crate) fn bounded(min: DVec3, max: DVec3) -> Aabb {
    let limit = DVec3::splat(f64::MAX);
    Aabb { min: min.clamp(-limit, limit), max: max.clamp(-limit, limit) }
}
