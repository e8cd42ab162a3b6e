//! The bounding triangle's corners in a walled box, moving so that every vertex of the
//! triangulation shares the particles' acceleration.
//!
//! A certificate is a polynomial of degree 4 only while the relative motion of its four sites
//! is linear: true between particles under gravity (all share it), false between a particle
//! and a static corner, whose certificate would then miss the `½ g τ²` term and fail at the
//! wrong time (measured: a walled box of disks falling under gravity lost the regularity of
//! its triangulation at the hull within a few hundred collisions). So the corners fall too:
//! each is launched against gravity at `u = −g P / 2` and is back where it started after the
//! time `P`, when it is launched again (a change of velocity, as at a collision: the position
//! is continuous and the corners' edges are rescheduled). `P = √(2 F / |g|)` keeps every
//! corner within `F / 4` of its start (`F`: the radius of the bounding triangle's inscribed
//! circle, 20 box sizes), so the triangle always holds the box.

/// The corners' motion: `start + u (t − launch) + ½ g (t − launch)²`.
#[derive(Debug, Clone, Default)]
pub(super) struct Corners {
    /// Positions at `launch`.
    start: [[f64; 2]; 3],
    /// Velocity at `launch`.
    launch_velocity: [f64; 2],
    gravity: [f64; 2],
    launch: f64,
    /// Time from one launch to the next (infinite without gravity, or with gravity so weak
    /// that the corners never move far: then they keep falling from the start).
    period: f64,
}

impl Corners {
    /// Corners at `start` at time `now`, in a box with `gravity`, inside a bounding triangle
    /// whose inscribed circle has radius `inscribed`.
    pub(super) fn new(start: [[f64; 2]; 3], gravity: [f64; 2], now: f64, inscribed: f64) -> Self {
        let g = gravity[0].hypot(gravity[1]);
        let period = (2.0 * inscribed / g).sqrt();
        let launch_velocity =
            if period.is_finite() { gravity.map(|component| -0.5 * component * period) } else { [0.0; 2] };
        Self {
            start,
            launch_velocity,
            gravity,
            launch: now,
            period: if period.is_finite() { period } else { f64::INFINITY },
        }
    }

    /// Corner `k`'s position at `now`.
    // Out of line and cold: the sites of particles, inlined into every certificate, are the
    // hot path (inlined, this added 6 % instructions per collision, γ = 8, φ = 0.6).
    #[cold]
    #[inline(never)]
    pub(super) fn position(&self, k: usize, now: f64) -> [f64; 2] {
        let dt = now - self.launch;
        std::array::from_fn(|a| {
            let drift = self.start[k][a] + dt * self.launch_velocity[a];
            // No gravity term on an axis without gravity: past t ≈ 1e154 (no gravity, so no
            // relaunch) `dt²` overflows, and ∞·0 would make the corner NaN.
            if self.gravity[a] == 0.0 { drift } else { drift + 0.5 * dt * dt * self.gravity[a] }
        })
    }

    /// The corners' velocity at `now` (the same for all three).
    #[cold]
    #[inline(never)]
    pub(super) fn velocity(&self, now: f64) -> [f64; 2] {
        let dt = now - self.launch;
        std::array::from_fn(|a| self.launch_velocity[a] + dt * self.gravity[a])
    }

    /// When the corners are next launched (infinite if never).
    pub(super) fn next_launch(&self) -> f64 {
        self.launch + self.period
    }

    /// Launches the corners again at `now` from where they are (positions unchanged).
    pub(super) fn relaunch(&mut self, now: f64) {
        self.start = std::array::from_fn(|k| self.position(k, now));
        self.launch = now;
    }
}

#[cfg(test)]
mod tests {
    use super::Corners;

    /// The corners return to their start after one period, never stray more than a quarter of
    /// the inscribed radius, and are continuous across a relaunch; without gravity they rest.
    #[test]
    fn corners_fall_and_return() {
        let start = [[0.0, 40.0], [-34.6, -20.0], [34.6, -20.0]];
        for gravity in [[0.0, -9.81], [3.0, -1.0], [1e-3, 0.0]] {
            let mut corners = Corners::new(start, gravity, 5.0, 20.0);
            let period = corners.next_launch() - 5.0;
            assert!(period.is_finite() && period > 0.0);
            let mut furthest: f64 = 0.0;
            for step in 0..=100 {
                let t = 5.0 + period * f64::from(step) / 100.0;
                let p = corners.position(0, t);
                furthest = furthest.max((p[0] - start[0][0]).hypot(p[1] - start[0][1]));
                // Velocity is the derivative of position (central difference of a parabola).
                let h = 1e-3 * period;
                let (before, after) = (corners.position(0, t - h), corners.position(0, t + h));
                let v = corners.velocity(t);
                for a in 0..2 {
                    let slope = (after[a] - before[a]) / (2.0 * h);
                    assert!(
                        (slope - v[a]).abs() <= 1e-6 * (1.0 + v[a].abs()),
                        "{gravity:?}: {slope} vs {}",
                        v[a]
                    );
                }
            }
            assert!((furthest - 5.0).abs() < 1e-6 * 5.0, "{gravity:?}: furthest {furthest}");
            let back = corners.next_launch();
            for k in 0..3 {
                let p = corners.position(k, back);
                assert!(
                    (p[0] - start[k][0]).hypot(p[1] - start[k][1]) < 1e-9 * 40.0,
                    "{gravity:?}: not back"
                );
            }
            let before = corners.position(1, back);
            corners.relaunch(back);
            assert_eq!(corners.position(1, back), before);
            assert!((corners.next_launch() - (back + period)).abs() <= 1e-12 * back);
        }
        let resting = Corners::new(start, [0.0; 2], 1.0, 20.0);
        assert!(resting.next_launch().is_infinite());
        assert_eq!(resting.position(2, 1e6), start[2]);
        assert_eq!(resting.velocity(1e6), [0.0; 2]);
    }
}
