//! The Perram–Wertheim solver: settings, results, and the narrow-phase trait.

use crate::cache::LambdaStore;
use crate::maximise::newton;
use crate::{ContactFunction, PwError};
use contact_core::{Contact, ContactGenerator};
use geometry_core::{DVec3, Ellipsoid};
use rayon::prelude::*;

/// Which maximiser finds `Λ`.
///
/// ```
/// use ellipsoid_pw::{Method, PerramWertheim};
/// use geometry_core::{DQuat, DVec3, Ellipsoid};
/// assert_eq!(Method::default(), Method::Newton);
/// // Unit balls 3 apart: by symmetry Λ = 1/2, and F = (3 / 2)² = 2.25.
/// let a = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::ONE).unwrap();
/// let b = Ellipsoid::new(DVec3::new(0.0, 3.0, 0.0), DQuat::IDENTITY, DVec3::ONE).unwrap();
/// for method in [Method::Brent, Method::Newton] {
///     let r = PerramWertheim { method, ..PerramWertheim::default() }.solve(&a, &b).unwrap();
///     assert!((r.f - 2.25).abs() < 1e-12 && (r.lambda - 0.5).abs() < 1e-7);
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Method {
    /// Brent's derivative-free method (Woo's documented choice); ignores warm starts.
    Brent,
    /// Safeguarded Newton-type iteration on `S'(λ)` taking Halley's third-order step (the
    /// "Newton (or Halley)" of the design), cold-started from a sphere-based guess or
    /// warm-started.
    #[default]
    Newton,
}

/// Perram–Wertheim contact between ellipsoids, with its settings.
///
/// ```
/// use ellipsoid_pw::PerramWertheim;
/// use geometry_core::{DQuat, DVec3, Ellipsoid};
/// // Woo's regression pair: tangent along x at distance 0.3, then moved 0.01 closer.
/// let a = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::new(0.1, 0.2, 0.1)).unwrap();
/// let b = Ellipsoid::new(DVec3::new(0.29, 0.0, 0.0), DQuat::IDENTITY, DVec3::new(0.2, 0.1, 0.1)).unwrap();
/// let r = PerramWertheim::newton().solve(&a, &b).unwrap();
/// assert!(r.overlapping && (r.u_n + 0.01).abs() < 1e-12);
/// assert!((r.normal - DVec3::X).length() < 1e-12);
/// let contact = r.contact();
/// assert!((contact.depth - 0.01).abs() < 1e-12);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PerramWertheim {
    /// The maximiser.
    pub method: Method,
    /// Brent: stop when `Λ` is known to this many bits, relative (default 26: half the mantissa,
    /// as with boost's `brent_find_minima`). `F` is then accurate to about twice as many.
    pub brent_bits: u32,
    /// Newton: stop once a step is at most this *relative* to the distance of `Λ` from the nearer
    /// end of `[0, 1]`, `|δ| <= tol · min(Λ, 1 − Λ)` (default `1e-7`; with Halley's cubic
    /// convergence the last iterate is then accurate to rounding, also for `Λ` or `1 − Λ` tiny).
    /// A small step stops the iteration only where the local model also says the rest of the
    /// climb is negligible (`|S' δ| <= 1e-13 S`, never at an end of `[0, 1]` where `S = 0`), so
    /// the answer does not depend on the start: a warm start (even `0` or `1`) changes only the
    /// iteration count.
    pub newton_step_tolerance: f64,
    /// Give up with [`PwError::NoConvergence`] after this many iterations (default 100).
    pub max_iterations: u32,
    /// As a [`ContactGenerator`]: report a contact while `u_n <= margin` (default 0: only
    /// touching or overlapping pairs).
    pub margin: f64,
}

impl Default for PerramWertheim {
    fn default() -> Self {
        Self::newton()
    }
}

