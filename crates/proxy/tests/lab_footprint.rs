//! What the labs really need from the proxy, measured: every live lab (lock race, cache,
//! streams, queue) run through the proxy with its default limits, each run in a session of
//! its own as the app runs it, while its namespace is watched in Redis. No run may meet a
//! limit (no error answer at all), and each measure stays well inside its limit — the
//! margins the crate's README states come from this test's table.
//!
//! By default one preset of each lab (the heaviest we know of); `REDISLAB_FOOTPRINT_ALL=1`
//! runs every preset (a few minutes), as for the README's table.

mod support;

use futures_util::{SinkExt, StreamExt};
use redislab_proxy::Config;
use redislab_sim::labs::lab::{Job, LiveDriver};
use redislab_sim::labs::params::Params;
use redislab_sim::labs::registry;
use redislab_sim::wire::{self, Incoming};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::{Proxy, RedisServer, Ws};
use tokio_tungstenite::tungstenite::Message;

/// The peaks of one run.
#[derive(Debug, Default, Clone)]
struct Peaks {
    commands: u64,
    words: usize,
    message_bytes: usize,
    reply_bytes: usize,
    in_flight: usize,
    per_second: u64,
    count: u64,
    keys: u64,
    elements: u64,
    memory: u64,
    pending: u64,
    errors: Vec<String>,
}

/// The largest number after COUNT or LIMIT's count (or LPOP's count) in a command.
fn count_of(cmd: &[Vec<u8>]) -> u64 {
    let w: Vec<String> = cmd
        .iter()
        .map(|x| String::from_utf8_lossy(x).to_uppercase())
        .collect();
    let mut m = 0;
    for (i, x) in w.iter().enumerate() {
        let n = |j: usize| w.get(j).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
        if x == "COUNT" {
            m = m.max(n(i + 1));
        }
        if x == "LIMIT" {
            m = m.max(n(i + 1)).max(n(i + 2));
        }
    }
    m
}

