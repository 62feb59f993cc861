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
mod errors;
mod shared;

use errors::deadline;
pub use errors::{classify, key_slot, scrub, server_error, to_reply};
use shared::{moved_value, open, tcp_settings, Shared};

use crate::budget::{Kind, Size};
use crate::protocol::{Code, ErrBody, Limit};
use crate::scripts::{self, ProxyScript};
use redis::aio::{ConnectionManager, ConnectionManagerConfig, MultiplexedConnection};
use redis::cluster::{ClusterClient, ClusterClientBuilder};
use redis::{
    AsyncConnectionConfig, Cmd, ConnectionAddr, ErrorKind, RedisError, ServerErrorKind, Value,
};
use redislab_sim::redis::Script;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{OnceCell, OwnedSemaphorePermit, Semaphore};

/// The bookkeeping that follows a write (the [`scripts::AFTER`] script): the session's
/// tracking set, the write's keys, the backstop, which keys it may create.
pub struct After<'a> {
    pub track: &'a [u8],
    pub keys: &'a [Vec<u8>],
    pub backstop: u64,
    /// One `0`/`1` per key: `1` for a key the write may create.
    pub mask: String,
}

impl After<'_> {
    fn cmd(&self) -> Cmd {
        let mut c = redis::cmd("EVALSHA");
        c.arg(scripts::AFTER.sha1()).arg(1 + self.keys.len());
        c.arg(self.track);
        for k in self.keys {
            c.arg(k.as_slice());
        }
        c.arg(self.backstop).arg(&self.mask);
        c
    }
}

/// The sizes the `after` script reports, one per key.
fn sizes(v: &Value) -> Option<Vec<Size>> {
    let Value::Array(a) = v else { return None };
    let int = |v: &Value| match v {
        Value::Int(n) => u64::try_from(*n).ok(),
        _ => None,
    };
    a.chunks(5)
        .map(|c| {
            let kind = match &c[0] {
                Value::BulkString(t) => Kind::from_type(t),
                Value::SimpleString(t) => Kind::from_type(t.as_bytes()),
                _ => return None,
            };
            Some(Size {
                kind,
                n: int(c.get(1)?)?,
                pending: int(c.get(2)?)?,
                groups: int(c.get(3)?)?,
                consumers: int(c.get(4)?)?,
            })
        })
        .collect()
}

fn is_noscript(v: &Value) -> bool {
    matches!(v, Value::ServerError(e) if e.kind() == Some(ServerErrorKind::NoScript))
}

/// A connection a blocking read has borrowed (one server-wide permit with it). Given back
/// with [`Backend::give_back`] when it is clean; dropped (closed) otherwise.
pub struct Lease {
    conn: Option<MultiplexedConnection>,
    /// The node it goes to (a cluster: the one that owns the session's slot, once known).
    pub node: Option<(String, u16)>,
    _permit: OwnedSemaphorePermit,
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
    /// A second shared connection for heavy reads (one Redis only): a big reply never holds
    /// up the light requests behind it on the wire or in the parser.
    heavy: OnceCell<Shared>,
    timeout: Duration,
    /// Connections for blocking reads between two reads, per node (a few kept warm).
    idle: Mutex<Idle>,
    /// One permit per connection open for blocking reads: the server-wide bound.
    blocking: Arc<Semaphore>,
    max_blocking: usize,
}

/// Connections for blocking reads between two reads, by node (`None`: the one Redis, or
/// a cluster's first seed node that answers).
type Idle = HashMap<Option<(String, u16)>, Vec<MultiplexedConnection>>;

/// Idle connections for blocking reads kept per node.
const KEEP_IDLE: usize = 16;

impl Backend {
    /// A backend for one Redis at `url`; nothing is connected until the first request, so
    /// the proxy starts (and serves the app) while Redis is down.
    ///
    /// # Errors
    /// When the URL is not a Redis URL.
    pub fn new(url: &str, timeout: Duration) -> Result<Self, RedisError> {
        Self::with_nodes(&[url.to_string()], false, timeout, 512)
    }

