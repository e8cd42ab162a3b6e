//! The octahedral unit-sphere approximation of Muth et al. (2006), §3.1.

use super::GeneratorError;
use crate::{DVec3, TriMesh};
use hashbrown::HashMap;

/// The largest supported refinement level: `8 · 4^11 ≈ 33.5` million triangles.
///
/// ```
/// use geometry_core::generators::{MAX_OCTA_SPHERE_LEVEL, octa_sphere};
/// // 8 · 4^11 = 2^3 · 2^22 = 2^25 triangles.
/// assert_eq!(8 * 4usize.pow(MAX_OCTA_SPHERE_LEVEL as u32), 1 << 25);
/// assert!(octa_sphere(MAX_OCTA_SPHERE_LEVEL + 1).is_err());
/// ```
pub const MAX_OCTA_SPHERE_LEVEL: usize = 11;

/// The unit-sphere approximation used by Muth et al.: the 8 faces of the octahedron with
/// vertices `±x, ±y, ±z`, refined `level` times by splitting every triangle into four at its edge
/// midpoints and projecting the new vertices onto the unit sphere.
///
/// The result has `8 · 4^level` faces, `4^(level+1) + 2` vertices, is closed, outward-oriented,
/// and has Euler characteristic 2. Level 7 is the paper's finest mesh with 131072 triangles.
///
/// # Errors
/// [`GeneratorError::OutOfRange`] for `level > MAX_OCTA_SPHERE_LEVEL`.
///
/// ```
/// use geometry_core::generators::octa_sphere;
/// let s = octa_sphere(7).unwrap();
/// assert_eq!(s.faces().len(), 131_072);
/// assert_eq!(s.vertices().len(), 4usize.pow(8) + 2);
/// assert!(s.vertices().iter().all(|v| (v.length() - 1.0).abs() < 1e-15));
/// ```
pub fn octa_sphere(level: usize) -> Result<TriMesh, GeneratorError> {
    if level > MAX_OCTA_SPHERE_LEVEL {
        return Err(GeneratorError::OutOfRange {
            what: "octa_sphere level",
            value: level,
            min: 0,
            max: MAX_OCTA_SPHERE_LEVEL,
        });
    }
    let mut vertices = vec![DVec3::X, -DVec3::X, DVec3::Y, -DVec3::Y, DVec3::Z, -DVec3::Z];
    // Outward (counter-clockwise seen from outside) faces of the octahedron, one per octant.
    let mut faces: Vec<[u32; 3]> =
        vec![[0, 2, 4], [2, 1, 4], [1, 3, 4], [3, 0, 4], [2, 0, 5], [1, 2, 5], [3, 1, 5], [0, 3, 5]];
    for _ in 0..level {
        let mut midpoint_of: HashMap<(u32, u32), u32> = HashMap::with_capacity(faces.len() * 3 / 2);
        let mut midpoint = |i: u32, j: u32, vertices: &mut Vec<DVec3>| -> u32 {
            *midpoint_of.entry((i.min(j), i.max(j))).or_insert_with(|| {
                let m = ((vertices[i as usize] + vertices[j as usize]) * 0.5).normalize();
                vertices.push(m);
                (vertices.len() - 1) as u32
            })
        };
        let mut refined = Vec::with_capacity(faces.len() * 4);
        for &[a, b, c] in &faces {
            let ab = midpoint(a, b, &mut vertices);
            let bc = midpoint(b, c, &mut vertices);
            let ca = midpoint(c, a, &mut vertices);
            refined.extend_from_slice(&[[a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca]]);
        }
        faces = refined;
    }
    Ok(TriMesh::new(vertices, faces)?)
}
