//! `FmmDlp` against oracles written here, independently of the crate:
//!
//! 1. convergence in the expansion order: the maximum of `|J̃ − J|` over a 10³ grid around an
//!    octahedral sphere (with `J` from the test's own solid-angle sum) decays geometrically in `p`,
//!    and the reported error bounds hold at every point for `p ≥ 2`;
//! 2. classification equals `raycross` (exact) and `ExactDlp` on regular grids around octahedral
//!    spheres (levels 2–5) and the gyroid foam, for `d ∈ {2, 3}`, `p ∈ {2, 6}` and every tree
//!    depth rule, also at points 1e-15 … 1e-8 from faces, edges and vertices; off the surface,
//!    `|J̃ − J|` stays within the reported bound;
//! 3. dyadic points on the surface of a finely cut cube and of an L-shaped prism are `OnBoundary`,
//!    with `J̃` within its bound of the exact ½, ¼, ⅛, ¾, ⅜;
//! 4. posed queries equal body-frame queries of the inverse-transformed points and `raycross` on
//!    the transformed mesh;
//! 5. grouped classification (the default) equals raycross and the ungrouped path on random
//!    points, coincident points, points on and next to the surface;
//! 6. a run on one rayon thread (a child process with `RAYON_NUM_THREADS=1`) gives bit-identical
//!    results to a run on the global pool;
//! 7. the order chosen for a requested accuracy meets it (bound and actual error) and is the
//!    least that does;
//! 8. batches with a point far from the mesh (1e63 away), meshes at 1e±69 and order 30 at
//!    1e12: every potential finite and within its bound of the exact one, independent of the
//!    far point, and the same class as the exact evaluator (NaN potentials with bound 0 before);
//! 9. meshes whose winding number leaves {0, 1} (nested outward shells, a lone inward shell)
//!    are classified by parity, as `raycross` and `ExactDlp` do, by every evaluator.

mod common;

use common::{
    DEBUG, Surface, boxes_value, containment_of_value, l_prism, lattice, near_feature_points,
    near_surface_points, random_points, random_rigid, random_rotation, rng, subdivided_cube,
};
use contact_core::{Containment, PointContainment};
use fmm_dlp::{ExactDlp, FmmConfig, FmmDlp, TreeDepth};
use geometry_core::generators::{FoamSize, foam, octa_sphere, point_grid, surrounding_cube};
use geometry_core::{DAffine3, DMat3, DQuat, DVec3, TriMesh};
use rand::RngExt;
use raycross::RayCrossing;

fn config(order: usize, separation: f64, depth: TreeDepth) -> FmmConfig {
    FmmConfig { order, separation, depth, ..FmmConfig::default() }
}

/// The `n³` cell-centre grid on the cube around `mesh` with margin 0.1.
fn grid(mesh: &TriMesh, n: usize) -> Vec<DVec3> {
    point_grid(&surrounding_cube(&mesh.bounding_box(), 0.1).unwrap(), n).unwrap()
}

