//! The Redis side: one shared `ConnectionManager` for ordinary commands (it reconnects by
//! itself and never resends a command), a dedicated connection per session for blocking
//! reads, EVALSHA with a reload on NOSCRIPT, deadlines, and the mapping of every failure to a
//! protocol error code.
//!
//! Replies become the simulator's [`Reply`], so the proxy's JSON is exactly the JSON of
//! `labsim redis` ([`Reply::to_json`]).

use crate::protocol::{Code, ErrBody};
use redis::aio::{ConnectionManager, ConnectionManagerConfig, MultiplexedConnection};
use redis::{AsyncConnectionConfig, Cmd, ErrorKind, RedisError, ServerErrorKind, Value};
use redislab_sim::redis::Script;
use redislab_sim::Reply;
use std::borrow::Cow;
use std::future::Future;
use std::time::Duration;
use tokio::sync::OnceCell;

/// Connections to one Redis.
pub struct Backend {
    client: redis::Client,
    shared: OnceCell<ConnectionManager>,
    timeout: Duration,
}

impl Backend {
    /// A backend for `url`; nothing is connected until the first request, so the proxy
    /// starts (and serves the app) while Redis is down.
    ///
    /// # Errors
    /// When the URL is not a Redis URL.
    pub fn new(url: &str, timeout: Duration) -> Result<Self, RedisError> {
        Ok(Backend {
            client: redis::Client::open(url)?,
            shared: OnceCell::new(),
            timeout,
        })
    }

    /// The shared connection, made on first use (a failed attempt is retried by the next
    /// request).
    async fn shared(&self) -> Result<ConnectionManager, RedisError> {
        let cfg = ConnectionManagerConfig::new()
            // Fail fast while Redis is down (UNAVAILABLE) rather than hold requests for
            // seconds of reconnect attempts; the next request starts a new attempt.
            .set_number_of_retries(1)
            .set_min_delay(Duration::from_millis(50))
            .set_max_delay(Duration::from_millis(200))
            .set_connection_timeout(Some(Duration::from_millis(500)))
            // Our own deadline (tokio::time::timeout) decides TIMEOUT; this is a backstop.
            .set_response_timeout(Some(self.timeout + Duration::from_secs(1)));
        self.shared
            .get_or_try_init(|| ConnectionManager::new_with_config(self.client.clone(), cfg))
            .await
            .cloned()
    }

    /// A new connection of a session's own, for blocking reads (no response timeout: the
    /// caller's deadline covers the bounded block time).
    ///
    /// # Errors
    /// When Redis cannot be reached.
    pub async fn dedicated(&self) -> Result<MultiplexedConnection, RedisError> {
        let cfg = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(Duration::from_millis(500)))
            .set_response_timeout(None);
        self.client
            .get_multiplexed_async_connection_with_config(&cfg)
            .await
    }

    /// Runs one command on the shared connection within the deadline.
    ///
    /// # Errors
    /// The protocol error for the failure (see [`classify`]).
    pub async fn run(&self, cmd: &Cmd, write: bool) -> Result<Reply, ErrBody> {
        deadline(self.timeout, write, async {
            let mut c = self.shared().await?;
            cmd.query_async::<Value>(&mut c).await
        })
        .await
    }

    /// Runs commands pipelined (not atomically) on the shared connection; for bookkeeping.
    ///
    /// # Errors
    /// When the pipeline fails.
    pub async fn pipe(&self, p: &redis::Pipeline) -> Result<(), ErrBody> {
        deadline(self.timeout, true, async {
            let mut c = self.shared().await?;
            p.query_async::<Value>(&mut c).await
        })
        .await
        .map(|_| ())
    }

    /// Runs a named script: EVALSHA, and on NOSCRIPT (the script never ran) SCRIPT LOAD and
    /// EVALSHA once more.
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
            match evalsha.query_async::<Value>(&mut c).await {
                Err(e) if e.kind() == ErrorKind::Server(ServerErrorKind::NoScript) => {
                    redis::cmd("SCRIPT")
                        .arg("LOAD")
                        .arg(s.source)
                        .query_async::<Value>(&mut c)
                        .await?;
                    evalsha.query_async::<Value>(&mut c).await
                }
                other => other,
            }
        })
        .await
    }
}

/// Runs `f` on a dedicated connection within `block + timeout`.
///
/// # Errors
/// As [`Backend::run`].
pub async fn run_blocking(
    conn: &mut MultiplexedConnection,
    cmd: &Cmd,
    block: Duration,
    timeout: Duration,
) -> Result<Reply, ErrBody> {
    deadline(block + timeout, true, cmd.query_async::<Value>(conn)).await
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
/// Redis' text); LOADING after a restart and a refused connection are UNAVAILABLE (nothing
/// ran); a timeout is TIMEOUT; any other failure (the connection lost with the request on
/// the wire) is UNKNOWN_OUTCOME for a write — never retried — and UNAVAILABLE for a read.
pub fn classify(e: &RedisError, write: bool) -> ErrBody {
    let unavailable = |why: String| ErrBody {
        code: Code::Unavailable,
        message: format!("Redis is unavailable: {why}"),
    };
    match e.kind() {
        ErrorKind::Server(ServerErrorKind::BusyLoading) => unavailable(e.to_string()),
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
