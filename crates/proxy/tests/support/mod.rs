//! Test support: a real `redis-server` on a free port (killed on drop, like
//! `crates/sim/tests/redis_differential.rs` and redis-rs' `RedisServer`), the proxy started
//! in-process from `app(state)` on a free port, and a small WebSocket client.
#![allow(dead_code)]

pub mod class;
pub mod cluster;

use futures_util::{SinkExt, StreamExt};
use redislab_proxy::{AppState, Config};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::net::{SocketAddr, TcpListener};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Whether a Redis answers PING on this port.
pub fn ping(port: u16) -> bool {
    use std::io::{Read, Write};
    let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(1)));
    let mut buf = [0u8; 7];
    s.write_all(b"PING\r\n").is_ok() && s.read_exact(&mut buf).is_ok() && &buf == b"+PONG\r\n"
}

/// A `redis-server` of the test's own.
pub struct RedisServer {
    child: Option<Child>,
    pub port: u16,
}

impl RedisServer {
    pub fn start() -> RedisServer {
        let ok = Command::new("redis-server")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(
            ok,
            "redis-server is not installed: these tests need a real Redis 7 \
             (`apt-get install redis-server`; `cargo xtask test` does it when run as root)"
        );
        let mut s = RedisServer {
            child: None,
            port: free_port(),
        };
        s.spawn();
        s
    }

    /// Starts the server on `self.port` and waits until it answers PING. If it exits at
    /// start (the port was taken in the meantime), tries again on another free port —
    /// except on a restart, which must keep its port.
    fn spawn(&mut self) {
        self.spawn_on_port(true);
    }

    fn spawn_on_port(&mut self, may_move: bool) {
        for _attempt in 0..5 {
            let mut child = Command::new("redis-server")
                .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
                .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("redis-server starts");
            let port = self.port;
            let mut exited = false;
            wait_until_sync("redis-server answers PING", Duration::from_secs(10), || {
                exited = matches!(child.try_wait(), Ok(Some(_)));
                exited || ping(port)
            });
            if !exited {
                self.child = Some(child);
                return;
            }
            // It exited: the port was taken.
            assert!(
                may_move,
                "redis-server could not restart on port {}",
                self.port
            );
            self.port = free_port();
        }
        panic!("redis-server did not start");
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    pub fn pid(&self) -> String {
        self.child.as_ref().expect("running").id().to_string()
    }

    /// SIGKILL: the process and its sockets are gone at once.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// A new, empty server on the same port.
    pub fn restart(&mut self) {
        self.kill();
        self.spawn_on_port(false);
    }

    fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .args([sig, &self.pid()])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "kill {sig}");
    }

    /// SIGSTOP: the server stops reading and answering; its sockets stay open.
    pub fn pause(&self) {
        self.signal("-STOP");
    }

    pub fn resume(&self) {
        self.signal("-CONT");
    }

    /// A direct connection, for checking what reached Redis.
    pub async fn admin(&self) -> redis::aio::MultiplexedConnection {
        connect(&self.url()).await
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        if let Some(c) = &self.child {
            // In case a test stopped it.
            let _ = Command::new("kill")
                .args(["-CONT", &c.id().to_string()])
                .status();
        }
        self.kill();
    }
}