    /// A backend for `urls`: one Redis, or — when `cluster` or when there are several — the
    /// nodes of a Redis Cluster to start from (the client learns the others from them); at
    /// most `max_blocking` connections open for blocking reads at once.
    ///
    /// # Errors
    /// When a URL is not a Redis URL, or there is none.
    pub fn with_nodes(
        urls: &[String],
        cluster: bool,
        timeout: Duration,
        max_blocking: usize,
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
            heavy: OnceCell::new(),
            timeout,
            idle: Mutex::new(HashMap::new()),
            blocking: Arc::new(Semaphore::new(max_blocking)),
            max_blocking,
        })
    }

    /// Whether the backend is a Redis Cluster.
    pub fn is_cluster(&self) -> bool {
        self.cluster.is_some()
    }

    /// Connections open (or being opened) for blocking reads right now.
    pub fn blocking_open(&self) -> usize {
        self.max_blocking - self.blocking.available_permits()
    }

    /// The seed nodes, each with a plain connection of its own (for the checks at start).
    pub async fn seed_connections(&self) -> Vec<Result<MultiplexedConnection, RedisError>> {
        let cfg = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(Duration::from_millis(1000)))
            .set_response_timeout(Some(self.timeout + Duration::from_secs(1)));
        let mut out = Vec::new();
        for c in std::iter::once(&self.client).chain(&self.seeds) {
            out.push(c.get_multiplexed_async_connection_with_config(&cfg).await);
        }
        out
    }

    /// A new connection for Pub/Sub (class mode's subscriber): to the Redis, or the first
    /// seed node of a cluster that answers — a plain `SUBSCRIBE` on any node of a cluster
    /// hears every `PUBLISH` of the cluster.
    ///
    /// # Errors
    /// When no node answers.
    pub async fn pubsub(&self) -> Result<redis::aio::PubSub, RedisError> {
        let mut last = None;
        for c in std::iter::once(&self.client).chain(&self.seeds) {
            let conn = tokio::time::timeout(Duration::from_millis(1000), c.get_async_pubsub());
            match conn.await {
                Ok(Ok(p)) => return Ok(p),
                Ok(Err(e)) => last = Some(e),
                Err(_) => last = Some(RedisError::from((ErrorKind::Io, "no answer within 1 s"))),
            }
        }
        Err(last.expect("at least one node"))
    }

    /// The shared connection, made on first use (a failed attempt is retried by the next
    /// request).
    async fn shared(&self) -> Result<Shared, RedisError> {
        self.lane(&self.shared).await
    }

    /// The connection for heavy reads (on a cluster, the shared one).
    async fn heavy(&self) -> Result<Shared, RedisError> {
        if self.cluster.is_some() {
            return self.shared().await;
        }
        self.lane(&self.heavy).await
    }

    async fn lane(&self, cell: &OnceCell<Shared>) -> Result<Shared, RedisError> {
        cell.get_or_try_init(|| async {
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

    /// A new connection for blocking reads (no response timeout: the caller's deadline
    /// covers the bounded block time): to the Redis, or to the cluster node `to` (or, not
    /// knowing it yet, the first seed node that answers).
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

    /// Runs one command on the shared connection within the deadline; its reply as Redis
    /// sent it (an error reply is the error).
    ///
    /// # Errors
    /// The protocol error for the failure (see [`classify`]).
    pub async fn run(&self, cmd: &Cmd, write: bool) -> Result<Value, ErrBody> {
        deadline(self.timeout, write, async {
            self.shared().await?.query(cmd).await
        })
        .await
    }

    /// [`Backend::run`] for a read whose reply may be big, on the connection for those.
    ///
    /// # Errors
    /// As [`Backend::run`].
    pub async fn run_heavy(&self, cmd: &Cmd) -> Result<Value, ErrBody> {
        deadline(self.timeout, false, async {
            self.heavy().await?.query(cmd).await
        })
        .await
    }

    /// Runs commands pipelined (not atomically) on the shared connection; for bookkeeping.
    /// On a cluster all of them must be in one slot (a session's are).
    ///
    /// # Errors
    /// When the pipeline fails.
    pub async fn pipe(&self, p: &redis::Pipeline) -> Result<Value, ErrBody> {
        deadline(self.timeout, true, async {
            self.shared().await?.pipe(p).await
        })
        .await
    }

    /// A session's write and its bookkeeping ([`After`]) in one round trip on the shared
    /// connection (`heavy`: on the one for heavy requests, when its reply may be big): the
    /// write's own reply (Redis' error reply as a value) and its keys' sizes.
    ///
    /// # Errors
    /// As [`Backend::run`].
    pub async fn write(
        &self,
        cmd: &Cmd,
        after: &After<'_>,
        heavy: bool,
    ) -> Result<(Value, Option<Vec<Size>>), ErrBody> {
        let mut p = redis::pipe();
        p.ignore_errors();
        p.add_command(cmd.clone());
        p.add_command(after.cmd());
        let v = if heavy {
            deadline(self.timeout, true, async {
                self.heavy().await?.pipe(&p).await
            })
            .await?
        } else {
            self.pipe(&p).await?
        };
        self.then_after(v, after).await
    }

    /// `[reply, after's reply]` → the reply and the sizes; when the `after` script was not
    /// loaded (the write ran), it is loaded and run once more, alone.
    async fn then_after(
        &self,
        v: Value,
        after: &After<'_>,
    ) -> Result<(Value, Option<Vec<Size>>), ErrBody> {
        let (first, second) = match v {
            Value::Array(mut a) if a.len() >= 2 => {
                let second = a.pop().expect("two");
                (a.pop().expect("two"), second)
            }
            other => return Ok((other, None)),
        };
        let second = if is_noscript(&second) {
            let mut p = redis::pipe();
            p.ignore_errors();
            p.cmd("SCRIPT").arg("LOAD").arg(scripts::AFTER.source);
            p.add_command(after.cmd());
            match self.pipe(&p).await {
                Ok(Value::Array(mut a)) if a.len() == 2 => a.pop().expect("two"),
                _ => Value::Nil,
            }
        } else {
            second
        };
        Ok((first, sizes(&second)))
    }

    /// Runs a named script and its bookkeeping: EVALSHA and `after` pipelined; on NOSCRIPT
    /// (the script never ran) SCRIPT LOAD, EVALSHA and `after` once more, pipelined — so on a
    /// cluster all go to the node that owns the keys' slot.
    ///
    /// # Errors
    /// As [`Backend::run`].
    pub async fn script(
        &self,
        s: &Script,
        keys: &[Vec<u8>],
        args: &[String],
        after: &After<'_>,
    ) -> Result<(Value, Option<Vec<Size>>), ErrBody> {
        let mut evalsha = redis::cmd("EVALSHA");
        evalsha.arg(s.sha1).arg(keys.len());
        for k in keys {
            evalsha.arg(k.as_slice());
        }
        for a in args {
            evalsha.arg(a.as_str());
        }
        let mut p = redis::pipe();
        p.ignore_errors();
        p.add_command(evalsha.clone());
        p.add_command(after.cmd());
        let v = self.pipe(&p).await?;
        let ran = match &v {
            Value::Array(a) => !a.first().is_some_and(is_noscript),
            _ => true,
        };
        if ran {
            return self.then_after(v, after).await;
        }
        let mut p = redis::pipe();
        p.ignore_errors();
        p.cmd("SCRIPT").arg("LOAD").arg(s.source);
        p.add_command(evalsha);
        p.add_command(after.cmd());
        match self.pipe(&p).await? {
            Value::Array(mut a) if a.len() == 3 => {
                a.remove(0);
                self.then_after(Value::Array(a), after).await
            }
            other => Ok((other, None)),
        }
    }

    /// Runs one of the proxy's own scripts (loading it on NOSCRIPT).
    ///
    /// # Errors
    /// As [`Backend::run`]; Redis' error reply is REDIS.
    pub async fn proxy_script(
        &self,
        s: &ProxyScript,
        keys: &[&[u8]],
        args: &[&[u8]],
        write: bool,
    ) -> Result<Value, ErrBody> {
        let mut evalsha = redis::cmd("EVALSHA");
        evalsha.arg(s.sha1()).arg(keys.len());
        for k in keys {
            evalsha.arg(*k);
        }
        for a in args {
            evalsha.arg(*a);
        }
        deadline(self.timeout, write, async {
            let mut c = self.shared().await?;
            match c.query(&evalsha).await {
                Err(e) if e.kind() == ErrorKind::Server(ServerErrorKind::NoScript) => {
                    let mut p = redis::pipe();
                    p.ignore_errors();
                    p.cmd("SCRIPT").arg("LOAD").arg(s.source);
                    p.add_command(evalsha.clone());
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

    /// A connection for one blocking read: an idle one to `node` or a new one (opened by
    /// [`Backend::run_blocking`]), within `wait` for a server-wide permit.
    ///
    /// # Errors
    /// TIMEOUT (BLOCKING_SLOTS) when every permit stays taken for `wait`: nothing was sent.
    pub async fn lease(
        &self,
        node: Option<(String, u16)>,
        wait: Duration,
    ) -> Result<Lease, ErrBody> {
        let permit = tokio::time::timeout(wait, self.blocking.clone().acquire_owned())
            .await
            .ok()
            .and_then(Result::ok)
            .ok_or_else(|| {
                ErrBody::limited(
                    Code::Timeout,
                    Limit::BlockingSlots,
                    format!(
                        "all {} connections for blocking reads are busy; this read was not sent",
                        self.max_blocking
                    ),
                )
            })?;
        let conn = self
            .idle
            .lock()
            .expect("not poisoned")
            .get_mut(&node)
            .and_then(Vec::pop);
        Ok(Lease {
            conn,
            node,
            _permit: permit,
        })
    }

    /// A lease whose read ended cleanly: its connection is kept for the next (a few per
    /// node), its permit freed.
    pub fn give_back(&self, lease: Lease) {
        if let Some(c) = lease.conn {
            let mut idle = self.idle.lock().expect("not poisoned");
            let v = idle.entry(lease.node).or_default();
            if v.len() < KEEP_IDLE {
                v.push(c);
            }
        }
    }

    /// Runs a blocking read (and its bookkeeping, pipelined behind it: Redis runs it the
    /// moment the read is served) on a leased connection within `block + timeout`. On a
    /// cluster, the connection goes to the node that owns the session's slot: a `MOVED` reply
    /// (the read did not run) moves it there, and the read is sent once more.
    ///
    /// # Errors
    /// As [`Backend::run`]; the caller drops the lease after any error but Redis' own.
    pub async fn run_blocking(
        &self,
        lease: &mut Lease,
        cmd: &Cmd,
        after: Option<&After<'_>>,
        block: Duration,
    ) -> Result<(Value, Option<Vec<Size>>), ErrBody> {
        if lease.conn.is_none() {
            lease.conn = Some(
                self.dedicated(lease.node.clone())
                    .await
                    .map_err(|e| classify(&e, false))?,
            );
        }
        let mut p = redis::pipe();
        p.ignore_errors();
        p.add_command(cmd.clone());
        if let Some(a) = after {
            p.add_command(a.cmd());
        }
        let v = deadline(block + self.timeout, true, async {
            let c = lease.conn.as_mut().expect("just made");
            let v = p.query_async::<Value>(c).await?;
            match moved_value(&v) {
                Some(node) if self.is_cluster() => {
                    lease.conn = None;
                    let mut fresh = self.dedicated(Some(node.clone())).await?;
                    let r = p.query_async::<Value>(&mut fresh).await;
                    lease.conn = Some(fresh);
                    lease.node = Some(node);
                    r
                }
                _ => Ok(v),
            }
        })
        .await?;
        match after {
            Some(a) => self.then_after(v, a).await,
            None => Ok((
                match v {
                    Value::Array(mut a) if a.len() == 1 => a.pop().expect("one"),
                    other => other,
                },
                None,
            )),
        }
    }
}
