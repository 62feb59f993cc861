//! The client's side of the proxy's WebSocket protocol (`crates/proxy/README.md`): requests
//! from the actors' commands, answers read back into [`Reply`]s, the proxy's error codes with
//! what they mean in Bengali, and the state of a live connection. Plain data and serde, so the
//! app's console, the simulation worker's live runs and the native tests share it; the proxy
//! keeps its own server-side types (tokio and axum stay out of the wasm), and a test there
//! checks that both read the same JSON.

use crate::redis::{scripts, Reply};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// The proxy's error codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Code {
    /// Not on the allowlist (or Lua, or a server command).
    Forbidden,
    /// A key that tries to leave the session's namespace.
    Namespace,
    /// Over a size limit.
    TooLarge,
    /// Not a well-formed request (arity, options).
    BadRequest,
    /// Over the connection's rate.
    RateLimited,
    /// No reply within the deadline.
    Timeout,
    /// Redis cannot be reached.
    Unavailable,
    /// The connection broke with a write on the wire.
    UnknownOutcome,
    /// Redis' own error reply.
    Redis,
}

impl Code {
    /// What it means, in Bengali.
    pub fn bn(self) -> &'static str {
        match self {
            Code::Forbidden => "এই কমান্ড এখানে চলবে না — অনুমোদিত তালিকায় নেই (পুরো keyspace বা সার্ভার ছোঁয়া কমান্ড, Lua — সব বন্ধ)",
            Code::Namespace => "এই key আপনার নিজের জায়গার (namespace) বাইরে যেতে চায় — `{`, `}` বা `lab:` দিয়ে শুরু key চলবে না",
            Code::TooLarge => "বার্তা, আর্গুমেন্ট বা key সীমার চেয়ে বড়",
            Code::BadRequest => "রিকোয়েস্টটা ঠিকমতো গড়া নয় — আর্গুমেন্টের সংখ্যা বা অপশন ভুল",
            Code::RateLimited => "খুব দ্রুত পাঠানো হচ্ছে — একটু থেমে আবার চেষ্টা করুন",
            Code::Timeout => "সময়মতো উত্তর আসেনি — লেখার কমান্ড হলে সেটা হয়তো তবু ঘটেছে",
            Code::Unavailable => "Redis-এ পৌঁছানো যাচ্ছে না — কিছুই করা হয়নি",
            Code::UnknownOutcome => "সংযোগ ছিঁড়ে গেছে — লেখাটা হলো কি না জানা নেই (আবার পাঠানো হয়নি)",
            Code::Redis => "Redis নিজেই ভুল বলেছে",
        }
    }

    /// The code as it travels (`FORBIDDEN`, …).
    pub fn name(self) -> &'static str {
        match self {
            Code::Forbidden => "FORBIDDEN",
            Code::Namespace => "NAMESPACE",
            Code::TooLarge => "TOO_LARGE",
            Code::BadRequest => "BAD_REQUEST",
            Code::RateLimited => "RATE_LIMITED",
            Code::Timeout => "TIMEOUT",
            Code::Unavailable => "UNAVAILABLE",
            Code::UnknownOutcome => "UNKNOWN_OUTCOME",
            Code::Redis => "REDIS",
        }
    }
}

