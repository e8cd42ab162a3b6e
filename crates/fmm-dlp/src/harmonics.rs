//! Scaled solid harmonics and the translations of the fast multipole method.
//!
//! The normalisation is the one of Pérez-Jordá & Yang (1996) and White & Head-Gordon (1994),
//! which makes the addition theorems free of extra factors (see `NOTES.md`):
//!
//! ```text
//! R_n^m(r) = rⁿ P_n^m(cos θ) e^{imφ} / (n+m)!          (regular, m ≥ 0)
//! S_n^m(r) = (n−m)! P_n^m(cos θ) e^{imφ} / r^{n+1}      (irregular, m ≥ 0)
//! ```
//!
//! with the Condon–Shortley phase in `P_n^m`, and `X_n^{−m} = (−1)^m conj(X_n^m)` for negative
//! orders, computed by the Cartesian recurrences
//!
//! ```text
//! R_0^0 = 1,    R_{l+1}^{l+1} = −(x+iy) R_l^l / (2l+2),
//! R_{l+1}^m = ((2l+1) z R_l^m − r² R_{l−1}^m) / ((l+m+1)(l−m+1)),
//! S_0^0 = 1/r,  S_{l+1}^{l+1} = −(2l+1)(x+iy) S_l^l / r²,
//! S_{l+1}^m = ((2l+1) z S_l^m − (l²−m²) S_{l−1}^m) / r²,
//! X_n^{−m} = (−1)^m conj(X_n^m).
//! ```
//!
//! The identities every translation rests on, each checked numerically in the tests:
//!
//! ```text
//! 1/|x − y| = Σ_{n,m} conj(R_n^m(y)) S_n^m(x)                          (|y| < |x|)
//! R_n^m(a + b) = Σ_{s,t} R_s^t(b) R_{n−s}^{m−t}(a)                      (regular addition)
//! S_n^m(a + b) = Σ_{j,k} (−1)^j conj(R_j^k(a)) S_{n+j}^{m+k}(b)         (|a| < |b|)
//! ```
//!
//! A multipole expansion about `C` represents `φ(x) = Σ M_n^m S_n^m(x − C)`, a local expansion
//! about `L` represents `φ(x) = Σ L_n^m conj(R_n^m(x − L))`. From the identities:
//!
//! Expansions of real fields (all of them here) satisfy `X_n^{−m} = (−1)^m conj(X_n^m)`, so the
//! translations compute the coefficients with `m ≥ 0` and mirror the others.
//!
//! ```text
//! M2M (C₁ → C₂):  M'_n^m = Σ_{s,t} conj(R_s^t(C₁ − C₂)) M_{n−s}^{m−t}            (paper Eq. 23)
//! M2L (C → L):    L_j^k  = (−1)^j Σ_{n,m} M_n^m S_{n+j}^{m+k}(L − C)               (Eq. 24)
//! L2L (L₁ → L₂):  L'_u^v = Σ_{s,t} L_{u+s}^{v+t} conj(R_s^t(L₂ − L₁))              (Eq. 25)
//! ```

use geometry_core::DVec3;
use std::ops::{Add, AddAssign, Mul, Sub};

/// A complex number (the harmonics' values and the expansion coefficients).
///
/// ```
/// use fmm_dlp::harmonics::Complex;
/// let i = Complex::new(0.0, 1.0);
/// assert_eq!(i * i, Complex::new(-1.0, 0.0));
/// let z = Complex::new(3.0, 4.0);
/// assert_eq!(z * z.conj(), Complex::new(25.0, 0.0)); // |z|² = 3² + 4²
/// assert_eq!(z + z.conj(), Complex::new(6.0, 0.0)); // twice the real part
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Complex {
    /// Real part.
    pub re: f64,
    /// Imaginary part.
    pub im: f64,
}

impl Complex {
    /// `re + i·im`.
    ///
    /// ```
    /// let z = fmm_dlp::harmonics::Complex::new(1.0, 2.0);
    /// assert_eq!((z.re, z.im), (1.0, 2.0));
    /// ```
    pub const fn new(re: f64, im: f64) -> Self {
        Self { re, im }
    }

    /// The complex conjugate.
    ///
    /// ```
    /// use fmm_dlp::harmonics::Complex;
    /// assert_eq!(Complex::new(1.0, 2.0).conj(), Complex::new(1.0, -2.0));
    /// ```
    #[inline]
    #[must_use]
    pub fn conj(self) -> Self {
        Self { re: self.re, im: -self.im }
    }

