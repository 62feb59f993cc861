//! The random generator's newer half: strings (DECR … PSETEX), keys (UNLINK, RENAME,
//! EXPIREAT, EXPIRETIME, OBJECT ENCODING, SCAN), lists (RPOPLPUSH, BLPOP, LPOS, LINDEX,
//! LSET, LTRIM, LINSERT), hashes, sets, sorted sets (ZCOUNT … ZUNIONSTORE), HyperLogLog,
//! MULTI/EXEC/WATCH, INFO keyspace and scripts, with wrong types, arities and options.
//!
//! Some replies cannot be compared as they are, and [`special`] runs those commands on both
//! sides itself:
//! * a full SCAN / HSCAN / SSCAN / ZSCAN iteration (the pseudo-command `#SCAN …`): the
//!   cursors differ by design (see `redis::scan`), so the sets of elements a full
//!   iteration returns are compared, and a one-page answer (listpack, intset) exactly;
//! * SPOP and SRANDMEMBER pick at random on each side: the shapes are compared (nil, one
//!   member, how many, distinct or not, all members of the set), then the real server is
//!   brought to SimRedis' state (SADD what it popped, SREM what SimRedis popped);
//! * replies in a hash table's order (SMEMBERS, SINTER, SUNION, SDIFF, and HGETALL, HKEYS,
//!   HVALS of a hash past its listpack) are compared as sorted lists: Redis' own order there
//!   follows a per-process random seed;
//! * INFO keyspace without `avg_ttl` (Redis' estimate comes from its own random samples).

use super::{Gen, ALL_KEYS, INTS, MEMBERS, RANGES, RANKS, SCORES, VALUES};
use common::Conn;
use redislab_sim::redis::{scripts, Exec, SimRedis};
use redislab_sim::Reply;

use super::common;

pub const SET_KEYS: &[&str] = &["t0", "t1", "t2", "x"];
pub const HLL_KEYS: &[&str] = &["p0", "p1", "p2"];
const SET_MEMBERS: &[&str] = &["1", "2", "3", "-7", "100", "a", "b", "m0", "007", ""];
const FLOATS: &[&str] = &[
    "0.1", "1.5", "-2.25", "10", "3", "1e2", "5.0e3", "-0.5", "0", "1e-3", "abc", "inf", "nan", "",
];
const LONG: &str = "llllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllll";

impl Gen {
    fn s(x: &str) -> String {
        x.to_string()
    }

    /// A value, now and then longer than a listpack takes (65+ bytes).
    fn val(&mut self) -> String {
        if self.rng.below(25) == 0 {
            LONG.to_string()
        } else {
            self.pick(VALUES).to_string()
        }
    }

    /// A unix time for EXAT-like options: far ahead (alive throughout) or behind.
    fn abs_time(&mut self, ms: bool) -> String {
        let now_ms = self.epoch_ms + 5_000;
        let t = match self.rng.below(6) {
            0 => now_ms - 100_000,
            1 => 1,
            _ => now_ms + 1_000_000 * (1 + i64::from(self.rng.below(100))),
        };
        if ms {
            t.to_string()
        } else {
            (t / 1000).to_string()
        }
    }

