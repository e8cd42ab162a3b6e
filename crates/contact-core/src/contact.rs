//! The contact record and its sign convention.

use geometry_core::DVec3;
use thiserror::Error;

/// A contact between two bodies `A` and `B`.
///
/// Convention:
/// * `normal` is a unit vector pointing **from `A` towards `B`** (the direction in which `B`
///   must move to separate).
/// * `depth > 0` means the bodies **penetrate** by that distance along `normal`; `depth < 0`
///   means they are separated by `-depth` (a speculative contact); `depth == 0` is touching.
/// * `point` lies **midway** between the two surfaces along the normal:
///   [`witness_a`](Contact::witness_a) `= point + normal · depth / 2` is A's surface point and
///   [`witness_b`](Contact::witness_b) `= point - normal · depth / 2` is B's.
///
/// [`flipped`](Contact::flipped) gives the same contact seen with the roles of A and B swapped.
///
/// ```
/// use contact_core::Contact;
/// use geometry_core::DVec3;
///
/// // Unit balls at x = 0 (A) and x = 1.5 (B) overlap by 0.5 around x = 0.75.
/// let c = Contact::new(DVec3::new(0.75, 0.0, 0.0), DVec3::X, 0.5).unwrap();
/// assert_eq!(c.witness_a(), DVec3::new(1.0, 0.0, 0.0));
/// assert_eq!(c.witness_b(), DVec3::new(0.5, 0.0, 0.0));
/// assert_eq!(c.flipped().normal, -DVec3::X);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contact {
    /// The contact point, midway between the two surfaces.
    pub point: DVec3,
    /// Unit normal from A to B.
    pub normal: DVec3,
    /// Penetration depth (negative: separation distance).
    pub depth: f64,
}

/// [`Contact::new`] was given invalid numbers.
///
/// ```
/// use contact_core::{Contact, ContactError};
/// use geometry_core::DVec3;
/// let nan = Contact::new(DVec3::ZERO, DVec3::X, f64::NAN);
/// assert!(matches!(nan, Err(ContactError::NonFinite { .. })));
/// let inf = Contact::new(DVec3::splat(f64::INFINITY), DVec3::X, 0.0);
/// assert!(matches!(inf, Err(ContactError::NonFinite { .. })));
/// assert_eq!(Contact::new(DVec3::ZERO, DVec3::ZERO, 0.0), Err(ContactError::ZeroNormal));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Error)]
#[non_exhaustive]
pub enum ContactError {
    /// The point, normal or depth was NaN or infinite.
    #[error("contact {what} is not finite")]
    NonFinite {
        /// Which field.
        what: &'static str,
    },
    /// The normal was the zero vector and cannot be normalised.
    #[error("contact normal is zero")]
    ZeroNormal,
}

impl Contact {
    /// A validated contact; the normal is normalised.
    ///
    /// # Errors
    /// [`ContactError::NonFinite`] for a non-finite field; [`ContactError::ZeroNormal`] for a
    /// zero normal.
    ///
    /// ```
    /// use contact_core::{Contact, ContactError};
    /// use geometry_core::DVec3;
    /// let c = Contact::new(DVec3::ZERO, DVec3::new(0.0, 0.0, 2.0), 0.1).unwrap();
    /// assert_eq!(c.normal, DVec3::Z);
    /// assert_eq!(Contact::new(DVec3::ZERO, DVec3::ZERO, 0.1), Err(ContactError::ZeroNormal));
    /// ```
    pub fn new(point: DVec3, normal: DVec3, depth: f64) -> Result<Self, ContactError> {
        if !point.is_finite() {
            return Err(ContactError::NonFinite { what: "point" });
        }
        if !normal.is_finite() {
            return Err(ContactError::NonFinite { what: "normal" });
        }
        if !depth.is_finite() {
            return Err(ContactError::NonFinite { what: "depth" });
        }
        // Scaled first: a tiny or huge normal is still a direction.
        let normal = geometry_core::scaled::normalize(normal).ok_or(ContactError::ZeroNormal)?;
        Ok(Self { point, normal, depth })
    }

    /// The same contact with A and B swapped: the normal is negated; point and depth are unchanged.
    ///
    /// ```
    /// use contact_core::Contact;
    /// use geometry_core::DVec3;
    /// let c = Contact::new(DVec3::ZERO, DVec3::Y, 0.2).unwrap();
    /// assert_eq!(c.flipped().flipped(), c);
    /// assert_eq!(c.flipped().witness_a(), c.witness_b());
    /// ```
    #[must_use]
    pub fn flipped(&self) -> Contact {
        Contact { point: self.point, normal: -self.normal, depth: self.depth }
    }

    /// Whether the bodies penetrate (`depth > 0`).
    ///
    /// ```
    /// use contact_core::Contact;
    /// use geometry_core::DVec3;
    /// assert!(!Contact::new(DVec3::ZERO, DVec3::Y, -0.2).unwrap().is_penetrating());
    /// ```
    #[inline]
    pub fn is_penetrating(&self) -> bool {
        self.depth > 0.0
    }

    /// A's surface point: `point + normal · depth / 2`.
    ///
    /// ```
    /// use contact_core::Contact;
    /// use geometry_core::DVec3;
    /// assert_eq!(Contact::new(DVec3::ZERO, DVec3::X, 2.0).unwrap().witness_a(), DVec3::X);
    /// ```
    #[inline]
    pub fn witness_a(&self) -> DVec3 {
        self.point + self.normal * (0.5 * self.depth)
    }

    /// B's surface point: `point - normal · depth / 2`.
    ///
    /// ```
    /// use contact_core::Contact;
    /// use geometry_core::DVec3;
    /// assert_eq!(Contact::new(DVec3::ZERO, DVec3::X, 2.0).unwrap().witness_b(), -DVec3::X);
    /// ```
    #[inline]
    pub fn witness_b(&self) -> DVec3 {
        self.point - self.normal * (0.5 * self.depth)
    }
}
