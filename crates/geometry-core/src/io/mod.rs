//! Reading and writing triangle meshes as OBJ, STL (ASCII and binary), PLY (ASCII and binary) and
//! OFF files.
//!
//! [`read_mesh`] and [`write_mesh`] work on paths; [`read_mesh_from`] and [`write_mesh_to`] on any
//! [`Read`] / [`Write`]. Every mesh read is validated by [`TriMesh::new`], and every failure is a
//! typed [`MeshIoError`] naming the file and, for text formats, the line.
//!
//! ```
//! use geometry_core::generators::octa_sphere;
//! use geometry_core::io::{read_mesh, write_mesh, MeshFormat};
//!
//! let dir = std::env::temp_dir().join(format!("geometry-core-io-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("sphere.obj");
//! let sphere = octa_sphere(2).unwrap();
//! write_mesh(&path, &sphere, MeshFormat::Obj).unwrap();
//! let back = read_mesh(&path).unwrap();
//! assert_eq!(back.vertices(), sphere.vertices()); // exact: OBJ text round-trips f64
//! assert_eq!(back.faces(), sphere.faces());
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```
//!
//! # Formats
//!
//! | Format | Extension | Coordinates | What is read | Written as |
//! |---|---|---|---|---|
//! | [`Obj`](MeshFormat::Obj) | `.obj` | text, exact `f64` | `v x y z` (a trailing `w` or `r g b` is ignored), `f` (`v`, `v/vt`, `v/vt/vn`, `v//vn`, negative = relative); other statements of the OBJ spec skipped, unknown ones refused | `v x y z`, `f a b c` (1-based) |
//! | [`StlAscii`](MeshFormat::StlAscii) | `.stl` | text, exact `f64` | `solid` / `facet normal` / `outer loop` / `vertex` | one facet per triangle |
//! | [`StlBinary`](MeshFormat::StlBinary) | `.stl` | `f32` | 80-byte header, count, 50-byte records | zero header, `f32` corners and normals |
//! | [`PlyAscii`](MeshFormat::PlyAscii) | `.ply` | text, exact `f64` | `vertex` `x y z` (any numeric type), `face` `vertex_indices` / `vertex_index` (list of any integer type); other elements and properties skipped | `double x, y, z`; `list uchar int vertex_indices` |
//! | [`PlyBinary`](MeshFormat::PlyBinary) | `.ply` | `double` | as ASCII PLY, little- or big-endian | binary little-endian, `double` coordinates |
//! | [`Off`](MeshFormat::Off) | `.off` | text, exact `f64` | `OFF` (also `COFF`, `NOFF`, ...; extra numbers on a vertex line, such as a colour, are checked and ignored whatever the keyword), counts, one vertex or face per line | `OFF`, counts, `x y z`, `3 a b c` |
//!
//! * **Exact text round trip.** Text formats write coordinates with Rust's shortest round-trip
//!   formatting (`{:?}` for OBJ, OFF and ASCII STL, `{}` for ASCII PLY), so writing and reading
//!   back gives bit-identical `f64` values. Binary PLY stores `double`s, also exact.
//! * **Binary STL is `f32`.** Coordinates are rounded to the nearest `f32` when written; a
//!   coordinate beyond the `f32` range is an [`Unrepresentable`](MeshIoError::Unrepresentable)
//!   error. Rounding can make a thin triangle degenerate, which reading then reports as
//!   [`MeshError::DegenerateFace`](crate::MeshError::DegenerateFace).
//! * **STL welds vertices.** STL stores each triangle's corners, not shared vertices. Reading (both
//!   STL encodings) merges corners with exactly equal coordinates (`-0.0` equals `0.0`) into one
//!   vertex, numbered by first appearance. Triangles keep their order and corner order, but the
//!   vertex array is renumbered, and vertices used by no face are lost.
//! * **Polygons are fan-triangulated.** A face with corners `[a, b, c, d, ...]` (OBJ, OFF, PLY,
//!   or an ASCII STL loop with more than three vertices) becomes `[a, b, c]`, `[a, c, d]`, ... in
//!   order. This is correct for convex polygons (and any polygon star-shaped around its first
//!   corner); for others the triangles may overlap, and three collinear corners give a zero-area
//!   triangle, refused as [`MeshError::DegenerateFace`](crate::MeshError::DegenerateFace). A face
//!   with fewer than three corners is an [`UnsupportedPolygon`](MeshIoError::UnsupportedPolygon)
//!   error.
//! * **Detection.** For reading, STL and PLY encodings are detected from the data, so
//!   [`StlAscii`](MeshFormat::StlAscii) and [`StlBinary`](MeshFormat::StlBinary) (likewise the PLY
//!   pair) read the same. A binary STL is recognised by its size matching its triangle count,
//!   even when its header starts with `solid`.
//! * **Hostile input.** Malformed, truncated or random data gives an error, never a panic, and
//!   counts in headers are checked against the data size before anything is allocated for them.
//!   The whole file is read into memory first.
//!
//! # Crates
//!
//! Binary STL is written with `stl_io`, and PLY is read and written with `ply-rs-bw`. OBJ, OFF and
//! STL reading, and OBJ, OFF and ASCII STL writing, are our own: `tobj`, `off-rs` and `stl_io`
//! parse text coordinates as `f32` (`tobj` unless a feature is enabled) and `tobj` and `stl_io`
//! give no line numbers. The format modules' comments give the details.

