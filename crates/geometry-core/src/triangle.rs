//! Triangles.

use crate::predicates::collinear3d;
use crate::{Aabb, DVec3};

/// A triangle given by its three corners; counter-clockwise order defines the normal.
///
/// ```
/// use geometry_core::{Triangle, DVec3};
/// let t = Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y);
/// assert_eq!(t.area(), 0.5);
/// assert_eq!(t.unit_normal(), Some(DVec3::Z));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Triangle {
    /// First corner.
    pub a: DVec3,
    /// Second corner.
    pub b: DVec3,
    /// Third corner.
    pub c: DVec3,
}

impl Triangle {
    /// A triangle from its corners (no validation: see [`Triangle::is_degenerate`]).
    ///
    /// ```
    /// use geometry_core::{Triangle, DVec3};
    /// let t = Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y);
    /// assert_eq!(t.b, DVec3::X);
    /// ```
    #[inline]
    pub const fn new(a: DVec3, b: DVec3, c: DVec3) -> Self {
        Self { a, b, c }
    }

    /// The point of the (closed) triangle closest to `p`, by the Voronoi regions of its corners
    /// and edges (Ericson, *Real-Time Collision Detection*, §5.1.5). A degenerate triangle gives
    /// the nearest point of its three edges' segments. Computed relative to `a` and scaled by a
    /// power of two to unit size (exactly), so a triangle and point scaled by `2^k` give the
    /// answer scaled by `2^k`, at every scale where the offsets from `a` are normal numbers.
    /// NaN for a non-finite corner or point.
    ///
    /// ```
    /// use geometry_core::{Triangle, DVec3};
    /// let t = Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y);
    /// let above = t.closest_point(DVec3::new(0.2, 0.3, 5.0));
    /// assert!((above - DVec3::new(0.2, 0.3, 0.0)).length() < 1e-15);
    /// assert_eq!(t.closest_point(DVec3::new(-1.0, -1.0, 0.0)), DVec3::ZERO);
    /// assert_eq!(t.closest_point(DVec3::new(1.0, 1.0, 0.0)), DVec3::new(0.5, 0.5, 0.0));
    /// ```
    pub fn closest_point(&self, p: DVec3) -> DVec3 {
        let (ab, ac, ap) = (self.b - self.a, self.c - self.a, p - self.a);
        let largest = ab.abs().max(ac.abs()).max(ap.abs()).max_element();
        if largest == 0.0 {
            return self.a;
        }
        if [self.a, self.b, self.c, p].iter().any(|v| !v.is_finite()) {
            return DVec3::NAN;
        }
        if !largest.is_finite() {
            // Offsets beyond f64's range: the same problem at half the size (exact).
            let half = Self::new(self.a * 0.5, self.b * 0.5, self.c * 0.5);
            return half.closest_point(p * 0.5) * 2.0;
        }
        // At unit size: products of offsets of 1e-200 underflowed (the answer became corner a)
        // and of 1e200 overflowed (NaN).
        let scale = crate::scaled::power_of_two_near_reciprocal(largest);
        self.a + closest_point_from_origin(ab * scale, ac * scale, ap * scale) / scale
    }

    /// The non-normalised normal `(b - a) × (c - a)`, whose length is twice the area.
    ///
    /// ```
    /// use geometry_core::{Triangle, DVec3};
    /// assert_eq!(Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y).normal(), DVec3::Z);
    /// ```
    #[inline]
    pub fn normal(&self) -> DVec3 {
        (self.b - self.a).cross(self.c - self.a)
    }

    /// The unit normal, or `None` for a degenerate triangle (its edges from `a` parallel) or a
    /// non-finite one. The cross product is taken of the two edges each scaled by a power of two
    /// to unit size, so tiny and huge faces keep their direction (a
    /// face of size 1e-162 had its cross product partly underflowed, its normal off by 0.2
    /// rad; one at 1e200 overflowed to `None`).
    ///
    /// ```
    /// use geometry_core::{Triangle, DVec3};
    /// assert_eq!(Triangle::new(DVec3::ZERO, DVec3::X, DVec3::X).unit_normal(), None);
    /// let tiny = Triangle::new(DVec3::ZERO, DVec3::X * 1e-90, DVec3::Y * 1e-90);
    /// assert_eq!(tiny.unit_normal(), Some(DVec3::Z));
    /// let huge = Triangle::new(DVec3::ZERO, DVec3::X * 1e300, DVec3::Y * 1e300);
    /// assert_eq!(huge.unit_normal(), Some(DVec3::Z));
    /// ```
    #[inline]
    pub fn unit_normal(&self) -> Option<DVec3> {
        unit_scale_normal(self.a, self.b, self.c).0
    }

