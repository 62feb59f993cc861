//! Differential test of SimRedis' streams and pub/sub against a real Redis 7 (see
//! `tests/common` for the server and the driver).
//!
//! * `stream_sequences_agree`: seeded random stream commands (two seeds × 5,000; XADD with
//!   every trim option and value sizes in every listpack class, XRANGE/XREVRANGE, XTRIM,
//!   XDEL, XGROUP, XREAD, XREADGROUP with `>` and history, XACK, XPENDING, XCLAIM,
//!   XAUTOCLAIM) agree exactly, except XPENDING's idle times (within 100 ms). IDs are
//!   explicit: `*` reads each side's own clock, so it is checked apart.
//! * `approximate_trim_agrees_node_for_node`: `MAXLEN ~` on 3,000 mixed-size entries and
//!   250,000 `XADD … MAXLEN ~ 100000` leave the same XLEN as the real server.
//! * `blocked_stream_readers_and_auto_ids_agree`: two XREADGROUP BLOCK readers are served
//!   in the order they blocked; `*` IDs are the clock's ms with sequence 0, then 1.
//! * `publish_counts_and_messages_agree`: PUBLISH receiver counts (channel and pattern
//!   subscribers), the messages each subscriber reads, and one lost while unsubscribed.

mod common;

use common::{blocked, drive, no_special, poll, seeds_from_env, Conn, Judge, Seen, Server};
use redislab_sim::redis::{Exec, SimRedis};
use redislab_sim::{Mulberry32, Reply};

// ---------- streams and pub/sub ----------

const STREAM_KEYS: &[&str] = &["st0", "st1", "st2"];
const GROUPS: &[&str] = &["g0", "g1", "nog"];
const CONSUMERS: &[&str] = &["c0", "c1", "c2"];

/// Seeded random stream commands. IDs are explicit (`<ms>-<seq>`, `<ms>-*` or `<ms>`) from
/// a per-key counter that mostly moves forward, so `*`'s clock never enters a reply; values
/// have every listpack size class (small and large integers, 1 to 1500-byte strings), so
/// nodes close where Redis closes them and `MAXLEN ~` drops the same whole nodes.
struct StreamGen {
    rng: Mulberry32,
    next_ms: [u64; 3],
    ids: Vec<String>,
}

