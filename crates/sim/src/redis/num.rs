//! Numbers the way Redis 7.0 reads and writes them: `string2ll`'s strict integers, `strtod`
//! scores with Redis' extra checks, and `%.17g` doubles (what 7.0 replies for ZSCORE and
//! ZINCRBY over RESP2; 7.2 switched to the shortest round-trip form).
//!
//! Hand-written because Rust's parsers are deliberately more lenient (`"+1"`, `"007"` and
//! `"1e400"` parse) and `format!` has no `%g`; the rules here are a few lines of Redis' C.

/// `n` in decimal, written at the end of `buf` (the digits without `fmt`'s machinery: the
/// streams lab writes millions of numbers and IDs).
pub fn decimal(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &buf[i..]
}

/// `string2ll`: an optional `-`, then `0` alone or digits not starting with `0`; no spaces,
/// no `+`, at most 20 characters, within `i64`.
pub fn parse_i64(s: &[u8]) -> Option<i64> {
    if s.is_empty() || s.len() > 20 {
        return None;
    }
    if s == b"0" {
        return Some(0);
    }
    let (neg, digits) = match s[0] {
        b'-' => (true, &s[1..]),
        _ => (false, s),
    };
    match digits.first() {
        Some(b'1'..=b'9') => {}
        _ => return None,
    }
    let mut v: u64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
    }
    if neg {
        if v > (i64::MAX as u64) + 1 {
            None
        } else {
            Some((v as i64).wrapping_neg())
        }
    } else {
        i64::try_from(v).ok()
    }
}

/// `getDoubleFromObject` / `zslParseRange`'s `strtod`: the whole text must be a number, not
/// NaN, not overflowing to ±inf unless it spells infinity, not underflowing to zero.
/// `leading_space` is whether leading blanks are allowed (`strtod` skips them; ZADD's
/// parser rejects them, ZRANGEBYSCORE's accepts them).
pub fn parse_f64(s: &[u8], leading_space: bool) -> Option<f64> {
    let text = std::str::from_utf8(s).ok()?;
    let t = if leading_space {
        text.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c'])
    } else {
        text
    };
    if t.is_empty() || t.starts_with(|c: char| c.is_ascii_whitespace()) {
        return None;
    }
    let v: f64 = t.parse().ok()?;
    if v.is_nan() {
        return None;
    }
    let body = t.trim_start_matches(['+', '-']).to_ascii_lowercase();
    let spelled_inf = body == "inf" || body == "infinity";
    if v.is_infinite() && !spelled_inf {
        return None; // ERANGE overflow
    }
    if v == 0.0 {
        let mantissa = body.split('e').next().unwrap_or("");
        if mantissa.bytes().any(|c| (b'1'..=b'9').contains(&c)) {
            return None; // ERANGE underflow
        }
    }
    Some(v)
}

/// `zslParseRange`'s plain `strtod`: leading blanks skipped, the empty text is 0, overflow
/// gives ±inf, only NaN and trailing garbage fail.
pub fn parse_f64_lenient(s: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(s).ok()?;
    let t = text.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    if t.is_empty() {
        return Some(0.0);
    }
    let v: f64 = t.parse().ok()?;
    (!v.is_nan()).then_some(v)
}

/// C's `printf("%.17g", d)`, with Redis' `inf` / `-inf` for infinities.
pub fn fmt_g17(d: f64) -> String {
    if d.is_infinite() {
        return if d > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if d == 0.0 {
        return if d.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    // 17 significant digits in scientific form, then %g's choice and trimming.
    let sci = format!("{d:.16e}");
    let (mant, exp) = sci.split_once('e').expect("scientific form");
    let exp: i32 = exp.parse().expect("exponent");
    if !(-4..17).contains(&exp) {
        let mant = trim_zeros(mant);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (16 - exp).max(0) as usize;
        trim_zeros(&format!("{d:.decimals$}")).to_string()
    }
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_strict() {
        assert_eq!(parse_i64(b"0"), Some(0));
        assert_eq!(parse_i64(b"-12"), Some(-12));
        assert_eq!(parse_i64(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_i64(b"-9223372036854775808"), Some(i64::MIN));
        for bad in [
            &b""[..],
            b"+1",
            b"01",
            b"-0",
            b" 1",
            b"1 ",
            b"1.0",
            b"9223372036854775808",
            b"-",
            b"abc",
        ] {
            assert_eq!(parse_i64(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn floats_like_strtod_with_redis_checks() {
        assert_eq!(parse_f64(b"1.5", false), Some(1.5));
        assert_eq!(parse_f64(b"-inf", false), Some(f64::NEG_INFINITY));
        assert_eq!(parse_f64(b"+inf", false), Some(f64::INFINITY));
        assert_eq!(parse_f64(b"1e3", false), Some(1000.0));
        assert_eq!(parse_f64(b" 1", true), Some(1.0));
        assert_eq!(parse_f64_lenient(b""), Some(0.0));
        assert_eq!(parse_f64_lenient(b"1e400"), Some(f64::INFINITY));
        assert_eq!(parse_f64_lenient(b"nan"), None);
        for bad in [&b""[..], b"nan", b"1e400", b"1e-400", b" 1", b"1x", b"x"] {
            assert_eq!(
                parse_f64(bad, false),
                None,
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn g17_matches_redis_7_0() {
        // Replies of redis-server 7.0.15 to ZADD/ZSCORE/ZINCRBY.
        assert_eq!(fmt_g17(0.1), "0.10000000000000001");
        assert_eq!(fmt_g17(1e300), "1.0000000000000001e+300");
        assert_eq!(fmt_g17(1.0), "1");
        assert_eq!(fmt_g17(-2.5), "-2.5");
        assert_eq!(fmt_g17(1_700_000_000_000.0), "1700000000000");
        assert_eq!(fmt_g17(1e17), "1e+17");
        assert_eq!(fmt_g17(0.0001), "0.0001");
        assert_eq!(fmt_g17(0.00001), "1.0000000000000001e-05");
        assert_eq!(fmt_g17(f64::INFINITY), "inf");
        assert_eq!(fmt_g17(-0.0), "-0");
    }
}
