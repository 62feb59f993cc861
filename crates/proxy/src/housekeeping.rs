//! Nothing left behind, and knowing the server.
//!
//! - **The registry.** A session that writes is entered in `lab:sessions` (a sorted set: its id,
//!   scored with the time until which its proxy vouches for it) before its first write; every
//!   proxy re-vouches for its live sessions every heartbeat. (No client key can name it: a
//!   client key is always `lab:{<id>}:…`.)
//! - **Cleanup** at a session's end: every key it wrote (its tracking set `lab:{<id>}`, read
//!   with SSCAN) gets `PEXPIRE <grace> LT`; tried again with a back-off when it fails; then the
//!   session leaves the registry.
//! - **The sweeper** in every proxy: a session nobody vouches for any more (its proxy was
//!   killed, or its cleanup kept failing) is cleaned up by whichever proxy sees it first (a
//!   lease, `SET lab:sweep:<id> NX PX 60000`, so proxies do not all do the same work).
//! - Whatever happens, every key already carries the session's backstop expiry from the
//!   moment it was written (see `scripts`): the registry makes it go sooner.
//! - **Checks at start** ([`preflight`]): Redis' version (7.0 or later is needed; XAUTOCLAIM
//!   is refused on 7.0.0–7.0.4, CVE-2022-35951/CVE-2022-31144), its `maxclients`,
//!   `client-output-buffer-limit` and `maxmemory` against what the proxy will use, the clock
//!   offset to Redis' `TIME`, and the proxy's scripts loaded.