impl StreamGen {
    fn below(&mut self, n: u32) -> u32 {
        self.rng.below(n)
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.rng.below(xs.len() as u32) as usize]
    }

    fn key(&mut self) -> String {
        match self.below(30) {
            0 => "s0".into(), // a string: WRONGTYPE
            1 => "none".into(),
            _ => self.pick(STREAM_KEYS).into(),
        }
    }

    fn value(&mut self) -> String {
        match self.below(9) {
            0 => self.below(128).to_string(),
            1 => (self.below(60000) as i64 - 30000).to_string(),
            2 => "9223372036854775807".into(),
            3 => "x".repeat(1 + self.below(62) as usize),
            4 => "y".repeat(64 + self.below(200) as usize),
            5 => "z".repeat(600 + self.below(900) as usize),
            6 => "007".into(),
            _ => format!("v{}", self.below(1000)),
        }
    }

    /// An existing-looking ID (from what was added), or a made-up or bad one.
    fn some_id(&mut self) -> String {
        match self.below(12) {
            0 => "x".into(),
            1 => format!("{}-0", self.below(200)),
            2 => "0".into(),
            _ if !self.ids.is_empty() => {
                let n = self.ids.len() as u32;
                let lo = n.saturating_sub(300);
                let i = (lo + self.below(n - lo)) as usize;
                self.ids[i].clone()
            }
            _ => "1-1".into(),
        }
    }

    fn trim_opts(&mut self, c: &mut Vec<String>) {
        let s = |x: &str| x.to_string();
        match self.below(6) {
            0 | 1 => {
                c.push(s("MAXLEN"));
                match self.below(3) {
                    0 => c.push(s("~")),
                    1 => c.push(s("=")),
                    _ => {}
                }
                c.push(
                    self.pick(&["0", "5", "50", "120", "150", "300", "-1"])
                        .into(),
                );
            }
            2 => {
                c.push(s("MINID"));
                if self.below(2) == 0 {
                    c.push(s("~"));
                }
                let id = self.some_id();
                c.push(id);
            }
            3 => {
                c.extend([s("MAXLEN"), s("~"), self.pick(&["10", "100"]).into()]);
                c.extend([s("LIMIT"), self.pick(&["0", "100", "1000", "-1"]).into()]);
            }
            _ => {}
        }
    }

    fn command(&mut self) -> Vec<String> {
        let s = |x: &str| x.to_string();
        let k = self.key();
        let g = self.pick(GROUPS).to_string();
        let cn = self.pick(CONSUMERS).to_string();
        let mut c: Vec<String>;
        match self.below(40) {
            0..=13 => {
                c = vec![s("XADD"), k.clone()];
                if self.below(8) == 0 {
                    c.push(s("NOMKSTREAM"));
                }
                if self.below(3) == 0 {
                    self.trim_opts(&mut c);
                }
                let ki = STREAM_KEYS.iter().position(|x| *x == k).unwrap_or(0);
                if self.below(20) > 0 {
                    self.next_ms[ki] += u64::from(self.below(3));
                }
                let ms = self.next_ms[ki];
                let id = match self.below(10) {
                    0 => format!("{ms}-*"),
                    1 => format!("{ms}"),
                    2 => format!("{}-{}", ms.saturating_sub(5), self.below(3)),
                    _ => format!("{ms}-{}", self.below(4)),
                };
                c.push(id);
                for _ in 0..1 + self.below(3) {
                    let f = if self.below(4) == 0 {
                        format!("f{}", self.below(4))
                    } else {
                        s("f0")
                    };
                    c.push(f);
                    c.push(self.value());
                }
                if self.below(40) == 0 {
                    c.pop();
                }
            }
            14 => c = vec![s("XLEN"), k],
            15 | 16 => {
                let rev = self.below(2) == 0;
                let (a, b) = (self.some_id(), self.some_id());
                let (a, b) = match self.below(4) {
                    0 => (s("-"), s("+")),
                    1 => (format!("({a}"), b),
                    _ => (a, b),
                };
                c = if rev {
                    vec![s("XREVRANGE"), k, b, a]
                } else {
                    vec![s("XRANGE"), k, a, b]
                };
                if self.below(2) == 0 {
                    c.extend([
                        s("COUNT"),
                        self.pick(&["1", "3", "10", "0", "-1", "x"]).into(),
                    ]);
                }
            }
            17 => {
                c = vec![s("XTRIM"), k];
                self.trim_opts(&mut c);
            }
            18 => {
                c = vec![s("XDEL"), k];
                for _ in 0..1 + self.below(3) {
                    c.push(self.some_id());
                }
            }
            19 | 20 => {
                let sub = self.pick(&[
                    "CREATE",
                    "CREATE",
                    "DESTROY",
                    "CREATECONSUMER",
                    "DELCONSUMER",
                    "SETID",
                ]);
                c = vec![s("XGROUP"), s(sub), k, g];
                match sub {
                    "CREATE" | "SETID" => {
                        let id = match self.below(3) {
                            0 => s("$"),
                            1 => s("0"),
                            _ => self.some_id(),
                        };
                        c.push(id);
                        if sub == "CREATE" && self.below(3) == 0 {
                            c.push(s("MKSTREAM"));
                        }
                    }
                    "CREATECONSUMER" | "DELCONSUMER" => c.push(cn),
                    _ => {}
                }
            }
            21..=26 => {
                c = vec![s("XREADGROUP"), s("GROUP"), g, cn];
                if self.below(2) == 0 {
                    c.extend([s("COUNT"), self.pick(&["1", "2", "5", "200"]).into()]);
                }
                if self.below(6) == 0 {
                    c.push(s("NOACK"));
                }
                if self.below(5) == 0 {
                    c.extend([s("BLOCK"), s("10")]);
                }
                c.push(s("STREAMS"));
                let id = if self.below(4) == 0 {
                    self.pick(&["0", "$"]).to_string()
                } else {
                    s(">")
                };
                c.extend([k, id]);
            }
            27 => {
                c = vec![
                    s("XREAD"),
                    s("COUNT"),
                    self.pick(&["1", "3", "10"]).into(),
                    s("STREAMS"),
                ];
                let id = if self.below(3) == 0 {
                    s("$")
                } else {
                    self.some_id()
                };
                c.extend([k, s("st1"), id, s("0")]);
            }
            28..=31 => {
                c = vec![s("XACK"), k, g];
                for _ in 0..1 + self.below(4) {
                    c.push(self.some_id());
                }
            }
            32 | 33 => {
                c = vec![s("XPENDING"), k, g];
                if self.below(2) == 0 {
                    if self.below(3) == 0 {
                        c.extend([s("IDLE"), self.pick(&["0", "60000", "3600000"]).into()]);
                    }
                    c.extend([s("-"), s("+"), self.pick(&["5", "100", "0"]).into()]);
                    if self.below(2) == 0 {
                        c.push(cn);
                    }
                }
            }
            34 | 35 => {
                c = vec![
                    s("XCLAIM"),
                    k,
                    g,
                    cn,
                    self.pick(&["0", "3600000", "x"]).into(),
                ];
                for _ in 0..1 + self.below(3) {
                    c.push(self.some_id());
                }
                match self.below(6) {
                    0 => c.push(s("JUSTID")),
                    1 => c.push(s("FORCE")),
                    2 => c.extend([s("RETRYCOUNT"), s("5")]),
                    3 => c.extend([s("IDLE"), s("5000")]),
                    _ => {}
                }
            }
            36 | 37 => {
                c = vec![
                    s("XAUTOCLAIM"),
                    k,
                    g,
                    cn,
                    self.pick(&["0", "3600000"]).into(),
                ];
                let start = if self.below(2) == 0 {
                    s("0")
                } else {
                    self.some_id()
                };
                c.push(start);
                if self.below(2) == 0 {
                    c.extend([s("COUNT"), self.pick(&["1", "3", "100", "0"]).into()]);
                }
                if self.below(4) == 0 {
                    c.push(s("JUSTID"));
                }
            }
            _ => c = vec![s("TYPE"), k],
        }
        c
    }
}

