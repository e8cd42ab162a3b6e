//! Exact ellipsoid–plane and ellipsoid–sphere contacts against brute force over the ellipsoid
//! surface (a 120 × 240 grid of body-frame angles, refined by compass search), and against
//! constructions with known answers (a sphere centre at distance g along an outward normal has
//! its closest ellipsoid point at the foot of that normal, distance g).

mod common;

use common::{ellipsoid, half_gradient, q_form, random_axes, random_quat, random_unit, rng, surface_min};
use ellipsoid_pw::{contact_ellipsoid_plane, contact_ellipsoid_sphere};
use geometry_core::{DVec3, Ellipsoid, Plane, Sphere};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

fn random_ellipsoid(rng: &mut ChaCha8Rng) -> Ellipsoid {
    let size = common::log_uniform(rng, -1.0, 1.0);
    let c = DVec3::new(rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0));
    ellipsoid(c, random_quat(rng), random_axes(rng, size, 10.0))
}

#[test]
fn ellipsoid_plane_matches_brute_force() {
    let mut rng = rng(0x91a4_0001);
    let cases = 300;
    for case in 0..cases {
        let e = random_ellipsoid(&mut rng);
        let scale = e.semi_axes().max_element();
        let n = random_unit(&mut rng);
        // The plane n·x = n·c − t·scale: from cutting deep (t < 0) to well below the body.
        let t = rng.random_range(-1.0..2.0);
        let wall = Plane::from_point_normal(e.center() - n * (t * scale), n).unwrap();
        let n = wall.normal();
        let (lowest, x_low) = surface_min(&e, |x| n.dot(x));
        let depth_bf = wall.offset() - lowest;
        let c = contact_ellipsoid_plane(&e, &wall);
        let ctx =
            format!("case {case}: {}, plane n = {n:?}, d = {}", common::describe(&e, &e), wall.offset());
        assert!(
            (c.depth - depth_bf).abs() <= 1e-9 * scale,
            "{ctx}: depth {} vs brute force {depth_bf}",
            c.depth
        );
        assert!((c.normal + n).length() <= 1e-12, "{ctx}: normal {:?}", c.normal);
        assert!(wall.signed_distance(c.witness_b()).abs() <= 1e-9 * scale, "{ctx}: witness_b off the plane");
        assert!((q_form(&e, c.witness_a()) - 1.0).abs() <= 1e-9, "{ctx}: witness_a off the surface");
        assert!(
            (c.witness_a() - x_low).length() <= 1e-5 * scale,
            "{ctx}: witness_a {:?} vs {x_low:?}",
            c.witness_a()
        );
        if depth_bf.abs() > 1e-9 * scale {
            assert_eq!(c.depth > 0.0, lowest < wall.offset(), "{ctx}: depth sign");
        }
    }
}

/// Checks one sphere contact against the brute-force distance (and `g`, the known distance, if any).
fn check_sphere_contact(e: &Ellipsoid, s: &Sphere, known: Option<(f64, DVec3)>, ctx: &str) {
    let scale = e.semi_axes().max_element();
    let centre = s.center();
    let (dist_bf, x_near) = surface_min(e, |x| (x - centre).length());
    let c = contact_ellipsoid_sphere(e, s).unwrap_or_else(|err| panic!("{ctx}: {err:?}"));
    assert!(
        (c.depth - (s.radius() - dist_bf)).abs() <= 1e-9 * scale,
        "{ctx}: depth {} vs r − brute-force distance {}",
        c.depth,
        s.radius() - dist_bf
    );
    let wa = c.witness_a();
    assert!(
        (q_form(e, wa) - 1.0).abs() <= 1e-9,
        "{ctx}: witness_a {wa:?} off the surface, q = {}",
        q_form(e, wa)
    );
    assert!((wa - x_near).length() <= 1e-5 * scale, "{ctx}: witness_a {wa:?} vs brute force {x_near:?}");
    let along = (centre - wa).normalize();
    assert!((c.normal - along).length() <= 1e-9, "{ctx}: normal {:?} vs {along:?}", c.normal);
    // The normal is also the outward surface normal at the closest point.
    assert!((c.normal - half_gradient(e, wa).normalize()).length() <= 1e-7, "{ctx}: normal not ⟂ surface");
    assert!((c.witness_b() - (centre - c.normal * s.radius())).length() <= 1e-9 * scale, "{ctx}: witness_b");
    if let Some((g, foot)) = known {
        assert!(
            (c.depth - (s.radius() - g)).abs() <= 1e-9 * scale,
            "{ctx}: depth {} vs r − g = {}",
            c.depth,
            s.radius() - g
        );
        assert!((wa - foot).length() <= 1e-7 * scale, "{ctx}: witness_a {wa:?} vs foot {foot:?}");
    }
}

#[test]
fn ellipsoid_sphere_matches_brute_force() {
    let mut rng = rng(0x5f4e_0002);
    let cases = 200;
    for case in 0..cases {
        let e = random_ellipsoid(&mut rng);
        let scale = e.semi_axes().max_element();
        // Constructed: along the outward normal m at a surface point p, at distance g.
        let u = random_unit(&mut rng);
        let p = e.center() + u / q_form(&e, e.center() + u).sqrt();
        let m = half_gradient(&e, p).normalize();
        let g = rng.random_range(0.01..2.0) * scale;
        let radius = rng.random_range(0.05..2.5) * scale;
        let s = Sphere::new(p + m * g, radius).unwrap();
        let ctx = format!(
            "case {case} (constructed): {}, sphere {:?} r = {radius}",
            common::describe(&e, &e),
            s.center()
        );
        check_sphere_contact(&e, &s, Some((g, p)), &ctx);
        // Random centre outside the ellipsoid.
        let centre = loop {
            let x = e.center() + random_unit(&mut rng) * (rng.random_range(0.0..3.0) * scale);
            if q_form(&e, x) > 1.0 + 1e-6 {
                break x;
            }
        };
        let s = Sphere::new(centre, rng.random_range(0.05..2.5) * scale).unwrap();
        let ctx = format!(
            "case {case} (random): {}, sphere {:?} r = {}",
            common::describe(&e, &e),
            centre,
            s.radius()
        );
        check_sphere_contact(&e, &s, None, &ctx);
    }
}

/// A sphere centre inside the ellipsoid: not exact, but a finite penetrating contact (or an error).
#[test]
fn ellipsoid_sphere_centre_inside() {
    let mut rng = rng(0x5f4e_0003);
    for _ in 0..200 {
        let e = random_ellipsoid(&mut rng);
        let u = random_unit(&mut rng);
        let inside = e.center() + u * (rng.random_range(0.0..0.99) / q_form(&e, e.center() + u).sqrt());
        let s = Sphere::new(inside, rng.random_range(0.01..1.0) * e.semi_axes().max_element()).unwrap();
        if let Ok(c) = contact_ellipsoid_sphere(&e, &s) {
            assert!(c.point.is_finite() && c.normal.is_finite() && c.depth.is_finite(), "{c:?}");
            assert!(c.depth > 0.0, "centre inside but depth {}", c.depth);
        }
    }
}
