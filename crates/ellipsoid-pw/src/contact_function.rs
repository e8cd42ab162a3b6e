//! The Perram–Wertheim contact function of a pair, in the first body's normalised frame.
//!
//! With `A = L⁻ᵀ L⁻¹`, `L = Rot_A diag(a)`, the change of variables `x' = L⁻¹ (x - r_a)` maps
//! ellipsoid A to the unit ball at the origin. There `A⁻¹` becomes `I`, `B⁻¹` becomes
//! `P = K Kᵀ` with `K = diag(1/a) Rot_Aᵀ Rot_B diag(b)`, and `R` becomes `r = L⁻¹ R`. Since
//! `G(λ) = L H(λ) Lᵀ` with `H(λ) = (1-λ) I + λ P`,
//!
//! ```text
//! S(λ) = λ(1-λ) Rᵀ G(λ)⁻¹ R = λ(1-λ) rᵀ H(λ)⁻¹ r,
//! ```
//!
//! so each evaluation is one symmetric 3×3 solve and no inverse shape matrix of either body is
//! formed. With `x = H⁻¹ r`, `D = P - I` (so `H' = D`) and `y = H⁻¹ D x`:
//!
//! ```text
//! S'(λ)  = (1-2λ) rᵀx - λ(1-λ) xᵀDx
//! S''(λ) = -2 rᵀx - 2(1-2λ) xᵀDx + 2λ(1-λ) (Dx)ᵀy      (< 0: S is concave)
//! ```
//!
//! Back in the world: the normal `n = G⁻¹R = Rot_A diag(1/a) x` and the contact point
//! `r_a + (1-Λ) A⁻¹ n = r_a + (1-Λ) Rot_A diag(a) x`.

use crate::PwError;
use crate::sym3::Sym3;
use geometry_core::{DMat3, DQuat, DVec3, Ellipsoid};

/// `S` to third order around some `λ`, with `x = H⁻¹r` and `y = H⁻¹Dx = −dx/dλ` there.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LocalExpansion {
    pub(crate) value: f64,
    pub(crate) slope: f64,
    pub(crate) curvature: f64,
    pub(crate) third: f64,
    pub(crate) x: DVec3,
    pub(crate) y: DVec3,
}

/// `S(λ)` of one pair of ellipsoids, ready to evaluate at any `λ ∈ [0, 1]`.
///
/// ```
/// use ellipsoid_pw::ContactFunction;
/// use geometry_core::{DQuat, DVec3, Ellipsoid};
/// // Unit balls 3 apart: S(λ) = 9 λ(1-λ), maximal at λ = 1/2 with F = 9/4.
/// let a = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::ONE).unwrap();
/// let b = Ellipsoid::new(DVec3::new(3.0, 0.0, 0.0), DQuat::IDENTITY, DVec3::ONE).unwrap();
/// let s = ContactFunction::new(&a, &b).unwrap();
/// assert!((s.value(0.5) - 2.25).abs() < 1e-15);
/// let (value, slope, curvature) = s.derivatives(0.5);
/// assert!((value - 2.25).abs() < 1e-15 && slope.abs() < 1e-15 && (curvature + 18.0).abs() < 1e-13);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactFunction {
    /// `B⁻¹` in A's normalised frame.
    p: Sym3,
    /// `P - I`, the derivative of `H(λ)`.
    d: Sym3,
    /// `R` in A's normalised frame.
    r: DVec3,
    /// World data needed to map results back.
    center_a: DVec3,
    rotation_a: DQuat,
    semi_axes_a: DVec3,
    inverse_semi_axes_a: DVec3,
    separation: DVec3,
}

