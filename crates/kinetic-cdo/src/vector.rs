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

/// `a · b`.
#[inline]
pub(crate) fn dot<const D: usize>(a: [f64; D], b: [f64; D]) -> f64 {
    let mut sum = 0.0;
    for k in 0..D {
        sum += a[k] * b[k];
    }
    sum
}