    /// `self · s` for real `s`.
    ///
    /// ```
    /// use fmm_dlp::harmonics::Complex;
    /// assert_eq!(Complex::new(1.0, 2.0).scale(2.0), Complex::new(2.0, 4.0));
    /// ```
    #[inline]
    #[must_use]
    pub fn scale(self, s: f64) -> Self {
        Self { re: self.re * s, im: self.im * s }
    }
}

impl Add for Complex {
    type Output = Self;
    #[inline]
    fn add(self, o: Self) -> Self {
        Self { re: self.re + o.re, im: self.im + o.im }
    }
}

impl Sub for Complex {
    type Output = Self;
    #[inline]
    fn sub(self, o: Self) -> Self {
        Self { re: self.re - o.re, im: self.im - o.im }
    }
}

impl AddAssign for Complex {
    #[inline]
    fn add_assign(&mut self, o: Self) {
        self.re += o.re;
        self.im += o.im;
    }
}

impl Mul for Complex {
    type Output = Self;
    #[inline]
    fn mul(self, o: Self) -> Self {
        Self { re: self.re * o.re - self.im * o.im, im: self.re * o.im + self.im * o.re }
    }
}

/// Position of `(n, m)`, `|m| ≤ n`, in a coefficient array: `n² + n + m`.
///
/// ```
/// assert_eq!(fmm_dlp::harmonics::index(2, -1), 5);
/// ```
#[inline]
pub const fn index(n: usize, m: isize) -> usize {
    (n * n + n).wrapping_add_signed(m)
}

/// The number of coefficients up to degree `p`: `(p + 1)²`.
///
/// ```
/// assert_eq!(fmm_dlp::harmonics::size(3), 16);
/// ```
#[inline]
pub const fn size(p: usize) -> usize {
    (p + 1) * (p + 1)
}

/// `(−1)^m conj(z)`: the `−m` companion of `z = X_n^m`.
#[inline]
fn mirror(z: Complex, m: usize) -> Complex {
    let c = z.conj();
    if m.is_multiple_of(2) { c } else { c.scale(-1.0) }
}

/// Fills `out` (resized to `size(p)`) with `R_n^m(r)` for `n ≤ p`.
///
/// ```
/// use fmm_dlp::harmonics::{index, regular};
/// use geometry_core::DVec3;
/// let mut r = Vec::new();
/// regular(2, DVec3::new(1.0, 2.0, 3.0), &mut r);
/// assert_eq!(r[index(1, 0)].re, 3.0); // R_1^0 = z
/// assert_eq!(r[index(1, 1)].re, -0.5); // R_1^1 = −(x + iy)/2
/// ```
pub fn regular(p: usize, r: DVec3, out: &mut Vec<Complex>) {
    regular_nonnegative(p, r, out);
    fill_negative_orders(p, out);
}

/// [`regular`] for the orders `m ≥ 0` only (the others are left at 0): a sum of `R_n^m` with
/// real weights has the same symmetry, so sums can be completed once by
/// [`fill_negative_orders`].
pub(crate) fn regular_nonnegative(p: usize, r: DVec3, out: &mut Vec<Complex>) {
    // The recurrence's divisors, as reciprocals read from a table where it reaches: a division
    // costs several multiplications, and setup evaluates `R_n^m` at every quadrature point.
    let reciprocal = |l: usize, m: usize| {
        if l < RECURRENCE_TABLE { RECIPROCALS[l][m] } else { 1.0 / ((l + m + 1) * (l - m + 1)) as f64 }
    };
    out.clear();
    out.resize(size(p), Complex::default());
    out[0] = Complex::new(1.0, 0.0);
    let (xy, z, r2) = (Complex::new(r.x, r.y), r.z, r.length_squared());
    for l in 0..p {
        // Diagonal.
        let diagonal = (xy * out[index(l, l as isize)]).scale(-1.0 / (2.0 * l as f64 + 2.0));
        out[index(l + 1, (l + 1) as isize)] = diagonal;
        for m in 0..=l {
            let previous = if m < l { out[index(l - 1, m as isize)] } else { Complex::default() };
            let value = (out[index(l, m as isize)].scale((2 * l + 1) as f64 * z) - previous.scale(r2))
                .scale(reciprocal(l, m));
            out[index(l + 1, m as isize)] = value;
        }
    }
}