#[test]
fn error_decays_geometrically_in_the_order_and_stays_within_the_bounds() {
    for level in [3, 4] {
        let mesh = octa_sphere(level).unwrap();
        let points = grid(&mesh, 10);
        let surface = Surface::new(&mesh);
        let exact: Vec<f64> = points.iter().map(|&x| surface.winding(x)).collect();
        // The oracle against the crate's exact evaluator (cross-check of both).
        let crate_exact = ExactDlp::new(mesh.clone()).unwrap().potentials(&points).unwrap();
        for (a, b) in exact.iter().zip(&crate_exact) {
            assert!((a - b).abs() < 1e-12);
        }
        println!("octa_sphere({level}), 10³ grid, d = 3, PreChosen");
        println!(" p   max |J̃ − J|   max bound   bound violations (|J̃ − J| > bound + 1e-13)");
        let mut errors = Vec::new();
        for p in 0..=12 {
            let fmm = FmmDlp::new(mesh.clone(), config(p, 3.0, TreeDepth::PreChosen)).unwrap();
            assert_eq!(fmm.config().order, p);
            let eval = fmm.evaluate(&points).unwrap();
            assert_eq!(eval.potentials.len(), points.len());
            assert_eq!(eval.error_bounds.len(), points.len());
            assert_eq!(eval.on_surface.len(), points.len());
            let mut max_err: f64 = 0.0;
            let mut max_bound: f64 = 0.0;
            let mut violations = Vec::new();
            for (i, &want) in exact.iter().enumerate() {
                let err = (eval.potentials[i] - want).abs();
                max_err = max_err.max(err);
                max_bound = max_bound.max(eval.error_bounds[i]);
                // The bound is for the truncation; 1e-13 allows for rounding in the sums.
                if err > eval.error_bounds[i] + 1e-13 {
                    violations.push((i, err, eval.error_bounds[i]));
                }
            }
            println!("{p:2}   {max_err:.3e}    {max_bound:.3e}   {}", violations.len());
            if p >= 2 {
                assert!(
                    violations.is_empty(),
                    "level {level}, p = {p}: bound violated at {} points, first (index, error, bound) {:?} \
                     at {}",
                    violations.len(),
                    violations[0],
                    points[violations[0].0]
                );
            }
            // The potentials are the evaluation's potentials.
            assert_eq!(fmm.potentials(&points).unwrap(), eval.potentials);
            errors.push(max_err);
        }
        assert!(errors[0] > 1e-6, "level {level}: p = 0 is exact, so the far field was never used");
        for p in 0..=10 {
            assert!(
                errors[p + 2] < errors[p],
                "level {level}: error does not decrease from p = {p} to {}",
                p + 2
            );
        }
        assert!(errors[12] < 1e-8, "level {level}: error at p = 12 is {}", errors[12]);
    }
}

/// `raycross` and `FmmDlp` agree on every point, for every configuration, and `|J̃ − J|` stays
/// within the reported bound. `J` is `reference` if given, else 1 (inside) or 0 (outside), which
/// is what the floating-point solid-angle sum gives at points not extremely close to the surface.
fn check_classification(
    what: &str,
    mesh: &TriMesh,
    points: &[DVec3],
    want: &[Containment],
    configs: &[FmmConfig],
    reference: Option<&[f64]>,
) {
    for cfg in configs {
        let fmm = FmmDlp::new(mesh.clone(), *cfg).unwrap();
        let got = fmm.classify(points).unwrap();
        let (stats_got, exact_count) = fmm.classify_with_stats(points).unwrap();
        assert_eq!(got, stats_got, "{what}: classify_with_stats differs from classify");
        assert!(exact_count <= points.len());
        let eval = fmm.evaluate(points).unwrap();
        for (i, &p) in points.iter().enumerate() {
            assert_eq!(got[i], want[i], "{what}, {cfg:?}: point {i} = {p:?}");
            let j = match (reference, want[i]) {
                (Some(js), _) => js[i],
                (None, Containment::Inside) => 1.0,
                (None, Containment::Outside) => 0.0,
                (None, Containment::OnBoundary) => continue,
            };
            let err = (eval.potentials[i] - j).abs();
            assert!(
                err <= eval.error_bounds[i] + 1e-13,
                "{what}, {cfg:?}: J̃({p}) = {}, J = {j}, bound {}",
                eval.potentials[i],
                eval.error_bounds[i]
            );
        }
    }
}

fn order_separation_configs() -> Vec<FmmConfig> {
    // The paper's path (every point evaluated) besides the default grouped one.
    let mut out = vec![FmmConfig { group_clear_regions: false, ..config(6, 3.0, TreeDepth::PreChosen) }];
    for separation in [2.0, 3.0] {
        for order in [2, 6] {
            out.push(config(order, separation, TreeDepth::PreChosen));
        }
    }
    out
}

#[test]
fn classification_on_grids_around_octa_spheres() {
    for level in 2..=5 {
        let mesh = octa_sphere(level).unwrap();
        let ray = RayCrossing::new(mesh.clone()).unwrap();
        let exact = ExactDlp::new(mesh.clone()).unwrap();
        for n in [10, 20] {
            let points = grid(&mesh, n);
            let want = ray.contains_batch(&points).unwrap();
            assert!(want.contains(&Containment::Inside) && want.contains(&Containment::Outside));
            if n == 10 {
                assert_eq!(exact.contains_batch(&points).unwrap(), want, "ExactDlp vs raycross");
            }
            check_classification(
                &format!("octa_sphere({level}), {n}³"),
                &mesh,
                &points,
                &want,
                &order_separation_configs(),
                None,
            );
        }
    }
}

