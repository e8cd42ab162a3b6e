//! The fast multipole evaluator of `J` (paper §2.1.2).
//!
//! **Setup** (depends on the mesh only, in the body's own frame): an octree over the triangle
//! centroids (the mesh cluster tree); for every leaf the multipole coefficients of the double
//! layer density (Eq. 22),
//!
//! ```text
//! M_n^m(C) = −(1/4π) Σ_τ ∫_τ n_τ·∇_y conj(R_n^m(y − C)) ds_y,
//! n·∇R_n^m(u) = Σ_{t=−1..1} R_1^t(n) R_{n−1}^{m−t}(u)      (the regular addition theorem),
//! ```
//!
//! integrated exactly by a triangle rule of degree `p − 1` (the integrand is a polynomial; a
//! symmetric 6-point rule at the default `p = 5`, see `triangle_rule_of_degree`). Being linear
//! in `n_τ`, the integrand is summed per axis over a leaf's triangles and combined with
//! `R_1^t` once per leaf; only the orders `m ≥ 0` are summed, the others follow by symmetry.
//! Then M2M up the tree (Eq. 23).
//!
//! **Evaluation** of a batch of points: an octree over the points (the evaluation cluster
//! tree); a dual traversal that converts a mesh cluster `ω` into a local expansion of an
//! evaluation cluster `σ` (M2L, Eq. 24) at the highest level where they are admissible,
//! `dist(C(ω), C(σ)) ≥ (d + 1) max(r(ω), r(σ))` (Eq. 16), and otherwise descends into the
//! larger of the two, leaving pairs of leaves as the nearfield; L2L down the evaluation tree
//! (Eq. 25); at each point the local expansion plus the exact nearfield (Eq. 20). An evaluation
//! cluster holding fewer than `(p + 1)²/2` points does not convert an admissible mesh cluster
//! but evaluates its multipole expansion at each of its points (`k·(p + 1)²` work against
//! about `(p + 1)⁴/2` for M2L, which then needs no L2L either).
//!
//! **Error control.** For each point the truncation error is bounded by summing, over the
//! mesh clusters converted for it, the kernel bound of Eq. 26 times the cluster's area over `4π`
//! (Eq. 27 per interaction). A point is classified from `J̃` when `|J̃ − ½|` exceeds that bound
//! (certified), or exceeds [`ACCEPTANCE_MARGIN`] = ¼ when the bound is larger, at `p ≥ 2`
//! ([`MIN_ACCEPTANCE_ORDER`]) and `d ≥ 2` ([`MIN_ACCEPTANCE_SEPARATION`]): the bound is a worst
//! case far above the actual error, whose largest measured value there is `1.7·10⁻²` (see
//! [`ACCEPTANCE_MARGIN`]). Otherwise only the certified bound accepts. Every other point, and
//! every point lying exactly on a nearfield triangle, is re-evaluated exactly. The guarantee is
//! therefore rigorous for certified points and empirical (with a margin of 15× the worst
//! measured error) for the rest; the benchmark reports both counts.
//!
//! **Grouping** (beyond the paper, [`FmmConfig::group_clear_regions`]): classification first
//! joins points that lie in one connected region clear of the surface, where `J` is constant,
//! and evaluates one point per group as above (`regions` module). The clearance tests are
//! geometric, with a margin far above their rounding error, so grouping never changes an
//! answer; it only saves evaluations of points far from the surface. The representatives are
//! evaluated in the evaluation tree of all the points, each cluster sized by the
//! representatives it holds: the work never exceeds that of evaluating every point (a tree
//! built over the representatives alone, mostly near the surface, aligns worse with the
//! mesh tree and was measured slower than evaluating all points on sparse grids).

use crate::DlpError;
use crate::exact::{AngleSum, Parity, exact_containment, tan_half_solid_angle};
use crate::harmonics::{
    Complex, evaluate_real_multipole, fill_negative_orders, index, l2l, m2l, m2m, regular,
    regular_nonnegative, size,
};
use crate::octree::Octree;
use crate::quadrature::triangle_rule_of_degree;
use crate::regions::{MeshClusters, group_points};
use contact_core::Containment;
use geometry_core::predicates::on_triangle;
use geometry_core::{DAffine3, DVec3, TriMesh};
use rayon::prelude::*;

/// Meshes with fewer triangles classify every point without grouping.
const GROUPING_MIN_TRIANGLES: usize = 16;

/// `|J̃ − ½|` beyond which a point is classified from `J̃` even when the Eq. 26–27 bound is
/// larger (the bound is a worst case that ignores the cancellation between the triangles of a
/// closed surface, and exceeds the measured errors by 10²–10⁵). Applied only at
/// `p ≥` [`MIN_ACCEPTANCE_ORDER`] and `d ≥` [`MIN_ACCEPTANCE_SEPARATION`]. The largest error
/// measured there, at the worst case `p = 2`, over 4000 random points around each of an
/// octahedral sphere (level 4), the smallest foam, a flattened sphere and two plates 0.001
/// apart, leaf sizes 1–128 and every tree depth rule: `1.7·10⁻²` at `d = 2` and `6.5·10⁻³` at
/// `d = 3` (the foam); a misclassification would need 15 times that. Points closer to ½ than
/// this (and than their bound) are re-evaluated exactly.
///
/// ```
/// use contact_core::PointContainment;
/// use fmm_dlp::{ACCEPTANCE_MARGIN, ExactDlp, FmmConfig, FmmDlp};
/// use fmm_dlp::{MIN_ACCEPTANCE_ORDER as order, MIN_ACCEPTANCE_SEPARATION as separation};
/// use geometry_core::{DVec3, generators::octa_sphere};
/// assert_eq!(ACCEPTANCE_MARGIN, 0.25);
/// // At the lowest order and separation where the margin applies, answers stay exact.
/// let config = FmmConfig { order, separation, ..FmmConfig::default() };
/// let fmm = FmmDlp::new(octa_sphere(3).unwrap(), config).unwrap();
/// let exact = ExactDlp::new(octa_sphere(3).unwrap()).unwrap();
/// let points: Vec<_> = (0..60).map(|i| DVec3::new(f64::from(i) * 0.05 - 1.5, 0.1, 0.2)).collect();
/// assert_eq!(fmm.classify(&points).unwrap(), exact.contains_batch(&points).unwrap());
/// ```
pub const ACCEPTANCE_MARGIN: f64 = 0.25;

