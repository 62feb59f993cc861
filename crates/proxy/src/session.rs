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

use crate::backend::{self, After, Backend};
use crate::budget::{Accounts, Caps, Outcome, Size, Ticket};
use crate::commands::{self, Echo, Expiry, Prepared, Shape};
use crate::protocol::{self, Code, ErrBody, Limit, Request, ServerMsg};
use crate::{housekeeping, scripts, AddressSlot, AppState};
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use futures_util::stream::FuturesUnordered;
use futures_util::{FutureExt, SinkExt, StreamExt};
use redislab_sim::redis::SCRIPTS;
use redislab_sim::Reply;
use serde_json::{json, Value};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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

/// A token bucket: `rate` per second, at most `burst` at once.
pub(crate) struct Bucket {
    tokens: f64,
    last: Instant,
    rate: f64,
    pub(crate) burst: f64,
}

impl Bucket {
    pub(crate) fn new(rate: u32, burst: u32) -> Self {
        Bucket {
            tokens: f64::from(burst),
            last: Instant::now(),
            rate: f64::from(rate),
            burst: f64::from(burst),
        }
    }

    /// Takes `n` tokens if there are that many.
    pub(crate) fn take(&mut self, n: f64) -> bool {
        let now = Instant::now();
        self.tokens =
            (self.tokens + now.duration_since(self.last).as_secs_f64() * self.rate).min(self.burst);
        self.last = now;
        if self.tokens >= n {
            self.tokens -= n;
            true
        } else {
            false
        }
    }
}

impl Bucket {
    /// The tokens now (after refilling).
    fn peek(&mut self) -> f64 {
        self.take(0.0);
        self.tokens
    }

    /// How long until there are `n` tokens.
    fn until(&mut self, n: f64) -> Duration {
        let missing = (n - self.peek()).max(0.0);
        Duration::from_secs_f64(missing / self.rate.max(1e-9)).max(Duration::from_millis(1))
    }

    /// Gives back `n` tokens taken for nothing.
    fn refund(&mut self, n: f64) {
        self.tokens = (self.tokens + n).min(self.burst);
    }
}

/// What the sessions from one address pay their frames from together: their work, and the
/// refusals the proxy still answers (past those, their sockets are not read until they may
/// go on: TCP holds the sender back, and the proxy spends nothing on it).
pub(crate) struct AddressBuckets {
    work: Bucket,
    refusals: Bucket,
}

impl AddressBuckets {
    pub(crate) fn new(cfg: &crate::Config) -> Self {
        AddressBuckets {
            work: Bucket::new(cfg.address_rate, cfg.address_burst),
            refusals: Bucket::new(cfg.address_rate, cfg.address_burst),
        }
    }
}

/// Which rate a refused request was over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Over {
    /// The session's own.
    Session,
    /// The one its address' sessions share.
    Address,
    /// The whole proxy's frame budget (a busy address pays from it too).
    Proxy,
}

impl Over {
    /// The refusal's message, naming the rate.
    fn message(self) -> &'static str {
        match self {
            Over::Session => "over the per-connection rate limit",
            Over::Address => "over the rate limit of your address (its sessions together)",
            Over::Proxy => "the proxy is busy (over its frame budget); try again soon",
        }
    }
}

/// A session's buckets: its own, and its address'.
struct Rates {
    own: Bucket,
    address: Arc<Mutex<AddressBuckets>>,
    state: Arc<AppState>,
}

impl Rates {
    /// Whether the address is busy (it used a tenth of its burst lately): then its frames
    /// also need the whole proxy's frame budget, so busy addresses together cannot take the
    /// proxy away from the light ones, which never wait for it.
    fn busy(a: &mut AddressBuckets) -> bool {
        a.work.peek() < a.work.burst * 0.9
    }

