//! Oracles for the `LaguerreDelaunay` tests, written from the definitions alone. They read only
//! public data (centres, radii, velocities, the box) and share no code with the crate.
//!
//! * [`PowerDiagram`]: which pairs of disks have power cells that share a boundary, from the
//!   definition. The cell of `i` is `{x : pow_i(x) <= pow_k(x) ∀k}` with
//!   `pow_i(x) = |x − p_i|² − r_i²`. On the power bisector line of `i` and `j`
//!   (`pow_i = pow_j`), parametrised as `x(t) = m + t n̂`, each other site `k` contributes the
//!   half-line `pow_i(x(t)) <= pow_k(x(t))`, i.e. `a_k t <= b_k`; the common boundary is the
//!   intersection of those half-lines, a 1-D linear program. Its classification:
//!   - [`Contact::Segment`]: positive length (the pair is an edge of every regular
//!     triangulation of the centres);
//!   - [`Contact::Point`]: a single point, where four or more cells meet (a co-circular quad:
//!     the pair is an optional, flippable diagonal);
//!   - empty (not stored): the pair is never an edge.
//!
//!   Floating point decides when the interval's width is clear of a generous margin (`1e-8` of
//!   the coordinate scale); otherwise the few constraints that can bind are redone in exact
//!   rational arithmetic (every `f64` is a dyadic rational), so exactly degenerate inputs
//!   (lattices, integer points on a circle) are classified exactly.
//! * [`check_triangulation`]: compares a structure's particle–particle edge set with the
//!   diagram (see there for exactly what is required).
//! * [`next_collisions`]: the brute-force next collision of a state (every pair, every wall,
//!   constant gravity), with a time tolerance per candidate.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use kinetic_cdo::{CollisionKind, State};

use exact::Dyadic;

fn sub(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    [a[0] - b[0], a[1] - b[1]]
}

fn dot(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

/// One half-line constraint `a t <= b` on the bisector, in floating point.
struct Constraint {
    k: usize,
    a: f64,
    b: f64,
    /// `|e_k|`, for the near-parallel test.
    reach: f64,
}

/// A disk: centre and radius.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Disk {
    pub(crate) centre: [f64; 2],
    pub(crate) radius: f64,
}

/// The disks of a state now.
pub(crate) fn disks_of(state: &State<2>) -> Vec<Disk> {
    (0..state.len()).map(|i| Disk { centre: state.position(i), radius: state.radius(i) }).collect()
}

/// How the power cells of a pair meet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Contact {
    /// A common boundary of positive length.
    Segment {
        /// Its length (infinite for an unbounded boundary).
        length: f64,
        /// The length of the part inside the region of interest.
        length_in_region: f64,
        /// Whether both ends are finite.
        bounded: bool,
    },
    /// A single common point (a degenerate power vertex).
    Point,
}

/// The adjacency of the power diagram of a set of disks.
#[derive(Debug, Clone)]
pub(crate) struct PowerDiagram {
    disks: Vec<Disk>,
    /// For every i, the other sites by distance.
    order: Vec<Vec<usize>>,
    region: [[f64; 2]; 2],
    /// Every pair `[i, j]` (`i < j`) whose cells clearly meet in a segment.
    contacts: HashMap<[usize; 2], Contact>,
    /// Pairs the floating-point filter could not classify: decided exactly on demand.
    ambiguous: HashSet<[usize; 2]>,
    /// The tolerance on lengths used for "clearly positive".
    pub(crate) margin: f64,
}

