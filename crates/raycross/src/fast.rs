//! Fast exact mode: one ray per point along `+x` or `-x` (towards the nearer side of the box),
//! candidate faces from a grid over the faces' projections onto the yz-plane, exact signs, and
//! symbolic perturbation for degeneracies. Faces wholly behind the ray are skipped and faces
//! wholly ahead need no `orient3d` (comparisons of `x` ranges, exact).
//!
//! # The test for one face
//! The ray `P + t·x̂, t > 0` crosses face `abc` when the projection `q = (P.y, P.z)` lies inside
//! the projected triangle and `P` lies behind the face's plane as seen along `+x`. With
//! `A = orient2d(a', b', c')` (the sign of the face normal's x component) and
//! `s = orient3d(a, b, c, P)`:
//! * `A = 0`: the face is edge-on to the ray; a perturbed ray never crosses it, but `P` may lie on
//!   it, which is tested exactly;
//! * `q` outside the closed projected triangle: no crossing;
//! * `q` inside or on it and `s = 0`: `P` lies on the face: [`Containment::OnBoundary`];
//! * otherwise the ray crosses iff `q` is inside the projected triangle after the symbolic
//!   perturbation `q' = q + (ε, ε²)` and `s = -A`.
//!
//! The perturbation (Simulation of Simplicity, Edelsbrunner & Mücke 1990) replaces a zero
//! `orient2d(u', v', q)` by the sign of its lowest-order non-vanishing term in `ε`:
//! `sign(u.z − v.z)`, or `sign(v.y − u.y)` when those are equal. It is the same perturbed point
//! for every face, so the perturbed ray is in general position and crosses a closed surface an
//! odd number of times exactly when it starts inside. A point not on the surface is therefore
//! classified by one ray, with no re-casting.

use crate::RayCrossError;
use contact_core::{Containment, PointContainment};
use geometry_core::predicates::on_triangle;
use geometry_core::predicates::{orient2d, orient3d};
use geometry_core::{Aabb, DVec2, DVec3, Sign, TriMesh};
use rayon::prelude::*;

/// A face prepared for the test: corners and the bounding box of its yz-projection.
#[derive(Debug, Clone, Copy)]
struct Face {
    corners: [DVec3; 3],
    /// `[y_min, z_min, y_max, z_max]`.
    yz_box: [f64; 4],
    /// `[x_min, x_max]`.
    x_range: [f64; 2],
    /// The exact sign of the projected area (the sign of the normal's x component).
    area: Sign,
}

/// Point containment by ray crossing, exact, one ray per point.
///
/// ```
/// use contact_core::{Containment, PointContainment};
/// use geometry_core::{generators::octa_sphere, DVec3};
/// use raycross::RayCrossing;
///
/// let sphere = RayCrossing::new(octa_sphere(4).unwrap()).unwrap();
/// assert_eq!(sphere.contains(DVec3::ZERO).unwrap(), Containment::Inside);
/// assert_eq!(sphere.contains(DVec3::splat(0.9)).unwrap(), Containment::Outside);
/// assert_eq!(sphere.contains(DVec3::X).unwrap(), Containment::OnBoundary); // a mesh vertex
/// // The ray from this point runs exactly through mesh vertices and edges: no re-casting needed.
/// assert_eq!(sphere.contains(DVec3::new(-0.5, 0.0, 0.0)).unwrap(), Containment::Inside);
/// ```
#[derive(Debug, Clone)]
pub struct RayCrossing {
    mesh: TriMesh,
    bbox: Aabb,
    faces: Vec<Face>,
    grid: ProjectedGrid,
}

impl RayCrossing {
    /// Prepares a closed mesh.
    ///
    /// # Errors
    /// [`RayCrossError::NotSolid`] for an open, non-manifold or inconsistently oriented mesh or
    /// one of zero signed volume (see [`TriMesh::require_solid`]); inward-facing meshes are
    /// accepted.
    ///
    /// ```
    /// use geometry_core::{TriMesh, DVec3};
    /// use raycross::{RayCrossError, RayCrossing};
    /// let open = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0, 1, 2]]).unwrap();
    /// assert!(matches!(RayCrossing::new(open), Err(RayCrossError::NotSolid(_))));
    /// ```
    pub fn new(mesh: TriMesh) -> Result<Self, RayCrossError> {
        require_closed(&mesh)?;
        let faces: Vec<Face> = mesh
            .triangles()
            .map(|t| Face {
                corners: [t.a, t.b, t.c],
                yz_box: [
                    t.a.y.min(t.b.y).min(t.c.y),
                    t.a.z.min(t.b.z).min(t.c.z),
                    t.a.y.max(t.b.y).max(t.c.y),
                    t.a.z.max(t.b.z).max(t.c.z),
                ],
                area: orient2d(DVec2::new(t.a.y, t.a.z), DVec2::new(t.b.y, t.b.z), DVec2::new(t.c.y, t.c.z)),
                x_range: [t.a.x.min(t.b.x).min(t.c.x), t.a.x.max(t.b.x).max(t.c.x)],
            })
            .collect();
        let bbox = mesh.bounding_box();
        let grid = ProjectedGrid::build(&faces, &bbox);
        Ok(Self { mesh, bbox, faces, grid })
    }

