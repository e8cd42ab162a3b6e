//! Oracles for the ray-crossing tests, written independently of the crate under test:
//!
//! * voxel solids (unions of closed unit cubes) with an exact inside / boundary / outside rule
//!   and a triangulated, outward, edge-manifold boundary mesh;
//! * the generalised winding number (Van Oosterom–Strackee solid angles) and a brute-force
//!   point–mesh distance, for points away from the surface;
//! * an exact "lies on some face" test and an exact half-space test for convex meshes, both from
//!   the exact orientation predicates of `geometry_core`.

use contact_core::Containment;
use geometry_core::predicates::{orient2d, orient3d};
use geometry_core::{Aabb, DAffine3, DMat3, DVec2, DVec3, Sign, TriMesh};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeSet, HashMap};
use std::f64::consts::PI;

/// A unit cube `[c, c + 1]` (componentwise) named by its minimum corner.
pub(crate) type Cell = [i32; 3];

/// How one unit square of a voxel surface is cut into triangles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Split {
    /// Two triangles along the diagonal through corners 0 and 2.
    Diagonal02,
    /// Two triangles along the diagonal through corners 1 and 3.
    Diagonal13,
    /// Four triangles around the (half-integer) centre of the square.
    Fan,
}

/// A union of closed unit cubes: the exact oracle for axis-aligned integer solids.
#[derive(Debug, Clone)]
pub(crate) struct VoxelSolid {
    cells: BTreeSet<Cell>,
}

impl VoxelSolid {
    /// The solid made of `cells`. Panics if two cells touch along an edge only (the boundary
    /// would not be edge-manifold); see [`VoxelSolid::repaired`].
    pub(crate) fn new(cells: impl IntoIterator<Item = Cell>) -> Self {
        let solid = Self { cells: cells.into_iter().collect() };
        assert!(!solid.cells.is_empty());
        assert!(solid.diagonal_fix().is_none(), "cells meet along an edge only");
        solid
    }

    /// A random set of cells in `[0, n)³` (each with probability `fill`), with cells added
    /// until no two cells touch along an edge only.
    pub(crate) fn random(seed: u64, n: i32, fill: f64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut cells = BTreeSet::new();
        for x in 0..n {
            for y in 0..n {
                for z in 0..n {
                    if rng.random_range(0.0..1.0) < fill {
                        cells.insert([x, y, z]);
                    }
                }
            }
        }
        cells.insert([0, 0, 0]);
        let mut solid = Self { cells };
        while let Some(fix) = solid.diagonal_fix() {
            solid.cells.insert(fix);
        }
        solid
    }

    /// `[lo, hi]`: the bounding box of the cells as integer corners.
    pub(crate) fn bounds(&self) -> ([i32; 3], [i32; 3]) {
        let mut lo = [i32::MAX; 3];
        let mut hi = [i32::MIN; 3];
        for c in &self.cells {
            for k in 0..3 {
                lo[k] = lo[k].min(c[k]);
                hi[k] = hi[k].max(c[k] + 1);
            }
        }
        (lo, hi)
    }

    /// An empty cell that removes one "two cells meet along an edge only" configuration.
    fn diagonal_fix(&self) -> Option<Cell> {
        let (lo, hi) = self.bounds();
        for axis in 0..3 {
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            for k in lo[axis]..hi[axis] {
                for i in lo[u]..=hi[u] {
                    for j in lo[v]..=hi[v] {
                        let cell = |du: i32, dv: i32| {
                            let mut c = [0; 3];
                            c[axis] = k;
                            c[u] = i - 1 + du;
                            c[v] = j - 1 + dv;
                            c
                        };
                        let ring = [cell(0, 0), cell(1, 0), cell(1, 1), cell(0, 1)];
                        let s = ring.map(|c| self.cells.contains(&c));
                        if s[0] == s[2] && s[1] == s[3] && s[0] != s[1] {
                            return Some(ring[usize::from(s[0])]);
                        }
                    }
                }
            }
        }
        None
    }

    /// Exact classification: a point is interior iff every cell touching it is solid, on the
    /// boundary iff some but not all are, outside iff none is.
    pub(crate) fn classify(&self, p: DVec3) -> Containment {
        let touching = |x: f64| -> Vec<i32> {
            let f = x.floor();
            if f == x { vec![f as i32 - 1, f as i32] } else { vec![f as i32] }
        };
        let (xs, ys, zs) = (touching(p.x), touching(p.y), touching(p.z));
        let (mut solid, mut total) = (0, 0);
        for &x in &xs {
            for &y in &ys {
                for &z in &zs {
                    total += 1;
                    solid += usize::from(self.cells.contains(&[x, y, z]));
                }
            }
        }
        match solid {
            0 => Containment::Outside,
            s if s == total => Containment::Inside,
            _ => Containment::OnBoundary,
        }
    }

