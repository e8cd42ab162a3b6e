//! `ExactDlp` against oracles written here, independently of the crate:
//!
//! 1. off the surface (distance ≥ 1e-3, brute force), `J` is 1 inside and 0 outside to 1e-12, with
//!    inside/outside from an exact half-space test (octahedral spheres, levels 0–5, and convex
//!    hulls of random points on a sphere) or from `raycross` (the gyroid foam);
//! 2. on the surface of solids made of unit boxes (the cube, a finely cut cube, an L-shaped prism
//!    with a reflex edge), `J` is the fraction of a small ball inside the solid: a product of
//!    per-axis factors ½ per box, summed over the boxes (½ face, ¼ edge, ⅛ corner, ¾ reflex edge,
//!    ⅜ reflex corner); on the regular octahedron the dihedral angle `acos(−1/3)` gives the edge
//!    value and the spherical excess the vertex value;
//! 3. `J` is invariant under exact (dyadic) translations and the 24 rotations of the cube;
//! 4. the `PointContainment` answers equal `raycross`'s, including `OnBoundary` on the surface,
//!    and `potentials` / `contains_batch` equal the one-point calls;
//! 5. points 1e-15 … 1e-7 from faces, edges and vertices are never `OnBoundary` (the trait's
//!    contract: exact wherever it claims `OnBoundary`), again against `raycross`.

mod common;

use common::{
    DEBUG, Surface, boxes_value, cube_rotations, l_prism, lattice, near_feature_points, near_surface_points,
    random_points, rng, sphere_points, subdivided_cube, unit_cube,
};
use contact_core::{Containment, PointContainment};
use fmm_dlp::{ExactDlp, containment_of};
use geometry_core::generators::{FoamSize, foam, octa_sphere};
use geometry_core::{Aabb, DAffine3, DVec3, TriMesh};
use raycross::RayCrossing;
use std::f64::consts::PI;

const TOL: f64 = 1e-12;

fn cube_boxes() -> Vec<(DVec3, DVec3)> {
    vec![(DVec3::ZERO, DVec3::ONE)]
}

fn l_boxes() -> Vec<(DVec3, DVec3)> {
    vec![
        (DVec3::ZERO, DVec3::ONE),
        (DVec3::new(1.0, 0.0, 0.0), DVec3::new(2.0, 1.0, 1.0)),
        (DVec3::new(0.0, 1.0, 0.0), DVec3::new(1.0, 2.0, 1.0)),
    ]
}

/// Checks `J = expected` (1 or 0) at points with distance ≥ 1e-3 from the surface; returns the
/// numbers of inside and outside points checked.
fn check_off_surface(
    dlp: &ExactDlp,
    points: &[DVec3],
    expected: impl Fn(DVec3) -> Containment,
    what: &str,
) -> (usize, usize) {
    let surface = Surface::new(dlp.mesh());
    let (mut inside, mut outside) = (0, 0);
    for &p in points {
        if surface.distance(p) < 1e-3 {
            continue;
        }
        let want = match expected(p) {
            Containment::Inside => {
                inside += 1;
                1.0
            }
            Containment::Outside => {
                outside += 1;
                0.0
            }
            Containment::OnBoundary => panic!("{what}: oracle says {p} is on the surface"),
        };
        let j = dlp.potential(p).unwrap();
        assert!((j - want).abs() <= TOL, "{what}: J({p}) = {j}, expected {want}");
        // The oracle's own winding number agrees (a check of the oracle, not of the crate).
        assert!((surface.winding(p) - want).abs() < 1e-9, "{what}: oracle winding disagrees at {p}");
    }
    (inside, outside)
}

