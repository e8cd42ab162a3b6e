//! Marching tetrahedra on the Freudenthal (Kuhn) triangulation of a regular grid.
//!
//! Every grid cube is split into six tetrahedra around its main diagonal `(0,0,0)–(1,1,1)`: one
//! per order in which the path from the low corner to the high corner steps along x, y and z.
//! All cubes use the same split, so the face diagonals of neighbouring cubes agree and the
//! tetrahedra form a simplicial complex covering the grid. The zero set of the piecewise-linear
//! interpolant of the samples over that complex is extracted tetrahedron by tetrahedron:
//!
//! * a sample is *inside* if it is `< 0`; a sample that is exactly `0` is replaced by the
//!   smallest positive normal `f64`, i.e. ties are resolved as *outside*, so no sample is zero;
//! * a tetrahedron with one (or three) inside corners gives one triangle, one with two gives a
//!   quadrilateral, cut into two triangles along its shorter diagonal; there are no ambiguous
//!   cases;
//! * a surface vertex lies on a grid edge (a cube edge, a face diagonal or a main diagonal) whose
//!   end samples have opposite signs; it is created once per grid edge and shared by every
//!   tetrahedron around that edge. Its position is the root of the field along the edge
//!   ([`Field::value_at`], see [`edge_root`]; for a field that is linear along the edge, the
//!   linear interpolation of the two samples), with the edge parameter clamped to
//!   `[EPSILON, 1 - EPSILON]` so that it never coincides with a grid node.
//!
//! The connectivity is that of the zero set of the piecewise-linear interpolant, which is linear
//! on each tetrahedron: with no zero sample, it is a closed 2-manifold away from the grid border,
//! and if every border sample is positive, every edge of the output is shared by exactly two
//! triangles (each surface edge lies in one tetrahedron face, shared by two tetrahedra). Moving a
//! vertex along its open grid edge does not change that. Each triangle is oriented
//! combinatorially (from the orientation of its tetrahedron, not from rounded coordinates) so that
//! its normal points from the negative to the positive side: a closed surface around `{ f < 0 }`
//! comes out with positive signed volume.
//!
//! The grid is processed one z-layer of cubes at a time with two layers of samples and two layers
//! of edge-to-vertex tables, so memory is `O(nx · ny)` plus the output. Cubes are visited in
//! z, y, x order and vertices are numbered in order of first use, so the output is deterministic.

use crate::DVec3;

/// The interpolation parameter along a grid edge is clamped to `[EPSILON, 1 - EPSILON]`.
const EPSILON: f64 = 1e-4;

/// No vertex has been created for this grid edge yet.
const NONE: u32 = u32::MAX;

/// A tetrahedron edge as a pair of cube corners `(low, high)`: corners are numbered by their
/// offset bits (bit 0 = x, bit 1 = y, bit 2 = z) and `low`'s bits are a subset of `high`'s, so the
/// edge is the grid edge from corner `low` in direction `high ^ low`.
type Edge = (u8, u8);

/// What one tetrahedron contributes for one inside/outside pattern of its corners.
#[derive(Debug, Clone, Copy)]
enum Piece {
    /// All corners on the same side.
    Empty,
    /// One triangle, oriented outward.
    Triangle([Edge; 3]),
    /// A quadrilateral `[p0, p1, p2, p3]` in outward cyclic order.
    Quad([Edge; 4]),
}

/// The offset of cube corner `c` as integers.
const fn corner_offset(c: u8) -> [i64; 3] {
    [(c & 1) as i64, ((c >> 1) & 1) as i64, ((c >> 2) & 1) as i64]
}

/// The six positively oriented tetrahedra of the Freudenthal split, as cube corners.
fn tetrahedra() -> [[u8; 4]; 6] {
    const AXIS_ORDERS: [[u8; 3]; 6] = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
    AXIS_ORDERS.map(|[a, b, _]| {
        let c1 = 1 << a;
        let c2 = c1 | (1 << b);
        let mut tet = [0, c1, c2, 7];
        if orientation(tet) < 0 {
            tet.swap(1, 2);
        }
        debug_assert!(orientation(tet) > 0);
        tet
    })
}

/// `det(p1 - p0, p2 - p0, p3 - p0)` for the corners of `tet`, positive for a positively oriented
/// tetrahedron (exact: small integers).
fn orientation(tet: [u8; 4]) -> i64 {
    let [p0, p1, p2, p3] = tet.map(corner_offset);
    let d = |p: [i64; 3]| [p[0] - p0[0], p[1] - p0[1], p[2] - p0[2]];
    let (a, b, c) = (d(p1), d(p2), d(p3));
    a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
        + a[2] * (b[0] * c[1] - b[1] * c[0])
}

