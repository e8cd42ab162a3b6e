//! Oracle tests for `TriMesh` validation and `MeshReport`.
//!
//! Topological facts are recomputed by brute force (a directed-edge multiset, breadth-first
//! search over faces) and geometric ones from closed forms (volumes and areas of the octahedron,
//! cube, tetrahedron and torus, `4^(L+1) + 2` vertices of the octahedral sphere, ...).

mod common;

use std::collections::{HashMap, HashSet};
use std::f64::consts::PI;

use geometry_core::generators::octa_sphere;
use geometry_core::{DAffine3, DMat3, DQuat, DVec3, SolidError, TriMesh};
use proptest::prelude::*;

/// Proptest settings: `cases` cases, no regression files (shrunk failures are printed instead).
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(cases) }
}

// ---------------------------------------------------------------------------------------------
// Brute-force oracles
// ---------------------------------------------------------------------------------------------

#[derive(Debug, PartialEq, Eq)]
struct Topology {
    edges: usize,
    boundary: usize,
    non_manifold: usize,
    inconsistent: usize,
    referenced_vertices: usize,
    components: usize,
}

/// Counts edges from a multiset of *directed* edges: an undirected edge used by two faces is
/// consistent iff both directions occur once.
fn topology(vertex_count: usize, faces: &[[u32; 3]]) -> Topology {
    let mut directed: HashMap<(u32, u32), usize> = HashMap::new();
    for f in faces {
        for k in 0..3 {
            *directed.entry((f[k], f[(k + 1) % 3])).or_default() += 1;
        }
    }
    let undirected: HashSet<(u32, u32)> = directed.keys().map(|&(i, j)| (i.min(j), i.max(j))).collect();
    let (mut boundary, mut non_manifold, mut inconsistent) = (0, 0, 0);
    for &(i, j) in &undirected {
        let forward = directed.get(&(i, j)).copied().unwrap_or(0);
        let backward = directed.get(&(j, i)).copied().unwrap_or(0);
        match forward + backward {
            1 => boundary += 1,
            2 => {
                if forward != 1 {
                    inconsistent += 1;
                }
            }
            _ => non_manifold += 1,
        }
    }
    // Components: breadth-first search over faces, two faces adjacent when they share a vertex.
    let mut faces_of_vertex = vec![Vec::new(); vertex_count];
    for (fi, f) in faces.iter().enumerate() {
        for &v in f {
            faces_of_vertex[v as usize].push(fi);
        }
    }
    let mut seen = vec![false; faces.len()];
    let mut components = 0;
    for start in 0..faces.len() {
        if seen[start] {
            continue;
        }
        components += 1;
        seen[start] = true;
        let mut queue = vec![start];
        while let Some(f) = queue.pop() {
            for &v in &faces[f] {
                for &g in &faces_of_vertex[v as usize] {
                    if !seen[g] {
                        seen[g] = true;
                        queue.push(g);
                    }
                }
            }
        }
    }
    let referenced_vertices = faces_of_vertex.iter().filter(|fs| !fs.is_empty()).count();
    Topology {
        edges: undirected.len(),
        boundary,
        non_manifold,
        inconsistent,
        referenced_vertices,
        components,
    }
}

fn report_topology(mesh: &TriMesh) -> Topology {
    let r = mesh.report();
    Topology {
        edges: r.edge_count(),
        boundary: r.boundary_edges(),
        non_manifold: r.non_manifold_edges(),
        inconsistent: r.inconsistent_edges(),
        referenced_vertices: r.vertex_count() - r.unreferenced_vertices(),
        components: r.connected_components(),
    }
}

/// Checks the report against the brute-force topology and returns it.
fn checked_topology(mesh: &TriMesh) -> Topology {
    let t = topology(mesh.vertices().len(), mesh.faces());
    assert_eq!(report_topology(mesh), t);
    let r = mesh.report();
    assert_eq!(r.vertex_count(), mesh.vertices().len());
    assert_eq!(r.face_count(), mesh.faces().len());
    let euler = t.referenced_vertices as i64 - t.edges as i64 + mesh.faces().len() as i64;
    assert_eq!(r.euler_characteristic(), euler);
    assert_eq!(r.is_closed(), t.boundary == 0 && t.non_manifold == 0);
    assert_eq!(r.is_consistently_oriented(), t.inconsistent == 0 && t.non_manifold == 0);
    t
}

