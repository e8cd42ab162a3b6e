//! Planes and half-spaces.

use crate::{DVec3, GeometryError, check_finite};

/// The plane `{ x : n · x = d }` with unit normal `n`; the half-space `n · x <= d` is "below".
///
/// ```
/// use geometry_core::{Plane, DVec3};
/// let ground = Plane::from_point_normal(DVec3::ZERO, DVec3::new(0.0, 0.0, 2.0)).unwrap();
/// assert_eq!(ground.normal(), DVec3::Z);
/// assert_eq!(ground.signed_distance(DVec3::new(5.0, 1.0, 3.0)), 3.0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plane {
    normal: DVec3,
    offset: f64,
}

impl Plane {
    /// The plane through `point` with normal direction `normal` (normalised here).
    ///
    /// # Errors
    /// [`GeometryError::NonFinite`] for non-finite input, and for a plane whose offset `n · point`
    /// lies beyond `f64`'s range (a point near `f64::MAX` on every axis with a diagonal normal:
    /// its distances would all be NaN); [`GeometryError::ZeroVector`] for a zero normal.
    ///
    /// ```
    /// use geometry_core::{Plane, DVec3, GeometryError};
    /// assert!(matches!(Plane::from_point_normal(DVec3::ZERO, DVec3::ZERO), Err(GeometryError::ZeroVector { .. })));
    /// let far = Plane::from_point_normal(DVec3::splat(1.5e308), DVec3::ONE);
    /// assert!(matches!(far, Err(GeometryError::NonFinite { .. })));
    /// ```
    pub fn from_point_normal(point: DVec3, normal: DVec3) -> Result<Self, GeometryError> {
        check_finite("plane point", point)?;
        check_finite("plane normal", normal)?;
        let n = crate::scaled::normalize(normal).ok_or(GeometryError::ZeroVector { what: "plane normal" })?;
        let offset = n.dot(point);
        if !offset.is_finite() {
            return Err(GeometryError::NonFinite { what: "plane offset n · point" });
        }
        Ok(Self { normal: n, offset })
    }

    /// The unit normal.
    ///
    /// ```
    /// use geometry_core::{Plane, DVec3};
    /// assert_eq!(Plane::from_point_normal(DVec3::ZERO, DVec3::X).unwrap().normal(), DVec3::X);
    /// ```
    #[inline]
    pub fn normal(&self) -> DVec3 {
        self.normal
    }

    /// The offset `d` in `n · x = d`.
    ///
    /// ```
    /// use geometry_core::{Plane, DVec3};
    /// assert_eq!(Plane::from_point_normal(DVec3::new(2.0, 0.0, 0.0), DVec3::X).unwrap().offset(), 2.0);
    /// ```
    #[inline]
    pub fn offset(&self) -> f64 {
        self.offset
    }

    /// Signed distance `n · p - d` (positive on the side the normal points to).
    ///
    /// ```
    /// use geometry_core::{Plane, DVec3};
    /// assert_eq!(Plane::from_point_normal(DVec3::ZERO, DVec3::Y).unwrap().signed_distance(-DVec3::Y), -1.0);
    /// ```
    #[inline]
    pub fn signed_distance(&self, p: DVec3) -> f64 {
        self.normal.dot(p) - self.offset
    }

    /// The orthogonal projection of `p` onto the plane.
    ///
    /// ```
    /// use geometry_core::{Plane, DVec3};
    /// assert_eq!(Plane::from_point_normal(DVec3::ZERO, DVec3::Z).unwrap().project(DVec3::ONE), DVec3::new(1.0, 1.0, 0.0));
    /// ```
    pub fn project(&self, p: DVec3) -> DVec3 {
        p - self.signed_distance(p) * self.normal
    }
}
