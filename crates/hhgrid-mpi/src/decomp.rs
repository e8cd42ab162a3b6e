//! The Cartesian decomposition of a box over ranks: pure functions, no MPI.
//!
//! * [`dims_create`]: the factorisation of the rank count into three dimensions, as
//!   `MPI_Dims_create` specifies it (zero entries are free, the free factors as close to each
//!   other as possible, in non-increasing order).
//! * [`Decomposition`]: the box (periodic or bounded per axis), the rank grid, the subdomain of
//!   each rank (row-major rank order, as `MPI_Cart_create` numbers ranks), the owner of a point,
//!   the neighbours of a rank, and where an object's ghost copies go ([`Decomposition::ghost_targets`]).
//!
//! Ownership: an object belongs to the rank whose subdomain contains its *reference point*, the
//! centre of its box (after wrapping into the box on periodic axes).
//!
//! Reach rule: an object of size `s` (longest box edge) is copied as a ghost to every rank whose
//! subdomain comes within `s` of its centre on every axis (Chebyshev distance ≤ `s`). This is the
//! issue's rule "reach = the largest object size in the hierarchy level" applied per object: the
//! object's own size never exceeds the largest size of its level, so it sends a subset of those
//! ghosts, and it still suffices: if boxes `a` and `b` overlap and `size(a) ≤ size(b)`, their
//! centres are at most `size(a)/2 + size(b)/2 ≤ size(b)` apart on every axis, so the owner of `a`
//! receives a ghost of `b`. A pair is therefore always complete on the rank that owns its
//! object of smaller key `(size, id)` (see [`pair_reporter_is_first`]).

use crate::DistError;
use geometry_core::{Aabb, DVec3};

/// Factors `ranks` into three dimensions the way `MPI_Dims_create` does.
///
/// Entries of `fixed` greater than zero are kept; the zero entries are filled with factors of
/// `ranks / (product of the fixed ones)` that are as balanced as possible (the largest factor as
/// small as possible, then the second), in non-increasing order. The MPI standard leaves ties
/// open and implementations differ: the MPI test compares this with the library's own
/// `MPI_Dims_create` for every rank count up to 2000 (Open MPI 4.1: identical in 4015 of 4066
/// cases; in the others neither the largest factor nor the sum of factors is larger here, e.g.
/// 9 × 8 × 5 for 360 ranks where Open MPI gives 10 × 6 × 6).
///
/// # Errors
/// [`DistError::DimsMismatch`] when the fixed entries do not divide `ranks` (or, with no free
/// entry, their product differs from `ranks`), or `ranks` is zero.
///
/// ```
/// use hhgrid_mpi::dims_create;
/// assert_eq!(dims_create(12, [0, 0, 0]).unwrap(), [3, 2, 2]);
/// assert_eq!(dims_create(7, [0, 0, 0]).unwrap(), [7, 1, 1]);
/// assert_eq!(dims_create(10_000, [0, 0, 0]).unwrap(), [25, 20, 20]);
/// assert_eq!(dims_create(12, [0, 3, 0]).unwrap(), [2, 3, 2]);
/// assert!(dims_create(12, [5, 0, 0]).is_err());
/// assert!(dims_create(12, [2, 2, 2]).is_err());
/// ```
pub fn dims_create(ranks: usize, fixed: [usize; 3]) -> Result<[usize; 3], DistError> {
    let mismatch = || DistError::DimsMismatch { dims: fixed, ranks };
    if ranks == 0 {
        return Err(mismatch());
    }
    // Checked: fixed entries whose product overflows cannot divide `ranks` either.
    let fixed_product = fixed.iter().filter(|&&d| d > 0).try_fold(1usize, |p, &d| p.checked_mul(d));
    let Some(fixed_product) = fixed_product else { return Err(mismatch()) };
    if !ranks.is_multiple_of(fixed_product) {
        return Err(mismatch());
    }
    let free = fixed.iter().filter(|&&d| d == 0).count();
    let rest = ranks / fixed_product;
    let factors = match free {
        0 if rest == 1 => Vec::new(),
        0 => return Err(mismatch()),
        1 => vec![rest],
        2 => {
            let b = divisors(rest).into_iter().filter(|&b| b <= rest / b).max().unwrap_or(1);
            vec![rest / b, b]
        }
        _ => {
            // Smallest largest factor, then smallest second factor.
            let mut best = [rest, 1, 1];
            for c in divisors(rest).into_iter().filter(|&c| c <= rest / c / c) {
                let m = rest / c;
                for b in divisors(m).into_iter().filter(|&b| b >= c && b <= m / b) {
                    let candidate = [m / b, b, c];
                    if candidate < best {
                        best = candidate;
                    }
                }
            }
            best.to_vec()
        }
    };
    let mut out = fixed;
    let mut next = factors.into_iter();
    for d in &mut out {
        if *d == 0 {
            *d = next.next().expect("one factor per free entry");
        }
    }
    Ok(out)
}

fn divisors(n: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = 1;
    while i <= n / i {
        if n.is_multiple_of(i) {
            out.push(i);
            if i != n / i {
                out.push(n / i);
            }
        }
        i += 1;
    }
    out.sort_unstable();
    out
}