/// `Σ a · (b × c) / 6` about the world origin, plus the total area.
fn volume_and_area(vertices: &[DVec3], faces: &[[u32; 3]]) -> (f64, f64) {
    let (mut v, mut a) = (0.0, 0.0);
    for f in faces {
        let [p, q, r] = f.map(|i| vertices[i as usize]);
        v += p.dot(q.cross(r)) / 6.0;
        a += 0.5 * (q - p).cross(r - p).length();
    }
    (v, a)
}

fn mesh(vertices: Vec<DVec3>, faces: Vec<[u32; 3]>) -> TriMesh {
    TriMesh::new(vertices, faces).expect("valid test mesh")
}

fn tetrahedron(offset: DVec3) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    (
        vec![offset, offset + DVec3::X, offset + DVec3::Y, offset + DVec3::Z],
        vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    )
}

/// The cube `[0, s]³` as 12 outward triangles; vertex `x + 2y + 4z` is the corner with those bits.
fn cube(s: f64) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let vertices = (0..8u32)
        .map(|i| DVec3::new(f64::from(i & 1), f64::from((i >> 1) & 1), f64::from((i >> 2) & 1)) * s)
        .collect();
    let quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
    let faces = quads.iter().flat_map(|&[a, b, c, d]| [[a, b, c], [a, c, d]]).collect();
    (vertices, faces)
}

/// A torus with major radius `big`, minor radius `small`, `n × m` quads split into triangles,
/// oriented so that `∂/∂θ × ∂/∂φ` (the outward normal) is the triangle normal.
fn torus(big: f64, small: f64, n: u32, m: u32) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let mut vertices = Vec::new();
    for i in 0..n {
        let theta = 2.0 * PI * f64::from(i) / f64::from(n);
        for j in 0..m {
            let phi = 2.0 * PI * f64::from(j) / f64::from(m);
            let rho = big + small * phi.cos();
            vertices.push(DVec3::new(rho * theta.cos(), rho * theta.sin(), small * phi.sin()));
        }
    }
    let id = |i: u32, j: u32| (i % n) * m + (j % m);
    let mut faces = Vec::new();
    for i in 0..n {
        for j in 0..m {
            let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
            faces.push([a, b, c]);
            faces.push([a, c, d]);
        }
    }
    (vertices, faces)
}

/// Every face normal points away from `inside(centroid)`, a point inside the solid near the face.
fn faces_point_away(mesh: &TriMesh, inside: impl Fn(DVec3) -> DVec3) -> bool {
    mesh.triangles().all(|t| {
        let n = (t.b - t.a).cross(t.c - t.a);
        let g = (t.a + t.b + t.c) / 3.0;
        n.dot(g - inside(g)) > 0.0
    })
}

// ---------------------------------------------------------------------------------------------
// The octahedral sphere
// ---------------------------------------------------------------------------------------------

#[test]
fn octa_sphere_levels_0_to_6() {
    let mut previous: Option<(f64, f64)> = None;
    for level in 0..=6u32 {
        let m = octa_sphere(level as usize).unwrap();
        let r = m.report();
        let p = 4usize.pow(level);
        assert_eq!(m.faces().len(), 8 * p, "level {level}");
        assert_eq!(m.vertices().len(), 4 * p + 2, "level {level}");
        assert_eq!(r.edge_count(), 12 * p, "level {level}");

        let t = checked_topology(&m);
        assert_eq!(
            t,
            Topology {
                edges: 12 * p,
                boundary: 0,
                non_manifold: 0,
                inconsistent: 0,
                referenced_vertices: 4 * p + 2,
                components: 1
            }
        );
        assert_eq!(r.euler_characteristic(), 2);
        assert_eq!(r.unreferenced_vertices(), 0);
        assert!(r.is_closed() && r.is_consistently_oriented() && r.is_outward());
        assert!(m.require_solid().is_ok());

        // All vertices on the unit sphere, all distinct.
        for v in m.vertices() {
            assert!((v.length() - 1.0).abs() <= 1e-15, "level {level}: |{v:?}| = {}", v.length());
        }
        let distinct: HashSet<[u64; 3]> =
            m.vertices().iter().map(|v| v.to_array().map(f64::to_bits)).collect();
        assert_eq!(distinct.len(), m.vertices().len());
        assert_eq!(m.bounding_box().min, -DVec3::ONE);
        assert_eq!(m.bounding_box().max, DVec3::ONE);

        // Each face faces away from the centre (the sphere is star-shaped about the origin).
        assert!(faces_point_away(&m, |_| DVec3::ZERO), "level {level}");

        // Volume and area: the report agrees with the sum about the world origin, both stay
        // below the sphere's and increase with the level.
        let (v, a) = volume_and_area(m.vertices(), m.faces());
        assert!((r.signed_volume() - v).abs() < 1e-12, "level {level}: {} vs {v}", r.signed_volume());
        assert!((r.total_area() - a).abs() < 1e-12, "level {level}: {} vs {a}", r.total_area());
        assert!(v < 4.0 / 3.0 * PI && a < 4.0 * PI, "level {level}: V = {v}, A = {a}");
        if let Some((pv, pa)) = previous {
            assert!(v > pv && a > pa, "level {level}: V {pv} -> {v}, A {pa} -> {a}");
            // Inscribed polyhedra converge at the rate h², i.e. the error shrinks ~4x per level.
            let ratio = (4.0 / 3.0 * PI - v) / (4.0 / 3.0 * PI - pv);
            if level >= 3 {
                assert!((0.2..0.3).contains(&ratio), "level {level}: error ratio {ratio}");
            }
        }
        previous = Some((v, a));

        if level == 0 {
            // The regular octahedron: 8 tetrahedra of volume 1/6, 8 equilateral faces of side √2.
            assert!((r.signed_volume() - 4.0 / 3.0).abs() < 1e-15);
            assert!((r.total_area() - 4.0 * 3f64.sqrt()).abs() < 1e-14);
        }
        if level == 6 {
            assert!(4.0 / 3.0 * PI - v < 2e-3, "V = {v}");
            assert!(4.0 * PI - a < 5e-3, "A = {a}");
        }

        // Per-face normals and areas.
        assert_eq!(r.face_normals().len(), m.faces().len());
        assert_eq!(r.face_areas().len(), m.faces().len());
        for (i, t) in m.triangles().enumerate() {
            let n = (t.b - t.a).cross(t.c - t.a);
            assert!((r.face_areas()[i] - 0.5 * n.length()).abs() < 1e-15);
            assert!((r.face_normals()[i] - n.normalize()).length() < 1e-9);
        }
    }
}

