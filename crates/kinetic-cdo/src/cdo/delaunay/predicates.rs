//! Exact predicates of the regular (weighted Delaunay) triangulation in the plane.
//!
//! Both answer with a sign that is exact for any finite `f64` input: a floating-point
//! evaluation with a forward error bound decides when it can, and exact rational arithmetic
//! (every `f64` is a dyadic rational) decides the rest.

use num_bigint::BigInt;
use std::cmp::Ordering;

/// A weighted point: centre and radius (weight `r²`, power distance `|x − p|² − r²`).
pub(crate) type Site = ([f64; 2], f64);

/// Exact sign of the orientation of `(a, b, c)`: `Greater` when counter-clockwise.
pub(crate) fn orient(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> Ordering {
    let coord = |p: [f64; 2]| robust::Coord { x: p[0], y: p[1] };
    robust::orient2d(coord(a), coord(b), coord(c)).partial_cmp(&0.0).unwrap_or(Ordering::Equal)
}

/// The power test: for counter-clockwise `(a, b, c)`, `Greater` when `d` lies strictly inside
/// their orthogonal ("power") circle, i.e. the edge opposite `d` in the quadrilateral is not
/// regular and must be flipped; `Less` outside; `Equal` on it. It is the sign of
///
/// ```text
/// | a_x − d_x   a_y − d_y   |a − d|² − r_a² + r_d² |
/// | b_x − d_x   b_y − d_y   |b − d|² − r_b² + r_d² |
/// | c_x − d_x   c_y − d_y   |c − d|² − r_c² + r_d² |
/// ```
///
/// (the paper's Eq. 1 after subtracting `d`'s row; equal radii give the in-circle test).
pub(crate) fn power_test(a: Site, b: Site, c: Site, d: Site) -> Ordering {
    let row = |p: Site| {
        let x = p.0[0] - d.0[0];
        let y = p.0[1] - d.0[1];
        let w = x * x + y * y - p.1 * p.1 + d.1 * d.1;
        (x, y, w)
    };
    let (ax, ay, aw) = row(a);
    let (bx, by, bw) = row(b);
    let (cx, cy, cw) = row(c);
    let m1 = by * cw - bw * cy;
    let m2 = bx * cw - bw * cx;
    let m3 = bx * cy - by * cx;
    let det = ax * m1 - ay * m2 + aw * m3;
    // Forward error bound: the rows carry relative errors of a few ulps (the subtractions
    // and the weight), the 3×3 expansion a few more; 64 ε times the permanent covers them all.
    let permanent = ax.abs() * (by.abs() * cw.abs() + bw.abs() * cy.abs())
        + ay.abs() * (bx.abs() * cw.abs() + bw.abs() * cx.abs())
        + aw.abs() * (bx.abs() * cy.abs() + by.abs() * cx.abs());
    let bound = 64.0 * f64::EPSILON * permanent;
    if det > bound {
        return Ordering::Greater;
    }
    if det < -bound {
        return Ordering::Less;
    }
    exact_power_test(a, b, c, d)
}

/// `x = m · 2^e` exactly, with `m` an integer.
fn split(x: f64) -> (i64, i32) {
    let bits = x.to_bits();
    let sign = if bits >> 63 == 1 { -1 } else { 1 };
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let fraction = (bits & ((1 << 52) - 1)) as i64;
    if exponent == 0 { (sign * fraction, -1074) } else { (sign * (fraction | (1 << 52)), exponent - 1075) }
}

/// The power test in exact integer arithmetic: every input is `m · 2^e`; scaled by the
/// smallest exponent they all become integers, and every term of the determinant has degree 4
/// in the inputs, so the common factor does not change its sign.
fn exact_power_test(a: Site, b: Site, c: Site, d: Site) -> Ordering {
    let inputs = [a.0[0], a.0[1], a.1, b.0[0], b.0[1], b.1, c.0[0], c.0[1], c.1, d.0[0], d.0[1], d.1];
    let parts = inputs.map(split);
    let base = parts.iter().filter(|p| p.0 != 0).map(|p| p.1).min().unwrap_or(0);
    let int = |k: usize| BigInt::from(parts[k].0) << (parts[k].1 - base) as usize;
    let (dx, dy, dr) = (int(9), int(10), int(11));
    let row = |k: usize| {
        let x = int(k) - &dx;
        let y = int(k + 1) - &dy;
        let r = int(k + 2);
        let w = &x * &x + &y * &y - &r * &r + &dr * &dr;
        (x, y, w)
    };
    let (ax, ay, aw) = row(0);
    let (bx, by, bw) = row(3);
    let (cx, cy, cw) = row(6);
    let det = &ax * (&by * &cw - &bw * &cy) - &ay * (&bx * &cw - &bw * &cx) + &aw * (&bx * &cy - &by * &cx);
    match det.sign() {
        num_bigint::Sign::Minus => Ordering::Less,
        num_bigint::Sign::NoSign => Ordering::Equal,
        num_bigint::Sign::Plus => Ordering::Greater,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_radii_give_the_in_circle_test() {
        let (a, b, c) = (([0.0, 0.0], 0.3), ([1.0, 0.0], 0.3), ([0.0, 1.0], 0.3));
        assert_eq!(power_test(a, b, c, ([0.5, 0.5], 0.3)), Ordering::Greater);
        assert_eq!(power_test(a, b, c, ([2.0, 2.0], 0.3)), Ordering::Less);
        // (1, 1) is on the circle through the other three: exactly degenerate.
        assert_eq!(power_test(a, b, c, ([1.0, 1.0], 0.3)), Ordering::Equal);
    }

    #[test]
    fn weights_move_the_lifted_points() {
        // d on the circle through a, b, c with zero weights. A radius lowers its site's lifted
        // point |p|² − r². Lowering d puts it below the plane of a, b, c: inside. Lowering a
        // tilts that plane up beyond bc, where d is: inside. Lowering b tilts it down on b's
        // side of ac, where d also is: outside.
        let (a, b, c) = (([0.0, 0.0], 0.0), ([1.0, 0.0], 0.0), ([0.0, 1.0], 0.0));
        let d = ([1.0, 1.0], 0.0);
        assert_eq!(power_test(a, b, c, ([1.0, 1.0], 0.1)), Ordering::Greater);
        assert_eq!(power_test(([0.0, 0.0], 0.1), b, c, d), Ordering::Greater);
        assert_eq!(power_test(a, ([1.0, 0.0], 0.1), c, d), Ordering::Less);
    }

    #[test]
    fn the_filter_defers_near_degenerate_cases_to_exact_arithmetic() {
        let (a, b, c) = (([0.0, 0.0], 0.0), ([1.0, 0.0], 0.0), ([0.0, 1.0], 0.0));
        let d = ([1.0, 1.0 + 1e-15], 0.0);
        assert_eq!(power_test(a, b, c, d), Ordering::Less);
        let d = ([1.0, 1.0 - 1e-15], 0.0);
        assert_eq!(power_test(a, b, c, d), Ordering::Greater);
        assert_eq!(orient([0.0, 0.0], [1.0, 0.0], [0.5, 1e-300]), Ordering::Greater);
    }

    #[test]
    fn exact_and_filtered_agree_where_the_filter_is_sure() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64 * 10.0 - 5.0
        };
        for _ in 0..2000 {
            let mut site = || ([next(), next()], next().abs() * 0.1);
            let (a, b, c, d) = (site(), site(), site(), site());
            let filtered = power_test(a, b, c, d);
            assert_eq!(exact_power_test(a, b, c, d), filtered);
        }
        // Wide exponent ranges: four corners of a square (co-circular), where a tiny radius at
        // a lowers its lifted point and puts the opposite corner inside; without it, on.
        let (a, b, c) = (([0.0, 0.0], 1e-300), ([1e200, 0.0], 0.0), ([0.0, 1e200], 0.0));
        assert_eq!(exact_power_test(a, b, c, ([1e200, 1e200], 0.0)), Ordering::Greater);
        let a = ([0.0, 0.0], 0.0);
        assert_eq!(exact_power_test(a, b, c, ([1e200, 1e200], 0.0)), Ordering::Equal);
        assert_eq!(split(-3.0), (-3 << 51, -51));
        assert_eq!(split(5e-324), (1, -1074));
    }
}
