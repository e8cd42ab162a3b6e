//! Topological and geometric facts about a validated mesh.

use crate::dyadic::Dyadic;
use crate::{Aabb, DVec3, SolidError};

/// What [`TriMesh::new`](crate::TriMesh::new) found out about a mesh that is valid but may not
/// be a closed surface.
///
/// Edges are counted undirected: an edge `{i, j}` is *used* once by every face that has `i` and `j`
/// as consecutive corners. A mesh is
/// * **closed** when every edge is used by exactly two faces (no holes, no fins);
/// * **consistently oriented** when, for every edge used twice, the two faces traverse it in
///   opposite directions;
/// * **outward** when it is closed, consistently oriented and its signed volume is positive.
///
/// Vertex-manifoldness (two surface sheets touching at a single vertex) is not checked.
///
/// ```
/// use geometry_core::generators::octa_sphere;
/// let r = octa_sphere(0).unwrap().report().clone();
/// assert_eq!((r.vertex_count(), r.edge_count(), r.face_count()), (6, 12, 8));
/// assert_eq!(r.euler_characteristic(), 2);
/// assert_eq!(r.boundary_edges(), 0);
/// assert_eq!(r.connected_components(), 1);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct MeshReport {
    vertex_count: usize,
    unreferenced_vertices: usize,
    face_count: usize,
    edge_count: usize,
    boundary_edges: usize,
    non_manifold_edges: usize,
    inconsistent_edges: usize,
    connected_components: usize,
    signed_volume: f64,
    /// The exact sign of the signed volume (−1, 0 or 1).
    volume_sign: i8,
    total_area: f64,
    bounding_box: Aabb,
    face_normals: Vec<DVec3>,
    face_areas: Vec<f64>,
}

impl MeshReport {
    /// Analyses validated arrays (finite vertices, in-range indices, non-degenerate faces).
    pub(crate) fn compute(vertices: &[DVec3], faces: &[[u32; 3]]) -> Self {
        let bounding_box = Aabb::from_points(vertices).expect("validated: non-empty and finite");

        // Undirected edge uses as (low, high, forward) sorted so that all uses of an edge are
        // adjacent. Sorting is deterministic and faster than hashing for millions of edges.
        let mut uses: Vec<(u32, u32, bool)> = Vec::with_capacity(faces.len() * 3);
        for &[a, b, c] in faces {
            for (i, j) in [(a, b), (b, c), (c, a)] {
                uses.push((i.min(j), i.max(j), i < j));
            }
        }
        uses.sort_unstable();
        let (mut edge_count, mut boundary_edges, mut non_manifold_edges, mut inconsistent_edges) =
            (0, 0, 0, 0);
        for group in uses.chunk_by(|x, y| (x.0, x.1) == (y.0, y.1)) {
            edge_count += 1;
            match group.len() {
                1 => boundary_edges += 1,
                2 => {
                    if group[0].2 == group[1].2 {
                        inconsistent_edges += 1;
                    }
                }
                _ => non_manifold_edges += 1,
            }
        }

        let mut referenced = vec![false; vertices.len()];
        let mut components = UnionFind::new(vertices.len());
        for &[a, b, c] in faces {
            for i in [a, b, c] {
                referenced[i as usize] = true;
            }
            components.union(a as usize, b as usize);
            components.union(a as usize, c as usize);
        }
        let unreferenced_vertices = referenced.iter().filter(|&&r| !r).count();
        let connected_components =
            (0..vertices.len()).filter(|&v| referenced[v] && components.find(v) == v).count();

        // Signed volume relative to the box centre: the same value for a closed mesh, with far
        // less cancellation than relative to a distant origin.
        let origin = bounding_box.center();
        // Six times the volume, with a bound on its rounding error (see `volume_sign`).
        let (mut six_volume, mut error_bound) = (0.0f64, 0.0f64);
        let mut total_area = 0.0;
        let mut face_normals = Vec::with_capacity(faces.len());
        let mut face_areas = Vec::with_capacity(faces.len());
        for &[a, b, c] in faces {
            let (pa, pb, pc) =
                (vertices[a as usize] - origin, vertices[b as usize] - origin, vertices[c as usize] - origin);
            // At unit scale: the cross product of a tiny face's edges underflows (partly, and
            // its square entirely). A degenerate face gets a zero normal rather than NaN.
            let (normal, double_area) = crate::triangle::unit_scale_normal(pa, pb, pc);
            face_normals.push(normal.unwrap_or(DVec3::ZERO));
            face_areas.push(0.5 * double_area);
            total_area += 0.5 * double_area;
            six_volume += pa.dot(pb.cross(pc));
            // Per face: moving each corner by its rounding in the shift (ε relative: at most
            // 3ε·|pa||pb||pc|) and the triple product's own rounding (Shewchuk's 7ε times the
            // permanent) stay within 12ε times the product of the 1-norms, which bounds both
            // (no square roots); the running sum adds ε·|sum|.
            let norm = |p: DVec3| p.abs().element_sum();
            error_bound +=
                12.0 * f64::EPSILON * norm(pa) * norm(pb) * norm(pc) + f64::EPSILON * six_volume.abs();
        }
        // The floating-point volume where its sign is certain, else the exact one (rounded):
        // the rounded sum decided alone, and a nearly flat tetrahedron of exact volume 1e-17
        // came out inward (and `into_outward` turned it inward), another of zero volume.
        let (signed_volume, volume_sign) = if six_volume.abs() > 1.01 * error_bound {
            (six_volume / 6.0, if six_volume > 0.0 { 1 } else { -1 })
        } else {
            let exact = exact_six_volume(vertices, faces);
            (exact.to_f64() / 6.0, exact.signum() as i8)
        };

        Self {
            vertex_count: vertices.len(),
            unreferenced_vertices,
            face_count: faces.len(),
            edge_count,
            boundary_edges,
            non_manifold_edges,
            inconsistent_edges,
            connected_components,
            signed_volume,
            volume_sign,
            total_area,
            bounding_box,
            face_normals,
            face_areas,
        }
    }

