//! The paper's method (Muth et al. 2006, §2.2 and Fig. 6, after O'Rourke's InPolyhedron).
//!
//! For a point `P` inside the body's bounding box: pick a random point `R` outside the box and
//! test the segment `PR` against every face whose bounding box the segment's box meets. For a
//! face `f` with normal `n`, the ratio `r = (F − P)·n / (R − P)·n` (eq. 28) locates the crossing
//! of the line with `f`'s plane; here its cases are decided by the exact signs of
//! `orient3d(f, P)` and `orient3d(f, R)` rather than by dividing rounded dot products:
//! * both zero (`d1 = d2 = 0`, the segment lies in the plane): degeneracy;
//! * `P` on the plane (`r = 0`): the "area signs" of `P` projected along the dominant axis of `n`
//!   decide whether `P` lies on `f` (inside, on an edge or a vertex: `OnBoundary`);
//! * `P` and `R` strictly on opposite sides (`0 < r < 1`): the "volume signs" of the three
//!   tetrahedra `(P, R, F_i, F_{i+1})`; all equal: a crossing; any zero: degeneracy;
//! * otherwise (`r < 0`, `r ≥ 1`, or parallel): no crossing.
//!
//! On a degeneracy the ray is discarded and a new random one cast (the paper's rule). An odd
//! number of crossings means inside. Rays cast and degeneracies met are counted.

use crate::RayCrossError;
use crate::fast::require_closed;
use contact_core::{Containment, PointContainment};
use geometry_core::predicates::{drop_axis, on_triangle};
use geometry_core::predicates::{orient2d, orient3d};
use geometry_core::{Aabb, DVec3, Sign, TriMesh};
use std::sync::atomic::{AtomicU64, Ordering};

/// How many random rays paper mode casts for one point before giving up (each ray is
/// degenerate with probability ~0 unless the input is adversarial).
const MAX_RAYS: u32 = 64;

/// Counters of a [`PaperRayCrossing`].
///
/// ```
/// use contact_core::PointContainment;
/// use geometry_core::{DVec3, generators::octa_sphere};
/// use raycross::{PaperRayCrossing, RayStats};
/// let ball = PaperRayCrossing::new(octa_sphere(2).unwrap()).unwrap();
/// assert_eq!(ball.stats(), RayStats::default());
/// ball.contains_batch(&[DVec3::ZERO, DVec3::splat(0.2), DVec3::splat(5.0)]).unwrap();
/// let s = ball.stats();
/// assert_eq!(s.points, 2); // the point outside the bounding box casts no ray
/// // Every counted point casts rays until one is not discarded.
/// assert_eq!(s.rays, s.points + s.degeneracies);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RayStats {
    /// Points classified by casting rays (points outside the box are not counted).
    pub points: u64,
    /// Rays cast (at least one per counted point).
    pub rays: u64,
    /// Rays discarded because of a degeneracy.
    pub degeneracies: u64,
}

/// The paper's ray-crossing test (see the module docs).
///
/// Random rays come from a hash of the seed and the point's coordinates, so results and counters
/// are reproducible and independent of thread scheduling.
///
/// ```
/// use contact_core::{Containment, PointContainment};
/// use geometry_core::{generators::octa_sphere, DVec3};
/// use raycross::PaperRayCrossing;
///
/// let sphere = PaperRayCrossing::new(octa_sphere(3).unwrap()).unwrap();
/// assert_eq!(sphere.contains(DVec3::splat(0.1)).unwrap(), Containment::Inside);
/// assert_eq!(sphere.contains(DVec3::Y).unwrap(), Containment::OnBoundary);
/// assert_eq!(sphere.contains(DVec3::splat(0.7)).unwrap(), Containment::Outside);
/// let stats = sphere.stats();
/// assert_eq!(stats.points, 3);
/// assert!(stats.rays >= 3);
/// ```
#[derive(Debug)]
pub struct PaperRayCrossing {
    mesh: TriMesh,
    bbox: Aabb,
    faces: Vec<([DVec3; 3], Aabb)>,
    seed: u64,
    points: AtomicU64,
    rays: AtomicU64,
    degeneracies: AtomicU64,
}

enum RayOutcome {
    Crossings(u32),
    OnBoundary,
    Degenerate,
}

