//! The solid harmonics, their translations and the quadrature rules against oracles written
//! here, independently of the crate:
//!
//! 1. `R_n^m` and `S_n^m` against hand-derived closed forms for `n ≤ 3` and against a separate
//!    associated-Legendre recurrence (Condon–Shortley phase) up to `n = 20`; negative orders
//!    through the documented symmetry `X_n^{−m} = (−1)^m conj(X_n^m)`;
//! 2. the Laplace expansion `1/|x − y| = Re Σ conj(R_n^m(y)) S_n^m(x)` (`|y| < |x|`) within the
//!    geometric-series bound `(|y|/|x|)^{p+1} / (|x| − |y|)` of Muth et al. Eq. (12);
//! 3. multipoles of point charges (`M = Σ q conj(R(y − c))`): M2M equals the direct multipole
//!    about the new centre coefficient by coefficient; M2L gives a local expansion whose values
//!    converge geometrically in `p` to the direct Coulomb sum; the real-field evaluation of a
//!    multipole equals the full sum over `±m`; L2L re-centres a local expansion
//!    (a harmonic polynomial of degree `p`) exactly; all three add into their output;
//! 4. Gauss–Legendre and triangle rules integrate monomials exactly up to the stated degree.

mod common;

use common::rng;
use fmm_dlp::harmonics::{
    Complex, evaluate_local, evaluate_multipole, evaluate_real_multipole, index, irregular, l2l, m2l, m2m,
    regular, size,
};
use fmm_dlp::{gauss_legendre, triangle_rule, triangle_rule_of_degree};
use geometry_core::DVec3;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// A minimal complex number for the oracles (the crate's arithmetic is not used).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Z {
    re: f64,
    im: f64,
}

impl Z {
    const ZERO: Z = Z { re: 0.0, im: 0.0 };
    fn new(re: f64, im: f64) -> Self {
        Z { re, im }
    }
    fn real(re: f64) -> Self {
        Z { re, im: 0.0 }
    }
    fn conj(self) -> Self {
        Z::new(self.re, -self.im)
    }
    fn scale(self, s: f64) -> Self {
        Z::new(self.re * s, self.im * s)
    }
    fn mul(self, o: Z) -> Self {
        Z::new(self.re * o.re - self.im * o.im, self.re * o.im + self.im * o.re)
    }
    fn add(self, o: Z) -> Self {
        Z::new(self.re + o.re, self.im + o.im)
    }
    fn pow(self, k: u32) -> Self {
        (0..k).fold(Z::real(1.0), |acc, _| acc.mul(self))
    }
    fn abs(self) -> f64 {
        self.re.hypot(self.im)
    }
    fn of(c: Complex) -> Self {
        Z::new(c.re, c.im)
    }
    fn to_complex(self) -> Complex {
        Complex::new(self.re, self.im)
    }
}

fn factorial(n: usize) -> f64 {
    (1..=n).map(|k| k as f64).product()
}

/// The associated Legendre function `P_n^m(x)`, `0 ≤ m ≤ n`, with the Condon–Shortley phase:
/// `P_m^m = (−1)^m (2m−1)!! (1−x²)^{m/2}`, `P_{m+1}^m = (2m+1) x P_m^m`,
/// `(n−m) P_n^m = (2n−1) x P_{n−1}^m − (n+m−1) P_{n−2}^m`.
fn legendre(n: usize, m: usize, x: f64) -> f64 {
    assert!(m <= n);
    let s = (1.0 - x * x).max(0.0).sqrt();
    let mut pmm = 1.0;
    for k in 1..=m {
        pmm *= -((2 * k - 1) as f64) * s;
    }
    if n == m {
        return pmm;
    }
    let mut prev = pmm;
    let mut cur = x * (2 * m + 1) as f64 * pmm;
    for l in m + 2..=n {
        let next = ((2 * l - 1) as f64 * x * cur - (l + m - 1) as f64 * prev) / (l - m) as f64;
        prev = cur;
        cur = next;
    }
    cur
}

/// `(−1)^k`.
fn parity(k: usize) -> f64 {
    if k.is_multiple_of(2) { 1.0 } else { -1.0 }
}

