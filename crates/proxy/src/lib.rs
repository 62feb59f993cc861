//! Redis Lab's server mode: serves the built app and a WebSocket (`/ws`) through which each
//! browser session sends the labs' Redis commands to a real Redis — inside its own
//! namespace, through an allowlist, within limits. The protocol is in the crate's README.
//!
//! The proxy keeps no state another proxy would need (a session's bookkeeping lives in the
//! session and in Redis), so several can stand behind a load balancer against one Redis.

pub mod backend;
pub mod budget;
pub mod class;
pub mod commands;
pub mod housekeeping;
pub mod protocol;
pub mod scripts;
pub mod session;

use axum::extract::connect_info::IntoMakeServiceWithConnectInfo;
use axum::extract::{ConnectInfo, FromRequestParts, Request, State, WebSocketUpgrade};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::serve::{ListenerExt, TapIo};
use axum::Router;
use std::collections::{HashMap, HashSet};
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::sync::{watch, Semaphore};
use tower_http::compression::CompressionLayer;
use tower_http::services::ServeDir;

pub use commands::Limits;

/// Everything configurable; `Config::new` gives the defaults the binary uses.
#[derive(Clone, Debug)]
pub struct Config {
    /// `redis://[:password@]host:port[/db]`: one Redis; or several nodes of a Redis Cluster
    /// to start from (the client learns the others).
    pub redis: Vec<String>,
    /// A Redis Cluster even when `redis` names one node (several always mean a cluster).
    pub cluster: bool,
    /// The built app (trunk's `dist/`).
    pub dist: PathBuf,
    /// Origins allowed besides the proxy's own (`http(s)://<Host header>`).
    pub allow_origins: Vec<String>,
    pub limits: Limits,
    /// Class mode's bounds.
    pub class: class::ClassLimits,
    /// Open WebSocket sessions at most; more are refused with 503.
    pub max_connections: usize,
    /// Open sessions from one client address (an IPv6 address counts by its /64); more are
    /// refused with 429.
    pub max_sessions_per_address: usize,
    /// Work per second of all the sessions from one address together (the same units as
    /// `rate_per_sec`), and the burst; as many refusals again are answered, then the address'
    /// sockets are not read until it may go on.
    pub address_rate: u32,
    pub address_burst: u32,
    /// Frames per second (and the burst) from busy addresses together — those that used a
    /// tenth of their burst lately: past it their sessions wait, while light addresses go on.
    pub frames_per_sec: u32,
    pub frames_burst: u32,
    /// New sessions per second from one address (and the burst): a client that closes and
    /// reopens sessions does not get a fresh rate each time for free.
    pub new_sessions_per_sec: u32,
    pub new_sessions_burst: u32,
    /// The header a trusted load balancer puts the client's address in (`X-Forwarded-For`:
    /// its last entry; `X-Real-IP`); `None`: the TCP peer's address.
    pub client_ip_header: Option<String>,
    /// Bytes in one message; bigger ones get TOO_LARGE (and past twice this the socket is
    /// closed with 1009 before the message is even buffered).
    pub max_message_bytes: usize,
    /// Work per second per connection (a request costs 1, more when it moves or walks more
    /// than `cost_unit` bytes; every frame counts), and the burst allowed.
    pub rate_per_sec: u32,
    pub burst: u32,
    /// Bytes of a request's data (sent, read or walked, past the first 64 KiB) that cost one
    /// more unit of the rate.
    pub cost_unit: u64,
    /// Those extra units per second, the whole proxy (heavy requests of all sessions
    /// together), and the burst allowed.
    pub heavy_per_sec: u32,
    pub heavy_burst: u32,
    /// Requests of one connection waiting for Redis at once.
    pub max_in_flight: usize,
    /// Deadline of one request (a blocking read: its block time plus this).
    pub timeout: Duration,
    /// A connection with no request for this long is closed (pings do not count).
    pub idle_timeout: Duration,
    /// A session is closed this long after it opened, whatever it does.
    pub max_session: Duration,
    /// Distinct keys one session may write.
    pub max_keys: usize,
    /// Bytes one session's data may take in Redis (an upper bound the proxy counts).
    pub session_bytes: u64,
    /// The largest reply sent (as JSON); a bigger one is TOO_LARGE (REPLY_SIZE).
    pub max_reply_bytes: usize,
    /// Reply bytes on their way at once, the whole proxy (what Redis may buffer for it), for
    /// heavy requests (more than 64 KiB) and again for light ones.
    pub reply_budget: u64,
    /// … and one session's share of it.
    pub session_reply_share: u64,
    /// Connections open for blocking reads at once, the whole proxy.
    pub max_blocking: usize,
    /// A closed session's keys expire within this.
    pub session_grace: Duration,
    /// How often the proxy vouches for its sessions and sweeps dead ones.
    pub heartbeat: Duration,
}

