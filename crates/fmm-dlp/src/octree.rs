//! The cluster trees: octrees over triangle centroids (the mesh tree) and over evaluation
//! points (the evaluation tree), built breadth first so that every node's children are
//! contiguous and come after it.

use geometry_core::DVec3;
use std::ops::Range;

/// One cluster: a cube of the octree and the items whose reference point lies in it.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    /// The cube's centre `C(ω)`, the expansion centre.
    pub(crate) centre: DVec3,
    /// The cube's half edge.
    pub(crate) half: f64,
    /// `sup |x − C|` over the cluster's items (whole triangles for the mesh tree).
    pub(crate) radius: f64,
    /// The cluster's items: `order[items]`.
    pub(crate) items: Range<usize>,
    /// The children: `nodes[children]` (empty for a leaf).
    pub(crate) children: Range<usize>,
    pub(crate) parent: Option<usize>,
    pub(crate) level: u32,
}

impl Node {
    pub(crate) fn is_leaf(&self) -> bool {
        self.children.is_empty()
    }
}

/// An octree over items with reference points.
#[derive(Debug, Clone, Default)]
pub(crate) struct Octree {
    pub(crate) nodes: Vec<Node>,
    /// Item indices, grouped by cluster.
    pub(crate) order: Vec<u32>,
}

impl Octree {
    /// Splits clusters with more than `max_leaf` items, down to `max_level`. `reference[i]` places
    /// item `i`; `reach(i, c)` is the distance from `c` to the farthest point of item `i`.
    pub(crate) fn build(
        reference: &[DVec3],
        reach: impl Fn(usize, DVec3) -> f64,
        max_leaf: usize,
        max_level: u32,
    ) -> Self {
        Self::build_until(reference, reach, max_leaf, max_level, 0.0)
    }

    /// As [`build`](Self::build), but never splits a cube whose half edge is below `min_half`.
    pub(crate) fn build_until(
        reference: &[DVec3],
        reach: impl Fn(usize, DVec3) -> f64,
        max_leaf: usize,
        max_level: u32,
        min_half: f64,
    ) -> Self {
        let mut tree = Self::subdivide(reference, max_leaf, max_level, min_half);
        for node in &mut tree.nodes {
            node.radius = tree.order[node.items.clone()]
                .iter()
                .map(|&i| reach(i as usize, node.centre))
                .fold(0.0, f64::max);
        }
        tree
    }

    /// The cubes of [`build_until`](Self::build_until) with every radius left at 0.
    pub(crate) fn subdivide(reference: &[DVec3], max_leaf: usize, max_level: u32, min_half: f64) -> Self {
        let mut order: Vec<u32> = (0..reference.len() as u32).collect();
        let (mut low, mut high) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
        for &p in reference {
            low = low.min(p);
            high = high.max(p);
        }
        if reference.is_empty() {
            (low, high) = (DVec3::ZERO, DVec3::ZERO);
        }
        let centre = 0.5 * (low + high);
        // Slightly larger than the extent so that no reference point sits on the outer faces.
        let half = (0.5 * (high - low).max_element()).max(f64::MIN_POSITIVE) * (1.0 + 1e-9);
        let mut nodes = vec![Node {
            centre,
            half,
            radius: 0.0,
            items: 0..order.len(),
            children: 0..0,
            parent: None,
            level: 0,
        }];
        let (mut octants, mut buffer): (Vec<u8>, Vec<u32>) = (Vec::new(), Vec::new());
        let mut next = 0;
        while next < nodes.len() {
            let node = nodes[next].clone();
            if node.items.len() > max_leaf && node.level < max_level && node.half >= min_half {
                // Bucket the items by octant: a stable counting sort, so that the tree is
                // deterministic, in linear time.
                let octant = |i: u32| {
                    let p = reference[i as usize];
                    usize::from(p.x >= node.centre.x)
                        | usize::from(p.y >= node.centre.y) << 1
                        | usize::from(p.z >= node.centre.z) << 2
                };
                let mut counts = [0usize; 8];
                octants.clear();
                octants.extend(order[node.items.clone()].iter().map(|&i| octant(i) as u8));
                for &o in &octants {
                    counts[o as usize] += 1;
                }
                let mut next_slot = [0usize; 8];
                for o in 1..8 {
                    next_slot[o] = next_slot[o - 1] + counts[o - 1];
                }
                buffer.clear();
                buffer.resize(node.items.len(), 0);
                for (&i, &o) in order[node.items.clone()].iter().zip(&octants) {
                    buffer[next_slot[o as usize]] = i;
                    next_slot[o as usize] += 1;
                }
                order[node.items.clone()].copy_from_slice(&buffer);
                let first_child = nodes.len();
                let mut start = node.items.start;
                for (o, &count) in counts.iter().enumerate() {
                    if count == 0 {
                        continue;
                    }
                    let offset = DVec3::new(
                        if o & 1 == 1 { 0.5 } else { -0.5 },
                        if o & 2 == 2 { 0.5 } else { -0.5 },
                        if o & 4 == 4 { 0.5 } else { -0.5 },
                    ) * node.half;
                    nodes.push(Node {
                        centre: node.centre + offset,
                        half: 0.5 * node.half,
                        radius: 0.0,
                        items: start..start + count,
                        children: 0..0,
                        parent: Some(next),
                        level: node.level + 1,
                    });
                    start += count;
                }
                nodes[next].children = first_child..nodes.len();
            }
            next += 1;
        }
        Self { nodes, order }
    }

    /// Sizes every cluster by its `selected` items only (radius 0 without any) and returns
    /// their number per cluster. One pass over the leaves finds the selected items, and each
    /// updates the clusters on its way to the root: the cost is the number of items plus the
    /// selection times the depth, not every item times the depth.
    pub(crate) fn fit_to_selected(
        &mut self,
        selected: &[bool],
        reach: impl Fn(usize, DVec3) -> f64,
    ) -> Vec<usize> {
        let mut counts = vec![0; self.nodes.len()];
        self.nodes.iter_mut().for_each(|node| node.radius = 0.0);
        for leaf in 0..self.nodes.len() {
            if !self.nodes[leaf].is_leaf() {
                continue;
            }
            for position in self.nodes[leaf].items.clone() {
                let item = self.order[position] as usize;
                if !selected[item] {
                    continue;
                }
                let mut cluster = Some(leaf);
                while let Some(c) = cluster {
                    let node = &mut self.nodes[c];
                    counts[c] += 1;
                    node.radius = node.radius.max(reach(item, node.centre));
                    cluster = node.parent;
                }
            }
        }
        counts
    }

    /// The deepest level.
    pub(crate) fn depth(&self) -> u32 {
        self.nodes.iter().map(|n| n.level).max().unwrap_or(0)
    }
}