/// `e^{i m φ}` and `cos θ` of `v` (φ = 0 on the z axis).
fn angles(v: DVec3) -> (f64, Z) {
    let r = v.length();
    let rho = v.x.hypot(v.y);
    let phase = if rho > 0.0 { Z::new(v.x / rho, v.y / rho) } else { Z::real(1.0) };
    (v.z / r, phase)
}

/// `R_n^m(v) = |v|^n P_n^m(cos θ) e^{imφ} / (n+m)!` for `m ≥ 0`; `R_n^{−m} = (−1)^m conj(R_n^m)`.
fn regular_oracle(n: usize, m: isize, v: DVec3) -> Z {
    let k = m.unsigned_abs();
    let (c, e) = angles(v);
    let pos = e.pow(k as u32).scale(v.length().powi(n as i32) * legendre(n, k, c) / factorial(n + k));
    if m >= 0 { pos } else { pos.conj().scale(parity(k)) }
}

/// `S_n^m(v) = (n−m)! P_n^m(cos θ) e^{imφ} / |v|^{n+1}` for `m ≥ 0`; negative `m` as for `R`.
fn irregular_oracle(n: usize, m: isize, v: DVec3) -> Z {
    let k = m.unsigned_abs();
    let (c, e) = angles(v);
    let pos = e.pow(k as u32).scale(factorial(n - k) * legendre(n, k, c) / v.length().powi(n as i32 + 1));
    if m >= 0 { pos } else { pos.conj().scale(parity(k)) }
}

/// Closed forms for `n ≤ 3`, `m ≥ 0`, derived by hand from the definition with `ρ = x + iy`,
/// `r sin θ e^{iφ} = ρ`, `r cos θ = z`: `P_1^1 = −s`, `P_2^1 = −3xs`, `P_2^2 = 3s²`,
/// `P_3^0 = (5x³ − 3x)/2`, `P_3^1 = −(3/2)(5x² − 1)s`, `P_3^2 = 15xs²`, `P_3^3 = −15s³`.
fn regular_closed_form(n: usize, m: usize, v: DVec3) -> Z {
    let (x, y, z) = (v.x, v.y, v.z);
    let r2 = v.length_squared();
    let rho = Z::new(x, y);
    match (n, m) {
        (0, 0) => Z::real(1.0),
        (1, 0) => Z::real(z),
        (1, 1) => rho.scale(-0.5),
        (2, 0) => Z::real((3.0 * z * z - r2) / 4.0),
        (2, 1) => rho.scale(-z / 2.0),
        (2, 2) => rho.pow(2).scale(1.0 / 8.0),
        (3, 0) => Z::real((5.0 * z * z * z - 3.0 * z * r2) / 12.0),
        (3, 1) => rho.scale(-(5.0 * z * z - r2) / 16.0),
        (3, 2) => rho.pow(2).scale(z / 8.0),
        (3, 3) => rho.pow(3).scale(-1.0 / 48.0),
        _ => unreachable!(),
    }
}

/// `S_n^m = (n−m)! (n+m)! R_n^m / r^{2n+1}` (both are `P_n^m(cos θ) e^{imφ}` times powers of r).
fn irregular_closed_form(n: usize, m: usize, v: DVec3) -> Z {
    regular_closed_form(n, m, v)
        .scale(factorial(n - m) * factorial(n + m) / v.length().powi(2 * n as i32 + 1))
}

fn random_vec(r: &mut ChaCha8Rng, scale: f64) -> DVec3 {
    DVec3::new(r.random_range(-1.0..1.0), r.random_range(-1.0..1.0), r.random_range(-1.0..1.0)) * scale
}

fn close(a: Z, b: Z, tol: f64) -> bool {
    (a.re - b.re).abs() <= tol && (a.im - b.im).abs() <= tol
}

fn crate_regular(p: usize, v: DVec3) -> Vec<Z> {
    let mut out = vec![Complex::new(f64::NAN, f64::NAN); 3];
    regular(p, v, &mut out);
    assert!(out.len() >= size(p));
    out[..size(p)].iter().map(|&c| Z::of(c)).collect()
}

fn crate_irregular(p: usize, v: DVec3) -> Vec<Z> {
    let mut out = Vec::new();
    irregular(p, v, &mut out);
    assert!(out.len() >= size(p));
    out[..size(p)].iter().map(|&c| Z::of(c)).collect()
}