/// The simulated box, periodic or bounded (walls) per axis: `[min, max)` on a periodic axis
/// (`max` is `min` again), `[min, max]` on a bounded one (a point on the upper wall belongs to
/// the last subdomain).
///
/// ```
/// use geometry_core::DVec3;
/// use hhgrid_mpi::Domain;
/// let d = Domain::new(DVec3::ZERO, DVec3::new(10.0, 20.0, 30.0), [true, true, false]).unwrap();
/// assert_eq!(d.extent(), DVec3::new(10.0, 20.0, 30.0));
/// assert!(Domain::new(DVec3::ONE, DVec3::ZERO, [false; 3]).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Domain {
    /// Lower corner.
    pub min: DVec3,
    /// Upper corner.
    pub max: DVec3,
    /// Whether each axis wraps around.
    pub periodic: [bool; 3],
}

impl Domain {
    /// A box with `min < max` on every axis, all finite.
    ///
    /// # Errors
    /// [`DistError::InvalidConfig`] otherwise.
    ///
    /// ```
    /// use geometry_core::DVec3;
    /// use hhgrid_mpi::Domain;
    /// assert!(Domain::new(DVec3::ZERO, DVec3::ONE, [true; 3]).is_ok());
    /// assert!(Domain::new(DVec3::ZERO, DVec3::new(1.0, 0.0, 1.0), [true; 3]).is_err());
    /// // Finite corners whose distance overflows.
    /// assert!(Domain::new(DVec3::splat(-1e308), DVec3::splat(1e308), [true; 3]).is_err());
    /// ```
    pub fn new(min: DVec3, max: DVec3, periodic: [bool; 3]) -> Result<Self, DistError> {
        if !(min.is_finite() && max.is_finite() && min.cmplt(max).all()) {
            return Err(DistError::InvalidConfig("domain corners must be finite with min < max"));
        }
        // Corners near ±f64::MAX can be finite while their distance is not; every subdomain
        // bound and periodic shift would then be NaN.
        if !(max - min).is_finite() {
            return Err(DistError::InvalidConfig("the domain's extent must be finite"));
        }
        Ok(Self { min, max, periodic })
    }

    /// The edge lengths.
    ///
    /// ```
    /// use geometry_core::DVec3;
    /// use hhgrid_mpi::Domain;
    /// let d = Domain::new(DVec3::splat(-1.0), DVec3::splat(3.0), [false; 3]).unwrap();
    /// assert_eq!(d.extent(), DVec3::splat(4.0));
    /// ```
    pub fn extent(&self) -> DVec3 {
        self.max - self.min
    }
}

/// A Cartesian decomposition of a [`Domain`] over `ranks` processes.
///
/// Rank `r` has grid coordinates `(i, j, k)` with `r = (i · d₁ + j) · d₂ + k` (row-major, as
/// `MPI_Cart_create`), and owns the subdomain `[min + L·c/d, min + L·(c+1)/d)` per axis.
///
/// ```
/// use geometry_core::DVec3;
/// use hhgrid_mpi::{Decomposition, Domain};
/// let domain = Domain::new(DVec3::ZERO, DVec3::new(40.0, 20.0, 20.0), [true; 3]).unwrap();
/// let d = Decomposition::new(domain, 4, [0, 0, 0], 2.0).unwrap();
/// assert_eq!(d.dims(), [2, 2, 1]); // the larger factor on the longer axis (tie: first)
/// assert_eq!(d.owner(DVec3::new(25.0, 5.0, 1.0)), Some(2));
/// assert_eq!(d.subdomain(3).min, DVec3::new(20.0, 10.0, 0.0));
/// // Subdomains thinner than the largest object cannot hold a pair's partner in reach.
/// assert!(Decomposition::new(domain, 8, [8, 1, 1], 6.0).is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Decomposition {
    domain: Domain,
    dims: [usize; 3],
    max_object_size: f64,
}

impl Decomposition {
    /// Splits `domain` over `ranks` processes; `dims` entries of zero are chosen by
    /// [`dims_create`] (the free factors go to the free axes in order of decreasing extent).
    /// `max_object_size` is the largest object size (longest box edge) that will ever be
    /// inserted.
    ///
    /// # Errors
    /// * [`DistError::InvalidConfig`] for a non-positive or non-finite `max_object_size`;
    /// * [`DistError::DimsMismatch`] when `dims` cannot multiply to `ranks`;
    /// * [`DistError::SubdomainTooThin`] when a subdomain is thinner than `max_object_size`
    ///   (ghosts and migrants then would have to go beyond the 26 neighbours);
    /// * [`DistError::PeriodTooShort`] when a periodic axis is not longer than twice
    ///   `max_object_size` (two periodic images of one object could then overlap another).
    ///
    /// ```
    /// use geometry_core::DVec3;
    /// use hhgrid_mpi::{Decomposition, DistError, Domain};
    /// let domain = Domain::new(DVec3::ZERO, DVec3::new(60.0, 30.0, 30.0), [true; 3]).unwrap();
    /// assert_eq!(Decomposition::new(domain, 6, [0, 0, 0], 1.0).unwrap().dims(), [3, 2, 1]);
    /// assert_eq!(Decomposition::new(domain, 6, [0, 0, 6], 1.0).unwrap().dims(), [1, 1, 6]);
    /// assert!(matches!(Decomposition::new(domain, 6, [4, 0, 0], 1.0), Err(DistError::DimsMismatch { .. })));
    /// assert!(matches!(Decomposition::new(domain, 6, [0; 3], 16.0), Err(DistError::SubdomainTooThin { .. })));
    /// ```
    pub fn new(
        domain: Domain,
        ranks: usize,
        dims: [usize; 3],
        max_object_size: f64,
    ) -> Result<Self, DistError> {
        if !(max_object_size.is_finite() && max_object_size > 0.0) {
            return Err(DistError::InvalidConfig("max_object_size must be finite and > 0"));
        }
        let factors = dims_create(ranks, dims)?;
        // Free factors (non-increasing) go to the free axes by decreasing extent.
        let extent = domain.extent();
        let mut free_axes: Vec<usize> = (0..3).filter(|&k| dims[k] == 0).collect();
        free_axes.sort_by(|&a, &b| extent[b].total_cmp(&extent[a]).then(a.cmp(&b)));
        let mut free_factors: Vec<usize> = (0..3).filter(|&k| dims[k] == 0).map(|k| factors[k]).collect();
        free_factors.sort_unstable_by(|a, b| b.cmp(a));
        let mut out = dims;
        for (axis, factor) in free_axes.into_iter().zip(free_factors) {
            out[axis] = factor;
        }
        for axis in 0..3 {
            let width = extent[axis] / out[axis] as f64;
            if width < max_object_size {
                return Err(DistError::SubdomainTooThin { axis, width, max_object_size });
            }
            if domain.periodic[axis] && extent[axis] <= 2.0 * max_object_size {
                return Err(DistError::PeriodTooShort { axis, period: extent[axis], max_object_size });
            }
        }
        Ok(Self { domain, dims: out, max_object_size })
    }