impl Config {
    /// The defaults, for Redis at `redis_url`.
    pub fn new(redis_url: impl Into<String>) -> Self {
        Self::with_nodes(vec![redis_url.into()])
    }

    /// The defaults, for the Redis Cluster these nodes belong to.
    pub fn cluster(nodes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        let mut c = Self::with_nodes(nodes.into_iter().map(Into::into).collect());
        c.cluster = true;
        c
    }

    fn with_nodes(redis: Vec<String>) -> Self {
        Config {
            redis,
            cluster: false,
            dist: PathBuf::from("dist"),
            allow_origins: Vec::new(),
            limits: Limits::default(),
            class: class::ClassLimits::default(),
            max_connections: 1000,
            max_sessions_per_address: 64,
            address_rate: 1_000,
            address_burst: 1_000,
            frames_per_sec: 3_000,
            frames_burst: 750,
            new_sessions_per_sec: 20,
            new_sessions_burst: 60,
            client_ip_header: None,
            max_message_bytes: 64 * 1024,
            rate_per_sec: 200,
            burst: 400,
            cost_unit: 16 * 1024,
            heavy_per_sec: 250,
            heavy_burst: 500,
            max_in_flight: 64,
            timeout: Duration::from_secs(2),
            idle_timeout: Duration::from_secs(300),
            max_session: Duration::from_secs(2 * 3600),
            max_keys: 1_000,
            session_bytes: 1024 * 1024,
            max_reply_bytes: 1024 * 1024,
            reply_budget: 32 * 1024 * 1024,
            session_reply_share: 4 * 1024 * 1024,
            max_blocking: 512,
            session_grace: Duration::from_secs(60),
            heartbeat: Duration::from_secs(10),
        }
    }

    /// Lowers `max_connections` (and `max_blocking`) to what the process' descriptor limit
    /// (`ulimit -n`) allows: each session is a socket, each blocking read in flight another,
    /// plus Redis connections, the listener and files. The warning to log when it did.
    pub fn fit_descriptors(&mut self) -> Option<String> {
        self.fit_descriptors_to(descriptor_limit()?)
    }

    /// [`Config::fit_descriptors`] for a given limit.
    pub fn fit_descriptors_to(&mut self, limit: u64) -> Option<String> {
        let fixed = 64 + 4 * self.redis.len() as u64;
        let (mc, mb) = (self.max_connections as u64, self.max_blocking as u64);
        let need = mc + mb + fixed;
        if need <= limit {
            return None;
        }
        // Both lowered in proportion.
        let room = limit.saturating_sub(fixed).max(2);
        let conns = (room * mc / (mc + mb)).max(1);
        self.max_connections = conns as usize;
        self.max_blocking = room.saturating_sub(conns).max(1) as usize;
        Some(format!(
            "ulimit -n is {limit}: {mc} sessions and {mb} connections for blocking reads need \
             about {need} descriptors; serving at most {} sessions and {} blocking reads at \
             once instead (raise it with `ulimit -n {need}` before starting, or lower \
             --max-connections)",
            self.max_connections, self.max_blocking
        ))
    }
}

