//! The proxy's budgets, measured in one run on loopback:
//!
//! 1. `redis-benchmark -c 50 -P 1 -t set,get` against a fresh `redis-server` (the ceiling);
//! 2. the same load (50 clients, one request at a time each, SET then GET) through the proxy
//!    — running as its own process, this example re-executed with `--serve` — over
//!    WebSockets, with every request's round trip timed and every answer checked;
//! 3. the same 50-client loop straight to Redis with the `redis` crate (same client
//!    machinery, with and without the proxy);
//!
//!    1–3 take turns in 5 rounds (a fifth of the requests each), so a change in the shared
//!    machine's load falls on all three alike. The client of 2–3 runs on one thread, as
//!    redis-benchmark does, and keeps its 50 connections (and so its 50 proxy sessions) for
//!    the whole run: a GET reads the value its SET wrote, as redis-benchmark's GETs do;
//! 4. added latency, side by side: one client alternating a request straight to Redis and
//!    the same request through the proxy (which goes first alternates too), so both see the
//!    same machine at the same moment; the proxy's added p50/p99 is the difference of the
//!    two distributions' p50/p99;
//! 5. the proxy's resident memory (`/proc/<pid>/status` VmRSS) before and after 1,000 idle
//!    sessions, divided by 1,000.
//!
//! It ends with the three budgets of issue 11, each "met" or "OVER".
//!
//! Run with (a release build; LTO off so it builds in reasonable time on a small machine):
//! `CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
//!  CARGO_PROFILE_RELEASE_OPT_LEVEL=3 cargo run --release -p redislab-proxy --example proxy-bench`
//! Options: `--requests N` per test (default 100000), `--probes N` for the side-by-side
//! latency (default 20000), `--idle N` sessions (default 1000). `cargo xtask bench` runs it.
//! `BENCH_PROXY_THREADS=n` gives the proxy's runtime n worker threads (default: one a core).
//! `BENCH_PROXY_EXE=path` runs another build of this example as the proxy (its `--serve`):
//! two proxies compared under the same client. The proxy exits when its stdin closes.

#[path = "../tests/support/mod.rs"]
mod support;

use futures_util::{SinkExt, StreamExt};
use redislab_proxy::Config;
use std::io::BufRead;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::{rss_kb, RedisServer, Ws};

const CLIENTS: usize = 50;
/// Turns each contestant takes.
const ROUNDS: usize = 5;

fn main() {
    let args = support::BenchArgs::from_env();
    if let Some(url) = args.serve() {
        return serve(url);
    }
    let opt = |name: &str, default: usize| args.number(name, default);
    let (requests, probes, idle) = (
        opt("--requests", 100_000),
        opt("--probes", 20_000),
        opt("--idle", 1_000),
    );
    // The benchmark client runs on one thread, as redis-benchmark does: on a machine whose
    // cores the proxy and Redis share, a client's extra threads only take turns with them.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(bench(requests, probes, idle));
}

/// The proxy as a child process: defaults, except the per-connection rate limit (a benchmark
/// client sends thousands a second) and room for the idle-connection count.
fn serve(redis_url: &str) {
    let mut cfg = Config::new(redis_url);
    cfg.rate_per_sec = 1_000_000;
    cfg.burst = 1_000_000;
    cfg.max_connections = 2_000;
    // Every client is on loopback: one address.
    cfg.max_sessions_per_address = 2_000;
    cfg.address_rate = 10_000_000;
    cfg.address_burst = 10_000_000;
    cfg.new_sessions_per_sec = 100_000;
    cfg.new_sessions_burst = 100_000;
    if let Some(w) = cfg.fit_descriptors() {
        eprintln!("proxy: {w}");
    }
    support::serve_bench_proxy(cfg);
}

/// CPU time (user + system) a process has used so far, in ms (`/proc/<pid>/stat`, clock
/// ticks of 10 ms).
fn cpu_ms(pid: &str) -> f64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which is in parentheses): state is field 3; utime and
    // stime are fields 14 and 15.
    let rest = s.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<u64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    f.iter().sum::<u64>() as f64 * 10.0
}

