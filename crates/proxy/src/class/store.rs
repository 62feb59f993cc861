//! A class' keys in Redis and the scripts that change them. Every key of class `C` is
//! `class:{C}…` — the code is the hash tag, so all of them share one cluster slot and each
//! script below runs on one node, atomically. Every key expires when the class does (its
//! `ends`, an absolute time), or sooner; `End` deletes them all at once.
//!
//! | key | type | holds | bound |
//! |---|---|---|---|
//! | `class:{C}` | hash | `uid`, `secret` (SHA1 of the instructor's), `ends`, `max`, `next` (students so far), `seq`, `q`, `open`, `set` | 9 fields |
//! | `class:{C}:view` | string | `seq\|q\|open\|set\|<view JSON>`: the catch-up read | `MAX_VIEW` |
//! | `class:{C}:teacher` | string | the instructor tab's id: a lease of 30 s, renewed | 1 |
//! | `class:{C}:students` | hash | resume token → number | `max` |
//! | `class:{C}:names` | hash | number → chosen name | `max` × 24 chars |
//! | `class:{C}:here` | sorted set | number → last seen (ms): presence (production slide 14) | `max` |
//! | `class:{C}:ans` | hash | number → answer to the open question | `max` × 200 B |
//! | `class:{C}:res` | hash | number → practice-set answers (JSON) | `max` × 2 KB |
//! | `class:{C}:rate:<w>` | hash | `j:<token>`, `a:<n>`, `r:<n>` → count in window `w` | `3 × max`, 2 windows |
//!
//! Channels: `class:{C}:all` (views, the end: every proxy with a page of the class listens)
//! and `class:{C}:teach` (joins, answers, results: only the instructor's proxy listens).
//! Outside the slot, per client address: `class:rate:{<address>}:<what>` (a counter with
//! the window's TTL).

use crate::backend::Backend;
use crate::protocol::ErrBody;
use crate::scripts::ProxyScript;
use redis::Value;
use redislab_sim::class::Refusal;

/// The keys of class `code`.
pub struct Keys {
    pub meta: String,
    pub view: String,
    pub teacher: String,
    pub students: String,
    pub names: String,
    pub here: String,
    pub ans: String,
    pub res: String,
    pub all: String,
    pub teach: String,
    code: String,
}

impl Keys {
    pub fn of(code: &str) -> Keys {
        let b = format!("class:{{{code}}}");
        Keys {
            meta: b.clone(),
            view: format!("{b}:view"),
            teacher: format!("{b}:teacher"),
            students: format!("{b}:students"),
            names: format!("{b}:names"),
            here: format!("{b}:here"),
            ans: format!("{b}:ans"),
            res: format!("{b}:res"),
            all: format!("{b}:all"),
            teach: format!("{b}:teach"),
            code: code.to_string(),
        }
    }

    /// The keys the class stores (not its channels, not its rate windows).
    pub fn stored(&self) -> [&str; 8] {
        [
            &self.meta,
            &self.view,
            &self.teacher,
            &self.students,
            &self.names,
            &self.here,
            &self.ans,
            &self.res,
        ]
    }

    /// The per-student counters of window `w`.
    pub fn rate(&self, w: u64) -> String {
        format!("class:{{{}}}:rate:{w}", self.code)
    }

    /// The class a channel belongs to, and whether it is the instructor's.
    pub fn channel(ch: &str) -> Option<(&str, bool)> {
        let rest = ch.strip_prefix("class:{")?;
        let (code, tail) = rest.split_once('}')?;
        match tail {
            ":all" => Some((code, false)),
            ":teach" => Some((code, true)),
            _ => None,
        }
    }
}

/// `now` (ms) → the number of the rate window of `window_ms`.
pub fn window(now_ms: i64, window_ms: u64) -> u64 {
    now_ms.max(0) as u64 / window_ms.max(1)
}

/// The part of every script that reads Redis' clock, in ms.
macro_rules! now {
    () => {
        "local t = redis.call('TIME')\nlocal now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
    };
}

