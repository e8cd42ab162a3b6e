//! An exact boolean overlap pre-filter by the algebraic separation condition.
//!
//! Wang, Wang & Kim (2001, "An algebraic condition for the separation of two ellipsoids") write
//! each ellipsoid as a quadric `Xᵀ Q X < 0` in homogeneous coordinates and study the quartic
//! `f(λ) = det(λ Q_A + Q_B)`. It always has two negative roots; the ellipsoids are separated
//! exactly when it has two distinct positive roots and touch externally at a positive double root.
//!
//! **Link to Perram–Wertheim.** With A's centre at the origin, a Schur complement gives, for
//! `λ > 0`, `f(λ) = det(λA + B) · (S(t) − 1) / (1 − t)` with `t = λ / (1 + λ)` and `S` the
//! contact function, and `det(λA + B) > 0`. So `f > 0` somewhere on `λ > 0` exactly when
//! `F = max S > 1`: the algebraic condition and PW decide the same question, which is why the
//! filter can stand in front of PW and defer to it.
//!
//! **Decision.** In A's normalised frame (A the unit ball at the origin, B the shape matrix `M`
//! centred at `r`) the monic quartic `g = −f = λ⁴ + b λ³ + c λ² + d λ + e` has
//!
//! ```text
//! b = tr M − k,  c = m₂ + |w|² − k tr M,  d = det M + tr M |w|² − wᵀMw − k m₂,  e = det M,
//! w = M r,  k = rᵀ M r − 1,  m₂ = sum of the principal 2×2 minors of M.
//! ```
//!
//! Knowing two roots are negative: a negative discriminant leaves the other two complex (no
//! positive root: overlap); a positive discriminant makes all four real and distinct, and then
//! positive roots exist exactly when some coefficient is negative (all roots negative ⇔ all
//! coefficients positive, by Descartes' rule). A zero discriminant (tangency, but also pencils
//! with a repeated negative root such as two spheres or coaxial spheroids) cannot be decided.
//!
//! **Exactness.** Every quantity carries a bound on its rounding error ([`Bounded`]); a sign is used only when the value exceeds its bound, so an answer other than
//! [`Separation::Undecided`] is exact for the pair as represented in A's frame (whose entries are
//! themselves rounded by a few ulps, far below any physical tolerance). Before the quartic, two
//! cheap exact tests look at the circumscribed and inscribed spheres.

use crate::sym3::Sym3;
use geometry_core::scaled::within_reach;
use geometry_core::{DMat3, DVec3, Ellipsoid};
use std::ops::{Add, Mul, Sub};

/// What the pre-filter concluded.
///
/// ```
/// use ellipsoid_pw::{Separation, algebraic_separation};
/// use geometry_core::{DQuat, DVec3, Ellipsoid};
/// let ball = |x: f64| Ellipsoid::new(DVec3::X * x, DQuat::IDENTITY, DVec3::ONE).unwrap();
/// // Unit balls overlap below a distance of 2, are apart beyond it, and touch at exactly 2.
/// assert_eq!(algebraic_separation(&ball(0.0), &ball(1.5)), Separation::Overlapping);
/// assert_eq!(algebraic_separation(&ball(0.0), &ball(2.5)), Separation::Separated);
/// assert_eq!(algebraic_separation(&ball(0.0), &ball(2.0)), Separation::Undecided);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Separation {
    /// The solids share interior points (`F < 1`).
    Overlapping,
    /// The solids are disjoint (`F > 1`).
    Separated,
    /// Too close to tangency (or a degenerate pencil) for the filter to be sure: ask PW.
    Undecided,
}