    /// The mesh.
    ///
    /// ```
    /// use geometry_core::generators::octa_sphere;
    /// use raycross::RayCrossing;
    /// assert_eq!(RayCrossing::new(octa_sphere(1).unwrap()).unwrap().mesh().faces().len(), 32);
    /// ```
    pub fn mesh(&self) -> &TriMesh {
        &self.mesh
    }

    /// Classifies a finite point.
    fn classify(&self, p: DVec3) -> Containment {
        if !self.bbox.contains_point(p) {
            return Containment::Outside;
        }
        let q = DVec2::new(p.y, p.z);
        // Both halves of the perturbed line through P cross the closed surface with the same
        // parity, so cast the half towards the nearer side of the box: fewer faces to test.
        let forward = self.bbox.max.x - p.x <= p.x - self.bbox.min.x;
        let mut crossings = 0u32;
        for &f in self.grid.candidates(q) {
            let face = &self.faces[f as usize];
            let [y0, z0, y1, z1] = face.yz_box;
            if q.x < y0 || q.x > y1 || q.y < z0 || q.y > z1 {
                continue;
            }
            let [x0, x1] = face.x_range;
            // A face wholly behind the ray cannot be crossed, and P cannot lie on it.
            if (forward && x1 < p.x) || (!forward && x0 > p.x) {
                continue;
            }
            // A face wholly ahead is crossed exactly when the perturbed line meets it: no
            // orient3d is needed (P is strictly on the side of its plane that the ray leaves).
            if (forward && x0 > p.x) || (!forward && x1 < p.x) {
                if matches!(project_test(face, q), Projected::Inside(_)) {
                    crossings += 1;
                }
                continue;
            }
            match face_test(face, p, q, forward) {
                FaceTest::Miss => {}
                FaceTest::Cross => crossings += 1,
                FaceTest::OnFace => return Containment::OnBoundary,
            }
        }
        if crossings % 2 == 1 { Containment::Inside } else { Containment::Outside }
    }

    /// Classifies points that share `(y, z)` (one ray line), sorted by `x`: the candidate faces
    /// and their projected tests are computed once for the whole line; each point then needs one
    /// `orient3d` per face that the line crosses.
    fn classify_line(&self, points: &[(usize, DVec3)], out: &mut [Containment]) {
        let p0 = points[0].1;
        let q = DVec2::new(p0.y, p0.z);
        // Faces whose closed projection contains q, with whether the perturbed ray crosses them.
        let mut crossing_faces: Vec<(usize, Sign)> = Vec::new();
        let mut touching_faces: Vec<usize> = Vec::new();
        if q.x >= self.bbox.min.y
            && q.x <= self.bbox.max.y
            && q.y >= self.bbox.min.z
            && q.y <= self.bbox.max.z
        {
            for &f in self.grid.candidates(q) {
                let face = &self.faces[f as usize];
                let [y0, z0, y1, z1] = face.yz_box;
                if q.x < y0 || q.x > y1 || q.y < z0 || q.y > z1 {
                    continue;
                }
                match project_test(face, q) {
                    Projected::Outside => {}
                    Projected::EdgeOn | Projected::OnBoundaryOnly => touching_faces.push(f as usize),
                    Projected::Inside(area) => crossing_faces.push((f as usize, area)),
                }
            }
        }
        for &(index, p) in points {
            out[index] = if !self.bbox.contains_point(p) {
                Containment::Outside
            } else if touching_faces.iter().any(|&f| {
                let [a, b, c] = self.faces[f].corners;
                on_triangle(a, b, c, p)
            }) {
                Containment::OnBoundary
            } else {
                let mut crossings = 0u32;
                let mut on_face = false;
                for &(f, area) in &crossing_faces {
                    let face = &self.faces[f];
                    // Wholly behind: not crossed, P not on it; wholly ahead: crossed.
                    if face.x_range[1] < p.x {
                        continue;
                    }
                    if face.x_range[0] > p.x {
                        crossings += 1;
                        continue;
                    }
                    let [a, b, c] = face.corners;
                    let s = orient3d(a, b, c, p);
                    if s == Sign::Zero {
                        on_face = true;
                        break;
                    }
                    if s == area.flip() {
                        crossings += 1;
                    }
                }
                if on_face {
                    Containment::OnBoundary
                } else if crossings % 2 == 1 {
                    Containment::Inside
                } else {
                    Containment::Outside
                }
            };
        }
    }
}

