//! The Redis side: one shared connection for ordinary commands — a `ConnectionManager` to one
//! Redis, or the `redis` crate's cluster client to a Redis Cluster — that reconnects by
//! itself and never resends a command; a dedicated connection per session for blocking
//! reads; EVALSHA with a reload on NOSCRIPT; deadlines; and the mapping of every failure to
//! a protocol error code.
//!
//! On a cluster, every key of a session is `lab:{<id>}:…` — one hash tag, so one slot, so one
//! node: each command (multi-key ones and scripts too) goes to that node. The cluster client
//! is built with no retries of its own, because it would resend a command after a broken
//! connection (a write whose outcome is unknown must never be retried); the proxy itself
//! follows a `MOVED` redirect once (a `MOVED` reply means the command did not run there).
//!
//! Replies become the simulator's [`Reply`], so the proxy's JSON is exactly the JSON of
//! `labsim redis` ([`Reply::to_json`]).

use crate::protocol::{Code, ErrBody};
use redis::aio::{ConnectionManager, ConnectionManagerConfig, MultiplexedConnection};
use redis::cluster::{ClusterClient, ClusterClientBuilder};
use redis::cluster_async::ClusterConnection;
use redis::cluster_routing::{RoutingInfo, SingleNodeRoutingInfo};
use redis::io::tcp::TcpSettings;
use redis::{
    AsyncConnectionConfig, Cmd, ConnectionAddr, ErrorKind, RedisError, RedisResult,
    ServerErrorKind, Value,
};
use redislab_sim::redis::Script;
use redislab_sim::Reply;
use std::borrow::Cow;
use std::future::Future;
use std::time::Duration;
use tokio::sync::OnceCell;

/// The shared connection: to one Redis, or to a cluster.
#[derive(Clone)]
enum Shared {
    Single(ConnectionManager),
    Cluster(ClusterConnection),
}

/// `host:port` of a `MOVED` redirect: the command did not run; that node owns the slot.
fn moved(e: &RedisError) -> Option<(String, u16)> {
    if e.kind() != ErrorKind::Server(ServerErrorKind::Moved) {
        return None;
    }
    let (addr, _slot) = e.redirect_node()?;
    let (host, port) = addr.rsplit_once(':')?;
    Some((
        host.trim_matches(['[', ']']).to_string(),
        port.parse().ok()?,
    ))
}

fn by_address((host, port): (String, u16)) -> RoutingInfo {
    RoutingInfo::SingleNode(SingleNodeRoutingInfo::ByAddress { host, port })
}

impl Shared {
    async fn query(&mut self, cmd: &Cmd) -> RedisResult<Value> {
        match self {
            Shared::Single(c) => cmd.query_async(c).await,
            Shared::Cluster(c) => match cmd.query_async::<Value>(c).await {
                Err(e) => match moved(&e) {
                    // Routed by hand, an error reply comes back as a value: make it an
                    // error, as `query_async` does (NOSCRIPT must be seen by `script`).
                    Some(node) => match c.route_command(cmd.clone(), by_address(node)).await? {
                        Value::ServerError(e) => Err(e.into()),
                        v => Ok(v),
                    },
                    None => Err(e),
                },
                ok => ok,
            },
        }
    }

    /// A pipeline's replies, one per command (after a followed `MOVED`, `ignore()`d ones
    /// included).
    async fn pipe(&mut self, p: &redis::Pipeline) -> RedisResult<Value> {
        match self {
            Shared::Single(c) => p.query_async(c).await,
            Shared::Cluster(c) => match p.query_async::<Value>(c).await {
                Err(e) => match moved(&e) {
                    Some((host, port)) => c
                        .route_pipeline(
                            p.clone(),
                            0,
                            p.len(),
                            SingleNodeRoutingInfo::ByAddress { host, port },
                        )
                        .await
                        .map(Value::Array),
                    None => Err(e),
                },
                ok => ok,
            },
        }
    }
}

/// TCP_NODELAY on every connection to Redis: a command is one small write, and with Nagle's
/// algorithm a command written while an earlier one is unacknowledged would wait for the ACK.
fn tcp_settings() -> TcpSettings {
    TcpSettings::default().set_nodelay(true)
}

/// A client for the Redis at `url`, its connections with [`tcp_settings`].
fn open(url: &str) -> Result<redis::Client, RedisError> {
    let info = redis::Client::open(url)?
        .get_connection_info()
        .clone()
        .set_tcp_settings(tcp_settings());
    redis::Client::open(info)
}

/// Connections to one Redis or to a Redis Cluster.
pub struct Backend {
    /// One Redis; on a cluster, the first seed node (its address and credentials are where
    /// a session's own connection starts).
    client: redis::Client,
    /// The other seed nodes (a cluster only).
    seeds: Vec<redis::Client>,
    cluster: Option<ClusterClient>,
    shared: OnceCell<Shared>,
    timeout: Duration,
}