#[test]
fn index_and_size() {
    assert_eq!(size(0), 1);
    assert_eq!(size(3), 16);
    assert_eq!(size(30), 961);
    let mut k = 0;
    for n in 0..=10usize {
        for m in -(n as isize)..=n as isize {
            assert_eq!(index(n, m), k);
            k += 1;
        }
    }
}

#[test]
fn legendre_oracle_matches_closed_forms() {
    // A check of the oracle itself, with the explicit polynomials.
    for i in 0..=20 {
        let x = -1.0 + 0.1 * f64::from(i);
        let s = (1.0 - x * x).max(0.0).sqrt();
        let want = [
            (0, 0, 1.0),
            (1, 0, x),
            (1, 1, -s),
            (2, 0, 1.5 * x * x - 0.5),
            (2, 1, -3.0 * x * s),
            (2, 2, 3.0 * s * s),
            (3, 0, 2.5 * x * x * x - 1.5 * x),
            (3, 1, -1.5 * (5.0 * x * x - 1.0) * s),
            (3, 2, 15.0 * x * s * s),
            (3, 3, -15.0 * s * s * s),
            (4, 0, (35.0 * x.powi(4) - 30.0 * x * x + 3.0) / 8.0),
        ];
        for (n, m, w) in want {
            assert!((legendre(n, m, x) - w).abs() < 1e-13, "P_{n}^{m}({x})");
        }
    }
    let mut r = rng(10);
    for _ in 0..50 {
        let v = random_vec(&mut r, 2.0);
        for n in 0..=3 {
            for m in 0..=n {
                let a = regular_oracle(n, m as isize, v);
                let b = regular_closed_form(n, m, v);
                assert!(close(a, b, 1e-13 * (1.0 + b.abs())), "oracle R_{n}^{m}");
            }
        }
    }
}

#[test]
fn regular_and_irregular_match_closed_forms() {
    let mut r = rng(11);
    let mut points: Vec<DVec3> = (0..200).map(|_| random_vec(&mut r, 1.5)).collect();
    points.extend([
        DVec3::X,
        DVec3::new(0.0, -2.0, 0.0),
        DVec3::new(0.5, 0.0, -0.25),
        DVec3::new(3.0, 4.0, 0.0),
    ]);
    for v in points {
        let (rr, ss) = (crate_regular(3, v), crate_irregular(3, v));
        for n in 0..=3usize {
            for m in 0..=n {
                let sign = parity(m);
                let want_r = regular_closed_form(n, m, v);
                let want_s = irregular_closed_form(n, m, v);
                let mi = m as isize;
                let (got_r, got_s) = (rr[index(n, mi)], ss[index(n, mi)]);
                assert!(
                    close(got_r, want_r, 1e-14 * (1.0 + want_r.abs())),
                    "R_{n}^{m}({v}) = {got_r:?}, want {want_r:?}"
                );
                assert!(
                    close(got_s, want_s, 1e-13 * (1.0 + want_s.abs())),
                    "S_{n}^{m}({v}) = {got_s:?}, want {want_s:?}"
                );
                let (neg_r, neg_s) = (rr[index(n, -mi)], ss[index(n, -mi)]);
                assert!(
                    close(neg_r, want_r.conj().scale(sign), 1e-14 * (1.0 + want_r.abs())),
                    "R_{n}^-{m}({v})"
                );
                assert!(
                    close(neg_s, want_s.conj().scale(sign), 1e-13 * (1.0 + want_s.abs())),
                    "S_{n}^-{m}({v})"
                );
            }
        }
    }
}

