//! Lab parameters as the app's labs take them: named fields with ranges and the seeds'
//! defaults, read from and written to a URL query (`alpha=0.9&cache=300&seed=7`). A bad value
//! gets a message for a person (in Bengali) and leaves the last good value in place.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// What a field holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// A whole number in `min..=max`.
    Int {
        /// Smallest allowed.
        min: i64,
        /// Largest allowed.
        max: i64,
    },
    /// A number in `min..=max`.
    Float {
        /// Smallest allowed.
        min: f64,
        /// Largest allowed.
        max: f64,
    },
    /// One of these words.
    Choice(&'static [&'static str]),
    /// A comma-separated list of these words (at least one, no repeats).
    Many(&'static [&'static str]),
    /// An LRU-lab operation list (`put A, get B`).
    Ops,
}

/// One field of a lab's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Field {
    /// Query key.
    pub key: &'static str,
    /// Label shown beside the input.
    pub label: &'static str,
    /// What it holds.
    pub kind: Kind,
    /// The seed's value.
    pub default: &'static str,
}

pub(crate) const fn int(
    key: &'static str,
    label: &'static str,
    min: i64,
    max: i64,
    default: &'static str,
) -> Field {
    Field {
        key,
        label,
        kind: Kind::Int { min, max },
        default,
    }
}
const fn float(
    key: &'static str,
    label: &'static str,
    min: f64,
    max: f64,
    default: &'static str,
) -> Field {
    Field {
        key,
        label,
        kind: Kind::Float { min, max },
        default,
    }
}

/// Registry names of every eviction policy, for pickers.
pub const POLICY_NAMES: &[&str] = &[
    "fifo",
    "random",
    "lru",
    "lfu",
    "opt",
    "clock",
    "sieve",
    "redis-lru",
    "redis-lru-nopool",
    "redis-lfu",
    "slru",
    "2q",
    "arc",
    "w-tinylfu",
];
/// The three traces of seed 001 §4.
pub const TRACE_NAMES: &[&str] = &["zipf", "scan", "shift"];
/// The four stampede designs of seed 001 §7.
pub const MODE_NAMES: &[&str] = &["none", "lock", "stale", "xfetch"];

/// The LRU step-through (seed 001 §2).
pub const LRU: &[Field] = &[
    int("capacity", "ক্যাশের আকার", 1, 12, "3"),
    Field {
        key: "ops",
        label: "অপারেশন",
        kind: Kind::Ops,
        default: "put A, put B, put C, get A, put D, get B, get A",
    },
    Field {
        key: "policy",
        label: "policy",
        kind: Kind::Choice(POLICY_NAMES),
        default: "lru",
    },
    int("seed", "seed", 0, u32::MAX as i64, "1"),
];

/// The policy race (seed 001 §4).
pub const EVICTION: &[Field] = &[
    float("alpha", "Zipf α", 0.0, 3.0, "0.9"),
    int("cache", "ক্যাশ (key)", 1, 20_000, "300"),
    int("keys", "মোট key", 10, 200_000, "10000"),
    int("requests", "অনুরোধ", 1_000, 300_000, "60000"),
    int("warmup", "warm-up", 0, 299_000, "10000"),
    int("seed", "seed", 0, u32::MAX as i64, "7"),
    int("policy_seed", "policy seed", 0, u32::MAX as i64, "99"),
    Field {
        key: "policies",
        label: "policy",
        kind: Kind::Many(POLICY_NAMES),
        default: "fifo,random,lru,lfu,opt",
    },
    Field {
        key: "trace",
        label: "trace",
        kind: Kind::Choice(TRACE_NAMES),
        default: "zipf",
    },
    Field {
        key: "focus",
        label: "কার eviction দেখব",
        kind: Kind::Choice(POLICY_NAMES),
        default: "lru",
    },
    int("scan_period", "scan পালা (অনুরোধ)", 1, 100_000, "5000"),
    int("scan_keys", "scan key/অনুরোধ", 1, 8, "2"),
    int("shift_period", "shift পালা (অনুরোধ)", 1, 200_000, "20000"),
    int("shift_amount", "shift (key)", 0, 200_000, "3000"),
];

