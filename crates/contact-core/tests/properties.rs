//! Property tests for contact-core's reference implementations against independent oracles.

use contact_core::{
    AllPairs, BroadPhase, BroadPhaseError, Contact, ContactError, ContactGenerator, Containment,
    NonFinitePoint, PointContainment, SphereContact,
};
use geometry_core::{Aabb, DVec3, Sphere};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

fn arb_point(range: f64) -> impl Strategy<Value = DVec3> {
    (-range..range, -range..range, -range..range).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

/// Boxes on a coarse integer lattice so that exact touching happens often.
fn arb_box() -> impl Strategy<Value = Aabb> {
    ((-4i32..4, -4i32..4, -4i32..4), (0i32..3, 0i32..3, 0i32..3)).prop_map(|((x, y, z), (w, h, d))| {
        let min = DVec3::new(f64::from(x), f64::from(y), f64::from(z));
        Aabb::new(min, min + DVec3::new(f64::from(w), f64::from(h), f64::from(d))).unwrap()
    })
}

#[derive(Debug, Clone)]
enum Op {
    Insert(Aabb),
    Remove(usize),
    Update(usize, Aabb),
}

fn arb_ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![
            3 => arb_box().prop_map(Op::Insert),
            1 => any::<usize>().prop_map(Op::Remove),
            2 => (any::<usize>(), arb_box()).prop_map(|(i, b)| Op::Update(i, b)),
        ],
        1..60,
    )
}

/// Interval-by-interval overlap test written independently of `Aabb::overlaps`.
fn boxes_overlap(a: &Aabb, b: &Aabb) -> bool {
    (0..3).all(|k| a.min[k] <= b.max[k] && b.min[k] <= a.max[k])
}