mod error;
mod obj;
mod off;
mod ply;
mod stl;
mod support;

pub use error::MeshIoError;

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::Path;

use crate::TriMesh;

/// A mesh file format.
///
/// ```
/// use geometry_core::io::MeshFormat;
/// use std::path::Path;
///
/// assert_eq!(MeshFormat::from_path(Path::new("bunny.PLY")), Some(MeshFormat::PlyBinary));
/// assert_eq!(MeshFormat::StlAscii.extension(), "stl");
/// assert!(MeshFormat::StlBinary.is_binary());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MeshFormat {
    /// Wavefront OBJ (text).
    Obj,
    /// ASCII STL.
    StlAscii,
    /// Binary STL (`f32` coordinates).
    StlBinary,
    /// ASCII PLY.
    PlyAscii,
    /// Binary PLY; written little-endian, read in either byte order.
    PlyBinary,
    /// Geomview OFF (text).
    Off,
}

impl MeshFormat {
    /// All formats, in declaration order.
    ///
    /// ```
    /// use geometry_core::io::MeshFormat;
    /// assert_eq!(MeshFormat::ALL.len(), 6);
    /// ```
    pub const ALL: [MeshFormat; 6] = [
        MeshFormat::Obj,
        MeshFormat::StlAscii,
        MeshFormat::StlBinary,
        MeshFormat::PlyAscii,
        MeshFormat::PlyBinary,
        MeshFormat::Off,
    ];

    /// The format for a path's extension (case-insensitive): `obj`, `stl`, `ply`, `off`.
    ///
    /// For `.stl` and `.ply` this gives the binary variant, which is what [`write_mesh`] then
    /// writes; reading detects ASCII or binary from the data either way.
    ///
    /// ```
    /// use geometry_core::io::MeshFormat;
    /// use std::path::Path;
    ///
    /// assert_eq!(MeshFormat::from_path(Path::new("a/b/part.stl")), Some(MeshFormat::StlBinary));
    /// assert_eq!(MeshFormat::from_path(Path::new("mesh.Obj")), Some(MeshFormat::Obj));
    /// assert_eq!(MeshFormat::from_path(Path::new("notes.txt")), None);
    /// assert_eq!(MeshFormat::from_path(Path::new("off")), None);
    /// ```
    pub fn from_path(path: &Path) -> Option<MeshFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "obj" => Some(MeshFormat::Obj),
            "stl" => Some(MeshFormat::StlBinary),
            "ply" => Some(MeshFormat::PlyBinary),
            "off" => Some(MeshFormat::Off),
            _ => None,
        }
    }

    /// The usual file extension, without the dot.
    ///
    /// ```
    /// use geometry_core::io::MeshFormat;
    /// assert_eq!(MeshFormat::PlyAscii.extension(), "ply");
    /// ```
    pub fn extension(self) -> &'static str {
        match self {
            MeshFormat::Obj => "obj",
            MeshFormat::StlAscii | MeshFormat::StlBinary => "stl",
            MeshFormat::PlyAscii | MeshFormat::PlyBinary => "ply",
            MeshFormat::Off => "off",
        }
    }

    /// Whether the format is binary (`StlBinary`, `PlyBinary`).
    ///
    /// ```
    /// use geometry_core::io::MeshFormat;
    /// assert!(!MeshFormat::Off.is_binary());
    /// ```
    pub fn is_binary(self) -> bool {
        matches!(self, MeshFormat::StlBinary | MeshFormat::PlyBinary)
    }
}

