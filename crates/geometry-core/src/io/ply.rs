//! PLY (Stanford polygon file), ASCII and binary, through `ply-rs-bw`.
//!
//! `ply-rs-bw` parses the header and the payload in all three encodings, reports header and ASCII
//! line numbers, and caps its preallocation. We add typed element records (no per-vertex hash
//! maps), a header check that a binary payload can possibly hold the declared element counts
//! (so a huge count fails at once instead of looping or allocating), the rules `ply-rs-bw` does
//! not enforce (version 1.0 only, unique element names and property names, integer list counts
//! that fit their declared type, no ASCII line longer than its element), ASCII numbers written
//! without a digit on one side of the point (`.5`, `2.`, which its grammar refuses), and the mesh
//! checks.

use std::collections::HashSet;
use std::io::{ErrorKind, Write};

use ply_rs_bw::parser::{ParseError, Parser, Reader};
use ply_rs_bw::ply::{
    Addable, ElementDef, Encoding, Header, Property, PropertyAccess, PropertyAccessResult, PropertyDef,
    PropertyType, ScalarType,
};
use ply_rs_bw::writer::Writer;

use super::support::{MeshBuilder, index_u32, lines};
use super::{MeshFormat, MeshIoError};
use crate::{DVec3, TriMesh};

/// Names under which PLY files store a face's corner list.
const FACE_LISTS: [&str; 2] = ["vertex_indices", "vertex_index"];

/// A vertex record: `x`, `y`, `z` of any numeric type, widened to `f64`; other properties
/// (normals, colours, ...) are ignored.
#[derive(Debug, Default)]
struct PlyVertex([f64; 3]);

fn axis(name: &str) -> Option<usize> {
    match name {
        "x" => Some(0),
        "y" => Some(1),
        "z" => Some(2),
        _ => None,
    }
}

impl PropertyAccess for PlyVertex {
    fn new() -> Self {
        Self::default()
    }

    fn set_property(&mut self, name: &str, property: Property) -> PropertyAccessResult {
        let Some(axis) = axis(name) else { return PropertyAccessResult::Ignored };
        self.0[axis] = match property {
            Property::Char(v) => f64::from(v),
            Property::UChar(v) => f64::from(v),
            Property::Short(v) => f64::from(v),
            Property::UShort(v) => f64::from(v),
            Property::Int(v) => f64::from(v),
            Property::UInt(v) => f64::from(v),
            Property::Float(v) => f64::from(v),
            Property::Double(v) => v,
            _ => return PropertyAccessResult::UnsupportedType,
        };
        PropertyAccessResult::Set
    }

    fn get_double(&self, name: &str) -> Option<f64> {
        axis(name).map(|a| self.0[a])
    }
}

/// A face record being read: its corner list, of any integer type.
#[derive(Debug, Default)]
struct PlyFace(Vec<i64>);

impl PropertyAccess for PlyFace {
    fn new() -> Self {
        Self::default()
    }

    fn set_property(&mut self, name: &str, property: Property) -> PropertyAccessResult {
        if !FACE_LISTS.contains(&name) {
            return PropertyAccessResult::Ignored;
        }
        self.0 = match property {
            Property::ListChar(v) => v.into_iter().map(i64::from).collect(),
            Property::ListUChar(v) => v.into_iter().map(i64::from).collect(),
            Property::ListShort(v) => v.into_iter().map(i64::from).collect(),
            Property::ListUShort(v) => v.into_iter().map(i64::from).collect(),
            Property::ListInt(v) => v.into_iter().map(i64::from).collect(),
            Property::ListUInt(v) => v.into_iter().map(i64::from).collect(),
            _ => return PropertyAccessResult::UnsupportedType,
        };
        PropertyAccessResult::Set
    }
}

/// A triangle record being written as `list uchar int vertex_indices`.
#[derive(Debug, Default)]
struct PlyTriangle([i32; 3]);

impl PropertyAccess for PlyTriangle {
    fn new() -> Self {
        Self::default()
    }

    fn get_list_int(&self, name: &str) -> Option<&[i32]> {
        (name == FACE_LISTS[0]).then_some(&self.0[..])
    }
}

/// Any other element: read (so the payload stays in step) and dropped.
#[derive(Debug)]
struct Skip;

impl PropertyAccess for Skip {
    fn new() -> Self {
        Skip
    }
}

fn scalar_size(t: &ScalarType) -> u64 {
    match t {
        ScalarType::Char | ScalarType::UChar => 1,
        ScalarType::Short | ScalarType::UShort => 2,
        ScalarType::Int | ScalarType::UInt | ScalarType::Float => 4,
        ScalarType::Double => 8,
    }
}