    /// One command of the newer families.
    pub fn grown(&mut self) -> Vec<String> {
        let s = Gen::s;
        if self.in_multi && self.rng.below(5) == 0 {
            return vec![s(
                self.pick(&["EXEC", "EXEC", "DISCARD", "MULTI", "WATCH x"])
            )]
            .into_iter()
            .flat_map(|w| w.split(' ').map(str::to_string).collect::<Vec<_>>())
            .collect();
        }
        let which = self.rng.below(44);
        let family = match which {
            0..=12 => super::STR_KEYS,
            13..=18 => super::LIST_KEYS,
            19..=22 => super::HASH_KEYS,
            23..=29 => SET_KEYS,
            30..=34 => super::ZSET_KEYS,
            35..=38 => HLL_KEYS,
            _ => ALL_KEYS,
        };
        let k = self.fk(family);
        let k2 = self.fk(family);
        let mut c: Vec<String> = match which {
            0 => vec![s(self.pick(&["DECR", "DECR", "INCR"])), k],
            1 => vec![s("DECRBY"), k, s(self.pk(INTS))],
            2 => vec![s("INCRBYFLOAT"), k, s(self.pick(FLOATS))],
            3 => vec![s("APPEND"), k, self.val()],
            4 => vec![s("STRLEN"), k],
            5 => vec![s("GETRANGE"), k, s(self.pk(RANKS)), s(self.pk(RANKS))],
            6 => vec![
                s("SETRANGE"),
                k,
                s(self.pick(&["0", "1", "3", "10", "-1", "x", "70"])),
                self.val(),
            ],
            7 => {
                let mut c = vec![s(self.pick(&["MSET", "MSETNX"]))];
                for _ in 0..1 + self.rng.below(3) {
                    c.push(self.fk(super::STR_KEYS));
                    c.push(self.val());
                }
                c
            }
            8 => vec![s("GETDEL"), k],
            9 => {
                let mut c = vec![s("GETEX"), k];
                match self.rng.below(7) {
                    0 => c.extend([s("EX"), s(self.pk(super::EXPIRES_S))]),
                    1 => c.extend([s("PX"), s(self.pk(super::EXPIRES_MS))]),
                    2 => c.extend([s("EXAT"), self.abs_time(false)]),
                    3 => c.extend([s("PXAT"), self.abs_time(true)]),
                    4 => c.push(s("PERSIST")),
                    5 => c.extend([s("PERSIST"), s("EX"), s("100")]),
                    _ => {}
                }
                c
            }
            10 => match self.rng.below(3) {
                0 => vec![s("SETNX"), k, self.val()],
                1 => vec![s("SETEX"), k, s(self.pk(super::EXPIRES_S)), self.val()],
                _ => vec![s("PSETEX"), k, s(self.pk(super::EXPIRES_MS)), self.val()],
            },
            11 => {
                let mut c = vec![s(self.pick(&["SET", "SET", "GETSET"])), k, self.val()];
                if c[0] == "SET" {
                    // Ahead only: SET stores a key already past its EXAT, and when each
                    // side's active cycle reclaims it is chance.
                    let unit = self.pick(&["EXAT", "PXAT", "exat"]);
                    let per = if unit == "PXAT" { 1 } else { 1000 };
                    let mut t = self.abs_time(unit == "PXAT");
                    if t.parse::<i64>().unwrap_or(0) < (self.epoch_ms + 100_000) / per {
                        t = ((self.epoch_ms + 10_000_000) / per).to_string();
                    }
                    c.extend([s(unit), t]);
                }
                c
            }
            12 => {
                // Renames within a family (across families they would only breed WRONGTYPE).
                let fam = [super::STR_KEYS, super::LIST_KEYS, SET_KEYS, HLL_KEYS];
                let f = fam[self.rng.below(4) as usize];
                match self.rng.below(3) {
                    0 => vec![s("UNLINK"), k, self.fk(ALL_KEYS)],
                    1 => vec![s("RENAME"), self.fk(f), self.fk(f)],
                    _ => vec![s("RENAMENX"), self.fk(f), self.fk(f)],
                }
            }
            13 => vec![s("RPOPLPUSH"), k, k2],
            14 => {
                let mut c = vec![s("BLPOP"), k];
                if self.rng.below(2) == 0 {
                    c.push(k2);
                }
                c.push(s(self.pk(super::TIMEOUTS)));
                c
            }
            15 => {
                let mut c = vec![s("LPOS"), k, s(self.pick(VALUES))];
                if self.rng.below(2) == 0 {
                    c.extend([s("COUNT"), s("0")]);
                }
                for _ in 0..self.rng.below(3) {
                    match self.rng.below(4) {
                        0 => c.extend([s("RANK"), s(self.pick(&["1", "2", "-1", "-2", "0"]))]),
                        1 => c.extend([s("COUNT"), s(self.pick(&["0", "1", "2", "-1"]))]),
                        2 => c.extend([s("MAXLEN"), s(self.pick(&["0", "1", "3", "-1"]))]),
                        _ => c.push(s("BOGUS")),
                    }
                }
                c
            }
            16 => {
                if self.rng.below(2) == 0 {
                    vec![s("LINDEX"), k, s(self.pk(RANKS))]
                } else {
                    vec![s("LSET"), k, s(self.pk(RANKS)), self.val()]
                }
            }
            17 => vec![s("LTRIM"), k, s(self.pk(RANKS)), s(self.pk(RANKS))],
            18 => vec![
                s("LINSERT"),
                k,
                s(self.pick(&["BEFORE", "AFTER", "after", "middle"])),
                s(self.pick(VALUES)),
                self.val(),
            ],
            19 => {
                let mut c = vec![s(self.pick(&["HMGET", "HEXISTS"])), k];
                c.push(s(self.pk(super::FIELDS)));
                if c[0] == "HMGET" && self.rng.below(2) == 0 {
                    c.push(s(self.pk(super::FIELDS)));
                }
                c
            }
            20 => vec![s(self.pick(&["HKEYS", "HVALS", "HGETALL"])), k],
            21 => {
                if self.rng.below(2) == 0 {
                    vec![s("HSETNX"), k, s(self.pk(super::FIELDS)), self.val()]
                } else {
                    let mut c = vec![s(self.pick(&["HSET", "HMSET"])), k];
                    for _ in 0..1 + self.rng.below(2) {
                        c.push(s(self.pk(super::FIELDS)));
                        c.push(self.val());
                    }
                    c
                }
            }
            22 => vec![
                s("HINCRBYFLOAT"),
                k,
                s(self.pk(super::FIELDS)),
                s(self.pick(FLOATS)),
            ],
            23 | 24 => {
                let mut c = vec![s("SADD"), k];
                for _ in 0..1 + self.rng.below(3) {
                    c.push(s(self.pick(SET_MEMBERS)));
                }
                c
            }
            25 => {
                let mut c = vec![s("SREM"), k];
                for _ in 0..1 + self.rng.below(2) {
                    c.push(s(self.pick(SET_MEMBERS)));
                }
                c
            }
            26 => match self.rng.below(4) {
                0 => vec![s("SMEMBERS"), k],
                1 => vec![s("SCARD"), k],
                2 => vec![s("SISMEMBER"), k, s(self.pick(SET_MEMBERS))],
                _ => vec![
                    s("SMISMEMBER"),
                    k,
                    s(self.pick(SET_MEMBERS)),
                    s(self.pick(SET_MEMBERS)),
                ],
            },
            27 => {
                let mut c = vec![s(self.pick(&["SINTER", "SUNION", "SDIFF"])), k];
                for _ in 0..self.rng.below(3) {
                    c.push(self.fk(SET_KEYS));
                }
                c
            }
            28 | 29 => {
                let mut c = vec![s(self.pick(&["SPOP", "SRANDMEMBER"])), k];
                if self.rng.below(3) > 0 {
                    c.push(s(self.pick(&["1", "2", "5", "0", "-3", "-1", "x", "20"])));
                }
                c
            }
            30 => vec![s("ZCOUNT"), k, s(self.pk(RANGES)), s(self.pk(RANGES))],
            31 => vec![s(self.pick(&["ZRANK", "ZREVRANK"])), k, s(self.pk(MEMBERS))],
            32 => {
                let mut c = vec![s("ZREVRANGE"), k, s(self.pk(RANKS)), s(self.pk(RANKS))];
                if self.rng.below(2) == 0 {
                    c.push(s(self.pick(&["WITHSCORES", "withscores", "REV", "LIMIT"])));
                }
                c
            }
            33 => {
                let mut c = vec![s("ZPOPMIN"), k];
                if self.rng.below(2) == 0 {
                    c.push(s(self.pick(&["1", "2", "0", "-1", "x", "10"])));
                }
                c
            }
            34 => {
                let n = self.rng.below(3) + 1;
                let mut c = vec![s("ZUNIONSTORE"), self.fk(super::ZSET_KEYS), n.to_string()];
                for _ in 0..n {
                    let key = if self.rng.below(4) == 0 {
                        self.fk(SET_KEYS)
                    } else {
                        self.fk(super::ZSET_KEYS)
                    };
                    c.push(key);
                }
                match self.rng.below(5) {
                    0 => {
                        c.push(s("WEIGHTS"));
                        for _ in 0..n {
                            c.push(s(self.pk(SCORES)));
                        }
                    }
                    1 => c.extend([s("AGGREGATE"), s(self.pick(&["SUM", "MIN", "max", "avg"]))]),
                    2 => c.push(s("BOGUS")),
                    _ => {}
                }
                if self.rng.below(20) == 0 {
                    c[2] = s(self.pick(&["0", "-1", "x", "9"]));
                }
                c
            }
            35 | 36 => {
                let mut c = vec![s("PFADD"), k];
                for _ in 0..self.rng.below(4) {
                    c.push(format!("e{}", self.rng.below(300)));
                }
                c
            }
            37 => {
                let mut c = vec![s("PFCOUNT"), k];
                if self.rng.below(3) == 0 {
                    c.push(k2);
                }
                c
            }
            38 => vec![s("PFMERGE"), k, k2, self.fk(HLL_KEYS)],
            39 => match self.rng.below(4) {
                0 => vec![s("EXPIRETIME"), k],
                1 => vec![s("PEXPIRETIME"), k],
                2 => vec![s("EXPIREAT"), k, self.abs_time(false)],
                _ => vec![s("PEXPIREAT"), k, self.abs_time(true)],
            },
            40 => {
                let mut c = vec![
                    s("OBJECT"),
                    s(self.pick(&["ENCODING", "encoding", "FROB"])),
                    k,
                ];
                if self.rng.below(20) == 0 {
                    c.truncate(2);
                }
                c
            }
            41 => {
                let (cmd, key) = match self.rng.below(4) {
                    0 => ("SCAN", None),
                    1 => ("HSCAN", Some(self.fk(super::HASH_KEYS))),
                    2 => ("SSCAN", Some(self.fk(SET_KEYS))),
                    _ => ("ZSCAN", Some(self.fk(super::ZSET_KEYS))),
                };
                let mut c = vec![s("#SCAN"), s(cmd)];
                c.extend(key);
                c.push(s("0"));
                if self.rng.below(2) == 0 {
                    c.extend([
                        s("MATCH"),
                        s(self.pick(&["*", "s*", "?0", "[lh]*", "m*", "1*"])),
                    ]);
                }
                if self.rng.below(2) == 0 {
                    c.extend([s("COUNT"), s(self.pick(&["1", "3", "100", "0"]))]);
                }
                if cmd == "SCAN" && self.rng.below(3) == 0 {
                    c.extend([
                        s("TYPE"),
                        s(self.pick(&["string", "list", "SET", "hash", "zset"])),
                    ]);
                }
                c
            }
            42 => match self.rng.below(6) {
                0 | 1 => vec![s("MULTI")],
                2 => vec![s("WATCH"), k, k2],
                3 => vec![s("UNWATCH")],
                4 => vec![s("INFO"), s("keyspace")],
                _ => vec![s(self.pick(&["EXEC", "DISCARD"]))],
            },
            _ => {
                // The queue's add-once script: a missing KEYS[2] or ARGV leaves the hash
                // behind (the Lua ran up to the failing call).
                let numkeys = self.pick(&["2", "2", "1", "0"]);
                let mut c = vec![s("EVALSHA"), s(scripts::ADD_JOB.sha1), s(numkeys)];
                c.push(self.fk(super::HASH_KEYS));
                if numkeys == "2" {
                    c.push(self.fk(super::LIST_KEYS));
                }
                for _ in 0..self.rng.below(4) {
                    c.push(self.val());
                }
                if self.rng.below(30) == 0 {
                    c = vec![s("SCRIPT"), s(self.pick(&["FLUSH", "flush"]))];
                } else if self.rng.below(10) == 0 {
                    c = vec![s("SCRIPT"), s("LOAD"), s(scripts::ADD_JOB.source)];
                }
                c
            }
        };
        if c[0] != "#SCAN" {
            // Now and then: a wrong arity.
            match self.rng.below(60) {
                0 => c.truncate(1),
                1 => c.push(s("extra")),
                _ => {}
            }
        }
        c
    }
}

