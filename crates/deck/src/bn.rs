//! Bengali numerals, as the decks write them (`০১ / ২২`).

const DIGITS: [char; 10] = ['০', '১', '২', '৩', '৪', '৫', '৬', '৭', '৮', '৯'];

/// `n` in Bengali digits, left-padded with `০` to at least `width` digits.
pub fn digits(n: usize, width: usize) -> String {
    let s = format!("{n:0width$}");
    s.chars()
        .map(|c| c.to_digit(10).map_or(c, |d| DIGITS[d as usize]))
        .collect()
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
    }
}