fn is_integer(t: &ScalarType) -> bool {
    !matches!(t, ScalarType::Float | ScalarType::Double)
}

/// Converts a `ply-rs-bw` error. `line` is the reader's line for ASCII data (used when the error
/// has none), `None` for binary payloads, whose "lines" are element counters.
fn convert(e: &ParseError, path: &str, line: Option<usize>, binary_payload: bool) -> MeshIoError {
    let text = e.to_string();
    let text = match e.line() {
        Some(l) => text.strip_prefix(&format!("Line {l}: ")).unwrap_or(&text),
        None => &text,
    };
    // `ply-rs-bw` messages span several lines (quoting the offending line): make them one line.
    let message = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ");
    if e.kind() == ErrorKind::UnexpectedEof {
        return MeshIoError::truncated(path, message);
    }
    let line = if binary_payload { None } else { e.line().or(line) };
    MeshIoError::parse(path, line, message)
}

/// The header line declaring element `name`, for header-level errors.
fn element_line(data: &[u8], name: &str) -> Option<usize> {
    for (n, line) in lines(data) {
        let mut tokens = line.split_whitespace();
        match tokens.next() {
            Some("end_header") => return None,
            Some("element") if tokens.next() == Some(name) => return Some(n),
            _ => {}
        }
    }
    None
}

/// Reads ASCII, binary little-endian or binary big-endian PLY.
pub(super) fn read(data: &[u8], path: &str) -> Result<TriMesh, MeshIoError> {
    // A UTF-8 byte-order mark before `ply`, as some editors write, is skipped as in the other
    // formats (it is not a line, so line numbers are unchanged).
    let data = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    let completed = complete_decimal_points(data);
    let data = completed.as_deref().unwrap_or(data);
    let mut reader = Reader::new(data);
    let header = Parser::<Skip>::new().read_header(&mut reader).map_err(|e| {
        // Header lines end with '\n': an error on an unterminated last line after the `ply` line
        // means the file ends inside the header.
        let unterminated_line = data.split(|&b| b == b'\n').count();
        if unterminated_line > 1 && e.line() == Some(unterminated_line) {
            MeshIoError::truncated(path, "file ends inside the PLY header")
        } else {
            convert(&e, path, None, false)
        }
    })?;
    let binary = header.encoding != Encoding::Ascii;
    check_header_text(&header, data, path)?;
    check_header(&header, data, path)?;
    if binary {
        check_binary_size(&header, reader.get_ref().len() as u64, path)?;
    }

    let mut vertices: Vec<PlyVertex> = Vec::new();
    let mut faces: Vec<PlyFace> = Vec::new();
    let (mut vertex_line, mut face_line) = (0, 0);
    for (name, def) in &header.elements {
        let first_line = reader.line();
        match name.as_str() {
            "vertex" => {
                vertex_line = first_line;
                vertices = Parser::<PlyVertex>::new()
                    .read_payload_for_element(&mut reader, def, &header)
                    .map_err(|e| convert(&e, path, Some(reader.line()), binary))?;
            }
            "face" => {
                face_line = first_line;
                faces = Parser::<PlyFace>::new()
                    .read_payload_for_element(&mut reader, def, &header)
                    .map_err(|e| convert(&e, path, Some(reader.line()), binary))?;
            }
            _ => {
                Parser::<Skip>::new()
                    .read_payload_for_element(&mut reader, def, &header)
                    .map_err(|e| convert(&e, path, Some(reader.line()), binary))?;
            }
        }
    }

    if !binary {
        check_ascii_lines(&header, data, path)?;
    }
    let rest: &[u8] = reader.get_ref();
    if binary && !rest.is_empty() {
        return Err(MeshIoError::parse(path, None, format!("{} bytes after the last element", rest.len())));
    }
    if let Some(at) = rest.iter().position(|b| !b.is_ascii_whitespace()) {
        let line = reader.line() + rest[..at].split(|&b| b == b'\n').count() - 1;
        return Err(MeshIoError::parse(path, Some(line), "unexpected data after the last element"));
    }

    // In ASCII PLY every element is one line, so element i sits at `first line + i`.
    let line_of = |first: usize, i: usize| (!binary).then_some(first + i);
    let mut builder = MeshBuilder::with_capacity(vertices.len(), faces.len());
    for (i, v) in vertices.iter().enumerate() {
        builder.push_vertex(DVec3::from_array(v.0), line_of(vertex_line, i));
    }
    drop(vertices);
    let mut corners: Vec<u32> = Vec::new();
    for (i, face) in faces.iter().enumerate() {
        let line = line_of(face_line, i);
        corners.clear();
        for &index in &face.0 {
            corners.push(index_u32(index, path, line)?);
        }
        builder.push_polygon(&corners, path, line)?;
    }
    builder.finish(path)
}

