//! Oracles shared by the `kinetic-cdo` integration tests, written from the physics alone.
//!
//! They read only the public state of a simulation — positions and velocities at `state.now()`,
//! radii, masses, the box and gravity — and never call the crate's kinematics, structures or
//! pair finders:
//!
//! * [`pair_contact`]: the first `τ >= 0` with `|d + uτ| = σ` while approaching (gravity cancels
//!   in relative motion), in the cancellation-free form `τ = c / (−b + √(b² − ac))`;
//! * [`gap_closing`]: the first `τ >= 0` at which a wall gap `h + bτ + ½aτ²` closes;
//! * [`predict_next`]: the brute-force next collision of a whole state: every pair in every
//!   periodic image out to as many periods as can still beat the earliest event found (a bound,
//!   not a guess: an image `m` periods away along an axis is at least `(|m| − ½)·L` away), and
//!   every wall, with the set of near-tied candidates and a tolerance per candidate;
//! * [`check_rule`]: the collision rule (momentum exchange along the contact normal, tangential
//!   components kept, normal relative speed scaled by `e`; walls reflect the normal component),
//!   and every other trajectory left untouched;
//! * [`lockstep`]: both oracles before and after every `next_collision()`.
// Every test file includes this module and uses a different part of it.
#![allow(dead_code)]

use kinetic_cdo::queue::EventQueue;
use kinetic_cdo::{Cdo, Collision, CollisionKind, Particle, SimBox, Simulation, State, init};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A seeded generator.
pub(crate) fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

pub(crate) fn dot<const D: usize>(a: [f64; D], b: [f64; D]) -> f64 {
    a.iter().zip(&b).map(|(x, y)| x * y).sum()
}

pub(crate) fn sub<const D: usize>(a: [f64; D], b: [f64; D]) -> [f64; D] {
    std::array::from_fn(|c| a[c] - b[c])
}

pub(crate) fn add<const D: usize>(a: [f64; D], b: [f64; D]) -> [f64; D] {
    std::array::from_fn(|c| a[c] + b[c])
}

pub(crate) fn scale<const D: usize>(s: f64, a: [f64; D]) -> [f64; D] {
    a.map(|c| s * c)
}

pub(crate) fn norm<const D: usize>(a: [f64; D]) -> f64 {
    dot(a, a).sqrt()
}

pub(crate) fn max_abs<const D: usize>(a: [f64; D]) -> f64 {
    a.iter().fold(0.0, |m, c| m.max(c.abs()))
}

/// The relative time tolerance of the lock-step requirement.
pub(crate) const TIME_RTOL: f64 = 1e-12;

/// `1e-12 · max(t, 1)`.
pub(crate) fn time_tolerance(t: f64) -> f64 {
    TIME_RTOL * t.abs().max(1.0)
}

/// The first `τ >= 0` at which `|d + uτ| = σ` with the pair approaching, and the normal approach
/// speed at that contact; `None` if the pair never touches while approaching. A pair that
/// rounding left overlapping while approaching touches at once (`τ = 0`).
pub(crate) fn pair_contact<const D: usize>(d: [f64; D], u: [f64; D], sigma: f64) -> Option<(f64, f64)> {
    // |d + uτ|² − σ² = aτ² + 2bτ + c.
    let a = dot(u, u);
    let b = dot(d, u);
    let c = dot(d, d) - sigma * sigma;
    if b >= 0.0 {
        return None;
    }
    if c <= 0.0 {
        return Some((0.0, -b / sigma));
    }
    let disc = b * b - a * c;
    if disc < 0.0 {
        return None;
    }
    let root = disc.sqrt();
    // At the first root, (d + uτ)·u = b + aτ = −√disc, so the normal speed is √disc / σ.
    Some((c / (-b + root), root / sigma))
}