#[test]
fn flipped_sphere_is_detected_and_fixed() {
    for level in [0, 1, 3] {
        let m = octa_sphere(level).unwrap();
        let flipped = m.flipped();
        for (f, g) in m.faces().iter().zip(flipped.faces()) {
            assert_eq!(*g, [f[0], f[2], f[1]]);
        }
        let r = flipped.report();
        assert!(r.is_closed() && r.is_consistently_oriented());
        assert!(!r.is_outward());
        assert_eq!(r.euler_characteristic(), 2);
        let (v, _) = volume_and_area(flipped.vertices(), flipped.faces());
        assert!(v < 0.0 && (r.signed_volume() - v).abs() < 1e-12);
        assert!(faces_point_away(&flipped, |g| 2.0 * g), "flipped faces point inwards");
        match flipped.require_solid() {
            Err(SolidError::InwardFacing { signed_volume }) => {
                assert!(signed_volume < 0.0);
                assert!((signed_volume - v).abs() < 1e-12);
            }
            other => panic!("level {level}: expected InwardFacing, got {other:?}"),
        }
        let fixed = flipped.into_outward().unwrap();
        assert!(fixed.report().is_outward());
        assert_eq!(fixed.faces(), m.faces());
        assert_eq!(fixed.vertices(), m.vertices());
        // An outward mesh is returned unchanged.
        let same = m.clone().into_outward().unwrap();
        assert_eq!(same.faces(), m.faces());
    }
}

#[test]
fn removing_faces_opens_the_mesh() {
    let (vertices, faces) = octa_sphere(2).unwrap().into_parts();
    for k in [0, 17, faces.len() - 1] {
        let mut holed = faces.clone();
        holed.remove(k);
        let m = mesh(vertices.clone(), holed);
        let t = checked_topology(&m);
        assert_eq!(t.boundary, 3);
        assert_eq!(t.edges, 12 * 16); // every edge is still used by the face on its other side
        assert_eq!(m.report().euler_characteristic(), 1);
        assert!(!m.report().is_closed() && !m.report().is_outward());
        assert_eq!(m.require_solid(), Err(SolidError::Open { boundary_edges: 3 }));
        assert_eq!(m.into_outward().unwrap_err(), SolidError::Open { boundary_edges: 3 });
    }
    // Two faces sharing an edge: 3 + 3 - 2 boundary edges, and the shared edge disappears.
    let f0 = faces[0];
    let (k, _) = faces
        .iter()
        .enumerate()
        .skip(1)
        .find(|(_, g)| g.iter().filter(|v| f0.contains(v)).count() == 2)
        .unwrap();
    let holed: Vec<_> =
        faces.iter().enumerate().filter(|&(i, _)| i != 0 && i != k).map(|(_, f)| *f).collect();
    let m = mesh(vertices, holed);
    let t = checked_topology(&m);
    assert_eq!((t.boundary, t.edges), (4, 12 * 16 - 1));
    assert_eq!(m.require_solid(), Err(SolidError::Open { boundary_edges: 4 }));
}

