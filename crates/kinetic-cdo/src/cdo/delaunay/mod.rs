//! The dynamic generalized Delaunay triangulation in Laguerre geometry (§3.1): the regular
//! (weighted Delaunay) triangulation of the moving disks under the power distance
//! `d(x, P) = |x − p|² − r_P²`, maintained kinetically, in a box with walls, with periodic
//! sides, or with one periodic axis and walls on the other.
//!
//! * **Construction** (`O(n log n)` expected): incremental insertion in Morton order with a
//!   visibility walk and Lawson flips, inside a bounding triangle of three weightless
//!   vertices far outside the box (so the hull never changes and needs no special case).
//!   Under gravity these corners fall with the particles and are launched up again
//!   periodically ([`corners`]), so that every relative motion stays linear and every
//!   certificate a quartic; [`LaguerreDelaunay::rebuilt_edges`] rebuilds with them where they
//!   are.
//!   Disjoint disks are never redundant (each centre lies in its own power cell), so every
//!   particle is a vertex, and two touching disks always share an edge: their contact point has
//!   power 0 to both and positive power to every other site.
//! * **Periodic sides**: the triangulation lives on the torus. Each triangle stores, beside its
//!   three particles, the whole periods added to each one's (unwrapped) centre, so its geometry is
//!   that of three images; neighbouring triangles may use different frames, related through the
//!   shared edge. It is built by triangulating the 3 × 3 periodic images of the particles as
//!   above (5 × 5 where an empty power circle reaches past the first ring of images: a handful
//!   of particles) and keeping, of each triangle and its translates, the one whose smallest particle is
//!   at its home image; there are exactly `2n` (Euler on the torus). For this the predicates
//!   evaluate differences of images from their parts (centre and whole periods), so they answer
//!   alike in every image, and exact ties (lattices) are broken by a symbolic perturbation of
//!   the weights by particle index, the same in every image. A torus has such a triangulation
//!   only while no empty power circle spans the box (a few particles, or a void as wide as the
//!   box): where one does at build, or a flip would join a particle to its own image later, the
//!   structure falls back to the regular subdivision (or to every pair where the subdivision
//!   cannot be built; see [`LaguerreDelaunay::stand_in`]), checks every pair of its
//!   candidates once, and lets it find the collisions from then on (see
//!   [`LaguerreDelaunay::fell_back`]). A rebuild, e.g. by a thermostat step, tries the
//!   triangulation again.
//! * **One periodic axis, walls on the other**: triangulated as a torus too, closed over a gap
//!   beyond the walls: on the walled axis the period is the side `L_w` plus a gap `2g`, and the
//!   fundamental domain starts `g` before the wall, with
//!   `2g = max(2 r_max, min(L_p / 4, L_p − L_w))` (`L_p` the periodic side, `r_max` the largest
//!   radius). Any gap above 0 keeps the disks' images apart (their centres stay a radius inside
//!   the walls); its width decides which boxes can be triangulated at all. Every empty power
//!   circle must be narrower than both periods of the torus (below): a gap as thin as a disk
//!   would leave a long channel (`L_w ≪ L_p`) a torus whose walled period is a few disks, which
//!   nearly any gap along the channel spans; so the torus is made as square as it can be
//!   without the gap itself (an empty strip across the whole periodic side) exceeding a
//!   quarter of `L_p`, nor the walled period exceeding `L_p`. The disks stay
//!   between the walls, so an edge through the gap joins two disks that cannot meet across it:
//!   such edges keep the triangulation a torus's (with the same kinetics and predicates), but
//!   they are never collision candidates and [`LaguerreDelaunay::edges`] leaves them out. The
//!   triangulation's edges inside the box are the regular triangulation's of the disks and of
//!   their images through the gap; the extra points only ever remove edges, so touching disks
//!   still share one (their contact point has positive power to every other disk). As with
//!   periodic sides, an empty power circle wider than a period makes the structure fall back
//!   to the subdivision: across the channel, a void (with the gap) taller than the box is wide, such
//!   as the room above a bed settled under gravity in a tall box; along it, a void longer than
//!   the walled period. A single file of disks (a channel less than two disks wide) always
//!   falls back: the only disks across the gap are the file's own images.
//! * **Predicates**: exact orientation and power tests ([`predicates`]).
//! * **Kinetics**: every interior edge `ab` with triangles `abc` and `bad` carries the
//!   certificate "d is not inside the power circle of abc" (the paper's Eq. 1, with the CCW
//!   condition of Eq. 2 fixing its sign), a polynomial of degree ≤ 4 in time for linear motion,
//!   whose first failure is isolated robustly ([`polynomial`]). A failure flips the edge,
//!   reschedules the five edges of the quadrilateral and asks for one collision check between
//!   the two new neighbours; a trajectory change reschedules every edge around the particle.
//! * **Degeneracies**: co-circular quadrilaterals (lattices, equal radii on a grid) are
//!   resolved by the motion itself (symbolic perturbation in time): an edge whose certificate is
//!   exactly 0 now flips at once if the motion makes it fail, and stays otherwise; points
//!   exactly on an edge during construction split both triangles. Before a certificate's
//!   roots are isolated, every coefficient at rounding level relative to its own magnitude
//!   (the same expansion on absolute values) is dropped: a quadrilateral that stays co-circular
//!   in exact motion (a rectangle translating, or reflected by walls in pairs) has a
//!   certificate of pure noise, which must not flip it back and forth. The rows of a
//!   certificate are taken relative to one of its particles, never to a far bounding corner
//!   (whose huge coordinates would drown the certificate of a quadrilateral at the hull in
//!   rounding).
//!
//! **Where the time goes** (measured with `perf` on 4 000 disks with radii uniform over a
//! ratio γ = 8, φ = 0.6, walls, where the triangulation runs at about 0.55–0.6× the regular
//! subdivision's collisions per second): a collision changes two trajectories, and about
//! nineteen edges have one of the two particles in their quadrilateral; recomputing their
//! certificates is 30 % of the time (the quartic's expansion and the test that it has no root
//! within the horizon, 8 % more where roots are isolated), the walks around the two particles
//! that find those edges 9 %, the walks that list a particle's neighbours for its predictions
//! 8 %, the engine's queue 6 %. The subdivision predicts from 17 candidates per particle at this
//! γ, the triangulation from 6, so the prediction itself is cheaper here; the certificates are
//! what the subdivision does not pay.
//!
//! *Tried and dropped*: sparing those recomputations with displacement budgets. Each particle
//! got a ball (one radius for all) around where it was last anchored, and an edge whose power
//! test kept its sign for every placement of its four particles in their balls (interval
//! arithmetic) had no certificate at all and was skipped by trajectory changes; a particle
//! leaving its ball (one quadratic per trajectory change, instead of a dozen quartics) was
//! anchored again and its edges re-tested. On the state above it was 1.1–6× slower: with balls
//! of 0.02 mean spacings, 41 % of the edges could not be certified and particles left their
//! balls 9.5 times per collision; with 0.05, 97 % could not and 3.6 exits per collision; with
//! 0.2, none could. Between two of its collisions a particle travels a tenth of a spacing or
//! more, further than most edges are from failing, so a bound on where the particles may be
//! certifies little that a bound on how long they keep their motion (the re-check horizon)
//! does not.

mod corners;
mod fallback;
mod polynomial;
mod predicates;
mod rechecks;
mod units;

use std::cmp::Ordering;

use super::{CandidatePair, Cdo, Certificates};
use crate::queue::EventQueue;
use crate::{SimError, State};
use corners::Corners;
use fallback::Fallback;
use polynomial::{RelativeMotion, certificate, certificate_magnitudes, first_failure};
use predicates::{Image, Site, orient_images, power_test_images, power_test_perturbed};
use rechecks::Rechecks;
use units::Units;

/// `a + b` per axis.
#[inline]
fn add(a: [i32; 2], b: [i32; 2]) -> [i32; 2] {
    [a[0] + b[0], a[1] + b[1]]
}

/// `a − b` per axis.
#[inline]
fn sub(a: [i32; 2], b: [i32; 2]) -> [i32; 2] {
    [a[0] - b[0], a[1] - b[1]]
}

/// The weighted points a construction triangulates, by vertex index: the particles (once with
/// walls; with periodic sides in 3 × 3 or 5 × 5 images, the central one first), then the three corners
/// of the bounding triangle.
struct Cover {
    images: Vec<Image>,
    /// The particle each vertex is an image of (the corners: `n`, `n + 1`, `n + 2`, after every
    /// particle, so the tie-breaking perturbation favours particles).
    ids: Vec<u32>,
    /// The periods of the torus triangulated (see [`LaguerreDelaunay::period`]), 0 with walls.
    period: [f64; 2],
    /// The region the images lie in (lower and upper corner).
    region: ([f64; 2], [f64; 2]),
    /// The bounding triangle's corners.
    corners: [[f64; 2]; 3],
    /// The radius of the bounding triangle's inscribed circle (about its centre).
    inscribed: f64,
}