    /// The area, from the cross product of the edges scaled to unit size (as for the normal):
    /// zero only for a degenerate triangle, infinite only when the area exceeds `f64::MAX`.
    ///
    /// ```
    /// use geometry_core::{Triangle, DVec3};
    /// assert_eq!(Triangle::new(DVec3::ZERO, DVec3::new(2.0, 0.0, 0.0), DVec3::Y).area(), 1.0);
    /// assert_eq!(Triangle::new(DVec3::ZERO, DVec3::X * 1e-90, DVec3::Y * 2e-90).area(), 1e-180);
    /// ```
    #[inline]
    pub fn area(&self) -> f64 {
        0.5 * unit_scale_normal(self.a, self.b, self.c).1
    }

    /// The centroid (finite for finite corners: where their sum overflows, thirds are added).
    ///
    /// ```
    /// use geometry_core::{Triangle, DVec3};
    /// assert_eq!(Triangle::new(DVec3::ZERO, DVec3::splat(3.0), DVec3::ZERO).centroid(), DVec3::ONE);
    /// let far = Triangle::new(DVec3::splat(1e308), DVec3::splat(1e308), DVec3::splat(1e308));
    /// assert!(far.centroid().is_finite());
    /// ```
    #[inline]
    pub fn centroid(&self) -> DVec3 {
        let centroid = (self.a + self.b + self.c) / 3.0;
        if centroid.is_finite() { centroid } else { self.a / 3.0 + self.b / 3.0 + self.c / 3.0 }
    }

    /// The bounding box of the corners.
    ///
    /// ```
    /// use geometry_core::{Triangle, DVec3};
    /// assert_eq!(Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y).aabb().max, DVec3::new(1.0, 1.0, 0.0));
    /// ```
    #[inline]
    pub fn aabb(&self) -> Aabb {
        Aabb { min: self.a.min(self.b).min(self.c), max: self.a.max(self.b).max(self.c) }
    }

    /// Whether the corners are exactly collinear (zero area), decided by exact predicates.
    ///
    /// ```
    /// use geometry_core::{Triangle, DVec3};
    /// assert!(Triangle::new(DVec3::ZERO, DVec3::ONE, DVec3::splat(0.5)).is_degenerate());
    /// ```
    pub fn is_degenerate(&self) -> bool {
        collinear3d(self.a, self.b, self.c)
    }

    /// The same triangle with the opposite orientation.
    ///
    /// ```
    /// use geometry_core::{Triangle, DVec3};
    /// assert_eq!(Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y).flipped().normal(), -DVec3::Z);
    /// ```
    #[must_use]
    pub fn flipped(&self) -> Triangle {
        Triangle { a: self.a, b: self.c, c: self.b }
    }