/// Stream replies agree exactly, except idle times (XPENDING's third field), which may
/// differ by the clocks' drift.
fn stream_agrees(cmd: &[String], sim: &Reply, real: &Reply) -> bool {
    fn idle_blind(r: &Reply) -> Reply {
        match r {
            Reply::Array(v) => Reply::Array(
                v.iter()
                    .map(|e| match e {
                        Reply::Array(f) if f.len() == 4 => {
                            let mut f = f.clone();
                            f[2] = Reply::Nil;
                            Reply::Array(f)
                        }
                        o => o.clone(),
                    })
                    .collect(),
            ),
            o => o.clone(),
        }
    }
    if cmd[0] == "XPENDING" && cmd.len() > 3 {
        let close = match (sim, real) {
            (Reply::Array(a), Reply::Array(b)) if a.len() == b.len() => {
                a.iter().zip(b).all(|(x, y)| match (x, y) {
                    (Reply::Array(x), Reply::Array(y)) if x.len() == 4 && y.len() == 4 => {
                        match (&x[2], &y[2]) {
                            (Reply::Integer(p), Reply::Integer(q)) => (p - q).abs() <= 100,
                            _ => false,
                        }
                    }
                    _ => true,
                })
            }
            _ => true,
        };
        return close && idle_blind(sim) == idle_blind(real);
    }
    sim == real
}

fn run_stream_seed(seed: u32, n: usize, seen: &mut Seen) {
    let mut server = Server::start();
    let mut real = server.conn();
    let mut sim = SimRedis::new(seed);
    let c = ["SET", "s0", "str"];
    assert_eq!(sim.cmd(&c), real.cmd(&c));
    let mut gen = StreamGen {
        rng: Mulberry32::new(seed),
        next_ms: [1, 1, 1],
        ids: Vec::new(),
    };
    let skipped = drive(
        seed,
        n,
        &mut sim,
        &mut real,
        seen,
        Judge {
            agree: stream_agrees,
            special: no_special,
        },
        |_, prev| {
            if let Some((cmd, Reply::Bulk(id))) = prev {
                if cmd[0] == "XADD" {
                    gen.ids.push(String::from_utf8_lossy(id).into_owned());
                }
            }
            gen.command()
        },
    );
    for k in STREAM_KEYS {
        for c in [
            vec!["XLEN", k],
            vec!["XRANGE", k, "-", "+"],
            vec!["XPENDING", k, "g0"],
        ] {
            assert_eq!(sim.cmd(&c), real.cmd(&c), "{c:?}");
        }
    }
    eprintln!("seed {seed}: {n} stream commands agree ({skipped} that would block were skipped)");
}