fn pct(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i].as_secs_f64() * 1000.0
}

struct Run {
    rps: f64,
    p50: f64,
    p99: f64,
}

fn summarize(wall: Duration, mut lat: Vec<Duration>) -> Run {
    lat.sort();
    Run {
        rps: lat.len() as f64 / wall.as_secs_f64(),
        p50: pct(&lat, 0.50),
        p99: pct(&lat, 0.99),
    }
}

/// `redis-benchmark`'s CSV: (test, rps, p50 ms, p99 ms).
fn redis_benchmark(port: u16, requests: usize) -> Vec<(String, f64, f64, f64)> {
    let out = Command::new("redis-benchmark")
        .args(["-h", "127.0.0.1", "-p", &port.to_string()])
        .args(["-c", &CLIENTS.to_string(), "-n", &requests.to_string()])
        .args(["-P", "1", "-t", "set,get", "--csv"])
        .output()
        .expect("redis-benchmark runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap_or_default()
        .split(',')
        .map(|h| h.trim_matches('"').to_string())
        .collect();
    let col = |name: &str| header.iter().position(|h| h == name).expect(name);
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').map(|x| x.trim_matches('"')).collect();
            let num = |c: usize| f[c].parse::<f64>().unwrap_or(0.0);
            (
                f[0].to_string(),
                num(col("rps")),
                num(col("p50_latency_ms")),
                num(col("p99_latency_ms")),
            )
        })
        .collect()
}

/// Wall time and each request's latency.
type Timed = (Duration, Vec<Duration>);

/// The benchmark's WebSocket client: tungstenite with small buffers (its default 128 KiB read
/// buffer is zeroed on every read: 40% of the client's CPU went to `memset`) and
/// TCP_NODELAY, one request at a time; every answer is parsed and checked (its id, and `ok`
/// with the value expected).
struct Client {
    ws: support::Stream,
    next_id: u64,
}

#[derive(serde::Serialize)]
struct Req<'a> {
    id: u64,
    cmd: &'a [&'a str],
}

#[derive(serde::Deserialize)]
struct Answer {
    id: u64,
    ok: Option<serde_json::Value>,
    err: Option<serde_json::Value>,
}

impl Client {
    async fn connect(addr: std::net::SocketAddr) -> Client {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        use tokio_tungstenite::tungstenite::http::HeaderValue;
        use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
        let mut req = format!("ws://{addr}/ws").into_client_request().unwrap();
        req.headers_mut().insert(
            "origin",
            HeaderValue::from_str(&format!("http://{addr}")).unwrap(),
        );
        let cfg = WebSocketConfig::default()
            .read_buffer_size(8 * 1024)
            .write_buffer_size(0);
        let (ws, _) = tokio_tungstenite::connect_async_with_config(req, Some(cfg), true)
            .await
            .unwrap();
        let mut c = Client { ws, next_id: 0 };
        let hello = c.recv().await;
        assert!(
            hello.contains("\"hello\""),
            "first message is hello: {hello}"
        );
        c
    }

    async fn recv(&mut self) -> String {
        use tokio_tungstenite::tungstenite::Message;
        loop {
            match self.ws.next().await {
                Some(Ok(Message::Text(t))) => return t.as_str().to_string(),
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                other => panic!("the proxy closed or failed: {other:?}"),
            }
        }
    }

    /// Sends `words`, waits for the answer, checks it is `ok: expect`.
    async fn cmd(&mut self, words: &[&str], expect: &serde_json::Value) {
        use tokio_tungstenite::tungstenite::Message;
        self.next_id += 1;
        let id = self.next_id;
        let text = serde_json::to_string(&Req { id, cmd: words }).unwrap();
        self.ws.send(Message::Text(text.into())).await.unwrap();
        let t = self.recv().await;
        let a: Answer = serde_json::from_str(&t).unwrap();
        assert!(
            a.id == id && a.err.is_none() && a.ok.as_ref() == Some(expect),
            "{words:?} (id {id}): {t}"
        );
    }
}

