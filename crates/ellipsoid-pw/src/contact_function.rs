//! The Perram–Wertheim contact function of a pair, diagonalised once per pair.
//!
//! With `A = L⁻ᵀ L⁻¹`, `L = Rot_A diag(a)`, the change of variables `x' = L⁻¹ (x - r_a)` maps
//! ellipsoid A to the unit ball at the origin. There `A⁻¹` becomes `I`, `B⁻¹` becomes
//! `P = K Kᵀ` with `K = diag(1/a) Rot_Aᵀ Rot_B diag(b)`, and `R` becomes `r = L⁻¹ R`. With the
//! singular value decomposition `K = U diag(σ) Vᵀ`, `μ_i = σ_i²` (the generalised eigenvalues of
//! the pencil `(B⁻¹, A⁻¹)`) and `c = Uᵀ r`, `G(λ) = L U diag(d) Uᵀ Lᵀ` with
//! `d_i = (1-λ) + λ μ_i`, so
//!
//! ```text
//! S(λ)    = λ(1-λ) Σ c_i² / d_i
//! S'(λ)   = (1-λ)² Σ x_i² - λ² Σ μ_i x_i²          (x_i = c_i / d_i)
//! S''(λ)  = -2 Σ μ_i x_i² / d_i                     (< 0: S is concave)
//! S'''(λ) = 6 Σ μ_i (μ_i - 1) x_i² / d_i²
//! ```
//!
//! Every sum but the two in `S'` (whose difference is the quantity sought) has terms of one sign,
//! so each evaluation is accurate to a few rounding errors relative to its terms, whatever the
//! conditioning of `G(λ)`. The singular values come from one-sided (Hestenes) Jacobi, which
//! determines them to high *relative* accuracy (Demmel & Veselić 1992): it is applied to the
//! columns of `K` or of `Kᵀ`, whichever is a column scaling of the better-conditioned factor
//! (the body of smaller aspect ratio), so the error is about `ε` times the smaller aspect ratio.
//!
//! Forming `P` (or `G` in the world) explicitly, as an earlier version did, squares that
//! conditioning: the entries of `P` carry absolute errors `ε‖P‖`, which swamp its small
//! eigenvalues and the `(1-λ)` they compete with, and the adjugate's 2×2 minors of a nearly
//! rank-one matrix cancel catastrophically. For a thin body against a needle (`‖P‖ ~ 1e11`)
//! that gave `S` of the wrong sign.
//!
//! Everything is computed in units of a power of two near the pair's largest length, so the
//! rescaling is exact and the result does not depend on the absolute scale; the lengths of a pair
//! (six semi-axes and the largest component of `R`) must lie within a factor
//! [`MAX_LENGTH_RATIO`] of each other ([`PwError::LengthRatioOutOfRange`]).
//!
//! The maximisers work in a variable `t` in which `Λ_t <= 1/2`: `t = λ`, or `t = 1 - λ` (the
//! roles of the bodies exchanged, which maps `μ_i → 1/μ_i` and `c_i → c_i/σ_i`), so that
//! relative tolerances on `t` resolve `Λ` near either end of `[0, 1]`.
//!
//! Back in the world: the normal `n = G⁻¹R = Rot_A diag(1/a) U x` and the contact point
//! `r_a + (1-Λ) A⁻¹ n = r_a + (1-Λ) Rot_A diag(a) U x`.

use crate::PwError;
use crate::sym3::Sym3;
use geometry_core::{DMat3, DQuat, DVec3, Ellipsoid};

/// `log2` of [`MAX_LENGTH_RATIO`].
pub(crate) const MAX_LENGTH_RATIO_LOG2: i32 = 100;

