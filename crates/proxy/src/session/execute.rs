//! A request's execution: the whole proxy's reply budget, the call to Redis (the shared
//! connection, the `after` bookkeeping, a script, a blocking read on a borrowed connection),
//! the session's accounts settled from what Redis reported, and the reply made into JSON
//! (a big one on a blocking thread) with the session's prefix taken off echoed key names.

use super::admit::Work;
use super::{text, Session, FREE_BYTES, REPLY_FLOOR};
use crate::backend::{self, After, Backend};
use crate::budget::{Outcome, Size, Ticket};
use crate::commands::{Echo, Expiry, Prepared, Shape};
use crate::housekeeping;
use crate::protocol::{Code, ErrBody, Limit, ServerMsg};
use crate::scripts;
use axum::extract::ws::Message;
use redislab_sim::Reply;
use serde_json::Value;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// A reply as `execute` leaves it: made into JSON already, or (a big one) to be made on a
/// blocking thread, so the session tasks and the connection to Redis are never held up by it.
pub(super) enum Rendered {
    Now(Value),
    Later(redis::Value, Echo),
}

/// A reply's JSON above this size is made on a blocking thread.
const RENDER_APART: usize = 64 * 1024;

/// The answer to request `id`, as the message that carries it.
pub(super) async fn render(s: &Session, id: u64, r: Result<Rendered, ErrBody>) -> Message {
    match r {
        Ok(Rendered::Now(v)) => text(&ServerMsg::answer(Some(id), Ok(v))),
        Ok(Rendered::Later(raw, echo)) => {
            let prefix = s.prefix.clone();
            let max = s.state.config.max_reply_bytes;
            tokio::task::spawn_blocking(move || {
                let size = json_size(&raw);
                if size > max {
                    return text(&ServerMsg::answer(Some(id), Err(too_big(size, max))));
                }
                let v = strip(backend::to_reply(raw), echo, &prefix).to_json();
                text(&ServerMsg::answer(Some(id), Ok(v)))
            })
            .await
            .unwrap_or_else(|_| {
                text(&ServerMsg::answer(
                    Some(id),
                    Err(ErrBody::new(
                        Code::Unavailable,
                        "the reply could not be made",
                    )),
                ))
            })
        }
        Err(e) => text(&ServerMsg::answer(Some(id), Err(e))),
    }
}

/// SET's words with the session's expiry: the backstop when it asks for none, an expiry it
/// asks for kept before the backstop.
fn set_words(p: &Prepared, backstop: u64, now: i64) -> Vec<Vec<u8>> {
    let mut w = p.words.clone();
    match &p.shape {
        Shape::Set {
            expiry: Expiry::None,
            ..
        } => {
            w.push(b"PXAT".to_vec());
            w.push(backstop.to_string().into_bytes());
        }
        Shape::Set {
            expiry: Expiry::Given { at, ms, absolute },
            ..
        } => {
            let v = std::str::from_utf8(&w[*at])
                .ok()
                .and_then(|v| v.parse::<i64>().ok());
            if let Some(v) = v {
                let want = v.saturating_mul(*ms as i64);
                let want = if *absolute {
                    want
                } else {
                    now.saturating_add(want)
                };
                if v > 0 && want >= backstop as i64 {
                    w[*at - 1] = b"PXAT".to_vec();
                    w[*at] = (backstop - 1).to_string().into_bytes();
                }
            }
        }
        _ => {}
    }
    w
}

fn cmd_of(words: &[Vec<u8>]) -> redis::Cmd {
    let mut cmd = redis::Cmd::new();
    for w in words {
        cmd.arg(w.as_slice());
    }
    cmd
}

/// The `after` mask: `1` for each key the write may create (LMOVE's source is not one).
fn mask(p: &Prepared) -> String {
    (0..p.keys.len())
        .map(|i| {
            if p.creates && !(matches!(p.shape, Shape::Move) && i == 0) {
                '1'
            } else {
                '0'
            }
        })
        .collect()
}

