//! Ellipsoids given by centre, orientation and semi-axes.

use crate::{Aabb, DMat3, DQuat, DVec3, GeometryError, check_finite};

/// A solid ellipsoid `{ x : (x - c)ᵀ A (x - c) <= 1 }` with `A = R diag(1/a², 1/b², 1/c²) Rᵀ`.
///
/// `R` is the rotation of the unit quaternion `orientation`; its columns are the ellipsoid's
/// principal axes in world coordinates, with semi-axis lengths `semi_axes.x`, `.y`, `.z`.
///
/// ```
/// use geometry_core::{Ellipsoid, DQuat, DVec3};
/// let e = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::new(3.0, 2.0, 1.0)).unwrap();
/// assert!(e.contains_point(DVec3::new(2.9, 0.0, 0.0)));
/// assert!(!e.contains_point(DVec3::new(0.0, 2.1, 0.0)));
/// assert_eq!(e.aabb().max, DVec3::new(3.0, 2.0, 1.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ellipsoid {
    center: DVec3,
    orientation: DQuat,
    semi_axes: DVec3,
}

impl Ellipsoid {
    /// Builds an ellipsoid; the orientation is normalised.
    ///
    /// # Errors
    /// [`GeometryError::NonFinite`] for any non-finite input;
    /// [`GeometryError::ZeroVector`] for a zero quaternion;
    /// [`GeometryError::NonPositive`] for a semi-axis `<= 0`.
    ///
    /// ```
    /// use geometry_core::{Ellipsoid, DQuat, DVec3, GeometryError};
    /// let bad = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::new(1.0, 0.0, 1.0));
    /// assert!(matches!(bad, Err(GeometryError::NonPositive { .. })));
    /// ```
    pub fn new(center: DVec3, orientation: DQuat, semi_axes: DVec3) -> Result<Self, GeometryError> {
        check_finite("ellipsoid center", center)?;
        check_finite("ellipsoid semi-axes", semi_axes)?;
        if !orientation.is_finite() {
            return Err(GeometryError::NonFinite { what: "ellipsoid orientation" });
        }
        // Scale by the largest component before normalising so that tiny or huge (but finite,
        // non-zero) quaternions normalise without underflow or overflow.
        let largest = glam::DVec4::from(orientation).abs().max_element();
        if largest == 0.0 {
            return Err(GeometryError::ZeroVector { what: "ellipsoid orientation" });
        }
        let scaled = orientation / largest;
        if let Some(&bad) = semi_axes.to_array().iter().find(|&&a| a <= 0.0) {
            return Err(GeometryError::NonPositive { what: "ellipsoid semi-axis", value: bad });
        }
        Ok(Self { center, orientation: scaled / scaled.length(), semi_axes })
    }

    /// The centre.
    ///
    /// ```
    /// use geometry_core::{Ellipsoid, DQuat, DVec3};
    /// assert_eq!(Ellipsoid::new(DVec3::X, DQuat::IDENTITY, DVec3::ONE).unwrap().center(), DVec3::X);
    /// ```
    #[inline]
    pub fn center(&self) -> DVec3 {
        self.center
    }

    /// The (unit) orientation quaternion.
    ///
    /// ```
    /// use geometry_core::{Ellipsoid, DQuat, DVec3};
    /// let e = Ellipsoid::new(DVec3::ZERO, DQuat::from_xyzw(0.0, 0.0, 0.0, 2.0), DVec3::ONE).unwrap();
    /// assert_eq!(e.orientation(), DQuat::IDENTITY);
    /// ```
    #[inline]
    pub fn orientation(&self) -> DQuat {
        self.orientation
    }

    /// The semi-axis lengths along the body axes.
    ///
    /// ```
    /// use geometry_core::{Ellipsoid, DQuat, DVec3};
    /// assert_eq!(Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::ONE).unwrap().semi_axes(), DVec3::ONE);
    /// ```
    #[inline]
    pub fn semi_axes(&self) -> DVec3 {
        self.semi_axes
    }