/// The smallest admissibility parameter `d` at which [`ACCEPTANCE_MARGIN`] applies. Closer
/// to 1, clusters barely clear of each other are expanded and the error grows: up to `0.095`
/// was measured at `d = 1.01`, `p = 2` (the smallest foam, one triangle per leaf), within 3× of
/// the margin. There only the certified bound accepts `J̃`.
///
/// ```
/// use contact_core::Containment;
/// use fmm_dlp::{FmmConfig, FmmDlp};
/// use geometry_core::{DVec3, generators::octa_sphere};
/// // Barely separated clusters at order 2: the classification is still exact.
/// let config = FmmConfig { order: 2, separation: 1.01, ..FmmConfig::default() };
/// let fmm = FmmDlp::new(octa_sphere(4).unwrap(), config).unwrap();
/// let points = [DVec3::new(0.1, 0.2, 0.3), DVec3::new(0.99, 0.0, 0.0), DVec3::new(1.2, 0.0, 0.0)];
/// assert_eq!(fmm.classify(&points).unwrap(), [Containment::Inside, Containment::Inside, Containment::Outside]);
/// ```
pub const MIN_ACCEPTANCE_SEPARATION: f64 = 2.0;

/// The lowest expansion order at which [`ACCEPTANCE_MARGIN`] applies. Below it the measured
/// error is not small: at `p = 0` the farfield vanishes altogether (a closed surface's double
/// layer has no monopole), so `J̃` is near 0 for points deep inside and every one of them was
/// classified outside; at `p = 1` errors of 0.29 were measured. There only the certified bound
/// accepts `J̃`, and the other points are evaluated exactly.
///
/// ```
/// use contact_core::Containment;
/// use fmm_dlp::{FmmConfig, FmmDlp};
/// use geometry_core::{DVec3, generators::octa_sphere};
/// // Order 0: no farfield at all, yet the classification stays exact.
/// let fmm = FmmDlp::new(octa_sphere(4).unwrap(), FmmConfig { order: 0, ..FmmConfig::default() }).unwrap();
/// let points = [DVec3::new(0.1, 0.2, 0.3), DVec3::new(2.0, 0.0, 0.0)];
/// assert_eq!(fmm.classify(&points).unwrap(), [Containment::Inside, Containment::Outside]);
/// ```
pub const MIN_ACCEPTANCE_ORDER: usize = 2;

/// How deep the mesh cluster tree goes (paper §3).
///
/// ```
/// use contact_core::Containment::{Inside, Outside};
/// use fmm_dlp::{DlpError, FmmConfig, FmmDlp, TreeDepth};
/// use geometry_core::{DVec3, generators::octa_sphere};
/// let points = [DVec3::ZERO, DVec3::new(0.3, -0.2, 0.5), DVec3::ONE];
/// // The depth changes the cost, not the answers.
/// for depth in [
///     TreeDepth::PreChosen,
///     TreeDepth::WellChosen { points: points.len() },
///     TreeDepth::Fixed(8),
///     TreeDepth::Automatic,
/// ] {
///     let fmm = FmmDlp::new(octa_sphere(3).unwrap(), FmmConfig { depth, ..FmmConfig::default() });
///     assert_eq!(fmm.unwrap().classify(&points).unwrap(), [Inside, Inside, Outside]);
/// }
/// let empty_leaves = FmmConfig { depth: TreeDepth::Fixed(0), ..FmmConfig::default() };
/// let err = FmmDlp::new(octa_sphere(1).unwrap(), empty_leaves).unwrap_err();
/// assert!(matches!(err, DlpError::InvalidConfig { .. }));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TreeDepth {
    /// Pre-chosen: from the number of triangles `N` only. Leaves hold at most
    /// `max(8, ⌈(log₂ N)² / 16⌉)` triangles (the paper's `O(log² N)` leaves; the constant was
    /// measured best among 8–64 on the 131 072-triangle sphere and the 118 368-triangle foam).
    PreChosen,
    /// Well chosen: from `N` and the number of evaluation points `M` expected per batch, by the
    /// cost model of [`leaf_size_for`].
    WellChosen {
        /// Evaluation points expected per batch.
        points: usize,
    },
    /// Leaves of at most this many triangles.
    Fixed(usize),
    /// Automatic, beyond the paper: the mesh tree is built as for [`PreChosen`](Self::PreChosen)
    /// (so setup needs no knowledge of the points), and each batch cuts it at the level that
    /// the cost model of [`FmmDlp::cut_level`] prefers for the batch's size, treating the
    /// clusters there as leaves; it keeps the full depth unless the model predicts half the
    /// cost, so it is `PreChosen` wherever the model is unsure.
    Automatic,
}

/// Settings of the fast multipole evaluator.
///
/// ```
/// use fmm_dlp::{FmmConfig, FmmDlp, TreeDepth};
/// use geometry_core::generators::octa_sphere;
/// let c = FmmConfig::default();
/// assert_eq!((c.order, c.separation, c.depth), (5, 3.0, TreeDepth::PreChosen));
/// assert!(c.points_per_leaf == 8 && c.group_clear_regions);
/// // The order must lie in 0..=30.
/// let sphere = octa_sphere(1).unwrap();
/// assert!(FmmDlp::new(sphere.clone(), FmmConfig { order: 30, ..c }).is_ok());
/// assert!(FmmDlp::new(sphere, FmmConfig { order: 31, ..c }).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FmmConfig {
    /// Expansion degree `p` (0 ..= 30).
    pub order: usize,
    /// Admissibility parameter `d > 1` of Eq. 16.
    pub separation: f64,
    /// Depth of the mesh cluster tree.
    pub depth: TreeDepth,
    /// Evaluation-tree leaves hold at most this many points.
    pub points_per_leaf: usize,
    /// Beyond the paper: [`classify`](FmmDlp::classify) first groups the points that lie in
    /// one ball clear of the surface and evaluates one point per group (`J` is constant there;
    /// see the `regions` module), so that only points near the surface are evaluated one by
    /// one. `false` evaluates every point, as the paper does, and so do meshes of fewer than
    /// 16 triangles, where evaluating a point costs about as much as grouping it. Potentials
    /// ([`evaluate`](FmmDlp::evaluate)) are never grouped.
    pub group_clear_regions: bool,
}

impl Default for FmmConfig {
    /// `p = 5`, `d = 3`, pre-chosen depth, 8 points per evaluation leaf, grouping of points
    /// in regions clear of the surface. With `d = 3` the
    /// Eq. 26–27 bound at `p = 5` stays below ½ for essentially every point, so the exact
    /// fallback is rare; with `d = 2` the bound is too loose to certify points below `p ≈ 12`
    /// (the actual error is far smaller: about `5·10⁻⁴` at `p = 4`).
    fn default() -> Self {
        Self {
            order: 5,
            separation: 3.0,
            depth: TreeDepth::PreChosen,
            points_per_leaf: 8,
            group_clear_regions: true,
        }
    }
}

/// The leaf size (triangles) that the well-chosen depth uses for `triangles` triangles and
/// `points` evaluation points at order `p`: it balances the per-point nearfield, about
/// `27 s` exact triangle terms, against the expansions the leaves need, about `N/s · p⁴`
/// operations for M2M and M2L, i.e. `s = √(N p⁴ / (27 M))`, clamped to `[8, 4096]`.
///
/// ```
/// let few = fmm_dlp::leaf_size_for(131_072, 1_000, 6);
/// let many = fmm_dlp::leaf_size_for(131_072, 512_000, 6);
/// assert!(few > many);
/// ```
pub fn leaf_size_for(triangles: usize, points: usize, p: usize) -> usize {
    let p4 = (p.max(1) as f64).powi(4);
    let s = (triangles as f64 * p4 / (27.0 * points.max(1) as f64)).sqrt();
    (s.round() as usize).clamp(8, 4096)
}

