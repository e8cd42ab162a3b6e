//! Refused input: meshes that bound no outward solid, non-finite points (with the index of the
//! first one), invalid configurations and singular poses.

mod common;

use common::unit_cube;
use contact_core::PointContainment;
use fmm_dlp::{DlpError, ExactDlp, FmmConfig, FmmDlp, TreeDepth};
use geometry_core::generators::octa_sphere;
use geometry_core::{DAffine3, DMat3, DVec3, SolidError, TriMesh};

fn open_mesh() -> TriMesh {
    let (vertices, mut faces) = octa_sphere(2).unwrap().into_parts();
    faces.remove(7);
    TriMesh::new(vertices, faces).unwrap()
}

#[test]
fn meshes_that_bound_no_outward_solid_are_refused() {
    let open = open_mesh();
    assert!(matches!(open.require_solid(), Err(SolidError::Open { .. })));
    let inward = octa_sphere(2).unwrap().flipped();
    let inward_cube = unit_cube().flipped();
    for (what, mesh, open) in
        [("open", open, true), ("inward", inward, false), ("inward cube", inward_cube, false)]
    {
        let check = |e: DlpError, constructor: &str| {
            let ok = if open {
                matches!(e, DlpError::NotSolid(SolidError::Open { .. }))
            } else {
                matches!(e, DlpError::NotSolid(SolidError::InwardFacing { .. }))
            };
            assert!(ok, "{what} mesh, {constructor}: {e:?}");
        };
        check(ExactDlp::new(mesh.clone()).expect_err("ExactDlp accepted it"), "ExactDlp");
        check(FmmDlp::new(mesh.clone(), FmmConfig::default()).expect_err("FmmDlp accepted it"), "FmmDlp");
    }
}

fn points_with_bad(bad: &[(usize, DVec3)], n: usize) -> Vec<DVec3> {
    let mut points: Vec<DVec3> = (0..n).map(|i| DVec3::new(0.1 * i as f64 - 0.5, 0.2, -0.1)).collect();
    for &(i, p) in bad {
        points[i] = p;
    }
    points
}

fn assert_index<T: std::fmt::Debug>(r: Result<T, DlpError>, index: usize, what: &str) {
    match r {
        Err(DlpError::NonFinitePoint { index: i }) => assert_eq!(i, index, "{what}"),
        other => panic!("{what}: expected NonFinitePoint {{ index: {index} }}, got {other:?}"),
    }
}

#[test]
fn non_finite_points_are_reported_with_the_first_index() {
    let exact = ExactDlp::new(octa_sphere(2).unwrap()).unwrap();
    let fmm = FmmDlp::new(octa_sphere(3).unwrap(), FmmConfig::default()).unwrap();
    let pose = DAffine3::from_translation(DVec3::new(0.5, 0.0, 0.0));
    let nan = DVec3::new(0.0, f64::NAN, 0.0);
    let inf = DVec3::new(f64::INFINITY, 0.0, 0.0);
    let neg_inf = DVec3::new(0.0, 0.0, f64::NEG_INFINITY);
    let cases = [
        (vec![(5, nan)], 5),
        (vec![(0, inf)], 0),
        (vec![(3, neg_inf), (7, nan)], 3),
        (vec![(11, nan), (2, inf), (9, inf)], 2),
        (vec![(19, DVec3::splat(f64::NAN))], 19),
    ];
    for (bad, index) in cases {
        let points = points_with_bad(&bad, 20);
        assert_index(exact.potentials(&points), index, "ExactDlp::potentials");
        assert_index(exact.contains_batch(&points), index, "ExactDlp::contains_batch");
        assert_index(fmm.evaluate(&points), index, "FmmDlp::evaluate");
        assert_index(fmm.potentials(&points), index, "FmmDlp::potentials");
        assert_index(fmm.classify(&points), index, "FmmDlp::classify");
        assert_index(fmm.classify_with_stats(&points), index, "FmmDlp::classify_with_stats");
        assert_index(fmm.classify_posed(&pose, &points), index, "FmmDlp::classify_posed");
    }
    assert_index(exact.potential(nan), 0, "ExactDlp::potential");
    assert_index(exact.contains(inf), 0, "ExactDlp::contains");
    // Finite points far away are fine within the exact range.
    let far = [DVec3::splat(1e60), DVec3::new(-1e-60, 0.0, 0.0)];
    assert_eq!(exact.potentials(&far).unwrap().len(), 2);
    assert_eq!(fmm.classify(&far).unwrap().len(), 2);
    // Empty batches are fine.
    assert!(fmm.evaluate(&[]).unwrap().potentials.is_empty());
    assert!(exact.potentials(&[]).unwrap().is_empty());
}