    /// Number of vertices, referenced or not.
    ///
    /// ```
    /// use geometry_core::{DVec3, TriMesh};
    /// // A triangle plus one vertex that no face uses.
    /// let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
    /// let mesh = TriMesh::new(v, vec![[0, 1, 2]]).unwrap();
    /// assert_eq!(mesh.report().vertex_count(), 4);
    /// ```
    pub fn vertex_count(&self) -> usize {
        self.vertex_count
    }

    /// Number of vertices that no face uses.
    ///
    /// ```
    /// use geometry_core::{DVec3, TriMesh};
    /// let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
    /// let mesh = TriMesh::new(v, vec![[0, 1, 2]]).unwrap();
    /// assert_eq!(mesh.report().unreferenced_vertices(), 1); // vertex 3
    /// assert_eq!(mesh.report().euler_characteristic(), 3 - 3 + 1);
    /// ```
    pub fn unreferenced_vertices(&self) -> usize {
        self.unreferenced_vertices
    }

    /// Number of faces.
    ///
    /// ```
    /// use geometry_core::generators::octa_sphere;
    /// // 8 octahedron faces, each split into 4 twice.
    /// assert_eq!(octa_sphere(2).unwrap().report().face_count(), 8 * 4 * 4);
    /// ```
    pub fn face_count(&self) -> usize {
        self.face_count
    }

    /// Number of distinct undirected edges.
    ///
    /// ```
    /// use geometry_core::generators::octa_sphere;
    /// // On a closed triangle mesh every edge borders two faces: 2E = 3F.
    /// let r = octa_sphere(1).unwrap().report().clone();
    /// assert_eq!(2 * r.edge_count(), 3 * r.face_count());
    /// ```
    pub fn edge_count(&self) -> usize {
        self.edge_count
    }

    /// Number of edges used by exactly one face (the rims of holes).
    ///
    /// ```
    /// use geometry_core::{DVec3, TriMesh};
    /// // Two triangles sharing the edge {0, 2} form a square with a rim of 4 edges.
    /// let v = vec![DVec3::ZERO, DVec3::X, DVec3::new(1.0, 1.0, 0.0), DVec3::Y];
    /// let square = TriMesh::new(v, vec![[0, 1, 2], [0, 2, 3]]).unwrap();
    /// assert_eq!((square.report().edge_count(), square.report().boundary_edges()), (5, 4));
    /// ```
    pub fn boundary_edges(&self) -> usize {
        self.boundary_edges
    }

    /// Number of edges used by three or more faces.
    ///
    /// ```
    /// use geometry_core::{DVec3, TriMesh};
    /// // Three fins on the edge {0, 1}.
    /// let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z, -DVec3::Y];
    /// let fins = TriMesh::new(v, vec![[0, 1, 2], [0, 1, 3], [0, 1, 4]]).unwrap();
    /// assert_eq!(fins.report().non_manifold_edges(), 1);
    /// assert!(!fins.report().is_closed());
    /// ```
    pub fn non_manifold_edges(&self) -> usize {
        self.non_manifold_edges
    }

    /// Number of edges used by two faces that traverse it in the same direction.
    ///
    /// ```
    /// use geometry_core::{DVec3, TriMesh};
    /// // Both faces traverse the shared edge from 0 to 1.
    /// let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
    /// let mesh = TriMesh::new(v, vec![[0, 1, 2], [0, 1, 3]]).unwrap();
    /// assert_eq!(mesh.report().inconsistent_edges(), 1);
    /// assert!(!mesh.report().is_consistently_oriented());
    /// ```
    pub fn inconsistent_edges(&self) -> usize {
        self.inconsistent_edges
    }