    /// The box.
    ///
    /// ```
    /// use geometry_core::DVec3;
    /// use hhgrid_mpi::{Decomposition, Domain};
    /// let domain = Domain::new(DVec3::ZERO, DVec3::new(40.0, 20.0, 20.0), [false; 3]).unwrap();
    /// let d = Decomposition::new(domain, 2, [0, 0, 0], 3.0).unwrap();
    /// assert_eq!(d.domain().extent().x, 40.0);
    /// ```
    pub fn domain(&self) -> &Domain {
        &self.domain
    }

    /// Ranks per axis.
    ///
    /// ```
    /// use geometry_core::DVec3;
    /// use hhgrid_mpi::{Decomposition, Domain};
    /// let domain = Domain::new(DVec3::ZERO, DVec3::new(40.0, 20.0, 20.0), [false; 3]).unwrap();
    /// let d = Decomposition::new(domain, 2, [0, 0, 0], 3.0).unwrap();
    /// assert_eq!(d.dims(), [2, 1, 1]);
    /// ```
    pub fn dims(&self) -> [usize; 3] {
        self.dims
    }

    /// The number of ranks.
    ///
    /// ```
    /// use geometry_core::DVec3;
    /// use hhgrid_mpi::{Decomposition, Domain};
    /// let domain = Domain::new(DVec3::ZERO, DVec3::new(40.0, 20.0, 20.0), [false; 3]).unwrap();
    /// let d = Decomposition::new(domain, 2, [0, 0, 0], 3.0).unwrap();
    /// assert_eq!(d.ranks(), 2);
    /// ```
    pub fn ranks(&self) -> usize {
        self.dims.iter().product()
    }

    /// The largest allowed object size.
    ///
    /// ```
    /// use geometry_core::DVec3;
    /// use hhgrid_mpi::{Decomposition, Domain};
    /// let domain = Domain::new(DVec3::ZERO, DVec3::new(40.0, 20.0, 20.0), [false; 3]).unwrap();
    /// let d = Decomposition::new(domain, 2, [0, 0, 0], 3.0).unwrap();
    /// assert_eq!(d.max_object_size(), 3.0);
    /// ```
    pub fn max_object_size(&self) -> f64 {
        self.max_object_size
    }

    /// Grid coordinates of `rank`.
    ///
    /// ```
    /// use geometry_core::DVec3;
    /// use hhgrid_mpi::{Decomposition, Domain};
    /// let domain = Domain::new(DVec3::ZERO, DVec3::splat(30.0), [false; 3]).unwrap();
    /// let d = Decomposition::new(domain, 12, [0, 0, 0], 1.0).unwrap();
    /// assert_eq!(d.dims(), [3, 2, 2]);
    /// assert_eq!(d.coords(7), [1, 1, 1]);
    /// assert_eq!(d.rank_at([1, 1, 1]), 7);
    /// ```
    pub fn coords(&self, rank: usize) -> [usize; 3] {
        let [_, d1, d2] = self.dims;
        [rank / (d1 * d2), rank / d2 % d1, rank % d2]
    }

    /// The rank at grid coordinates `c` (each below its dimension).
    ///
    /// ```
    /// use geometry_core::DVec3;
    /// use hhgrid_mpi::{Decomposition, Domain};
    /// let domain = Domain::new(DVec3::ZERO, DVec3::new(40.0, 20.0, 20.0), [false; 3]).unwrap();
    /// let d = Decomposition::new(domain, 2, [0, 0, 0], 3.0).unwrap();
    /// assert_eq!(d.rank_at([1, 0, 0]), 1);
    /// ```
    pub fn rank_at(&self, c: [usize; 3]) -> usize {
        (c[0] * self.dims[1] + c[1]) * self.dims[2] + c[2]
    }

