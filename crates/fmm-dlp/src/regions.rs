//! Grouping evaluation points that must share a classification (beyond the paper).
//!
//! Off the surface `J` is constant on every connected piece of space that the surface does not
//! cut: 1 inside, 0 outside. So all points of a ball that no triangle touches have the same
//! classification, and so do the points of two such balls that overlap (their union is
//! connected and clear of the surface). Classifying a batch therefore first joins the points
//! into groups, each evaluated once (by the FMM and, if need be, exactly) at its
//! representative, its lowest-numbered point:
//!
//! 1. an octree over the points is walked from the root; a cluster whose bounding ball (centre
//!    `C`, radius `r` = distance to its farthest point) keeps a clear distance from every
//!    triangle is a *clear ball*; clusters the surface touches are split further, and a point
//!    of a touched leaf gets its own clear ball, of radius its distance to the surface (shrunk
//!    by the margin below; none for a point on the surface);
//! 2. every point inside a clear ball joins the ball's group (union–find), which links
//!    overlapping clusters and pulls most points near the surface into the groups around them.
//!
//! For points spread through a volume, only points much closer to the surface than to their
//! neighbours stay alone.
//!
//! **Distances** are found on the mesh cluster tree: a mesh cluster of centre `C_s` and radius
//! `r_s` (all of its triangles lie within `r_s` of `C_s`) is skipped when it cannot come closer
//! than what is asked, and at the leaves each triangle's closest point is computed
//! (`geometry_core::Triangle::closest_point`). A ball counts as clear only when every triangle
//! is farther than `r·(1 + 10⁻⁹) + 10⁻¹²·s`, with `s` the largest coordinate magnitude of the
//! mesh and of the centre: a margin far above the rounding error of the distance computation
//! (a few ulps of `s`), so rounding can only make a clear ball look touched, never the reverse.

use crate::octree::Octree;
use geometry_core::{DVec3, Triangle};
use rayon::prelude::*;

/// Clusters of at most this many points are not split further.
const POINTS_PER_LEAF: usize = 4;

/// Which points decide for which.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Grouping {
    /// The indices of the points to evaluate, one per group, increasing.
    pub(crate) representatives: Vec<u32>,
    /// For every point, the position in `representatives` of the point that decides it.
    pub(crate) group_of: Vec<u32>,
}

/// The mesh as the distance tests need it: its cluster tree, the triangles' corners in the
/// tree's order, and the largest coordinate magnitude of its vertices.
pub(crate) struct MeshClusters<'a> {
    pub(crate) tree: &'a Octree,
    pub(crate) corners_in_order: &'a [[DVec3; 3]],
    pub(crate) scale: f64,
}