impl ContactFunction {
    /// The contact function of the pair `(a, b)`.
    ///
    /// # Errors
    /// [`PwError::CoincidentCentres`] when the centres coincide (then `S ≡ 0`);
    /// [`PwError::NonFinite`] when the centre difference overflows.
    ///
    /// ```
    /// use ellipsoid_pw::{ContactFunction, PwError};
    /// use geometry_core::{DQuat, DVec3, Ellipsoid};
    /// let a = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::ONE).unwrap();
    /// assert_eq!(ContactFunction::new(&a, &a), Err(PwError::CoincidentCentres));
    /// ```
    pub fn new(a: &Ellipsoid, b: &Ellipsoid) -> Result<Self, PwError> {
        let separation = b.center() - a.center();
        if !separation.is_finite() {
            return Err(PwError::NonFinite);
        }
        if separation == DVec3::ZERO {
            return Err(PwError::CoincidentCentres);
        }
        let (qa, sa, sb) = (a.orientation(), a.semi_axes(), b.semi_axes());
        // Columns of Q = Rot_Aᵀ Rot_B are B's axes seen from A.
        let q = DMat3::from_quat(qa.conjugate() * b.orientation());
        // One reciprocal instead of twelve divisions.
        let inverse_sa = sa.recip();
        let k = DMat3::from_cols(
            q.x_axis * (sb.x * inverse_sa),
            q.y_axis * (sb.y * inverse_sa),
            q.z_axis * (sb.z * inverse_sa),
        );
        let p = Sym3::outer_of_columns(k);
        let r = (qa.conjugate() * separation) * inverse_sa;
        if r == DVec3::ZERO {
            // The difference underflowed relative to A's size.
            return Err(PwError::CoincidentCentres);
        }
        Ok(Self {
            p,
            d: p.minus_identity(),
            r,
            center_a: a.center(),
            rotation_a: qa,
            semi_axes_a: sa,
            inverse_semi_axes_a: inverse_sa,
            separation,
        })
    }

    /// `S(λ) = λ(1-λ) Rᵀ G(λ)⁻¹ R`.
    ///
    /// ```
    /// use ellipsoid_pw::ContactFunction;
    /// use geometry_core::{DQuat, DVec3, Ellipsoid};
    /// let a = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::ONE).unwrap();
    /// let b = Ellipsoid::new(DVec3::Y, DQuat::IDENTITY, DVec3::ONE).unwrap();
    /// let s = ContactFunction::new(&a, &b).unwrap();
    /// assert_eq!((s.value(0.0), s.value(1.0)), (0.0, 0.0));
    /// ```
    #[inline]
    pub fn value(&self, lambda: f64) -> f64 {
        let h = self.p.blend_with_identity(lambda);
        lambda * (1.0 - lambda) * self.r.dot(h.solve(self.r))
    }

    /// `(S, S', S'')` at `λ`.
    ///
    /// ```
    /// use ellipsoid_pw::ContactFunction;
    /// use geometry_core::{DQuat, DVec3, Ellipsoid};
    /// let a = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::new(1.0, 2.0, 0.5)).unwrap();
    /// let b = Ellipsoid::new(DVec3::new(1.0, 2.0, 0.3), DQuat::from_rotation_x(0.4), DVec3::ONE).unwrap();
    /// let s = ContactFunction::new(&a, &b).unwrap();
    /// let (_, slope, curvature) = s.derivatives(0.3);
    /// let h = 1e-6;
    /// assert!((slope - (s.value(0.3 + h) - s.value(0.3 - h)) / (2.0 * h)).abs() < 1e-6);
    /// assert!(curvature < 0.0);
    /// ```
    #[inline]
    pub fn derivatives(&self, lambda: f64) -> (f64, f64, f64) {
        let h = self.p.blend_with_identity(lambda);
        let (adj, det) = h.adjugate_and_determinant();
        let x = adj.mul_vec(self.r) / det;
        let dx = self.d.mul_vec(x);
        let y = adj.mul_vec(dx) / det;
        let (rx, xdx, dxy) = (self.r.dot(x), x.dot(dx), dx.dot(y));
        let w = lambda * (1.0 - lambda);
        let m = 1.0 - 2.0 * lambda;
        (w * rx, m * rx - w * xdx, -2.0 * rx - 2.0 * m * xdx + 2.0 * w * dxy)
    }

