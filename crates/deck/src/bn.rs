//! Bengali numerals, as the decks write them (`০১ / ২২`).

const DIGITS: [char; 10] = ['০', '১', '২', '৩', '৪', '৫', '৬', '৭', '৮', '৯'];

/// `n` in Bengali digits, left-padded with `০` to at least `width` digits.
pub fn digits(n: usize, width: usize) -> String {
    text(&format!("{n:0width$}"))
}

/// Every ASCII digit of `s` as a Bengali digit, everything else kept (`83.3%` → `৮৩.৩%`).
pub fn text(s: &str) -> String {
    s.chars()
        .map(|c| c.to_digit(10).map_or(c, |d| DIGITS[d as usize]))
        .collect()
}

/// A whole number in Bengali digits with Indian grouping (`১,০০,০০০`).
pub fn grouped(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    let len = digits.len();
    for (i, c) in digits.chars().enumerate() {
        let rest = len - i;
        out.push(c);
        if rest > 1 && (rest == 4 || (rest > 4 && rest % 2 == 0)) {
            out.push(',');
        }
    }
    let sign = if n < 0 { "−" } else { "" };
    text(&format!("{sign}{out}"))
}

/// The slide counter: `০১ / ২২`.
pub fn counter(index: usize, len: usize) -> String {
    format!("{} / {}", digits(index + 1, 2), digits(len, 2))
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
        assert_eq!(grouped(100_000), "১,০০,০০০");
        assert_eq!(grouped(124_382), "১,২৪,৩৮২");
        assert_eq!(grouped(1_000), "১,০০০");
        assert_eq!(grouped(999), "৯৯৯");
        assert_eq!(grouped(-12_345_678), "−১,২৩,৪৫,৬৭৮");
    }
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
