"""FMM3D's Laplace FMM with dipoles (the double layer potential J) on one case.

Arguments: a directory holding V.f64 (vertices, n x 3), F.i64 (faces, m x 3) and Q.f64
(query points, k x 3) as raw little-endian arrays. The double layer potential
J(x) = -1/(4 pi) int n_y . grad_y 1/|x - y| ds_y is discretised by the 3-point rule of
degree 2 on every triangle (points at barycentric (2/3, 1/6, 1/6) and permutations, a third
of the area each), one dipole per point. fmm3dpy 2.1 evaluates the kernel with its 1/(4 pi):
u(x) = sum_j -v_j . grad_x 1/(4 pi |x - x_j|) = (1/(4 pi)) sum_j v_j . grad_y 1/|x - y|, so
v_j = -(area_j / 3) n_j gives u = J (checked: 1 at the centre of a sphere, 0 outside).
Requested precision eps = 1e-3, one thread
(OMP_NUM_THREADS=1). Writes W.f64 (J at every query point) and prints {"seconds": ...}: the
time of the FMM call (the sources are built before the clock starts).
"""
import json
import os
import sys
import time

os.environ["OMP_NUM_THREADS"] = "1"

import numpy as np  # noqa: E402
import fmm3dpy  # noqa: E402

folder = sys.argv[1]
V = np.fromfile(os.path.join(folder, "V.f64"), dtype="<f8").reshape(-1, 3)
F = np.fromfile(os.path.join(folder, "F.i64"), dtype="<i8").reshape(-1, 3)
Q = np.fromfile(os.path.join(folder, "Q.f64"), dtype="<f8").reshape(-1, 3)
a, b, c = V[F[:, 0]], V[F[:, 1]], V[F[:, 2]]
# |(b - a) x (c - a)| = 2 area; a third of the area per point: N / 6.
dipole = -np.cross(b - a, c - a) / 6.0
sources, dipoles = [], []
for wa, wb, wc in ((2 / 3, 1 / 6, 1 / 6), (1 / 6, 2 / 3, 1 / 6), (1 / 6, 1 / 6, 2 / 3)):
    sources.append(wa * a + wb * b + wc * c)
    dipoles.append(dipole)
sources = np.ascontiguousarray(np.concatenate(sources).T)
dipoles = np.ascontiguousarray(np.concatenate(dipoles).T)
targets = np.ascontiguousarray(Q.T)
start = time.perf_counter()
out = fmm3dpy.lfmm3d(eps=1e-3, sources=sources, dipvec=dipoles, targets=targets, pgt=1)
seconds = time.perf_counter() - start
np.asarray(out.pottarg, dtype="<f8").tofile(os.path.join(folder, "W.f64"))
print(json.dumps({"seconds": seconds}))
