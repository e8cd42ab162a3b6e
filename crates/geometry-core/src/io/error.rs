//! The error type of mesh file I/O.

use std::fmt;

use thiserror::Error;

use super::MeshFormat;
use crate::MeshError;

/// Reading or writing a mesh file failed.
///
/// Every variant names the file (`path`: the file path for [`read_mesh`](super::read_mesh) and
/// [`write_mesh`](super::write_mesh), the `source_name` given to
/// [`read_mesh_from`](super::read_mesh_from), or `"<writer>"` for
/// [`write_mesh_to`](super::write_mesh_to)). Variants that concern one place in a text file carry
/// its 1-based line number; it is `None` for binary data (binary STL, binary PLY payload) and for
/// problems that concern the file as a whole.
///
/// The [`Display`](fmt::Display) form reads `path:line: message`, as compilers print it.
///
/// ```
/// use geometry_core::io::{read_mesh_from, MeshFormat, MeshIoError};
///
/// let obj = "v 0 0 0\nv 1 0 0\nv 0 1 zero\nf 1 2 3\n";
/// let err = read_mesh_from(obj.as_bytes(), MeshFormat::Obj, "tri.obj").unwrap_err();
/// assert!(matches!(err, MeshIoError::Parse { line: Some(3), .. }));
/// assert_eq!(err.path(), "tri.obj");
/// assert!(err.to_string().starts_with("tri.obj:3: "));
/// ```
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum MeshIoError {
    /// The operating system refused to open, read, create or write the file (missing file,
    /// permission denied, disk full, ...), or the reader or writer passed in returned an error.
    #[error("{path}: {source}")]
    Io {
        /// The file (or source name).
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The file does not follow its format: a malformed number, an unknown keyword, a wrong number
    /// of values on a line, an OBJ index of 0 or one outside the file's vertices (texture
    /// coordinates, normals), a malformed PLY header, a missing
    /// `x`/`y`/`z` or `vertex_indices` property, an STL facet without `outer loop`, data after the
    /// last element or face (OFF, PLY, binary STL), ...
    #[error("{path}{}: {message}", LineSuffix(*.line))]
    Parse {
        /// The file (or source name).
        path: String,
        /// 1-based line number, when the format is line-based and the line is known.
        line: Option<usize>,
        /// What was wrong.
        message: String,
    },
    /// The file ends before the data its header or structure announces: a binary STL shorter than
    /// its triangle count requires, a PLY or OFF file with fewer elements than its header declares
    /// (also when a huge count in a header cannot possibly fit in the file), or an ASCII STL that
    /// ends inside a `solid`.
    #[error("{path}: truncated file: {message}")]
    Truncated {
        /// The file (or source name).
        path: String,
        /// What was expected and what was found.
        message: String,
    },
    /// [`read_mesh`](super::read_mesh) was given a path whose extension is not one of `obj`,
    /// `stl`, `ply`, `off` (compared case-insensitively).
    #[error("{path}: unknown mesh format (expected extension .obj, .stl, .ply or .off)")]
    UnknownFormat {
        /// The path.
        path: String,
    },
    /// A face has fewer than three vertices, so it is not a polygon.
    ///
    /// Polygons with more than three vertices are not errors: they are fan-triangulated (see the
    /// [module documentation](super)).
    #[error("{path}{}: face {face} has {vertices} vertices, a polygon needs at least 3", LineSuffix(*.line))]
    UnsupportedPolygon {
        /// The file (or source name).
        path: String,
        /// 1-based line number of the face, where known.
        line: Option<usize>,
        /// 0-based index of the face among the faces of the file (before triangulation).
        face: usize,
        /// Number of vertices it has.
        vertices: usize,
    },
    /// The file was parsed, but [`TriMesh::new`](crate::TriMesh::new) refused the result: a NaN or
    /// infinite coordinate, a face index beyond the vertex count, a face with zero area (repeated
    /// or collinear corners), or no faces at all.
    ///
    /// Vertex and face numbers in `source` are those of the mesh being built: vertices in file
    /// order (for STL: in order of first appearance after welding), faces after triangulation.
    /// `line` is the line of the offending vertex or face in a text file.
    #[error("{path}{}: invalid mesh: {source}", LineSuffix(*.line))]
    Mesh {
        /// The file (or source name).
        path: String,
        /// 1-based line number of the offending vertex or face, where known.
        line: Option<usize>,
        /// Why the mesh was refused.
        source: MeshError,
    },
    /// The mesh cannot be stored in the requested format: a coordinate too large for the `f32`
    /// of binary STL, or more triangles or vertices than the format's counts can hold.
    #[error("{path}: mesh cannot be written as {format:?}: {message}")]
    Unrepresentable {
        /// The file (or `"<writer>"`).
        path: String,
        /// The requested format.
        format: MeshFormat,
        /// What does not fit.
        message: String,
    },
}

impl MeshIoError {
    /// The file path or source name the error concerns.
    ///
    /// ```
    /// use geometry_core::io::read_mesh;
    /// let err = read_mesh("/no/such/dir/mesh.off").unwrap_err();
    /// assert_eq!(err.path(), "/no/such/dir/mesh.off");
    /// ```
    pub fn path(&self) -> &str {
        match self {
            Self::Io { path, .. }
            | Self::Parse { path, .. }
            | Self::Truncated { path, .. }
            | Self::UnknownFormat { path }
            | Self::UnsupportedPolygon { path, .. }
            | Self::Mesh { path, .. }
            | Self::Unrepresentable { path, .. } => path,
        }
    }

    /// The 1-based line number the error concerns, if there is one.
    ///
    /// ```
    /// use geometry_core::io::{read_mesh_from, MeshFormat};
    /// let off = "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n2 0 1\n";
    /// let err = read_mesh_from(off.as_bytes(), MeshFormat::Off, "bad.off").unwrap_err();
    /// assert_eq!(err.line(), Some(6));
    /// ```
    pub fn line(&self) -> Option<usize> {
        match self {
            Self::Parse { line, .. } | Self::UnsupportedPolygon { line, .. } | Self::Mesh { line, .. } => {
                *line
            }
            Self::Io { .. }
            | Self::Truncated { .. }
            | Self::UnknownFormat { .. }
            | Self::Unrepresentable { .. } => None,
        }
    }

    pub(crate) fn io(path: &str, source: std::io::Error) -> Self {
        Self::Io { path: path.to_owned(), source }
    }

    pub(crate) fn parse(path: &str, line: Option<usize>, message: impl Into<String>) -> Self {
        Self::Parse { path: path.to_owned(), line, message: message.into() }
    }

    pub(crate) fn truncated(path: &str, message: impl Into<String>) -> Self {
        Self::Truncated { path: path.to_owned(), message: message.into() }
    }
}

/// Formats `Some(line)` as `:line` and `None` as nothing.
struct LineSuffix(Option<usize>);

impl fmt::Display for LineSuffix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(line) => write!(f, ":{line}"),
            None => Ok(()),
        }
    }
}
