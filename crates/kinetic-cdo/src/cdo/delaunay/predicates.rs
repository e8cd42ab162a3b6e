//! Exact predicates of the regular (weighted Delaunay) triangulation in the plane.
//!
//! Both answer with a sign that is exact for any finite `f64` input: a floating-point
//! evaluation with a forward error bound decides when it can, and exact rational arithmetic
//! (every `f64` is a dyadic rational) decides the rest.

use num_bigint::BigInt;
use std::cmp::Ordering;

/// A weighted point: centre and radius (weight `r²`, power distance `|x − p|² − r²`).
pub(crate) type Site = ([f64; 2], f64);

/// A weighted point of the periodic plane: the centre `base + periods ⊙ period` (whole periods
/// of the box added to a particle's centre) and a radius. The predicates below evaluate
/// differences of such centres from the parts, exactly where it matters, so that the same
/// configuration gets the same answer in every periodic image (translating the rounded sum
/// `base + periods ⊙ period` instead would round differently from image to image).
/// Without periodic sides the periods are 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Image {
    pub(crate) base: [f64; 2],
    pub(crate) radius: f64,
    pub(crate) periods: [i32; 2],
}

#[cfg(test)]
impl Image {
    /// A site without periods.
    pub(crate) fn plain((base, radius): Site) -> Self {
        Self { base, radius, periods: [0; 2] }
    }
}

/// The absolute rounding error of a result below the normal range is at most half the smallest
/// subnormal; the filters bound it by the smallest *normal* `f64` instead, a safe
/// over-estimate that keeps their own arithmetic out of the subnormal range (where every
/// operation takes a slow microcode path: measured, it doubled a triangulation's build).
const TINY: f64 = f64::MIN_POSITIVE;

/// The larger of two magnitudes, by a bare comparison (`f64::max` also orders NaN, which the
/// filters need not: a NaN bound fails both comparisons and defers to exact arithmetic).
#[inline]
fn larger(a: f64, b: f64) -> f64 {
    if a > b { a } else { b }
}

/// `p − origin` per axis, with a magnitude `m ≥ |p − origin|` that bounds its rounding error
/// by `3 ε m`: the difference of the bases and the whole periods are each rounded once
/// (relative to themselves), their sum once more.
#[inline]
fn relative(p: &Image, origin: &Image, period: [f64; 2]) -> [(f64, f64); 2] {
    std::array::from_fn(|a| {
        let u = p.base[a] - origin.base[a];
        let v = f64::from(p.periods[a] - origin.periods[a]) * period[a];
        (u + v, u.abs() + v.abs())
    })
}