#[test]
fn flipping_one_face_is_inconsistent() {
    let (vertices, faces) = octa_sphere(2).unwrap().into_parts();
    for k in [0, 5, faces.len() - 1] {
        let mut bad = faces.clone();
        bad[k] = [bad[k][0], bad[k][2], bad[k][1]];
        let m = mesh(vertices.clone(), bad);
        let t = checked_topology(&m);
        assert_eq!(t.inconsistent, 3);
        assert_eq!((t.boundary, t.non_manifold), (0, 0));
        let r = m.report();
        assert!(r.is_closed() && !r.is_consistently_oriented() && !r.is_outward());
        assert_eq!(r.euler_characteristic(), 2);
        assert_eq!(m.require_solid(), Err(SolidError::InconsistentOrientation { edges: 3 }));
        assert_eq!(m.into_outward().unwrap_err(), SolidError::InconsistentOrientation { edges: 3 });
    }
}

#[test]
fn duplicating_a_face_is_non_manifold() {
    let (vertices, faces) = octa_sphere(1).unwrap().into_parts();
    for reversed in [false, true] {
        let mut bad = faces.clone();
        let f = faces[3];
        bad.push(if reversed { [f[0], f[2], f[1]] } else { f });
        let m = mesh(vertices.clone(), bad);
        let t = checked_topology(&m);
        assert_eq!((t.non_manifold, t.boundary, t.edges), (3, 0, 48));
        let r = m.report();
        assert!(!r.is_closed() && !r.is_consistently_oriented() && !r.is_outward());
        assert_eq!(r.euler_characteristic(), 3);
        assert_eq!(m.require_solid(), Err(SolidError::NonManifold { edges: 3 }));
    }
}

// ---------------------------------------------------------------------------------------------
// Hand-built solids
// ---------------------------------------------------------------------------------------------

#[test]
fn tetrahedron_closed_forms() {
    let (v, f) = tetrahedron(DVec3::ZERO);
    let m = mesh(v, f);
    let t = checked_topology(&m);
    assert_eq!((t.edges, t.boundary, t.components), (6, 0, 1));
    let r = m.report();
    assert_eq!((r.vertex_count(), r.edge_count(), r.face_count(), r.euler_characteristic()), (4, 6, 4, 2));
    assert!(r.is_outward());
    assert!((r.signed_volume() - 1.0 / 6.0).abs() < 1e-15);
    // Three right triangles of area 1/2 and an equilateral one of side √2.
    assert!((r.total_area() - (1.5 + 3f64.sqrt() / 2.0)).abs() < 1e-15);
    assert!(faces_point_away(&m, |_| DVec3::splat(0.25)));
    assert_eq!(m.bounding_box().max, DVec3::ONE);
    assert_eq!(m.triangle(3).a, DVec3::X);
    assert_eq!(m.triangles().len(), 4);
}

#[test]
fn cube_closed_forms() {
    for s in [1.0, 2.0, 0.1, 1000.0] {
        let (v, f) = cube(s);
        let m = mesh(v, f);
        assert!(faces_point_away(&m, |_| DVec3::splat(0.5 * s)), "test cube is outward");
        let t = checked_topology(&m);
        assert_eq!((t.edges, t.boundary, t.inconsistent, t.components), (18, 0, 0, 1));
        let r = m.report();
        assert_eq!(r.euler_characteristic(), 2);
        assert!(r.is_outward() && m.require_solid().is_ok());
        assert!((r.signed_volume() - s * s * s).abs() <= 1e-14 * s * s * s);
        assert!((r.total_area() - 6.0 * s * s).abs() <= 1e-14 * s * s);
        for (n, t) in r.face_normals().iter().zip(m.triangles()) {
            // Each normal is an axis direction pointing away from the centre.
            assert_eq!(n.abs().max_element(), 1.0);
            assert!(n.dot(t.centroid() - DVec3::splat(0.5 * s)) > 0.0);
        }
        for &a in r.face_areas() {
            assert!((a - 0.5 * s * s).abs() <= 1e-15 * s * s);
        }
    }
}