/// The result for one pair.
///
/// ```
/// use ellipsoid_pw::PerramWertheim;
/// use geometry_core::{DQuat, DVec3, Ellipsoid};
/// // Spheres of radii 1 and 2 at distance 4: scaled by μ = 4 / 3 they touch at x = 4 / 3.
/// let a = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::ONE).unwrap();
/// let b = Ellipsoid::new(DVec3::new(4.0, 0.0, 0.0), DQuat::IDENTITY, DVec3::splat(2.0)).unwrap();
/// let r = PerramWertheim::newton().solve(&a, &b).unwrap();
/// assert!(!r.overlapping && (r.mu - 4.0 / 3.0).abs() < 1e-12);
/// assert!((r.f - r.mu * r.mu).abs() < 1e-12);
/// assert!((r.normal - DVec3::X).length() < 1e-12);
/// assert!((r.point - DVec3::new(4.0 / 3.0, 0.0, 0.0)).length() < 1e-12);
/// assert!((r.u_n - 1.0).abs() < 1e-12); // d − r_a − r_b for spheres
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PwResult {
    /// `F = S(Λ) = max_λ S(λ)`: `< 1` overlap, `= 1` external tangency, `> 1` apart.
    pub f: f64,
    /// The maximiser `Λ ∈ [0, 1]`: inside `(0, 1)` in exact arithmetic, but it rounds to an end
    /// where one body is about `10¹⁶` times smaller than the other (`Λ` or `1 − Λ` below half
    /// an ulp of 1).
    pub lambda: f64,
    /// `μ = √F`, the factor by which both bodies must be scaled about their centres to touch.
    pub mu: f64,
    /// `F < 1`.
    pub overlapping: bool,
    /// The unit contact normal `G(Λ)⁻¹R / |G(Λ)⁻¹R|`, from A towards B.
    pub normal: DVec3,
    /// The contact point `r_a + (1-Λ) A⁻¹ G(Λ)⁻¹ R`, where the bodies scaled by `μ` touch.
    pub point: DVec3,
    /// Woo's normal displacement `|R| (1 - 1/μ) (R̂·n̂)`: negative when overlapping.
    pub u_n: f64,
    /// Function (Brent) or derivative (Newton) evaluations.
    pub iterations: u32,
}

impl PwResult {
    /// The contact in `contact-core`'s convention: `normal` from A to B, `depth = -u_n`, and
    /// `point` the Perram–Wertheim contact point.
    ///
    /// `point` is where the bodies scaled by `μ` touch. It is the midway point of the
    /// convention for equal spheres and at tangency; for unequal bodies in overlap it lies
    /// closer to the smaller body's surface, by a fraction of the depth.
    ///
    /// ```
    /// use ellipsoid_pw::PerramWertheim;
    /// use geometry_core::{DQuat, DVec3, Ellipsoid};
    /// let a = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::ONE).unwrap();
    /// let b = Ellipsoid::new(DVec3::new(0.0, 1.5, 0.0), DQuat::IDENTITY, DVec3::ONE).unwrap();
    /// let c = PerramWertheim::newton().solve(&a, &b).unwrap().contact();
    /// assert!((c.depth - 0.5).abs() < 1e-14 && (c.point - DVec3::new(0.0, 0.75, 0.0)).length() < 1e-14);
    /// ```
    pub fn contact(&self) -> Contact {
        Contact { point: self.point, normal: self.normal, depth: -self.u_n }
    }
}

impl PerramWertheim {
    /// Brent's method to 26 bits, the other settings default.
    ///
    /// ```
    /// use ellipsoid_pw::{Method, PerramWertheim};
    /// assert_eq!(PerramWertheim::brent().method, Method::Brent);
    /// ```
    pub fn brent() -> Self {
        Self { method: Method::Brent, ..Self::newton() }
    }

    /// Safeguarded Newton, the other settings default.
    ///
    /// ```
    /// use ellipsoid_pw::{Method, PerramWertheim};
    /// assert_eq!(PerramWertheim::newton().method, Method::Newton);
    /// ```
    pub fn newton() -> Self {
        Self {
            method: Method::Newton,
            brent_bits: 26,
            newton_step_tolerance: 1e-7,
            max_iterations: 100,
            margin: 0.0,
        }
    }