    /// Pays `n` units of work, from the session's bucket, its address' and (a busy address)
    /// the proxy's; else which of them could not pay.
    fn work(&mut self, n: f64) -> Result<(), Over> {
        if self.own.peek() < n {
            return Err(Over::Session);
        }
        let mut a = self.address.lock().expect("not poisoned");
        if Self::busy(&mut a) && !self.state.frames.lock().expect("not poisoned").take(n) {
            return Err(Over::Proxy);
        }
        if !a.work.take(n) {
            return Err(Over::Address);
        }
        if self.own.take(n) {
            Ok(())
        } else {
            Err(Over::Session)
        }
    }

    /// Gives back work paid for a request that was refused after all.
    fn refund(&mut self, n: f64) {
        self.own.refund(n);
        self.address.lock().expect("not poisoned").work.refund(n);
    }

    /// Pays for answering a refusal (from the address' refusals, and the proxy's frame
    /// budget when the address is busy).
    fn refuse(&mut self, n: f64) -> bool {
        let mut a = self.address.lock().expect("not poisoned");
        if Self::busy(&mut a) && !self.state.frames.lock().expect("not poisoned").take(n) {
            return false;
        }
        a.refusals.take(n)
    }

    /// Whether a frame may be read now; else how long until one may.
    fn ready(&mut self) -> Result<(), Duration> {
        let own = self.own.peek();
        let mut a = self.address.lock().expect("not poisoned");
        if Self::busy(&mut a) {
            let mut g = self.state.frames.lock().expect("not poisoned");
            if g.peek() < 1.0 {
                return Err(g.until(1.0));
            }
        }
        if a.refusals.peek() >= 1.0 || (own >= 1.0 && a.work.peek() >= 1.0) {
            Ok(())
        } else {
            Err(a.refusals.until(1.0))
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

/// A reply as `execute` leaves it: made into JSON already, or (a big one) to be made on a
/// blocking thread, so the session tasks and the connection to Redis are never held up by it.
enum Rendered {
    Now(Value),
    Later(redis::Value, Echo),
}

/// A reply's JSON above this size is made on a blocking thread.
const RENDER_APART: usize = 64 * 1024;

/// The answer to request `id`, as the message that carries it.
async fn render(s: &Session, id: u64, r: Result<Rendered, ErrBody>) -> Message {
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

fn refusal(id: u64, e: ErrBody) -> Option<ServerMsg> {
    Some(ServerMsg::answer(Some(id), Err(e)))
}

/// Handles one text message: an immediate answer (refused) or `None` (started: it joins
/// `pending`, and is answered when it finishes).
fn on_text(
    s: &Arc<Session>,
    rates: &mut Rates,
    t: &str,
    pending: &mut Pending,
) -> Option<ServerMsg> {
    let cfg = &s.state.config;
    // Every message costs one unit and one more per `cost_unit` bytes, bad ones too; a
    // request that reads or walks more costs more, below. Over the rates, a refusal is
    // answered while the address has refusals left (past that, not even read: see `run`).
    let unit = cfg.cost_unit.max(1);
    let base = 1 + t.len() as u64 / unit;
    let paid = rates.work(base as f64);
    if paid.is_err() && !rates.refuse(base as f64) {
        return Some(ServerMsg::answer(
            None,
            Err(ErrBody::limited(
                Code::RateLimited,
                Limit::Rate,
                "over the rate limit (not read)",
            )),
        ));
    }
    if t.len() > cfg.max_message_bytes {
        return Some(ServerMsg::answer(
            None,
            Err(ErrBody::limited(
                Code::TooLarge,
                Limit::MessageSize,
                format!("a message is at most {} bytes", cfg.max_message_bytes),
            )),
        ));
    }
    if let Err(over) = paid {
        // Refused without reading the whole message: its id, when it leads the message as
        // clients write it.
        return Some(ServerMsg::answer(
            protocol::leading_id(t),
            Err(ErrBody::limited(
                Code::RateLimited,
                Limit::Rate,
                over.message(),
            )),
        ));
    }
    let req = match protocol::parse(t) {
        Ok(r) => r,
        Err((id, e)) => return Some(ServerMsg::answer(id, Err(e))),
    };
    let id = req.id;
    let mut work = match prepare(s, &req) {
        Ok(w) => w,
        Err(e) => return refusal(id, e),
    };
    if work.p.name == "XAUTOCLAIM" && s.state.version().is_none_or(|v| v < (7, 0, 5)) {
        return refusal(
            id,
            ErrBody::limited(
                Code::Forbidden,
                Limit::UnsafeOnThisRedis,
                "XAUTOCLAIM is refused on this Redis (older than 7.0.5, or not known yet): \
                 CVE-2022-31144, CVE-2022-35951",
            ),
        );
    }
    if pending.len() >= cfg.max_in_flight {
        return refusal(
            id,
            ErrBody::limited(
                Code::RateLimited,
                Limit::InFlight,
                "too many requests in flight on this connection",
            ),
        );
    }
    // The session's budgets: checked and reserved now, before anything is sent.
    let (ticket, held) = {
        let mut acc = s.accounts.lock().expect("not poisoned");
        work.fast = fast_set(&work.p, &acc);
        let ticket = if work.p.write {
            match acc.admit(&work.p, &s.caps) {
                Ok(a) => {
                    if let (Some(c), Shape::XReadGroup { count_at, .. }) = (a.count, &work.p.shape)
                    {
                        work.p.words[*count_at] = c.to_string().into_bytes();
                        work.p.span = Some(c);
                    }
                    Some(a.ticket)
                }
                Err(e) => return refusal(id, e),
            }
        } else {
            None
        };
        let held = if work.p.heavy {
            acc.held_within(&work.p.keys, work.p.span)
        } else {
            0
        };
        (ticket, held)
    };
    let give_back = |ticket: Option<Ticket>| {
        if let Some(t) = ticket {
            s.accounts
                .lock()
                .expect("not poisoned")
                .settle(&work.p, t, Outcome::NotRun);
        }
    };
    // The rate, weighted: past the first `FREE_BYTES` it reads or walks, a unit more for
    // every `cost_unit` bytes — from the session's and the address' buckets and from the
    // whole proxy's (so many sessions together cannot keep it busy with heavy requests).
    let extra = held.saturating_sub(FREE_BYTES) / unit;
    work.heavy = held > FREE_BYTES;
    if extra > 0 && rates.work(extra as f64).is_err() {
        give_back(ticket);
        return refusal(
            id,
            ErrBody::limited(
                Code::RateLimited,
                Limit::Rate,
                format!(
                    "this request weighs {} units of the rate ({} per second); try again soon",
                    extra + 1,
                    cfg.rate_per_sec
                ),
            ),
        );
    }
    let heavy = extra + base - 1;
    if heavy > 0
        && !s
            .state
            .heavy
            .lock()
            .expect("not poisoned")
            .take(heavy as f64)
    {
        rates.refund(extra as f64);
        give_back(ticket);
        return refusal(
            id,
            ErrBody::limited(
                Code::RateLimited,
                Limit::Rate,
                "the server is busy with heavy requests; try again soon",
            ),
        );
    }
    // The session's share of the reply bytes on their way.
    let potential = REPLY_FLOOR + held;
    let before = s.replies.fetch_add(potential, Ordering::Relaxed);
    if before + potential > cfg.session_reply_share {
        s.replies.fetch_sub(potential, Ordering::Relaxed);
        give_back(ticket);
        return refusal(
            id,
            ErrBody::limited(
                Code::RateLimited,
                Limit::ReplyBudget,
                "this session has too much reply data on its way; wait for its answers",
            ),
        );
    }
    let share = Share {
        s: s.clone(),
        bytes: potential,
    };
    let s = s.clone();
    let write = work.p.write;
    pending.push(InFlight {
        id,
        write,
        work: Box::pin(async move {
            let r = execute(&s, work, ticket, potential).await;
            drop(share);
            render(&s, id, r).await
        }),
    });
    None
}

/// This session's share of the reply budget, held by a request until it is answered.
struct Share {
    s: Arc<Session>,
    bytes: u64,
}

impl Drop for Share {
    fn drop(&mut self) {
        self.s.replies.fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

/// A request, checked: a command, or a named script as a command-like request.
struct Work {
    p: Prepared,
    /// A named script and its arguments (then `p` carries its keys).
    script: Option<(&'static redislab_sim::redis::Script, Vec<String>)>,
    /// A SET of a key already tracked, its expiry rewritten: no `after` needed.
    fast: bool,
    /// It may read or walk more than `FREE_BYTES`.
    heavy: bool,
}

fn prepare(s: &Session, req: &Request) -> Result<Work, ErrBody> {
    let limits = &s.state.config.limits;
    if let Some(cmd) = &req.cmd {
        return commands::prepare(cmd, &s.prefix, limits).map(|p| Work {
            p,
            script: None,
            fast: false,
            heavy: false,
        });
    }
    let name = req.script.as_deref().unwrap_or_default();
    let script = SCRIPTS.iter().find(|x| x.name == name).ok_or_else(|| {
        ErrBody::new(
            Code::Forbidden,
            format!(
                "no script named `{}`; the server runs only its named scripts",
                name.chars().take(40).collect::<String>()
            ),
        )
    })?;
    let keys = req.keys.as_deref().unwrap_or_default();
    let args = req.args.as_deref().unwrap_or_default();
    if keys.is_empty() {
        return Err(ErrBody::new(Code::BadRequest, "a script needs its keys"));
    }
    if keys.len() + args.len() > limits.max_args {
        return Err(ErrBody::limited(
            Code::TooLarge,
            Limit::Args,
            format!("at most {} keys and arguments", limits.max_args),
        ));
    }
    if args.iter().any(|a| a.len() > limits.max_arg_bytes) {
        return Err(ErrBody::limited(
            Code::TooLarge,
            Limit::ArgSize,
            format!("an argument is at most {} bytes", limits.max_arg_bytes),
        ));
    }
    let keys = keys
        .iter()
        .map(|k| commands::prefix_key(&s.prefix, k, limits))
        .collect::<Result<Vec<_>, _>>()?;
    let mut args = args.to_vec();
    // A TTL a script sets (the lock's extend, in ms; presence's markactive, in seconds)
    // stays before the session's backstop.
    let ttl_arg = match script.name {
        "extend" => Some((1, 1)),
        "markactive" => Some((3, 1000)),
        _ => None,
    };
    if let Some((i, unit_ms)) = ttl_arg {
        if let Some(t) = args.get(i).and_then(|a| a.parse::<i64>().ok()) {
            let room = (s.backstop as i64 - s.state.redis_now_ms() - 1) / unit_ms;
            if t > room {
                args[i] = room.max(1).to_string();
            }
        }
    }
    let bytes = args.iter().map(|a| a.len() as u64).sum();
    Ok(Work {
        p: Prepared {
            name: "EVALSHA",
            words: vec![],
            keys,
            write: true,
            creates: true,
            heavy: false,
            span: None,
            block_ms: None,
            echo: Echo::None,
            shape: Shape::Script { bytes },
        },
        script: Some((script, args)),
        fast: false,
        heavy: false,
    })
}

/// A SET whose key is already tracked and that keeps no TTL of its own (no KEEPTTL) needs no
/// bookkeeping: its expiry is rewritten (below) and the accounts know what it wrote.
fn fast_set(p: &Prepared, acc: &Accounts) -> bool {
    matches!(&p.shape, Shape::Set { expiry, .. } if *expiry != Expiry::Keep)
        && acc.tracked(&p.keys[0])
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

async fn execute(
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

    #[test]
    fn ids_are_128_bit_hex() {
        let (a, b) = (new_id(), new_id());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }

    #[test]
    fn bucket_limits_bursts() {
        let mut b = Bucket::new(1, 3);
        assert_eq!((0..5).filter(|_| b.take(1.0)).count(), 3);
        // A request that weighs more takes more: 3 tokens cannot pay for 4.
        let mut b = Bucket::new(1, 3);
        assert!(!b.take(4.0));
        assert!(b.take(3.0));
    }
}
