//! Run with
//! `cargo run --release -p redislab-proxy -- --redis redis://127.0.0.1:6379 --listen 127.0.0.1:8080`
//! (after `cargo xtask build`, which puts the app in `dist/`).
//!
//! Options: `--redis URL` (default redis://127.0.0.1:6379; repeated, or a comma list: the
//! nodes of a Redis Cluster), `--cluster` (a cluster even with one node named), `--listen ADDR` (default
//! 127.0.0.1:8080), `--dist DIR` (default dist), `--allow-origin URL` (repeatable), and the
//! limits (`--help`; the crate's README says what each bounds). Logs follow `RUST_LOG`
//! (default `redislab_proxy=info`); a Redis URL's password never reaches them.

use redislab_proxy::{redact, AppState, Config};
use std::net::SocketAddr;
use std::time::Duration;
use tracing_subscriber::EnvFilter;

const USAGE: &str =
    "usage: redislab-proxy [--redis URL[,URL...]]... [--cluster] [--listen ADDR] [--dist DIR] \
[--allow-origin URL]... [--max-connections N] [--max-sessions-per-address N] [--address-rate N] [--busy-frames-per-s N] [--new-sessions-per-s N] \
[--client-ip-header NAME] [--rate N] [--timeout-ms N] [--idle-timeout-s N] [--max-session-s N] \
[--session-kb N] [--max-keys N] [--max-blocking N] [--reply-budget-mb N] [--session-grace-s N] \
[--heavy-per-s N] [--heartbeat-ms N] [--class-max-students N] [--class-hours N] \
[--class-joins-per-address N] [--class-answers-per-address N]";

fn parse_args() -> Result<(Config, SocketAddr), String> {
    let mut cfg = Config::new("redis://127.0.0.1:6379");
    let mut listen: SocketAddr = "127.0.0.1:8080".parse().expect("a valid address");
    let mut args = std::env::args().skip(1);
    let mut nodes: Vec<String> = Vec::new();
    while let Some(flag) = args.next() {
        if flag == "-h" || flag == "--help" {
            println!("{USAGE}");
            std::process::exit(0);
        }
        if flag == "--cluster" {
            cfg.cluster = true;
            continue;
        }
        let value = args
            .next()
            .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
        let num = |v: &str| {
            v.parse::<u64>()
                .map_err(|_| format!("{flag} takes a number, not `{v}`"))
        };
        match flag.as_str() {
            "--redis" => {
                let before = nodes.len();
                nodes.extend(
                    value
                        .split(',')
                        .map(str::trim)
                        .filter(|u| !u.is_empty())
                        .map(String::from),
                );
                if nodes.len() == before {
                    return Err(format!("--redis takes a Redis URL, not `{value}`\n{USAGE}"));
                }
            }
            "--listen" => {
                listen = value
                    .parse()
                    .map_err(|_| format!("--listen takes ip:port, not `{value}`"))?
            }
            "--dist" => cfg.dist = value.into(),
            "--allow-origin" => cfg.allow_origins.push(value),
            "--max-connections" => cfg.max_connections = num(&value)? as usize,
            "--rate" => {
                cfg.rate_per_sec = num(&value)? as u32;
                cfg.burst = cfg.rate_per_sec.saturating_mul(2);
            }
            "--timeout-ms" => cfg.timeout = Duration::from_millis(num(&value)?),
            "--idle-timeout-s" => cfg.idle_timeout = Duration::from_secs(num(&value)?),
            "--max-sessions-per-address" => cfg.max_sessions_per_address = num(&value)? as usize,
            "--address-rate" => {
                cfg.address_rate = num(&value)? as u32;
                cfg.address_burst = cfg.address_rate;
            }
            "--busy-frames-per-s" => {
                cfg.frames_per_sec = num(&value)? as u32;
                cfg.frames_burst = cfg.frames_per_sec / 4;
            }
            "--new-sessions-per-s" => {
                cfg.new_sessions_per_sec = num(&value)? as u32;
                cfg.new_sessions_burst = cfg.new_sessions_per_sec.saturating_mul(3);
            }
            "--client-ip-header" => cfg.client_ip_header = Some(value),
            "--max-session-s" => cfg.max_session = Duration::from_secs(num(&value)?),
            "--session-kb" => cfg.session_bytes = num(&value)? * 1024,
            "--max-keys" => cfg.max_keys = num(&value)? as usize,
            "--max-blocking" => cfg.max_blocking = (num(&value)? as usize).max(1),
            "--reply-budget-mb" => cfg.reply_budget = (num(&value)? << 20).max(2 << 20),
            "--session-grace-s" => cfg.session_grace = Duration::from_secs(num(&value)?),
            "--heavy-per-s" => {
                cfg.heavy_per_sec = num(&value)? as u32;
                cfg.heavy_burst = cfg.heavy_per_sec.saturating_mul(2);
            }
            "--heartbeat-ms" => cfg.heartbeat = Duration::from_millis(num(&value)?.max(10)),
            "--class-max-students" => cfg.class.max_students = (num(&value)? as u32).max(1),
            "--class-hours" => {
                cfg.class.max_duration = Duration::from_secs(num(&value)?.clamp(1, 24) * 3600)
            }
            "--class-joins-per-address" => cfg.class.joins_per_address = num(&value)? as u32,
            "--class-answers-per-address" => cfg.class.answers_per_address = num(&value)? as u32,
            _ => return Err(format!("unknown option `{flag}`\n{USAGE}")),
        }
    }
    if !nodes.is_empty() {
        cfg.redis = nodes;
    }
    Ok((cfg, listen))
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| EnvFilter::new("redislab_proxy=info")),
        )
        .init();
    let (mut cfg, listen) = match parse_args() {
        Ok(x) => x,
        Err(e) => {
            eprintln!("redislab-proxy: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    if !cfg.dist.join("index.html").exists() {
        tracing::warn!(dist = %cfg.dist.display(), "no index.html there: build the app first (cargo xtask build); /ws works regardless");
    }
    if let Some(w) = cfg.fit_descriptors() {
        tracing::warn!("{w}");
    }
    let state = match AppState::new(cfg) {
        Ok(s) => s,
        Err(e) => {
            // The library's text never carries the password; say which URL, redacted.
            eprintln!("redislab-proxy: --redis: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match state.start().await {
        Ok(warnings) => {
            for w in warnings {
                tracing::warn!("{w}");
            }
        }
        Err(e) => {
            eprintln!("redislab-proxy: {e}");
            return std::process::ExitCode::FAILURE;
        }
    }
    let listener = match tokio::net::TcpListener::bind(listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("redislab-proxy: cannot listen on {listen}: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    tracing::info!(
        %listen,
        redis = %state.config.redis.iter().map(|u| redact(u)).collect::<Vec<_>>().join(","),
        cluster = state.backend.is_cluster(),
        "serving the app and /ws"
    );
    let st = state.clone();
    let served = axum::serve(
        redislab_proxy::nodelay(listener),
        redislab_proxy::service(state.clone()),
    )
    .with_graceful_shutdown(async move {
        shutdown_signal().await;
        tracing::info!("shutting down: closing sessions");
        st.begin_shutdown();
    })
    .await;
    state.shutdown(Duration::from_secs(10)).await;
    match served {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("redislab-proxy: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