/// The soft limit of open files of this process (`/proc/self/limits`; `None` elsewhere or
/// unlimited).
pub fn descriptor_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// `redis://user:secret@host:port/db` with the secret hidden, for logs.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    match rest.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split_once(':').map_or("", |(u, _)| u);
            format!("{scheme}://{user}:***@{host}")
        }
        None => url.to_string(),
    }
}

/// Shared by every request.
pub struct AppState {
    pub config: Config,
    pub backend: backend::Backend,
    /// One permit per open session.
    conns: Arc<Semaphore>,
    /// Open sessions per client address, and its bucket of new sessions.
    addrs: Mutex<HashMap<IpAddr, Address>>,
    /// Reply bytes on their way (in KiB), the whole proxy: heavy requests' (may wait their
    /// turn), and light ones' (apart, so a light request never queues behind a heavy one).
    pub(crate) replies: Arc<Semaphore>,
    pub(crate) light_replies: Arc<Semaphore>,
    /// The whole proxy's bucket of heavy work (see `Config::heavy_per_sec`).
    pub(crate) heavy: Mutex<session::Bucket>,
    /// The whole proxy's bucket of frames from busy addresses (`Config::frames_per_sec`).
    pub(crate) frames: Mutex<session::Bucket>,
    /// Turns true when the proxy is shutting down.
    pub(crate) shutdown: watch::Sender<bool>,
    /// Sessions running (counted from the upgrade until their keys have their end-of-session
    /// expiry).
    pub(crate) live: watch::Sender<usize>,
    /// This proxy's sessions that have written (it vouches for them in the registry).
    pub(crate) registry: Mutex<HashSet<String>>,
    /// Redis' clock minus ours, ms.
    pub(crate) clock_offset: AtomicI64,
    /// Redis' version, once known (the oldest of a cluster's seed nodes).
    pub(crate) version: OnceLock<(u32, u32, u32)>,
    /// Cleanup attempts that failed (each is tried again), and sessions the sweeper cleaned.
    pub(crate) cleanup_failures: std::sync::atomic::AtomicU64,
    pub(crate) swept: std::sync::atomic::AtomicU64,
    /// The classes this proxy has pages of (class mode).
    pub class: class::hub::Hub,
}

impl AppState {
    /// State for `config`. Nothing connects to Redis yet.
    ///
    /// # Errors
    /// When `config.redis` holds no Redis URL, or one that is not.
    pub fn new(config: Config) -> Result<Arc<Self>, redis::RedisError> {
        Ok(Arc::new(AppState {
            backend: backend::Backend::with_nodes(
                &config.redis,
                config.cluster,
                config.timeout,
                config.max_blocking,
            )?,
            conns: Arc::new(Semaphore::new(config.max_connections)),
            addrs: Mutex::new(HashMap::new()),
            replies: Arc::new(Semaphore::new(
                (config.reply_budget / 1024).clamp(1, u32::MAX as u64) as usize,
            )),
            light_replies: Arc::new(Semaphore::new(
                (config.reply_budget / 1024).clamp(1, u32::MAX as u64) as usize,
            )),
            heavy: Mutex::new(session::Bucket::new(
                config.heavy_per_sec,
                config.heavy_burst,
            )),
            frames: Mutex::new(session::Bucket::new(
                config.frames_per_sec,
                config.frames_burst,
            )),
            shutdown: watch::Sender::new(false),
            live: watch::Sender::new(0),
            registry: Mutex::new(HashSet::new()),
            clock_offset: AtomicI64::new(0),
            version: OnceLock::new(),
            cleanup_failures: Default::default(),
            swept: Default::default(),
            class: class::hub::Hub::default(),
            config,
        }))
    }