#[test]
fn octa_spheres_are_indicators_off_the_surface() {
    let mut r = rng(1);
    let n = if DEBUG { 300 } else { 1000 };
    for level in 0..=5 {
        let mesh = octa_sphere(level).unwrap();
        let surface = Surface::new(&mesh);
        let dlp = ExactDlp::new(mesh.clone()).unwrap();
        let region = Aabb::new(DVec3::splat(-1.3), DVec3::splat(1.3)).unwrap();
        let mut points = random_points(&mut r, &region, n);
        points.extend(near_surface_points(&mut r, &mesh, n, 1e-3, 1e-2));
        let (inside, outside) = check_off_surface(
            &dlp,
            &points,
            |p| surface.convex_classify(p),
            &format!("octa_sphere({level})"),
        );
        assert!(inside > n / 4 && outside > n / 4, "level {level}: {inside} inside, {outside} outside");
    }
}

#[test]
fn convex_hulls_are_indicators_off_the_surface() {
    let mut r = rng(2);
    for (seed, n) in [(0, 4), (1, 5), (2, 8), (3, 13), (4, 21), (5, 30), (6, 30)] {
        let mut pts = sphere_points(&mut r, n);
        // Stretch and move the body so that it is neither centred nor round.
        for p in &mut pts {
            *p = DVec3::new(p.x * 1.5, p.y, p.z * 0.7) + DVec3::new(0.3, -0.2, 0.1);
        }
        let mesh = common::convex_hull(&pts);
        let surface = Surface::new(&mesh);
        let dlp = ExactDlp::new(mesh.clone()).unwrap();
        let region = mesh.bounding_box().expanded(0.3).unwrap();
        let mut points = random_points(&mut r, &region, 300);
        points.extend(near_surface_points(&mut r, &mesh, 200, 1e-3, 5e-3));
        let (inside, outside) = check_off_surface(
            &dlp,
            &points,
            |p| surface.convex_classify(p),
            &format!("hull {seed} ({n} points)"),
        );
        assert!(inside > 20 && outside > 20, "hull {seed}: {inside} inside, {outside} outside");
    }
}

#[test]
fn foam_is_an_indicator_off_the_surface() {
    let mesh = foam(FoamSize::Small).unwrap();
    let ray = RayCrossing::new(mesh.clone()).unwrap();
    let dlp = ExactDlp::new(mesh.clone()).unwrap();
    let mut r = rng(3);
    let n = if DEBUG { 300 } else { 1000 };
    let region = Aabb::new(DVec3::splat(-1.1), DVec3::splat(1.1)).unwrap();
    let mut points = random_points(&mut r, &region, n);
    points.extend(near_surface_points(&mut r, &mesh, n / 2, 1e-3, 3e-3));
    let (inside, outside) = check_off_surface(&dlp, &points, |p| ray.contains(p).unwrap(), "foam");
    assert!(inside > n / 5 && outside > n / 5, "foam: {inside} inside, {outside} outside");
}

/// Every point of a dyadic lattice around the solid: on the surface, on the planes of faces
/// beyond the faces, on the lines of edges beyond the edges, and strictly inside or outside.
fn check_box_solid(mesh: &TriMesh, boxes: &[(DVec3, DVec3)], points: &[DVec3], what: &str) {
    let dlp = ExactDlp::new(mesh.clone()).unwrap();
    let mut values = std::collections::BTreeMap::<u64, usize>::new();
    for &p in points {
        let want = boxes_value(boxes, p);
        let j = dlp.potential(p).unwrap();
        assert!((j - want).abs() <= TOL, "{what}: J({p}) = {j}, expected {want}");
        *values.entry(want.to_bits()).or_default() += 1;
    }
    let seen: Vec<f64> = values.keys().map(|&b| f64::from_bits(b)).collect();
    println!("{what}: values checked {seen:?} (counts {:?})", values.values().collect::<Vec<_>>());
}

#[test]
fn unit_cube_surface_values() {
    let points = lattice(-0.25, 1.25, 0.125);
    check_box_solid(&unit_cube(), &cube_boxes(), &points, "unit cube");
    // Points on the shared edges and vertices of the cut faces are still face points (½).
    check_box_solid(&subdivided_cube(4), &cube_boxes(), &points, "cube cut 4 × 4");
    // The oracle covers the three surface values and both off-surface values.
    let values: Vec<f64> = points.iter().map(|&p| boxes_value(&cube_boxes(), p)).collect();
    for v in [0.0, 0.125, 0.25, 0.5, 1.0] {
        assert!(values.contains(&v));
    }
}

