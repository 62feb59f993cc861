//! JavaScript number formatting, so the seeds' printed tables can be reproduced exactly.
//!
//! * [`to_fixed`] is `Number.prototype.toFixed`: it rounds the *exact* binary value, and on
//!   an exact tie rounds away from zero ("pick the larger n"). Rust's `{:.N}` also rounds
//!   the exact value but breaks exact ties to even, so ties are detected and handled here.
//! * [`js_string`] is `String(x)`: shortest round-trip digits, exponent outside
//!   `[1e-6, 1e21)`.
//! * [`pad_start`] / [`pad_end`] count characters (the seeds only pad ASCII).

/// `x.toFixed(digits)` for `digits` in `0..=100`.
pub fn to_fixed(x: f64, digits: usize) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    let digits = digits.min(100);
    let neg = x < 0.0;
    let a = x.abs();
    if a >= 1e21 {
        return js_string(x);
    }
    // A tie at the rounding digit means a·10^digits = n + ½ exactly, i.e. a·2^(digits+1)
    // is an odd integer (the scaling by a power of two is exact).
    let scaled = a * libm::exp2((digits + 1) as f64);
    let tie = scaled.fract() == 0.0 && scaled % 2.0 == 1.0;
    let body = if tie {
        // Exactly digits+1 fractional digits, the last being 5: drop it and round up.
        let mut s = format!("{:.*}", digits + 1, a);
        s.pop();
        if s.ends_with('.') {
            s.pop();
        }
        increment_last_digit(&s)
    } else {
        format!("{:.*}", digits, a)
    };
    // JS tests `x < 0`, so -0 prints unsigned while -0.04 prints "-0.0".
    if neg {
        format!("-{body}")
    } else {
        body
    }
}

/// Adds one unit in the last place of a non-negative decimal string ("9.95" → "9.96",
/// "9.9" → "10.0").
fn increment_last_digit(s: &str) -> String {
    let mut bytes = s.as_bytes().to_vec();
    let mut i = bytes.len();
    loop {
        if i == 0 {
            bytes.insert(0, b'1');
            break;
        }
        i -= 1;
        match bytes[i] {
            b'.' => continue,
            b'9' => bytes[i] = b'0',
            d => {
                bytes[i] = d + 1;
                break;
            }
        }
    }
    String::from_utf8(bytes).expect("ascii digits")
}

/// `String(x)` for a JavaScript number.
pub fn js_string(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if x == 0.0 {
        return "0".into();
    }
    let a = x.abs();
    if (1e-6..1e21).contains(&a) {
        // Rust's Display prints the shortest round-trip digits without an exponent.
        return format!("{x}");
    }
    // Rust's `{:e}` is shortest digits too: "1.5e-7" → JS "1.5e-7", "1e21" → "1e+21".
    let s = format!("{x:e}");
    match s.split_once('e') {
        Some((m, e)) if !e.starts_with('-') => format!("{m}e+{e}"),
        _ => s,
    }
}

/// `s.padStart(width)`.
pub fn pad_start(s: &str, width: usize) -> String {
    let n = s.chars().count();
    if n >= width {
        s.to_string()
    } else {
        format!("{}{s}", " ".repeat(width - n))
    }
}

/// `s.padEnd(width)`.
pub fn pad_end(s: &str, width: usize) -> String {
    let n = s.chars().count();
    if n >= width {
        s.to_string()
    } else {
        format!("{s}{}", " ".repeat(width - n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn to_fixed_matches_node() {
        // Values checked with node 20.
        let cases: &[(f64, usize, &str)] = &[
            (0.5, 0, "1"),
            (1.5, 0, "2"),
            (2.5, 0, "3"),
            (-2.5, 0, "-3"),
            (1.25, 1, "1.3"),
            (1.35, 1, "1.4"),
            (1.45, 1, "1.4"),
            (0.125, 2, "0.13"),
            (1.005, 2, "1.00"),
            (9.95, 1, "9.9"),
            (9.75, 1, "9.8"),
            (99.5, 0, "100"),
            (138.88888888888889, 1, "138.9"),
            (100000.0, 1, "100000.0"),
            (0.0, 1, "0.0"),
            (-0.0, 1, "0.0"),
            (-0.04, 1, "-0.0"),
            (34.718, 1, "34.7"),
            (1e21, 1, "1e+21"),
        ];
        for &(x, d, want) in cases {
            assert_eq!(to_fixed(x, d), want, "({x}).toFixed({d})");
        }
    }

    #[test]
    fn js_string_matches_node() {
        let cases: &[(f64, &str)] = &[
            (0.05 * 1000.0, "50"),
            (0.9, "0.9"),
            (10.0, "10"),
            (2000.0, "2000"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e21, "1e+21"),
            (1.5e-7, "1.5e-7"),
            (-3.0, "-3"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
        ];
        for &(x, want) in cases {
            assert_eq!(js_string(x), want);
        }
    }

    #[test]
    fn padding_counts_chars() {
        assert_eq!(pad_start("7", 3), "  7");
        assert_eq!(pad_end("ab", 4), "ab  ");
        assert_eq!(pad_end("abcdef", 4), "abcdef");
    }
}
