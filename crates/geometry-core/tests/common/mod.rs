//! Strategies shared by several integration-test files.

use geometry_core::DQuat;
use proptest::prelude::*;

/// Uniform-ish random unit quaternions (normalised from a box, rejecting near-zero samples).
pub(crate) fn unit_quat() -> impl Strategy<Value = DQuat> {
    [-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64]
        .prop_filter("not too short", |q| q.iter().map(|c| c * c).sum::<f64>() > 0.01)
        .prop_map(|q| {
            let n = q.iter().map(|c| c * c).sum::<f64>().sqrt();
            DQuat::from_xyzw(q[0] / n, q[1] / n, q[2] / n, q[3] / n)
        })
}