impl Cover {
    /// The particles, and on a torus of periods `period` (all 0 with walls) whose fundamental
    /// domain starts at `low`, their images by whole periods (from `−reach` to `reach` per
    /// axis) whose centres lie within `band` of that domain (all of them for an infinite band).
    fn new(state: &State<2>, period: [f64; 2], low: [f64; 2], reach: i32, band: f64) -> Self {
        let n = state.len();
        let periodic = period[0] > 0.0;
        let lengths = if periodic { period } else { state.sim_box().lengths() };
        // The central copy first, then the rings around it.
        let reach = if periodic { reach } else { 0 };
        let mut copies: Vec<[i32; 2]> =
            (-reach..=reach).flat_map(|y| (-reach..=reach).map(move |x| [x, y])).collect();
        copies.sort_by_key(|c| c[0].abs().max(c[1].abs()));
        let band = band.min(f64::from(reach) * lengths[0].max(lengths[1]));
        let mut images = Vec::with_capacity(copies.len() * n + 3);
        let mut ids = Vec::with_capacity(copies.len() * n + 3);
        for copy in &copies {
            for i in 0..n {
                let base = state.stored_position(i);
                // Whole periods that bring the (unwrapped) centre into the fundamental domain:
                // the central copy is the home image.
                let home: [i32; 2] = std::array::from_fn(|a| {
                    if periodic { -((base[a] - low[a]) / period[a]).floor() as i32 } else { 0 }
                });
                let image = Image { base, radius: state.radius(i), periods: add(home, *copy) };
                // (Rounded: only which images to include depends on it.)
                let at = [0, 1].map(|a| base[a] + f64::from(image.periods[a]) * period[a] - low[a]);
                if *copy == [0, 0] || (0..2).all(|a| at[a] >= -band && at[a] < lengths[a] + band) {
                    images.push(image);
                    ids.push(i as u32);
                }
            }
        }
        let region = if periodic {
            ([low[0] - band, low[1] - band], [low[0] + lengths[0] + band, low[1] + lengths[1] + band])
        } else {
            ([0.0; 2], lengths)
        };
        // An equilateral triangle whose inscribed circle has 20 region sizes of radius.
        let (lo, hi) = region;
        let centre = [0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1])];
        let far = 20.0 * (hi[0] - lo[0]).max(hi[1] - lo[1]);
        let s3 = 3f64.sqrt();
        let corners = [
            [centre[0], centre[1] + 2.0 * far],
            [centre[0] - s3 * far, centre[1] - far],
            [centre[0] + s3 * far, centre[1] - far],
        ];
        for (k, corner) in corners.iter().enumerate() {
            images.push(Image { base: *corner, radius: 0.0, periods: [0; 2] });
            ids.push((n + k) as u32);
        }
        Self { images, ids, period, region, corners, inscribed: far }
    }

    /// Moves the bounding triangle's corners to `at` (they stay the last three sites).
    fn place_corners(&mut self, at: [[f64; 2]; 3]) {
        let first = self.images.len() - 3;
        for (k, corner) in at.into_iter().enumerate() {
            self.images[first + k].base = corner;
        }
        self.corners = at;
    }

    /// Vertex `v`'s centre, rounded (for the insertion order only).
    fn point(&self, v: usize) -> [f64; 2] {
        let p = &self.images[v];
        [0, 1].map(|a| p.base[a] + f64::from(p.periods[a]) * self.period[a])
    }
}

/// Particle `i`'s velocity now less what gravity has added since time 0: the same for every
/// time of its current trajectory, so velocities recorded at different times compare (their
/// differences are the relative velocities, which alone move a certificate).
fn free_fall_velocity(state: &State<2>, i: usize) -> [f64; 2] {
    let (v, g, now) = (state.velocity(i), state.gravity(), state.now());
    [v[0] - g[0] * now, v[1] - g[1] * now]
}

/// The width of the band of periodic images a construction tries first, in mean spacings.
const BAND_SPACINGS: f64 = 4.0;

/// The re-check horizon in mean spacings travelled at the rms speed (at most; shorter in dense
/// systems, see `build`).
const HORIZON_SPACINGS: f64 = 0.2;

/// The mean free path of `n` disks of the given radii in an area `area`: Enskog's
/// `1 / (2√2 σ ρ g(σ))` with the mean diameter `σ`, the number density `ρ` and Henderson's
/// contact value `g(σ) = (1 − 7φ/16) / (1 − φ)²` (packing fraction capped below close packing).
/// An estimate that sets the re-check horizon; nothing depends on it being exact.
fn mean_free_path(n: usize, area: f64, radii: impl Iterator<Item = f64>) -> f64 {
    let (sum, sum_squares) = radii.fold((0.0, 0.0), |(s, q), r| (s + r, q + r * r));
    let phi = (std::f64::consts::PI * sum_squares / area).min(0.85);
    let diameter = 2.0 * sum / n.max(1) as f64;
    let density = n as f64 / area;
    let contact = (1.0 - 7.0 * phi / 16.0) / ((1.0 - phi) * (1.0 - phi));
    1.0 / (2.0 * std::f64::consts::SQRT_2 * diameter * density * contact)
}

/// The root mean square of the velocities' deviations from `mean`. Where the squares would
/// underflow (speeds below about `1e-154`) they are taken relative to the largest deviation.
fn rms_deviation(velocities: &[[f64; 2]], mean: [f64; 2]) -> f64 {
    let n = velocities.len().max(1) as f64;
    let deviations = || velocities.iter().flat_map(|v| [v[0] - mean[0], v[1] - mean[1]]);
    let variance = deviations().map(|d| d * d).sum::<f64>() / n;
    if variance >= f64::MIN_POSITIVE {
        return variance.sqrt();
    }
    let largest = deviations().fold(0.0, |m: f64, d| m.max(d.abs()));
    if largest == 0.0 {
        return 0.0;
    }
    largest * (deviations().map(|d| (d / largest).powi(2)).sum::<f64>() / n).sqrt()
}

/// Where `x` is in `entries` (it must be there). Branch-free: which of the three it is is
/// unpredictable, and the walks around vertices ask it several times per triangle (measured:
/// mispredictions were a tenth of the collision's time).
#[inline]
fn position_of(entries: &[u32; 3], x: u32) -> usize {
    debug_assert!(entries.contains(&x));
    usize::from(entries[1] == x) + 2 * usize::from(entries[2] == x)
}

/// One triangle of the triangulation.
#[derive(Debug, Clone, Copy)]
struct Triangle {
    /// Vertices in counter-clockwise order.
    vertices: [u32; 3],
    /// The neighbour across the edge opposite each vertex ([`NONE`] outside the bounding
    /// triangle).
    neighbours: [u32; 3],
}

/// Whether a failed certificate's edge can be flipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flip {
    Valid,
    /// The new edge would join a particle to one of its own images (periodic sides: an empty
    /// power circle spans the box).
    JoinsImages,
    /// The quadrilateral is not strictly convex now. A certificate of disjoint disks that
    /// fails at its true time fails on a convex quadrilateral; one that failed at the wrong
    /// time could fail on a reflex one, and flipping that would fold the triangulation. A
    /// guard: root isolation that dropped small high-order coefficients once made cooling
    /// gases reach it thousands of times; since that was fixed, no test or stress run has.
    NotConvex,
}

/// [`LaguerreDelaunay::recheck_at`] of a slot whose failure is in the engine's queue (never
/// the time of a re-check).
const IN_QUEUE: f64 = f64::NEG_INFINITY;

/// "No triangle" (outside the bounding triangle).
const NONE: u32 = u32::MAX;

/// The kinetic regular triangulation of disks (2D only).
///
/// **Scale.** Its certificates are quartics whose coefficients are products of four lengths
/// and speeds. Where a certificate's rows are far from unit scale (beyond `2^±200`), they are
/// expanded in units of their own, powers of two near their largest position and largest
/// speed (exact rescalings), so the whole range the engine accepts is covered: lengths from
/// `1e-100` to `1e100` and any speeds (tested against brute force from `2^-330` to `2^300`
/// in length and `2^-330` to `2^320` in speed, with walls and periodic sides, and on systems
/// whose relative motion is far slower than their drift). One limit remains: a cluster of
/// particles that fills a tiny part of a walled box (measured: a cluster 7 wide in a box of
/// side `1e16` and more; clean up to `1e14`) may leave its hull edges irregular, since the
/// bounding triangle's corners, 20 box sides away, then dominate their certificates beyond
/// `f64` precision (the collisions still agreed with brute force in the runs that showed it).
///
/// ```
/// use kinetic_cdo::{LaguerreDelaunay, Particle, SimBox, SimConfig, Simulation};
/// let particles = vec![
///     Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0),
///     Particle::new([4.0, 1.0], [-1.0, 0.0], 0.5, 1.0),
///     Particle::new([2.5, 4.0], [0.0, 0.0], 0.5, 1.0),
/// ];
/// let sim_box = SimBox::walls([10.0, 10.0]).unwrap();
/// let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), LaguerreDelaunay::new()).unwrap();
/// assert!(sim.structure().is_regular(sim.state()));
/// let c = sim.next_collision().unwrap();
/// assert!((c.time - 1.0).abs() < 1e-12);
/// assert_eq!(sim.structure().edges(), vec![[0, 1], [0, 2], [1, 2]]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct LaguerreDelaunay {
    /// The triangles: vertices and neighbours side by side, so that a walk around a vertex
    /// reads one cache line per triangle (measured: the walks are memory-bound).
    triangles: Vec<Triangle>,
    /// Per triangle, under periodic sides: the whole periods added to each vertex's centre
    /// (its image in the triangle is `position + periods ⊙ period`). Empty with walls.
    offsets: Vec<[[i32; 2]; 3]>,
    /// The periods of the torus triangulated when a side is periodic, 0 with walls: the box's
    /// side lengths on periodic axes, and on a walled axis of such a box the side length plus
    /// a gap (see [`gap_axes`](Self::gap_axes)).
    period: [f64; 2],
    /// The walled axes of a box whose other axis is periodic. The triangulation is of a torus
    /// all the same, closed over a gap beyond the walls (see the module documentation): the disks
    /// stay between the walls, so an edge through the gap joins two disks that cannot meet
    /// across it. Such edges are kept (they make the triangulation a torus's, with the same
    /// kinetics), but they are never candidates and are not listed by
    /// [`edges`](Self::edges).
    gap_axes: [bool; 2],
    /// Per vertex: one incident triangle.
    incident: Vec<u32>,
    /// Particles; vertices `n`, `n + 1`, `n + 2` are the bounding triangle's.
    particles: usize,
    /// The bounding triangle's corners, falling with gravity (see [`corners`]).
    corners: Corners,
    /// Scratch stack of edges to legalise.
    stack: Vec<(u32, u8)>,
    /// How far ahead a certificate's failure is solved for; beyond it the slot only asks for a
    /// re-check (most edges are recomputed by a collision long before they could fail).
    horizon: f64,
    /// Per certificate slot: the time of its pending re-check, [`IN_QUEUE`] when its failure
    /// was put in the engine's queue (it may since have been taken out), `INFINITY` when
    /// nothing is pending. A slot has a re-check in [`rechecks`](Self::rechecks) or a failure
    /// in the engine's queue, never both. Only `IN_QUEUE` slots need a queue cancel (a random
    /// access into the queue's index, measured: 3 % of the time).
    recheck_at: Vec<std::cell::Cell<f64>>,
    /// Pending re-checks `(time, slot)`; the engine's queue holds only the earliest (in the slot
    /// after the edges'). Entries whose slot was recomputed since are stale and skipped
    /// (`recheck_at` no longer matches). In dense systems nearly every re-check is superseded by
    /// a collision of one of the quadrilateral's particles before it is due, so keeping them
    /// out of the queue spares a queue update per recomputed certificate.
    rechecks: std::cell::RefCell<Rechecks>,
    /// When the re-check slot is due in the engine's queue (`INFINITY`: not in it).
    recheck_due: std::cell::Cell<f64>,
    /// Scratch list of the certificate slots around the particles of a collision.
    star: Vec<u32>,
    /// The distance whose travel at the rms relative speed is the re-check horizon.
    reach: f64,
    /// The longest reach: [`HORIZON_SPACINGS`] mean spacings.
    most: f64,
    /// The mean free path estimated at build (Enskog).
    built_free_path: f64,
    /// When the horizon was last reconsidered.
    reconsidered_at: f64,
    /// Per particle: its [`free_fall_velocity`] when its trajectory last changed (the rms
    /// relative speed is followed as an inelastic system cools or a falling one speeds up).
    velocities: Vec<[f64; 2]>,
    /// Updates of `velocities` since the horizon was last reconsidered (every `n` updates: an
    /// `O(1)` share per collision).
    speed_updates: usize,
    /// Under periodic sides, once a flip would have joined a particle to one of its own images
    /// (an empty power circle spans the box, so the torus has no triangulation): the structure
    /// that finds the candidates from then on.
    fallback: Option<Fallback>,
}

