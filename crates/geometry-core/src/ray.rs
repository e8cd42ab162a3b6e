//! Rays and segments.

use crate::dyadic::Dyadic;
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
    /// Whether it misses is decided exactly (a floating-point slab test first, exact dyadic
    /// arithmetic where its rounding could change the answer: a ray that only grazes an edge or
    /// a corner, slab offsets that overflow, parameters that underflow); the interval's ends are
    /// rounded (beyond `f64`'s range they are infinite).
    ///
    /// ```
    /// use geometry_core::{Aabb, Ray, DVec3};
    /// let b = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
    /// assert_eq!(Ray::new(DVec3::splat(2.0), DVec3::X).unwrap().intersect_aabb(&b), None);
    /// ```
    pub fn intersect_aabb(&self, aabb: &Aabb) -> Option<(f64, f64)> {
        self.intersect_aabb_up_to(aabb, f64::INFINITY)
    }

    /// [`intersect_aabb`](Self::intersect_aabb) for `0 <= t <= max_t`: whether the ray meets the
    /// box before `max_t` is decided exactly too (a box entered exactly at `max_t` counts), and
    /// the interval is clipped to `max_t`. `None` for a NaN or negative `max_t`.
    ///
    /// (Comparing the rounded entry parameter with `max_t` instead got the boxes entered within
    /// a rounding of `max_t` wrong both ways.)
    ///
    /// ```
    /// use geometry_core::{Aabb, Ray, DVec3};
    /// let b = Aabb::new(DVec3::new(2.0, 0.0, 0.0), DVec3::new(3.0, 1.0, 1.0)).unwrap();
    /// let ray = Ray::new(DVec3::new(0.0, 0.5, 0.5), DVec3::X).unwrap();
    /// assert_eq!(ray.intersect_aabb_up_to(&b, 2.5), Some((2.0, 2.5)));
    /// assert_eq!(ray.intersect_aabb_up_to(&b, 2.0), Some((2.0, 2.0))); // entered exactly at max_t
    /// assert_eq!(ray.intersect_aabb_up_to(&b, 1.5), None);
    /// ```
    pub fn intersect_aabb_up_to(&self, aabb: &Aabb, max_t: f64) -> Option<(f64, f64)> {
        if max_t.is_nan() || max_t < 0.0 {
            return None;
        }
        let (ends, certain) = slab_interval(self.origin, self.direction, aabb, 0.0, max_t);
        let hit = if certain {
            ends.is_some_and(|(t0, t1)| t0 <= t1)
        } else {
            let direction = self.direction.to_array().map(Dyadic::from_f64);
            meets_exactly(self.origin, &direction, aabb, max_t)
        };
        // (A hit whose rounded ends crossed is a tangency: the ends are put in order, within
        // `max_t`.)
        ends.filter(|_| hit).map(|(t0, t1)| (t0.min(t1).min(max_t), t0.max(t1).min(max_t)))
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

    /// Length `|b - a|`, without spurious overflow or underflow (computed at unit scale, see
    /// [`scaled::length`](crate::scaled::length)): infinite only when the length itself exceeds
    /// `f64::MAX`.
    ///
    /// ```
    /// use geometry_core::{Segment, DVec3};
    /// assert_eq!(Segment::new(DVec3::ZERO, DVec3::new(3.0, 4.0, 0.0)).unwrap().length(), 5.0);
    /// let tiny = Segment::new(DVec3::new(3e-200, 0.0, 0.0), DVec3::new(0.0, 4e-200, 0.0)).unwrap();
    /// assert!((tiny.length() - 5e-200).abs() < 1e-214);
    /// ```
    pub fn length(&self) -> f64 {
        let d = self.b - self.a;
        if d.is_finite() {
            return crate::scaled::length(d);
        }
        // The difference overflows: its half does not (exact for normal numbers).
        2.0 * crate::scaled::length(self.b * 0.5 - self.a * 0.5)
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

    /// Whether the closed segment meets the closed box, decided exactly: a floating-point slab
    /// test first, exact dyadic arithmetic where its rounding could change the answer (a
    /// segment ending an ulp before the box used to be reported hit, and the same segment
    /// reversed not), so the answer does not depend on the segment's direction.
    ///
    /// ```
    /// use geometry_core::{Aabb, Segment, DVec3};
    /// let b = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
    /// assert!(!Segment::new(DVec3::splat(2.0), DVec3::splat(3.0)).unwrap().intersects_aabb(&b));
    /// // Ends one ulp before the box at x = 1.
    /// let box_after = Aabb::new(DVec3::new(1.0, 0.0, 0.0), DVec3::new(2.0, 1.0, 1.0)).unwrap();
    /// let short = Segment::new(DVec3::new(-1000.0, 0.5, 0.5), DVec3::new(1.0 - f64::EPSILON / 2.0, 0.5, 0.5)).unwrap();
    /// assert!(!short.intersects_aabb(&box_after));
    /// ```
    pub fn intersects_aabb(&self, aabb: &Aabb) -> bool {
        let direction = self.b - self.a;
        if direction.is_finite() {
            let (ends, certain) = slab_interval(self.a, direction, aabb, 0.0, 1.0);
            if certain {
                return ends.is_some_and(|(t0, t1)| t0 <= t1);
            }
        }
        // Rounding could decide it, or `b - a` overflows: exactly, along the exact `b - a`.
        let exact = |k: usize| Dyadic::from_f64(self.b[k]).sub(&Dyadic::from_f64(self.a[k]));
        meets_exactly(self.a, &[exact(0), exact(1), exact(2)], aabb, 1.0)
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

/// The rounded ends of the sub-interval of `[t0, t1]` where `origin + t · dir` lies in the
/// closed box (empty where they come out crossed; `None` when the line runs parallel to a slab
/// outside it, an exact decision), and whether rounding cannot have changed whether it is
/// empty: every slab offset and parameter finite and normal (or zero), and the two ends apart
/// by more than their rounding (each parameter is within 3 ulps of its exact value: the
/// offset, and for a segment the direction, and the quotient each round once).
fn slab_interval(
    origin: DVec3,
    dir: DVec3,
    aabb: &Aabb,
    mut t0: f64,
    mut t1: f64,
) -> (Option<(f64, f64)>, bool) {
    let clean = |x: f64| x == 0.0 || (x.is_finite() && x.abs() >= f64::MIN_POSITIVE);
    let mut certain = true;
    for axis in 0..3 {
        let (o, d) = (origin[axis], dir[axis]);
        let (lo, hi) = (aabb.min[axis], aabb.max[axis]);
        if d == 0.0 {
            // Exact comparisons.
            if o < lo || o > hi {
                return (None, true);
            }
            continue;
        }
        let (offset_lo, offset_hi) = (lo - o, hi - o);
        let (mut ta, mut tb) = (crossing(offset_lo, d), crossing(offset_hi, d));
        certain &= [offset_lo, offset_hi, ta, tb].into_iter().all(clean);
        if ta > tb {
            std::mem::swap(&mut ta, &mut tb);
        }
        t0 = t0.max(ta);
        t1 = t1.min(tb);
    }
    certain &= (t1 - t0).abs() > 8.0 * f64::EPSILON * (t0.abs() + t1.abs());
    (Some((t0, t1)), certain)
}

/// Whether `origin + t · dir` lies in the closed box for some `t` in `[0, max_t]` (`max_t >= 0`,
/// possibly infinite), in exact arithmetic: the largest entry parameter must not exceed the
/// smallest exit parameter. Each parameter is a fraction `offset / |d|` with the sign folded
/// into the offset, compared by cross-multiplication.
fn meets_exactly(origin: DVec3, dir: &[Dyadic; 3], aabb: &Aabb, max_t: f64) -> bool {
    let zero = Dyadic::from_f64(0.0);
    let one = Dyadic::from_f64(1.0);
    // (numerator, positive denominator) of each lower and upper bound on t.
    let mut lower = vec![(zero.clone(), one.clone())];
    let mut upper = Vec::new();
    if max_t.is_finite() {
        upper.push((Dyadic::from_f64(max_t), one.clone()));
    }
    for axis in 0..3 {
        let o = Dyadic::from_f64(origin[axis]);
        let lo = Dyadic::from_f64(aabb.min[axis]).sub(&o);
        let hi = Dyadic::from_f64(aabb.max[axis]).sub(&o);
        let d = &dir[axis];
        match d.signum() {
            0 => {
                // The line stays at the origin's coordinate: inside the slab or never.
                if lo.signum() > 0 || hi.signum() < 0 {
                    return false;
                }
            }
            1 => {
                lower.push((lo, d.clone()));
                upper.push((hi, d.clone()));
            }
            _ => {
                let magnitude = zero.sub(d);
                lower.push((zero.sub(&hi), magnitude.clone()));
                upper.push((zero.sub(&lo), magnitude));
            }
        }
    }
    // n1 / d1 <= n2 / d2 with d1, d2 > 0.
    lower.iter().all(|(n1, d1)| upper.iter().all(|(n2, d2)| n2.mul(d1).sub(&n1.mul(d2)).signum() >= 0))
}
