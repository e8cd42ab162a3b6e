//! Oracles shared by the `fmm-dlp` test files, written without reading the crate's sources:
//!
//! * exactly representable meshes: prisms over simple polygons (the unit cube, an L-shaped prism
//!   with a reflex edge), the unit cube with every face cut into `k × k` squares, and the convex
//!   hull of random points (brute force over triples, faces oriented by exact `orient3d`);
//! * the generalised winding number `J(x)` as a plain sum of Van Oosterom–Strackee solid angles,
//!   for points away from the surface;
//! * a brute-force point–surface distance (closest point on each triangle, Ericson's regions);
//! * an exact half-space classification for convex meshes (exact `orient3d`);
//! * random points, rotations and the 24 proper signed axis permutations.
// Every test file includes this module and uses a different subset of it.
#![allow(dead_code)]

use contact_core::Containment;
use geometry_core::predicates::orient3d;
use geometry_core::{Aabb, DAffine3, DMat3, DQuat, DVec2, DVec3, Sign, TriMesh};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;
use std::f64::consts::PI;

/// A seeded random generator.
pub(crate) fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// The prism `polygon × [z0, z1]` over a counter-clockwise simple polygon that is star-shaped
/// from its vertex `fan` (the caps are fans from that vertex). Outward, closed, exact for
/// exactly representable input.
pub(crate) fn prism(polygon: &[DVec2], fan: usize, z0: f64, z1: f64) -> TriMesh {
    let n = polygon.len();
    let mut vertices: Vec<DVec3> = polygon.iter().map(|p| DVec3::new(p.x, p.y, z0)).collect();
    vertices.extend(polygon.iter().map(|p| DVec3::new(p.x, p.y, z1)));
    let (b, t) = (|i: usize| i as u32, |i: usize| (i + n) as u32);
    let mut faces = Vec::new();
    for k in 1..n - 1 {
        let (i, j) = ((fan + k) % n, (fan + k + 1) % n);
        // Top cap counter-clockwise seen from +z, bottom cap reversed.
        faces.push([t(fan), t(i), t(j)]);
        faces.push([b(fan), b(j), b(i)]);
    }
    for i in 0..n {
        let j = (i + 1) % n;
        // The outward normal of edge i → j of a counter-clockwise polygon is (dy, −dx).
        faces.push([b(i), b(j), t(j)]);
        faces.push([b(i), t(j), t(i)]);
    }
    let mesh = TriMesh::new(vertices, faces).expect("valid prism");
    mesh.require_solid().expect("prism is an outward solid");
    mesh
}

/// The unit cube `[0, 1]³` as 12 triangles.
pub(crate) fn unit_cube() -> TriMesh {
    let square = [DVec2::new(0.0, 0.0), DVec2::new(1.0, 0.0), DVec2::new(1.0, 1.0), DVec2::new(0.0, 1.0)];
    prism(&square, 0, 0.0, 1.0)
}

/// The L-shaped prism `([0, 2]² \ (1, 2]²) × [0, 1]`: its edge `x = y = 1` is reflex (interior
/// dihedral angle 270°), so `J = 3/4` there and `J = 3/8` at the edge's end points.
pub(crate) fn l_prism() -> TriMesh {
    let l = [
        DVec2::new(0.0, 0.0),
        DVec2::new(2.0, 0.0),
        DVec2::new(2.0, 1.0),
        DVec2::new(1.0, 1.0),
        DVec2::new(1.0, 2.0),
        DVec2::new(0.0, 2.0),
    ];
    prism(&l, 3, 0.0, 1.0)
}

/// The unit cube with each face cut into `k × k` squares of two triangles each (`12 k²`
/// triangles); vertex coordinates are `i / k`, exact for a power-of-two `k`.
pub(crate) fn subdivided_cube(k: usize) -> TriMesh {
    let mut index: HashMap<[usize; 3], u32> = HashMap::new();
    let mut vertices = Vec::new();
    let mut vertex = |c: [usize; 3]| -> u32 {
        *index.entry(c).or_insert_with(|| {
            vertices.push(DVec3::new(c[0] as f64, c[1] as f64, c[2] as f64) / k as f64);
            (vertices.len() - 1) as u32
        })
    };
    let mut faces = Vec::new();
    for axis in 0..3 {
        let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
        for side in [0, k] {
            for i in 0..k {
                for j in 0..k {
                    let corner = |di: usize, dj: usize| {
                        let mut c = [0; 3];
                        c[axis] = side;
                        c[u] = i + di;
                        c[v] = j + dj;
                        c
                    };
                    let q = [corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)].map(&mut vertex);
                    // (u, v, axis) is right-handed: counter-clockwise in (u, v) faces +axis.
                    if side == k {
                        faces.push([q[0], q[1], q[2]]);
                        faces.push([q[0], q[2], q[3]]);
                    } else {
                        faces.push([q[0], q[2], q[1]]);
                        faces.push([q[0], q[3], q[2]]);
                    }
                }
            }
        }
    }
    let mesh = TriMesh::new(vertices, faces).expect("valid cube");
    mesh.require_solid().expect("subdivided cube is an outward solid");
    mesh
}

