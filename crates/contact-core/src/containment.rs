//! Inside / outside / on-boundary queries.

use geometry_core::{Aabb, DVec3};
use rayon::prelude::*;
use thiserror::Error;

/// Where a point lies relative to a closed solid.
///
/// ```
/// use contact_core::Containment;
/// assert!(Containment::OnBoundary.is_inside_or_boundary());
/// assert!(!Containment::Outside.is_inside_or_boundary());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Containment {
    /// Strictly inside the solid.
    Inside,
    /// Strictly outside the solid.
    Outside,
    /// Exactly on the boundary surface.
    OnBoundary,
}

impl Containment {
    /// `true` for [`Inside`](Containment::Inside) and [`OnBoundary`](Containment::OnBoundary):
    /// the closed solid contains the point.
    ///
    /// ```
    /// use contact_core::PointContainment;
    /// use geometry_core::{Aabb, DVec3};
    /// let unit = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
    /// assert!(unit.contains(DVec3::splat(0.5)).unwrap().is_inside_or_boundary()); // inside
    /// assert!(unit.contains(DVec3::ONE).unwrap().is_inside_or_boundary()); // a corner
    /// assert!(!unit.contains(DVec3::splat(2.0)).unwrap().is_inside_or_boundary());
    /// ```
    #[inline]
    pub fn is_inside_or_boundary(self) -> bool {
        !matches!(self, Containment::Outside)
    }
}

/// A query point had a NaN or infinite coordinate.
///
/// ```
/// use contact_core::{NonFinitePoint, PointContainment};
/// use geometry_core::{Aabb, DVec3};
/// let b = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
/// assert_eq!(b.contains(DVec3::splat(f64::NAN)).unwrap_err().index, 0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("query point {index} has a non-finite coordinate")]
pub struct NonFinitePoint {
    /// Index of the point in a batch (0 for a single query).
    pub index: usize,
}

/// Classifies points against a closed solid.
///
/// Implementations must be exact where they claim [`OnBoundary`](Containment::OnBoundary) and
/// return an error rather than a guess for bad input (at least [`NonFinitePoint`]'s case).
/// The batch form runs in parallel with rayon; its result is identical to calling
/// [`contains`](PointContainment::contains) on every point in order.
///
/// ```
/// use contact_core::{Containment, PointContainment};
/// use geometry_core::{Aabb, DVec3};
///
/// let unit = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
/// assert_eq!(unit.contains(DVec3::splat(0.5)).unwrap(), Containment::Inside);
/// assert_eq!(unit.contains(DVec3::new(1.0, 0.5, 0.5)).unwrap(), Containment::OnBoundary);
/// let all = unit.contains_batch(&[DVec3::ZERO, DVec3::splat(2.0)]).unwrap();
/// assert_eq!(all, vec![Containment::OnBoundary, Containment::Outside]);
/// ```
pub trait PointContainment {
    /// The error for a query that cannot be answered. It must be able to say which point of a
    /// batch was not finite (`From<NonFinitePoint>`), so that the default
    /// [`contains_batch`](PointContainment::contains_batch) reports the batch index.
    type Error: std::error::Error + From<NonFinitePoint> + Send + Sync + 'static;

    /// Classifies one point.
    ///
    /// # Errors
    /// Implementation-defined; at least for non-finite coordinates.
    fn contains(&self, point: DVec3) -> Result<Containment, Self::Error>;

    /// Classifies many points, in parallel; the output is in input order.
    ///
    /// # Errors
    /// [`NonFinitePoint`] with the batch index of the first non-finite point; otherwise the
    /// error of the first failing point (lowest index).
    fn contains_batch(&self, points: &[DVec3]) -> Result<Vec<Containment>, Self::Error>
    where
        Self: Sync,
    {
        // Checked here: `contains` knows no batch index (it reported 0 for every point).
        if let Some(index) = points.iter().position(|p| !p.is_finite()) {
            return Err(NonFinitePoint { index }.into());
        }
        // Collect per-point results first so that the reported error is the lowest-index one,
        // whatever order the threads finish in.
        let results: Vec<Result<Containment, Self::Error>> =
            points.par_iter().map(|&p| self.contains(p)).collect();
        results.into_iter().collect()
    }
}

/// Exact containment for a closed box: comparisons of `f64`s involve no rounding.
impl PointContainment for Aabb {
    type Error = NonFinitePoint;

    fn contains(&self, point: DVec3) -> Result<Containment, NonFinitePoint> {
        if !point.is_finite() {
            return Err(NonFinitePoint { index: 0 });
        }
        if !self.contains_point(point) {
            Ok(Containment::Outside)
        } else if point.cmpeq(self.min).any() || point.cmpeq(self.max).any() {
            Ok(Containment::OnBoundary)
        } else {
            Ok(Containment::Inside)
        }
    }

    fn contains_batch(&self, points: &[DVec3]) -> Result<Vec<Containment>, NonFinitePoint> {
        if let Some(index) = points.iter().position(|p| !p.is_finite()) {
            return Err(NonFinitePoint { index });
        }
        Ok(points.par_iter().map(|&p| self.contains(p).expect("checked finite")).collect())
    }
}