/// The twelve even permutations of `0..4`: reordering a positively oriented tetrahedron by one of
/// them keeps it positively oriented.
fn even_permutations() -> impl Iterator<Item = [usize; 4]> {
    (0..256usize).map(|code| [code & 3, (code >> 2) & 3, (code >> 4) & 3, code >> 6]).filter(|p| {
        let is_permutation = p.iter().fold(0u8, |seen, &i| seen | (1 << i)) == 0b1111;
        let inversions = (0..4).flat_map(|i| (i + 1..4).map(move |j| (i, j))).filter(|&(i, j)| p[i] > p[j]);
        is_permutation && inversions.count() % 2 == 0
    })
}

/// The edge between two corners of one tetrahedron, low corner first.
fn edge(a: u8, b: u8) -> Edge {
    if a & b == a { (a, b) } else { (b, a) }
}

/// The piece for positively oriented tetrahedron `tet` when the corners whose bit is set in
/// `inside` (bit `i` for `tet[i]`) are inside.
///
/// For a positively oriented tetrahedron `(a, b, c, d)`, the triangle `(b, c, d)` faces away from
/// `a`, and so does the triangle through points on the edges `ab`, `ac`, `ad` (scaling towards `a`
/// keeps the orientation). With `a` inside, that is outward; with `a` the only outside corner, the
/// reverse is. With `a, b` inside, the quadrilateral `ac, ad, bd, bc` faces `c, d` for every choice
/// of points on those edges and either diagonal (its sign cannot change without a degenerate
/// configuration), as the unit test `pieces_face_outward` checks on the midpoints.
fn piece(tet: [u8; 4], inside: u8) -> Piece {
    let is_in = |i: usize| inside & (1 << i) != 0;
    let count = (0..4).filter(|&i| is_in(i)).count();
    let mut perms = even_permutations();
    match count {
        1 | 3 => {
            let lonely = (0..4).find(|&i| is_in(i) == (count == 1)).expect("one corner differs");
            let [a, b, c, d] =
                perms.find(|p| p[0] == lonely).expect("even permutation exists").map(|i| tet[i]);
            if count == 1 {
                Piece::Triangle([edge(a, b), edge(a, c), edge(a, d)])
            } else {
                Piece::Triangle([edge(a, b), edge(a, d), edge(a, c)])
            }
        }
        2 => {
            let [a, b, c, d] =
                perms.find(|p| is_in(p[0]) && is_in(p[1])).expect("even permutation exists").map(|i| tet[i]);
            Piece::Quad([edge(a, c), edge(a, d), edge(b, d), edge(b, c)])
        }
        _ => Piece::Empty,
    }
}

/// Samples of a scalar field on a regular grid of `nodes[0] × nodes[1] × nodes[2]` nodes at
/// integer node-space coordinates, delivered one z-layer at a time.
pub(crate) trait Field {
    /// Writes the samples of layer `z` into `out`, node `(x, y)` at index `x + nodes[0] · y`.
    fn layer(&self, z: usize, out: &mut [f64]);

    /// The field at a node-space point between nodes (used to place surface vertices on the
    /// exact zero set along grid edges); at a node it must agree with [`Field::layer`].
    fn value_at(&self, p: DVec3) -> f64;

    /// Maps a node-space point to the output coordinates.
    fn to_world(&self, p: DVec3) -> DVec3;
}