pub(super) async fn execute(
    s: &Session,
    mut work: Work,
    ticket: Option<Ticket>,
    potential: u64,
) -> Result<Rendered, ErrBody> {
    let state = &s.state;
    let cfg = &state.config;
    // The whole proxy's reply budget: room for this reply, waited for within the deadline (a
    // light request from the light budget: never in the queue behind a heavy one).
    let kib = potential.div_ceil(1024).min(u64::from(u32::MAX)) as u32;
    let budget = if potential > REPLY_FLOOR + FREE_BYTES {
        &state.replies
    } else {
        &state.light_replies
    };
    let permit = tokio::time::timeout(cfg.timeout, budget.clone().acquire_many_owned(kib))
        .await
        .ok()
        .and_then(Result::ok);
    let Some(_permit) = permit else {
        if let Some(t) = ticket {
            s.accounts
                .lock()
                .expect("not poisoned")
                .settle(&work.p, t, Outcome::NotRun);
        }
        return Err(ErrBody::limited(
            Code::RateLimited,
            Limit::ReplyBudget,
            "the server has too much reply data on its way; this request was not sent",
        ));
    };
    let r = run_request(s, &mut work).await;
    let p = &work.p;
    // The accounts: what Redis reported, or what the outcome says.
    if let Some(t) = ticket {
        let outcome = match &r {
            Ok((_, Some(sizes))) => Outcome::Ran(Some(sizes)),
            Ok((redis::Value::ServerError(_), None)) => Outcome::NotRun,
            Ok((_, None)) => Outcome::Ran(None),
            Err(e) if matches!(e.code, Code::Timeout | Code::UnknownOutcome) => Outcome::Unknown,
            Err(_) => Outcome::NotRun,
        };
        let mut acc = s.accounts.lock().expect("not poisoned");
        if let Ok((_, Some(_))) = &r {
            for (k, m) in p.keys.iter().zip(mask(p).bytes()) {
                if m == b'1' {
                    acc.mark_tracked(k);
                }
            }
        }
        acc.settle(p, t, outcome);
        // EXPIRE to the past deletes the key.
        if let (Shape::Expire { .. }, Ok((redis::Value::Int(1), _))) = (&p.shape, &r) {
            let past = std::str::from_utf8(&p.words[2])
                .ok()
                .and_then(|n| n.parse::<i64>().ok())
                .is_some_and(|n| n <= 0);
            if past {
                acc.gone(&p.keys[0]);
            }
        }
    }
    let (raw, _) = r?;
    if let redis::Value::ServerError(e) = &raw {
        return Err(backend::server_error(e));
    }
    // A reply that may be big is measured and made on a blocking thread (see `render`).
    if work.heavy {
        return Ok(Rendered::Later(raw, p.echo));
    }
    let size = json_size(&raw);
    if size > cfg.max_reply_bytes {
        return Err(too_big(size, cfg.max_reply_bytes));
    }
    if size > RENDER_APART {
        return Ok(Rendered::Later(raw, p.echo));
    }
    Ok(Rendered::Now(
        strip(backend::to_reply(raw), p.echo, &s.prefix).to_json(),
    ))
}

fn too_big(size: usize, max: usize) -> ErrBody {
    ErrBody::limited(
        Code::TooLarge,
        Limit::ReplySize,
        format!(
            "the reply is about {size} bytes, and one message carries at most {max}: ask for \
             less (a range, a COUNT); the command itself ran"
        ),
    )
}

/// Sends a checked request its way: the reply as Redis sent it, and the sizes of its keys
/// after it when the `after` script ran.
async fn run_request(
    s: &Session,
    work: &mut Work,
) -> Result<(redis::Value, Option<Vec<Size>>), ErrBody> {
    let state = &s.state;
    let backend: &Backend = &state.backend;
    let p = &work.p;
    let after = After {
        track: &s.track_key,
        keys: &p.keys,
        backstop: s.backstop,
        mask: mask(p),
    };
    let creates = after.mask.contains('1');
    if creates && !s.registered.swap(true, Ordering::Relaxed) {
        housekeeping::register(state, &s.id).await;
    }
    if let Some((script, args)) = &work.script {
        return backend.script(script, &p.keys, args, &after).await;
    }
    if let Some(ms) = p.block_ms {
        return blocking(s, p, &after, ms).await;
    }
    let b = s.backstop.to_string();
    let vttl = |mode: &'static str, amount: &[u8], opt: Vec<u8>| {
        let keys = [p.keys[0].as_slice()];
        let amount = amount.to_vec();
        let b = b.clone();
        async move {
            let args: [&[u8]; 4] = [b.as_bytes(), mode.as_bytes(), &amount, &opt];
            backend
                .proxy_script(
                    &scripts::VTTL,
                    &keys,
                    &args,
                    mode != "ttl" && mode != "pttl",
                )
                .await
                .map(|v| (v, None))
        }
    };
    match &p.shape {
        Shape::Ttl { ms } => return vttl(if *ms { "pttl" } else { "ttl" }, b"", vec![]).await,
        Shape::Persist => return vttl("persist", b"", vec![]).await,
        Shape::Expire { ms } => {
            let opt = p
                .words
                .get(3)
                .map(|o| o.to_ascii_uppercase())
                .unwrap_or_default();
            return vttl(if *ms { "pexpire" } else { "expire" }, &p.words[2], opt).await;
        }
        _ => {}
    }
    if !p.write || p.keys.is_empty() {
        // Reads (a heavy one on a connection of the heavy ones), PUBLISH, PING.
        let cmd = cmd_of(&p.words);
        let r = if !p.write && work.heavy {
            backend.run_heavy(&cmd).await
        } else {
            backend.run(&cmd, p.write).await
        };
        return r.map(|v| (v, None));
    }
    let words = if matches!(p.shape, Shape::Set { .. }) {
        set_words(p, s.backstop, state.redis_now_ms())
    } else {
        p.words.clone()
    };
    let cmd = cmd_of(&words);
    if work.fast {
        return backend.run(&cmd, true).await.map(|v| (v, None));
    }
    backend.write(&cmd, &after, work.heavy).await
}