/// The first `τ >= 0` at which the gap `h + bτ + ½aτ²` reaches zero while closing, and the
/// closing speed there; a gap already `<= 0` that is closing (or at rest and pushed closed by
/// `a < 0`) closes at once.
pub(crate) fn gap_closing(h: f64, b: f64, a: f64) -> Option<(f64, f64)> {
    if h <= 0.0 && (b < 0.0 || (b == 0.0 && a < 0.0)) {
        return Some((0.0, -b));
    }
    if a == 0.0 {
        return (b < 0.0).then(|| (h / -b, -b));
    }
    let disc = b * b - 2.0 * a * h;
    if disc <= 0.0 {
        return None;
    }
    let s = disc.sqrt();
    // The closing root is the one where the rate b + aτ equals −s.
    let tau = if b < 0.0 { 2.0 * h / (-b + s) } else { (-b - s) / a };
    (tau >= 0.0).then_some((tau, s))
}

/// A predicted collision with the tolerance its time deserves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Predicted {
    /// Absolute time.
    pub(crate) time: f64,
    /// Who.
    pub(crate) kind: CollisionKind,
    /// The normal approach speed at contact.
    pub(crate) normal_speed: f64,
    /// `1e-12 · max(t, 1)`, plus the propagated rounding of the coordinates for an ill-conditioned
    /// (near-grazing) contact: a coordinate error `δx` moves the contact by `δx / v_n`.
    pub(crate) tolerance: f64,
}

fn tolerance_for(time: f64, coordinate_scale: f64, normal_speed: f64) -> f64 {
    let conditioning = 16.0 * f64::EPSILON * coordinate_scale / normal_speed;
    time_tolerance(time) + if conditioning.is_nan() { f64::INFINITY } else { conditioning }
}

/// Collects candidates near the running minimum.
struct Collector {
    best: f64,
    found: Vec<Predicted>,
}

impl Collector {
    /// Candidates up to this far after the running minimum are kept.
    fn window(&self) -> f64 {
        1e-9 * self.best.abs().max(1.0)
    }

    fn offer(&mut self, p: Predicted) {
        if p.time <= self.best + self.window() {
            self.best = self.best.min(p.time);
            self.found.push(p);
        }
    }

    /// The candidates that may come first: within their own tolerance plus the earliest one's.
    fn finish(mut self) -> Vec<Predicted> {
        let Some(first) = self.found.iter().min_by(|p, q| p.time.total_cmp(&q.time)).copied() else {
            return Vec::new();
        };
        self.found.retain(|p| p.time - p.tolerance <= first.time + first.tolerance);
        self.found.sort_by(|p, q| p.time.total_cmp(&q.time));
        self.found
    }
}

/// Every integer vector over the periodic axes with `max |m_a| = shell` (non-periodic axes 0).
fn for_each_shell_shift<const D: usize>(periodic: [bool; D], shell: i64, mut f: impl FnMut([i64; D])) {
    let axes: Vec<usize> = (0..D).filter(|&a| periodic[a]).collect();
    let side = 2 * shell + 1;
    let total = side.pow(axes.len() as u32);
    for code in 0..total {
        let mut c = code;
        let mut m = [0i64; D];
        for &a in &axes {
            m[a] = c % side - shell;
            c /= side;
        }
        if m.iter().any(|x| x.abs() == shell) {
            f(m);
        }
    }
}

/// Without any collision found, images up to this many periods out are still searched (in a
/// sparse periodic system a pair can first meet many periods away).
const SHELL_CAP_WITHOUT_EVENT: i64 = 8;