/// Commands whose reply depends on chance, a hash table's order or the clock: compared by
/// [`special`] or with a tolerance, so never queued in MULTI (EXEC's array is compared as
/// it comes).
pub fn not_in_multi(c: &[String]) -> bool {
    let n = c[0].to_ascii_uppercase();
    matches!(
        n.as_str(),
        "#SCAN"
            | "SPOP"
            | "SRANDMEMBER"
            | "SMEMBERS"
            | "SINTER"
            | "SUNION"
            | "SDIFF"
            | "HGETALL"
            | "HKEYS"
            | "HVALS"
            | "INFO"
            | "TTL"
            | "PTTL"
            | "EXPIRETIME"
            | "PEXPIRETIME"
    )
}

fn bulks_sorted(r: &Reply) -> Reply {
    match r {
        Reply::Array(v) => {
            let mut v = v.clone();
            v.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
            Reply::Array(v)
        }
        o => o.clone(),
    }
}

/// Pairs (field, value) of a flat array, sorted.
fn pairs_sorted(r: &Reply) -> Reply {
    match r {
        Reply::Array(v) => {
            let mut p: Vec<Vec<Reply>> = v.chunks(2).map(<[Reply]>::to_vec).collect();
            p.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
            Reply::Array(p.into_iter().flatten().collect())
        }
        o => o.clone(),
    }
}

