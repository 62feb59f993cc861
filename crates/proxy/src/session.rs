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
use futures_util::{SinkExt, StreamExt};
use redis::aio::MultiplexedConnection;
use redislab_sim::redis::SCRIPTS;
use redislab_sim::Reply;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};

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
    in_flight: Arc<Semaphore>,
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

/// Runs a session to its end. `_permit` holds one place under the connection cap.
pub async fn run(socket: WebSocket, state: Arc<AppState>, _permit: OwnedSemaphorePermit) {
    let id = new_id();
    let cfg = &state.config;
    let s = Arc::new(Session {
        prefix: format!("lab:{{{id}}}:"),
        track_key: format!("lab:{{{id}}}"),
        tracked: Mutex::new(HashSet::new()),
        blocking: tokio::sync::Mutex::new(None),
        in_flight: Arc::new(Semaphore::new(cfg.max_in_flight)),
        state: state.clone(),
    });
    tracing::debug!(session = %id, "open");
    let (mut sink, mut stream) = socket.split();
    // Answers go through a bounded channel: a client that does not read stops being read.
    let (tx, mut rx) = mpsc::channel::<Message>(cfg.max_in_flight + 8);
    // A client that stops reading is dropped after WRITE_TIMEOUT: its session cannot pin
    // a place under the connection cap (or its answers in memory) for ever.
    let mut writer = tokio::spawn(async move {
        while let Some(m) = rx.recv().await {
            let last = matches!(m, Message::Close(_));
            match tokio::time::timeout(WRITE_TIMEOUT, sink.send(m)).await {
                Ok(Ok(())) if !last => {}
                _ => break,
            }
        }
        let _ = tokio::time::timeout(WRITE_TIMEOUT, sink.close()).await;
    });

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
    let _ = tx.send(text(&ServerMsg::Hello { hello })).await;

    let mut shutdown = state.shutdown.subscribe();
    let mut bucket = Bucket::new(cfg.rate_per_sec, cfg.burst);
    let ending = loop {
        let next = tokio::select! {
            _ = shutdown.wait_for(|v| *v) => break Some(close(GOING_AWAY, "server shutting down")),
            m = tokio::time::timeout(cfg.idle_timeout, stream.next()) => m,
        };
        let msg = match next {
            Err(_) => break Some(close(NORMAL, "idle timeout")),
            Ok(None) | Ok(Some(Ok(Message::Close(_)))) => break None,
            Ok(Some(Err(e))) => {
                let big =
                    e.to_string().contains("too long") || e.to_string().contains("Space limit");
                break Some(if big {
                    close(TOO_BIG, "message too big")
                } else {
                    close(POLICY, "protocol error")
                });
            }
            Ok(Some(Ok(m))) => m,
        };
        let answer = match msg {
            Message::Text(t) => on_text(&s, &mut bucket, t.as_str(), &tx),
            Message::Binary(_) => Some(ServerMsg::answer(
                None,
                Err(ErrBody {
                    code: Code::BadRequest,
                    message: "text messages only".into(),
                }),
            )),
            _ => None, // ping/pong: axum answers pings itself
        };
        if let Some(a) = answer {
            if tx.send(text(&a)).await.is_err() {
                break None;
            }
        }
    };

    // Every request started gets its answer before the close frame (each is bounded by
    // its deadline, and cut short by a shutdown).
    let wait =
        cfg.timeout + Duration::from_millis(cfg.limits.max_block_ms) + Duration::from_secs(1);
    let _ = tokio::time::timeout(wait, s.in_flight.acquire_many(cfg.max_in_flight as u32)).await;
    if let Some(c) = ending {
        let _ = tokio::time::timeout(WRITE_TIMEOUT, tx.send(c)).await;
    }
    drop(tx);
    if tokio::time::timeout(WRITE_TIMEOUT, &mut writer)
        .await
        .is_err()
    {
        writer.abort();
    }
    s.blocking.lock().await.take();
    expire_tracked(&s).await;
    tracing::debug!(session = %id, "closed");
}

/// Handles one text message: an immediate answer (refused) or `None` (started; it will
/// answer through `tx`).
fn on_text(
    s: &Arc<Session>,
    bucket: &mut Bucket,
    t: &str,
    tx: &mpsc::Sender<Message>,
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
    let Ok(permit) = s.in_flight.clone().try_acquire_owned() else {
        return refuse(
            Code::RateLimited,
            "too many requests in flight on this connection",
        );
    };
    let s = s.clone();
    let tx = tx.clone();
    tokio::spawn(async move {
        let mut shutdown = s.state.shutdown.subscribe();
        let write = work.write();
        let r = tokio::select! {
            r = execute(&s, work) => r,
            _ = shutdown.wait_for(|v| *v) => Err(if write {
                ErrBody { code: Code::UnknownOutcome, message: "the server is shutting down; the write may or may not have happened".into() }
            } else {
                ErrBody { code: Code::Unavailable, message: "the server is shutting down".into() }
            }),
        };
        let _ = tx.send(text(&ServerMsg::answer(Some(id), r))).await;
        drop(permit);
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
