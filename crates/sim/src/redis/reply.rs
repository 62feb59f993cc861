//! Replies typed like RESP2 (what `redis-cli` and client libraries see), their JSON form for
//! `labsim redis` and the proxy, and `redis-cli`-style display.

use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// One reply. RESP2's null bulk string and null array are both [`Reply::Nil`], as every
/// client library and `redis-cli` show them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// `:n`
    Integer(i64),
    /// `$len` + bytes
    Bulk(Vec<u8>),
    /// `$-1` or `*-1`
    Nil,
    /// `*n` + replies
    Array(Vec<Reply>),
    /// `+OK`, `+string` (borrowed for the fixed ones, so `+OK` costs no allocation)
    Status(Cow<'static, str>),
    /// `-ERR …`, `-WRONGTYPE …`: the whole message, prefix included
    Error(String),
}

impl Reply {
    /// `+OK`.
    pub fn ok() -> Self {
        Reply::Status(Cow::Borrowed("OK"))
    }

    /// An error reply with Redis' text (e.g. `"ERR syntax error"`).
    pub fn err(msg: impl Into<String>) -> Self {
        Reply::Error(msg.into())
    }

    /// A bulk string from text or bytes.
    pub fn bulk(b: impl Into<Vec<u8>>) -> Self {
        Reply::Bulk(b.into())
    }

    /// Whether this is an error reply.
    pub fn is_error(&self) -> bool {
        matches!(self, Reply::Error(_))
    }

    /// The bytes of a bulk reply.
    pub fn as_bulk(&self) -> Option<&[u8]> {
        match self {
            Reply::Bulk(b) => Some(b),
            _ => None,
        }
    }

    /// The value of an integer reply.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Reply::Integer(n) => Some(*n),
            _ => None,
        }
    }

    /// The JSON form: integer → number, bulk → string (invalid UTF-8 replaced by U+FFFD),
    /// nil → null, array → array, status → `{"status": …}`, error → `{"error": …}`.
    pub fn to_json(&self) -> Value {
        match self {
            Reply::Integer(n) => Value::from(*n),
            Reply::Bulk(b) => Value::String(String::from_utf8_lossy(b).into_owned()),
            Reply::Nil => Value::Null,
            Reply::Array(items) => Value::Array(items.iter().map(Reply::to_json).collect()),
            Reply::Status(s) => serde_json::json!({ "status": s.as_ref() }),
            Reply::Error(e) => serde_json::json!({ "error": e }),
        }
    }
}

impl serde::Serialize for Reply {
    /// The same JSON as [`Reply::to_json`].
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl fmt::Display for Reply {
    /// Like `redis-cli` in a terminal: `(integer) 1`, `"v"`, `(nil)`, `OK`, `(error) …`,
    /// arrays on one line as `[a, b]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::Integer(n) => write!(f, "(integer) {n}"),
            Reply::Bulk(b) => write!(f, "{:?}", String::from_utf8_lossy(b)),
            Reply::Nil => f.write_str("(nil)"),
            Reply::Array(items) => {
                f.write_str("[")?;
                for (i, r) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{r}")?;
                }
                f.write_str("]")
            }
            Reply::Status(s) => f.write_str(s),
            Reply::Error(e) => write!(f, "(error) {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_encoding() {
        let r = Reply::Array(vec![
            Reply::Integer(3),
            Reply::bulk("a\"b"),
            Reply::Nil,
            Reply::ok(),
            Reply::err("ERR syntax error"),
        ]);
        assert_eq!(
            r.to_json().to_string(),
            r#"[3,"a\"b",null,{"status":"OK"},{"error":"ERR syntax error"}]"#
        );
    }
}