#[test]
fn l_prism_reflex_edge_values() {
    let points = lattice(-0.25, 2.25, 0.125);
    let boxes = l_boxes();
    // The oracle's reflex values.
    assert_eq!(boxes_value(&boxes, DVec3::new(1.0, 1.0, 0.5)), 0.75);
    assert_eq!(boxes_value(&boxes, DVec3::new(1.0, 1.0, 0.0)), 0.375);
    assert_eq!(boxes_value(&boxes, DVec3::new(1.0, 0.5, 0.5)), 1.0);
    check_box_solid(&l_prism(), &boxes, &points, "L prism");
}

#[test]
fn regular_octahedron_surface_values() {
    let dlp = ExactDlp::new(octa_sphere(0).unwrap()).unwrap();
    // Dihedral angle of the regular octahedron: normals (1,1,1)/√3 and (1,1,−1)/√3 meet at
    // acos(1/3), so the interior dihedral angle is π − acos(1/3) = acos(−1/3).
    let dihedral = (-1.0f64 / 3.0).acos();
    let edge = dihedral / (2.0 * PI);
    // A vertex sees a spherical quadrilateral with four angles equal to the dihedral angle:
    // excess 4·acos(−1/3) − 2π, which equals the square pyramid's 4·asin(sin²α), sin α = 1/√3.
    let vertex = (4.0 * dihedral - 2.0 * PI) / (4.0 * PI);
    assert!((4.0 * (1.0f64 / 3.0).asin() / (4.0 * PI) - vertex).abs() < 1e-15);
    let cases = [
        (DVec3::X, vertex),
        (-DVec3::Z, vertex),
        (DVec3::new(0.5, 0.5, 0.0), edge),
        (DVec3::new(0.0, -0.25, 0.75), edge),
        (DVec3::new(0.25, 0.25, 0.5), 0.5),
        (DVec3::new(-0.125, 0.5, -0.375), 0.5),
        // On the planes of faces, off the surface.
        (DVec3::new(1.5, 0.25, 0.25), 0.0),
        (DVec3::new(1.0, 1.0, 1.0), 0.0),
        // On the line of an edge, beyond the edge.
        (DVec3::new(1.5, 0.5, 0.0), 0.0),
        (DVec3::ZERO, 1.0),
    ];
    for (p, want) in cases {
        let j = dlp.potential(p).unwrap();
        assert!((j - want).abs() <= TOL, "octahedron: J({p}) = {j}, expected {want}");
    }
}

#[test]
fn invariant_under_dyadic_translations() {
    let shifts =
        [DVec3::new(0.5, -0.25, 3.0), DVec3::new(-8.0, 0.125, 1.75), DVec3::new(1024.0, -512.0, 64.5)];
    let meshes = [
        ("cube", unit_cube(), lattice(-0.25, 1.25, 0.25)),
        ("L prism", l_prism(), lattice(-0.25, 2.25, 0.25)),
        ("octahedron", octa_sphere(0).unwrap(), lattice(-1.25, 1.25, 0.25)),
    ];
    for (what, mesh, points) in meshes {
        let base = ExactDlp::new(mesh.clone()).unwrap().potentials(&points).unwrap();
        for t in shifts {
            let moved = ExactDlp::new(mesh.transformed(&DAffine3::from_translation(t)).unwrap()).unwrap();
            for (&p, &j) in points.iter().zip(&base) {
                let k = moved.potential(p + t).unwrap();
                assert!((j - k).abs() <= 1e-13, "{what} shifted by {t}: J({p}) = {j} but {k}");
            }
        }
    }
}