impl Backend {
    /// A backend for one Redis at `url`; nothing is connected until the first request, so
    /// the proxy starts (and serves the app) while Redis is down.
    ///
    /// # Errors
    /// When the URL is not a Redis URL.
    pub fn new(url: &str, timeout: Duration) -> Result<Self, RedisError> {
        Self::with_nodes(&[url.to_string()], false, timeout)
    }

    /// A backend for `urls`: one Redis, or — when `cluster` or when there are several — the
    /// nodes of a Redis Cluster to start from (the client learns the others from them).
    ///
    /// # Errors
    /// When a URL is not a Redis URL, or there is none.
    pub fn with_nodes(
        urls: &[String],
        cluster: bool,
        timeout: Duration,
    ) -> Result<Self, RedisError> {
        let clients = urls
            .iter()
            .map(|u| open(u))
            .collect::<Result<Vec<_>, _>>()?;
        let mut clients = clients.into_iter();
        let client = clients.next().ok_or_else(|| {
            RedisError::from((ErrorKind::InvalidClientConfig, "no Redis URL given"))
        })?;
        let cluster = (cluster || urls.len() > 1)
            .then(|| {
                ClusterClientBuilder::new(urls.iter().map(String::as_str))
                    // Never resend: after a broken connection a write may have happened.
                    // MOVED is followed by `Shared` (it never ran).
                    .retries(0)
                    .tcp_settings(tcp_settings())
                    .connection_timeout(Duration::from_millis(500))
                    .response_timeout(timeout + Duration::from_secs(1))
                    .build()
            })
            .transpose()?;
        Ok(Backend {
            client,
            seeds: clients.collect(),
            cluster,
            shared: OnceCell::new(),
            timeout,
        })
    }

    /// Whether the backend is a Redis Cluster.
    pub fn is_cluster(&self) -> bool {
        self.cluster.is_some()
    }

    /// The shared connection, made on first use (a failed attempt is retried by the next
    /// request).
    async fn shared(&self) -> Result<Shared, RedisError> {
        self.shared
            .get_or_try_init(|| async {
                if let Some(cluster) = &self.cluster {
                    return cluster.get_async_connection().await.map(Shared::Cluster);
                }
                let cfg = ConnectionManagerConfig::new()
                    // Fail fast while Redis is down (UNAVAILABLE) rather than hold requests
                    // for seconds of reconnect attempts; the next request starts a new one.
                    .set_number_of_retries(1)
                    .set_min_delay(Duration::from_millis(50))
                    .set_max_delay(Duration::from_millis(200))
                    .set_connection_timeout(Some(Duration::from_millis(500)))
                    // Our own deadline (tokio::time::timeout) decides TIMEOUT; a backstop.
                    .set_response_timeout(Some(self.timeout + Duration::from_secs(1)));
                ConnectionManager::new_with_config(self.client.clone(), cfg)
                    .await
                    .map(Shared::Single)
            })
            .await
            .cloned()
    }