/// Two seeds × 5,000 stream commands by default; `SIMREDIS_DIFF_SEEDS` sweeps more.
#[test]
fn stream_sequences_agree() {
    let seeds = seeds_from_env();
    let mut seen = Seen::new();
    for seed in &seeds {
        run_stream_seed(*seed, 5_000, &mut seen);
    }
    for (name, (ok, err, arrays)) in &seen {
        eprintln!("    {name:<12}{ok:>5} answers {err:>5} errors {arrays:>5} non-empty arrays");
    }
    for name in [
        "XADD",
        "XLEN",
        "XRANGE",
        "XREVRANGE",
        "XTRIM",
        "XDEL",
        "XGROUP",
        "XREADGROUP",
        "XREAD",
        "XACK",
        "XPENDING",
        "XCLAIM",
        "XAUTOCLAIM",
    ] {
        let (ok, _, _) = seen.get(name).copied().unwrap_or_default();
        assert!(ok > 0, "{name} never answered without an error");
    }
    for name in ["XRANGE", "XREADGROUP", "XPENDING", "XCLAIM", "XAUTOCLAIM"] {
        let (_, _, arrays) = seen.get(name).copied().unwrap_or_default();
        assert!(arrays > 0, "{name} never returned a non-empty array");
    }
}

/// `MAXLEN ~` removes whole nodes only, so XLEN after it depends on where nodes split:
/// 3,000 entries of mixed sizes (nodes closed by the 100-entry and the 4096-byte limits),
/// then approximate trims, must leave exactly what the real server leaves.
#[test]
fn approximate_trim_agrees_node_for_node() {
    let mut server = Server::start();
    let mut real = server.conn();
    let mut sim = SimRedis::new(1);
    let mut rng = Mulberry32::new(3);
    for i in 1..=3000u32 {
        let n = [1, 5, 30, 70, 200, 600][rng.below(6) as usize];
        let mut c = vec![
            "XADD".to_string(),
            "m".into(),
            format!("{}-{}", i * 7, i % 3),
            format!("f{}", i % 4),
            "y".repeat(n),
        ];
        if i % 5 == 0 {
            c.extend(["g".to_string(), "12".into()]);
        }
        assert_eq!(sim.execute(1, &c), Exec::Reply(real.call(&c)));
    }
    for m in ["2900", "2500", "1000", "10"] {
        for c in [vec!["XTRIM", "m", "MAXLEN", "~", m], vec!["XLEN", "m"]] {
            let want = real.cmd(&c);
            assert_eq!(sim.cmd(&c), want, "{c:?}");
        }
    }
    // XADD with MAXLEN ~ 100000 (the streams lab's setting) over 250,000 small entries.
    for i in 1..=250_000u32 {
        let c = [
            "XADD",
            "big",
            "MAXLEN",
            "~",
            "100000",
            &format!("{i}-0"),
            "n",
            &i.to_string(),
        ];
        let want = real.cmd(&c);
        assert_eq!(sim.cmd(&c), want);
    }
    let c = ["XLEN", "big"];
    let want = real.cmd(&c);
    assert_eq!(sim.cmd(&c), want);
    eprintln!("XLEN big after 250,000 XADD MAXLEN ~ 100000: {want}");
}