/// Completes coefficients given for `m ≥ 0` by the symmetry `X_n^{−m} = (−1)^m conj(X_n^m)`
/// of the solid harmonics and of their sums with real weights.
pub(crate) fn fill_negative_orders(p: usize, out: &mut [Complex]) {
    for n in 1..=p {
        for m in 1..=n {
            out[index(n, -(m as isize))] = mirror(out[index(n, m as isize)], m);
        }
    }
}

/// Degrees below which [`regular`] reads its divisors' reciprocals from [`RECIPROCALS`].
const RECURRENCE_TABLE: usize = 32;

/// `RECIPROCALS[l][m] = 1 / ((l + m + 1)(l − m + 1))` for `m ≤ l < RECURRENCE_TABLE`.
const RECIPROCALS: [[f64; RECURRENCE_TABLE]; RECURRENCE_TABLE] = {
    let mut table = [[0.0; RECURRENCE_TABLE]; RECURRENCE_TABLE];
    let mut l = 0;
    while l < RECURRENCE_TABLE {
        let mut m = 0;
        while m <= l {
            table[l][m] = 1.0 / ((l + m + 1) * (l - m + 1)) as f64;
            m += 1;
        }
        l += 1;
    }
    table
};

/// Fills `out` (resized to `size(p)`) with `S_n^m(r)` for `n ≤ p`; `r ≠ 0`.
///
/// ```
/// use fmm_dlp::harmonics::{index, irregular};
/// use geometry_core::DVec3;
/// let mut s = Vec::new();
/// irregular(1, DVec3::new(0.0, 0.0, 2.0), &mut s);
/// assert_eq!(s[index(0, 0)].re, 0.5); // 1/r
/// assert_eq!(s[index(1, 0)].re, 0.25); // z / r³
/// ```
pub fn irregular(p: usize, r: DVec3, out: &mut Vec<Complex>) {
    out.clear();
    out.resize(size(p), Complex::default());
    let r2 = r.length_squared();
    let inverse_r2 = 1.0 / r2;
    out[0] = Complex::new(1.0 / r2.sqrt(), 0.0);
    let (xy, z) = (Complex::new(r.x, r.y), r.z);
    for l in 0..p {
        let diagonal = (xy * out[index(l, l as isize)]).scale(-((2 * l + 1) as f64) * inverse_r2);
        out[index(l + 1, (l + 1) as isize)] = diagonal;
        for m in 0..=l {
            let previous = if m < l { out[index(l - 1, m as isize)] } else { Complex::default() };
            let value = (out[index(l, m as isize)].scale((2 * l + 1) as f64 * z)
                - previous.scale((l * l - m * m) as f64))
            .scale(inverse_r2);
            out[index(l + 1, m as isize)] = value;
        }
    }
    for n in 1..=p {
        for m in 1..=n {
            out[index(n, -(m as isize))] = mirror(out[index(n, m as isize)], m);
        }
    }
}

/// Evaluates a multipole expansion of degree `p` about `centre` at `x`:
/// `Re Σ M_n^m S_n^m(x − centre)`.
///
/// ```
/// use fmm_dlp::harmonics::{Complex, evaluate_multipole};
/// use geometry_core::DVec3;
/// // A unit charge at the centre: M_0^0 = 1, φ = 1/|x|.
/// let m = vec![Complex::new(1.0, 0.0)];
/// assert!((evaluate_multipole(0, &m, DVec3::ZERO, DVec3::new(0.0, 4.0, 0.0)) - 0.25).abs() < 1e-15);
/// ```
pub fn evaluate_multipole(p: usize, coefficients: &[Complex], centre: DVec3, x: DVec3) -> f64 {
    let mut s = Vec::new();
    irregular(p, x - centre, &mut s);
    coefficients.iter().zip(&s).map(|(c, s)| (*c * *s).re).sum()
}