#[test]
fn regular_and_irregular_match_legendre_recurrence_to_degree_20() {
    let p = 20;
    let mut r = rng(12);
    for _ in 0..100 {
        let v = random_vec(&mut r, 1.0) + DVec3::new(0.0, 0.0, 0.3 * r.random_range(-1.0..1.0));
        let length: f64 = v.length();
        let (rr, ss) = (crate_regular(p, v), crate_irregular(p, v));
        for n in 0..=p {
            for m in -(n as isize)..=n as isize {
                let k = m.unsigned_abs();
                // |P_n^k| ≤ sqrt((n+k)!/(n−k)!) (the bound of the normalised spherical harmonics),
                // so |R_n^m| ≤ |v|^n / sqrt((n+k)!(n−k)!) and |S_n^m| ≤ sqrt((n+k)!(n−k)!) / |v|^{n+1}.
                let root = (factorial(n + k) * factorial(n - k)).sqrt();
                let tol_r = 1e-13 * length.powi(n as i32) / root;
                let tol_s = 1e-13 * root / length.powi(n as i32 + 1);
                let (want_r, want_s) = (regular_oracle(n, m, v), irregular_oracle(n, m, v));
                let (got_r, got_s) = (rr[index(n, m)], ss[index(n, m)]);
                assert!(close(got_r, want_r, tol_r), "R_{n}^{m}({v}) = {got_r:?}, want {want_r:?}");
                assert!(close(got_s, want_s, tol_s), "S_{n}^{m}({v}) = {got_s:?}, want {want_s:?}");
            }
        }
    }
}

/// `Re Σ_{n ≤ p} Σ_m a_n^m b_n^m`.
fn pair_sum(p: usize, a: &[Z], b: &[Z]) -> f64 {
    (0..size(p)).map(|i| a[i].mul(b[i]).re).sum()
}

#[test]
fn laplace_expansion_converges_within_eq_12_bound() {
    let mut r = rng(13);
    let p_max = 30;
    for _ in 0..50 {
        let x = random_vec(&mut r, 1.0).normalize() * r.random_range(1.0..2.0);
        let ratio = r.random_range(0.1..0.7);
        let y = random_vec(&mut r, 1.0).normalize() * (ratio * x.length());
        let exact = 1.0 / (x - y).length();
        let ry: Vec<Z> = crate_regular(p_max, y).into_iter().map(Z::conj).collect();
        let sx = crate_irregular(p_max, x);
        let mut previous_bound = f64::INFINITY;
        for p in 0..=p_max {
            let approx = pair_sum(p, &ry, &sx);
            let t = y.length() / x.length();
            let bound = t.powi(p as i32 + 1) / (x.length() - y.length());
            assert!(bound < previous_bound);
            previous_bound = bound;
            let err = (approx - exact).abs();
            assert!(err <= bound + 1e-14 * exact, "p = {p}, |y|/|x| = {t}: error {err} > bound {bound}");
        }
        if ratio < 0.3 {
            assert!((pair_sum(p_max, &ry, &sx) - exact).abs() < 1e-13 * exact);
        }
    }
}

/// Charges `q_i` at `y_i` within `radius` of `centre`.
fn random_charges(r: &mut ChaCha8Rng, n: usize, centre: DVec3, radius: f64) -> Vec<(f64, DVec3)> {
    (0..n)
        .map(|_| {
            let y = loop {
                let v = random_vec(r, radius);
                if v.length() <= radius {
                    break v;
                }
            };
            (r.random_range(-1.0..1.0), centre + y)
        })
        .collect()
}

/// The multipole `M_n^m = Σ q conj(R_n^m(y − c))` by the oracle.
fn direct_multipole(p: usize, charges: &[(f64, DVec3)], c: DVec3) -> Vec<Z> {
    let mut m = vec![Z::ZERO; size(p)];
    for &(q, y) in charges {
        for n in 0..=p {
            for k in -(n as isize)..=n as isize {
                m[index(n, k)] = m[index(n, k)].add(regular_oracle(n, k, y - c).conj().scale(q));
            }
        }
    }
    m
}

/// The local expansion `L_n^m = Σ q S_n^m(y − c)`, so that `Σ q/|x − y| = Re Σ L conj(R(x − c))`
/// for `|x − c| < |y − c|`, by the oracle.
fn direct_local(p: usize, charges: &[(f64, DVec3)], c: DVec3) -> Vec<Z> {
    let mut l = vec![Z::ZERO; size(p)];
    for &(q, y) in charges {
        for n in 0..=p {
            for k in -(n as isize)..=n as isize {
                l[index(n, k)] = l[index(n, k)].add(irregular_oracle(n, k, y - c).scale(q));
            }
        }
    }
    l
}

fn coulomb(charges: &[(f64, DVec3)], x: DVec3) -> f64 {
    charges.iter().map(|&(q, y)| q / (x - y).length()).sum()
}

fn to_complex(v: &[Z]) -> Vec<Complex> {
    v.iter().map(|z| z.to_complex()).collect()
}

