//! Why a contact could not be computed.

use thiserror::Error;

/// The errors of this crate. Invalid shapes cannot reach it: [`geometry_core::Ellipsoid::new`]
/// already refuses non-finite data, zero quaternions and semi-axes `<= 0`.
///
/// ```
/// use ellipsoid_pw::{PerramWertheim, PwError};
/// use geometry_core::{DQuat, DVec3, Ellipsoid};
/// let pw = PerramWertheim::newton();
/// let a = Ellipsoid::new(DVec3::ZERO, DQuat::IDENTITY, DVec3::new(1.0, 0.5, 0.5)).unwrap();
/// let b = Ellipsoid::new(DVec3::ZERO, DQuat::from_rotation_z(1.0), DVec3::ONE).unwrap();
/// assert_eq!(pw.solve(&a, &b), Err(PwError::CoincidentCentres));
/// let c = Ellipsoid::new(DVec3::new(2.0, 0.0, 0.0), DQuat::IDENTITY, DVec3::ONE).unwrap();
/// assert_eq!(pw.solve_warm(&a, &c, 1.5), Err(PwError::InvalidLambda { value: 1.5 }));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Error)]
#[non_exhaustive]
pub enum PwError {
    /// The two centres coincide: `S(λ) ≡ 0`, so `F = 0` and neither `Λ` nor a normal exists.
    /// (The bodies certainly overlap; a simulation must separate them by other means.)
    #[error("the ellipsoid centres coincide: the Perram–Wertheim normal is undefined")]
    CoincidentCentres,
    /// The maximiser did not meet its tolerance within the iteration limit.
    #[error("the Perram–Wertheim maximiser did not converge in {iterations} iterations")]
    NoConvergence {
        /// Iterations spent.
        iterations: u32,
    },
    /// A world coordinate overflows `f64`: the centre difference, the centre distance, the
    /// contact point or `u_n` (e.g. centres near `±1e308`). Everything else is computed in units of
    /// the pair's size, so the absolute scale of a pair never causes this.
    #[error("the contact is not finite: the centre difference, distance or contact point overflows f64")]
    NonFinite,
    /// Two lengths of the pair (its six semi-axes and the largest component of the centre
    /// difference) differ by more than [`MAX_LENGTH_RATIO`](crate::MAX_LENGTH_RATIO)
    /// `= 2^100 ≈ 1.3e30`. Beyond it intermediates of the evaluation of `S` (powers of length
    /// ratios up to about the sixth) could leave the range of `f64`, so the pair is refused
    /// rather than answered wrongly. The absolute scale does not matter: only ratios do.
    /// ([`contact_ellipsoid_sphere`](crate::contact_ellipsoid_sphere)'s exact case, outside the
    /// ellipsoid, supports `2^200` between its smallest semi-axis and its other lengths.)
    #[error(
        "the pair's lengths (semi-axes, centre distance) differ by more than the supported ratio (2^100 ≈ 1.3e30; \
         2^200 for the exact ellipsoid–sphere contact)"
    )]
    LengthRatioOutOfRange,
    /// Both bodies are thinner (needles or discs) than
    /// [`MAX_THIN_ASPECT_RATIO`](crate::MAX_THIN_ASPECT_RATIO) `= 2^40 ≈ 1.1e12` and not
    /// aligned closely enough for the direct evaluation, so `f64` cannot resolve the smallest
    /// eigenvalue of the pair's pencil (or its diagonalisation failed the check against the
    /// exactly known determinant). `F` would then be wrong (measured with independent
    /// high-precision oracles: order 1 at aspect ratios of 1e16 for both bodies, 10⁵ at 1e20,
    /// with wrong overlap flags and answers that depended on the argument order), so the pair
    /// is refused. One thin body against a moderate one is resolved at any aspect ratio within
    /// [`MAX_LENGTH_RATIO`](crate::MAX_LENGTH_RATIO).
    #[error("both bodies are too thin, at too different orientations, to resolve the pair in f64")]
    IllConditioned,
    /// A body index of a [`BodyLambdaCache`](crate::BodyLambdaCache) key at or above
    /// [`BodyLambdaCache::MAX_BODIES`](crate::BodyLambdaCache::MAX_BODIES).
    #[error("the body index {index} is beyond the per-body cache's limit")]
    BodyIndexOutOfRange {
        /// The rejected index.
        index: u32,
    },
    /// Growing a [`BodyLambdaCache`](crate::BodyLambdaCache) to hold a body index failed: the
    /// allocator refused the memory.
    #[error("the per-body cache could not allocate lists for {bodies} bodies")]
    CacheAllocationFailed {
        /// The number of body lists requested.
        bodies: usize,
    },
    /// A warm-start `λ` outside `[0, 1]` or NaN.
    #[error("the warm-start λ = {value} is not in [0, 1]")]
    InvalidLambda {
        /// The rejected value.
        value: f64,
    },
}