/// The ASCII PLY `data` with every number in the payload readable by `ply-rs-bw`, or `None` if
/// it is already (or is not ASCII PLY). Its grammar wants a digit on both sides of a decimal
/// point, while `.5`, `-.5e3` and `2.` are common in files from other tools and are read by the
/// other text formats (Rust's parser). So a token made of an optional sign, digits, one point,
/// digits and an optional exponent, with no digit on one side of the point, gets a `0` there:
/// `.5` becomes `0.5`, `2.` becomes `2.0`. The header and the line breaks are kept, so line
/// numbers still hold; any other token is left to the parser to accept or refuse.
fn complete_decimal_points(data: &[u8]) -> Option<Vec<u8>> {
    // The payload starts after the `end_header` line; only ASCII files are rewritten.
    let mut start = 0;
    let mut ascii = false;
    loop {
        let line_end = data[start..].iter().position(|&b| b == b'\n').map(|i| start + i)?;
        let mut tokens = data[start..line_end].split(u8::is_ascii_whitespace).filter(|t| !t.is_empty());
        start = line_end + 1;
        match (tokens.next(), tokens.next()) {
            (Some(b"format"), Some(encoding)) => ascii = encoding == b"ascii",
            (Some(b"end_header"), _) => break,
            _ => {}
        }
    }
    let payload = &data[start..];
    if !ascii || !payload.split(u8::is_ascii_whitespace).any(|token| completed_number(token).is_some()) {
        return None;
    }
    let mut out = Vec::with_capacity(data.len() + data.len() / 8);
    out.extend_from_slice(&data[..start]);
    let mut rest = payload;
    while !rest.is_empty() {
        // Whitespace as it is, then one token, completed if it needs it.
        let space = rest.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(rest.len());
        out.extend_from_slice(&rest[..space]);
        rest = &rest[space..];
        let len = rest.iter().position(u8::is_ascii_whitespace).unwrap_or(rest.len());
        let token = &rest[..len];
        match completed_number(token) {
            Some(number) => out.extend_from_slice(&number),
            None => out.extend_from_slice(token),
        }
        rest = &rest[len..];
    }
    Some(out)
}

/// `token` with a `0` on the empty side of its decimal point, if it is a number with one (see
/// [`complete_decimal_points`]).
fn completed_number(token: &[u8]) -> Option<Vec<u8>> {
    let unsigned = token.strip_prefix(b"-").or_else(|| token.strip_prefix(b"+")).unwrap_or(token);
    let sign = &token[..token.len() - unsigned.len()];
    let exponent_at = unsigned.iter().position(|&b| b == b'e' || b == b'E').unwrap_or(unsigned.len());
    let (mantissa, exponent) = unsigned.split_at(exponent_at);
    let point = mantissa.iter().position(|&b| b == b'.')?;
    let (whole, fraction) = (&mantissa[..point], &mantissa[point + 1..]);
    let digits = |part: &[u8]| part.iter().all(u8::is_ascii_digit);
    if !digits(whole) || !digits(fraction) || whole.is_empty() == fraction.is_empty() {
        // Not a number of this form, or one with digits on both sides (or on neither).
        return None;
    }
    let or_zero = |part: &[u8]| if part.is_empty() { b"0".to_vec() } else { part.to_vec() };
    Some([sign, &or_zero(whole), b".", &or_zero(fraction), exponent].concat())
}

/// PLY's integer type names, the only types a list count may have.
const INTEGER_TYPES: [&str; 12] = [
    "char", "uchar", "short", "ushort", "int", "uint", "int8", "uint8", "int16", "uint16", "int32", "uint32",
];