proptest! {
    /// After any history of inserts, removes and updates, `find_pairs` reports exactly the
    /// overlapping pairs of the live boxes, each once, with distinct members.
    #[test]
    fn all_pairs_matches_model(ops in arb_ops()) {
        let mut broad = AllPairs::new();
        let mut model: BTreeMap<_, Aabb> = BTreeMap::new();
        let mut live = Vec::new();
        for op in ops {
            match op {
                Op::Insert(b) => {
                    let h = broad.insert(b).unwrap();
                    prop_assert!(model.insert(h, b).is_none(), "handle reused while live");
                    live.push(h);
                }
                Op::Remove(i) if !live.is_empty() => {
                    let h = live.swap_remove(i % live.len());
                    broad.remove(h).unwrap();
                    model.remove(&h);
                    prop_assert_eq!(broad.remove(h), Err(BroadPhaseError::UnknownHandle));
                    prop_assert!(broad.aabb(h).is_none());
                }
                Op::Update(i, b) if !live.is_empty() => {
                    let h = live[i % live.len()];
                    broad.update(h, b).unwrap();
                    model.insert(h, b);
                }
                _ => {}
            }
            prop_assert_eq!(broad.len(), model.len());
        }
        let mut pairs = Vec::new();
        broad.find_pairs(&mut pairs);
        let reported: BTreeSet<_> = pairs.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
        prop_assert_eq!(reported.len(), pairs.len(), "a pair was reported twice");
        let entries: Vec<_> = model.iter().collect();
        let mut expected = BTreeSet::new();
        for (i, (ha, a)) in entries.iter().enumerate() {
            for (hb, b) in &entries[i + 1..] {
                if boxes_overlap(a, b) {
                    expected.insert((**ha.min(hb), **ha.max(hb)));
                }
            }
        }
        prop_assert_eq!(reported, expected);
    }

    /// Sphere contact against closed forms: existence iff the balls intersect; witnesses on
    /// the surfaces; swapping the arguments flips the contact.
    #[test]
    fn sphere_contact_closed_form(ca in arb_point(3.0), cb in arb_point(3.0), ra in 0.1f64..2.0, rb in 0.1f64..2.0) {
        let (a, b) = (Sphere::new(ca, ra).unwrap(), Sphere::new(cb, rb).unwrap());
        let ab = SphereContact.contact(&a, &b).unwrap();
        let ba = SphereContact.contact(&b, &a).unwrap();
        let d = ca.distance(cb);
        prop_assert_eq!(ab.is_some(), d <= ra + rb);
        if let (Some(ab), Some(ba)) = (ab, ba) {
            prop_assert!((ab.normal.length() - 1.0).abs() < 1e-12);
            prop_assert!((ab.depth - (ra + rb - d)).abs() < 1e-12);
            prop_assert!((ab.witness_a().distance(ca) - ra).abs() < 1e-9);
            prop_assert!((ab.witness_b().distance(cb) - rb).abs() < 1e-9);
            // The normal points from A's centre towards B's.
            prop_assert!(ab.normal.dot(cb - ca) >= 0.0);
            let flipped = ab.flipped();
            prop_assert!((flipped.normal - ba.normal).length() < 1e-12);
            prop_assert!((flipped.point - ba.point).length() < 1e-9);
            prop_assert!((flipped.depth - ba.depth).abs() < 1e-12);
        }
    }

    /// Every input scaled by a power of two (exact) from 2⁻⁹⁰⁰ to 2⁹⁰⁰: the same contact,
    /// scaled (squared lengths used to overflow or underflow beyond about 1e±154, giving wrong
    /// normals, depths and misses: found by an independent review).
    #[test]
    fn sphere_contact_at_every_scale(ca in arb_point(3.0), cb in arb_point(3.0), ra in 0.1f64..2.0, rb in 0.1f64..2.0, k in -900i32..=900) {
        let s = 2f64.powi(k);
        let unit = SphereContact.contact(&Sphere::new(ca, ra).unwrap(), &Sphere::new(cb, rb).unwrap()).unwrap();
        let scaled = SphereContact.contact(&Sphere::new(ca * s, ra * s).unwrap(), &Sphere::new(cb * s, rb * s).unwrap()).unwrap();
        prop_assert_eq!(scaled.map(|c| (c.point, c.normal, c.depth)), unit.map(|c| (c.point * s, c.normal, c.depth * s)));
    }

    /// A normal of any finite non-zero length is a direction.
    #[test]
    fn contact_normals_of_any_length(n in arb_point(1.0), k in -1070i32..=1020) {
        prop_assume!(n != DVec3::ZERO);
        let unit = Contact::new(DVec3::ZERO, n, 0.1).unwrap();
        let scaled = Contact::new(DVec3::ZERO, n * 2f64.powi(k), 0.1);
        // Below the normal range, scaling loses low bits: the direction then agrees closely.
        if k >= -1000 {
            prop_assert_eq!(scaled, Ok(unit));
        } else if let Ok(c) = scaled {
            prop_assert!((c.normal - unit.normal).length() < 1e-3);
        }
    }

    /// Box containment against per-coordinate comparisons; the batch agrees with single queries.
    #[test]
    fn aabb_containment(b in arb_box(), pts in prop::collection::vec((-5i32..5, -5i32..5, -5i32..5), 0..40)) {
        let pts: Vec<DVec3> = pts.into_iter().map(|(x, y, z)| DVec3::new(f64::from(x), f64::from(y), f64::from(z)) * 0.5).collect();
        let batch = b.contains_batch(&pts).unwrap();
        for (p, got) in pts.iter().zip(&batch) {
            let inside = (0..3).all(|k| b.min[k] < p[k] && p[k] < b.max[k]);
            let outside = (0..3).any(|k| p[k] < b.min[k] || p[k] > b.max[k]);
            let expected = if inside { Containment::Inside } else if outside { Containment::Outside } else { Containment::OnBoundary };
            prop_assert_eq!(*got, expected);
            prop_assert_eq!(b.contains(*p).unwrap(), expected);
        }
    }
}

#[test]
fn contact_errors() {
    let nan = DVec3::splat(f64::NAN);
    assert_eq!(Contact::new(nan, DVec3::X, 0.0), Err(ContactError::NonFinite { what: "point" }));
    assert_eq!(Contact::new(DVec3::ZERO, nan, 0.0), Err(ContactError::NonFinite { what: "normal" }));
    assert_eq!(
        Contact::new(DVec3::ZERO, DVec3::X, f64::INFINITY),
        Err(ContactError::NonFinite { what: "depth" })
    );
    assert_eq!(Contact::new(DVec3::ZERO, DVec3::ZERO, 0.0), Err(ContactError::ZeroNormal));
    // Tiny and huge normals are directions (they were refused as zero).
    assert_eq!(Contact::new(DVec3::ZERO, DVec3::new(1e-300, 0.0, 0.0), 0.1).map(|c| c.normal), Ok(DVec3::X));
    assert_eq!(Contact::new(DVec3::ZERO, DVec3::new(0.0, 1e300, 0.0), 0.1).map(|c| c.normal), Ok(DVec3::Y));
}

