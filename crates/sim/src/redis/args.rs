//! `redis-cli`'s line syntax: a port of Redis' `sdssplitargs` (src/sds.c), which `redis-cli`
//! uses to split a typed line into arguments. The one splitter of the project: `labsim redis`,
//! the tests that type commands at SimRedis and the app's Redis console all read a line with
//! it, so a line means what it means at `redis-cli`.
//!
//! The rules, as in `sdssplitargs`: blanks (C's `isspace`: space, `\t \n \v \f \r`) separate
//! arguments; outside quotes only space, `\t`, `\n` and `\r` end one (a `\v` inside a word
//! stays in it). Double quotes take `\xHH` (two hex digits, any case), `\n \r \t \b \a`, and a
//! backslash before any other character stands for that character; single quotes take only
//! `\'`. A closing quote must be followed by a blank or the end (`set "a"b` is refused), a
//! quote left open is refused, and a quote may start in the middle of a word (`a"b c"` is the
//! one argument `ab c`). The line ends at a NUL, as a C string does. Arguments are bytes:
//! `"\xff"` is one byte that is not UTF-8.
//!
//! Hand-written because the rules are Redis' own; no shell-words crate follows them.

/// Why `redis-cli` refuses a line (it prints `Invalid argument(s)` for both).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadLine {
    /// A quote is opened and never closed.
    Unclosed,
    /// A closing quote is followed by something other than a blank (`"a"b`).
    AfterQuote,
}

impl BadLine {
    /// What `redis-cli` prints.
    pub const REDIS_CLI: &'static str = "Invalid argument(s)";

    /// What is wrong, in Bengali, for a person typing the line.
    pub fn bengali(self) -> &'static str {
        match self {
            BadLine::Unclosed => "উদ্ধৃতিচিহ্ন খোলা হয়েছে কিন্তু বন্ধ হয়নি",
            BadLine::AfterQuote => {
                "বন্ধ উদ্ধৃতিচিহ্নের ঠিক পরে ফাঁকা জায়গা বা লাইনের শেষ চাই (যেমন \"a\" b, \"a\"b নয়)"
            }
        }
    }
}

/// C's `isspace` in the "C" locale.
fn blank(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// Splits one line into arguments as `redis-cli` does (see the module's doc).
///
/// # Errors
/// [`BadLine`] where `redis-cli` answers `Invalid argument(s)`.
pub fn split_args(line: &str) -> Result<Vec<Vec<u8>>, BadLine> {
    let b = line.as_bytes();
    let b = &b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())];
    let at = |i: usize| b.get(i).copied().unwrap_or(0);
    let mut i = 0;
    let mut out = Vec::new();
    loop {
        while i < b.len() && blank(b[i]) {
            i += 1;
        }
        if i >= b.len() {
            return Ok(out);
        }
        let mut cur = Vec::new();
        // The open quote, if any: `"` (escapes) or `'` (only `\'`).
        let mut quote: Option<u8> = None;
        loop {
            let c = at(i);
            let Some(q) = quote else {
                match c {
                    b' ' | b'\n' | b'\r' | b'\t' | 0 => break,
                    b'"' | b'\'' => quote = Some(c),
                    other => cur.push(other),
                }
                i += 1;
                continue;
            };
            if q == b'"'
                && c == b'\\'
                && at(i + 1) == b'x'
                && at(i + 2).is_ascii_hexdigit()
                && at(i + 3).is_ascii_hexdigit()
            {
                let hex = |d: u8| (d as char).to_digit(16).unwrap_or(0) as u8;
                cur.push(hex(at(i + 2)) * 16 + hex(at(i + 3)));
                i += 3;
            } else if q == b'"' && c == b'\\' && at(i + 1) != 0 {
                i += 1;
                cur.push(match at(i) {
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'b' => 8,
                    b'a' => 7,
                    other => other,
                });
            } else if q == b'\'' && c == b'\\' && at(i + 1) == b'\'' {
                i += 1;
                cur.push(b'\'');
            } else if c == q {
                // A closing quote must be followed by a blank or the end.
                if at(i + 1) != 0 && !blank(at(i + 1)) {
                    return Err(BadLine::AfterQuote);
                }
                i += 1;
                break;
            } else if c == 0 {
                return Err(BadLine::Unclosed);
            } else {
                cur.push(c);
            }
            i += 1;
        }
        out.push(cur);
    }
}

