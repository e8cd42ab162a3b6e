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
    let mut attributes = Attributes::default();
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
                    corners.push(parse_corner(
                        token,
                        builder.vertex_count(),
                        &mut attributes,
                        path,
                        line_no,
                    )?);
                }
                builder.push_polygon(&corners, path, Some(line_no))?;
            }
            "vt" => attributes.textures += 1,
            "vn" => attributes.normals += 1,
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
    attributes.check_final(path)?;
    builder.finish(path)
}

/// How many `vt` and `vn` statements came so far, and the largest positive texture and normal
/// indices referenced (with their lines), checked against the final counts at the end: a face
/// may refer forward, as for vertices.
#[derive(Default)]
struct Attributes {
    textures: usize,
    normals: usize,
    largest_texture: Option<(i64, usize)>,
    largest_normal: Option<(i64, usize)>,
}

impl Attributes {
    /// Refuses a texture or normal index past the last `vt` or `vn` statement of the file.
    fn check_final(&self, path: &str) -> Result<(), MeshIoError> {
        for (largest, count, what) in
            [(self.largest_texture, self.textures, "texture"), (self.largest_normal, self.normals, "normal")]
        {
            if let Some((index, line)) = largest
                && index > count as i64
            {
                return Err(MeshIoError::parse(
                    path,
                    Some(line),
                    format!("{what} index {index} is beyond the file's {count} {what} statements"),
                ));
            }
        }
        Ok(())
    }
}

/// Parses one face corner `v`, `v/vt`, `v/vt/vn` or `v//vn` into a 0-based vertex index.
/// Negative indices count back from the last vertex (texture coordinate, normal) defined so
/// far; texture and normal indices are checked like vertex indices and then ignored.
fn parse_corner(
    token: &str,
    vertex_count: usize,
    attributes: &mut Attributes,
    path: &str,
    line: usize,
) -> Result<u32, MeshIoError> {
    let bad =
        |why: &str| MeshIoError::parse(path, Some(line), format!("invalid face corner '{token}': {why}"));
    let parts: Vec<&str> = token.split('/').collect();
    // The four forms: v, v/vt, v/vt/vn, v//vn (an empty part only as the texture of three).
    match parts.as_slice() {
        [_] | [_, _] | [_, _, _] => {}
        _ => return Err(bad("more than three '/'-separated indices")),
    }
    if parts.iter().enumerate().any(|(k, part)| part.is_empty() && !(k == 1 && parts.len() == 3)) {
        return Err(bad("an empty index (the forms are v, v/vt, v/vt/vn and v//vn)"));
    }
    let integer = |part: &str, what: &str| -> Result<i64, MeshIoError> {
        // An integer too long for i64 is out of range, not malformed.
        if part.strip_prefix('-').unwrap_or(part).bytes().all(|b| b.is_ascii_digit()) && part.len() > 1 {
            part.parse().map_err(|_| bad(&format!("{what} index is out of range")))
        } else {
            part.parse().map_err(|_| bad(&format!("{what} index is not an integer")))
        }
    };
    // A 1-based or relative index into `count` items defined so far: 0-based, or an error.
    let resolve = |index: i64, count: usize, what: &str| -> Result<i64, MeshIoError> {
        match index {
            0 => Err(bad("OBJ indices start at 1")),
            i if i > 0 => Ok(i - 1),
            i => {
                // i64 arithmetic cannot overflow: count is a number of lines read.
                let r = count as i64 + i;
                if r < 0 {
                    Err(bad(&format!("relative {what} index {i} points before the first {what}")))
                } else {
                    Ok(r)
                }
            }
        }
    };
    let vertex = resolve(integer(parts[0], "vertex")?, vertex_count, "vertex")?;
    for (k, what) in [(1, "texture"), (2, "normal")] {
        let Some(part) = parts.get(k).filter(|part| !part.is_empty()) else { continue };
        let index = integer(part, what)?;
        let (count, largest) = if k == 1 {
            (attributes.textures, &mut attributes.largest_texture)
        } else {
            (attributes.normals, &mut attributes.largest_normal)
        };
        resolve(index, count, what)?;
        if index > largest.map_or(0, |(i, _)| i) {
            *largest = Some((index, line));
        }
    }
    index_u32(vertex, path, Some(line))
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