    /// Solves the pair from a cold start.
    ///
    /// # Errors
    /// [`PwError::CoincidentCentres`], [`PwError::NonFinite`] (an overflowing centre difference,
    /// distance or contact point), [`PwError::LengthRatioOutOfRange`] (lengths of the pair more
    /// than `2^100` apart) or [`PwError::NoConvergence`] (not met in tests: Brent's answer is
    /// checked by the sign of `S'` on both sides, and where `S` is too flat for its values to
    /// locate `Λ`, beyond size ratios of about `1e12`, or Brent's budget runs out, the
    /// safeguarded Newton iteration finishes from Brent's point).
    ///
    /// ```
    /// use ellipsoid_pw::PerramWertheim;
    /// use geometry_core::{DQuat, DVec3, Ellipsoid};
    /// // Spheres of radii 1 and 2 at distance 6: F = (6/3)² = 4, Λ = 1/3, u_n = 3.
    /// let a = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::ONE).unwrap();
    /// let b = Ellipsoid::new(DVec3::new(0.0, 0.0, 6.0), DQuat::IDENTITY, DVec3::splat(2.0)).unwrap();
    /// let r = PerramWertheim::brent().solve(&a, &b).unwrap();
    /// assert!((r.f - 4.0).abs() < 1e-12 && (r.lambda - 1.0 / 3.0).abs() < 1e-7 && (r.u_n - 3.0).abs() < 1e-12);
    /// ```
    pub fn solve(&self, a: &Ellipsoid, b: &Ellipsoid) -> Result<PwResult, PwError> {
        let s = ContactFunction::new(a, b)?;
        self.finish(&s, None)
    }

    /// Solves the pair, Newton starting from `lambda_guess` (typically the pair's `Λ` of the
    /// previous step). Any guess in `[0, 1]`, even an end, gives the cold solve's answer (to the
    /// tolerance); only the iteration count depends on it. Brent ignores the guess.
    ///
    /// # Errors
    /// As [`solve`](Self::solve), and [`PwError::InvalidLambda`] for a guess outside `[0, 1]`.
    ///
    /// ```
    /// use ellipsoid_pw::PerramWertheim;
    /// use geometry_core::{DQuat, DVec3, Ellipsoid};
    /// let a = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::new(1.0, 0.5, 0.5)).unwrap();
    /// let b = Ellipsoid::new(DVec3::new(1.2, 0.7, 0.0), DQuat::from_rotation_z(0.3), DVec3::ONE).unwrap();
    /// let pw = PerramWertheim::newton();
    /// let cold = pw.solve(&a, &b).unwrap();
    /// let warm = pw.solve_warm(&a, &b, cold.lambda).unwrap();
    /// assert!((warm.f - cold.f).abs() < 1e-13 && warm.iterations <= cold.iterations);
    /// ```
    pub fn solve_warm(&self, a: &Ellipsoid, b: &Ellipsoid, lambda_guess: f64) -> Result<PwResult, PwError> {
        if !(0.0..=1.0).contains(&lambda_guess) {
            return Err(PwError::InvalidLambda { value: lambda_guess });
        }
        let s = ContactFunction::new(a, b)?;
        self.finish(&s, Some(lambda_guess))
    }

