//! Oracle tests for the primitives: `Aabb`, `Ray`, `Segment`, `Sphere`, `Ellipsoid`, `Plane`,
//! `Triangle`.
//!
//! Expected values come from closed forms, from per-axis brute force (lattice enumeration,
//! sampling along rays), from exact rational arithmetic on small dyadic inputs, and from an
//! independent parameterisation of the ellipsoid surface, never from the function under test.

mod common;

use geometry_core::{Aabb, DQuat, DVec3, Ellipsoid, GeometryError, Plane, Ray, Segment, Sphere, Triangle};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};
use proptest::prelude::*;

/// Proptest settings: `cases` cases, no regression files (shrunk failures are printed instead).
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(cases) }
}

// ---------------------------------------------------------------------------------------------
// Strategies and helpers
// ---------------------------------------------------------------------------------------------

fn coord() -> impl Strategy<Value = f64> + Clone {
    prop_oneof![3 => -100.0..100.0f64, 1 => (-5i32..=5).prop_map(f64::from)]
}

fn vec3(s: impl Strategy<Value = f64> + Clone) -> impl Strategy<Value = DVec3> + Clone {
    (s.clone(), s.clone(), s).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

/// A valid box, sometimes flat on an axis.
fn aabb() -> impl Strategy<Value = Aabb> {
    (vec3(coord()), vec3(coord()), 0u8..8).prop_map(|(p, q, flat)| {
        let (mut min, mut max) = (p.min(q), p.max(q));
        for axis in 0..3 {
            if flat & (1 << axis) != 0 && flat != 7 {
                max[axis] = min[axis];
            }
        }
        min = min.min(max);
        Aabb::new(min, max).unwrap()
    })
}

fn small_int_aabb() -> impl Strategy<Value = Aabb> {
    let v = || vec3((0i32..=6).prop_map(f64::from));
    (v(), v()).prop_map(|(p, q)| Aabb::new(p.min(q), p.max(q)).unwrap())
}

use common::unit_quat;

fn unit_vector() -> impl Strategy<Value = DVec3> {
    vec3(-1.0..1.0f64).prop_filter("not too short", |v| v.length() > 0.1).prop_map(DVec3::normalize)
}

/// Rotates `v` by the unit quaternion `q` with the textbook formula
/// `v + 2w (u × v) + 2 u × (u × v)`, `u = (x, y, z)`.
fn rotate(q: DQuat, v: DVec3) -> DVec3 {
    let u = DVec3::new(q.x, q.y, q.z);
    let t = 2.0 * u.cross(v);
    v + q.w * t + u.cross(t)
}

fn conj(q: DQuat) -> DQuat {
    DQuat::from_xyzw(-q.x, -q.y, -q.z, q.w)
}

fn inside_tol(b: &Aabb, p: DVec3, tol: f64) -> bool {
    (0..3).all(|i| b.min[i] - tol <= p[i] && p[i] <= b.max[i] + tol)
}

fn strictly_inside_tol(b: &Aabb, p: DVec3, tol: f64) -> bool {
    (0..3).all(|i| b.min[i] + tol < p[i] && p[i] < b.max[i] - tol)
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

// ---------------------------------------------------------------------------------------------
// Aabb
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn aabb_merge_is_the_tight_union(a in aabb(), b in aabb()) {
        let m = a.merge(&b);
        for i in 0..3 {
            prop_assert!(m.min[i] <= a.min[i] && m.min[i] <= b.min[i]);
            prop_assert!(m.max[i] >= a.max[i] && m.max[i] >= b.max[i]);
            // Tight: each face of the merge is a face of one of the inputs.
            prop_assert_eq!(m.min[i], if a.min[i] < b.min[i] { a.min[i] } else { b.min[i] });
            prop_assert_eq!(m.max[i], if a.max[i] > b.max[i] { a.max[i] } else { b.max[i] });
        }
        prop_assert!(m.contains_aabb(&a) && m.contains_aabb(&b));
        prop_assert_eq!(m, b.merge(&a));
    }

    #[test]
    fn aabb_overlaps_is_symmetric_interval_test(a in aabb(), b in aabb()) {
        let intervals = (0..3).all(|i| a.min[i] <= b.max[i] && b.min[i] <= a.max[i]);
        prop_assert_eq!(a.overlaps(&b), intervals);
        prop_assert_eq!(b.overlaps(&a), intervals);
        prop_assert!(a.overlaps(&a));
    }

    #[test]
    fn aabb_overlaps_vs_lattice_enumeration(a in small_int_aabb(), b in small_int_aabb()) {
        // Two closed boxes with integer corners overlap iff their intersection, itself a box with
        // integer corners, contains an integer point: enumerate them all.
        let in_box = |bx: &Aabb, p: DVec3| (0..3).all(|i| bx.min[i] <= p[i] && p[i] <= bx.max[i]);
        let mut shared = false;
        for x in 0..=6 {
            for y in 0..=6 {
                for z in 0..=6 {
                    let p = DVec3::new(f64::from(x), f64::from(y), f64::from(z));
                    shared |= in_box(&a, p) && in_box(&b, p);
                }
            }
        }
        prop_assert_eq!(a.overlaps(&b), shared);
        prop_assert_eq!(b.overlaps(&a), shared);
        // contains_aabb: every lattice point of b (there is at least one corner) lies in a.
        let corners_in = [b.min, b.max].iter().all(|&c| in_box(&a, c));
        prop_assert_eq!(a.contains_aabb(&b), corners_in);
    }

    #[test]
    fn aabb_contains_point_per_axis(b in aabb(), choice in [0u8..5, 0u8..5, 0u8..5], t in vec3(0.0..1.0f64)) {
        // Per axis: 0 = on the min face, 1 = on the max face, 2 = in between,
        // 3 = one ulp below min, 4 = one ulp above max.
        let mut p = DVec3::ZERO;
        for i in 0..3 {
            p[i] = match choice[i] {
                0 => b.min[i],
                1 => b.max[i],
                2 => (b.min[i] + t[i] * (b.max[i] - b.min[i])).clamp(b.min[i], b.max[i]),
                3 => b.min[i].next_down(),
                _ => b.max[i].next_up(),
            };
        }
        let expected = choice.iter().all(|&c| c <= 2);
        prop_assert_eq!(b.contains_point(p), expected, "{:?} {:?}", b, p);
    }

    #[test]
    fn aabb_contains_random_point(b in aabb(), p in vec3(coord())) {
        let expected = (0..3).all(|i| b.min[i] <= p[i] && p[i] <= b.max[i]);
        prop_assert_eq!(b.contains_point(p), expected);
    }

    #[test]
    fn aabb_from_points_is_tight(points in prop::collection::vec(vec3(coord()), 1..20)) {
        let b = Aabb::from_points(&points).unwrap();
        for p in &points {
            prop_assert!((0..3).all(|i| b.min[i] <= p[i] && p[i] <= b.max[i]));
        }
        for i in 0..3 {
            prop_assert!(points.iter().any(|p| p[i] == b.min[i]), "min face {} untouched", i);
            prop_assert!(points.iter().any(|p| p[i] == b.max[i]), "max face {} untouched", i);
        }
    }

    #[test]
    fn aabb_measures_closed_forms(b in aabb()) {
        let e = [b.max.x - b.min.x, b.max.y - b.min.y, b.max.z - b.min.z];
        prop_assert_eq!(b.extents(), DVec3::from(e));
        let longest = e[0].max(e[1]).max(e[2]);
        prop_assert_eq!(b.longest_edge(), longest);
        let first_longest = e.iter().position(|&x| x == longest).unwrap();
        prop_assert_eq!(b.longest_axis(), first_longest);
        prop_assert!(close(b.volume(), e[0] * e[1] * e[2], 1e-12 * (1.0 + e[0] * e[1] * e[2])));
        let area = 2.0 * (e[0] * e[1] + e[1] * e[2] + e[2] * e[0]);
        prop_assert!(close(b.surface_area(), area, 1e-12 * (1.0 + area)));
        let c = b.center();
        for i in 0..3 {
            prop_assert!(close(c[i], 0.5 * (b.min[i] + b.max[i]), 1e-13 * (1.0 + c[i].abs())));
            prop_assert!(b.min[i] <= c[i] && c[i] <= b.max[i]);
        }
    }

    #[test]
    fn aabb_integer_measures_are_exact(b in small_int_aabb()) {
        let e = b.max - b.min;
        prop_assert_eq!(b.volume(), e.x * e.y * e.z);
        prop_assert_eq!(b.surface_area(), 2.0 * (e.x * e.y + e.y * e.z + e.z * e.x));
        prop_assert_eq!(b.center() * 2.0, b.min + b.max);
    }

    #[test]
    fn aabb_expanded_and_corners(b in aabb(), margin in 0.0..10.0f64) {
        let g = b.expanded(margin).unwrap();
        prop_assert_eq!(g.min, b.min - DVec3::splat(margin));
        prop_assert_eq!(g.max, b.max + DVec3::splat(margin));
        prop_assert!(g.contains_aabb(&b));
        prop_assert_eq!(b.expanded(0.0).unwrap(), b);

        let corners = b.corners();
        for (i, c) in corners.iter().enumerate() {
            prop_assert_eq!(c.x, if i & 1 == 0 { b.min.x } else { b.max.x });
            prop_assert_eq!(c.y, if i & 2 == 0 { b.min.y } else { b.max.y });
            prop_assert_eq!(c.z, if i & 4 == 0 { b.min.z } else { b.max.z });
            prop_assert!(b.contains_point(*c));
        }
        prop_assert_eq!(Aabb::from_points(&corners).unwrap(), b);
    }

    #[test]
    fn aabb_shrinking_beyond_half_extent_inverts(b in aabb(), extra in 1e-6..10.0f64) {
        let half_min = 0.5 * (b.max - b.min).min_element();
        let err = b.expanded(-(half_min + extra)).unwrap_err();
        prop_assert!(matches!(err, GeometryError::InvertedBox { .. }), "{:?}", err);
    }

    #[test]
    fn aabb_include_point_and_center_half_extents(b in aabb(), p in vec3(coord()), h in vec3(0.0..50.0f64)) {
        let inc = b.include_point(p);
        prop_assert_eq!(inc.min, DVec3::new(b.min.x.min(p.x), b.min.y.min(p.y), b.min.z.min(p.z)));
        prop_assert_eq!(inc.max, DVec3::new(b.max.x.max(p.x), b.max.y.max(p.y), b.max.z.max(p.z)));
        prop_assert!(inc.contains_point(p) && inc.contains_aabb(&b));

        let c = b.min;
        let ch = Aabb::from_center_half_extents(c, h).unwrap();
        prop_assert_eq!(ch.min, c - h);
        prop_assert_eq!(ch.max, c + h);
    }
}

#[test]
fn aabb_touching_boxes_overlap_and_separated_do_not() {
    let unit = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
    // Face, edge and corner contact all count.
    for shift in [DVec3::X, DVec3::new(1.0, 1.0, 0.0), DVec3::ONE, -DVec3::ONE] {
        let other = Aabb::new(shift, shift + DVec3::ONE).unwrap();
        assert!(unit.overlaps(&other) && other.overlaps(&unit), "{shift:?}");
    }
    let gap = 1f64.next_up();
    let apart = Aabb::new(DVec3::new(gap, 0.0, 0.0), DVec3::new(2.0, 1.0, 1.0)).unwrap();
    assert!(!unit.overlaps(&apart) && !apart.overlaps(&unit));
    assert!(Aabb::from_points(&[]).is_err());
    // Ties in longest_axis go to the lowest index.
    assert_eq!(Aabb::new(DVec3::ZERO, DVec3::new(2.0, 2.0, 2.0)).unwrap().longest_axis(), 0);
    assert_eq!(Aabb::new(DVec3::ZERO, DVec3::new(1.0, 2.0, 2.0)).unwrap().longest_axis(), 1);
    assert_eq!(Aabb::new(DVec3::ZERO, DVec3::new(1.0, 1.0, 2.0)).unwrap().longest_axis(), 2);
}

// ---------------------------------------------------------------------------------------------
// Ray and Segment
// ---------------------------------------------------------------------------------------------

fn exact(x: f64) -> BigRational {
    assert!(x.is_finite());
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let fraction = bits & ((1u64 << 52) - 1);
    let (mantissa, exponent) =
        if biased == 0 { (fraction, -1074_i64) } else { (fraction | (1u64 << 52), biased - 1075) };
    let m = if bits >> 63 == 1 { -BigInt::from(mantissa) } else { BigInt::from(mantissa) };
    if exponent >= 0 {
        BigRational::from_integer(m << (exponent as usize))
    } else {
        BigRational::new(m, BigInt::one() << ((-exponent) as usize))
    }
}

/// The exact parameter interval `{ t in [t0, t1] : lo <= o + t d <= hi on every axis }`
/// (`t1 = None` is +infinity), in rational arithmetic.
fn exact_interval(
    o: DVec3,
    d: DVec3,
    b: &Aabb,
    t0: BigRational,
    t1: Option<BigRational>,
) -> Option<(BigRational, BigRational)> {
    exact_interval_along(o, &d.to_array().map(exact), b, t0, t1)
}

/// [`exact_interval`] along an exact direction (a segment's `b − a` without rounding).
fn exact_interval_along(
    o: DVec3,
    d: &[BigRational; 3],
    b: &Aabb,
    t0: BigRational,
    t1: Option<BigRational>,
) -> Option<(BigRational, BigRational)> {
    let (mut lo_t, mut hi_t) = (t0, t1);
    for i in 0..3 {
        let (o, d, lo, hi) = (exact(o[i]), d[i].clone(), exact(b.min[i]), exact(b.max[i]));
        if d.is_zero() {
            if o < lo || o > hi {
                return None;
            }
            continue;
        }
        let (ta, tb) = ((&lo - &o) / &d, (&hi - &o) / &d);
        let (ta, tb) = if ta <= tb { (ta, tb) } else { (tb, ta) };
        if ta > lo_t {
            lo_t = ta;
        }
        hi_t = Some(match hi_t {
            Some(h) if h <= tb => h,
            _ => tb,
        });
    }
    let hi_t = hi_t.expect("a non-zero direction bounds the interval");
    (lo_t <= hi_t).then_some((lo_t, hi_t))
}

/// Whether the exact rational `e` is within one ulp of the float `t`.
fn within_one_ulp(t: f64, e: &BigRational) -> bool {
    exact(t.next_down()) <= *e && *e <= exact(t.next_up())
}

fn dyadic(range: i32) -> impl Strategy<Value = f64> + Clone {
    (-range..=range).prop_map(|k| f64::from(k) / 4.0)
}

fn dyadic_aabb() -> impl Strategy<Value = Aabb> {
    (vec3(dyadic(12)), vec3(dyadic(12))).prop_map(|(p, q)| Aabb::new(p.min(q), p.max(q)).unwrap())
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn ray_slab_vs_exact_rationals(
        b in dyadic_aabb(),
        o in vec3(dyadic(20)),
        d in vec3(dyadic(8)).prop_filter("non-zero", |d| *d != DVec3::ZERO),
    ) {
        // Quotients of small dyadics are correctly rounded and distinct ones differ by far more
        // than an ulp, so the float slab test must agree exactly with the rational one.
        let ray = Ray::new(o, d).unwrap();
        let got = ray.intersect_aabb(&b);
        let expected = exact_interval(o, d, &b, BigRational::zero(), None);
        match (got, &expected) {
            (None, None) => {}
            (Some((t0, t1)), Some((e0, e1))) => {
                prop_assert!(within_one_ulp(t0, e0), "t_enter {} vs {}", t0, e0);
                prop_assert!(within_one_ulp(t1, e1), "t_exit {} vs {}", t1, e1);
                prop_assert!(0.0 <= t0 && t0 <= t1);
            }
            _ => prop_assert!(false, "ray {:?} box {:?}: got {:?}, exact {:?}", ray, b, got, expected),
        }
    }

    /// Planes a few subnormals from the origin against directions so long that the crossing
    /// parameters underflow: whether the box is ahead of the ray or behind it must still come
    /// out as in exact arithmetic (the quotient rounded to `-0.0` once made a box wholly
    /// behind the ray a hit at `t = 0`). `m = 0` puts the origin on the box's face: touching.
    #[test]
    fn ray_slab_vs_exact_rationals_when_crossings_underflow(
        m in 0u64..64,
        width in 1u64..1 << 20,
        box_ahead_on_positive_side in prop::bool::ANY,
        exponent in 0i32..1000,
        forwards in prop::bool::ANY,
    ) {
        let near = f64::from_bits(m);
        let far = near + f64::from_bits(1) * width as f64;
        let (lo, hi) = if box_ahead_on_positive_side { (near, far) } else { (-far, -near) };
        let b = Aabb::new(DVec3::new(lo, -1.0, -1.0), DVec3::new(hi, 1.0, 1.0)).unwrap();
        let d = DVec3::new(if forwards { 2f64.powi(exponent) } else { -(2f64.powi(exponent)) }, 0.0, 0.0);
        let ray = Ray::new(DVec3::ZERO, d).unwrap();
        let got = ray.intersect_aabb(&b);
        let expected = exact_interval(DVec3::ZERO, d, &b, BigRational::zero(), None);
        prop_assert_eq!(got.is_some(), expected.is_some(), "box {:?} direction {:?}: got {:?}", b, d, got);
        if let (Some((t0, t1)), Some((e0, e1))) = (got, &expected) {
            prop_assert!(within_one_ulp(t0, e0) && within_one_ulp(t1, e1), "{:?} vs {:?}", (t0, t1), (e0, e1));
        }
        // The segment over the same stretch decides alike.
        let end = d * 2f64.powi(-exponent);
        let segment = Segment::new(DVec3::ZERO, end).unwrap();
        let expected = exact_interval(DVec3::ZERO, end, &b, BigRational::zero(), Some(BigRational::one()));
        prop_assert_eq!(segment.intersects_aabb(&b), expected.is_some());
    }

    #[test]
    fn segment_slab_vs_exact_rationals(b in dyadic_aabb(), p in vec3(dyadic(20)), q in vec3(dyadic(20))) {
        let s = Segment::new(p, q).unwrap();
        let d = q - p;
        let expected = if d == DVec3::ZERO {
            (0..3).all(|i| b.min[i] <= p[i] && p[i] <= b.max[i])
        } else {
            exact_interval(p, d, &b, BigRational::zero(), Some(BigRational::one())).is_some()
        };
        prop_assert_eq!(s.intersects_aabb(&b), expected, "{:?} {:?}", s, b);
    }
}

/// `x` moved by `steps` ulps (up for positive steps).
fn ulps(mut x: f64, steps: i32) -> f64 {
    for _ in 0..steps.unsigned_abs() {
        x = if steps > 0 { x.next_up() } else { x.next_down() };
    }
    x
}

/// A box (random floats at a random scale and offset), a point on its surface (on a face, an
/// edge or a corner) moved by a few ulps per axis, and a start point outside at a random
/// distance.
fn grazing_scene() -> impl Strategy<Value = (Aabb, DVec3, DVec3)> {
    (
        vec3(-1.0..1.0f64),
        vec3(0.01..1.0f64),
        -60i32..60,
        vec3(-1e6..1e6f64),
        [0.0..1.0f64, 0.0..1.0, 0.0..1.0],
        [0usize..4, 0..4, 0..4],
        [-3i32..=3, -3..=3, -3..=3],
        vec3(-1.0..1.0f64),
        1.0..1e4f64,
    )
        .prop_map(|(min, ext, k, offset, f, kind, steps, away, distance)| {
            let scale = 2f64.powi(k);
            let lo = min * scale + offset;
            let hi = lo + ext * scale;
            let b = Aabb::new(lo, hi).unwrap();
            // Per axis: the low face, the high face, or inside (twice as likely).
            let target = DVec3::from_array(std::array::from_fn(|i| {
                let on = match kind[i] {
                    0 => lo[i],
                    1 => hi[i],
                    _ => lo[i] + f[i] * (hi[i] - lo[i]),
                };
                ulps(on, steps[i])
            }));
            let start = target + away * distance * scale;
            (b, target, start)
        })
}

proptest! {
    #![proptest_config(config(2048))]

    /// Segments ending within a few ulps of a face, edge or corner, and rays through such
    /// points, against exact rationals (along the segment's exact `b − a`): the answer must be
    /// exact, and a segment and its reverse must agree. (A segment ending an ulp before a box
    /// was reported hit while its reverse missed; found by an adversarial review.)
    #[test]
    fn grazing_slab_tests_vs_exact_rationals((b, target, start) in grazing_scene()) {
        let d = [0, 1, 2].map(|i| exact(target[i]) - exact(start[i]));
        let expected = exact_interval_along(start, &d, &b, BigRational::zero(), Some(BigRational::one())).is_some();
        prop_assert_eq!(Segment::new(start, target).unwrap().intersects_aabb(&b), expected, "{:?} -> {:?}, {:?}", start, target, b);
        prop_assert_eq!(Segment::new(target, start).unwrap().intersects_aabb(&b), expected, "reversed");
        if let Ok(ray) = Ray::new(start, target - start) {
            let expected = exact_interval(start, target - start, &b, BigRational::zero(), None);
            let got = ray.intersect_aabb(&b);
            prop_assert_eq!(got.is_some(), expected.is_some(), "ray {:?}, {:?}: {:?}", ray, b, got);
            if let Some((t0, t1)) = got {
                prop_assert!(0.0 <= t0 && t0 <= t1, "{:?}", (t0, t1));
                // Cut off within a few ulps of the rounded entry: exact too.
                for steps in -3..=3 {
                    let max_t = ulps(t0, steps).max(0.0);
                    let expected = exact_interval(start, target - start, &b, BigRational::zero(), Some(exact(max_t)));
                    let got = ray.intersect_aabb_up_to(&b, max_t);
                    prop_assert_eq!(got.is_some(), expected.is_some(), "ray {:?} up to {}, {:?}: {:?}", ray, max_t, b, got);
                    if let Some((u0, u1)) = got {
                        prop_assert!(0.0 <= u0 && u0 <= u1 && u1 <= max_t, "{:?} up to {}", (u0, u1), max_t);
                    }
                }
            }
        }
    }
}

/// The review's cases: a segment ending one ulp before a box (and a box starting at 1e-17
/// after a segment ending at 0) is no hit in either direction; rays whose slab offsets overflow
/// (x in the box only for t in [1, 2.5], y only for t in [2.6, 8]) or whose parameters
/// underflow (y enters at t = 1e-330, z leaves at t = 1e-610) miss.
#[test]
fn slab_tests_the_review_found_wrong() {
    let b = Aabb::new(DVec3::new(1.0, 0.0, 0.0), DVec3::new(2.0, 1.0, 1.0)).unwrap();
    let (p, q) = (DVec3::new(-1000.0, 0.5, 0.5), DVec3::new(1.0 - f64::EPSILON / 2.0, 0.5, 0.5));
    assert!(!Segment::new(p, q).unwrap().intersects_aabb(&b));
    assert!(!Segment::new(q, p).unwrap().intersects_aabb(&b));
    let b = Aabb::new(DVec3::new(1e-17, 0.0, 0.0), DVec3::new(1.0, 1.0, 1.0)).unwrap();
    let (p, q) = (DVec3::new(-1000.0, 0.5, 0.5), DVec3::new(0.0, 0.5, 0.5));
    assert!(!Segment::new(p, q).unwrap().intersects_aabb(&b));
    assert!(!Segment::new(q, p).unwrap().intersects_aabb(&b));
    let b = Aabb::new(DVec3::new(-1.5e308, 0.0, 0.0), DVec3::new(0.0, 5.4, 1.0)).unwrap();
    let ray = Ray::new(DVec3::new(1e308, -2.6, 0.5), DVec3::new(-1e308, 1.0, 0.0)).unwrap();
    assert_eq!(ray.intersect_aabb(&b), None);
    let b = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
    let ray = Ray::new(DVec3::new(0.5, -1e-310, 1e-310), DVec3::new(0.0, 1e20, -1e300)).unwrap();
    assert_eq!(ray.intersect_aabb(&b), None);
    // In through one edge and out through the opposite one: entry and exit exact.
    let ray = Ray::new(DVec3::new(-1.0, -1.0, 0.5), DVec3::new(1.0, 1.0, 0.0)).unwrap();
    assert_eq!(ray.intersect_aabb(&b), Some((1.0, 2.0)));
}

/// A box with every extent at least 0.5, an interior point well away from its faces, and an
/// origin outside at distance `dist` (more than the box diagonal) from that point.
fn ray_scene() -> impl Strategy<Value = (Aabb, DVec3, DVec3)> {
    (vec3(-50.0..50.0f64), vec3(0.5..20.0f64), vec3(0.05..0.95f64), unit_vector(), 1.0..100.0f64).prop_map(
        |(min, ext, f, u, extra)| {
            let b = Aabb::new(min, min + ext).unwrap();
            let target = min + f * ext;
            let origin = target - (ext.length() + extra) * u;
            (b, target, origin)
        },
    )
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn ray_aimed_at_interior_point_hits(
        (b, target, origin) in ray_scene(),
        scale in prop_oneof![Just(1.0), 1e-3..1e3f64],
    ) {
        let dir = (target - origin) * scale;
        let ray = Ray::new(origin, dir).unwrap();
        let (t0, t1) = ray.intersect_aabb(&b).expect("aimed at an interior point");
        let t_target = 1.0 / scale;
        let tol = 1e-9 * t_target;
        prop_assert!(t0 > 0.0, "origin is outside, t_enter = {}", t0);
        prop_assert!(t0 <= t_target + tol && t1 >= t_target - tol, "({}, {}) vs {}", t0, t1, t_target);
        // Entry and exit points are on the box surface.
        let scene = 1.0 + origin.abs().max_element() + b.max.abs().max_element();
        for p in [ray.at(t0), ray.at(t1)] {
            prop_assert!(inside_tol(&b, p, 1e-9 * scene));
            let face_gap = (0..3)
                .map(|i| (p[i] - b.min[i]).abs().min((p[i] - b.max[i]).abs()))
                .fold(f64::INFINITY, f64::min);
            prop_assert!(face_gap <= 1e-9 * scene, "{:?} not on the surface of {:?}", p, b);
        }
        // The segment to the target meets the box; so does the one through it.
        prop_assert!(Segment::new(origin, target).unwrap().intersects_aabb(&b));
        prop_assert!(Segment::new(origin, origin + 2.0 * (target - origin)).unwrap().intersects_aabb(&b));
    }

    #[test]
    fn ray_pointing_away_misses((b, target, origin) in ray_scene()) {
        let ray = Ray::new(origin, origin - target).unwrap();
        prop_assert_eq!(ray.intersect_aabb(&b), None);
        // A segment towards the box that stops well before reaching it misses too.
        let dist = (target - origin).length();
        let reach = 0.9 * (dist - b.extents().length()) / dist;
        let short = Segment::new(origin, origin + reach * (target - origin)).unwrap();
        prop_assert!(!short.intersects_aabb(&b));
        // A segment pointing away, likewise.
        prop_assert!(!Segment::new(origin, origin + (origin - target)).unwrap().intersects_aabb(&b));
    }

    #[test]
    fn ray_interval_vs_sampling(b in aabb(), o in vec3(coord()), d in vec3(-10.0..10.0f64)) {
        prop_assume!(d.length() > 1e-3);
        let ray = Ray::new(o, d).unwrap();
        let got = ray.intersect_aabb(&b);
        let tol = 1e-9 * (1.0 + o.abs().max_element() + b.min.abs().max(b.max.abs()).max_element());
        // Sample t over a range long enough to cross the whole scene.
        let t_max = 2.0 * (o.length() + b.min.length() + b.max.length() + 1.0) / d.length();
        let n = 4000;
        for k in 0..=n {
            let t = t_max * f64::from(k) / f64::from(n);
            let p = ray.at(t);
            match got {
                None => prop_assert!(!strictly_inside_tol(&b, p, tol), "missed, yet {:?} is inside", p),
                Some((t0, t1)) => {
                    if t >= t0 && t <= t1 {
                        prop_assert!(inside_tol(&b, p, tol), "t = {} in ({}, {}) but {:?} outside", t, t0, t1, p);
                    } else {
                        prop_assert!(!strictly_inside_tol(&b, p, tol), "t = {} outside ({}, {})", t, t0, t1);
                    }
                }
            }
        }
        if let Some((t0, t1)) = got {
            prop_assert!(0.0 <= t0 && t0 <= t1);
            prop_assert!(inside_tol(&b, ray.at(t0), tol) && inside_tol(&b, ray.at(0.5 * (t0 + t1)), tol));
        }
    }

    #[test]
    fn segment_with_an_end_inside_hits(b in aabb(), f in vec3(0.0..1.0f64), q in vec3(coord())) {
        let p = (b.min + f * (b.max - b.min)).clamp(b.min, b.max);
        prop_assert!(Segment::new(p, q).unwrap().intersects_aabb(&b));
        prop_assert!(Segment::new(q, p).unwrap().intersects_aabb(&b));
        prop_assert!(Segment::new(p, p).unwrap().intersects_aabb(&b));
    }
}

#[test]
fn ray_and_segment_exact_cases() {
    let unit = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
    let r = |o: DVec3, d: DVec3| Ray::new(o, d).unwrap().intersect_aabb(&unit);
    assert_eq!(r(DVec3::new(-1.0, 0.5, 0.5), DVec3::X), Some((1.0, 2.0)));
    // A longer direction scales the parameters.
    assert_eq!(r(DVec3::new(-1.0, 0.5, 0.5), 2.0 * DVec3::X), Some((0.5, 1.0)));
    // Starting inside: the interval is clamped to t >= 0.
    assert_eq!(r(DVec3::splat(0.5), DVec3::X), Some((0.0, 0.5)));
    assert_eq!(r(DVec3::splat(0.5), -4.0 * DVec3::Y), Some((0.0, 0.125)));
    // Sliding along a face (direction component zero, origin on the slab boundary): closed box.
    assert_eq!(r(DVec3::new(-1.0, 1.0, 0.5), DVec3::X), Some((1.0, 2.0)));
    // Parallel to a slab and outside it.
    assert_eq!(r(DVec3::new(-1.0, 1.5, 0.5), DVec3::X), None);
    // Grazing an edge: touches at a single parameter.
    assert_eq!(r(DVec3::new(-1.0, 1.0, 0.5), DVec3::new(1.0, -1.0, 0.0)), Some((1.0, 1.0)));
    // Box behind the ray.
    assert_eq!(r(DVec3::new(2.0, 0.5, 0.5), DVec3::X), None);
    // Diagonal through opposite corners.
    assert_eq!(r(-DVec3::ONE, DVec3::ONE), Some((1.0, 2.0)));

    let ray = Ray::new(DVec3::new(1.0, 2.0, 3.0), DVec3::new(-2.0, 0.5, 4.0)).unwrap();
    assert_eq!(ray.at(2.0), DVec3::new(-3.0, 3.0, 11.0));
    assert_eq!(ray.origin(), DVec3::new(1.0, 2.0, 3.0));
    assert_eq!(ray.direction(), DVec3::new(-2.0, 0.5, 4.0));

    let s = |a: DVec3, b: DVec3| Segment::new(a, b).unwrap().intersects_aabb(&unit);
    assert!(s(DVec3::new(-3.0, 0.5, 0.5), DVec3::new(0.0, 0.5, 0.5))); // ends on the face
    assert!(!s(DVec3::new(-3.0, 0.5, 0.5), DVec3::new(-(2f64.powi(-40)), 0.5, 0.5))); // stops short
    assert!(s(DVec3::new(-3.0, 0.5, 0.5), DVec3::new(3.0, 0.5, 0.5))); // passes through
    assert!(s(DVec3::new(-1.0, 1.0, 0.5), DVec3::new(1.0, -1.0, 0.5))); // grazes an edge
    // The same line shifted away from the box by 2^-30 misses.
    assert!(!s(DVec3::new(-1.0, 1.0 - 2f64.powi(-30), 0.5), DVec3::new(1.0, -1.0 - 2f64.powi(-30), 0.5)));
    assert!(s(DVec3::splat(0.25), DVec3::splat(0.25))); // degenerate, inside
    assert!(!s(DVec3::splat(1.25), DVec3::splat(1.25))); // degenerate, outside
    let seg = Segment::new(DVec3::new(1.0, 1.0, 1.0), DVec3::new(4.0, 5.0, 1.0)).unwrap();
    assert_eq!(seg.length(), 5.0);
    assert_eq!(seg.aabb(), Aabb::new(DVec3::ONE, DVec3::new(4.0, 5.0, 1.0)).unwrap());
}

// ---------------------------------------------------------------------------------------------
// Sphere
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn sphere_intersects_vs_integer_distance(
        c1 in [-20i64..=20, -20i64..=20, -20i64..=20],
        c2 in [-20i64..=20, -20i64..=20, -20i64..=20],
        r1 in 1i64..=15,
        r2 in 1i64..=15,
    ) {
        let f = |c: [i64; 3]| DVec3::new(c[0] as f64, c[1] as f64, c[2] as f64);
        let a = Sphere::new(f(c1), r1 as f64).unwrap();
        let b = Sphere::new(f(c2), r2 as f64).unwrap();
        let d2: i64 = (0..3).map(|i| (c1[i] - c2[i]).pow(2)).sum();
        let expected = d2 <= (r1 + r2).pow(2);
        prop_assert_eq!(a.intersects(&b), expected);
        prop_assert_eq!(b.intersects(&a), expected);
        // Point containment against the integer distance too.
        prop_assert_eq!(a.contains_point(f(c2)), d2 <= r1 * r1);
    }

    #[test]
    fn sphere_intersects_vs_distance(c1 in vec3(coord()), c2 in vec3(coord()), r1 in 0.01..50.0f64, r2 in 0.01..50.0f64) {
        let a = Sphere::new(c1, r1).unwrap();
        let b = Sphere::new(c2, r2).unwrap();
        let d = ((c1.x - c2.x).powi(2) + (c1.y - c2.y).powi(2) + (c1.z - c2.z).powi(2)).sqrt();
        let gap = d - (r1 + r2);
        prop_assume!(gap.abs() > 1e-9 * (1.0 + d));
        prop_assert_eq!(a.intersects(&b), gap < 0.0);
        prop_assert_eq!(b.intersects(&a), gap < 0.0);
        prop_assert!(a.intersects(&a));
    }

    #[test]
    fn sphere_aabb_and_measures(c in vec3(coord()), r in 0.01..50.0f64, u in unit_vector(), s in 0.0..2.0f64) {
        let sp = Sphere::new(c, r).unwrap();
        prop_assert_eq!(sp.center(), c);
        prop_assert_eq!(sp.radius(), r);
        prop_assert_eq!(sp.aabb().min, c - DVec3::splat(r));
        prop_assert_eq!(sp.aabb().max, c + DVec3::splat(r));
        let v = 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
        prop_assert!(close(sp.volume(), v, 1e-14 * v));
        // A point at distance s·r from the centre.
        prop_assume!((s - 1.0).abs() > 1e-9);
        let p = c + s * r * u;
        prop_assert_eq!(sp.contains_point(p), s < 1.0);
        if s < 1.0 {
            prop_assert!(sp.aabb().contains_point(p));
        }
    }
}