    /// Number of connected pieces (faces connected through shared vertices).
    ///
    /// ```
    /// use geometry_core::{DVec3, TriMesh};
    /// // Two triangles with no vertex in common.
    /// let (x, y, z) = (DVec3::X, DVec3::Y, DVec3::Z);
    /// let v = vec![DVec3::ZERO, x, y, z, z + x, z + y];
    /// let mesh = TriMesh::new(v, vec![[0, 1, 2], [3, 4, 5]]).unwrap();
    /// assert_eq!(mesh.report().connected_components(), 2);
    /// ```
    pub fn connected_components(&self) -> usize {
        self.connected_components
    }

    /// Whether every edge is used by exactly two faces.
    ///
    /// ```
    /// use geometry_core::{DVec3, TriMesh};
    /// let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
    /// let faces = vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
    /// assert!(TriMesh::new(v.clone(), faces.clone()).unwrap().report().is_closed());
    /// // Without its last face the tetrahedron has a hole.
    /// assert!(!TriMesh::new(v, faces[..3].to_vec()).unwrap().report().is_closed());
    /// ```
    pub fn is_closed(&self) -> bool {
        self.boundary_edges == 0 && self.non_manifold_edges == 0
    }

    /// Whether every edge used twice is traversed in opposite directions (and none is used more).
    ///
    /// ```
    /// use geometry_core::{DVec3, TriMesh};
    /// let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
    /// let faces = vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
    /// let tet = TriMesh::new(v.clone(), faces).unwrap();
    /// assert!(tet.report().is_consistently_oriented());
    /// assert!(tet.flipped().report().is_consistently_oriented());
    /// // Reversing only the last face makes its three edges disagree.
    /// let bad = TriMesh::new(v, vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 3, 2]]).unwrap();
    /// assert_eq!(bad.report().inconsistent_edges(), 3);
    /// assert!(!bad.report().is_consistently_oriented());
    /// ```
    pub fn is_consistently_oriented(&self) -> bool {
        self.inconsistent_edges == 0 && self.non_manifold_edges == 0
    }

    /// Whether the mesh is closed, consistently oriented, and encloses positive signed volume.
    ///
    /// ```
    /// use geometry_core::generators::octa_sphere;
    /// assert!(!octa_sphere(1).unwrap().flipped().report().is_outward());
    /// ```
    pub fn is_outward(&self) -> bool {
        self.is_closed() && self.is_consistently_oriented() && self.volume_sign > 0
    }

    /// Euler characteristic `V - E + F`, counting only referenced vertices (2 for a sphere,
    /// `2 - 2g` for a closed surface of genus `g`).
    ///
    /// ```
    /// use geometry_core::{DVec3, TriMesh};
    /// let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
    /// let faces = vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
    /// let tet = TriMesh::new(v.clone(), faces.clone()).unwrap();
    /// assert_eq!(tet.report().euler_characteristic(), 4 - 6 + 4); // a sphere: 2
    /// let open = TriMesh::new(v, faces[..3].to_vec()).unwrap();
    /// assert_eq!(open.report().euler_characteristic(), 4 - 6 + 3); // a disc: 1
    /// ```
    pub fn euler_characteristic(&self) -> i64 {
        (self.vertex_count - self.unreferenced_vertices) as i64 - self.edge_count as i64
            + self.face_count as i64
    }

    /// The enclosed volume, positive for outward faces: the sum of the faces' signed
    /// tetrahedra from the bounding box's centre, meaningful only for closed, consistently
    /// oriented meshes (a triangle listed twice with the same orientation counts twice).
    /// Its sign is exact (from exact arithmetic where rounding could flip it: a nearly flat
    /// solid), and so is a zero.
    ///
    /// ```
    /// use geometry_core::{DVec3, TriMesh};
    /// // The corner tetrahedron of the unit cube: volume 1/6.
    /// let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
    /// let tet = TriMesh::new(v, vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]).unwrap();
    /// assert!((tet.report().signed_volume() - 1.0 / 6.0).abs() < 1e-15);
    /// assert!((tet.flipped().report().signed_volume() + 1.0 / 6.0).abs() < 1e-15);
    /// ```
    pub fn signed_volume(&self) -> f64 {
        self.signed_volume
    }

    /// The total surface area.
    ///
    /// ```
    /// use geometry_core::{DVec3, TriMesh};
    /// // Three right triangles of area 1/2 and an equilateral one of side √2 (area √3/2).
    /// let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
    /// let tet = TriMesh::new(v, vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]).unwrap();
    /// assert!((tet.report().total_area() - (1.5 + 3f64.sqrt() / 2.0)).abs() < 1e-15);
    /// ```
    pub fn total_area(&self) -> f64 {
        self.total_area
    }