impl MeshClusters<'_> {
    /// The margin of the distance tests at `centre` (see the module docs).
    fn slack(&self, centre: DVec3) -> f64 {
        1e-12 * self.scale.max(centre.abs().max_element())
    }

    /// Whether every triangle keeps a clear distance (see the module docs) from the ball of
    /// centre `centre` and radius `radius`.
    fn ball_is_clear(&self, centre: DVec3, radius: f64) -> bool {
        let reach = radius * (1.0 + 1e-9) + self.slack(centre);
        let mut stack = vec![0usize];
        while let Some(s) = stack.pop() {
            let node = &self.tree.nodes[s];
            // Generous slack on the pruning test too: skipping a cluster must be safe.
            if (centre - node.centre).length() - node.radius > reach * (1.0 + 1e-9) {
                continue;
            }
            if node.is_leaf() {
                for &[a, b, c] in &self.corners_in_order[node.items.clone()] {
                    if (Triangle::new(a, b, c).closest_point(centre) - centre).length() <= reach {
                        return false;
                    }
                }
            } else {
                stack.extend(node.children.clone());
            }
        }
        true
    }

    /// The radius of a clear ball around `x`: its distance to the surface shrunk by the
    /// margin, 0 when `x` is (about) on the surface.
    ///
    /// The exact nearest distance, not a cheaper lower bound: a larger ball joins more points,
    /// and each point left alone costs far more to evaluate than this search.
    fn clear_radius(&self, x: DVec3) -> f64 {
        let mut best = f64::INFINITY;
        let mut stack = vec![0usize];
        while let Some(s) = stack.pop() {
            let node = &self.tree.nodes[s];
            if (x - node.centre).length() - node.radius * (1.0 + 1e-9) >= best {
                continue;
            }
            if node.is_leaf() {
                for &[a, b, c] in &self.corners_in_order[node.items.clone()] {
                    best = best.min((Triangle::new(a, b, c).closest_point(x) - x).length());
                }
            } else {
                // Nearest child last, so that it is searched first and prunes the others.
                let mut children = [(0.0, 0usize); 8];
                let count = node.children.len();
                for (slot, k) in children.iter_mut().zip(node.children.clone()) {
                    let child = &self.tree.nodes[k];
                    *slot = ((x - child.centre).length() - child.radius, k);
                }
                children[..count].sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
                stack.extend(children[..count].iter().map(|&(_, k)| k));
            }
        }
        (best * (1.0 - 1e-9) - 2.0 * self.slack(x)).max(0.0)
    }
}

/// Union–find over point indices, with path halving.
struct Components(Vec<u32>);

impl Components {
    fn find(&mut self, mut i: u32) -> u32 {
        while self.0[i as usize] != i {
            let grandparent = self.0[self.0[i as usize] as usize];
            self.0[i as usize] = grandparent;
            i = grandparent;
        }
        i
    }

    fn join(&mut self, a: u32, b: u32) {
        let (a, b) = (self.find(a), self.find(b));
        // The smaller index becomes the root, so that a root is its component's least point.
        if a < b {
            self.0[b as usize] = a;
        } else {
            self.0[a as usize] = b;
        }
    }
}

/// Every point of `tree` within distance `radius` of `centre`, each passed to `visit`.
fn points_in_ball(tree: &Octree, points: &[DVec3], centre: DVec3, radius: f64, mut visit: impl FnMut(u32)) {
    let mut stack = vec![0usize];
    while let Some(t) = stack.pop() {
        let node = &tree.nodes[t];
        let distance = (centre - node.centre).length();
        if distance > radius + node.radius {
            continue;
        }
        if distance + node.radius <= radius {
            tree.order[node.items.clone()].iter().for_each(|&i| visit(i));
        } else if node.is_leaf() {
            for &i in &tree.order[node.items.clone()] {
                if (points[i as usize] - centre).length() <= radius {
                    visit(i);
                }
            }
        } else {
            stack.extend(node.children.clone());
        }
    }
}