#[test]
fn sphere_exact_touching() {
    // 3-4-5: centres 5 apart, radii 2 + 3: touching counts as intersecting.
    let a = Sphere::new(DVec3::ZERO, 2.0).unwrap();
    let b = Sphere::new(DVec3::new(3.0, 4.0, 0.0), 3.0).unwrap();
    assert!(a.intersects(&b) && b.intersects(&a));
    // Radii summing to just under 5 (by more than the rounding of the sum): disjoint.
    let c = Sphere::new(DVec3::new(3.0, 4.0, 0.0), 3.0 - 1e-12).unwrap();
    assert!(!a.intersects(&c) && !c.intersects(&a));
    assert!(a.contains_point(DVec3::new(0.0, 0.0, 2.0)));
    assert!(!a.contains_point(DVec3::new(0.0, 0.0, 2f64.next_up())));
}

/// Whether balls `(c1, r1)` and `(c2, r2)` share a point, in exact rational arithmetic on the
/// given `f64` values.
fn balls_meet_exactly(c1: DVec3, r1: f64, c2: DVec3, r2: f64) -> bool {
    let d2 = (0..3).map(|i| (exact(c2[i]) - exact(c1[i])).pow(2)).fold(BigRational::zero(), |s, t| s + t);
    d2 <= (exact(r1) + exact(r2)).pow(2)
}