/// Header rules that `ply-rs-bw` does not enforce, checked on the header's text (for the line
/// numbers): the version is 1.0, the only one defined; element names are unique, and property
/// names within an element (the parser keys both by name, so a repeated one would replace the
/// first and silently shift the columns of everything after it); list counts are integers.
fn check_header_text(header: &Header, data: &[u8], path: &str) -> Result<(), MeshIoError> {
    // Hash sets, not a scan of the names so far: a header of many thousands of properties
    // would otherwise take quadratic time (a 2 MB header took seconds).
    let (mut elements, mut properties) = (HashSet::new(), HashSet::new());
    let mut element = String::new();
    for (n, line) in lines(data) {
        let refuse = |message: String| Err(MeshIoError::parse(path, Some(n), message));
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let property = match tokens[..] {
            ["end_header", ..] => break,
            ["format", _, version, ..] if (header.version.major, header.version.minor) != (1, 0) => {
                return refuse(format!("PLY version {version}; the only one defined is 1.0"));
            }
            ["element", name, ..] => {
                if !elements.insert(name.to_owned()) {
                    return refuse(format!("element '{name}' is declared twice"));
                }
                name.clone_into(&mut element);
                properties.clear();
                continue;
            }
            ["property", "list", count, _, name, ..] => {
                if !INTEGER_TYPES.contains(&count) {
                    return refuse(format!(
                        "list '{name}' has count type '{count}', expected an integer type"
                    ));
                }
                name
            }
            ["property", _, name, ..] => name,
            _ => continue,
        };
        if !properties.insert(property.to_owned()) {
            return refuse(format!("property '{property}' of element '{element}' is declared twice"));
        }
    }
    Ok(())
}

/// The largest list count a count type can hold, and the type's name. (`ply-rs-bw` reads an
/// ASCII count as any `usize`, whatever type the header gives it; the header check has made
/// sure the type is an integer one.)
fn largest_count(t: &ScalarType) -> (u64, &'static str) {
    match t {
        ScalarType::Char => (i8::MAX as u64, "char"),
        ScalarType::UChar => (u64::from(u8::MAX), "uchar"),
        ScalarType::Short => (i16::MAX as u64, "short"),
        ScalarType::UShort => (u64::from(u16::MAX), "ushort"),
        ScalarType::Int => (i32::MAX as u64, "int"),
        ScalarType::UInt | ScalarType::Float | ScalarType::Double => (u64::from(u32::MAX), "uint"),
    }
}

/// ASCII PLY holds one element per line. `ply-rs-bw` reads the declared properties from the
/// start of a line and ignores whatever follows, which would hide a header that declares fewer
/// properties than the data has: a line with more values than its element declares is refused,
/// and so is a list count its declared type cannot hold (a `uchar` count of 300, which a binary
/// file could not even write).
/// (Called after a successful parse, so the lines are there and their list counts are valid.)
fn check_ascii_lines(header: &Header, data: &[u8], path: &str) -> Result<(), MeshIoError> {
    let mut payload =
        lines(data).skip_while(|(_, line)| line.split_whitespace().next() != Some("end_header")).skip(1);
    for (name, def) in &header.elements {
        for _ in 0..def.count {
            let Some((n, line)) = payload.next() else { return Ok(()) };
            let mut values = line.split_whitespace();
            let mut declared = 0;
            for property in def.properties.values() {
                let items = match &property.data_type {
                    PropertyType::Scalar(_) => 1,
                    PropertyType::List(count_type, _) => {
                        let count = values.next().and_then(|c| c.parse::<u64>().ok()).unwrap_or(0);
                        let (largest, type_name) = largest_count(count_type);
                        if count > largest {
                            return Err(MeshIoError::parse(
                                path,
                                Some(n),
                                format!("list count {count} exceeds {largest}, the largest {type_name}"),
                            ));
                        }
                        usize::try_from(count).unwrap_or(usize::MAX)
                    }
                };
                // (`nth(k - 1)` skips `k` values.)
                if items > 0 {
                    values.nth(items - 1);
                }
                declared += items + usize::from(matches!(property.data_type, PropertyType::List(..)));
            }
            let extra = values.count();
            if extra > 0 {
                return Err(MeshIoError::parse(
                    path,
                    Some(n),
                    format!("{} values, but element '{name}' declares {declared}", declared + extra),
                ));
            }
        }
    }
    Ok(())
}

/// Checks that the `vertex` element has scalar `x`, `y`, `z` and the `face` element an integer
/// `vertex_indices` (or `vertex_index`) list.
fn check_header(header: &Header, data: &[u8], path: &str) -> Result<(), MeshIoError> {
    if let Some(def) = header.elements.get("vertex") {
        for name in ["x", "y", "z"] {
            match def.properties.get(name).map(|p| &p.data_type) {
                Some(PropertyType::Scalar(_)) => {}
                Some(PropertyType::List(..)) => {
                    return Err(MeshIoError::parse(
                        path,
                        element_line(data, "vertex"),
                        format!("vertex property '{name}' is a list, expected a number"),
                    ));
                }
                None => {
                    return Err(MeshIoError::parse(
                        path,
                        element_line(data, "vertex"),
                        format!("vertex element has no property '{name}'"),
                    ));
                }
            }
        }
    }
    if let Some(def) = header.elements.get("face") {
        let lists: Vec<&PropertyDef> = FACE_LISTS.iter().filter_map(|n| def.properties.get(*n)).collect();
        let message = match lists[..] {
            [] => "face element has no 'vertex_indices' or 'vertex_index' property".to_owned(),
            [list] => match &list.data_type {
                PropertyType::List(_, item) if is_integer(item) => return Ok(()),
                other => {
                    format!("face property '{}' has type {other:?}, expected an integer list", list.name)
                }
            },
            _ => "face element has both 'vertex_indices' and 'vertex_index'".to_owned(),
        };
        return Err(MeshIoError::parse(path, element_line(data, "face"), message));
    }
    Ok(())
}