    /// The checks at start (see [`housekeeping::check_server`]), then the heartbeat (the
    /// registry and the sweeper) in the background. The warnings to log.
    ///
    /// # Errors
    /// A Redis too old for server mode.
    pub async fn start(self: &Arc<Self>) -> Result<Vec<String>, String> {
        let warnings = housekeeping::check_server(self).await?;
        housekeeping::spawn(self.clone());
        class::hub::spawn_subscriber(self.clone());
        class::hub::spawn_ticker(self.clone());
        Ok(warnings)
    }

    /// Open sessions.
    pub fn sessions(&self) -> usize {
        self.config.max_connections - self.conns.available_permits()
    }

    /// Waits (at most `within`) until the number of running sessions — from the upgrade
    /// until their keys have their end-of-session expiry — satisfies `want`. Whether it did.
    pub async fn wait_sessions(&self, want: impl Fn(usize) -> bool, within: Duration) -> bool {
        let mut rx = self.live.subscribe();
        tokio::time::timeout(within, rx.wait_for(|n| want(*n)))
            .await
            .is_ok_and(|r| r.is_ok())
    }

    /// Open sessions from `addr`'s address (its /64 for IPv6).
    pub fn sessions_from(&self, addr: IpAddr) -> usize {
        self.addrs
            .lock()
            .expect("not poisoned")
            .get(&address_key(addr))
            .map_or(0, |a| a.open)
    }

    /// Failed attempts at a closed session's cleanup (each is tried again), and sessions of
    /// dead proxies (or failed cleanups) the sweeper has cleaned: for the logs and tests.
    pub fn cleanup_counts(&self) -> (u64, u64) {
        (
            self.cleanup_failures.load(Ordering::Relaxed),
            self.swept.load(Ordering::Relaxed),
        )
    }

    /// Redis' version, once a check reached it.
    pub fn version(&self) -> Option<(u32, u32, u32)> {
        self.version.get().copied()
    }

    /// Now, in ms since the epoch, on Redis' clock (as last measured).
    pub fn redis_now_ms(&self) -> i64 {
        housekeeping::local_ms() + self.clock_offset.load(Ordering::Relaxed)
    }

    /// How long a vouch lasts: three heartbeats.
    pub(crate) fn vouch_ms(&self) -> i64 {
        3 * self.config.heartbeat.as_millis() as i64
    }

    /// Tells every session to answer what it started and close with 1001.
    pub fn begin_shutdown(&self) {
        self.shutdown.send_replace(true);
    }

    /// Tells every session to answer what it started and close with 1001, and waits (at
    /// most `wait`) until all have.
    pub async fn shutdown(&self, wait: Duration) {
        self.begin_shutdown();
        let all = self.config.max_connections as u32;
        let _ = tokio::time::timeout(wait, self.conns.acquire_many(all)).await;
    }

    /// A place for one more session from `addr` (`None`: the address is not known).
    fn address_slot(self: &Arc<Self>, addr: Option<IpAddr>) -> Result<AddressSlot, AppError> {
        let key = addr.map(address_key);
        let cfg = &self.config;
        let fresh = || Arc::new(Mutex::new(session::AddressBuckets::new(cfg)));
        let buckets = match key {
            Some(k) => {
                let mut a = self.addrs.lock().expect("not poisoned");
                let e = a.entry(k).or_insert_with(|| Address {
                    open: 0,
                    opened: session::Bucket::new(cfg.new_sessions_per_sec, cfg.new_sessions_burst),
                    last: std::time::Instant::now(),
                    buckets: fresh(),
                });
                e.last = std::time::Instant::now();
                if e.open >= cfg.max_sessions_per_address || !e.opened.take(1.0) {
                    return Err(AppError::TooManyFromAddress);
                }
                e.open += 1;
                e.buckets.clone()
            }
            None => fresh(),
        };
        Ok(AddressSlot {
            state: self.clone(),
            key,
            buckets,
        })
    }
}

/// One client address: its open sessions, its bucket of new ones, the buckets its sessions'
/// frames are paid from.
struct Address {
    open: usize,
    opened: session::Bucket,
    last: std::time::Instant,
    buckets: Arc<Mutex<session::AddressBuckets>>,
}

