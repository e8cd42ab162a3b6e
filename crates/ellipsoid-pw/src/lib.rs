//! Ellipsoid contact by the Perram–Wertheim contact function, for DEM and molecular dynamics.
//!
//! For ellipsoids A and B with centres `r_a`, `r_b`, `R = r_b − r_a` and shape matrices
//! `A = Σ a_i⁻² u_i u_iᵀ` (the solid is `(x − r)ᵀA(x − r) <= 1`; Woo's page prints `a_i⁻¹`, a
//! typo: the quadratic form needs `a_i⁻²`),
//!
//! ```text
//! G(λ) = (1−λ) A⁻¹ + λ B⁻¹,    S(λ) = λ(1−λ) Rᵀ G(λ)⁻¹ R,    F = max_{λ∈[0,1]} S(λ) = S(Λ).
//! ```
//!
//! `S` is concave with `S(0) = S(1) = 0`; `F < 1` means overlap, `F = 1` external tangency,
//! `F > 1` apart, and `μ = √F` is the factor by which both bodies must be scaled about their
//! centres to touch (Perram & Wertheim 1985). Following Woo and Donev, Torquato & Stillinger
//! (2005, eq. 18), a [`PwResult`] carries the unit normal `n̂ ∝ G(Λ)⁻¹R`, the contact point
//! `r_a + (1−Λ) A⁻¹ G(Λ)⁻¹R`, and Woo's normal displacement `u_n = |R| (1 − 1/μ) (R̂·n̂)`.
//!
//! # Where `u_n` is exact
//! Scaling both bodies by `μ` at fixed distance is the same as scaling the distance by `1/μ`
//! at fixed sizes, so `|R|(1 − 1/μ)` is exactly the displacement along `R` that brings the
//! bodies to tangency **when the tangency point moves along `R` as the distance changes**, that
//! is, for spheres (`u_n = d − r₁ − r₂`) and for pairs touching along a common symmetry axis
//! (Woo's regression case: axis-aligned bodies on a principal axis). Otherwise the bodies would
//! meet at a different point after translation along `R`, and the projection onto `n̂` is
//! Woo's first-order correction: an approximation whose error grows with depth and with the
//! angle between `R` and `n̂`. At tangency (`F = 1`) it is exactly 0.
//!
//! # How it is computed
//! Everything happens in A's normalised frame (A becomes the unit ball, see
//! [`ContactFunction`]) and in units of a power of two near the pair's largest length, so
//! rescaling is exact and results do not depend on the absolute scale (a pair scaled by `2^k`
//! gives bit-identical `F`, `Λ` and normal). `Λ` is found by Brent's method (Woo's,
//! derivative-free; its answer is checked by the sign of `S'` on both sides, and where `S` is
//! too flat near its maximum for values to locate `Λ`, at size ratios beyond about `1e12`, the
//! Newton iteration finishes from it) or by a safeguarded Newton iteration on `S'` (cold-started from a
//! sphere-based guess that is exact for spheres, or warm-started from the last step through a
//! [`LambdaCache`]); see [`Method`]. Both work in whichever of `λ`, `1 − λ` puts the maximiser
//! in `[0, 1/2]`, so that `Λ` is resolved relative to its distance from either end.
//!
//! `S` is evaluated in one of two ways. Well-conditioned pairs (a cheap bound on the condition
//! number of `G(λ)` in A's frame at most `1e4`: moderate aspect ratios) use one symmetric 3×3
//! adjugate solve per evaluation, whose relative error is about `ε` times that bound. Other
//! pairs — thin bodies, needles, discs — are diagonalised once: a one-sided Jacobi SVD of
//! `diag(1/a) Rot_Aᵀ Rot_B diag(b)` gives the generalised eigenvalues `μ_i` of the pencil,
//! and then `S(λ) = λ(1−λ) Σ c_i²/((1−λ) + λμ_i)` and its derivatives are sums of terms of one
//! sign. Forming `G(λ)` (or its normalised-frame image) explicitly squares the conditioning
//! (entries carry absolute errors `ε‖G‖` that swamp its small eigenvalues), which made `S`
//! wrong, even negative, for a small body against a needle; the SVD keeps the error near `ε`
//! times the smaller body's aspect ratio, and `solve(a, b)` and `solve(b, a)` agree. Lengths of a
//! pair must lie within [`MAX_LENGTH_RATIO`] `= 2^100` of each other
//! ([`PwError::LengthRatioOutOfRange`]).
//!
//! Beyond Woo: [`algebraic_separation`], an exact boolean overlap pre-filter by the
//! Wang–Wang–Kim condition, which decides the same question as `F < 1`; exact contacts with
//! planes of any orientation ([`contact_ellipsoid_plane`]) and with spheres
//! ([`contact_ellipsoid_sphere`]); the posed ellipsoid's exact bounding box is
//! [`Ellipsoid::aabb`](geometry_core::Ellipsoid::aabb); [`PerramWertheim::solve_pairs`]
//! evaluates many pairs with rayon.
//!
//! ```
//! use contact_core::ContactGenerator;
//! use ellipsoid_pw::{PerramWertheim, Separation, algebraic_separation};
//! use geometry_core::{DQuat, DVec3, Ellipsoid};
//!
//! let a = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::new(1.0, 0.5, 0.5)).unwrap();
//! let b = Ellipsoid::new(DVec3::new(1.4, 0.3, 0.0), DQuat::from_rotation_z(1.0), DVec3::new(1.0, 0.3, 0.3)).unwrap();
//! let pw = PerramWertheim::newton();
//! let result = pw.solve(&a, &b).unwrap();
//! assert_eq!(result.overlapping, algebraic_separation(&a, &b) == Separation::Overlapping);
//! let contact = pw.contact(&a, &b).unwrap();
//! assert_eq!(contact.is_some(), result.overlapping);
//! ```

mod algebraic;
mod cache;
mod contact_function;
mod error;
mod maximise;
mod plane;
mod solver;
mod sphere;
mod sym3;

pub use algebraic::{Separation, algebraic_separation};
pub use cache::{BodyLambdaCache, LambdaCache, LambdaStore};
pub use contact_function::{ContactFunction, MAX_LENGTH_RATIO, MAX_THIN_ASPECT_RATIO};
pub use error::PwError;
pub use plane::{EllipsoidPlaneContact, contact_ellipsoid_plane};
pub use solver::{Method, PerramWertheim, PwResult};
pub use sphere::{EllipsoidSphereContact, contact_ellipsoid_sphere};
