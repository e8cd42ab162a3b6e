//! STL, ASCII and binary.
//!
//! `stl_io` writes binary STL. Reading is our own: `stl_io` parses ASCII coordinates as `f32`
//! (breaking the exact `f64` round trip of ASCII STL), reports no line numbers, and decides
//! ASCII versus binary by the `solid ` prefix alone, which misreads the many binary files whose
//! 80-byte header starts with `solid`. Binary STL is 50 bytes per triangle and takes a few lines.
//!
//! STL stores triangles, not shared vertices: the readers weld corners with exactly equal
//! coordinates into one vertex (`-0.0` and `0.0` count as equal), numbered in order of first
//! appearance. The facet normals in the file are ignored; orientation comes from the corner order.

use std::io::Write;

use hashbrown::HashMap;

use super::support::{MeshBuilder, lines, parse_f64};
use super::{MeshFormat, MeshIoError};
use crate::{DVec3, TriMesh};

/// Size of the binary header (80 bytes of free text, then the `u32` triangle count).
const BINARY_HEADER: usize = 84;
/// Size of one binary triangle record: normal, three corners (12 `f32`), attribute `u16`.
const BINARY_TRIANGLE: usize = 50;

/// Reads ASCII or binary STL, whichever `data` holds.
///
/// Binary if the size matches the triangle count exactly; otherwise ASCII if the data starts with
/// `solid` and has no NUL byte in its first 84 bytes (a binary header's size; text has none, a
/// binary header padded with NULs after "solid ..." has some); otherwise binary (and then its
/// size is wrong, which is reported as truncated or trailing data).
pub(super) fn read(data: &[u8], path: &str) -> Result<TriMesh, MeshIoError> {
    if binary_size_matches(data) {
        return read_binary(data, path);
    }
    let start = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    let start = &start[start.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(start.len())..];
    let looks_ascii = start.len() >= 5
        && start[..5].eq_ignore_ascii_case(b"solid")
        && !data[..data.len().min(BINARY_HEADER)].contains(&0);
    if looks_ascii { read_ascii(data, path) } else { read_binary(data, path) }
}

fn binary_triangle_count(data: &[u8]) -> Option<u32> {
    let count = data.get(80..BINARY_HEADER)?;
    Some(u32::from_le_bytes([count[0], count[1], count[2], count[3]]))
}

fn binary_size_matches(data: &[u8]) -> bool {
    binary_triangle_count(data)
        .is_some_and(|n| (BINARY_HEADER as u64 + BINARY_TRIANGLE as u64 * u64::from(n)) == data.len() as u64)
}

/// Welds identical positions into shared vertices.
struct Welder {
    index: HashMap<[u64; 3], u32>,
}

impl Welder {
    fn new() -> Self {
        Self { index: HashMap::new() }
    }

    /// The index of the vertex at `p`, added to `builder` (from `line`) if new.
    fn vertex(&mut self, builder: &mut MeshBuilder, p: DVec3, line: Option<usize>) -> u32 {
        // `-0.0 + 0.0 == +0.0`: both zeros get one key. NaNs keep their bits (and are refused
        // later by `TriMesh::new` anyway).
        let key = (p + DVec3::ZERO).to_array().map(f64::to_bits);
        *self.index.entry(key).or_insert_with(|| {
            // Vertex counts cannot exceed u32 here: each new vertex costs at least 12 bytes of
            // file, and `TriMesh::new` reports a mesh with too many vertices.
            let i = builder.vertex_count() as u32;
            builder.push_vertex(p, line);
            i
        })
    }
}

fn read_binary(data: &[u8], path: &str) -> Result<TriMesh, MeshIoError> {
    let Some(count) = binary_triangle_count(data) else {
        return Err(MeshIoError::truncated(
            path,
            format!("binary STL needs an {BINARY_HEADER}-byte header, file has {} bytes", data.len()),
        ));
    };
    let expected = BINARY_HEADER as u64 + BINARY_TRIANGLE as u64 * u64::from(count);
    let actual = data.len() as u64;
    if actual < expected {
        return Err(MeshIoError::truncated(
            path,
            format!(
                "binary STL header declares {count} triangles ({expected} bytes), file has {actual} bytes"
            ),
        ));
    }
    if actual > expected {
        return Err(MeshIoError::parse(
            path,
            None,
            format!(
                "binary STL header declares {count} triangles ({expected} bytes), file has {} extra bytes",
                actual - expected
            ),
        ));
    }
    let records = &data[BINARY_HEADER..];
    let mut builder = MeshBuilder::with_capacity(count as usize / 2, count as usize);
    let mut welder = Welder::new();
    for record in records.chunks_exact(BINARY_TRIANGLE) {
        let f = |i: usize| {
            let b = &record[4 * i..4 * i + 4];
            f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        // Floats 0..3 are the normal; 3..12 the corners.
        let corners = [1, 2, 3].map(|c| {
            let p = DVec3::new(f(3 * c), f(3 * c + 1), f(3 * c + 2));
            welder.vertex(&mut builder, p, None)
        });
        builder.push_polygon(&corners, path, None)?;
    }
    builder.finish(path)
}

/// Where the ASCII reader is in the `solid` / `facet` / `outer loop` nesting.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the first `solid`.
    Start,
    /// Inside `solid`, expecting `facet` or `endsolid`.
    Solid,
    /// After `facet normal`, expecting `outer loop`.
    Facet,
    /// Inside `outer loop`, expecting `vertex` or `endloop`.
    Loop,
    /// After `endloop`, expecting `endfacet`.
    EndLoop,
    /// After `endsolid`, expecting another `solid` or the end.
    Done,
}