/// The root of `f(s)` for `s` in `(0, 1)`, given `f(0) = f0` and `f(1) = f1` of opposite signs,
/// clamped to `[EPSILON, 1 - EPSILON]`.
///
/// The first step is the linear interpolation of the two samples (so a field that is linear along
/// the edge gets its exact root at once); the following are Illinois-modified regula falsi steps,
/// which keep the root bracketed and converge superlinearly. The iteration count is fixed by the
/// data, so the result is deterministic.
fn edge_root(f: impl Fn(f64) -> f64, f0: f64, f1: f64) -> f64 {
    /// Stop when `|f(s)|` is this small (node units for a distance-like field).
    const TOLERANCE: f64 = 1e-12;
    const MAX_STEPS: usize = 32;
    debug_assert!((f0 < 0.0) != (f1 < 0.0));
    let (mut a, mut fa, mut b, mut fb) = (0.0, f0, 1.0, f1);
    let mut s = fa / (fa - fb);
    let mut last_side = 0;
    for _ in 0..MAX_STEPS {
        let fs = f(s);
        if fs.abs() <= TOLERANCE || !fs.is_finite() {
            break;
        }
        if (fs < 0.0) == (fa < 0.0) {
            (a, fa) = (s, fs);
            if last_side == -1 {
                fb *= 0.5;
            }
            last_side = -1;
        } else {
            (b, fb) = (s, fs);
            if last_side == 1 {
                fa *= 0.5;
            }
            last_side = 1;
        }
        s = (a * fb - b * fa) / (fb - fa);
        if !(s > a && s < b) {
            s = 0.5 * (a + b);
        }
    }
    s.clamp(EPSILON, 1.0 - EPSILON)
}