/// Drives a run as the browser's worker does, measuring as it goes; a watcher samples the
/// session's namespace in Redis meanwhile.
async fn measured(ws: &mut Ws, run: &mut dyn LiveDriver, admin_url: &str) -> Peaks {
    let ns = ws.namespace();
    let peaks_redis = Arc::new([(); 4].map(|_| AtomicU64::new(0)));
    let watch = {
        let (p, ns, url) = (peaks_redis.clone(), ns.clone(), admin_url.to_string());
        tokio::spawn(async move {
            let mut c = support::connect(&url).await;
            let mut every = tokio::time::interval(Duration::from_millis(50));
            loop {
                every.tick().await;
                let keys: Vec<String> = redis::cmd("KEYS")
                    .arg(format!("{ns}*"))
                    .query_async(&mut c)
                    .await
                    .unwrap_or_default();
                p[0].fetch_max(keys.len() as u64, Ordering::Relaxed);
                let (mut mem, mut pending) = (0u64, 0u64);
                for k in &keys {
                    let t: String = redis::cmd("TYPE")
                        .arg(k)
                        .query_async(&mut c)
                        .await
                        .unwrap_or_default();
                    let len_cmd = match t.as_str() {
                        "list" => "LLEN",
                        "hash" => "HLEN",
                        "zset" => "ZCARD",
                        "stream" => "XLEN",
                        _ => "",
                    };
                    if !len_cmd.is_empty() {
                        let n: u64 = redis::cmd(len_cmd)
                            .arg(k)
                            .query_async(&mut c)
                            .await
                            .unwrap_or(0);
                        p[1].fetch_max(n, Ordering::Relaxed);
                    }
                    if t == "stream" {
                        let groups: Vec<redis::Value> = redis::cmd("XINFO")
                            .arg("GROUPS")
                            .arg(k)
                            .query_async(&mut c)
                            .await
                            .unwrap_or_default();
                        for g in groups {
                            if let redis::Value::Array(f) = g {
                                for kv in f.chunks(2) {
                                    if matches!(&kv[0], redis::Value::BulkString(b) if b == b"pending")
                                    {
                                        if let redis::Value::Int(n) = kv[1] {
                                            pending += n as u64;
                                        }
                                    }
                                }
                            }
                        }
                    }
                    let m: Option<u64> = redis::cmd("MEMORY")
                        .arg("USAGE")
                        .arg(k)
                        .arg("SAMPLES")
                        .arg(0)
                        .query_async(&mut c)
                        .await
                        .unwrap_or(None);
                    mem += m.unwrap_or(0);
                }
                p[2].fetch_max(mem, Ordering::Relaxed);
                p[3].fetch_max(pending, Ordering::Relaxed);
            }
        })
    };
    let mut out = Peaks::default();
    let start = Instant::now();
    let ms = |start: Instant| start.elapsed().as_millis() as u64;
    let mut pending: BTreeMap<u64, (usize, Instant)> = BTreeMap::new();
    let mut sent_at: Vec<Instant> = Vec::new();
    let mut next = 100;
    let limit = start + Duration::from_secs(180);
    loop {
        for (actor, cmd) in run.advance(ms(start)) {
            let text = wire::request(next, &cmd);
            out.commands += 1;
            out.words = out.words.max(cmd.len());
            out.message_bytes = out.message_bytes.max(text.len());
            out.count = out.count.max(count_of(&cmd));
            ws.ws.send(Message::Text(text.into())).await.unwrap();
            pending.insert(next, (actor, Instant::now()));
            out.in_flight = out.in_flight.max(pending.len());
            let now = Instant::now();
            sent_at.push(now);
            let in_last_second = sent_at
                .iter()
                .rev()
                .take_while(|t| now.duration_since(**t) < Duration::from_secs(1))
                .count();
            out.per_second = out.per_second.max(in_last_second as u64);
            next += 1;
        }
        if run.is_done() {
            break;
        }
        assert!(Instant::now() < limit, "the live run did not end in time");
        let wake = run
            .next_at()
            .map_or(limit, |t| start + Duration::from_millis(t));
        tokio::select! {
            m = ws.ws.next() => {
                let Some(Ok(Message::Text(t))) = m else { panic!("socket: {m:?}") };
                out.reply_bytes = out.reply_bytes.max(t.len());
                let Some(Incoming::Answer { id: Some(id), result }) = wire::parse(t.as_str()) else {
                    panic!("not an answer: {t}")
                };
                let (actor, sent) = pending.remove(&id).expect("an id we sent");
                let reply = result.unwrap_or_else(|e| {
                    out.errors.push(format!("{}: {}", e.code.name(), e.message));
                    e.to_reply()
                });
                run.arrived(actor, reply, ms(start), sent.elapsed().as_micros() as u32);
            }
            _ = tokio::time::sleep_until(wake.into()) => {}
        }
    }
    watch.abort();
    out.keys = peaks_redis[0].load(Ordering::Relaxed);
    out.elements = peaks_redis[1].load(Ordering::Relaxed);
    out.memory = peaks_redis[2].load(Ordering::Relaxed);
    out.pending = peaks_redis[3].load(Ordering::Relaxed);
    out
}