/// What SET and GET answer, through the proxy and straight from Redis.
fn expected(op: &str) -> serde_json::Value {
    if op == "SET" {
        serde_json::json!({"status": "OK"})
    } else {
        serde_json::json!("xxx")
    }
}

async fn through_proxy(clients: &mut [Client], op: &str, requests: usize) -> Timed {
    let per = requests / clients.len();
    let want = expected(op);
    let t = Instant::now();
    let lats = futures_util::future::join_all(clients.iter_mut().enumerate().map(|(c, s)| {
        let want = &want;
        async move {
            let mut lat = Vec::with_capacity(per);
            let key = format!("key:{c}");
            for _ in 0..per {
                let t = Instant::now();
                if op == "SET" {
                    s.cmd(&["SET", &key, "xxx"], want).await;
                } else {
                    s.cmd(&["GET", &key], want).await;
                }
                lat.push(t.elapsed());
            }
            lat
        }
    }))
    .await;
    (t.elapsed(), lats.into_iter().flatten().collect())
}

async fn direct(
    conns: &mut [redis::aio::MultiplexedConnection],
    op: &str,
    requests: usize,
) -> Timed {
    let per = requests / conns.len();
    let t = Instant::now();
    let lats =
        futures_util::future::join_all(conns.iter_mut().enumerate().map(|(c, conn)| async move {
            let mut lat = Vec::with_capacity(per);
            let key = format!("key:{c}");
            for _ in 0..per {
                let t = Instant::now();
                let mut cmd = redis::cmd(op);
                cmd.arg(&key);
                if op == "SET" {
                    cmd.arg("xxx");
                }
                let v: redis::Value = cmd.query_async(conn).await.unwrap();
                lat.push(t.elapsed());
                let ok = if op == "SET" {
                    v == redis::Value::Okay
                } else {
                    v == redis::Value::BulkString(b"xxx".to_vec())
                };
                assert!(ok, "{op} {key}: {v:?}");
            }
            lat
        }))
        .await;
    (t.elapsed(), lats.into_iter().flatten().collect())
}

/// One client, `probes` rounds of SET then GET, each both straight to Redis and through the
/// proxy, the order alternating: (direct, through the proxy) latencies.
async fn side_by_side(
    addr: std::net::SocketAddr,
    url: &str,
    probes: usize,
) -> (Vec<Duration>, Vec<Duration>) {
    let mut ws = Client::connect(addr).await;
    let mut conn = direct_conn(url).await;
    let (mut d, mut p) = (
        Vec::with_capacity(2 * probes),
        Vec::with_capacity(2 * probes),
    );
    for i in 0..probes {
        for words in [&["SET", "probe", "xxx"][..], &["GET", "probe"][..]] {
            for proxy_first in [i % 2 == 0, i % 2 == 1] {
                let t = Instant::now();
                if proxy_first {
                    ws.cmd(words, &expected(words[0])).await;
                    p.push(t.elapsed());
                } else {
                    let mut cmd = redis::cmd(words[0]);
                    for w in &words[1..] {
                        cmd.arg(*w);
                    }
                    let v: redis::Value = cmd.query_async(&mut conn).await.unwrap();
                    d.push(t.elapsed());
                    assert!(
                        matches!(v, redis::Value::Okay | redis::Value::BulkString(_)),
                        "{v:?}"
                    );
                }
            }
        }
    }
    (d, p)
}

/// A direct connection to Redis with TCP_NODELAY, as the proxy's own, and no response
/// timeout (redis-benchmark has none; the WebSocket client has none).
async fn direct_conn(url: &str) -> redis::aio::MultiplexedConnection {
    let info = redis::Client::open(url)
        .unwrap()
        .get_connection_info()
        .clone()
        .set_tcp_settings(redis::io::tcp::TcpSettings::default().set_nodelay(true));
    redis::Client::open(info)
        .unwrap()
        .get_multiplexed_async_connection_with_config(
            &redis::AsyncConnectionConfig::new().set_response_timeout(None),
        )
        .await
        .unwrap()
}