impl PaperRayCrossing {
    /// Prepares a closed mesh with the default seed.
    ///
    /// # Errors
    /// As [`RayCrossing::new`](crate::RayCrossing::new).
    ///
    /// ```
    /// use contact_core::{Containment, PointContainment};
    /// use geometry_core::{DVec3, generators::octa_sphere};
    /// use raycross::PaperRayCrossing;
    /// let ball = PaperRayCrossing::new(octa_sphere(2).unwrap()).unwrap();
    /// let seeded = PaperRayCrossing::with_seed(octa_sphere(2).unwrap(), 7).unwrap();
    /// // Inside, a mesh vertex, and outside (|(0.9, 0.9, 0.9)| ≈ 1.56).
    /// let points = [DVec3::ZERO, DVec3::X, DVec3::splat(0.9)];
    /// let expected = [Containment::Inside, Containment::OnBoundary, Containment::Outside];
    /// assert_eq!(ball.contains_batch(&points).unwrap(), expected);
    /// assert_eq!(seeded.contains_batch(&points).unwrap(), expected); // the seed changes no answer
    /// ```
    pub fn new(mesh: TriMesh) -> Result<Self, RayCrossError> {
        Self::with_seed(mesh, 0x005E_ED0F_2006)
    }

    /// Prepares a closed mesh; `seed` drives the random rays.
    ///
    /// # Errors
    /// As [`RayCrossing::new`](crate::RayCrossing::new).
    ///
    /// ```
    /// use geometry_core::generators::octa_sphere;
    /// use raycross::PaperRayCrossing;
    /// assert!(PaperRayCrossing::with_seed(octa_sphere(1).unwrap(), 7).is_ok());
    /// ```
    pub fn with_seed(mesh: TriMesh, seed: u64) -> Result<Self, RayCrossError> {
        require_closed(&mesh)?;
        let faces = mesh.triangles().map(|t| ([t.a, t.b, t.c], t.aabb())).collect();
        Ok(Self {
            bbox: mesh.bounding_box(),
            mesh,
            faces,
            seed,
            points: AtomicU64::new(0),
            rays: AtomicU64::new(0),
            degeneracies: AtomicU64::new(0),
        })
    }

    /// The mesh.
    ///
    /// ```
    /// use geometry_core::generators::octa_sphere;
    /// use raycross::PaperRayCrossing;
    /// let ball = PaperRayCrossing::new(octa_sphere(1).unwrap()).unwrap();
    /// assert_eq!(ball.mesh().faces().len(), 8 * 4);
    /// ```
    pub fn mesh(&self) -> &TriMesh {
        &self.mesh
    }

    /// The counters since construction or the last [`reset_stats`](Self::reset_stats).
    ///
    /// ```
    /// use contact_core::PointContainment;
    /// use geometry_core::{DVec3, generators::octa_sphere};
    /// use raycross::PaperRayCrossing;
    /// let ball = PaperRayCrossing::new(octa_sphere(2).unwrap()).unwrap();
    /// ball.contains(DVec3::splat(0.1)).unwrap();
    /// ball.contains(DVec3::splat(0.2)).unwrap();
    /// assert_eq!(ball.stats().points, 2);
    /// assert!(ball.stats().rays >= 2);
    /// ```
    pub fn stats(&self) -> RayStats {
        RayStats {
            points: self.points.load(Ordering::Relaxed),
            rays: self.rays.load(Ordering::Relaxed),
            degeneracies: self.degeneracies.load(Ordering::Relaxed),
        }
    }

    /// Sets the counters to zero.
    ///
    /// ```
    /// use contact_core::PointContainment;
    /// use geometry_core::{DVec3, generators::octa_sphere};
    /// use raycross::{PaperRayCrossing, RayStats};
    /// let ball = PaperRayCrossing::new(octa_sphere(2).unwrap()).unwrap();
    /// ball.contains(DVec3::splat(0.1)).unwrap();
    /// assert_eq!(ball.stats().points, 1);
    /// ball.reset_stats();
    /// assert_eq!(ball.stats(), RayStats::default());
    /// ```
    pub fn reset_stats(&self) {
        self.points.store(0, Ordering::Relaxed);
        self.rays.store(0, Ordering::Relaxed);
        self.degeneracies.store(0, Ordering::Relaxed);
    }

    fn classify(&self, p: DVec3) -> Result<Containment, RayCrossError> {
        // Fig. 2: points outside the bounding box are discarded.
        if !self.bbox.contains_point(p) {
            return Ok(Containment::Outside);
        }
        self.points.fetch_add(1, Ordering::Relaxed);
        let mut random = SplitMix64::new(self.seed ^ hash_point(p));
        // R at a distance beyond the box from any point of the box.
        let reach = 2.0 * self.bbox.extents().length() + 1.0;
        for ray in 1..=MAX_RAYS {
            self.rays.fetch_add(1, Ordering::Relaxed);
            let r = p + random.unit_vector() * reach;
            match self.cast(p, r) {
                RayOutcome::Crossings(n) => {
                    return Ok(if n % 2 == 1 { Containment::Inside } else { Containment::Outside });
                }
                RayOutcome::OnBoundary => return Ok(Containment::OnBoundary),
                RayOutcome::Degenerate => {
                    self.degeneracies.fetch_add(1, Ordering::Relaxed);
                    if ray == MAX_RAYS {
                        break;
                    }
                }
            }
        }
        Err(RayCrossError::TooManyDegenerateRays { rays: MAX_RAYS })
    }