/// Evaluates the multipole expansion of a real field (`M_n^{−m} = (−1)^m conj(M_n^m)`) of
/// degree `p` at offset `r ≠ 0` from its centre: `Re Σ M_n^m S_n^m(r)` as the `m = 0`
/// terms plus twice the real parts of the `m > 0` terms. The `S_n^m` with `m ≥ 0` are generated
/// row by row and summed as they come, without storing them: the FMM calls this for every
/// point and every mesh cluster it evaluates directly. `scratch` holds two rows.
///
/// ```
/// use fmm_dlp::harmonics::{Complex, evaluate_real_multipole};
/// use geometry_core::DVec3;
/// // A unit charge at the centre: M_0^0 = 1, φ = 1/|r|.
/// let m = vec![Complex::new(1.0, 0.0); 4];
/// let r = DVec3::new(0.0, 4.0, 0.0);
/// assert!((evaluate_real_multipole(0, &m, r, &mut Vec::new()) - 0.25).abs() < 1e-15);
/// ```
pub fn evaluate_real_multipole(p: usize, multipole: &[Complex], r: DVec3, scratch: &mut Vec<Complex>) -> f64 {
    let inverse_r2 = 1.0 / r.length_squared();
    let (xy, z) = (Complex::new(r.x, r.y), r.z);
    // Rows l − 1 and l of S_l^m (m ≥ 0), alternating between the two halves of `scratch`: the
    // next row overwrites the older one.
    let width = p + 2;
    if scratch.len() < 2 * width {
        scratch.resize(2 * width, Complex::default());
    }
    let (mut previous, mut current) = scratch.split_at_mut(width);
    current[0] = Complex::new(inverse_r2.sqrt(), 0.0);
    let mut sum = 0.0;
    for l in 0..=p {
        let row = &multipole[index(l, 0)..=index(l, l as isize)];
        let mut twice = 0.0;
        for (a, b) in row[1..].iter().zip(&current[1..=l]) {
            twice += a.re * b.re - a.im * b.im;
        }
        sum += row[0].re * current[0].re - row[0].im * current[0].im + 2.0 * twice;
        if l == p {
            break;
        }
        // The next row, by the recurrence of `irregular`, written over row l − 1.
        let diagonal = (xy * current[l]).scale(-((2 * l + 1) as f64) * inverse_r2);
        for m in 0..=l {
            let older = if m < l { previous[m] } else { Complex::default() };
            previous[m] = (current[m].scale((2 * l + 1) as f64 * z) - older.scale((l * l - m * m) as f64))
                .scale(inverse_r2);
        }
        previous[l + 1] = diagonal;
        std::mem::swap(&mut previous, &mut current);
    }
    sum
}

/// Evaluates a local expansion of degree `p` about `centre` at `x`:
/// `Re Σ L_n^m conj(R_n^m(x − centre))`, using `scratch` for the harmonics.
///
/// ```
/// use fmm_dlp::harmonics::{Complex, evaluate_local};
/// use geometry_core::DVec3;
/// let l = vec![Complex::new(2.0, 0.0)];
/// assert_eq!(evaluate_local(0, &l, DVec3::ZERO, DVec3::ONE, &mut Vec::new()), 2.0);
/// ```
pub fn evaluate_local(
    p: usize,
    coefficients: &[Complex],
    centre: DVec3,
    x: DVec3,
    scratch: &mut Vec<Complex>,
) -> f64 {
    regular(p, x - centre, scratch);
    coefficients.iter().zip(scratch.iter()).map(|(c, r)| c.re * r.re + c.im * r.im).sum()
}

/// Adds to `parent` (about `to`) the multipole expansion `child` (about `from`), both of
/// degree `p` (Eq. 23).
///
/// ```
/// use fmm_dlp::harmonics::{m2m, regular, size, Complex};
/// use geometry_core::DVec3;
/// // A unit source at y: its multipole coefficients about c are conj(R(y − c)).
/// let (p, y, c1, c2) = (5, DVec3::new(0.3, -0.1, 0.2), DVec3::new(0.1, 0.0, 0.0), DVec3::ZERO);
/// let about = |c: DVec3| {
///     let mut r = Vec::new();
///     regular(p, y - c, &mut r);
///     r.iter().map(|z| z.conj()).collect::<Vec<Complex>>()
/// };
/// let mut parent = vec![Complex::default(); size(p)];
/// m2m(p, &about(c1), c1, &mut parent, c2, &mut Vec::new());
/// for (a, b) in parent.iter().zip(about(c2)) {
///     assert!((a.re - b.re).abs() < 1e-15 && (a.im - b.im).abs() < 1e-15);
/// }
/// ```
pub fn m2m(
    p: usize,
    child: &[Complex],
    from: DVec3,
    parent: &mut [Complex],
    to: DVec3,
    scratch: &mut Vec<Complex>,
) {
    regular(p, from - to, scratch);
    // Expansions of real fields satisfy X_n^{−m} = (−1)^m conj(X_n^m): compute m ≥ 0, mirror.
    for n in 0..=p {
        for m in 0..=(n as isize) {
            let mut sum = Complex::default();
            for s in 0..=n {
                let rest = n - s;
                for t in -(s as isize)..=(s as isize) {
                    let mt = m - t;
                    if mt.unsigned_abs() <= rest {
                        sum += scratch[index(s, t)].conj() * child[index(rest, mt)];
                    }
                }
            }
            parent[index(n, m)] += sum;
            if m > 0 {
                parent[index(n, -m)] += mirror(sum, m as usize);
            }
        }
    }
}