/// Reads a mesh file, choosing the format by the path's extension (see
/// [`MeshFormat::from_path`]; STL and PLY encodings are detected from the content).
///
/// # Errors
/// [`MeshIoError::UnknownFormat`] for an unknown extension, [`MeshIoError::Io`] if the file
/// cannot be read, and otherwise as [`read_mesh_from`].
///
/// ```
/// use geometry_core::io::{read_mesh, MeshIoError};
///
/// assert!(matches!(read_mesh("mesh.xyz"), Err(MeshIoError::UnknownFormat { .. })));
/// assert!(matches!(read_mesh("/no/such/file.obj"), Err(MeshIoError::Io { .. })));
/// ```
pub fn read_mesh(path: impl AsRef<Path>) -> Result<TriMesh, MeshIoError> {
    let path = path.as_ref();
    let name = path.display().to_string();
    let format =
        MeshFormat::from_path(path).ok_or_else(|| MeshIoError::UnknownFormat { path: name.clone() })?;
    let data = std::fs::read(path).map_err(|e| MeshIoError::io(&name, e))?;
    read_bytes(&data, format, &name)
}

/// Reads a mesh in `format` from `reader`; `source_name` is used in errors in place of a path.
///
/// The reader is read to its end first. For STL and PLY, ASCII or binary is detected from the
/// data, whichever of the two variants `format` names.
///
/// # Errors
/// * [`MeshIoError::Io`]: `reader` failed.
/// * [`MeshIoError::Parse`]: the data does not follow the format (with the line, for text).
/// * [`MeshIoError::Truncated`]: the data ends before the announced content.
/// * [`MeshIoError::UnsupportedPolygon`]: a face has fewer than three corners.
/// * [`MeshIoError::Mesh`]: [`TriMesh::new`] refused the result (NaN or infinite coordinate, a
///   coordinate outside the exact predicates' range, index out of range, degenerate face, no
///   faces), with the line of the vertex or face for text formats. (ASCII PLY is the exception
///   for NaN and infinity: its number grammar has no such words, so they are a `Parse` error.)
///
/// ```
/// use geometry_core::io::{read_mesh_from, MeshFormat, MeshIoError};
/// use geometry_core::MeshError;
///
/// let off = "OFF\n4 1 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n";
/// let quad = read_mesh_from(off.as_bytes(), MeshFormat::Off, "quad.off").unwrap();
/// assert_eq!(quad.faces(), &[[0, 1, 2], [0, 2, 3]]); // fan-triangulated
///
/// let bad = "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 5\n";
/// let err = read_mesh_from(bad.as_bytes(), MeshFormat::Off, "bad.off").unwrap_err();
/// assert!(matches!(
///     err,
///     MeshIoError::Mesh { line: Some(6), source: MeshError::IndexOutOfRange { index: 5, .. }, .. }
/// ));
/// ```
pub fn read_mesh_from<R: Read>(
    mut reader: R,
    format: MeshFormat,
    source_name: &str,
) -> Result<TriMesh, MeshIoError> {
    let mut data = Vec::new();
    reader.read_to_end(&mut data).map_err(|e| MeshIoError::io(source_name, e))?;
    read_bytes(&data, format, source_name)
}

