//! The shared connection to one Redis or a cluster, and where a `MOVED` reply points.

use redis::aio::ConnectionManager;
use redis::cluster_async::ClusterConnection;
use redis::cluster_routing::{RoutingInfo, SingleNodeRoutingInfo};
use redis::io::tcp::TcpSettings;
use redis::{Cmd, ErrorKind, RedisError, RedisResult, ServerErrorKind, Value};

/// The shared connection: to one Redis, or to a cluster.
#[derive(Clone)]
pub(super) enum Shared {
    Single(ConnectionManager),
    Cluster(ClusterConnection),
}

/// A node of a `MOVED` redirect's text (`<slot> <host>:<port>`).
pub(super) fn node_of(detail: &str) -> Option<(String, u16)> {
    let addr = detail.split_whitespace().nth(1)?;
    let (host, port) = addr.rsplit_once(':')?;
    Some((
        host.trim_matches(['[', ']']).to_string(),
        port.parse().ok()?,
    ))
}

/// `host:port` of a `MOVED` redirect: the command did not run; that node owns the slot.
pub(super) fn moved(e: &RedisError) -> Option<(String, u16)> {
    if e.kind() != ErrorKind::Server(ServerErrorKind::Moved) {
        return None;
    }
    let (addr, _slot) = e.redirect_node()?;
    node_of(&format!("0 {addr}"))
}

/// The same for a pipeline's replies (errors kept as values): its first reply is `MOVED`.
pub(super) fn moved_value(v: &Value) -> Option<(String, u16)> {
    match v {
        Value::Array(a) => match a.first() {
            Some(Value::ServerError(e)) if e.kind() == Some(ServerErrorKind::Moved) => {
                node_of(e.details()?)
            }
            _ => None,
        },
        _ => None,
    }
}

pub(super) fn by_address((host, port): (String, u16)) -> RoutingInfo {
    RoutingInfo::SingleNode(SingleNodeRoutingInfo::ByAddress { host, port })
}

impl Shared {
    pub(super) async fn query(&mut self, cmd: &Cmd) -> RedisResult<Value> {
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
    /// included). With `ignore_errors` a `MOVED` comes back as the first reply: followed too.
    pub(super) async fn pipe(&mut self, p: &redis::Pipeline) -> RedisResult<Value> {
        match self {
            Shared::Single(c) => p.query_async(c).await,
            Shared::Cluster(c) => {
                let node = match p.query_async::<Value>(c).await {
                    Err(e) => match moved(&e) {
                        Some(node) => node,
                        None => return Err(e),
                    },
                    Ok(v) => match moved_value(&v) {
                        Some(node) => node,
                        None => return Ok(v),
                    },
                };
                let (host, port) = node;
                c.route_pipeline(
                    p.clone(),
                    0,
                    p.len(),
                    SingleNodeRoutingInfo::ByAddress { host, port },
                )
                .await
                .map(Value::Array)
            }
        }
    }
}

/// TCP_NODELAY on every connection to Redis: a command is one small write, and with Nagle's
/// algorithm a command written while an earlier one is unacknowledged would wait for the ACK.
pub(super) fn tcp_settings() -> TcpSettings {
    TcpSettings::default().set_nodelay(true)
}

/// A client for the Redis at `url`, its connections with [`tcp_settings`].
pub(super) fn open(url: &str) -> Result<redis::Client, RedisError> {
    let info = redis::Client::open(url)?
        .get_connection_info()
        .clone()
        .set_tcp_settings(tcp_settings());
    redis::Client::open(info)
}