    /// The subdomain of `rank`.
    ///
    /// ```
    /// use geometry_core::DVec3;
    /// use hhgrid_mpi::{Decomposition, Domain};
    /// let domain = Domain::new(DVec3::ZERO, DVec3::new(40.0, 20.0, 20.0), [false; 3]).unwrap();
    /// let d = Decomposition::new(domain, 2, [0, 0, 0], 3.0).unwrap();
    /// assert_eq!(d.subdomain(1).min, DVec3::new(20.0, 0.0, 0.0));
    /// assert_eq!(d.subdomain(1).max, DVec3::new(40.0, 20.0, 20.0));
    /// ```
    pub fn subdomain(&self, rank: usize) -> Aabb {
        let c = self.coords(rank);
        let (lo, hi) = self.bounds(c);
        Aabb::new(lo, hi).expect("finite, ordered")
    }

    fn bounds(&self, c: [usize; 3]) -> (DVec3, DVec3) {
        let at = |axis: usize, i: usize| self.cut(axis, i);
        (
            DVec3::new(at(0, c[0]), at(1, c[1]), at(2, c[2])),
            DVec3::new(at(0, c[0] + 1), at(1, c[1] + 1), at(2, c[2] + 1)),
        )
    }

    /// The `i`-th cut of `axis` (`0..=dims[axis]`): the lower bound of the subdomains at grid
    /// position `i`, `max` for `i = dims[axis]`. Non-decreasing in `i` (each step rounds
    /// monotonically), so the subdomains tile the box and [`owner_coords`](Self::owner_coords)
    /// can settle a point against the very values [`subdomain`](Self::subdomain) reports.
    fn cut(&self, axis: usize, i: usize) -> f64 {
        if i == self.dims[axis] {
            self.domain.max[axis]
        } else {
            self.domain.min[axis] + self.domain.extent()[axis] * i as f64 / self.dims[axis] as f64
        }
    }

    /// The shift (a multiple of the period on periodic axes, zero elsewhere) that brings `p`
    /// into `[min, max)` on every periodic axis. Where rounding lets no multiple do so (e.g.
    /// `min = -7.3`, period 20, `p = min - 20`: `p + 20` rounds below `min` and `p + 40` onto
    /// `max`), the result lies within a rounding of the box, and
    /// [`owner_coords`](Self::owner_coords) puts it in the edge subdomain.
    ///
    /// ```
    /// use geometry_core::DVec3;
    /// use hhgrid_mpi::{Decomposition, Domain};
    /// let domain = Domain::new(DVec3::ZERO, DVec3::splat(10.0), [true, true, false]).unwrap();
    /// let d = Decomposition::new(domain, 1, [0, 0, 0], 1.0).unwrap();
    /// assert_eq!(d.wrap_shift(DVec3::new(-1.0, 25.0, -3.0)), DVec3::new(10.0, -20.0, 0.0));
    /// ```
    pub fn wrap_shift(&self, p: DVec3) -> DVec3 {
        let mut shift = DVec3::ZERO;
        for axis in 0..3 {
            if !self.domain.periodic[axis] {
                continue;
            }
            let (lo, hi) = (self.domain.min[axis], self.domain.max[axis]);
            let period = hi - lo;
            let mut s = -((p[axis] - lo) / period).floor() * period;
            // Rounding can land exactly on `hi` or just below `lo`.
            if p[axis] + s >= hi {
                s -= period;
            }
            if p[axis] + s < lo {
                s += period;
            }
            shift[axis] = s;
        }
        shift
    }

    /// The grid coordinates of the subdomain holding `p`, or `None` when `p` lies outside the
    /// box on a bounded axis (or is not finite). `p` must already be wrapped on periodic axes
    /// ([`wrap_shift`](Self::wrap_shift)); points outside are clamped to the edge subdomains.
    /// A point inside the box lies in the [`subdomain`](Self::subdomain) of its owner, compared
    /// with the very bounds that function returns (lower bound included, upper excluded, but
    /// the upper wall of a bounded axis belongs to the last subdomain).
    ///
    /// ```
    /// use geometry_core::DVec3;
    /// use hhgrid_mpi::{Decomposition, Domain};
    /// let domain = Domain::new(DVec3::ZERO, DVec3::new(40.0, 20.0, 20.0), [false; 3]).unwrap();
    /// let d = Decomposition::new(domain, 2, [0, 0, 0], 3.0).unwrap();
    /// assert_eq!(d.owner_coords(DVec3::new(30.0, 1.0, 1.0)), Some([1, 0, 0]));
    /// assert_eq!(d.owner_coords(DVec3::new(40.0, 1.0, 1.0)), Some([1, 0, 0])); // on the wall
    /// assert_eq!(d.owner_coords(DVec3::new(-1.0, 1.0, 1.0)), None); // outside a bounded box
    /// ```
    pub fn owner_coords(&self, p: DVec3) -> Option<[usize; 3]> {
        let extent = self.domain.extent();
        let mut c = [0; 3];
        for axis in 0..3 {
            let x = p[axis];
            if !x.is_finite() {
                return None;
            }
            let inside = (self.domain.min[axis]..=self.domain.max[axis]).contains(&x);
            if !self.domain.periodic[axis] && !inside {
                return None;
            }
            let t = ((x - self.domain.min[axis]) / extent[axis] * self.dims[axis] as f64).floor();
            let mut i = if t <= 0.0 { 0 } else { (t as usize).min(self.dims[axis] - 1) };
            // The estimate can be a rounding off near a cut: settle it against the cuts
            // themselves, so that `p` lies in `subdomain(owner(p))` (a step or two for a point
            // inside the box).
            while i > 0 && x < self.cut(axis, i) {
                i -= 1;
            }
            while i + 1 < self.dims[axis] && x >= self.cut(axis, i + 1) {
                i += 1;
            }
            c[axis] = i;
        }
        Some(c)
    }