#[test]
fn invariant_under_cube_rotations() {
    let mut r = rng(4);
    let region = Aabb::new(DVec3::splat(-1.25), DVec3::splat(1.25)).unwrap();
    let mut sphere_points = random_points(&mut r, &region, 40);
    let sphere = octa_sphere(2).unwrap();
    sphere_points.extend(near_surface_points(&mut r, &sphere, 40, 1e-3, 1e-2));
    let centred_cube = unit_cube().transformed(&DAffine3::from_translation(DVec3::splat(-0.5))).unwrap();
    let meshes = [
        ("cube", centred_cube, lattice(-0.75, 0.75, 0.25)),
        ("octahedron", octa_sphere(0).unwrap(), lattice(-1.25, 1.25, 0.25)),
        ("octa_sphere(2)", sphere, sphere_points),
    ];
    for (what, mesh, points) in meshes {
        let base = ExactDlp::new(mesh.clone()).unwrap().potentials(&points).unwrap();
        for m in cube_rotations() {
            let turn = DAffine3::from_mat3(m);
            let turned = ExactDlp::new(mesh.transformed(&turn).unwrap()).unwrap();
            for (&p, &j) in points.iter().zip(&base) {
                let k = turned.potential(m * p).unwrap();
                assert!((j - k).abs() <= TOL, "{what} rotated by {m}: J({p}) = {j} but {k}");
            }
        }
    }
}

#[test]
fn containment_agrees_with_raycross() {
    let mut r = rng(5);
    let cases: Vec<(&str, TriMesh, Vec<DVec3>)> = vec![
        ("cube", unit_cube(), lattice(-0.25, 1.25, 0.125)),
        ("cube cut 8 × 8", subdivided_cube(8), lattice(-0.125, 1.125, 0.0625)),
        ("L prism", l_prism(), lattice(-0.25, 2.25, 0.125)),
        ("octahedron", octa_sphere(0).unwrap(), lattice(-1.25, 1.25, 0.125)),
        ("octa_sphere(3)", octa_sphere(3).unwrap(), Vec::new()),
    ];
    for (what, mesh, mut points) in cases {
        let region = mesh.bounding_box().expanded(0.2).unwrap();
        points.extend(random_points(&mut r, &region, 500));
        // Mesh vertices are on the surface whatever their coordinates.
        points.extend(mesh.vertices().iter().copied().step_by(3));
        let dlp = ExactDlp::new(mesh.clone()).unwrap();
        let ray = RayCrossing::new(mesh).unwrap();
        let want = ray.contains_batch(&points).unwrap();
        let got = dlp.contains_batch(&points).unwrap();
        let mut boundary = 0;
        for (i, &p) in points.iter().enumerate() {
            assert_eq!(got[i], want[i], "{what}: point {p}");
            assert_eq!(dlp.contains(p).unwrap(), got[i], "{what}: contains ≠ contains_batch at {p}");
            boundary += usize::from(want[i] == Containment::OnBoundary);
        }
        assert!(boundary > 0, "{what}: no boundary points tested");
    }
}

/// `PointContainment` promises exactness wherever it answers `OnBoundary`, so points strictly
/// inside or outside must not be reported on the boundary however close they are.
#[test]
fn containment_next_to_the_surface_agrees_with_raycross() {
    let mut r = rng(7);
    let cases = [("octa_sphere(3)", octa_sphere(3).unwrap()), ("foam", foam(FoamSize::Small).unwrap())];
    let mut failures = Vec::new();
    for (what, mesh) in cases {
        let dlp = ExactDlp::new(mesh.clone()).unwrap();
        let ray = RayCrossing::new(mesh.clone()).unwrap();
        for e in -15..=-8 {
            let lo = 10f64.powi(e);
            let mut points = near_surface_points(&mut r, &mesh, 100, lo, 10.0 * lo);
            points.extend(near_feature_points(&mut r, &mesh, 100, lo));
            let want = ray.contains_batch(&points).unwrap();
            let got = dlp.contains_batch(&points).unwrap();
            let bad: Vec<usize> = (0..points.len()).filter(|&i| got[i] != want[i]).collect();
            println!(
                "{what}, distance {lo:.0e}–{:.0e}: {} of {} differ from raycross",
                10.0 * lo,
                bad.len(),
                points.len()
            );
            if let Some(&i) = bad.first() {
                let j = dlp.potential(points[i]).unwrap();
                failures.push(format!(
                    "{what}: point {:?} is {:?} by raycross but {:?} (J = {j:e})",
                    points[i], want[i], got[i]
                ));
            }
        }
    }
    assert!(failures.is_empty(), "ExactDlp::contains disagrees with raycross:\n{}", failures.join("\n"));
}