/// The sampled-LRU quality experiment (seed 001 §3).
pub const SAMPLING: &[Field] = &[
    int("keys", "key", 10, 100_000, "1000"),
    int("kmax", "সর্বোচ্চ k", 1, 32, "16"),
    int("trials", "পরীক্ষা", 10, 20_000, "2000"),
    int("seed", "seed", 0, u32::MAX as i64, "1"),
];

/// TTL jitter (seed 001 §5).
pub const JITTER: &[Field] = &[
    int("keys", "key", 1, 1_000_000, "100000"),
    int("ttl", "TTL (s)", 1, 86_400, "3600"),
    float("jitter", "jitter J", 0.0, 0.9, "0.1"),
    int("round", "কততম মেয়াদ", 1, 10, "1"),
    int("seed", "seed", 0, u32::MAX as i64, "5"),
];

/// The stampede comparison (seed 001 §7).
pub const STAMPEDE: &[Field] = &[
    float("rate", "অনুরোধ/s", 1.0, 20_000.0, "2000"),
    float("delta", "recompute Δ (s)", 0.001, 5.0, "0.05"),
    float("ttl", "TTL (s)", 0.1, 3_600.0, "10"),
    float("duration", "সময় (s)", 1.0, 600.0, "60"),
    float("beta", "β", 0.0, 10.0, "1"),
    int("seed", "seed", 0, u32::MAX as i64, "2026"),
];

/// On or off.
pub const ON_OFF: &[&str] = &["on", "off"];
/// Redis' health in the cache-engine lab.
pub const HEALTH_NAMES: &[&str] = &["healthy", "slow", "down"];
/// What the cache-engine lab finds in Redis at the start.
pub const START_NAMES: &[&str] = &["empty", "fresh", "stale", "old-version", "corrupt"];

pub(crate) const fn choice(
    key: &'static str,
    label: &'static str,
    words: &'static [&'static str],
    default: &'static str,
) -> Field {
    Field {
        key,
        label,
        kind: Kind::Choice(words),
        default,
    }
}

/// The cache engine (production deck, slides 4–6 and 19): see [`super::cache`].
pub const CACHE: &[Field] = &[
    int("instances", "API ইনস্ট্যান্স", 1, 12, "6"),
    int("concurrent", "একসাথে অনুরোধ", 1, 500, "40"),
    int("requests", "মোট অনুরোধ", 1, 20_000, "800"),
    int("loader", "DB লোড (ms)", 1, 20_000, "600"),
    int("fresh", "fresh TTL (ms)", 100, 600_000, "1500"),
    int("stale", "stale জানালা (ms)", 0, 600_000, "1000"),
    int("lock_ttl", "লকের TTL (ms)", 100, 60_000, "3000"),
    int("wait", "অপেক্ষার সীমা (ms)", 100, 60_000, "2000"),
    choice("singleflight", "singleFlight", ON_OFF, "on"),
    choice("lock", "Redis lock", ON_OFF, "on"),
    choice("poll", "poll & wait", ON_OFF, "on"),
    choice("rescue", "rescue lock", ON_OFF, "on"),
    choice("heartbeat", "heartbeat", ON_OFF, "on"),
    choice("recheck", "লকের পরে আবার পড়া", ON_OFF, "on"),
    choice("redis", "Redis-এর অবস্থা", HEALTH_NAMES, "healthy"),
    choice("start", "শুরুতে key", START_NAMES, "empty"),
    int("seed", "seed", 0, u32::MAX as i64, "6"),
];

