//! The proxy's own Lua scripts (never a client's): the bookkeeping that follows a session's
//! write in the same round trip, and the session's view of TTLs.
//!
//! Every key a session writes gets an expiry the moment it is written — the session's
//! *backstop*, an absolute time (session start + its longest life + the grace) — so no key can
//! outlive its session by more than that, whatever happens to the proxy. The labs still see
//! Redis' own TTL semantics: a key whose only expiry is the backstop reads `TTL -1`, PERSIST
//! puts the backstop back, EXPIRE's NX/XX/GT/LT see the lab's own TTL only.

use std::sync::OnceLock;

/// One of the proxy's scripts: its source and (computed once) its SHA1.
pub struct ProxyScript {
    pub name: &'static str,
    pub source: &'static str,
    sha: OnceLock<String>,
}

impl ProxyScript {
    pub(crate) const fn new(name: &'static str, source: &'static str) -> Self {
        ProxyScript {
            name,
            source,
            sha: OnceLock::new(),
        }
    }

    /// Lower-case hex SHA1 of the source (what `SCRIPT LOAD` returns).
    pub fn sha1(&self) -> &str {
        self.sha.get_or_init(|| {
            use sha1::{Digest, Sha1};
            Sha1::digest(self.source.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect()
        })
    }
}

/// After a write, pipelined right behind it (Redis runs the two back to back: they arrive in
/// one write to the socket). `KEYS[1]` the session's tracking set, `KEYS[2..]` the write's
/// keys; `ARGV[1]` the backstop (unix ms), `ARGV[2]` one `0`/`1` per key: `1` for a key the
/// write may have created — it joins the tracking set and gets the backstop unless it has an
/// expiry (NX: the lab's own TTL is kept). Returns, per key, its type and size: a string's
/// length, a collection's elements; a stream's entries, pending entries, groups, consumers.
pub static AFTER: ProxyScript = ProxyScript::new(
    "after",
    r#"local b = ARGV[1]
local mask = ARGV[2]
local out = {}
local made = false
for i = 2, #KEYS do
  local k = KEYS[i]
  if string.byte(mask, i - 1) == 49 then
    redis.call('SADD', KEYS[1], k)
    redis.call('PEXPIREAT', k, b, 'NX')
    made = true
  end
  local t = redis.call('TYPE', k)['ok']
  local n, p, g, c = 0, 0, 0, 0
  if t == 'string' then n = redis.call('STRLEN', k)
  elseif t == 'list' then n = redis.call('LLEN', k)
  elseif t == 'hash' then n = redis.call('HLEN', k)
  elseif t == 'zset' then n = redis.call('ZCARD', k)
  elseif t == 'set' then n = redis.call('SCARD', k)
  elseif t == 'stream' then
    n = redis.call('XLEN', k)
    for _, gr in ipairs(redis.call('XINFO', 'GROUPS', k)) do
      g = g + 1
      for j = 1, #gr, 2 do
        if gr[j] == 'consumers' then c = c + gr[j + 1]
        elseif gr[j] == 'pending' then p = p + gr[j + 1] end
      end
    end
  end
  out[#out + 1] = t
  out[#out + 1] = n
  out[#out + 1] = p
  out[#out + 1] = g
  out[#out + 1] = c
end
if made then redis.call('PEXPIREAT', KEYS[1], b) end
return out"#,
);

/// TTL, PTTL, PERSIST, EXPIRE and PEXPIRE as the lab sees them. `KEYS[1]` the key; `ARGV[1]`
/// the backstop, `ARGV[2]` the command (lower case), `ARGV[3]` EXPIRE's amount, `ARGV[4]` its
/// option (`NX`, `XX`, `GT`, `LT` or empty). An expiry equal to the backstop is "none"; one
/// asked for past the backstop is kept just before it.
pub static VTTL: ProxyScript = ProxyScript::new(
    "vttl",
    r#"local k = KEYS[1]
local b = tonumber(ARGV[1])
local cmd = ARGV[2]
local at = redis.call('PEXPIRETIME', k)
if at == -2 then
  if cmd == 'ttl' or cmd == 'pttl' then return -2 end
  if cmd ~= 'persist' and not string.match(ARGV[3], '^-?%d+$') then
    return redis.error_reply('ERR value is not an integer or out of range')
  end
  return 0
end
local lab = at
if at == -1 or at == b then lab = nil end
if cmd == 'ttl' or cmd == 'pttl' then
  if lab == nil then return -1 end
  return redis.call(cmd, k)
end
if cmd == 'persist' then
  if lab == nil then return 0 end
  redis.call('PEXPIREAT', k, b)
  return 1
end
if not string.match(ARGV[3], '^-?%d+$') then
  return redis.error_reply('ERR value is not an integer or out of range')
end
local n = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local want = now + n
if cmd == 'expire' then want = now + n * 1000 end
local opt = ARGV[4]
if opt == 'NX' and lab ~= nil then return 0 end
if opt == 'XX' and lab == nil then return 0 end
if opt == 'GT' and (lab == nil or want <= lab) then return 0 end
if opt == 'LT' and lab ~= nil and want >= lab then return 0 end
if want <= now then
  redis.call('DEL', k)
  return 1
end
if want >= b then want = b - 1 end
redis.call('PEXPIREAT', k, want)
return 1"#,
);

/// All of them (loaded at start, and again on NOSCRIPT).
pub fn all() -> [&'static ProxyScript; 2] {
    [&AFTER, &VTTL]
}