fn pre_chosen_leaf_size(triangles: usize) -> usize {
    let log = (triangles.max(2) as f64).log2();
    ((log * log / 16.0).ceil() as usize).max(8)
}

/// The fast multipole double layer potential of a closed, outward-oriented mesh.
///
/// ```
/// use contact_core::Containment;
/// use fmm_dlp::{FmmConfig, FmmDlp};
/// use geometry_core::{DVec3, generators::octa_sphere};
/// let fmm = FmmDlp::new(octa_sphere(4).unwrap(), FmmConfig::default()).unwrap();
/// let points = [DVec3::ZERO, DVec3::new(0.5, 0.2, 0.1), DVec3::splat(1.5)];
/// let classes = fmm.classify(&points).unwrap();
/// assert_eq!(classes, [Containment::Inside, Containment::Inside, Containment::Outside]);
/// ```
#[derive(Debug, Clone)]
pub struct FmmDlp {
    mesh: TriMesh,
    config: FmmConfig,
    tree: Octree,
    /// Multipole coefficients, `size(p)` per mesh cluster.
    multipoles: Vec<Complex>,
    /// Cluster areas, for the error bound.
    cluster_areas: Vec<f64>,
    /// The triangles' corners in the mesh tree's order, so that a nearfield cluster's triangles
    /// are read contiguously: `corners_in_order[k]` belongs to face `tree.order[k]`.
    corners_in_order: Vec<[DVec3; 3]>,
    /// The largest coordinate magnitude of the mesh's vertices in the unit frame (for the
    /// margin of the regions' distance test).
    scale: f64,
    /// The power of two that maps the body's frame to the unit frame, where the mesh's longest
    /// bounding-box edge lies in `(½, 1]`: the trees, expansions and nearfield corners live
    /// there, so that the powers of lengths in the expansions (`rⁿ`, up to `n = 30`) neither
    /// overflow nor underflow for any mesh in the exact predicates' range. The potential is
    /// scale-invariant, and the scaling is exact.
    unit: f64,
    /// Exact parity for the points whose potential cannot decide them (see `exact_containment`).
    parity: Parity,
}

/// What the evaluation of one batch produced, per point (in the batch's order).
///
/// ```
/// use fmm_dlp::{ExactDlp, FmmConfig, FmmDlp};
/// use geometry_core::{DVec3, generators::octa_sphere};
/// let octahedron = octa_sphere(0).unwrap();
/// let fmm = FmmDlp::new(octahedron.clone(), FmmConfig::default()).unwrap();
/// let exact = ExactDlp::new(octahedron).unwrap();
/// // Inside, on the face x + y + z = 1, and outside.
/// let points = [DVec3::splat(0.1), DVec3::new(0.25, 0.25, 0.5), DVec3::new(2.0, 0.0, 0.0)];
/// let e = fmm.evaluate(&points).unwrap();
/// assert_eq!(e.on_surface, [false, true, false]);
/// for i in [0, 2] {
///     let j = exact.potential(points[i]).unwrap();
///     assert!((e.potentials[i] - j).abs() <= e.error_bounds[i] + 1e-12);
/// }
/// ```
#[derive(Debug, Clone, Default)]
pub struct FmmEvaluation {
    /// The approximate potential `J̃`.
    pub potentials: Vec<f64>,
    /// The bound on `|J − J̃|` from Eq. 26–27.
    pub error_bounds: Vec<f64>,
    /// Whether the point lies exactly on a triangle of its nearfield.
    pub on_surface: Vec<bool>,
}

impl FmmDlp {
    /// Builds the mesh cluster tree and the multipole expansions.
    ///
    /// # Errors
    /// [`DlpError::NotSolid`] for a mesh that does not bound a solid;
    /// [`DlpError::InvalidConfig`] for `order > 30`, `separation <= 1` (or NaN), a zero leaf
    /// size or zero points per leaf.
    ///
    /// ```
    /// use fmm_dlp::{DlpError, FmmConfig, FmmDlp};
    /// use geometry_core::generators::octa_sphere;
    /// let bad = FmmConfig { separation: 1.0, ..FmmConfig::default() };
    /// assert!(matches!(FmmDlp::new(octa_sphere(1).unwrap(), bad), Err(DlpError::InvalidConfig { .. })));
    /// ```
    pub fn new(mesh: TriMesh, config: FmmConfig) -> Result<Self, DlpError> {
        mesh.require_solid().map_err(DlpError::NotSolid)?;
        if config.order > 30 {
            return Err(DlpError::InvalidConfig { what: "order must be at most 30" });
        }
        if config.separation.is_nan() || config.separation <= 1.0 || !config.separation.is_finite() {
            return Err(DlpError::InvalidConfig { what: "separation d must be finite and > 1" });
        }
        if config.points_per_leaf == 0 || config.depth == TreeDepth::Fixed(0) {
            return Err(DlpError::InvalidConfig { what: "leaf sizes must be positive" });
        }
        let n = mesh.faces().len();
        let leaf = match config.depth {
            TreeDepth::PreChosen | TreeDepth::Automatic => pre_chosen_leaf_size(n),
            TreeDepth::WellChosen { points } => leaf_size_for(n, points, config.order),
            TreeDepth::Fixed(s) => s,
        };
        let unit = unit_scale(mesh.report().bounding_box().longest_edge());
        let vertices: Vec<DVec3> = mesh.vertices().iter().map(|&v| v * unit).collect();
        let faces = mesh.faces();
        let corners = |f: usize| faces[f].map(|v| vertices[v as usize]);
        let centroids: Vec<DVec3> = (0..n).map(|f| corners(f).iter().sum::<DVec3>() / 3.0).collect();
        let tree = Octree::build(
            &centroids,
            |f, c| corners(f).iter().map(|v| (*v - c).length()).fold(0.0, f64::max),
            leaf,
            24,
        );
        let corners_in_order = tree.order.iter().map(|&f| corners(f as usize)).collect();
        let scale = vertices.iter().map(|v| v.abs().max_element()).fold(0.0, f64::max);
        let mut fmm = Self {
            mesh,
            config,
            tree,
            multipoles: Vec::new(),
            cluster_areas: Vec::new(),
            corners_in_order,
            scale,
            unit,
            parity: Parity::default(),
        };
        fmm.upward_pass();
        Ok(fmm)
    }

    /// The settings.
    ///
    /// ```
    /// use fmm_dlp::{FmmConfig, FmmDlp};
    /// use geometry_core::generators::octa_sphere;
    /// let fmm = FmmDlp::new(octa_sphere(1).unwrap(), FmmConfig::default()).unwrap();
    /// assert_eq!(fmm.config().order, 5);
    /// ```
    pub fn config(&self) -> &FmmConfig {
        &self.config
    }

