//! Both ray-crossing modes against oracles written here, independently of the crate:
//!
//! 1. the generalised winding number (solid-angle sum) for points away from the surface, with an
//!    exact on-face test for points on it: octahedral spheres of levels 0–7 and the foam;
//! 2. an exact half-space test for convex meshes (affine images of octahedral spheres);
//! 3. points exactly on the surface (vertices, dyadic edge and face points) are `OnBoundary`,
//!    points on a face's plane but off the surface are not;
//! 4. exact voxel logic for unions of unit cubes on integer and half-integer lattices, where the
//!    fast mode's `+x` ray runs along faces and through edges and vertices;
//! 5. paper mode agrees with fast mode everywhere, and its counters are consistent;
//! 6. answers are invariant under transforms that are exact in floating point;
//! 7. `vertices_inside` equals brute force;
//! 8. errors: meshes that bound no solid, non-finite points, invalid poses;
//! 9. `contains_batch` equals `contains` point by point.

mod common;

use common::{
    Split, Surface, VoxelSolid, lattice, mixed_split, random_affine, random_points, random_rotation,
    signed_permutations,
};
use contact_core::{Containment, PointContainment};
use geometry_core::generators::{FoamSize, foam, octa_sphere, point_grid, surrounding_cube};
use geometry_core::{Aabb, DAffine3, DMat3, DVec3, SolidError, TriMesh};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use raycross::{PaperRayCrossing, RayCrossError, RayCrossing, vertices_inside};

use Containment::{Inside, OnBoundary, Outside};

/// Both modes over one mesh.
struct Modes {
    fast: RayCrossing,
    paper: PaperRayCrossing,
}

impl Modes {
    fn new(mesh: &TriMesh, seed: u64) -> Self {
        Self {
            fast: RayCrossing::new(mesh.clone()).expect("fast mode accepts the mesh"),
            paper: PaperRayCrossing::with_seed(mesh.clone(), seed).expect("paper mode accepts the mesh"),
        }
    }
}

