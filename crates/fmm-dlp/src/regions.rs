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
//!    triangle is a *clear ball*; clusters the surface touches are split further. A point `x`
//!    of a touched leaf gets its own clear ball, of radius `δ` its distance to the surface
//!    (shrunk by the margin below; none for a point on the surface), and, when clear, a larger
//!    ball that reaches away from the surface: centre `x + t·u`, radius `t + δ/2`, with `u` the
//!    unit vector from the nearest surface point to `x` and `t` the radius of the leaf's
//!    parent cluster (the spacing of `x`'s neighbours). `x` lies inside it, and it reaches the
//!    points deeper inside (or farther outside), which a point very close to the surface
//!    could not reach with its own small ball. A point already inside a ball of a point before
//!    it in its leaf gets none of its own;
//! 2. every point inside a clear ball joins the ball's group (union–find), which links
//!    overlapping clusters and pulls the points near the surface into the groups around them.
//!
//! For points spread through a volume, only points near edges and vertices of the surface,
//! near thin parts, or on it stay alone. Whatever balls are chosen, each is tested clear, so
//! the choice only decides how many groups remain, never an answer.
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
const POINTS_PER_LEAF: usize = 8;

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
    fn clear_radius(&self, x: DVec3) -> (f64, DVec3) {
        let (mut best, mut nearest) = (f64::INFINITY, x);
        let mut stack = vec![0usize];
        while let Some(s) = stack.pop() {
            let node = &self.tree.nodes[s];
            if (x - node.centre).length() - node.radius * (1.0 + 1e-9) >= best {
                continue;
            }
            if node.is_leaf() {
                for &[a, b, c] in &self.corners_in_order[node.items.clone()] {
                    let y = Triangle::new(a, b, c).closest_point(x);
                    if (y - x).length() < best {
                        (best, nearest) = ((y - x).length(), y);
                    }
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
        ((best * (1.0 - 1e-9) - 2.0 * self.slack(x)).max(0.0), nearest)
    }
}

/// Union–find over positions in the point tree's order: union by size, path halving.
struct Components {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl Components {
    fn new(count: usize) -> Self {
        Self { parent: (0..count as u32).collect(), size: vec![1; count] }
    }

    fn find(&mut self, mut i: u32) -> u32 {
        while self.parent[i as usize] != i {
            let grandparent = self.parent[self.parent[i as usize] as usize];
            self.parent[i as usize] = grandparent;
            i = grandparent;
        }
        i
    }

    fn join(&mut self, a: u32, b: u32) {
        let (a, b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        let (small, large) = if self.size[a as usize] < self.size[b as usize] { (a, b) } else { (b, a) };
        self.parent[small as usize] = large;
        self.size[large as usize] += self.size[small as usize];
    }
}

/// A ball clear of the surface, made while visiting the point-tree cluster `origin`, whose
/// points all join the group of the point at position `member`.
#[derive(Debug, Clone, Copy)]
struct ClearBall {
    centre: DVec3,
    radius: f64,
    member: u32,
    origin: u32,
}

impl ClearBall {
    /// The smallest cluster containing `origin` whose cube contains the ball (the root if
    /// none): every point in the ball lies in its subtree, since a cluster holds exactly the
    /// points in its cube.
    fn search_root(&self, tree: &Octree) -> usize {
        let mut cluster = self.origin as usize;
        loop {
            let node = &tree.nodes[cluster];
            let offset = (self.centre - node.centre).abs().max_element();
            match node.parent {
                Some(parent) if offset + self.radius >= node.half => cluster = parent,
                _ => return cluster,
            }
        }
    }
}

/// The position (in `tree.order`) of every point of the subtree of `start` within distance
/// `radius` of `centre`, each passed to `visit`.
fn points_in_ball(
    tree: &Octree,
    points: &[DVec3],
    start: usize,
    centre: DVec3,
    radius: f64,
    mut visit: impl FnMut(u32),
) {
    let mut stack = vec![start];
    while let Some(t) = stack.pop() {
        let node = &tree.nodes[t];
        let distance = (centre - node.centre).length();
        if distance > radius + node.radius {
            continue;
        }
        if distance + node.radius <= radius {
            node.items.clone().for_each(|position| visit(position as u32));
        } else if node.is_leaf() {
            for position in node.items.clone() {
                if (points[tree.order[position] as usize] - centre).length() <= radius {
                    visit(position as u32);
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
    let balls: Vec<ClearBall> = frontier
        .par_iter()
        .flat_map_iter(|&root| {
            let mut balls = Vec::new();
            let mut stack = vec![root];
            while let Some(t) = stack.pop() {
                let node = &tree.nodes[t];
                let origin = t as u32;
                if node.items.len() > 1 && mesh.ball_is_clear(node.centre, node.radius) {
                    let member = node.items.start as u32;
                    balls.push(ClearBall { centre: node.centre, radius: node.radius, member, origin });
                } else if node.is_leaf() {
                    let reach = node.parent.map_or(node.radius, |parent| tree.nodes[parent].radius);
                    let first_of_leaf = balls.len();
                    for position in node.items.clone() {
                        let (x, position) = (points[tree.order[position] as usize], position as u32);
                        // A point inside a ball of a point before it joins that ball's group.
                        if balls[first_of_leaf..].iter().any(|ball| (x - ball.centre).length() < ball.radius)
                        {
                            continue;
                        }
                        let (radius, nearest) = mesh.clear_radius(x);
                        balls.push(ClearBall { centre: x, radius, member: position, origin });
                        if radius > 0.0 && reach > radius {
                            let away = (x - nearest).normalize();
                            let (centre, r) = (x + away * reach, reach + 0.5 * radius);
                            if away.is_finite() && mesh.ball_is_clear(centre, r) {
                                balls.push(ClearBall { centre, radius: r, member: position, origin });
                            }
                        }
                    }
                } else {
                    stack.extend(node.children.clone().rev());
                }
            }
            balls
        })
        .collect();
    // Step 2: every point inside a clear ball joins the ball's group. Union–find runs over
    // positions in the tree's order, where a cluster's points are contiguous.
    let mut components = Components::new(points.len());
    for ball in balls.iter().filter(|ball| ball.radius > 0.0) {
        let start = ball.search_root(&tree);
        points_in_ball(&tree, points, start, ball.centre, ball.radius, |position| {
            components.join(ball.member, position);
        });
    }
    // Each group is represented by its least point index; numbering the representatives in
    // index order keeps them increasing.
    let roots: Vec<u32> = (0..points.len() as u32).map(|position| components.find(position)).collect();
    let mut least = vec![u32::MAX; points.len()];
    for (position, &root) in roots.iter().enumerate() {
        least[root as usize] = least[root as usize].min(tree.order[position]);
    }
    let mut is_representative = vec![false; points.len()];
    for (position, &root) in roots.iter().enumerate() {
        if root as usize == position {
            is_representative[least[position] as usize] = true;
        }
    }
    // `rank[i]`: the position of representative `i` among the representatives.
    let mut grouping = Grouping { representatives: Vec::new(), group_of: vec![0; points.len()] };
    let mut rank = vec![u32::MAX; points.len()];
    for i in (0..points.len()).filter(|&i| is_representative[i]) {
        rank[i] = grouping.representatives.len() as u32;
        grouping.representatives.push(i as u32);
    }
    for (position, &root) in roots.iter().enumerate() {
        grouping.group_of[tree.order[position] as usize] = rank[least[root as usize] as usize];
    }
    grouping
}

#[cfg(test)]
mod tests {
    use super::*;
    use geometry_core::generators::octa_sphere;

    /// On octa-spheres and a foam: every grouped point has its representative's
    /// classification, by ray crossing (an independent oracle), and most points are grouped,
    /// each group represented by its least point.
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
                // The representative is its group's least point.
                assert!(rep <= i && grouping.group_of[rep] == grouping.group_of[i]);
            }
            assert!(grouping.representatives.windows(2).all(|w| w[0] < w[1]));
            assert_eq!(grouping.group_of.len(), points.len());
        }
    }
}