use crate::backend::Backend;
use crate::protocol::ErrBody;
use crate::scripts;
use crate::AppState;
use redis::Value;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The registry of sessions with keys: id → vouched-for-until (unix ms, Redis' clock).
pub const REGISTRY: &str = "lab:sessions";

/// A sweeper's lease on a dead session's cleanup.
const LEASE: Duration = Duration::from_secs(60);

/// Milliseconds since the epoch on this machine's clock.
pub fn local_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Every key listed in session `id`'s tracking set, and the set itself, expire within
/// `grace` (a shorter TTL is kept: `LT`).
///
/// # Errors
/// The first failure (the caller retries).
pub async fn expire_namespace(backend: &Backend, id: &str, grace: Duration) -> Result<(), ErrBody> {
    let track = format!("lab:{{{id}}}");
    let grace = grace.as_millis() as u64;
    let mut cursor: u64 = 0;
    loop {
        let mut scan = redis::cmd("SSCAN");
        scan.arg(&track).arg(cursor).arg("COUNT").arg(500);
        let (next, keys) = match backend.run(&scan, false).await? {
            Value::Array(mut a) if a.len() == 2 => {
                let keys = match a.pop() {
                    Some(Value::Array(k)) => k,
                    _ => vec![],
                };
                let next = match a.pop() {
                    Some(Value::BulkString(c)) => {
                        std::str::from_utf8(&c).ok().and_then(|c| c.parse().ok())
                    }
                    _ => None,
                };
                (next.unwrap_or(0), keys)
            }
            _ => (0, vec![]),
        };
        if !keys.is_empty() {
            let mut p = redis::pipe();
            for k in keys {
                if let Value::BulkString(k) = k {
                    p.cmd("PEXPIRE").arg(k).arg(grace).arg("LT").ignore();
                }
            }
            backend.pipe(&p).await?;
        }
        cursor = next;
        if cursor == 0 {
            break;
        }
    }
    let mut p = redis::cmd("PEXPIRE");
    p.arg(&track).arg(grace).arg("LT");
    backend.run(&p, true).await?;
    Ok(())
}

/// A session's end: its keys expire within the grace (tried again with a back-off, for up
/// to about ten seconds), then it leaves the registry. When every try fails it stays in the
/// registry, unvouched: a sweeper will clean up once its last vouch runs out.
pub async fn cleanup(state: &AppState, id: &str) {
    state.registry.lock().expect("not poisoned").remove(id);
    let grace = state.config.session_grace;
    for (attempt, pause) in [0u64, 500, 2000, 5000].into_iter().enumerate() {
        tokio::time::sleep(Duration::from_millis(pause)).await;
        match expire_namespace(&state.backend, id, grace).await {
            Ok(()) => {
                let mut z = redis::cmd("ZREM");
                z.arg(REGISTRY).arg(id);
                let _ = state.backend.run(&z, true).await;
                return;
            }
            Err(e) => {
                state.cleanup_failures.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(
                    attempt = attempt + 1,
                    error = %e.message,
                    "could not set the expiry of a closed session's keys; trying again"
                )
            }
        }
    }
    tracing::warn!("a closed session's keys keep their backstop expiry; a sweeper will shorten it");
}

/// Vouches for a session that is about to write for the first time (best effort: its keys
/// carry their backstop whatever happens).
pub async fn register(state: &AppState, id: &str) {
    state
        .registry
        .lock()
        .expect("not poisoned")
        .insert(id.to_string());
    let mut p = redis::pipe();
    p.cmd("ZADD")
        .arg(REGISTRY)
        .arg(state.redis_now_ms() + state.vouch_ms())
        .arg(id)
        .ignore();
    registry_expiry(state, &mut p);
    if let Err(e) = state.backend.pipe(&p).await {
        tracing::debug!(error = %e.message, "could not register a session (the heartbeat will)");
    }
}

/// The registry itself expires when no proxy has written to it for as long as any session's
/// keys can live (its entries' keys are gone by then anyway).
fn registry_expiry(state: &AppState, p: &mut redis::Pipeline) {
    let life = state.config.max_session + state.config.session_grace;
    p.cmd("PEXPIRE")
        .arg(REGISTRY)
        .arg(life.as_millis() as u64)
        .ignore();
}

/// One heartbeat: vouch for this proxy's live sessions, sweep the dead ones, refresh the
/// clock offset (and finish the checks at start if Redis was down then).
pub async fn tick(state: &AppState) {
    state.forget_idle_addresses();
    if state.version().is_none() {
        match check_server(state).await {
            Ok(warnings) if state.version().is_some() => {
                for w in warnings {
                    tracing::warn!("{w}");
                }
            }
            Ok(_) => {}
            Err(e) => tracing::error!("{e}"),
        }
    } else {
        refresh_clock(state).await;
    }
    let live: Vec<String> = state
        .registry
        .lock()
        .expect("not poisoned")
        .iter()
        .cloned()
        .collect();
    let until = state.redis_now_ms() + state.vouch_ms();
    for chunk in live.chunks(500) {
        let mut p = redis::pipe();
        let z = p.cmd("ZADD").arg(REGISTRY);
        for id in chunk {
            z.arg(until).arg(id);
        }
        z.ignore();
        registry_expiry(state, &mut p);
        if let Err(e) = state.backend.pipe(&p).await {
            tracing::warn!(error = %e.message, "could not vouch for the live sessions");
        }
    }
    if let Err(e) = sweep(state).await {
        tracing::debug!(error = %e.message, "sweep failed; next heartbeat");
    }
}

/// Cleans up sessions no proxy vouches for any more (at most 100 a heartbeat).
///
/// # Errors
/// When Redis fails; what was not done is found again at the next heartbeat.
pub async fn sweep(state: &AppState) -> Result<usize, ErrBody> {
    let now = state.redis_now_ms();
    let mut q = redis::cmd("ZRANGEBYSCORE");
    q.arg(REGISTRY)
        .arg("-inf")
        .arg(now)
        .arg("LIMIT")
        .arg(0)
        .arg(100);
    let dead: Vec<String> = match state.backend.run(&q, false).await? {
        Value::Array(a) => a
            .into_iter()
            .filter_map(|v| match v {
                Value::BulkString(b) => String::from_utf8(b).ok(),
                _ => None,
            })
            .filter(|id| id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()))
            .collect(),
        _ => vec![],
    };
    let mut swept = 0;
    for id in dead {
        if state.registry.lock().expect("not poisoned").contains(&id) {
            continue; // ours and alive: the vouch failed, not the session
        }
        // The lease: one proxy does it (the others skip it for a minute).
        let mut lease = redis::cmd("SET");
        lease
            .arg(format!("lab:sweep:{id}"))
            .arg(1)
            .arg("NX")
            .arg("PX")
            .arg(LEASE.as_millis() as u64);
        if !matches!(state.backend.run(&lease, true).await?, Value::Okay) {
            continue;
        }
        expire_namespace(&state.backend, &id, state.config.session_grace).await?;
        let mut z = redis::cmd("ZREM");
        z.arg(REGISTRY).arg(&id);
        state.backend.run(&z, true).await?;
        state.swept.fetch_add(1, Ordering::Relaxed);
        tracing::info!("swept the keys of a session no proxy vouches for");
        swept += 1;
    }
    Ok(swept)
}