#[test]
fn potentials_equal_single_calls_and_classify_by_tolerance() {
    let mut r = rng(6);
    let mesh = octa_sphere(3).unwrap();
    let dlp = ExactDlp::new(mesh.clone()).unwrap();
    let region = Aabb::new(DVec3::splat(-1.2), DVec3::splat(1.2)).unwrap();
    let mut points = random_points(&mut r, &region, 300);
    points.extend(near_surface_points(&mut r, &mesh, 100, 1e-9, 1e-6));
    points.extend(mesh.vertices().iter().copied());
    let batch = dlp.potentials(&points).unwrap();
    let contained = dlp.contains_batch(&points).unwrap();
    for (i, &p) in points.iter().enumerate() {
        let j = dlp.potential(p).unwrap();
        assert_eq!(batch[i].to_bits(), j.to_bits(), "potentials differs from potential at {p}");
        assert_eq!(contained[i], containment_of(j), "contains disagrees with containment_of(J) at {p}");
    }
    // containment_of itself.
    let tol = fmm_dlp::INDICATOR_TOLERANCE;
    assert_eq!(containment_of(1.0), Containment::Inside);
    assert_eq!(containment_of(1.0 + 0.5 * tol), Containment::Inside);
    assert_eq!(containment_of(0.0), Containment::Outside);
    assert_eq!(containment_of(-0.5 * tol), Containment::Outside);
    assert_eq!(containment_of(0.5 * tol), Containment::Outside);
    assert_eq!(containment_of(0.5), Containment::OnBoundary);
    assert_eq!(containment_of(1.0 - 2.0 * tol), Containment::OnBoundary);
    assert_eq!(containment_of(2.0 * tol), Containment::OnBoundary);
}

/// Points within rounding of an edge, or of a sliver's plane, whose summed solid angles are off
/// by O(1) although they are strictly inside or outside (found by a differential review against
/// an exact rational oracle and raycross): both evaluators decide them by exact parity.
#[test]
fn points_whose_potential_is_off_by_rounding_are_decided_exactly() {
    use contact_core::{Containment, PointContainment};
    use fmm_dlp::{ExactDlp, FmmConfig, FmmDlp};
    use geometry_core::{DVec3, TriMesh};
    // The unit cube with its x = 0 face split along the diagonal (0,1,0)-(0,0,1).
    let vertices: Vec<DVec3> = (0..8)
        .map(|i| DVec3::new(f64::from(i & 1), f64::from((i >> 1) & 1), f64::from((i >> 2) & 1)))
        .collect();
    #[rustfmt::skip]
    let faces = vec![
        [0, 2, 1], [1, 2, 3], [4, 5, 6], [5, 7, 6], [0, 1, 4], [1, 5, 4],
        [2, 6, 3], [3, 6, 7], [0, 4, 2], [2, 4, 6], [1, 3, 5], [3, 7, 5],
    ];
    let cube = TriMesh::new(vertices, faces).unwrap();
    // A sliver tetrahedron, outward.
    let (a, b, c, d) = (
        DVec3::new(0.1, 0.2, 0.3),
        DVec3::new(1.3, 0.1, 0.35),
        DVec3::new(0.5, 1.1, 0.2),
        DVec3::new(0.6, 0.45, 0.281),
    );
    let sliver = TriMesh::new(vec![a, b, c, d], vec![[0, 1, 2], [0, 3, 1], [1, 3, 2], [2, 3, 0]]).unwrap();
    let sphere = geometry_core::generators::octa_sphere(3).unwrap();
    let cases = [
        (
            "cube, 1e-60 inside a split face, above its diagonal",
            cube,
            DVec3::new(1e-60, 0.5, 0.5),
            Containment::Inside,
        ),
        ("sliver, just outside", sliver, DVec3::new(1.125, 0.1875, 0.33275), Containment::Outside),
        (
            "sphere, 7e-18 from an edge",
            sphere,
            DVec3::new(-0.048_772_580_504_032_06, 0.995_196_320_100_807_6, 0.0),
            Containment::Inside,
        ),
    ];
    for (what, mesh, point, expected) in cases {
        let exact = ExactDlp::new(mesh.clone()).unwrap();
        let fmm = FmmDlp::new(mesh.clone(), FmmConfig::default()).unwrap();
        let crossing = raycross::RayCrossing::new(mesh).unwrap();
        assert_eq!(crossing.contains(point).unwrap(), expected, "{what}: raycross");
        assert_eq!(exact.contains(point).unwrap(), expected, "{what}: ExactDlp::contains");
        assert_eq!(exact.contains_batch(&[point, DVec3::splat(9.0)]).unwrap()[0], expected, "{what}: batch");
        assert_eq!(fmm.classify(&[point]).unwrap(), [expected], "{what}: FmmDlp::classify");
    }
}