/// Balls whose centres and radii are near the largest double: contacts are found and finite.
#[test]
fn sphere_contact_near_the_largest_double() {
    let m = f64::MAX;
    let (a, b) =
        (Sphere::new(DVec3::new(-m, 0.0, 0.0), m).unwrap(), Sphere::new(DVec3::new(m, 0.0, 0.0), m).unwrap());
    let c = SphereContact.contact(&a, &b).unwrap().unwrap();
    assert_eq!(c.normal, DVec3::X);
    assert!(c.depth.is_finite() && c.point.is_finite());
    let far = Sphere::new(DVec3::new(m, 0.0, 0.0), m * 0.49).unwrap();
    assert_eq!(
        SphereContact.contact(&Sphere::new(DVec3::new(-m, 0.0, 0.0), m * 0.49).unwrap(), &far).unwrap(),
        None
    );
}

#[test]
fn broad_phase_rejects_invalid_boxes_and_foreign_handles() {
    let mut broad = AllPairs::new();
    let inverted = Aabb { min: DVec3::ONE, max: DVec3::ZERO };
    assert!(matches!(broad.insert(inverted), Err(BroadPhaseError::InvalidAabb(_))));
    let nan = Aabb { min: DVec3::ZERO, max: DVec3::splat(f64::NAN) };
    assert!(matches!(broad.insert(nan), Err(BroadPhaseError::InvalidAabb(_))));
    let h = broad.insert(Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap()).unwrap();
    assert!(matches!(broad.update(h, inverted), Err(BroadPhaseError::InvalidAabb(_))));
    // A handle from another structure with more slots is unknown here.
    let mut other = AllPairs::new();
    let mut foreign = other.insert(Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap()).unwrap();
    for _ in 0..3 {
        foreign = other.insert(Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap()).unwrap();
    }
    assert_eq!(broad.remove(foreign), Err(BroadPhaseError::UnknownHandle));
    assert!(broad.len() == 1 && !broad.is_empty());
}

#[test]
fn containment_rejects_non_finite_points_with_index() {
    let b = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
    let pts = [DVec3::ZERO, DVec3::ONE, DVec3::new(0.0, f64::INFINITY, 0.0), DVec3::splat(f64::NAN)];
    assert_eq!(b.contains_batch(&pts), Err(NonFinitePoint { index: 2 }));
    assert_eq!(b.contains(pts[3]), Err(NonFinitePoint { index: 0 }));
}

/// An implementation that defines only `contains` gets the batch index of the first
/// non-finite point from the default `contains_batch` (it reported 0: found by an independent
/// review), and the other points' answers otherwise.
#[test]
fn default_batch_reports_the_batch_index() {
    struct Ball;
    impl PointContainment for Ball {
        type Error = NonFinitePoint;
        fn contains(&self, p: DVec3) -> Result<Containment, NonFinitePoint> {
            if !p.is_finite() {
                return Err(NonFinitePoint { index: 0 });
            }
            let d = p.length_squared();
            Ok(if d < 1.0 {
                Containment::Inside
            } else if d > 1.0 {
                Containment::Outside
            } else {
                Containment::OnBoundary
            })
        }
    }
    let pts = [
        DVec3::ZERO,
        DVec3::X,
        DVec3::splat(3.0),
        DVec3::new(f64::NAN, 0.0, 0.0),
        DVec3::splat(f64::INFINITY),
    ];
    assert_eq!(Ball.contains_batch(&pts), Err(NonFinitePoint { index: 3 }));
    assert_eq!(
        Ball.contains_batch(&pts[..3]),
        Ok(vec![Containment::Inside, Containment::OnBoundary, Containment::Outside])
    );
    assert_eq!(Ball.contains_batch(&[]), Ok(vec![]));
}

#[test]
fn concentric_spheres_use_documented_normal() {
    let a = Sphere::new(DVec3::ONE, 1.0).unwrap();
    let b = Sphere::new(DVec3::ONE, 2.0).unwrap();
    let c = SphereContact.contact(&a, &b).unwrap().unwrap();
    assert_eq!(c.normal, DVec3::X);
    assert_eq!(c.depth, 3.0);
}
