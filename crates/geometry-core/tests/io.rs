//! Mesh file I/O: round trips through every format, typed errors with line numbers, and
//! robustness against truncated, hostile and random input.

use std::path::Path;

use geometry_core::generators::octa_sphere;
use geometry_core::io::{MeshFormat, MeshIoError, read_mesh, read_mesh_from, write_mesh, write_mesh_to};
use geometry_core::{DVec3, MeshError, TriMesh};
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

// ---------------------------------------------------------------------------------------------
// Helpers

fn to_bytes(mesh: &TriMesh, format: MeshFormat) -> Vec<u8> {
    let mut bytes = Vec::new();
    write_mesh_to(&mut bytes, mesh, format).unwrap();
    bytes
}

fn read_str(text: &str, format: MeshFormat) -> Result<TriMesh, MeshIoError> {
    read_mesh_from(text.as_bytes(), format, "test")
}

fn bits(v: DVec3) -> [u64; 3] {
    v.to_array().map(f64::to_bits)
}

/// The mesh's triangles as corner coordinates, in face order.
fn triangles(mesh: &TriMesh) -> Vec<[DVec3; 3]> {
    mesh.faces().iter().map(|f| f.map(|i| mesh.vertices()[i as usize])).collect()
}

fn round_f32(v: DVec3) -> DVec3 {
    DVec3::from_array(v.to_array().map(|c| f64::from(c as f32)))
}

/// Writes `mesh` in `format`, reads it back and checks what the format promises:
/// * OBJ, OFF, PLY: identical vertex bits and faces;
/// * ASCII STL: identical triangles (exact `f64`), vertices welded;
/// * binary STL: identical triangles after rounding the original to `f32`; if that rounding
///   makes the mesh invalid, reading must say so with a `Mesh` error.
fn check_round_trip(mesh: &TriMesh, format: MeshFormat) -> Result<(), TestCaseError> {
    let bytes = to_bytes(mesh, format);
    let back = read_mesh_from(bytes.as_slice(), format, "round-trip");
    match format {
        MeshFormat::Obj | MeshFormat::Off | MeshFormat::PlyAscii | MeshFormat::PlyBinary => {
            let back = back.map_err(|e| TestCaseError::fail(format!("{format:?}: {e}")))?;
            let expected: Vec<_> = mesh.vertices().iter().map(|&v| bits(v)).collect();
            let actual: Vec<_> = back.vertices().iter().map(|&v| bits(v)).collect();
            prop_assert_eq!(actual, expected, "{:?} vertices", format);
            prop_assert_eq!(back.faces(), mesh.faces(), "{:?} faces", format);
        }
        MeshFormat::StlAscii => {
            let back = back.map_err(|e| TestCaseError::fail(format!("{format:?}: {e}")))?;
            prop_assert_eq!(triangles(&back), triangles(mesh));
            prop_assert!(back.vertices().len() <= mesh.vertices().len());
        }
        MeshFormat::StlBinary => {
            let rounded: Vec<DVec3> = mesh.vertices().iter().map(|&v| round_f32(v)).collect();
            match TriMesh::new(rounded, mesh.faces().to_vec()) {
                Ok(expected) => {
                    let back = back.map_err(|e| TestCaseError::fail(format!("{format:?}: {e}")))?;
                    prop_assert_eq!(triangles(&back), triangles(&expected));
                }
                Err(_) => prop_assert!(matches!(back, Err(MeshIoError::Mesh { .. })), "{:?}", back),
            }
        }
    }
    Ok(())
}

/// `octa_sphere(level)` with every vertex moved by a random offset (full-precision `f64`s), then
/// scaled and translated.
fn random_mesh(level: usize, seed: u64, scale: f64, shift: DVec3) -> Option<TriMesh> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (vertices, faces) = octa_sphere(level).unwrap().into_parts();
    let vertices = vertices
        .into_iter()
        .map(|v| {
            let jitter = DVec3::new(
                rng.random_range(-0.05..0.05),
                rng.random_range(-0.05..0.05),
                rng.random_range(-0.05..0.05),
            );
            (v + jitter + shift) * scale
        })
        .collect();
    TriMesh::new(vertices, faces).ok()
}

fn tetrahedron() -> TriMesh {
    let vertices = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
    TriMesh::new(vertices, vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]).unwrap()
}

// ---------------------------------------------------------------------------------------------
// Round trips

#[test]
fn octa_spheres_round_trip_through_every_format() {
    for level in 0..=3 {
        let sphere = octa_sphere(level).unwrap();
        for format in MeshFormat::ALL {
            check_round_trip(&sphere, format).unwrap();
        }
    }
}

#[test]
fn awkward_numbers_round_trip_exactly_in_text_and_double_formats() {
    // Tiny and huge magnitudes (at the ends of the range a mesh accepts), negative zero, and
    // values with all 53 mantissa bits.
    for scale in [1e-69, 1.0 / 3.0, 1e69, -7.123_456_789_012_345e20] {
        let (mut vertices, faces) = tetrahedron().into_parts();
        for v in &mut vertices {
            *v = (*v + DVec3::new(0.1, -0.0, std::f64::consts::PI)) * scale;
        }
        vertices[0].y = -0.0;
        let mesh = TriMesh::new(vertices, faces).unwrap();
        for format in [
            MeshFormat::Obj,
            MeshFormat::Off,
            MeshFormat::PlyAscii,
            MeshFormat::PlyBinary,
            MeshFormat::StlAscii,
        ] {
            check_round_trip(&mesh, format).unwrap();
        }
    }
    // Negative zero keeps its sign through text.
    let (mut vertices, faces) = tetrahedron().into_parts();
    vertices[0] = DVec3::new(-0.0, -0.0, -0.0);
    let mesh = TriMesh::new(vertices, faces).unwrap();
    for format in [MeshFormat::Obj, MeshFormat::Off, MeshFormat::PlyAscii, MeshFormat::PlyBinary] {
        let back = read_mesh_from(to_bytes(&mesh, format).as_slice(), format, "neg-zero").unwrap();
        assert!(back.vertices()[0].x.is_sign_negative(), "{format:?}");
    }
}