fn read_bytes(data: &[u8], format: MeshFormat, name: &str) -> Result<TriMesh, MeshIoError> {
    match format {
        MeshFormat::Obj => obj::read(data, name),
        MeshFormat::StlAscii | MeshFormat::StlBinary => stl::read(data, name),
        MeshFormat::PlyAscii | MeshFormat::PlyBinary => ply::read(data, name),
        MeshFormat::Off => off::read(data, name),
    }
}

/// Writes `mesh` to the file `path` (created or truncated) in `format`.
///
/// The extension of `path` is not looked at; [`MeshFormat::from_path`] gives the usual choice.
///
/// # Errors
/// [`MeshIoError::Io`] if the file cannot be created or written;
/// [`MeshIoError::Unrepresentable`] as [`write_mesh_to`].
///
/// ```
/// use geometry_core::generators::octa_sphere;
/// use geometry_core::io::{read_mesh, write_mesh, MeshFormat};
///
/// let path = std::env::temp_dir().join(format!("geometry-core-doc-{}.stl", std::process::id()));
/// let sphere = octa_sphere(1).unwrap();
/// write_mesh(&path, &sphere, MeshFormat::from_path(&path).unwrap()).unwrap();
/// let back = read_mesh(&path).unwrap();
/// assert_eq!(back.faces().len(), sphere.faces().len());
/// std::fs::remove_file(&path).unwrap();
/// ```
pub fn write_mesh(path: impl AsRef<Path>, mesh: &TriMesh, format: MeshFormat) -> Result<(), MeshIoError> {
    let path = path.as_ref();
    let name = path.display().to_string();
    let file = File::create(path).map_err(|e| MeshIoError::io(&name, e))?;
    write_named(file, mesh, format, &name)
}

/// Writes `mesh` in `format` to `writer` (buffered internally, flushed at the end). Errors name
/// the destination `"<writer>"`.
///
/// # Errors
/// [`MeshIoError::Io`] if `writer` fails; [`MeshIoError::Unrepresentable`] if the mesh does not
/// fit the format (a coordinate beyond the `f32` range or more than `u32::MAX` triangles for
/// binary STL, more than 2³¹ vertices for PLY).
///
/// ```
/// use geometry_core::generators::octa_sphere;
/// use geometry_core::io::{read_mesh_from, write_mesh_to, MeshFormat};
///
/// let sphere = octa_sphere(1).unwrap();
/// let mut bytes = Vec::new();
/// write_mesh_to(&mut bytes, &sphere, MeshFormat::PlyBinary).unwrap();
/// let back = read_mesh_from(bytes.as_slice(), MeshFormat::PlyBinary, "memory").unwrap();
/// assert_eq!(back.vertices(), sphere.vertices());
/// ```
pub fn write_mesh_to<W: Write>(writer: W, mesh: &TriMesh, format: MeshFormat) -> Result<(), MeshIoError> {
    write_named(writer, mesh, format, "<writer>")
}

fn write_named<W: Write>(
    writer: W,
    mesh: &TriMesh,
    format: MeshFormat,
    name: &str,
) -> Result<(), MeshIoError> {
    let mut w = BufWriter::new(writer);
    let io = |e| MeshIoError::io(name, e);
    match format {
        MeshFormat::Obj => obj::write(&mut w, mesh).map_err(io)?,
        MeshFormat::Off => off::write(&mut w, mesh).map_err(io)?,
        MeshFormat::StlAscii => stl::write_ascii(&mut w, mesh).map_err(io)?,
        MeshFormat::StlBinary => stl::write_binary(&mut w, mesh, name)?,
        MeshFormat::PlyAscii | MeshFormat::PlyBinary => ply::write(&mut w, mesh, format, name)?,
    }
    w.flush().map_err(io)
}
