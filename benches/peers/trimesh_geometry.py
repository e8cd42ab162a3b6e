#!/usr/bin/env python3
"""Peer for the `geometry` suite of `cargo xtask bench`: times trimesh's mesh validation.

Usage: trimesh_geometry.py MANIFEST.json

The manifest (written by benches/src/suites/geometry.rs) names, for each mesh, two raw files in
the manifest's directory: little-endian f64 vertices (n x 3) and little-endian u32 faces (m x 3),
plus the timing configuration the Rust side uses. For each mesh this script times

    mesh = trimesh.Trimesh(vertices, faces, process=False)
    mesh.is_watertight, mesh.is_winding_consistent, mesh.volume

on a fresh Trimesh every call (trimesh caches these properties per object), with the same
median-of-samples scheme as benches/src/timing.rs, and prints one JSON document on stdout.
Faces are converted to int64 (trimesh's native index type) before timing.
"""

import json
import os
import sys
import time

import numpy as np
import trimesh


def validate(vertices, faces):
    mesh = trimesh.Trimesh(vertices=vertices, faces=faces, process=False)
    return bool(mesh.is_watertight), bool(mesh.is_winding_consistent), float(mesh.volume)


def measure(fn, timing):
    """Median, min and max seconds per call, following benches/src/timing.rs."""
    started = time.perf_counter()
    t0 = time.perf_counter()
    fn()  # warm-up, also calibrates the batch size
    first = time.perf_counter() - t0
    if first >= timing["min_sample_time"]:
        iterations = 1
    else:
        iterations = max(1, min(10_000_000, int(-(-timing["min_sample_time"] // max(first, 1e-9)))))
    per_call = []
    while len(per_call) < max(1, timing["samples"]):
        t = time.perf_counter()
        for _ in range(iterations):
            fn()
        per_call.append((time.perf_counter() - t) / iterations)
        if len(per_call) >= max(1, timing["min_samples"]) and time.perf_counter() - started >= timing["max_total_time"]:
            break
    per_call.sort()
    n = len(per_call)
    median = per_call[n // 2] if n % 2 else 0.5 * (per_call[n // 2 - 1] + per_call[n // 2])
    return {"median": median, "min": per_call[0], "max": per_call[-1], "samples": n, "iterations_per_sample": iterations}


def main():
    manifest_path = sys.argv[1]
    root = os.path.dirname(os.path.abspath(manifest_path))
    with open(manifest_path) as f:
        manifest = json.load(f)
    results = []
    for case in manifest["cases"]:
        vertices = np.fromfile(os.path.join(root, case["vertices"]), dtype="<f8").reshape(-1, 3)
        faces = np.fromfile(os.path.join(root, case["faces"]), dtype="<u4").reshape(-1, 3).astype(np.int64)
        assert len(vertices) == case["n_vertices"] and len(faces) == case["n_faces"], case["case"]
        watertight, winding, volume = validate(vertices, faces)
        timing = measure(lambda: validate(vertices, faces), manifest["timing"])
        results.append(
            dict(
                case=case["case"],
                is_watertight=watertight,
                is_winding_consistent=winding,
                volume=volume,
                **timing,
            )
        )
        print(f"  trimesh {case['case']}: {timing['median'] * 1e3:.3f} ms", file=sys.stderr)
    json.dump(
        {"trimesh": trimesh.__version__, "numpy": np.__version__, "python": sys.version.split()[0], "results": results},
        sys.stdout,
    )
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
