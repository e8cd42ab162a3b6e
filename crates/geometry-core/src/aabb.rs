//! Axis-aligned bounding boxes.

use crate::{DVec3, GeometryError, check_finite};

/// An axis-aligned box `[min, max]`, closed on every side.
///
/// The invariant `min <= max` (component-wise) with finite coordinates is checked by
/// [`Aabb::new`]; a box may be flat or a single point. Two boxes that touch on a face
/// [`overlap`](Aabb::overlaps), which is what a conservative broad phase wants.
///
/// ```
/// use geometry_core::{Aabb, DVec3};
/// let a = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
/// let b = Aabb::from_points(&[DVec3::splat(0.5), DVec3::new(2.0, 1.0, 3.0)]).unwrap();
/// assert!(a.overlaps(&b));
/// assert_eq!(a.merge(&b).max, DVec3::new(2.0, 1.0, 3.0));
/// assert_eq!(b.longest_edge(), 2.5);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    /// The corner with the smallest coordinates.
    pub min: DVec3,
    /// The corner with the largest coordinates.
    pub max: DVec3,
}

impl Aabb {
    /// Builds a box from its corners.
    ///
    /// # Errors
    /// [`GeometryError::NonFinite`] if a coordinate is NaN or infinite;
    /// [`GeometryError::InvertedBox`] if `min > max` on some axis.
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3, GeometryError};
    /// assert!(Aabb::new(DVec3::ZERO, DVec3::ONE).is_ok());
    /// assert!(matches!(Aabb::new(DVec3::ONE, DVec3::ZERO), Err(GeometryError::InvertedBox { .. })));
    /// ```
    #[inline]
    pub fn new(min: DVec3, max: DVec3) -> Result<Self, GeometryError> {
        // One branch for the valid case (every update of a broad phase passes here); the
        // error is sorted out of line.
        if min.is_finite() & max.is_finite() & min.cmple(max).all() {
            Ok(Self { min, max })
        } else {
            Err(Self::error_of(min, max))
        }
    }

    /// The error of [`Aabb::new`] for corners that are not a valid box.
    #[cold]
    #[inline(never)]
    fn error_of(min: DVec3, max: DVec3) -> GeometryError {
        match (check_finite("aabb min", min), check_finite("aabb max", max)) {
            (Err(e), _) | (_, Err(e)) => e,
            _ => GeometryError::InvertedBox { min: min.to_array(), max: max.to_array() },
        }
    }

    /// Checks the invariant of a box whose public fields may have been set directly:
    /// finite coordinates and `min <= max`. Returns the box unchanged when it holds.
    ///
    /// # Errors
    /// As [`Aabb::new`].
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// let bad = Aabb { min: DVec3::ONE, max: DVec3::ZERO };
    /// assert!(bad.validate().is_err());
    /// ```
    #[inline]
    pub fn validate(self) -> Result<Self, GeometryError> {
        Aabb::new(self.min, self.max)
    }

    /// The box centred at `center` with half-widths `half_extents` (each `>= 0`).
    ///
    /// The corners are `center ∓ half_extents` rounded to nearest, so the box can be a little
    /// smaller than the exact one (a half-width below half an ulp of the centre gives a single
    /// point); for a conservative bound, widen it, e.g. with [`expanded`](Self::expanded).
    ///
    /// # Errors
    /// As [`Aabb::new`]; a negative half-extent gives [`GeometryError::InvertedBox`].
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// let b = Aabb::from_center_half_extents(DVec3::ZERO, DVec3::ONE).unwrap();
    /// assert_eq!(b.min, -DVec3::ONE);
    /// ```
    pub fn from_center_half_extents(center: DVec3, half_extents: DVec3) -> Result<Self, GeometryError> {
        Self::new(center - half_extents, center + half_extents)
    }

    /// The smallest box containing every point.
    ///
    /// # Errors
    /// [`GeometryError::Empty`] for no points; [`GeometryError::NonFinite`] for a bad point.
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// let b = Aabb::from_points(&[DVec3::X, DVec3::Y]).unwrap();
    /// assert_eq!((b.min, b.max), (DVec3::ZERO, DVec3::new(1.0, 1.0, 0.0)));
    /// ```
    pub fn from_points(points: &[DVec3]) -> Result<Self, GeometryError> {
        let (first, rest) = points.split_first().ok_or(GeometryError::Empty { what: "aabb points" })?;
        let mut min = check_finite("aabb point", *first)?;
        let mut max = min;
        for &p in rest {
            check_finite("aabb point", p)?;
            min = min.min(p);
            max = max.max(p);
        }
        Ok(Self { min, max })
    }

    /// The smallest box containing both boxes.
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// let a = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
    /// let b = Aabb::new(DVec3::splat(2.0), DVec3::splat(3.0)).unwrap();
    /// assert_eq!(a.merge(&b), Aabb::new(DVec3::ZERO, DVec3::splat(3.0)).unwrap());
    /// ```
    #[must_use]
    pub fn merge(&self, other: &Aabb) -> Aabb {
        Aabb { min: self.min.min(other.min), max: self.max.max(other.max) }
    }

    /// The smallest box containing this box and `p` (`p` must be finite).
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// let a = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap().include_point(DVec3::splat(-1.0));
    /// assert_eq!(a.min, DVec3::splat(-1.0));
    /// ```
    #[must_use]
    pub fn include_point(&self, p: DVec3) -> Aabb {
        Aabb { min: self.min.min(p), max: self.max.max(p) }
    }

    /// Whether the closed boxes share at least one point (touching counts).
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// let a = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
    /// let touching = Aabb::new(DVec3::X, DVec3::new(2.0, 1.0, 1.0)).unwrap();
    /// assert!(a.overlaps(&touching));
    /// ```
    #[inline]
    pub fn overlaps(&self, other: &Aabb) -> bool {
        self.min.cmple(other.max).all() && other.min.cmple(self.max).all()
    }

    /// Whether `p` lies in the closed box.
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// let a = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
    /// assert!(a.contains_point(DVec3::ONE));
    /// assert!(!a.contains_point(DVec3::splat(1.5)));
    /// ```
    #[inline]
    pub fn contains_point(&self, p: DVec3) -> bool {
        self.min.cmple(p).all() && p.cmple(self.max).all()
    }

    /// Whether `other` lies entirely inside this box.
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// let a = Aabb::new(DVec3::ZERO, DVec3::splat(2.0)).unwrap();
    /// assert!(a.contains_aabb(&Aabb::new(DVec3::ONE, DVec3::splat(2.0)).unwrap()));
    /// ```
    #[inline]
    pub fn contains_aabb(&self, other: &Aabb) -> bool {
        self.min.cmple(other.min).all() && other.max.cmple(self.max).all()
    }

    /// Edge lengths `max - min` (infinite for an edge longer than `f64::MAX`; [`volume`](Self::volume)
    /// and [`surface_area`](Self::surface_area) stay finite there where theirs are).
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// assert_eq!(Aabb::new(DVec3::ZERO, DVec3::new(1.0, 2.0, 3.0)).unwrap().extents(), DVec3::new(1.0, 2.0, 3.0));
    /// ```
    #[inline]
    pub fn extents(&self) -> DVec3 {
        self.max - self.min
    }

    /// The longest edge length, the size measure of the hierarchical hash grid.
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// assert_eq!(Aabb::new(DVec3::ZERO, DVec3::new(1.0, 4.0, 3.0)).unwrap().longest_edge(), 4.0);
    /// ```
    #[inline]
    pub fn longest_edge(&self) -> f64 {
        self.extents().max_element()
    }

    /// Index (0, 1, 2 for x, y, z) of the longest axis; ties go to the lowest index.
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// assert_eq!(Aabb::new(DVec3::ZERO, DVec3::new(1.0, 4.0, 3.0)).unwrap().longest_axis(), 1);
    /// ```
    pub fn longest_axis(&self) -> usize {
        let e = self.extents();
        if e.x >= e.y && e.x >= e.z {
            0
        } else if e.y >= e.z {
            1
        } else {
            2
        }
    }

    /// The centre point (finite for every valid box: where `min + max` overflows, the halves
    /// are added instead).
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// assert_eq!(Aabb::new(DVec3::ZERO, DVec3::splat(2.0)).unwrap().center(), DVec3::ONE);
    /// let far = Aabb::new(DVec3::splat(1e308), DVec3::splat(1.5e308)).unwrap();
    /// assert_eq!(far.center(), DVec3::splat(1.25e308));
    /// ```
    #[inline]
    pub fn center(&self) -> DVec3 {
        let center = (self.min + self.max) * 0.5;
        if center.is_finite() { center } else { self.min * 0.5 + self.max * 0.5 }
    }

    /// Volume: zero for a flat box (however long its other edges), infinite only when the
    /// volume itself exceeds `f64::MAX` (no overflow or underflow of partial products, and
    /// edges longer than `f64::MAX` are taken at half length).
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// assert_eq!(Aabb::new(DVec3::ZERO, DVec3::new(1.0, 2.0, 3.0)).unwrap().volume(), 6.0);
    /// assert_eq!(Aabb::new(DVec3::ZERO, DVec3::new(1e200, 1e200, 0.0)).unwrap().volume(), 0.0);
    /// assert_eq!(Aabb::new(DVec3::ZERO, DVec3::new(1e200, 1e200, 1e-200)).unwrap().volume(), 1e200);
    /// ```
    pub fn volume(&self) -> f64 {
        let (half, scale) = self.halved_extents();
        crate::scaled::product(&[half.x, half.y, half.z, scale * scale * scale])
    }

    /// Surface area: computed as [`volume`](Self::volume) is, so zero or finite where the exact
    /// area is.
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// assert_eq!(Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap().surface_area(), 6.0);
    /// let needle = Aabb::new(DVec3::new(-1e308, 0.0, 0.0), DVec3::new(1e308, 0.0, 0.0)).unwrap();
    /// assert_eq!(needle.surface_area(), 0.0);
    /// ```
    pub fn surface_area(&self) -> f64 {
        let (e, scale) = self.halved_extents();
        let face = |u: f64, v: f64| crate::scaled::product(&[u, v, 2.0 * scale * scale]);
        face(e.x, e.y) + face(e.y, e.z) + face(e.z, e.x)
    }

    /// The extents, or where one overflows (an edge longer than `f64::MAX`) the half extents,
    /// with the factor (1 or 2) that restores them.
    fn halved_extents(&self) -> (DVec3, f64) {
        let e = self.extents();
        if e.is_finite() { (e, 1.0) } else { (self.max * 0.5 - self.min * 0.5, 2.0) }
    }

    /// The box grown by `margin` on every side.
    ///
    /// # Errors
    /// [`GeometryError::NonFinite`] for a non-finite margin; [`GeometryError::InvertedBox`] when a
    /// negative margin would invert the box.
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// let b = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap().expanded(0.5).unwrap();
    /// assert_eq!(b.min, DVec3::splat(-0.5));
    /// ```
    pub fn expanded(&self, margin: f64) -> Result<Aabb, GeometryError> {
        Aabb::new(self.min - DVec3::splat(margin), self.max + DVec3::splat(margin))
    }

    /// The 8 corners, in the order of the binary digits `zyx` (corner `i` takes `max.x` when bit 0 is set).
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// let c = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap().corners();
    /// assert_eq!((c[0], c[7]), (DVec3::ZERO, DVec3::ONE));
    /// ```
    pub fn corners(&self) -> [DVec3; 8] {
        std::array::from_fn(|i| {
            DVec3::new(
                if i & 1 == 0 { self.min.x } else { self.max.x },
                if i & 2 == 0 { self.min.y } else { self.max.y },
                if i & 4 == 0 { self.min.z } else { self.max.z },
            )
        })
    }
}