#[test]
fn two_disjoint_tetrahedra() {
    let (mut v, mut f) = tetrahedron(DVec3::ZERO);
    let (v2, f2) = tetrahedron(DVec3::new(5.0, -3.0, 2.0));
    f.extend(f2.iter().map(|t| t.map(|i| i + 4)));
    v.extend(v2);
    let m = mesh(v, f);
    let t = checked_topology(&m);
    assert_eq!(t.components, 2);
    let r = m.report();
    assert_eq!(r.connected_components(), 2);
    assert_eq!(r.euler_characteristic(), 4);
    assert!(r.is_outward());
    assert!((r.signed_volume() - 2.0 / 6.0).abs() < 1e-14);
}

#[test]
fn tetrahedra_sharing_one_vertex() {
    // A "bowtie": closed and consistent edge-wise, one component (faces share a vertex), and
    // V - E + F = 7 - 12 + 8 = 3. Vertex-manifoldness is documented as not checked.
    // The second tetrahedron is the first reflected through the origin (so it shares vertex 0),
    // with its faces reversed to stay outward.
    let (mut v, mut f) = tetrahedron(DVec3::ZERO);
    v.extend([-DVec3::X, -DVec3::Y, -DVec3::Z]);
    let mirror = |i: u32| if i == 0 { 0 } else { i + 3 };
    let second: Vec<[u32; 3]> = f.iter().map(|t| [mirror(t[0]), mirror(t[2]), mirror(t[1])]).collect();
    f.extend(second);
    let m = mesh(v, f);
    let t = checked_topology(&m);
    assert_eq!((t.components, t.boundary, t.inconsistent, t.edges), (1, 0, 0, 12));
    let r = m.report();
    assert_eq!(r.euler_characteristic(), 3);
    assert!(r.is_outward());
    assert!((r.signed_volume() - 2.0 / 6.0).abs() < 1e-15);
}

#[test]
fn unreferenced_vertices_do_not_count_in_euler() {
    let (mut v, f) = tetrahedron(DVec3::ZERO);
    v.push(DVec3::splat(9.0));
    v.insert(0, DVec3::splat(-9.0));
    let f: Vec<[u32; 3]> = f.iter().map(|t| t.map(|i| i + 1)).collect();
    let m = mesh(v, f);
    checked_topology(&m);
    let r = m.report();
    assert_eq!((r.vertex_count(), r.unreferenced_vertices()), (6, 2));
    assert_eq!(r.euler_characteristic(), 2);
    assert_eq!(r.connected_components(), 1);
    // The bounding box covers all vertices, referenced or not.
    assert_eq!(m.bounding_box().min, DVec3::splat(-9.0));
    assert_eq!(m.bounding_box().max, DVec3::splat(9.0));
    assert!(r.is_outward());
}

#[test]
fn torus_has_genus_one() {
    let (big, small) = (2.0, 0.5);
    for (n, m) in [(3, 3), (12, 6), (48, 24)] {
        let (v, f) = torus(big, small, n, m);
        let mesh = mesh(v, f);
        if n >= 12 {
            // Sanity check of the construction (fine enough for the local test to apply): each
            // face points away from the nearest point of the core circle.
            assert!(
                faces_point_away(&mesh, |g| big * DVec3::new(g.x, g.y, 0.0).normalize()),
                "test torus is outward"
            );
        }
        let t = checked_topology(&mesh);
        let nm = n as usize * m as usize;
        assert_eq!(
            t,
            Topology {
                edges: 3 * nm,
                boundary: 0,
                non_manifold: 0,
                inconsistent: 0,
                referenced_vertices: nm,
                components: 1
            }
        );
        let r = mesh.report();
        assert_eq!(r.euler_characteristic(), 0);
        assert!(r.is_outward() && mesh.require_solid().is_ok());
        if n == 48 {
            let exact = 2.0 * PI * PI * big * small * small;
            let v = r.signed_volume();
            assert!(v < exact && v > 0.97 * exact, "torus volume {v} vs {exact}");
            let area = 4.0 * PI * PI * big * small;
            assert!(r.total_area() < area && r.total_area() > 0.97 * area);
        }
        let flipped = mesh.flipped();
        assert!(matches!(flipped.require_solid(), Err(SolidError::InwardFacing { .. })));
    }
}

#[test]
fn doubly_covered_triangle_has_zero_volume() {
    let m = mesh(
        vec![DVec3::ZERO, DVec3::new(0.1, 0.7, 0.0), DVec3::new(0.3, 0.2, 0.9)],
        vec![[0, 1, 2], [0, 2, 1]],
    );
    let t = checked_topology(&m);
    assert_eq!((t.edges, t.boundary, t.inconsistent), (3, 0, 0));
    assert_eq!(m.report().euler_characteristic(), 2);
    assert!(m.report().is_closed() && m.report().is_consistently_oriented() && !m.report().is_outward());
    assert_eq!(m.report().signed_volume(), 0.0);
    assert_eq!(m.require_solid(), Err(SolidError::ZeroVolume));
    assert_eq!(m.into_outward().unwrap_err(), SolidError::ZeroVolume);
}