/// Points with a coordinate outside the exact range (as for mesh vertices) are refused with the
/// index of the first: one point at 1e155 in a batch made the FMM's groups infinite and changed
/// every other point's answer, and `ExactDlp::potential` returned NaN from 1e102 on.
#[test]
fn points_outside_the_exact_range_are_refused_with_the_first_index() {
    let exact = ExactDlp::new(octa_sphere(2).unwrap()).unwrap();
    let fmm = FmmDlp::new(octa_sphere(3).unwrap(), FmmConfig::default()).unwrap();
    let pose = DAffine3::from_translation(DVec3::new(0.5, 0.0, 0.0));
    let out_of_range = |r: Result<Vec<_>, DlpError>, index: usize, what: &str| match r {
        Err(DlpError::PointOutOfRange { index: i }) => assert_eq!(i, index, "{what}"),
        other => panic!("{what}: expected PointOutOfRange {{ index: {index} }}, got {other:?}"),
    };
    for (bad, index) in [
        (vec![(3, DVec3::new(1e155, 0.0, 0.0))], 3),
        (vec![(0, DVec3::new(0.5, 1e-200, 0.0))], 0),
        (vec![(6, DVec3::new(0.0, 0.0, -1e71)), (9, DVec3::new(5e-324, 0.0, 0.0))], 6),
    ] {
        let points = points_with_bad(&bad, 12);
        out_of_range(exact.potentials(&points), index, "ExactDlp::potentials");
        out_of_range(
            exact.contains_batch(&points).map(|c| c.into_iter().map(|_| 0.0).collect()),
            index,
            "contains_batch",
        );
        out_of_range(fmm.potentials(&points), index, "FmmDlp::potentials");
        out_of_range(fmm.classify(&points).map(|c| c.into_iter().map(|_| 0.0).collect()), index, "classify");
        out_of_range(
            fmm.classify_posed(&pose, &points).map(|c| c.into_iter().map(|_| 0.0).collect()),
            index,
            "classify_posed",
        );
    }
    assert!(matches!(
        exact.potential(DVec3::new(1e102, 0.0, 0.0)),
        Err(DlpError::PointOutOfRange { index: 0 })
    ));
    assert!(matches!(exact.contains(DVec3::splat(1e-100)), Err(DlpError::PointOutOfRange { index: 0 })));
    // A non-finite point is reported as such, before or after a point out of range (the
    // contract of `PointContainment::contains_batch`, followed by every batch method).
    let points = points_with_bad(&[(1, DVec3::new(f64::INFINITY, 0.0, 0.0)), (5, DVec3::splat(1e200))], 8);
    assert_index(fmm.classify(&points), 1, "non-finite before out of range");
    let points =
        points_with_bad(&[(2, DVec3::new(1e300, 0.0, 0.0)), (4, DVec3::new(f64::NAN, 0.0, 0.0))], 12);
    assert_index(exact.potentials(&points), 4, "ExactDlp::potentials");
    assert_index(exact.contains_batch(&points), 4, "ExactDlp::contains_batch");
    assert_index(fmm.potentials(&points), 4, "FmmDlp::potentials");
    assert_index(fmm.classify(&points), 4, "FmmDlp::classify");
    assert_index(fmm.classify_posed(&pose, &points), 4, "FmmDlp::classify_posed");
}

#[test]
fn invalid_configurations_are_refused() {
    let mesh = octa_sphere(2).unwrap();
    let base = FmmConfig::default();
    let bad = [
        ("order 31", FmmConfig { order: 31, ..base }),
        ("order huge", FmmConfig { order: usize::MAX, ..base }),
        ("separation 1", FmmConfig { separation: 1.0, ..base }),
        ("separation 0.5", FmmConfig { separation: 0.5, ..base }),
        ("separation -3", FmmConfig { separation: -3.0, ..base }),
        ("separation NaN", FmmConfig { separation: f64::NAN, ..base }),
        ("separation inf", FmmConfig { separation: f64::INFINITY, ..base }),
        ("points_per_leaf 0", FmmConfig { points_per_leaf: 0, ..base }),
        ("Fixed(0)", FmmConfig { depth: TreeDepth::Fixed(0), ..base }),
    ];
    for (what, cfg) in bad {
        match FmmDlp::new(mesh.clone(), cfg) {
            Err(DlpError::InvalidConfig { .. }) => {}
            Err(e) => panic!("{what}: expected InvalidConfig, got {e:?}"),
            Ok(_) => panic!("{what}: accepted"),
        }
    }
    // The limits themselves are valid, and the default is p = 5, d = 3, PreChosen, 8.
    assert_eq!(base.order, 5);
    assert_eq!(base.separation, 3.0);
    assert!(matches!(base.depth, TreeDepth::PreChosen));
    assert_eq!(base.points_per_leaf, 8);
    let edge = FmmConfig { order: 30, separation: 1.0 + f64::EPSILON * 4.0, points_per_leaf: 1, ..base };
    let fmm = FmmDlp::new(mesh.clone(), edge).unwrap();
    let points = [DVec3::ZERO, DVec3::splat(2.0), DVec3::new(0.99, 0.0, 0.0)];
    assert_eq!(
        fmm.classify(&points).unwrap(),
        vec![
            contact_core::Containment::Inside,
            contact_core::Containment::Outside,
            contact_core::Containment::Inside
        ]
    );
}