    /// A new connection of a session's own, for blocking reads (no response timeout: the
    /// caller's deadline covers the bounded block time): to the Redis, or to the cluster
    /// node `to` (or, not knowing it yet, the first seed node that answers).
    async fn dedicated(
        &self,
        to: Option<(String, u16)>,
    ) -> Result<MultiplexedConnection, RedisError> {
        let cfg = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(Duration::from_millis(500)))
            .set_response_timeout(None);
        if let Some((host, port)) = to {
            let info = self
                .client
                .get_connection_info()
                .clone()
                .set_addr(ConnectionAddr::Tcp(host, port));
            return redis::Client::open(info)?
                .get_multiplexed_async_connection_with_config(&cfg)
                .await;
        }
        let mut last = None;
        for c in std::iter::once(&self.client).chain(&self.seeds) {
            match c.get_multiplexed_async_connection_with_config(&cfg).await {
                Ok(conn) => return Ok(conn),
                Err(e) => last = Some(e),
            }
        }
        Err(last.expect("at least one node"))
    }

    /// Runs one command on the shared connection within the deadline.
    ///
    /// # Errors
    /// The protocol error for the failure (see [`classify`]).
    pub async fn run(&self, cmd: &Cmd, write: bool) -> Result<Reply, ErrBody> {
        deadline(self.timeout, write, async {
            self.shared().await?.query(cmd).await
        })
        .await
    }

    /// Runs commands pipelined (not atomically) on the shared connection; for bookkeeping.
    /// On a cluster all of them must be in one slot (a session's are).
    ///
    /// # Errors
    /// When the pipeline fails.
    pub async fn pipe(&self, p: &redis::Pipeline) -> Result<(), ErrBody> {
        deadline(self.timeout, true, async {
            self.shared().await?.pipe(p).await
        })
        .await
        .map(|_| ())
    }

    /// Runs a named script: EVALSHA, and on NOSCRIPT (the script never ran) SCRIPT LOAD and
    /// EVALSHA once more, pipelined — so on a cluster both go to the node that owns the keys'
    /// slot (the pipeline is routed by EVALSHA's keys; SCRIPT LOAD has none).
    ///
    /// # Errors
    /// As [`Backend::run`].
    pub async fn script(
        &self,
        s: &Script,
        keys: &[Vec<u8>],
        args: &[String],
    ) -> Result<Reply, ErrBody> {
        let mut evalsha = redis::cmd("EVALSHA");
        evalsha.arg(s.sha1).arg(keys.len());
        for k in keys {
            evalsha.arg(k.as_slice());
        }
        for a in args {
            evalsha.arg(a.as_str());
        }
        deadline(self.timeout, true, async {
            let mut c = self.shared().await?;
            match c.query(&evalsha).await {
                Err(e) if e.kind() == ErrorKind::Server(ServerErrorKind::NoScript) => {
                    let mut p = redis::pipe();
                    p.ignore_errors();
                    p.cmd("SCRIPT").arg("LOAD").arg(s.source);
                    p.add_command(evalsha.clone());
                    // [SHA1 or an error, EVALSHA's reply]
                    match c.pipe(&p).await? {
                        Value::Array(mut v) if v.len() == 2 => Ok(v.remove(1)),
                        other => Ok(other),
                    }
                }
                other => other,
            }
        })
        .await
    }

    /// Runs a blocking read on a session's own connection `conn` (made if there is none)
    /// within `block + timeout`. On a cluster, the connection goes to the node that owns the
    /// session's slot: a `MOVED` reply (the read did not run) moves it there, and the read
    /// is sent once more.
    ///
    /// # Errors
    /// As [`Backend::run`]; the caller drops `conn` after any error but Redis' own.
    pub async fn run_blocking(
        &self,
        conn: &mut Option<MultiplexedConnection>,
        cmd: &Cmd,
        block: Duration,
    ) -> Result<Reply, ErrBody> {
        if conn.is_none() {
            *conn = Some(
                self.dedicated(None)
                    .await
                    .map_err(|e| classify(&e, false))?,
            );
        }
        deadline(block + self.timeout, true, async {
            let c = conn.as_mut().expect("just made");
            match cmd.query_async::<Value>(c).await {
                Err(e) if self.is_cluster() => match moved(&e) {
                    Some(node) => {
                        *conn = None;
                        let mut fresh = self.dedicated(Some(node)).await?;
                        let r = cmd.query_async::<Value>(&mut fresh).await;
                        *conn = Some(fresh);
                        r
                    }
                    None => Err(e),
                },
                other => other,
            }
        })
        .await
    }
}