/// `n` random points on the unit sphere.
pub(crate) fn sphere_points(rng: &mut ChaCha8Rng, n: usize) -> Vec<DVec3> {
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let p =
            DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
        let l = p.length();
        if l > 0.2 && l <= 1.0 {
            out.push(p / l);
        }
    }
    out
}

/// The convex hull of points in general position (no four coplanar, all of them hull vertices,
/// as for random points on a sphere), by brute force: a triple is a face iff all other points lie
/// strictly on one side of its plane; it is ordered so that they lie on the negative side.
pub(crate) fn convex_hull(points: &[DVec3]) -> TriMesh {
    let n = points.len();
    let mut faces = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            for k in j + 1..n {
                let (mut pos, mut neg) = (0, 0);
                for (l, &p) in points.iter().enumerate() {
                    if l == i || l == j || l == k {
                        continue;
                    }
                    match orient3d(points[i], points[j], points[k], p) {
                        Sign::Positive => pos += 1,
                        Sign::Negative => neg += 1,
                        Sign::Zero => panic!("points are not in general position"),
                    }
                }
                if pos == 0 {
                    faces.push([i as u32, j as u32, k as u32]);
                } else if neg == 0 {
                    faces.push([i as u32, k as u32, j as u32]);
                }
            }
        }
    }
    let mesh = TriMesh::new(points.to_vec(), faces).expect("valid hull");
    mesh.require_solid().expect("hull is an outward solid");
    assert_eq!(mesh.faces().len(), 2 * n - 4, "every point must be a hull vertex");
    mesh
}

/// A mesh's triangles, for brute-force oracles.
pub(crate) struct Surface {
    pub(crate) tris: Vec<[DVec3; 3]>,
}

impl Surface {
    pub(crate) fn new(mesh: &TriMesh) -> Self {
        let v = mesh.vertices();
        Self { tris: mesh.faces().iter().map(|f| f.map(|i| v[i as usize])).collect() }
    }

    /// `J(x)`: the sum of the triangles' signed solid angles over 4π, with
    /// `tan(Ω/2) = a·(b×c) / (|a||b||c| + (a·b)|c| + (b·c)|a| + (c·a)|b|)` (Van Oosterom &
    /// Strackee 1983) for the corners `a, b, c` relative to `x`. Positive for a triangle whose
    /// normal points away from `x`, so 1 inside an outward mesh. Not for points on the surface.
    pub(crate) fn winding(&self, x: DVec3) -> f64 {
        let mut sum = 0.0;
        for t in &self.tris {
            let (a, b, c) = (t[0] - x, t[1] - x, t[2] - x);
            let (la, lb, lc) = (a.length(), b.length(), c.length());
            let num = a.dot(b.cross(c));
            let den = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
            sum += 2.0 * num.atan2(den);
        }
        sum / (4.0 * PI)
    }

    /// The Euclidean distance from `x` to the surface (brute force).
    pub(crate) fn distance(&self, x: DVec3) -> f64 {
        self.tris.iter().map(|t| closest_point_on_triangle(x, t).distance(x)).fold(f64::INFINITY, f64::min)
    }

    /// Exact half-space classification, valid for an outward convex mesh only.
    pub(crate) fn convex_classify(&self, x: DVec3) -> Containment {
        let mut on_plane = false;
        for t in &self.tris {
            match orient3d(t[0], t[1], t[2], x) {
                Sign::Positive => return Containment::Outside,
                Sign::Zero => on_plane = true,
                Sign::Negative => {}
            }
        }
        if on_plane { Containment::OnBoundary } else { Containment::Inside }
    }
}

/// The point of triangle `t` closest to `p` (`geometry_core::Triangle::closest_point`, tested
/// against dense sampling in geometry-core).
pub(crate) fn closest_point_on_triangle(p: DVec3, t: &[DVec3; 3]) -> DVec3 {
    geometry_core::Triangle::new(t[0], t[1], t[2]).closest_point(p)
}

/// `n` uniformly random points in `region`.
pub(crate) fn random_points(rng: &mut ChaCha8Rng, region: &Aabb, n: usize) -> Vec<DVec3> {
    (0..n)
        .map(|_| {
            DVec3::new(
                rng.random_range(region.min.x..region.max.x),
                rng.random_range(region.min.y..region.max.y),
                rng.random_range(region.min.z..region.max.z),
            )
        })
        .collect()
}