/// Integer vectors whose length is an integer (Pythagorean quadruples), for exactly touching
/// balls: `(a, b, c, d)` with `a² + b² + c² = d²`.
const QUADRUPLES: [[i64; 4]; 8] = [
    [1, 2, 2, 3],
    [2, 3, 6, 7],
    [1, 4, 8, 9],
    [4, 4, 7, 9],
    [2, 6, 9, 11],
    [8, 19, -4, 21],
    [12, 15, 16, 25],
    [2, 10, 11, 15],
];

proptest! {
    #![proptest_config(config(512))]

    /// Near and at tangency, far from unit scale and off the integers, `intersects` and
    /// `contains_point` agree with exact rational arithmetic: exactly touching balls (integer
    /// lengths scaled by a power of two and moved by an offset, so that the differences of the
    /// stored centres round), and balls a few units in the last place from touching.
    #[test]
    fn sphere_intersects_vs_exact_rationals(
        q in 0usize..QUADRUPLES.len(),
        signs in [proptest::bool::ANY, proptest::bool::ANY, proptest::bool::ANY],
        exponent in -60i32..60,
        offset in vec3(coord()),
        offset_scale in -20i32..20,
        split in 0.05..0.95f64,
        nudge in -4i64..=4,
        u in unit_vector(),
    ) {
        let [x, y, z, d] = QUADRUPLES[q];
        let flip = |v: i64, s: bool| if s { -v } else { v } as f64;
        let scale = 2f64.powi(exponent);
        let delta = DVec3::new(flip(x, signs[0]), flip(y, signs[1]), flip(z, signs[2])) * scale;
        let c1 = offset * 2f64.powi(offset_scale);
        let reach = d as f64 * scale;
        // Radii summing to the reach up to rounding, then nudged by a few units.
        let r1 = reach * split;
        let mut r2 = reach - r1;
        for _ in 0..nudge.abs() {
            r2 = if nudge > 0 { r2.next_up() } else { r2.next_down() };
        }
        for c2 in [c1 + delta, c1 + u * reach] {
            let a = Sphere::new(c1, r1).unwrap();
            let b = Sphere::new(c2, r2).unwrap();
            let expected = balls_meet_exactly(c1, r1, c2, r2);
            prop_assert_eq!(a.intersects(&b), expected);
            prop_assert_eq!(b.intersects(&a), expected);
            let point_inside = balls_meet_exactly(c1, r1 + r2, c2, 0.0);
            let big = Sphere::new(c1, r1 + r2).unwrap();
            prop_assert_eq!(big.contains_point(c2), point_inside);
        }
    }
}

