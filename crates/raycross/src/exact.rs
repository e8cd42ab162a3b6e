//! Exact per-triangle tests shared by both modes.

use geometry_core::predicates::{orient2d, orient3d};
use geometry_core::{DVec2, DVec3, Sign};

/// Projection onto the coordinate plane that drops `axis` (0 = x, 1 = y, 2 = z), keeping the
/// cyclic order of the other two axes so that orientations keep their meaning.
#[inline]
pub(crate) fn drop_axis(p: DVec3, axis: usize) -> DVec2 {
    match axis {
        0 => DVec2::new(p.y, p.z),
        1 => DVec2::new(p.z, p.x),
        _ => DVec2::new(p.x, p.y),
    }
}

/// Whether `p` lies on the closed triangle `abc` (exactly): coplanar, and inside or on the
/// boundary of the triangle in a coordinate projection where the triangle is not degenerate.
pub(crate) fn on_triangle(a: DVec3, b: DVec3, c: DVec3, p: DVec3) -> bool {
    if orient3d(a, b, c, p) != Sign::Zero {
        return false;
    }
    for axis in 0..3 {
        let (a2, b2, c2, p2) =
            (drop_axis(a, axis), drop_axis(b, axis), drop_axis(c, axis), drop_axis(p, axis));
        let area = orient2d(a2, b2, c2);
        if area != Sign::Zero {
            let against = area.flip();
            return orient2d(a2, b2, p2) != against
                && orient2d(b2, c2, p2) != against
                && orient2d(c2, a2, p2) != against;
        }
    }
    false // unreachable for a non-degenerate triangle
}