/// The largest supported ratio between two lengths of a pair (its six semi-axes and the largest
/// component of the centre difference), `2^100 ≈ 1.27e30`. Within it every intermediate of the
/// evaluation (up to about the sixth power of a length ratio) stays inside the range of `f64`.
///
/// ```
/// use ellipsoid_pw::{MAX_LENGTH_RATIO, PerramWertheim, PwError};
/// use geometry_core::{DQuat, DVec3, Ellipsoid};
/// assert_eq!(MAX_LENGTH_RATIO, 2f64.powi(100));
/// let ball = |x: f64, r: f64| {
///     Ellipsoid::new(DVec3::new(x, 0.0, 0.0), DQuat::IDENTITY, DVec3::splat(r)).unwrap()
/// };
/// let pw = PerramWertheim::newton();
/// // A grain of radius 1 and a ball of radius 1e31 (> 2^100 ≈ 1.27e30) are refused.
/// let err = pw.solve(&ball(0.0, 1.0), &ball(3e31, 1e31)).unwrap_err();
/// assert_eq!(err, PwError::LengthRatioOutOfRange);
/// // Within the ratio: spheres give F = (d / (r_a + r_b))², here (3e20 / (1 + 1e20))² ≈ 9.
/// let r = pw.solve(&ball(0.0, 1.0), &ball(3e20, 1e20)).unwrap();
/// assert!((r.f - 9.0).abs() < 1e-9);
/// ```
pub const MAX_LENGTH_RATIO: f64 = 1_267_650_600_228_229_401_496_703_205_376.0;

/// Pairs whose bound on the condition number of `H(λ)` (see [`ContactFunction::new`]) is at
/// most this are evaluated directly (`P` formed, adjugate solves: relative error of `S` about `ε`
/// times the bound, a few `1e-12`; measured in `F`, up to `1e-11`), the others through the
/// diagonalisation.
const DIRECT_CONDITION_LIMIT: f64 = 1e4;

/// Jacobi sweeps before giving up on further rotations (3×3 converges in 3 to 5).
const MAX_SWEEPS: u32 = 12;

/// `S` to third order around some `t`, with `x = H⁻¹r` and `y = −dx/dt` there (eigen-coordinates).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LocalExpansion {
    pub(crate) value: f64,
    pub(crate) slope: f64,
    pub(crate) curvature: f64,
    pub(crate) third: f64,
    pub(crate) x: DVec3,
    pub(crate) y: DVec3,
}

/// `2^k` for `k` in the normal exponent range `[-1022, 1023]`.
fn pow2(k: i32) -> f64 {
    debug_assert!((-1022..=1023).contains(&k));
    f64::from_bits(u64::try_from(k + 1023).unwrap_or(0) << 52)
}

/// The binary exponent `e` of a positive normal `x` (`2^e <= x < 2^(e+1)`).
fn exponent(x: f64) -> i32 {
    i32::try_from((x.to_bits() >> 52) & 0x7ff).unwrap_or(0) - 1023
}

/// One-sided Jacobi: rotates the columns of `g` (and the same rotations into `w`, which starts as
/// the identity) until they are mutually orthogonal. Then `g_in · w = g`.
fn hestenes(g: &mut [DVec3; 3], w: &mut [DVec3; 3]) {
    for _ in 0..MAX_SWEEPS {
        let mut rotated = false;
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            let (alpha, beta, gamma) = (g[p].length_squared(), g[q].length_squared(), g[p].dot(g[q]));
            if gamma.abs() <= 4.0 * f64::EPSILON * (alpha.sqrt() * beta.sqrt()) {
                continue;
            }
            rotated = true;
            let zeta = (beta - alpha) / (2.0 * gamma);
            let t = if zeta.abs() > 1e150 {
                0.5 / zeta
            } else {
                zeta.signum() / (zeta.abs() + zeta.mul_add(zeta, 1.0).sqrt())
            };
            let c = 1.0 / t.mul_add(t, 1.0).sqrt();
            let s = c * t;
            (g[p], g[q]) = (c * g[p] - s * g[q], s * g[p] + c * g[q]);
            (w[p], w[q]) = (c * w[p] - s * w[q], s * w[p] + c * w[q]);
        }
        if !rotated {
            break;
        }
    }
}