#[test]
fn classification_on_grids_around_the_foam() {
    let mesh = foam(FoamSize::Small).unwrap();
    let ray = RayCrossing::new(mesh.clone()).unwrap();
    let exact = ExactDlp::new(mesh.clone()).unwrap();
    let points = grid(&mesh, 10);
    let want = ray.contains_batch(&points).unwrap();
    assert_eq!(exact.contains_batch(&points).unwrap(), want, "ExactDlp vs raycross");
    check_classification("foam, 10³", &mesh, &points, &want, &order_separation_configs(), None);
    let points = grid(&mesh, 20);
    let want = ray.contains_batch(&points).unwrap();
    check_classification("foam, 20³", &mesh, &points, &want, &order_separation_configs(), None);
}

#[test]
fn classification_for_every_tree_depth_rule() {
    let mut r = rng(20);
    let cases = [("octa_sphere(4)", octa_sphere(4).unwrap()), ("foam", foam(FoamSize::Small).unwrap())];
    for (what, mesh) in cases {
        let ray = RayCrossing::new(mesh.clone()).unwrap();
        let mut points = grid(&mesh, 10);
        // Points close to the surface make the fallback work.
        points.extend(near_surface_points(&mut r, &mesh, 300, 1e-7, 1e-3));
        let want = ray.contains_batch(&points).unwrap();
        let mut configs = Vec::new();
        for depth in [
            TreeDepth::PreChosen,
            TreeDepth::WellChosen { points: points.len() },
            TreeDepth::WellChosen { points: 10 },
            TreeDepth::WellChosen { points: 1_000_000 },
            TreeDepth::Fixed(1),
            TreeDepth::Fixed(8),
            TreeDepth::Fixed(usize::MAX),
        ] {
            if DEBUG && what == "foam" && matches!(depth, TreeDepth::Fixed(1)) {
                continue;
            }
            configs.push(config(4, 3.0, depth));
        }
        check_classification(what, &mesh, &points, &want, &configs, None);
    }
}

#[test]
fn classification_next_to_faces_edges_and_vertices() {
    // Points 1e-15 … 1e-8 from faces, edges and vertices, where the floating-point solid angles
    // are too inaccurate to decide by themselves (the computed J is off by up to 1e-2 at 1e-15
    // next to an edge). The bounds are for the truncation, so they are checked against the
    // floating-point sum of `ExactDlp` there.
    let mut r = rng(24);
    let cases = [("octa_sphere(3)", octa_sphere(3).unwrap()), ("foam", foam(FoamSize::Small).unwrap())];
    for (what, mesh) in cases {
        let mut points = Vec::new();
        for e in -15..=-9 {
            let lo = 10f64.powi(e);
            points.extend(near_surface_points(&mut r, &mesh, 60, lo, 10.0 * lo));
            points.extend(near_feature_points(&mut r, &mesh, 60, lo));
        }
        let want = RayCrossing::new(mesh.clone()).unwrap().contains_batch(&points).unwrap();
        let inside = want.iter().filter(|&&c| c == Containment::Inside).count();
        assert!(inside > 100 && inside < points.len() - 100, "{what}: {inside} of {} inside", points.len());
        let reference = ExactDlp::new(mesh.clone()).unwrap().potentials(&points).unwrap();
        check_classification(what, &mesh, &points, &want, &order_separation_configs(), Some(&reference));
    }
}

