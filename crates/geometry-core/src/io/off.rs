//! Object File Format (Geomview OFF), ASCII.
//!
//! The reader is our own: `off-rs` stores positions as `f32`, which would break the exact `f64`
//! round trip, and caps vertex and face counts at small defaults. Like `off-rs` and most tools, we
//! expect one vertex or face per line.

use std::io::Write;

use super::MeshIoError;
use super::support::{MeshBuilder, index_u32, parse_f64, significant_lines};
use crate::{DVec3, TriMesh};

/// Reads an OFF file: header keyword, counts, vertex lines, face lines.
pub(super) fn read(data: &[u8], path: &str) -> Result<TriMesh, MeshIoError> {
    // Significant lines only: comments stripped, blank lines skipped.
    let mut lines = significant_lines(data);

    let Some((header_line, header)) = lines.next() else {
        return Err(MeshIoError::truncated(path, "empty file, expected 'OFF'"));
    };
    let mut tokens = header.split_whitespace();
    let keyword = tokens.next().unwrap_or_default();
    check_keyword(keyword, tokens.clone().next(), path, header_line)?;
    // The counts may follow the keyword on the same line.
    let rest: Vec<&str> = tokens.collect();
    let (counts_line, counts): (usize, Vec<String>) = if rest.is_empty() {
        let Some((n, line)) = lines.next() else {
            return Err(MeshIoError::truncated(path, "file ends before the vertex and face counts"));
        };
        (n, line.split_whitespace().map(str::to_owned).collect())
    } else {
        (header_line, rest.into_iter().map(str::to_owned).collect())
    };
    if !(2..=3).contains(&counts.len()) {
        return Err(MeshIoError::parse(
            path,
            Some(counts_line),
            format!("expected 'vertex_count face_count [edge_count]', found {} values", counts.len()),
        ));
    }
    let count = |i: usize, what: &str| {
        counts[i].parse::<u64>().map_err(|_| {
            MeshIoError::parse(path, Some(counts_line), format!("invalid {what} count '{}'", counts[i]))
        })
    };
    let vertex_count = count(0, "vertex")?;
    let face_count = count(1, "face")?;
    if counts.len() == 3 {
        count(2, "edge")?; // Validated, otherwise unused.
    }

    // Each vertex or face needs at least a few bytes: never reserve more than the data can hold.
    let bound = (data.len() / 4) as u64;
    let mut builder =
        MeshBuilder::with_capacity(vertex_count.min(bound) as usize, face_count.min(bound) as usize);

    for read in 0..vertex_count {
        let Some((n, line)) = lines.next() else {
            return Err(MeshIoError::truncated(
                path,
                format!("header declares {vertex_count} vertices, file ends after {read}"),
            ));
        };
        let mut xyz = [0.0; 3];
        let mut values = 0;
        for token in line.split_whitespace() {
            // x y z, optionally followed by normal, colour or texture values: checked, ignored.
            let value = parse_f64(token, path, n, "vertex coordinate")?;
            if values < 3 {
                xyz[values] = value;
            }
            values += 1;
        }
        if values < 3 {
            return Err(MeshIoError::parse(
                path,
                Some(n),
                format!("vertex has {values} coordinates, expected 3"),
            ));
        }
        builder.push_vertex(DVec3::from_array(xyz), Some(n));
    }

    let mut corners: Vec<u32> = Vec::new();
    for read in 0..face_count {
        let Some((n, line)) = lines.next() else {
            return Err(MeshIoError::truncated(
                path,
                format!("header declares {face_count} faces, file ends after {read}"),
            ));
        };
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let size: usize = tokens[0].parse().map_err(|_| {
            MeshIoError::parse(path, Some(n), format!("invalid face vertex count '{}'", tokens[0]))
        })?;
        if tokens.len() - 1 < size {
            return Err(MeshIoError::parse(
                path,
                Some(n),
                format!("face declares {size} vertices but the line has {} more values", tokens.len() - 1),
            ));
        }
        corners.clear();
        for token in &tokens[1..=size] {
            let index: i64 = token
                .parse()
                .map_err(|_| MeshIoError::parse(path, Some(n), format!("invalid vertex index '{token}'")))?;
            corners.push(index_u32(index, path, Some(n))?);
        }
        // An optional colour (a colour-map index or 3-4 components) may follow: checked, ignored.
        for token in &tokens[size + 1..] {
            parse_f64(token, path, n, "face colour")?;
        }
        builder.push_polygon(&corners, path, Some(n))?;
    }
    if let Some((n, _)) = lines.next() {
        return Err(MeshIoError::parse(path, Some(n), "unexpected data after the last face"));
    }
    builder.finish(path)
}

/// Accepts `OFF` and the variants whose vertex lines carry extra values (`ST`, `C`, `N` prefixes,
/// e.g. `COFF`, `NOFF`, `STCNOFF`). Refuses 4D (`4OFF`), n-dimensional (`nOFF`) and binary OFF.
fn check_keyword(keyword: &str, next: Option<&str>, path: &str, line: usize) -> Result<(), MeshIoError> {
    let err = |message: String| Err(MeshIoError::parse(path, Some(line), message));
    let Some(prefix) = keyword.strip_suffix("OFF") else {
        return err(format!("expected 'OFF', found '{keyword}'"));
    };
    let prefix = prefix.strip_prefix("ST").unwrap_or(prefix);
    let prefix = prefix.strip_prefix('C').unwrap_or(prefix);
    let prefix = prefix.strip_prefix('N').unwrap_or(prefix);
    if !prefix.is_empty() {
        return err(format!("unsupported OFF variant '{keyword}' (only 3D OFF is supported)"));
    }
    if next == Some("BINARY") {
        return err("binary OFF is not supported".to_owned());
    }
    Ok(())
}

/// Writes `OFF`, the counts, vertex lines with shortest round-trip `f64` formatting, and
/// triangle lines `3 a b c`.
pub(super) fn write<W: Write>(w: &mut W, mesh: &TriMesh) -> std::io::Result<()> {
    writeln!(w, "OFF")?;
    writeln!(w, "{} {} 0", mesh.vertices().len(), mesh.faces().len())?;
    for v in mesh.vertices() {
        writeln!(w, "{:?} {:?} {:?}", v.x, v.y, v.z)?;
    }
    for [a, b, c] in mesh.faces() {
        writeln!(w, "3 {a} {b} {c}")?;
    }
    Ok(())
}
