//! `labsim redis`: a `redis-cli`-style session against SimRedis, lines split by
//! [`split_args`] (`redis-cli`'s own rules).

use super::args::{split_args, BadLine};

/// Options of a `labsim redis` session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionOptions {
    /// Seeds the server's random choices (active expiry, SPOP, eviction).
    pub seed: u32,
    /// The unix time (ms) the session starts at; `None` keeps SimRedis' fixed date,
    /// [`super::EPOCH_MS`] (2023-11-14).
    pub now_ms: Option<i64>,
}

/// The nodes a session talks to: one server, or a primary with a replica.
enum Nodes {
    One(Box<super::SimRedis>),
    Pair(Box<super::Replicated>),
}

/// Runs a `redis-cli`-style session for `labsim redis`: one command per line in, one JSON
/// reply per line out ([`Reply::to_json`](super::Reply::to_json)). Blank lines and `#`
/// comments are skipped. Directives (`#` and a word):
///
/// * `#advance <ms>` moves the virtual clock;
/// * `#node replica` sends the following commands to a replica of the server (the first
///   time, one is attached with a full sync), `#node primary` back to the primary;
/// * `#lag <ms>` sets how long the replication stream takes from now on (default 0);
/// * `#promote` fails the primary over: the replica becomes the primary (what it had not
///   yet received is lost) and the session talks to it from then on.
///
/// A line `redis-cli` would refuse (unbalanced quotes) answers
/// `{"error":"Invalid argument(s)"}`, as `redis-cli` does. The session is one client: a
/// blocking command that would block waits in virtual time until its timeout (the clock
/// moves) and answers nil; with timeout 0 it answers an error, since no other client could
/// ever push. The named scripts ([`super::SCRIPTS`]) are loaded at the start, as the proxy
/// loads them on a real Redis.
///
/// # Errors
/// A malformed directive (with its line number), or an I/O error.
pub fn run_session(
    input: impl std::io::BufRead,
    mut out: impl std::io::Write,
    opts: SessionOptions,
) -> Result<(), String> {
    use super::{Exec, Node, Replicated, Reply, SimRedis};
    let mut first = SimRedis::new(opts.seed).with_named_scripts();
    if let Some(ms) = opts.now_ms {
        first.set_epoch_ms(ms);
    }
    let mut nodes = Nodes::One(Box::new(first));
    let mut node = Node::Primary;
    let mut lag = 0u64;
    for (n, line) in input.lines().enumerate() {
        let line = line.map_err(|e| format!("reading stdin: {e}"))?;
        let t = line.trim();
        if let Some(rest) = t.strip_prefix('#') {
            let mut words = rest.split_whitespace();
            let bad = |what: &str| format!("line {}: {what}", n + 1);
            match words.next() {
                Some("advance") => {
                    let ms = words
                        .next()
                        .and_then(|w| w.parse::<u64>().ok())
                        .filter(|_| words.next().is_none())
                        .ok_or_else(|| {
                            bad("'#advance' needs a whole number of ms, e.g. '#advance 1500'")
                        })?;
                    match &mut nodes {
                        Nodes::One(s) => s.advance(ms),
                        Nodes::Pair(p) => p.advance(ms),
                    }
                }
                Some("lag") => {
                    lag = words
                        .next()
                        .and_then(|w| w.parse::<u64>().ok())
                        .filter(|_| words.next().is_none())
                        .ok_or_else(|| bad("'#lag' needs a whole number of ms, e.g. '#lag 50'"))?;
                    if let Nodes::Pair(p) = &mut nodes {
                        p.set_lag_ms(lag);
                    }
                }
                Some("node") => {
                    let which = words.next().filter(|_| words.next().is_none());
                    node = match which {
                        Some("primary") => Node::Primary,
                        Some("replica") => Node::Replica,
                        _ => return Err(bad("'#node' needs 'primary' or 'replica'")),
                    };
                    if node == Node::Replica {
                        nodes = match nodes {
                            Nodes::One(s) => {
                                let seed = opts.seed.wrapping_add(1);
                                Nodes::Pair(Box::new(Replicated::attach(*s, seed, lag)))
                            }
                            Nodes::Pair(p) if !p.linked() => {
                                return Err(bad("'#node replica': the replica was promoted; there is no replica now"))
                            }
                            pair => pair,
                        };
                    }
                }
                Some("promote") => {
                    if words.next().is_some() {
                        return Err(bad("'#promote' takes nothing more"));
                    }
                    nodes = match nodes {
                        Nodes::Pair(mut p) => {
                            p.promote();
                            Nodes::One(Box::new(p.into_replica()))
                        }
                        Nodes::One(_) => {
                            return Err(bad("'#promote' needs a replica: '#node replica' first"))
                        }
                    };
                    node = Node::Primary;
                }
                _ => {} // a comment
            }
            continue;
        }
        if t.is_empty() {
            continue;
        }
        let reply = match split_args(&line) {
            Err(_) => Reply::err(BadLine::REDIS_CLI),
            Ok(args) if args.is_empty() => continue,
            Ok(args) => {
                let exec = match &mut nodes {
                    Nodes::One(s) => s.execute(1, &args),
                    Nodes::Pair(p) => p.execute(node, 1, &args),
                };
                match exec {
                    Exec::Reply(r) => r,
                    Exec::Blocked => {
                        let timeout = match &nodes {
                            Nodes::One(s) => s.next_timeout_ms(),
                            Nodes::Pair(p) => p.node(node).next_timeout_ms(),
                        };
                        match timeout {
                            Some(t) => {
                                let woken = match &mut nodes {
                                    Nodes::One(s) => {
                                        s.advance_to(t);
                                        s.take_woken()
                                    }
                                    Nodes::Pair(p) => {
                                        p.advance_to(t);
                                        p.take_woken(node)
                                    }
                                };
                                woken
                                    .into_iter()
                                    .find(|w| w.client == 1)
                                    .map_or(Reply::Nil, |w| w.reply)
                            }
                            None => {
                                match &mut nodes {
                                    Nodes::One(s) => s.disconnect(1),
                                    Nodes::Pair(p) => p.disconnect(node, 1),
                                }
                                Reply::Error(format!(
                                    "labsim: {} would block forever: this session is the only client",
                                    String::from_utf8_lossy(&args[0]).to_uppercase()
                                ))
                            }
                        }
                    }
                }
            }
        };
        writeln!(out, "{}", reply.to_json()).map_err(|e| format!("writing stdout: {e}"))?;
    }
    out.flush().map_err(|e| format!("writing stdout: {e}"))
}
