//! Exact arithmetic on `f64` values as dyadic rationals `m · 2^e` (big-integer mantissa), for
//! the slow paths of predicates whose floating-point filter cannot decide a sign.

use num_bigint::BigInt;

/// `mantissa · 2^exponent`, exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Dyadic {
    mantissa: BigInt,
    exponent: i64,
}

impl Dyadic {
    /// The exact value of a finite `x`.
    pub(crate) fn from_f64(x: f64) -> Self {
        debug_assert!(x.is_finite());
        let bits = x.to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i64;
        let fraction = bits & ((1u64 << 52) - 1);
        let (mantissa, exponent) =
            if biased == 0 { (fraction, -1074) } else { (fraction | (1u64 << 52), biased - 1075) };
        let mantissa = BigInt::from(mantissa);
        Self { mantissa: if bits >> 63 == 1 { -mantissa } else { mantissa }, exponent }
    }

    /// The two mantissas over the smaller exponent.
    fn aligned(&self, other: &Self) -> (BigInt, BigInt, i64) {
        let exponent = self.exponent.min(other.exponent);
        let shift = |d: &Self| &d.mantissa << usize::try_from(d.exponent - exponent).expect("non-negative");
        (shift(self), shift(other), exponent)
    }

    pub(crate) fn add(&self, other: &Self) -> Self {
        let (a, b, exponent) = self.aligned(other);
        Self { mantissa: a + b, exponent }
    }

    pub(crate) fn sub(&self, other: &Self) -> Self {
        let (a, b, exponent) = self.aligned(other);
        Self { mantissa: a - b, exponent }
    }

    pub(crate) fn mul(&self, other: &Self) -> Self {
        Self { mantissa: &self.mantissa * &other.mantissa, exponent: self.exponent + other.exponent }
    }

    /// The nearest `f64` to within a unit in the last place (truncated to 63 bits first), an
    /// infinity beyond the range, 0 below it.
    pub(crate) fn to_f64(&self) -> f64 {
        let bits = self.mantissa.bits();
        let shift = bits.saturating_sub(63);
        let top: i64 = i64::try_from(&self.mantissa >> shift).expect("at most 63 bits");
        // top · 2^(exponent + shift), scaled in steps that stay within the normal exponents.
        let mut value = top as f64;
        let mut exponent = self.exponent + shift as i64;
        while exponent != 0 && value != 0.0 && value.is_finite() {
            let step = exponent.clamp(-1000, 1000);
            value *= f64::from_bits(((step + 1023) as u64) << 52);
            exponent -= step;
        }
        value
    }

    /// −1, 0 or 1.
    pub(crate) fn signum(&self) -> i32 {
        match self.mantissa.sign() {
            num_bigint::Sign::Minus => -1,
            num_bigint::Sign::NoSign => 0,
            num_bigint::Sign::Plus => 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sums and products of values whose exact results are known (powers of two, integers,
    /// subnormals) have the right sign, and cancel exactly.
    #[test]
    fn arithmetic_is_exact() {
        let d = Dyadic::from_f64;
        let tiny = f64::from_bits(1); // 2^-1074
        assert_eq!(d(0.1).sub(&d(0.1)).signum(), 0);
        assert_eq!(d(1e300).add(&d(tiny)).sub(&d(1e300)).signum(), 1);
        assert_eq!(d(3.0).mul(&d(-0.5)).add(&d(1.5)).signum(), 0);
        // 0.1 + 0.2 in floating point is not 0.3; exactly, fl(0.1) + fl(0.2) > fl(0.3).
        assert_eq!(d(0.1).add(&d(0.2)).sub(&d(0.3)).signum(), 1);
        assert_eq!(d(tiny).mul(&d(tiny)).signum(), 1);
        assert_eq!(d(-2.0).mul(&d(tiny)).signum(), -1);
    }
}
