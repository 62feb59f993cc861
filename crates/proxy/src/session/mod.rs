//! One WebSocket session: its namespace, its limits, its requests, its end.
//!
//! A session gets `lab:{<128-bit random hex>}:` as its prefix; the braces make the id a
//! cluster hash tag, so all its keys share one slot. Every key it writes is tracked (a Redis
//! set `lab:{<id>}` that no client key can name) and carries the session's *backstop* expiry
//! from the moment it is written (see `scripts`), so nothing it wrote outlives it by more than
//! its longest life plus the grace, whatever happens to the proxy; at its end every tracked
//! key gets `PEXPIRE <grace> LT` (see `housekeeping`).
//!
//! Requests run concurrently, each admitted first: a token bucket weighted by the request's
//! cost (every frame counts), a bounded number in flight, the session's budgets (`budget`),
//! and its share of the reply bytes on their way. Ordinary ones go on the shared connection;
//! blocking reads (with a bounded block time) on a connection borrowed for that read alone,
//! so they hold up nobody else. On a Redis Cluster that connection goes to the one node that
//! owns the session's slot (see `backend`).

mod admit;
mod execute;
mod rates;

use crate::budget::{Accounts, Caps};
use crate::commands;
use crate::protocol::{Code, ErrBody, Limit, ServerMsg};
use crate::{housekeeping, AddressSlot, AppState};
use admit::on_text;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use futures_util::stream::FuturesUnordered;
use futures_util::{FutureExt, SinkExt, StreamExt};
use rates::Rates;
pub(crate) use rates::{AddressBuckets, Bucket};
use redislab_sim::redis::SCRIPTS;
use serde_json::json;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::OwnedSemaphorePermit;

/// Close codes (RFC 6455).
const GOING_AWAY: u16 = 1001;
const POLICY: u16 = 1008;
const TOO_BIG: u16 = 1009;
const NORMAL: u16 = 1000;

/// How long one message may take to go out to the client.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// Messages refused in a row (over the rate) after which a client that does not slow down is
/// closed: it is not reading its answers, or not heeding them.
const MAX_REFUSED_IN_A_ROW: u32 = 1000;

/// The reply bytes every request is counted for at least.
const REPLY_FLOOR: u64 = 1024;

/// The bytes a request may read or walk before it weighs more than its message: every lab's
/// requests stay below it.
pub const FREE_BYTES: u64 = 64 * 1024;

struct Session {
    state: Arc<AppState>,
    id: String,
    prefix: String,
    track_key: Vec<u8>,
    /// Every key of the session expires by this (unix ms, Redis' clock), whatever happens.
    backstop: u64,
    caps: Caps,
    accounts: Mutex<Accounts>,
    /// Reply bytes of this session on their way (upper bounds), against its share.
    replies: AtomicU64,
    /// One blocking read at a time; the node of the session's slot once known (a cluster).
    blocking: tokio::sync::Mutex<Option<(String, u16)>>,
    /// In the registry of sessions with keys.
    registered: AtomicBool,
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

/// A request in flight: its id, whether it writes (what a shutdown answers), its work (its
/// answer, ready to send).
struct InFlight {
    id: u64,
    write: bool,
    work: Pin<Box<dyn Future<Output = Message> + Send>>,
}

impl Future for InFlight {
    type Output = Message;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.work.as_mut().poll(cx)
    }
}