/// Runs [`tick`] every heartbeat until the proxy shuts down.
pub fn spawn(state: Arc<AppState>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut shutdown = state.shutdown.subscribe();
        let beat = state.config.heartbeat;
        let mut every = tokio::time::interval_at(tokio::time::Instant::now() + beat, beat);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let stop = tokio::select! {
                _ = every.tick() => false,
                _ = shutdown.wait_for(|v| *v) => true,
            };
            if stop {
                return;
            }
            tick(&state).await;
        }
    })
}

async fn refresh_clock(state: &AppState) {
    let t0 = local_ms();
    if let Ok(Value::Array(a)) = state.backend.run(&redis::cmd("TIME"), false).await {
        let t1 = local_ms();
        let num = |v: &Value| match v {
            Value::BulkString(b) => std::str::from_utf8(b).ok()?.parse::<i64>().ok(),
            _ => None,
        };
        if let (Some(s), Some(us)) = (a.first().and_then(num), a.get(1).and_then(num)) {
            let redis_ms = s * 1000 + us / 1000;
            state
                .clock_offset
                .store(redis_ms - (t0 + t1) / 2, Ordering::Relaxed);
        }
    }
}

/// `major.minor.patch` of `INFO server`'s text.
pub fn parse_version(info: &str) -> Option<(u32, u32, u32)> {
    let v = info
        .lines()
        .find_map(|l| l.strip_prefix("redis_version:"))?
        .trim();
    let mut it = v.split('.').map(|x| x.parse::<u32>().ok());
    Some((it.next()??, it.next()??, it.next().flatten().unwrap_or(0)))
}

/// The `normal` class of `client-output-buffer-limit` (hard, soft bytes).
pub fn normal_buffer_limit(conf: &str) -> Option<(u64, u64)> {
    let w: Vec<&str> = conf.split_whitespace().collect();
    let i = w.iter().position(|x| *x == "normal")?;
    let num = |s: &str| -> Option<u64> {
        let s = s.to_ascii_lowercase();
        let (n, mul) = if let Some(n) = s.strip_suffix("gb") {
            (n.to_string(), 1 << 30)
        } else if let Some(n) = s.strip_suffix("mb") {
            (n.to_string(), 1 << 20)
        } else if let Some(n) = s.strip_suffix("kb") {
            (n.to_string(), 1 << 10)
        } else {
            (s, 1)
        };
        n.parse::<u64>().ok().map(|n| n * mul)
    };
    Some((num(w.get(i + 1)?)?, num(w.get(i + 2)?)?))
}

async fn config_get(c: &mut redis::aio::MultiplexedConnection, name: &str) -> Option<String> {
    let v: Value = redis::cmd("CONFIG")
        .arg("GET")
        .arg(name)
        .query_async(c)
        .await
        .ok()?;
    match v {
        Value::Array(a) => match a.get(1) {
            Some(Value::BulkString(b)) => String::from_utf8(b.clone()).ok(),
            _ => None,
        },
        Value::Map(m) => match m.first() {
            Some((_, Value::BulkString(b))) => String::from_utf8(b.clone()).ok(),
            _ => None,
        },
        _ => None,
    }
}

async fn info(c: &mut redis::aio::MultiplexedConnection, section: &str) -> Option<String> {
    redis::cmd("INFO")
        .arg(section)
        .query_async::<String>(c)
        .await
        .ok()
}