/// Waits until `cond` holds, checking it every few milliseconds, for at most `within`;
/// panics naming `what` when it never does. A test waits on a state this way, never on a
/// sleep.
pub async fn wait_until<F, Fut>(what: &str, within: Duration, mut cond: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + within;
    loop {
        if cond().await {
            return;
        }
        assert!(Instant::now() < deadline, "not within {within:?}: {what}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// [`wait_until`] for code that is not async (a server starting up).
pub fn wait_until_sync(what: &str, within: Duration, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + within;
    while !cond() {
        assert!(Instant::now() < deadline, "not within {within:?}: {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A field of `INFO <section>` as a number.
pub async fn info_field(
    c: &mut redis::aio::MultiplexedConnection,
    section: &str,
    field: &str,
) -> i64 {
    let info: String = redis::cmd("INFO")
        .arg(section)
        .query_async(c)
        .await
        .unwrap();
    info.lines()
        .find_map(|l| l.strip_prefix(&format!("{field}:")))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in INFO {section}"))
}

/// Waits until Redis has `n` clients blocked (a BRPOP is waiting in Redis itself).
pub async fn wait_blocked(c: &mut redis::aio::MultiplexedConnection, n: i64) {
    let c = tokio::sync::Mutex::new(c);
    wait_until(
        &format!("{n} blocked clients"),
        Duration::from_secs(10),
        || async {
            let mut c = c.lock().await;
            info_field(&mut c, "clients", "blocked_clients").await >= n
        },
    )
    .await;
}

/// Bytes that reached the server on `port` and that it has not read yet (its sockets'
/// receive queues, from `/proc/net/tcp`): with the server stopped (SIGSTOP), a request the
/// proxy sent is there once it is on the wire.
pub fn unread_bytes(port: u16) -> u64 {
    let port_hex = format!(":{port:04X}");
    let mut total = 0;
    for f in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(t) = std::fs::read_to_string(f) else {
            continue;
        };
        for l in t.lines().skip(1) {
            let w: Vec<&str> = l.split_whitespace().collect();
            // local_address rem_address st tx_queue:rx_queue; 01 = ESTABLISHED.
            if w.len() > 4 && w[1].ends_with(&port_hex) && w[3] == "01" {
                if let Some((_, rx)) = w[4].split_once(':') {
                    total += u64::from_str_radix(rx, 16).unwrap_or(0);
                }
            }
        }
    }
    total
}

/// The proxy binary (`redislab-proxy`) as a process of its own — it can be killed with
/// SIGKILL — listening on a free port; its output goes to a file the test can read.
pub struct ProxyProcess {
    pub child: Child,
    pub addr: SocketAddr,
    pub log: std::path::PathBuf,
}

impl ProxyProcess {
    /// `redislab-proxy --listen 127.0.0.1:<free> <args…>` with `RUST_LOG` at debug, once it
    /// accepts connections.
    pub fn spawn(args: &[&str]) -> ProxyProcess {
        let port = free_port();
        let addr: SocketAddr = ([127, 0, 0, 1], port).into();
        let log =
            std::env::temp_dir().join(format!("redislab-proxy-{}-{port}.log", std::process::id()));
        let out = std::fs::File::create(&log).unwrap();
        // Integration tests know the binary (examples that share this file do not use it).
        let exe = match option_env!("CARGO_BIN_EXE_redislab-proxy") {
            Some(exe) => exe,
            None => panic!("the proxy binary is known to integration tests only"),
        };
        let mut child = Command::new(exe)
            .args(["--listen", &addr.to_string()])
            .args(args)
            .env("RUST_LOG", "redislab_proxy=debug")
            .env("NO_COLOR", "1")
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .expect("the proxy binary starts");
        wait_until_sync("the proxy listens", Duration::from_secs(30), || {
            assert!(
                !matches!(child.try_wait(), Ok(Some(_))),
                "the proxy exited: {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
            std::net::TcpStream::connect(addr).is_ok()
        });
        ProxyProcess { child, addr, log }
    }

    pub async fn connect(&self) -> Ws {
        Ws::connect(self.addr, Some(&format!("http://{}", self.addr)))
            .await
            .expect("upgrade")
    }

    /// SIGKILL: no cleanup of any kind runs.
    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// What it logged so far.
    pub fn output(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for ProxyProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.log);
    }
}

/// Every key under `lab:*` (SCAN on a direct connection) with its PTTL.
pub async fn lab_keys(c: &mut redis::aio::MultiplexedConnection) -> Vec<(String, i64)> {
    let mut out = Vec::new();
    let mut cursor: u64 = 0;
    loop {
        let (next, keys): (u64, Vec<String>) = redis::cmd("SCAN")
            .arg(cursor)
            .arg("MATCH")
            .arg("lab:*")
            .arg("COUNT")
            .arg(1000)
            .query_async(c)
            .await
            .unwrap();
        for k in keys {
            let t: i64 = redis::cmd("PTTL").arg(&k).query_async(c).await.unwrap();
            out.push((k, t));
        }
        cursor = next;
        if cursor == 0 {
            return out;
        }
    }
}

/// A direct connection to the Redis at `url` (no response timeout of its own: the tests
/// bound their waits).
pub async fn connect(url: &str) -> redis::aio::MultiplexedConnection {
    let cfg = redis::AsyncConnectionConfig::new().set_response_timeout(None);
    redis::Client::open(url)
        .unwrap()
        .get_multiplexed_async_connection_with_config(&cfg)
        .await
        .expect("a direct connection to Redis")
}

/// Calls per command from `INFO commandstats` (calls, rejected and failed), `info` left out.
pub async fn commandstats(c: &mut redis::aio::MultiplexedConnection) -> BTreeMap<String, String> {
    let info: String = redis::cmd("INFO")
        .arg("commandstats")
        .query_async(c)
        .await
        .unwrap();
    info.lines()
        .filter_map(|l| l.strip_prefix("cmdstat_"))
        .filter_map(|l| l.split_once(':'))
        .filter(|(name, _)| *name != "info")
        .map(|(name, v)| {
            let keep: Vec<&str> = v
                .split(',')
                .filter(|f| {
                    f.starts_with("calls=")
                        || f.starts_with("rejected_calls=")
                        || f.starts_with("failed_calls=")
                })
                .collect();
            (name.to_string(), keep.join(","))
        })
        .collect()
}

/// A proxy running in this process.
pub struct Proxy {
    pub addr: SocketAddr,
    pub state: Arc<AppState>,
    task: tokio::task::JoinHandle<()>,
}

impl Proxy {
    /// The proxy as the binary runs it: the checks at start, the heartbeat, the service
    /// with each connection's address.
    pub async fn start(cfg: Config) -> Proxy {
        let state = AppState::new(cfg).expect("config");
        for w in state.start().await.expect("a Redis new enough") {
            eprintln!("proxy warning: {w}");
        }
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let service = redislab_proxy::service(state.clone());
        let task = tokio::spawn(async move {
            axum::serve(redislab_proxy::nodelay(listener), service)
                .await
                .unwrap();
        });
        Proxy { addr, state, task }
    }

    pub fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Waits until every session has ended and its keys have their end-of-session expiry.
    pub async fn wait_no_sessions(&self, within: Duration) {
        assert!(
            self.state.wait_sessions(|n| n == 0, within).await,
            "sessions still running after {within:?}"
        );
    }

    pub async fn connect(&self) -> Ws {
        Ws::connect(self.addr, Some(&self.origin()))
            .await
            .expect("upgrade")
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Config for tests: Redis at `url`, short deadlines; no heartbeat during a test (so
/// `INFO commandstats` sees only what the sessions sent) unless a test asks for one.
pub fn config(url: &str) -> Config {
    let mut c = Config::new(url);
    c.timeout = Duration::from_millis(1000);
    c.limits.max_block_ms = 1000;
    c.heartbeat = Duration::from_secs(3600);
    c
}

pub type Stream = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A WebSocket client speaking the protocol.
pub struct Ws {
    pub ws: Stream,
    pub hello: Value,
    next_id: u64,
}

impl Ws {
    /// Upgrades with this Origin (or none); the error is the HTTP refusal.
    pub async fn connect(
        addr: SocketAddr,
        origin: Option<&str>,
    ) -> Result<Ws, tokio_tungstenite::tungstenite::Error> {
        let mut req = format!("ws://{addr}/ws").into_client_request().unwrap();
        if let Some(o) = origin {
            req.headers_mut()
                .insert("origin", HeaderValue::from_str(o).unwrap());
        }
        let (ws, _) = tokio_tungstenite::connect_async(req).await?;
        Self::greeted(ws).await
    }

    /// Upgrades from another loopback address (`127.0.0.2`, …: all of 127/8 is loopback),
    /// as a client on another machine would.
    pub async fn connect_from(
        addr: SocketAddr,
        origin: &str,
        source: std::net::Ipv4Addr,
    ) -> Result<Ws, tokio_tungstenite::tungstenite::Error> {
        let sock = tokio::net::TcpSocket::new_v4()?;
        sock.bind(SocketAddr::from((source, 0)))?;
        let tcp = sock.connect(addr).await?;
        tcp.set_nodelay(true)?;
        let mut req = format!("ws://{addr}/ws").into_client_request().unwrap();
        req.headers_mut()
            .insert("origin", HeaderValue::from_str(origin).unwrap());
        let (ws, _) = tokio_tungstenite::client_async(req, MaybeTlsStream::Plain(tcp)).await?;
        Self::greeted(ws).await
    }

    async fn greeted(ws: Stream) -> Result<Ws, tokio_tungstenite::tungstenite::Error> {
        let mut w = Ws {
            ws,
            hello: Value::Null,
            next_id: 1,
        };
        let hello = w.recv().await.expect("hello");
        assert!(
            hello.get("hello").is_some(),
            "first message is hello: {hello}"
        );
        w.hello = hello["hello"].clone();
        Ok(w)
    }

    pub fn namespace(&self) -> String {
        self.hello["namespace"].as_str().unwrap().to_string()
    }

    pub async fn send_text(&mut self, t: impl Into<String>) {
        self.ws.send(Message::Text(t.into().into())).await.unwrap();
    }

    /// The next JSON message (10 s at most, 30 s in a debug build); `None` when the socket
    /// closed.
    pub async fn recv(&mut self) -> Option<Value> {
        let within = Duration::from_secs(if cfg!(debug_assertions) { 30 } else { 10 });
        loop {
            let m = tokio::time::timeout(within, self.ws.next())
                .await
                .unwrap_or_else(|_| {
                    panic!(
                        "a message within {within:?} (session {})",
                        self.hello["session"]
                    )
                })?;
            match m.ok()? {
                Message::Text(t) => return Some(serde_json::from_str(t.as_str()).unwrap()),
                Message::Close(_) => return None,
                _ => continue,
            }
        }
    }

    /// The close frame the server sends next (skipping other messages).
    pub async fn close_frame(&mut self) -> Option<CloseFrame> {
        loop {
            let m = tokio::time::timeout(Duration::from_secs(10), self.ws.next())
                .await
                .expect("the server closes within 10 s");
            match m {
                Some(Ok(Message::Close(f))) => return f,
                Some(Ok(_)) => continue,
                _ => return None,
            }
        }
    }

    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Sends a command and returns the whole answer.
    pub async fn cmd(&mut self, words: &[&str]) -> Value {
        let id = self.id();
        self.send_text(json!({"id": id, "cmd": words}).to_string())
            .await;
        self.answer(id).await
    }

    /// Sends a command without waiting; returns its id.
    pub async fn start(&mut self, words: &[&str]) -> u64 {
        let id = self.id();
        self.send_text(json!({"id": id, "cmd": words}).to_string())
            .await;
        id
    }

    pub async fn script(&mut self, name: &str, keys: &[&str], args: &[&str]) -> Value {
        let id = self.id();
        self.send_text(json!({"id": id, "script": name, "keys": keys, "args": args}).to_string())
            .await;
        self.answer(id).await
    }

    /// Waits for the answer to `id` (answers to other ids in between are a failure).
    pub async fn answer(&mut self, id: u64) -> Value {
        let v = self.recv().await.expect("an answer");
        assert_eq!(v["id"], json!(id), "answer to {id}: {v}");
        v
    }

    /// The `ok` of a command that must succeed.
    pub async fn ok(&mut self, words: &[&str]) -> Value {
        let v = self.cmd(words).await;
        assert!(v.get("ok").is_some(), "{words:?} → {v}");
        v["ok"].clone()
    }
}

/// The error code of an answer, or "" when it succeeded.
pub fn code(v: &Value) -> &str {
    v["err"]["code"].as_str().unwrap_or("")
}

/// Drives a lab's live run the way the browser's simulation worker does
/// (`src/bin/worker/live.rs`): commands out at once with ids, answers matched by id with
/// their round trips, a timer for the next sleep or piece of work; an error answer goes to
/// the actor as an error reply. Panics if the run is not over within `limit`; returns the
/// error answers (code and message).
pub async fn drive_live(
    ws: &mut Ws,
    run: &mut dyn redislab_sim::labs::work::LiveDriver,
    limit: Duration,
) -> Vec<String> {
    use redislab_sim::wire::{self, Incoming};
    let start = Instant::now();
    let ms = |start: Instant| start.elapsed().as_millis() as u64;
    let mut pending: BTreeMap<u64, (usize, Instant)> = BTreeMap::new();
    let mut next = 100;
    let mut errors = Vec::new();
    let limit = start + limit;
    loop {
        for (actor, cmd) in run.advance(ms(start)) {
            ws.ws
                .send(Message::Text(wire::request(next, &cmd).into()))
                .await
                .unwrap();
            pending.insert(next, (actor, Instant::now()));
            next += 1;
        }
        if run.is_done() {
            return errors;
        }
        assert!(Instant::now() < limit, "the live run did not end in time");
        let wake = run
            .next_at()
            .map_or(limit, |t| start + Duration::from_millis(t));
        tokio::select! {
            m = ws.ws.next() => {
                let Some(Ok(Message::Text(t))) = m else { panic!("socket: {m:?}") };
                let Some(Incoming::Answer { id: Some(id), result }) = wire::parse(t.as_str()) else {
                    panic!("not an answer: {t}")
                };
                let (actor, sent) = pending.remove(&id).expect("an id we sent, answered once");
                let rtt = sent.elapsed().as_micros() as u32;
                let reply = result.unwrap_or_else(|e| {
                    errors.push(format!("{}: {}", e.code.name(), e.message));
                    e.to_reply()
                });
                run.arrived(actor, reply, ms(start), rtt);
            }
            _ = tokio::time::sleep_until(wake.into()) => {}
        }
    }
}

/// A benchmark's proxy, as a process of its own (an example re-executed with `--serve`):
/// `cfg` served on a free loopback port, printed as `LISTEN <addr>` on stdout; it exits when
/// its stdin closes (the benchmark is done, or died without cleaning up). `BENCH_PROXY_THREADS=n`
/// gives its runtime n worker threads.
pub fn serve_bench_proxy(cfg: Config) {
    let mut rt = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = std::env::var("BENCH_PROXY_THREADS")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        rt.worker_threads(n);
    }
    std::thread::spawn(|| {
        let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
        std::process::exit(0);
    });
    let rt = rt.enable_all().build().unwrap();
    rt.block_on(async {
        let state = AppState::new(cfg).unwrap();
        for w in state.start().await.unwrap() {
            eprintln!("proxy: {w}");
        }
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        println!("LISTEN {}", listener.local_addr().unwrap());
        axum::serve(
            redislab_proxy::nodelay(listener),
            redislab_proxy::service(state),
        )
        .await
        .unwrap();
    });
}

/// A process' resident memory (`/proc/<pid>/status` VmRSS), kB.
pub fn rss_kb(pid: u32) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// A bench's command line: `--serve <redis-url>` (the bench starting a proxy process of its
/// own) or `--<name> <number>` options.
pub struct BenchArgs(Vec<String>);

impl BenchArgs {
    /// This process' arguments.
    pub fn from_env() -> BenchArgs {
        BenchArgs(std::env::args().collect())
    }

    /// The Redis URL after `--serve`, when this process is to be the bench's proxy.
    pub fn serve(&self) -> Option<&str> {
        match self.0.get(1).map(String::as_str) {
            Some("--serve") => self.0.get(2).map(String::as_str),
            _ => None,
        }
    }

    /// The number after `name`, or `default`.
    pub fn number(&self, name: &str, default: usize) -> usize {
        self.0
            .iter()
            .position(|a| a == name)
            .and_then(|i| self.0.get(i + 1))
            .map(|n| {
                n.parse()
                    .unwrap_or_else(|_| panic!("{name}: not a number: {n}"))
            })
            .unwrap_or(default)
    }
}