    /// The rank owning a point (see [`owner_coords`](Self::owner_coords)).
    ///
    /// ```
    /// use geometry_core::DVec3;
    /// use hhgrid_mpi::{Decomposition, Domain};
    /// let domain = Domain::new(DVec3::ZERO, DVec3::new(40.0, 20.0, 20.0), [false; 3]).unwrap();
    /// let d = Decomposition::new(domain, 2, [0, 0, 0], 3.0).unwrap();
    /// assert_eq!(d.owner(DVec3::new(19.9, 5.0, 5.0)), Some(0));
    /// assert_eq!(d.owner(DVec3::new(20.0, 5.0, 5.0)), Some(1));
    /// ```
    pub fn owner(&self, p: DVec3) -> Option<usize> {
        self.owner_coords(p).map(|c| self.rank_at(c))
    }

    /// The neighbour of grid position `c` at `offset` (each −1, 0 or 1), with the shift to add
    /// to a box sent there (±period where the offset wraps around a periodic axis), or `None`
    /// beyond a bounded axis.
    fn neighbour(&self, c: [usize; 3], offset: [i64; 3]) -> Option<(usize, [i64; 3])> {
        let mut n = [0; 3];
        let mut wraps = [0; 3];
        for axis in 0..3 {
            let d = self.dims[axis] as i64;
            let mut x = c[axis] as i64 + offset[axis];
            if x < 0 || x >= d {
                if !self.domain.periodic[axis] {
                    return None;
                }
                // Below 0 the image must appear at the upper end: shift by +period.
                wraps[axis] = if x < 0 { 1 } else { -1 };
                x = x.rem_euclid(d);
            }
            n[axis] = x as usize;
        }
        Some((self.rank_at(n), wraps))
    }