#[test]
fn multipole_evaluation_matches_coulomb_sum() {
    let mut r = rng(14);
    let (c, a) = (DVec3::new(0.2, -0.1, 0.3), 0.5);
    let charges = random_charges(&mut r, 6, c, a);
    let total: f64 = charges.iter().map(|q| q.0.abs()).sum();
    for p in [0, 1, 2, 5, 10, 20] {
        let m = to_complex(&direct_multipole(p, &charges, c));
        for _ in 0..20 {
            let x = c + random_vec(&mut r, 1.0).normalize() * r.random_range(1.0..3.0);
            let got = evaluate_multipole(p, &m, c, x);
            // The oracle's own sum Re Σ M S(x − c).
            let mine: f64 = (0..=p)
                .flat_map(|n| (-(n as isize)..=n as isize).map(move |k| (n, k)))
                .map(|(n, k)| Z::of(m[index(n, k)]).mul(irregular_oracle(n, k, x - c)).re)
                .sum();
            let d = (x - c).length();
            let bound = total * (a / d).powi(p as i32 + 1) / (d - a);
            assert!((got - mine).abs() <= 1e-13 * (1.0 + mine.abs()), "p = {p}: {got} vs oracle {mine}");
            assert!((got - coulomb(&charges, x)).abs() <= bound + 1e-13, "p = {p}: truncation beyond bound");
        }
    }
}

/// The real-field shortcut (`m ≥ 0` only, harmonics generated on the fly) equals the oracle's
/// full sum over `−n ≤ m ≤ n` for multipoles of real charges, up to the largest order.
#[test]
fn real_multipole_evaluation_equals_the_full_sum() {
    let mut r = rng(21);
    let mut scratch = Vec::new();
    for p in [0, 1, 2, 3, 5, 8, 13, 21, 30] {
        let c = random_vec(&mut r, 1.0);
        let charges = random_charges(&mut r, 5, c, 0.5);
        let oracle = direct_multipole(p, &charges, c);
        let m = to_complex(&oracle);
        for _ in 0..20 {
            let offset = random_vec(&mut r, 1.0).normalize() * r.random_range(0.6..4.0);
            let want: f64 = (0..=p)
                .flat_map(|n| (-(n as isize)..=n as isize).map(move |k| (n, k)))
                .map(|(n, k)| oracle[index(n, k)].mul(irregular_oracle(n, k, offset)).re)
                .sum();
            let got = evaluate_real_multipole(p, &m, offset, &mut scratch);
            assert!((got - want).abs() <= 1e-12 * (1.0 + want.abs()), "p = {p}: {got} vs oracle {want}");
        }
    }
}

#[test]
fn m2m_equals_direct_multipole() {
    let mut r = rng(15);
    let mut scratch = Vec::new();
    for trial in 0..20 {
        let p = [0, 1, 2, 3, 6, 10, 16][trial % 7];
        let c1 = random_vec(&mut r, 1.0);
        let c2 = c1 + random_vec(&mut r, 0.8);
        let a = 0.5;
        let charges = random_charges(&mut r, 5, c1, a);
        let total: f64 = charges.iter().map(|q| q.0.abs()).sum();
        let child = to_complex(&direct_multipole(p, &charges, c1));
        let want = direct_multipole(p, &charges, c2);
        let mut parent = vec![Complex::new(0.0, 0.0); size(p)];
        m2m(p, &child, c1, &mut parent, c2, &mut scratch);
        // |M_n^k| ≤ Σ|q| reach^n / sqrt((n+|k|)!(n−|k|)!) with reach ≥ |y − c2|.
        let reach = a + (c2 - c1).length();
        for n in 0..=p {
            for k in -(n as isize)..=n as isize {
                let i = index(n, k);
                let root = (factorial(n + k.unsigned_abs()) * factorial(n - k.unsigned_abs())).sqrt();
                let tol = 1e-13 * total * reach.powi(n as i32) / root;
                let got = Z::of(parent[i]);
                assert!(close(got, want[i], tol), "p = {p}: M_{n}^{k} = {got:?}, want {:?}", want[i]);
            }
        }
        // It adds into the output.
        let offset: Vec<Z> = (0..size(p)).map(|i| Z::new(i as f64, -(i as f64) / 4.0)).collect();
        let mut added = to_complex(&offset);
        m2m(p, &child, c1, &mut added, c2, &mut scratch);
        for i in 0..size(p) {
            let want = offset[i].add(Z::of(parent[i]));
            assert!(close(Z::of(added[i]), want, 1e-13 * (1.0 + want.abs())), "m2m does not add into parent");
        }
    }
}