/// A new class. KEYS meta, view, teacher; ARGV uid, secret's SHA1, ends, max, view JSON,
/// tab, lease ms. 0 when the code is taken.
pub static CREATE: ProxyScript = ProxyScript::new(
    "class_create",
    concat!(
        "if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end\n",
        now!(),
        r#"redis.call('HSET', KEYS[1], 'uid', ARGV[1], 'secret', ARGV[2], 'ends', ARGV[3], 'max', ARGV[4],
  'next', 0, 'seq', 1, 'q', 0, 'open', 0, 'set', 0)
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
redis.call('SET', KEYS[2], '1|0|0|0|' .. ARGV[5], 'PXAT', ARGV[3])
redis.call('SET', KEYS[3], ARGV[6], 'PXAT', math.min(now + tonumber(ARGV[7]), tonumber(ARGV[3])))
return 1"#
    ),
);

/// The instructor takes the class (again). KEYS meta, teacher; ARGV secret's SHA1, tab,
/// lease ms. `{OK, ends}` or a refusal.
pub static TEACH: ProxyScript = ProxyScript::new(
    "class_teach",
    concat!(
        r#"local m = redis.call('HMGET', KEYS[1], 'secret', 'ends')
if not m[1] then return {'NO_CLASS'} end
if m[1] ~= ARGV[1] then return {'FORBIDDEN'} end
local cur = redis.call('GET', KEYS[2])
if cur and cur ~= ARGV[2] then return {'TEACHER_ELSEWHERE'} end
"#,
        now!(),
        r#"redis.call('SET', KEYS[2], ARGV[2], 'PXAT', math.min(now + tonumber(ARGV[3]), tonumber(m[2])))
return {'OK', m[2]}"#
    ),
);

/// The instructor's lease renewed (or, with ARGV[3] = 0, let go). KEYS teacher, meta; ARGV
/// tab, lease ms, keep. 1 while the tab holds it.
pub static LEASE: ProxyScript = ProxyScript::new(
    "class_lease",
    concat!(
        r#"if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[3] == '0' then redis.call('DEL', KEYS[1]) return 0 end
local ends = redis.call('HGET', KEYS[2], 'ends')
if not ends then return 0 end
"#,
        now!(),
        r#"redis.call('PEXPIREAT', KEYS[1], math.min(now + tonumber(ARGV[2]), tonumber(ends)))
return 1"#
    ),
);

/// A student joins, or comes back with their token. KEYS meta, students, names, here, rate;
/// ARGV token (or ''), a new token, name, joins a token may make in a window, the window's
/// ms, the instructor's channel. `{OK, number, name, token, ends}` or a refusal.
pub static JOIN: ProxyScript = ProxyScript::new(
    "class_join",
    concat!(
        r#"local m = redis.call('HMGET', KEYS[1], 'ends', 'max')
if not m[1] then return {'NO_CLASS'} end
"#,
        now!(),
        r#"local sid = ARGV[1]
local who = false
if sid ~= '' then who = redis.call('HGET', KEYS[2], sid) end
if who then
  local j = redis.call('HINCRBY', KEYS[5], 'j:' .. sid, 1)
  redis.call('PEXPIRE', KEYS[5], 2 * tonumber(ARGV[5]))
  if j > tonumber(ARGV[4]) then return {'RATE_LIMITED'} end
else
  if redis.call('HLEN', KEYS[2]) >= tonumber(m[2]) then return {'FULL'} end
  sid = ARGV[2]
  who = redis.call('HINCRBY', KEYS[1], 'next', 1)
  redis.call('HSET', KEYS[2], sid, who)
  redis.call('HSET', KEYS[3], who, ARGV[3])
  redis.call('PEXPIREAT', KEYS[2], m[1])
  redis.call('PEXPIREAT', KEYS[3], m[1])
  redis.call('PUBLISH', ARGV[6], 's' .. who .. '|' .. ARGV[3])
end
redis.call('ZADD', KEYS[4], now, who)
redis.call('PEXPIREAT', KEYS[4], m[1])
return {'OK', tostring(who), redis.call('HGET', KEYS[3], who), sid, m[1]}"#
    ),
);