impl InFlight {
    /// The answer when the proxy shuts down before Redis answered.
    fn shutdown_answer(&self) -> ServerMsg {
        ServerMsg::answer(
            Some(self.id),
            Err(if self.write {
                ErrBody::new(
                    Code::UnknownOutcome,
                    "the server is shutting down; the write may or may not have happened",
                )
            } else {
                ErrBody::new(Code::Unavailable, "the server is shutting down")
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
                Some(Some(m)) => socket.feed(m).await?,
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
    while let Some(Some(m)) = pending.next().now_or_never() {
        if alive {
            alive = answer(socket, pending, m).await;
        }
    }
    for f in std::mem::take(pending) {
        if alive {
            alive = answer(socket, &mut Pending::new(), text(&f.shutdown_answer())).await;
        }
    }
    alive
}

/// What a frame costs the bucket, and whether it resets the idle timer.
enum Frame {
    Request(Utf8Bytes),
    Binary,
    Control,
}

/// Runs a session to its end. `permit` holds one place under the connection cap, `slot`
/// one under its address' cap.
///
/// One task does all of a session's work: it reads a request, checks it and starts it (its
/// Redis call joins the session's requests in flight, polled by this same task), and writes
/// each answer when it is ready — several ready ones in one write. No task per request and no
/// writer task: a plain command costs one wake-up of this task, not three hand-offs.
/// Writing blocks reading: a client that does not read its answers stops being read.
pub async fn run(
    mut socket: WebSocket,
    state: Arc<AppState>,
    permit: OwnedSemaphorePermit,
    slot: AddressSlot,
) {
    let id = new_id();
    let cfg = &state.config;
    let opened = tokio::time::Instant::now();
    let backstop = (state.redis_now_ms() + (cfg.max_session + cfg.session_grace).as_millis() as i64)
        .max(0) as u64;
    let s = Arc::new(Session {
        prefix: format!("lab:{{{id}}}:"),
        track_key: format!("lab:{{{id}}}").into_bytes(),
        id: id.clone(),
        backstop,
        caps: Caps {
            limits: cfg.limits,
            max_keys: cfg.max_keys,
            max_bytes: cfg.session_bytes,
        },
        accounts: Mutex::new(Accounts::default()),
        replies: AtomicU64::new(0),
        blocking: tokio::sync::Mutex::new(None),
        registered: AtomicBool::new(false),
        state: state.clone(),
    });
    tracing::debug!(session = %id, "open");
    state.live.send_modify(|n| *n += 1);
    let mut pending = Pending::new();

    let l = &cfg.limits;
    let hello = json!({
        "namespace": s.prefix,
        "session": id,
        "scripts": SCRIPTS.iter().map(|x| json!({"name": x.name, "sha1": x.sha1, "source": x.source})).collect::<Vec<_>>(),
        "commands": commands::allowed_names().collect::<Vec<_>>(),
        "limits": {
            "max_message_bytes": cfg.max_message_bytes,
            "max_args": l.max_args,
            "max_arg_bytes": l.max_arg_bytes,
            "max_key_bytes": l.max_key_bytes,
            "max_block_ms": l.max_block_ms,
            "max_elements": l.max_elements,
            "max_count": l.max_count,
            "max_offset": l.max_offset,
            "max_pending": l.max_pending,
            "max_groups": l.max_groups,
            "max_consumers": l.max_consumers,
            "timeout_ms": cfg.timeout.as_millis() as u64,
            "rate_per_sec": cfg.rate_per_sec,
            "burst": cfg.burst,
            "cost_unit_bytes": cfg.cost_unit,
            "max_in_flight": cfg.max_in_flight,
            "idle_timeout_ms": cfg.idle_timeout.as_millis() as u64,
            "max_session_ms": cfg.max_session.as_millis() as u64,
            "max_keys": cfg.max_keys,
            "session_bytes": cfg.session_bytes,
            "max_reply_bytes": cfg.max_reply_bytes,
            "session_grace_ms": cfg.session_grace.as_millis() as u64,
        },
    });
    let mut alive = answer(&mut socket, &mut pending, text(&ServerMsg::Hello { hello })).await;

    let mut shutdown_rx = state.shutdown.subscribe();
    // One shutdown wait, one idle timer and one lifetime timer for the whole session (not
    // one per message): the idle timer fires at the last request's time + the idle timeout,
    // and is moved on if a request came since. Pings and binary frames do not move it.
    let shutdown = async move {
        let _ = shutdown_rx.wait_for(|v| *v).await;
    };
    tokio::pin!(shutdown);
    let mut shutting_down = false;
    let mut last_request = tokio::time::Instant::now();
    let idle = tokio::time::sleep_until(last_request + cfg.idle_timeout);
    tokio::pin!(idle);
    let lifetime = tokio::time::sleep_until(opened + cfg.max_session);
    tokio::pin!(lifetime);
    let mut rates = Rates {
        own: Bucket::new(cfg.rate_per_sec, cfg.burst),
        address: slot.buckets.clone(),
        state: state.clone(),
    };
    let mut refused_in_a_row = 0u32;
    let mut jitter = u64::from_str_radix(&id[..16], 16).unwrap_or(1);
    let gate = tokio::time::sleep(Duration::ZERO);
    tokio::pin!(gate);
    let ending = loop {
        if !alive {
            break None;
        }
        // Over its rates and out of refusals too, the socket is not read until it may go on.
        let ready = match rates.ready() {
            Ok(()) => true,
            Err(wait) => {
                // Not before a token is there, nor sooner than 100–200 ms: the sessions of a
                // held-back address do not all wake at every token (a herd the proxy would
                // pay for).
                jitter = jitter
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let spread = Duration::from_millis(100 + (jitter >> 33) % 100);
                gate.as_mut()
                    .reset(tokio::time::Instant::now() + wait.max(spread));
                false
            }
        };
        tokio::select! {
            biased;
            () = &mut shutdown => {
                shutting_down = true;
                alive = answer_shutdown(&mut socket, &mut pending, alive).await;
                break Some(close(GOING_AWAY, "server shutting down"));
            }
            Some(m) = pending.next(), if !pending.is_empty() => {
                alive = answer(&mut socket, &mut pending, m).await;
            }
            () = &mut lifetime => break Some(close(NORMAL, "session lifetime over")),
            () = &mut idle => {
                let due = last_request + cfg.idle_timeout;
                if tokio::time::Instant::now() >= due {
                    break Some(close(NORMAL, "idle timeout"));
                }
                idle.as_mut().reset(due);
            }
            () = &mut gate, if !ready => {}
            next = socket.next(), if ready => {
                let frame = match next {
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
                    Some(Ok(Message::Text(t))) => Frame::Request(t),
                    Some(Ok(Message::Binary(_))) => Frame::Binary,
                    // Ping/pong: answered by the WebSocket itself, but counted.
                    Some(Ok(_)) => Frame::Control,
                };
                let refused = match frame {
                    Frame::Request(t) => {
                        last_request = tokio::time::Instant::now();
                        on_text(&s, &mut rates, t.as_str(), &mut pending)
                    }
                    Frame::Binary => {
                        let paid = rates.work(1.0);
                        if paid.is_err() {
                            rates.refuse(1.0);
                        }
                        Some(ServerMsg::answer(
                            None,
                            Err(match paid {
                                Ok(()) => ErrBody::new(Code::BadRequest, "text messages only"),
                                Err(over) => {
                                    ErrBody::limited(Code::RateLimited, Limit::Rate, over.message())
                                }
                            }),
                        ))
                    }
                    Frame::Control => {
                        if rates.work(1.0).is_ok() {
                            None
                        } else {
                            break Some(close(POLICY, "too many frames"));
                        }
                    }
                };
                if let Some(a) = refused {
                    let over = matches!(&a, ServerMsg::Err { err, .. } if err.code == Code::RateLimited && err.limit == Some(Limit::Rate));
                    refused_in_a_row = if over { refused_in_a_row + 1 } else { 0 };
                    if refused_in_a_row > MAX_REFUSED_IN_A_ROW {
                        break Some(close(POLICY, "over the rate limit"));
                    }
                    alive = answer(&mut socket, &mut pending, text(&a)).await;
                } else {
                    refused_in_a_row = 0;
                }
            }
        }
    };

    // Every request started gets its answer before the close frame (each is bounded by
    // its deadline, and cut short by a shutdown).
    let wait =
        cfg.timeout * 2 + Duration::from_millis(cfg.limits.max_block_ms) + Duration::from_secs(1);
    let until = tokio::time::Instant::now() + wait;
    while !pending.is_empty() {
        tokio::select! {
            biased;
            () = &mut shutdown, if !shutting_down => {
                shutting_down = true;
                alive = answer_shutdown(&mut socket, &mut pending, alive).await;
            }
            Some(m) = pending.next() => {
                if alive {
                    alive = answer(&mut socket, &mut pending, m).await;
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
    // Its address may open another session now; the place under the global cap is held
    // until its keys have their end-of-session expiry (a shutdown waits for that).
    drop(slot);
    if s.registered.load(Ordering::Relaxed) {
        housekeeping::cleanup(&state, &id).await;
    }
    drop(permit);
    state.live.send_modify(|n| *n -= 1);
    tracing::debug!(session = %id, "closed");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_128_bit_hex() {
        let (a, b) = (new_id(), new_id());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }
}
