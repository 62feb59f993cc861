//! One WebSocket session: its namespace, its limits, its requests, its end.
//!
//! A session gets `lab:{<128-bit random hex>}:` as its prefix; the braces make the id a
//! cluster hash tag, so all its keys share one slot. Keys a session writes are tracked (in
//! memory, and in a Redis set `lab:{<id>}` that no client key can name, with a TTL refreshed
//! on each new key); when the session ends every tracked key gets `PEXPIRE <grace> LT` — an
//! expiry no later than the grace, keeping a shorter one the lab set itself.
//!
//! Requests run concurrently (bounded in-flight count, a token-bucket rate); ordinary ones on
//! the shared connection, blocking reads (with a bounded block time) on the session's own
//! connection, so they hold up nobody else. On a Redis Cluster that connection goes to the
//! one node that owns the session's slot (see `backend`).

use crate::backend::Backend;
use crate::commands::{self, Echo, Prepared};
use crate::protocol::{self, Code, ErrBody, Request, ServerMsg};
use crate::AppState;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use futures_util::stream::FuturesUnordered;
use futures_util::{FutureExt, SinkExt, StreamExt};
use redis::aio::MultiplexedConnection;
use redislab_sim::redis::SCRIPTS;
use redislab_sim::Reply;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::sync::OwnedSemaphorePermit;

/// Close codes (RFC 6455).
const GOING_AWAY: u16 = 1001;
const POLICY: u16 = 1008;
const TOO_BIG: u16 = 1009;
const NORMAL: u16 = 1000;

/// How long one message may take to go out to the client.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

struct Session {
    state: Arc<AppState>,
    prefix: String,
    track_key: String,
    tracked: Mutex<HashSet<Vec<u8>>>,
    blocking: tokio::sync::Mutex<Option<MultiplexedConnection>>,
}

/// A token bucket: `rate` per second, at most `burst` at once.
struct Bucket {
    tokens: f64,
    last: Instant,
    rate: f64,
    burst: f64,
}

impl Bucket {
    fn new(rate: u32, burst: u32) -> Self {
        Bucket {
            tokens: f64::from(burst),
            last: Instant::now(),
            rate: f64::from(rate),
            burst: f64::from(burst),
        }
    }