impl PowerDiagram {
    /// The diagram of `disks`; `region` (`[min, max]` corners) is the rectangle in which
    /// [`Contact::Segment::length_in_region`] is measured.
    pub(crate) fn new(disks: &[Disk], region: [[f64; 2]; 2]) -> Self {
        let n = disks.len();
        let scale = disks
            .iter()
            .map(|d| d.centre[0].abs().max(d.centre[1].abs()) + d.radius)
            .fold(1.0f64, f64::max)
            .max(region[1][0] - region[0][0])
            .max(region[1][1] - region[0][1]);
        let margin = 1e-8 * scale;
        // For every i, the other sites by distance (nearby constraints empty the interval of a
        // non-adjacent pair after a few steps).
        let order: Vec<Vec<usize>> = (0..n)
            .map(|i| {
                let mut o: Vec<usize> = (0..n).filter(|&k| k != i).collect();
                o.sort_by(|&a, &b| {
                    let da = sub(disks[a].centre, disks[i].centre);
                    let db = sub(disks[b].centre, disks[i].centre);
                    dot(da, da).total_cmp(&dot(db, db))
                });
                o
            })
            .collect();
        let mut contacts = HashMap::new();
        let mut ambiguous = HashSet::new();
        for (i, order_i) in order.iter().enumerate() {
            for j in i + 1..n {
                match classify_pair(disks, i, j, order_i, margin, region) {
                    Classified::Empty => {}
                    Classified::Known(c) => {
                        contacts.insert([i, j], c);
                    }
                    Classified::Ambiguous(_) => {
                        ambiguous.insert([i, j]);
                    }
                }
            }
        }
        Self { disks: disks.to_vec(), order, region, contacts, ambiguous, margin }
    }

    /// The contact of `i` and `j`, if their cells meet (decided exactly if it is a near-tie).
    pub(crate) fn contact(&self, i: usize, j: usize) -> Option<Contact> {
        let key = [i.min(j), i.max(j)];
        if let Some(c) = self.contacts.get(&key) {
            return Some(*c);
        }
        if !self.ambiguous.contains(&key) {
            return None;
        }
        let [i, j] = key;
        let Classified::Ambiguous(near) =
            classify_pair(&self.disks, i, j, &self.order[i], self.margin, self.region)
        else {
            unreachable!("the classification is deterministic")
        };
        match exact_interval(&self.disks, i, j, &near) {
            // Positive but below the margin: a segment too short to require.
            Ordering::Less => Some(Contact::Segment { length: 0.0, length_in_region: 0.0, bounded: true }),
            Ordering::Equal => Some(Contact::Point),
            Ordering::Greater => None,
        }
    }

    /// The pairs whose cells clearly share a segment, with it.
    pub(crate) fn segments(&self) -> impl Iterator<Item = ([usize; 2], Contact)> + '_ {
        self.contacts.iter().map(|(k, c)| (*k, *c))
    }

    /// How many pairs floating point could not classify (near-ties: degenerate or nearly so).
    pub(crate) fn near_ties(&self) -> usize {
        self.ambiguous.len()
    }

    /// Whether floating point could not classify the pair (its interval is within the margin
    /// of a single point).
    pub(crate) fn is_near_tie(&self, i: usize, j: usize) -> bool {
        self.ambiguous.contains(&[i.min(j), i.max(j)])
    }
}

enum Classified {
    Empty,
    Known(Contact),
    /// Too close to call: the indices of the constraints that may bind.
    Ambiguous(Vec<usize>),
}

