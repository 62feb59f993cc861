//! Server commands: PING, ECHO, DBSIZE, FLUSHALL / FLUSHDB, INFO, CONFIG, DEBUG.
//!
//! INFO answers the sections SimRedis models, with Redis 7.0's field names: `server` (a
//! few fields), `memory` (`used_memory` as [`super::evict`] estimates it, `maxmemory`,
//! `maxmemory_policy`), `stats` (`expired_keys`, `evicted_keys`), `replication` and
//! `keyspace` (`db0:keys=…,expires=…,avg_ttl=…`, keys counted until reclaimed, as Redis
//! counts them). CONFIG GET / SET know `maxmemory`, `maxmemory-policy`,
//! `maxmemory-samples`, `hz` and `hll-sparse-max-bytes`; DEBUG knows `SET-ACTIVE-EXPIRE`
//! and `RELOAD` (see [`super::rdb`]; SimRedis behaves as a server started with
//! `enable-debug-command local`).

use super::evict::Policy;
use super::num::parse_i64;
use super::pubsub::glob_match;
use super::{arity_error, Reply, SimRedis, SYNTAX};

/// `bytesToHuman`.
fn human(n: u64) -> String {
    let d = n as f64;
    if n < 1024 {
        format!("{n}B")
    } else if n < 1024 * 1024 {
        format!("{:.2}K", d / 1024.0)
    } else if n < 1024 * 1024 * 1024 {
        format!("{:.2}M", d / (1024.0 * 1024.0))
    } else {
        format!("{:.2}G", d / (1024.0 * 1024.0 * 1024.0))
    }
}

/// `memtoull`: digits and an optional unit (`b`, `k`, `kb`, `m`, `mb`, `g`, `gb`).
fn parse_memory(s: &[u8]) -> Option<u64> {
    let t = std::str::from_utf8(s).ok()?;
    if t.starts_with('-') {
        return None;
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let mul: u64 = match t[digits..].to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" => 1000,
        "kb" => 1024,
        "m" => 1_000_000,
        "mb" => 1024 * 1024,
        "g" => 1_000_000_000,
        "gb" => 1024 * 1024 * 1024,
        _ => return None,
    };
    if digits == 0 {
        return Some(0); // strtoull of "" is 0 without an error
    }
    t[..digits].parse::<u64>().ok().map(|v| v.wrapping_mul(mul))
}

/// The configuration parameters SimRedis knows.
const PARAMS: [&str; 5] = [
    "maxmemory",
    "maxmemory-policy",
    "maxmemory-samples",
    "hz",
    "hll-sparse-max-bytes",
];

impl SimRedis {
    pub(crate) fn ping(&mut self, a: &[&[u8]]) -> Reply {
        match a.len() {
            1 => Reply::Status("PONG".into()),
            2 => Reply::Bulk(a[1].to_vec()),
            _ => arity_error(b"ping"),
        }
    }

    pub(crate) fn echo(&mut self, a: &[&[u8]]) -> Reply {
        Reply::Bulk(a[1].to_vec())
    }

    pub(crate) fn dbsize_cmd(&mut self, _a: &[&[u8]]) -> Reply {
        Reply::Integer(self.keys.len() as i64)
    }

    pub(crate) fn flushall(&mut self, a: &[&[u8]]) -> Reply {
        match a.get(1) {
            None => {}
            Some(m) if m.eq_ignore_ascii_case(b"sync") || m.eq_ignore_ascii_case(b"async") => {}
            Some(_) => return Reply::err(SYNTAX),
        }
        if a.len() > 2 {
            return Reply::err(SYNTAX);
        }
        self.flush();
        Reply::ok()
    }

