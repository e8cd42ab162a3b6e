//! Helpers shared by the format modules: line splitting for the text readers, and a mesh builder
//! that fan-triangulates polygons and maps [`MeshError`]s back to file lines.

use std::borrow::Cow;

use super::MeshIoError;
use crate::{DVec3, MeshError, TriMesh};

/// The lines of `data` with their 1-based numbers.
///
/// Lines end at `\n`; a trailing `\r` is removed, and so is a UTF-8 byte-order mark at the start.
/// Bytes that are not valid UTF-8 become U+FFFD, which then fails to parse as a number or keyword
/// (and is harmless inside comments).
pub(super) fn lines(data: &[u8]) -> impl Iterator<Item = (usize, Cow<'_, str>)> {
    let data = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    // `split` yields one empty piece after a final '\n'; it is harmless (blank line).
    data.split(|&b| b == b'\n').enumerate().map(|(i, line)| {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        (i + 1, String::from_utf8_lossy(line))
    })
}

/// Removes a `#` comment from a line.
pub(super) fn strip_comment(line: &str) -> &str {
    line.split_once('#').map_or(line, |(content, _)| content)
}

/// The [`lines`] of `data` without `#` comments and surrounding whitespace, skipping blank lines.
pub(super) fn significant_lines(data: &[u8]) -> impl Iterator<Item = (usize, Cow<'_, str>)> {
    lines(data).filter_map(|(n, line)| {
        let content = match line {
            Cow::Borrowed(s) => Cow::Borrowed(strip_comment(s).trim()),
            Cow::Owned(s) => Cow::Owned(strip_comment(&s).trim().to_owned()),
        };
        (!content.is_empty()).then_some((n, content))
    })
}

/// Parses a coordinate. Rust's parser accepts every form Rust's `{}`/`{:?}` formatting produces
/// (it round-trips `f64` exactly), plus `inf`/`nan`, which [`TriMesh::new`] then refuses with a
/// located error.
pub(super) fn parse_f64(token: &str, path: &str, line: usize, what: &str) -> Result<f64, MeshIoError> {
    token
        .parse::<f64>()
        .map_err(|_| MeshIoError::parse(path, Some(line), format!("invalid number '{token}' for {what}")))
}

/// Collects an indexed polygon soup into a [`TriMesh`], remembering where each vertex and
/// triangle came from.
pub(super) struct MeshBuilder {
    vertices: Vec<DVec3>,
    faces: Vec<[u32; 3]>,
    /// Line of each vertex (empty when the source has no lines).
    vertex_lines: Vec<usize>,
    /// Line of each triangle (empty when the source has no lines).
    face_lines: Vec<usize>,
    /// Number of polygons pushed (faces of the file, before triangulation).
    polygons: usize,
}

impl MeshBuilder {
    /// An empty builder with room for `vertices` vertices and `triangles` triangles. Callers
    /// must bound these by the input size, never take them from a header unchecked.
    pub(super) fn with_capacity(vertices: usize, triangles: usize) -> Self {
        Self {
            vertices: Vec::with_capacity(vertices),
            faces: Vec::with_capacity(triangles),
            vertex_lines: Vec::new(),
            face_lines: Vec::new(),
            polygons: 0,
        }
    }

    /// Number of vertices pushed so far.
    pub(super) fn vertex_count(&self) -> usize {
        self.vertices.len()
    }

    /// Adds a vertex read from `line` (`None` for binary sources).
    pub(super) fn push_vertex(&mut self, v: DVec3, line: Option<usize>) {
        self.vertices.push(v);
        if let Some(line) = line {
            self.vertex_lines.push(line);
        }
    }

    /// Adds a polygon, fan-triangulated around its first corner: `[a, b, c, d]` becomes
    /// `[a, b, c]`, `[a, c, d]`.
    ///
    /// # Errors
    /// [`MeshIoError::UnsupportedPolygon`] if it has fewer than three corners.
    pub(super) fn push_polygon(
        &mut self,
        corners: &[u32],
        path: &str,
        line: Option<usize>,
    ) -> Result<(), MeshIoError> {
        if corners.len() < 3 {
            return Err(MeshIoError::UnsupportedPolygon {
                path: path.to_owned(),
                line,
                face: self.polygons,
                vertices: corners.len(),
            });
        }
        self.polygons += 1;
        for pair in corners[1..].windows(2) {
            self.faces.push([corners[0], pair[0], pair[1]]);
            if let Some(line) = line {
                self.face_lines.push(line);
            }
        }
        Ok(())
    }

    /// Validates the mesh with [`TriMesh::new`].
    ///
    /// # Errors
    /// [`MeshIoError::Mesh`], with the line of the offending vertex or face if known.
    pub(super) fn finish(self, path: &str) -> Result<TriMesh, MeshIoError> {
        let Self { vertices, faces, vertex_lines, face_lines, .. } = self;
        TriMesh::new(vertices, faces).map_err(|source| {
            let line = match source {
                MeshError::NonFiniteVertex { vertex } | MeshError::CoordinateOutOfRange { vertex, .. } => {
                    vertex_lines.get(vertex).copied()
                }
                MeshError::IndexOutOfRange { face, .. } | MeshError::DegenerateFace { face } => {
                    face_lines.get(face).copied()
                }
                _ => None,
            };
            MeshIoError::Mesh { path: path.to_owned(), line, source }
        })
    }
}

/// Converts a vertex index read from a file (already 0-based) to `u32`.
pub(super) fn index_u32(index: i64, path: &str, line: Option<usize>) -> Result<u32, MeshIoError> {
    u32::try_from(index).map_err(|_| {
        MeshIoError::parse(
            path,
            line,
            format!("vertex index {index} is outside the supported range 0..={}", u32::MAX),
        )
    })
}