impl AppState {
    /// Forgets addresses with no open session and no new one for a minute (the heartbeat
    /// calls it).
    pub(crate) fn forget_idle_addresses(&self) {
        self.addrs
            .lock()
            .expect("not poisoned")
            .retain(|_, a| a.open > 0 || a.last.elapsed() < Duration::from_secs(60));
    }
}

/// The address sessions are counted by: an IPv4 address, an IPv6 address's /64 (one
/// machine usually has a whole /64).
pub(crate) fn address_key(addr: IpAddr) -> IpAddr {
    match addr {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !((1u128 << 64) - 1))),
        },
        v4 => v4,
    }
}

/// One session's place under its address' cap; freed when dropped.
pub struct AddressSlot {
    state: Arc<AppState>,
    key: Option<IpAddr>,
    pub(crate) buckets: Arc<Mutex<session::AddressBuckets>>,
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        if let Some(k) = self.key {
            let mut a = self.state.addrs.lock().expect("not poisoned");
            if let Some(e) = a.get_mut(&k) {
                e.open -= 1;
            }
        }
    }
}

/// Why a request failed (the WebSocket's own errors travel inside it, see `protocol`).
#[derive(Debug)]
pub enum AppError {
    /// The upgrade's Origin is not ours nor allowed.
    Origin(Option<String>),
    /// The connection cap is reached.
    Busy,
    /// The cap of sessions from one address is reached.
    TooManyFromAddress,
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        match self {
            AppError::Origin(o) => (
                StatusCode::FORBIDDEN,
                format!("origin {} is not allowed", o.as_deref().unwrap_or("(none)")),
            )
                .into_response(),
            AppError::Busy => (
                StatusCode::SERVICE_UNAVAILABLE,
                [(header::RETRY_AFTER, "5")],
                "too many connections; try again soon",
            )
                .into_response(),
            AppError::TooManyFromAddress => (
                StatusCode::TOO_MANY_REQUESTS,
                [(header::RETRY_AFTER, "5")],
                "too many sessions from your address; close one and try again",
            )
                .into_response(),
        }
    }
}

/// `listener` with TCP_NODELAY on every accepted socket: an answer is one small write, and
/// Nagle's algorithm would hold it back while an earlier one is unacknowledged. Serve the
/// app with `axum::serve(redislab_proxy::nodelay(listener), app(state))`.
pub fn nodelay(
    listener: tokio::net::TcpListener,
) -> TapIo<tokio::net::TcpListener, fn(&mut tokio::net::TcpStream)> {
    fn set(tcp: &mut tokio::net::TcpStream) {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "could not set TCP_NODELAY");
        }
    }
    listener.tap_io(set as fn(&mut tokio::net::TcpStream))
}

/// The service with each connection's peer address (the per-address cap needs it): serve it
/// with `axum::serve(redislab_proxy::nodelay(listener), redislab_proxy::service(state))`.
pub fn service(state: Arc<AppState>) -> IntoMakeServiceWithConnectInfo<Router, SocketAddr> {
    app(state).into_make_service_with_connect_info::<SocketAddr>()
}

/// The peer's address, when the service was made with [`service`].
struct Peer(Option<SocketAddr>);

impl<S: Send + Sync> FromRequestParts<S> for Peer {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(Peer(
            parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|c| c.0),
        ))
    }
}

/// The client's address: from the trusted header when one is configured (the last entry of
/// a list — the one the load balancer added), else the TCP peer's.
fn client_address(
    headers: &HeaderMap,
    peer: Option<SocketAddr>,
    header: Option<&str>,
) -> Option<IpAddr> {
    if let Some(h) = header {
        return headers
            .get(h)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.rsplit(',').next())
            .and_then(|v| v.trim().parse().ok());
    }
    peer.map(|p| p.ip())
}