// ---------------------------------------------------------------------------------------------
// Transforms
// ---------------------------------------------------------------------------------------------

use common::unit_quat;

/// The rotation matrix of a unit quaternion, from the textbook formula.
fn rotation_matrix(q: DQuat) -> DMat3 {
    let (x, y, z, w) = (q.x, q.y, q.z, q.w);
    DMat3::from_cols(
        DVec3::new(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + w * z), 2.0 * (x * z - w * y)),
        DVec3::new(2.0 * (x * y - w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + w * x)),
        DVec3::new(2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y)),
    )
}

fn translation() -> impl Strategy<Value = DVec3> {
    [-100.0..100.0f64, -100.0..100.0f64, -100.0..100.0f64].prop_map(DVec3::from)
}

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn rigid_and_mirrored_transforms_keep_the_sphere_outward(
        q in unit_quat(),
        t in translation(),
        mirror in any::<bool>(),
        scale in prop_oneof![Just(1.0), 0.1..10.0f64],
    ) {
        let sphere = octa_sphere(2).unwrap();
        // Reference volume and area from the brute-force sums about the world origin.
        let (v0, a0) = volume_and_area(sphere.vertices(), sphere.faces());
        let mut m = rotation_matrix(q) * scale;
        if mirror {
            m *= DMat3::from_diagonal(DVec3::new(-1.0, 1.0, 1.0));
        }
        let moved = sphere.transformed(&DAffine3::from_mat3_translation(m, t)).unwrap();
        // Vertices are mapped one to one.
        for (p, w) in sphere.vertices().iter().zip(moved.vertices()) {
            prop_assert!((m * *p + t - *w).length() < 1e-12 * (1.0 + t.length()));
        }
        // Faces: unchanged for a proper motion, reversed for a reflection.
        for (f, g) in sphere.faces().iter().zip(moved.faces()) {
            prop_assert_eq!(*g, if mirror { [f[0], f[2], f[1]] } else { *f });
        }
        let r = moved.report();
        prop_assert!(r.is_closed() && r.is_consistently_oriented() && r.is_outward());
        prop_assert_eq!(r.euler_characteristic(), 2);
        prop_assert!(moved.require_solid().is_ok());
        let s3 = scale * scale * scale;
        prop_assert!((r.signed_volume() - s3 * v0).abs() < 1e-11 * s3, "{} vs {}", r.signed_volume(), s3 * v0);
        prop_assert!((r.total_area() - scale * scale * a0).abs() < 1e-11 * scale * scale);
        prop_assert!(faces_point_away(&moved, |_| t));
    }
}

/// A mirror at extreme scales still reverses the faces: the determinant of a mirror by 1e-110
/// (of a mesh of size 1e60) underflows to −0, and the mesh came out inward (found while fixing
/// pose inversion).
#[test]
fn mirrors_at_extreme_scales_keep_the_mesh_outward() {
    for (size, scale) in [(1e60, 1e-110), (1e-60, 1e110), (1.0, 1e-60), (1.0, 1.0)] {
        let sphere = octa_sphere(1).unwrap().transformed(&DAffine3::from_scale(DVec3::splat(size))).unwrap();
        let mirror = DMat3::from_diagonal(DVec3::new(-scale, scale, scale));
        let moved = sphere.transformed(&DAffine3::from_mat3(mirror)).unwrap();
        assert!(moved.report().is_outward(), "scale {scale:e}");
        let proper =
            sphere.transformed(&DAffine3::from_mat3(DMat3::from_diagonal(DVec3::splat(scale)))).unwrap();
        assert!(proper.report().is_outward(), "scale {scale:e}");
    }
}