/// Classifies `points` with both modes and compares them with each other and with `expected`
/// (`None`: no expectation, only agreement). Panics listing the first mismatches. Returns the
/// fast mode's answers.
fn check(name: &str, modes: &Modes, points: &[DVec3], expected: &[Option<Containment>]) -> Vec<Containment> {
    assert_eq!(points.len(), expected.len());
    let before = modes.paper.stats();
    let fast = modes.fast.contains_batch(points).unwrap_or_else(|e| panic!("{name}: fast mode failed: {e}"));
    let paper =
        modes.paper.contains_batch(points).unwrap_or_else(|e| panic!("{name}: paper mode failed: {e}"));
    let after = modes.paper.stats();
    let (rays, counted) = (after.rays - before.rays, after.points - before.points);
    assert!(
        rays >= counted && rays == counted + (after.degeneracies - before.degeneracies),
        "{name}: paper stats {before:?} -> {after:?}: rays must be points + discarded rays"
    );
    assert!(
        after.points - before.points <= points.len() as u64,
        "{name}: paper counted more points than given"
    );
    let mut failures = Vec::new();
    for (i, &p) in points.iter().enumerate() {
        let wrong_fast = expected[i].is_some_and(|e| e != fast[i]);
        let wrong_paper = expected[i].is_some_and(|e| e != paper[i]) || fast[i] != paper[i];
        if wrong_fast || wrong_paper {
            failures.push(format!(
                "  #{i} {p:?}: expected {:?}, fast {:?}, paper {:?}",
                expected[i], fast[i], paper[i]
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{name}: {} of {} points wrong:\n{}",
        failures.len(),
        points.len(),
        failures.iter().take(12).cloned().collect::<Vec<_>>().join("\n")
    );
    fast
}

// ---------------------------------------------------------------------------------------------
// 1. Generalised winding number.
// ---------------------------------------------------------------------------------------------

/// Expected answers: exactly on a face → `OnBoundary`; within `1e-9 ×` the box size of the
/// surface but not on it → unknown; otherwise the rounded winding number (which must be within
/// 1e-6 of 0 or 1).
fn winding_expectations(mesh: &TriMesh, points: &[DVec3]) -> Vec<Option<Containment>> {
    let surface = Surface::new(mesh);
    let tol = 1e-9 * mesh.bounding_box().longest_edge();
    points
        .iter()
        .map(|&p| {
            if surface.on_surface(p) {
                return Some(OnBoundary);
            }
            if surface.near(p, tol) {
                return None;
            }
            let w = surface.winding(p);
            let r = w.round();
            assert!(
                (w - r).abs() < 1e-6 && (r == 0.0 || r == 1.0),
                "winding oracle unreliable at {p:?}: {w}"
            );
            Some(if r == 1.0 { Inside } else { Outside })
        })
        .collect()
}

/// Random points in the surrounding cube, regular grids over it (odd sizes put points on the
/// symmetry planes), and `extra`.
fn winding_case(name: &str, mesh: &TriMesh, seed: u64, random: usize, grids: &[usize], extra: &[DVec3]) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let region = surrounding_cube(&mesh.bounding_box(), 0.1).unwrap();
    let mut points = random_points(&mut rng, &region, random);
    for &n in grids {
        points.extend(point_grid(&region, n).unwrap());
    }
    points.extend_from_slice(extra);
    let expected = winding_expectations(mesh, &points);
    let count = |c: Containment| expected.iter().filter(|&&e| e == Some(c)).count();
    assert!(count(Inside) > 0 && count(Outside) > 0, "{name}: trivial test");
    check(name, &Modes::new(mesh, seed), &points, &expected);
}

/// Points on lines `(x, v.y, v.z)` through some vertices `v`: the `+x` ray from them runs
/// through the vertex (and, on the sphere, along the symmetry planes).
fn lines_through_vertices(mesh: &TriMesh, count: usize, xs: &[f64]) -> Vec<DVec3> {
    let v = mesh.vertices();
    let stride = (v.len() / count).max(1);
    v.iter().step_by(stride).flat_map(|p| xs.iter().map(move |&x| DVec3::new(x, p.y, p.z))).collect()
}

fn steps(lo: f64, hi: f64, step: f64) -> Vec<f64> {
    let n = ((hi - lo) / step).floor() as usize;
    (0..=n).map(|i| lo + i as f64 * step).collect()
}

#[test]
fn winding_octa_spheres_small_levels() {
    for level in 0..=3 {
        let mesh = octa_sphere(level).unwrap();
        let mut extra = lattice(-1.25, 1.25, 0.125);
        extra.extend(lines_through_vertices(&mesh, 40, &steps(-1.5, 1.5, 0.125)));
        winding_case(&format!("octa_sphere({level})"), &mesh, 10 + level as u64, 1000, &[9, 10], &extra);
    }
}

#[test]
fn winding_octa_spheres_levels_4_and_5() {
    for (level, random, grid, lat) in [(4, 1000, 9, 0.125), (5, 600, 7, 0.25)] {
        let mesh = octa_sphere(level).unwrap();
        let mut extra = lattice(-1.25, 1.25, lat);
        extra.extend(lines_through_vertices(&mesh, 12, &steps(-1.5, 1.5, 0.25)));
        winding_case(&format!("octa_sphere({level})"), &mesh, 20 + level as u64, random, &[grid], &extra);
    }
}

#[test]
fn winding_octa_sphere_level_6() {
    let mesh = octa_sphere(6).unwrap();
    let mut extra = lattice(-1.0, 1.0, 1.0);
    extra.extend(lines_through_vertices(&mesh, 10, &steps(-1.5, 1.5, 0.25)));
    winding_case("octa_sphere(6)", &mesh, 26, 200, &[5], &extra);
}

#[test]
fn winding_octa_sphere_level_7() {
    let mesh = octa_sphere(7).unwrap();
    let extra = lines_through_vertices(&mesh, 6, &steps(-1.5, 1.5, 0.25));
    winding_case("octa_sphere(7)", &mesh, 27, 100, &[3, 4], &extra);
}

#[test]
fn winding_foam_small() {
    let mesh = foam(FoamSize::Small).unwrap();
    let mut extra = lattice(-1.0, 1.0, 0.5);
    extra.extend(lines_through_vertices(&mesh, 20, &steps(-1.25, 1.25, 0.125)));
    winding_case("foam(Small)", &mesh, 30, 400, &[7], &extra);
}

#[test]
fn winding_foam_medium() {
    let mesh = foam(FoamSize::Medium).unwrap();
    let extra = lines_through_vertices(&mesh, 6, &steps(-1.0, 1.0, 0.25));
    winding_case("foam(Medium)", &mesh, 31, 100, &[3, 4], &extra);
}

#[test]
fn winding_foam_large() {
    let mesh = foam(FoamSize::Large).unwrap();
    let extra = lines_through_vertices(&mesh, 3, &steps(-1.0, 1.0, 0.5));
    winding_case("foam(Large)", &mesh, 32, 24, &[2], &extra);
}

// ---------------------------------------------------------------------------------------------
// 2. Convex polyhedra: exact half-space oracle.
// ---------------------------------------------------------------------------------------------

/// Points that stress a convex mesh: vertices, rounded edge midpoints and face centroids (on or
/// within an ulp of the surface), chords, lines through vertices, jittered vertices, random points.
fn convex_probe_points(mesh: &TriMesh, rng: &mut ChaCha8Rng) -> Vec<DVec3> {
    let v = mesh.vertices();
    let mut points = v.to_vec();
    for f in mesh.faces() {
        let [a, b, c] = f.map(|i| v[i as usize]);
        points.extend([(a + b) * 0.5, (a + b + c) / 3.0]);
    }
    for _ in 0..200 {
        let (a, b) = (v[rng.random_range(0..v.len())], v[rng.random_range(0..v.len())]);
        points.extend([a.lerp(b, 0.25), a.lerp(b, 0.5), a.lerp(b, 0.75)]);
    }
    let bbox = mesh.bounding_box();
    let xs = steps(bbox.min.x - 0.5, bbox.max.x + 0.5, bbox.extents().x / 16.0);
    points.extend(lines_through_vertices(mesh, 100, &xs));
    // Lines through rounded edge midpoints and face centroids: rays grazing edges and faces.
    for f in mesh.faces().iter().step_by((mesh.faces().len() / 60).max(1)) {
        let [a, b, c] = f.map(|i| v[i as usize]);
        for q in [(a + b) * 0.5, (a + b + c) / 3.0] {
            points.extend(xs.iter().map(|&x| DVec3::new(x, q.y, q.z)));
        }
    }
    for &p in v.iter().take(30) {
        for d in [DVec3::X, DVec3::Y, DVec3::Z, -DVec3::X, -DVec3::Y, -DVec3::Z] {
            points.push(p + d * p.abs().max_element().max(1.0) * f64::EPSILON);
        }
    }
    let region = surrounding_cube(&bbox, 0.2).unwrap();
    points.extend(random_points(rng, &region, 300));
    points
}

#[test]
fn convex_affine_images_of_octa_spheres() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for level in 0..=4 {
        let base = octa_sphere(level).unwrap();
        let exact =
            DAffine3::from_mat3_translation(signed_permutations(2.0)[13], DVec3::new(0.25, -1.5, 3.125));
        let mut poses = vec![DAffine3::IDENTITY, exact];
        poses.extend((0..if level < 4 { 8 } else { 2 }).map(|_| random_affine(&mut rng)));
        for (k, pose) in poses.iter().enumerate() {
            let mesh = base.transformed(pose).unwrap();
            assert!(mesh.require_solid().is_ok(), "transformed mesh stays outward");
            let surface = Surface::new(&mesh);
            surface.assert_convex(&mesh);
            let mut points = convex_probe_points(&mesh, &mut rng);
            if k == 0 {
                // Dyadic lattice: many points on the face planes, inside and outside the faces.
                points.extend(lattice(-1.5, 1.5, 0.125));
            }
            let expected: Vec<_> = points.iter().map(|&p| Some(surface.convex_classify(p))).collect();
            let modes = Modes::new(&mesh, 100 + k as u64);
            check(&format!("convex octa_sphere({level}) pose {k}"), &modes, &points, &expected);
        }
    }
}

/// The octahedron `|x| + |y| + |z| ≤ 1` by its own formula (exact for these dyadic points).
#[test]
fn octahedron_dyadic_lattice_by_formula() {
    let modes = Modes::new(&octa_sphere(0).unwrap(), 5);
    let points = lattice(-1.5, 1.5, 0.0625);
    let expected: Vec<_> = points
        .iter()
        .map(|p| {
            let s = p.x.abs() + p.y.abs() + p.z.abs();
            Some(if s < 1.0 {
                Inside
            } else if s == 1.0 {
                OnBoundary
            } else {
                Outside
            })
        })
        .collect();
    // Many points lie on a face's plane but outside the octahedron, e.g. (1.5, -0.25, -0.25).
    let on_plane_outside =
        points.iter().zip(&expected).filter(|(p, e)| p.x + p.y + p.z == 1.0 && **e == Some(Outside)).count();
    assert!(on_plane_outside > 100);
    check("octahedron 1/16 lattice", &modes, &points, &expected);
}

// ---------------------------------------------------------------------------------------------
// 3. Points exactly on the surface.
// ---------------------------------------------------------------------------------------------

#[test]
fn vertices_of_generated_meshes_are_on_boundary() {
    let meshes = [
        ("octa_sphere(0)", octa_sphere(0).unwrap()),
        ("octa_sphere(2)", octa_sphere(2).unwrap()),
        ("octa_sphere(5)", octa_sphere(5).unwrap()),
        ("octa_sphere(7)", octa_sphere(7).unwrap()),
        ("foam(Small)", foam(FoamSize::Small).unwrap()),
    ];
    for (name, mesh) in meshes {
        let modes = Modes::new(&mesh, 7);
        let all = modes.fast.contains_batch(mesh.vertices()).unwrap();
        if let Some(i) = all.iter().position(|&c| c != OnBoundary) {
            panic!(
                "{name}: fast mode: vertex {i} {:?} is {:?}, expected OnBoundary",
                mesh.vertices()[i],
                all[i]
            );
        }
        // Paper mode on a subsample (it is much slower on big meshes).
        let stride = (mesh.vertices().len() / 300).max(1);
        let sample: Vec<DVec3> = mesh.vertices().iter().copied().step_by(stride).collect();
        check(&format!("{name} vertices"), &modes, &sample, &vec![Some(OnBoundary); sample.len()]);
    }
}

/// A voxel mesh's vertices, exact edge midpoints and dyadic points inside every face are on
/// the boundary; dyadic points on every face's plane outside the face are classified by the
/// voxel rule (often `Outside`, never `OnBoundary` unless another face holds them).
#[test]
fn exact_surface_points_of_integer_meshes() {
    for (name, solid) in voxel_solids() {
        let mesh = solid.mesh(mixed_split(9));
        let modes = Modes::new(&mesh, 11);
        let v = mesh.vertices();
        let mut on = v.to_vec();
        let mut plane = Vec::new();
        for f in mesh.faces() {
            let [a, b, c] = f.map(|i| v[i as usize]);
            on.extend([(a + b) * 0.5, (b + c) * 0.5, (c + a) * 0.5]);
            on.push(a + (b - a) * 0.25 + (c - a) * 0.25);
            on.push(a + (b - a) * 0.125 + (c - a) * 0.75);
            for s in [-1.0, -0.5, 0.5, 1.5, 2.0, 3.0] {
                for t in [-1.0, 0.25, 2.5] {
                    plane.push(a + (b - a) * s + (c - a) * t);
                }
            }
        }
        assert!(on.iter().all(|&p| solid.classify(p) == OnBoundary), "oracle self-check");
        check(&format!("{name} surface points"), &modes, &on, &vec![Some(OnBoundary); on.len()]);
        let expected: Vec<_> = plane.iter().map(|&p| Some(solid.classify(p))).collect();
        assert!(expected.contains(&Some(Outside)) && expected.contains(&Some(OnBoundary)));
        check(&format!("{name} face-plane points"), &modes, &plane, &expected);
    }
}

/// The foam's solid lies in `[-1, 1]³` and is cut by the box: points on the box's faces are
/// never inside, and are on the boundary exactly when some face holds them.
#[test]
fn foam_points_on_its_box_faces() {
    let mesh = foam(FoamSize::Small).unwrap();
    assert_eq!(mesh.bounding_box(), Aabb::new(DVec3::splat(-1.0), DVec3::ONE).unwrap());
    let surface = Surface::new(&mesh);
    let mut rng = ChaCha8Rng::seed_from_u64(77);
    let v = mesh.vertices();
    let mut points = Vec::new();
    for axis in 0..3 {
        for side in [-1.0, 1.0] {
            // Centroids of the cap faces (exactly in the plane, inside the face up to rounding).
            let caps: Vec<[DVec3; 3]> = mesh
                .faces()
                .iter()
                .map(|f| f.map(|i| v[i as usize]))
                .filter(|t| t.iter().all(|p| p[axis] == side))
                .collect();
            assert!(!caps.is_empty());
            for t in caps.iter().step_by((caps.len() / 40).max(1)) {
                let mut c = (t[0] + t[1] + t[2]) / 3.0;
                c[axis] = side;
                points.push(c);
                let mut m = (t[0] + t[1]) * 0.5;
                m[axis] = side;
                points.push(m);
            }
            // Random dyadic points on the face of the box.
            for _ in 0..150 {
                let mut p = DVec3::new(
                    f64::from(rng.random_range(-64..=64)) / 64.0,
                    f64::from(rng.random_range(-64..=64)) / 64.0,
                    f64::from(rng.random_range(-64..=64)) / 64.0,
                );
                p[axis] = side;
                points.push(p);
            }
        }
    }
    let expected: Vec<_> =
        points.iter().map(|&p| Some(if surface.on_surface(p) { OnBoundary } else { Outside })).collect();
    assert!(expected.contains(&Some(Outside)) && expected.contains(&Some(OnBoundary)));
    check("foam(Small) box faces", &Modes::new(&mesh, 3), &points, &expected);
}

// ---------------------------------------------------------------------------------------------
// 4. Axis-aligned integer solids on lattices.
// ---------------------------------------------------------------------------------------------

/// Unit cube, L-shape, staircase, 3×3×3 block with a tunnel (genus 1), block with a cavity,
/// and random blobs.
fn voxel_solids() -> Vec<(String, VoxelSolid)> {
    let mut solids = vec![
        ("cube".to_string(), VoxelSolid::new([[0, 0, 0]])),
        (
            "L".to_string(),
            VoxelSolid::new([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [0, 1, 1]]),
        ),
        (
            "staircase".to_string(),
            VoxelSolid::new((0..3).flat_map(|x| (0..2).flat_map(move |y| (0..=x).map(move |z| [x, y, z])))),
        ),
    ];
    let block = || (0..3).flat_map(|x| (0..3).flat_map(move |y| (0..3).map(move |z| [x, y, z])));
    solids.push(("torus".to_string(), VoxelSolid::new(block().filter(|c| !(c[0] == 1 && c[1] == 1)))));
    solids.push(("cavity".to_string(), VoxelSolid::new(block().filter(|&c| c != [1, 1, 1]))));
    // A cube floating in the cavity of a hollow 5×5×5 block: two nested shells.
    let shell = (0..5).flat_map(|x| (0..5).flat_map(move |y| (0..5).map(move |z| [x, y, z])));
    solids.push((
        "nested".to_string(),
        VoxelSolid::new(shell.filter(|c| c.iter().any(|&k| k == 0 || k == 4) || *c == [2, 2, 2])),
    ));
    for seed in 1..=6 {
        let (n, fill) = [(4, 0.5), (5, 0.35), (5, 0.65)][seed as usize % 3];
        solids.push((format!("blob{seed}"), VoxelSolid::random(seed, n, fill)));
    }
    solids
}

fn voxel_lattice(solid: &VoxelSolid, step: f64) -> Vec<DVec3> {
    let (lo, hi) = solid.bounds();
    let (lo, hi) = (lo.iter().min().unwrap() - 1, hi.iter().max().unwrap() + 1);
    lattice(f64::from(lo), f64::from(hi), step)
}

#[test]
fn voxel_solids_on_integer_and_half_integer_lattices() {
    type SplitFn = Box<dyn Fn(usize) -> Split>;
    let splits: [(&str, SplitFn); 4] = [
        ("diag02", Box::new(|_| Split::Diagonal02)),
        ("diag13", Box::new(|_| Split::Diagonal13)),
        ("fan", Box::new(|_| Split::Fan)),
        ("mixed", Box::new(mixed_split(4))),
    ];
    for (name, solid) in voxel_solids() {
        let points = voxel_lattice(&solid, 0.5);
        let expected: Vec<_> = points.iter().map(|&p| Some(solid.classify(p))).collect();
        for (k, (split_name, split)) in splits.iter().enumerate() {
            let mesh = solid.mesh(split);
            check(
                &format!("{name}/{split_name} 1/2 lattice"),
                &Modes::new(&mesh, k as u64),
                &points,
                &expected,
            );
        }
    }
}

#[test]
fn voxel_solids_on_quarter_lattice_and_random_dyadic_points() {
    let mut rng = ChaCha8Rng::seed_from_u64(44);
    for (name, solid) in
        voxel_solids().into_iter().filter(|(n, _)| ["cube", "L", "torus", "blob2"].contains(&n.as_str()))
    {
        let mesh = solid.mesh(mixed_split(17));
        let mut points = voxel_lattice(&solid, 0.25);
        let (lo, hi) = solid.bounds();
        for _ in 0..2000 {
            let mut c = |k: usize| f64::from(rng.random_range(16 * (lo[k] - 1)..=16 * (hi[k] + 1))) / 16.0;
            points.push(DVec3::new(c(0), c(1), c(2)));
        }
        let expected: Vec<_> = points.iter().map(|&p| Some(solid.classify(p))).collect();
        check(&format!("{name} 1/4 lattice + 1/16 random"), &Modes::new(&mesh, 8), &points, &expected);
    }
}

// ---------------------------------------------------------------------------------------------
// 5. Paper mode's counters.
// ---------------------------------------------------------------------------------------------

#[test]
fn paper_stats_count_points_and_rays() {
    let mesh = octa_sphere(3).unwrap();
    let paper = PaperRayCrossing::with_seed(mesh.clone(), 99).unwrap();
    assert_eq!(paper.stats(), raycross::RayStats::default());
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let inner = Aabb::new(DVec3::splat(-0.9), DVec3::splat(0.9)).unwrap();
    let points = random_points(&mut rng, &inner, 500);
    paper.contains_batch(&points).unwrap();
    let s = paper.stats();
    assert_eq!(s.points, 500, "every point strictly inside the box casts rays: {s:?}");
    assert!(s.rays >= s.points, "{s:?}");
    assert_eq!(s.rays, s.points + s.degeneracies, "each discarded ray is replaced by another: {s:?}");
    // Points outside the bounding box are not counted.
    paper.contains_batch(&[DVec3::splat(3.0), DVec3::new(-1.5, 0.0, 0.0)]).unwrap();
    assert_eq!(paper.stats(), s);
    paper.reset_stats();
    assert_eq!(paper.stats(), raycross::RayStats::default());
    // Adversarial points (vertices, symmetry planes) still need at least one ray each.
    let hard = lattice(-0.75, 0.75, 0.25);
    paper.contains_batch(&hard).unwrap();
    let s = paper.stats();
    assert!(s.points == hard.len() as u64 && s.rays >= s.points, "{s:?}");
    assert_eq!(s.rays, s.points + s.degeneracies, "{s:?}");
}

// ---------------------------------------------------------------------------------------------
// 6. Invariance under exact transforms.
// ---------------------------------------------------------------------------------------------

/// Signed axis permutations, power-of-two scales and dyadic translations map an integer mesh
/// and dyadic points exactly: every answer must be unchanged (the fast mode's `+x` ray now runs
/// along a different axis of the geometry).
#[test]
fn exact_transforms_of_voxel_solids() {
    let translations = [
        DVec3::ZERO,
        DVec3::new(0.25, -1.5, 3.125),
        DVec3::new(-7.0, 0.5, -0.375),
        DVec3::new(2f64.powi(40), -(2f64.powi(35)), 2f64.powi(30) + 0.5),
    ];
    for (name, solid) in
        voxel_solids().into_iter().filter(|(n, _)| ["L", "torus", "blob1"].contains(&n.as_str()))
    {
        let mesh = solid.mesh(mixed_split(2));
        let points = voxel_lattice(&solid, 0.5);
        let expected: Vec<_> = points.iter().map(|&p| Some(solid.classify(p))).collect();
        let scaled = [0.25, 2f64.powi(-60), 2f64.powi(60)]
            .into_iter()
            .flat_map(|s| signed_permutations(s).into_iter().step_by(7).map(move |m| (s, m)));
        let unscaled = signed_permutations(1.0).into_iter().map(|m| (1.0, m));
        for (k, (scale, m)) in unscaled.chain(scaled).enumerate() {
            // `m p + s t = s (m' p + t)` with `m' p + t` exact: exact for every power-of-two `s`.
            let pose = DAffine3::from_mat3_translation(m, translations[k % 4] * scale);
            let moved = mesh.transformed(&pose).unwrap();
            let moved_points: Vec<DVec3> = points.iter().map(|&p| pose.transform_point3(p)).collect();
            let label = format!("{name} transform {k}");
            if k % 8 == 0 {
                check(&label, &Modes::new(&moved, k as u64), &moved_points, &expected);
            } else {
                // Fast mode only for most transforms (paper mode is checked on every eighth).
                let got = RayCrossing::new(moved).unwrap().contains_batch(&moved_points).unwrap();
                let wrong: Vec<_> =
                    (0..points.len()).filter(|&i| Some(got[i]) != expected[i]).take(8).collect();
                assert!(
                    wrong.is_empty(),
                    "{label} ({m:?}): {}",
                    wrong
                        .iter()
                        .map(|&i| format!(
                            "{:?} -> {:?}: expected {:?} got {:?}",
                            points[i], moved_points[i], expected[i], got[i]
                        ))
                        .collect::<Vec<_>>()
                        .join("; ")
                );
            }
        }
    }
}

/// Signed axis permutations are exact for any coordinates: answers on the sphere and the foam
/// do not change.
#[test]
fn signed_permutations_of_curved_meshes() {
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    for (name, mesh, n) in [
        ("octa_sphere(3)", octa_sphere(3).unwrap(), 600),
        ("foam(Small)", foam(FoamSize::Small).unwrap(), 200),
    ] {
        let region = surrounding_cube(&mesh.bounding_box(), 0.1).unwrap();
        let mut points = random_points(&mut rng, &region, n);
        points.extend(lines_through_vertices(&mesh, 10, &steps(-1.25, 1.25, 0.25)));
        points.extend(mesh.vertices().iter().step_by(mesh.vertices().len() / 50));
        let base = RayCrossing::new(mesh.clone()).unwrap().contains_batch(&points).unwrap();
        let expected: Vec<_> = base.iter().map(|&c| Some(c)).collect();
        for (k, m) in signed_permutations(1.0).into_iter().enumerate().step_by(if n > 300 { 1 } else { 4 }) {
            let pose = DAffine3::from_mat3(m);
            let moved = mesh.transformed(&pose).unwrap();
            let moved_points: Vec<DVec3> = points.iter().map(|&p| pose.transform_point3(p)).collect();
            check(
                &format!("{name} permutation {k}"),
                &Modes::new(&moved, k as u64),
                &moved_points,
                &expected,
            );
        }
    }
}

/// Inward-facing meshes are accepted and give the same answers.
#[test]
fn flipped_meshes_give_the_same_answers() {
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let torus = voxel_solids().into_iter().find(|(n, _)| n == "torus").unwrap().1;
    let cases = [
        ("torus", torus.mesh(mixed_split(5)), voxel_lattice(&torus, 0.5)),
        ("octa_sphere(3)", octa_sphere(3).unwrap(), lattice(-1.25, 1.25, 0.125)),
        (
            "foam(Small)",
            foam(FoamSize::Small).unwrap(),
            random_points(&mut rng, &Aabb::new(DVec3::splat(-1.1), DVec3::splat(1.1)).unwrap(), 300),
        ),
    ];
    for (name, mesh, points) in cases {
        let flipped = mesh.flipped();
        assert!(matches!(flipped.require_solid(), Err(SolidError::InwardFacing { .. })));
        let base = RayCrossing::new(mesh).unwrap().contains_batch(&points).unwrap();
        let expected: Vec<_> = base.iter().map(|&c| Some(c)).collect();
        check(&format!("{name} flipped"), &Modes::new(&flipped, 1), &points, &expected);
    }
}

// ---------------------------------------------------------------------------------------------
// 7. vertices_inside against brute force.
// ---------------------------------------------------------------------------------------------

fn brute_vertices_inside(
    body: &RayCrossing,
    body_pose: &DAffine3,
    other: &TriMesh,
    other_pose: &DAffine3,
) -> Vec<(u32, Containment, DVec3)> {
    let inverse = body_pose.inverse();
    other
        .vertices()
        .iter()
        .enumerate()
        .filter_map(|(i, &v)| {
            let q = inverse.transform_point3(other_pose.transform_point3(v));
            let c = body.contains(q).unwrap();
            (c != Outside).then_some((i as u32, c, q))
        })
        .collect()
}

/// An error about a posed vertex names that vertex of `other` (it named its position among
/// the vertices inside the body's box; found by an adversarial review).
#[test]
fn vertices_inside_errors_name_the_vertex() {
    let ball = RayCrossing::new(octa_sphere(1).unwrap()).unwrap();
    let other = TriMesh::new(
        vec![
            DVec3::new(5.0, 5.0, 5.0),
            DVec3::new(6.0, 5.0, 5.0),
            DVec3::new(5.0, 6.0, 5.0),
            DVec3::new(0.5, 1e-60, 0.0),
        ],
        vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    )
    .unwrap();
    let squash = DAffine3::from_scale(DVec3::new(1.0, 1e-20, 1.0));
    assert_eq!(
        vertices_inside(&ball, &DAffine3::IDENTITY, &other, &squash),
        Err(RayCrossError::PointOutOfRange { index: 3 })
    );
}

/// Body poses whose determinant leaves `f64`'s range are still inverted: a scale by 1e103 of a
/// body of size 1e-40 (the inverse through the overflowing determinant was all zeros, so every
/// vertex landed on the body's origin and counted as inside), and a scale by 1e-110 of a body of
/// size 1e45 (refused as singular).
#[test]
fn vertices_inside_with_extreme_body_poses() {
    let other = octa_sphere(1).unwrap();
    for (size, scale) in [(1e-40, 1e103), (1e45, 1e-110), (1.0, 1e60)] {
        let mesh = octa_sphere(2).unwrap().transformed(&DAffine3::from_scale(DVec3::splat(size))).unwrap();
        let body = RayCrossing::new(mesh).unwrap();
        let body_pose = DAffine3::from_scale(DVec3::splat(scale));
        let r = size * scale;
        // The other ball's vertices at half the body's radius, then at three times it.
        let near = DAffine3::from_scale(DVec3::splat(0.5 * r));
        let far = DAffine3::from_scale(DVec3::splat(3.0 * r));
        let inside = vertices_inside(&body, &body_pose, &other, &near).unwrap();
        assert_eq!(inside.len(), other.vertices().len(), "size {size:e}, pose {scale:e}: {inside:?}");
        assert!(inside.iter().all(|(_, c)| *c == Inside));
        let outside = vertices_inside(&body, &body_pose, &other, &far).unwrap();
        assert!(outside.is_empty(), "size {size:e}, pose {scale:e}: {outside:?}");
    }
}

/// Strongly anisotropic poses, finite and invertible (determinant 1): `diag(1e-150, 1e150, 1)`
/// as the body's pose, the other's, or both; and `diag(2⁻⁶⁰⁰, 2⁶⁰⁰, 1)`. They were refused as
/// `InvalidPose` (the inverse scaled the whole matrix by one power of two, and the determinant
/// still underflowed; found by an adversarial review). With equal poses every vertex of a
/// ball of half the body's radius is inside, as without the poses.
#[test]
fn vertices_inside_with_anisotropic_poses() {
    let body_mesh = octa_sphere(2).unwrap();
    let body = RayCrossing::new(body_mesh).unwrap();
    let other = octa_sphere(1).unwrap().transformed(&DAffine3::from_scale(DVec3::splat(0.5))).unwrap();
    for squeeze in [DVec3::new(1e-150, 1e150, 1.0), DVec3::new(2f64.powi(-600), 2f64.powi(600), 1.0)] {
        let pose = DAffine3::from_scale(squeeze);
        let inside = vertices_inside(&body, &pose, &other, &pose).unwrap();
        assert_eq!(inside.len(), other.vertices().len(), "{squeeze}: {inside:?}");
        assert!(inside.iter().all(|(_, c)| *c == Inside), "{squeeze}: {inside:?}");
        // One side posed only: a vertex then lands at a coordinate of 5e-151 (or 2⁻⁶⁰¹) within
        // the body's box, outside the exact range: refused naming the vertex, not the pose.
        for (body_pose, other_pose) in [(DAffine3::IDENTITY, pose), (pose, DAffine3::IDENTITY)] {
            let outcome = vertices_inside(&body, &body_pose, &other, &other_pose);
            assert!(matches!(outcome, Err(RayCrossError::PointOutOfRange { .. })), "{squeeze}: {outcome:?}");
        }
    }
}

/// Exact poses: every vertex lands on a dyadic point of the body's frame, many on its surface.
#[test]
fn vertices_inside_with_exact_poses() {
    let solids = voxel_solids();
    let torus = &solids.iter().find(|(n, _)| n == "torus").unwrap().1;
    let body = RayCrossing::new(torus.mesh(mixed_split(1))).unwrap();
    let perms = signed_permutations(1.0);
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let mut found = Vec::new();
    for (name, other_solid) in solids.iter().filter(|(n, _)| n != "torus") {
        let other = other_solid.mesh(|_| Split::Fan);
        for _ in 0..4 {
            let body_pose = DAffine3::from_mat3_translation(
                perms[rng.random_range(0..48)] * 2.0,
                DVec3::new(0.5, -1.25, 4.0) * f64::from(rng.random_range(-2..=2)),
            );
            // In the body's frame: other's vertices scaled by 1/2, permuted, shifted by 1/2 steps.
            let local = DAffine3::from_mat3_translation(
                perms[rng.random_range(0..48)] * 0.5,
                DVec3::new(
                    f64::from(rng.random_range(-2..=6)) * 0.5,
                    f64::from(rng.random_range(-2..=6)) * 0.5,
                    f64::from(rng.random_range(-2..=6)) * 0.5,
                ),
            );
            let other_pose = body_pose * local;
            let got = vertices_inside(&body, &body_pose, &other, &other_pose).unwrap();
            let brute = brute_vertices_inside(&body, &body_pose, &other, &other_pose);
            for &(i, c, q) in &brute {
                assert_eq!(q, local.transform_point3(other.vertices()[i as usize]), "exact pose arithmetic");
                assert_eq!(c, torus.classify(q), "contains vs voxel oracle at {q:?}");
            }
            let brute: Vec<(u32, Containment)> = brute.into_iter().map(|(i, c, _)| (i, c)).collect();
            assert_eq!(got, brute, "{name} with local pose {local:?}");
            found.extend(got.iter().map(|&(_, c)| c));
        }
    }
    assert!(found.contains(&Inside) && found.contains(&OnBoundary), "trivial test");
}

/// General poses: equal to brute force except possibly for vertices within 1e-9 of the surface.
#[test]
fn vertices_inside_with_random_poses() {
    let body_mesh = octa_sphere(4).unwrap();
    let body = RayCrossing::new(body_mesh.clone()).unwrap();
    let surface = Surface::new(&body_mesh);
    let other = octa_sphere(3).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let mut total_hits = 0;
    for _ in 0..20 {
        let body_pose = DAffine3::from_mat3_translation(
            random_rotation(&mut rng) * 1.5,
            DVec3::new(rng.random_range(-3.0..3.0), rng.random_range(-3.0..3.0), 0.0),
        );
        let offset =
            DVec3::new(rng.random_range(-1.5..1.5), rng.random_range(-1.5..1.5), rng.random_range(-1.5..1.5));
        let other_pose = body_pose * DAffine3::from_mat3_translation(random_rotation(&mut rng) * 0.8, offset);
        let got = vertices_inside(&body, &body_pose, &other, &other_pose).unwrap();
        let brute = brute_vertices_inside(&body, &body_pose, &other, &other_pose);
        let inverse = body_pose.inverse();
        let near = |i: u32| {
            let q = inverse.transform_point3(other_pose.transform_point3(other.vertices()[i as usize]));
            surface.near(q, 1e-9)
        };
        let got_far: Vec<_> = got.iter().copied().filter(|&(i, _)| !near(i)).collect();
        let brute_far: Vec<_> = brute.iter().map(|&(i, c, _)| (i, c)).filter(|&(i, _)| !near(i)).collect();
        assert_eq!(got_far, brute_far);
        assert!(got.windows(2).all(|w| w[0].0 < w[1].0), "vertex order");
        total_hits += got.len();
    }
    assert!(total_hits > 0, "trivial test");
    // Far apart: nothing inside.
    let far = DAffine3::from_translation(DVec3::new(10.0, 0.0, 0.0));
    assert!(vertices_inside(&body, &DAffine3::IDENTITY, &other, &far).unwrap().is_empty());
}

/// The oracles agree with each other where both apply (a check of the test itself): the
/// winding number of voxel meshes equals the voxel rule, and of convex meshes the half-space rule.
#[test]
fn oracles_agree_with_each_other() {
    for (name, solid) in voxel_solids()
        .into_iter()
        .filter(|(n, _)| ["torus", "cavity", "nested", "blob3"].contains(&n.as_str()))
    {
        let surface = Surface::new(&solid.mesh(mixed_split(6)));
        for p in voxel_lattice(&solid, 0.5) {
            let c = solid.classify(p);
            assert_eq!(surface.on_surface(p), c == OnBoundary, "{name} {p:?}");
            if c != OnBoundary {
                assert_eq!(surface.winding(p).round() == 1.0, c == Inside, "{name} {p:?}");
            }
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mesh = octa_sphere(2).unwrap().transformed(&random_affine(&mut rng)).unwrap();
    let surface = Surface::new(&mesh);
    for p in convex_probe_points(&mesh, &mut rng) {
        let c = surface.convex_classify(p);
        assert_eq!(surface.on_surface(p), c == OnBoundary, "{p:?}");
        if !surface.near(p, 1e-9) {
            assert_eq!(surface.winding(p).round() == 1.0, c == Inside, "{p:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 8. Errors.
// ---------------------------------------------------------------------------------------------

fn unit_cube_parts() -> (Vec<DVec3>, Vec<[u32; 3]>) {
    VoxelSolid::new([[0, 0, 0]]).mesh(|_| Split::Diagonal02).into_parts()
}

fn assert_not_solid(name: &str, mesh: &TriMesh, check_inner: impl Fn(&SolidError) -> bool) {
    match RayCrossing::new(mesh.clone()) {
        Err(RayCrossError::NotSolid(e)) => assert!(check_inner(&e), "{name}: fast mode: unexpected {e:?}"),
        other => panic!("{name}: fast mode: expected NotSolid, got {other:?}"),
    }
    match PaperRayCrossing::new(mesh.clone()) {
        Err(RayCrossError::NotSolid(e)) => assert!(check_inner(&e), "{name}: paper mode: unexpected {e:?}"),
        other => panic!("{name}: paper mode: expected NotSolid, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn meshes_that_bound_no_solid_are_refused() {
    // Open: the cube without its last face.
    let (v, mut f) = unit_cube_parts();
    f.pop();
    assert_not_solid("open cube", &TriMesh::new(v, f).unwrap(), |e| matches!(e, SolidError::Open { .. }));

    // Non-manifold without boundary: two tetrahedra on the triangle abc, which is also kept as
    // a face, so each of its edges has three faces.
    let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::new(0.2, 0.2, 1.0), DVec3::new(0.2, 0.2, -1.0)];
    let f = vec![[0, 1, 3], [1, 2, 3], [2, 0, 3], [1, 0, 4], [2, 1, 4], [0, 2, 4], [0, 1, 2]];
    assert_not_solid("theta", &TriMesh::new(v, f).unwrap(), |e| matches!(e, SolidError::NonManifold { .. }));

    // Inconsistent orientation: one face of the cube reversed.
    let (v, mut f) = unit_cube_parts();
    f[3].swap(1, 2);
    assert_not_solid("cube with one reversed face", &TriMesh::new(v, f).unwrap(), |e| {
        matches!(e, SolidError::InconsistentOrientation { .. })
    });

    // Zero volume: a doubly covered triangle (closed and consistent).
    let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y];
    assert_not_solid("double triangle", &TriMesh::new(v, vec![[0, 1, 2], [0, 2, 1]]).unwrap(), |e| {
        matches!(e, SolidError::ZeroVolume)
    });
}

#[test]
fn non_finite_query_points() {
    let mesh = octa_sphere(2).unwrap();
    let modes = Modes::new(&mesh, 1);
    for bad in [
        DVec3::new(f64::NAN, 0.0, 0.0),
        DVec3::new(0.0, f64::INFINITY, 0.0),
        DVec3::new(0.0, 0.0, f64::NEG_INFINITY),
    ] {
        assert_eq!(modes.fast.contains(bad), Err(RayCrossError::NonFinitePoint { index: 0 }));
        assert_eq!(modes.paper.contains(bad), Err(RayCrossError::NonFinitePoint { index: 0 }));
    }
    let mut points = lattice(-1.0, 1.0, 0.25);
    // Several bad points, some sharing a ray line with good ones: the lowest index is reported.
    points[37] = DVec3::new(f64::NAN, points[36].y, points[36].z);
    points[100] = DVec3::splat(f64::INFINITY);
    points[500] = DVec3::new(0.0, f64::NAN, 0.0);
    assert_eq!(modes.fast.contains_batch(&points), Err(RayCrossError::NonFinitePoint { index: 37 }));
    assert_eq!(modes.paper.contains_batch(&points), Err(RayCrossError::NonFinitePoint { index: 37 }));
    points[37] = DVec3::ZERO;
    assert_eq!(modes.fast.contains_batch(&points), Err(RayCrossError::NonFinitePoint { index: 100 }));
    assert_eq!(modes.paper.contains_batch(&points), Err(RayCrossError::NonFinitePoint { index: 100 }));
    // A bad point far outside the bounding box is still an error.
    let far = [DVec3::splat(5.0), DVec3::new(f64::INFINITY, 5.0, 5.0)];
    assert_eq!(modes.fast.contains_batch(&far), Err(RayCrossError::NonFinitePoint { index: 1 }));
    assert_eq!(modes.paper.contains_batch(&far), Err(RayCrossError::NonFinitePoint { index: 1 }));
}

/// Points with a coordinate outside the exact range (as for mesh vertices) are refused by both
/// paths with the first index: beyond it, `(5e-324, 0.5, 0.5)` in the unit cube was inside for
/// `contains` and on the boundary for `contains_batch`.
#[test]
fn query_points_outside_the_exact_range() {
    let mesh = octa_sphere(2).unwrap();
    let modes = Modes::new(&mesh, 1);
    for bad in [DVec3::new(5e-324, 0.5, 0.5), DVec3::new(0.0, 1e-71, 0.0), DVec3::new(0.0, 0.0, -1e71)] {
        assert_eq!(modes.fast.contains(bad), Err(RayCrossError::PointOutOfRange { index: 0 }));
        assert_eq!(modes.paper.contains(bad), Err(RayCrossError::PointOutOfRange { index: 0 }));
    }
    let mut points = lattice(-1.0, 1.0, 0.25);
    points[40] = DVec3::new(1e-300, points[39].y, points[39].z);
    points[90] = DVec3::new(f64::NAN, 0.0, 0.0);
    // A non-finite point is reported first, wherever it is (the contract of
    // `PointContainment::contains_batch`); without it, the first point out of range.
    assert_eq!(modes.fast.contains_batch(&points), Err(RayCrossError::NonFinitePoint { index: 90 }));
    assert_eq!(modes.paper.contains_batch(&points), Err(RayCrossError::NonFinitePoint { index: 90 }));
    points[90] = DVec3::ZERO;
    assert_eq!(modes.fast.contains_batch(&points), Err(RayCrossError::PointOutOfRange { index: 40 }));
    assert_eq!(modes.paper.contains_batch(&points), Err(RayCrossError::PointOutOfRange { index: 40 }));
    // The limits themselves are accepted.
    let edge = [DVec3::new(1e-70, 0.0, 0.0), DVec3::new(0.0, 1e70, -1e70)];
    assert_eq!(modes.fast.contains_batch(&edge).unwrap(), modes.paper.contains_batch(&edge).unwrap());
}

#[test]
fn invalid_poses_are_refused() {
    let body = RayCrossing::new(octa_sphere(2).unwrap()).unwrap();
    let other = octa_sphere(1).unwrap();
    let singular = DAffine3::from_mat3(DMat3::from_cols(DVec3::X, DVec3::Y, DVec3::ZERO));
    let rank_one = DAffine3::from_mat3(DMat3::from_cols(DVec3::X, DVec3::X * 2.0, DVec3::Z));
    let nan = DAffine3::from_translation(DVec3::new(0.0, f64::NAN, 0.0));
    let inf = DAffine3::from_mat3(DMat3::from_diagonal(DVec3::new(1.0, f64::INFINITY, 1.0)));
    let id = DAffine3::IDENTITY;
    for bad in [singular, rank_one, nan, inf] {
        assert_eq!(
            vertices_inside(&body, &bad, &other, &id),
            Err(RayCrossError::InvalidPose),
            "body pose {bad:?}"
        );
        assert_eq!(
            vertices_inside(&body, &id, &other, &bad),
            Err(RayCrossError::InvalidPose),
            "other pose {bad:?}"
        );
    }
    // Valid poses, finite composition, but a transformed vertex overflows.
    let big_other = other.transformed(&DAffine3::from_scale(DVec3::splat(1e10))).unwrap();
    let huge = DAffine3::from_mat3(DMat3::from_diagonal(DVec3::splat(1e300)));
    assert_eq!(
        vertices_inside(&body, &id, &big_other, &huge),
        Err(RayCrossError::NonFinitePoint { index: 0 })
    );
}

/// Two valid (finite, invertible) poses whose composition overflows: the documented error is
/// `NonFinitePoint` ("if a transformed vertex overflows"); `InvalidPose` is documented only for
/// a non-finite or singular pose.
#[test]
fn overflowing_pose_composition_reports_non_finite_point() {
    let body = RayCrossing::new(octa_sphere(2).unwrap()).unwrap();
    let other = octa_sphere(1).unwrap();
    let tiny = DAffine3::from_mat3(DMat3::from_diagonal(DVec3::splat(1e-10)));
    let huge = DAffine3::from_mat3(DMat3::from_diagonal(DVec3::splat(1e300)));
    let got = vertices_inside(&body, &tiny, &other, &huge);
    assert!(
        matches!(got, Err(RayCrossError::NonFinitePoint { .. })),
        "body pose 1e-10·I, other pose 1e300·I: got {got:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// 9. Batches equal single queries.
// ---------------------------------------------------------------------------------------------

#[test]
fn batch_equals_single_queries() {
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let torus = voxel_solids().into_iter().find(|(n, _)| n == "torus").unwrap().1;
    let sphere = octa_sphere(3).unwrap();
    // Many points on shared ray lines (y, z), including vertices and edge points, duplicated and
    // shuffled.
    let mut sphere_points = lines_through_vertices(&sphere, 30, &steps(-1.5, 1.5, 0.125));
    sphere_points.extend(sphere.vertices().iter().take(40));
    sphere_points.extend(lattice(-1.0, 1.0, 0.25));
    let cases = [
        ("torus", torus.mesh(mixed_split(3)), voxel_lattice(&torus, 0.5)),
        ("octa_sphere(3)", sphere, sphere_points),
    ];
    for (name, mesh, mut points) in cases {
        let dups: Vec<DVec3> =
            (0..points.len() / 3).map(|_| points[rng.random_range(0..points.len())]).collect();
        points.extend(dups);
        for i in (1..points.len()).rev() {
            points.swap(i, rng.random_range(0..=i));
        }
        let modes = Modes::new(&mesh, 4);
        let single_fast: Vec<_> = points.iter().map(|&p| modes.fast.contains(p).unwrap()).collect();
        let single_paper: Vec<_> = points.iter().map(|&p| modes.paper.contains(p).unwrap()).collect();
        assert_eq!(modes.fast.contains_batch(&points).unwrap(), single_fast, "{name}: fast batch");
        assert_eq!(modes.paper.contains_batch(&points).unwrap(), single_paper, "{name}: paper batch");
        assert_eq!(single_fast, single_paper, "{name}: modes disagree");
        // Sub-slices (different line groupings) give the same answers.
        for chunk in [1, 7, 64] {
            let chunked: Vec<_> =
                points.chunks(chunk).flat_map(|c| modes.fast.contains_batch(c).unwrap()).collect();
            assert_eq!(chunked, single_fast, "{name}: chunks of {chunk}");
        }
        assert!(modes.fast.contains_batch(&[]).unwrap().is_empty());
        assert!(modes.paper.contains_batch(&[]).unwrap().is_empty());
    }
}