    /// The outward boundary mesh; `split(k)` chooses the triangulation of the `k`-th square.
    pub(crate) fn mesh(&self, split: impl Fn(usize) -> Split) -> TriMesh {
        // Vertices are keyed by twice their coordinates (square centres are half-integers).
        let mut index: HashMap<[i64; 3], u32> = HashMap::new();
        let mut vertices: Vec<DVec3> = Vec::new();
        let mut id = |key: [i64; 3]| -> u32 {
            *index.entry(key).or_insert_with(|| {
                vertices.push(DVec3::new(key[0] as f64, key[1] as f64, key[2] as f64) * 0.5);
                (vertices.len() - 1) as u32
            })
        };
        let mut faces = Vec::new();
        let mut square = 0;
        for &c in &self.cells {
            for axis in 0..3 {
                for side in [-1, 1] {
                    let mut neighbour = c;
                    neighbour[axis] += side;
                    if self.cells.contains(&neighbour) {
                        continue;
                    }
                    // e_u × e_v = e_axis: the ring (0,0), (1,0), (1,1), (0,1) in (u, v) turns
                    // counter-clockwise seen from +axis.
                    let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
                    let corner = |du: i64, dv: i64| {
                        let mut t = c.map(|x| 2 * i64::from(x));
                        t[axis] += if side > 0 { 2 } else { 0 };
                        t[u] += 2 * du;
                        t[v] += 2 * dv;
                        t
                    };
                    let mut ring = [corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)];
                    if side < 0 {
                        ring.reverse();
                    }
                    let r = ring.map(&mut id);
                    match split(square) {
                        Split::Diagonal02 => faces.extend([[r[0], r[1], r[2]], [r[0], r[2], r[3]]]),
                        Split::Diagonal13 => faces.extend([[r[0], r[1], r[3]], [r[1], r[2], r[3]]]),
                        Split::Fan => {
                            let (p, q) = (corner(0, 0), corner(1, 1));
                            let centre = id([0, 1, 2].map(|k| i64::midpoint(p[k], q[k])));
                            for k in 0..4 {
                                faces.push([r[k], r[(k + 1) % 4], centre]);
                            }
                        }
                    }
                    square += 1;
                }
            }
        }
        let mesh = TriMesh::new(vertices, faces).expect("valid voxel mesh");
        mesh.require_solid().expect("voxel mesh bounds a solid, outward");
        mesh
    }
}

/// A mixed triangulation choice per square, reproducible from `seed`.
pub(crate) fn mixed_split(seed: u64) -> impl Fn(usize) -> Split {
    move |k| {
        let h = (k as u64 ^ seed).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 61;
        match h % 3 {
            0 => Split::Diagonal02,
            1 => Split::Diagonal13,
            _ => Split::Fan,
        }
    }
}