/// The checks at start, on every seed node that answers: the version, the limits Redis
/// itself sets, the clock, the proxy's scripts. Returns the warnings to log.
///
/// # Errors
/// A Redis older than 7.0 (the proxy needs PEXPIRETIME and EXPIRE's NX/LT).
pub async fn check_server(state: &AppState) -> Result<Vec<String>, String> {
    let cfg = &state.config;
    let mut warnings = Vec::new();
    let mut oldest: Option<(u32, u32, u32)> = None;
    let conns = state.backend.seed_connections().await;
    let total = conns.len();
    for (i, conn) in conns.into_iter().enumerate() {
        let node = if total > 1 {
            format!("seed node {}", i + 1)
        } else {
            "Redis".to_string()
        };
        let mut c = match conn {
            Ok(c) => c,
            Err(e) => {
                tracing::debug!(error = %e, "check at start");
                warnings.push(format!(
                    "{node} does not answer yet; the checks run again at every heartbeat \
                     (XAUTOCLAIM is refused until the version is known)"
                ));
                continue;
            }
        };
        if let Some(v) = info(&mut c, "server")
            .await
            .as_deref()
            .and_then(parse_version)
        {
            oldest = Some(oldest.map_or(v, |o: (u32, u32, u32)| o.min(v)));
        }
        if let (Some(max), Some(clients)) = (
            config_get(&mut c, "maxclients")
                .await
                .and_then(|m| m.parse::<u64>().ok()),
            info(&mut c, "clients").await,
        ) {
            let connected = clients
                .lines()
                .find_map(|l| l.strip_prefix("connected_clients:"))
                .and_then(|n| n.trim().parse::<u64>().ok())
                .unwrap_or(0);
            let ours = cfg.max_blocking as u64 + 2;
            if max.saturating_sub(connected) < ours {
                warnings.push(format!(
                    "{node}: maxclients {max} with {connected} connected leaves less than the \
                     {ours} connections this proxy may open (its shared one and up to \
                     --max-blocking {} for blocking reads); raise maxclients or lower \
                     --max-blocking, or blocking reads will fail when it is full",
                    cfg.max_blocking
                ));
            }
        } else {
            warnings.push(format!(
                "{node}: could not read maxclients (CONFIG GET refused?); not checked"
            ));
        }
        let need = state.config.reply_budget + 8 * 1024 * 1024;
        match config_get(&mut c, "client-output-buffer-limit")
            .await
            .as_deref()
            .and_then(normal_buffer_limit)
        {
            Some((0, 0)) => warnings.push(format!(
                "{node}: client-output-buffer-limit for normal clients is `0 0 0` (none): a \
                 client that reads slowly can make Redis hold its replies without bound. The \
                 proxy bounds its own ({} MiB of replies on their way at most), so \
                 `CONFIG SET client-output-buffer-limit \"normal {}mb {}mb 60\"` protects \
                 Redis from other clients without ever cutting the proxy's connection",
                cfg.reply_budget >> 20,
                (need >> 20) * 2,
                need >> 20
            )),
            Some((hard, soft)) if (hard > 0 && hard < need) || (soft > 0 && soft < need) => {
                warnings.push(format!(
                    "{node}: client-output-buffer-limit for normal clients ({hard} {soft}) is \
                     below what the proxy may have on its way ({need} bytes): Redis could close \
                     its shared connection (every session's requests in flight would fail); \
                     raise it, or lower --reply-budget-mb"
                ))
            }
            Some(_) => {}
            None => warnings.push(format!(
                "{node}: could not read client-output-buffer-limit; not checked"
            )),
        }
        if config_get(&mut c, "maxmemory").await.as_deref() == Some("0") {
            warnings.push(format!(
                "{node}: no maxmemory. The proxy bounds each session's data ({} KiB at most), \
                 so {} sessions hold at most about {} MiB; set maxmemory above that",
                cfg.session_bytes >> 10,
                cfg.max_connections,
                (cfg.session_bytes * cfg.max_connections as u64) >> 20
            ));
        }
        for s in scripts::all() {
            let _: Result<Value, _> = redis::cmd("SCRIPT")
                .arg("LOAD")
                .arg(s.source)
                .query_async(&mut c)
                .await;
        }
    }
    refresh_clock(state).await;
    if let Some(v) = oldest {
        if v < (7, 0, 0) {
            return Err(format!(
                "Redis {}.{}.{} is too old: server mode needs Redis 7.0 or later (PEXPIRETIME, \
                 EXPIRE … NX/LT)",
                v.0, v.1, v.2
            ));
        }
        if v < (7, 0, 5) {
            warnings.push(format!(
                "Redis {}.{}.{} has known XAUTOCLAIM vulnerabilities (CVE-2022-31144, \
                 CVE-2022-35951): XAUTOCLAIM is refused; upgrade to 7.0.5 or later",
                v.0, v.1, v.2
            ));
        }
        let _ = state.version.set(v);
    }
    Ok(warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_and_buffer_limits_read() {
        assert_eq!(
            parse_version("# Server\r\nredis_version:7.0.15\r\nredis_git_sha1:0\r\n"),
            Some((7, 0, 15))
        );
        assert_eq!(parse_version("redis_version:6.2\r\n"), Some((6, 2, 0)));
        assert_eq!(parse_version("nothing"), None);
        assert_eq!(
            normal_buffer_limit(
                "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"
            ),
            Some((0, 0))
        );
        assert_eq!(
            normal_buffer_limit("normal 256mb 64mb 60 replica 256mb 64mb 60"),
            Some((256 << 20, 64 << 20))
        );
    }
}