    /// The INFO text of one section, if SimRedis models it.
    fn info_section(&self, name: &str) -> Option<String> {
        let mut s = String::new();
        let mut line = |k: &str, v: &dyn std::fmt::Display| {
            s.push_str(&format!("{k}:{v}\r\n"));
        };
        match name {
            "server" => {
                line("redis_version", &"7.0.15");
                line("redis_mode", &"standalone");
                line("hz", &self.exp.cfg.hz);
                line("uptime_in_seconds", &(self.now / 1000));
                line("uptime_in_days", &(self.now / 86_400_000));
            }
            "memory" => {
                let used = self.used_memory();
                line("used_memory", &used);
                line("used_memory_human", &human(used));
                line("maxmemory", &self.mem.maxmemory);
                line("maxmemory_human", &human(self.mem.maxmemory));
                line("maxmemory_policy", &self.mem.policy.name());
            }
            "stats" => {
                let st = self.exp.stats;
                line("expired_keys", &(st.lazy + st.active));
                line("evicted_keys", &self.stat_evicted);
            }
            "replication" => return Some(format!("# Replication\r\n{}", self.repl.info())),
            "keyspace" => {
                let (keys, vkeys) = (self.keys.len(), self.volatile.len());
                let mut s = String::from("# Keyspace\r\n");
                if keys > 0 || vkeys > 0 {
                    s.push_str(&format!(
                        "db0:keys={keys},expires={vkeys},avg_ttl={}\r\n",
                        self.exp.avg_ttl
                    ));
                }
                return Some(s);
            }
            _ => return None,
        }
        let title = match name {
            "server" => "Server",
            "memory" => "Memory",
            _ => "Stats",
        };
        Some(format!("# {title}\r\n{s}"))
    }

    pub(crate) fn info(&mut self, a: &[&[u8]]) -> Reply {
        const ALL: [&str; 5] = ["server", "memory", "stats", "replication", "keyspace"];
        let mut wanted: Vec<&str> = Vec::new();
        if a.len() == 1 {
            wanted.extend(ALL);
        }
        for w in &a[1..] {
            let w = w.to_ascii_lowercase();
            match w.as_slice() {
                b"all" | b"everything" | b"default" => wanted.extend(ALL),
                _ => {
                    if let Some(n) = ALL.iter().find(|n| n.as_bytes() == w.as_slice()) {
                        wanted.push(n);
                    }
                }
            }
        }
        let sections: Vec<String> = ALL
            .iter()
            .filter(|n| wanted.contains(n))
            .filter_map(|n| self.info_section(n))
            .collect();
        Reply::Bulk(sections.join("\r\n").into_bytes())
    }

    fn config_value(&self, name: &str) -> String {
        match name {
            "maxmemory" => self.mem.maxmemory.to_string(),
            "maxmemory-policy" => self.mem.policy.name().to_string(),
            "maxmemory-samples" => self.mem.samples.to_string(),
            "hz" => self.exp.cfg.hz.to_string(),
            _ => self.hll_sparse_max.to_string(),
        }
    }

    /// CONFIG GET / SET / RESETSTAT / HELP (subcommand and arity checked by the table).
    pub(crate) fn config(&mut self, a: &[&[u8]]) -> Reply {
        let sub = a[1].to_ascii_lowercase();
        match sub.as_slice() {
            b"get" => {
                let mut names: Vec<&str> = Vec::new();
                for pat in &a[2..] {
                    let pat = pat.to_ascii_lowercase();
                    for p in PARAMS {
                        if glob_match(&pat, p.as_bytes()) && !names.contains(&p) {
                            names.push(p);
                        }
                    }
                }
                Reply::Array(
                    names
                        .iter()
                        .flat_map(|n| [Reply::bulk(*n), Reply::bulk(self.config_value(n))])
                        .collect(),
                )
            }
            b"set" => self.config_set(a),
            b"resetstat" => {
                self.exp.stats = Default::default();
                self.stat_evicted = 0;
                Reply::ok()
            }
            b"rewrite" => Reply::err("ERR The server is running without a config file"),
            _ => Reply::Array(
                [
                    "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                    "GET <pattern>",
                    "    Return parameters matching the glob-like <pattern> and their values.",
                    "SET <directive> <value>",
                    "    Set the configuration <directive> to <value>.",
                    "RESETSTAT",
                    "    Reset statistics reported by the INFO command.",
                    "REWRITE",
                    "    Rewrite the configuration file.",
                    "HELP",
                    "    Prints this help.",
                ]
                .iter()
                .map(|s| Reply::Status((*s).into()))
                .collect(),
            ),
        }
    }