    fn take(&mut self) -> bool {
        let now = Instant::now();
        self.tokens =
            (self.tokens + now.duration_since(self.last).as_secs_f64() * self.rate).min(self.burst);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// 128 random bits from the OS, as hex.
fn new_id() -> String {
    let mut b = [0u8; 16];
    getrandom::getrandom(&mut b).expect("the OS gives random bytes");
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn close(code: u16, reason: &'static str) -> Message {
    Message::Close(Some(CloseFrame {
        code,
        reason: Utf8Bytes::from_static(reason),
    }))
}

fn text(m: &ServerMsg) -> Message {
    Message::Text(m.to_text().into())
}

/// A request in flight: its id, whether it writes (what a shutdown answers), its work.
struct InFlight {
    id: u64,
    write: bool,
    work: Pin<Box<dyn Future<Output = Result<Value, ErrBody>> + Send>>,
}

impl Future for InFlight {
    type Output = (u64, Result<Value, ErrBody>);

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let id = self.id;
        self.work.as_mut().poll(cx).map(|r| (id, r))
    }
}

impl InFlight {
    /// The answer when the proxy shuts down before Redis answered.
    fn shutdown_answer(&self) -> ServerMsg {
        ServerMsg::answer(
            Some(self.id),
            Err(if self.write {
                ErrBody {
                    code: Code::UnknownOutcome,
                    message: "the server is shutting down; the write may or may not have happened"
                        .into(),
                }
            } else {
                ErrBody {
                    code: Code::Unavailable,
                    message: "the server is shutting down".into(),
                }
            }),
        )
    }
}

type Pending = FuturesUnordered<InFlight>;

/// Answers at most this many finished requests in one write.
const MAX_BATCH: usize = 64;

/// Writes `first`, then the answers of any other requests already finished, and flushes once
/// (one write to the socket for all of them), within WRITE_TIMEOUT: a client that stops
/// reading is dropped. False when the socket is gone or too slow.
async fn answer(socket: &mut WebSocket, pending: &mut Pending, first: Message) -> bool {
    let all = async {
        socket.feed(first).await?;
        for _ in 0..MAX_BATCH {
            match pending.next().now_or_never() {
                Some(Some((id, r))) => socket.feed(text(&ServerMsg::answer(Some(id), r))).await?,
                _ => break,
            }
        }
        socket.flush().await
    };
    matches!(tokio::time::timeout(WRITE_TIMEOUT, all).await, Ok(Ok(())))
}

/// At a shutdown: what has finished gets its answer, everything else the shutdown error (the
/// unfinished work is dropped). False when the socket is gone.
async fn answer_shutdown(socket: &mut WebSocket, pending: &mut Pending, mut alive: bool) -> bool {
    while let Some(Some((id, r))) = pending.next().now_or_never() {
        if alive {
            alive = answer(socket, pending, text(&ServerMsg::answer(Some(id), r))).await;
        }
    }
    for f in std::mem::take(pending) {
        if alive {
            alive = answer(socket, &mut Pending::new(), text(&f.shutdown_answer())).await;
        }
    }
    alive
}

/// Runs a session to its end. `_permit` holds one place under the connection cap.
///
/// One task does all of a session's work: it reads a request, checks it and starts it (its
/// Redis call joins the session's requests in flight, polled by this same task), and writes
/// each answer when it is ready — several ready ones in one write. No task per request and no
/// writer task: a plain command costs one wake-up of this task, not three hand-offs.
/// Writing blocks reading: a client that does not read its answers stops being read.
pub async fn run(mut socket: WebSocket, state: Arc<AppState>, _permit: OwnedSemaphorePermit) {
    let id = new_id();
    let cfg = &state.config;
    let s = Arc::new(Session {
        prefix: format!("lab:{{{id}}}:"),
        track_key: format!("lab:{{{id}}}"),
        tracked: Mutex::new(HashSet::new()),
        blocking: tokio::sync::Mutex::new(None),
        state: state.clone(),
    });
    tracing::debug!(session = %id, "open");
    let mut pending = Pending::new();

    let hello = json!({
        "namespace": s.prefix,
        "session": id,
        "scripts": SCRIPTS.iter().map(|x| json!({"name": x.name, "sha1": x.sha1, "source": x.source})).collect::<Vec<_>>(),
        "commands": commands::allowed_names().collect::<Vec<_>>(),
        "limits": {
            "max_message_bytes": cfg.max_message_bytes,
            "max_args": cfg.limits.max_args,
            "max_arg_bytes": cfg.limits.max_arg_bytes,
            "max_key_bytes": cfg.limits.max_key_bytes,
            "max_block_ms": cfg.limits.max_block_ms,
            "timeout_ms": cfg.timeout.as_millis() as u64,
            "rate_per_sec": cfg.rate_per_sec,
            "burst": cfg.burst,
            "max_in_flight": cfg.max_in_flight,
            "idle_timeout_ms": cfg.idle_timeout.as_millis() as u64,
            "max_keys": cfg.max_keys,
            "session_grace_ms": cfg.session_grace.as_millis() as u64,
        },
    });
    let mut alive = answer(&mut socket, &mut pending, text(&ServerMsg::Hello { hello })).await;

    let mut shutdown_rx = state.shutdown.subscribe();
    // One shutdown wait and one idle timer for the whole session (not one per message): the
    // timer fires at the last message's time + the idle timeout, and is moved on if a message
    // came since.
    let shutdown = async move {
        let _ = shutdown_rx.wait_for(|v| *v).await;
    };
    tokio::pin!(shutdown);
    let mut shutting_down = false;
    let mut last_message = tokio::time::Instant::now();
    let idle = tokio::time::sleep_until(last_message + cfg.idle_timeout);
    tokio::pin!(idle);
    let mut bucket = Bucket::new(cfg.rate_per_sec, cfg.burst);
    let ending = loop {
        if !alive {
            break None;
        }
        tokio::select! {
            biased;
            () = &mut shutdown => {
                shutting_down = true;
                alive = answer_shutdown(&mut socket, &mut pending, alive).await;
                break Some(close(GOING_AWAY, "server shutting down"));
            }
            Some((id, r)) = pending.next(), if !pending.is_empty() => {
                alive = answer(&mut socket, &mut pending, text(&ServerMsg::answer(Some(id), r))).await;
            }
            () = &mut idle => {
                let due = last_message + cfg.idle_timeout;
                if tokio::time::Instant::now() >= due {
                    break Some(close(NORMAL, "idle timeout"));
                }
                idle.as_mut().reset(due);
            }
            next = socket.next() => {
                let msg = match next {
                    None | Some(Ok(Message::Close(_))) => break None,
                    Some(Err(e)) => {
                        let big =
                            e.to_string().contains("too long") || e.to_string().contains("Space limit");
                        break Some(if big {
                            close(TOO_BIG, "message too big")
                        } else {
                            close(POLICY, "protocol error")
                        });
                    }
                    Some(Ok(m)) => m,
                };
                last_message = tokio::time::Instant::now();
                let refused = match msg {
                    Message::Text(t) => on_text(&s, &mut bucket, t.as_str(), &mut pending),
                    Message::Binary(_) => Some(ServerMsg::answer(
                        None,
                        Err(ErrBody {
                            code: Code::BadRequest,
                            message: "text messages only".into(),
                        }),
                    )),
                    _ => None, // ping/pong: answered by the WebSocket itself
                };
                if let Some(a) = refused {
                    alive = answer(&mut socket, &mut pending, text(&a)).await;
                }
            }
        }
    };

    // Every request started gets its answer before the close frame (each is bounded by
    // its deadline, and cut short by a shutdown).
    let wait =
        cfg.timeout + Duration::from_millis(cfg.limits.max_block_ms) + Duration::from_secs(1);
    let until = tokio::time::Instant::now() + wait;
    while !pending.is_empty() {
        tokio::select! {
            biased;
            () = &mut shutdown, if !shutting_down => {
                shutting_down = true;
                alive = answer_shutdown(&mut socket, &mut pending, alive).await;
            }
            Some((id, r)) = pending.next() => {
                if alive {
                    alive = answer(&mut socket, &mut pending, text(&ServerMsg::answer(Some(id), r))).await;
                }
            }
            () = tokio::time::sleep_until(until) => break,
        }
    }
    drop(pending);
    if alive {
        if let Some(c) = ending {
            let _ = tokio::time::timeout(WRITE_TIMEOUT, socket.send(c)).await;
        }
        let _ = tokio::time::timeout(WRITE_TIMEOUT, socket.close()).await;
    }
    drop(socket);
    s.blocking.lock().await.take();
    expire_tracked(&s).await;
    tracing::debug!(session = %id, "closed");
}

/// Handles one text message: an immediate answer (refused) or `None` (started: it joins
/// `pending`, and is answered when it finishes).
fn on_text(
    s: &Arc<Session>,
    bucket: &mut Bucket,
    t: &str,
    pending: &mut Pending,
) -> Option<ServerMsg> {
    let cfg = &s.state.config;
    let allowed = bucket.take();
    if t.len() > cfg.max_message_bytes {
        return Some(ServerMsg::answer(
            None,
            Err(ErrBody {
                code: Code::TooLarge,
                message: format!("a message is at most {} bytes", cfg.max_message_bytes),
            }),
        ));
    }
    let req = match protocol::parse(t) {
        Ok(r) => r,
        Err((id, e)) => return Some(ServerMsg::answer(id, Err(e))),
    };
    let id = req.id;
    let refuse = |code, message: &str| {
        Some(ServerMsg::answer(
            Some(id),
            Err(ErrBody {
                code,
                message: message.to_string(),
            }),
        ))
    };
    if !allowed {
        return refuse(Code::RateLimited, "over the per-connection rate limit");
    }
    let work = match prepare(s, &req) {
        Ok(w) => w,
        Err(e) => return Some(ServerMsg::answer(Some(id), Err(e))),
    };
    if pending.len() >= cfg.max_in_flight {
        return refuse(
            Code::RateLimited,
            "too many requests in flight on this connection",
        );
    }
    let s = s.clone();
    pending.push(InFlight {
        id,
        write: work.write(),
        work: Box::pin(async move { execute(&s, work).await }),
    });
    None
}

/// What a request will do, checked.
enum Work {
    Cmd(Prepared),
    Script(
        &'static redislab_sim::redis::Script,
        Vec<Vec<u8>>,
        Vec<String>,
    ),
}

impl Work {
    fn write(&self) -> bool {
        match self {
            Work::Cmd(p) => p.write,
            Work::Script(..) => true,
        }
    }
}

fn prepare(s: &Session, req: &Request) -> Result<Work, ErrBody> {
    let limits = &s.state.config.limits;
    if let Some(cmd) = &req.cmd {
        return commands::prepare(cmd, &s.prefix, limits).map(Work::Cmd);
    }
    let name = req.script.as_deref().unwrap_or_default();
    let script = SCRIPTS
        .iter()
        .find(|x| x.name == name)
        .ok_or_else(|| ErrBody {
            code: Code::Forbidden,
            message: format!(
                "no script named `{}`; the server runs only its named scripts",
                name.chars().take(40).collect::<String>()
            ),
        })?;
    let keys = req.keys.as_deref().unwrap_or_default();
    let args = req.args.as_deref().unwrap_or_default();
    if keys.is_empty() {
        return Err(ErrBody {
            code: Code::BadRequest,
            message: "a script needs its keys".into(),
        });
    }
    if keys.len() + args.len() > limits.max_args {
        return Err(ErrBody {
            code: Code::TooLarge,
            message: format!("at most {} keys and arguments", limits.max_args),
        });
    }
    if args.iter().any(|a| a.len() > limits.max_arg_bytes) {
        return Err(ErrBody {
            code: Code::TooLarge,
            message: format!("an argument is at most {} bytes", limits.max_arg_bytes),
        });
    }
    let keys = keys
        .iter()
        .map(|k| commands::prefix_key(&s.prefix, k, limits))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Work::Script(script, keys, args.to_vec()))
}

async fn execute(s: &Session, work: Work) -> Result<Value, ErrBody> {
    let backend: &Backend = &s.state.backend;
    match work {
        Work::Script(script, keys, args) => {
            track(s, &keys).await?;
            Ok(backend.script(script, &keys, &args).await?.to_json())
        }
        Work::Cmd(p) => {
            if p.write {
                track(s, &p.keys).await?;
            }
            let mut cmd = redis::Cmd::new();
            for w in &p.words {
                cmd.arg(w.as_slice());
            }
            let reply = match p.block_ms {
                None => backend.run(&cmd, p.write).await?,
                Some(ms) => {
                    // One blocking read at a time per session; one that cannot start within
                    // the request timeout is answered TIMEOUT (it never ran).
                    let mut guard = tokio::time::timeout(s.state.config.timeout, s.blocking.lock())
                        .await
                        .map_err(|_| ErrBody {
                            code: Code::Timeout,
                            message: "another blocking read of this session is still \
                                          waiting; this one was not sent"
                                .into(),
                        })?;
                    let r = backend
                        .run_blocking(&mut guard, &cmd, Duration::from_millis(ms))
                        .await;
                    if matches!(&r, Err(e) if e.code != Code::Redis) {
                        // Timed out or broken: drop it (closing it cancels the block).
                        guard.take();
                    }
                    r?
                }
            };
            Ok(strip(reply, p.echo, &s.prefix).to_json())
        }
    }
}

/// Records the keys a write will touch, before the write, so they expire when the session
/// ends even if the write's outcome is unknown.
async fn track(s: &Session, keys: &[Vec<u8>]) -> Result<(), ErrBody> {
    let new: Vec<Vec<u8>> = {
        let t = s.tracked.lock().expect("not poisoned");
        let new: Vec<_> = keys.iter().filter(|k| !t.contains(*k)).cloned().collect();
        if t.len() + new.len() > s.state.config.max_keys {
            return Err(ErrBody {
                code: Code::TooLarge,
                message: format!(
                    "a session may write at most {} distinct keys",
                    s.state.config.max_keys
                ),
            });
        }
        new
    };
    if new.is_empty() {
        return Ok(());
    }
    let mut p = redis::pipe();
    p.cmd("SADD").arg(&s.track_key);
    for k in &new {
        p.arg(k.as_slice());
    }
    p.cmd("PEXPIRE")
        .arg(&s.track_key)
        .arg(s.state.config.track_ttl.as_millis() as u64);
    s.state.backend.pipe(&p).await.map_err(|e| {
        // Nothing of the write itself was sent: it did not happen.
        let code = match e.code {
            Code::UnknownOutcome => Code::Unavailable,
            c => c,
        };
        ErrBody {
            code,
            message: format!(
                "could not record the session's new keys, so the command was not sent: {}",
                e.message
            ),
        }
    })?;
    s.tracked.lock().expect("not poisoned").extend(new);
    Ok(())
}

/// At the end: every key the session wrote expires within the grace.
async fn expire_tracked(s: &Session) {
    let keys: Vec<Vec<u8>> = s.tracked.lock().expect("not poisoned").drain().collect();
    if keys.is_empty() {
        return;
    }
    let grace = s.state.config.session_grace.as_millis() as u64;
    for chunk in keys.chunks(500) {
        let mut p = redis::pipe();
        for k in chunk {
            p.cmd("PEXPIRE")
                .arg(k.as_slice())
                .arg(grace)
                .arg("LT")
                .ignore();
        }
        p.cmd("PEXPIRE").arg(&s.track_key).arg(grace).arg("LT");
        if let Err(e) = s.state.backend.pipe(&p).await {
            tracing::warn!(error = %e.message, "could not set the expiry of a closed session's keys");
            return;
        }
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

    #[test]
    fn ids_are_128_bit_hex() {
        let (a, b) = (new_id(), new_id());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }

    #[test]
    fn bucket_limits_bursts() {
        let mut b = Bucket::new(1, 3);
        assert_eq!((0..5).filter(|_| b.take()).count(), 3);
    }
}