    /// Number of clusters and depth of the mesh cluster tree.
    ///
    /// ```
    /// use fmm_dlp::{FmmConfig, FmmDlp, TreeDepth};
    /// use geometry_core::generators::octa_sphere;
    /// let config = FmmConfig { depth: TreeDepth::Fixed(8), ..FmmConfig::default() };
    /// let (clusters, depth) = FmmDlp::new(octa_sphere(3).unwrap(), config).unwrap().tree_size();
    /// assert!(clusters > 8 && depth >= 2);
    /// ```
    pub fn tree_size(&self) -> (usize, u32) {
        (self.tree.nodes.len(), self.tree.depth())
    }

    /// The corners of `face` in the unit frame.
    fn corners(&self, face: u32) -> [DVec3; 3] {
        let vertices = self.mesh.vertices();
        self.mesh.faces()[face as usize].map(|v| vertices[v as usize] * self.unit)
    }

    /// `points` mapped from the body's frame to the unit frame (exactly).
    fn to_unit(&self, points: &[DVec3]) -> Vec<DVec3> {
        points.iter().map(|&x| x * self.unit).collect()
    }

    /// Leaf coefficients by quadrature (parallel over leaves), then M2M towards the root.
    fn upward_pass(&mut self) {
        let p = self.config.order;
        let width = size(p);
        let rule = triangle_rule_of_degree(p.saturating_sub(1));
        let nodes = &self.tree.nodes;
        let leaves: Vec<usize> = (0..nodes.len()).filter(|&i| nodes[i].is_leaf()).collect();
        let scale = -1.0 / (4.0 * std::f64::consts::PI);
        let leaf_data: Vec<(Vec<Complex>, f64)> = leaves
            .par_iter()
            .map(|&i| {
                let node = &nodes[i];
                let mut coefficients = vec![Complex::default(); width];
                let mut area = 0.0;
                // The coefficients are linear in the (unnormalised) normal: accumulate, per
                // axis, the triangles' moments weighted by that normal component, and convert
                // once per leaf (Σ_T R_1(n_T) ⊗ I_T = Σ_axis R_1(e_axis) ⊗ Σ_T n_T,axis I_T).
                let moments_width = size(p.saturating_sub(1));
                let mut weighted = [
                    vec![Complex::default(); moments_width],
                    vec![Complex::default(); moments_width],
                    vec![Complex::default(); moments_width],
                ];
                let (mut values, mut integral) = (Vec::new(), vec![Complex::default(); moments_width]);
                for &face in &self.tree.order[node.items.clone()] {
                    let [a, b, c] = self.corners(face);
                    let (e1, e2) = (b - a, c - a);
                    // |e1 × e2| = 2·area: the reference triangle's weights (summing to ½) times
                    // this give ∫ ds, and the unnormalised normal carries the same factor.
                    let normal = e1.cross(e2);
                    area += 0.5 * normal.length();
                    if p == 0 {
                        continue;
                    }
                    // Orders m ≥ 0 only: the weights are real, so the sums keep the symmetry
                    // of the harmonics and are completed once per leaf.
                    integral.fill(Complex::default());
                    for &(s, t, w) in &rule {
                        regular_nonnegative(p - 1, a + s * e1 + t * e2 - node.centre, &mut values);
                        for n in 0..p {
                            let row = index(n, 0)..=index(n, n as isize);
                            for (acc, v) in integral[row.clone()].iter_mut().zip(&values[row]) {
                                *acc += v.scale(w);
                            }
                        }
                    }
                    for (axis, sums) in weighted.iter_mut().enumerate() {
                        for n in 0..p {
                            let row = index(n, 0)..=index(n, n as isize);
                            for (acc, v) in sums[row.clone()].iter_mut().zip(&integral[row]) {
                                *acc += v.scale(normal[axis]);
                            }
                        }
                    }
                }
                for sums in &mut weighted {
                    fill_negative_orders(p.saturating_sub(1), sums);
                }
                let mut normal_harmonics = Vec::new();
                for (axis, sums) in weighted.iter().enumerate().filter(|_| p > 0) {
                    regular(1, DVec3::AXES[axis], &mut normal_harmonics);
                    for n in 1..=p {
                        for m in -(n as isize)..=(n as isize) {
                            let mut sum = Complex::default();
                            for t in -1isize..=1 {
                                let mt = m - t;
                                if mt.unsigned_abs() < n {
                                    sum += normal_harmonics[index(1, t)] * sums[index(n - 1, mt)];
                                }
                            }
                            coefficients[index(n, m)] += sum.conj().scale(scale);
                        }
                    }
                }
                (coefficients, area)
            })
            .collect();
        let mut multipoles = vec![Complex::default(); width * nodes.len()];
        let mut areas = vec![0.0; nodes.len()];
        for (&i, (coefficients, area)) in leaves.iter().zip(leaf_data) {
            multipoles[i * width..(i + 1) * width].copy_from_slice(&coefficients);
            areas[i] = area;
        }
        // Children come after their parents: a reverse sweep visits children first.
        let mut scratch = Vec::new();
        for i in (0..nodes.len()).rev() {
            if let Some(parent) = nodes[i].parent {
                let (low, high) = multipoles.split_at_mut(i * width);
                let child = &high[..width];
                let parent_slice = &mut low[parent * width..(parent + 1) * width];
                m2m(p, child, nodes[i].centre, parent_slice, nodes[parent].centre, &mut scratch);
                areas[parent] += areas[i];
            }
        }
        self.multipoles = multipoles;
        self.cluster_areas = areas;
    }

    /// The kernel factor of Eq. 26 for clusters of radius `r` at separation `d`, times `1/4π`.
    fn truncation_factor(&self, r: f64) -> f64 {
        let d = self.config.separation;
        (1.0 + std::f64::consts::PI) / ((d - 1.0) * r * r) * order_factor(d, self.config.order)
            / (4.0 * std::f64::consts::PI)
    }