#[test]
fn m2l_converges_geometrically_to_coulomb_sum() {
    let mut r = rng(16);
    let mut scratch = Vec::new();
    // Sources within a = 0.5 of c1, targets within b = 0.5 of c2, |c1 − c2| = 4: ratio 1/4.
    let (c1, a, b) = (DVec3::new(0.1, 0.2, -0.3), 0.5, 0.5);
    let c2 = c1 + DVec3::new(2.0, -2.0, 2.0) / 3f64.sqrt() * 2.0;
    let charges = random_charges(&mut r, 8, c1, a);
    let targets: Vec<DVec3> = random_charges(&mut r, 40, c2, b).into_iter().map(|t| t.1).collect();
    let mut errors = Vec::new();
    println!(" p   max |local − Coulomb|");
    for p in 0..=20 {
        let multipole = to_complex(&direct_multipole(p, &charges, c1));
        let mut local = vec![Complex::new(0.0, 0.0); size(p)];
        m2l(p, &multipole, c1, &mut local, c2, &mut scratch);
        let err = targets
            .iter()
            .map(|&x| (evaluate_local(p, &local, c2, x, &mut scratch) - coulomb(&charges, x)).abs())
            .fold(0.0, f64::max);
        println!("{p:2}   {err:.3e}");
        errors.push(err);
    }
    for p in 0..=18 {
        assert!(errors[p + 2] < errors[p] || errors[p + 2] < 1e-14, "no decrease from p = {p} to {}", p + 2);
    }
    assert!(errors[16] < 1e-8, "error at p = 16: {}", errors[16]);
    assert!(errors[10] < 1e-5 * errors[0], "decay too slow: {errors:?}");
    // Adds into the output, and the local coefficients approach the direct local expansion.
    let p = 24;
    let multipole = to_complex(&direct_multipole(p, &charges, c1));
    let offset: Vec<Z> = (0..size(p)).map(|i| Z::new(1.0 + i as f64, 2.0)).collect();
    let mut local = to_complex(&offset);
    m2l(p, &multipole, c1, &mut local, c2, &mut scratch);
    let want = direct_local(p, &charges, c2);
    for n in 0..=4 {
        for k in -(n as isize)..=n as isize {
            let i = index(n, k);
            let got = Z::of(local[i]).add(offset[i].scale(-1.0));
            assert!(
                close(got, want[i], 1e-9 * (1.0 + want[i].abs())),
                "L_{n}^{k} = {got:?}, want {:?}",
                want[i]
            );
        }
    }
}

#[test]
fn l2l_recentres_exactly() {
    let mut r = rng(17);
    let mut scratch = Vec::new();
    for trial in 0..12 {
        let p = [0, 1, 2, 4, 8, 12][trial % 6];
        let c2 = random_vec(&mut r, 1.0);
        let c3 = c2 + random_vec(&mut r, 0.4);
        let charges = random_charges(&mut r, 5, c2 + DVec3::new(3.0, 0.0, 0.0), 0.5);
        let parent = to_complex(&direct_local(p, &charges, c2));
        let offset: Vec<Z> = (0..size(p)).map(|i| Z::new(0.5 * i as f64, -1.0)).collect();
        let mut child = to_complex(&offset);
        l2l(p, &parent, c2, &mut child, c3, &mut scratch);
        let child: Vec<Complex> =
            child.iter().zip(&offset).map(|(&c, &o)| Z::of(c).add(o.scale(-1.0)).to_complex()).collect();
        for _ in 0..20 {
            let x = c3 + random_vec(&mut r, 0.3);
            let before = evaluate_local(p, &parent, c2, x, &mut scratch);
            // The oracle's own sum Re Σ L conj(R(x − c)).
            let mine: f64 = (0..=p)
                .flat_map(|n| (-(n as isize)..=n as isize).map(move |k| (n, k)))
                .map(|(n, k)| Z::of(parent[index(n, k)]).mul(regular_oracle(n, k, x - c2).conj()).re)
                .sum();
            assert!(
                (before - mine).abs() <= 1e-13 * (1.0 + mine.abs()),
                "evaluate_local {before} vs oracle {mine}"
            );
            let after = evaluate_local(p, &child, c3, x, &mut scratch);
            assert!(
                (after - before).abs() <= 1e-12 * (1.0 + before.abs()),
                "p = {p}: L2L {after} vs {before}"
            );
        }
    }
}