    fn config_set(&mut self, a: &[&[u8]]) -> Reply {
        if a.len() % 2 == 1 {
            return arity_error(b"config|set");
        }
        // Validate every pair first: CONFIG SET applies all or nothing.
        let mut changes = Vec::new();
        for pair in a[2..].chunks(2) {
            let name = String::from_utf8_lossy(pair[0]).to_ascii_lowercase();
            let Some(&p) = PARAMS.iter().find(|p| **p == name) else {
                return Reply::Error(format!(
                    "ERR Unknown option or number of arguments for CONFIG SET - '{}'",
                    String::from_utf8_lossy(pair[0])
                ));
            };
            let fail = |why: &str| {
                Reply::Error(format!(
                    "ERR CONFIG SET failed (possibly related to argument '{p}') - {why}"
                ))
            };
            let v = pair[1];
            let int = |lo: i64, hi: i64| -> Result<i64, Reply> {
                let n = parse_i64(v)
                    .ok_or_else(|| fail("argument couldn't be parsed into an integer"))?;
                if !(lo..=hi).contains(&n) {
                    return Err(fail(&format!(
                        "argument must be between {lo} and {hi} inclusive"
                    )));
                }
                Ok(n)
            };
            let change = match p {
                "maxmemory" => match parse_memory(v) {
                    Some(n) => (p, n),
                    None => return fail("argument must be a memory value"),
                },
                "maxmemory-policy" => match Policy::parse(v) {
                    Some(pol) => (p, pol as u64),
                    None => {
                        let names: Vec<&str> = Policy::ALL.iter().map(|(_, n)| *n).collect();
                        return fail(&format!(
                            "argument(s) must be one of the following: {}",
                            names.join(", ")
                        ));
                    }
                },
                "maxmemory-samples" => match int(1, i64::from(i32::MAX)) {
                    Ok(n) => (p, n as u64),
                    Err(e) => return e,
                },
                "hz" => match int(0, i64::from(i32::MAX)) {
                    Ok(n) => (p, n.clamp(1, 500) as u64),
                    Err(e) => return e,
                },
                _ => match parse_memory(v) {
                    Some(n) if n <= i64::MAX as u64 => (p, n),
                    _ => return fail("argument must be a memory value"),
                },
            };
            changes.push(change);
        }
        for (p, n) in changes {
            match p {
                "maxmemory" => self.mem.maxmemory = n,
                "maxmemory-policy" => {
                    self.mem.policy = Policy::ALL
                        .iter()
                        .map(|(pol, _)| *pol)
                        .find(|pol| *pol as u64 == n)
                        .expect("a policy")
                }
                "maxmemory-samples" => self.mem.samples = n as u32,
                "hz" => self.exp.cfg.hz = n as u32,
                _ => self.hll_sparse_max = n as usize,
            }
        }
        self.memory_config_changed();
        if self.mem.maxmemory > 0 {
            self.perform_evictions();
        }
        Reply::ok()
    }

    pub(crate) fn debug(&mut self, a: &[&[u8]]) -> Reply {
        if a[1].eq_ignore_ascii_case(b"reload") && a.len() == 2 {
            self.debug_reload();
            return Reply::ok();
        }
        if a[1].eq_ignore_ascii_case(b"set-active-expire") && a.len() == 3 {
            let on = std::str::from_utf8(a[2])
                .ok()
                .and_then(|t| {
                    let d: String = t
                        .trim_start()
                        .chars()
                        .take_while(|c| c.is_ascii_digit() || *c == '-')
                        .collect();
                    d.parse::<i64>().ok()
                })
                .unwrap_or(0);
            self.exp.enabled = on != 0;
            return Reply::ok();
        }
        Reply::Error(format!(
            "ERR unknown subcommand or wrong number of arguments for '{}'. Try DEBUG HELP.",
            String::from_utf8_lossy(&a[1][..a[1].len().min(128)])
        ))
    }
}