    /// The smallest order `p ≤ 30` whose Eq. 26–27 error bound is at most `epsilon` at every
    /// one of `points` (body frame): an order for a requested accuracy.
    ///
    /// The bound at a point sums, over the mesh clusters converted for it, a geometric factor
    /// times `(p + 1 + d/(d − 1)) d^−(p+2)`. Which clusters are converted depends on the trees
    /// and on `d`, not on `p`, so one evaluation at this evaluator's order gives the bound at
    /// every order. This holds for [`TreeDepth::PreChosen`] and [`TreeDepth::Fixed`]; the trees
    /// of [`TreeDepth::WellChosen`] and [`TreeDepth::Automatic`] depend on `p` through their
    /// cost models, so there the bound of the evaluator rebuilt at the returned order should be
    /// checked ([`FmmEvaluation::error_bounds`]).
    ///
    /// # Errors
    /// [`DlpError::InvalidConfig`] when `epsilon` is not finite and positive or no order up
    /// to 30 reaches it; [`DlpError::NonFinitePoint`] naming the first non-finite point, else
    /// [`DlpError::PointOutOfRange`] naming the first out-of-range one (a batch is checked for
    /// non-finite points first: `[0, 1e80, NaN]` names the NaN, index 2).
    ///
    /// ```
    /// use fmm_dlp::{FmmConfig, FmmDlp};
    /// use geometry_core::{DVec3, generators::octa_sphere};
    /// let mesh = octa_sphere(3).unwrap();
    /// let points = [DVec3::new(0.1, 0.2, 0.3), DVec3::new(1.5, 0.2, 0.0), DVec3::new(0.0, 0.9, 0.3)];
    /// let fmm = FmmDlp::new(mesh.clone(), FmmConfig::default()).unwrap();
    /// let p = fmm.order_for_accuracy(&points, 1e-6).unwrap();
    /// let precise = FmmDlp::new(mesh, FmmConfig { order: p, ..FmmConfig::default() }).unwrap();
    /// assert!(precise.evaluate(&points).unwrap().error_bounds.iter().all(|&b| b <= 1e-6));
    /// ```
    pub fn order_for_accuracy(&self, points: &[DVec3], epsilon: f64) -> Result<usize, DlpError> {
        if !(epsilon.is_finite() && epsilon > 0.0) {
            return Err(DlpError::InvalidConfig { what: "the accuracy must be finite and positive" });
        }
        let worst = self.evaluate(points)?.error_bounds.into_iter().fold(0.0, f64::max);
        let d = self.config.separation;
        let geometric = worst / order_factor(d, self.config.order);
        (0..=30)
            .find(|&p| geometric * order_factor(d, p) <= epsilon)
            .ok_or(DlpError::InvalidConfig { what: "no order up to 30 reaches the requested accuracy" })
    }

    /// The mesh-tree level at which a batch of `points` points treats clusters as leaves:
    /// unlimited except for [`TreeDepth::Automatic`], which minimises the modelled cost
    ///
    /// ```text
    /// cost(λ) = c_far · min(M, 8^λ) · p⁴  +  c_near · M · (N / K_λ)
    /// ```
    ///
    /// over the levels `λ` of the tree: conversions for up to one evaluation cluster per mesh
    /// cluster cell (`c_far ≈ 90` conversions of about `p⁴` ns each at `d = 3`), against a
    /// nearfield of about `c_near ≈ 17` clusters of `N / K_λ` triangles at 20 ns per point and
    /// triangle, where `K_λ` counts the clusters that act as leaves at level `λ`. The constants are
    /// rough, so a shallower cut is taken only when the model predicts half the cost of the full
    /// depth.
    ///
    /// ```
    /// use fmm_dlp::{FmmConfig, FmmDlp, TreeDepth};
    /// use geometry_core::generators::octa_sphere;
    /// let config = FmmConfig { depth: TreeDepth::Automatic, ..FmmConfig::default() };
    /// let fmm = FmmDlp::new(octa_sphere(5).unwrap(), config).unwrap();
    /// assert!(fmm.cut_level(10) <= fmm.cut_level(1_000_000));
    /// ```
    pub fn cut_level(&self, points: usize) -> u32 {
        if self.config.depth != TreeDepth::Automatic {
            return u32::MAX;
        }
        let depth = self.tree.depth();
        let n = self.mesh.faces().len() as f64;
        let p4 = (self.config.order.max(1) as f64).powi(4);
        let m = points.max(1) as f64;
        let mut best = (f64::INFINITY, depth);
        let mut full_depth_cost = f64::INFINITY;
        for level in 0..=depth {
            let acting_leaves = self
                .tree
                .nodes
                .iter()
                .filter(|n| n.level == level || (n.is_leaf() && n.level < level))
                .count();
            let targets = m.min(8f64.powi(level as i32));
            let cost = 20.0 * targets * p4 * 1e-9 + 17.0 * m * (n / acting_leaves as f64) * 13e-9;
            if cost < best.0 {
                best = (cost, level);
            }
            if level == depth {
                full_depth_cost = cost;
            }
        }
        // The model is rough: leave the full (pre-chosen) depth only for a predicted gain of 2×.
        if best.0 < 0.5 * full_depth_cost { best.1 } else { depth }
    }

    /// Evaluates `J̃` with its error bound at points given in the body's frame.
    ///
    /// # Errors
    /// [`DlpError::NonFinitePoint`] naming the first non-finite point, else
    /// [`DlpError::PointOutOfRange`] naming the first out-of-range one (a batch is checked for
    /// non-finite points first: `[0, 1e80, NaN]` names the NaN, index 2).
    ///
    /// ```
    /// use fmm_dlp::{FmmConfig, FmmDlp};
    /// use geometry_core::{DVec3, generators::octa_sphere};
    /// let fmm = FmmDlp::new(octa_sphere(3).unwrap(), FmmConfig { order: 10, ..FmmConfig::default() }).unwrap();
    /// let e = fmm.evaluate(&[DVec3::new(0.1, 0.2, 0.3), DVec3::new(2.0, 0.0, 0.0)]).unwrap();
    /// assert!((e.potentials[0] - 1.0).abs() < 1e-6 && e.potentials[1].abs() < 1e-6);
    /// ```
    pub fn evaluate(&self, points: &[DVec3]) -> Result<FmmEvaluation, DlpError> {
        crate::check_points(points)?;
        Ok(self.evaluate_selected(&self.to_unit(points), None))
    }

    /// [`evaluate`](Self::evaluate) at the `selected` points (in the unit frame) only (all when
    /// `None`; the others get 0).
    ///
    /// Points far from the mesh, at `(d + 1)` times the mesh tree's radius or more from its
    /// centre, take the root's multipole expansion directly (within the same bound as any
    /// admissible conversion). The others form the evaluation tree: a far point in it would
    /// blow its root up to its own distance, and the translations over such lengths overflowed
    /// (one point at 1e63 made every potential of its batch NaN).
    fn evaluate_selected(&self, points: &[DVec3], selected: Option<&[bool]>) -> FmmEvaluation {
        let p = self.config.order;
        let root = &self.tree.nodes[0];
        let reach = (self.config.separation + 1.0) * root.radius;
        let is_far = |x: DVec3| (x - root.centre).length() >= reach;
        if !points.iter().any(|&x| is_far(x)) {
            return self.evaluate_clustered(points, selected);
        }
        let mut evaluation = FmmEvaluation {
            potentials: vec![0.0; points.len()],
            error_bounds: vec![0.0; points.len()],
            on_surface: vec![false; points.len()],
        };
        let multipole = &self.multipoles[..size(p)];
        let bound = self.cluster_areas[0] * self.truncation_factor(root.radius);
        let (mut near, mut near_points, mut near_selected) = (Vec::new(), Vec::new(), Vec::new());
        let mut scratch = Vec::new();
        for (i, &x) in points.iter().enumerate() {
            let chosen = selected.is_none_or(|chosen| chosen[i]);
            if !is_far(x) {
                near.push(i);
                near_points.push(x);
                near_selected.push(chosen);
            } else if chosen {
                evaluation.potentials[i] =
                    evaluate_real_multipole(p, multipole, x - root.centre, &mut scratch);
                evaluation.error_bounds[i] = bound;
            }
        }
        let clustered = self.evaluate_clustered(&near_points, selected.map(|_| &near_selected[..]));
        for (k, &i) in near.iter().enumerate() {
            evaluation.potentials[i] = clustered.potentials[k];
            evaluation.error_bounds[i] = clustered.error_bounds[k];
            evaluation.on_surface[i] = clustered.on_surface[k];
        }
        evaluation
    }