/// The instructor's new view, published to every page. KEYS meta, view, teacher, ans, res;
/// ARGV tab, view JSON, ask (1: a new question), reveal (1: answers close), set (1: a new
/// practice set), the class' channel. `{OK, seq}` or a refusal.
pub static SHOW: ProxyScript = ProxyScript::new(
    "class_show",
    r#"if redis.call('GET', KEYS[3]) ~= ARGV[1] then
  if redis.call('EXISTS', KEYS[1]) == 0 then return {'NO_CLASS'} end
  return {'TEACHER_ELSEWHERE'}
end
local m = redis.call('HMGET', KEYS[1], 'ends', 'q', 'open', 'set')
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
local q, open, set = m[2], m[3], m[4]
if ARGV[3] == '1' then q = seq open = '1' redis.call('DEL', KEYS[4]) end
if ARGV[4] == '1' then open = '0' end
if ARGV[5] == '1' then set = seq redis.call('DEL', KEYS[5]) end
redis.call('HSET', KEYS[1], 'q', q, 'open', open, 'set', set)
local v = seq .. '|' .. q .. '|' .. open .. '|' .. set .. '|' .. ARGV[2]
redis.call('SET', KEYS[2], v, 'PXAT', m[1])
redis.call('PUBLISH', ARGV[6], 'v' .. v)
return {'OK', tostring(seq)}"#,
);

/// A student's answer (one per student: a second replaces the first) or practice-set
/// result. KEYS meta, students, ans (or res), rate; ARGV token, question (or set) number,
/// value, answers a student may send in a window, the window's ms, the instructor's channel,
/// `a` (answer) or `r` (result). `{OK, changed}` or a refusal.
pub static ANSWER: ProxyScript = ProxyScript::new(
    "class_answer",
    r#"local m = redis.call('HMGET', KEYS[1], 'ends', 'q', 'open', 'set')
if not m[1] then return {'NO_CLASS'} end
local who = redis.call('HGET', KEYS[2], ARGV[1])
if not who then return {'FORBIDDEN'} end
if ARGV[7] == 'a' then
  if m[2] ~= ARGV[2] or m[3] ~= '1' then return {'CLOSED'} end
elseif m[4] ~= ARGV[2] then return {'CLOSED'} end
local n = redis.call('HINCRBY', KEYS[4], ARGV[7] .. ':' .. who, 1)
redis.call('PEXPIRE', KEYS[4], 2 * tonumber(ARGV[5]))
if n > tonumber(ARGV[4]) then return {'RATE_LIMITED'} end
local fresh = redis.call('HSET', KEYS[3], who, ARGV[3])
redis.call('PEXPIREAT', KEYS[3], m[1])
redis.call('PUBLISH', ARGV[6], ARGV[7] .. ARGV[2] .. '|' .. who .. '|' .. ARGV[3])
if fresh == 0 then return {'OK', '1'} end
return {'OK', '0'}"#,
);

/// The end: every key of the class deleted, every page told. KEYS meta, view, teacher,
/// students, names, here, ans, res, the rate windows now and before; ARGV tab, the class'
/// channel.
pub static END: ProxyScript = ProxyScript::new(
    "class_end",
    r#"if redis.call('GET', KEYS[3]) ~= ARGV[1] then
  if redis.call('EXISTS', KEYS[1]) == 0 then return {'NO_CLASS'} end
  return {'TEACHER_ELSEWHERE'}
end
redis.call('DEL', unpack(KEYS))
redis.call('PUBLISH', ARGV[2], 'e')
return {'OK'}"#,
);