impl LaguerreDelaunay {
    /// An empty structure; [`Cdo::build`] triangulates.
    ///
    /// ```
    /// use kinetic_cdo::{LaguerreDelaunay, Particle, SimBox, SimConfig, Simulation};
    /// let particles = vec![
    ///     Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0),
    ///     Particle::new([4.0, 1.0], [-1.0, 0.0], 0.5, 1.0),
    ///     Particle::new([2.5, 4.0], [0.0, 0.0], 0.5, 1.0),
    /// ];
    /// let sim_box = SimBox::walls([10.0, 10.0]).unwrap();
    /// let structure = LaguerreDelaunay::new();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// assert!(sim.structure().triangle_count() > 0); // triangulated at build
    /// assert!((sim.next_collision().unwrap().time - 1.0).abs() < 1e-12);
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// The number of triangles (including those with a bounding corner; 0 after a
    /// [fallback](Self::fell_back)).
    ///
    /// ```
    /// use kinetic_cdo::{LaguerreDelaunay, Particle, SimBox, SimConfig, Simulation};
    /// let particles = vec![
    ///     Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0),
    ///     Particle::new([4.0, 1.5], [-1.0, 0.0], 0.5, 1.0),
    ///     Particle::new([2.5, 4.0], [0.0, 1.0], 0.5, 1.0),
    ///     Particle::new([7.0, 6.0], [0.0, -1.0], 0.5, 1.0),
    /// ];
    /// let sim_box = SimBox::walls([10.0, 10.0]).unwrap();
    /// let structure = LaguerreDelaunay::new();
    /// let sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
    /// // n = 4 sites inside the bounding triangle: 2 (n + 3) − 3 − 2 triangles (Euler).
    /// assert_eq!(sim.structure().triangle_count(), 2 * 4 + 1);
    /// ```
    pub fn triangle_count(&self) -> usize {
        if self.fallback.is_some() { 0 } else { self.triangles.len() }
    }

    /// Whether the structure gave up the triangulation (with a periodic side only): the torus had no
    /// triangulation at build, or a flip would have joined a particle to one of its own images;
    /// both happen only when an empty power circle spans a period of the box (a few particles,
    /// or a large void). Until the next build another structure finds the candidates (see
    /// [`stand_in`](Self::stand_in)): collisions stay exact; the edges are then empty and
    /// [`is_regular`](Self::is_regular) false.
    ///
    /// ```
    /// use kinetic_cdo::{LaguerreDelaunay, Particle, SimBox, SimConfig, Simulation};
    /// // Two disks in a periodic box: every triangle would join a disk to its own image.
    /// let particles = vec![
    ///     Particle::new([2.0, 2.0], [1.0, 0.5], 0.5, 1.0),
    ///     Particle::new([7.0, 6.0], [-0.5, 1.0], 0.5, 1.0),
    /// ];
    /// let sim_box = SimBox::periodic([10.0, 10.0]).unwrap();
    /// let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), LaguerreDelaunay::new()).unwrap();
    /// assert!(sim.structure().fell_back());
    /// assert!(sim.structure().edges().is_empty());
    /// // Collisions are still found (through periodic images too).
    /// assert!(sim.next_collision().is_some());
    /// ```
    pub fn fell_back(&self) -> bool {
        self.fallback.is_some()
    }

