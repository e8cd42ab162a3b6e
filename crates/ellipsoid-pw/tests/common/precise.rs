//! An independent high-precision oracle for `F`: `S(λ)` evaluated in the **world frame** in
//! double-double arithmetic (~32 significant digits, error-free transformations with `mul_add`),
//! straight from the definition `G(λ) = (1−λ)A⁻¹ + λB⁻¹`, `S = λ(1−λ) Rᵀ G⁻¹ R`, with the
//! rotation built from the quaternion by the textbook formula divided by `|q|²` (exactly
//! orthogonal for the stored quaternion), `G⁻¹R` by an `LDLᵀ` factorisation, and `F` by a
//! golden-section search over `λ` (`S` is concave). It shares no code or formulation with the
//! crate (which works in a body frame in plain `f64`).
//!
//! Double-double keeps ~1e-32 relative accuracy per operation, so with `G`'s condition number at
//! most ~1e13 for semi-axes in `[1e-3, 1e3]` the oracle's `S` is good to ~1e-19 relative.

use geometry_core::{DVec3, Ellipsoid};
use std::ops::{Add, Div, Mul, Neg, Sub};

/// An unevaluated sum `hi + lo` with `|lo| <= ulp(hi) / 2`.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub(crate) struct Dd {
    pub(crate) hi: f64,
    pub(crate) lo: f64,
}

fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

fn quick_two_sum(a: f64, b: f64) -> Dd {
    let s = a + b;
    Dd { hi: s, lo: b - (s - a) }
}

impl From<f64> for Dd {
    fn from(x: f64) -> Self {
        Dd { hi: x, lo: 0.0 }
    }
}

impl Add for Dd {
    type Output = Dd;
    fn add(self, o: Dd) -> Dd {
        let (s, e) = two_sum(self.hi, o.hi);
        let (t, f) = two_sum(self.lo, o.lo);
        let r = quick_two_sum(s, e + t);
        quick_two_sum(r.hi, r.lo + f)
    }
}

impl Neg for Dd {
    type Output = Dd;
    fn neg(self) -> Dd {
        Dd { hi: -self.hi, lo: -self.lo }
    }
}

impl Sub for Dd {
    type Output = Dd;
    fn sub(self, o: Dd) -> Dd {
        self + (-o)
    }
}

impl Mul for Dd {
    type Output = Dd;
    fn mul(self, o: Dd) -> Dd {
        let p = self.hi * o.hi;
        let e = self.hi.mul_add(o.hi, -p);
        quick_two_sum(p, e + (self.hi * o.lo + self.lo * o.hi))
    }
}

impl Div for Dd {
    type Output = Dd;
    fn div(self, o: Dd) -> Dd {
        let q1 = self.hi / o.hi;
        let r = self - o * Dd::from(q1);
        let q2 = r.hi / o.hi;
        let r = r - o * Dd::from(q2);
        let q3 = r.hi / o.hi;
        quick_two_sum(q1, q2) + Dd::from(q3)
    }
}

type M3 = [[Dd; 3]; 3];

/// The rotation matrix (columns = body axes) of the stored quaternion, divided by `|q|²`.
fn rotation(e: &Ellipsoid) -> M3 {
    let q = e.orientation();
    let (x, y, z, w) = (Dd::from(q.x), Dd::from(q.y), Dd::from(q.z), Dd::from(q.w));
    let two = Dd::from(2.0);
    let n = x * x + y * y + z * z + w * w;
    let m = [
        [w * w + x * x - y * y - z * z, two * (x * y - w * z), two * (x * z + w * y)],
        [two * (x * y + w * z), w * w - x * x + y * y - z * z, two * (y * z - w * x)],
        [two * (x * z - w * y), two * (y * z + w * x), w * w - x * x - y * y + z * z],
    ];
    m.map(|row| row.map(|v| v / n))
}