    /// The bounding box of all vertices.
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3, TriMesh};
    /// let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
    /// let tet = TriMesh::new(v, vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]).unwrap();
    /// assert_eq!(tet.report().bounding_box(), Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap());
    /// ```
    pub fn bounding_box(&self) -> Aabb {
        self.bounding_box
    }

    /// Unit normal of every face, in face order: zero for a degenerate face (edges parallel);
    /// computed from the edges scaled to unit size, so tiny and huge faces keep their
    /// direction, as [`Triangle::unit_normal`](crate::Triangle::unit_normal) does.
    ///
    /// ```
    /// use geometry_core::{DVec3, TriMesh};
    /// let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
    /// let tet = TriMesh::new(v, vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]).unwrap();
    /// let n = tet.report().face_normals();
    /// assert!((n[0] + DVec3::Z).length() < 1e-15); // the face on z = 0 points down
    /// assert!((n[3] - DVec3::ONE / 3f64.sqrt()).length() < 1e-15); // the slanted face
    /// ```
    pub fn face_normals(&self) -> &[DVec3] {
        &self.face_normals
    }

    /// Area of every face, in face order.
    ///
    /// ```
    /// use geometry_core::{DVec3, TriMesh};
    /// let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
    /// let tet = TriMesh::new(v, vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]).unwrap();
    /// let a = tet.report().face_areas();
    /// assert!(a[..3].iter().all(|&x| (x - 0.5).abs() < 1e-15));
    /// assert!((a[3] - 3f64.sqrt() / 2.0).abs() < 1e-15); // equilateral, side √2
    /// ```
    pub fn face_areas(&self) -> &[f64] {
        &self.face_areas
    }

    /// See [`TriMesh::require_solid`](crate::TriMesh::require_solid).
    ///
    /// # Errors
    /// The first failing property, as documented there.
    ///
    /// ```
    /// use geometry_core::{DVec3, SolidError, TriMesh};
    /// let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
    /// let faces = vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
    /// let tet = TriMesh::new(v.clone(), faces.clone()).unwrap();
    /// assert_eq!(tet.report().require_solid(), Ok(()));
    /// let open = TriMesh::new(v, faces[..3].to_vec()).unwrap();
    /// assert_eq!(open.report().require_solid(), Err(SolidError::Open { boundary_edges: 3 }));
    /// ```
    pub fn require_solid(&self) -> Result<(), SolidError> {
        if self.boundary_edges > 0 {
            return Err(SolidError::Open { boundary_edges: self.boundary_edges });
        }
        if self.non_manifold_edges > 0 {
            return Err(SolidError::NonManifold { edges: self.non_manifold_edges });
        }
        if self.inconsistent_edges > 0 {
            return Err(SolidError::InconsistentOrientation { edges: self.inconsistent_edges });
        }
        if self.volume_sign == 0 {
            return Err(SolidError::ZeroVolume);
        }
        if self.volume_sign < 0 {
            return Err(SolidError::InwardFacing { signed_volume: self.signed_volume });
        }
        Ok(())
    }
}

/// Disjoint-set forest with path halving and union by size, for counting components.
struct UnionFind {
    parent: Vec<usize>,
    size: Vec<usize>,
}

impl UnionFind {
    fn new(n: usize) -> Self {
        Self { parent: (0..n).collect(), size: vec![1; n] }
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    fn union(&mut self, a: usize, b: usize) {
        let (mut ra, mut rb) = (self.find(a), self.find(b));
        if ra == rb {
            return;
        }
        if self.size[ra] < self.size[rb] {
            std::mem::swap(&mut ra, &mut rb);
        }
        self.parent[rb] = ra;
        self.size[ra] += self.size[rb];
    }
}

/// `Σ a·(b×c)` over the faces `(a, b, c)`, on the exact vertex coordinates: six times the volume
/// of a closed mesh (independent of the origin in exact arithmetic, so taken about 0).
fn exact_six_volume(vertices: &[DVec3], faces: &[[u32; 3]]) -> Dyadic {
    let exact = |v: DVec3| v.to_array().map(Dyadic::from_f64);
    let mut sum = Dyadic::from_f64(0.0);
    for &[a, b, c] in faces {
        let [a, b, c] = [a, b, c].map(|i| exact(vertices[i as usize]));
        let minor = |i: usize, j: usize| b[i].mul(&c[j]).sub(&b[j].mul(&c[i]));
        let det = a[0].mul(&minor(1, 2)).add(&a[1].mul(&minor(2, 0))).add(&a[2].mul(&minor(0, 1)));
        sum = sum.add(&det);
    }
    sum
}