/// The cache-engine lab's parameters, typed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheParams {
    /// API instances.
    pub instances: u32,
    /// Users sending requests at once.
    pub concurrent: u32,
    /// Requests in all.
    pub requests: u32,
    /// One database load, ms.
    pub loader: u64,
    /// Fresh TTL, ms.
    pub fresh: u64,
    /// Stale window, ms.
    pub stale: u64,
    /// Lock TTL, ms.
    pub lock_ttl: u64,
    /// How long a waiter polls, ms.
    pub wait: u64,
    /// `on` / `off`.
    pub singleflight: String,
    /// `on` / `off`.
    pub lock: String,
    /// `on` / `off`.
    pub poll: String,
    /// `on` / `off`.
    pub rescue: String,
    /// `on` / `off`.
    pub heartbeat: String,
    /// `on` / `off`.
    pub recheck: String,
    /// `healthy` / `slow` / `down`.
    pub redis: String,
    /// What is in Redis at the start.
    pub start: String,
    /// Seed.
    pub seed: u32,
}

impl CacheParams {
    /// The run these parameters describe.
    pub fn config(&self) -> super::cache::CacheConfig {
        use super::cache::{CacheConfig, Health, Layers, Start};
        let on = |s: &str| s == "on";
        CacheConfig {
            instances: self.instances,
            concurrent: self.concurrent,
            requests: self.requests,
            loader_ms: self.loader,
            fresh_ms: self.fresh,
            stale_ms: self.stale,
            lock_ttl_ms: self.lock_ttl,
            wait_ms: self.wait,
            layers: Layers {
                singleflight: on(&self.singleflight),
                lock: on(&self.lock),
                poll: on(&self.poll),
                rescue: on(&self.rescue),
                heartbeat: on(&self.heartbeat),
                recheck: on(&self.recheck),
            },
            redis: Health::parse(&self.redis),
            start: Start::parse(&self.start),
            seed: self.seed,
        }
    }
}

/// The LRU step-through's parameters, typed (see [`Params::typed`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LruParams {
    /// Cache size in keys.
    pub capacity: u32,
    /// The operations, `put A, get B, …`.
    pub ops: String,
    /// Registry name of the policy.
    pub policy: String,
    /// Seed of the policy's own randomness.
    pub seed: u32,
}

/// The policy race's parameters, typed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvictionParams {
    /// Zipf α.
    pub alpha: f64,
    /// Cache size in keys.
    pub cache: u32,
    /// Distinct user keys.
    pub keys: u32,
    /// User requests.
    pub requests: u32,
    /// User requests not scored at the start.
    pub warmup: u32,
    /// Trace seed.
    pub seed: u32,
    /// Seed of the policies' own randomness.
    pub policy_seed: u32,
    /// Registry names of the raced policies, in row order.
    pub policies: Vec<String>,
    /// The trace replayed on the timeline (`zipf`, `scan`, `shift`).
    pub trace: String,
    /// The policy whose evictions are explained.
    pub focus: String,
    /// Requests between scans.
    pub scan_period: u32,
    /// Scan keys per request.
    pub scan_keys: u32,
    /// Requests between popularity shifts.
    pub shift_period: u32,
    /// Keys the popularity moves by at each shift.
    pub shift_amount: u32,
}

impl EvictionParams {
    /// The policy race these parameters describe (the same run `labsim eviction` makes with
    /// the same values).
    pub fn config(&self) -> crate::EvictionConfig {
        use crate::eviction::trace::{Scan, Shift};
        let mut c = crate::EvictionConfig::default();
        c.trace.keys = self.keys;
        c.trace.alpha = self.alpha;
        c.trace.requests = self.requests;
        c.trace.seed = self.seed;
        c.trace.scan = Some(Scan {
            period: self.scan_period,
            keys_per_request: self.scan_keys,
        });
        c.trace.shift = Some(Shift {
            period: self.shift_period,
            amount: self.shift_amount,
        });
        c.cache = self.cache;
        c.warmup = u64::from(self.warmup);
        c.policy_seed = self.policy_seed;
        c.policies = self.policies.clone();
        c.traces = crate::TraceKind::ALL.to_vec();
        c
    }

    /// The trace shown on the timeline.
    pub fn kind(&self) -> crate::TraceKind {
        crate::TraceKind::parse(&self.trace).unwrap_or(crate::TraceKind::Zipf)
    }
}

/// The sampled-LRU experiment's parameters, typed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SamplingParams {
    /// Resident keys.
    pub keys: u32,
    /// Largest k (samples per eviction); the run measures k = 1..=kmax.
    pub kmax: u32,
    /// Evictions measured per k.
    pub trials: u32,
    /// Generator seed.
    pub seed: u32,
}