/// Extracts the oriented surface `{ f = 0 }` around `{ f < 0 }` of the grid samples given by
/// `field` (see the module documentation). Returns the vertex and face arrays.
pub(crate) fn marching_tetrahedra(nodes: [usize; 3], field: &impl Field) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let [nx, ny, nz] = nodes;
    assert!(nx >= 2 && ny >= 2 && nz >= 2, "need at least one cube");
    let tets = tetrahedra();
    let table: Vec<[Piece; 16]> =
        tets.iter().map(|&tet| std::array::from_fn(|mask| piece(tet, mask as u8))).collect();

    let layer_len = nx * ny;
    let sanitize = |values: &mut [f64]| {
        for v in values {
            debug_assert!(v.is_finite(), "field samples must be finite");
            if *v == 0.0 {
                *v = f64::MIN_POSITIVE;
            }
        }
    };
    let mut low = vec![0.0; layer_len];
    let mut high = vec![0.0; layer_len];
    field.layer(0, &mut low);
    sanitize(&mut low);
    // Vertex of the grid edge starting at node (x, y) of a layer in direction `code` (1..=7):
    // index 7 · (x + nx · y) + code - 1.
    let mut low_edges = vec![NONE; 7 * layer_len];
    let mut high_edges = vec![NONE; 7 * layer_len];

    let mut vertices: Vec<DVec3> = Vec::new();
    let mut faces: Vec<[u32; 3]> = Vec::new();

    for z in 0..nz - 1 {
        field.layer(z + 1, &mut high);
        sanitize(&mut high);
        high_edges.fill(NONE);
        for y in 0..ny - 1 {
            for x in 0..nx - 1 {
                let node = x + nx * y;
                let corner_node = |c: u8| node + usize::from(c & 1) + nx * usize::from((c >> 1) & 1);
                let value = |c: u8| {
                    let layer = if c & 4 == 0 { &low } else { &high };
                    layer[corner_node(c)]
                };
                let values: [f64; 8] = std::array::from_fn(|c| value(c as u8));
                let inside_corners = values.iter().filter(|v| **v < 0.0).count();
                if inside_corners == 0 || inside_corners == 8 {
                    continue;
                }
                let mut vertex = |(lo, hi): Edge, vertices: &mut Vec<DVec3>| -> u32 {
                    let code = usize::from(hi ^ lo);
                    let slot = 7 * corner_node(lo) + code - 1;
                    let table = if lo & 4 == 0 { &mut low_edges } else { &mut high_edges };
                    if table[slot] == NONE {
                        let [ox, oy, oz] = corner_offset(lo);
                        let [dx, dy, dz] = corner_offset(hi ^ lo);
                        let start = DVec3::new(
                            (x as i64 + ox) as f64,
                            (y as i64 + oy) as f64,
                            (z as i64 + oz) as f64,
                        );
                        let direction = DVec3::new(dx as f64, dy as f64, dz as f64);
                        let s = edge_root(
                            |s| field.value_at(start + s * direction),
                            values[usize::from(lo)],
                            values[usize::from(hi)],
                        );
                        let p = start + s * direction;
                        table[slot] = u32::try_from(vertices.len()).expect("fewer than 2^32 vertices");
                        vertices.push(field.to_world(p));
                    }
                    table[slot]
                };
                for (t, tet) in tets.iter().enumerate() {
                    let mask = tet
                        .iter()
                        .enumerate()
                        .fold(0, |m, (i, &c)| if values[usize::from(c)] < 0.0 { m | (1 << i) } else { m });
                    match table[t][mask] {
                        Piece::Empty => {}
                        Piece::Triangle(edges) => faces.push(edges.map(|e| vertex(e, &mut vertices))),
                        Piece::Quad(edges) => {
                            let [p0, p1, p2, p3] = edges.map(|e| vertex(e, &mut vertices));
                            let [q0, q1, q2, q3] = [p0, p1, p2, p3].map(|i| vertices[i as usize]);
                            if q0.distance_squared(q2) <= q1.distance_squared(q3) {
                                faces.push([p0, p1, p2]);
                                faces.push([p0, p2, p3]);
                            } else {
                                faces.push([p0, p1, p3]);
                                faces.push([p1, p2, p3]);
                            }
                        }
                    }
                }
            }
        }
        std::mem::swap(&mut low, &mut high);
        std::mem::swap(&mut low_edges, &mut high_edges);
    }
    (vertices, faces)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twelve_even_permutations() {
        let all: Vec<_> = even_permutations().collect();
        assert_eq!(all.len(), 12);
        assert!(all.contains(&[0, 1, 2, 3]) && all.contains(&[1, 2, 0, 3]) && !all.contains(&[1, 0, 2, 3]));
    }

    /// Every triangle of every piece has the inside corners of its tetrahedron strictly behind it
    /// and the outside corners strictly in front, wherever its vertices lie on their edges (a few
    /// edge parameters are tried, and both diagonals of the quadrilaterals).
    #[test]
    fn pieces_face_outward() {
        let corner = |c: u8| {
            let [x, y, z] = corner_offset(c);
            DVec3::new(x as f64, y as f64, z as f64)
        };
        let parameters = [0.5, 0.1, 0.9, 0.3, 0.01, 0.99, 0.7];
        for tet in tetrahedra() {
            assert!(orientation(tet) > 0);
            for mask in 1u8..15 {
                let triangles: Vec<[Edge; 3]> = match piece(tet, mask) {
                    Piece::Empty => unreachable!("mixed mask"),
                    Piece::Triangle(t) => vec![t],
                    Piece::Quad([a, b, c, d]) => vec![[a, b, c], [a, c, d], [a, b, d], [b, c, d]],
                };
                for trial in 0..parameters.len() {
                    // Each grid edge of the cube gets its own parameter in this trial.
                    let position = |(lo, hi): Edge| {
                        let s =
                            parameters[(trial + usize::from(lo) * 3 + usize::from(hi)) % parameters.len()];
                        corner(lo) + s * (corner(hi) - corner(lo))
                    };
                    for t in &triangles {
                        let [p, q, r] = t.map(position);
                        let normal = (q - p).cross(r - p);
                        for (i, &c) in tet.iter().enumerate() {
                            let side = normal.dot(corner(c) - p);
                            let inside = mask & (1 << i) != 0;
                            assert!(if inside { side < 0.0 } else { side > 0.0 }, "tet {tet:?} mask {mask}");
                        }
                    }
                }
            }
        }
    }

    /// A sphere sampled on a small grid gives a closed, outward surface of genus 0.
    #[test]
    fn sphere_is_closed_and_outward() {
        struct Sphere;
        impl Field for Sphere {
            fn layer(&self, z: usize, out: &mut [f64]) {
                for (i, v) in out.iter_mut().enumerate() {
                    let p = DVec3::new((i % 9) as f64, (i / 9) as f64, z as f64) - DVec3::splat(4.0);
                    *v = p.length() - 3.0;
                }
            }
            fn value_at(&self, p: DVec3) -> f64 {
                (p - DVec3::splat(4.0)).length() - 3.0
            }
            fn to_world(&self, p: DVec3) -> DVec3 {
                p
            }
        }
        let (vertices, faces) = marching_tetrahedra([9, 9, 9], &Sphere);
        let mesh = crate::TriMesh::new(vertices, faces).unwrap();
        let r = mesh.report();
        assert!(r.is_outward(), "{r:?}");
        assert_eq!(r.euler_characteristic(), 2);
        let volume = 4.0 / 3.0 * std::f64::consts::PI * 27.0;
        assert!((r.signed_volume() - volume).abs() < 0.1 * volume);
        // Vertices lie on the sphere, up to the clamping next to the nodes where the field is 0.
        assert!(
            mesh.vertices().iter().all(|v| ((*v - DVec3::splat(4.0)).length() - 3.0).abs() < 2.0 * EPSILON)
        );
    }
}