proptest! {
    #![proptest_config(config(128))]

    /// `scaled::affine_inverse` of a map scaled by `2^k` is the unit-scale inverse scaled by
    /// `2^-k`, bit for bit (the scalings are exact and the map is normalised the same way), for
    /// `k` far beyond where the determinant overflows or underflows (|k| > 341; down to −960,
    /// where entries of a rotation stay normal); and at unit
    /// scale it inverts.
    #[test]
    fn affine_inverse_is_exact_under_power_of_two_scalings(
        q in unit_quat(),
        stretch in [0.3..3.0f64, 0.3..3.0, 0.3..3.0],
        mirror in any::<bool>(),
        k in -960i32..1000,
    ) {
        use geometry_core::scaled::{affine_inverse, reverses_orientation};
        let mut m = rotation_matrix(q) * DMat3::from_diagonal(DVec3::from_array(stretch));
        if mirror {
            m *= DMat3::from_diagonal(DVec3::new(-1.0, 1.0, 1.0));
        }
        let unit = affine_inverse(&DAffine3::from_mat3(m)).unwrap();
        let product = unit.matrix3 * m;
        prop_assert!((product - DMat3::IDENTITY).to_cols_array().iter().all(|e| e.abs() < 1e-13));
        let scaled = affine_inverse(&DAffine3::from_mat3(m * 2f64.powi(k))).unwrap();
        prop_assert_eq!(scaled.matrix3, unit.matrix3 * 2f64.powi(-k));
        prop_assert_eq!(reverses_orientation(&(m * 2f64.powi(k))), mirror);
    }

    /// Strongly anisotropic maps `diag(2^a) · m · diag(2^c)` (a rotation with stretches, rows
    /// and columns scaled by up to `2^±500` each, determinants far outside `f64`'s range) are
    /// inverted: unscaling the inverse by the same powers of two gives `m`'s inverse, and the
    /// orientation is `m`'s. (With one power of two for the whole matrix, the scaled
    /// determinant underflowed and such maps were refused as singular.)
    #[test]
    fn affine_inverse_inverts_anisotropic_maps(
        q in unit_quat(),
        stretch in [0.3..3.0f64, 0.3..3.0, 0.3..3.0],
        mirror in any::<bool>(),
        a in [-500i32..500, -500..500, -500..500],
        c in [-500i32..500, -500..500, -500..500],
    ) {
        use geometry_core::scaled::{affine_inverse, reverses_orientation};
        let mut m = rotation_matrix(q) * DMat3::from_diagonal(DVec3::from_array(stretch));
        if mirror {
            m *= DMat3::from_diagonal(DVec3::new(-1.0, 1.0, 1.0));
        }
        let power = |e: [i32; 3]| DMat3::from_diagonal(DVec3::from_array(e.map(|k| 2f64.powi(k))));
        let squeezed = power(a) * m * power(c);
        let inverse = affine_inverse(&DAffine3::from_mat3(squeezed)).expect("invertible");
        // m⁻¹ = diag(2^c) · squeezed⁻¹ · diag(2^a), exactly as scalings go.
        let unscaled = power(c) * inverse.matrix3 * power(a);
        let product = unscaled * m;
        prop_assert!(
            (product - DMat3::IDENTITY).to_cols_array().iter().all(|e| e.abs() < 1e-13),
            "{:?}", product
        );
        prop_assert_eq!(reverses_orientation(&squeezed), mirror);
    }
}

/// Six times the volume of a closed mesh, `Σ a·(b×c)` over its faces, in exact rationals.
fn exact_six_volume(mesh: &TriMesh) -> num_rational::BigRational {
    use num_rational::BigRational;
    let q = |x: f64| BigRational::from_float(x).expect("finite");
    let v: Vec<[BigRational; 3]> = mesh.vertices().iter().map(|p| p.to_array().map(q)).collect();
    let mut sum = BigRational::from_integer(0.into());
    for f in mesh.faces() {
        let [a, b, c] = f.map(|i| &v[i as usize]);
        let minor = |i: usize, j: usize| &b[i] * &c[j] - &b[j] * &c[i];
        sum += &a[0] * minor(1, 2) + &a[1] * minor(2, 0) + &a[2] * minor(0, 1);
    }
    sum
}

/// The orientation verdict against the exact sign of the volume.
fn check_orientation(mesh: &TriMesh) -> Result<(), TestCaseError> {
    use num_traits::Signed;
    let exact = exact_six_volume(mesh);
    let r = mesh.report();
    let expected = if exact.is_positive() {
        1.0
    } else if exact.is_negative() {
        -1.0
    } else {
        0.0
    };
    prop_assert_eq!(r.signed_volume().signum() * f64::from(u8::from(r.signed_volume() != 0.0)), expected);
    match mesh.require_solid() {
        Ok(()) => prop_assert!(exact.is_positive()),
        Err(SolidError::InwardFacing { .. }) => prop_assert!(exact.is_negative()),
        Err(SolidError::ZeroVolume) => {
            prop_assert!(exact == num_rational::BigRational::from_integer(0.into()));
        }
        Err(e) => prop_assert!(false, "{e:?}"),
    }
    prop_assert_eq!(r.is_outward(), exact.is_positive());
    Ok(())
}