fn sim_call(sim: &mut SimRedis, c: &[String]) -> Reply {
    match sim.execute(1, c) {
        Exec::Reply(r) => r,
        Exec::Blocked => {
            sim.cancel_block(1);
            Reply::Nil
        }
    }
}

/// A full iteration of a SCAN-family command on one side: the elements (or pairs), sorted,
/// or the error; and the first reply when it was the only page.
fn scan_all(mut call: impl FnMut(&[String]) -> Reply, c: &[String]) -> (Reply, Option<Reply>) {
    let cursor_at = if c[1] == "SCAN" { 2 } else { 3 };
    let mut cmd: Vec<String> = c[1..].to_vec();
    let mut all = Vec::new();
    let mut first = None;
    for page in 0.. {
        let r = call(&cmd);
        let Reply::Array(parts) = &r else {
            return (r, None);
        };
        let cursor = String::from_utf8_lossy(parts[0].as_bulk().expect("cursor")).into_owned();
        if let Reply::Array(items) = &parts[1] {
            all.extend(items.iter().cloned());
        }
        if page == 0 && cursor == "0" {
            first = Some(r.clone());
        }
        if cursor == "0" {
            break;
        }
        assert!(page < 100_000, "SCAN never ended");
        cmd[cursor_at - 1] = cursor;
    }
    let pairs = c[1] == "HSCAN" || c[1] == "ZSCAN";
    let all = Reply::Array(all);
    (
        if pairs {
            pairs_sorted(&all)
        } else {
            bulks_sorted(&all)
        },
        first,
    )
}

