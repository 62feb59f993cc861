//! Slots, deadlines, and every Redis failure as a protocol error code; replies as the
//! simulator's `Reply`.

use crate::protocol::{Code, ErrBody};
use redis::{ErrorKind, RedisError, ServerErrorKind, Value};
use redislab_sim::Reply;
use std::borrow::Cow;
use std::future::Future;
use std::time::Duration;

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

pub(super) async fn deadline(
    d: Duration,
    write: bool,
    f: impl Future<Output = Result<Value, RedisError>>,
) -> Result<Value, ErrBody> {
    match tokio::time::timeout(d, f).await {
        Err(_) => Err(ErrBody::new(
            Code::Timeout,
            if write {
                format!(
                    "no reply from Redis within {} ms; the write may still happen",
                    d.as_millis()
                )
            } else {
                format!("no reply from Redis within {} ms", d.as_millis())
            },
        )),
        Ok(Ok(Value::ServerError(e))) => Err(server_error(&e)),
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(classify(&e, write)),
    }
}

/// Redis' own error reply, as a client sees it: REDIS with Redis' text — except the
/// cluster's redirects and outages, UNAVAILABLE (nothing ran) — never naming a node.
pub fn server_error(e: &redis::ServerError) -> ErrBody {
    match e.kind() {
        Some(ServerErrorKind::BusyLoading) => ErrBody::new(
            Code::Unavailable,
            "Redis is unavailable: it is loading its data",
        ),
        Some(
            ServerErrorKind::Ask
            | ServerErrorKind::Moved
            | ServerErrorKind::TryAgain
            | ServerErrorKind::ClusterDown
            | ServerErrorKind::MasterDown,
        ) => ErrBody::new(
            Code::Unavailable,
            format!(
                "Redis is unavailable: the cluster is moving or lost this slot ({}); try again",
                e.code()
            ),
        ),
        _ => redis_err(e.code(), e.details()),
    }
}

pub(super) fn redis_err(code: &str, detail: Option<&str>) -> ErrBody {
    ErrBody::new(
        Code::Redis,
        scrub(&match detail {
            Some(d) => format!("{code} {d}"),
            None => code.to_string(),
        }),
    )
}

/// Redis' text without any node address in it (`10.0.0.2:7001`, `[fe80::1]:7001`, a
/// `host:port` after MOVED/ASK): a client is never told where the servers are.
pub fn scrub(text: &str) -> String {
    let mut out = Vec::new();
    let mut redirect = 0;
    for w in text.split(' ') {
        let addr = w.rsplit_once(':').is_some_and(|(host, port)| {
            !port.is_empty()
                && port.bytes().all(|b| b.is_ascii_digit())
                && (redirect == 2
                    || host.starts_with('[')
                    || (host.bytes().filter(|&b| b == b'.').count() == 3
                        && host.bytes().all(|b| b.is_ascii_digit() || b == b'.')))
        });
        out.push(if addr { "<node>" } else { w });
        redirect = match (redirect, w) {
            (_, "MOVED" | "ASK") => 1,
            (1, _) => 2,
            _ => 0,
        };
    }
    out.join(" ")
}

/// The protocol error for a failed request. Redis' own error replies are REDIS (with
/// Redis' text); LOADING after a restart, a refused connection and a cluster's redirects
/// and outages (ASK, a second MOVED, TRYAGAIN, CLUSTERDOWN, MASTERDOWN) are UNAVAILABLE
/// (nothing ran); a timeout is TIMEOUT; any other failure (the connection lost with the request on
/// the wire) is UNKNOWN_OUTCOME for a write — never retried — and UNAVAILABLE for a read.
/// The client's message never carries the library's text (it may name a node); the proxy
/// logs it at debug level.
pub fn classify(e: &RedisError, write: bool) -> ErrBody {
    tracing::debug!(error = %e, "a request to Redis failed");
    let unavailable =
        |why: &str| ErrBody::new(Code::Unavailable, format!("Redis is unavailable: {why}"));
    match e.kind() {
        ErrorKind::Server(ServerErrorKind::BusyLoading) => unavailable("it is loading its data"),
        // A cluster that is resharding or failing over refused it before running it.
        ErrorKind::Server(
            ServerErrorKind::Ask
            | ServerErrorKind::Moved
            | ServerErrorKind::TryAgain
            | ServerErrorKind::ClusterDown
            | ServerErrorKind::MasterDown,
        ) => unavailable(&format!(
            "the cluster is moving or lost this slot ({}); try again",
            e.code().unwrap_or("ERR")
        )),
        ErrorKind::Server(_) | ErrorKind::Extension => {
            redis_err(e.code().unwrap_or("ERR"), e.detail())
        }
        _ if e.is_connection_refusal() => unavailable("the connection was refused"),
        _ if e.is_timeout() => ErrBody::new(Code::Timeout, "no reply from Redis in time"),
        _ if write => ErrBody::new(
            Code::UnknownOutcome,
            "the connection to Redis failed with the write in flight; it may or may not \
             have happened, and it is not retried",
        ),
        _ => unavailable("the connection to it failed"),
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
    fn errors_never_name_a_node() {
        assert_eq!(scrub("MOVED 3999 10.0.0.2:7001"), "MOVED 3999 <node>");
        assert_eq!(scrub("ASK 1 redis-7.internal:6379"), "ASK 1 <node>");
        assert_eq!(scrub("ERR x [fe80::1]:7000 y"), "ERR x <node> y");
        assert_eq!(
            scrub("WRONGTYPE Operation against a key holding the wrong kind of value"),
            "WRONGTYPE Operation against a key holding the wrong kind of value"
        );
        assert_eq!(scrub("ERR time 12:30"), "ERR time 12:30");
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
