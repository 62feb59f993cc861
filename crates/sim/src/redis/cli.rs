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

/// Runs a `redis-cli`-style session for `labsim redis`: one command per line in, one JSON
/// reply per line out ([`Reply::to_json`](super::Reply::to_json)). Blank lines and `#`
/// comments are skipped; `#advance <ms>` moves the virtual clock. A line `redis-cli` would
/// refuse (unbalanced quotes) answers `{"error":"Invalid argument(s)"}`, as `redis-cli` does.
/// The session is one client: a blocking command that would block waits in virtual time
/// until its timeout (the clock moves) and answers nil; with timeout 0 it answers an error,
/// since no other client could ever push.
///
/// # Errors
/// A malformed `#advance` line (with its line number), or an I/O error.
pub fn run_session(
    input: impl std::io::BufRead,
    mut out: impl std::io::Write,
    seed: u32,
) -> Result<(), String> {
    use super::{Exec, Reply, SimRedis};
    let mut sim = SimRedis::new(seed).with_named_scripts();
    for (n, line) in input.lines().enumerate() {
        let line = line.map_err(|e| format!("reading stdin: {e}"))?;
        let t = line.trim();
        if let Some(rest) = t.strip_prefix('#') {
            let mut words = rest.split_whitespace();
            if words.next() == Some("advance") {
                let ms = words
                    .next()
                    .and_then(|w| w.parse::<u64>().ok())
                    .filter(|_| words.next().is_none())
                    .ok_or_else(|| {
                        format!(
                            "line {}: '#advance' needs a whole number of ms, e.g. '#advance 1500'",
                            n + 1
                        )
                    })?;
                sim.advance(ms);
            }
            continue;
        }
        if t.is_empty() {
            continue;
        }
        let reply = match split_args(&line) {
            None => Reply::err("Invalid argument(s)"),
            Some(args) if args.is_empty() => continue,
            Some(args) => match sim.execute(1, &args) {
                Exec::Reply(r) => r,
                Exec::Blocked => match sim.next_timeout_ms() {
                    Some(t) => {
                        sim.advance_to(t);
                        sim.take_woken()
                            .into_iter()
                            .find(|w| w.client == 1)
                            .map_or(Reply::Nil, |w| w.reply)
                    }
                    None => {
                        sim.disconnect(1);
                        Reply::Error(format!(
                            "labsim: {} would block forever: this session is the only client",
                            String::from_utf8_lossy(&args[0]).to_uppercase()
                        ))
                    }
                },
            },
        };
        writeln!(out, "{}", reply.to_json()).map_err(|e| format!("writing stdout: {e}"))?;
    }
    out.flush().map_err(|e| format!("writing stdout: {e}"))
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
