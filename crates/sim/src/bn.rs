//! One way to write a number. Everything a student reads — slides, diagrams, lab figures and
//! readouts — writes numbers with these functions: Bengali digits, Indian grouping
//! (`৫,০০,০০০`), a true minus sign (`−`), and one spelling per unit. Code, logs and redis-cli
//! replies keep ASCII digits without grouping ([`code`]), as the program would print them.
//!
//! | call | gives |
//! |---|---|
//! | [`int`]`(500000)` | `৫,০০,০০০` |
//! | [`dec`]`(27.78, 1)` | `২৭.৮` |
//! | [`pct`]`(39.1, 1)` | `৩৯.১%` (its argument is already a percent) |
//! | [`share`]`(0.391, 1)` | `৩৯.১%` (its argument is a fraction) |
//! | [`qty`]`(720.0, 0, Unit::S)` | `৭২০s` |
//! | [`qty`]`(12.0, 0, Unit::Kb)` | `১২ KB` |
//! | [`duration`]`(100_000_000)` | `২৭.৮ ঘণ্টা` |
//! | [`code::int`]`(500000)` | `500000` |
//!
//! Rounding is Rust's (the nearest decimal of the exact binary value, a tie to even), the same
//! natively and in wasm. A value that is not finite is written `—`.

/// The ten Bengali digits, `০` to `৯`.
pub const DIGITS: [char; 10] = ['০', '১', '২', '৩', '৪', '৫', '৬', '৭', '৮', '৯'];

/// The minus sign of a negative number (U+2212, not a hyphen).
pub const MINUS: char = '−';

/// Whether `c` is a Bengali digit.
pub fn is_digit(c: char) -> bool {
    ('০'..='৯').contains(&c)
}

/// `n` in Bengali digits, left-padded with `০` to at least `width` digits (no grouping: slide
/// counters, step markers).
pub fn digits(n: usize, width: usize) -> String {
    text(&format!("{n:0width$}"))
}

/// Every ASCII digit of `s` as a Bengali digit, everything else kept (`83.3%` → `৮৩.৩%`).
pub fn text(s: &str) -> String {
    s.chars()
        .map(|c| c.to_digit(10).map_or(c, |d| DIGITS[d as usize]))
        .collect()
}

/// Every Bengali digit of `s` as an ASCII digit, everything else kept (`৮৩.৩%` → `83.3%`).
pub fn ascii(s: &str) -> String {
    s.chars()
        .map(|c| match DIGITS.iter().position(|&d| d == c) {
            Some(d) => char::from(b'0' + d as u8),
            None => c,
        })
        .collect()
}

/// Indian grouping of a run of ASCII digits: the last three, then pairs (`1234567` →
/// `12,34,567`).
fn group(digits: &str) -> String {
    let len = digits.len();
    let mut out = String::with_capacity(len + len / 2);
    for (i, c) in digits.chars().enumerate() {
        let rest = len - i;
        out.push(c);
        if rest > 1 && (rest == 4 || (rest > 4 && rest % 2 == 0)) {
            out.push(',');
        }
    }
    out
}

/// A whole number in Bengali digits with Indian grouping (`১,০০,০০০`, `−১,২৩৪`).
pub fn int(n: i64) -> String {
    let body = text(&group(&n.unsigned_abs().to_string()));
    if n < 0 {
        format!("{MINUS}{body}")
    } else {
        body
    }
}

/// The same as [`int`] (its older name).
pub fn grouped(n: i64) -> String {
    int(n)
}

/// `x` with exactly `places` decimals, its whole part grouped (`১,২৪,৩৮২.৫`). A value that
/// rounds to zero has no sign; one that is not finite is `—`.
pub fn dec(x: f64, places: usize) -> String {
    if !x.is_finite() {
        return "—".to_string();
    }
    let s = format!("{:.*}", places, x.abs());
    let (whole, frac) = s.split_once('.').unwrap_or((&s, ""));
    let zero = s.chars().all(|c| c == '0' || c == '.');
    let mut out = String::new();
    if x < 0.0 && !zero {
        out.push(MINUS);
    }
    out.push_str(&text(&group(whole)));
    if !frac.is_empty() {
        out.push('.');
        out.push_str(&text(frac));
    }
    out
}

/// A percentage: `x` is already in percent (`39.1` → `৩৯.১%`).
pub fn pct(x: f64, places: usize) -> String {
    format!("{}%", dec(x, places))
}

/// A fraction as a percentage (`0.391` → `৩৯.১%`).
pub fn share(r: f64, places: usize) -> String {
    pct(r * 100.0, places)
}