/// Checks what ray crossing needs of a mesh: closed, edge-manifold, consistently oriented,
/// non-zero volume (either orientation).
pub(crate) fn require_closed(mesh: &TriMesh) -> Result<(), RayCrossError> {
    match mesh.require_solid() {
        Ok(()) | Err(geometry_core::SolidError::InwardFacing { .. }) => Ok(()),
        Err(e) => Err(RayCrossError::NotSolid(e)),
    }
}

enum FaceTest {
    Miss,
    Cross,
    OnFace,
}

/// Where `q` lies relative to a face's projection.
enum Projected {
    Outside,
    /// The face is edge-on (zero projected area): the perturbed ray misses it, a point may lie on it.
    EdgeOn,
    /// `q` is on the closed projection but the perturbed point is outside: only a point lying on
    /// the face matters.
    OnBoundaryOnly,
    /// The perturbed point is inside; carries the sign of the projected area.
    Inside(Sign),
}

/// The symbolically perturbed sign of `orient2d(u, v, q + (ε, ε²))` when the exact one is zero.
#[inline]
fn perturbed(u: DVec2, v: DVec2) -> Sign {
    if u.y != v.y {
        if u.y > v.y { Sign::Positive } else { Sign::Negative }
    } else if v.x > u.x {
        Sign::Positive
    } else {
        Sign::Negative
    }
}

#[inline]
fn project_test(face: &Face, q: DVec2) -> Projected {
    let [a, b, c] = face.corners;
    let (a2, b2, c2) = (DVec2::new(a.y, a.z), DVec2::new(b.y, b.z), DVec2::new(c.y, c.z));
    let area = face.area;
    if area == Sign::Zero {
        return Projected::EdgeOn;
    }
    let against = area.flip();
    // Evaluate lazily: most candidates are rejected by the first edge or two.
    let o0 = orient2d(a2, b2, q);
    if o0 == against {
        return Projected::Outside;
    }
    let o1 = orient2d(b2, c2, q);
    if o1 == against {
        return Projected::Outside;
    }
    let o2 = orient2d(c2, a2, q);
    if o2 == against {
        return Projected::Outside;
    }
    let o = [o0, o1, o2];
    let edges = [(a2, b2), (b2, c2), (c2, a2)];
    let inside_perturbed =
        o.iter().zip(edges).all(|(&s, (u, v))| if s == Sign::Zero { perturbed(u, v) == area } else { true });
    if inside_perturbed { Projected::Inside(area) } else { Projected::OnBoundaryOnly }
}

#[inline]
/// The test for one face and a ray along `+x` (`forward`) or `-x`: the `+x` ray crosses when
/// `P` is behind the plane (`s = -A`), the `-x` ray when it is in front (`s = A`).
fn face_test(face: &Face, p: DVec3, q: DVec2, forward: bool) -> FaceTest {
    let [a, b, c] = face.corners;
    match project_test(face, q) {
        Projected::Outside => FaceTest::Miss,
        Projected::EdgeOn => {
            if on_triangle(a, b, c, p) {
                FaceTest::OnFace
            } else {
                FaceTest::Miss
            }
        }
        Projected::OnBoundaryOnly => {
            if orient3d(a, b, c, p) == Sign::Zero {
                FaceTest::OnFace
            } else {
                FaceTest::Miss
            }
        }
        Projected::Inside(area) => match orient3d(a, b, c, p) {
            Sign::Zero => FaceTest::OnFace,
            s if (s == area.flip()) == forward => FaceTest::Cross,
            _ => FaceTest::Miss,
        },
    }
}

impl PointContainment for RayCrossing {
    type Error = RayCrossError;

    fn contains(&self, point: DVec3) -> Result<Containment, RayCrossError> {
        crate::error::check_points(&[point])?;
        Ok(self.classify(point))
    }