/// Presence (production slide 14's sorted set, scores the time last seen), written as slide
/// 16 buffers it: this proxy's students of the class marked in one call (at most 300 a call).
/// KEYS here, meta; ARGV how long a mark lasts (ms), then numbers. The students present, or
/// -1 when the class is gone.
pub static PRESENT: ProxyScript = ProxyScript::new(
    "class_present",
    concat!(
        r#"local ends = redis.call('HGET', KEYS[2], 'ends')
if not ends then return -1 end
"#,
        now!(),
        r#"if #ARGV > 1 then
  local z = {}
  for i = 2, #ARGV do z[#z + 1] = now z[#z + 1] = ARGV[i] end
  redis.call('ZADD', KEYS[1], unpack(z))
  redis.call('PEXPIREAT', KEYS[1], ends)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[1]))
return redis.call('ZCARD', KEYS[1])"#
    ),
);

/// A fixed-window counter of one client address (production slide 18: the counter lives in
/// Redis, so every proxy counts against the same one). KEYS the counter; ARGV limit, window
/// ms, `peek` (1: only read). The count after this one, or -1 when at the limit.
pub static ADDRESS: ProxyScript = ProxyScript::new(
    "class_address",
    r#"local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n >= tonumber(ARGV[1]) then return -1 end
if ARGV[3] == '1' then return n end
n = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2], 'NX')
return n"#,
);

/// Every class script (loaded at start).
pub fn all() -> [&'static ProxyScript; 9] {
    [
        &CREATE, &TEACH, &LEASE, &JOIN, &SHOW, &ANSWER, &END, &PRESENT, &ADDRESS,
    ]
}

/// A script's reply: `{OK, …}` → the rest as strings; a refusal's name → the refusal.
pub fn reply(v: &Value) -> Result<Vec<String>, Refusal> {
    let Value::Array(a) = v else {
        return Err(Refusal::Unavailable);
    };
    let words: Vec<String> = a
        .iter()
        .map(|w| match w {
            Value::BulkString(b) => String::from_utf8_lossy(b).into_owned(),
            Value::SimpleString(s) => s.clone(),
            Value::Int(n) => n.to_string(),
            _ => String::new(),
        })
        .collect();
    match words.first().map(String::as_str) {
        Some("OK") => Ok(words[1..].to_vec()),
        Some(name) => Err(
            serde_json::from_value(serde_json::Value::String(name.into()))
                .unwrap_or(Refusal::Unavailable),
        ),
        None => Err(Refusal::Unavailable),
    }
}

/// Runs a class script.
///
/// # Errors
/// The proxy's error when Redis could not be reached or refused.
pub async fn run(
    backend: &Backend,
    s: &ProxyScript,
    keys: &[&str],
    args: &[&str],
) -> Result<Value, ErrBody> {
    let keys: Vec<&[u8]> = keys.iter().map(|k| k.as_bytes()).collect();
    let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
    backend.proxy_script(s, &keys, &args, true).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_of_a_class_is_in_its_slot() {
        let k = Keys::of("482917");
        let slot = crate::backend::key_slot(k.meta.as_bytes());
        for key in k
            .stored()
            .into_iter()
            .chain([k.all.as_str(), k.teach.as_str()])
        {
            assert_eq!(crate::backend::key_slot(key.as_bytes()), slot, "{key}");
        }
        assert_eq!(crate::backend::key_slot(k.rate(7).as_bytes()), slot);
        assert_eq!(Keys::channel(&k.all), Some(("482917", false)));
        assert_eq!(Keys::channel(&k.teach), Some(("482917", true)));
        assert_eq!(Keys::channel(&k.view), None);
    }

    #[test]
    fn replies_read() {
        let ok = Value::Array(vec![
            Value::BulkString(b"OK".to_vec()),
            Value::BulkString(b"7".to_vec()),
        ]);
        assert_eq!(reply(&ok), Ok(vec!["7".to_string()]));
        let full = Value::Array(vec![Value::BulkString(b"FULL".to_vec())]);
        assert_eq!(reply(&full), Err(Refusal::Full));
        assert_eq!(reply(&Value::Int(1)), Err(Refusal::Unavailable));
    }
}