/// The brute-force next collision of the state: the candidates that may come first (several only
/// for genuine near-ties), earliest first; empty if nothing will ever collide.
pub(crate) fn predict_next<const D: usize>(state: &State<D>) -> Vec<Predicted> {
    let now = state.now();
    let n = state.len();
    let x: Vec<[f64; D]> = (0..n).map(|i| state.position_at(i, now)).collect();
    let v: Vec<[f64; D]> = (0..n).map(|i| state.velocity_at(i, now)).collect();
    let r: Vec<f64> = (0..n).map(|i| state.radius(i)).collect();
    let sim_box = state.sim_box();
    let lengths = sim_box.lengths();
    let periodic = sim_box.periodic_axes();
    let g = state.gravity();
    let box_scale = max_abs(lengths);
    let mut out = Collector { best: f64::INFINITY, found: Vec::new() };

    for i in 0..n {
        for a in (0..D).filter(|&a| !periodic[a]) {
            let scale = box_scale + x[i][a].abs();
            let candidates = [
                (false, gap_closing(x[i][a] - r[i], v[i][a], g[a])),
                (true, gap_closing(lengths[a] - x[i][a] - r[i], -v[i][a], -g[a])),
            ];
            for (high, hit) in candidates {
                if let Some((tau, speed)) = hit {
                    let time = now + tau;
                    let tolerance = tolerance_for(time, scale + speed.abs() * tau, speed);
                    let kind = CollisionKind::Wall { particle: i, axis: a, high };
                    out.offer(Predicted { time, kind, normal_speed: speed, tolerance });
                }
            }
        }
    }

    let contact = |out: &mut Collector, i: usize, k: usize, d: [f64; D], u: [f64; D], sigma: f64| {
        if let Some((tau, speed)) = pair_contact(d, u, sigma) {
            let time = now + tau;
            let scale = box_scale + max_abs(x[i]).max(max_abs(x[k])) + norm(u) * tau;
            let tolerance = tolerance_for(time, scale, speed);
            out.offer(Predicted { time, kind: CollisionKind::Pair(i, k), normal_speed: speed, tolerance });
        }
    };
    // Nearest images first, so the running minimum is small before far images are considered.
    for i in 0..n {
        for k in i + 1..n {
            let d = sim_box.nearest_image(sub(x[k], x[i]));
            contact(&mut out, i, k, d, sub(v[k], v[i]), r[i] + r[k]);
        }
    }
    if periodic.iter().any(|&p| p) {
        let shortest = (0..D).filter(|&a| periodic[a]).map(|a| lengths[a]).fold(f64::INFINITY, f64::min);
        for i in 0..n {
            for k in i + 1..n {
                let d0 = sim_box.nearest_image(sub(x[k], x[i]));
                let u = sub(v[k], v[i]);
                let speed = norm(u);
                let sigma = r[i] + r[k];
                let mut shell = 1i64;
                loop {
                    // Every image of this shell lies at least (shell − ½)·L_min away (the nearest
                    // image is within L/2 per axis), so it cannot touch before that gap closes.
                    let gap = (shell as f64 - 0.5) * shortest - sigma;
                    let reachable = if out.best.is_finite() {
                        gap <= speed * (out.best - now + out.window())
                    } else {
                        shell <= SHELL_CAP_WITHOUT_EVENT && speed > 0.0
                    };
                    if !reachable {
                        break;
                    }
                    for_each_shell_shift(periodic, shell, |m| {
                        let d = std::array::from_fn(|a| d0[a] + m[a] as f64 * lengths[a]);
                        contact(&mut out, i, k, d, u, sigma);
                    });
                    shell += 1;
                }
            }
        }
    }
    out.finish()
}

/// Whether `got` is one of the oracle's possible first collisions at its time.
pub(crate) fn verdict(expected: &[Predicted], got: Option<Collision>) -> Result<(), String> {
    match (expected.first(), got) {
        (None, None) => Ok(()),
        (None, Some(c)) => Err(format!("the oracle sees no collision ever, the simulation returned {c:?}")),
        (Some(_), None) => Err(format!("the simulation returned None, the oracle expected {expected:?}")),
        (Some(_), Some(c)) => {
            if expected.iter().any(|p| p.kind == c.kind && (p.time - c.time).abs() <= p.tolerance) {
                Ok(())
            } else {
                let same_kind: Vec<_> = expected.iter().filter(|p| p.kind == c.kind).collect();
                Err(format!(
                    "simulation returned {:?} at t = {:.17e}; the oracle expected one of {expected:?}{}",
                    c.kind,
                    c.time,
                    if same_kind.is_empty() {
                        String::new()
                    } else {
                        format!(" (Δt = {:e})", same_kind[0].time - c.time)
                    }
                ))
            }
        }
    }
}