    /// The rotation matrix `R` whose columns are the principal axes.
    ///
    /// ```
    /// use geometry_core::{Ellipsoid, DMat3, DQuat, DVec3};
    /// assert_eq!(Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::ONE).unwrap().rotation(), DMat3::IDENTITY);
    /// ```
    pub fn rotation(&self) -> DMat3 {
        DMat3::from_quat(self.orientation)
    }

    /// The shape matrix `A = R diag(1/a²) Rᵀ` of the quadratic form `(x - c)ᵀ A (x - c) <= 1`.
    ///
    /// Its entries are inverse squares of the semi-axes: they overflow to infinity for semi-axes
    /// below about `1e-154` and vanish for semi-axes above about `1e154` (scale such ellipsoids
    /// by a power of two first, which is exact).
    ///
    /// ```
    /// use geometry_core::{Ellipsoid, DQuat, DVec3};
    /// let a = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::new(2.0, 1.0, 1.0)).unwrap().shape_matrix();
    /// assert_eq!(a.x_axis.x, 0.25);
    /// ```
    pub fn shape_matrix(&self) -> DMat3 {
        let r = self.rotation();
        r * DMat3::from_diagonal(self.semi_axes.powf(-2.0)) * r.transpose()
    }

    /// The inverse shape matrix `A⁻¹ = R diag(a²) Rᵀ` (used by the Perram–Wertheim function).
    ///
    /// Its entries are squares of the semi-axes, with the range limits of
    /// [`shape_matrix`](Self::shape_matrix) the other way round.
    ///
    /// ```
    /// use geometry_core::{Ellipsoid, DQuat, DVec3};
    /// let b = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::new(2.0, 1.0, 1.0)).unwrap().inverse_shape_matrix();
    /// assert_eq!(b.x_axis.x, 4.0);
    /// ```
    pub fn inverse_shape_matrix(&self) -> DMat3 {
        let r = self.rotation();
        r * DMat3::from_diagonal(self.semi_axes * self.semi_axes) * r.transpose()
    }

    /// The tight axis-aligned bounding box: half-width `sqrt(Σ_j R_ij² a_j²)` on world axis `i`
    /// (clamped to `±f64::MAX` for an ellipsoid reaching beyond `f64`'s range).
    ///
    /// ```
    /// use geometry_core::{Ellipsoid, DQuat, DVec3};
    /// let e = Ellipsoid::new(DVec3::ZERO, DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2), DVec3::new(2.0, 1.0, 1.0)).unwrap();
    /// assert!((e.aabb().max - DVec3::new(1.0, 2.0, 1.0)).length() < 1e-12);
    /// ```
    pub fn aabb(&self) -> Aabb {
        // Row i of R diag(a): its length is the half-width, taken without squaring the entries
        // (the diagonal of R diag(a²) Rᵀ overflows or underflows for huge or tiny ellipsoids).
        let scaled_axes = self.rotation() * DMat3::from_diagonal(self.semi_axes);
        let rows = scaled_axes.transpose();
        let half = DVec3::new(
            crate::scaled::length(rows.x_axis),
            crate::scaled::length(rows.y_axis),
            crate::scaled::length(rows.z_axis),
        );
        crate::sphere::bounded(self.center - half, self.center + half)
    }

