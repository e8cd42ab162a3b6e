//! Rays and segments.

use crate::{Aabb, DVec3, GeometryError, check_finite};

/// A half-line `origin + t · direction`, `t >= 0`, with a non-zero (not necessarily unit) direction.
///
/// ```
/// use geometry_core::{Aabb, Ray, DVec3};
/// let ray = Ray::new(DVec3::new(-1.0, 0.5, 0.5), DVec3::X).unwrap();
/// let unit = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
/// assert_eq!(ray.intersect_aabb(&unit), Some((1.0, 2.0)));
/// assert_eq!(ray.at(1.0), DVec3::new(0.0, 0.5, 0.5));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ray {
    origin: DVec3,
    direction: DVec3,
}

impl Ray {
    /// Builds a ray.
    ///
    /// # Errors
    /// [`GeometryError::NonFinite`] for non-finite input; [`GeometryError::ZeroVector`] for a zero direction.
    ///
    /// ```
    /// use geometry_core::{Ray, DVec3, GeometryError};
    /// assert!(matches!(Ray::new(DVec3::ZERO, DVec3::ZERO), Err(GeometryError::ZeroVector { .. })));
    /// ```
    pub fn new(origin: DVec3, direction: DVec3) -> Result<Self, GeometryError> {
        check_finite("ray origin", origin)?;
        check_finite("ray direction", direction)?;
        if direction == DVec3::ZERO {
            return Err(GeometryError::ZeroVector { what: "ray direction" });
        }
        Ok(Self { origin, direction })
    }

    /// The origin.
    ///
    /// ```
    /// use geometry_core::{Ray, DVec3};
    /// assert_eq!(Ray::new(DVec3::ONE, DVec3::X).unwrap().origin(), DVec3::ONE);
    /// ```
    #[inline]
    pub fn origin(&self) -> DVec3 {
        self.origin
    }

    /// The direction as given.
    ///
    /// ```
    /// use geometry_core::{Ray, DVec3};
    /// assert_eq!(Ray::new(DVec3::ONE, DVec3::X).unwrap().direction(), DVec3::X);
    /// ```
    #[inline]
    pub fn direction(&self) -> DVec3 {
        self.direction
    }

    /// The point `origin + t · direction`.
    ///
    /// ```
    /// use geometry_core::{Ray, DVec3};
    /// assert_eq!(Ray::new(DVec3::ZERO, DVec3::Y).unwrap().at(2.0), DVec3::new(0.0, 2.0, 0.0));
    /// ```
    #[inline]
    pub fn at(&self, t: f64) -> DVec3 {
        self.origin + t * self.direction
    }

    /// Slab test: the parameter interval `[t_enter, t_exit]` (clamped to `t >= 0`) where the ray is
    /// inside the closed box, or `None` when it misses.
    ///
    /// ```
    /// use geometry_core::{Aabb, Ray, DVec3};
    /// let b = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
    /// assert_eq!(Ray::new(DVec3::splat(2.0), DVec3::X).unwrap().intersect_aabb(&b), None);
    /// ```
    pub fn intersect_aabb(&self, aabb: &Aabb) -> Option<(f64, f64)> {
        slab_interval(self.origin, self.direction, aabb, 0.0, f64::INFINITY)
    }
}

/// A segment from `a` to `b`.
///
/// ```
/// use geometry_core::{Aabb, Segment, DVec3};
/// let s = Segment::new(DVec3::new(-1.0, 0.5, 0.5), DVec3::new(0.5, 0.5, 0.5)).unwrap();
/// let unit = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
/// assert!(s.intersects_aabb(&unit));
/// assert_eq!(s.length(), 1.5);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    /// Start point.
    pub a: DVec3,
    /// End point.
    pub b: DVec3,
}