/// Positions and velocities of every particle at one instant.
#[derive(Debug, Clone)]
pub(crate) struct Snapshot<const D: usize> {
    pub(crate) now: f64,
    pub(crate) x: Vec<[f64; D]>,
    pub(crate) v: Vec<[f64; D]>,
    pub(crate) gravity: [f64; D],
}

impl<const D: usize> Snapshot<D> {
    pub(crate) fn of(state: &State<D>) -> Self {
        let now = state.now();
        Self {
            now,
            x: (0..state.len()).map(|i| state.position_at(i, now)).collect(),
            v: (0..state.len()).map(|i| state.velocity_at(i, now)).collect(),
            gravity: state.gravity(),
        }
    }

    /// Particle `i`'s velocity at `t` had nothing happened to it since the snapshot.
    pub(crate) fn velocity_at(&self, i: usize, t: f64) -> [f64; D] {
        add(self.v[i], scale(t - self.now, self.gravity))
    }

    /// Particle `i`'s position at `t` had nothing happened to it since the snapshot.
    pub(crate) fn position_at(&self, i: usize, t: f64) -> [f64; D] {
        let dt = t - self.now;
        add(add(self.x[i], scale(dt, self.v[i])), scale(0.5 * dt * dt, self.gravity))
    }
}

/// Checks the collision rule for `c` (restitution `e`) between the snapshot before it and the state
/// after it, and that no other particle's trajectory changed.
pub(crate) fn check_rule<const D: usize>(
    before: &Snapshot<D>,
    state: &State<D>,
    c: &Collision,
    e: f64,
) -> Result<(), String> {
    let t = c.time;
    if state.now() != t {
        return Err(format!("clock {} is not the collision time {t}", state.now()));
    }
    let involved: &[usize] = match c.kind {
        CollisionKind::Pair(i, k) => &[i, k],
        CollisionKind::Wall { particle, .. } => &[particle],
    };
    for j in 0..state.len() {
        // Positions never jump, involved or not (a structure may move a particle to another
        // periodic image: whole periods along periodic axes are the same physical position).
        let expected_x = before.position_at(j, t);
        let got_x = state.position_at(j, t);
        let xs = max_abs(expected_x).max(max_abs(got_x)) + 1.0;
        if max_abs(state.sim_box().nearest_image(sub(expected_x, got_x))) > 1e-12 * xs {
            return Err(format!("particle {j} jumped from {expected_x:?} to {got_x:?} at {t}"));
        }
        if involved.contains(&j) {
            continue;
        }
        let expected_v = before.velocity_at(j, t);
        let got_v = state.velocity_at(j, t);
        if max_abs(sub(expected_v, got_v)) > 1e-12 * (max_abs(expected_v) + 1e-300) {
            return Err(format!("uninvolved particle {j}: velocity {expected_v:?} became {got_v:?} at {t}"));
        }
    }
    match c.kind {
        CollisionKind::Pair(i, k) => {
            let (mi, mk) = (state.mass(i), state.mass(k));
            let (vi, vk) = (before.velocity_at(i, t), before.velocity_at(k, t));
            let (wi, wk) = (state.velocity_at(i, t), state.velocity_at(k, t));
            let d = state.sim_box().nearest_image(sub(state.position_at(k, t), state.position_at(i, t)));
            let distance = norm(d);
            let contact = state.radius(i) + state.radius(k);
            if (distance - contact).abs() > 1e-9 * contact {
                return Err(format!("pair {i}, {k} collided at distance {distance}, radius sum {contact}"));
            }
            let normal = scale(1.0 / distance, d);
            let speed = max_abs(vi) + max_abs(vk);
            let tol = 1e-11 * speed;
            let p_before = add(scale(mi, vi), scale(mk, vk));
            let p_after = add(scale(mi, wi), scale(mk, wk));
            if max_abs(sub(p_before, p_after)) > tol * (mi + mk) {
                return Err(format!("pair {i}, {k}: momentum {p_before:?} became {p_after:?}"));
            }
            let u_n = dot(sub(vk, vi), normal);
            let w_n = dot(sub(wk, wi), normal);
            if (w_n + e * u_n).abs() > tol {
                return Err(format!(
                    "pair {i}, {k}: normal relative velocity {u_n} became {w_n}, expected {}",
                    -e * u_n
                ));
            }
            for (before_v, after_v, who) in [(vi, wi, i), (vk, wk, k)] {
                let tangential = |w: [f64; D]| sub(w, scale(dot(w, normal), normal));
                if max_abs(sub(tangential(before_v), tangential(after_v))) > tol {
                    return Err(format!("pair {i}, {k}: tangential velocity of {who} changed"));
                }
            }
        }
        CollisionKind::Wall { particle: i, axis, high } => {
            let v = before.velocity_at(i, t);
            let w = state.velocity_at(i, t);
            let x = state.position_at(i, t)[axis];
            let r = state.radius(i);
            let wall = if high { state.sim_box().lengths()[axis] } else { 0.0 };
            if ((x - wall).abs() - r).abs() > 1e-9 * r.max(1.0) {
                return Err(format!(
                    "particle {i} hit wall {axis}/{high} with its centre at {x} (radius {r})"
                ));
            }
            let tol = 1e-12 * max_abs(v);
            for a in 0..D {
                let expected = if a == axis { -e * v[a] } else { v[a] };
                if (w[a] - expected).abs() > tol {
                    return Err(format!("wall hit of {i}: velocity {v:?} became {w:?}"));
                }
            }
        }
    }
    Ok(())
}