    /// The distinct ranks other than `rank` among its 26 neighbours, sorted. The relation is
    /// symmetric, so each rank exchanges messages with exactly these ranks.
    ///
    /// ```
    /// use geometry_core::DVec3;
    /// use hhgrid_mpi::{Decomposition, Domain};
    /// let bounded = Domain::new(DVec3::ZERO, DVec3::new(30.0, 10.0, 10.0), [false; 3]).unwrap();
    /// let d = Decomposition::new(bounded, 3, [0, 0, 0], 1.0).unwrap();
    /// assert_eq!(d.neighbours(0), vec![1]);
    /// assert_eq!(d.neighbours(1), vec![0, 2]);
    /// let periodic = Domain { periodic: [true; 3], ..bounded };
    /// let d = Decomposition::new(periodic, 3, [0, 0, 0], 1.0).unwrap();
    /// assert_eq!(d.neighbours(0), vec![1, 2]);
    /// ```
    pub fn neighbours(&self, rank: usize) -> Vec<usize> {
        let c = self.coords(rank);
        let mut out = Vec::new();
        for code in 0..27 {
            let offset = offset_of(code);
            if offset == [0; 3] {
                continue;
            }
            if let Some((r, _)) = self.neighbour(c, offset)
                && r != rank
            {
                out.push(r);
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether rank `b` is `a` or one of its 26 neighbours.
    ///
    /// ```
    /// use geometry_core::DVec3;
    /// use hhgrid_mpi::{Decomposition, Domain};
    /// let domain = Domain::new(DVec3::ZERO, DVec3::new(40.0, 20.0, 20.0), [false; 3]).unwrap();
    /// let d = Decomposition::new(domain, 2, [0, 0, 0], 3.0).unwrap();
    /// assert!(d.is_neighbour_or_self(0, 1) && d.is_neighbour_or_self(1, 1));
    /// ```
    pub fn is_neighbour_or_self(&self, a: usize, b: usize) -> bool {
        a == b || self.neighbours(a).binary_search(&b).is_ok()
    }

    /// The largest longest edge an object may have: [`max_object_size`](Self::max_object_size)
    /// plus 64 rounding units of the largest coordinate. Wrapping a box into a periodic box adds
    /// the period to both corners, and the two roundings can lengthen its edge by a few units:
    /// an object the user sized exactly at the limit would otherwise be refused at the step
    /// after one that wrapped it. (The slack is far inside the [`reach`](Self::reach) margin.)
    pub(crate) fn accepted_size(&self) -> f64 {
        let scale = self.domain.min.abs().max(self.domain.max.abs()).max_element().max(self.max_object_size);
        self.max_object_size + 64.0 * f64::EPSILON * scale
    }

    /// Grows a size by the reach margin that absorbs rounding in the subdomain bounds.
    ///
    /// ```
    /// use geometry_core::DVec3;
    /// use hhgrid_mpi::{Decomposition, Domain};
    /// let domain = Domain::new(DVec3::ZERO, DVec3::new(40.0, 20.0, 20.0), [false; 3]).unwrap();
    /// let d = Decomposition::new(domain, 2, [0, 0, 0], 3.0).unwrap();
    /// let r = d.reach(2.0);
    /// assert!(r > 2.0 && r < 2.0 + 1e-6);
    /// ```
    pub fn reach(&self, size: f64) -> f64 {
        let scale = self.domain.min.abs().max(self.domain.max.abs()).max_element();
        size * (1.0 + 1e-9) + 1e-12 * scale
    }

    /// Where the ghost copies of an object with reference point `centre` (wrapped) and size
    /// `size`, owned by `rank`, must go: every `(rank, shift code)` among the owner's 26
    /// neighbouring grid positions whose subdomain comes within [`reach`](Self::reach)`(size)`
    /// of `centre` on every axis, other than the owner itself unshifted. (Subdomains are at
    /// least as wide as the largest object, so every rank within `size` is a neighbour; far
    /// from the origin the reach's rounding margin can exceed a subdomain, and ranks beyond
    /// the neighbours within it are not listed.) The copy sent there is the box moved by [`shift_of`]`(code, period)`. A target
    /// may be `rank` itself (a periodic image, when the rank spans a periodic axis alone) and a
    /// rank may appear twice with different shifts (two ranks across a periodic axis).
    ///
    /// ```
    /// use geometry_core::DVec3;
    /// use hhgrid_mpi::{Decomposition, Domain, shift_of};
    /// let domain = Domain::new(DVec3::ZERO, DVec3::new(20.0, 10.0, 10.0), [true, false, false]).unwrap();
    /// let d = Decomposition::new(domain, 2, [0, 0, 0], 2.0).unwrap();
    /// let mut out = Vec::new();
    /// // Near x = 0 on rank 0: goes to rank 1 at the far end of the period, moved by +20.
    /// d.ghost_targets(0, DVec3::new(0.5, 5.0, 5.0), 1.0, &mut out);
    /// assert_eq!(out.len(), 1);
    /// assert_eq!(out[0].0, 1);
    /// assert_eq!(shift_of(out[0].1, d.domain().extent()), DVec3::new(20.0, 0.0, 0.0));
    /// // Near y = 0: a bounded wall, nothing to send.
    /// d.ghost_targets(0, DVec3::new(5.0, 0.5, 5.0), 1.0, &mut out);
    /// assert!(out.is_empty());
    /// ```
    pub fn ghost_targets(&self, rank: usize, centre: DVec3, size: f64, out: &mut Vec<(usize, u8)>) {
        out.clear();
        let c = self.coords(rank);
        let (lo, hi) = self.bounds(c);
        let reach = self.reach(size);
        let mut choices = [[0i64, 0, 0]; 3];
        let mut counts = [1usize; 3];
        for axis in 0..3 {
            if centre[axis] - reach < lo[axis] {
                choices[axis][counts[axis]] = -1;
                counts[axis] += 1;
            }
            if centre[axis] + reach > hi[axis] {
                choices[axis][counts[axis]] = 1;
                counts[axis] += 1;
            }
        }
        for i in 0..counts[0] {
            for j in 0..counts[1] {
                for k in 0..counts[2] {
                    let offset = [choices[0][i], choices[1][j], choices[2][k]];
                    if offset == [0; 3] {
                        continue;
                    }
                    if let Some((r, wraps)) = self.neighbour(c, offset) {
                        out.push((r, code_of(wraps)));
                    }
                }
            }
        }
    }
}

fn offset_of(code: u8) -> [i64; 3] {
    [i64::from(code % 3) - 1, i64::from(code / 3 % 3) - 1, i64::from(code / 9) - 1]
}

fn code_of(wraps: [i64; 3]) -> u8 {
    ((wraps[0] + 1) + 3 * (wraps[1] + 1) + 9 * (wraps[2] + 1)) as u8
}

/// The shift code of an unshifted copy.
///
/// ```
/// use geometry_core::DVec3;
/// assert_eq!(hhgrid_mpi::shift_of(hhgrid_mpi::NO_SHIFT, DVec3::ONE), DVec3::ZERO);
/// ```
pub const NO_SHIFT: u8 = 13;

/// The translation of periodic shift `code` (`0..27`, [`NO_SHIFT`] = none): per axis −1, 0 or
/// +1 period.
///
/// ```
/// use geometry_core::DVec3;
/// use hhgrid_mpi::{NO_SHIFT, shift_of};
/// assert_eq!(shift_of(NO_SHIFT, DVec3::splat(5.0)), DVec3::ZERO);
/// assert_eq!(shift_of(0, DVec3::splat(5.0)), DVec3::splat(-5.0));
/// ```
pub fn shift_of(code: u8, period: DVec3) -> DVec3 {
    let o = offset_of(code);
    DVec3::new(o[0] as f64 * period.x, o[1] as f64 * period.y, o[2] as f64 * period.z)
}

/// The pair-ownership rule: of two overlapping objects, the one with the smaller key
/// `(size, id)` (size = longest box edge, ties broken by the global id) is the pair's *first*
/// object, and only its owner reports the pair. Returns whether `a` is first.
///
/// Every overlapping pair is complete on that rank (see the module's reach rule), and every
/// other rank holds the first object only as a ghost, so each pair is reported exactly once.
///
/// ```
/// use hhgrid_mpi::pair_reporter_is_first;
/// assert!(pair_reporter_is_first((1.0, 7), (2.0, 3)));
/// assert!(pair_reporter_is_first((1.0, 3), (1.0, 7)));
/// assert!(!pair_reporter_is_first((1.0, 7), (1.0, 3)));
/// ```
pub fn pair_reporter_is_first(a: (f64, u64), b: (f64, u64)) -> bool {
    a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).is_lt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn dims_create_is_the_most_balanced_factorisation() {
        for n in 1..=600usize {
            let d = dims_create(n, [0, 0, 0]).unwrap();
            assert_eq!(d.iter().product::<usize>(), n);
            assert!(d[0] >= d[1] && d[1] >= d[2], "{n}: {d:?}");
            // Brute force: no factorisation has a smaller (largest, second) pair.
            for a in 1..=n {
                for b in 1..=a {
                    if n.is_multiple_of(a * b) && n / (a * b) <= b {
                        assert!([a, b, n / (a * b)] >= d, "{n}: {d:?} vs {a} {b}");
                    }
                }
            }
        }
        assert_eq!(dims_create(64, [0, 0, 0]).unwrap(), [4, 4, 4]);
        assert_eq!(dims_create(6, [0, 0, 0]).unwrap(), [3, 2, 1]);
        assert_eq!(dims_create(24, [0, 0, 0]).unwrap(), [4, 3, 2]);
        assert_eq!(dims_create(16, [0, 4, 0]).unwrap(), [2, 4, 2]);
        assert_eq!(dims_create(16, [0, 0, 4]).unwrap(), [2, 2, 4]);
        assert_eq!(dims_create(8, [2, 2, 2]).unwrap(), [2, 2, 2]);
        assert!(matches!(dims_create(0, [0; 3]), Err(DistError::DimsMismatch { .. })));
        assert!(matches!(dims_create(9, [2, 0, 0]), Err(DistError::DimsMismatch { .. })));
    }

    /// Fixed entries whose product overflows: a mismatch, not an overflow panic (debug) or a
    /// wrapped product that "divides" the rank count (release).
    #[test]
    fn dims_create_refuses_overflowing_fixed_entries() {
        for fixed in [[usize::MAX, usize::MAX, 0], [1 << 62, 4, 0], [1 << 32, 1 << 32, 1]] {
            for ranks in [1, 4, 64] {
                assert!(
                    matches!(dims_create(ranks, fixed), Err(DistError::DimsMismatch { .. })),
                    "{ranks} ranks, fixed {fixed:?}"
                );
            }
        }
        // Large rank counts, whose divisors cubed overflow (4M ranks: 2^22 cubed), factorise.
        assert_eq!(dims_create(1 << 22, [0, 0, 0]).unwrap(), [256, 128, 128]);
        assert_eq!(dims_create(1 << 30, [0, 0, 0]).unwrap(), [1024, 1024, 1024]);
        assert_eq!(dims_create(3 << 30, [0, 0, 1]).unwrap(), [65536, 49152, 1]);
    }

    /// A point lies in the subdomain of its owner, compared with the bounds `subdomain`
    /// reports, also where the rounded cut and the rounded estimate of the owner disagree
    /// (found: on [0, 5) split in 3, `owner(1.6666666666666665)` was rank 1 while rank 0's
    /// subdomain ends at 1.6666666666666667).
    #[test]
    fn owner_agrees_with_subdomain_at_every_cut() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut checked = 0;
        for case in 0..400 {
            let ranks = 2 + case % 7;
            let min = DVec3::new(rng.random_range(-10.0..10.0), -0.1, 0.0);
            let length = rng.random_range(ranks as f64..20.0 * ranks as f64);
            let domain =
                Domain::new(min, min + DVec3::new(length, 0.9, 0.9), [case % 2 == 0, false, false]).unwrap();
            let d = Decomposition::new(domain, ranks, [ranks, 1, 1], 0.5).unwrap();
            for rank in 0..ranks {
                let b = d.subdomain(rank);
                // The lower cut, its neighbours within a few ulps, and just below the upper cut.
                let mut xs = vec![b.min.x, b.max.x.next_down(), b.max.x.next_down().next_down()];
                let mut x = b.min.x;
                for _ in 0..3 {
                    x = x.next_up();
                    xs.push(x);
                }
                for x in xs.into_iter().filter(|&x| x >= b.min.x && x < b.max.x) {
                    assert_eq!(d.owner(DVec3::new(x, 0.4, 0.4)), Some(rank), "case {case}: x = {x:e}, {b:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 2000);
        // The upper wall of a bounded axis belongs to the last subdomain.
        let domain = Domain::new(DVec3::ZERO, DVec3::new(5.0, 1.0, 1.0), [false; 3]).unwrap();
        let d = Decomposition::new(domain, 3, [3, 1, 1], 0.5).unwrap();
        assert_eq!(d.owner(DVec3::new(5.0, 0.5, 0.5)), Some(2));
        assert_eq!(d.owner(DVec3::new(1.666_666_666_666_666_5, 0.5, 0.5)), Some(0));
    }

    fn random_decomposition(rng: &mut ChaCha8Rng) -> Decomposition {
        let periodic = [rng.random_bool(0.5), rng.random_bool(0.5), rng.random_bool(0.5)];
        let min = DVec3::new(rng.random_range(-50.0..50.0), rng.random_range(-50.0..50.0), 3.0);
        let ext = DVec3::new(rng.random_range(20.0..60.0), rng.random_range(20.0..60.0), 30.0);
        let domain = Domain::new(min, min + ext, periodic).unwrap();
        let ranks = rng.random_range(1..=27usize);
        // The dims as assigned to the axes, then the largest object the subdomains allow.
        let dims = Decomposition::new(domain, ranks, [0; 3], 1e-3).unwrap().dims();
        let limit = (0..3).map(|k| ext[k] / dims[k].max(2) as f64).fold(f64::INFINITY, f64::min);
        Decomposition::new(domain, ranks, [0; 3], 0.999 * limit.min(ext.min_element() / 2.01)).unwrap()
    }

    #[test]
    fn subdomains_tile_the_box_and_owners_agree_with_them() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for _ in 0..200 {
            let d = random_decomposition(&mut rng);
            let volume: f64 = (0..d.ranks()).map(|r| d.subdomain(r).volume()).sum();
            let total = d.domain().extent();
            assert!((volume / (total.x * total.y * total.z) - 1.0).abs() < 1e-12);
            for r in 0..d.ranks() {
                assert_eq!(d.rank_at(d.coords(r)), r);
                let s = d.subdomain(r);
                for _ in 0..20 {
                    let p = s.min + (s.max - s.min) * DVec3::new(rng.random(), rng.random(), rng.random());
                    let shifted = p + d.wrap_shift(p);
                    assert_eq!(d.owner(shifted), Some(r));
                    // Far periodic images wrap back to the same owner.
                    let k = DVec3::new(
                        f64::from(rng.random_range(-3..=3i32)),
                        f64::from(rng.random_range(-3..=3i32)),
                        0.0,
                    );
                    let image = p + k
                        * total
                        * DVec3::new(
                            f64::from(u8::from(d.domain().periodic[0])),
                            f64::from(u8::from(d.domain().periodic[1])),
                            0.0,
                        );
                    let back = image + d.wrap_shift(image);
                    assert!((back - p).abs().max_element() < 1e-9 * total.max_element());
                }
            }
        }
    }

    #[test]
    fn neighbour_relation_is_symmetric() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        for _ in 0..100 {
            let d = random_decomposition(&mut rng);
            for a in 0..d.ranks() {
                for &b in &d.neighbours(a) {
                    assert!(d.neighbours(b).contains(&a), "{:?}: {a} {b}", d.dims());
                }
            }
        }
    }

    /// Periodic minimum-image overlap of two boxes given by centre and half extents.
    fn overlap(d: &Decomposition, c: [DVec3; 2], h: [DVec3; 2]) -> Option<DVec3> {
        let ext = d.domain().extent();
        let mut shift = DVec3::ZERO;
        for axis in 0..3 {
            let mut delta = c[1][axis] - c[0][axis];
            if d.domain().periodic[axis] {
                let k = (delta / ext[axis]).round();
                delta -= k * ext[axis];
                shift[axis] = -k * ext[axis];
            }
            if delta.abs() > h[0][axis] + h[1][axis] {
                return None;
            }
        }
        Some(shift)
    }

    #[test]
    fn every_overlapping_pair_is_complete_on_the_first_objects_owner() {
        // The reach rule's guarantee, checked directly: for random overlapping pairs, a ghost of
        // the larger object reaches the owner of the smaller one with the right shift.
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut checked = 0;
        let mut targets = Vec::new();
        while checked < 20_000 {
            let d = random_decomposition(&mut rng);
            let ext = d.domain().extent();
            let s_max = d.max_object_size();
            for _ in 0..200 {
                let h: [DVec3; 2] = std::array::from_fn(|_| {
                    DVec3::new(rng.random(), rng.random(), rng.random()) * 0.5 * s_max
                });
                let c0 = d.domain().min + ext * DVec3::new(rng.random(), rng.random(), rng.random());
                let c1 = c0
                    + (h[0] + h[1])
                        * DVec3::new(
                            rng.random_range(-1.0..1.0),
                            rng.random_range(-1.0..1.0),
                            rng.random_range(-1.0..1.0),
                        );
                let c = [c0 + d.wrap_shift(c0), c1 + d.wrap_shift(c1)];
                let (Some(o0), Some(o1)) = (d.owner(c[0]), d.owner(c[1])) else { continue };
                let Some(shift) = overlap(&d, c, h) else { continue };
                let (small, large) = if h[0].max_element() <= h[1].max_element() { (0, 1) } else { (1, 0) };
                let (owner_small, owner_large) = if small == 0 { (o0, o1) } else { (o1, o0) };
                // The image of `large` seen from `small`: c[large] + shift (shift is for 1 rel. 0).
                let image_shift = if small == 0 { shift } else { -shift };
                let size_large = 2.0 * h[large].max_element();
                d.ghost_targets(owner_large, c[large], size_large, &mut targets);
                let found = (owner_large == owner_small && image_shift == DVec3::ZERO)
                    || targets.iter().any(|&(r, code)| {
                        r == owner_small && (shift_of(code, ext) - image_shift).abs().max_element() < 1e-9
                    });
                assert!(found, "{:?} {c:?} {h:?}", d.dims());
                checked += 1;
            }
        }
    }

    #[test]
    fn thin_subdomains_and_short_periods_are_refused() {
        let domain = Domain::new(DVec3::ZERO, DVec3::new(12.0, 12.0, 12.0), [false; 3]).unwrap();
        assert!(matches!(
            Decomposition::new(domain, 3, [0; 3], 4.5),
            Err(DistError::SubdomainTooThin { axis: 0, .. })
        ));
        assert!(Decomposition::new(domain, 3, [0; 3], 4.0).is_ok());
        let periodic = Domain { periodic: [false, true, false], ..domain };
        assert!(matches!(
            Decomposition::new(periodic, 1, [0; 3], 6.0),
            Err(DistError::PeriodTooShort { axis: 1, .. })
        ));
        assert!(matches!(
            Decomposition::new(domain, 4, [3, 0, 0], 1.0),
            Err(DistError::DimsMismatch { dims: [3, 0, 0], ranks: 4 })
        ));
        assert!(matches!(Decomposition::new(domain, 1, [0; 3], f64::NAN), Err(DistError::InvalidConfig(_))));
    }
}