/// A blocking read: one at a time per session (one that cannot start within the request
/// timeout is answered TIMEOUT and never sent), on a connection borrowed for it.
async fn blocking(
    s: &Session,
    p: &Prepared,
    after: &After<'_>,
    ms: u64,
) -> Result<(redis::Value, Option<Vec<Size>>), ErrBody> {
    let cfg = &s.state.config;
    let backend = &s.state.backend;
    let started = tokio::time::Instant::now();
    let mut turn = tokio::time::timeout(cfg.timeout, s.blocking.lock())
        .await
        .map_err(|_| {
            ErrBody::new(
                Code::Timeout,
                "another blocking read of this session is still waiting; this one was not sent",
            )
        })?;
    let left = cfg.timeout.saturating_sub(started.elapsed());
    let mut lease = backend.lease(turn.clone(), left).await?;
    let r = backend
        .run_blocking(
            &mut lease,
            &cmd_of(&p.words),
            Some(after),
            Duration::from_millis(ms),
        )
        .await;
    *turn = lease.node.clone();
    match &r {
        // Timed out or broken: dropped (closing it cancels the block in Redis).
        Err(e) if e.code != Code::Redis => drop(lease),
        _ => backend.give_back(lease),
    }
    r
}

/// The size of a reply's JSON (an upper bound), without making it.
fn json_size(v: &redis::Value) -> usize {
    use redis::Value as V;
    match v {
        V::Nil => 5,
        V::Int(_) => 21,
        // Without decoding: a control character becomes `\u00XX`, a quote or backslash is
        // escaped, and a byte past ASCII at worst becomes U+FFFD (3 bytes) when it is not
        // valid UTF-8.
        V::BulkString(b) => {
            3 + b
                .iter()
                .map(|&c| match c {
                    b'"' | b'\\' => 2,
                    0..=0x1f => 6,
                    0x80.. => 3,
                    _ => 1,
                })
                .sum::<usize>()
        }
        V::Array(a) | V::Set(a) => 2 + a.iter().map(json_size).sum::<usize>(),
        V::Map(m) => {
            2 + m
                .iter()
                .map(|(k, v)| json_size(k) + json_size(v))
                .sum::<usize>()
        }
        V::SimpleString(t) => 16 + t.len() * 6,
        V::VerbatimString { text, .. } => 3 + text.len() * 6,
        V::ServerError(e) => 32 + e.details().map_or(0, str::len) * 6,
        V::Attribute { data, .. } => json_size(data),
        _ => 32,
    }
}

/// Removes the session prefix from key names a reply carries.
fn strip(r: Reply, echo: Echo, prefix: &str) -> Reply {
    let unprefix = |r: Reply| match r {
        Reply::Bulk(b) if b.starts_with(prefix.as_bytes()) => {
            Reply::Bulk(b[prefix.len()..].to_vec())
        }
        other => other,
    };
    match (echo, r) {
        (Echo::KeyFirst, Reply::Array(mut a)) if a.len() == 2 => {
            let k = std::mem::replace(&mut a[0], Reply::Nil);
            a[0] = unprefix(k);
            Reply::Array(a)
        }
        (Echo::Streams, Reply::Array(streams)) => Reply::Array(
            streams
                .into_iter()
                .map(|st| match st {
                    Reply::Array(mut a) if a.len() == 2 => {
                        let k = std::mem::replace(&mut a[0], Reply::Nil);
                        a[0] = unprefix(k);
                        Reply::Array(a)
                    }
                    other => other,
                })
                .collect(),
        ),
        (_, r) => r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_lose_the_prefix() {
        let p = "lab:{ab}:";
        let r = Reply::Array(vec![Reply::bulk("lab:{ab}:q"), Reply::bulk("lab:{ab}:v")]);
        assert_eq!(
            strip(r, Echo::KeyFirst, p),
            Reply::Array(vec![Reply::bulk("q"), Reply::bulk("lab:{ab}:v")])
        );
        let r = Reply::Array(vec![Reply::Array(vec![
            Reply::bulk("lab:{ab}:s"),
            Reply::Array(vec![]),
        ])]);
        assert_eq!(
            strip(r, Echo::Streams, p),
            Reply::Array(vec![Reply::Array(vec![
                Reply::bulk("s"),
                Reply::Array(vec![])
            ])])
        );
        assert_eq!(strip(Reply::Nil, Echo::Streams, p), Reply::Nil);
    }
}