/// TTL jitter's parameters, typed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct JitterParams {
    /// Keys written at once.
    pub keys: u32,
    /// Base TTL in seconds.
    pub ttl: f64,
    /// J, the jitter share.
    pub jitter: f64,
    /// Which expiry.
    pub round: u32,
    /// Generator seed.
    pub seed: u32,
}

impl JitterParams {
    /// The setup shared by all cases.
    pub fn config(&self) -> super::jitter::JitterConfig {
        super::jitter::JitterConfig {
            keys: self.keys,
            ttl: self.ttl,
            seed: self.seed,
        }
    }

    /// The chosen case (J, round).
    pub fn case(&self) -> super::jitter::JitterCase {
        super::jitter::JitterCase {
            jitter: self.jitter,
            round: self.round,
        }
    }
}

/// The stampede comparison's parameters, typed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StampedeParams {
    /// Requests per second.
    pub rate: f64,
    /// Recompute time in seconds.
    pub delta: f64,
    /// TTL in seconds.
    pub ttl: f64,
    /// Simulated seconds.
    pub duration: f64,
    /// XFetch's β.
    pub beta: f64,
    /// Generator seed.
    pub seed: u32,
}

impl StampedeParams {
    /// The run these parameters describe, with chart buckets of a round width giving at
    /// most 300 buckets ([`super::stampede::bucket_width`]).
    pub fn config(&self) -> super::stampede::StampedeConfig {
        super::stampede::StampedeConfig {
            rate: self.rate,
            delta: self.delta,
            ttl: self.ttl,
            duration: self.duration,
            beta: self.beta,
            seed: self.seed,
            bucket: super::stampede::bucket_width(self.duration),
        }
    }
}

/// The fields of a lab by its id, if it exists.
pub fn fields(lab: &str) -> Option<&'static [Field]> {
    Some(match lab {
        "lru" => LRU,
        "eviction" => EVICTION,
        "sampling" => SAMPLING,
        "jitter" => JITTER,
        "stampede" => STAMPEDE,
        "cache" => CACHE,
        "lock" => super::lock::FIELDS,
        "streams" => super::streams::FIELDS,
        "broadcast" => super::broadcast::FIELDS,
        _ => return None,
    })
}

/// A rejected value: which field, and why (for a person).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// The field's key (or the unknown key).
    pub key: String,
    /// What is wrong and what would be right.
    pub message: String,
}

/// Checks `value` for `field`; returns it normalised (trimmed, lists without spaces).
///
/// # Errors
/// A message in Bengali saying what is allowed.
pub fn check(field: &Field, value: &str) -> Result<String, String> {
    let v = value.trim();
    match field.kind {
        Kind::Int { min, max } => match v.parse::<i64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(n.to_string()),
            _ => Err(format!("{min} থেকে {max}-এর মধ্যে একটা পূর্ণসংখ্যা দিন")),
        },
        Kind::Float { min, max } => match v.parse::<f64>() {
            Ok(x) if x.is_finite() && x >= min && x <= max => Ok(v.to_string()),
            _ => Err(format!("{min} থেকে {max}-এর মধ্যে একটা সংখ্যা দিন")),
        },
        Kind::Choice(words) => {
            let w = v.to_ascii_lowercase();
            if words.contains(&w.as_str()) {
                Ok(w)
            } else {
                Err(format!("এগুলোর একটা: {}", words.join(", ")))
            }
        }
        Kind::Many(words) => {
            let list: Vec<String> = v
                .split(',')
                .map(|s| s.trim().to_ascii_lowercase())
                .filter(|s| !s.is_empty())
                .collect();
            if list.is_empty() {
                return Err("অন্তত একটা policy দিন".into());
            }
            if let Some(bad) = list.iter().find(|w| !words.contains(&w.as_str())) {
                return Err(format!(
                    "`{}` চেনা নেই; এগুলো থেকে: {}",
                    short(bad),
                    words.join(", ")
                ));
            }
            if let Some(dup) = list
                .iter()
                .enumerate()
                .find(|(i, w)| list[..*i].contains(w))
            {
                return Err(format!("`{}` দুবার দেওয়া হয়েছে", dup.1));
            }
            if list.len() > 8 {
                return Err("একসাথে সর্বোচ্চ ৮টা policy".into());
            }
            Ok(list.join(","))
        }
        Kind::Ops => {
            let ops = crate::eviction::lru_trace::parse_ops(v)
                .map_err(|e| format!("অপারেশন পড়া গেল না: {e}"))?;
            if ops.is_empty() || ops.len() > 40 {
                return Err("১ থেকে ৪০টা অপারেশন দিন, যেমন `put A, get A`".into());
            }
            Ok(v.split(',').map(str::trim).collect::<Vec<_>>().join(", "))
        }
    }
}