/// Commands whose replies are compared in another form than as they come; `None` for the
/// others. Returns what SimRedis and Redis answered, in comparable form.
pub fn special(sim: &mut SimRedis, real: &mut Conn, c: &[String]) -> Option<(Reply, Reply)> {
    let name = c[0].to_ascii_uppercase();
    match name.as_str() {
        "#SCAN" => {
            // A listpack or an intset comes back whole, in its order: compared exactly.
            let whole = c[1] != "SCAN"
                && matches!(
                    sim.cmd(&["OBJECT", "ENCODING", &c[2]]).as_bulk(),
                    Some(b"listpack" | b"intset")
                );
            let (s_all, s_first) = scan_all(|x| sim_call(sim, x), c);
            let (r_all, r_first) = scan_all(|x| real.call(x), c);
            if whole {
                // (an error, such as WRONGTYPE, is its own whole answer)
                return Some((s_first.unwrap_or(s_all), r_first.unwrap_or(r_all)));
            }
            Some((s_all, r_all))
        }
        "SMEMBERS" | "SINTER" | "SUNION" | "SDIFF" => {
            let (s, r) = (sim_call(sim, c), real.call(c));
            Some((bulks_sorted(&s), bulks_sorted(&r)))
        }
        "HGETALL" | "HKEYS" | "HVALS" if c.len() == 2 => {
            let table = sim.cmd(&["OBJECT", "ENCODING", &c[1]]) == Reply::bulk("hashtable");
            let (s, r) = (sim_call(sim, c), real.call(c));
            if !table {
                return Some((s, r));
            }
            if name == "HGETALL" {
                Some((pairs_sorted(&s), pairs_sorted(&r)))
            } else {
                Some((bulks_sorted(&s), bulks_sorted(&r)))
            }
        }
        "INFO" => {
            // Only the keyspace line, without avg_ttl: the other sections are Redis' own.
            let strip = |r: Reply| match r {
                Reply::Bulk(b) => {
                    let text = String::from_utf8_lossy(&b).into_owned();
                    let db = text
                        .lines()
                        .find(|l| l.starts_with("db0:"))
                        .map(|l| l.split(",avg_ttl=").next().unwrap_or("").to_string());
                    Reply::bulk(db.unwrap_or_default())
                }
                o => o,
            };
            Some((strip(sim_call(sim, c)), strip(real.call(c))))
        }
        "SPOP" | "SRANDMEMBER" if c.len() == 2 || c.len() == 3 => {
            let key = c[1].clone();
            let before = sim.cmd(&["SMEMBERS", &key]);
            let (s, r) = (sim_call(sim, c), real.call(c));
            let members = |x: &Reply| -> Vec<Vec<u8>> {
                match x {
                    Reply::Bulk(b) => vec![b.clone()],
                    Reply::Array(v) => v
                        .iter()
                        .filter_map(|e| e.as_bulk().map(<[u8]>::to_vec))
                        .collect(),
                    _ => Vec::new(),
                }
            };
            let (ms, mr) = (members(&s), members(&r));
            let shape = |x: &Reply| match x {
                Reply::Bulk(_) => "bulk".to_string(),
                Reply::Array(v) => format!("array of {}", v.len()),
                o => format!("{o}"),
            };
            let of_set = |m: &[Vec<u8>]| match &before {
                Reply::Array(v) => m.iter().all(|x| v.contains(&Reply::Bulk(x.clone()))),
                _ => m.is_empty(),
            };
            let distinct = |m: &[Vec<u8>]| {
                let mut d = m.to_vec();
                d.sort();
                d.dedup();
                d.len() == m.len()
            };
            let repeats = c.get(2).is_some_and(|n| n.starts_with('-'));
            let ok = |m: &[Vec<u8>]| of_set(m) && (repeats || distinct(m));
            if name == "SPOP" && matches!(s, Reply::Bulk(_) | Reply::Array(_)) {
                // Bring the real set to SimRedis' state.
                let mut add = vec!["SADD".to_string(), key.clone()];
                add.extend(mr.iter().map(|m| String::from_utf8_lossy(m).into_owned()));
                let mut rem = vec!["SREM".to_string(), key];
                rem.extend(ms.iter().map(|m| String::from_utf8_lossy(m).into_owned()));
                if add.len() > 2 {
                    real.call(&add);
                }
                if rem.len() > 2 {
                    real.call(&rem);
                }
            }
            let judge = |x: &Reply, m: &[Vec<u8>]| {
                if matches!(x, Reply::Error(_) | Reply::Nil) {
                    x.clone()
                } else {
                    Reply::bulk(format!(
                        "{} {}",
                        shape(x),
                        if ok(m) { "ok" } else { "WRONG" }
                    ))
                }
            };
            Some((judge(&s, &ms), judge(&r, &mr)))
        }
        _ => None,
    }
}