    /// Signed volume of the tetrahedron (origin, a, b, c): `a · (b × c) / 6`.
    /// Summed over a closed mesh, it gives the enclosed volume.
    ///
    /// ```
    /// use geometry_core::{Triangle, DVec3};
    /// assert_eq!(Triangle::new(DVec3::X, DVec3::Y, DVec3::Z).signed_volume_from_origin(), 1.0 / 6.0);
    /// ```
    #[inline]
    pub fn signed_volume_from_origin(&self) -> f64 {
        self.a.dot(self.b.cross(self.c)) / 6.0
    }
}
/// The point of the triangle `(0, ab, ac)` closest to `ap` (Ericson's Voronoi regions); for a
/// degenerate or sliver triangle, the nearest of its edges' closest points and of its interior
/// least-squares point when that lies on it.
fn closest_point_from_origin(ab: DVec3, ac: DVec3, ap: DVec3) -> DVec3 {
    // (At unit size.) The regions are decided by signs of products of nearly cancelling terms,
    // and for a sliver (sin² of its angle at 0 below 1e-12) they can be wrong: a triangle whose
    // third corner was a rounding away from its first edge's line gave a point 0.03 off. Every
    // candidate below lies on the triangle, so the nearest of them is right to rounding.
    if ab.cross(ac).length_squared() <= 1e-12 * ab.length_squared() * ac.length_squared() {
        let on_segment = |from: DVec3, to: DVec3| {
            let edge = to - from;
            let squared = edge.length_squared();
            // (Divided only by a nonzero squared length: NaN for coinciding corners before.)
            let t = if squared > 0.0 { ((ap - from).dot(edge) / squared).clamp(0.0, 1.0) } else { 0.0 };
            from + edge * t
        };
        let (g11, g12, g22) = (ab.length_squared(), ab.dot(ac), ac.length_squared());
        let (r1, r2) = (ab.dot(ap), ac.dot(ap));
        let det = g11 * g22 - g12 * g12;
        let interior = (det > 0.0)
            .then(|| ((r1 * g22 - r2 * g12) / det, (r2 * g11 - r1 * g12) / det))
            .filter(|&(u, v)| u >= 0.0 && v >= 0.0 && u + v <= 1.0)
            .map(|(u, v)| ab * u + ac * v);
        let candidates = [
            Some(on_segment(DVec3::ZERO, ab)),
            Some(on_segment(ab, ac)),
            Some(on_segment(ac, DVec3::ZERO)),
            interior,
        ];
        return candidates
            .into_iter()
            .flatten()
            .min_by(|x, y| (*x - ap).length_squared().total_cmp(&(*y - ap).length_squared()))
            .unwrap_or(DVec3::ZERO);
    }
    let (a, b, c, p) = (DVec3::ZERO, ab, ac, ap);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a; // corner a's region
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return b; // corner b's region
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return a + ab * (d1 / (d1 - d3)); // edge ab
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c; // corner c's region
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return a + ac * (d2 / (d2 - d6)); // edge ac
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6))); // edge bc
    }
    // Inside the face: barycentric coordinates from the three sub-areas.
    let denominator = 1.0 / (va + vb + vc);
    a + ab * (vb * denominator) + ac * (vc * denominator)
}

/// The unit normal (or `None` for a degenerate or non-finite triangle) and twice the area of the
/// triangle `a b c`, from the cross product of its edges from `a`, each first scaled by a power
/// of two (exactly) to a largest component in `[1, 2)`: neither the cross product nor its
/// length can then overflow or underflow, whatever the triangle's size, and the area is scaled
/// back without overflow of partial products ([`scaled::product`](crate::scaled::product)).
/// Edges that overflow are taken between the halved corners (area ×4).
///
/// Edges of moderate size (largest components within `2^±240`) skip the scaling: their cross
/// product is the scaled one times an exact power of two, so the same normal and area come out
/// (measured: the scaling everywhere made mesh validation 1.4× slower).
pub(crate) fn unit_scale_normal(a: DVec3, b: DVec3, c: DVec3) -> (Option<DVec3>, f64) {
    // 2^-240 ..= 2^240.
    const MODERATE: std::ops::RangeInclusive<f64> = 5.659_799_424_266_695e-73..=1.766_847_064_778_384_3e72;
    let (mut ab, mut ac, mut area_factor) = (b - a, c - a, 1.0);
    if !(ab.is_finite() && ac.is_finite()) {
        (ab, ac, area_factor) = (b * 0.5 - a * 0.5, c * 0.5 - a * 0.5, 4.0);
    }
    let (largest_ab, largest_ac) = (ab.abs().max_element(), ac.abs().max_element());
    if ab.is_nan() || ac.is_nan() || !(largest_ab.is_finite() && largest_ac.is_finite()) {
        return (None, f64::NAN);
    }
    if largest_ab == 0.0 || largest_ac == 0.0 {
        return (None, 0.0);
    }
    // The unit normal and length of a cross product whose squared length is a normal number.
    let plain = |cross: DVec3| {
        let squared = cross.length_squared();
        squared.is_normal().then(|| {
            let length = squared.sqrt();
            (cross / length, length)
        })
    };
    if MODERATE.contains(&largest_ab)
        && MODERATE.contains(&largest_ac)
        && let Some((normal, length)) = plain(ab.cross(ac))
    {
        return (Some(normal), area_factor * length);
    }
    let (scale_ab, scale_ac) = (
        crate::scaled::power_of_two_near_reciprocal(largest_ab),
        crate::scaled::power_of_two_near_reciprocal(largest_ac),
    );
    let cross = (ab * scale_ab).cross(ac * scale_ac);
    let (normal, length) = match plain(cross) {
        Some((normal, length)) => (Some(normal), length),
        None => (crate::scaled::normalize(cross), crate::scaled::length(cross)),
    };
    (normal, crate::scaled::product(&[length, area_factor, 1.0 / scale_ab, 1.0 / scale_ac]))
}