/// Points next to the surface: a random point of a random face, moved along the face normal by
/// `±δ` with `δ` uniform in `[lo, hi]`.
pub(crate) fn near_surface_points(
    rng: &mut ChaCha8Rng,
    mesh: &TriMesh,
    n: usize,
    lo: f64,
    hi: f64,
) -> Vec<DVec3> {
    let s = Surface::new(mesh);
    (0..n)
        .map(|_| {
            let [a, b, c] = s.tris[rng.random_range(0..s.tris.len())];
            let (mut u, mut v) = (rng.random::<f64>(), rng.random::<f64>());
            if u + v > 1.0 {
                (u, v) = (1.0 - u, 1.0 - v);
            }
            let normal = (b - a).cross(c - a).normalize();
            let sign = if rng.random::<bool>() { 1.0 } else { -1.0 };
            a + (b - a) * u + (c - a) * v + normal * (sign * rng.random_range(lo..hi))
        })
        .collect()
}

/// Points next to mesh vertices and edge midpoints: the feature moved in a random direction by a
/// length uniform in `[lo, 10·lo]`.
pub(crate) fn near_feature_points(rng: &mut ChaCha8Rng, mesh: &TriMesh, n: usize, lo: f64) -> Vec<DVec3> {
    let vertices = mesh.vertices();
    (0..n)
        .map(|_| {
            let f = mesh.faces()[rng.random_range(0..mesh.faces().len())];
            let (a, b) = (vertices[f[0] as usize], vertices[f[1] as usize]);
            let base = if rng.random::<bool>() { a } else { (a + b) * 0.5 };
            let dir = loop {
                let d = DVec3::new(
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                );
                if d.length() > 0.1 {
                    break d.normalize();
                }
            };
            base + dir * (lo * rng.random_range(1.0..10.0))
        })
        .collect()
}

/// A random rotation matrix.
pub(crate) fn random_rotation(rng: &mut ChaCha8Rng) -> DMat3 {
    loop {
        let q = DQuat::from_xyzw(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        );
        if q.length() > 0.1 {
            return DMat3::from_quat(q.normalize());
        }
    }
}

/// A random rigid motion: rotation, then a translation with components in `[-t, t]`.
pub(crate) fn random_rigid(rng: &mut ChaCha8Rng, t: f64) -> DAffine3 {
    let r = random_rotation(rng);
    let shift = DVec3::new(rng.random_range(-t..t), rng.random_range(-t..t), rng.random_range(-t..t));
    DAffine3::from_mat3_translation(r, shift)
}

/// The 24 signed axis permutations with determinant +1 (the rotations of the cube): exact maps.
pub(crate) fn cube_rotations() -> Vec<DMat3> {
    let perms = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
    let axes = [DVec3::X, DVec3::Y, DVec3::Z];
    let mut out = Vec::new();
    for p in perms {
        for signs in 0..8 {
            let col = |k: usize| if signs >> k & 1 == 1 { -axes[p[k]] } else { axes[p[k]] };
            let m = DMat3::from_cols(col(0), col(1), col(2));
            if m.determinant() > 0.0 {
                out.push(m);
            }
        }
    }
    assert_eq!(out.len(), 24);
    out
}

/// Points `lo + i·step` on every axis, `lo ≤ x ≤ hi` (exact for dyadic inputs).
pub(crate) fn lattice(lo: f64, hi: f64, step: f64) -> Vec<DVec3> {
    geometry_core::generators::point_lattice(lo, hi, step).expect("valid lattice")
}

/// The value of `J` for a union of closed boxes that meet only in faces: for each box, the
/// fraction of a small ball about `p` inside it is the product over the axes of 1 (strictly
/// between the bounds), ½ (on a bound) or 0 (outside), by the ball's reflection symmetry.
pub(crate) fn boxes_value(boxes: &[(DVec3, DVec3)], p: DVec3) -> f64 {
    boxes
        .iter()
        .map(|&(lo, hi)| {
            (0..3)
                .map(|k| {
                    if p[k] > lo[k] && p[k] < hi[k] {
                        1.0
                    } else if p[k] == lo[k] || p[k] == hi[k] {
                        0.5
                    } else {
                        0.0
                    }
                })
                .product::<f64>()
        })
        .sum()
}

/// The classification that a value of `J` from [`boxes_value`] means.
pub(crate) fn containment_of_value(j: f64) -> Containment {
    if j == 1.0 {
        Containment::Inside
    } else if j == 0.0 {
        Containment::Outside
    } else {
        Containment::OnBoundary
    }
}

/// Whether a duration-sensitive test runs in a debug build (scale sizes down there).
pub(crate) const DEBUG: bool = cfg!(debug_assertions);