/// Which of the proxy's bounds a refusal met (server mode, issue 22). It travels beside the
/// code (`"limit": "ELEMENTS_PER_KEY"`), so a client that does not know the field still reads
/// the code and the message; one that does shows [`Limit::bn`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Limit {
    /// A message over the size limit (TOO_LARGE).
    MessageSize,
    /// Too many words in one command, or keys and arguments of a script (TOO_LARGE).
    Args,
    /// One argument over the size limit (TOO_LARGE).
    ArgSize,
    /// One key name over the size limit (TOO_LARGE).
    KeySize,
    /// More distinct keys than a session may write (TOO_LARGE).
    KeysPerSession,
    /// A list, hash, sorted set or stream would hold more elements than one key may (TOO_LARGE).
    ElementsPerKey,
    /// The session's data in Redis would pass its memory budget (TOO_LARGE).
    SessionMemory,
    /// A `COUNT` (or `LIMIT … count`, or LPOP/RPOP's count) over the cap (TOO_LARGE).
    Count,
    /// A `LIMIT` offset over the cap (TOO_LARGE).
    Offset,
    /// XADD's `MINID` or `LIMIT`: the proxy bounds every stream by `MAXLEN` (BAD_REQUEST).
    StreamTrim,
    /// A consumer group's pending list is full: acknowledge (XACK) first (TOO_LARGE).
    PendingPerGroup,
    /// More consumer groups on one stream than allowed (TOO_LARGE).
    GroupsPerStream,
    /// More consumers in one group than allowed (TOO_LARGE).
    ConsumersPerGroup,
    /// The reply is bigger than the proxy sends in one message (TOO_LARGE; it ran).
    ReplySize,
    /// Too much reply data on its way at once, for this session or the whole server
    /// (RATE_LIMITED).
    ReplyBudget,
    /// Over the connection's rate of work (RATE_LIMITED).
    Rate,
    /// Too many requests waiting for Redis at once on this connection (RATE_LIMITED).
    InFlight,
    /// Every connection the server keeps for blocking reads is busy (TIMEOUT).
    BlockingSlots,
    /// Refused on this Redis version: a known vulnerability (FORBIDDEN).
    UnsafeOnThisRedis,
}

impl Limit {
    /// Every limit, in the order above.
    pub const ALL: [Limit; 19] = [
        Limit::MessageSize,
        Limit::Args,
        Limit::ArgSize,
        Limit::KeySize,
        Limit::KeysPerSession,
        Limit::ElementsPerKey,
        Limit::SessionMemory,
        Limit::Count,
        Limit::Offset,
        Limit::StreamTrim,
        Limit::PendingPerGroup,
        Limit::GroupsPerStream,
        Limit::ConsumersPerGroup,
        Limit::ReplySize,
        Limit::ReplyBudget,
        Limit::Rate,
        Limit::InFlight,
        Limit::BlockingSlots,
        Limit::UnsafeOnThisRedis,
    ];