/// The largest aspect ratio (longest over shortest semi-axis) that both bodies of a pair may
/// exceed together and still be diagonalised (`2^40 ≈ 1.1e12`). The one-sided Jacobi SVD keeps
/// the relative accuracy of `K`'s singular values and vectors when only one body is thin; when
/// both are, at different orientations, the smallest singular direction comes out wrong:
/// measured against independent high-precision oracles, the relative error of `F` was `1e-9`
/// at aspect ratios of `1e12` for both bodies, `5e-7` at `1e14`, order 1 at `1e16` (with the
/// two argument orders disagreeing: `F` 3.9 against 0.66), `10⁵` at `1e20`.
///
/// ```
/// use ellipsoid_pw::{PerramWertheim, PwError};
/// use geometry_core::{DQuat, DVec3, Ellipsoid};
/// // Two crossed needles of aspect ratio 1e13: refused. One needle against a ball: solved.
/// let needle = |q: DQuat, c: DVec3| Ellipsoid::new(c, q, DVec3::new(1.0, 1e-13, 1e-13)).unwrap();
/// let a = needle(DQuat::IDENTITY, DVec3::ZERO);
/// let b = needle(DQuat::from_rotation_z(1.0), DVec3::new(0.1, 0.2, 0.3));
/// assert_eq!(PerramWertheim::newton().solve(&a, &b).err(), Some(PwError::IllConditioned));
/// let ball = Ellipsoid::new(DVec3::new(0.1, 0.2, 0.3), DQuat::IDENTITY, DVec3::splat(0.5)).unwrap();
/// assert!(PerramWertheim::newton().solve(&a, &ball).is_ok());
/// ```
pub const MAX_THIN_ASPECT_RATIO: f64 = 1_099_511_627_776.0;

/// A second guard on the diagonalisation: the largest relative difference between the product
/// of the computed singular values of `K` and `|det K| = Π b_i / Π a_i` (known up to rounding).
/// A lost smallest singular value (0, leaving a NaN direction) fails it.
const SPECTRAL_DETERMINANT_TOLERANCE: f64 = 1e-6;

/// The spectral representation from `K` and `r`, and whether to flip; `None` for a pair it
/// cannot resolve (both bodies thinner than [`MAX_THIN_ASPECT_RATIO`], or a diagonalisation
/// that fails [`SPECTRAL_DETERMINANT_TOLERANCE`]).
fn spectral(k: [DVec3; 3], r: DVec3, sa: DVec3, sb: DVec3) -> Option<(Repr, bool)> {
    let aspect = |v: DVec3| v.max_element() / v.min_element();
    if aspect(sa).min(aspect(sb)) > MAX_THIN_ASPECT_RATIO {
        return None;
    }
    let (sigma, u) = if aspect(sa) <= aspect(sb) {
        // Columns of K (B's axes, scaled by A's): K W = U Σ.
        let mut g = k;
        let mut w = [DVec3::X, DVec3::Y, DVec3::Z];
        hestenes(&mut g, &mut w);
        let sigma = DVec3::new(g[0].length(), g[1].length(), g[2].length());
        (sigma, DMat3::from_cols(g[0] / sigma.x, g[1] / sigma.y, g[2] / sigma.z))
    } else {
        // Columns of Kᵀ: Kᵀ U = V Σ.
        let kt = DMat3::from_cols(k[0], k[1], k[2]).transpose();
        let mut g = [kt.x_axis, kt.y_axis, kt.z_axis];
        let mut w = [DVec3::X, DVec3::Y, DVec3::Z];
        hestenes(&mut g, &mut w);
        (DVec3::new(g[0].length(), g[1].length(), g[2].length()), DMat3::from_cols(w[0], w[1], w[2]))
    };
    // |det K| = Π b_i / Π a_i (det Q = 1); lengths in units of the largest, within 2^100 of it,
    // so neither product leaves the range.
    let determinant = (sb.x * sb.y * sb.z) / (sa.x * sa.y * sa.z);
    let deviation = (sigma.x * sigma.y * sigma.z / determinant - 1.0).abs();
    if deviation.is_nan() || deviation > SPECTRAL_DETERMINANT_TOLERANCE {
        return None;
    }
    let c = u.transpose() * r;
    let mu = sigma * sigma;
    // Λ > 1/2 iff S'(1/2) > 0, i.e. Σ x_i² > Σ μ_i x_i² with x_i = c_i / d_i, d_i = (1 + μ_i)/2.
    let half = c / (DVec3::ONE + mu);
    let flipped = half.length_squared() > (half * sigma).length_squared();
    let (mu, c) = if flipped { (mu.recip(), c / sigma) } else { (mu, c) };
    Some((Repr::Spectral { mu, c, sigma, u }, flipped))
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
    repr: Repr,
    /// `t = 1 − λ` (the bodies' roles exchanged) rather than `t = λ`.
    flipped: bool,
    /// World data needed to map results back.
    center_a: DVec3,
    rotation_a: DQuat,
    /// A's semi-axes in units of `scale`.
    semi_axes_a: DVec3,
    /// `R` in units of `scale`.
    separation: DVec3,
    /// The power of two used as unit of length.
    scale: f64,
}

