//! Small-vector arithmetic on `[f64; D]`, the one point representation of the crate (`D` = 2 for
//! disks, 3 for spheres). Plain arrays keep the engine generic over the dimension without a
//! linear-algebra dependency; every function here inlines to straight-line code.

/// `a + b`.
#[inline]
pub(crate) fn add<const D: usize>(a: [f64; D], b: [f64; D]) -> [f64; D] {
    std::array::from_fn(|k| a[k] + b[k])
}

/// `a − b`.
#[inline]
pub(crate) fn sub<const D: usize>(a: [f64; D], b: [f64; D]) -> [f64; D] {
    std::array::from_fn(|k| a[k] - b[k])
}

/// `a + s·b`.
#[inline]
pub(crate) fn add_scaled<const D: usize>(a: [f64; D], s: f64, b: [f64; D]) -> [f64; D] {
    std::array::from_fn(|k| a[k] + s * b[k])
}

/// `|a × b|²`, as the sum of the squared 2 × 2 minors `a_i b_j − a_j b_i` (the cross product's
/// components in 3D, its one component in 2D): `|a|²|b|² − (a · b)²` without the cancellation
/// of that difference when `a` and `b` are nearly parallel.
#[inline]
pub(crate) fn cross_norm_squared<const D: usize>(a: [f64; D], b: [f64; D]) -> f64 {
    let mut sum = 0.0;
    for i in 0..D {
        for j in i + 1..D {
            let minor = a[i] * b[j] - a[j] * b[i];
            sum += minor * minor;
        }
    }
    sum
}

/// `a · b`.
#[inline]
pub(crate) fn dot<const D: usize>(a: [f64; D], b: [f64; D]) -> f64 {
    let mut sum = 0.0;
    for k in 0..D {
        sum += a[k] * b[k];
    }
    sum
}