/// Decides overlap of two ellipsoids exactly where it can, by the algebraic separation condition
/// of Wang, Wang & Kim (2001): the quartic `f(λ) = det(λ Q_A + Q_B)` of the two quadrics has two
/// distinct positive roots exactly when the ellipsoids are separated, and a positive double
/// root when they touch externally. It decides the same question as `F < 1`, so it can stand in
/// front of [`PerramWertheim`](crate::PerramWertheim) and defer to it where it is not sure.
///
/// ```
/// use ellipsoid_pw::{Separation, algebraic_separation};
/// use geometry_core::{DQuat, DVec3, Ellipsoid};
/// let a = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::new(2.0, 1.0, 0.5)).unwrap();
/// let near = Ellipsoid::new(DVec3::new(2.5, 0.6, 0.0), DQuat::from_rotation_z(0.5), DVec3::new(1.0, 0.4, 0.4)).unwrap();
/// let far = Ellipsoid::new(DVec3::new(2.5, 1.6, 0.0), DQuat::from_rotation_z(0.5), DVec3::new(1.0, 0.4, 0.4)).unwrap();
/// assert_eq!(algebraic_separation(&a, &near), Separation::Overlapping);
/// assert_eq!(algebraic_separation(&a, &far), Separation::Separated);
/// ```
pub fn algebraic_separation(a: &Ellipsoid, b: &Ellipsoid) -> Separation {
    let separation = b.center() - a.center();
    let (sa, sb) = (a.semi_axes(), b.semi_axes());
    // Bounding and inscribed spheres. With normal squares the relative margin covers the
    // rounding of these few operations; else (squares of lengths near 1e-160 are subnormal,
    // and spheres overlapping by 0.5 % came out separated) exactly, by `within_reach`.
    let distance_squared = separation.length_squared();
    let (outer, inner) = (sa.max_element() + sb.max_element(), sa.min_element() + sb.min_element());
    if [distance_squared, outer * outer, inner * inner].iter().all(|x| x.is_normal()) {
        if distance_squared > outer * outer * (1.0 + 1e-12) {
            return Separation::Separated;
        }
        if distance_squared < inner * inner * (1.0 - 1e-12) {
            return Separation::Overlapping;
        }
    } else {
        let (ca, cb) = (a.center(), b.center());
        if !within_reach(ca, cb, sa.max_element(), sb.max_element()) {
            return Separation::Separated;
        }
        // Strictly closer than the inscribed radii (shrunk by 2^-40, far above their rounding).
        let shrink = 1.0 - 2f64.powi(-40);
        if within_reach(ca, cb, sa.min_element() * shrink, sb.min_element() * shrink) {
            return Separation::Overlapping;
        }
    }
    // B in A's normalised frame: M = N Nᵀ with N = diag(a) Rot_Aᵀ Rot_B diag(1/b).
    let qa = a.orientation();
    let q = DMat3::from_quat(qa.conjugate() * b.orientation());
    // Reciprocals once: three divisions instead of twelve.
    let (inverse_sa, inverse_sb) = (sa.recip(), sb.recip());
    let n = DMat3::from_cols(
        q.x_axis * sa * inverse_sb.x,
        q.y_axis * sa * inverse_sb.y,
        q.z_axis * sa * inverse_sb.z,
    );
    let m = Sym3::outer_of_columns(n);
    let r = (qa.conjugate() * separation) * inverse_sa;
    classify_quartic(&m, r)
}

/// The quartic decision for B's shape matrix `m` centred at `r` against the unit ball.
fn classify_quartic(m: &Sym3, r: DVec3) -> Separation {
    let e = Bounded::exact;
    let (mxx, mxy, mxz, myy, myz, mzz) = (e(m.xx), e(m.xy), e(m.xz), e(m.yy), e(m.yz), e(m.zz));
    let (rx, ry, rz) = (e(r.x), e(r.y), e(r.z));
    let trace = mxx + myy + mzz;
    let minors = (mxx * myy - mxy * mxy) + (mxx * mzz - mxz * mxz) + (myy * mzz - myz * myz);
    let det = mxx * (myy * mzz - myz * myz) - mxy * (mxy * mzz - myz * mxz) + mxz * (mxy * myz - myy * mxz);
    let (wx, wy, wz) =
        (mxx * rx + mxy * ry + mxz * rz, mxy * rx + myy * ry + myz * rz, mxz * rx + myz * ry + mzz * rz);
    let k = (rx * wx + ry * wy + rz * wz) - e(1.0);
    let ww = wx * wx + wy * wy + wz * wz;
    let (mwx, mwy, mwz) =
        (mxx * wx + mxy * wy + mxz * wz, mxy * wx + myy * wy + myz * wz, mxz * wx + myz * wy + mzz * wz);
    let wmw = wx * mwx + wy * mwy + wz * mwz;
    let cb = trace - k;
    let cc = minors + ww - k * trace;
    let cd = det + trace * ww - wmw - k * minors;
    let ce = det;
    match quartic_discriminant_27(cb, cc, cd, ce).sign() {
        Some(std::cmp::Ordering::Less) => Separation::Overlapping,
        Some(std::cmp::Ordering::Greater) => {
            let signs = [cb.sign(), cc.sign(), cd.sign()];
            if signs.contains(&Some(std::cmp::Ordering::Less)) {
                Separation::Separated
            } else if signs.iter().all(|&s| s == Some(std::cmp::Ordering::Greater)) {
                Separation::Overlapping
            } else {
                Separation::Undecided
            }
        }
        _ => Separation::Undecided,
    }
}

