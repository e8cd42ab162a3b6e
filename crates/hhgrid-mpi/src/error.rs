//! Errors, and their fixed-size encoding that lets every rank return the same one.

use thiserror::Error;

/// Why a distributed operation was refused.
///
/// Every collective operation of [`DistributedGrid`](crate::DistributedGrid) returns the *same*
/// error on every rank: ranks check their part, agree on the first failing rank with one
/// all-reduce, and that rank broadcasts its error ([`DistError::to_words`]). No rank is left
/// waiting in a collective.
///
/// ```
/// use hhgrid_mpi::DistError;
/// let e = DistError::OutsideDomain { id: 3, axis: 0, low: -5.0, high: -4.0 };
/// assert_eq!(e.to_string(), "object 3 spans [-5, -4] on bounded axis 0, outside the box");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Error)]
#[non_exhaustive]
pub enum DistError {
    /// A configuration value is out of range.
    #[error("invalid configuration: {0}")]
    InvalidConfig(&'static str),
    /// The requested dimensions cannot multiply to the number of ranks.
    #[error(
        "dims {dims:?} cannot tile the box with {ranks} ranks (zeros are free; the product must be {ranks})"
    )]
    DimsMismatch {
        /// Ranks per axis asked for (0 = free).
        dims: [usize; 3],
        /// The number of ranks.
        ranks: usize,
    },
    /// A subdomain is thinner than the largest object: the rank count cannot tile the box.
    #[error(
        "the subdomains are {width} wide along axis {axis}, thinner than the largest object \
         ({max_object_size}): use fewer ranks along that axis or a larger box"
    )]
    SubdomainTooThin {
        /// The axis.
        axis: usize,
        /// The subdomain width along it.
        width: f64,
        /// The configured largest object size.
        max_object_size: f64,
    },
    /// A periodic axis is not longer than twice the largest object.
    #[error(
        "periodic axis {axis} has period {period}, not more than twice the largest object ({max_object_size})"
    )]
    PeriodTooShort {
        /// The axis.
        axis: usize,
        /// Its period.
        period: f64,
        /// The configured largest object size.
        max_object_size: f64,
    },
    /// An object's box is not finite or inverted.
    #[error("object {id}: invalid bounding box (not finite or min > max)")]
    InvalidObject {
        /// Global id.
        id: u64,
    },
    /// An object is larger than the configured largest object size (the subdomain's reach), by
    /// more than 64 rounding units of the domain's largest coordinate (the slack left for the
    /// rounding of wrapping boxes into a periodic box).
    #[error("object {id} has size {size}, larger than the largest allowed ({limit}, the ghost reach)")]
    ObjectTooLarge {
        /// Global id.
        id: u64,
        /// Its size (longest box edge).
        size: f64,
        /// The configured largest object size.
        limit: f64,
    },
    /// An object's box leaves the box along a bounded axis.
    #[error("object {id} spans [{low}, {high}] on bounded axis {axis}, outside the box")]
    OutsideDomain {
        /// Global id.
        id: u64,
        /// The axis.
        axis: usize,
        /// The box's lower coordinate on that axis.
        low: f64,
        /// The box's upper coordinate on that axis.
        high: f64,
    },
    /// An object moved beyond the neighbours of its owner within one step.
    #[error("object {id} moved from rank {from} to rank {to}, beyond the 26 neighbours, in one step")]
    MovedTooFar {
        /// Global id.
        id: u64,
        /// The old owner.
        from: usize,
        /// The new owner.
        to: usize,
    },
    /// More objects than the global ids (2⁵⁸) or a rank's local grid (2³² − 1) can address.
    #[error("too many objects (at rank {rank})")]
    TooManyObjects {
        /// The rank that ran out.
        rank: usize,
    },
}

/// The configuration problems named by [`DistError::InvalidConfig`] (indexed in the encoding).
const REASONS: &[&str] = &[
    "domain corners must be finite with min < max",
    "max_object_size must be finite and > 0",
    "the hhgrid configuration is invalid",
    "every rank must pass the same configuration",
];