fn read_ascii(data: &[u8], path: &str) -> Result<TriMesh, MeshIoError> {
    let mut builder = MeshBuilder::with_capacity(0, 0);
    let mut welder = Welder::new();
    let mut state = State::Start;
    let mut corners: Vec<u32> = Vec::new();
    let mut facet_line = 0;
    for (line_no, line) in lines(data) {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some(&keyword) = tokens.first() else { continue };
        let is = |word: &str| keyword.eq_ignore_ascii_case(word);
        let exactly = |words: &[&str]| {
            tokens.len() == words.len() && tokens.iter().zip(words).all(|(t, w)| t.eq_ignore_ascii_case(w))
        };
        let unexpected = |expected: &str| {
            MeshIoError::parse(path, Some(line_no), format!("expected {expected}, found '{}'", line.trim()))
        };
        state = match state {
            State::Start | State::Done if is("solid") => State::Solid,
            State::Start => return Err(unexpected("'solid'")),
            State::Done => return Err(unexpected("another 'solid' or the end of the file")),
            State::Solid if is("endsolid") => State::Done,
            State::Solid if is("facet") => {
                if tokens.len() != 5 || !tokens[1].eq_ignore_ascii_case("normal") {
                    return Err(unexpected("'facet normal nx ny nz'"));
                }
                for token in &tokens[2..] {
                    parse_f64(token, path, line_no, "facet normal")?;
                }
                facet_line = line_no;
                State::Facet
            }
            State::Solid => return Err(unexpected("'facet' or 'endsolid'")),
            State::Facet if exactly(&["outer", "loop"]) => {
                corners.clear();
                State::Loop
            }
            State::Facet => return Err(unexpected("'outer loop'")),
            State::Loop if is("vertex") => {
                if tokens.len() != 4 {
                    return Err(unexpected("'vertex x y z'"));
                }
                let mut xyz = [0.0; 3];
                for (c, token) in xyz.iter_mut().zip(&tokens[1..]) {
                    *c = parse_f64(token, path, line_no, "vertex coordinate")?;
                }
                corners.push(welder.vertex(&mut builder, DVec3::from_array(xyz), Some(line_no)));
                State::Loop
            }
            State::Loop if exactly(&["endloop"]) => {
                builder.push_polygon(&corners, path, Some(facet_line))?;
                State::EndLoop
            }
            State::Loop => return Err(unexpected("'vertex' or 'endloop'")),
            State::EndLoop if exactly(&["endfacet"]) => State::Solid,
            State::EndLoop => return Err(unexpected("'endfacet'")),
        };
    }
    match state {
        State::Done => builder.finish(path),
        State::Start => Err(MeshIoError::truncated(path, "empty file, expected 'solid'")),
        _ => Err(MeshIoError::truncated(path, "ASCII STL ends before 'endsolid'")),
    }
}

/// The unit normal of triangle `i`, for the facet records: from the edges brought to unit size
/// (`Triangle::unit_normal`), so that a tiny valid face gets its normal too (the plain cross
/// product underflowed to a zero normal for corners 1e-70 apart); zero only for a degenerate
/// face, which a validated mesh does not have.
fn facet_normal(mesh: &TriMesh, i: usize) -> DVec3 {
    mesh.triangle(i).unit_normal().unwrap_or(DVec3::ZERO)
}

/// Writes ASCII STL with shortest round-trip `f64` formatting.
pub(super) fn write_ascii<W: Write>(w: &mut W, mesh: &TriMesh) -> std::io::Result<()> {
    writeln!(w, "solid geometry-core")?;
    for i in 0..mesh.faces().len() {
        let n = facet_normal(mesh, i);
        writeln!(w, "  facet normal {:?} {:?} {:?}", n.x, n.y, n.z)?;
        writeln!(w, "    outer loop")?;
        let t = mesh.triangle(i);
        for p in [t.a, t.b, t.c] {
            writeln!(w, "      vertex {:?} {:?} {:?}", p.x, p.y, p.z)?;
        }
        writeln!(w, "    endloop")?;
        writeln!(w, "  endfacet")?;
    }
    writeln!(w, "endsolid geometry-core")
}

/// Writes binary STL through `stl_io`, rounding coordinates to `f32`.
///
/// # Errors
/// [`MeshIoError::Unrepresentable`] if a coordinate overflows `f32` or there are more than
/// `u32::MAX` triangles; [`MeshIoError::Io`] if writing fails.
pub(super) fn write_binary<W: Write>(w: &mut W, mesh: &TriMesh, path: &str) -> Result<(), MeshIoError> {
    let unrepresentable = |message: String| MeshIoError::Unrepresentable {
        path: path.to_owned(),
        format: MeshFormat::StlBinary,
        message,
    };
    if u32::try_from(mesh.faces().len()).is_err() {
        return Err(unrepresentable(format!(
            "{} triangles, binary STL holds at most {}",
            mesh.faces().len(),
            u32::MAX
        )));
    }
    let to_f32 = |v: DVec3| v.to_array().map(|c| c as f32);
    let vertices: Vec<[f32; 3]> = mesh.vertices().iter().map(|&v| to_f32(v)).collect();
    if let Some(i) = vertices.iter().position(|v| v.iter().any(|c| !c.is_finite())) {
        return Err(unrepresentable(format!(
            "vertex {i} at {:?} is outside the f32 range of binary STL",
            mesh.vertices()[i]
        )));
    }
    let triangles = mesh.faces().iter().enumerate().map(|(i, face)| stl_io::Triangle {
        normal: stl_io::Normal::new(to_f32(facet_normal(mesh, i))),
        vertices: face.map(|v| stl_io::Vertex::new(vertices[v as usize])),
    });
    stl_io::write_stl(w, triangles).map_err(|e| MeshIoError::io(path, e))
}
