//! Redis Lab's server mode: serves the built app and a WebSocket (`/ws`) through which each
//! browser session sends the labs' Redis commands to a real Redis — inside its own
//! namespace, through an allowlist, within limits. The protocol is in the crate's README.
//!
//! The proxy keeps no state another proxy would need (a session's bookkeeping lives in the
//! session and in Redis), so several can stand behind a load balancer against one Redis.

pub mod backend;
pub mod commands;
pub mod protocol;
pub mod session;

use axum::extract::{Request, State, WebSocketUpgrade};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::serve::{Listener, ListenerExt};
use axum::Router;
use std::path::PathBuf;
use std::sync::Arc;
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
    /// Open WebSocket sessions at most; more are refused with 503.
    pub max_connections: usize,
    /// Bytes in one message; bigger ones get TOO_LARGE (and past twice this the socket is
    /// closed with 1009 before the message is even buffered).
    pub max_message_bytes: usize,
    /// Messages per second per connection, and the burst allowed.
    pub rate_per_sec: u32,
    pub burst: u32,
    /// Requests of one connection waiting for Redis at once.
    pub max_in_flight: usize,
    /// Deadline of one request (a blocking read: its block time plus this).
    pub timeout: Duration,
    /// A connection with no message for this long is closed.
    pub idle_timeout: Duration,
    /// Distinct keys one session may write.
    pub max_keys: usize,
    /// A closed session's keys expire within this.
    pub session_grace: Duration,
    /// TTL of a session's tracking set, refreshed whenever it gets a new key (a backstop in
    /// case a proxy dies without cleaning up).
    pub track_ttl: Duration,
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
            max_connections: 1000,
            max_message_bytes: 64 * 1024,
            rate_per_sec: 200,
            burst: 400,
            max_in_flight: 32,
            timeout: Duration::from_secs(2),
            idle_timeout: Duration::from_secs(300),
            max_keys: 10_000,
            session_grace: Duration::from_secs(60),
            track_ttl: Duration::from_secs(24 * 3600),
        }
    }
}

/// Shared by every request.
pub struct AppState {
    pub config: Config,
    pub backend: backend::Backend,
    /// One permit per open session.
    conns: Arc<Semaphore>,
    /// Turns true when the proxy is shutting down.
    shutdown: watch::Sender<bool>,
}

impl AppState {
    /// State for `config`. Nothing connects to Redis yet.
    ///
    /// # Errors
    /// When `config.redis` holds no Redis URL, or one that is not.
    pub fn new(config: Config) -> Result<Arc<Self>, redis::RedisError> {
        Ok(Arc::new(AppState {
            backend: backend::Backend::with_nodes(&config.redis, config.cluster, config.timeout)?,
            conns: Arc::new(Semaphore::new(config.max_connections)),
            shutdown: watch::Sender::new(false),
            config,
        }))
    }

    /// Open sessions.
    pub fn sessions(&self) -> usize {
        self.config.max_connections - self.conns.available_permits()
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
}

/// Why a request failed (the WebSocket's own errors travel inside it, see `protocol`).
#[derive(Debug)]
pub enum AppError {
    /// The upgrade's Origin is not ours nor allowed.
    Origin(Option<String>),
    /// The connection cap is reached.
    Busy,
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
        }
    }
}

/// `listener` with TCP_NODELAY on every accepted socket: an answer is one small write, and
/// Nagle's algorithm would hold it back while an earlier one is unacknowledged. Serve the
/// app with `axum::serve(redislab_proxy::nodelay(listener), app(state))`.
pub fn nodelay(
    listener: tokio::net::TcpListener,
) -> impl Listener<Io = tokio::net::TcpStream, Addr = std::net::SocketAddr> {
    listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "could not set TCP_NODELAY");
        }
    })
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
        .with_state(state)
        .fallback_service(files)
}

async fn ws(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Result<Response, AppError> {
    check_origin(&headers, &state.config.allow_origins)?;
    let permit = state
        .conns
        .clone()
        .try_acquire_owned()
        .map_err(|_| AppError::Busy)?;
    let hard = state.config.max_message_bytes * 2;
    // tungstenite's default buffers are 128 KiB each way per socket, and the read buffer is
    // allocated at once and zeroed before every read; a 4 KiB one keeps an idle session
    // cheap (11.5 kB of RSS with it, 15.5 kB with 8 KiB) and a read cheap (a bigger message
    // is read in several chunks). Answers are buffered up to 8 KiB and flushed once per batch
    // of ready answers (see `session`). A client that stops reading is cut off past 1 MiB
    // of answers.
    Ok(upgrade
        .read_buffer_size(4 * 1024)
        .write_buffer_size(8 * 1024)
        .max_write_buffer_size(1024 * 1024)
        .max_message_size(hard)
        .max_frame_size(hard)
        .on_upgrade(move |socket| session::run(socket, state, permit)))
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