#[test]
fn files_on_disk_round_trip_and_extension_picks_the_format() {
    let dir = tempfile::tempdir().unwrap();
    let sphere = octa_sphere(2).unwrap();
    for name in ["s.obj", "s.OFF", "s.ply", "s.stl"] {
        let path = dir.path().join(name);
        let format = MeshFormat::from_path(&path).unwrap();
        write_mesh(&path, &sphere, format).unwrap();
        let back = read_mesh(&path).unwrap();
        assert_eq!(back.faces().len(), sphere.faces().len(), "{name}");
        assert!(back.report().is_outward(), "{name}");
    }
    // The default for .stl and .ply is binary; ASCII written to a .stl/.ply path is detected.
    let bytes = std::fs::read(dir.path().join("s.ply")).unwrap();
    assert!(bytes.starts_with(b"ply\nformat binary_little_endian 1.0\n"));
    assert!(!std::fs::read(dir.path().join("s.stl")).unwrap().starts_with(b"solid"));
    for format in [MeshFormat::StlAscii, MeshFormat::PlyAscii] {
        let path = dir.path().join(format!("ascii.{}", format.extension()));
        write_mesh(&path, &sphere, format).unwrap();
        let back = read_mesh(&path).unwrap();
        assert_eq!(triangles(&back), triangles(&sphere), "{format:?}");
    }
}

