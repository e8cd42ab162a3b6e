//! Human-readable number formatting for the Markdown tables.

/// A duration in seconds with an adaptive unit and three significant digits.
///
/// ```
/// use collide_benches::report::format::duration;
/// assert_eq!(duration(1.234e-6), "1.23 µs");
/// assert_eq!(duration(0.0456), "45.6 ms");
/// assert_eq!(duration(12.0), "12.0 s");
/// assert_eq!(duration(3.2e-10), "0.320 ns");
/// ```
pub fn duration(seconds: f64) -> String {
    if !seconds.is_finite() {
        return "—".to_owned();
    }
    // The unit follows the value as printed (three digits): 0.9999 s is "1.00 s", not "1000 ms".
    let shown = if seconds == 0.0 {
        0.0
    } else {
        let step = 10f64.powi(seconds.abs().log10().floor() as i32 - 2);
        (seconds / step).round() * step
    };
    let (value, unit) = match shown.abs() {
        s if s >= 1.0 => (seconds, "s"),
        s if s >= 1e-3 => (seconds * 1e3, "ms"),
        s if s >= 1e-6 => (seconds * 1e6, "µs"),
        _ => (seconds * 1e9, "ns"),
    };
    format!("{} {unit}", significant(value, 3))
}

/// A rate or large quantity with an SI prefix (k, M, G) and three significant digits.
///
/// ```
/// use collide_benches::report::format::si;
/// assert_eq!(si(123_456_789.0), "123 M");
/// assert_eq!(si(4_560.0), "4.56 k");
/// assert_eq!(si(12.0), "12.0");
/// ```
pub fn si(value: f64) -> String {
    if !value.is_finite() {
        return "—".to_owned();
    }
    let (scaled, prefix) = match value.abs() {
        v if v >= 1e9 => (value / 1e9, " G"),
        v if v >= 1e6 => (value / 1e6, " M"),
        v if v >= 1e3 => (value / 1e3, " k"),
        _ => (value, ""),
    };
    format!("{}{prefix}", significant(scaled, 3))
}

/// `value` rounded to `digits` significant digits, without exponent notation.
///
/// ```
/// use collide_benches::report::format::significant;
/// assert_eq!(significant(3.14159, 3), "3.14");
/// assert_eq!(significant(314.159, 3), "314");
/// assert_eq!(significant(0.0012345, 2), "0.0012");
/// assert_eq!(significant(0.0, 3), "0.00");
/// ```
pub fn significant(value: f64, digits: usize) -> String {
    if value == 0.0 || !value.is_finite() {
        return format!("{value:.prec$}", prec = digits.saturating_sub(1));
    }
    let magnitude = value.abs().log10().floor() as i64;
    let decimals = (digits as i64 - 1 - magnitude).max(0) as usize;
    let rounded = format!("{value:.decimals$}");
    // Rounding may carry into a new digit (9.996 → "10.00"); one fewer decimal then.
    let carried = rounded.parse::<f64>().is_ok_and(|r| r.abs() >= 10f64.powi(magnitude as i32 + 1));
    if carried && decimals > 0 { format!("{value:.prec$}", prec = decimals - 1) } else { rounded }
}

/// An integer with thin-space thousands separators (U+2009), e.g. `131 072`.
///
/// ```
/// use collide_benches::report::format::count;
/// assert_eq!(count(131_072), "131\u{2009}072");
/// assert_eq!(count(8), "8");
/// ```
pub fn count(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('\u{2009}');
        }
        out.push(c);
    }
    out
}

/// `yes` / `no`.
pub fn yes_no(value: bool) -> &'static str {
    if value { "yes" } else { "no" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carries() {
        assert_eq!(significant(9.996, 3), "10.0");
        assert_eq!(significant(99.96, 3), "100");
        assert_eq!(duration(0.9999), "1.00 s");
        assert_eq!(duration(0.99949), "999 ms");
        assert_eq!(duration(999.96e-6), "1.00 ms");
        assert_eq!(significant(-0.5, 2), "-0.50");
    }
}
