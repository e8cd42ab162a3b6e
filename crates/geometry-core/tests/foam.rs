//! The gyroid foam generator: preset sizes, closedness and orientation, topology, determinism,
//! geometry (bounding box, vertices on the implicit surface) and volume against an independent
//! Monte Carlo estimate.

use geometry_core::generators::{
    FOAM_PERIODS, FOAM_THRESHOLD, FoamSize, GeneratorError, MAX_FOAM_RESOLUTION, MIN_FOAM_RESOLUTION, foam,
    foam_with_resolution,
};
use geometry_core::{Aabb, DVec3, TriMesh};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::f64::consts::PI;

/// Euler characteristic of the foam's boundary (genus 27), the same at every resolution.
const EULER_CHARACTERISTIC: i64 = -52;

/// The gyroid wave number: `FOAM_PERIODS` periods over the box side of length 2.
fn wave_number() -> f64 {
    PI * f64::from(FOAM_PERIODS)
}

/// The gyroid function, written out independently of the generator.
fn gyroid(p: DVec3) -> f64 {
    let k = wave_number();
    let (x, y, z) = (k * p.x, k * p.y, k * p.z);
    x.sin() * y.cos() + y.sin() * z.cos() + z.sin() * x.cos()
}

fn unit_box() -> Aabb {
    Aabb::new(DVec3::splat(-1.0), DVec3::ONE).unwrap()
}

/// Checks everything a point-in-polyhedron algorithm relies on, and the foam's topology.
fn check_solid(mesh: &TriMesh, resolution: usize) {
    let r = mesh.report();
    assert_eq!(r.boundary_edges(), 0, "n = {resolution}: open");
    assert_eq!(r.non_manifold_edges(), 0, "n = {resolution}: non-manifold edges");
    assert_eq!(r.inconsistent_edges(), 0, "n = {resolution}: inconsistent orientation");
    assert!(r.is_closed() && r.is_consistently_oriented() && r.is_outward(), "n = {resolution}");
    assert!(mesh.require_solid().is_ok());
    assert!(r.signed_volume() > 0.0);
    assert_eq!(r.unreferenced_vertices(), 0, "n = {resolution}");
    assert_eq!(r.connected_components(), 1, "n = {resolution}: not one piece");

    let chi = r.euler_characteristic();
    assert!(
        chi % 2 == 0 && chi <= 2,
        "n = {resolution}: χ = {chi} impossible for a closed orientable surface"
    );
    assert!(chi < -10, "n = {resolution}: χ = {chi}, expected a high-genus network");
    assert_eq!(chi, EULER_CHARACTERISTIC, "n = {resolution}: topology differs from the converged foam");

    // The bounding box is exactly the box: vertices on the box faces are computed exactly.
    assert_eq!(mesh.bounding_box(), unit_box(), "n = {resolution}");

    // No two vertices share a position.
    let mut positions: Vec<[u64; 3]> =
        mesh.vertices().iter().map(|v| v.to_array().map(f64::to_bits)).collect();
    positions.sort_unstable();
    assert!(positions.windows(2).all(|w| w[0] != w[1]), "n = {resolution}: duplicate vertex positions");
}

/// Every vertex lies on the boundary of `{ g < t } ∩ [-1, 1]³`: on the gyroid level set inside
/// the box, or on a box face where `g <= t` (up to the clamping of vertices next to grid nodes).
fn check_vertices_on_surface(mesh: &TriMesh, resolution: usize) {
    let cell = 2.0 / resolution as f64;
    // 10⁻³ cells times the largest gradient of g (|∇g| ≤ 3k) is far below the cell size.
    let tolerance = 1e-3 * cell * 3.0 * wave_number();
    for (i, &v) in mesh.vertices().iter().enumerate() {
        let on_face = v.to_array().iter().any(|c| c.abs() == 1.0);
        let level = gyroid(v) - FOAM_THRESHOLD;
        if on_face {
            assert!(level <= tolerance, "n = {resolution}: vertex {i} {v} on a face but outside the network");
        } else {
            assert!(level.abs() <= tolerance, "n = {resolution}: vertex {i} {v} off the gyroid by {level}");
            assert!(v.abs().max_element() < 1.0);
        }
    }
}