/// A unit, written one way everywhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Milliseconds: `২০০ ms`.
    Ms,
    /// Seconds: `৭২০ s`.
    S,
    /// Minutes: `১০ মিনিট`.
    Min,
    /// Hours: `২৭.৮ ঘণ্টা`.
    Hour,
    /// Bytes: `৭০ বাইট`.
    Byte,
    /// Kilobytes: `১২ KB`.
    Kb,
    /// Megabytes: `১২ MB`.
    Mb,
    /// Per second: `৫,০০০/s`.
    PerSec,
}

impl Unit {
    /// How the unit follows its number: `/s` right after it, every other unit after a space
    /// (`৯১৭ ms`, `৩.৫ s`, `১০ মিনিট`) — the one way a lab writes a time.
    pub fn suffix(self) -> &'static str {
        match self {
            Unit::Ms => " ms",
            Unit::S => " s",
            Unit::Min => " মিনিট",
            Unit::Hour => " ঘণ্টা",
            Unit::Byte => " বাইট",
            Unit::Kb => " KB",
            Unit::Mb => " MB",
            Unit::PerSec => "/s",
        }
    }
}

/// A quantity with its unit (`qty(720.0, 0, Unit::S)` → `৭২০ s`, `qty(12.0, 0, Unit::Kb)` →
/// `১২ KB`).
pub fn qty(x: f64, places: usize, unit: Unit) -> String {
    format!("{}{}", dec(x, places), unit.suffix())
}

/// A length of time for a person, in the largest unit that keeps it readable: under a second
/// in ms (`৪০ ms`), under a minute in seconds with a tenth when there is one (`১২.৫ s`),
/// under three hours in minutes and seconds (`১০ মিনিট ৪২ s`), beyond that in hours with one
/// decimal (`২৭.৮ ঘণ্টা`). Every lab writes a time so (with [`qty`] for a moment on an axis).
pub fn duration(ms: u64) -> String {
    if ms < 1000 {
        return qty(ms as f64, 0, Unit::Ms);
    }
    if ms >= 3 * 3_600_000 {
        return qty(ms as f64 / 3_600_000.0, 1, Unit::Hour);
    }
    let s = ms / 1000;
    let tenth = (ms % 1000) / 100;
    let sec = if tenth > 0 {
        format!(
            "{}.{}",
            text(&(s % 60).to_string()),
            text(&tenth.to_string())
        )
    } else {
        text(&(s % 60).to_string())
    };
    if s >= 60 {
        format!("{} মিনিট {} s", int((s / 60) as i64), sec)
    } else {
        format!("{sec} s")
    }
}

/// Numbers as code, logs and redis-cli replies print them: ASCII digits, no grouping, a
/// hyphen-minus.
pub mod code {
    /// `500000`, `-3`.
    pub fn int(n: i64) -> String {
        n.to_string()
    }

    /// `27.8` (exactly `places` decimals).
    pub fn dec(x: f64, places: usize) -> String {
        format!("{:.*}", places, x)
    }
}

/// The slide counter: `০১ / ২২`.
pub fn counter(index: usize, len: usize) -> String {
    format!("{} / {}", digits(index + 1, 2), digits(len, 2))
}