fn classify_pair(
    disks: &[Disk],
    i: usize,
    j: usize,
    order: &[usize],
    margin: f64,
    region: [[f64; 2]; 2],
) -> Classified {
    // Coordinates relative to p_i (no cancellation of |p|² terms).
    let pi = disks[i].centre;
    let ri2 = disks[i].radius * disks[i].radius;
    let d = sub(disks[j].centre, pi);
    let dd = dot(d, d);
    let len = dd.sqrt();
    let nhat = [-d[1] / len, d[0] / len];
    // The bisector 2 x·d = |d|² − r_j² + r_i², through m = s d.
    let s = (dd - disks[j].radius * disks[j].radius + ri2) / (2.0 * dd);
    let m = [s * d[0], s * d[1]];
    let mut lo = f64::NEG_INFINITY;
    let mut hi = f64::INFINITY;
    let mut constraints = Vec::with_capacity(16);
    let mut parallel_tie = false;
    for &k in order {
        if k == j {
            continue;
        }
        let e = sub(disks[k].centre, pi);
        let reach = dot(e, e).sqrt();
        // pow_i(x) <= pow_k(x)  ⟺  2 x·e <= |e|² − r_k² + r_i², with x = m + t n̂.
        let a = 2.0 * dot(nhat, e);
        let b = dot(e, e) - disks[k].radius * disks[k].radius + ri2 - 2.0 * dot(m, e);
        if a.abs() <= 1e-9 * reach {
            // k's bisector with i is (nearly) parallel to this one.
            if b < -margin * reach {
                return Classified::Empty;
            }
            if b <= margin * reach {
                parallel_tie = true;
            }
        } else if a > 0.0 {
            hi = hi.min(b / a);
        } else {
            lo = lo.max(b / a);
        }
        constraints.push(Constraint { k, a, b, reach });
        if lo > hi + margin && !parallel_tie {
            return Classified::Empty;
        }
    }
    let width = hi - lo;
    if width > margin && !parallel_tie {
        let bounded = lo.is_finite() && hi.is_finite();
        // The region: x_c in [min_c, max_c] on both axes.
        let (mut rlo, mut rhi) = (lo, hi);
        for c in 0..2 {
            let base = pi[c] + m[c];
            if nhat[c].abs() < 1e-300 {
                if base < region[0][c] || base > region[1][c] {
                    rhi = rlo - 1.0;
                }
                continue;
            }
            let (t0, t1) = ((region[0][c] - base) / nhat[c], (region[1][c] - base) / nhat[c]);
            rlo = rlo.max(t0.min(t1));
            rhi = rhi.min(t0.max(t1));
        }
        let length_in_region = (rhi - rlo).max(0.0);
        return Classified::Known(Contact::Segment { length: width, length_in_region, bounded });
    }
    if width < -margin && !parallel_tie {
        return Classified::Empty;
    }
    // Ambiguous: keep the constraints that can bind (near the interval's ends, or parallel).
    let near_band = 1e3 * margin;
    let near = constraints
        .iter()
        .filter(|c| {
            if c.a.abs() <= 1e-6 * c.reach {
                return true;
            }
            let t = c.b / c.a;
            if c.a > 0.0 { t <= hi + near_band } else { t >= lo - near_band }
        })
        .map(|c| c.k)
        .collect();
    Classified::Ambiguous(near)
}

/// The exact interval of `i` and `j` against the constraints of `ks`: `Less` if it has positive
/// length, `Equal` if it is a point, `Greater` if empty.
///
/// Exact dyadic arithmetic, without division: with the origin at `p_i`, `e_k = p_k − p_i`,
/// `d = e_j` and the (unnormalised) normal `n = (−d_y, d_x)`, site `k` bounds `t` by
/// `a_k t <= b_k` with `a_k = 2 n·e_k` and `b_k = B_k / (2|d|²)`,
/// `B_k = 2|d|² (|e_k|² − r_k² + r_i²) − 2 S (d·e_k)`, `S = |d|² − r_j² + r_i²`. The common
/// positive factor `2|d|²` does not change any comparison, so bounds are the fractions
/// `B_k / a_k`, compared by cross-multiplication.
fn exact_interval(disks: &[Disk], i: usize, j: usize, ks: &[usize]) -> Ordering {
    let x = |v: f64| Dyadic::from_f64(v);
    let rel = |k: usize| {
        [x(disks[k].centre[0]).sub(&x(disks[i].centre[0])), x(disks[k].centre[1]).sub(&x(disks[i].centre[1]))]
    };
    let square = |r: f64| x(r).mul(&x(r));
    let ri2 = square(disks[i].radius);
    let d = rel(j);
    let dd = d[0].mul(&d[0]).add(&d[1].mul(&d[1]));
    let s_big = dd.sub(&square(disks[j].radius)).add(&ri2);
    let two = x(2.0);
    // Fractions num / den with den > 0.
    let mut lo: Option<(Dyadic, Dyadic)> = None;
    let mut hi: Option<(Dyadic, Dyadic)> = None;
    let less =
        |p: &(Dyadic, Dyadic), q: &(Dyadic, Dyadic)| p.0.mul(&q.1).cmp(&q.0.mul(&p.1)) == Ordering::Less;
    for &k in ks {
        let e = rel(k);
        let a = two.mul(&d[0].mul(&e[1]).sub(&d[1].mul(&e[0])));
        let ee = e[0].mul(&e[0]).add(&e[1].mul(&e[1]));
        let de = d[0].mul(&e[0]).add(&d[1].mul(&e[1]));
        let b = two.mul(&dd).mul(&ee.sub(&square(disks[k].radius)).add(&ri2)).sub(&two.mul(&s_big).mul(&de));
        match a.sign() {
            Ordering::Equal => {
                if b.sign() == Ordering::Less {
                    return Ordering::Greater;
                }
            }
            Ordering::Greater => {
                let t = (b, a);
                if hi.as_ref().is_none_or(|h| less(&t, h)) {
                    hi = Some(t);
                }
            }
            Ordering::Less => {
                let t = (b.neg(), a.neg());
                if lo.as_ref().is_none_or(|l| less(l, &t)) {
                    lo = Some(t);
                }
            }
        }
    }
    match (lo, hi) {
        (Some(lo), Some(hi)) => lo.0.mul(&hi.1).cmp(&hi.0.mul(&lo.1)),
        _ => Ordering::Less,
    }
}