/// Exact sign of the orientation of `(a, b, c)`: `Greater` when counter-clockwise.
#[cfg(test)]
pub(crate) fn orient(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> Ordering {
    let plain = |p: [f64; 2]| Image::plain((p, 0.0));
    orient_images(&plain(a), &plain(b), &plain(c), [0.0; 2])
}

/// The exact sign of the orientation of three images in a box of side lengths `period`:
/// `Greater` when counter-clockwise (radii ignored).
pub(crate) fn orient_images(a: &Image, b: &Image, c: &Image, period: [f64; 2]) -> Ordering {
    let [(bx, mbx), (by, mby)] = relative(b, a, period);
    let [(cx, mcx), (cy, mcy)] = relative(c, a, period);
    let det = bx * cy - by * cx;
    // Entries off by at most 3 ε of their magnitudes; the products and the difference add a
    // few ε more: 16 ε of the magnitudes' permanent covers it all. Where a product or a
    // multiple of a period falls below the normal range, its error is absolute instead (up to
    // half the smallest subnormal, bounded by `TINY`), carried through the other factor: the
    // second term.
    let largest = larger(larger(mbx, mby), larger(mcx, mcy));
    let bound = 16.0 * f64::EPSILON * (mbx * mcy + mby * mcx) + 8.0 * TINY * (1.0 + largest);
    if det > bound {
        Ordering::Greater
    } else if det < -bound {
        Ordering::Less
    } else {
        Exact::new(&[a, b, c], period).orient()
    }
}

/// [`power_test_images`] of four sites without periods.
#[cfg(test)]
pub(crate) fn power_test(a: Site, b: Site, c: Site, d: Site) -> Ordering {
    power_test_images(&Image::plain(a), &Image::plain(b), &Image::plain(c), &Image::plain(d), [0.0; 2])
}

/// The power test of four images in a box of side lengths `period`: for counter-clockwise
/// `(a, b, c)`, `Greater` when `d` lies strictly inside their orthogonal ("power") circle,
/// i.e. the edge opposite `d` in the quadrilateral is not regular and must be flipped; `Less`
/// outside; `Equal` on it. It is the sign of
///
/// ```text
/// | a_x − d_x   a_y − d_y   |a − d|² − r_a² + r_d² |
/// | b_x − d_x   b_y − d_y   |b − d|² − r_b² + r_d² |
/// | c_x − d_x   c_y − d_y   |c − d|² − r_c² + r_d² |
/// ```
///
/// (the paper's Eq. 1 after subtracting `d`'s row; equal radii give the in-circle test).
pub(crate) fn power_test_images(a: &Image, b: &Image, c: &Image, d: &Image, period: [f64; 2]) -> Ordering {
    // Each entry with a magnitude bounding it and its error (see `relative`).
    let row = |p: &Image| {
        let [(x, mx), (y, my)] = relative(p, d, period);
        let (rp, rd) = (p.radius * p.radius, d.radius * d.radius);
        (x, y, x * x + y * y - rp + rd, mx, my, mx * mx + my * my + rp + rd)
    };
    let (ax, ay, aw, max, may, maw) = row(a);
    let (bx, by, bw, mbx, mby, mbw) = row(b);
    let (cx, cy, cw, mcx, mcy, mcw) = row(c);
    let det = ax * (by * cw - bw * cy) - ay * (bx * cw - bw * cx) + aw * (bx * cy - by * cx);
    // Forward error bound: the coordinates are off by at most 3 ε of their magnitudes, the
    // weights by about 10 ε of theirs, each product of three entries by the sum of its factors'
    // relative errors plus a few roundings; 128 ε times the permanent of the magnitudes covers
    // them all with room to spare.
    let permanent =
        max * (mby * mcw + mbw * mcy) + may * (mbx * mcw + mbw * mcx) + maw * (mbx * mcy + mby * mcx);
    // Below the normal range the errors are absolute (see `orient_images`), carried through up
    // to three other factors.
    let reach = 1.0
        + larger(
            larger(larger(max, may), larger(maw, mbx)),
            larger(larger(mby, mbw), larger(mcx, larger(mcy, mcw))),
        );
    let bound = 128.0 * f64::EPSILON * permanent + 256.0 * TINY * (reach * reach * reach);
    if det > bound {
        Ordering::Greater
    } else if det < -bound {
        Ordering::Less
    } else {
        Exact::new(&[a, b, c, d], period).power_test()
    }
}

/// The power test of four images (`ids` the particles they are images of) under a symbolic
/// perturbation of the weights that breaks exact ties: particle `i`'s squared radius grows by
/// `εⁱ⁺¹` for an infinitesimal `ε`. The perturbation is the same in every periodic image, so a
/// co-circular quadrilateral (a lattice) gets the same diagonal in all of them, and the regular
/// triangulation of the perturbed weights is unique.
///
/// The determinant is linear in each lifted height `z = |p|² − r²`, with partial derivatives
/// `orient(d, b, c)`, `orient(d, c, a)`, `orient(d, a, b)` for `a`, `b`, `c` and
/// `−orient(a, b, c)` for `d`; lowering the height of the smallest id whose partial is not
/// zero decides the sign. Two images of one particle in the quadrilateral (a box a few
/// particles wide) are left tied.
pub(crate) fn power_test_perturbed(sites: [&Image; 4], ids: [u32; 4], period: [f64; 2]) -> Ordering {
    let [a, b, c, d] = sites;
    let sign = power_test_images(a, b, c, d, period);
    if sign != Ordering::Equal {
        return sign;
    }
    let mut order = [0, 1, 2, 3];
    order.sort_unstable_by_key(|&k| ids[k]);
    if order.windows(2).any(|w| ids[w[0]] == ids[w[1]]) {
        return Ordering::Equal;
    }
    for k in order {
        let partial = match k {
            0 => orient_images(d, b, c, period),
            1 => orient_images(d, c, a, period),
            2 => orient_images(d, a, b, period),
            _ => orient_images(a, b, c, period).reverse(),
        };
        // The height drops by εⁱ⁺¹: the determinant changes by −partial · εⁱ⁺¹.
        if partial != Ordering::Equal {
            return partial.reverse();
        }
    }
    Ordering::Equal
}

/// `x = m · 2^e` exactly, with `m` an integer.
fn split(x: f64) -> (i64, i32) {
    let bits = x.to_bits();
    let sign = if bits >> 63 == 1 { -1 } else { 1 };
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let fraction = (bits & ((1 << 52) - 1)) as i64;
    if exponent == 0 { (sign * fraction, -1074) } else { (sign * (fraction | (1 << 52)), exponent - 1075) }
}

/// Images in exact integer arithmetic: every input (coordinates, radii, side lengths) is
/// `m · 2^e`; scaled by the smallest exponent they all become integers. Every term of a
/// predicate has the same degree in the inputs (2 for the orientation, 4 for the power test),
/// so the common factor does not change its sign.
struct Exact {
    /// Per image: the centre's coordinates (periods included) and the radius, scaled.
    sites: Vec<([BigInt; 2], BigInt)>,
}

impl Exact {
    fn new(images: &[&Image], period: [f64; 2]) -> Self {
        let mut inputs: Vec<f64> = period.to_vec();
        for p in images {
            inputs.extend([p.base[0], p.base[1], p.radius]);
        }
        let parts: Vec<(i64, i32)> = inputs.iter().map(|&x| split(x)).collect();
        let base = parts.iter().filter(|p| p.0 != 0).map(|p| p.1).min().unwrap_or(0);
        let int = |k: usize| BigInt::from(parts[k].0) << (parts[k].1 - base) as usize;
        let lengths = [int(0), int(1)];
        let sites = images
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let k = 2 + 3 * i;
                let centre = [0, 1].map(|a| int(k + a) + &lengths[a] * BigInt::from(p.periods[a]));
                (centre, int(k + 2))
            })
            .collect();
        Self { sites }
    }

    /// The orientation of the three images.
    fn orient(&self) -> Ordering {
        let [a, b, c] = [0, 1, 2].map(|k| &self.sites[k].0);
        let det = (&b[0] - &a[0]) * (&c[1] - &a[1]) - (&b[1] - &a[1]) * (&c[0] - &a[0]);
        sign(&det)
    }

    /// The power test of the four images.
    fn power_test(&self) -> Ordering {
        let (d, rd) = &self.sites[3];
        let row = |k: usize| {
            let (p, r) = &self.sites[k];
            let x = &p[0] - &d[0];
            let y = &p[1] - &d[1];
            let w = &x * &x + &y * &y - r * r + rd * rd;
            (x, y, w)
        };
        let (ax, ay, aw) = row(0);
        let (bx, by, bw) = row(1);
        let (cx, cy, cw) = row(2);
        let det =
            &ax * (&by * &cw - &bw * &cy) - &ay * (&bx * &cw - &bw * &cx) + &aw * (&bx * &cy - &by * &cx);
        sign(&det)
    }
}