#[test]
fn blocked_stream_readers_and_auto_ids_agree() {
    let mut server = Server::start();
    let mut c1 = server.conn();
    let mut c2 = server.conn();
    let mut c3 = server.conn();
    let mut sim = SimRedis::new(1);
    let c = ["XGROUP", "CREATE", "q", "g", "$", "MKSTREAM"];
    assert_eq!(sim.cmd(&c), c3.cmd(&c));
    let read1 = [
        "XREADGROUP",
        "GROUP",
        "g",
        "w1",
        "COUNT",
        "2",
        "BLOCK",
        "5000",
        "STREAMS",
        "q",
        ">",
    ];
    let read2 = [
        "XREADGROUP",
        "GROUP",
        "g",
        "w2",
        "COUNT",
        "2",
        "BLOCK",
        "5000",
        "STREAMS",
        "q",
        ">",
    ];
    c1.send(&read1);
    poll(5, "w1 to block", || (blocked(&mut c3) == 1).then_some(()));
    c2.send(&read2);
    poll(5, "w2 to block", || (blocked(&mut c3) == 2).then_some(()));
    assert_eq!(sim.execute(1, &read1), Exec::Blocked);
    assert_eq!(sim.execute(2, &read2), Exec::Blocked);
    // Three entries in one XADD each: w1 gets the first, then w2 the second; the third waits.
    for i in 1..=3 {
        let c = ["XADD", "q", &format!("{i}-0"), "n", &i.to_string()];
        assert_eq!(sim.cmd(&c), c3.cmd(&c));
    }
    let (r1, r2) = (c1.read(), c2.read());
    let woken = sim.take_woken();
    assert_eq!(woken.len(), 2);
    assert_eq!((woken[0].client, &woken[0].reply), (1, &r1));
    assert_eq!((woken[1].client, &woken[1].reply), (2, &r2));
    for c in [vec!["XPENDING", "q", "g"], vec!["XLEN", "q"]] {
        assert_eq!(sim.cmd(&c), c3.cmd(&c));
    }
    // `*` IDs: the clock's ms and a sequence from 0, on both sides.
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_millis() as u64;
    let real_id = c3.cmd(&["XADD", "auto", "*", "a", "1"]);
    let real_id =
        redislab_sim::redis::StreamId::parse(real_id.as_bulk().expect("an ID")).expect("id");
    assert!(
        real_id.ms.abs_diff(t) < 5_000 && real_id.seq == 0,
        "{real_id}"
    );
    let sim_id = sim.cmd(&["XADD", "auto", "*", "a", "1"]);
    let sim_id =
        redislab_sim::redis::StreamId::parse(sim_id.as_bulk().expect("an ID")).expect("id");
    assert_eq!(sim_id.seq, 0);
    assert_eq!(
        sim.cmd(&["XADD", "auto", "*", "a", "2"]),
        Reply::bulk(format!("{}-1", sim_id.ms))
    );
}

#[test]
fn publish_counts_and_messages_agree() {
    let mut server = Server::start();
    let mut pubc = server.conn();
    let mut subs: Vec<Conn> = (0..3).map(|_| server.conn()).collect();
    let mut sim = SimRedis::new(1);
    let plan: [(usize, &[&str]); 4] = [
        (0, &["SUBSCRIBE", "chat", "news"]),
        (1, &["PSUBSCRIBE", "ch*", "n?ws"]),
        (2, &["SUBSCRIBE", "chat"]),
        (2, &["PSUBSCRIBE", "c[gh]at"]),
    ];
    for (i, cmd) in plan {
        let n = cmd.len() - 1;
        subs[i].send(cmd);
        let real: Vec<Reply> = (0..n).map(|_| subs[i].read()).collect();
        assert_eq!(
            sim.execute(i as u64 + 1, cmd),
            Exec::Reply(Reply::Array(real)),
            "{cmd:?}"
        );
    }
    for (ch, msg) in [
        ("chat", "hi"),
        ("news", "n1"),
        ("other", "x"),
        ("chat", "bye"),
    ] {
        let c = ["PUBLISH", ch, msg];
        let want = pubc.cmd(&c);
        assert_eq!(sim.cmd(&c), want, "{c:?}");
        for (i, s) in subs.iter_mut().enumerate() {
            let got = sim.take_messages(i as u64 + 1);
            for m in got {
                assert_eq!(s.read(), m, "client {i} after PUBLISH {ch}");
            }
        }
    }
    // Subscriber 0 leaves; a message published meanwhile is lost to it, the count says 3.
    subs[0].send(&["UNSUBSCRIBE", "chat", "news"]);
    let real: Vec<Reply> = (0..2).map(|_| subs[0].read()).collect();
    assert_eq!(
        sim.execute(1, &["UNSUBSCRIBE", "chat", "news"]),
        Exec::Reply(Reply::Array(real))
    );
    let c = ["PUBLISH", "chat", "while-away"];
    let want = pubc.cmd(&c);
    assert_eq!(want, Reply::Integer(3));
    assert_eq!(sim.cmd(&c), want);
    assert!(sim.take_messages(1).is_empty());
    assert_eq!(subs[0].cmd(&["PING"]), Reply::Status("PONG".into()));
}