#[test]
fn sphere_touching_found_by_proptest() {
    // |(8, 19, -4)| = 21 = 6 + 15 exactly; the rounded length came out above 21.
    let a = Sphere::new(DVec3::new(-2.0, -16.0, 11.0), 6.0).unwrap();
    let b = Sphere::new(DVec3::new(6.0, 3.0, 7.0), 15.0).unwrap();
    assert!(a.intersects(&b) && b.intersects(&a));
    let c = Sphere::new(DVec3::new(6.0, 3.0, 7.0), 15f64.next_down()).unwrap();
    assert!(!a.intersects(&c) && !c.intersects(&a));
    // At huge and tiny scales (powers of two keep it exact).
    for e in [-1000, -500, -100, 100, 500, 900] {
        let s = 2f64.powi(e);
        let a = Sphere::new(DVec3::new(-2.0, -16.0, 11.0) * s, 6.0 * s).unwrap();
        let b = Sphere::new(DVec3::new(6.0, 3.0, 7.0) * s, 15.0 * s).unwrap();
        assert!(a.intersects(&b), "touching at 2^{e}");
        let c = Sphere::new(DVec3::new(6.0, 3.0, 7.0) * s, (15.0 * s).next_down()).unwrap();
        assert!(!a.intersects(&c), "apart at 2^{e}");
    }
}