/// A needle: the tetrahedron with a base of legs 10⁻³ and a height of 1. At its apex the
/// interior solid-angle fraction is about 4·10⁻⁸, inside the band where a potential counts as
/// 0, and the apex was classified outside (and, as a cavity in a cube, inside) instead of on the
/// boundary (found by an adversarial review).
fn needle() -> TriMesh {
    let v =
        vec![DVec3::ZERO, DVec3::new(1e-3, 0.0, 0.0), DVec3::new(0.0, 1e-3, 0.0), DVec3::new(0.0, 0.0, 1.0)];
    TriMesh::new(v, vec![[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]]).unwrap()
}

/// The vertices of a mesh and the midpoints of its edges (exactly on the edges when, as here,
/// halving is exact).
fn features(mesh: &TriMesh) -> Vec<DVec3> {
    let v = mesh.vertices();
    let mut points = v.to_vec();
    for f in mesh.faces() {
        for k in 0..3 {
            points.push((v[f[k] as usize] + v[f[(k + 1) % 3] as usize]) * 0.5);
        }
    }
    points
}

#[test]
fn vertices_and_edges_with_tiny_angles_are_on_the_boundary() {
    use fmm_dlp::{FmmConfig, FmmDlp};
    let needle = needle();
    // The needle as a cavity in a cube: the cube's faces outward, the needle's inward.
    let cube = unit_cube().transformed(&DAffine3::from_scale(DVec3::splat(4.0))).unwrap();
    let cube = cube.transformed(&DAffine3::from_translation(DVec3::splat(-2.0))).unwrap();
    let offset = cube.vertices().len() as u32;
    let vertices: Vec<DVec3> = cube.vertices().iter().chain(needle.vertices()).copied().collect();
    let faces: Vec<[u32; 3]> = cube
        .faces()
        .iter()
        .copied()
        .chain(needle.faces().iter().map(|&[a, b, c]| [a + offset, c + offset, b + offset]))
        .collect();
    let cavity = TriMesh::new(vertices, faces).unwrap();
    for (mesh, what) in [(needle.clone(), "needle"), (cavity, "cavity")] {
        let points = features(&needle);
        let exact = ExactDlp::new(mesh.clone()).unwrap();
        let fmm = FmmDlp::new(mesh, FmmConfig::default()).unwrap();
        for x in &points {
            assert_eq!(exact.contains(*x).unwrap(), Containment::OnBoundary, "{what} exact at {x}");
            assert_eq!(fmm.contains(*x).unwrap(), Containment::OnBoundary, "{what} FMM at {x}");
        }
        assert!(exact.contains_batch(&points).unwrap().iter().all(|c| *c == Containment::OnBoundary));
        assert!(fmm.classify(&points).unwrap().iter().all(|c| *c == Containment::OnBoundary));
    }
}