/// Exact orientation of `(a, b, c)`: `Greater` when counter-clockwise.
pub(crate) fn orient(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> Ordering {
    let (u, v) = (sub(b, a), sub(c, a));
    let det = u[0] * v[1] - u[1] * v[0];
    let bound = 1e-14 * ((u[0] * v[1]).abs() + (u[1] * v[0]).abs());
    if det > bound {
        return Ordering::Greater;
    }
    if det < -bound {
        return Ordering::Less;
    }
    let x = |v: f64| Dyadic::from_f64(v);
    let (ax, ay) = (x(a[0]), x(a[1]));
    let (ux, uy) = (x(b[0]).sub(&ax), x(b[1]).sub(&ay));
    let (vx, vy) = (x(c[0]).sub(&ax), x(c[1]).sub(&ay));
    ux.mul(&vy).sub(&uy.mul(&vx)).sign()
}

/// Whether `c` lies strictly inside segment `ab` (given that the three are collinear).
fn strictly_between(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> bool {
    let inside = |lo: f64, hi: f64, x: f64| lo.min(hi) < x && x < lo.max(hi);
    if a[0] == b[0] { inside(a[1], b[1], c[1]) } else { inside(a[0], b[0], c[0]) }
}

/// Whether segments `ab` and `cd` (no shared endpoint) cross or overlap anywhere but at
/// endpoints, or one passes through an endpoint of the other.
pub(crate) fn segments_conflict(a: [f64; 2], b: [f64; 2], c: [f64; 2], d: [f64; 2]) -> bool {
    let (o1, o2) = (orient(a, b, c), orient(a, b, d));
    let (o3, o4) = (orient(c, d, a), orient(c, d, b));
    let proper = o1 != Ordering::Equal
        && o2 != Ordering::Equal
        && o1 != o2
        && o3 != Ordering::Equal
        && o4 != Ordering::Equal
        && o3 != o4;
    proper
        || (o1 == Ordering::Equal && strictly_between(a, b, c))
        || (o2 == Ordering::Equal && strictly_between(a, b, d))
        || (o3 == Ordering::Equal && strictly_between(c, d, a))
        || (o4 == Ordering::Equal && strictly_between(c, d, b))
}

/// The points on the boundary of the convex hull, as consecutive pairs along each hull side
/// (collinear boundary points included), and their number. `None` if every point is collinear.
pub(crate) fn hull_boundary(points: &[[f64; 2]]) -> Option<(Vec<[usize; 2]>, usize)> {
    let n = points.len();
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by(|&a, &b| points[a][0].total_cmp(&points[b][0]).then(points[a][1].total_cmp(&points[b][1])));
    // Andrew's monotone chain, strict hull (collinear points dropped).
    let mut hull: Vec<usize> = Vec::new();
    for pass in 0..2 {
        let start = hull.len();
        let seq: Vec<usize> = if pass == 0 { idx.clone() } else { idx.iter().rev().copied().collect() };
        for &p in &seq {
            while hull.len() >= start + 2
                && orient(points[hull[hull.len() - 2]], points[hull[hull.len() - 1]], points[p])
                    != Ordering::Greater
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    if hull.len() < 3 {
        return None;
    }
    let mut pairs = Vec::new();
    let mut on_boundary = vec![false; n];
    for s in 0..hull.len() {
        let (u, v) = (hull[s], hull[(s + 1) % hull.len()]);
        let (a, b) = (points[u], points[v]);
        let mut side: Vec<usize> = (0..n)
            .filter(|&p| {
                p == u
                    || p == v
                    || (orient(a, b, points[p]) == Ordering::Equal && strictly_between(a, b, points[p]))
            })
            .collect();
        let dir = sub(b, a);
        side.sort_by(|&x, &y| dot(sub(points[x], a), dir).total_cmp(&dot(sub(points[y], a), dir)));
        for w in side.windows(2) {
            pairs.push([w[0].min(w[1]), w[0].max(w[1])]);
        }
        for p in side {
            on_boundary[p] = true;
        }
    }
    Some((pairs, on_boundary.iter().filter(|&&b| b).count()))
}

/// What [`check_triangulation`] found.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Comparison {
    /// Structure edges that are segments of the diagram.
    pub(crate) segments: usize,
    /// Structure edges that are degenerate (single-point) contacts.
    pub(crate) points: usize,
    /// Structure edges between cells that do not touch, exactly, but only by a near-tie
    /// (accepted only when asked to tolerate them).
    pub(crate) tolerated: usize,
    /// Diagram segments near the hull not required (too little of them inside the region).
    pub(crate) unrequired: usize,
    /// Whether the edge count was checked against Euler's formula (all hull sides present).
    pub(crate) euler_checked: bool,
}

/// Checks a structure's particle–particle edge set `edges` (sorted) against the diagram of
/// `disks`:
///
/// 1. every edge is a contact of the diagram (segment or point): no edge between cells that do
///    not touch (the structure's extra bounding vertices can only remove edges of the centres'
///    own triangulation, never add one); with `tolerate_near_ties`, an edge whose cells miss
///    each other only by a near-tie (an interval empty by less than the margin) is accepted and
///    counted, and treated like a point contact below;
/// 2. every diagram segment with more than `margin` of its length inside the region is an
///    edge (far outside the box the structure's bounding vertices may own the plane, so an
///    unbounded or far-reaching boundary is only required where it is near the particles);
/// 3. no degenerate (point-contact) edge crosses, overlaps or passes through another edge (so
///    the flippable diagonals chosen form a plane graph);
/// 4. if every side of the convex hull of the centres is an edge, the structure restricted to
///    the particles is a triangulation of the hull, so it has exactly `3n − 3 − h` edges, `h`
///    the number of centres on the hull's boundary (Euler); `n − 1` if all are collinear.
pub(crate) fn check_triangulation(
    edges: &[[usize; 2]],
    disks: &[Disk],
    diagram: &PowerDiagram,
    tolerate_near_ties: bool,
) -> Result<Comparison, String> {
    let mut out = Comparison::default();
    for w in edges.windows(2) {
        if w[0] >= w[1] {
            return Err(format!("edges not sorted and unique: {:?} then {:?}", w[0], w[1]));
        }
    }
    let mut point_edges = Vec::new();
    for &[i, j] in edges {
        if i >= j {
            return Err(format!("edge [{i}, {j}] not in increasing order"));
        }
        match diagram.contact(i, j) {
            None if tolerate_near_ties && diagram.is_near_tie(i, j) => {
                out.tolerated += 1;
                point_edges.push([i, j]);
            }
            None => {
                return Err(format!(
                    "edge [{i}, {j}] joins disks whose power cells do not touch: {:?} and {:?}",
                    disks[i], disks[j]
                ));
            }
            Some(Contact::Point) => {
                out.points += 1;
                point_edges.push([i, j]);
            }
            Some(Contact::Segment { .. }) => out.segments += 1,
        }
    }
    let mut missing = Vec::new();
    for (pair, contact) in diagram.segments() {
        if let Contact::Segment { length_in_region, .. } = contact {
            if length_in_region > diagram.margin {
                if edges.binary_search(&pair).is_err() {
                    missing.push((pair, contact));
                }
            } else {
                out.unrequired += 1;
            }
        }
    }
    if !missing.is_empty() {
        missing.sort_by_key(|m| m.0);
        let shown: Vec<String> = missing
            .iter()
            .take(5)
            .map(|(p, c)| format!("{p:?} {c:?} ({:?}, {:?})", disks[p[0]], disks[p[1]]))
            .collect();
        return Err(format!("{} power-diagram edges missing, e.g. {}", missing.len(), shown.join("; ")));
    }
    for &[i, j] in &point_edges {
        for &[k, l] in edges {
            if [k, l] == [i, j] || k == i || k == j || l == i || l == j {
                continue;
            }
            let c = |x: usize| disks[x].centre;
            if segments_conflict(c(i), c(j), c(k), c(l)) {
                return Err(format!("degenerate edge [{i}, {j}] crosses edge [{k}, {l}]"));
            }
        }
    }
    let centres: Vec<[f64; 2]> = disks.iter().map(|d| d.centre).collect();
    match hull_boundary(&centres) {
        None => {
            out.euler_checked = true;
            if edges.len() != disks.len() - 1 {
                return Err(format!(
                    "collinear centres: {} edges, expected {}",
                    edges.len(),
                    disks.len() - 1
                ));
            }
        }
        Some((sides, h)) => {
            if sides.iter().all(|p| edges.binary_search(p).is_ok()) {
                out.euler_checked = true;
                let expected = 3 * disks.len() - 3 - h;
                if edges.len() != expected {
                    return Err(format!(
                        "{} edges but a triangulation of {} centres with {h} on the hull boundary has {expected}",
                        edges.len(),
                        disks.len()
                    ));
                }
            }
        }
    }
    Ok(out)
}

/// A collision the oracle predicts: what, when (absolute), and the tolerance on the time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Predicted {
    pub(crate) kind: CollisionKind,
    pub(crate) time: f64,
    pub(crate) tolerance: f64,
}

/// The first `τ >= 0` at which the gap `h + bτ + ½aτ²` closes while decreasing, and the closing
/// speed then.
fn gap_closing(h: f64, b: f64, a: f64) -> Option<(f64, f64)> {
    if h <= 0.0 && b < 0.0 {
        return Some((0.0, -b));
    }
    if a == 0.0 {
        return (b < 0.0).then(|| (h.max(0.0) / -b, -b));
    }
    let disc = b * b - 2.0 * a * h;
    if disc <= 0.0 {
        return None;
    }
    let sq = disc.sqrt();
    // The root where the rate b + aτ is −sq.
    let tau = if -b + sq > 0.0 { 2.0 * h / (-b + sq) } else { (-b - sq) / a };
    (tau >= 0.0).then_some((tau, sq))
}

/// Every collision that can be the next one from `state` now: the earliest over all pairs and
/// walls, and every other within the combined tolerances (a near-tie). Assumes fixed radii.
/// Pair times: the first `τ >= 0` with `|d + uτ| = σ` while approaching (gravity cancels),
/// computed as `τ = c / (−b + √(b² − ac))`; tolerance `1e-12 · max(t, 1)` plus the propagation
/// of coordinate rounding through a grazing contact (`~ε L σ / √disc`).
pub(crate) fn next_collisions(state: &State<2>) -> Vec<Predicted> {
    let n = state.len();
    let now = state.now();
    let lengths = state.sim_box().lengths();
    let g = state.gravity();
    let eps = f64::EPSILON;
    let scale = lengths[0].max(lengths[1]);
    let x: Vec<[f64; 2]> = (0..n).map(|i| state.position(i)).collect();
    let v: Vec<[f64; 2]> = (0..n).map(|i| state.velocity(i)).collect();
    let r: Vec<f64> = (0..n).map(|i| state.radius(i)).collect();
    let base = |t: f64| 1e-12 * t.abs().max(1.0);
    let mut all = Vec::new();
    for i in 0..n {
        for k in i + 1..n {
            let d = sub(x[k], x[i]);
            let u = sub(v[k], v[i]);
            let sigma = r[i] + r[k];
            let b = dot(d, u);
            if b >= 0.0 {
                continue;
            }
            let c = dot(d, d) - sigma * sigma;
            let kind = CollisionKind::Pair(i, k);
            if c <= 0.0 {
                all.push(Predicted { kind, time: now, tolerance: base(now) });
                continue;
            }
            let a = dot(u, u);
            let disc = b * b - a * c;
            if disc < 0.0 {
                continue;
            }
            let sq = disc.sqrt();
            let tau = c / (-b + sq);
            let time = now + tau;
            let grazing = if sq > 0.0 { 64.0 * eps * scale * sigma / sq } else { f64::INFINITY };
            all.push(Predicted { kind, time, tolerance: base(time) + grazing.min(1e-6 * tau.max(1.0)) });
        }
        for axis in 0..2 {
            for high in [false, true] {
                let (h, b, a) = if high {
                    (lengths[axis] - x[i][axis] - r[i], -v[i][axis], -g[axis])
                } else {
                    (x[i][axis] - r[i], v[i][axis], g[axis])
                };
                if let Some((tau, speed)) = gap_closing(h, b, a) {
                    let time = now + tau;
                    let slow = if speed > 0.0 { 64.0 * eps * scale / speed } else { f64::INFINITY };
                    all.push(Predicted {
                        kind: CollisionKind::Wall { particle: i, axis, high },
                        time,
                        tolerance: base(time) + slow.min(1e-6 * tau.max(1.0)),
                    });
                }
            }
        }
    }
    let Some(first) = all.iter().min_by(|a, b| a.time.total_cmp(&b.time)).copied() else {
        return Vec::new();
    };
    all.retain(|p| p.time <= first.time + first.tolerance + p.tolerance);
    all.sort_by(|a, b| a.time.total_cmp(&b.time));
    all
}

/// Exact arithmetic on dyadic rationals `m · 2^e` (every finite `f64` is one): a small signed
/// big integer of `u32` limbs, written here so the oracle depends on nothing the crate uses.
pub(crate) mod exact {
    use std::cmp::Ordering;

    /// `(−1)^neg · mag · 2^exp`, `mag` little-endian without high zero limbs (zero: empty).
    #[derive(Debug, Clone, PartialEq)]
    pub(crate) struct Dyadic {
        neg: bool,
        mag: Vec<u32>,
        exp: i64,
    }

    fn trim(mut m: Vec<u32>) -> Vec<u32> {
        while m.last() == Some(&0) {
            m.pop();
        }
        m
    }

    fn mag_cmp(a: &[u32], b: &[u32]) -> Ordering {
        a.len().cmp(&b.len()).then_with(|| a.iter().rev().cmp(b.iter().rev()))
    }

    fn mag_add(a: &[u32], b: &[u32]) -> Vec<u32> {
        let mut out = Vec::with_capacity(a.len().max(b.len()) + 1);
        let mut carry = 0u64;
        for k in 0..a.len().max(b.len()) {
            let s = u64::from(*a.get(k).unwrap_or(&0)) + u64::from(*b.get(k).unwrap_or(&0)) + carry;
            out.push(s as u32);
            carry = s >> 32;
        }
        out.push(carry as u32);
        trim(out)
    }

    /// `a − b` for `a >= b`.
    fn mag_sub(a: &[u32], b: &[u32]) -> Vec<u32> {
        let mut out = Vec::with_capacity(a.len());
        let mut borrow = 0i64;
        for (k, &x) in a.iter().enumerate() {
            let mut d = i64::from(x) - i64::from(*b.get(k).unwrap_or(&0)) - borrow;
            borrow = 0;
            if d < 0 {
                d += 1 << 32;
                borrow = 1;
            }
            out.push(d as u32);
        }
        debug_assert_eq!(borrow, 0);
        trim(out)
    }

    fn mag_mul(a: &[u32], b: &[u32]) -> Vec<u32> {
        if a.is_empty() || b.is_empty() {
            return Vec::new();
        }
        let mut out = vec![0u32; a.len() + b.len()];
        for (i, &x) in a.iter().enumerate() {
            let mut carry = 0u64;
            for (j, &y) in b.iter().enumerate() {
                let t = u64::from(x) * u64::from(y) + u64::from(out[i + j]) + carry;
                out[i + j] = t as u32;
                carry = t >> 32;
            }
            let mut k = i + b.len();
            while carry > 0 {
                let t = u64::from(out[k]) + carry;
                out[k] = t as u32;
                carry = t >> 32;
                k += 1;
            }
        }
        trim(out)
    }

    fn mag_shl(a: &[u32], bits: u64) -> Vec<u32> {
        if a.is_empty() {
            return Vec::new();
        }
        let (limbs, rest) = ((bits / 32) as usize, (bits % 32) as u32);
        let mut out = vec![0u32; limbs];
        let mut carry = 0u32;
        for &x in a {
            if rest == 0 {
                out.push(x);
            } else {
                out.push((x << rest) | carry);
                carry = x >> (32 - rest);
            }
        }
        out.push(carry);
        trim(out)
    }

    impl Dyadic {
        /// The exact value of a finite `f64`.
        pub(crate) fn from_f64(x: f64) -> Self {
            assert!(x.is_finite(), "finite input");
            let bits = x.to_bits();
            let neg = bits >> 63 == 1;
            let biased = ((bits >> 52) & 0x7ff) as i64;
            let fraction = bits & ((1 << 52) - 1);
            let (m, exp) =
                if biased == 0 { (fraction, -1074) } else { (fraction | (1 << 52), biased - 1075) };
            let mag = trim(vec![m as u32, (m >> 32) as u32]);
            Self { neg: neg && !mag.is_empty(), mag, exp }
        }

        /// The sign as an ordering against zero.
        pub(crate) fn sign(&self) -> Ordering {
            match (self.mag.is_empty(), self.neg) {
                (true, _) => Ordering::Equal,
                (false, true) => Ordering::Less,
                (false, false) => Ordering::Greater,
            }
        }

        pub(crate) fn neg(&self) -> Self {
            Self { neg: !self.neg && !self.mag.is_empty(), ..self.clone() }
        }

        pub(crate) fn add(&self, other: &Self) -> Self {
            let exp = self.exp.min(other.exp);
            let a = mag_shl(&self.mag, (self.exp - exp) as u64);
            let b = mag_shl(&other.mag, (other.exp - exp) as u64);
            let (neg, mag) = if self.neg == other.neg {
                (self.neg, mag_add(&a, &b))
            } else {
                match mag_cmp(&a, &b) {
                    Ordering::Equal => (false, Vec::new()),
                    Ordering::Greater => (self.neg, mag_sub(&a, &b)),
                    Ordering::Less => (other.neg, mag_sub(&b, &a)),
                }
            };
            Self { neg: neg && !mag.is_empty(), mag, exp }
        }

        pub(crate) fn sub(&self, other: &Self) -> Self {
            self.add(&other.neg())
        }

        pub(crate) fn mul(&self, other: &Self) -> Self {
            let mag = mag_mul(&self.mag, &other.mag);
            Self { neg: (self.neg != other.neg) && !mag.is_empty(), mag, exp: self.exp + other.exp }
        }

        /// Exact comparison.
        pub(crate) fn cmp(&self, other: &Self) -> Ordering {
            self.sub(other).sign()
        }
    }
}