    /// Solves the pair `key`, warm-started from its cached `Λ` when the cache holds one, and
    /// stores the new `Λ`. The cache is a [`LambdaCache`](crate::LambdaCache) (any key) or a
    /// [`BodyLambdaCache`](crate::BodyLambdaCache) (two body indices). A cached value outside
    /// `[0, 1]` is ignored (cold start). When the solve fails, the pair's slot is set to NaN
    /// (`get` then reads `None`), so the next step starts cold.
    ///
    /// # Errors
    /// As [`solve`](Self::solve), and those of the cache's
    /// [`slot`](crate::LambdaStore::slot) (e.g. [`PwError::BodyIndexOutOfRange`]).
    ///
    /// ```
    /// use ellipsoid_pw::{LambdaCache, PerramWertheim};
    /// use geometry_core::{DQuat, DVec3, Ellipsoid};
    /// let pw = PerramWertheim::newton();
    /// let mut cache = LambdaCache::new();
    /// let a = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::new(1.0, 0.5, 0.5)).unwrap();
    /// for step in 0..3 {
    ///     let b = Ellipsoid::new(DVec3::new(1.5 - 0.01 * f64::from(step), 0.2, 0.0), DQuat::IDENTITY, DVec3::ONE).unwrap();
    ///     pw.solve_cached(&mut cache, (0u32, 1u32), &a, &b).unwrap();
    ///     cache.end_step();
    /// }
    /// assert_eq!(cache.len(), 1);
    /// ```
    pub fn solve_cached<K>(
        &self,
        cache: &mut impl LambdaStore<K>,
        key: K,
        a: &Ellipsoid,
        b: &Ellipsoid,
    ) -> Result<PwResult, PwError> {
        // One hash lookup per pair: the slot is found (or made) once and written in place.
        let slot = cache.slot(key)?;
        // NaN (unknown) and values outside [0, 1] (written by hand) mean a cold start.
        let warm = Some(*slot).filter(|lambda| (0.0..=1.0).contains(lambda));
        let result = ContactFunction::new(a, b).and_then(|s| self.finish(&s, warm));
        // A failed pair's slot reads NaN, so the next step starts cold.
        *slot = result.as_ref().map_or(f64::NAN, |r| r.lambda);
        result
    }

    /// Solves the pairs `(i, j)` of `ellipsoids` in parallel (rayon). The output is identical to
    /// calling [`solve`](Self::solve) on each pair in order.
    ///
    /// # Panics
    /// If an index is out of range for `ellipsoids`.
    ///
    /// ```
    /// use ellipsoid_pw::PerramWertheim;
    /// use geometry_core::{DQuat, DVec3, Ellipsoid};
    /// let bodies: Vec<_> = (0..4)
    ///     .map(|i| Ellipsoid::new(DVec3::new(f64::from(i), 0.0, 0.0), DQuat::IDENTITY, DVec3::new(0.6, 0.3, 0.3)).unwrap())
    ///     .collect();
    /// let pw = PerramWertheim::newton();
    /// let results = pw.solve_pairs(&bodies, &[(0, 1), (1, 2), (0, 3)]);
    /// assert!(results[0].as_ref().unwrap().overlapping && !results[2].as_ref().unwrap().overlapping);
    /// assert_eq!(results[1], pw.solve(&bodies[1], &bodies[2]));
    /// ```
    pub fn solve_pairs(
        &self,
        ellipsoids: &[Ellipsoid],
        pairs: &[(usize, usize)],
    ) -> Vec<Result<PwResult, PwError>> {
        pairs.par_iter().with_min_len(64).map(|&(i, j)| self.solve(&ellipsoids[i], &ellipsoids[j])).collect()
    }

    /// Maximises `S` and assembles the result.
    fn finish(&self, s: &ContactFunction, warm: Option<f64>) -> Result<PwResult, PwError> {
        // The maximisers work in the solver variable t (see `ContactFunction`).
        let (t, iterations, x, f) = match self.method {
            Method::Brent => match s.maximise_by_brent(self.brent_bits, self.max_iterations) {
                Ok((t, iterations)) if brackets_the_maximum(s, t, self.brent_bits) => {
                    let (x, f) = s.solution(t);
                    (t, iterations + 2, x, f)
                }
                // Values alone could not locate Λ: far from unit size ratios `S` is constant
                // to rounding over a wide stretch around its maximum (spheres of radii 1 and
                // 1e17: S = 4 to every bit from t = 1e-16 to 1e-2), where Brent stopped at
                // 30 Λ or ran out of evaluations. The safeguarded Newton iteration, which reads
                // the sign of S', finishes from Brent's point.
                brent => {
                    let (start, spent) =
                        brent.map_or((s.sphere_guess(), self.max_iterations), |(t, n)| (t, n + 2));
                    let r = newton(s, start, self.newton_step_tolerance, self.max_iterations)?;
                    (r.lambda, spent + r.iterations, r.x, r.f)
                }
            },
            Method::Newton => {
                let start = warm.map_or_else(|| s.sphere_guess(), |lambda| s.t_of(lambda));
                let r = newton(s, start, self.newton_step_tolerance, self.max_iterations)?;
                (r.lambda, r.iterations, r.x, r.f)
            }
        };
        let lambda = s.lambda_of(t);
        let (normal, point) = s.world_normal_and_point(t, x);
        let (distance, direction) = s.distance_and_direction();
        let mu = f.sqrt();
        let u_n = distance * (1.0 - 1.0 / mu) * direction.dot(normal);
        let result = PwResult { f, lambda, mu, overlapping: f < 1.0, normal, point, u_n, iterations };
        if [f, mu, u_n].iter().all(|v| v.is_finite()) && normal.is_finite() && point.is_finite() {
            Ok(result)
        } else {
            Err(PwError::NonFinite)
        }
    }
}