    /// Classifies many points in parallel. Consecutive points with equal `(y, z)` share one ray
    /// line and are classified together; the result equals calling `contains` on each.
    fn contains_batch(&self, points: &[DVec3]) -> Result<Vec<Containment>, RayCrossError> {
        crate::error::check_points(points)?;
        // Runs of consecutive points with the same (y, z) bits share one ray line (regular grids
        // generated x-fastest come as such runs); a scattered point is a run of one.
        let order: Vec<(usize, DVec3)> = points.iter().copied().enumerate().collect();
        let key = |p: &DVec3| (p.y.to_bits(), p.z.to_bits());
        let mut lines: Vec<&[(usize, DVec3)]> = order.chunk_by(|a, b| key(&a.1) == key(&b.1)).collect();
        // Visit the lines in the order of their grid cells: neighbouring queries then touch the
        // same faces, which stay in cache (worth ~2× for scattered points on large meshes).
        lines.par_sort_by_cached_key(|line| self.grid.cell_key(DVec2::new(line[0].1.y, line[0].1.z)));
        let mut out = vec![Containment::Outside; points.len()];
        // Lines in chunks, so that a batch of scattered points (one point per line) costs one
        // allocation per chunk, not per point.
        let results: Vec<Vec<(usize, Containment)>> = lines
            .par_chunks(256)
            .map(|chunk| {
                let mut done = Vec::with_capacity(chunk.iter().map(|l| l.len()).sum());
                let mut local = Vec::new();
                for line in chunk {
                    if let [(i, p)] = line {
                        done.push((*i, self.classify(*p)));
                    } else {
                        local.clear();
                        local.resize(line.len(), Containment::Outside);
                        let indexed: Vec<(usize, DVec3)> =
                            line.iter().enumerate().map(|(k, &(_, p))| (k, p)).collect();
                        self.classify_line(&indexed, &mut local);
                        done.extend(line.iter().zip(&local).map(|(&(i, _), &c)| (i, c)));
                    }
                }
                done
            })
            .collect();
        for (i, c) in results.into_iter().flatten() {
            out[i] = c;
        }
        Ok(out)
    }
}

/// A uniform grid over the yz-bounding box of the mesh; each cell lists the faces whose
/// projected bounding box meets it (closed intervals on both sides, with one monotone
/// coordinate-to-cell map, so a query point finds every face whose projected box contains it).
#[derive(Debug, Clone)]
struct ProjectedGrid {
    min: DVec2,
    inv_cell: DVec2,
    dims: [usize; 2],
    starts: Vec<u32>,
    faces: Vec<u32>,
}

impl ProjectedGrid {
    fn build(faces: &[Face], bbox: &Aabb) -> Self {
        let min = DVec2::new(bbox.min.y, bbox.min.z);
        let extent =
            DVec2::new(bbox.max.y - bbox.min.y, bbox.max.z - bbox.min.z).max(DVec2::splat(f64::MIN_POSITIVE));
        // About one cell per face, shaped like the projected box.
        let target = (faces.len() as f64).max(1.0);
        let aspect = extent.x / extent.y;
        let ny = (target * aspect).sqrt().clamp(1.0, 4096.0).round() as usize;
        let nz = (target / aspect).sqrt().clamp(1.0, 4096.0).round() as usize;
        let dims = [ny.max(1), nz.max(1)];
        let inv_cell = DVec2::new(dims[0] as f64 / extent.x, dims[1] as f64 / extent.y);
        let mut grid =
            Self { min, inv_cell, dims, starts: vec![0; dims[0] * dims[1] + 1], faces: Vec::new() };
        let ranges: Vec<[usize; 4]> = faces
            .iter()
            .map(|f| {
                let [y0, z0, y1, z1] = f.yz_box;
                [grid.cell(y0, 0), grid.cell(z0, 1), grid.cell(y1, 0), grid.cell(z1, 1)]
            })
            .collect();
        for &[i0, j0, i1, j1] in &ranges {
            for j in j0..=j1 {
                for i in i0..=i1 {
                    grid.starts[j * dims[0] + i + 1] += 1;
                }
            }
        }
        for k in 1..grid.starts.len() {
            grid.starts[k] += grid.starts[k - 1];
        }
        let mut fill = grid.starts.clone();
        grid.faces = vec![0; *grid.starts.last().expect("non-empty") as usize];
        for (f, &[i0, j0, i1, j1]) in ranges.iter().enumerate() {
            for j in j0..=j1 {
                for i in i0..=i1 {
                    let slot = &mut fill[j * dims[0] + i];
                    grid.faces[*slot as usize] = f as u32;
                    *slot += 1;
                }
            }
        }
        grid
    }

    /// Cell index along `axis` (0: y, 1: z), clamped: a monotone map of the coordinate.
    #[inline]
    fn cell(&self, v: f64, axis: usize) -> usize {
        let t = (v - self.min[axis]) * self.inv_cell[axis];
        if t <= 0.0 { 0 } else { (t as usize).min(self.dims[axis] - 1) }
    }

    #[inline]
    fn cell_key(&self, q: DVec2) -> usize {
        self.cell(q.y, 1) * self.dims[0] + self.cell(q.x, 0)
    }

    #[inline]
    fn candidates(&self, q: DVec2) -> &[u32] {
        let k = self.cell_key(q);
        &self.faces[self.starts[k] as usize..self.starts[k + 1] as usize]
    }
}