    /// What it means, in Bengali.
    pub fn bn(self) -> &'static str {
        match self {
            Limit::MessageSize => "বার্তাটা সীমার চেয়ে বড়",
            Limit::Args => "একটা কমান্ডে আর্গুমেন্ট সীমার চেয়ে বেশি",
            Limit::ArgSize => "একটা আর্গুমেন্ট সীমার চেয়ে বড়",
            Limit::KeySize => "key-এর নাম সীমার চেয়ে লম্বা",
            Limit::KeysPerSession => "এই সেশনে আর নতুন key লেখা যাবে না — সীমা পূর্ণ",
            Limit::ElementsPerKey => {
                "একটা key-তে (list, hash, sorted set, stream) এর বেশি উপাদান রাখা যাবে না"
            }
            Limit::SessionMemory => {
                "এই সেশনের ডেটা Redis-এ বরাদ্দ জায়গা ছাড়িয়ে যাবে — কিছু key মুছে (DEL) আবার চেষ্টা করুন"
            }
            Limit::Count => "COUNT (বা LIMIT-এর সংখ্যা) সীমার চেয়ে বড়",
            Limit::Offset => "LIMIT-এর offset সীমার চেয়ে বড়",
            Limit::StreamTrim => "XADD-এ MINID বা LIMIT চলবে না — প্রতিটা stream MAXLEN দিয়ে বাঁধা",
            Limit::PendingPerGroup => "এই consumer group-এর pending তালিকা ভরা — আগে XACK করুন",
            Limit::GroupsPerStream => "একটা stream-এ এর বেশি consumer group রাখা যাবে না",
            Limit::ConsumersPerGroup => "একটা group-এ এর বেশি consumer রাখা যাবে না",
            Limit::ReplySize => {
                "উত্তরটা এক বার্তায় পাঠানোর পক্ষে বড় — ছোট পরিসর (range/COUNT) চেয়ে নিন; কমান্ডটা চলেছে"
            }
            Limit::ReplyBudget => "একসাথে অনেক বড় উত্তর পথে আছে — একটু পরে আবার চেষ্টা করুন",
            Limit::Rate => "খুব দ্রুত বা খুব ভারী কাজ পাঠানো হচ্ছে — একটু থেমে আবার চেষ্টা করুন",
            Limit::InFlight => "একসাথে অনেক রিকোয়েস্ট উত্তরের অপেক্ষায় — আগের উত্তরগুলো আসুক",
            Limit::BlockingSlots => "সার্ভারের blocking-read সংযোগ সব ব্যস্ত — কমান্ডটা পাঠানো হয়নি",
            Limit::UnsafeOnThisRedis => "এই Redis সংস্করণে কমান্ডটা নিরাপদ নয় (জানা দুর্বলতা) — বন্ধ রাখা হয়েছে",
        }
    }

    /// The limit as it travels (`ELEMENTS_PER_KEY`, …).
    pub fn name(self) -> &'static str {
        match self {
            Limit::MessageSize => "MESSAGE_SIZE",
            Limit::Args => "ARGS",
            Limit::ArgSize => "ARG_SIZE",
            Limit::KeySize => "KEY_SIZE",
            Limit::KeysPerSession => "KEYS_PER_SESSION",
            Limit::ElementsPerKey => "ELEMENTS_PER_KEY",
            Limit::SessionMemory => "SESSION_MEMORY",
            Limit::Count => "COUNT",
            Limit::Offset => "OFFSET",
            Limit::StreamTrim => "STREAM_TRIM",
            Limit::PendingPerGroup => "PENDING_PER_GROUP",
            Limit::GroupsPerStream => "GROUPS_PER_STREAM",
            Limit::ConsumersPerGroup => "CONSUMERS_PER_GROUP",
            Limit::ReplySize => "REPLY_SIZE",
            Limit::ReplyBudget => "REPLY_BUDGET",
            Limit::Rate => "RATE",
            Limit::InFlight => "IN_FLIGHT",
            Limit::BlockingSlots => "BLOCKING_SLOTS",
            Limit::UnsafeOnThisRedis => "UNSAFE_ON_THIS_REDIS",
        }
    }
}

/// An error answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrBody {
    /// Its code.
    pub code: Code,
    /// The proxy's (or Redis') text.
    pub message: String,
    /// Which bound was met, when one was (absent on the wire otherwise; a proxy from before
    /// issue 22 never sends it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<Limit>,
}

impl ErrBody {
    /// An error with no particular limit.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        ErrBody {
            code,
            message: message.into(),
            limit: None,
        }
    }

    /// A refusal because `limit` was met.
    pub fn limited(code: Code, limit: Limit, message: impl Into<String>) -> Self {
        ErrBody {
            code,
            message: message.into(),
            limit: Some(limit),
        }
    }

    /// What it means, in Bengali: the limit's text when one was met, else the code's.
    pub fn bn(&self) -> &'static str {
        match self.limit {
            Some(l) => l.bn(),
            None => self.code.bn(),
        }
    }

    /// As an error reply for an actor: Redis' own text for `REDIS`, otherwise the code first.
    pub fn to_reply(&self) -> Reply {
        match self.code {
            Code::Redis => Reply::Error(self.message.clone()),
            c => Reply::Error(format!("{} {}", c.name(), self.message)),
        }
    }
}

/// A message from the proxy.
#[derive(Clone, Debug, PartialEq)]
pub enum Incoming {
    /// The greeting (namespace, scripts, limits); the client needs none of it.
    Hello,
    /// The answer to request `id` (`None`: a message the proxy could not read an id from).
    Answer {
        /// The request's id.
        id: Option<u64>,
        /// The reply, or why there is none.
        result: Result<Reply, ErrBody>,
    },
}