impl Segment {
    /// Builds a segment (a zero-length segment is allowed).
    ///
    /// # Errors
    /// [`GeometryError::NonFinite`] for non-finite end points.
    ///
    /// ```
    /// use geometry_core::{Segment, DVec3};
    /// assert!(Segment::new(DVec3::ZERO, DVec3::splat(f64::NAN)).is_err());
    /// ```
    pub fn new(a: DVec3, b: DVec3) -> Result<Self, GeometryError> {
        check_finite("segment start", a)?;
        check_finite("segment end", b)?;
        Ok(Self { a, b })
    }

    /// Length `|b - a|`.
    ///
    /// ```
    /// use geometry_core::{Segment, DVec3};
    /// assert_eq!(Segment::new(DVec3::ZERO, DVec3::new(3.0, 4.0, 0.0)).unwrap().length(), 5.0);
    /// ```
    pub fn length(&self) -> f64 {
        self.a.distance(self.b)
    }

    /// The bounding box of the end points.
    ///
    /// ```
    /// use geometry_core::{Segment, DVec3};
    /// assert_eq!(Segment::new(DVec3::ONE, DVec3::ZERO).unwrap().aabb().min, DVec3::ZERO);
    /// ```
    pub fn aabb(&self) -> Aabb {
        Aabb { min: self.a.min(self.b), max: self.a.max(self.b) }
    }

    /// Whether the closed segment meets the closed box (slab test).
    ///
    /// ```
    /// use geometry_core::{Aabb, Segment, DVec3};
    /// let b = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
    /// assert!(!Segment::new(DVec3::splat(2.0), DVec3::splat(3.0)).unwrap().intersects_aabb(&b));
    /// ```
    pub fn intersects_aabb(&self, aabb: &Aabb) -> bool {
        let direction = self.b - self.a;
        if direction.is_finite() {
            return slab_interval(self.a, direction, aabb, 0.0, 1.0).is_some();
        }
        // `b - a` overflows: the same test at half scale (exact for normal numbers). Else
        // ∞/∞ made NaN parameters, which `min`/`max` skip, and a box beyond the end was hit.
        let (a, b) = (self.a * 0.5, self.b * 0.5);
        let half = Aabb { min: aabb.min * 0.5, max: aabb.max * 0.5 };
        slab_interval(a, b - a, &half, 0.0, 1.0).is_some()
    }
}

/// The parameter `offset / d` at which the ray crosses a slab's plane, `offset` being the
/// plane's coordinate minus the origin's (computed exactly up to rounding: a difference of two
/// `f64` is zero only when they are equal). A nonzero quotient that underflows to zero keeps
/// its sign as the smallest subnormal: else a plane just behind the origin (`offset = 5e-324`
/// against `d = -2`) would give `-0.0`, compare equal to the clamp `t >= 0`, and a box wholly
/// behind the ray would be reported hit at `t = 0`. A true zero (the origin on the plane) stays
/// zero, so touching still counts.
#[inline]
fn crossing(offset: f64, d: f64) -> f64 {
    let t = offset / d;
    if t == 0.0 && offset != 0.0 {
        // The sign of a nonzero quotient: negative when the signs differ.
        let smallest = f64::from_bits(1);
        if (offset < 0.0) == (d < 0.0) { smallest } else { -smallest }
    } else {
        t
    }
}

/// The sub-interval of `[t0, t1]` where `origin + t · dir` lies in the closed box.
fn slab_interval(origin: DVec3, dir: DVec3, aabb: &Aabb, mut t0: f64, mut t1: f64) -> Option<(f64, f64)> {
    for axis in 0..3 {
        let (o, d) = (origin[axis], dir[axis]);
        let (lo, hi) = (aabb.min[axis], aabb.max[axis]);
        if d == 0.0 {
            if o < lo || o > hi {
                return None;
            }
            continue;
        }
        let (mut ta, mut tb) = (crossing(lo - o, d), crossing(hi - o, d));
        if ta > tb {
            std::mem::swap(&mut ta, &mut tb);
        }
        t0 = t0.max(ta);
        t1 = t1.min(tb);
        if t0 > t1 {
            return None;
        }
    }
    Some((t0, t1))
}