/// What a lock-step run saw.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LockstepStats {
    pub(crate) collisions: usize,
    pub(crate) pairs: usize,
    pub(crate) walls: usize,
    /// Steps where the oracle had more than one possible first collision.
    pub(crate) ties: usize,
}

/// Before every `next_collision()`, predicts the next collision with [`predict_next`] from the
/// current state, then checks the simulation returns it (same pair or wall, time within the
/// tolerance), that times never decrease, and the collision rule with restitution `e`. Panics
/// with the step and both predictions on the first disagreement.
pub(crate) fn lockstep<const D: usize, S: Cdo<D>, Q: EventQueue>(
    sim: &mut Simulation<D, S, Q>,
    collisions: usize,
    e: f64,
    label: &str,
) -> LockstepStats {
    let mut stats = LockstepStats::default();
    for step in 0..collisions {
        let before = Snapshot::of(sim.state());
        let expected = predict_next(sim.state());
        let got = sim.next_collision();
        if let Err(message) = verdict(&expected, got) {
            panic!("{label} [{}]: step {step}, clock {:.17e}: {message}", sim.structure().name(), before.now);
        }
        let Some(c) = got else { break };
        assert!(
            c.time >= before.now,
            "{label}: step {step}: collision at {} before the clock {}",
            c.time,
            before.now
        );
        if let Err(message) = check_rule(&before, sim.state(), &c, e) {
            panic!("{label} [{}]: step {step}: {message}", sim.structure().name());
        }
        stats.collisions += 1;
        stats.ties += usize::from(expected.len() > 1);
        match c.kind {
            CollisionKind::Pair(..) => stats.pairs += 1,
            CollisionKind::Wall { .. } => stats.walls += 1,
        }
    }
    stats
}