#[test]
fn from_path_maps_extensions() {
    let f = |p: &str| MeshFormat::from_path(Path::new(p));
    assert_eq!(f("a.obj"), Some(MeshFormat::Obj));
    assert_eq!(f("dir.v2/a.STL"), Some(MeshFormat::StlBinary));
    assert_eq!(f("a.Ply"), Some(MeshFormat::PlyBinary));
    assert_eq!(f("a.off"), Some(MeshFormat::Off));
    assert_eq!(f("a.obj.gz"), None);
    assert_eq!(f("obj"), None);
    assert_eq!(f(".obj"), None);
    for format in MeshFormat::ALL {
        assert_eq!(format.is_binary(), matches!(format, MeshFormat::StlBinary | MeshFormat::PlyBinary));
        assert!(f(&format!("x.{}", format.extension())).is_some());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_meshes_round_trip_through_every_format(
        level in 0usize..=2,
        seed in any::<u64>(),
        exponent in -30i32..=30,
        mantissa in 1.0f64..10.0,
        shift in prop::array::uniform3(-10.0f64..10.0),
    ) {
        let scale = mantissa * 10f64.powi(exponent);
        let Some(mesh) = random_mesh(level, seed, scale, DVec3::from_array(shift)) else {
            return Err(TestCaseError::reject("perturbation made a degenerate face"));
        };
        for format in MeshFormat::ALL {
            check_round_trip(&mesh, format)?;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Reading what other programs write

#[test]
fn obj_with_texture_normals_quads_negative_indices_and_comments() {
    let obj = "\u{feff}# exported\r\nmtllib a.mtl\no cube\nv 0 0 0\nv 1 0 0 1.0\nv 1 1 0 0.5 0.5 0.5\nv 0 1 0\n\
               vt 0 0\nvn 0 0 1\ng top\nusemtl red\ns off\n\
               f 1/1/1 2/1/1 3/1/1 4/1/1 # a quad\nf -4//1 -2//1 -1//1\nl 1 2\n";
    let mesh = read_str(obj, MeshFormat::Obj).unwrap();
    assert_eq!(mesh.vertices().len(), 4);
    assert_eq!(mesh.faces(), &[[0, 1, 2], [0, 2, 3], [0, 2, 3]]);
}

#[test]
fn off_variants_and_layouts() {
    // Counts on the keyword line, comments, colours on vertices and faces.
    let off = "COFF 4 2 0\n# vertices\n0 0 0 255 0 0 255\n1 0 0 0 255 0 255\n1 1 0 0 0 255 255\n\n\
               0 1 0 9 9 9 9\n3 0 1 2 1 0 0\n3 0 2 3\n";
    let mesh = read_str(off, MeshFormat::Off).unwrap();
    assert_eq!(mesh.faces(), &[[0, 1, 2], [0, 2, 3]]);
    for header in ["4OFF", "nOFF", "OFF BINARY", "PLY"] {
        let err = read_str(&format!("{header}\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"), MeshFormat::Off);
        assert!(matches!(err, Err(MeshIoError::Parse { line: Some(1), .. })), "{header}: {err:?}");
    }
}

#[test]
fn ascii_stl_with_several_solids_and_a_quad_loop() {
    let stl = "solid a\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0 0\n   vertex 1 1 0\n\
               vertex 0 1 0\n  endloop\n endfacet\nendsolid a\nsolid b\nFACET NORMAL 0 0 -1\nOUTER LOOP\n\
               VERTEX 0 0 0\nVERTEX 1 1 0\nVERTEX 1 0 0\nENDLOOP\nENDFACET\nendsolid\n";
    let mesh = read_str(stl, MeshFormat::StlAscii).unwrap();
    assert_eq!(mesh.vertices().len(), 4); // welded
    assert_eq!(mesh.faces(), &[[0, 1, 2], [0, 2, 3], [0, 2, 1]]);
}

#[test]
fn binary_stl_whose_header_starts_with_solid_is_read_as_binary() {
    let sphere = octa_sphere(1).unwrap();
    let mut bytes = to_bytes(&sphere, MeshFormat::StlBinary);
    bytes[..20].copy_from_slice(b"solid exported by X ");
    let mesh = read_mesh_from(bytes.as_slice(), MeshFormat::StlAscii, "solid.stl").unwrap();
    assert_eq!(triangles(&mesh).len(), sphere.faces().len());
    // Octa-sphere vertices are exact in f32 up to rounding; welding restores sharing.
    assert_eq!(mesh.vertices().len(), sphere.vertices().len());
    assert!(mesh.report().is_closed());
}

#[test]
fn ply_with_float_coordinates_extra_properties_and_other_elements() {
    let ply = "ply\nformat ascii 1.0\ncomment made by hand\nelement vertex 4\nproperty float x\n\
               property float y\nproperty float z\nproperty uchar red\nelement face 2\n\
               property list uchar uint vertex_index\nproperty float quality\nelement edge 1\n\
               property int vertex1\nproperty int vertex2\nend_header\n\
               0 0 0 255\n1 0 0 255\n1 1 0 255\n0 1 0 255\n4 0 1 2 3 0.5\n3 0 2 1 0.25\n0 1\n";
    let mesh = read_str(ply, MeshFormat::PlyAscii).unwrap();
    assert_eq!(mesh.faces(), &[[0, 1, 2], [0, 2, 3], [0, 2, 1]]);
}

/// Numbers with nothing on one side of the decimal point (`.5`, `-.25e1`, `2.`), which
/// `ply-rs-bw`'s grammar refuses, are read as Rust's parser reads the same tokens (the other
/// text formats use it), in float and double properties; a bad token after such a line is still
/// reported at its own line.
#[test]
fn ascii_ply_numbers_may_omit_a_digit_beside_the_point() {
    let tokens = [".5", "-.25e1", "2.", "+3.E-1", "-0.", ".75", "1.5", "4", "-.0"];
    for property in ["float", "double"] {
        let header = format!(
            "ply\nformat ascii 1.0\nelement vertex 4\nproperty {property} x\nproperty {property} y\n\
             property {property} z\nelement face 4\nproperty list uchar int vertex_indices\nend_header\n"
        );
        let faces = "3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n";
        // A tetrahedron whose coordinates are the tokens (each vertex off the others' plane).
        let rows = [
            format!("{} {} {}", tokens[0], "0", "0"),
            format!("{} {} {}", tokens[2], tokens[1], "0"),
            format!("{} {} {}", tokens[4], tokens[5], tokens[3]),
            format!("{} {} {}", tokens[6], tokens[7], tokens[8]),
        ];
        let text = format!("{header}{}\n{faces}", rows.join("\n"));
        let mesh = read_str(&text, MeshFormat::PlyAscii).unwrap();
        let expected: Vec<[f64; 3]> = rows
            .iter()
            .map(|row| {
                let v: Vec<f64> = row.split(' ').map(|t| t.parse::<f64>().unwrap()).collect();
                // float properties hold f32 values.
                let v =
                    if property == "float" { v.iter().map(|&x| f64::from(x as f32)).collect() } else { v };
                [v[0], v[1], v[2]]
            })
            .collect();
        let read: Vec<[f64; 3]> = mesh.vertices().iter().map(geometry_core::DVec3::to_array).collect();
        assert_eq!(read, expected, "{property}");
        // A token that is no number, on the line after a completed one (line 12), is refused
        // at its line.
        let bad = text.replacen(&rows[2], &format!("{} {} x", tokens[4], tokens[5]), 1);
        let err = read_str(&bad, MeshFormat::PlyAscii).unwrap_err();
        assert!(matches!(err, MeshIoError::Parse { line: Some(12), .. }), "{property}: {err:?}");
    }
    // Forms that are still not numbers stay refused: no digit at all, two points, a hex literal.
    for token in [".", "-.", "1.2.3", "0x1", ".e5"] {
        let text = format!(
            "ply\nformat ascii 1.0\nelement vertex 3\nproperty double x\nproperty double y\n\
             property double z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n\
             0 0 0\n{token} 0 0\n0 1 0\n3 0 1 2\n"
        );
        let err = read_str(&text, MeshFormat::PlyAscii).unwrap_err();
        assert!(matches!(err, MeshIoError::Parse { line: Some(11), .. }), "{token}: {err:?}");
    }
}

/// An edit of a PLY file's lines.
type PlyEdit = Box<dyn Fn(&mut Vec<String>)>;

/// Headers and lines that `ply-rs-bw` accepts but that would be read silently wrong, or that
/// the format does not define, are parse errors at their line.
#[test]
fn malformed_ply_headers_and_lines_are_refused_at_their_line() {
    let lines = [
        "ply",
        "format ascii 1.0",
        "element vertex 3",
        "property float x",
        "property float y",
        "property float z",
        "element face 1",
        "property list uchar int vertex_index",
        "end_header",
        "0 0 0",
        "1 0 0",
        "0 1 0",
        "3 0 1 2",
    ];
    let text = |edit: &dyn Fn(&mut Vec<String>)| {
        let mut lines: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
        edit(&mut lines);
        lines.join("\n") + "\n"
    };
    assert_eq!(read_str(&text(&|_| {}), MeshFormat::PlyAscii).unwrap().faces(), &[[0, 1, 2]]);
    let replace = |line: usize, with: &'static str| move |l: &mut Vec<String>| l[line - 1] = with.to_owned();
    let insert =
        |line: usize, with: &'static str| move |l: &mut Vec<String>| l.insert(line - 1, with.to_owned());
    let cases: [(&str, PlyEdit, usize); 8] = [
        ("version 2.0", Box::new(replace(2, "format ascii 2.0")), 2),
        ("version 1.1", Box::new(replace(2, "format ascii 1.1")), 2),
        ("repeated property", Box::new(insert(7, "property float y")), 7),
        (
            "repeated element",
            Box::new(|l: &mut Vec<String>| {
                l.insert(8, "element face 0".to_owned());
                l.insert(9, "property list uchar int vertex_index".to_owned());
            }),
            9,
        ),
        ("float list count", Box::new(replace(8, "property list float int vertex_index")), 8),
        ("extra vertex value", Box::new(replace(11, "1 0 0 5")), 11),
        ("extra face value", Box::new(replace(13, "3 0 1 2 9")), 13),
        ("extra value after an empty list", Box::new(replace(13, "0 7")), 13),
    ];
    for (what, edit, line) in cases {
        let err = read_str(&text(&*edit), MeshFormat::PlyAscii).unwrap_err();
        assert!(matches!(err, MeshIoError::Parse { line: l, .. } if l == Some(line)), "{what}: {err:?}");
    }
}

/// An ASCII list count must fit the count type the header declares (`ply-rs-bw` reads any
/// size); the largest that fits is read.
#[test]
fn ascii_ply_list_counts_must_fit_their_declared_type() {
    let with_extra = |count_type: &str, count: usize| {
        format!(
            "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n\
             element face 1\nproperty list uchar int vertex_index\nelement extra 1\n\
             property list {count_type} uchar values\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n{count}{}\n",
            " 7".repeat(count)
        )
    };
    for (count_type, largest) in [("char", 127), ("uchar", 255), ("int8", 127), ("uint8", 255)] {
        let fits = read_str(&with_extra(count_type, largest), MeshFormat::PlyAscii);
        assert_eq!(fits.unwrap().faces(), &[[0, 1, 2]], "{count_type} {largest}");
        let err = read_str(&with_extra(count_type, largest + 1), MeshFormat::PlyAscii).unwrap_err();
        assert!(matches!(err, MeshIoError::Parse { line: Some(16), .. }), "{count_type}: {err:?}");
    }
}

/// Repeated names are found however long the header (a hash set per header, not a scan of the
/// names so far per line, which took seconds on a header of 100 000 properties).
#[test]
fn repeated_ply_names_are_found_in_long_headers() {
    let header = |repeat: &str| {
        let mut text = String::from("ply\nformat ascii 1.0\nelement other 0\n");
        text.extend((0..5_000).map(|i| format!("property uchar p{i}\n")));
        text += repeat;
        text + "element vertex 3\nproperty float x\nproperty float y\nproperty float z\n\
                element face 1\nproperty list uchar int vertex_index\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"
    };
    assert_eq!(read_str(&header(""), MeshFormat::PlyAscii).unwrap().faces(), &[[0, 1, 2]]);
    let err = read_str(&header("property uchar p17\n"), MeshFormat::PlyAscii).unwrap_err();
    assert!(matches!(err, MeshIoError::Parse { line: Some(5_004), .. }), "{err:?}");
}

/// A coordinate outside the exact predicates' range is reported at its vertex's line, as the
/// other mesh errors are, in every text format.
#[test]
fn coordinates_out_of_range_are_reported_at_their_line() {
    let off = "OFF\n4 4 6\n0 0 0\n1 0 0\n0 1 0\n0 0 1e80\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n";
    let obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1e-80\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
    for (text, format, line) in [(off, MeshFormat::Off, 6), (obj, MeshFormat::Obj, 4)] {
        let err = read_str(text, format).unwrap_err();
        assert!(
            matches!(err, MeshIoError::Mesh { line: Some(l), source: MeshError::CoordinateOutOfRange { vertex: 3, .. }, .. } if l == line),
            "{format:?}: {err:?}"
        );
    }
}

/// Texture and normal indices follow the vertex index's rules: 1-based, relative when negative,
/// within the file's `vt` / `vn` statements (forward references allowed), in one of the four
/// corner forms. `1/0`, `1/5` with one `vt`, and `1/` were accepted (found by a review).
#[test]
fn obj_texture_and_normal_indices_are_checked() {
    let obj = |face: &str| format!("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\n{face}\nvt 1 1\n");
    for accepted in ["f 1/1 2/2 3/1", "f 1/-1/1 2/1/-1 3//1", "f 1//1 2//1 3//1", "f 1 2 3"] {
        let mesh = read_str(&obj(accepted), MeshFormat::Obj).unwrap();
        assert_eq!(mesh.faces(), &[[0, 1, 2]], "{accepted}");
    }
    for refused in [
        "f 1/0 2/1 3/1",
        "f 1/1/0 2/1/1 3/1/1",
        "f 1/3 2/1 3/1",
        "f 1/1/2 2/1/1 3/1/1",
        "f 1/-2 2/1 3/1",
        "f 1/ 2/ 3/",
        "f 1// 2// 3//",
        "f 1/1/ 2/1/1 3/1/1",
        "f /1 2 3",
        "f 1/1/1/1 2 3",
    ] {
        let err = read_str(&obj(refused), MeshFormat::Obj).unwrap_err();
        assert!(matches!(err, MeshIoError::Parse { line: Some(6), .. }), "{refused}: {err:?}");
    }
    // An index too long for any integer type is out of range, and says so.
    let err = read_str(&obj("f 1 2 18446744073709551616"), MeshFormat::Obj).unwrap_err();
    assert!(err.to_string().contains("out of range"), "{err}");
}

/// An OBJ vertex is `x y z`, `x y z w` or `x y z r g b`: 5 or 7 values are refused.
#[test]
fn obj_vertices_take_three_four_or_six_values() {
    let obj = |v: &str| format!("v 0 0 0\nv 1 0 0\n{v}\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
    for accepted in ["v 0 1 0", "v 0 1 0 1", "v 0 1 0 0.5 0.5 0.5"] {
        assert_eq!(read_str(&obj(accepted), MeshFormat::Obj).unwrap().vertices()[2], DVec3::Y, "{accepted}");
    }
    for refused in ["v 0 1", "v 0 1 0 1 1", "v 0 1 0 1 1 1 1"] {
        let err = read_str(&obj(refused), MeshFormat::Obj).unwrap_err();
        assert!(matches!(err, MeshIoError::Parse { line: Some(3), .. }), "{refused}: {err:?}");
    }
}

/// A binary PLY built by hand: `float` coordinates, `int` indices with a `short` count.
fn binary_ply(big_endian: bool, corners: &[i32], truncate: usize) -> Vec<u8> {
    let order = if big_endian { "binary_big_endian" } else { "binary_little_endian" };
    let mut bytes = format!(
        "ply\nformat {order} 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n\
         element face 1\nproperty list short int vertex_indices\nend_header\n"
    )
    .into_bytes();
    let coords = [0.0f32, 0.0, 0.0, 1.5, 0.0, 0.0, 0.0, 2.5, 0.0];
    for c in coords {
        bytes.extend(if big_endian { c.to_be_bytes() } else { c.to_le_bytes() });
    }
    let n = corners.len() as i16;
    bytes.extend(if big_endian { n.to_be_bytes() } else { n.to_le_bytes() });
    for &i in corners {
        bytes.extend(if big_endian { i.to_be_bytes() } else { i.to_le_bytes() });
    }
    bytes.truncate(bytes.len() - truncate);
    bytes
}

#[test]
fn binary_ply_of_either_byte_order_with_float_and_int_types() {
    for big_endian in [false, true] {
        let mesh =
            read_mesh_from(binary_ply(big_endian, &[0, 1, 2], 0).as_slice(), MeshFormat::PlyBinary, "b.ply")
                .unwrap();
        assert_eq!(mesh.vertices()[1], DVec3::new(1.5, 0.0, 0.0));
        assert_eq!(mesh.vertices()[2], DVec3::new(0.0, 2.5, 0.0));
        assert_eq!(mesh.faces(), &[[0, 1, 2]]);
    }
}

// ---------------------------------------------------------------------------------------------
// Typed errors

#[test]
fn missing_file_is_an_io_error_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing.obj");
    let err = read_mesh(&path).unwrap_err();
    let MeshIoError::Io { path: p, source } = &err else { panic!("{err:?}") };
    assert_eq!(p, &path.display().to_string());
    assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
    assert!(err.to_string().contains("missing.obj"));

    let err =
        write_mesh(dir.path().join("no/such/dir/out.obj"), &tetrahedron(), MeshFormat::Obj).unwrap_err();
    assert!(matches!(err, MeshIoError::Io { .. }), "{err:?}");
}

#[test]
fn unknown_extension_is_reported_before_touching_the_file() {
    for path in ["mesh.xyz", "mesh", "/no/such/dir/mesh.3ds"] {
        let err = read_mesh(path).unwrap_err();
        assert!(matches!(&err, MeshIoError::UnknownFormat { path: p } if p == path), "{err:?}");
    }
}

/// A valid triangle in each text format, with the line number of its second vertex and a way to
/// replace that vertex's x coordinate.
fn triangle_file(format: MeshFormat, x: &str) -> (String, usize) {
    match format {
        MeshFormat::Obj => (format!("# c\nv 0 0 0\nv {x} 0 0\nv 0 1 0\nf 1 2 3\n"), 3),
        MeshFormat::Off => (format!("OFF\n3 1 0\n0 0 0\n{x} 0 0\n0 1 0\n3 0 1 2\n"), 4),
        MeshFormat::StlAscii => (
            format!(
                "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex {x} 0 0\nvertex 0 1 0\nendloop\n\
                 endfacet\nendsolid t\n"
            ),
            5,
        ),
        MeshFormat::PlyAscii => (
            format!(
                "ply\nformat ascii 1.0\nelement vertex 3\nproperty double x\nproperty double y\n\
                 property double z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n\
                 0 0 0\n{x} 0 0\n0 1 0\n3 0 1 2\n"
            ),
            11,
        ),
        _ => unreachable!(),
    }
}

const TEXT_FORMATS: [MeshFormat; 4] =
    [MeshFormat::Obj, MeshFormat::Off, MeshFormat::StlAscii, MeshFormat::PlyAscii];

#[test]
fn malformed_number_names_its_line() {
    for format in TEXT_FORMATS {
        let (good, _) = triangle_file(format, "1");
        read_str(&good, format).unwrap();
        for bad in ["1.0.0", "1,5", "0x10", "one"] {
            let (text, line) = triangle_file(format, bad);
            let err = read_str(&text, format).unwrap_err();
            assert!(
                matches!(err, MeshIoError::Parse { line: l, .. } if l == Some(line)),
                "{format:?} {bad}: {err:?}"
            );
            assert!(err.to_string().starts_with(&format!("test:{line}: ")), "{err}");
        }
    }
}

#[test]
fn nan_coordinate_is_a_mesh_error_at_its_line() {
    for format in [MeshFormat::Obj, MeshFormat::Off, MeshFormat::StlAscii] {
        for nan in ["NaN", "nan", "inf", "-inf"] {
            let (text, line) = triangle_file(format, nan);
            let err = read_str(&text, format).unwrap_err();
            assert!(
                matches!(
                    err,
                    MeshIoError::Mesh { line: l, source: MeshError::NonFiniteVertex { vertex: 1 }, .. } if l == Some(line)
                ),
                "{format:?}: {err:?}"
            );
        }
    }
    // ASCII PLY's grammar has no NaN: it is a parse error on that line.
    let (text, line) = triangle_file(MeshFormat::PlyAscii, "nan");
    assert!(
        matches!(read_str(&text, MeshFormat::PlyAscii), Err(MeshIoError::Parse { line: l, .. }) if l == Some(line))
    );

    // Binary formats: NaN bits in the data.
    let mut stl = to_bytes(&tetrahedron(), MeshFormat::StlBinary);
    stl[84 + 12..84 + 16].copy_from_slice(&f32::NAN.to_le_bytes());
    let err = read_mesh_from(stl.as_slice(), MeshFormat::StlBinary, "nan.stl").unwrap_err();
    assert!(matches!(
        err,
        MeshIoError::Mesh { line: None, source: MeshError::NonFiniteVertex { vertex: 0 }, .. }
    ));

    let (mut vertices, faces) = tetrahedron().into_parts();
    vertices[2].z = 0.125;
    let mut ply = to_bytes(&TriMesh::new(vertices, faces).unwrap(), MeshFormat::PlyBinary);
    let at = ply.windows(8).position(|w| w == 0.125f64.to_le_bytes()).unwrap();
    ply[at..at + 8].copy_from_slice(&f64::NAN.to_le_bytes());
    let err = read_mesh_from(ply.as_slice(), MeshFormat::PlyBinary, "nan.ply").unwrap_err();
    assert!(matches!(
        err,
        MeshIoError::Mesh { line: None, source: MeshError::NonFiniteVertex { vertex: 2 }, .. }
    ));
}

#[test]
fn face_index_out_of_range_is_a_mesh_error_at_its_line() {
    let cases = [
        (MeshFormat::Obj, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 4\n", 5, 3),
        (MeshFormat::Obj, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 4000000000\n", 5, 3_999_999_999),
        (MeshFormat::Off, "OFF\n3 2\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n\n3 0 1 3\n", 8, 3),
        (
            MeshFormat::PlyAscii,
            "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n\
             element face 2\nproperty list uchar int vertex_index\nend_header\n0 0 0\n1 0 0\n0 1 0\n\
             3 0 1 2\n3 0 7 1\n",
            14,
            7,
        ),
    ];
    for (format, text, line, index) in cases {
        let err = read_str(text, format).unwrap_err();
        assert!(
            matches!(
                err,
                MeshIoError::Mesh { line: l, source: MeshError::IndexOutOfRange { face: 1, index: i, vertex_count: 3 }, .. }
                    if l == Some(line) && i == index
            ),
            "{format:?}: {err:?}"
        );
    }
    let err =
        read_mesh_from(binary_ply(false, &[0, 1, 3], 0).as_slice(), MeshFormat::PlyBinary, "b").unwrap_err();
    assert!(matches!(
        err,
        MeshIoError::Mesh { line: None, source: MeshError::IndexOutOfRange { index: 3, .. }, .. }
    ));
}

#[test]
fn bad_indices_are_parse_errors_at_their_line() {
    let base = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
    for face in
        ["f 0 1 2", "f 1 2 -4", "f 1 2 x", "f 1/a 2 3", "f 1/2/3/4 2 3", "f 1 2 3.0", "f 1 2 99999999999"]
    {
        let err = read_str(&format!("{base}{face}\n"), MeshFormat::Obj).unwrap_err();
        assert!(matches!(err, MeshIoError::Parse { line: Some(4), .. }), "{face}: {err:?}");
    }
    let off = "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 -2\n";
    assert!(matches!(read_str(off, MeshFormat::Off), Err(MeshIoError::Parse { line: Some(6), .. })));
    let err =
        read_mesh_from(binary_ply(true, &[0, -1, 2], 0).as_slice(), MeshFormat::PlyBinary, "b").unwrap_err();
    assert!(matches!(err, MeshIoError::Parse { line: None, .. }), "{err:?}");
    // Unknown OBJ statements are not silently dropped.
    let err = read_str(&format!("{base}vertex 1 2 3\nf 1 2 3\n"), MeshFormat::Obj).unwrap_err();
    assert!(matches!(err, MeshIoError::Parse { line: Some(4), .. }), "{err:?}");
}

#[test]
fn face_with_two_vertices_is_an_unsupported_polygon_at_its_line() {
    let cases = [
        (MeshFormat::Obj, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 2 3\n".to_owned(), 5),
        (MeshFormat::Off, "OFF\n3 2 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n2 1 2\n".to_owned(), 7),
        (
            MeshFormat::PlyAscii,
            "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n\
             element face 2\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n\
             3 0 1 2\n2 1 2\n"
                .to_owned(),
            14,
        ),
        (
            MeshFormat::StlAscii,
            "solid s\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\n\
             endfacet\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nendloop\nendfacet\nendsolid\n"
                .to_owned(),
            9,
        ),
    ];
    for (format, text, line) in cases {
        let err = read_str(&text, format).unwrap_err();
        assert!(
            matches!(err, MeshIoError::UnsupportedPolygon { line: l, face: 1, vertices: 2, .. } if l == Some(line)),
            "{format:?}: {err:?}"
        );
        assert_eq!(err.line(), Some(line));
    }
    let err =
        read_mesh_from(binary_ply(false, &[0, 1], 0).as_slice(), MeshFormat::PlyBinary, "b").unwrap_err();
    assert!(
        matches!(err, MeshIoError::UnsupportedPolygon { line: None, face: 0, vertices: 2, .. }),
        "{err:?}"
    );
}

#[test]
fn degenerate_face_is_a_mesh_error_at_its_line() {
    // Face 2 (third triangle) has collinear corners; in OBJ it comes from a quad's second half.
    let obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 2 0 0\nf 1 2 3\n\nf 1 3 2 4\n";
    let err = read_str(obj, MeshFormat::Obj).unwrap_err();
    assert!(matches!(
        err,
        MeshIoError::Mesh { line: Some(7), source: MeshError::DegenerateFace { face: 2 }, .. }
    ));
    // Repeated index.
    let off = "OFF\n3 2 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n3 0 1 1\n";
    let err = read_str(off, MeshFormat::Off).unwrap_err();
    assert!(matches!(
        err,
        MeshIoError::Mesh { line: Some(7), source: MeshError::DegenerateFace { face: 1 }, .. }
    ));
    // In STL, the facet line is reported.
    let stl = "solid s\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 2 0 0\nendloop\n\
               endfacet\nendsolid s\n";
    let err = read_str(stl, MeshFormat::StlAscii).unwrap_err();
    assert!(matches!(
        err,
        MeshIoError::Mesh { line: Some(2), source: MeshError::DegenerateFace { face: 0 }, .. }
    ));
    // Binary STL: two corners that differ in f64 but not in f32 collapse.
    let tri =
        TriMesh::new(vec![DVec3::X, DVec3::new(1.0 + 1e-9, 0.0, 0.0), DVec3::Y], vec![[0, 1, 2]]).unwrap();
    let stl = to_bytes(&tri, MeshFormat::StlBinary);
    let err = read_mesh_from(stl.as_slice(), MeshFormat::StlBinary, "b").unwrap_err();
    assert!(matches!(
        err,
        MeshIoError::Mesh { line: None, source: MeshError::DegenerateFace { face: 0 }, .. }
    ));
}

#[test]
fn file_without_faces_is_an_empty_mesh_error() {
    let err = read_str("v 0 0 0\n", MeshFormat::Obj).unwrap_err();
    assert!(matches!(
        err,
        MeshIoError::Mesh { line: None, source: MeshError::Empty { vertices: 1, faces: 0 }, .. }
    ));
    let err = read_str("solid x\nendsolid x\n", MeshFormat::StlAscii).unwrap_err();
    assert!(matches!(err, MeshIoError::Mesh { source: MeshError::Empty { .. }, .. }));
}

#[test]
fn truncated_binary_stl_is_reported_as_truncated() {
    let bytes = to_bytes(&octa_sphere(1).unwrap(), MeshFormat::StlBinary);
    for len in [0, 10, 83, 84, 84 + 49, 84 + 50 * 3 + 7, bytes.len() - 1] {
        let err = read_mesh_from(&bytes[..len], MeshFormat::StlBinary, "cut.stl").unwrap_err();
        assert!(matches!(err, MeshIoError::Truncated { .. }), "{len}: {err:?}");
    }
    // Same with a header starting with "solid".
    let mut solid = bytes.clone();
    solid[..6].copy_from_slice(b"solid ");
    let err = read_mesh_from(&solid[..solid.len() - 50], MeshFormat::StlBinary, "cut.stl").unwrap_err();
    assert!(matches!(err, MeshIoError::Truncated { .. }), "{err:?}");
    // Trailing bytes are not silently ignored either.
    let mut long = bytes;
    long.push(0);
    let err = read_mesh_from(long.as_slice(), MeshFormat::StlBinary, "long.stl").unwrap_err();
    assert!(matches!(err, MeshIoError::Parse { line: None, .. }), "{err:?}");
}

#[test]
fn truncated_binary_ply_is_reported_as_truncated() {
    let bytes = to_bytes(&octa_sphere(1).unwrap(), MeshFormat::PlyBinary);
    let header_end = bytes.windows(11).position(|w| w == b"end_header\n").unwrap() + 11;
    for len in [header_end + 1, header_end + 100, bytes.len() - 13, bytes.len() - 1] {
        let err = read_mesh_from(&bytes[..len], MeshFormat::PlyBinary, "cut.ply").unwrap_err();
        assert!(matches!(err, MeshIoError::Truncated { .. }), "{len}: {err:?}");
    }
    // Cut inside the header.
    let err = read_mesh_from(&bytes[..header_end - 4], MeshFormat::PlyBinary, "cut.ply").unwrap_err();
    assert!(matches!(err, MeshIoError::Truncated { .. }), "{err:?}");
    // A hand-made file cut inside its face list.
    let err =
        read_mesh_from(binary_ply(true, &[0, 1, 2], 2).as_slice(), MeshFormat::PlyBinary, "b").unwrap_err();
    assert!(matches!(err, MeshIoError::Truncated { .. }), "{err:?}");
}

#[test]
fn truncated_text_files_are_reported_as_truncated() {
    let cases = [
        (MeshFormat::Off, "OFF\n3 1 0\n0 0 0\n1 0 0\n"),
        (MeshFormat::Off, "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n"),
        (MeshFormat::Off, "# only a comment\n"),
        (MeshFormat::StlAscii, "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n"),
        (
            MeshFormat::PlyAscii,
            "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n\
             end_header\n0 0 0\n",
        ),
    ];
    for (format, text) in cases {
        let err = read_str(text, format).unwrap_err();
        assert!(matches!(err, MeshIoError::Truncated { .. }), "{format:?} {text:?}: {err:?}");
    }
}

#[test]
fn huge_counts_in_headers_fail_fast_without_allocating() {
    let off = "OFF\n4000000000 4000000000 0\n0 0 0\n";
    assert!(matches!(read_str(off, MeshFormat::Off), Err(MeshIoError::Truncated { .. })));
    let off = "OFF\n18446744073709551615 1 0\n0 0 0\n";
    assert!(matches!(read_str(off, MeshFormat::Off), Err(MeshIoError::Truncated { .. })));
    let off = "OFF\n99999999999999999999999 1 0\n";
    assert!(matches!(read_str(off, MeshFormat::Off), Err(MeshIoError::Parse { line: Some(2), .. })));

    let mut stl = vec![0u8; 84 + 50];
    stl[80..84].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(
        read_mesh_from(stl.as_slice(), MeshFormat::StlBinary, "s"),
        Err(MeshIoError::Truncated { .. })
    ));

    for (elements, payload) in [
        (
            "element vertex 4000000000\nproperty double x\nproperty double y\nproperty double z\n",
            &[0u8; 24][..],
        ),
        // Elements without properties would take no bytes each: still bounded by the payload.
        ("element nothing 18446744073709551615\n", &[0u8; 4][..]),
        ("element face 4000000000\nproperty list uint int vertex_indices\n", &[255u8; 16][..]),
    ] {
        let mut ply = format!("ply\nformat binary_little_endian 1.0\n{elements}end_header\n").into_bytes();
        ply.extend_from_slice(payload);
        let err = read_mesh_from(ply.as_slice(), MeshFormat::PlyBinary, "p").unwrap_err();
        assert!(matches!(err, MeshIoError::Truncated { .. }), "{elements}: {err:?}");
    }
    // A huge list length inside the payload.
    let ply = "ply\nformat ascii 1.0\nelement face 1\nproperty list uint int vertex_indices\nend_header\n\
               4000000000 1 2 3\n";
    assert!(read_str(ply, MeshFormat::PlyAscii).is_err());
}

#[test]
fn ply_header_problems_are_parse_errors_at_the_element_line() {
    let header = |body: &str| format!("ply\nformat ascii 1.0\n{body}end_header\n");
    let no_z = header("element vertex 3\nproperty float x\nproperty float y\n");
    assert!(matches!(read_str(&no_z, MeshFormat::PlyAscii), Err(MeshIoError::Parse { line: Some(3), .. })));
    let float_list = header(
        "element vertex 0\nproperty float x\nproperty float y\nproperty float z\nelement face 0\n\
         property list uchar float vertex_indices\n",
    );
    assert!(matches!(
        read_str(&float_list, MeshFormat::PlyAscii),
        Err(MeshIoError::Parse { line: Some(7), .. })
    ));
    let err =
        read_str("ply\nformat ascii 1.0\nelement vertex x\nend_header\n", MeshFormat::PlyAscii).unwrap_err();
    assert!(matches!(err, MeshIoError::Parse { line: Some(3), .. }), "{err:?}");
    for not_ply in ["not a ply\n", "not a ply", "pl"] {
        let err = read_str(not_ply, MeshFormat::PlyAscii).unwrap_err();
        assert!(matches!(err, MeshIoError::Parse { line: Some(1), .. }), "{err:?}");
    }
}

#[test]
fn stl_structure_errors_name_their_line() {
    let cases = [
        ("solid s\nfacet normal 0 0 1\nvertex 0 0 0\n", 3),
        ("solid s\nfacet 0 0 1\n", 2),
        ("solid s\nendsolid s\ngarbage\n", 3),
        ("solid s\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0 0\n", 4),
        (
            "solid s\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendsolid\n",
            8,
        ),
    ];
    for (text, line) in cases {
        let err = read_str(text, MeshFormat::StlAscii).unwrap_err();
        assert!(matches!(err, MeshIoError::Parse { line: l, .. } if l == Some(line)), "{text:?}: {err:?}");
    }
}

#[test]
fn data_after_the_last_element_is_refused() {
    let off = "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n\n# fine\n3 0 1 2\n";
    assert!(matches!(read_str(off, MeshFormat::Off), Err(MeshIoError::Parse { line: Some(9), .. })));
    let (ply, _) = triangle_file(MeshFormat::PlyAscii, "1");
    read_str(&format!("{ply}\n  \n"), MeshFormat::PlyAscii).unwrap();
    let err = read_str(&format!("{ply}\n3 0 1 2\n"), MeshFormat::PlyAscii).unwrap_err();
    assert!(matches!(err, MeshIoError::Parse { line: Some(15), .. }), "{err:?}");
    let mut bin = binary_ply(false, &[0, 1, 2], 0);
    bin.push(7);
    let err = read_mesh_from(bin.as_slice(), MeshFormat::PlyBinary, "b").unwrap_err();
    assert!(matches!(err, MeshIoError::Parse { line: None, .. }), "{err:?}");
}

#[test]
fn binary_stl_refuses_coordinates_beyond_f32() {
    let (mut vertices, faces) = tetrahedron().into_parts();
    vertices[3].z = 1e60;
    let mesh = TriMesh::new(vertices, faces).unwrap();
    let err = write_mesh_to(Vec::new(), &mesh, MeshFormat::StlBinary).unwrap_err();
    assert!(
        matches!(&err, MeshIoError::Unrepresentable { path, format: MeshFormat::StlBinary, .. } if path == "<writer>"),
        "{err:?}"
    );
    // Every other format stores it.
    for format in
        [MeshFormat::Obj, MeshFormat::Off, MeshFormat::StlAscii, MeshFormat::PlyAscii, MeshFormat::PlyBinary]
    {
        check_round_trip(&mesh, format).unwrap();
    }
}

#[test]
fn writer_errors_are_io_errors() {
    struct Failing;
    impl std::io::Write for Failing {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk on fire"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    for format in MeshFormat::ALL {
        let err = write_mesh_to(Failing, &octa_sphere(3).unwrap(), format).unwrap_err();
        assert!(matches!(&err, MeshIoError::Io { path, .. } if path == "<writer>"), "{format:?}: {err:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Hostile input never panics

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600), text in "[ -~\n]{0,300}") {
        for format in MeshFormat::ALL {
            let _ = read_mesh_from(bytes.as_slice(), format, "random");
            let _ = read_mesh_from(text.as_bytes(), format, "random");
        }
    }

    #[test]
    fn damaged_files_never_panic(
        format_index in 0usize..6,
        cut in any::<prop::sample::Index>(),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
    ) {
        let format = MeshFormat::ALL[format_index];
        let mut bytes = to_bytes(&octa_sphere(1).unwrap(), format);
        for (at, value) in flips {
            let i = at.index(bytes.len());
            bytes[i] = value;
        }
        let len = cut.index(bytes.len() + 1);
        let _ = read_mesh_from(&bytes[..len], format, "damaged");
        let _ = read_mesh_from(bytes.as_slice(), format, "damaged");
    }
}

/// A UTF-8 byte-order mark at the start is skipped by every reader, PLY included (it was
/// refused as a bad magic number), ASCII and binary alike.
#[test]
fn a_byte_order_mark_is_skipped_in_every_format() {
    let sphere = octa_sphere(1).unwrap();
    for format in
        [MeshFormat::Obj, MeshFormat::Off, MeshFormat::StlAscii, MeshFormat::PlyAscii, MeshFormat::PlyBinary]
    {
        let plain = read_mesh_from(to_bytes(&sphere, format).as_slice(), format, "plain").unwrap();
        let mut marked = b"\xEF\xBB\xBF".to_vec();
        marked.extend(to_bytes(&sphere, format));
        let read = read_mesh_from(marked.as_slice(), format, "marked")
            .unwrap_or_else(|e| panic!("{format:?} with a byte-order mark: {e}"));
        assert_eq!(read.faces(), plain.faces(), "{format:?}");
        assert_eq!(read.vertices(), plain.vertices(), "{format:?}");
    }
}

/// STL facet normals of a valid mesh with tiny faces: the corner-unit tetrahedron scaled by
/// 2⁻²⁸⁰ and moved to 2⁻²³⁰ (about 6e-70, inside the exact range) on every axis. Its edges are
/// exact, and its cross products, about 1e-169, have squares that underflow in a plain
/// normalisation (the facets were written with zero normals); it gets the unit one's normals
/// bit for bit (found by the second I/O review).
#[test]
fn stl_facet_normals_of_tiny_faces_are_unit_vectors() {
    let tetrahedron = |s: f64, at: f64| {
        let vertices = [DVec3::ZERO, DVec3::X * s, DVec3::Y * s, DVec3::Z * s].map(|v| v + at).to_vec();
        TriMesh::new(vertices, vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]).unwrap()
    };
    let normals = |mesh: &TriMesh| {
        let mut text = Vec::new();
        write_mesh_to(&mut text, mesh, MeshFormat::StlAscii).unwrap();
        String::from_utf8(text)
            .unwrap()
            .lines()
            .filter_map(|l| l.trim().strip_prefix("facet normal ").map(str::to_owned))
            .collect::<Vec<_>>()
    };
    let unit = normals(&tetrahedron(1.0, 0.0));
    assert_eq!(unit.len(), 4);
    assert_eq!(unit[0], "0.0 0.0 -1.0");
    assert_eq!(normals(&tetrahedron(2f64.powi(-280), 2f64.powi(-230))), unit);
}