#[test]
fn singular_poses_are_refused() {
    let fmm = FmmDlp::new(octa_sphere(2).unwrap(), FmmConfig::default()).unwrap();
    let points = [DVec3::ZERO, DVec3::X];
    let singular = [
        DAffine3::from_mat3_translation(DMat3::ZERO, DVec3::ONE),
        DAffine3::from_mat3(DMat3::from_cols(DVec3::X, DVec3::Y, DVec3::ZERO)),
        DAffine3::from_mat3(DMat3::from_cols(DVec3::X, DVec3::new(1.0, 1.0, 0.0), DVec3::new(2.0, 1.0, 0.0))),
    ];
    for pose in singular {
        match fmm.classify_posed(&pose, &points) {
            Err(DlpError::InvalidPose) => {}
            other => panic!("singular pose {pose:?}: expected InvalidPose, got {other:?}"),
        }
    }
    let non_finite = DAffine3::from_translation(DVec3::new(f64::NAN, 0.0, 0.0));
    assert!(fmm.classify_posed(&non_finite, &points).is_err(), "a NaN pose was accepted");
    // A pose whose inverse overflows is refused as a pose, not blamed on the points.
    let vanishing = DAffine3::from_scale(DVec3::splat(1e-310));
    assert!(matches!(fmm.classify_posed(&vanishing, &points), Err(DlpError::InvalidPose)));
}

/// Poses whose determinant overflows or underflows are still invertible: a scale by 1e103
/// (determinant 1e309) of a body of size 1e-40, and by 1e-110 (1e-330) of one of size 1e45.
/// The determinant of the first overflowed while its cofactors did not, the inverse came out
/// all zeros and every point was mapped to the body's origin; the second was refused (found
/// by an adversarial review).
#[test]
fn poses_with_extreme_determinants_are_inverted() {
    use contact_core::Containment::{Inside, Outside};
    for (size, scale) in [(1e-40, 1e103), (1e45, 1e-110), (1.0, 1e60), (1.0, 1e-60)] {
        let body = octa_sphere(3).unwrap().transformed(&DAffine3::from_scale(DVec3::splat(size))).unwrap();
        let fmm = FmmDlp::new(body, FmmConfig::default()).unwrap();
        let pose = DAffine3::from_scale(DVec3::splat(scale));
        let r = size * scale;
        let world = [
            DVec3::ZERO,
            DVec3::new(0.5 * r, 0.0, 0.0),
            DVec3::new(3.0 * r, 0.0, 0.0),
            DVec3::new(-2.0 * r, 0.3 * r, 0.0),
        ];
        assert_eq!(
            fmm.classify_posed(&pose, &world).unwrap(),
            [Inside, Inside, Outside, Outside],
            "body {size:e}, pose {scale:e}"
        );
    }
}

/// A batch with a point out of the exact range before a non-finite one reports the non-finite
/// one, as `PointContainment::contains_batch` promises (it reported the first out of range).
#[test]
fn non_finite_points_are_reported_before_points_out_of_range() {
    let exact = ExactDlp::new(octa_sphere(2).unwrap()).unwrap();
    let fmm = FmmDlp::new(octa_sphere(2).unwrap(), FmmConfig::default()).unwrap();
    let points = [DVec3::ZERO, DVec3::new(1e-80, 0.0, 0.0), DVec3::new(f64::NAN, 0.0, 0.0)];
    assert_eq!(exact.contains_batch(&points), Err(DlpError::NonFinitePoint { index: 2 }));
    assert_eq!(fmm.contains_batch(&points), Err(DlpError::NonFinitePoint { index: 2 }));
    assert_eq!(fmm.classify(&points), Err(DlpError::NonFinitePoint { index: 2 }));
    assert_eq!(fmm.potentials(&points), Err(DlpError::NonFinitePoint { index: 2 }));
    assert_eq!(fmm.classify_with_stats(&points), Err(DlpError::NonFinitePoint { index: 2 }));
    assert!(matches!(fmm.evaluate(&points), Err(DlpError::NonFinitePoint { index: 2 })));
    assert_eq!(fmm.order_for_accuracy(&points, 1e-3), Err(DlpError::NonFinitePoint { index: 2 }));
    assert_eq!(exact.contains_batch(&points[..2]), Err(DlpError::PointOutOfRange { index: 1 }));
}