/// The cluster slot of a key (CRC16/XMODEM of its hash tag — the part between the first `{`
/// and the next `}` when that is not empty — or of the whole key, modulo 16384), as
/// `CLUSTER KEYSLOT` computes it.
pub fn key_slot(key: &[u8]) -> u16 {
    let tagged = key.iter().position(|&b| b == b'{').and_then(|open| {
        let rest = &key[open + 1..];
        let close = rest.iter().position(|&b| b == b'}')?;
        (close > 0).then(|| &rest[..close])
    });
    let mut crc: u16 = 0;
    for &b in tagged.unwrap_or(key) {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc % 16384
}

async fn deadline(
    d: Duration,
    write: bool,
    f: impl Future<Output = Result<Value, RedisError>>,
) -> Result<Reply, ErrBody> {
    match tokio::time::timeout(d, f).await {
        Err(_) => Err(ErrBody {
            code: Code::Timeout,
            message: if write {
                format!(
                    "no reply from Redis within {} ms; the write may still happen",
                    d.as_millis()
                )
            } else {
                format!("no reply from Redis within {} ms", d.as_millis())
            },
        }),
        Ok(Ok(Value::ServerError(e))) => Err(redis_err(e.code(), e.details())),
        Ok(Ok(v)) => Ok(to_reply(v)),
        Ok(Err(e)) => Err(classify(&e, write)),
    }
}

fn redis_err(code: &str, detail: Option<&str>) -> ErrBody {
    ErrBody {
        code: Code::Redis,
        message: match detail {
            Some(d) => format!("{code} {d}"),
            None => code.to_string(),
        },
    }
}

/// The protocol error for a failed request. Redis' own error replies are REDIS (with
/// Redis' text); LOADING after a restart, a refused connection and a cluster's redirects
/// and outages (ASK, a second MOVED, TRYAGAIN, CLUSTERDOWN, MASTERDOWN) are UNAVAILABLE
/// (nothing ran); a timeout is TIMEOUT; any other failure (the connection lost with the request on
/// the wire) is UNKNOWN_OUTCOME for a write — never retried — and UNAVAILABLE for a read.
pub fn classify(e: &RedisError, write: bool) -> ErrBody {
    let unavailable = |why: String| ErrBody {
        code: Code::Unavailable,
        message: format!("Redis is unavailable: {why}"),
    };
    match e.kind() {
        ErrorKind::Server(ServerErrorKind::BusyLoading) => unavailable(e.to_string()),
        // A cluster that is resharding or failing over refused it before running it.
        ErrorKind::Server(
            ServerErrorKind::Ask
            | ServerErrorKind::Moved
            | ServerErrorKind::TryAgain
            | ServerErrorKind::ClusterDown
            | ServerErrorKind::MasterDown,
        ) => unavailable(format!(
            "the cluster is moving or lost this slot ({e}); try again"
        )),
        ErrorKind::Server(_) | ErrorKind::Extension => {
            redis_err(e.code().unwrap_or("ERR"), e.detail())
        }
        _ if e.is_connection_refusal() => unavailable(e.to_string()),
        _ if e.is_timeout() => ErrBody {
            code: Code::Timeout,
            message: format!("no reply from Redis in time: {e}"),
        },
        _ if write => ErrBody {
            code: Code::UnknownOutcome,
            message: format!(
                "the connection to Redis failed with the write in flight; it may or may not \
                 have happened, and it is not retried: {e}"
            ),
        },
        _ => unavailable(e.to_string()),
    }
}

/// A RESP value as the simulator's reply (RESP3-only types mapped to their RESP2 form).
pub fn to_reply(v: Value) -> Reply {
    match v {
        Value::Nil => Reply::Nil,
        Value::Int(n) => Reply::Integer(n),
        Value::BulkString(b) => Reply::Bulk(b),
        Value::Array(a) | Value::Set(a) => Reply::Array(a.into_iter().map(to_reply).collect()),
        Value::Map(kv) => Reply::Array(
            kv.into_iter()
                .flat_map(|(k, v)| [to_reply(k), to_reply(v)])
                .collect(),
        ),
        Value::SimpleString(s) => Reply::Status(Cow::Owned(s)),
        Value::Okay => Reply::ok(),
        Value::Double(d) => Reply::Bulk(d.to_string().into_bytes()),
        Value::Boolean(b) => Reply::Integer(i64::from(b)),
        Value::VerbatimString { text, .. } => Reply::Bulk(text.into_bytes()),
        Value::BigNumber(n) => Reply::Bulk(n),
        Value::Attribute { data, .. } => to_reply(*data),
        Value::ServerError(e) => Reply::Error(match e.details() {
            Some(d) => format!("{} {d}", e.code()),
            None => e.code().to_string(),
        }),
        _ => Reply::Nil,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_as_cluster_keyslot() {
        // Values from `CLUSTER KEYSLOT` (Redis' cluster spec and its own tests).
        assert_eq!(key_slot(b"123456789"), 0x31C3);
        assert_eq!(key_slot(b"foo"), 12182);
        assert_eq!(key_slot(b"{user1000}.following"), key_slot(b"user1000"));
        assert_eq!(key_slot(b"foo{}{bar}"), key_slot(b"foo{}{bar}"));
        assert_ne!(key_slot(b"foo{}{bar}"), key_slot(b"bar"));
        assert_eq!(key_slot(b"foo{{bar}}zap"), key_slot(b"{bar"));
        // A session's keys and its tracking set share one slot.
        assert_eq!(key_slot(b"lab:{ab12}:lock:x"), key_slot(b"lab:{ab12}"));
    }

    #[test]
    fn values_encode_like_the_simulator() {
        let v = Value::Array(vec![
            Value::Int(3),
            Value::BulkString(b"a\"b".to_vec()),
            Value::Nil,
            Value::Okay,
            Value::SimpleString("PONG".into()),
        ]);
        assert_eq!(
            to_reply(v).to_json().to_string(),
            r#"[3,"a\"b",null,{"status":"OK"},{"status":"PONG"}]"#
        );
        // The same reply built as SimRedis builds it encodes identically.
        let sim = Reply::Array(vec![
            Reply::Integer(3),
            Reply::bulk("a\"b"),
            Reply::Nil,
            Reply::ok(),
            Reply::Status("PONG".into()),
        ]);
        assert_eq!(
            to_reply(Value::Array(vec![
                Value::Int(3),
                Value::BulkString(b"a\"b".to_vec()),
                Value::Nil,
                Value::Okay,
                Value::SimpleString("PONG".into()),
            ])),
            sim
        );
    }
}