fn short(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).take(24).collect()
}

/// A lab's parameter values (always valid).
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    fields: &'static [Field],
    values: Vec<String>,
}

impl Params {
    /// The seed's defaults.
    pub fn defaults(fields: &'static [Field]) -> Self {
        Params {
            fields,
            values: fields.iter().map(|f| f.default.to_string()).collect(),
        }
    }

    /// The fields.
    pub fn fields(&self) -> &'static [Field] {
        self.fields
    }

    /// Reads `a=1&b=2` (also `a=1 b=2`, as deck presets write it) over the defaults. Bad
    /// values and unknown keys are reported and leave the default in place.
    pub fn from_query(fields: &'static [Field], query: &str) -> (Self, Vec<FieldError>) {
        Params::from_pairs(
            fields,
            query
                .split(['&', ' '])
                .filter(|s| !s.is_empty())
                .map(|pair| {
                    let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                    (k.to_string(), decode(v))
                }),
        )
    }

    /// Sets `(key, value)` pairs over the defaults, each checked on its own, then the rules
    /// between fields once (so `requests=6000&warmup=1000` is as good as the other order).
    /// Bad values and unknown keys are reported and leave the default in place.
    pub fn from_pairs(
        fields: &'static [Field],
        pairs: impl IntoIterator<Item = (String, String)>,
    ) -> (Self, Vec<FieldError>) {
        let mut p = Params::defaults(fields);
        let mut errors = Vec::new();
        for (k, v) in pairs {
            let checked = match p.index(&k) {
                None => Err(format!("`{}` নামে কোনো প্যারামিটার নেই", short(&k))),
                Some(i) => check(&fields[i], &v).map(|v| p.values[i] = v),
            };
            if let Err(message) = checked {
                errors.push(FieldError {
                    key: short(&k),
                    message,
                });
            }
        }
        // Each broken rule puts its field back to the default (which keeps every rule).
        while let Err((key, message)) = p.cross_check() {
            let d = Params::defaults(fields);
            let i = p.index(key).expect("known key");
            if p.values[i] == d.values[i] {
                return (d, errors);
            }
            p.values[i] = d.values[i].clone();
            errors.push(FieldError {
                key: key.into(),
                message,
            });
        }
        (p, errors)
    }

    fn index(&self, key: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.key == key)
    }

    /// Sets one field after checking it, and the rules between fields.
    ///
    /// # Errors
    /// The message for the field; the value is left unchanged.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let Some(i) = self.index(key) else {
            return Err(format!("`{}` নামে কোনো প্যারামিটার নেই", short(key)));
        };
        let v = check(&self.fields[i], value)?;
        let old = std::mem::replace(&mut self.values[i], v);
        if let Err((_, message)) = self.cross_check() {
            self.values[i] = old;
            return Err(message);
        }
        Ok(())
    }

    /// Rules between fields (e.g. warm-up shorter than the run).
    fn cross_check(&self) -> Result<(), (&'static str, String)> {
        if let (Some(w), Some(r)) = (self.index("warmup"), self.index("requests")) {
            if self.values[w].parse::<u64>().unwrap_or(0)
                >= self.values[r].parse::<u64>().unwrap_or(1)
            {
                return Err(("warmup", "warm-up মোট অনুরোধের চেয়ে কম হতে হবে".into()));
            }
        }
        if let (Some(c), Some(k)) = (self.index("cache"), self.index("keys")) {
            if self.values[c].parse::<u64>().unwrap_or(0)
                > self.values[k].parse::<u64>().unwrap_or(0)
            {
                return Err((
                    "cache",
                    "ক্যাশ মোট key-এর চেয়ে বড় হলে সব hit — key-এর চেয়ে ছোট দিন".into(),
                ));
            }
        }
        if let (Some(c), Some(t)) = (self.index("chunk"), self.index("tokens")) {
            // The broadcast lab: batch jobs (× broadcast jobs without dedup) within a bound.
            let num = |i: usize| self.values[i].parse::<u64>().unwrap_or(1).max(1);
            let page = self.index("page").map_or(u64::MAX, num);
            let per = num(c).min(page);
            let copies = match (self.index("clicks"), self.index("dedup")) {
                (Some(k), Some(d)) if self.values[d] == "off" => num(k),
                _ => 1,
            };
            if num(t).div_ceil(per) * copies > super::broadcast::MAX_JOBS {
                return Err((
                    "chunk",
                    format!(
                        "ব্যাচ (টোকেন ÷ chunk, ক্লিক ধরে) {}-এর বেশি হলে হিসাব অনেক লম্বা — chunk বাড়ান বা টোকেন কমান",
                        super::broadcast::MAX_JOBS
                    ),
                ));
            }
        }
        Ok(())
    }

    /// A field's value as text.
    pub fn get(&self, key: &str) -> &str {
        self.index(key).map_or("", |i| self.values[i].as_str())
    }

    /// The values as the lab's typed parameter struct (`EvictionParams`, …): every field by
    /// its key, whole numbers and numbers as JSON numbers, lists as arrays.
    ///
    /// # Panics
    /// If `T` does not match the field table (a programming error the tests catch:
    /// `every_lab_has_fields_with_valid_defaults`).
    pub fn typed<T: DeserializeOwned>(&self) -> T {
        let map: serde_json::Map<String, serde_json::Value> = self
            .fields
            .iter()
            .zip(&self.values)
            .map(|(f, v)| {
                let value = match f.kind {
                    Kind::Int { .. } => serde_json::Value::from(v.parse::<i64>().unwrap_or(0)),
                    Kind::Float { .. } => serde_json::Value::from(v.parse::<f64>().unwrap_or(0.0)),
                    Kind::Many(_) => v
                        .split(',')
                        .filter(|s| !s.is_empty())
                        .map(serde_json::Value::from)
                        .collect(),
                    Kind::Choice(_) | Kind::Ops => serde_json::Value::from(v.as_str()),
                };
                (f.key.to_string(), value)
            })
            .collect();
        serde_json::from_value(serde_json::Value::Object(map))
            .unwrap_or_else(|e| panic!("typed parameters do not match the field table: {e}"))
    }

    /// The query that reproduces these values (`alpha=0.9&cache=300&…`).
    pub fn to_query(&self) -> String {
        self.fields
            .iter()
            .zip(&self.values)
            .map(|(f, v)| format!("{}={}", f.key, encode(v)))
            .collect::<Vec<_>>()
            .join("&")
    }
}