    /// [`evaluate_selected`](Self::evaluate_selected) through the evaluation tree. The tree is
    /// built over all the points, so that the work never exceeds evaluating them all, but each
    /// cluster is sized by its selected points only: a smaller ball admits more far-field
    /// conversions and needs less nearfield.
    fn evaluate_clustered(&self, points: &[DVec3], selected: Option<&[bool]>) -> FmmEvaluation {
        let p = self.config.order;
        let width = size(p);
        // The evaluation tree goes no finer than the mesh tree's leaves (the paper pairs clusters
        // of about the same size): deeper evaluation clusters would only multiply conversions.
        let cut = self.cut_level(points.len());
        let is_leaf = |n: &crate::octree::Node| n.is_leaf() || n.level >= cut;
        let finest =
            self.tree.nodes.iter().filter(|n| is_leaf(n)).map(|n| n.half).fold(f64::INFINITY, f64::min);
        let distance = |i: usize, c: DVec3| (points[i] - c).length();
        let (targets, counts) = match selected {
            None => {
                let tree = Octree::build_until(points, distance, self.config.points_per_leaf, 24, finest);
                let counts = tree.nodes.iter().map(|n| n.items.len()).collect();
                (tree, counts)
            }
            // The selected points of every evaluation cluster; clusters without any are skipped.
            Some(chosen) => {
                let mut tree = Octree::subdivide(points, self.config.points_per_leaf, 24, finest);
                let counts = tree.fit_to_selected(chosen, distance);
                (tree, counts)
            }
        };
        let is_selected = |i: u32| selected.is_none_or(|chosen| chosen[i as usize]);
        // Dual traversal: M2L lists and direct lists for every evaluation cluster (a cluster with
        // few points evaluates an admissible mesh cluster's multipole expansion at each point,
        // `k·(p+1)²` work, instead of converting it, about `(p+1)⁴/2`), nearfield lists at leaves.
        let mut far: Vec<Vec<u32>> = vec![Vec::new(); targets.nodes.len()];
        let mut near: Vec<Vec<u32>> = vec![Vec::new(); targets.nodes.len()];
        let mut direct: Vec<Vec<u32>> = vec![Vec::new(); targets.nodes.len()];
        let direct_below = width / 2;
        if !points.is_empty() {
            let mut stack = vec![(0usize, 0usize)];
            let factor = self.config.separation + 1.0;
            while let Some((t, s)) = stack.pop() {
                if counts[t] == 0 {
                    continue;
                }
                let (tn, sn) = (&targets.nodes[t], &self.tree.nodes[s]);
                let distance = (tn.centre - sn.centre).length();
                if distance >= factor * tn.radius.max(sn.radius) {
                    if counts[t] < direct_below {
                        direct[t].push(s as u32);
                    } else {
                        far[t].push(s as u32);
                    }
                } else if tn.is_leaf() && is_leaf(sn) {
                    near[t].push(s as u32);
                } else if tn.is_leaf() || (!is_leaf(sn) && sn.radius >= tn.radius) {
                    stack.extend(sn.children.clone().rev().map(|c| (t, c)));
                } else {
                    stack.extend(tn.children.clone().rev().map(|c| (c, s)));
                }
            }
        }
        // Downward pass: locals and error bounds, level by level (breadth-first order keeps each
        // level contiguous and after its parents); the clusters of a level in parallel.
        let mut locals = vec![Complex::default(); width * targets.nodes.len()];
        let mut bounds = vec![0.0; targets.nodes.len()];
        let mut start = 0;
        while start < targets.nodes.len() {
            let level = targets.nodes[start].level;
            let end = start + targets.nodes[start..].iter().take_while(|n| n.level == level).count();
            let (done, current) = locals.split_at_mut(start * width);
            let (done_bounds, current_bounds) = bounds.split_at_mut(start);
            current[..(end - start) * width]
                .par_chunks_mut(width)
                .zip(current_bounds[..end - start].par_iter_mut())
                .enumerate()
                .for_each_init(Vec::new, |scratch, (k, (local, bound))| {
                    let t = start + k;
                    let node = &targets.nodes[t];
                    if counts[t] == 0 {
                        return;
                    }
                    if let Some(parent) = node.parent {
                        let parent_local = &done[parent * width..(parent + 1) * width];
                        l2l(p, parent_local, targets.nodes[parent].centre, local, node.centre, scratch);
                        *bound = done_bounds[parent];
                    }
                    for &s in far[t].iter().chain(&direct[t]) {
                        let sn = &self.tree.nodes[s as usize];
                        *bound += self.cluster_areas[s as usize]
                            * self.truncation_factor(node.radius.max(sn.radius));
                    }
                    for &s in &far[t] {
                        let sn = &self.tree.nodes[s as usize];
                        let multipole = &self.multipoles[s as usize * width..(s as usize + 1) * width];
                        m2l(p, multipole, sn.centre, local, node.centre, scratch);
                    }
                });
            start = end;
        }
        // Leaves: local expansion plus exact nearfield, in parallel.
        let leaves: Vec<usize> =
            (0..targets.nodes.len()).filter(|&t| targets.nodes[t].is_leaf() && counts[t] > 0).collect();
        let results: Vec<Vec<(u32, f64, bool)>> = leaves
            .par_iter()
            .map(|&t| {
                let node = &targets.nodes[t];
                let local = &locals[t * width..(t + 1) * width];
                let mut values = Vec::new();
                targets.order[node.items.clone()]
                    .iter()
                    .filter(|&&i| is_selected(i))
                    .map(|&i| {
                        let x = points[i as usize];
                        regular(p, x - node.centre, &mut values);
                        let mut j: f64 =
                            local.iter().zip(&values).map(|(l, r)| l.re * r.re + l.im * r.im).sum();
                        // The direct lists of the leaf and of its ancestors.
                        let mut cluster = Some(t);
                        while let Some(c) = cluster {
                            for &s in &direct[c] {
                                let sn = &self.tree.nodes[s as usize];
                                let multipole =
                                    &self.multipoles[s as usize * width..(s as usize + 1) * width];
                                j += evaluate_real_multipole(p, multipole, x - sn.centre, &mut values);
                            }
                            cluster = targets.nodes[c].parent;
                        }
                        let mut touches = false;
                        let mut half_angles = AngleSum::new();
                        for &s in &near[t] {
                            let sn = &self.tree.nodes[s as usize];
                            for &[a, b, c] in &self.corners_in_order[sn.items.clone()] {
                                match tan_half_solid_angle(a, b, c, x) {
                                    Some((n, d)) => half_angles.add(n, d),
                                    None => touches |= on_triangle(a, b, c, x),
                                }
                            }
                        }
                        j += half_angles.total() / std::f64::consts::TAU;
                        (i, j, touches)
                    })
                    .collect()
            })
            .collect();
        let mut evaluation = FmmEvaluation {
            potentials: vec![0.0; points.len()],
            error_bounds: vec![0.0; points.len()],
            on_surface: vec![false; points.len()],
        };
        for (&t, leaf) in leaves.iter().zip(results) {
            for (i, j, touches) in leaf {
                evaluation.potentials[i as usize] = j;
                evaluation.error_bounds[i as usize] = bounds[t];
                evaluation.on_surface[i as usize] = touches;
            }
        }
        evaluation
    }