/// The whole service: `/ws` and the app's files.
pub fn app(state: Arc<AppState>) -> Router {
    let files = Router::new()
        // `x.wasm.br` / `x.wasm.gz` beside a file are sent as they are when the browser
        // takes them (no per-request compression); other files are gzipped on the fly.
        .fallback_service(
            ServeDir::new(&state.config.dist)
                .precompressed_br()
                .precompressed_gzip(),
        )
        .layer(middleware::from_fn(cache_headers))
        .layer(CompressionLayer::new());
    Router::new()
        .route("/ws", get(ws))
        .route("/class", get(class_ws))
        .with_state(state)
        .fallback_service(files)
}

async fn ws(
    State(state): State<Arc<AppState>>,
    Peer(peer): Peer,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Result<Response, AppError> {
    let (slot, permit, _) = admit(&state, &headers, peer)?;
    let hard = state.config.max_message_bytes * 2;
    // tungstenite's default buffers are 128 KiB each way per socket, and the read buffer is
    // allocated at once and zeroed before every read; a 4 KiB one keeps an idle session
    // cheap (11.5 kB of RSS with it, 15.5 kB with 8 KiB) and a read cheap (a bigger message
    // is read in several chunks). Answers are buffered up to 8 KiB and flushed once per batch
    // of ready answers (see `session`). A client that stops reading is cut off once its
    // unsent answers pass twice the largest reply.
    Ok(upgrade
        .read_buffer_size(4 * 1024)
        .write_buffer_size(8 * 1024)
        .max_write_buffer_size(2 * state.config.max_reply_bytes + 64 * 1024)
        .max_message_size(hard)
        .max_frame_size(hard)
        .on_upgrade(move |socket| session::run(socket, state, permit, slot)))
}

/// The checks at a WebSocket's upgrade, `/ws` and `/class` alike: the Origin, a place under
/// the client address' caps and under the proxy's.
fn admit(
    state: &Arc<AppState>,
    headers: &HeaderMap,
    peer: Option<SocketAddr>,
) -> Result<
    (
        AddressSlot,
        tokio::sync::OwnedSemaphorePermit,
        Option<IpAddr>,
    ),
    AppError,
> {
    check_origin(headers, &state.config.allow_origins)?;
    let addr = client_address(headers, peer, state.config.client_ip_header.as_deref());
    let slot = state.address_slot(addr)?;
    let permit = state
        .conns
        .clone()
        .try_acquire_owned()
        .map_err(|_| AppError::Busy)?;
    Ok((slot, permit, addr))
}

/// Class mode's socket: the same checks at the upgrade as `/ws` (Origin, the address' and
/// the proxy's caps), then a class connection (`class::conn`).
async fn class_ws(
    State(state): State<Arc<AppState>>,
    Peer(peer): Peer,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Result<Response, AppError> {
    let (slot, permit, addr) = admit(&state, &headers, peer)?;
    let hard = state.config.max_message_bytes * 2;
    // A class connection sends and receives a few small messages (a view, an answer), one
    // at a time, each flushed: a 2 KiB read buffer and no write buffer of its own keep a
    // phone's connection small (the budget is 20 kB of the proxy's memory a student).
    Ok(upgrade
        .read_buffer_size(2 * 1024)
        .write_buffer_size(0)
        .max_write_buffer_size(256 * 1024)
        .max_message_size(hard)
        .max_frame_size(hard)
        .on_upgrade(move |socket| class::conn::run(socket, state, permit, slot, addr)))
}

/// The Origin must be the page's own (`http(s)://` + the Host header) or one allowed.
/// Browsers always send it on a WebSocket upgrade; a request without one is refused too.
fn check_origin(headers: &HeaderMap, allowed: &[String]) -> Result<(), AppError> {
    let origin = headers
        .get(header::ORIGIN)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    let ok = origin.as_deref().is_some_and(|o| {
        allowed.iter().any(|a| a.trim_end_matches('/') == o)
            || host.is_some_and(|h| o == format!("http://{h}") || o == format!("https://{h}"))
    });
    if ok {
        Ok(())
    } else {
        Err(AppError::Origin(origin))
    }
}

/// trunk names built assets `<name>-<16 hex>[_bg].<ext>`: those never change, so cache them for
/// a year; everything else (index.html above all) is revalidated on every load.
async fn cache_headers(req: Request, next: Next) -> Response {
    let hashed = is_hashed(req.uri().path());
    let mut res = next.run(req).await;
    if res.status().is_success() {
        res.headers_mut().insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static(if hashed {
                "public, max-age=31536000, immutable"
            } else {
                "no-cache"
            }),
        );
    }
    res
}

fn is_hashed(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or("");
    let stem = file.split('.').next().unwrap_or("");
    let stem = stem.strip_suffix("_bg").unwrap_or(stem);
    stem.rsplit_once('-').is_some_and(|(name, h)| {
        !name.is_empty() && h.len() == 16 && h.bytes().all(|b| b.is_ascii_hexdigit())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_assets() {
        assert!(is_hashed("/redislab-3f2a9c0d1e2b4a5c_bg.wasm"));
        assert!(!is_hashed("/worker_bg.wasm"));
        assert!(is_hashed("/redislab-3f2a9c0d1e2b4a5c.js"));
        assert!(is_hashed("/style-0123456789abcdef.css"));
        assert!(!is_hashed("/index.html"));
        assert!(!is_hashed("/"));
        assert!(!is_hashed("/fonts/noto-sans.woff2"));
    }

    #[test]
    fn the_descriptor_budget_fits_ulimit() {
        let mut c = Config::new("redis://127.0.0.1:6379");
        assert_eq!(c.fit_descriptors_to(1 << 20), None);
        // A common default: 1,024 descriptors for 1,000 sessions and 512 blocking reads.
        let w = c.fit_descriptors_to(1024).expect("lowered");
        assert!(w.contains("ulimit -n is 1024"), "{w}");
        assert!(c.max_connections + c.max_blocking + 68 <= 1024);
        let ratio = c.max_connections as f64 / c.max_blocking as f64;
        assert!((ratio - 1000.0 / 512.0).abs() < 0.05, "{ratio}");
        assert_eq!(c.fit_descriptors_to(1024), None, "fits now");
    }

    #[test]
    fn secrets_and_addresses() {
        assert_eq!(
            redact("redis://:s3cret@10.0.0.1:6379/0"),
            "redis://:***@10.0.0.1:6379/0"
        );
        assert_eq!(
            redact("rediss://app:pw@host:6380"),
            "rediss://app:***@host:6380"
        );
        assert_eq!(redact("redis://127.0.0.1:6379"), "redis://127.0.0.1:6379");
        let v6: IpAddr = "2001:db8:1:2:3:4:5:6".parse().unwrap();
        assert_eq!(address_key(v6), "2001:db8:1:2::".parse::<IpAddr>().unwrap());
        let mapped: IpAddr = "::ffff:10.1.2.3".parse().unwrap();
        assert_eq!(address_key(mapped), "10.1.2.3".parse::<IpAddr>().unwrap());
        let mut h = HeaderMap::new();
        h.insert(
            "x-forwarded-for",
            HeaderValue::from_static("1.1.1.1, 10.0.0.9"),
        );
        let peer: SocketAddr = "127.0.0.1:5".parse().unwrap();
        assert_eq!(
            client_address(&h, Some(peer), Some("x-forwarded-for")),
            Some("10.0.0.9".parse().unwrap())
        );
        assert_eq!(
            client_address(&h, Some(peer), None),
            Some("127.0.0.1".parse().unwrap())
        );
    }

    #[test]
    fn origins() {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_static("127.0.0.1:8080"));
        assert!(check_origin(&h, &[]).is_err());
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://127.0.0.1:8080"),
        );
        assert!(check_origin(&h, &[]).is_ok());
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://evil.example"),
        );
        assert!(check_origin(&h, &[]).is_err());
        assert!(check_origin(&h, &["http://evil.example/".into()]).is_ok());
    }
}