/// A random polydisperse system: `n` radii with largest 0.5 and diameter ratio `gamma`, in a
/// cube sized for packing fraction `phi`, placed by random sequential addition with unit-density
/// masses and Maxwell–Boltzmann velocities at `kT = 1`. The placement is checked here, not
/// trusted.
pub(crate) fn random_system<const D: usize>(
    seed: u64,
    n: usize,
    gamma: f64,
    phi: f64,
    periodic: [bool; D],
) -> (Vec<Particle<D>>, SimBox<D>) {
    random_system_shaped(seed, n, gamma, phi, periodic, [1.0; D])
}

/// As [`random_system`] in a box whose sides are proportional to `aspect`.
pub(crate) fn random_system_shaped<const D: usize>(
    seed: u64,
    n: usize,
    gamma: f64,
    phi: f64,
    periodic: [bool; D],
    aspect: [f64; D],
) -> (Vec<Particle<D>>, SimBox<D>) {
    let radii = init::polydisperse_radii(n, 0.5, gamma, seed).expect("radii");
    let side = init::cube_side_for::<D>(&radii, phi);
    let mean = aspect.iter().product::<f64>().powf(1.0 / D as f64);
    let sim_box = SimBox::new(aspect.map(|a| side * a / mean), periodic).expect("box");
    let particles = init::random_placement(&sim_box, &radii, init::MassRule::UnitDensity, 1.0, seed)
        .expect("random placement");
    if let Some(problem) = placement_problem(&particles, &sim_box) {
        panic!("init::random_placement (seed {seed}, n {n}, γ {gamma}, φ {phi}): {problem}");
    }
    (particles, sim_box)
}

/// An overlap (nearest image) or a particle crossing a wall deeper than rounding (1e-12
/// relative), if any; `O(n²)`.
pub(crate) fn placement_problem<const D: usize>(
    particles: &[Particle<D>],
    sim_box: &SimBox<D>,
) -> Option<String> {
    let lengths = sim_box.lengths();
    let periodic = sim_box.periodic_axes();
    for (i, p) in particles.iter().enumerate() {
        for a in 0..D {
            let slack = 1e-12 * p.radius;
            if !periodic[a]
                && (p.position[a] < p.radius - slack || p.position[a] > lengths[a] - p.radius + slack)
            {
                return Some(format!(
                    "particle {i} at {:?} (radius {}) crosses a wall",
                    p.position, p.radius
                ));
            }
        }
        for (k, q) in particles.iter().enumerate().skip(i + 1) {
            let d = sim_box.nearest_image(sub(q.position, p.position));
            // Snapshots of running simulations may overlap by rounding (a few ulps).
            if norm(d) < (p.radius + q.radius) * (1.0 - 1e-12) {
                return Some(format!("particles {i} and {k} overlap: distance {}", norm(d)));
            }
        }
    }
    None
}

/// The deepest overlap of the state now, relative to the radius sum (walls: to the radius),
/// by brute force over nearest images; `<= 0` when nothing overlaps.
pub(crate) fn deepest_overlap<const D: usize>(state: &State<D>) -> f64 {
    let now = state.now();
    let n = state.len();
    let x: Vec<[f64; D]> = (0..n).map(|i| state.position_at(i, now)).collect();
    let lengths = state.sim_box().lengths();
    let periodic = state.sim_box().periodic_axes();
    let mut worst = f64::NEG_INFINITY;
    for i in 0..n {
        let r = state.radius(i);
        for a in (0..D).filter(|&a| !periodic[a]) {
            worst = worst.max((r - x[i][a]) / r).max((x[i][a] + r - lengths[a]) / r);
        }
        for k in i + 1..n {
            let contact = r + state.radius(k);
            let d = state.sim_box().nearest_image(sub(x[k], x[i]));
            worst = worst.max((contact - norm(d)) / contact);
        }
    }
    worst
}