    /// `J̃` at points in the body's frame.
    ///
    /// # Errors
    /// [`DlpError::NonFinitePoint`] naming the first non-finite point, else
    /// [`DlpError::PointOutOfRange`] naming the first out-of-range one (a batch is checked for
    /// non-finite points first: `[0, 1e80, NaN]` names the NaN, index 2).
    ///
    /// ```
    /// use fmm_dlp::{FmmConfig, FmmDlp};
    /// use geometry_core::{DVec3, generators::octa_sphere};
    /// let fmm = FmmDlp::new(octa_sphere(2).unwrap(), FmmConfig::default()).unwrap();
    /// assert!((fmm.potentials(&[DVec3::ZERO]).unwrap()[0] - 1.0).abs() < 1e-3);
    /// ```
    pub fn potentials(&self, points: &[DVec3]) -> Result<Vec<f64>, DlpError> {
        Ok(self.evaluate(points)?.potentials)
    }

    /// Classifies points given in the body's frame. Points whose `J̃` is within
    /// `min(bound, ACCEPTANCE_MARGIN)` of ½, and points exactly on a nearfield triangle, are
    /// re-evaluated exactly (see the module docs on error control).
    ///
    /// # Errors
    /// [`DlpError::NonFinitePoint`] naming the first non-finite point, else
    /// [`DlpError::PointOutOfRange`] naming the first out-of-range one (a batch is checked for
    /// non-finite points first: `[0, 1e80, NaN]` names the NaN, index 2).
    ///
    /// ```
    /// use contact_core::Containment;
    /// use fmm_dlp::{FmmConfig, FmmDlp};
    /// use geometry_core::{DVec3, generators::octa_sphere};
    /// let fmm = FmmDlp::new(octa_sphere(0).unwrap(), FmmConfig::default()).unwrap();
    /// let on_face = DVec3::new(0.25, 0.25, 0.5);
    /// assert_eq!(fmm.classify(&[on_face]).unwrap(), [Containment::OnBoundary]);
    /// ```
    pub fn classify(&self, points: &[DVec3]) -> Result<Vec<Containment>, DlpError> {
        Ok(self.classify_with_stats(points)?.0)
    }

    /// [`classify`](Self::classify), also returning how many evaluations fell back to the
    /// exact evaluator (with grouping, one evaluation decides a whole group).
    ///
    /// # Errors
    /// [`DlpError::NonFinitePoint`] naming the first non-finite point, else
    /// [`DlpError::PointOutOfRange`] naming the first out-of-range one (a batch is checked for
    /// non-finite points first: `[0, 1e80, NaN]` names the NaN, index 2).
    ///
    /// ```
    /// use fmm_dlp::{FmmConfig, FmmDlp};
    /// use geometry_core::{DVec3, generators::octa_sphere};
    /// let fmm = FmmDlp::new(octa_sphere(3).unwrap(), FmmConfig::default()).unwrap();
    /// let (_, exact) = fmm.classify_with_stats(&[DVec3::ZERO, DVec3::splat(3.0)]).unwrap();
    /// assert_eq!(exact, 0);
    /// ```
    pub fn classify_with_stats(&self, points: &[DVec3]) -> Result<(Vec<Containment>, usize), DlpError> {
        crate::check_points(points)?;
        // Below a few triangles, evaluating a point costs about as much as grouping it (measured:
        // 8 triangles, 1000 to 8000 points, grouping 35 % slower; 32 triangles, 20 % faster).
        if !self.config.group_clear_regions || self.mesh.faces().len() < GROUPING_MIN_TRIANGLES {
            return Ok(self.classify_each(points));
        }
        let clusters =
            MeshClusters { tree: &self.tree, corners_in_order: &self.corners_in_order, scale: self.scale };
        let unit_points = self.to_unit(points);
        let grouping = group_points(&unit_points, &clusters);
        let mut selected = vec![false; points.len()];
        grouping.representatives.iter().for_each(|&i| selected[i as usize] = true);
        let evaluation = self.evaluate_selected(&unit_points, Some(&selected));
        let classes: Vec<(Containment, bool)> = grouping
            .representatives
            .par_iter()
            .with_min_len(64)
            .map(|&i| self.classify_evaluated(points[i as usize], &evaluation, i as usize))
            .collect();
        let exact = classes.iter().filter(|c| c.1).count();
        Ok((grouping.group_of.iter().map(|&g| classes[g as usize].0).collect(), exact))
    }

    /// Every point evaluated by the FMM, and exactly where its answer is not certain.
    fn classify_each(&self, points: &[DVec3]) -> (Vec<Containment>, usize) {
        let evaluation = self.evaluate_selected(&self.to_unit(points), None);
        let classes: Vec<(Containment, bool)> = (0..points.len())
            .into_par_iter()
            .with_min_len(64)
            .map(|i| self.classify_evaluated(points[i], &evaluation, i))
            .collect();
        let exact = classes.iter().filter(|c| c.1).count();
        (classes.into_iter().map(|c| c.0).collect(), exact)
    }

    /// The class of `x`, the point `i` of `evaluation`, and whether it was found exactly.
    fn classify_evaluated(&self, x: DVec3, evaluation: &FmmEvaluation, i: usize) -> (Containment, bool) {
        let (j, bound) = (evaluation.potentials[i], evaluation.error_bounds[i]);
        let margin = (j - 0.5).abs();
        // Certified by the bound, or far enough from ½ that only an error a thousand times the
        // largest ever measured could flip it; otherwise exact.
        // And near 0 or 1: the true `J` of a point off the surface is its winding number, 0 or 1
        // for a solid, so one further than the bound from every integer is within rounding of an
        // edge or a sliver's plane, where the nearfield's solid angles are off by O(1) (see
        // `exact_containment`). Near another integer (nested outward shells: 2; an inward shell
        // standing alone: -1) the point is decided exactly, by parity as `ExactDlp` and
        // `raycross` decide it (`J > ½` said inside for 2 and outside for -1, and the same
        // region came out both ways, near the surface by parity and away from it by `J`).
        let nearest = j.round();
        let integral =
            (nearest == 0.0 || nearest == 1.0) && (j - nearest).abs() <= bound + crate::INDICATOR_TOLERANCE;
        let empirical = if self.config.order >= MIN_ACCEPTANCE_ORDER
            && self.config.separation >= MIN_ACCEPTANCE_SEPARATION
        {
            ACCEPTANCE_MARGIN
        } else {
            f64::INFINITY
        };
        let accepted = margin > bound.min(empirical) && integral;
        if evaluation.on_surface[i] || !accepted {
            (exact_containment(&self.mesh, x, &self.parity), true)
        } else if j > 0.5 {
            (Containment::Inside, false)
        } else {
            (Containment::Outside, false)
        }
    }