#[test]
fn gauss_legendre_exact_to_degree_2q_minus_1() {
    for q in 1..=12 {
        let rule = gauss_legendre(q);
        assert_eq!(rule.len(), q);
        assert!(rule.iter().all(|&(x, w)| (0.0..=1.0).contains(&x) && w > 0.0));
        for k in 0..2 * q {
            let got: f64 = rule.iter().map(|&(x, w)| w * x.powi(k as i32)).sum();
            let want = 1.0 / (k + 1) as f64;
            assert!((got - want).abs() < 1e-14, "q = {q}: ∫x^{k} = {got}, want {want}");
        }
        if q > 8 {
            continue;
        }
        // Not exact one degree higher: the Gauss error term 2^{2q+1} (q!)⁴ / ((2q+1) ((2q)!)³) f^{(2q)}
        // on [−1, 1] becomes (q!)⁴ / ((2q+1) ((2q)!)²) for x^{2q} on [0, 1] (q = 1: midpoint, 1/12).
        let k = 2 * q;
        let got: f64 = rule.iter().map(|&(x, w)| w * x.powi(k as i32)).sum();
        let want_error = factorial(q).powi(4) / ((2 * q + 1) as f64 * factorial(2 * q).powi(2));
        let err = 1.0 / (k + 1) as f64 - got;
        assert!(
            (err - want_error).abs() <= 1e-3 * want_error + 1e-15,
            "q = {q}: x^{k} error {err} vs {want_error}"
        );
    }
}

#[test]
fn triangle_rule_exact_to_degree_2q_minus_2() {
    for q in 1..=10 {
        let rule = triangle_rule(q);
        let weights: f64 = rule.iter().map(|r| r.2).sum();
        assert!((weights - 0.5).abs() < 1e-14);
        assert!(rule.iter().all(|&(s, t, _)| s >= 0.0 && t >= 0.0 && s + t <= 1.0 + 1e-15));
        for total in 0..=2 * q - 2 {
            for a in 0..=total {
                let b = total - a;
                let got: f64 = rule.iter().map(|&(s, t, w)| w * s.powi(a as i32) * t.powi(b as i32)).sum();
                // ∫_T s^a t^b = a! b! / (a + b + 2)!.
                let want = factorial(a) * factorial(b) / factorial(a + b + 2);
                assert!((got - want).abs() < 1e-14, "q = {q}: ∫ s^{a} t^{b} = {got}, want {want}");
            }
        }
    }
}

/// The rules chosen by degree: exact on every monomial of their degree (and the symmetric ones
/// inside the triangle with positive weights), with the promised point counts.
#[test]
fn triangle_rule_of_degree_is_exact_to_its_degree() {
    for degree in 0..=14 {
        let rule = triangle_rule_of_degree(degree);
        let weights: f64 = rule.iter().map(|r| r.2).sum();
        assert!((weights - 0.5).abs() < 1e-14, "degree {degree}");
        assert!(rule.iter().all(|&(s, t, w)| s >= 0.0 && t >= 0.0 && s + t <= 1.0 + 1e-15 && w > 0.0));
        for total in 0..=degree {
            for a in 0..=total {
                let b = total - a;
                let got: f64 = rule.iter().map(|&(s, t, w)| w * s.powi(a as i32) * t.powi(b as i32)).sum();
                let want = factorial(a) * factorial(b) / factorial(a + b + 2);
                assert!((got - want).abs() < 1e-15, "degree {degree}: ∫ s^{a} t^{b} = {got}, want {want}");
            }
        }
    }
    let counts: Vec<usize> = (0..=6).map(|d| triangle_rule_of_degree(d).len()).collect();
    assert_eq!(counts, [1, 1, 3, 6, 6, 7, 16]);
}