/// How `S` is evaluated (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Repr {
    /// Well-conditioned pairs: `P` formed, one adjugate solve of `H(λ)` per evaluation.
    Direct {
        /// `B⁻¹` in A's normalised frame.
        p: Sym3,
        /// `dH/dt`: `P − I`, or `I − P` when flipped.
        d: Sym3,
        /// `R` in A's normalised frame.
        r: DVec3,
    },
    /// Diagonalised: `S(t) = t(1−t) Σ c_i² / ((1−t) + t μ_i)`.
    Spectral {
        /// `μ_i` in the solver variable `t` (`1/μ_i` when flipped).
        mu: DVec3,
        /// `c_i` in the solver variable `t` (`c_i/σ_i` when flipped).
        c: DVec3,
        /// `σ_i = √μ_i` of the unflipped pencil.
        sigma: DVec3,
        /// Columns: the eigenvectors `U` of `P` in A's normalised frame.
        u: DMat3,
    },
}

impl ContactFunction {
    /// The contact function of the pair `(a, b)`.
    ///
    /// # Errors
    /// [`PwError::CoincidentCentres`] when the centres coincide (then `S ≡ 0`);
    /// [`PwError::NonFinite`] when the centre difference overflows;
    /// [`PwError::LengthRatioOutOfRange`] when two lengths of the pair (semi-axes, the largest
    /// component of the centre difference) differ by more than [`MAX_LENGTH_RATIO`].
    ///
    /// ```
    /// use ellipsoid_pw::{ContactFunction, PwError};
    /// use geometry_core::{DQuat, DVec3, Ellipsoid};
    /// let a = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::ONE).unwrap();
    /// assert_eq!(ContactFunction::new(&a, &a), Err(PwError::CoincidentCentres));
    /// let tiny = Ellipsoid::new(DVec3::X, DQuat::IDENTITY, DVec3::splat(1e-40)).unwrap();
    /// assert_eq!(ContactFunction::new(&a, &tiny), Err(PwError::LengthRatioOutOfRange));
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
        // The unit of length: a power of two near the largest length, so that rescaling is exact.
        let largest = sa.max_element().max(sb.max_element()).max(separation.abs().max_element());
        // Lift subnormal pairs into the normal range first (exact).
        let pre = if largest < pow2(-1000) { pow2(1000) } else { 1.0 };
        // (At most 2^1022, so that its inverse is a normal number: pairs of size 2^1023 and more
        // got an inverse scale of 0 and failed as NonFinite.)
        let unit_exponent = exponent(largest * pre).min(1022);
        let (inverse_scale, scale) = (pow2(-unit_exponent), pow2(unit_exponent) / pre);
        // Two exact steps (`pre · 2^-e` alone may overflow).
        let (sa_u, sb_u, separation_u) =
            (sa * pre * inverse_scale, sb * pre * inverse_scale, separation * pre * inverse_scale);
        let largest_u = largest * pre * inverse_scale;
        let smallest = sa_u.min_element().min(sb_u.min_element()).min(separation_u.abs().max_element());
        if smallest < largest_u * pow2(-MAX_LENGTH_RATIO_LOG2) {
            return Err(PwError::LengthRatioOutOfRange);
        }
        // Columns of Q = Rot_Aᵀ Rot_B are B's axes seen from A.
        let q = DMat3::from_quat(qa.conjugate() * b.orientation());
        let inverse_sa = sa_u.recip();
        let r = (qa.conjugate() * separation_u) * inverse_sa;
        let k = [
            q.x_axis * (sb_u.x * inverse_sa),
            q.y_axis * (sb_u.y * inverse_sa),
            q.z_axis * (sb_u.z * inverse_sa),
        ];
        // ‖K‖_F² ≥ μ_max and ‖K⁻¹‖_F² ≥ 1/μ_min (K⁻¹ = diag(1/b) Qᵀ diag(a)), so the product of
        // their maxima with 1 bounds the condition number of H(λ) = (1−λ)I + λP for every λ.
        let k_norm = k[0].length_squared() + k[1].length_squared() + k[2].length_squared();
        let inverse_sb = sb_u.recip();
        let k_inverse_norm = (q.x_axis * sa_u).length_squared() * (inverse_sb.x * inverse_sb.x)
            + (q.y_axis * sa_u).length_squared() * (inverse_sb.y * inverse_sb.y)
            + (q.z_axis * sa_u).length_squared() * (inverse_sb.z * inverse_sb.z);
        let (repr, flipped) = if k_norm.max(1.0) * k_inverse_norm.max(1.0) <= DIRECT_CONDITION_LIMIT {
            let p = Sym3::outer_of_columns(DMat3::from_cols(k[0], k[1], k[2]));
            // Flip when B is the smaller body (‖K‖ < ‖K⁻¹‖), where Λ > 1/2 for spheres: a proxy
            // that is free here and decisive where it matters, Λ near 0 or 1 (one body much
            // smaller than the other in every direction).
            let flipped = k_inverse_norm > k_norm;
            let d = if flipped { p.minus_identity().negated() } else { p.minus_identity() };
            (Repr::Direct { p, d, r }, flipped)
        } else {
            spectral(k, r, sa_u, sb_u).ok_or(PwError::IllConditioned)?
        };
        Ok(Self {
            repr,
            flipped,
            center_a: a.center(),
            rotation_a: qa,
            semi_axes_a: sa_u,
            separation: separation_u,
            scale,
        })
    }

    /// The solver variable `t` of `λ` (also turns a warm-start `λ` into a start `t`).
    #[inline]
    pub(crate) fn t_of(&self, lambda: f64) -> f64 {
        if self.flipped { 1.0 - lambda } else { lambda }
    }

    /// `λ` of the solver variable `t`.
    #[inline]
    pub(crate) fn lambda_of(&self, t: f64) -> f64 {
        if self.flipped { 1.0 - t } else { t }
    }

    /// `H` at `t` of the direct representation: `(1−λ) I + λ P` with `1 − λ` and `λ` taken
    /// from `t` without rounding.
    #[inline]
    fn h_direct(&self, p: &Sym3, t: f64) -> Sym3 {
        let (identity, other) = if self.flipped { (t, 1.0 - t) } else { (1.0 - t, t) };
        p.blend_with_identity(identity, other)
    }

    /// Brent's maximisation of `S(t)` (see [`brent`](crate::maximise::brent)), with the
    /// representation resolved once outside its loop.
    pub(crate) fn maximise_by_brent(&self, bits: u32, max_iterations: u32) -> Result<(f64, u32), PwError> {
        match &self.repr {
            Repr::Direct { p, r, .. } => {
                let (p, r) = (*p, *r);
                let objective = |t: f64| -(t * (1.0 - t)) * r.dot(self.h_direct(&p, t).solve(r));
                crate::maximise::brent(objective, bits, max_iterations)
            }
            Repr::Spectral { mu, c, .. } => {
                let (mu, c2) = (*mu, *c * *c);
                let objective =
                    |t: f64| -(t * (1.0 - t)) * (c2 / (DVec3::splat(1.0 - t) + mu * t)).element_sum();
                crate::maximise::brent(objective, bits, max_iterations)
            }
        }
    }

    /// `S` in the solver variable.
    #[inline]
    pub(crate) fn value_t(&self, t: f64) -> f64 {
        let w = t * (1.0 - t);
        match &self.repr {
            Repr::Direct { p, r, .. } => w * r.dot(self.h_direct(p, t).solve(*r)),
            Repr::Spectral { mu, c, .. } => {
                let d = DVec3::splat(1.0 - t) + *mu * t;
                w * (*c * *c / d).element_sum()
            }
        }
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
        self.value_t(self.t_of(lambda))
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
        let local = self.local_expansion(self.t_of(lambda));
        let sign = if self.flipped { -1.0 } else { 1.0 };
        (local.value, sign * local.slope, local.curvature)
    }

    /// `S` and its first three derivatives at `t` (solver variable), with `x` and `y = −dx/dt`
    /// (A's normalised frame for the direct representation, eigen-coordinates for the spectral
    /// one), for Halley's step. Direct, with `x = H⁻¹r`, `D = dH/dt`, `y = H⁻¹Dx`, `w = t(1−t)`,
    /// `m = 1 − 2t`: `S' = m rᵀx − w xᵀDx`, `S'' = −2 rᵀx − 2m xᵀDx + 2w (Dx)ᵀy`,
    /// `S''' = 6 xᵀDx + 6m (Dx)ᵀy − 6w yᵀDy`. Spectral: the formulas of the module docs.
    #[inline]
    pub(crate) fn local_expansion(&self, t: f64) -> LocalExpansion {
        let s = 1.0 - t;
        match &self.repr {
            Repr::Direct { p, d, r, .. } => {
                let h = self.h_direct(p, t);
                let (adj, det) = h.adjugate_and_determinant();
                let x = adj.mul_vec(*r) / det;
                let dx = d.mul_vec(x);
                let y = adj.mul_vec(dx) / det;
                let dy = d.mul_vec(y);
                let (rx, xdx, dxy, ydy) = (r.dot(x), x.dot(dx), dx.dot(y), y.dot(dy));
                let w = t * s;
                let m = 1.0 - 2.0 * t;
                LocalExpansion {
                    value: w * rx,
                    slope: m * rx - w * xdx,
                    curvature: -2.0 * rx - 2.0 * m * xdx + 2.0 * w * dxy,
                    third: 6.0 * xdx + 6.0 * m * dxy - 6.0 * w * ydy,
                    x,
                    y,
                }
            }
            Repr::Spectral { mu, c, .. } => {
                let inverse_d = (DVec3::splat(s) + *mu * t).recip();
                let x = *c * inverse_d;
                let x2 = x * x;
                let mu_over_d = *mu * inverse_d;
                let y = (*mu - DVec3::ONE) * x * inverse_d;
                LocalExpansion {
                    value: t * s * (*c * x).element_sum(),
                    slope: s * s * x2.element_sum() - t * t * (*mu * x2).element_sum(),
                    curvature: -2.0 * (mu_over_d * x2).element_sum(),
                    third: 6.0 * (mu_over_d * y * x).element_sum(),
                    x,
                    y,
                }
            }
        }
    }

    /// The slopes `S'(0)` and `S'(1)` in the solver variable.
    pub(crate) fn end_slopes(&self) -> (f64, f64) {
        match &self.repr {
            Repr::Direct { p, r, .. } => {
                let (ra, rb) = (r.length_squared(), r.dot(p.solve(*r)));
                if self.flipped { (rb, -ra) } else { (ra, -rb) }
            }
            Repr::Spectral { mu, c, .. } => (c.length_squared(), -(*c * *c / *mu).element_sum()),
        }
    }

    /// The start guess of a cold solve, in the solver variable: `Λ₀ = ρ_A / (ρ_A + ρ_B)` with `ρ`
    /// each body's centre-to-surface distance along `R` (exact for spheres), from
    /// `ρ_A = |R| / √(S'(0))` and `ρ_B = |R| / √(-S'(1))`.
    pub(crate) fn sphere_guess(&self) -> f64 {
        let (s0, s1) = self.end_slopes();
        let (u, v) = (s0.sqrt(), (-s1).sqrt());
        let guess = v / (u + v);
        if guess.is_finite() { guess } else { 0.5 }
    }

    /// `x` (as in [`local_expansion`](Self::local_expansion)) and `F = S` at `t`.
    pub(crate) fn solution(&self, t: f64) -> (DVec3, f64) {
        let w = t * (1.0 - t);
        match &self.repr {
            Repr::Direct { p, r, .. } => {
                let x = self.h_direct(p, t).solve(*r);
                (x, w * r.dot(x))
            }
            Repr::Spectral { mu, c, .. } => {
                let x = *c / (DVec3::splat(1.0 - t) + *mu * t);
                (x, w * (*c * x).element_sum())
            }
        }
    }

    /// World unit normal `G⁻¹R / |G⁻¹R|` and contact point, from `x` at `t`.
    pub(crate) fn world_normal_and_point(&self, t: f64, x_t: DVec3) -> (DVec3, DVec3) {
        let x = match &self.repr {
            Repr::Direct { .. } => x_t,
            // Back to the unflipped eigen-coordinates (x̃_i = σ_i x_i), then to A's frame.
            Repr::Spectral { sigma, u, .. } => *u * if self.flipped { x_t / *sigma } else { x_t },
        };
        let normal = self.rotation_a * (x / self.semi_axes_a);
        // Normalise without overflow: divide by the largest component first.
        let normal = normal * normal.abs().max_element().recip();
        let normal = normal * normal.length().recip();
        let one_minus_lambda = if self.flipped { t } else { 1.0 - t };
        let offset = one_minus_lambda * (self.rotation_a * (x * self.semi_axes_a));
        (normal, self.center_a + offset * self.scale)
    }

    /// `|R|` (world units) and the unit `R̂`.
    pub(crate) fn distance_and_direction(&self) -> (f64, DVec3) {
        let length = self.separation.length();
        (length * self.scale, self.separation / length)
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
            let local = s.local_expansion(s.t_of(lambda));
            let (value, slope, curvature) = s.derivatives(lambda);
            // d/dλ = −d/dt when the solver variable is t = 1 − λ.
            let sign = if s.flipped { -1.0 } else { 1.0 };
            assert_eq!((local.value, sign * local.slope, local.curvature), (value, slope, curvature));
            let third = sign * local.third;
            let h = 1e-5;
            let fd = (s.derivatives(lambda + h).2 - s.derivatives(lambda - h).2) / (2.0 * h);
            assert!((third - fd).abs() <= 1e-6 * (1.0 + fd.abs()), "λ = {lambda}: {third} vs {fd}");
        }
    }
}