    /// Classifies points given in the world while the body has `pose` (body frame to world):
    /// the points are mapped into the body's frame, so the setup is reused as the body moves.
    ///
    /// # Errors
    /// [`DlpError::InvalidPose`] for a non-finite or singular pose (also one whose inverse
    /// overflows), [`DlpError::NonFinitePoint`] for a non-finite point or one that overflows
    /// when mapped into the body's frame, and those of [`classify`](Self::classify).
    ///
    /// ```
    /// use contact_core::Containment;
    /// use fmm_dlp::{FmmConfig, FmmDlp};
    /// use geometry_core::{DAffine3, DVec3, generators::octa_sphere};
    /// let fmm = FmmDlp::new(octa_sphere(3).unwrap(), FmmConfig::default()).unwrap();
    /// let pose = DAffine3::from_translation(DVec3::new(10.0, 0.0, 0.0));
    /// let world = [DVec3::new(10.2, 0.0, 0.0), DVec3::ZERO];
    /// assert_eq!(fmm.classify_posed(&pose, &world).unwrap(), [Containment::Inside, Containment::Outside]);
    /// ```
    pub fn classify_posed(&self, pose: &DAffine3, points: &[DVec3]) -> Result<Vec<Containment>, DlpError> {
        // (Inverted on the scaled linear part: glam's inverse of a scale by 1e103 came out all
        // zeros, its determinant overflowing, and every point was mapped to the body's origin.)
        let inverse = geometry_core::scaled::affine_inverse(pose).ok_or(DlpError::InvalidPose)?;
        crate::check_points(points)?;
        let local: Vec<DVec3> = points.iter().map(|&x| inverse.transform_point3(x)).collect();
        self.classify(&local)
    }
}

/// The power of two `2^−k` that brings a length `extent > 0` into `(½, 1]`.
fn unit_scale(extent: f64) -> f64 {
    let k = extent.log2().ceil() as i32;
    // Rounding in `log2` can be one off near a power of two: settle it exactly.
    let mut unit = 2f64.powi(-k);
    while extent * unit > 1.0 {
        unit *= 0.5;
    }
    while extent * unit <= 0.5 {
        unit *= 2.0;
    }
    unit
}

/// The order-dependent part of the Eq. 26 factor: `(p + 1 + d/(d − 1)) d^−(p+2)`.
fn order_factor(d: f64, p: usize) -> f64 {
    (p as f64 + 1.0 + d / (d - 1.0)) * d.powi(-(p as i32 + 2))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::half_solid_angle;
    use crate::harmonics::irregular;
    use geometry_core::generators::octa_sphere;

    /// Every cluster's multipole expansion, evaluated directly at a point well outside the
    /// cluster, against the exact solid angles of the cluster's own triangles: checks the leaf
    /// coefficients (Eq. 22) and, for inner clusters, the M2M chain (Eq. 23).
    #[test]
    fn cluster_expansions_match_their_triangles() {
        let mesh = octa_sphere(3).unwrap();
        for p in [4usize, 8, 12] {
            let config = FmmConfig { order: p, depth: TreeDepth::Fixed(16), ..FmmConfig::default() };
            let fmm = FmmDlp::new(mesh.clone(), config).unwrap();
            let width = size(p);
            let mut worst = 0.0f64;
            for (k, node) in fmm.tree.nodes.iter().enumerate() {
                let x = node.centre + DVec3::new(0.6, -0.8, 0.0) * (4.0 * node.radius);
                let mut s = Vec::new();
                irregular(p, x - node.centre, &mut s);
                let approx: f64 = fmm.multipoles[k * width..(k + 1) * width]
                    .iter()
                    .zip(&s)
                    .map(|(m, s)| (*m * *s).re)
                    .sum();
                let exact: f64 = fmm.tree.order[node.items.clone()]
                    .iter()
                    .map(|&f| {
                        let [a, b, c] = fmm.corners(f);
                        half_solid_angle(a, b, c, x)
                    })
                    .sum::<f64>()
                    / (2.0 * std::f64::consts::PI);
                worst = worst.max((approx - exact).abs());
            }
            // The expansion converges like (r/|x − C|)^(p+1) = 4^−(p+1).
            assert!(worst < 0.25f64.powi(p as i32 + 1) * 4.0, "p = {p}: worst error {worst}");
        }
    }

    /// Evaluating a selection of the points, with clusters shrunk to their selected points,
    /// stays within the error bound of the exact value at every selected point, equals the
    /// full evaluation's answer to within both bounds, and leaves the others at 0.
    #[test]
    fn selected_points_are_evaluated_within_their_bounds() {
        let mesh = octa_sphere(4).unwrap();
        let fmm = FmmDlp::new(mesh.clone(), FmmConfig { order: 6, ..FmmConfig::default() }).unwrap();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut uniform = || {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (state >> 11) as f64 / (1u64 << 53) as f64 * 3.0 - 1.5
        };
        let points: Vec<DVec3> = (0..3000).map(|_| DVec3::new(uniform(), uniform(), uniform())).collect();
        // Every third point, and a dense patch near the surface, so that clusters shrink.
        let selected: Vec<bool> = points.iter().enumerate().map(|(i, x)| i % 3 == 0 || x.x > 0.9).collect();
        let full = fmm.evaluate(&points).unwrap();
        let some = fmm.evaluate_selected(&fmm.to_unit(&points), Some(&selected));
        let (vertices, faces) = (mesh.vertices(), mesh.faces());
        for (i, &x) in points.iter().enumerate() {
            if !selected[i] {
                assert_eq!((some.potentials[i], some.error_bounds[i]), (0.0, 0.0));
                continue;
            }
            let exact = crate::exact::potential(vertices, faces, x);
            let error = (some.potentials[i] - exact).abs();
            assert!(
                error <= some.error_bounds[i] + 1e-12,
                "point {i}: error {error} > {}",
                some.error_bounds[i]
            );
            let between = (some.potentials[i] - full.potentials[i]).abs();
            assert!(between <= some.error_bounds[i] + full.error_bounds[i] + 1e-12, "point {i}");
        }
        assert!(selected.iter().filter(|&&s| s).count() > 1000);
    }
}