/// Dyadic lattice points on and around box solids: exact values from the box oracle.
fn check_box_solid(
    what: &str,
    mesh: &TriMesh,
    boxes: &[(DVec3, DVec3)],
    points: &[DVec3],
    configs: &[FmmConfig],
) {
    let ray = RayCrossing::new(mesh.clone()).unwrap();
    let want_ray = ray.contains_batch(points).unwrap();
    let exact: Vec<f64> = points.iter().map(|&p| boxes_value(boxes, p)).collect();
    let mut on_boundary = 0;
    for (i, &p) in points.iter().enumerate() {
        assert_eq!(want_ray[i], containment_of_value(exact[i]), "{what}: raycross vs box oracle at {p}");
        on_boundary += usize::from(want_ray[i] == Containment::OnBoundary);
    }
    assert!(on_boundary > points.len() / 20, "{what}: only {on_boundary} boundary points");
    for cfg in configs {
        let fmm = FmmDlp::new(mesh.clone(), *cfg).unwrap();
        let got = fmm.classify(points).unwrap();
        let eval = fmm.evaluate(points).unwrap();
        for (i, &p) in points.iter().enumerate() {
            assert_eq!(got[i], want_ray[i], "{what}, {cfg:?}: point {p}, J = {}", exact[i]);
            let err = (eval.potentials[i] - exact[i]).abs();
            assert!(
                err <= eval.error_bounds[i] + 1e-13,
                "{what}, {cfg:?}: J̃({p}) = {} but J = {}, bound {}",
                eval.potentials[i],
                exact[i],
                eval.error_bounds[i]
            );
        }
    }
}

#[test]
fn points_on_box_surfaces_are_on_boundary() {
    let mut configs = Vec::new();
    for depth in [TreeDepth::PreChosen, TreeDepth::Fixed(2), TreeDepth::Fixed(8)] {
        for (order, separation) in [(2, 2.0), (6, 3.0)] {
            configs.push(config(order, separation, depth));
        }
    }
    let cube_points = lattice(-0.125, 1.125, 0.0625);
    check_box_solid(
        "cube cut 8 × 8",
        &subdivided_cube(8),
        &[(DVec3::ZERO, DVec3::ONE)],
        &cube_points,
        &configs,
    );
    let shifted = lattice(-0.125, 1.125, 0.0625).into_iter().map(|p| p * 2.0).collect::<Vec<_>>();
    let l_boxes = [
        (DVec3::ZERO, DVec3::ONE),
        (DVec3::new(1.0, 0.0, 0.0), DVec3::new(2.0, 1.0, 1.0)),
        (DVec3::new(0.0, 1.0, 0.0), DVec3::new(1.0, 2.0, 1.0)),
    ];
    let l_configs: Vec<FmmConfig> =
        [TreeDepth::Fixed(1), TreeDepth::PreChosen].into_iter().map(|d| config(3, 2.0, d)).collect();
    check_box_solid("L prism", &l_prism(), &l_boxes, &shifted, &l_configs);
}

#[test]
fn posed_queries_equal_body_frame_queries_and_raycross() {
    let mut r = rng(21);
    let cases = [("octa_sphere(3)", octa_sphere(3).unwrap()), ("foam", foam(FoamSize::Small).unwrap())];
    for (what, mesh) in cases {
        let fmm = FmmDlp::new(mesh.clone(), FmmConfig::default()).unwrap();
        for trial in 0..3 {
            let pose = random_rigid(&mut r, 3.0);
            let moved = mesh.transformed(&pose).unwrap();
            let n = if DEBUG && what == "foam" { 10 } else { 14 };
            let mut world = grid(&moved, n);
            world.extend(near_surface_points(&mut r, &moved, 200, 1e-6, 1e-3));
            let got = fmm.classify_posed(&pose, &world).unwrap();
            let inverse = pose.inverse();
            let body: Vec<DVec3> = world.iter().map(|&w| inverse.transform_point3(w)).collect();
            let via_body = fmm.classify(&body).unwrap();
            let ray = RayCrossing::new(moved).unwrap().contains_batch(&world).unwrap();
            for i in 0..world.len() {
                assert_eq!(got[i], via_body[i], "{what}, pose {trial}: world point {}", world[i]);
                assert_eq!(got[i], ray[i], "{what}, pose {trial}: world point {} vs raycross", world[i]);
            }
        }
    }
}

