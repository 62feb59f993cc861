//! `redis-cli` argument syntax: a port of `sdssplitargs` (what `redis-cli` uses to split a
//! typed line), so `labsim redis` reads exactly what a student would type at `redis-cli`.
//!
//! Hand-written because the rules are Redis' own (double quotes with `\n \r \t \b \a \\ \"`
//! and `\xHH`, single quotes with only `\'`, a closing quote must end the argument); no
//! shell-words crate follows them.

/// Splits one line into arguments. `None` when quotes are unbalanced or a closing quote is
/// followed by something other than a space (`redis-cli` answers "Invalid argument(s)").
pub fn split_args(line: &str) -> Option<Vec<Vec<u8>>> {
    let b = line.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= b.len() {
            return Some(out);
        }
        let mut cur = Vec::new();
        let (mut inq, mut insq) = (false, false);
        loop {
            if inq {
                if i >= b.len() {
                    return None;
                }
                if b[i] == b'\\'
                    && i + 3 < b.len()
                    && b[i + 1] == b'x'
                    && b[i + 2].is_ascii_hexdigit()
                    && b[i + 3].is_ascii_hexdigit()
                {
                    let hex = std::str::from_utf8(&b[i + 2..i + 4]).expect("ascii");
                    cur.push(u8::from_str_radix(hex, 16).expect("hex digits"));
                    i += 3;
                } else if b[i] == b'\\' && i + 1 < b.len() {
                    i += 1;
                    cur.push(match b[i] {
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        b'b' => 8,
                        b'a' => 7,
                        c => c,
                    });
                } else if b[i] == b'"' {
                    if i + 1 < b.len() && !b[i + 1].is_ascii_whitespace() {
                        return None;
                    }
                    i += 1;
                    break;
                } else {
                    cur.push(b[i]);
                }
            } else if insq {
                if i >= b.len() {
                    return None;
                }
                if b[i] == b'\\' && i + 1 < b.len() && b[i + 1] == b'\'' {
                    i += 1;
                    cur.push(b'\'');
                } else if b[i] == b'\'' {
                    if i + 1 < b.len() && !b[i + 1].is_ascii_whitespace() {
                        return None;
                    }
                    i += 1;
                    break;
                } else {
                    cur.push(b[i]);
                }
            } else if i >= b.len() {
                break;
            } else {
                match b[i] {
                    b' ' | b'\n' | b'\r' | b'\t' | 0 => break,
                    b'"' => inq = true,
                    b'\'' => insq = true,
                    c => cur.push(c),
                }
            }
            i += 1;
        }
        out.push(cur);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<Vec<u8>> {
        v.iter().map(|x| x.as_bytes().to_vec()).collect()
    }

    #[test]
    fn splits_like_redis_cli() {
        assert_eq!(split_args("SET k v").unwrap(), s(&["SET", "k", "v"]));
        assert_eq!(split_args("  get   k  ").unwrap(), s(&["get", "k"]));
        assert_eq!(
            split_args(r#"set "a b" "x\"y\n" 'it\'s' "\x41""#).unwrap(),
            s(&["set", "a b", "x\"y\n", "it's", "A"])
        );
        assert_eq!(split_args(r#"set "" ''"#).unwrap(), s(&["set", "", ""]));
        assert_eq!(split_args(r"a\n'b'").unwrap(), s(&[r"a\nb"]));
        assert_eq!(split_args("").unwrap(), Vec::<Vec<u8>>::new());
        assert_eq!(split_args(r#"set "a"b"#), None);
        assert_eq!(split_args(r#"set "a"#), None);
        assert_eq!(split_args("set 'a"), None);
    }
}