async fn bench(requests: usize, probes: usize, idle_n: usize) {
    let redis = RedisServer::start();
    // BENCH_PROXY_EXE: another build of this example to run as the proxy (its `--serve`), to
    // compare two proxies under the same client.
    let exe = std::env::var_os("BENCH_PROXY_EXE")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::current_exe().unwrap());
    // A panic aborts (the release profile): the redis-server goes with it.
    let redis_pid = redis.pid();
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = Command::new("kill").arg(&redis_pid).status();
        default_hook(info);
    }));
    let mut child = Command::new(exe)
        .args(["--serve", &redis.url()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let child_stdin = child.stdin.take();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr: std::net::SocketAddr = line.trim().trim_start_matches("LISTEN ").parse().unwrap();
    let pid = child.id();

    println!("redislab-proxy bench: {CLIENTS} clients, {requests} requests per test, no pipelining, loopback");
    println!(
        "machine: {} cores (shared)",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    // The clients' connections, kept for the whole run (the proxy's sessions too, so a GET
    // reads what the SET before it wrote, as redis-benchmark's does).
    let mut clients = Vec::new();
    let mut conns = Vec::new();
    for _ in 0..CLIENTS {
        clients.push(Client::connect(addr).await);
        conns.push(direct_conn(&redis.url()).await);
    }
    // Warm up the proxy (its first connection to Redis, allocator, caches).
    let _ = through_proxy(&mut clients, "SET", 5_000).await;
    // The three contestants take turns, in rounds, so a change in the machine's load (it is
    // shared) falls on all three alike.
    let per = requests / ROUNDS;
    let mut rb_secs = [0.0f64; 2];
    let mut rb_pcts: [Vec<(f64, f64)>; 2] = [Vec::new(), Vec::new()];
    let mut timed: [[Timed; 2]; 2] = Default::default(); // [direct, proxy][SET, GET]
                                                         // CPU used during the proxy's turns: [the proxy, the benchmark client, redis-server].
    let pids = [pid.to_string(), std::process::id().to_string(), redis.pid()];
    let mut cpu = [0.0f64; 3];
    for _round in 0..ROUNDS {
        let rb = redis_benchmark(redis.port, per);
        for (o, op) in ["SET", "GET"].into_iter().enumerate() {
            if let Some((_, rps, p50, p99)) = rb.iter().find(|r| r.0 == op) {
                rb_secs[o] += per as f64 / rps;
                rb_pcts[o].push((*p50, *p99));
            }
            let d = direct(&mut conns, op, per).await;
            let before = pids.clone().map(|p| cpu_ms(&p));
            let p = through_proxy(&mut clients, op, per).await;
            for (i, b) in before.iter().enumerate() {
                cpu[i] += cpu_ms(&pids[i]) - b;
            }
            for (who, run) in [d, p].into_iter().enumerate() {
                timed[who][o].0 += run.0;
                timed[who][o].1.extend(run.1);
            }
        }
    }
    println!();
    println!(
        "{ROUNDS} rounds, each: redis-benchmark, then the direct client, then the proxy \
         (redis-benchmark's p50/p99: the median of its rounds')"
    );
    println!("{:<42} {:>10} {:>9} {:>9}", "", "req/s", "p50 ms", "p99 ms");
    let mut share: Vec<(&str, f64)> = Vec::new();
    for (o, op) in ["SET", "GET"].into_iter().enumerate() {
        let rb_rps = (per * ROUNDS) as f64 / rb_secs[o];
        let median = |f: fn(&(f64, f64)) -> f64| {
            let mut v: Vec<f64> = rb_pcts[o].iter().map(f).collect();
            v.sort_by(f64::total_cmp);
            v.get(v.len() / 2).copied().unwrap_or(0.0)
        };
        println!(
            "{:<42} {rb_rps:>10.0} {:>9.3} {:>9.3}",
            format!("redis-benchmark {op}"),
            median(|x| x.0),
            median(|x| x.1)
        );
        let [d, p] = [0, 1].map(|who| {
            let (wall, lat) = std::mem::take(&mut timed[who][o]);
            summarize(wall, lat)
        });
        for (name, r) in [
            ("direct, redis crate", &d),
            ("through the proxy (WebSocket)", &p),
        ] {
            println!(
                "{:<42} {:>10.0} {:>9.3} {:>9.3}",
                format!("{name} {op}"),
                r.rps,
                r.p50,
                r.p99
            );
        }
        println!(
            "  {op}: proxy throughput {:.0}% of redis-benchmark's ({:.0}% of the direct client's)",
            100.0 * p.rps / rb_rps,
            100.0 * p.rps / d.rps,
        );
        share.push((op, 100.0 * p.rps / rb_rps));
    }
    let total = (2 * per * ROUNDS) as f64;
    println!(
        "  CPU per request through the proxy: proxy {:.0} µs, benchmark client {:.0} µs, \
         redis-server {:.0} µs (the machine has {} cores for all three, and other work)",
        1000.0 * cpu[0] / total,
        1000.0 * cpu[1] / total,
        1000.0 * cpu[2] / total,
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );

    // Added latency, side by side.
    let (direct_lat, proxy_lat) = side_by_side(addr, &redis.url(), probes).await;
    let d = summarize(Duration::from_secs(1), direct_lat);
    let p = summarize(Duration::from_secs(1), proxy_lat);
    let (add50, add99) = (p.p50 - d.p50, p.p99 - d.p99);
    println!();
    println!("side by side, 1 client, {probes} × (SET + GET) each way, alternating:");
    println!("{:<42} {:>10} {:>9} {:>9}", "", "", "p50 ms", "p99 ms");
    println!(
        "{:<42} {:>10} {:>9.3} {:>9.3}",
        "direct, redis crate", "", d.p50, d.p99
    );
    println!(
        "{:<42} {:>10} {:>9.3} {:>9.3}",
        "through the proxy (WebSocket)", "", p.p50, p.p99
    );
    println!("  added by the proxy: p50 {add50:+.3} ms, p99 {add99:+.3} ms");

    // Memory per idle connection: the proxy's RSS before and after `idle_n` idle sessions
    // (the pauses let the runtime settle; nothing waits on them).
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = rss_kb(pid);
    let origin = format!("http://{addr}");
    let mut idle = Vec::new();
    for _ in 0..idle_n.div_ceil(50) {
        let more =
            futures_util::future::join_all((0..50).map(|_| Ws::connect(addr, Some(&origin)))).await;
        idle.extend(more.into_iter().map(Result::unwrap));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = rss_kb(pid);
    let per = (after.saturating_sub(before)) as f64 / idle.len() as f64;
    println!();
    println!(
        "memory: proxy RSS {before} kB → {after} kB with {} idle sessions: {per:.1} kB per idle connection",
        idle.len(),
    );
    drop(idle);

    println!();
    println!("budgets (issue 11):");
    for (op, pct) in &share {
        println!(
            "  throughput {op} through the proxy ≥ 50% of redis-benchmark's: {pct:.0}% — {}",
            if *pct >= 50.0 { "met" } else { "OVER" }
        );
    }
    println!(
        "  added latency at p99 ≤ 1 ms on loopback: {add99:+.3} ms (p50 {add50:+.3} ms) — {}",
        if add99 <= 1.0 { "met" } else { "OVER" }
    );
    println!("  memory per idle connection: {per:.1} kB (measured, no budget)");
    // Closing its stdin ends the proxy; killed if it has not ended within 5 s.
    drop(child_stdin);
    for _ in 0..100 {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
}