#[test]
fn posed_queries_with_scaling_and_reflection() {
    let mut r = rng(22);
    let mesh = octa_sphere(3).unwrap();
    let fmm = FmmDlp::new(mesh.clone(), config(5, 3.0, TreeDepth::PreChosen)).unwrap();
    for trial in 0..4 {
        let mut diagonal =
            DVec3::new(r.random_range(0.5..2.0), r.random_range(0.5..2.0), r.random_range(0.5..2.0));
        if trial % 2 == 1 {
            diagonal.y = -diagonal.y;
        }
        let m = random_rotation(&mut r) * DMat3::from_diagonal(diagonal) * random_rotation(&mut r);
        let pose = DAffine3::from_mat3_translation(m, DVec3::new(1.0, -2.0, 0.5));
        let moved = mesh.transformed(&pose).unwrap();
        let world = grid(&moved, 12);
        let got = fmm.classify_posed(&pose, &world).unwrap();
        let ray = RayCrossing::new(moved).unwrap().contains_batch(&world).unwrap();
        assert!(ray.contains(&Containment::Inside));
        for i in 0..world.len() {
            assert_eq!(got[i], ray[i], "affine pose {trial}: world point {}", world[i]);
        }
    }
}

/// The environment variable through which the parent tells the child process where to write.
const CHILD_OUTPUT: &str = "FMM_DLP_TEST_SINGLE_THREAD_OUTPUT";

/// Everything the thread-count test compares, as bit patterns.
fn thread_sensitive_results() -> Vec<u64> {
    let mesh = octa_sphere(4).unwrap();
    let mut r = rng(23);
    let mut points = grid(&mesh, if DEBUG { 12 } else { 20 });
    points.extend(near_surface_points(&mut r, &mesh, 300, 1e-9, 1e-3));
    points.extend(random_points(&mut r, &mesh.bounding_box().expanded(0.5).unwrap(), 300));
    let mut out = Vec::new();
    let exact = ExactDlp::new(mesh.clone()).unwrap();
    out.extend(exact.potentials(&points).unwrap().iter().map(|j| j.to_bits()));
    let code = |c: &Containment| match c {
        Containment::Inside => 1,
        Containment::Outside => 2,
        Containment::OnBoundary => 3,
    };
    out.extend(exact.contains_batch(&points).unwrap().iter().map(code));
    for cfg in [config(6, 3.0, TreeDepth::PreChosen), config(3, 2.0, TreeDepth::Fixed(4))] {
        let fmm = FmmDlp::new(mesh.clone(), cfg).unwrap();
        let eval = fmm.evaluate(&points).unwrap();
        out.extend(eval.potentials.iter().map(|j| j.to_bits()));
        out.extend(eval.error_bounds.iter().map(|j| j.to_bits()));
        out.extend(eval.on_surface.iter().map(|&b| u64::from(b)));
        out.extend(fmm.classify(&points).unwrap().iter().map(code));
        let pose = random_rigid(&mut r, 1.0);
        out.extend(fmm.classify_posed(&pose, &points).unwrap().iter().map(code));
    }
    out
}

#[test]
fn one_thread_gives_identical_results() {
    if let Ok(path) = std::env::var(CHILD_OUTPUT) {
        // Child process: rayon's global pool was created with RAYON_NUM_THREADS=1.
        let text: Vec<String> = thread_sensitive_results().iter().map(u64::to_string).collect();
        std::fs::write(path, text.join("\n")).unwrap();
        return;
    }
    let parallel = thread_sensitive_results();
    let path = std::env::temp_dir().join(format!("fmm-dlp-single-thread-{}.txt", std::process::id()));
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["one_thread_gives_identical_results", "--exact", "--test-threads=1"])
        .env("RAYON_NUM_THREADS", "1")
        .env(CHILD_OUTPUT, &path)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "child process failed");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let serial: Vec<u64> = text.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(serial.len(), parallel.len());
    let first = serial.iter().zip(&parallel).position(|(a, b)| a != b);
    assert!(first.is_none(), "one thread differs from the pool at result {first:?}");
}