// ---------------------------------------------------------------------------------------------
// Ellipsoid
// ---------------------------------------------------------------------------------------------

fn ellipsoid() -> impl Strategy<Value = (DVec3, DQuat, DVec3)> {
    (vec3(-100.0..100.0f64), unit_quat(), vec3(0.1..10.0f64))
}

/// The surface point with body-frame direction `u` (unit): `c + R (a ∘ u)`.
fn surface_point(c: DVec3, q: DQuat, a: DVec3, u: DVec3) -> DVec3 {
    c + rotate(q, a * u)
}

/// `max_u sign · (surface_point(u) - c)[axis]` by sampling a Fibonacci sphere, then hill-climbing
/// from the best sample with shrinking steps.
fn brute_force_support(q: DQuat, a: DVec3, axis: usize, sign: f64) -> f64 {
    let f = |u: DVec3| sign * rotate(q, a * u)[axis];
    let n = 500;
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    let mut best = DVec3::Z;
    for k in 0..n {
        let z = 1.0 - (2.0 * f64::from(k) + 1.0) / f64::from(n);
        let r = (1.0 - z * z).sqrt();
        let phi = golden * f64::from(k);
        let u = DVec3::new(r * phi.cos(), r * phi.sin(), z);
        if f(u) > f(best) {
            best = u;
        }
    }
    let mut step = 0.05;
    while step > 1e-10 {
        let t1 = best.any_orthonormal_vector();
        let t2 = best.cross(t1);
        let mut improved = false;
        for cand in [best + step * t1, best - step * t1, best + step * t2, best - step * t2] {
            let cand = cand.normalize();
            if f(cand) > f(best) {
                best = cand;
                improved = true;
            }
        }
        if !improved {
            step *= 0.5;
        }
    }
    f(best)
}

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn ellipsoid_aabb_vs_brute_force_support((c, q, a) in ellipsoid()) {
        let e = Ellipsoid::new(c, q, a).unwrap();
        let b = e.aabb();
        let scale = a.max_element();
        for axis in 0..3 {
            let hi = brute_force_support(q, a, axis, 1.0);
            let lo = brute_force_support(q, a, axis, -1.0);
            prop_assert!(close(b.max[axis] - c[axis], hi, 1e-9 * scale), "axis {}: {} vs {}", axis, b.max[axis] - c[axis], hi);
            prop_assert!(close(c[axis] - b.min[axis], lo, 1e-9 * scale), "axis {}: {} vs {}", axis, c[axis] - b.min[axis], lo);
        }
    }
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn ellipsoid_surface_samples_are_inside_the_aabb((c, q, a) in ellipsoid(), u in unit_vector()) {
        let e = Ellipsoid::new(c, q, a).unwrap();
        let tol = 1e-12 * (1.0 + c.abs().max_element() + a.max_element());
        prop_assert!(inside_tol(&e.aabb(), surface_point(c, q, a, u), tol));
    }

    #[test]
    fn ellipsoid_contains_point_vs_parameterisation((c, q, a) in ellipsoid(), u in unit_vector(), s in 0.0..2.0f64) {
        prop_assume!((s - 1.0).abs() > 1e-9);
        let e = Ellipsoid::new(c, q, a).unwrap();
        let p = surface_point(c, q, a, s * u);
        prop_assert_eq!(e.contains_point(p), s < 1.0, "s = {}", s);
    }

    #[test]
    fn ellipsoid_contains_point_vs_shape_matrix_quadratic_form((c, q, a) in ellipsoid(), off in vec3(-25.0..25.0f64)) {
        let e = Ellipsoid::new(c, q, a).unwrap();
        let p = c + off;
        let m = e.shape_matrix();
        let form = off.dot(m * off);
        // An independent evaluation: body coordinates through the textbook rotation.
        let local = rotate(conj(q), off) / a;
        let form2 = local.length_squared();
        prop_assert!(close(form, form2, 1e-11 * (1.0 + form2)), "{} vs {}", form, form2);
        prop_assume!((form2 - 1.0).abs() > 1e-9);
        prop_assert_eq!(e.contains_point(p), form2 <= 1.0);
    }

    #[test]
    fn ellipsoid_matrices_vs_closed_form((c, q, a) in ellipsoid(), sign in prop_oneof![Just(1.0), Just(-1.0)], k in 0.1..100.0f64) {
        // A non-unit quaternion (and its negation, the same rotation) is normalised.
        let qq = DQuat::from_xyzw(q.x * k * sign, q.y * k * sign, q.z * k * sign, q.w * k * sign);
        let e = Ellipsoid::new(c, qq, a).unwrap();
        let o = e.orientation();
        prop_assert!(close(o.length(), 1.0, 1e-15));
        for (x, y) in [(o.x, q.x * sign), (o.y, q.y * sign), (o.z, q.z * sign), (o.w, q.w * sign)] {
            prop_assert!(close(x, y, 1e-14));
        }
        prop_assert_eq!(e.center(), c);
        prop_assert_eq!(e.semi_axes(), a);
        let r = e.rotation();
        let axes = [DVec3::X, DVec3::Y, DVec3::Z].map(|v| rotate(q, v));
        for (j, axis) in axes.iter().enumerate() {
            prop_assert!((r.col(j) - *axis).length() < 1e-14);
        }
        // A = Σ_j axis_j axis_jᵀ / a_j²,  A⁻¹ = Σ_j axis_j axis_jᵀ a_j².
        let (sm, ism) = (e.shape_matrix(), e.inverse_shape_matrix());
        for row in 0..3 {
            for col in 0..3 {
                let want: f64 = (0..3).map(|j| axes[j][row] * axes[j][col] / (a[j] * a[j])).sum();
                let want_inv: f64 = (0..3).map(|j| axes[j][row] * axes[j][col] * a[j] * a[j]).sum();
                prop_assert!(close(sm.col(col)[row], want, 1e-12 * (1.0 + want.abs()) / a.min_element().powi(2)));
                prop_assert!(close(ism.col(col)[row], want_inv, 1e-12 * a.max_element().powi(2)));
            }
        }
        let v = 4.0 / 3.0 * std::f64::consts::PI * a.x * a.y * a.z;
        prop_assert!(close(e.volume(), v, 1e-14 * v));
    }
}

proptest! {
    #![proptest_config(config(512))]

    /// Axis-aligned ellipsoids (identity or a half turn about an axis) classify points on and a
    /// few units in the last place from their surface as exact rational arithmetic does:
    /// integer semi-axes `n·kᵢ` and offsets `kᵢ·xᵢ` with `x₁² + x₂² + x₃² = n²` put the point on
    /// the surface exactly; the centre moves off the integers (so the stored point rounds) and
    /// everything is scaled by a power of two.
    #[test]
    fn axis_aligned_ellipsoid_contains_point_vs_exact_rationals(
        q in 0usize..QUADRUPLES.len(),
        k in [1i64..=9, 1i64..=9, 1i64..=9],
        signs in [proptest::bool::ANY, proptest::bool::ANY, proptest::bool::ANY],
        exponent in -60i32..60,
        centre in vec3(coord()),
        turn in 0usize..5,
        nudge in -3i64..=3,
        axis in 0usize..3,
    ) {
        let [x, y, z, n] = QUADRUPLES[q];
        let scale = 2f64.powi(exponent);
        let semi = DVec3::new((n * k[0]) as f64, (n * k[1]) as f64, (n * k[2]) as f64) * scale;
        let flip = |v: i64, s: bool| if s { -v } else { v } as f64;
        let offset = DVec3::new(flip(k[0] * x, signs[0]), flip(k[1] * y, signs[1]), flip(k[2] * z, signs[2])) * scale;
        let mut p = centre + offset;
        for _ in 0..nudge.abs() {
            p[axis] = if nudge > 0 { p[axis].next_up() } else { p[axis].next_down() };
        }
        let orientation = [
            DQuat::IDENTITY,
            DQuat::from_xyzw(1.0, 0.0, 0.0, 0.0),
            DQuat::from_xyzw(0.0, -1.0, 0.0, 0.0),
            DQuat::from_xyzw(0.0, 0.0, 1.0, 0.0),
            DQuat::from_xyzw(0.0, 0.0, 0.0, -1.0),
        ][turn];
        let e = Ellipsoid::new(centre, orientation, semi).unwrap();
        let form = (0..3)
            .map(|i| ((exact(p[i]) - exact(centre[i])) / exact(semi[i])).pow(2))
            .fold(BigRational::zero(), |s, t| s + t);
        prop_assert_eq!(e.contains_point(p), form <= BigRational::one());
    }
}

