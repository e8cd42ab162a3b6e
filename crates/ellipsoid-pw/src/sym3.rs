//! Symmetric 3×3 matrices and their closed-form solves.
//!
//! The contact function needs `H⁻¹ r` for a symmetric positive definite `H` several times per
//! iteration. Solving by the adjugate (Cramer's rule) costs about 30 multiplications, shares the
//! adjugate between right-hand sides and never forms an explicit inverse with a division per
//! entry; for symmetric positive definite 3×3 systems it is as accurate as a Cholesky solve up to
//! a small constant.

use geometry_core::{DMat3, DVec3};

/// A symmetric 3×3 matrix stored by its upper triangle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Sym3 {
    pub(crate) xx: f64,
    pub(crate) xy: f64,
    pub(crate) xz: f64,
    pub(crate) yy: f64,
    pub(crate) yz: f64,
    pub(crate) zz: f64,
}

impl Sym3 {
    /// `Σ_j c_j c_jᵀ` over the columns of `m`, i.e. `m mᵀ` (symmetric by construction).
    pub(crate) fn outer_of_columns(m: DMat3) -> Self {
        let (a, b, c) = (m.x_axis, m.y_axis, m.z_axis);
        Self {
            xx: a.x * a.x + b.x * b.x + c.x * c.x,
            xy: a.x * a.y + b.x * b.y + c.x * c.y,
            xz: a.x * a.z + b.x * b.z + c.x * c.z,
            yy: a.y * a.y + b.y * b.y + c.y * c.y,
            yz: a.y * a.z + b.y * b.z + c.y * c.z,
            zz: a.z * a.z + b.z * b.z + c.z * c.z,
        }
    }

    /// `s I + t self`.
    #[inline]
    pub(crate) fn blend_with_identity(&self, s: f64, t: f64) -> Self {
        Self {
            xx: s + t * self.xx,
            xy: t * self.xy,
            xz: t * self.xz,
            yy: s + t * self.yy,
            yz: t * self.yz,
            zz: s + t * self.zz,
        }
    }

    /// `self - I`.
    #[inline]
    pub(crate) fn minus_identity(&self) -> Self {
        Self { xx: self.xx - 1.0, yy: self.yy - 1.0, zz: self.zz - 1.0, ..*self }
    }

    /// `-self`.
    #[inline]
    pub(crate) fn negated(&self) -> Self {
        Self { xx: -self.xx, xy: -self.xy, xz: -self.xz, yy: -self.yy, yz: -self.yz, zz: -self.zz }
    }

    #[inline]
    pub(crate) fn mul_vec(&self, v: DVec3) -> DVec3 {
        DVec3::new(
            self.xx * v.x + self.xy * v.y + self.xz * v.z,
            self.xy * v.x + self.yy * v.y + self.yz * v.z,
            self.xz * v.x + self.yz * v.y + self.zz * v.z,
        )
    }

    /// The adjugate (itself symmetric) and the determinant.
    #[inline]
    pub(crate) fn adjugate_and_determinant(&self) -> (Self, f64) {
        let adj = Self {
            xx: self.yy * self.zz - self.yz * self.yz,
            xy: self.xz * self.yz - self.xy * self.zz,
            xz: self.xy * self.yz - self.xz * self.yy,
            yy: self.xx * self.zz - self.xz * self.xz,
            yz: self.xy * self.xz - self.xx * self.yz,
            zz: self.xx * self.yy - self.xy * self.xy,
        };
        let det = self.xx * adj.xx + self.xy * adj.xy + self.xz * adj.xz;
        (adj, det)
    }

    /// `self⁻¹ v` by the adjugate.
    #[inline]
    pub(crate) fn solve(&self, v: DVec3) -> DVec3 {
        let (adj, det) = self.adjugate_and_determinant();
        adj.mul_vec(v) / det
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solve_inverts_mul() {
        let m =
            Sym3::outer_of_columns(DMat3::from_cols_array(&[2.0, 0.3, -0.1, 0.2, 1.5, 0.4, -0.3, 0.1, 0.9]));
        let v = DVec3::new(0.7, -1.3, 2.1);
        let back = m.mul_vec(m.solve(v));
        assert!((back - v).length() < 1e-13);
        let (adj, det) = m.adjugate_and_determinant();
        let full = DMat3::from_cols(
            DVec3::new(m.xx, m.xy, m.xz),
            DVec3::new(m.xy, m.yy, m.yz),
            DVec3::new(m.xz, m.yz, m.zz),
        );
        assert!((det - full.determinant()).abs() < 1e-12 * det.abs());
        assert!((adj.mul_vec(v) / det - full.inverse() * v).length() < 1e-12);
    }
}