/// Grouped classification (the default) against raycross and against the ungrouped path, on
/// points where grouping matters: random points through the bounding box (most of them
/// grouped), clusters of coincident points, points exactly on the surface (vertices, face
/// centroids) and points 1e-12 to 1e-6 from it.
#[test]
fn grouped_classification_equals_raycross_and_the_ungrouped_path() {
    let mut r = rng(31);
    let cases = [("octa_sphere(4)", octa_sphere(4).unwrap()), ("foam", foam(FoamSize::Small).unwrap())];
    for (what, mesh) in cases {
        let bbox = mesh.bounding_box();
        let extent = bbox.max - bbox.min;
        let mut points: Vec<DVec3> =
            (0..3_000).map(|_| bbox.min + extent * DVec3::new(r.random(), r.random(), r.random())).collect();
        let copies: Vec<DVec3> = points[..50].iter().flat_map(|&p| [p; 4]).collect();
        points.extend(copies);
        let (vertices, faces) = (mesh.vertices(), mesh.faces());
        points.extend(vertices.iter().step_by(vertices.len() / 40 + 1));
        points.extend(
            faces
                .iter()
                .step_by(faces.len() / 40 + 1)
                .map(|f| f.iter().map(|&v| vertices[v as usize]).sum::<DVec3>() / 3.0),
        );
        points.extend(near_surface_points(&mut r, &mesh, 200, 1e-12, 1e-6));
        let want = RayCrossing::new(mesh.clone()).unwrap().contains_batch(&points).unwrap();
        assert!(want.contains(&Containment::OnBoundary), "{what}: no point on the surface");
        let grouped = FmmDlp::new(mesh.clone(), FmmConfig::default()).unwrap();
        let each =
            FmmDlp::new(mesh.clone(), FmmConfig { group_clear_regions: false, ..FmmConfig::default() })
                .unwrap();
        let got = grouped.classify(&points).unwrap();
        assert_eq!(got, each.classify(&points).unwrap(), "{what}: grouped vs ungrouped");
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "{what}: point {i} = {}", points[i]);
        }
        // The trait's batch and single-point queries give the same answers.
        assert_eq!(grouped.contains_batch(&points).unwrap(), got);
        for i in (0..points.len()).step_by(97) {
            assert_eq!(grouped.contains(points[i]).unwrap(), got[i], "{what}: single point {i}");
        }
    }
}

/// `order_for_accuracy` (pre-chosen and fixed depth): the evaluator rebuilt at the order it
/// returns keeps every point's bound, and its actual error against the test's own exact sum,
/// within the request, and one order less would not (minimality).
#[test]
fn order_for_accuracy_meets_the_request_with_the_least_order() {
    let mut r = rng(31);
    let cases = [("octa_sphere(4)", octa_sphere(4).unwrap()), ("foam", foam(FoamSize::Small).unwrap())];
    for (name, mesh) in cases {
        let mut points = random_points(&mut r, &mesh.bounding_box().expanded(0.3).unwrap(), 300);
        points.extend(near_surface_points(&mut r, &mesh, 100, 1e-6, 1e-2));
        let exact = ExactDlp::new(mesh.clone()).unwrap().potentials(&points).unwrap();
        for depth in [TreeDepth::PreChosen, TreeDepth::Fixed(16)] {
            let first = FmmDlp::new(mesh.clone(), config(4, 3.0, depth)).unwrap();
            for epsilon in [1e-2, 1e-4, 1e-7] {
                let p = first.order_for_accuracy(&points, epsilon).unwrap();
                let at = |order: usize| {
                    FmmDlp::new(mesh.clone(), config(order, 3.0, depth)).unwrap().evaluate(&points).unwrap()
                };
                let evaluation = at(p);
                let worst_bound = evaluation.error_bounds.iter().copied().fold(0.0, f64::max);
                assert!(
                    worst_bound <= epsilon,
                    "{name}, {depth:?}, ε = {epsilon}: p = {p}, bound {worst_bound}"
                );
                for (j, want) in evaluation.potentials.iter().zip(&exact) {
                    assert!((j - want).abs() <= epsilon, "{name}, ε = {epsilon}: error {}", (j - want).abs());
                }
                if p > 0 {
                    let fewer = at(p - 1).error_bounds.iter().copied().fold(0.0, f64::max);
                    assert!(fewer > epsilon, "{name}, {depth:?}, ε = {epsilon}: p − 1 = {} suffices", p - 1);
                }
            }
        }
    }
    let fmm = FmmDlp::new(octa_sphere(2).unwrap(), FmmConfig::default()).unwrap();
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(fmm.order_for_accuracy(&[DVec3::ZERO], bad).is_err(), "ε = {bad}");
    }
    assert!(fmm.order_for_accuracy(&[DVec3::new(3.0, 0.0, 0.0)], 1e-300).is_err());
}