#[test]
fn axis_aligned_ellipsoid_surface_at_extreme_scales() {
    // 5² + 12² = 13², at subnormal, tiny, unit and huge scales, and with a half turn.
    for (e, turn) in [
        (-1074, DQuat::IDENTITY),
        (-1000, DQuat::from_xyzw(0.0, 1.0, 0.0, 0.0)),
        (0, DQuat::IDENTITY),
        (1000, DQuat::from_xyzw(0.0, 0.0, -1.0, 0.0)),
    ] {
        // (`powi` underflows to 0 on the way to 2^-1074: the smallest subnormal directly.)
        let s = if e == -1074 { f64::from_bits(1) } else { 2f64.powi(e) };
        let ball = Ellipsoid::new(DVec3::ZERO, turn, DVec3::new(13.0, 13.0, 1.0) * s).unwrap();
        assert!(ball.contains_point(DVec3::new(5.0, 12.0, 0.0) * s), "on the surface at 2^{e}");
        assert!(!ball.contains_point(DVec3::new(5.0, 13.0, 0.0) * s), "outside at 2^{e}");
        assert!(
            !ball.contains_point(DVec3::new(5.0, 12.0, 0.0) * s + DVec3::new(0.0, 0.0, f64::from_bits(1))),
            "just off at 2^{e}"
        );
    }
}

#[test]
fn ellipsoid_axis_aligned_cases() {
    let c = DVec3::new(1.0, -2.0, 3.0);
    let a = DVec3::new(3.0, 2.0, 0.5);
    let e = Ellipsoid::new(c, DQuat::IDENTITY, a).unwrap();
    assert_eq!(e.aabb(), Aabb::new(c - a, c + a).unwrap());
    assert!(e.contains_point(c + DVec3::new(3.0, 0.0, 0.0)));
    assert!(!e.contains_point(c + DVec3::new(3.0, 0.0, 0.0).with_y(0.01)));
    // A quarter turn about z exchanges the x and y half-widths.
    let turned = Ellipsoid::new(DVec3::ZERO, DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2), a).unwrap();
    let b = turned.aabb();
    assert!((b.max - DVec3::new(2.0, 3.0, 0.5)).length() < 1e-12);
    assert!((b.min + DVec3::new(2.0, 3.0, 0.5)).length() < 1e-12);
    // A sphere: any rotation leaves the box at ±r.
    let q = DQuat::from_xyzw(0.3, -0.5, 0.1, 0.8).normalize();
    let s = Ellipsoid::new(DVec3::ZERO, q, DVec3::splat(2.0)).unwrap();
    assert!((s.aabb().max - DVec3::splat(2.0)).length() < 1e-12);
    // 45° about z with semi-axes (a, b): half-width sqrt((a² + b²) / 2) on x and y.
    let e45 = Ellipsoid::new(DVec3::ZERO, DQuat::from_rotation_z(std::f64::consts::FRAC_PI_4), a).unwrap();
    let w = (0.5 * (9.0 + 4.0f64)).sqrt();
    assert!((e45.aabb().max - DVec3::new(w, w, 0.5)).length() < 1e-12);
}

// ---------------------------------------------------------------------------------------------
// Plane
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn plane_signed_distance_closed_form(
        p0 in vec3(coord()),
        n in vec3(-10.0..10.0f64).prop_filter("non-zero", |n| n.length() > 1e-3),
        p in vec3(coord()),
    ) {
        let plane = Plane::from_point_normal(p0, n).unwrap();
        let len = (n.x * n.x + n.y * n.y + n.z * n.z).sqrt();
        let unit = n / len;
        prop_assert!(close(plane.normal().length(), 1.0, 4.0 * f64::EPSILON));
        prop_assert!((plane.normal() - unit).length() < 1e-15);
        prop_assert!(close(plane.offset(), p0.dot(n) / len, 1e-13 * (1.0 + p0.length())));
        let want = ((p.x - p0.x) * n.x + (p.y - p0.y) * n.y + (p.z - p0.z) * n.z) / len;
        let tol = 1e-13 * (1.0 + p.length() + p0.length());
        prop_assert!(close(plane.signed_distance(p), want, tol), "{} vs {}", plane.signed_distance(p), want);
        prop_assert!(close(plane.signed_distance(p0), 0.0, tol));

        // The projection lies on the plane, along the normal from p, and is the closest point.
        let proj = plane.project(p);
        prop_assert!(close(plane.signed_distance(proj), 0.0, tol));
        prop_assert!(((p - proj) - want * unit).length() < tol);
        let t1 = unit.any_orthonormal_vector();
        let t2 = unit.cross(t1);
        for (s, t) in [(1.0, 0.0), (0.0, 1.0), (-3.0, 2.0), (0.25, -0.5)] {
            let other = proj + s * t1 + t * t2;
            prop_assert!((p - other).length() >= (p - proj).length() - tol);
        }
    }
}

#[test]
fn plane_exact_cases() {
    let ground = Plane::from_point_normal(DVec3::new(7.0, -1.0, 2.0), DVec3::new(0.0, 0.0, 5.0)).unwrap();
    assert_eq!(ground.normal(), DVec3::Z);
    assert_eq!(ground.offset(), 2.0);
    assert_eq!(ground.signed_distance(DVec3::new(100.0, 3.0, 7.5)), 5.5);
    assert_eq!(ground.signed_distance(DVec3::new(0.0, 0.0, -1.0)), -3.0);
    assert_eq!(ground.project(DVec3::new(4.0, 5.0, 6.0)), DVec3::new(4.0, 5.0, 2.0));
    // Normal (3, 4, 0) / 5 through the origin: distance of (3, 4, 0) is 5.
    let tilted = Plane::from_point_normal(DVec3::ZERO, DVec3::new(3.0, 4.0, 0.0)).unwrap();
    assert!((tilted.signed_distance(DVec3::new(3.0, 4.0, 9.0)) - 5.0).abs() < 1e-15);
    assert!((tilted.signed_distance(DVec3::new(-4.0, 3.0, 1.0))).abs() < 1e-15);
}

/// Scales `10^k` used to probe normalisation: from tiny (squares underflow into subnormals or to
/// zero) through ordinary to huge (squares overflow).
const SCALES: [i32; 13] = [-200, -170, -160, -155, -150, -100, -30, 0, 30, 100, 150, 155, 200];

