//! Cross-checks our OBJ and OFF readers and writers against independent parser crates
//! (`tobj` with `f64` positions, `off-rs`), so that a bug shared by our writer and our reader
//! cannot hide behind a round trip.

use geometry_core::io::{MeshFormat, read_mesh_from, write_mesh_to};
use geometry_core::{DVec3, TriMesh, generators::octa_sphere};
use proptest::prelude::*;

fn perturbed_sphere(level: usize, seed: &[f64]) -> TriMesh {
    let (mut vertices, faces) = octa_sphere(level).unwrap().into_parts();
    for (i, v) in vertices.iter_mut().enumerate() {
        let s = seed[i % seed.len()];
        *v = *v * (1.0 + 0.1 * s) + DVec3::new(s, -s, 0.5 * s) * 1e3;
    }
    TriMesh::new(vertices, faces).unwrap()
}

fn tobj_parse(text: &str) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let options = tobj::LoadOptions { triangulate: true, ..Default::default() };
    let (models, _) =
        tobj::load_obj_buf(&mut text.as_bytes(), &options, |_| Err(tobj::LoadError::OpenFileFailed)).unwrap();
    let mut vertices = Vec::new();
    let mut faces = Vec::new();
    for model in models {
        let m = model.mesh;
        let base = vertices.len() as u32;
        vertices.extend(m.positions.chunks(3).map(|p| DVec3::new(p[0], p[1], p[2])));
        faces.extend(m.indices.chunks(3).map(|f| [base + f[0], base + f[1], base + f[2]]));
    }
    (vertices, faces)
}

/// Our faces mapped to positions, so that meshes with different vertex numbering compare.
fn triangles(vertices: &[DVec3], faces: &[[u32; 3]]) -> Vec<[[u64; 3]; 3]> {
    faces.iter().map(|f| f.map(|i| vertices[i as usize].to_array().map(f64::to_bits))).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    /// tobj reads what we write, bit for bit.
    #[test]
    fn tobj_reads_our_obj(level in 0usize..3, seed in prop::collection::vec(-1.0f64..1.0, 1..16)) {
        let mesh = perturbed_sphere(level, &seed);
        let mut text = Vec::new();
        write_mesh_to(&mut text, &mesh, MeshFormat::Obj).unwrap();
        let (vertices, faces) = tobj_parse(std::str::from_utf8(&text).unwrap());
        prop_assert_eq!(triangles(&vertices, &faces), triangles(mesh.vertices(), mesh.faces()));
    }

    /// off-rs reads what we write (its positions are `f32`: compare after rounding).
    #[test]
    fn off_rs_reads_our_off(level in 0usize..3, seed in prop::collection::vec(-1.0f64..1.0, 1..16)) {
        let mesh = perturbed_sphere(level, &seed);
        let mut text = Vec::new();
        write_mesh_to(&mut text, &mesh, MeshFormat::Off).unwrap();
        let theirs = off_rs::parse(std::str::from_utf8(&text).unwrap(), off_rs::parser::options::Options::default()).unwrap();
        prop_assert_eq!(theirs.vertices.len(), mesh.vertices().len());
        for (v, ours) in theirs.vertices.iter().zip(mesh.vertices()) {
            let p = &v.position;
            prop_assert_eq!([p.x, p.y, p.z], ours.to_array().map(|c| c as f32));
        }
        let faces: Vec<Vec<usize>> = theirs.faces.iter().map(|f| f.vertices.clone()).collect();
        let ours: Vec<Vec<usize>> = mesh.faces().iter().map(|f| f.iter().map(|&i| i as usize).collect()).collect();
        prop_assert_eq!(faces, ours);
    }
}

/// We read what tobj-style hand-written OBJ contains: slashes, negative indices, quads, comments.
#[test]
fn our_obj_reader_agrees_with_tobj_on_varied_syntax() {
    let text = "# a unit cube written with every face syntax\n\
        o cube\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n\
        vt 0 0\nvn 0 0 1\n\
        f 1 4 3 2\nf 5/1 6/1 7/1 8/1\nf 1//1 2//1 6//1 5//1\n\
        f -6/1/1 -5/1/1 -1/1/1 -2/1/1\nf 2 3 7 6\nf 4 1 5 8\n";
    let ours = read_mesh_from(text.as_bytes(), MeshFormat::Obj, "cube.obj").unwrap();
    let (vertices, faces) = tobj_parse(text);
    assert_eq!(triangles(ours.vertices(), ours.faces()), triangles(&vertices, &faces));
    assert!(ours.require_solid().is_ok());
    assert!((ours.report().signed_volume() - 1.0).abs() < 1e-15);
}

/// We read what off-rs writes.
#[test]
fn we_read_off_rs_output() {
    use off_rs::geometry::{
        mesh::{Face, Mesh, Vertex},
        position::Position,
    };
    let sphere = octa_sphere(2).unwrap();
    let mesh = Mesh {
        vertices: sphere
            .vertices()
            .iter()
            .map(|v| Vertex::new(Position::new(v.x as f32, v.y as f32, v.z as f32), None))
            .collect(),
        faces: sphere
            .faces()
            .iter()
            .map(|f| Face::new(f.iter().map(|&i| i as usize).collect(), None))
            .collect(),
    };
    let mut buffer = Vec::new();
    off_rs::write(&mesh, &mut buffer, off_rs::writer::options::Options::default()).unwrap();
    let ours = read_mesh_from(buffer.as_slice(), MeshFormat::Off, "off-rs.off").unwrap();
    assert_eq!(ours.faces(), sphere.faces());
    for (a, b) in ours.vertices().iter().zip(sphere.vertices()) {
        // off-rs prints the shortest decimal of each `f32`; we read that decimal as `f64`.
        assert_eq!(a.to_array().map(|c| c as f32), b.to_array().map(|c| c as f32));
    }
}