/// At orders 0 and 1 the farfield is no approximation of the potential (at order 0 it vanishes:
/// every point deep inside got a potential near 0 and was classified outside, found by an
/// adversarial review); classification must then rest on the certified bound and the exact
/// evaluation, and agree with the exact evaluator everywhere.
#[test]
fn the_lowest_orders_still_classify_exactly() {
    let mesh = octa_sphere(5).unwrap();
    let exact = ExactDlp::new(mesh.clone()).unwrap();
    // Deep inside (where the farfield carries the potential) and around the surface.
    let mut points =
        point_grid(&geometry_core::Aabb::new(DVec3::splat(-0.52), DVec3::splat(0.52)).unwrap(), 8).unwrap();
    points.extend(
        point_grid(&geometry_core::Aabb::new(DVec3::splat(-1.3), DVec3::splat(1.3)).unwrap(), 7).unwrap(),
    );
    let expected = exact.contains_batch(&points).unwrap();
    for order in [0, 1, 2] {
        for group_clear_regions in [true, false] {
            let config = FmmConfig { order, group_clear_regions, ..FmmConfig::default() };
            let fmm = FmmDlp::new(mesh.clone(), config).unwrap();
            assert_eq!(
                fmm.classify(&points).unwrap(),
                expected,
                "order {order}, grouping {group_clear_regions}"
            );
        }
    }
}

/// Item 8: a far point must not spoil its batch, and the expansions must not overflow for
/// meshes at the ends of the exact range: every potential is finite, within its bound of the
/// exact `J`, the same with or without the far point, and classifies as the exact evaluator
/// does.
#[test]
fn far_points_and_extreme_scales_keep_potentials_finite() {
    let check = |mesh: TriMesh, order: usize, points: &[DVec3], label: &str| {
        let fmm = FmmDlp::new(mesh.clone(), FmmConfig { order, ..FmmConfig::default() }).unwrap();
        let exact = ExactDlp::new(mesh).unwrap();
        let evaluation = fmm.evaluate(points).unwrap();
        for (i, &x) in points.iter().enumerate() {
            let (j, bound) = (evaluation.potentials[i], evaluation.error_bounds[i]);
            let truth = exact.potential(x).unwrap();
            assert!(j.is_finite() && bound.is_finite(), "{label}, point {i}: J~ = {j}, bound {bound}");
            assert!(
                (j - truth).abs() <= bound + 1e-12,
                "{label}, point {i}: J~ = {j}, J = {truth}, bound {bound}"
            );
            // Alone, the point gets the same answer within both bounds.
            let alone = fmm.evaluate(&[x]).unwrap();
            assert!(
                (alone.potentials[0] - j).abs() <= alone.error_bounds[0] + bound + 1e-12,
                "{label}, point {i}"
            );
        }
        assert_eq!(fmm.classify(points).unwrap(), exact.contains_batch(points).unwrap(), "{label}");
    };
    let inner = DVec3::new(0.1, 0.2, 0.3);
    let near = DVec3::new(1.5, 0.1, 0.0);
    check(octa_sphere(3).unwrap(), 5, &[DVec3::new(1e63, 0.0, 0.0), inner, near], "far point, order 5");
    check(octa_sphere(3).unwrap(), 30, &[DVec3::new(0.0, -1e12, 3.0), inner, near], "1e12, order 30");
    check(
        octa_sphere(3).unwrap(),
        30,
        &[DVec3::splat(-1e69), inner, near, DVec3::splat(1e-69)],
        "1e69, order 30",
    );
    for scale in [1e69, 1e-60] {
        let mesh = octa_sphere(4).unwrap().transformed(&DAffine3::from_scale(DVec3::splat(scale))).unwrap();
        let points = [inner * scale, near * scale, DVec3::new(3.0, 0.1, 0.0) * scale];
        check(mesh.clone(), 5, &points, &format!("mesh at {scale:e}, order 5"));
        check(mesh, 30, &points, &format!("mesh at {scale:e}, order 30"));
    }
    // The order for an accuracy is not lowered by a far point in the batch.
    let fmm = FmmDlp::new(octa_sphere(5).unwrap(), FmmConfig::default()).unwrap();
    let alone = fmm.order_for_accuracy(&[inner], 1e-6).unwrap();
    let with_far = fmm.order_for_accuracy(&[inner, DVec3::new(1e63, 0.0, 0.0)], 1e-6).unwrap();
    assert!(with_far >= alone && alone > 5, "{alone} alone, {with_far} with a far point");
}