impl DistError {
    /// A fixed-size encoding (six words) for sending the error to the other ranks.
    ///
    /// ```
    /// use hhgrid_mpi::DistError;
    /// let e = DistError::ObjectTooLarge { id: 7, size: 3.5, limit: 2.0 };
    /// assert_eq!(DistError::from_words(e.to_words()), e);
    /// ```
    pub fn to_words(&self) -> [u64; 6] {
        let f = f64::to_bits;
        let u = |x: usize| x as u64;
        match *self {
            DistError::InvalidConfig(reason) => {
                let index = REASONS.iter().position(|r| *r == reason).unwrap_or(REASONS.len());
                [1, index as u64, 0, 0, 0, 0]
            }
            DistError::DimsMismatch { dims, ranks } => [2, u(dims[0]), u(dims[1]), u(dims[2]), u(ranks), 0],
            DistError::SubdomainTooThin { axis, width, max_object_size } => {
                [3, u(axis), f(width), f(max_object_size), 0, 0]
            }
            DistError::PeriodTooShort { axis, period, max_object_size } => {
                [4, u(axis), f(period), f(max_object_size), 0, 0]
            }
            DistError::InvalidObject { id } => [5, id, 0, 0, 0, 0],
            DistError::ObjectTooLarge { id, size, limit } => [6, id, f(size), f(limit), 0, 0],
            DistError::OutsideDomain { id, axis, low, high } => [7, id, u(axis), f(low), f(high), 0],
            DistError::MovedTooFar { id, from, to } => [8, id, u(from), u(to), 0, 0],
            DistError::TooManyObjects { rank } => [9, u(rank), 0, 0, 0, 0],
        }
    }

    /// Decodes [`to_words`](Self::to_words).
    ///
    /// ```
    /// use hhgrid_mpi::DistError;
    /// let e = DistError::MovedTooFar { id: 9, from: 0, to: 5 };
    /// assert_eq!(DistError::from_words(e.to_words()), e);
    /// ```
    pub fn from_words(w: [u64; 6]) -> DistError {
        let f = f64::from_bits;
        let u = |x: u64| x as usize;
        match w[0] {
            1 => DistError::InvalidConfig(REASONS.get(u(w[1])).copied().unwrap_or("unknown problem")),
            2 => DistError::DimsMismatch { dims: [u(w[1]), u(w[2]), u(w[3])], ranks: u(w[4]) },
            3 => DistError::SubdomainTooThin { axis: u(w[1]), width: f(w[2]), max_object_size: f(w[3]) },
            4 => DistError::PeriodTooShort { axis: u(w[1]), period: f(w[2]), max_object_size: f(w[3]) },
            5 => DistError::InvalidObject { id: w[1] },
            6 => DistError::ObjectTooLarge { id: w[1], size: f(w[2]), limit: f(w[3]) },
            7 => DistError::OutsideDomain { id: w[1], axis: u(w[2]), low: f(w[3]), high: f(w[4]) },
            8 => DistError::MovedTooFar { id: w[1], from: u(w[2]), to: u(w[3]) },
            _ => DistError::TooManyObjects { rank: u(w[1]) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_round_trips() {
        let all = [
            DistError::InvalidConfig(REASONS[0]),
            DistError::InvalidConfig(REASONS[3]),
            DistError::DimsMismatch { dims: [3, 0, 1], ranks: 4 },
            DistError::SubdomainTooThin { axis: 2, width: 0.5, max_object_size: 1.5 },
            DistError::PeriodTooShort { axis: 1, period: 2.0, max_object_size: 1.5 },
            DistError::InvalidObject { id: 1 << 57 },
            DistError::ObjectTooLarge { id: 3, size: 9.0, limit: 2.0 },
            DistError::OutsideDomain { id: 4, axis: 0, low: -1.0, high: 0.5 },
            DistError::MovedTooFar { id: 5, from: 0, to: 2 },
            DistError::TooManyObjects { rank: 3 },
        ];
        for e in all {
            assert_eq!(DistError::from_words(e.to_words()), e);
            assert!(!e.to_string().is_empty());
        }
    }
}
