//! The WebSocket protocol's messages (documented in the crate's README).
//!
//! Client → server, one JSON object per text message:
//! `{"id": 7, "cmd": ["SET", "lock:x", "tok", "NX", "PX", "5000"]}` or
//! `{"id": 8, "script": "release", "keys": ["lock:x"], "args": ["tok"]}`.
//! Server → client: first `{"hello": {…}}`, then each id answered exactly once,
//! `{"id": 7, "ok": <reply>}` or `{"id": 7, "err": {"code": "…", "message": "…"}}`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One request.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// Chosen by the client; echoed in the answer.
    pub id: u64,
    /// A command: name and arguments, keys without the session prefix.
    #[serde(default)]
    pub cmd: Option<Vec<String>>,
    /// A named script the server loaded (`release`, `extend`, …).
    #[serde(default)]
    pub script: Option<String>,
    /// The script's KEYS, without the session prefix.
    #[serde(default)]
    pub keys: Option<Vec<String>>,
    /// The script's ARGV.
    #[serde(default)]
    pub args: Option<Vec<String>>,
}

// The error codes and the error body are the client's too (the app's console, the simulation
// worker's live runs): one definition, in the sim crate, which has no tokio or axum.
pub use redislab_sim::wire::{Code, ErrBody, Limit};

/// One server message.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum ServerMsg {
    Hello { hello: Value },
    Ok { id: u64, ok: Value },
    // `id` is null when the message could not be read far enough to find one.
    Err { id: Option<u64>, err: ErrBody },
}

impl ServerMsg {
    /// The answer to `id`.
    pub fn answer(id: Option<u64>, r: Result<Value, ErrBody>) -> Self {
        match (id, r) {
            (Some(id), Ok(ok)) => ServerMsg::Ok { id, ok },
            (id, Err(err)) => ServerMsg::Err { id, err },
            (None, Ok(_)) => unreachable!("a reply always has an id"),
        }
    }

    /// As JSON text.
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).expect("server messages always serialize")
    }
}

/// The id of a message that starts `{"id": <digits>,` or ends `"id": <digits>}` (as clients
/// write it), read from its first or last bytes only: a refusal over the rate costs the same
/// whatever the message's size.
pub fn leading_id(text: &str) -> Option<u64> {
    fn digits_then(rest: &str, end: fn(&str) -> bool) -> Option<u64> {
        let rest = rest.trim_start().strip_prefix(':')?.trim_start();
        let n = rest.bytes().take_while(u8::is_ascii_digit).count();
        (n > 0 && end(rest[n..].trim_start()))
            .then(|| rest[..n].parse().ok())
            .flatten()
    }
    let head = text.get(..text.len().min(48)).unwrap_or("");
    if let Some(rest) = head
        .trim_start()
        .strip_prefix('{')
        .and_then(|r| r.trim_start().strip_prefix("\"id\""))
    {
        return digits_then(rest, |a| a.starts_with(',') || a.starts_with('}'));
    }
    let from = text.len().saturating_sub(48);
    let tail = text.get(from..)?;
    let at = tail.rfind("\"id\"")?;
    digits_then(&tail[at + 4..], |a| a == "}")
}

/// Parses a request; on failure the error and, when the message was JSON with a numeric id,
/// that id, so the client can still match the answer.
///
/// # Errors
/// BAD_REQUEST for anything that is not exactly one well-formed request.
pub fn parse(text: &str) -> Result<Request, (Option<u64>, ErrBody)> {
    let bad = |id, message: String| Err((id, ErrBody::new(Code::BadRequest, message)));
    let req: Request = match serde_json::from_str(text) {
        Ok(r) => r,
        Err(e) => {
            let id = serde_json::from_str::<Value>(text)
                .ok()
                .and_then(|v| v.get("id").and_then(Value::as_u64));
            return bad(id, format!("not a request: {e}"));
        }
    };
    let id = Some(req.id);
    match (&req.cmd, &req.script) {
        (Some(_), None) if req.keys.is_none() && req.args.is_none() => Ok(req),
        (Some(_), None) => bad(id, "`keys` and `args` go with `script`, not `cmd`".into()),
        (None, Some(_)) => Ok(req),
        (Some(_), Some(_)) => bad(id, "either `cmd` or `script`, not both".into()),
        (None, None) => bad(id, "a request has `cmd` or `script`".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_leading_id_is_read_from_the_first_bytes() {
        assert_eq!(leading_id(r#"{"id":7,"cmd":["PING"]}"#), Some(7));
        assert_eq!(leading_id(r#" { "id" : 12 , "cmd": []}"#), Some(12));
        assert_eq!(leading_id(r#"{"cmd":["PING"],"id":7}"#), Some(7));
        assert_eq!(leading_id(r#"{"cmd":["PING"],"id":7,"x":1}"#), None);
        assert_eq!(leading_id(r#"{"id":"7"}"#), None);
        assert_eq!(leading_id(r#"{"id":7.5}"#), None);
        assert_eq!(leading_id("nonsense"), None);
        assert_eq!(leading_id(r#"{"id":99999999999999999999999}"#), None);
    }
}