/// The discriminant of the monic quartic `λ⁴ + bλ³ + cλ² + dλ + e`, i.e. `Π_{i<j} (λᵢ − λⱼ)²`,
/// times 27, through the invariants: `27 Δ = 4 I³ − J²` with `I = 12e − 3bd + c²` and
/// `J = 72ce + 9bcd − 27d² − 27b²e − 2c³`.
fn quartic_discriminant_27(b: Bounded, c: Bounded, d: Bounded, e: Bounded) -> Bounded {
    let k = Bounded::exact;
    let i = k(12.0) * e - k(3.0) * b * d + c * c;
    let j = k(72.0) * c * e + k(9.0) * b * c * d - k(27.0) * d * d - k(27.0) * b * b * e - k(2.0) * c * c * c;
    k(4.0) * i * i * i - j * j
}

/// A floating-point value with a bound on its rounding error: the exact result of the same
/// expression on the same (exact) inputs lies within [`error`](Self::error) of `value`.
///
/// The bound is the classical one for expressions of sums and products (Higham, *Accuracy and
/// Stability of Numerical Algorithms*, §3.1): evaluating an expression of depth at most `D` in
/// floating point errs by at most `γ_D · magnitude`, where `magnitude` is the same expression
/// evaluated on the absolute values of the inputs with every subtraction turned into an
/// addition and `γ_D = D u / (1 − D u)`. This costs one extra operation per operation, against
/// four for a per-operation running bound. `D` = [`MAX_DEPTH`] covers every expression here
/// with room to spare, and the bound is doubled for the rounding of `magnitude` itself.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bounded {
    value: f64,
    magnitude: f64,
}

/// An upper bound on the depth of the expression trees evaluated with [`Bounded`] (the deepest,
/// the discriminant from the matrix entries, has depth below 40).
const MAX_DEPTH: f64 = 64.0;

impl Bounded {
    pub(crate) fn exact(value: f64) -> Self {
        Self { value, magnitude: value.abs() }
    }

    /// The bound on `|value − exact|`.
    pub(crate) fn error(self) -> f64 {
        let u = f64::EPSILON / 2.0;
        let gamma = MAX_DEPTH * u / (1.0 - MAX_DEPTH * u);
        // Doubled for the rounding of `magnitude`; the absolute term covers underflow.
        2.0 * gamma * self.magnitude + 1e3 * f64::MIN_POSITIVE
    }

    /// The sign when it is certain.
    pub(crate) fn sign(self) -> Option<std::cmp::Ordering> {
        let error = self.error();
        if self.value > error {
            Some(std::cmp::Ordering::Greater)
        } else if self.value < -error {
            Some(std::cmp::Ordering::Less)
        } else {
            None
        }
    }
}

impl Add for Bounded {
    type Output = Self;
    #[inline]
    fn add(self, o: Self) -> Self {
        Self { value: self.value + o.value, magnitude: self.magnitude + o.magnitude }
    }
}

impl Sub for Bounded {
    type Output = Self;
    #[inline]
    fn sub(self, o: Self) -> Self {
        Self { value: self.value - o.value, magnitude: self.magnitude + o.magnitude }
    }
}

impl Mul for Bounded {
    type Output = Self;
    #[inline]
    fn mul(self, o: Self) -> Self {
        Self { value: self.value * o.value, magnitude: self.magnitude * o.magnitude }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Coefficients of the monic quartic with the given roots.
    fn monic(roots: [f64; 4]) -> [f64; 4] {
        let mut p = vec![1.0];
        for root in roots {
            let mut next = vec![0.0; p.len() + 1];
            for (i, &c) in p.iter().enumerate() {
                next[i] += c;
                next[i + 1] -= root * c;
            }
            p = next;
        }
        [p[1], p[2], p[3], p[4]]
    }

    #[test]
    fn discriminant_is_the_product_of_squared_root_differences() {
        for roots in [[1.0, -2.0, 0.5, 3.0], [-1.0, -2.0, -0.25, -4.0], [2.0, 2.5, -1.5, 0.75]] {
            let [b, c, d, e] = monic(roots).map(Bounded::exact);
            let mut expected = 1.0;
            for i in 0..4 {
                for j in i + 1..4 {
                    expected *= (roots[i] - roots[j]) * (roots[i] - roots[j]);
                }
            }
            let got = quartic_discriminant_27(b, c, d, e);
            let value = got.value / 27.0;
            assert!((value - expected).abs() <= 1e-9 * expected.abs(), "{roots:?}: {value} vs {expected}");
            assert!(got.error() < 1e-6 * got.value.abs());
        }
    }

    #[test]
    fn bounded_error_covers_cancellation() {
        // (1 + 2⁻³⁰)² − 1 − 2⁻²⁹ = 2⁻⁶⁰: the bound must cover the rounding of the square.
        let x = Bounded::exact(1.0 + 2f64.powi(-30));
        let y = x * x - Bounded::exact(1.0) - Bounded::exact(2f64.powi(-29));
        let exact = 2f64.powi(-60);
        assert!((y.value - exact).abs() <= y.error());
    }
}
