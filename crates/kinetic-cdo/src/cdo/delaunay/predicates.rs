//! Exact predicates of the regular (weighted Delaunay) triangulation in the plane.
//!
//! Both answer with a sign that is exact for any finite `f64` input: a floating-point
//! evaluation with a forward error bound decides when it can, and exact rational arithmetic
//! (every `f64` is a dyadic rational) decides the rest.

use num_rational::BigRational;
use num_traits::{Signed, Zero};
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

fn exact(x: f64) -> BigRational {
    BigRational::from_float(x).expect("finite coordinates")
}

/// The power test in exact rational arithmetic.
fn exact_power_test(a: Site, b: Site, c: Site, d: Site) -> Ordering {
    let (dx, dy, dr) = (exact(d.0[0]), exact(d.0[1]), exact(d.1));
    let row = |p: Site| {
        let x = exact(p.0[0]) - &dx;
        let y = exact(p.0[1]) - &dy;
        let r = exact(p.1);
        let w = &x * &x + &y * &y - &r * &r + &dr * &dr;
        (x, y, w)
    };
    let (ax, ay, aw) = row(a);
    let (bx, by, bw) = row(b);
    let (cx, cy, cw) = row(c);
    let det = &ax * (&by * &cw - &bw * &cy) - &ay * (&bx * &cw - &bw * &cx) + &aw * (&bx * &cy - &by * &cx);
    if det.is_zero() {
        Ordering::Equal
    } else if det.is_positive() {
        Ordering::Greater
    } else {
        Ordering::Less
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
}