/// Documented: "the plane through `point` with normal direction `normal` (normalised here)",
/// `normal()` is "the unit normal", and `ZeroVector` is for a zero normal "(or so small that it
/// cannot be normalised)". So every accepted normal must come back as a unit vector, and a large
/// finite normal is not a zero vector.
#[test]
fn plane_normal_is_unit_for_every_accepted_scale_and_large_normals_are_accepted() {
    let mut failures = Vec::new();
    for k in SCALES {
        let s = 10f64.powi(k);
        let n = DVec3::new(3.0 * s, 4.0 * s, 0.0);
        match Plane::from_point_normal(DVec3::ZERO, n) {
            Ok(plane) => {
                let m = plane.normal();
                if (m - DVec3::new(0.6, 0.8, 0.0)).length() > 1e-15 {
                    failures.push(format!("normal {n:?}: normal() = {m:?}, |normal()| = {}", m.length()));
                }
            }
            Err(GeometryError::ZeroVector { .. }) if k < 0 => {} // documented: too small
            Err(e) => failures.push(format!("normal {n:?}: {e:?}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Documented: "the orientation is normalised", `orientation()` is "the (unit) orientation
/// quaternion", and `ZeroVector` is for "a zero quaternion".
#[test]
fn ellipsoid_orientation_is_unit_for_every_accepted_scale_and_large_quaternions_are_accepted() {
    let mut failures = Vec::new();
    for k in SCALES {
        let s = 10f64.powi(k);
        let q = DQuat::from_xyzw(0.0, 0.6 * s, 0.0, 0.8 * s);
        match Ellipsoid::new(DVec3::ZERO, q, DVec3::ONE) {
            Ok(e) => {
                let o = e.orientation();
                if (o.length() - 1.0).abs() > 1e-15 || (o.y - 0.6).abs() > 1e-15 || (o.w - 0.8).abs() > 1e-15
                {
                    failures.push(format!("quaternion {q:?}: orientation() = {o:?}, |.| = {}", o.length()));
                }
            }
            Err(GeometryError::ZeroVector { .. }) if k < 0 => {} // tiny: tolerated
            Err(e) => failures.push(format!("quaternion {q:?}: {e:?}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// Triangle
// ---------------------------------------------------------------------------------------------

fn int_point() -> impl Strategy<Value = [i64; 3]> {
    [-1000i64..=1000, -1000i64..=1000, -1000i64..=1000]
}

fn fv(p: [i64; 3]) -> DVec3 {
    DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64)
}

fn icross(u: [i64; 3], v: [i64; 3]) -> [i64; 3] {
    [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
}

fn isub(p: [i64; 3], q: [i64; 3]) -> [i64; 3] {
    [p[0] - q[0], p[1] - q[1], p[2] - q[2]]
}

fn idot(u: [i64; 3], v: [i64; 3]) -> i128 {
    (0..3).map(|i| i128::from(u[i]) * i128::from(v[i])).sum()
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn triangle_integer_closed_forms(a in int_point(), b in int_point(), c in int_point()) {
        let t = Triangle::new(fv(a), fv(b), fv(c));
        let (u, v) = (isub(b, a), isub(c, a));
        let n = icross(u, v);
        prop_assert_eq!(t.normal(), fv(n));
        prop_assert_eq!(t.flipped().normal(), -fv(n));

        // Lagrange's identity: 4 area² = |u|² |v|² - (u · v)², without any cross product.
        let four_area_sq = idot(u, u) * idot(v, v) - idot(u, v).pow(2);
        let area = 0.5 * (four_area_sq as f64).sqrt();
        prop_assert!(close(t.area(), area, 1e-14 * area), "{} vs {}", t.area(), area);
        prop_assert_eq!(t.flipped().area(), t.area());

        let degenerate = four_area_sq == 0;
        prop_assert_eq!(t.is_degenerate(), degenerate);
        match t.unit_normal() {
            None => prop_assert!(degenerate),
            Some(m) => {
                prop_assert!(!degenerate);
                prop_assert!(close(m.length(), 1.0, 4.0 * f64::EPSILON));
                let (fu, fv_) = (fv(u), fv(v));
                prop_assert!(m.dot(fu).abs() <= 1e-12 * fu.length());
                prop_assert!(m.dot(fv_).abs() <= 1e-12 * fv_.length());
                prop_assert!(m.dot(fv(n)) > 0.0);
            }
        }

        // a · (b × c) / 6 exactly (the integer triple product is exact in f64 here).
        let triple = idot(a, icross(b, c));
        prop_assert_eq!(t.signed_volume_from_origin(), triple as f64 / 6.0);
        prop_assert_eq!(t.flipped().signed_volume_from_origin(), -(triple as f64) / 6.0);

        let bb = t.aabb();
        for i in 0..3 {
            prop_assert_eq!(bb.min[i], a[i].min(b[i]).min(c[i]) as f64);
            prop_assert_eq!(bb.max[i], a[i].max(b[i]).max(c[i]) as f64);
        }
        let sum = [a[0] + b[0] + c[0], a[1] + b[1] + c[1], a[2] + b[2] + c[2]];
        prop_assert!((t.centroid() - fv(sum) / 3.0).length() <= 1e-12 * (1.0 + fv(sum).length()));
        let f = t.flipped();
        prop_assert_eq!((f.a, f.b, f.c), (t.a, t.c, t.b));
    }

    #[test]
    fn triangle_area_is_additive_under_midpoint_split(a in vec3(coord()), b in vec3(coord()), c in vec3(coord())) {
        // The four midpoint triangles each have a quarter of the area.
        let (ab, bc, ca) = ((a + b) * 0.5, (b + c) * 0.5, (c + a) * 0.5);
        let whole = Triangle::new(a, b, c).area();
        for t in [
            Triangle::new(a, ab, ca),
            Triangle::new(ab, b, bc),
            Triangle::new(ca, bc, c),
            Triangle::new(ab, bc, ca),
        ] {
            prop_assert!(close(4.0 * t.area(), whole, 1e-9 * (1.0 + whole)));
        }
    }
}

#[test]
fn triangle_known_shapes() {
    // Right triangle with legs 3 and 4: area 6, normal (0, 0, 12).
    let t = Triangle::new(DVec3::ZERO, DVec3::new(3.0, 0.0, 0.0), DVec3::new(0.0, 4.0, 0.0));
    assert_eq!(t.area(), 6.0);
    assert_eq!(t.normal(), DVec3::new(0.0, 0.0, 12.0));
    assert_eq!(t.unit_normal(), Some(DVec3::Z));
    // Equilateral with side 2: area sqrt(3).
    let eq = Triangle::new(DVec3::ZERO, DVec3::new(2.0, 0.0, 0.0), DVec3::new(1.0, 3f64.sqrt(), 0.0));
    assert!((eq.area() - 3f64.sqrt()).abs() < 1e-15);
    // The corner triangle of the unit simplex: area sqrt(3)/2, normal (1,1,1)/sqrt(3), volume 1/6.
    let s = Triangle::new(DVec3::X, DVec3::Y, DVec3::Z);
    assert!((s.area() - 3f64.sqrt() / 2.0).abs() < 1e-15);
    let n = s.unit_normal().unwrap();
    assert!((n - DVec3::splat(1.0 / 3f64.sqrt())).length() < 1e-15);
    assert_eq!(s.signed_volume_from_origin(), 1.0 / 6.0);
    assert_eq!(s.centroid(), DVec3::splat(1.0 / 3.0));
    // Degenerate: repeated corner and collinear corners.
    assert!(Triangle::new(DVec3::ONE, DVec3::ONE, DVec3::ZERO).is_degenerate());
    assert_eq!(Triangle::new(DVec3::ZERO, DVec3::X, DVec3::splat(0.0).with_x(5.0)).unit_normal(), None);
    assert_eq!(Triangle::new(DVec3::ZERO, DVec3::X, DVec3::new(5.0, 0.0, 0.0)).area(), 0.0);
}

proptest! {
    #![proptest_config(config(256))]

    /// `Triangle::closest_point` against a brute-force minimum over a fine barycentric grid plus
    /// the three edges densely: the returned point lies on the triangle (within rounding) and no
    /// sampled point is closer.
    #[test]
    fn triangle_closest_point_beats_dense_sampling(
        a in vec3(-10.0..10.0f64), b in vec3(-10.0..10.0f64), c in vec3(-10.0..10.0f64), p in vec3(-20.0..20.0f64),
    ) {
        let t = Triangle::new(a, b, c);
        prop_assume!(t.area() > 1e-3);
        let q = t.closest_point(p);
        let best = q.distance(p);
        // On the triangle: barycentric coordinates in [0, 1] up to rounding.
        let n = t.normal();
        prop_assert!((q - a).dot(n).abs() <= 1e-9 * n.length() * (1.0 + (q - a).length()));
        let steps = 60;
        let mut sampled = f64::INFINITY;
        for i in 0..=steps {
            for j in 0..=steps - i {
                let (u, v) = (f64::from(i) / f64::from(steps), f64::from(j) / f64::from(steps));
                sampled = sampled.min((a + (b - a) * u + (c - a) * v).distance(p));
            }
        }
        for k in 0..=2000 {
            let s = f64::from(k) / 2000.0;
            for (x, y) in [(a, b), (b, c), (c, a)] {
                sampled = sampled.min((x + (y - x) * s).distance(p));
            }
        }
        prop_assert!(best <= sampled + 1e-9 * (1.0 + sampled), "closest {best} but sampled {sampled}");
        // And it is not far below what sampling can resolve (the grid spacing bounds the gap).
        let spacing = (b - a).length().max((c - a).length()).max((c - b).length()) / f64::from(steps);
        prop_assert!(sampled - best <= spacing);
    }
}

// ---------------------------------------------------------------------------------------------
// Scale: every input multiplied by a power of two (exact), from 2⁻⁹⁰⁰ to 2⁹⁰⁰
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(256))]

    /// Balls and ellipsoids answer at any scale as at unit scale (squared distances used to
    /// overflow or underflow beyond about 1e±154: found by an independent review).
    #[test]
    fn primitives_answer_alike_at_every_scale(
        (c, q, a) in ellipsoid(),
        c2 in vec3(-100.0..100.0f64),
        r1 in 0.1..60.0f64,
        r2 in 0.1..60.0f64,
        p in vec3(-120.0..120.0f64),
        k in -900i32..=900,
    ) {
        let s = 2f64.powi(k);
        let (b1, b2) = (Sphere::new(c, r1).unwrap(), Sphere::new(c2, r2).unwrap());
        let (t1, t2) = (Sphere::new(c * s, r1 * s).unwrap(), Sphere::new(c2 * s, r2 * s).unwrap());
        prop_assert_eq!(t1.intersects(&t2), b1.intersects(&b2));
        prop_assert_eq!(t1.contains_point(p * s), b1.contains_point(p));
        let e = Ellipsoid::new(c, q, a).unwrap();
        let scaled = Ellipsoid::new(c * s, q, a * s).unwrap();
        prop_assert_eq!(scaled.contains_point(p * s), e.contains_point(p));
        let (unit_box, scaled_box) = (e.aabb(), scaled.aabb());
        prop_assert_eq!(scaled_box.min, unit_box.min * s);
        prop_assert_eq!(scaled_box.max, unit_box.max * s);
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// A triangle and point scaled by `2^k` give the closest point scaled by `2^k`, bit for bit,
    /// from `2^-900` to `2^900` (products of offsets underflowed at 1e-200, the answer becoming a
    /// corner, and overflowed at 1e200, NaN; found by an adversarial review).
    #[test]
    fn triangle_closest_point_is_scale_invariant(
        a in vec3(-10.0..10.0f64), b in vec3(-10.0..10.0f64), c in vec3(-10.0..10.0f64), p in vec3(-20.0..20.0f64),
        k in -900i32..900,
    ) {
        let s = 2f64.powi(k);
        let unit = Triangle::new(a, b, c).closest_point(p);
        let scaled = Triangle::new(a * s, b * s, c * s).closest_point(p * s);
        prop_assert_eq!(scaled, unit * s);
    }

    /// Degenerate triangles (two corners equal, or all three collinear), in every corner order:
    /// the nearest point of the segment they span (NaN for `a = b` before).
    #[test]
    fn degenerate_triangle_closest_point_is_on_its_segment(
        x in vec3(-10.0..10.0f64), y in vec3(-10.0..10.0f64), p in vec3(-20.0..20.0f64),
        collinear in any::<bool>(),
    ) {
        let z = if collinear { x + (y - x) * 0.25 } else { x };
        let expected = {
            let t = ((p - x).dot(y - x) / (y - x).length_squared()).clamp(0.0, 1.0);
            x + (y - x) * t
        };
        for [a, b, c] in [[x, y, z], [x, z, y], [y, x, z], [y, z, x], [z, x, y], [z, y, x]] {
            let q = Triangle::new(a, b, c).closest_point(p);
            prop_assert!(q.is_finite(), "{:?}", [a, b, c]);
            prop_assert!((q - expected).length() <= 1e-12 * (1.0 + p.length()), "{q} vs {expected} for {:?}", [a, b, c]);
        }
    }
}

#[test]
fn triangle_closest_point_of_coinciding_corners_found_by_review() {
    let q = Triangle::new(DVec3::ZERO, DVec3::ZERO, DVec3::X).closest_point(DVec3::new(0.5, 1.0, 0.0));
    assert_eq!(q, DVec3::new(0.5, 0.0, 0.0));
    assert!(Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y).closest_point(DVec3::splat(f64::NAN)).is_nan());
}

/// Cases found by an adversarial review of geometry-core.
#[test]
fn boundary_cases_found_by_review() {
    // A segment whose end-to-end vector overflows, and a box beyond its end.
    let s = Segment::new(DVec3::new(-1e308, 0.0, 0.0), DVec3::new(1e308, 0.0, 0.0)).unwrap();
    let beyond = Aabb::new(DVec3::new(1.5e308, -1.0, -1.0), DVec3::new(1.7e308, 1.0, 1.0)).unwrap();
    assert!(!s.intersects_aabb(&beyond));
    let crossed = Aabb::new(DVec3::new(0.5e308, -1.0, -1.0), DVec3::new(0.9e308, 1.0, 1.0)).unwrap();
    assert!(s.intersects_aabb(&crossed));
    assert!(
        s.intersects_aabb(&Aabb::new(DVec3::new(1e308, 0.0, 0.0), DVec3::new(1.1e308, 1.0, 1.0)).unwrap())
    );
    // A point at exact distance 1 + 2^-1202 from a unit sphere's centre (the square of a
    // difference's rounding error underflowed, and it came out on the sphere).
    let (eps, d) = (2f64.powi(-601), 2f64.powi(-300));
    let ball = Sphere::new(DVec3::new(eps, 0.0, 0.0), 1.0).unwrap();
    assert!(!ball.contains_point(DVec3::new(1.0, d, 0.0)));
    assert!(ball.contains_point(DVec3::new(1.0, 0.0, 0.0)));
    // Non-finite points are in no ball or ellipsoid (one was inside, the other panicked in
    // debug builds).
    let unit = Sphere::new(DVec3::ZERO, 1.0).unwrap();
    let ellipsoid = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::ONE).unwrap();
    let rotated = Ellipsoid::new(DVec3::ZERO, DQuat::from_rotation_z(0.3), DVec3::ONE).unwrap();
    for bad in
        [DVec3::new(f64::INFINITY, 0.0, 0.0), DVec3::new(f64::NAN, 0.0, 0.0), DVec3::splat(f64::NEG_INFINITY)]
    {
        assert!(
            !unit.contains_point(bad) && !ellipsoid.contains_point(bad) && !rotated.contains_point(bad),
            "{bad}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Sizes without spurious overflow or underflow (found by an adversarial review: a flat box of
// long edges had volume NaN, volumes and lengths that fit in f64 overflowed or underflowed,
// tiny faces had their normal off by 0.2 rad, a plane with an infinite offset was accepted, a
// far triangle's centroid was infinite).

/// The exact product of `factors`, rounded (through the rational's float conversion).
fn exact_product(factors: &[f64]) -> f64 {
    let p = factors.iter().fold(BigRational::one(), |acc, &x| acc * exact(x));
    num_traits::ToPrimitive::to_f64(&p).expect("convertible")
}

/// Whether `got` is within `ulps` units in the last place of `want` (both finite and normal).
fn close_in_ulps(got: f64, want: f64, ulps: f64) -> bool {
    (got - want).abs() <= ulps * f64::EPSILON * want.abs()
}

#[test]
fn sizes_the_review_found_wrong() {
    let flat = Aabb::new(DVec3::ZERO, DVec3::new(1e200, 1e200, 0.0)).unwrap();
    assert_eq!(flat.volume(), 0.0);
    let slab = Aabb::new(DVec3::ZERO, DVec3::new(1e200, 1e200, 1e-200)).unwrap();
    assert!(close_in_ulps(slab.volume(), 1e200, 4.0), "{}", slab.volume());
    let needle = Aabb::new(DVec3::new(-1e308, 0.0, 0.0), DVec3::new(1e308, 0.0, 0.0)).unwrap();
    assert_eq!(needle.surface_area(), 0.0);
    assert_eq!(needle.volume(), 0.0);
    let wide = Aabb::new(DVec3::new(-1e308, 0.0, 0.0), DVec3::new(1e308, 1e-300, 1.0)).unwrap();
    assert!(close_in_ulps(wide.volume(), 2e8, 8.0), "{}", wide.volume());
    let thin = Aabb::new(DVec3::ZERO, DVec3::new(1e-160, 1e-160, 1e300)).unwrap();
    assert!(close_in_ulps(thin.volume(), exact_product(&[1e-160, 1e-160, 1e300]), 4.0), "{}", thin.volume());
    let e = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::new(1e200, 1e200, 1e-200)).unwrap();
    assert!(close_in_ulps(e.volume(), 4.0 / 3.0 * std::f64::consts::PI * 1e200, 8.0), "{}", e.volume());
    assert!(matches!(
        Plane::from_point_normal(DVec3::splat(1.5e308), DVec3::ONE),
        Err(GeometryError::NonFinite { .. })
    ));
    let tiny = Segment::new(DVec3::new(3e-200, 0.0, 0.0), DVec3::new(0.0, 4e-200, 0.0)).unwrap();
    assert!(close_in_ulps(tiny.length(), 5e-200, 4.0), "{}", tiny.length());
    let huge = Segment::new(DVec3::new(3e200, 0.0, 0.0), DVec3::new(0.0, 4e200, 0.0)).unwrap();
    assert!(close_in_ulps(huge.length(), 5e200, 4.0), "{}", huge.length());
    let across = Segment::new(DVec3::new(-1e308, 0.0, 0.0), DVec3::new(1e308, 0.0, 0.0)).unwrap();
    assert_eq!(across.length(), f64::INFINITY, "2e308 is beyond the range");
    let far =
        Triangle::new(DVec3::new(1e308, 0.0, 0.0), DVec3::new(1e308, 3.0, 0.0), DVec3::new(1e308, 0.0, 3.0));
    assert!(close_in_ulps(far.centroid().x, 1e308, 4.0) && far.centroid().y == 1.0, "{}", far.centroid());
    let t =
        Triangle::new(DVec3::ZERO, DVec3::new(4.0, 1.0, 0.0) * 1e-162, DVec3::new(1.0, 3.0, 2.0) * 1e-162);
    let want = DVec3::new(2.0, -8.0, 11.0) / 189f64.sqrt();
    let got = t.unit_normal().expect("a proper triangle");
    assert!((got - want).length() < 1e-15, "{got} vs {want}");
}

proptest! {
    #![proptest_config(config(512))]

    /// A triangle scaled by `2^k` (exactly) has the same unit normal, bit for bit, and its
    /// area times `4^k` (exactly, while that stays normal), from `2^-1000` to `2^1000`.
    #[test]
    fn triangle_normals_and_areas_at_every_scale(
        a in vec3(-1.0..1.0f64),
        b in vec3(-1.0..1.0f64),
        c in vec3(-1.0..1.0f64),
        k in -1000i32..1000,
    ) {
        let unit = Triangle::new(a, b, c);
        let scaled = Triangle::new(a * 2f64.powi(k), b * 2f64.powi(k), c * 2f64.powi(k));
        prop_assert_eq!(scaled.unit_normal(), unit.unit_normal());
        if unit.area() > 1e-10 && (-500..500).contains(&k) {
            prop_assert_eq!(scaled.area(), unit.area() * 2f64.powi(2 * k));
        }
        // At unit scale, against the plain formula.
        let plain = (b - a).cross(c - a);
        if plain.length() > 1e-6 {
            let n = unit.unit_normal().unwrap();
            prop_assert!((n - plain.normalize()).length() < 1e-14, "{} vs {}", n, plain.normalize());
            prop_assert!(close_in_ulps(unit.area(), 0.5 * plain.length(), 16.0));
        }
    }

    /// Box volumes and areas against exact rational products, for extents from `2^-340` to
    /// `2^340` each (products from `2^-1020` to `2^1020`), zero extents included.
    #[test]
    fn box_volumes_vs_exact_products(
        m in [1.0..2.0f64, 1.0..2.0, 1.0..2.0],
        k in [-340i32..340, -340..340, -340..340],
        flat in 0usize..4,
    ) {
        let mut e: [f64; 3] = std::array::from_fn(|i| m[i] * 2f64.powi(k[i]));
        if flat < 3 {
            e[flat] = 0.0;
        }
        let b = Aabb::new(DVec3::ZERO, DVec3::from_array(e)).unwrap();
        let volume = exact_product(&e);
        prop_assert!(b.volume() == volume || close_in_ulps(b.volume(), volume, 4.0), "{} vs {}", b.volume(), volume);
        let area = 2.0 * (exact_product(&[e[0], e[1]]) + exact_product(&[e[1], e[2]]) + exact_product(&[e[2], e[0]]));
        let got = b.surface_area();
        prop_assert!(got == area || close_in_ulps(got, area, 8.0), "{} vs {}", got, area);
    }
}