/// `A⁻¹ = Rot diag(a²) Rotᵀ` in double-double.
fn inverse_shape(e: &Ellipsoid) -> M3 {
    let r = rotation(e);
    let a = e.semi_axes().to_array().map(|v| Dd::from(v) * Dd::from(v));
    let mut m = [[Dd::from(0.0); 3]; 3];
    for (i, row) in m.iter_mut().enumerate() {
        for (j, entry) in row.iter_mut().enumerate() {
            *entry = (0..3).fold(Dd::from(0.0), |acc, k| acc + r[i][k] * a[k] * r[j][k]);
        }
    }
    m
}

/// Precomputed world-frame data of a pair.
pub(crate) struct PreciseOracle {
    a_inv: M3,
    b_inv: M3,
    r: [Dd; 3],
}

impl PreciseOracle {
    pub(crate) fn new(a: &Ellipsoid, b: &Ellipsoid) -> Self {
        let (ca, cb) = (a.center().to_array(), b.center().to_array());
        let r = [0, 1, 2].map(|i| Dd::from(cb[i]) - Dd::from(ca[i]));
        Self { a_inv: inverse_shape(a), b_inv: inverse_shape(b), r }
    }

    /// `S(λ)` by `LDLᵀ` of `G(λ)`.
    pub(crate) fn s(&self, lambda: f64) -> Dd {
        let (l, m) = (Dd::from(lambda), Dd::from(1.0) - Dd::from(lambda));
        let g = |i: usize, j: usize| m * self.a_inv[i][j] + l * self.b_inv[i][j];
        let d1 = g(0, 0);
        let l21 = g(1, 0) / d1;
        let l31 = g(2, 0) / d1;
        let d2 = g(1, 1) - l21 * l21 * d1;
        let l32 = (g(2, 1) - l31 * l21 * d1) / d2;
        let d3 = g(2, 2) - l31 * l31 * d1 - l32 * l32 * d2;
        let z1 = self.r[0];
        let z2 = self.r[1] - l21 * z1;
        let z3 = self.r[2] - l31 * z1 - l32 * z2;
        let q = z1 * z1 / d1 + z2 * z2 / d2 + z3 * z3 / d3;
        l * m * q
    }

    /// `(F, Λ)` by golden-section search for the maximum of the concave `S` on `[0, 1]`.
    pub(crate) fn maximum(&self) -> (f64, f64) {
        let golden = (5f64.sqrt() - 1.0) / 2.0;
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        let mut x1 = hi - golden * (hi - lo);
        let mut x2 = lo + golden * (hi - lo);
        let (mut f1, mut f2) = (self.s(x1), self.s(x2));
        for _ in 0..200 {
            if hi - lo <= 4.0 * f64::EPSILON * hi.max(1e-300) {
                break;
            }
            if f1 < f2 {
                lo = x1;
                (x1, f1) = (x2, f2);
                x2 = lo + golden * (hi - lo);
                f2 = self.s(x2);
            } else {
                hi = x2;
                (x2, f2) = (x1, f1);
                x1 = hi - golden * (hi - lo);
                f1 = self.s(x1);
            }
        }
        let (f, lambda) = if f1 > f2 { (f1, x1) } else { (f2, x2) };
        (f.hi + f.lo, lambda)
    }
}

/// `F` of the pair by the double-double oracle.
pub(crate) fn precise_f(a: &Ellipsoid, b: &Ellipsoid) -> f64 {
    PreciseOracle::new(a, b).maximum().0
}

/// `b` moved along the centre line so that the oracle's `F` is close to `target`
/// (`S` is quadratic in `R`, so `F(tR) = t²F(R)`).
pub(crate) fn place_at(a: &Ellipsoid, b: &Ellipsoid, target: f64) -> Ellipsoid {
    let f = precise_f(a, b);
    let r = b.center() - a.center();
    let center: DVec3 = a.center() + r * (target / f).sqrt();
    Ellipsoid::new(center, b.orientation(), b.semi_axes()).expect("valid ellipsoid")
}