fn encode(v: &str) -> String {
    v.chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '.' | '-' | '_' | ',' => c.to_string(),
            ' ' => "+".into(),
            c => {
                let mut b = [0; 4];
                c.encode_utf8(&mut b)
                    .bytes()
                    .map(|x| format!("%{x:02X}"))
                    .collect()
            }
        })
        .collect()
}

fn decode(v: &str) -> String {
    let bytes = v.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eviction::POLICIES;

    #[test]
    fn default_eviction_parameters_are_the_seed_table() {
        let c = Params::defaults(EVICTION)
            .typed::<EvictionParams>()
            .config();
        let t = crate::eviction_table(&c).unwrap().to_text();
        assert!(t.contains("LRU          39.1%     31.9%     39.0%"), "{t}");
        assert_eq!(
            t,
            crate::eviction_table(&crate::EvictionConfig::default())
                .unwrap()
                .to_text()
        );
    }

    #[test]
    fn default_jitter_and_stampede_parameters_are_the_seeds() {
        let p: JitterParams = Params::defaults(JITTER).typed();
        assert_eq!(p.config(), super::super::jitter::JitterConfig::default());
        let c = p.case();
        assert_eq!((c.jitter, c.round), (0.1, 1));
        let s: StampedeParams = Params::defaults(STAMPEDE).typed();
        assert_eq!(
            super::super::stampede::StampedeConfig {
                bucket: 0.1,
                ..s.config()
            },
            super::super::stampede::StampedeConfig::default()
        );
    }

    #[test]
    fn defaults_are_the_seeds() {
        let p: EvictionParams = Params::defaults(EVICTION).typed();
        assert_eq!((p.alpha, p.cache, p.seed), (0.9, 300, 7));
        assert_eq!(p.policies, ["fifo", "random", "lru", "lfu", "opt"]);
        assert_eq!(p.kind(), crate::TraceKind::Zipf);
        assert_eq!(
            Params::defaults(JITTER).typed::<JitterParams>().keys,
            100_000
        );
        assert_eq!(
            Params::defaults(STAMPEDE).typed::<StampedeParams>().delta,
            0.05
        );
        assert_eq!(Params::defaults(LRU).typed::<LruParams>().capacity, 3);
        let s: SamplingParams = Params::defaults(SAMPLING).typed();
        assert_eq!((s.keys, s.kmax, s.trials, s.seed), (1000, 16, 2000, 1));
    }

    #[test]
    fn query_round_trip() {
        let (p, errs) = Params::from_query(
            EVICTION,
            "alpha=1.1&cache=500&policies=lru,arc,opt&trace=scan",
        );
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(p.typed::<EvictionParams>().alpha, 1.1);
        let (q, errs) = Params::from_query(EVICTION, &p.to_query());
        assert!(errs.is_empty());
        assert_eq!(p, q);
        let (l, errs) = Params::from_query(LRU, "ops=get+A%2C+put+B&capacity=2");
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(l.get("ops"), "get A, put B");
        assert_eq!(Params::from_query(LRU, &l.to_query()).0, l);
        // The order of the pairs does not matter for the rules between fields.
        let (a, e1) = Params::from_query(EVICTION, "requests=6000&warmup=1000");
        let (b, e2) = Params::from_query(EVICTION, "warmup=1000&requests=6000");
        assert!(e1.is_empty() && e2.is_empty(), "{e1:?} {e2:?}");
        assert_eq!(a, b);
        // Deck presets write pairs separated by spaces.
        let (d, errs) =
            Params::from_query(EVICTION, "trace=scan policies=lru,slru,arc,w-tinylfu,opt");
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(d.get("trace"), "scan");
    }

    #[test]
    fn bad_values_are_reported_and_change_nothing() {
        for (q, key) in [
            ("alpha=abc", "alpha"),
            ("alpha=-1", "alpha"),
            ("alpha=NaN", "alpha"),
            ("alpha=inf", "alpha"),
            ("cache=0", "cache"),
            ("cache=1.5", "cache"),
            ("seed=-3", "seed"),
            ("seed=99999999999", "seed"),
            ("policies=lru,nope", "policies"),
            ("policies=lru,lru", "policies"),
            ("policies=", "policies"),
            ("trace=zigzag", "trace"),
            ("colour=red", "colour"),
            ("warmup=60000", "warmup"),
            ("cache=20000", "cache"),
            ("%ZZ=1", "%ZZ"),
        ] {
            let (p, errs) = Params::from_query(EVICTION, q);
            assert_eq!(errs.len(), 1, "{q}: {errs:?}");
            assert_eq!(errs[0].key, key, "{q}");
            assert!(!errs[0].message.is_empty());
            assert_eq!(p, Params::defaults(EVICTION), "{q} changed a value");
        }
        // Two rules broken at once: both fields back to the seed's values.
        let (p, errs) = Params::from_query(EVICTION, "warmup=70000&cache=20000");
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert_eq!(p, Params::defaults(EVICTION));
        let mut p = Params::defaults(LRU);
        assert!(p.set("ops", "fly A").is_err());
        assert!(p.set("capacity", "13").is_err());
        assert_eq!(p, Params::defaults(LRU));
        assert!(p.set("capacity", " 5 ").is_ok());
        assert_eq!(p.typed::<LruParams>().capacity, 5);
    }

    /// Every field of every lab refuses every malformed and out-of-range value with a
    /// message in Bengali, and the last good values (typed ones too) stay as they were.
    #[test]
    fn every_bad_value_of_every_lab_gets_a_bengali_message_and_changes_nothing() {
        let bengali = |m: &str| m.chars().any(|c| ('\u{0980}'..='\u{09FF}').contains(&c));
        for lab in [
            "lru",
            "eviction",
            "sampling",
            "jitter",
            "stampede",
            "broadcast",
        ] {
            let fields = fields(lab).unwrap();
            let good = Params::defaults(fields);
            let typed = typed_of(lab, &good);
            for f in fields {
                let mut bad: Vec<String> = vec!["".into(), "abc".into(), "\u{0}".into()];
                match f.kind {
                    Kind::Int { min, max } => bad.extend([
                        (min - 1).to_string(),
                        (max + 1).to_string(),
                        "1.5".into(),
                        "1e3".into(),
                        "99999999999999999999".into(),
                    ]),
                    Kind::Float { min, max } => bad.extend([
                        (min - 1.0).to_string(),
                        (max * 2.0 + 1.0).to_string(),
                        "NaN".into(),
                        "inf".into(),
                        "-inf".into(),
                        "1e999".into(),
                    ]),
                    Kind::Choice(_) => bad.extend(["nope".into(), "lru,fifo".into()]),
                    Kind::Many(_) => bad.extend([
                        "lru,lru".into(),
                        "lru,nope".into(),
                        ",,".into(),
                        "fifo,random,lru,lfu,opt,clock,sieve,arc,2q".into(),
                    ]),
                    Kind::Ops => bad.extend(["fly A".into(), "get".into(), "put A B".into()]),
                }
                for v in &bad {
                    let mut p = good.clone();
                    let m = p
                        .set(f.key, v)
                        .expect_err(&format!("{lab}.{} accepted {v:?}", f.key));
                    assert!(bengali(&m), "{lab}.{} {v:?}: {m}", f.key);
                    assert_eq!(p, good, "{lab}.{} {v:?} changed a value", f.key);
                    assert_eq!(typed_of(lab, &p), typed, "{lab}.{} {v:?}", f.key);
                }
            }
        }
    }

    /// A lab's typed parameters, as JSON (to compare them whatever the lab).
    fn typed_of(lab: &str, p: &Params) -> serde_json::Value {
        let v = match lab {
            "lru" => serde_json::to_value(p.typed::<LruParams>()),
            "eviction" => serde_json::to_value(p.typed::<EvictionParams>()),
            "sampling" => serde_json::to_value(p.typed::<SamplingParams>()),
            "jitter" => serde_json::to_value(p.typed::<JitterParams>()),
            "broadcast" => {
                serde_json::to_value(p.typed::<crate::labs::broadcast::BroadcastParams>())
            }
            _ => serde_json::to_value(p.typed::<StampedeParams>()),
        };
        v.expect("typed parameters serialise")
    }

    #[test]
    fn every_lab_has_fields_with_valid_defaults() {
        for lab in [
            "lru",
            "eviction",
            "sampling",
            "jitter",
            "stampede",
            "cache",
            "lock",
            "streams",
            "broadcast",
        ] {
            let f = fields(lab).unwrap();
            for field in f {
                assert_eq!(
                    check(field, field.default).as_deref(),
                    Ok(field.default),
                    "{lab}.{}",
                    field.key
                );
            }
        }
        assert!(fields("nope").is_none());
        for name in POLICY_NAMES {
            assert!(
                POLICIES
                    .iter()
                    .any(|p| p.name == *name || p.aliases.contains(name)),
                "{name} is not in the registry"
            );
        }
    }
}