/// Refuses a binary header whose elements cannot fit in the `available` payload bytes, before
/// reading: the parser would otherwise loop over (and store) a count taken from the file. An
/// element without properties is counted as one byte.
fn check_binary_size(header: &Header, available: u64, path: &str) -> Result<(), MeshIoError> {
    let mut needed: u64 = 0;
    for (name, def) in &header.elements {
        let min_size: u64 = def
            .properties
            .values()
            .map(|p| match &p.data_type {
                PropertyType::Scalar(t) | PropertyType::List(t, _) => scalar_size(t),
            })
            .sum();
        needed = needed.saturating_add((def.count as u64).saturating_mul(min_size.max(1)));
        if needed > available {
            return Err(MeshIoError::truncated(
                path,
                format!(
                    "header declares {} '{name}' elements, but the payload has only {available} bytes",
                    def.count
                ),
            ));
        }
    }
    Ok(())
}

/// Writes `vertex` (`double x, y, z`) and `face` (`list uchar int vertex_indices`) elements in
/// the given encoding.
///
/// # Errors
/// [`MeshIoError::Unrepresentable`] if a vertex index does not fit the `int` of the face list;
/// [`MeshIoError::Io`] if writing fails.
pub(super) fn write<W: Write>(
    w: &mut W,
    mesh: &TriMesh,
    format: MeshFormat,
    path: &str,
) -> Result<(), MeshIoError> {
    if mesh.vertices().len() > i32::MAX as usize + 1 {
        return Err(MeshIoError::Unrepresentable {
            path: path.to_owned(),
            format,
            message: format!("{} vertices, PLY 'int' indices address at most 2^31", mesh.vertices().len()),
        });
    }
    let encoding =
        if format == MeshFormat::PlyAscii { Encoding::Ascii } else { Encoding::BinaryLittleEndian };
    write_elements(w, mesh, encoding).map_err(|e| MeshIoError::io(path, e))
}

fn write_elements<W: Write>(w: &mut W, mesh: &TriMesh, encoding: Encoding) -> std::io::Result<()> {
    let mut header = Header::new();
    header.encoding = encoding;
    header.comments.push("written by geometry-core".to_owned());
    let mut vertex = ElementDef::new("vertex".to_owned());
    vertex.count = mesh.vertices().len();
    for name in ["x", "y", "z"] {
        vertex.properties.add(PropertyDef::new(name.to_owned(), PropertyType::Scalar(ScalarType::Double)));
    }
    let mut face = ElementDef::new("face".to_owned());
    face.count = mesh.faces().len();
    face.properties.add(PropertyDef::new(
        FACE_LISTS[0].to_owned(),
        PropertyType::List(ScalarType::UChar, ScalarType::Int),
    ));
    header.elements.add(vertex.clone());
    header.elements.add(face.clone());

    let vertex_writer = Writer::<PlyVertex>::new();
    vertex_writer.write_header(w, &header)?;
    for v in mesh.vertices() {
        let record = PlyVertex(v.to_array());
        match encoding {
            Encoding::Ascii => vertex_writer.write_ascii_element(w, &record, &vertex)?,
            Encoding::BinaryLittleEndian => vertex_writer.write_little_endian_element(w, &record, &vertex)?,
            Encoding::BinaryBigEndian => vertex_writer.write_big_endian_element(w, &record, &vertex)?,
        };
    }
    let face_writer = Writer::<PlyTriangle>::new();
    for f in mesh.faces() {
        // `write` checked that every index fits in an i32.
        let record = PlyTriangle(f.map(|i| i as i32));
        match encoding {
            Encoding::Ascii => face_writer.write_ascii_element(w, &record, &face)?,
            Encoding::BinaryLittleEndian => face_writer.write_little_endian_element(w, &record, &face)?,
            Encoding::BinaryBigEndian => face_writer.write_big_endian_element(w, &record, &face)?,
        };
    }
    Ok(())
}