/// One message from the proxy as it travels (the greeting's content is skipped unread).
#[derive(Deserialize)]
struct Wire {
    #[serde(default)]
    hello: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    id: Option<u64>,
    /// Present (even as `null`, a nil reply) on a success.
    #[serde(default, deserialize_with = "present")]
    ok: Option<Reply>,
    #[serde(default)]
    err: Option<ErrBody>,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Reply>, D::Error> {
    Reply::deserialize(d).map(Some)
}

/// Reads one text message from the proxy (`None`: not a message of the protocol).
///
/// Typed serde all the way (no `serde_json::Value`), which keeps the app's wasm small.
pub fn parse(text: &str) -> Option<Incoming> {
    let w: Wire = serde_json::from_str(text).ok()?;
    if w.hello.is_some() {
        return Some(Incoming::Hello);
    }
    let result = match (w.ok, w.err) {
        (Some(r), None) => Ok(r),
        (None, Some(e)) => Err(e),
        _ => return None,
    };
    Some(Incoming::Answer { id: w.id, result })
}

/// A reply from its JSON form ([`Reply::to_json`], what the proxy sends).
pub fn reply_from_json(text: &str) -> Option<Reply> {
    serde_json::from_str(text).ok()
}

struct ReplyVisitor;

impl<'de> serde::de::Visitor<'de> for ReplyVisitor {
    type Value = Reply;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a reply in the proxy's JSON encoding")
    }
    fn visit_i64<E>(self, v: i64) -> Result<Reply, E> {
        Ok(Reply::Integer(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Reply, E> {
        Ok(Reply::Integer(v as i64))
    }
    fn visit_bool<E>(self, v: bool) -> Result<Reply, E> {
        Ok(Reply::Integer(i64::from(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Reply, E> {
        Ok(Reply::Bulk(v.as_bytes().to_vec()))
    }
    fn visit_unit<E>(self) -> Result<Reply, E> {
        Ok(Reply::Nil)
    }
    fn visit_none<E>(self) -> Result<Reply, E> {
        Ok(Reply::Nil)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Reply, A::Error> {
        let mut items = Vec::new();
        while let Some(r) = seq.next_element::<Reply>()? {
            items.push(r);
        }
        Ok(Reply::Array(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Reply, A::Error> {
        let mut out = None;
        while let Some((k, v)) = map.next_entry::<String, String>()? {
            out = Some(match k.as_str() {
                "status" if v == "OK" => Reply::ok(),
                "status" => Reply::Status(Cow::Owned(v)),
                _ => Reply::Error(v),
            });
        }
        out.ok_or_else(|| serde::de::Error::custom("an empty object is no reply"))
    }
}

impl<'de> Deserialize<'de> for Reply {
    /// The proxy's (and `labsim redis`') JSON encoding, [`Reply::to_json`], read back.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Reply, D::Error> {
        d.deserialize_any(ReplyVisitor)
    }
}

fn words(ws: &[Vec<u8>]) -> Vec<Cow<'_, str>> {
    ws.iter().map(|w| String::from_utf8_lossy(w)).collect()
}

/// The name of the registered script with this SHA1 (any case).
fn script_name(sha: &[u8]) -> Option<&'static str> {
    scripts::SCRIPTS
        .iter()
        .find(|s| sha.eq_ignore_ascii_case(s.sha1.as_bytes()))
        .map(|s| s.name)
}

/// A request as it travels.
#[derive(Serialize)]
struct WireRequest<'a> {
    id: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    cmd: Option<Vec<Cow<'a, str>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    script: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    keys: Option<Vec<Cow<'a, str>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<Vec<Cow<'a, str>>>,
}

/// The request for command `cmd` with id `id`, as JSON text. `EVALSHA` of one of the named
/// scripts ([`scripts::SCRIPTS`]) goes as that script (`{"script": "release", …}`): the
/// proxy runs only its own scripts and never takes Lua or a SHA from a client.
pub fn request(id: u64, cmd: &[Vec<u8>]) -> String {
    let script = match cmd {
        [name, sha, n, rest @ ..] if name.eq_ignore_ascii_case(b"EVALSHA") => script_name(sha)
            .and_then(|s| {
                let n: usize = std::str::from_utf8(n).ok()?.parse().ok()?;
                (n <= rest.len()).then(|| (s, &rest[..n], &rest[n..]))
            }),
        _ => None,
    };
    let req = match script {
        Some((s, keys, args)) => WireRequest {
            id,
            cmd: None,
            script: Some(s),
            keys: Some(words(keys)),
            args: Some(words(args)),
        },
        None => WireRequest {
            id,
            cmd: Some(words(cmd)),
            script: None,
            keys: None,
            args: None,
        },
    };
    serde_json::to_string(&req).unwrap_or_default()
}

/// A reply laid out as `redis-cli` prints it in a terminal: `"v"`, `(integer) 1`, `(nil)`,
/// `OK`, `(error) …`, and arrays one element a line, `1) …`, nested ones indented.
pub fn redis_cli(r: &Reply) -> String {
    match r {
        Reply::Array(items) if items.is_empty() => "(empty array)".into(),
        Reply::Array(items) => {
            let w = items.len().to_string().len();
            let mut out = Vec::new();
            for (i, it) in items.iter().enumerate() {
                let head = format!("{:>w$}) ", i + 1);
                let pad = " ".repeat(head.len());
                for (j, line) in redis_cli(it).lines().enumerate() {
                    out.push(if j == 0 {
                        format!("{head}{line}")
                    } else {
                        format!("{pad}{line}")
                    });
                }
            }
            out.join("\n")
        }
        r => r.to_string(),
    }
}

/// The state of a live connection, as the connection indicator shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LiveStatus {
    /// Opening the WebSocket.
    Connecting,
    /// The proxy answered and Redis behind it too.
    Connected,
    /// No proxy at this address (a static host, `trunk serve`): the socket never opened.
    NoProxy,
    /// The proxy is there, Redis behind it is not.
    RedisDown,
    /// The connection was lost mid-run (the text says what happened).
    Lost(String),
}

/// The WebSocket address of the proxy that served the page at `page` (an `http(s)://` URL):
/// `ws` beside the page, so the app works under a sub-path too.
pub fn ws_url(page: &str) -> String {
    let page = page.split(['#', '?']).next().unwrap_or_default();
    let dir = match page.rfind('/') {
        Some(i) if i >= page.find("//").map_or(0, |j| j + 2) => &page[..=i],
        _ => page,
    };
    let dir = if dir.ends_with('/') {
        dir.to_string()
    } else {
        format!("{dir}/")
    };
    let tail = dir
        .strip_prefix("https://")
        .map(|t| format!("wss://{t}"))
        .or_else(|| dir.strip_prefix("http://").map(|t| format!("ws://{t}")))
        .unwrap_or(dir);
    format!("{tail}ws")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::cmd;
    use serde_json::{json, Value};

    #[test]
    fn requests_name_scripts_never_lua() {
        assert_eq!(
            request(7, &cmd(&["SET", "lock:x", "tok", "NX", "PX", "5000"])),
            r#"{"id":7,"cmd":["SET","lock:x","tok","NX","PX","5000"]}"#
        );
        let r = request(
            8,
            &cmd(&["EVALSHA", scripts::RELEASE.sha1, "1", "lock:x", "tok"]),
        );
        let v: Value = serde_json::from_str(&r).unwrap();
        assert_eq!(
            v,
            json!({"id": 8, "script": "release", "keys": ["lock:x"], "args": ["tok"]})
        );
        // Every registered script goes by name.
        for sc in scripts::SCRIPTS {
            assert_eq!(script_name(sc.sha1.as_bytes()), Some(sc.name));
        }
        // An unknown SHA goes as the command it is (the proxy refuses it: FORBIDDEN).
        assert!(request(9, &cmd(&["EVALSHA", "abc", "0"])).contains(r#""cmd""#));
    }

    #[test]
    fn answers_read_back() {
        for r in [
            Reply::ok(),
            Reply::Nil,
            Reply::Integer(-3),
            Reply::bulk("a \"b\""),
            Reply::Array(vec![Reply::bulk("k"), Reply::Nil, Reply::err("ERR x")]),
            Reply::Status(Cow::Borrowed("PONG")),
        ] {
            let text = json!({"id": 1, "ok": r.to_json()}).to_string();
            assert_eq!(
                parse(&text),
                Some(Incoming::Answer {
                    id: Some(1),
                    result: Ok(r.clone())
                }),
                "{text}"
            );
        }
        let e = parse(r#"{"id":null,"err":{"code":"BAD_REQUEST","message":"not JSON"}}"#);
        let Some(Incoming::Answer {
            id: None,
            result: Err(e),
        }) = e
        else {
            panic!("{e:?}")
        };
        assert_eq!(e.code, Code::BadRequest);
        assert_eq!(
            parse(r#"{"hello":{"namespace":"lab:{x}:"}}"#),
            Some(Incoming::Hello)
        );
        assert_eq!(e.limit, None);
        // The limit a refusal met travels beside the code; a client that ignores it still
        // reads the code.
        let e = parse(
            r#"{"id":4,"err":{"code":"TOO_LARGE","message":"m","limit":"ELEMENTS_PER_KEY"}}"#,
        );
        let Some(Incoming::Answer { result: Err(e), .. }) = e else {
            panic!("{e:?}")
        };
        assert_eq!(
            (e.code, e.limit),
            (Code::TooLarge, Some(Limit::ElementsPerKey))
        );
        assert_eq!(e.bn(), Limit::ElementsPerKey.bn());
        assert_eq!(
            serde_json::to_value(ErrBody::new(Code::Timeout, "t")).unwrap(),
            json!({"code": "TIMEOUT", "message": "t"})
        );
        assert_eq!(
            serde_json::to_value(ErrBody::limited(Code::TooLarge, Limit::Count, "c")).unwrap(),
            json!({"code": "TOO_LARGE", "message": "c", "limit": "COUNT"})
        );
        for l in Limit::ALL {
            assert_eq!(serde_json::to_value(l).unwrap(), json!(l.name()));
            assert!(!l.bn().is_empty());
        }
        assert_eq!(parse("nonsense"), None);
        assert_eq!(
            parse(r#"{"id":3,"err":{"code":"NOPE","message":""}}"#),
            None
        );
    }

    #[test]
    fn replies_print_like_redis_cli() {
        assert_eq!(redis_cli(&Reply::bulk("v")), "\"v\"");
        assert_eq!(redis_cli(&Reply::Array(vec![])), "(empty array)");
        let nested = Reply::Array(vec![
            Reply::bulk("a"),
            Reply::Array(vec![Reply::Integer(1), Reply::Nil]),
        ]);
        assert_eq!(
            redis_cli(&nested),
            "1) \"a\"\n2) 1) (integer) 1\n   2) (nil)"
        );
    }

    #[test]
    fn the_socket_sits_beside_the_page() {
        assert_eq!(
            ws_url("http://127.0.0.1:8080/#/lab/lock"),
            "ws://127.0.0.1:8080/ws"
        );
        assert_eq!(
            ws_url("https://x.org/redis-lab/index.html?a=1#/"),
            "wss://x.org/redis-lab/ws"
        );
        assert_eq!(ws_url("http://h:1"), "ws://h:1/ws");
    }
}