    /// Whether `p` lies in the closed ellipsoid; `false` for a non-finite `p`.
    ///
    /// For an axis-aligned ellipsoid (orientation the identity, or a half turn about a
    /// coordinate axis, whose rotation is exact) the answer is that of the exact values, also
    /// on the surface: a floating-point evaluation decides when it is further than its error
    /// bound from 1, and the sign of `Σ dᵢ² Π_{j≠i} aⱼ² - Π aⱼ²` (`d = p - c`) is computed in
    /// exact arithmetic otherwise. Rotated ellipsoids are evaluated in floating point through
    /// the rotation, which is itself rounded: a point within a few units in the last place of
    /// their surface may be classified either way.
    ///
    /// ```
    /// use geometry_core::{Ellipsoid, DQuat, DVec3};
    /// assert!(Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::ONE).unwrap().contains_point(DVec3::X));
    /// // On the surface: 5² + 12² = 13² (rounding alone gives 1.0000000000000002 > 1).
    /// let ball = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::splat(13.0)).unwrap();
    /// assert!(ball.contains_point(DVec3::new(5.0, 12.0, 0.0)));
    /// assert!(!ball.contains_point(DVec3::new(5.0, 12.0f64.next_up(), 0.0)));
    /// ```
    pub fn contains_point(&self, p: DVec3) -> bool {
        // A non-finite point is in no ellipsoid (a NaN one tripped a debug assertion).
        if !p.is_finite() {
            return false;
        }
        if !self.is_axis_aligned() {
            let local = self.orientation.inverse() * (p - self.center);
            return (local / self.semi_axes).length_squared() <= 1.0;
        }
        // The rotation only flips signs, which the squares drop: no need to apply it (and no
        // rounding or overflow from doing so).
        let form = ((p - self.center) / self.semi_axes).length_squared();
        // Each term carries a few rounding units (the difference, the quotient, the square),
        // relative to itself; the sum one more. Subnormal offsets or semi-axes round by more
        // than that relative bound: they take the exact path.
        let bound = 16.0 * f64::EPSILON * form.max(1.0);
        let subnormal = |v: DVec3| v.to_array().iter().any(|x| *x != 0.0 && x.abs() < f64::MIN_POSITIVE);
        if (form - 1.0).abs() > bound && !subnormal(p - self.center) && !subnormal(self.semi_axes) {
            return form <= 1.0;
        }
        self.exact_form_sign(p) <= 0
    }

    /// Whether the rotation maps each coordinate axis onto itself (up to sign), computed
    /// exactly by the quaternion product: the identity, or a half turn about an axis.
    fn is_axis_aligned(&self) -> bool {
        let q = self.orientation.to_array();
        q.iter().filter(|&&v| v != 0.0).count() == 1 && q.iter().any(|v| v.abs() == 1.0)
    }

    /// The sign of `Σ dᵢ² Π_{j≠i} aⱼ² - Π aⱼ²` with `d = p - c`, exactly: the sign of
    /// `Σ (dᵢ/aᵢ)² - 1` for an axis-aligned ellipsoid (the semi-axes are positive).
    fn exact_form_sign(&self, p: DVec3) -> i32 {
        use crate::dyadic::Dyadic;
        let d: Vec<Dyadic> =
            (0..3).map(|i| Dyadic::from_f64(p[i]).sub(&Dyadic::from_f64(self.center[i]))).collect();
        let a2: Vec<Dyadic> = (0..3)
            .map(|i| {
                let a = Dyadic::from_f64(self.semi_axes[i]);
                a.mul(&a)
            })
            .collect();
        let mut form = Dyadic::from_f64(0.0).sub(&a2[0].mul(&a2[1]).mul(&a2[2]));
        for (i, di) in d.iter().enumerate() {
            let (j, k) = ((i + 1) % 3, (i + 2) % 3);
            form = form.add(&di.mul(di).mul(&a2[j]).mul(&a2[k]));
        }
        form.signum()
    }

    /// Volume `4/3 π a b c`, without overflow or underflow of the partial products (semi-axes
    /// of `1e200`, `1e200` and `1e-200` give `4.19e200`).
    ///
    /// ```
    /// use geometry_core::{Ellipsoid, DQuat, DVec3};
    /// let v = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::new(1.0, 2.0, 3.0)).unwrap().volume();
    /// assert!((v - 8.0 * std::f64::consts::PI).abs() < 1e-12);
    /// ```
    pub fn volume(&self) -> f64 {
        let s = self.semi_axes;
        crate::scaled::product(&[4.0 / 3.0 * std::f64::consts::PI, s.x, s.y, s.z])
    }
}