    /// Tests segment `PR` against every face (Fig. 6).
    fn cast(&self, p: DVec3, r: DVec3) -> RayOutcome {
        let segment_box = Aabb { min: p.min(r), max: p.max(r) };
        let mut crossings = 0;
        for (corners, face_box) in &self.faces {
            if !segment_box.overlaps(face_box) {
                continue;
            }
            let [a, b, c] = *corners;
            let sp = orient3d(a, b, c, p);
            let sr = orient3d(a, b, c, r);
            match (sp, sr) {
                // d1 = d2 = 0: the segment lies in the face's plane.
                (Sign::Zero, Sign::Zero) => return RayOutcome::Degenerate,
                // r = 0: P lies in the plane; area signs decide whether it lies on the face.
                (Sign::Zero, _) if on_triangle_by_area_signs(a, b, c, p) => return RayOutcome::OnBoundary,
                (Sign::Zero, _) => {}
                // 0 < r < 1: the segment crosses the plane; volume signs decide where.
                (s, t) if t == s.flip() => {
                    let v = [orient3d(p, r, a, b), orient3d(p, r, b, c), orient3d(p, r, c, a)];
                    if v.contains(&Sign::Zero) {
                        return RayOutcome::Degenerate;
                    }
                    if v[0] == v[1] && v[1] == v[2] {
                        crossings += 1;
                    }
                }
                // r < 0, r >= 1, or parallel: no crossing.
                _ => {}
            }
        }
        RayOutcome::Crossings(crossings)
    }
}

/// The paper's "area signs" (Fig. 4): project along the dominant axis of the normal and test the
/// point against the three directed edges; inside, on an edge or on a vertex means on the face.
fn on_triangle_by_area_signs(a: DVec3, b: DVec3, c: DVec3, p: DVec3) -> bool {
    let n = (b - a).cross(c - a).abs();
    let axis = if n.x >= n.y && n.x >= n.z {
        0
    } else if n.y >= n.z {
        1
    } else {
        2
    };
    let (a2, b2, c2, p2) = (drop_axis(a, axis), drop_axis(b, axis), drop_axis(c, axis), drop_axis(p, axis));
    let area = orient2d(a2, b2, c2);
    if area == Sign::Zero {
        // The rounded normal picked a projection in which the face is degenerate: fall back to
        // the exact test over all projections.
        return on_triangle(a, b, c, p);
    }
    let against = area.flip();
    orient2d(a2, b2, p2) != against && orient2d(b2, c2, p2) != against && orient2d(c2, a2, p2) != against
}

impl PointContainment for PaperRayCrossing {
    type Error = RayCrossError;

    fn contains(&self, point: DVec3) -> Result<Containment, RayCrossError> {
        crate::error::check_points(&[point])?;
        self.classify(point)
    }

    fn contains_batch(&self, points: &[DVec3]) -> Result<Vec<Containment>, RayCrossError> {
        use rayon::prelude::*;
        crate::error::check_points(points)?;
        points.par_iter().map(|&p| self.classify(p)).collect()
    }
}

fn hash_point(p: DVec3) -> u64 {
    let mut h = SplitMix64::new(p.x.to_bits());
    let a = h.next();
    let mut h = SplitMix64::new(a ^ p.y.to_bits());
    let b = h.next();
    let mut h = SplitMix64::new(b ^ p.z.to_bits());
    h.next()
}

/// SplitMix64 (Steele, Lea & Flood 2014): a tiny, fast, well-distributed generator, enough for
/// random ray directions.
struct SplitMix64(u64);

impl SplitMix64 {
    fn new(seed: u64) -> Self {
        Self(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [-1, 1).
    fn symmetric(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }

    /// A uniformly distributed unit vector (rejection sampling in the unit ball).
    fn unit_vector(&mut self) -> DVec3 {
        loop {
            let v = DVec3::new(self.symmetric(), self.symmetric(), self.symmetric());
            let len2 = v.length_squared();
            if len2 > 1e-6 && len2 <= 1.0 {
                return v / len2.sqrt();
            }
        }
    }
}