fn sign(x: &BigInt) -> Ordering {
    match x.sign() {
        num_bigint::Sign::Minus => Ordering::Less,
        num_bigint::Sign::NoSign => Ordering::Equal,
        num_bigint::Sign::Plus => Ordering::Greater,
    }
}

/// The exact power test of four sites (for tests against the filtered one).
#[cfg(test)]
fn exact_power_test(a: Site, b: Site, c: Site, d: Site) -> Ordering {
    let [a, b, c, d] = [a, b, c, d].map(Image::plain);
    Exact::new(&[&a, &b, &c, &d], [0.0; 2]).power_test()
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

    /// A near-degenerate configuration gives the same answers in every periodic image, though
    /// the images' centres, summed in `f64`, are not exact translates; and the filtered answer
    /// agrees with exact arithmetic.
    #[test]
    fn images_agree_in_every_period() {
        let period = [7.3, 5.1];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..3000 {
            // Three random sites and a fourth on (or within rounding of) their circle.
            let mut site = |periods: [i32; 2]| Image {
                base: [next() * period[0], next() * period[1]],
                radius: 0.0,
                periods,
            };
            let (a, b, c) = (site([0, 0]), site([1, 0]), site([0, 1]));
            let centre_of = |p: &Image| [0, 1].map(|x| p.base[x] + f64::from(p.periods[x]) * period[x]);
            let (pa, pb, pc) = (centre_of(&a), centre_of(&b), centre_of(&c));
            // The circumcentre of a, b, c, and a point on the circle.
            let (bx, by, cx, cy) = (pb[0] - pa[0], pb[1] - pa[1], pc[0] - pa[0], pc[1] - pa[1]);
            let det = 2.0 * (bx * cy - by * cx);
            let ux = (cy * (bx * bx + by * by) - by * (cx * cx + cy * cy)) / det;
            let uy = (bx * (cx * cx + cy * cy) - cx * (bx * bx + by * by)) / det;
            let r = (ux * ux + uy * uy).sqrt();
            let angle = next() * std::f64::consts::TAU;
            let d = Image {
                base: [pa[0] + ux + r * angle.cos() - period[0], pa[1] + uy + r * angle.sin()],
                radius: 0.0,
                periods: [1, 0],
            };
            let (a, b, c) =
                if orient_images(&a, &b, &c, period) == Ordering::Greater { (a, b, c) } else { (a, c, b) };
            let answer = power_test_images(&a, &b, &c, &d, period);
            assert_eq!(answer, Exact::new(&[&a, &b, &c, &d], period).power_test());
            let turn = orient_images(&a, &b, &d, period);
            assert_eq!(turn, Exact::new(&[&a, &b, &d], period).orient());
            for shift in [[1, 0], [-3, 2], [40, -17], [-1000, 999]] {
                let moved =
                    |p: &Image| Image { periods: [p.periods[0] + shift[0], p.periods[1] + shift[1]], ..*p };
                let [a2, b2, c2, d2] = [&a, &b, &c, &d].map(moved);
                assert_eq!(power_test_images(&a2, &b2, &c2, &d2, period), answer);
                assert_eq!(orient_images(&a2, &b2, &d2, period), turn);
            }
        }
    }

    /// Inputs so small that products fall below the normal range, where rounding errors are
    /// absolute: the filters must defer to exact arithmetic (found by an independent review:
    /// without the absolute terms both answered `Less`).
    #[test]
    // The reproducer's values, exactly as printed.
    #[allow(clippy::unreadable_literal)]
    fn the_filters_account_for_underflow() {
        let image = |base: [f64; 2], radius: f64, periods: [i32; 2]| Image { base, radius, periods };
        let a = image([-8.548782080211103e-157, 9.282294537782099e-157], 0.0, [2, -3]);
        let b = image([-3.18131165194185e-157, 6.61306157595119e-157], 0.0, [-3, -1]);
        let c = image([-6.289923825150868e-156, -6.977884624902217e-156], 1.4226407679266713e-157, [3, 3]);
        let period = [9.665231780778865e-157, 1.9462257434408558e-156];
        assert_eq!(Exact::new(&[&a, &b, &c], period).orient(), Ordering::Greater);
        assert_eq!(orient_images(&a, &b, &c, period), Ordering::Greater);
        let a = image([-1.9101463207165307e-80, -5.786068395176557e-81], 0.0, [-3, 2]);
        let b = image([-1.3484110902290548e-79, 8.481462870162135e-80], 0.0, [0, 2]);
        let c = image([1.3110345381873436e-80, 1.3266304820869265e-79], 0.0, [-3, 1]);
        let d = image([-1.7414609687949457e-79, -8.531565329571224e-80], 0.0, [-2, 3]);
        let period = [2.0543119226767405e-80, 2.4955127655600832e-79];
        assert_eq!(Exact::new(&[&a, &b, &c, &d], period).power_test(), Ordering::Greater);
        assert_eq!(power_test_images(&a, &b, &c, &d, period), Ordering::Greater);
    }

    /// The perturbed power test equals the exact test with the smallest id's weight actually
    /// raised (radius 2⁻⁵⁰ from 0, so r² = 2⁻¹⁰⁰ exactly), on co-circular squares, in any
    /// image and id order; it never ties on distinct ids in convex position.
    #[test]
    fn the_perturbation_is_a_small_weight_on_the_smallest_id() {
        let period = [4.0, 4.0];
        let corners = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        let orders = [[0, 1, 2, 3], [3, 2, 1, 0], [2, 0, 3, 1], [1, 3, 0, 2]];
        for start in 0..4 {
            // (a, b, c) counter-clockwise, d the fourth corner: co-circular.
            let at = |k: usize| corners[(start + k) % 4];
            for ids in orders {
                for periods in [[0, 0], [1, -1], [-2, 3]] {
                    let image = |k: usize, radius: f64| Image { base: at(k), radius, periods };
                    let sites = [image(0, 0.0), image(1, 0.0), image(2, 0.0), image(3, 0.0)];
                    assert_eq!(
                        power_test_images(&sites[0], &sites[1], &sites[2], &sites[3], period),
                        Ordering::Equal
                    );
                    let perturbed =
                        power_test_perturbed([&sites[0], &sites[1], &sites[2], &sites[3]], ids, period);
                    assert_ne!(perturbed, Ordering::Equal);
                    let smallest = (0..4).min_by_key(|&k| ids[k]).unwrap();
                    let mut raised = sites;
                    raised[smallest].radius = 2f64.powi(-50);
                    let exact =
                        Exact::new(&[&raised[0], &raised[1], &raised[2], &raised[3]], period).power_test();
                    assert_eq!(perturbed, exact, "start {start}, ids {ids:?}");
                }
            }
        }
    }
}
