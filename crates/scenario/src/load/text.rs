//! Numbers and file names written as Python writes them (`f"{x:g}"`, `f"{x:.4f}"`,
//! `str(Path(p))`, `round(x)`), so every message and cached record of `load` and
//! `[calibration]` reads as it did when Python wrote them (docs and tests quote them).
//!
//! Validation: tests below (values checked against CPython 3.12 by hand).

/// Python's `format(x, f".{precision}g")`: `precision` significant digits (at least 1),
/// trailing zeros dropped, exponent form `1.5e+06` when the exponent is below -4 or at least
/// `precision`.
pub fn g(x: f64, precision: usize) -> String {
    if let Some(s) = special(x) {
        return s;
    }
    let p = precision.max(1);
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let sci = format!("{:.*e}", p - 1, x);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= p as i32 {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip_zeros(mantissa), exp.abs())
    } else {
        let decimals = (p as i32 - 1 - exp) as usize;
        strip_zeros(&format!("{x:.decimals$}")).to_string()
    }
}

/// Python's `format(x, f".{decimals}f")` (`nan`, `inf` as Python spells them).
pub fn fixed(x: f64, decimals: usize) -> String {
    special(x).unwrap_or_else(|| format!("{x:.decimals$}"))
}

fn special(x: f64) -> Option<String> {
    if x.is_nan() {
        Some("nan".into())
    } else if x.is_infinite() {
        Some(if x > 0.0 { "inf" } else { "-inf" }.into())
    } else {
        None
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// Python's `round(x)` of a float: to the nearest whole number, halves to even.
pub fn round_half_even(x: f64) -> f64 {
    x.round_ties_even()
}

/// `str(pathlib.PurePosixPath(p))`: repeated slashes and `.` parts dropped, no trailing slash,
/// `.` for nothing (a leading `//` is kept, as POSIX allows it a meaning of its own).
pub fn py_path(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let root = if p.starts_with("//") && !p.starts_with("///") {
        "//"
    } else if p.starts_with('/') {
        "/"
    } else {
        ""
    };
    let parts: Vec<&str> = p
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    let joined = format!("{root}{}", parts.join("/"));
    if joined.is_empty() {
        ".".into()
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_as_python() {
        // format(x, ".6g") etc. in CPython.
        let cases = [
            (431.0344827586207, 6, "431.034"),
            (10.0, 6, "10"),
            (0.9, 6, "0.9"),
            (1234567.0, 6, "1.23457e+06"),
            (0.0001234, 6, "0.0001234"),
            (0.00001234, 6, "1.234e-05"),
            (20.88, 5, "20.88"),
            (0.012345, 3, "0.0123"),
            (999999.5, 6, "1e+06"),
            (0.0, 6, "0"),
            (-2.5, 3, "-2.5"),
            (2.5, 1, "2"),
            (150.0, 4, "150"),
            (123456.0, 4, "1.235e+05"),
        ];
        for (x, p, want) in cases {
            assert_eq!(g(x, p), want, "{x} .{p}g");
        }
        assert_eq!(g(f64::NAN, 6), "nan");
        assert_eq!(fixed(0.99995, 4), "1.0000"); // 0.99995 is 0.9999500000000000055… in binary
        assert_eq!(fixed(1.0, 4), "1.0000");
        assert_eq!(fixed(f64::NAN, 4), "nan");
    }

    #[test]
    fn rounding_and_paths_as_python() {
        assert_eq!(round_half_even(2.5), 2.0);
        assert_eq!(round_half_even(3.5), 4.0);
        assert_eq!(round_half_even(-0.5), -0.0);
        assert_eq!(py_path("./a//b/./c.toml"), "a/b/c.toml");
        assert_eq!(py_path("/tmp/x/"), "/tmp/x");
        assert_eq!(py_path("<dict>"), "<dict>");
        assert_eq!(py_path("-"), "-");
        assert_eq!(py_path("./"), ".");
        assert_eq!(py_path("a/../b"), "a/../b");
    }
}