/// The arguments of a line as text, for a channel that carries only UTF-8 (the console's
/// JSON): `None` when `\xHH` made an argument that is not UTF-8.
pub fn utf8_args(args: Vec<Vec<u8>>) -> Option<Vec<String>> {
    args.into_iter()
        .map(|a| String::from_utf8(a).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(line: &str) -> Vec<Vec<u8>> {
        split_args(line).unwrap_or_else(|e| panic!("{line:?}: {e:?}"))
    }

    fn s(v: &[&str]) -> Vec<Vec<u8>> {
        v.iter().map(|x| x.as_bytes().to_vec()).collect()
    }

    #[test]
    fn words_and_blanks() {
        assert_eq!(ok("SET k v"), s(&["SET", "k", "v"]));
        assert_eq!(ok("  get   k  "), s(&["get", "k"]));
        assert_eq!(ok("a\tb\r\nc"), s(&["a", "b", "c"]));
        assert_eq!(ok(""), Vec::<Vec<u8>>::new());
        assert_eq!(ok(" \t "), Vec::<Vec<u8>>::new());
        // \v and \f are blanks between words but not inside one (isspace against the switch).
        assert_eq!(ok("\x0b\x0ca"), s(&["a"]));
        assert_eq!(ok("a\x0bb c"), s(&["a\x0bb", "c"]));
        // Outside quotes a backslash is a character.
        assert_eq!(ok(r"a\nb \x41"), s(&[r"a\nb", r"\x41"]));
        // Bytes above ASCII pass as they are.
        assert_eq!(ok("SET নাম মান"), s(&["SET", "নাম", "মান"]));
    }

    #[test]
    fn double_quotes() {
        assert_eq!(ok(r#"set "a b" "x\"y""#), s(&["set", "a b", "x\"y"]));
        assert_eq!(ok(r#""\n\r\t\b\a""#), vec![b"\n\r\t\x08\x07".to_vec()]);
        assert_eq!(ok(r#""\\" "\q" "\'""#), s(&["\\", "q", "'"]));
        assert_eq!(ok(r#""\x41\x4a\x6b""#), s(&["AJk"]));
        assert_eq!(ok(r#""\xc3\xa9""#), s(&["é"]));
        assert_eq!(ok(r#""\xff""#), vec![vec![0xff]]);
        // \x without two hex digits is an escaped `x`.
        assert_eq!(ok(r#""\x4" "\xzz" "\x""#), s(&["x4", "xzz", "x"]));
        assert_eq!(ok(r#""" ''"#), s(&["", ""]));
        // A quote may open in the middle of a word.
        assert_eq!(ok(r#"a"b c" d"#), s(&["ab c", "d"]));
        // A closing quote followed by a blank of any kind, or the end.
        assert_eq!(ok("\"a\"\tb"), s(&["a", "b"]));
        assert_eq!(ok("\"a\"\x0bb"), s(&["a", "b"]));
    }

    #[test]
    fn single_quotes() {
        assert_eq!(ok(r"'it\'s'"), s(&["it's"]));
        assert_eq!(ok(r"'a\nb' 'x\\y'"), s(&[r"a\nb", r"x\\y"]));
        assert_eq!(ok(r#"'say "hi"'"#), s(&[r#"say "hi""#]));
        // `\\` is two characters here, and `\'` before the end leaves the quote open.
        assert_eq!(split_args(r"'\\'"), Err(BadLine::Unclosed));
    }

    #[test]
    fn what_redis_cli_refuses() {
        assert_eq!(split_args(r#"set "a"b"#), Err(BadLine::AfterQuote));
        assert_eq!(split_args(r#"set 'a'b"#), Err(BadLine::AfterQuote));
        assert_eq!(split_args(r#""a""b""#), Err(BadLine::AfterQuote));
        assert_eq!(split_args(r#"set "a"#), Err(BadLine::Unclosed));
        assert_eq!(split_args("set 'a"), Err(BadLine::Unclosed));
        assert_eq!(split_args(r#"set "a\"#), Err(BadLine::Unclosed));
        assert_eq!(split_args(r#"set "\x4"#), Err(BadLine::Unclosed));
        for e in [BadLine::Unclosed, BadLine::AfterQuote] {
            assert!(!e.bengali().is_empty());
        }
    }

    #[test]
    fn the_line_ends_at_a_nul() {
        assert_eq!(ok("get k\0 ignored"), s(&["get", "k"]));
        assert_eq!(split_args("set \"a\0\" b"), Err(BadLine::Unclosed));
    }

    #[test]
    fn text_for_a_utf8_channel() {
        assert_eq!(
            utf8_args(ok(r#"SET "\xc3\xa9" v"#)),
            Some(vec!["SET".into(), "é".into(), "v".into()])
        );
        assert_eq!(utf8_args(ok(r#"SET "\xff" v"#)), None);
    }
}
