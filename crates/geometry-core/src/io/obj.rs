//! Wavefront OBJ: `v` and `f` statements.
//!
//! The reader is our own rather than `tobj`'s, for three reasons: `tobj` reports errors as a bare
//! enum without the line number; without its `use_f64` feature it parses coordinates as `f32`;
//! and it splits the file into models with their own index spaces and quietly turns some
//! malformed faces into points or lines. The subset we need (`v`, `f` with `v/vt/vn` and relative
//! indices, a list of statements to skip) is a few dozen lines.

use std::io::Write;

use super::MeshIoError;
use super::support::{MeshBuilder, index_u32, lines, parse_f64, strip_comment};
use crate::{DVec3, TriMesh};

/// Statements of the OBJ specification (and common extensions) that carry no triangle geometry
/// and are skipped: texture coordinates, normals, free-form geometry, points and lines, grouping,
/// display and material attributes.
const SKIPPED: &[&str] = &[
    "vt",
    "vn",
    "vp",
    "p",
    "l",
    "g",
    "o",
    "s",
    "mg",
    "usemtl",
    "mtllib",
    "maplib",
    "usemap",
    "cstype",
    "deg",
    "bmat",
    "step",
    "curv",
    "curv2",
    "surf",
    "parm",
    "trim",
    "hole",
    "scrv",
    "sp",
    "end",
    "con",
    "bevel",
    "c_interp",
    "d_interp",
    "lod",
    "shadow_obj",
    "trace_obj",
    "ctech",
    "stech",
    "call",
    "csh",
];

/// Reads `v` and `f` statements; see the module documentation of [`crate::io`].
pub(super) fn read(data: &[u8], path: &str) -> Result<TriMesh, MeshIoError> {
    let mut builder = MeshBuilder::with_capacity(0, 0);
    let mut corners: Vec<u32> = Vec::new();
    for (line_no, line) in lines(data) {
        let mut tokens = strip_comment(&line).split_whitespace();
        let Some(keyword) = tokens.next() else { continue };
        match keyword {
            "v" => {
                let mut xyz = [0.0; 3];
                let mut count = 0;
                for token in tokens {
                    // x y z, optionally followed by w or by an r g b colour (a common extension).
                    let value = parse_f64(token, path, line_no, "vertex coordinate")?;
                    if count < 3 {
                        xyz[count] = value;
                    }
                    count += 1;
                }
                if !matches!(count, 3 | 4 | 6) {
                    return Err(MeshIoError::parse(
                        path,
                        Some(line_no),
                        format!("vertex has {count} values, expected x y z [w] or x y z r g b"),
                    ));
                }
                builder.push_vertex(DVec3::from_array(xyz), Some(line_no));
            }
            "f" | "fo" => {
                corners.clear();
                for token in tokens {
                    corners.push(parse_corner(token, builder.vertex_count(), path, line_no)?);
                }
                builder.push_polygon(&corners, path, Some(line_no))?;
            }
            _ if SKIPPED.contains(&keyword) => {}
            _ => {
                return Err(MeshIoError::parse(
                    path,
                    Some(line_no),
                    format!("unknown OBJ statement '{keyword}'"),
                ));
            }
        }
    }
    builder.finish(path)
}

/// Parses one face corner `v`, `v/vt`, `v/vt/vn` or `v//vn` into a 0-based vertex index.
/// Negative indices count back from the last vertex defined so far.
fn parse_corner(token: &str, vertex_count: usize, path: &str, line: usize) -> Result<u32, MeshIoError> {
    let bad =
        |why: &str| MeshIoError::parse(path, Some(line), format!("invalid face corner '{token}': {why}"));
    let mut parts = token.split('/');
    let vertex = parts.next().unwrap_or_default();
    let index: i64 = vertex.parse().map_err(|_| bad("vertex index is not an integer"))?;
    let mut extra = 0;
    for part in parts {
        extra += 1;
        if extra > 2 {
            return Err(bad("more than three '/'-separated indices"));
        }
        if !part.is_empty() && part.parse::<i64>().is_err() {
            return Err(bad("texture or normal index is not an integer"));
        }
    }
    let resolved = match index {
        0 => return Err(bad("OBJ indices start at 1")),
        i if i > 0 => i - 1,
        i => {
            // i64 arithmetic cannot overflow: vertex_count is a Vec length.
            let r = vertex_count as i64 + i;
            if r < 0 {
                return Err(bad(&format!("relative index {i} points before the first vertex")));
            }
            r
        }
    };
    index_u32(resolved, path, Some(line))
}

/// Writes `v` lines with shortest round-trip `f64` formatting, then 1-based `f` lines.
pub(super) fn write<W: Write>(w: &mut W, mesh: &TriMesh) -> std::io::Result<()> {
    writeln!(
        w,
        "# geometry-core mesh: {} vertices, {} triangles",
        mesh.vertices().len(),
        mesh.faces().len()
    )?;
    for v in mesh.vertices() {
        writeln!(w, "v {:?} {:?} {:?}", v.x, v.y, v.z)?;
    }
    for [a, b, c] in mesh.faces() {
        writeln!(w, "f {} {} {}", u64::from(*a) + 1, u64::from(*b) + 1, u64::from(*c) + 1)?;
    }
    Ok(())
}