/// Points `lo + i·step` on every axis, `lo ≤ x ≤ hi` (exact for dyadic inputs).
pub(crate) fn lattice(lo: f64, hi: f64, step: f64) -> Vec<DVec3> {
    geometry_core::generators::point_lattice(lo, hi, step).expect("valid lattice")
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

/// The 48 signed axis permutations, each scaled by `scale`: exact linear maps for any
/// power-of-two `scale`.
pub(crate) fn signed_permutations(scale: f64) -> Vec<DMat3> {
    let perms = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
    let axes = [DVec3::X, DVec3::Y, DVec3::Z];
    let mut out = Vec::new();
    for p in perms {
        for signs in 0..8 {
            let col = |k: usize| {
                let s = if signs >> k & 1 == 1 { -scale } else { scale };
                axes[p[k]] * s
            };
            out.push(DMat3::from_cols(col(0), col(1), col(2)));
        }
    }
    out
}

/// A random rotation.
pub(crate) fn random_rotation(rng: &mut ChaCha8Rng) -> DMat3 {
    loop {
        let q = geometry_core::DQuat::from_xyzw(
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

/// A random affine map: rotation · diagonal scale · rotation (optionally with a reflection),
/// then a translation.
pub(crate) fn random_affine(rng: &mut ChaCha8Rng) -> DAffine3 {
    let r1 = random_rotation(rng);
    let r2 = random_rotation(rng);
    let mut scale =
        DVec3::new(rng.random_range(0.3..3.0), rng.random_range(0.3..3.0), rng.random_range(0.3..3.0));
    if rng.random_range(0.0..1.0) < 0.5 {
        scale.x = -scale.x;
    }
    let t = DVec3::new(rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0));
    DAffine3::from_mat3_translation(r1 * DMat3::from_diagonal(scale) * r2, t)
}

/// A mesh's triangles with their bounding boxes, for brute-force oracles.
pub(crate) struct Surface {
    tris: Vec<[DVec3; 3]>,
    boxes: Vec<(DVec3, DVec3)>,
}

impl Surface {
    pub(crate) fn new(mesh: &TriMesh) -> Self {
        let v = mesh.vertices();
        let tris: Vec<[DVec3; 3]> = mesh.faces().iter().map(|f| f.map(|i| v[i as usize])).collect();
        let boxes = tris.iter().map(|t| (t[0].min(t[1]).min(t[2]), t[0].max(t[1]).max(t[2]))).collect();
        Self { tris, boxes }
    }

    /// The generalised winding number: the sum of the triangles' signed solid angles
    /// (Van Oosterom & Strackee 1983) over 4π. 1 inside and 0 outside an outward closed mesh.
    pub(crate) fn winding(&self, p: DVec3) -> f64 {
        let mut sum = 0.0;
        for t in &self.tris {
            let (a, b, c) = (t[0] - p, t[1] - p, t[2] - p);
            let (la, lb, lc) = (a.length(), b.length(), c.length());
            let num = a.dot(b.cross(c));
            let den = la * lb * lc + a.dot(b) * lc + a.dot(c) * lb + b.dot(c) * la;
            sum += 2.0 * num.atan2(den);
        }
        sum / (4.0 * PI)
    }

    /// Whether the Euclidean distance from `p` to the surface is below `tol` (brute force).
    pub(crate) fn near(&self, p: DVec3, tol: f64) -> bool {
        self.tris.iter().zip(&self.boxes).any(|(t, &(lo, hi))| {
            let outside_box = (lo - p).max(p - hi).max(DVec3::ZERO);
            outside_box.length() < tol && closest_point_on_triangle(p, t).distance(p) < tol
        })
    }

    /// Whether `p` lies exactly on some face (exact predicates).
    pub(crate) fn on_surface(&self, p: DVec3) -> bool {
        self.tris
            .iter()
            .zip(&self.boxes)
            .any(|(t, &(lo, hi))| p.cmpge(lo).all() && p.cmple(hi).all() && on_triangle(t, p))
    }

    /// Exact half-space classification; valid only for an outward, exactly convex mesh
    /// (see [`Surface::assert_convex`]).
    pub(crate) fn convex_classify(&self, p: DVec3) -> Containment {
        let mut on_plane = false;
        for t in &self.tris {
            match orient3d(t[0], t[1], t[2], p) {
                Sign::Positive => return Containment::Outside,
                Sign::Zero => on_plane = true,
                Sign::Negative => {}
            }
        }
        if on_plane { Containment::OnBoundary } else { Containment::Inside }
    }

    /// Panics unless every vertex lies on the inner side of, or on, every face plane.
    pub(crate) fn assert_convex(&self, mesh: &TriMesh) {
        for (f, t) in self.tris.iter().enumerate() {
            for &v in mesh.vertices() {
                assert_ne!(
                    orient3d(t[0], t[1], t[2], v),
                    Sign::Positive,
                    "face {f} is not a supporting plane"
                );
            }
        }
    }
}

/// Exact: `p` lies in the closed triangle `t` (coplanar, and inside in a projection where the
/// triangle is not degenerate).
fn on_triangle(t: &[DVec3; 3], p: DVec3) -> bool {
    if orient3d(t[0], t[1], t[2], p) != Sign::Zero {
        return false;
    }
    for drop in 0..3 {
        let proj = |q: DVec3| match drop {
            0 => DVec2::new(q.y, q.z),
            1 => DVec2::new(q.z, q.x),
            _ => DVec2::new(q.x, q.y),
        };
        let (a, b, c, q) = (proj(t[0]), proj(t[1]), proj(t[2]), proj(p));
        let s = orient2d(a, b, c);
        if s == Sign::Zero {
            continue;
        }
        return [orient2d(a, b, q), orient2d(b, c, q), orient2d(c, a, q)].iter().all(|&x| x != s.flip());
    }
    unreachable!("a mesh face is never degenerate")
}

/// The point of triangle `t` closest to `p` (`geometry_core::Triangle::closest_point`, tested
/// against dense sampling in geometry-core).
fn closest_point_on_triangle(p: DVec3, t: &[DVec3; 3]) -> DVec3 {
    geometry_core::Triangle::new(t[0], t[1], t[2]).closest_point(p)
}
