//! From potentials to inside / outside / on the boundary.

use contact_core::Containment;

/// `J` within this of 1 (or 0) classifies as inside (or outside). The exact evaluator's rounding
/// is about `N · 10⁻¹⁶` for `N` faces; anything clearly between is a surface point, where `J`
/// is the interior solid-angle fraction (½ on a face, the dihedral fraction on an edge).
///
/// ```
/// use contact_core::Containment;
/// use fmm_dlp::{INDICATOR_TOLERANCE as tol, containment_of};
/// assert_eq!(containment_of(1.0 - tol / 2.0), Containment::Inside);
/// assert_eq!(containment_of(tol / 2.0), Containment::Outside);
/// // Clearly between the two bands: a surface point.
/// assert_eq!(containment_of(1.0 - 2.0 * tol), Containment::OnBoundary);
/// assert_eq!(containment_of(2.0 * tol), Containment::OnBoundary);
/// ```
pub const INDICATOR_TOLERANCE: f64 = 1e-6;

/// The containment that an exact potential `j` means. (The evaluators go one step further:
/// a `j` between the bands is confirmed by an exact on-triangle test, and a point on no triangle
/// is classified by exact ray-crossing parity, since floating point leaves points within
/// rounding of an edge or of a sliver's plane off 0 or 1, by up to O(1).)
///
/// Off the surface `J` is the winding number. Meshes that [`geometry_core::TriMesh::require_solid`]
/// accepts can have others than 0 and 1 (2 inside nested outward shells, −1 inside an inward
/// shell standing alone): here they, and NaN or infinite `j`, come out `OnBoundary` (undecided),
/// and the evaluators decide such points by exact parity, as `raycross` does (inside for −1,
/// outside for 2).
///
/// ```
/// use contact_core::Containment;
/// use fmm_dlp::containment_of;
/// assert_eq!(containment_of(1.0 - 1e-12), Containment::Inside);
/// assert_eq!(containment_of(0.5), Containment::OnBoundary);
/// assert_eq!(containment_of(-1e-13), Containment::Outside);
/// ```
pub fn containment_of(j: f64) -> Containment {
    if (j - 1.0).abs() <= INDICATOR_TOLERANCE {
        Containment::Inside
    } else if j.abs() <= INDICATOR_TOLERANCE {
        Containment::Outside
    } else {
        Containment::OnBoundary
    }
}