/// One mesh of several axis-aligned cube shells, each `(lo, edge, outward)`.
fn cube_shells(shells: &[(DVec3, f64, bool)]) -> TriMesh {
    let (mut vertices, mut faces) = (Vec::new(), Vec::new());
    for &(lo, edge, outward) in shells {
        let pose = DAffine3::from_scale_rotation_translation(DVec3::splat(edge), DQuat::IDENTITY, lo);
        let cube = common::unit_cube().transformed(&pose).unwrap();
        let cube = if outward { cube } else { cube.flipped() };
        let offset = vertices.len() as u32;
        vertices.extend_from_slice(cube.vertices());
        faces.extend(cube.faces().iter().map(|f| f.map(|v| v + offset)));
    }
    TriMesh::new(vertices, faces).unwrap()
}

/// Item 9: meshes whose winding number leaves {0, 1}, which `require_solid` accepts: nested outward
/// shells (winding 2 in the inner cube) and an inward shell standing alone (winding −1). Every
/// evaluator must classify by parity, as `raycross`: the count of shells around the point, odd
/// inside. (`FmmDlp` said inside for winding 2 and outside for −1 away from the surface, and
/// decided near the surface by parity: one region came out both ways; found by an adversarial
/// review.)
#[test]
fn winding_numbers_beyond_zero_and_one_are_decided_by_parity() {
    let cases = [
        ("nested", vec![(DVec3::ZERO, 4.0, true), (DVec3::ONE, 2.0, true)]),
        ("lone inward", vec![(DVec3::ZERO, 4.0, true), (DVec3::splat(10.0), 1.0, false)]),
        (
            "three nested",
            vec![(DVec3::ZERO, 8.0, true), (DVec3::ONE, 6.0, true), (DVec3::splat(2.0), 4.0, true)],
        ),
    ];
    for (label, shells) in cases {
        let mesh = cube_shells(&shells);
        let around = |p: DVec3| {
            let count = shells
                .iter()
                .filter(|(lo, edge, _)| (0..3).all(|k| p[k] > lo[k] && p[k] < lo[k] + edge))
                .count();
            if count % 2 == 1 { Containment::Inside } else { Containment::Outside }
        };
        // A lattice off every face, and points 2^-40 and 2^-44 inside or outside the faces.
        let mut points = lattice(-0.75, 11.75, 0.5);
        for &(lo, edge, _) in &shells {
            let centre = lo + DVec3::splat(edge / 2.0);
            for offset in [2f64.powi(-40), 2f64.powi(-44)] {
                for sign in [-1.0, 1.0] {
                    points.push(DVec3::new(centre.x, centre.y, lo.z + sign * offset));
                    points.push(DVec3::new(centre.x, lo.y + edge + sign * offset, centre.z));
                }
            }
        }
        let expected: Vec<Containment> = points.iter().map(|&p| around(p)).collect();
        let raycross = RayCrossing::new(mesh.clone()).unwrap().contains_batch(&points).unwrap();
        assert_eq!(raycross, expected, "{label}: raycross");
        let exact = ExactDlp::new(mesh.clone()).unwrap().contains_batch(&points).unwrap();
        assert_eq!(exact, expected, "{label}: ExactDlp");
        for order in [0, 2, 5] {
            for group_clear_regions in [true, false] {
                let config = FmmConfig { order, group_clear_regions, ..FmmConfig::default() };
                let got = FmmDlp::new(mesh.clone(), config).unwrap().contains_batch(&points).unwrap();
                for (k, (g, e)) in got.iter().zip(&expected).enumerate() {
                    assert_eq!(
                        g, e,
                        "{label}, order {order}, grouped {group_clear_regions}: point {}",
                        points[k]
                    );
                }
            }
        }
    }
}