/// Groups `points` (finite) so that every group lies in one connected region clear of the
/// mesh. The result does not depend on the number of threads.
pub(crate) fn group_points(points: &[DVec3], mesh: &MeshClusters<'_>) -> Grouping {
    if points.is_empty() {
        return Grouping::default();
    }
    let tree = Octree::build(points, |i, c| (points[i] - c).length(), POINTS_PER_LEAF, 24);
    // Step 1: the clear balls. The walk starts from a frontier of subtrees that are searched
    // in parallel, their balls concatenated in frontier order (the serial order).
    let mut frontier = vec![0usize];
    while frontier.len() < 64 && frontier.iter().any(|&t| !tree.nodes[t].is_leaf()) {
        frontier = frontier
            .iter()
            .flat_map(|&t| {
                let node = &tree.nodes[t];
                if node.is_leaf() { t..t + 1 } else { node.children.clone() }
            })
            .collect();
    }
    let balls: Vec<(DVec3, f64, u32)> = frontier
        .par_iter()
        .flat_map_iter(|&root| {
            let mut balls = Vec::new();
            let mut stack = vec![root];
            while let Some(t) = stack.pop() {
                let node = &tree.nodes[t];
                let first = tree.order[node.items.start];
                if node.items.len() > 1 && mesh.ball_is_clear(node.centre, node.radius) {
                    balls.push((node.centre, node.radius, first));
                } else if node.is_leaf() {
                    for &i in &tree.order[node.items.clone()] {
                        let x = points[i as usize];
                        balls.push((x, mesh.clear_radius(x), i));
                    }
                } else {
                    stack.extend(node.children.clone().rev());
                }
            }
            balls
        })
        .collect();
    // Step 2: every point inside a clear ball joins the ball's group.
    let mut components = Components((0..points.len() as u32).collect());
    for &(centre, radius, member) in &balls {
        if radius > 0.0 {
            points_in_ball(&tree, points, centre, radius, |i| components.join(member, i));
        }
    }
    let mut grouping = Grouping { representatives: Vec::new(), group_of: vec![0; points.len()] };
    // Roots are their components' least points, so numbering them in index order puts the
    // representatives in increasing order.
    let mut position = vec![u32::MAX; points.len()];
    for i in 0..points.len() as u32 {
        let root = components.find(i);
        if root == i {
            position[i as usize] = grouping.representatives.len() as u32;
            grouping.representatives.push(i);
        }
        grouping.group_of[i as usize] = position[root as usize];
    }
    grouping
}

#[cfg(test)]
mod tests {
    use super::*;
    use geometry_core::generators::octa_sphere;

    /// On octa-spheres and a foam: every grouped point has its representative's
    /// classification, by ray crossing (an independent oracle), and most points are grouped.
    #[test]
    fn groups_never_straddle_the_surface() {
        use contact_core::PointContainment;
        use geometry_core::generators::{FoamSize, foam};
        for mesh in [octa_sphere(0).unwrap(), octa_sphere(3).unwrap(), foam(FoamSize::Small).unwrap()] {
            let (vertices, faces) = (mesh.vertices(), mesh.faces());
            let corners: Vec<[DVec3; 3]> = faces.iter().map(|f| f.map(|v| vertices[v as usize])).collect();
            let centroids: Vec<DVec3> = corners.iter().map(|c| (c[0] + c[1] + c[2]) / 3.0).collect();
            let tree = Octree::build(
                &centroids,
                |f, c| corners[f].iter().map(|v| (*v - c).length()).fold(0.0, f64::max),
                8,
                24,
            );
            let corners_in_order: Vec<_> = tree.order.iter().map(|&f| corners[f as usize]).collect();
            let scale = vertices.iter().map(|v| v.abs().max_element()).fold(0.0, f64::max);
            let clusters = MeshClusters { tree: &tree, corners_in_order: &corners_in_order, scale };
            let bbox = mesh.bounding_box();
            let mut state = 12345u64;
            let mut unit = move || {
                state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                (state >> 11) as f64 / (1u64 << 53) as f64
            };
            let points: Vec<DVec3> = (0..4_000)
                .map(|_| {
                    bbox.min + (bbox.max - bbox.min) * DVec3::new(unit(), unit(), unit()) * 1.2
                        - 0.1 * (bbox.max - bbox.min)
                })
                .collect();
            let grouping = group_points(&points, &clusters);
            assert!(grouping.representatives.len() < points.len() / 2, "{}", grouping.representatives.len());
            let truth = raycross::RayCrossing::new(mesh.clone()).unwrap().contains_batch(&points).unwrap();
            for (i, class) in truth.iter().enumerate() {
                let rep = grouping.representatives[grouping.group_of[i] as usize] as usize;
                assert_eq!(*class, truth[rep], "{} grouped with {}", points[i], points[rep]);
            }
            assert!(grouping.representatives.windows(2).all(|w| w[0] < w[1]));
            assert_eq!(grouping.group_of.len(), points.len());
        }
    }
}