#[test]
#[allow(clippy::unreadable_literal, reason = "the reviewer's digits, as printed")]
fn nearly_flat_tetrahedra_found_by_review() {
    let faces = vec![[0, 1, 2], [0, 3, 1], [1, 3, 2], [0, 2, 3]];
    for v in [
        [
            DVec3::new(-0.6488278996123134, -0.4908964770052262, 0.9252055592452639),
            DVec3::new(0.9484894745168053, 0.3824712214046526, -0.14405043693425945),
            DVec3::new(-0.22278432138633697, 0.4170166733662679, 0.040687454916591204),
            DVec3::new(0.18737709700374802, 0.0500752022851095, 0.29107202727539166),
        ],
        [
            DVec3::new(-0.013072752631737572, 0.7126511055347473, 0.978246395885161),
            DVec3::new(0.6066908529823398, 0.01910125082803482, -0.7278023748272333),
            DVec3::new(0.3630834755149035, 0.5579738916654664, 0.6687408476365868),
            DVec3::new(0.405005106441303, 0.32757052121722285, 0.0530604635669818),
        ],
    ] {
        let mesh = TriMesh::new(v.to_vec(), faces.clone()).unwrap();
        check_orientation(&mesh).unwrap();
        assert!(mesh.require_solid().is_ok(), "{:?}", mesh.report());
        assert!(mesh.into_outward().unwrap().require_solid().is_ok());
    }
}

proptest! {
    #![proptest_config(config(512))]

    /// Tetrahedra whose fourth corner lies within a few rounding units of the plane of the
    /// other three (an affine combination computed in floating point, nudged by 0 to 2⁻⁴⁰):
    /// the verdicts follow the exact sign of the volume.
    #[test]
    fn orientation_of_nearly_flat_tetrahedra_is_exact(
        corners in [[-1.0..1.0f64, -1.0..1.0, -1.0..1.0], [-1.0..1.0f64, -1.0..1.0, -1.0..1.0], [-1.0..1.0f64, -1.0..1.0, -1.0..1.0]],
        weights in [0.05..1.0f64, 0.05..1.0],
        nudge in prop_oneof![Just(0.0f64), -1e-12..1e-12, -(2f64.powi(-40))..2f64.powi(-40)],
    ) {
        let [a, b, c] = corners.map(DVec3::from_array);
        let (u, v) = (weights[0] / 2.0, weights[1] / 2.0);
        let d = a * u + b * v + c * (1.0 - u - v) + DVec3::splat(nudge);
        let mesh = TriMesh::new(vec![a, b, c, d], vec![[0, 1, 2], [0, 3, 1], [1, 3, 2], [0, 2, 3]]);
        prop_assume!(mesh.is_ok());
        check_orientation(&mesh.unwrap())?;
    }
}

/// A tetrahedron of edge 1.6e-86 at 1e-70: its cross products (~1e-172) are far from
/// underflowing, only their squares do; the report's normals and areas must not vanish, and
/// match those of the same tetrahedron scaled by an exact power of two.
#[test]
fn tiny_faces_keep_their_normals_and_areas() {
    let b = 1e-70f64;
    let d = b.next_up() - b;
    let corners = |s: f64, b: f64, d: f64| {
        vec![
            DVec3::splat(b) * s,
            DVec3::new(b + d, b, b) * s,
            DVec3::new(b, b + d, b) * s,
            DVec3::new(b, b, b + d) * s,
        ]
    };
    let faces = vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
    let tiny = TriMesh::new(corners(1.0, b, d), faces.clone()).unwrap();
    let scale = 2f64.powi(300);
    let unit = TriMesh::new(corners(scale, b, d), faces).unwrap();
    let (r_tiny, r_unit) = (tiny.report(), unit.report());
    for (k, (n_tiny, n_unit)) in r_tiny.face_normals().iter().zip(r_unit.face_normals()).enumerate() {
        assert!((*n_tiny - *n_unit).length() < 1e-15, "face {k}: {n_tiny} vs {n_unit}");
        assert!((n_tiny.length() - 1.0).abs() < 1e-15, "face {k}: {n_tiny}");
    }
    let area_ratio = r_tiny.total_area() / r_unit.total_area() * scale * scale;
    assert!((area_ratio - 1.0).abs() < 1e-14, "{} vs {}", r_tiny.total_area(), r_unit.total_area());
    for (k, &a) in r_tiny.face_areas().iter().enumerate() {
        let t = tiny.triangle(k);
        assert!(a > 0.0 && (t.area() / a - 1.0).abs() < 1e-14, "face {k}: {a} vs {}", t.area());
        assert!(t.unit_normal().is_some_and(|n| (n - r_tiny.face_normals()[k]).length() < 1e-15));
    }
}