/// The whole number at the start of `s`, in Bengali or ASCII digits (`৬টি` → 6, `12 KB` → 12).
pub fn leading_number(s: &str) -> Option<u32> {
    let mut n: Option<u32> = None;
    for c in s.trim_start().chars() {
        let d = DIGITS
            .iter()
            .position(|&b| b == c)
            .map(|d| d as u32)
            .or_else(|| c.to_digit(10));
        match d {
            Some(d) => n = Some(n.unwrap_or(0).checked_mul(10)?.checked_add(d)?),
            None if c == ',' && n.is_some() => {}
            None => break,
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pads_and_converts() {
        assert_eq!(digits(0, 1), "০");
        assert_eq!(digits(7, 2), "০৭");
        assert_eq!(digits(1234567890, 2), "১২৩৪৫৬৭৮৯০");
        assert_eq!(counter(0, 22), "০১ / ২২");
        assert_eq!(counter(21, 22), "২২ / ২২");
        assert_eq!(text("k = 5: 83.3%"), "k = ৫: ৮৩.৩%");
        assert_eq!(ascii("৮৩.৩% of ১০"), "83.3% of 10");
        assert!(is_digit('০') && is_digit('৯') && !is_digit('9') && !is_digit('ক'));
    }

    #[test]
    fn groups_the_indian_way() {
        assert_eq!(int(0), "০");
        assert_eq!(int(999), "৯৯৯");
        assert_eq!(int(1_000), "১,০০০");
        assert_eq!(int(12_345), "১২,৩৪৫");
        assert_eq!(int(100_000), "১,০০,০০০");
        assert_eq!(int(124_382), "১,২৪,৩৮২");
        assert_eq!(int(500_000), "৫,০০,০০০");
        assert_eq!(int(12_345_678), "১,২৩,৪৫,৬৭৮");
        assert_eq!(grouped(496_786), "৪,৯৬,৭৮৬");
        assert_eq!(int(i64::MIN), "−৯২,২৩,৩৭,২০,৩৬,৮৫,৪৭,৭৫,৮০৮");
    }

    #[test]
    fn negatives_take_a_minus_sign() {
        assert_eq!(int(-12_345_678), "−১,২৩,৪৫,৬৭৮");
        assert_eq!(int(-7), "−৭");
        assert_eq!(dec(-2.5, 1), "−২.৫");
        assert_eq!(dec(-1234.5, 1), "−১,২৩৪.৫");
        // Rounds to zero: no sign.
        assert_eq!(dec(-0.04, 1), "০.০");
        assert_eq!(dec(-0.0, 0), "০");
    }

    #[test]
    fn decimals_keep_their_places() {
        assert_eq!(dec(27.7777, 1), "২৭.৮");
        assert_eq!(dec(100_000.0 / 720.0, 1), "১৩৮.৯");
        assert_eq!(dec(0.05, 2), "০.০৫");
        assert_eq!(dec(124_382.5, 1), "১,২৪,৩৮২.৫");
        assert_eq!(dec(3.0, 0), "৩");
        assert_eq!(dec(3.0, 2), "৩.০০");
        // A tie goes to the even neighbour, as Rust formats it.
        assert_eq!(dec(0.25, 1), "০.২");
        assert_eq!(dec(f64::NAN, 1), "—");
        assert_eq!(dec(f64::INFINITY, 0), "—");
    }

    #[test]
    fn percentages() {
        assert_eq!(pct(39.1, 1), "৩৯.১%");
        assert_eq!(pct(0.81, 2), "০.৮১%");
        assert_eq!(share(0.391, 1), "৩৯.১%");
        assert_eq!(share(5.0 / 6.0, 1), "৮৩.৩%");
        assert_eq!(share(1.0, 0), "১০০%");
        assert_eq!(pct(-10.0, 0), "−১০%");
    }

    #[test]
    fn units_are_spelled_one_way() {
        assert_eq!(qty(200.0, 0, Unit::Ms), "২০০ ms");
        assert_eq!(qty(1500.0, 0, Unit::Ms), "১,৫০০ ms");
        assert_eq!(qty(720.0, 0, Unit::S), "৭২০ s");
        assert_eq!(qty(0.05, 2, Unit::S), "০.০৫ s");
        assert_eq!(qty(10.0, 0, Unit::Min), "১০ মিনিট");
        assert_eq!(qty(12.0, 0, Unit::Kb), "১২ KB");
        assert_eq!(qty(12_304.0, 0, Unit::Byte), "১২,৩০৪ বাইট");
        assert_eq!(qty(12.0, 0, Unit::Mb), "১২ MB");
        assert_eq!(qty(5000.0, 0, Unit::PerSec), "৫,০০০/s");
        assert_eq!(duration(40), "৪০ ms");
        assert_eq!(duration(30_000), "৩০ s");
        assert_eq!(duration(12_500), "১২.৫ s");
        assert_eq!(duration(642_000), "১০ মিনিট ৪২ s");
        assert_eq!(duration(100_000), "১ মিনিট ৪০ s");
        // 5,00,000 calls × 200 ms: the same 27.8 h wherever it is shown.
        assert_eq!(duration(500_000 * 200), "২৭.৮ ঘণ্টা");
    }

    #[test]
    fn code_keeps_ascii() {
        assert_eq!(code::int(500_000), "500000");
        assert_eq!(code::int(-3), "-3");
        assert_eq!(code::dec(27.7777, 1), "27.8");
    }
}

#[cfg(test)]
mod number_tests {
    use super::leading_number;

    #[test]
    fn reads_bengali_and_ascii() {
        assert_eq!(leading_number("৬টি"), Some(6));
        assert_eq!(leading_number("০"), Some(0));
        assert_eq!(leading_number("১,২৪,৩৮২ জন"), Some(124382));
        assert_eq!(leading_number("12 KB"), Some(12));
        assert_eq!(leading_number("PM2"), None);
        assert_eq!(leading_number("৯৯৯৯৯৯৯৯৯৯৯৯"), None);
    }
}