/// Whether `S'` changes sign across Brent's answer `t` at its tolerance, `S'(t − δ) > 0 >
/// S'(t + δ)` with `δ` 2.5 times Brent's `tol1 = 2^-bits |t| + 1e-300` (its final bracket is
/// within 2 `tol1` of `t`): the maximum is then proven to lie within `δ` of `t`. Two derivative
/// evaluations, counted in the result's iterations.
fn brackets_the_maximum(s: &ContactFunction, t: f64, bits: u32) -> bool {
    let delta = 2.5 * (0.5f64.powi(bits.clamp(1, 52) as i32) * t.abs() + 1e-300);
    s.local_expansion((t - delta).max(0.0)).slope > 0.0 && s.local_expansion((t + delta).min(1.0)).slope < 0.0
}

impl ContactGenerator<Ellipsoid> for PerramWertheim {
    type Error = PwError;

    /// The contact while `u_n <= margin`, else `None`.
    fn contact(&self, a: &Ellipsoid, b: &Ellipsoid) -> Result<Option<Contact>, PwError> {
        let result = self.solve(a, b)?;
        Ok((result.u_n <= self.margin).then(|| result.contact()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geometry_core::DQuat;

    fn pair() -> (Ellipsoid, Ellipsoid) {
        let a = Ellipsoid::new(DVec3::ZERO, DQuat::from_rotation_y(0.4), DVec3::new(1.0, 0.3, 0.6)).unwrap();
        let b = Ellipsoid::new(
            DVec3::new(1.1, 0.4, -0.2),
            DQuat::from_rotation_x(1.0),
            DVec3::new(0.2, 0.9, 0.5),
        )
        .unwrap();
        (a, b)
    }

    #[test]
    fn warm_starts_outside_the_unit_interval_are_refused() {
        let (a, b) = pair();
        for bad in [-0.1, 1.5, f64::NAN] {
            let got = PerramWertheim::newton().solve_warm(&a, &b, bad);
            assert!(matches!(got, Err(PwError::InvalidLambda { .. })), "{bad}: {got:?}");
        }
        assert!(PerramWertheim::newton().solve_warm(&a, &b, 1.0).is_ok());
    }

    #[test]
    fn an_exhausted_iteration_budget_is_reported() {
        let (a, b) = pair();
        for method in [Method::Brent, Method::Newton] {
            let pw = PerramWertheim { method, max_iterations: 1, ..PerramWertheim::newton() };
            assert_eq!(pw.solve(&a, &b), Err(PwError::NoConvergence { iterations: 1 }), "{method:?}");
        }
    }

    #[test]
    fn overflowing_positions_are_reported() {
        let a = Ellipsoid::new(DVec3::splat(-1e308), DQuat::IDENTITY, DVec3::ONE).unwrap();
        let b = Ellipsoid::new(DVec3::splat(1e308), DQuat::IDENTITY, DVec3::ONE).unwrap();
        assert_eq!(PerramWertheim::newton().solve(&a, &b), Err(PwError::NonFinite));
    }
}
