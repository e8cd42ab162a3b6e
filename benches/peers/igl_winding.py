"""libigl's fast winding number (Barnes-Hut, expansion order 2, beta = 2) on one case.

Arguments: a directory holding V.f64 (vertices, n x 3), F.i64 (faces, m x 3) and Q.f64
(query points, k x 3) as raw little-endian arrays. Writes W.f64 (one winding number per
query point) there and prints {"seconds": ...}: the time of one call, which builds libigl's
tree and evaluates every point. libigl is limited to one thread (IGL_NUM_THREADS=1) to
match the Rust side.
"""
import json
import os
import sys
import time

os.environ["IGL_NUM_THREADS"] = "1"

import numpy as np  # noqa: E402
import igl  # noqa: E402

folder = sys.argv[1]
V = np.fromfile(os.path.join(folder, "V.f64"), dtype="<f8").reshape(-1, 3)
F = np.fromfile(os.path.join(folder, "F.i64"), dtype="<i8").reshape(-1, 3)
Q = np.fromfile(os.path.join(folder, "Q.f64"), dtype="<f8").reshape(-1, 3)
start = time.perf_counter()
W = igl.fast_winding_number(V, F, Q)
seconds = time.perf_counter() - start
np.asarray(W, dtype="<f8").tofile(os.path.join(folder, "W.f64"))
print(json.dumps({"seconds": seconds}))