/// Monte Carlo estimate of the volume of `{ g < t } ∩ [-1, 1]³` with a fixed seed, and its
/// standard error.
fn monte_carlo_volume(samples: usize) -> (f64, f64) {
    let mut rng = ChaCha8Rng::seed_from_u64(0x0f0a_2006);
    let hits = (0..samples)
        .filter(|_| {
            let p = DVec3::new(
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
            );
            gyroid(p) < FOAM_THRESHOLD
        })
        .count();
    let fraction = hits as f64 / samples as f64;
    (8.0 * fraction, 8.0 * (fraction * (1.0 - fraction) / samples as f64).sqrt())
}

#[test]
fn presets_hit_the_paper_sizes_and_are_valid_solids() {
    let (reference, standard_error) = monte_carlo_volume(1_000_000);
    // The standard error must be small against the tolerances below.
    assert!(standard_error < 0.002 * reference);
    let mut previous_error = f64::INFINITY;
    for size in FoamSize::ALL {
        let start = std::time::Instant::now();
        let mesh = foam(size).unwrap();
        let elapsed = start.elapsed();
        let resolution = size.resolution();
        let triangles = mesh.faces().len();
        let target = size.target_triangles();
        let deviation = triangles as f64 / target as f64 - 1.0;
        let volume = mesh.report().signed_volume();
        let volume_error = volume / reference - 1.0;
        println!(
            "{size:?}: n = {resolution}, {triangles} triangles (target {target}, {:+.2} %), {} vertices, \
             volume {volume:.5} (Monte Carlo {reference:.5} ± {standard_error:.5}, {:+.2} %), {elapsed:?}",
            100.0 * deviation,
            mesh.vertices().len(),
            100.0 * volume_error,
        );
        assert!(deviation.abs() <= 0.10, "{size:?}: {triangles} triangles, target {target}");
        check_solid(&mesh, resolution);
        check_vertices_on_surface(&mesh, resolution);
        // Discretisation error (flat triangles, cut creases along the box faces) is O(h²).
        let tolerance = if size == FoamSize::Small { 0.03 } else { 0.01 };
        assert!(volume_error.abs() < tolerance, "{size:?}: volume {volume}, reference {reference}");
        assert!(volume_error.abs() < previous_error, "{size:?}: volume does not converge");
        previous_error = volume_error.abs();
    }
}

#[test]
fn preset_resolutions_are_the_closest_to_the_targets() {
    // The triangle count grows with the resolution, so the neighbours of the preset's resolution
    // bracket its target and are no closer.
    for size in [FoamSize::Small, FoamSize::Medium] {
        let n = size.resolution();
        let target = size.target_triangles();
        let distance = |n| foam_with_resolution(n).unwrap().faces().len().abs_diff(target);
        let own = distance(n);
        assert!(own <= distance(n - 1) && own <= distance(n + 1), "{size:?}");
    }
}

#[test]
fn output_is_deterministic() {
    for n in [FoamSize::Small.resolution(), 27, FoamSize::Medium.resolution()] {
        let a = foam_with_resolution(n).unwrap();
        let b = foam_with_resolution(n).unwrap();
        assert_eq!(a.faces(), b.faces(), "n = {n}");
        let bits =
            |m: &TriMesh| m.vertices().iter().map(|v| v.to_array().map(f64::to_bits)).collect::<Vec<_>>();
        assert_eq!(bits(&a), bits(&b), "n = {n}");
    }
}

#[test]
fn topology_is_the_same_at_every_small_resolution() {
    for n in MIN_FOAM_RESOLUTION..=MIN_FOAM_RESOLUTION + 13 {
        let mesh = foam_with_resolution(n).unwrap();
        check_solid(&mesh, n);
        check_vertices_on_surface(&mesh, n);
        // Roughly 75 n² triangles.
        let per_cell = mesh.faces().len() as f64 / (n * n) as f64;
        assert!((60.0..90.0).contains(&per_cell), "n = {n}: {per_cell} triangles per n²");
    }
}

#[test]
fn out_of_range_resolutions_are_rejected() {
    for n in [0, 1, 3, 4, MIN_FOAM_RESOLUTION - 1, MAX_FOAM_RESOLUTION + 1, usize::MAX] {
        assert_eq!(
            foam_with_resolution(n).unwrap_err(),
            GeneratorError::OutOfRange {
                what: "foam resolution",
                value: n,
                min: MIN_FOAM_RESOLUTION,
                max: MAX_FOAM_RESOLUTION,
            },
            "n = {n}"
        );
    }
    const { assert!(MIN_FOAM_RESOLUTION >= 4) };
}