    /// `S` and its first three derivatives at `λ`, with `x` and `y`, for Halley's step. With `x`, `D`, `y` as above,
    /// `S''' = 6 xᵀDx + 6(1−2λ) (Dx)ᵀy − 6λ(1−λ) yᵀDy` (from `x' = −y`,
    /// `(xᵀDx)' = −2 (Dx)ᵀy` and `((Dx)ᵀH⁻¹Dx)' = −3 yᵀDy`): one matrix-vector product more
    /// than [`derivatives`](Self::derivatives).
    #[inline]
    pub(crate) fn local_expansion(&self, lambda: f64) -> LocalExpansion {
        let h = self.p.blend_with_identity(lambda);
        let (adj, det) = h.adjugate_and_determinant();
        let x = adj.mul_vec(self.r) / det;
        let dx = self.d.mul_vec(x);
        let y = adj.mul_vec(dx) / det;
        let dy = self.d.mul_vec(y);
        let (rx, xdx, dxy, ydy) = (self.r.dot(x), x.dot(dx), dx.dot(y), y.dot(dy));
        let w = lambda * (1.0 - lambda);
        let m = 1.0 - 2.0 * lambda;
        LocalExpansion {
            value: w * rx,
            slope: m * rx - w * xdx,
            curvature: -2.0 * rx - 2.0 * m * xdx + 2.0 * w * dxy,
            third: 6.0 * xdx + 6.0 * m * dxy - 6.0 * w * ydy,
            x,
            y,
        }
    }

    /// The slopes `S'(0) = Rᵀ A R` and `S'(1) = -Rᵀ B R`.
    pub(crate) fn end_slopes(&self) -> (f64, f64) {
        (self.r.length_squared(), -self.r.dot(self.p.solve(self.r)))
    }

    /// The start guess of a cold solve: `Λ₀ = ρ_A / (ρ_A + ρ_B)` with `ρ` each body's
    /// centre-to-surface distance along `R` (exact for spheres). In A's frame
    /// `ρ_A = |R| / √(S'(0))` and `ρ_B = |R| / √(-S'(1))`.
    pub(crate) fn sphere_guess(&self) -> f64 {
        let (s0, s1) = self.end_slopes();
        let (u, v) = (s0.sqrt(), (-s1).sqrt());
        let guess = v / (u + v);
        if guess.is_finite() { guess } else { 0.5 }
    }

    /// `x = H(Λ)⁻¹ r` and `F = S(Λ)`.
    pub(crate) fn solution(&self, lambda: f64) -> (DVec3, f64) {
        let x = self.p.blend_with_identity(lambda).solve(self.r);
        (x, lambda * (1.0 - lambda) * self.r.dot(x))
    }

    /// World normal `G⁻¹R` (not normalised) and contact point from `x = H(Λ)⁻¹ r`.
    pub(crate) fn world_normal_and_point(&self, lambda: f64, x: DVec3) -> (DVec3, DVec3) {
        let normal = self.rotation_a * (x * self.inverse_semi_axes_a);
        let point = self.center_a + (1.0 - lambda) * (self.rotation_a * (x * self.semi_axes_a));
        (normal, point)
    }

    /// `R = r_b - r_a` in the world.
    pub(crate) fn separation(&self) -> DVec3 {
        self.separation
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn third_derivative_matches_finite_differences_of_the_second() {
        let a = Ellipsoid::new(DVec3::ZERO, DQuat::from_rotation_y(0.7), DVec3::new(1.0, 2.5, 0.4)).unwrap();
        let b = Ellipsoid::new(
            DVec3::new(1.1, -0.8, 0.5),
            DQuat::from_rotation_x(-1.2),
            DVec3::new(0.3, 1.7, 0.9),
        )
        .unwrap();
        let s = ContactFunction::new(&a, &b).unwrap();
        for lambda in [0.05, 0.3, 0.5, 0.81, 0.97] {
            let local = s.local_expansion(lambda);
            let (value, slope, curvature) = s.derivatives(lambda);
            assert_eq!((local.value, local.slope, local.curvature), (value, slope, curvature));
            let third = local.third;
            let h = 1e-5;
            let fd = (s.derivatives(lambda + h).2 - s.derivatives(lambda - h).2) / (2.0 * h);
            assert!((third - fd).abs() <= 1e-6 * (1.0 + fd.abs()), "λ = {lambda}: {third} vs {fd}");
        }
    }
}