/// Adds to `local` (about `to`) the local expansion of the multipole expansion `multipole`
/// (about `from`), both of degree `p` (Eq. 24). `scratch` receives `S` up to degree `2p`.
///
/// ```
/// use fmm_dlp::harmonics::{Complex, evaluate_local, evaluate_multipole, m2l, size};
/// use geometry_core::DVec3;
/// let p = 8;
/// let mut multipole = vec![Complex::default(); size(p)];
/// multipole[0] = Complex::new(1.0, 0.0); // a unit charge at the origin
/// let centre = DVec3::new(6.0, 1.0, 0.0);
/// let mut local = vec![Complex::default(); size(p)];
/// m2l(p, &multipole, DVec3::ZERO, &mut local, centre, &mut Vec::new());
/// let x = centre + DVec3::new(0.3, -0.2, 0.1);
/// let exact = 1.0 / x.length();
/// assert!((evaluate_local(p, &local, centre, x, &mut Vec::new()) - exact).abs() < 1e-9);
/// ```
pub fn m2l(
    p: usize,
    multipole: &[Complex],
    from: DVec3,
    local: &mut [Complex],
    to: DVec3,
    scratch: &mut Vec<Complex>,
) {
    irregular(2 * p, to - from, scratch);
    for j in 0..=p {
        let sign = if j.is_multiple_of(2) { 1.0 } else { -1.0 };
        for k in 0..=(j as isize) {
            let mut sum = Complex::default();
            for n in 0..=p {
                let row = index(n + j, k);
                let coefficients = &multipole[index(n, -(n as isize))..=index(n, n as isize)];
                // S_{n+j}^{m+k} for m = −n..=n sits contiguously around `row`.
                let harmonics = &scratch[row - n..=row + n];
                for (a, b) in coefficients.iter().zip(harmonics) {
                    sum += *a * *b;
                }
            }
            let value = sum.scale(sign);
            local[index(j, k)] += value;
            if k > 0 {
                local[index(j, -k)] += mirror(value, k as usize);
            }
        }
    }
}

/// Adds to `child` (about `to`) the local expansion `parent` (about `from`) re-centred, both of
/// degree `p` (Eq. 25). Like every translation here it assumes the expansion of a real field,
/// `X_n^{−m} = (−1)^m conj(X_n^m)`.
///
/// ```
/// use fmm_dlp::harmonics::{Complex, evaluate_local, index, l2l, size};
/// use geometry_core::DVec3;
/// let p = 3;
/// // A local expansion of a real field: X_n^{−m} = (−1)^m conj(X_n^m).
/// let mut parent = vec![Complex::default(); size(p)];
/// for n in 0..=p {
///     for m in 0..=n as isize {
///         let z = Complex::new(1.0 / (1.0 + (n as f64) + m as f64), if m == 0 { 0.0 } else { 0.3 });
///         parent[index(n, m)] = z;
///         parent[index(n, -m)] = z.conj().scale(if m % 2 == 0 { 1.0 } else { -1.0 });
///     }
/// }
/// let mut child = vec![Complex::default(); size(p)];
/// let (from, to) = (DVec3::ZERO, DVec3::new(0.2, 0.1, -0.3));
/// l2l(p, &parent, from, &mut child, to, &mut Vec::new());
/// let x = DVec3::new(0.25, 0.0, -0.2);
/// let (a, b) = (evaluate_local(p, &parent, from, x, &mut Vec::new()), evaluate_local(p, &child, to, x, &mut Vec::new()));
/// assert!((a - b).abs() < 1e-12);
/// ```
pub fn l2l(
    p: usize,
    parent: &[Complex],
    from: DVec3,
    child: &mut [Complex],
    to: DVec3,
    scratch: &mut Vec<Complex>,
) {
    regular(p, to - from, scratch);
    for u in 0..=p {
        for v in 0..=(u as isize) {
            let mut sum = Complex::default();
            for s in 0..=(p - u) {
                for t in -(s as isize)..=(s as isize) {
                    let (n, m) = (u + s, v + t);
                    if m.unsigned_abs() <= n {
                        sum += parent[index(n, m)] * scratch[index(s, t)].conj();
                    }
                }
            }
            child[index(u, v)] += sum;
            if v > 0 {
                child[index(u, -v)] += mirror(sum, v as usize);
            }
        }
    }
}