/// The runs to measure: every lab the registry says runs live, with the heaviest preset we
/// know of (`all`: its defaults, every preset it has a live run for, and the cache lab with
/// a stale start and with no layers).
fn runs(all: bool) -> Vec<(String, Box<dyn LiveDriver>)> {
    let heaviest = |id: &str| match id {
        "lock" => "preset=pause",
        "streams" => "preset=crash",
        "broadcast" => "preset=outage",
        _ => "",
    };
    let mut v: Vec<(String, Box<dyn LiveDriver>)> = Vec::new();
    for lab in registry::LABS {
        let info = lab.info();
        if !info.live {
            continue;
        }
        let mut queries: Vec<String> = vec![heaviest(info.id).to_string()];
        if all {
            queries = std::iter::once(String::new())
                .chain(info.presets.iter().map(|p| format!("preset={}", p.id)))
                .collect();
            if info.id == "cache" {
                queries.push("start=stale".into());
                queries.push(
                    "singleflight=off&lock=off&poll=off&rescue=off&heartbeat=off&recheck=off"
                        .into(),
                );
            }
        }
        for q in queries {
            let (p, e) = Params::from_query(info, &q);
            assert!(e.is_empty(), "{} {q}: {e:?}", info.id);
            let job = Job::new(info, &p).scaled(1);
            // A preset may have no live run (the broadcast lab's naive loop).
            if let Some(run) = lab.live(&job, &p) {
                let name = if q.is_empty() { "defaults" } else { &q };
                v.push((format!("{} {name}", info.id), run));
            }
        }
    }
    assert!(v.len() >= 4, "every live lab has a run to measure");
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_live_lab_stays_far_inside_every_limit() {
    let all = std::env::var("REDISLAB_FOOTPRINT_ALL").is_ok_and(|v| v == "1");
    let redis = RedisServer::start();
    let cfg = Config::new(redis.url());
    let (l, rate, max_keys, budget, max_reply) = (
        cfg.limits,
        u64::from(cfg.rate_per_sec),
        cfg.max_keys as u64,
        cfg.session_bytes,
        cfg.max_reply_bytes,
    );
    let in_flight = cfg.max_in_flight;
    let proxy = Proxy::start(cfg).await;
    let mut worst = Peaks::default();
    eprintln!(
        "{:<26} {:>5} {:>5} {:>6} {:>6} {:>4} {:>5} {:>6} {:>4} {:>7} {:>8} {:>7}",
        "run",
        "cmds",
        "words",
        "msg B",
        "reply",
        "infl",
        "cmd/s",
        "COUNT",
        "keys",
        "elems",
        "mem B",
        "pending"
    );
    for (name, mut run) in runs(all) {
        let mut ws = proxy.connect().await;
        let p = measured(&mut ws, run.as_mut(), &redis.url()).await;
        eprintln!(
            "{:<26} {:>5} {:>5} {:>6} {:>6} {:>4} {:>5} {:>6} {:>4} {:>7} {:>8} {:>7}",
            name,
            p.commands,
            p.words,
            p.message_bytes,
            p.reply_bytes,
            p.in_flight,
            p.per_second,
            p.count,
            p.keys,
            p.elements,
            p.memory,
            p.pending
        );
        assert!(p.errors.is_empty(), "{name}: {:?}", p.errors);
        worst.words = worst.words.max(p.words);
        worst.message_bytes = worst.message_bytes.max(p.message_bytes);
        worst.reply_bytes = worst.reply_bytes.max(p.reply_bytes);
        worst.in_flight = worst.in_flight.max(p.in_flight);
        worst.per_second = worst.per_second.max(p.per_second);
        worst.count = worst.count.max(p.count);
        worst.keys = worst.keys.max(p.keys);
        worst.elements = worst.elements.max(p.elements);
        worst.memory = worst.memory.max(p.memory);
        worst.pending = worst.pending.max(p.pending);
        drop(ws);
    }
    // The sustained rate: within the limit (a burst of twice as much is allowed on top).
    eprintln!("commands a second: at most {} of {rate}", worst.per_second);
    assert!(
        worst.per_second <= rate,
        "{} commands a second",
        worst.per_second
    );
    // Every other measure at most half its limit (most far less: see the README).
    let margins = [
        ("words", worst.words as u64, l.max_args as u64),
        ("message bytes", worst.message_bytes as u64, 64 * 1024),
        ("reply bytes", worst.reply_bytes as u64, max_reply as u64),
        ("in flight", worst.in_flight as u64, in_flight as u64),
        ("keys", worst.keys, max_keys),
        ("elements of a key", worst.elements, l.max_elements),
        ("memory in Redis", worst.memory, budget),
        ("pending entries", worst.pending, l.max_pending),
    ];
    for (what, got, cap) in margins {
        eprintln!("{what}: at most {got} of {cap}");
        assert!(2 * got <= cap, "{what}: {got} of {cap}");
    }
    // A COUNT the streams lab asks for may be as big as its field allows (10,000): the
    // proxy's cap is as big, and the pending cap clamps what it delivers.
    assert!(worst.count <= l.max_count, "COUNT {}", worst.count);
}