    /// After a [fallback](Self::fell_back), the name of the structure that finds the candidates
    /// instead of the triangulation: `"subdivision"`, a [`RegularSubdivision`] (`O(1)`
    /// candidates per particle at any density); or `"brute force"`, a [`BruteForce`] (every
    /// pair, `O(n)` per event), only where the subdivision cannot be built: a periodic side
    /// within rounding of three largest diameters, which the engine admits but whose cell count
    /// rounds below three. `None` while the triangulation stands.
    ///
    /// [`RegularSubdivision`]: crate::RegularSubdivision
    /// [`BruteForce`]: crate::BruteForce
    ///
    /// ```
    /// use kinetic_cdo::{LaguerreDelaunay, Particle, SimBox, SimConfig, Simulation};
    /// // Two disks in a periodic box: the torus has no triangulation.
    /// let particles = vec![
    ///     Particle::new([1.0, 1.0], [1.0, 0.5], 0.5, 1.0),
    ///     Particle::new([3.0, 2.5], [-0.5, 1.0], 0.5, 1.0),
    /// ];
    /// let sim_box = SimBox::periodic([4.0, 4.0]).unwrap();
    /// let sim = Simulation::new(particles, sim_box, SimConfig::default(), LaguerreDelaunay::new()).unwrap();
    /// assert_eq!(sim.structure().stand_in(), Some("subdivision"));
    /// ```
    pub fn stand_in(&self) -> Option<&'static str> {
        self.fallback.as_ref().map(Fallback::name)
    }

    /// How far ahead of the present a certificate's failure is solved for (beyond it an edge
    /// is only re-checked, and most edges are recomputed by a collision before then): the
    /// time to travel `√(λ s / 5)` at the rms speed relative to the mean velocity, at most
    /// `s / 5` (`s` the mean spacing; `λ` the mean free path, estimated at build from the
    /// density after Enskog, then measured every `n` trajectory changes as that speed times
    /// the mean time between two changes of a particle, within a factor 16 of the estimate).
    /// It is reset whenever it would move by more than a tenth. Infinite while every particle
    /// moves alike (then no certificate ever changes).
    ///
    /// ```
    /// use kinetic_cdo::{LaguerreDelaunay, SimBox, SimConfig, Simulation, init};
    /// let sim_box = SimBox::walls([20.0, 20.0]).unwrap();
    /// let radii = vec![0.5; 100];
    /// let particles = init::random_placement(&sim_box, &radii, init::MassRule::Unit, 1.0, 7).unwrap();
    /// let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), LaguerreDelaunay::new()).unwrap();
    /// let before = sim.structure().recheck_horizon();
    /// sim.scale_velocities(4.0).unwrap(); // four times faster: a quarter of the time ahead
    /// let after = sim.structure().recheck_horizon();
    /// assert!((after / before - 0.25).abs() < 1e-9);
    /// ```
    pub fn recheck_horizon(&self) -> f64 {
        self.horizon
    }

    /// Every edge between two particles, as sorted pairs in increasing order. Under periodic
    /// sides two particles may be joined through two different images: the pair then appears
    /// twice ([`edges_with_periods`](Self::edges_with_periods) tells them apart). With one
    /// periodic axis and walls on the other, the triangulation is of a torus all the same,
    /// closed over a gap added beyond the walls; an edge through that gap joins two disks that
    /// cannot meet across it (they stay between the walls), and such edges are left out.
    ///
    /// ```
    /// use kinetic_cdo::{CollisionKind, LaguerreDelaunay, Particle, SimBox, SimConfig, Simulation};
    /// // Periodic along x, walls along y: 12 disks in rows, and the first and the last of the
    /// // middle row move apart, to meet across the periodic side.
    /// let mut particles = Vec::new();
    /// for (row, y) in [0.7, 2.0, 3.3].into_iter().enumerate() {
    ///     for (column, x) in [0.75, 2.25, 3.75, 5.25].into_iter().enumerate() {
    ///         let jitter = 0.01 * (3 * row + column) as f64;
    ///         particles.push(Particle::new([x + jitter, y - jitter], [0.0; 2], 0.3, 1.0));
    ///     }
    /// }
    /// particles[4].velocity = [-1.0, 0.0];
    /// particles[7].velocity = [1.0, 0.0];
    /// let sim_box = SimBox::new([6.0, 4.0], [true, false]).unwrap();
    /// let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), LaguerreDelaunay::new()).unwrap();
    /// assert!(sim.structure().is_regular(sim.state()));
    /// let c = sim.next_collision().unwrap();
    /// assert_eq!(c.kind, CollisionKind::Pair(4, 7));
    /// assert!(sim.structure().edges().contains(&[4, 7]));
    /// ```
    pub fn edges(&self) -> Vec<[usize; 2]> {
        let mut edges: Vec<[usize; 2]> = self.edges_with_periods().into_iter().map(|(e, _)| e).collect();
        edges.sort_unstable();
        edges
    }

    /// Every edge between two particles `[a, b]` (`a < b`), with the whole periods `k` such that
    /// the image of `b` at `state.position(b) + k ⊙ L` is the one joined to `a` at
    /// `state.position(a)` (positions unwrapped, `L` the box's side lengths; always `[0, 0]`
    /// with walls); sorted.
    ///
    /// ```
    /// use kinetic_cdo::{LaguerreDelaunay, Particle, SimBox, SimConfig, Simulation};
    /// // Three disks in a periodic box: each pair is joined through two images.
    /// let particles = vec![
    ///     Particle::new([1.0, 1.0], [1.0, 0.0], 0.3, 1.0),
    ///     Particle::new([4.0, 2.0], [0.0, 1.0], 0.3, 1.0),
    ///     Particle::new([2.0, 4.5], [-1.0, 0.0], 0.3, 1.0),
    ///     Particle::new([5.0, 5.0], [0.0, -1.0], 0.3, 1.0),
    /// ];
    /// let sim_box = SimBox::periodic([6.0, 6.0]).unwrap();
    /// let sim = Simulation::new(particles, sim_box, SimConfig::default(), LaguerreDelaunay::new()).unwrap();
    /// let edges = sim.structure().edges_with_periods();
    /// // A triangulation of the torus: 2n triangles, 3n edges.
    /// assert_eq!(sim.structure().triangle_count(), 8);
    /// assert_eq!(edges.len(), 12);
    /// assert!(sim.structure().is_regular(sim.state()));
    /// ```
    pub fn edges_with_periods(&self) -> Vec<([usize; 2], [i32; 2])> {
        let n = self.particles as u32;
        let mut edges = Vec::new();
        if self.fallback.is_some() {
            return edges;
        }
        for (t, v) in self.triangles.iter().map(|triangle| triangle.vertices).enumerate() {
            let periods = self.periods_of(t as u32);
            for k in 0..3 {
                let (i, j) = ((k + 1) % 3, (k + 2) % 3);
                let (a, b) = (v[i], v[j]);
                let across = self.triangles[t].neighbours[k];
                // Each edge once: from its lower-indexed triangle (or its only one).
                if a < n
                    && b < n
                    && (across == NONE || (t as u32) < across)
                    && !self.through_gap(periods[i], periods[j])
                {
                    let shift = sub(periods[j], periods[i]);
                    edges.push(if a < b {
                        ([a as usize, b as usize], shift)
                    } else {
                        ([b as usize, a as usize], shift.map(|x| -x))
                    });
                }
            }
        }
        edges.sort_unstable();
        edges
    }

    /// The edges (as [`edges`](Self::edges) lists them) of the triangulation built from
    /// scratch for the state now, with the bounding triangle's corners where this structure's
    /// are now (in a walled box the corners fall with gravity, as the particles do, so that
    /// gravity changes no certificate):
    /// what the kinetic maintenance keeps equal to its own between events. Empty where the
    /// torus has no triangulation. The construction triangulates 3 × 3 periodic images, and
    /// 5 × 5 where those do not close up into a torus (a handful of disks, whose empty power
    /// circles reach past the first ring): enough whenever the torus's two periods differ by
    /// less than a factor √2. An empty power circle then holds no centre, so it is narrower
    /// than the diagonal of a period, and every site within power range of it lies within two
    /// periods of a particle's home image; a much longer torus (a mixed box whose periodic
    /// side is many times its walled one) may have a triangulation none of them shows.
    ///
    /// ```
    /// use kinetic_cdo::{LaguerreDelaunay, SimBox, SimConfig, Simulation, init};
    /// let sim_box = SimBox::walls([12.0, 12.0]).unwrap();
    /// let radii = vec![0.5; 40];
    /// let particles = init::random_placement(&sim_box, &radii, init::MassRule::Unit, 1.0, 3).unwrap();
    /// let config = SimConfig { gravity: [0.0, -1.0], ..SimConfig::default() };
    /// let mut sim = Simulation::new(particles, sim_box, config, LaguerreDelaunay::new()).unwrap();
    /// for _ in 0..200 {
    ///     sim.next_collision();
    /// }
    /// // Halfway to the next event (no certificate is failing there).
    /// let next = sim.next_event_time().unwrap();
    /// sim.run(kinetic_cdo::Stop::Time(0.5 * (sim.state().now() + next))).unwrap();
    /// assert_eq!(sim.structure().edges(), sim.structure().rebuilt_edges(sim.state()));
    /// ```
    pub fn rebuilt_edges(&self, state: &State<2>) -> Vec<[usize; 2]> {
        let mut fresh = Self::new();
        let now = state.now();
        if fresh.construct(state, Some(std::array::from_fn(|k| self.corners.position(k, now)))) {
            fresh.edges()
        } else {
            Vec::new()
        }
    }

    /// Whether the triangulation is valid for the state now: every triangle counter-clockwise
    /// and every interior edge regular (exact predicates). The check the kinetic maintenance is
    /// tested with; `O(n)`.
    ///
    /// The predicates see the positions now rounded to `f64`, while the certificates follow
    /// the exact trajectories (the polynomial in `t` of the stored positions and velocities).
    /// Where four sites stay co-circular in power to within that rounding for a whole stretch
    /// of time (a ring of equal disks moving radially inward, say), the two can disagree on the
    /// sign, and this check (like [`rebuilt_edges`](Self::rebuilt_edges)) may then report an
    /// edge that the exact motion keeps regular. Measured on a ring of 16 disks: flagged at 10
    /// of 200 midpoints between events, each flagged edge a near-tie for an independent power
    /// diagram, and 300 collisions in lock-step with brute force (test
    /// `ring_moving_inward_stays_regular_up_to_rounding`).
    ///
    /// ```
    /// use kinetic_cdo::{LaguerreDelaunay, SimBox, SimConfig, Simulation, Stop, init};
    /// let sim_box = SimBox::walls([12.0, 12.0]).unwrap();
    /// let rule = init::MassRule::Unit;
    /// let particles = init::random_placement(&sim_box, &[0.5; 30], rule, 1.0, 11).unwrap();
    /// let structure = LaguerreDelaunay::new();
    /// let config = SimConfig::default();
    /// let mut sim = Simulation::new(particles, sim_box, config, structure).unwrap();
    /// assert!(sim.structure().is_regular(sim.state()));
    /// sim.run(Stop::Time(2.0)).unwrap(); // kept regular through the run
    /// assert!(sim.structure().is_regular(sim.state()));
    /// ```
    pub fn is_regular(&self, state: &State<2>) -> bool {
        if self.fallback.is_some() {
            return false;
        }
        for (t, v) in self.triangles.iter().map(|triangle| triangle.vertices).enumerate() {
            let periods = self.periods_of(t as u32);
            let image = |k: usize| self.image(v[k], periods[k], state);
            if orient_images(&image(0), &image(1), &image(2), self.period) != Ordering::Greater {
                return false;
            }
            for k in 0..3 {
                if let Some((d, d_periods)) = self.opposite(t as u32, k) {
                    let d = self.image(d, d_periods, state);
                    let (a, b, c) = (image((k + 1) % 3), image((k + 2) % 3), image(k));
                    if power_test_images(&a, &b, &c, &d, self.period) == Ordering::Greater {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Vertex `v`'s motion relative to the reference site at `xd` moving at `vd`.
    // Always inlined into the certificate (since the corners move, `#[inline]` left it a call
    // per row: 6 % more instructions per collision).
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn relative_motion(&self, v: u32, (xd, vd): ([f64; 2], [f64; 2]), state: &State<2>) -> RelativeMotion {
        // One test for both the site and the motion.
        let ((p, r), (velocity, rate)) = if (v as usize) < self.particles {
            let i = v as usize;
            ((state.stored_position(i), state.radius(i)), (state.velocity(i), state.radius_rate(i)))
        } else {
            (self.site(v, state), self.motion(v, state))
        };
        RelativeMotion {
            position: [p[0] - xd[0], p[1] - xd[1]],
            velocity: [velocity[0] - vd[0], velocity[1] - vd[1]],
            radius: (r, rate),
        }
    }

    /// Vertex `v`'s site now (a bounding corner is a point of radius 0, see [`Corners`]).
    #[inline]
    fn site(&self, v: u32, state: &State<2>) -> Site {
        let v = v as usize;
        if v < self.particles {
            (state.stored_position(v), state.radius(v))
        } else {
            (self.corners.position(v - self.particles, state.now()), 0.0)
        }
    }

    /// Vertex `v`'s velocity and radius rate.
    #[inline]
    fn motion(&self, v: u32, state: &State<2>) -> ([f64; 2], f64) {
        let v = v as usize;
        if v < self.particles {
            (state.velocity(v), state.radius_rate(v))
        } else {
            (self.corners.velocity(state.now()), 0.0)
        }
    }

    /// The periods of triangle `t`'s vertices (all 0 without periodic sides).
    #[inline]
    fn periods_of(&self, t: u32) -> [[i32; 2]; 3] {
        self.offsets.get(t as usize).copied().unwrap_or_default()
    }

    /// Vertex `v`'s image with `periods` now.
    #[inline]
    fn image(&self, v: u32, periods: [i32; 2], state: &State<2>) -> Image {
        let (base, radius) = self.site(v, state);
        Image { base, radius, periods }
    }

    /// The vertex across the edge opposite local vertex `k` of triangle `t`, with its periods
    /// in `t`'s frame (the neighbour's periods shifted so that the shared edge's vertices
    /// agree).
    #[inline]
    fn opposite(&self, t: u32, k: usize) -> Option<(u32, [i32; 2])> {
        let across = self.triangles[t as usize].neighbours[k];
        if across == NONE {
            return None;
        }
        let j = self.edge_towards(across, t);
        let d = self.triangles[across as usize].vertices[j];
        if self.offsets.is_empty() {
            return Some((d, [0; 2]));
        }
        let (mine, theirs) = (self.periods_of(t), self.periods_of(across));
        // Vertex (k + 1) of t is vertex (j + 2) of the neighbour.
        let shift = sub(mine[(k + 1) % 3], theirs[(j + 2) % 3]);
        Some((d, add(theirs[j], shift)))
    }

    /// The local index of vertex `v` in triangle `t`.
    #[inline]
    fn local(&self, t: u32, v: u32) -> usize {
        position_of(&self.triangles[t as usize].vertices, v)
    }

    /// The local index in `t` of the edge shared with triangle `other`.
    #[inline]
    fn edge_towards(&self, t: u32, other: u32) -> usize {
        position_of(&self.triangles[t as usize].neighbours, other)
    }

    fn set_neighbour(&mut self, t: u32, old: u32, new: u32) {
        if t != NONE {
            let k = self.edge_towards(t, old);
            self.triangles[t as usize].neighbours[k] = new;
        }
    }

    /// Flips the edge opposite local vertex `k` of triangle `t1`; returns the two triangles
    /// (now `c a d` and `d b c`) and the new edge's endpoints `(c, d)`.
    fn flip(&mut self, t1: u32, k: usize) -> (u32, u32, u32, u32) {
        let v1 = self.triangles[t1 as usize].vertices;
        let n1 = self.triangles[t1 as usize].neighbours;
        let (c, a, b) = (v1[k], v1[(k + 1) % 3], v1[(k + 2) % 3]);
        let t2 = n1[k];
        let j = self.edge_towards(t2, t1);
        let v2 = self.triangles[t2 as usize].vertices;
        let n2 = self.triangles[t2 as usize].neighbours;
        let d = v2[j];
        debug_assert!(v2[(j + 1) % 3] == b && v2[(j + 2) % 3] == a);
        let across_bc = n1[(k + 1) % 3];
        let across_ca = n1[(k + 2) % 3];
        let across_ad = n2[(j + 1) % 3];
        let across_db = n2[(j + 2) % 3];
        if !self.offsets.is_empty() {
            // Both new triangles in t1's frame: d's periods shifted as the shared vertex a's.
            let (p1, p2) = (self.offsets[t1 as usize], self.offsets[t2 as usize]);
            let pd = add(p2[j], sub(p1[(k + 1) % 3], p2[(j + 2) % 3]));
            let (pc, pa, pb) = (p1[k], p1[(k + 1) % 3], p1[(k + 2) % 3]);
            self.offsets[t1 as usize] = [pc, pa, pd];
            self.offsets[t2 as usize] = [pd, pb, pc];
        }
        self.triangles[t1 as usize].vertices = [c, a, d];
        self.triangles[t1 as usize].neighbours = [across_ad, t2, across_ca];
        self.triangles[t2 as usize].vertices = [d, b, c];
        self.triangles[t2 as usize].neighbours = [across_bc, t1, across_db];
        self.set_neighbour(across_ad, t2, t1);
        self.set_neighbour(across_bc, t1, t2);
        for (v, t) in [(a, t1), (c, t1), (d, t1), (b, t2)] {
            self.incident[v as usize] = t;
        }
        (t1, t2, c, d)
    }

    /// Where `p` lies: a triangle containing it, and the local index of the edge it lies on
    /// exactly, if any. Visibility walk from `start` with exact orientation tests.
    fn locate(&self, p: &Image, start: u32, cover: &Cover) -> (u32, Option<usize>) {
        let mut t = start;
        'walk: loop {
            let v = self.triangles[t as usize].vertices;
            let mut on_edge = None;
            for k in 0..3 {
                let (a, b) = (&cover.images[v[(k + 1) % 3] as usize], &cover.images[v[(k + 2) % 3] as usize]);
                match orient_images(a, b, p, cover.period) {
                    // p is beyond this edge: step across (the visibility walk terminates in a
                    // regular triangulation).
                    Ordering::Less => {
                        t = self.triangles[t as usize].neighbours[k];
                        continue 'walk;
                    }
                    Ordering::Equal => on_edge = Some(k),
                    Ordering::Greater => {}
                }
            }
            return (t, on_edge);
        }
    }

    /// Inserts vertex `p` of `cover` into the triangulation.
    fn insert(&mut self, p: u32, start: u32, cover: &Cover) -> u32 {
        let (t, on_edge) = self.locate(&cover.images[p as usize], start, cover);
        self.stack.clear();
        match on_edge {
            None => {
                // Split t = (a, b, c) into (p, b, c), (a, p, c), (a, b, p).
                let [a, b, c] = self.triangles[t as usize].vertices;
                let [na, nb, nc] = self.triangles[t as usize].neighbours;
                let t1 = self.triangles.len() as u32;
                let t2 = t1 + 1;
                self.triangles[t as usize].vertices = [p, b, c];
                self.triangles[t as usize].neighbours = [na, t1, t2];
                self.triangles.push(Triangle { vertices: [a, p, c], neighbours: [t, nb, t2] });
                self.triangles.push(Triangle { vertices: [a, b, p], neighbours: [t, t1, nc] });
                self.set_neighbour(nb, t, t1);
                self.set_neighbour(nc, t, t2);
                self.incident[p as usize] = t;
                self.incident[a as usize] = t1;
                self.incident[b as usize] = t;
                self.incident[c as usize] = t;
                self.stack.extend([(t, 0), (t1, 1), (t2, 2)]);
            }
            Some(k) => {
                // p on the edge opposite k of t = (c, a, b) (rotated) shared with u = (d, b, a):
                // four triangles (c, a, p), (c, p, b), (d, b, p), (d, p, a).
                let v = self.triangles[t as usize].vertices;
                let n = self.triangles[t as usize].neighbours;
                let (c, a, b) = (v[k], v[(k + 1) % 3], v[(k + 2) % 3]);
                let u = n[k];
                let j = self.edge_towards(u, t);
                let w = self.triangles[u as usize].vertices;
                let m = self.triangles[u as usize].neighbours;
                let d = w[j];
                let (across_bc, across_ca) = (n[(k + 1) % 3], n[(k + 2) % 3]);
                let (across_ad, across_db) = (m[(j + 1) % 3], m[(j + 2) % 3]);
                let t1 = self.triangles.len() as u32;
                let u1 = t1 + 1;
                // t = (c, a, p), t1 = (c, p, b), u = (d, b, p), u1 = (d, p, a).
                self.triangles[t as usize].vertices = [c, a, p];
                self.triangles[t as usize].neighbours = [u1, t1, across_ca];
                self.triangles.push(Triangle { vertices: [c, p, b], neighbours: [u, across_bc, t] });
                self.triangles[u as usize].vertices = [d, b, p];
                self.triangles[u as usize].neighbours = [t1, u1, across_db];
                self.triangles.push(Triangle { vertices: [d, p, a], neighbours: [t, across_ad, u] });
                self.set_neighbour(across_bc, t, t1);
                self.set_neighbour(across_ad, u, u1);
                self.incident[p as usize] = t;
                self.incident[a as usize] = t;
                self.incident[c as usize] = t;
                self.incident[b as usize] = u;
                self.incident[d as usize] = u;
                self.stack.extend([(t, 2), (t1, 1), (u, 2), (u1, 1)]);
            }
        }
        // Lawson: legalise the edges opposite p (ties broken by the perturbation, the same in
        // every periodic image).
        while let Some((t, k)) = self.stack.pop() {
            let k = k as usize;
            let Some((d, _)) = self.opposite(t, k) else { continue };
            let v = self.triangles[t as usize].vertices;
            let quad = [v[(k + 1) % 3], v[(k + 2) % 3], v[k], d];
            let sites = quad.map(|x| &cover.images[x as usize]);
            if power_test_perturbed(sites, quad.map(|x| cover.ids[x as usize]), cover.period)
                == Ordering::Greater
            {
                let (t1, t2, _, _) = self.flip(t, k);
                // t1 = (p, a, d): new outer edge a-d opposite p; t2 = (d, b, p): edge d-b opposite p.
                self.stack.push((t1, 0));
                self.stack.push((t2, 2));
            }
        }
        t
    }

    /// The slot holding the certificate of the edge opposite local vertex `k` of triangle `t`:
    /// `3 t + k` on the side with the lower triangle index (or on `t`'s side at the hull).
    #[inline]
    fn canonical_slot(&self, t: u32, k: usize) -> u32 {
        let across = self.triangles[t as usize].neighbours[k];
        if across == NONE || t < across {
            3 * t + k as u32
        } else {
            3 * across + self.edge_towards(across, t) as u32
        }
    }

    /// The certificate of the quadrilateral `[a, b, c, d]` (edge `ab`, triangles `abc` and `bad`;
    /// positive when `d` is inside the power circle of `abc`), with the magnitude of its
    /// constant term, the three rows it was expanded from and the reference site's radius and
    /// rate, all in the certificate's own [`Units`] (its time variable too; `None`: as they
    /// are).
    ///
    /// The rows are taken relative to a particle, never to a corner of the bounding triangle:
    /// the determinant is invariant under translation, and a cyclic shift of the four sites
    /// only flips its sign, so `d` is replaced by the first particle in cyclic order. Relative
    /// to a far corner every row would be huge and the certificate rounding noise.
    // Always inlined into its one caller: returned by value, the polynomial, rows and magnitude
    // go through memory (measured in the benchmark binary, where `#[inline]` was not enough).
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn edge_certificate(
        &self,
        quad: [u32; 4],
        periods: [[i32; 2]; 4],
        state: &State<2>,
    ) -> (polynomial::Quartic, f64, [RelativeMotion; 3], (f64, f64), Option<Units>) {
        let n = self.particles as u32;
        // An interior edge's quadrilateral has four distinct vertices, at most three corners.
        let shift = (0..4).find(|&k| quad[(k + 3) % 4] < n).unwrap_or(0);
        let [a, b, c, d] = std::array::from_fn(|i| quad[(i + shift) % 4]);
        let (xd, rd) = self.site(d, state);
        let (vd, rate_d) = self.motion(d, state);
        let row = |x: u32| self.relative_motion(x, (xd, vd), state);
        let mut rows = [row(a), row(b), row(c)];
        if !self.offsets.is_empty() {
            // The whole periods between each image and d's, added to the difference of the
            // centres.
            let pd = periods[(3 + shift) % 4];
            for (i, row) in rows.iter_mut().enumerate() {
                let px = periods[(i + shift) % 4];
                for axis in 0..2 {
                    row.position[axis] += f64::from(px[axis] - pd[axis]) * self.period[axis];
                }
            }
        }
        let mut reference_radius = (rd, rate_d);
        let units = Units::for_rows(&rows, reference_radius);
        if let Some(units) = units {
            units.rows(&mut rows, &mut reference_radius);
        }
        let (mut polynomial, magnitude) = certificate(rows, reference_radius);
        if shift % 2 == 1 {
            polynomial = polynomial.map(|c| -c);
        }
        (polynomial, magnitude, rows, reference_radius, units)
    }

    /// Schedules the certificate of the edge opposite local vertex `k` of triangle `t` in its
    /// canonical slot (the side with the lower triangle index) and clears the other side.
    fn schedule_edge<Q: EventQueue>(
        &self,
        t: u32,
        k: usize,
        known_valid: bool,
        state: &State<2>,
        certificates: &mut Certificates<'_, Q>,
    ) {
        let across = self.triangles[t as usize].neighbours[k];
        if across == NONE {
            self.clear_slot(3 * t as usize + k, certificates);
            return;
        }
        let (t, k, other, other_k) = if t < across {
            (t, k, across, self.edge_towards(across, t))
        } else {
            let j = self.edge_towards(across, t);
            (across, j, t, k)
        };
        self.clear_slot(3 * other as usize + other_k, certificates);
        let v = self.triangles[t as usize].vertices;
        let (a, b, c) = (v[(k + 1) % 3], v[(k + 2) % 3], v[k]);
        // The vertex of the other triangle across the edge, and the quadrilateral's periods in
        // t's frame (d's shifted as the shared vertex a's).
        let d = self.triangles[other as usize].vertices[other_k];
        let quad_periods = if self.offsets.is_empty() {
            [[0; 2]; 4]
        } else {
            let (p, q) = (self.offsets[t as usize], self.offsets[other as usize]);
            let pd = add(q[other_k], sub(p[(k + 1) % 3], q[(other_k + 2) % 3]));
            [p[(k + 1) % 3], p[(k + 2) % 3], p[k], pd]
        };
        let (polynomial, magnitude, rows, reference_radius, units) =
            self.edge_certificate([a, b, c, d], quad_periods, state);
        // Whether the edge fails now. A freshly flipped edge is valid just after its flip by
        // construction, while its quadrilateral is still co-circular to rounding: no test. Else
        // the constant term decides when it is clear of its rounding error (the same bound as
        // the filter of `power_test`), and the exact test otherwise.
        let now_invalid = !known_valid && {
            let bound = 64.0 * f64::EPSILON * magnitude;
            if polynomial[0].abs() > bound {
                polynomial[0] > 0.0
            } else {
                let image = |x: u32, periods: [i32; 2]| self.image(x, periods, state);
                let [ia, ib, ic, id] =
                    [(a, quad_periods[0]), (b, quad_periods[1]), (c, quad_periods[2]), (d, quad_periods[3])]
                        .map(|(x, q)| image(x, q));
                power_test_images(&ia, &ib, &ic, &id, self.period) == Ordering::Greater
            }
        };
        let slot = 3 * t as usize + k;
        // Cheap first: most edges provably cannot fail within the horizon (and are recomputed
        // by a collision before it ends); re-check them then. Solve only when it may be near.
        // The horizon in the certificate's time unit.
        let horizon = units.map_or(self.horizon, |units| units.duration_in_units(self.horizon));
        if !now_invalid && polynomial[0] < 0.0 && polynomial::no_root_before(&polynomial, horizon) {
            self.schedule_recheck(slot, certificates);
            return;
        }
        // Coefficients at rounding level carry no sign: drop them before looking for roots, so
        // that a quadrilateral co-circular at all times (a rectangle translating or reflected
        // by walls) does not flip back and forth on noise. The exact test above still decides
        // the present.
        let magnitudes = certificate_magnitudes(rows, reference_radius);
        let tau = match polynomial::without_noise(&polynomial, &magnitudes) {
            Some(clean) => first_failure(&clean, now_invalid, horizon),
            None if now_invalid => 0.0,
            None => f64::INFINITY,
        };
        let tau = units.map_or(tau, |units| units.duration_from_units(tau));
        if tau.is_infinite() && self.horizon.is_finite() {
            self.schedule_recheck(slot, certificates);
        } else {
            self.recheck_at[slot].set(IN_QUEUE);
            certificates.schedule(slot, certificates.now() + tau);
        }
    }

    /// Measures the mean free path (see [`recheck_horizon`](Self::recheck_horizon)) and sets
    /// the re-check horizon to one reach at the rms speed relative to the mean velocity
    /// (certificates move only with the relative motion: a whole system falling along a
    /// periodic axis speeds up without end, its relative motion does not), if that differs by
    /// more than a tenth from the horizon now (not on every fluctuation of an elastic system).
    /// Any horizon is correct; a longer one solves further ahead, and more of the certificates
    /// then need their roots isolated, a shorter one re-checks more often. It follows an
    /// inelastic system as it cools, and particles that speed up relative to each other, such
    /// as a bed falling onto the floor (measured: with the horizon of the start kept, 1 024
    /// disks falling in a walled box ran at half the speed).
    fn update_horizon(&mut self, now: f64) {
        let (updates, elapsed) = (self.speed_updates, now - self.reconsidered_at);
        self.speed_updates = 0;
        self.reconsidered_at = now;
        let n = self.particles.max(1) as f64;
        let sum = self.velocities.iter().fold([0.0; 2], |s, v| [s[0] + v[0], s[1] + v[1]]);
        let mean = [sum[0] / n, sum[1] / n];
        let speed = rms_deviation(&self.velocities, mean);
        // The mean free path measured: the relative speed times the mean time between two
        // trajectory changes of a particle; within a factor 16 of the estimate at build.
        if updates > 0 && elapsed > 0.0 && speed > 0.0 {
            let measured = speed * elapsed * n / updates as f64;
            if measured.is_finite() {
                let free_path = measured.clamp(self.built_free_path / 16.0, 16.0 * self.built_free_path);
                self.reach = self.most.min((self.most * free_path).sqrt());
            }
        }
        let horizon = if speed > 0.0 { self.reach / speed } else { f64::INFINITY };
        if !(horizon <= 1.1 * self.horizon && 1.1 * horizon >= self.horizon) {
            self.horizon = horizon;
        }
    }

    /// The slot of the earliest pending re-check in the engine's queue (after every edge's).
    fn recheck_slot(&self) -> usize {
        self.recheck_at.len()
    }

    /// The slot of the corners' next launch (after the re-checks').
    fn launch_slot(&self) -> usize {
        self.recheck_at.len() + 1
    }

    /// Launches the bounding triangle's corners again (see [`corners`]): their velocity
    /// changes, so every edge whose quadrilateral has a corner is rescheduled, as a particle's
    /// are after a collision.
    fn relaunch_corners<Q: EventQueue>(&mut self, state: &State<2>, certificates: &mut Certificates<'_, Q>) {
        self.corners.relaunch(state.now());
        let mut slots = std::mem::take(&mut self.star);
        slots.clear();
        for corner in self.particles..self.particles + 3 {
            let v = corner as u32;
            self.for_each_triangle_around_corner(v, |t| {
                for k in 0..3 {
                    let slot = self.canonical_slot(t, k);
                    if !slots.contains(&slot) {
                        slots.push(slot);
                    }
                }
            });
        }
        for &slot in &slots {
            self.schedule_edge(slot / 3, (slot % 3) as usize, false, state, certificates);
        }
        self.star = slots;
        certificates.schedule(self.launch_slot(), self.corners.next_launch());
    }

    /// Replaces whatever `slot` has pending by a re-check one horizon from now.
    #[inline]
    fn schedule_recheck<Q: EventQueue>(&self, slot: usize, certificates: &mut Certificates<'_, Q>) {
        if self.recheck_at[slot].get() == IN_QUEUE {
            certificates.cancel(slot);
        }
        let time = certificates.now() + self.horizon;
        self.recheck_at[slot].set(time);
        if time < self.recheck_due.get() {
            certificates.schedule(self.recheck_slot(), time);
            self.recheck_due.set(time);
        }
        self.rechecks.borrow_mut().push(time, slot as u32);
    }

    /// Removes whatever `slot` has pending (a stale re-check entry is skipped when it comes up).
    #[inline]
    fn clear_slot<Q: EventQueue>(&self, slot: usize, certificates: &mut Certificates<'_, Q>) {
        if self.recheck_at[slot].get() == IN_QUEUE {
            certificates.cancel(slot);
        }
        self.recheck_at[slot].set(f64::INFINITY);
    }

    /// The re-check that is due now, if any: stale entries are dropped, the entry returned is
    /// removed, and the queue is set to the next entry's time.
    fn take_due_recheck<Q: EventQueue>(&self, certificates: &mut Certificates<'_, Q>) -> Option<usize> {
        let (due, next) = self
            .rechecks
            .borrow_mut()
            .take_due(certificates.now(), |time, slot| self.recheck_at[slot as usize].get() == time);
        if let Some(slot) = due {
            self.recheck_at[slot as usize].set(f64::INFINITY);
        }
        match next {
            Some(time) => certificates.schedule(self.recheck_slot(), time),
            None => certificates.cancel(self.recheck_slot()),
        }
        self.recheck_due.set(next.unwrap_or(f64::INFINITY));
        due.map(|slot| slot as usize)
    }

    /// Whether an edge from an image with periods `from` to one with periods `to` crosses the
    /// gap beyond the walls (see [`gap_axes`](Self::gap_axes)).
    #[inline]
    fn through_gap(&self, from: [i32; 2], to: [i32; 2]) -> bool {
        (0..2).any(|a| self.gap_axes[a] && from[a] != to[a])
    }

    /// The displacement from an image with periods `from` to one with periods `to`.
    #[inline]
    fn shift(&self, from: [i32; 2], to: [i32; 2]) -> [f64; 2] {
        let d = sub(to, from);
        [f64::from(d[0]) * self.period[0], f64::from(d[1]) * self.period[1]]
    }

    /// Triangulates the sites of `cover` (see the module documentation): the triangles inside
    /// its bounding triangle, their vertices indices into the cover.
    fn triangulate(&mut self, cover: &Cover) {
        let images = cover.images.len() - 3;
        let (c0, c1, c2) = (images as u32, images as u32 + 1, images as u32 + 2);
        self.triangles = vec![Triangle { vertices: [c0, c1, c2], neighbours: [NONE; 3] }];
        self.triangles.reserve(2 * images + 1);
        self.offsets.clear();
        self.incident = vec![0; images + 3];
        // Insert in Morton order so each walk starts next to its target.
        let mut order: Vec<u32> = (0..images as u32).collect();
        let (lo, hi) = cover.region;
        let key = |i: u32| {
            let x = cover.point(i as usize);
            let cell = |a: usize| (((x[a] - lo[a]) / (hi[a] - lo[a])).clamp(0.0, 1.0) * 65535.0) as u32;
            let (a, b) = (cell(0), cell(1));
            let mut z = 0u64;
            for bit in (0..16).rev() {
                z = (z << 2) | (u64::from((a >> bit) & 1) << 1) | u64::from((b >> bit) & 1);
            }
            z
        };
        order.sort_by_cached_key(|&i| key(i));
        let mut last = 0;
        for p in order {
            last = self.insert(p, last, cover);
        }
    }

    /// Whether the edge opposite local vertex `k` of `t1` can be flipped now (see [`Flip`]).
    fn check_flip(&self, t1: u32, k: usize, state: &State<2>) -> Flip {
        let (v1, n1) = (self.triangles[t1 as usize].vertices, self.triangles[t1 as usize].neighbours);
        let t2 = n1[k];
        let j = self.edge_towards(t2, t1);
        let (v2, n2) = (self.triangles[t2 as usize].vertices, self.triangles[t2 as usize].neighbours);
        // The new triangles (c, a, d) and (d, b, c), their outer neighbours as in `flip`.
        let (c, d) = (v1[k], v2[j]);
        if c == d {
            return Flip::JoinsImages;
        }
        let (across_bc, across_ca) = (n1[(k + 1) % 3], n1[(k + 2) % 3]);
        let (across_ad, across_db) = (n2[(j + 1) % 3], n2[(j + 2) % 3]);
        let twice = |x: u32, y: u32| x != NONE && x == y;
        if twice(across_ad, across_ca)
            || twice(across_bc, across_db)
            || [across_ad, across_ca].contains(&t2)
            || [across_bc, across_db].contains(&t1)
        {
            return Flip::NotConvex;
        }
        // Both new triangles counter-clockwise: the quadrilateral is strictly convex.
        let (d, pd) = self.opposite(t1, k).unwrap_or((d, [0; 2]));
        let p = self.periods_of(t1);
        let image = |x: u32, periods: [i32; 2]| self.image(x, periods, state);
        let (ic, ia, ib, id) = (
            image(c, p[k]),
            image(v1[(k + 1) % 3], p[(k + 1) % 3]),
            image(v1[(k + 2) % 3], p[(k + 2) % 3]),
            image(d, pd),
        );
        if orient_images(&ic, &ia, &id, self.period) == Ordering::Greater
            && orient_images(&id, &ib, &ic, self.period) == Ordering::Greater
        {
            Flip::Valid
        } else {
            Flip::NotConvex
        }
    }

    /// Gives up the triangulation for a [`Fallback`]'s candidates (see [`fell_back`]): every
    /// certificate is cancelled, the stand-in schedules its own, and every pair of candidates
    /// is checked once now.
    ///
    /// [`fell_back`]: Self::fell_back
    fn fall_back<Q: EventQueue>(
        &mut self,
        state: &mut State<2>,
        certificates: &mut Certificates<'_, Q>,
        new_pairs: &mut Vec<CandidatePair<2>>,
    ) {
        for slot in 0..=self.launch_slot() {
            certificates.cancel(slot);
        }
        // Neither stand-in fails to build for a state that was valid at the start (the box
        // has not changed).
        let Ok(stand_in) = Fallback::build(state, certificates) else {
            return;
        };
        // Both ways: a check updates the first particle's event only.
        for i in 0..state.len() {
            stand_in.for_each_candidate(i, state, |k, shift| new_pairs.push((i as u32, k as u32, shift)));
        }
        self.fallback = Some(stand_in);
        self.triangles.clear();
        self.offsets.clear();
        self.rechecks.get_mut().clear();
        self.recheck_due.set(f64::INFINITY);
    }

    /// Replaces the triangulation of the periodic images `cover` by the triangulation of the
    /// torus at its centre: of each triangle and its translates by whole periods, the one
    /// whose smallest particle is at its home image (the central copy) is kept, with the
    /// periods of its vertices, and its neighbours are found as the kept translates of its
    /// neighbours in the images. Every triangle touching the central copy must lie among the
    /// images (not reach the bounding triangle), have three distinct particles and its
    /// neighbours' translates kept: a box so sparse that an empty power circle spans it fails
    /// this, with an error (on which the build falls back to the subdivision), and so may a band of
    /// images too narrow (on which the build takes all of them).
    fn extract_torus(&mut self, cover: &Cover) -> Result<(), SimError> {
        let n = self.particles;
        let too_sparse = SimError::Unsupported {
            what: "a periodic box so sparse that an empty power circle spans it (too few particles to triangulate the torus)",
        };
        let images = cover.images.len() - 3;
        // A triangle translated so that its smallest particle has periods 0: its particles and
        // the others' periods, from the smallest on in counter-clockwise order; `None` with a
        // corner or a particle twice.
        let key = |t: &Triangle| -> Option<([u32; 3], [[i32; 2]; 3])> {
            if t.vertices.iter().any(|&v| v as usize >= images) {
                return None;
            }
            let ids = t.vertices.map(|v| cover.ids[v as usize]);
            if ids[0] == ids[1] || ids[1] == ids[2] || ids[0] == ids[2] {
                return None;
            }
            let first = (0..3).min_by_key(|&k| ids[k]).unwrap_or(0);
            let origin = cover.images[t.vertices[first] as usize].periods;
            let at = |k: usize| (first + k) % 3;
            Some((
                [0, 1, 2].map(|k| ids[at(k)]),
                [0, 1, 2].map(|k| sub(cover.images[t.vertices[at(k)] as usize].periods, origin)),
            ))
        };
        let mut index = std::collections::HashMap::with_capacity(2 * n);
        let mut kept = Vec::with_capacity(2 * n);
        for (t, triangle) in self.triangles.iter().enumerate() {
            let central = triangle.vertices.map(|v| (v as usize) < n);
            if !central.iter().any(|&c| c) {
                continue;
            }
            let Some(k) = key(triangle) else { return Err(too_sparse) };
            // Kept if its smallest particle's image is the central one.
            let first = (0..3).min_by_key(|&k| cover.ids[triangle.vertices[k] as usize]).unwrap_or(0);
            if central[first] {
                index.insert(k, kept.len() as u32);
                kept.push(t);
            }
        }
        // A triangulation of the torus with n vertices has 2n triangles (Euler: V − E + F = 0).
        if kept.len() != 2 * n {
            return Err(too_sparse);
        }
        let mut triangles = Vec::with_capacity(2 * n);
        let mut offsets = Vec::with_capacity(2 * n);
        for &t in &kept {
            let triangle = self.triangles[t];
            let mut neighbours = [NONE; 3];
            for (k, &u) in triangle.neighbours.iter().enumerate() {
                let found = (u != NONE)
                    .then(|| key(&self.triangles[u as usize]))
                    .flatten()
                    .and_then(|k| index.get(&k));
                neighbours[k] = *found.ok_or(SimError::Unsupported {
                    what: "a periodic box so sparse that an empty power circle spans it (too few particles to triangulate the torus)",
                })?;
            }
            triangles
                .push(Triangle { vertices: triangle.vertices.map(|v| cover.ids[v as usize]), neighbours });
            offsets.push(triangle.vertices.map(|v| cover.images[v as usize].periods));
        }
        // Each neighbour must see the triangle back, and a triangle must meet three different
        // ones (edges are found by their neighbour: two shared edges would be ambiguous).
        for (t, triangle) in triangles.iter().enumerate() {
            let [a, b, c] = triangle.neighbours;
            if a == b || b == c || a == c || triangle.neighbours.contains(&(t as u32)) {
                return Err(too_sparse);
            }
            for &u in &triangle.neighbours {
                if !triangles[u as usize].neighbours.contains(&(t as u32)) {
                    return Err(too_sparse);
                }
            }
        }
        self.incident = vec![0; n + 3];
        for (t, triangle) in triangles.iter().enumerate() {
            for &v in &triangle.vertices {
                self.incident[v as usize] = t as u32;
            }
        }
        self.triangles = triangles;
        self.offsets = offsets;
        Ok(())
    }

    /// Calls `f(t)` for every triangle around vertex `v` (counter-clockwise).
    /// Triangulates the state now from scratch (the construction of `build`, without any
    /// certificate): on the torus of a box with a periodic side, or in a walled one inside the
    /// bounding triangle, whose corners are placed `corners` if given and otherwise start
    /// afresh (see [`Corners`]). Returns whether the torus has a triangulation (always true
    /// with walls).
    fn construct(&mut self, state: &State<2>, corners: Option<[[f64; 2]; 3]>) -> bool {
        let axes = state.sim_box().periodic_axes();
        let periodic = axes[0] || axes[1];
        let n = state.len();
        self.particles = n;
        self.fallback = None;
        let [lx, ly] = state.sim_box().lengths();
        // A walled axis of a box with a periodic one: the torus closes over a gap beyond the
        // walls (see the module documentation for its width).
        self.gap_axes = [periodic && !axes[0], periodic && !axes[1]];
        let gap = if self.gap_axes.contains(&true) {
            let largest = (0..n).map(|i| state.radius(i)).fold(0.0, f64::max);
            let (walled, across) = if self.gap_axes[0] { (lx, ly) } else { (ly, lx) };
            (2.0 * largest).max((0.25 * across).min(across - walled)) / 2.0
        } else {
            0.0
        };
        self.period = if periodic {
            [0, 1].map(|a| if self.gap_axes[a] { [lx, ly][a] + 2.0 * gap } else { [lx, ly][a] })
        } else {
            [0.0; 2]
        };
        let low = self.gap_axes.map(|gapped| if gapped { -gap } else { 0.0 });
        let spacing = (lx * ly / n.max(1) as f64).sqrt();
        if periodic {
            // First only the images within a band around the box (a few spacings wide): enough
            // for every triangle at the box unless an empty power circle is wider than the band,
            // which the extraction or the regularity check then reveals; all 3 × 3 images
            // otherwise.
            let band = BAND_SPACINGS * spacing;
            let narrow = (band < 0.5 * self.period[0].min(self.period[1]))
                .then(|| {
                    let cover = Cover::new(state, self.period, low, 1, band);
                    self.triangulate(&cover);
                    self.extract_torus(&cover).ok().filter(|()| self.is_regular(state))
                })
                .flatten();
            if narrow.is_none() {
                // All 3 × 3 images, and where an empty power circle reaches past them (a few
                // particles: its triangles then differ from the torus's and do not close up),
                // 5 × 5.
                return (1..=2).any(|reach| {
                    let cover = Cover::new(state, self.period, low, reach, f64::INFINITY);
                    self.triangulate(&cover);
                    self.extract_torus(&cover).is_ok() && self.is_regular(state)
                });
            }
        } else {
            let mut cover = Cover::new(state, [0.0; 2], [0.0; 2], 0, 0.0);
            match corners {
                Some(at) => cover.place_corners(at),
                None => {
                    self.corners = Corners::new(cover.corners, state.gravity(), state.now(), cover.inscribed);
                }
            }
            self.triangulate(&cover);
        }
        true
    }

    /// Calls `f` for every triangle around a corner of the bounding triangle: a fan bounded by
    /// the triangle's outer edges, walked from the incident triangle both ways.
    fn for_each_triangle_around_corner(&self, v: u32, mut f: impl FnMut(u32)) {
        let start = self.incident[v as usize];
        f(start);
        for turn in [1, 2] {
            let mut t = start;
            loop {
                let l = self.local(t, v);
                t = self.triangles[t as usize].neighbours[(l + turn) % 3];
                if t == start || t == NONE {
                    break;
                }
                f(t);
            }
        }
    }

    fn for_each_triangle_around(&self, v: u32, mut f: impl FnMut(u32)) {
        let start = self.incident[v as usize];
        let mut t = start;
        loop {
            f(t);
            let l = self.local(t, v);
            t = self.triangles[t as usize].neighbours[(l + 1) % 3];
            if t == start || t == NONE {
                break;
            }
        }
    }
}

impl Cdo<2> for LaguerreDelaunay {
    fn name(&self) -> &'static str {
        "laguerre delaunay"
    }

    fn build<Q: EventQueue>(
        &mut self,
        state: &mut State<2>,
        certificates: &mut Certificates<'_, Q>,
    ) -> Result<(), SimError> {
        let n = state.len();
        let periodic = state.sim_box().periodic_axes().contains(&true);
        let [lx, ly] = state.sim_box().lengths();
        let spacing = (lx * ly / n.max(1) as f64).sqrt();
        if !self.construct(state, None) {
            // The torus has no triangulation now: the subdivision stands in (a later rebuild,
            // e.g. after a thermostat step, tries again).
            self.fallback = Some(Fallback::build(state, certificates)?);
            self.triangles.clear();
            self.offsets.clear();
            self.rechecks.get_mut().clear();
            self.recheck_due.set(f64::INFINITY);
            return Ok(());
        }
        // The re-check horizon: a couple of mean free times (most certificates are recomputed
        // by a collision of one of their four particles before then, so a longer horizon only
        // makes fewer edges pass the cheap test), at most a spacing's travel in dilute systems.
        let area = lx * ly;
        let free_path = mean_free_path(n, area, (0..n).map(|i| state.radius(i)));
        self.most = HORIZON_SPACINGS * spacing;
        self.built_free_path = free_path;
        self.reach = self.most.min((self.most * free_path).sqrt());
        self.velocities = (0..n).map(|i| free_fall_velocity(state, i)).collect();
        self.horizon = 0.0;
        self.reconsidered_at = state.now();
        self.update_horizon(state.now());
        self.recheck_at = vec![std::cell::Cell::new(f64::INFINITY); self.certificate_slots(n) - 2];
        self.rechecks.get_mut().clear();
        self.recheck_due.set(f64::INFINITY);
        for t in 0..self.triangles.len() as u32 {
            for k in 0..3 {
                self.schedule_edge(t, k, false, state, certificates);
            }
        }
        if !periodic && self.corners.next_launch().is_finite() {
            certificates.schedule(self.launch_slot(), self.corners.next_launch());
        }
        Ok(())
    }

    fn certificate_slots(&self, particles: usize) -> usize {
        // 2n + 1 triangles for n points inside a bounding triangle, three edges each, the
        // earliest pending re-check, and the corners' next launch.
        3 * (2 * particles + 1) + 2
    }

    fn for_each_candidate(&self, i: usize, state: &State<2>, mut f: impl FnMut(usize, [f64; 2])) {
        if let Some(stand_in) = &self.fallback {
            stand_in.for_each_candidate(i, state, f);
            return;
        }
        let v = i as u32;
        let n = self.particles as u32;
        self.for_each_triangle_around(v, |t| {
            let l = self.local(t, v);
            let w = self.triangles[t as usize].vertices[(l + 1) % 3];
            if w < n {
                let periods = self.periods_of(t);
                if !self.through_gap(periods[l], periods[(l + 1) % 3]) {
                    f(w as usize, self.shift(periods[l], periods[(l + 1) % 3]));
                }
            }
        });
    }

    fn trajectory_changed<Q: EventQueue>(
        &mut self,
        i: usize,
        state: &State<2>,
        certificates: &mut Certificates<'_, Q>,
    ) {
        self.trajectories_changed(&[i], state, certificates);
    }

    fn trajectories_changed<Q: EventQueue>(
        &mut self,
        involved: &[usize],
        state: &State<2>,
        certificates: &mut Certificates<'_, Q>,
    ) {
        if let Some(stand_in) = &mut self.fallback {
            for &i in involved {
                stand_in.trajectory_changed(i, state, certificates);
            }
            return;
        }
        for &i in involved {
            self.velocities[i] = free_fall_velocity(state, i);
        }
        self.speed_updates += involved.len();
        if self.speed_updates >= self.particles {
            self.update_horizon(state.now());
        }
        // Every edge whose quadrilateral contains a moved particle, once: per triangle around
        // it, the edge opposite it (its link) and the spoke to the next vertex (each spoke is
        // shared by two consecutive triangles). Two colliding particles are neighbours, so
        // five of their edges are in both stars: collect canonical slots and drop repeats
        // (a linear scan of the dozen or so slots of the earlier stars: cheaper than sorting).
        let mut slots = std::mem::take(&mut self.star);
        slots.clear();
        for &i in involved {
            let v = i as u32;
            let earlier = slots.len();
            self.for_each_triangle_around(v, |t| {
                let l = self.local(t, v);
                for slot in [self.canonical_slot(t, l), self.canonical_slot(t, (l + 2) % 3)] {
                    if !slots[..earlier].contains(&slot) {
                        slots.push(slot);
                    }
                }
            });
        }
        for &slot in &slots {
            self.schedule_edge(slot / 3, (slot % 3) as usize, false, state, certificates);
        }
        self.star = slots;
    }

    fn certificate_failed<Q: EventQueue>(
        &mut self,
        slot: usize,
        state: &mut State<2>,
        certificates: &mut Certificates<'_, Q>,
        new_pairs: &mut Vec<CandidatePair<2>>,
    ) -> Option<usize> {
        if let Some(stand_in) = &mut self.fallback {
            return stand_in.certificate_failed(slot, state, certificates, new_pairs);
        }
        if slot == self.recheck_slot() {
            if let Some(due) = self.take_due_recheck(certificates) {
                self.schedule_edge((due / 3) as u32, due % 3, false, state, certificates);
            }
            return None;
        }
        if slot == self.launch_slot() {
            self.relaunch_corners(state, certificates);
            return None;
        }
        match self.check_flip((slot / 3) as u32, slot % 3, state) {
            Flip::Valid => {}
            Flip::JoinsImages => {
                self.fall_back(state, certificates, new_pairs);
                return Some(0);
            }
            Flip::NotConvex => {
                // Only a certificate failing at the wrong time gets here (see
                // `Flip::NotConvex`): leave the edge, and its certificate off until a particle
                // of the quadrilateral changes trajectory.
                self.clear_slot(slot, certificates);
                return None;
            }
        }
        let (t1, t2, c, d) = self.flip((slot / 3) as u32, slot % 3);
        // t1 = (c, a, d), t2 = (d, b, c): the new edge c-d (opposite a in t1) and the four
        // outer edges, each once.
        self.schedule_edge(t1, 1, true, state, certificates);
        self.schedule_edge(t1, 0, false, state, certificates);
        self.schedule_edge(t1, 2, false, state, certificates);
        self.schedule_edge(t2, 0, false, state, certificates);
        self.schedule_edge(t2, 2, false, state, certificates);
        let n = self.particles as u32;
        // t1 = (c, a, d): d's image as seen from c's.
        let periods = self.periods_of(t1);
        if c < n && d < n && !self.through_gap(periods[0], periods[2]) {
            new_pairs.push((c, d, self.shift(periods[0], periods[2])));
            Some(1)
        } else {
            Some(0)
        }
    }

    fn memory_bytes(&self) -> usize {
        self.fallback.as_ref().map_or(0, Fallback::memory_bytes)
            + self.triangles.capacity() * std::mem::size_of::<Triangle>()
            + self.offsets.capacity() * std::mem::size_of::<[[i32; 2]; 3]>()
            + self.incident.capacity() * 4
            + self.velocities.capacity() * 16
            + self.recheck_at.capacity() * 8
            + self.rechecks.borrow().memory_bytes()
            + (self.stack.capacity() + self.star.capacity()) * 8
    }
}
