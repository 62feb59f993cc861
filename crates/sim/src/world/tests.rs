//! World tests: ordering of ties, determinism, rewinding, blocking in virtual time, and the
//! lock race told step by step.

use super::lockrace::{race, stolen_releases, two_owner_moments, RaceConfig, Release};
use super::*;

/// Sends a fixed list of commands, sleeping `gap` between them, then stops.
struct Script {
    name: &'static str,
    cmds: Vec<Command>,
    gap: u64,
    next: usize,
    sleeping: bool,
}

impl Script {
    fn new(name: &'static str, cmds: &[&[&str]], gap: u64) -> Box<Self> {
        Box::new(Self {
            name,
            cmds: cmds.iter().map(|c| cmd(c)).collect(),
            gap,
            next: 0,
            sleeping: false,
        })
    }
}

impl Actor for Script {
    fn name(&self) -> String {
        self.name.into()
    }
    fn act(&mut self, input: &Input, _: &mut Ctx<'_>) -> Action {
        if matches!(input, Input::Reply { .. }) && self.gap > 0 && !self.sleeping {
            self.sleeping = true;
            return Action::Sleep { ms: self.gap };
        }
        self.sleeping = false;
        match self.cmds.get(self.next) {
            Some(c) => {
                self.next += 1;
                Action::Send { cmd: c.clone() }
            }
            None => Action::Done,
        }
    }
}

fn execs(w: &World<SimRedis>) -> Vec<(u64, ActorId, String, Option<Reply>)> {
    w.trace()
        .iter()
        .filter_map(|e| match &e.what {
            What::Exec { cmd, reply } => Some((e.at_ms, e.actor, show_cmd(cmd), reply.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn ties_run_in_insertion_order() {
    // Both SET NX reach Redis at 1 ms; the one scheduled first wins.
    for (first, second) in [("A", "B"), ("B", "A")] {
        let mut w = World::with_sim(1);
        fn set(n: &str) -> Vec<&str> {
            vec!["SET", "lock", n, "NX", "PX", "1000"]
        }
        let (s1, s2) = (set(first), set(second));
        w.add(Script::new(first, &[&s1], 0), Hop::symmetric(1), 0);
        w.add(Script::new(second, &[&s2], 0), Hop::symmetric(1), 0);
        w.run(100);
        let e = execs(&w);
        assert_eq!(e[0].0, 1);
        assert_eq!(e[1].0, 1);
        assert_eq!((e[0].1, e[0].3.clone()), (0, Some(Reply::ok())));
        assert_eq!((e[1].1, e[1].3.clone()), (1, Some(Reply::Nil)));
        let holder = w.backend().clone().cmd(&["GET", "lock"]);
        assert_eq!(holder, Reply::bulk(first));
    }
}

#[test]
fn latency_per_hop() {
    let mut w = World::with_sim(1);
    let hop = Hop {
        to_redis_ms: 3,
        from_redis_ms: 7,
        jitter_ms: 0,
    };
    w.add(Script::new("api", &[&["PING"], &["PING"]], 0), hop, 5);
    w.run(100);
    let times: Vec<(u64, &What)> = w.trace().iter().map(|e| (e.at_ms, &e.what)).collect();
    assert_eq!(times.len(), 5);
    assert_eq!(times[0].0, 5, "start");
    assert_eq!(times[1].0, 8, "reaches Redis after 3 ms");
    assert_eq!(times[2].0, 15, "reply back after 7 ms");
    assert_eq!(times[3].0, 18);
    assert_eq!(times[4].0, 25);
    assert!(w.is_idle());
}

#[test]
fn blocking_commands_wait_in_virtual_time() {
    let mut w = World::with_sim(1);
    w.add(
        Script::new(
            "consumer",
            &[&["BRPOP", "q", "0"], &["BRPOP", "q", "0.05"]],
            0,
        ),
        Hop::symmetric(2),
        0,
    );
    w.add(
        Script::new("producer", &[&["LPUSH", "q", "job"]], 0),
        Hop::symmetric(2),
        100,
    );
    w.run(100);
    let t = w.trace_text();
    // The first BRPOP blocks at 2 ms and is served when the push lands at 102 ms; the second
    // blocks at 106 ms and times out 50 ms later.
    let unblocked: Vec<(u64, Reply)> = w
        .trace()
        .iter()
        .filter_map(|e| match &e.what {
            What::Unblocked { reply } => Some((e.at_ms, reply.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        unblocked,
        vec![
            (
                102,
                Reply::Array(vec![Reply::bulk("q"), Reply::bulk("job")])
            ),
            (156, Reply::Nil),
        ],
        "{t}"
    );
    assert!(t.contains("redis: BRPOP q 0 → blocked"), "{t}");
}

#[test]
fn same_seed_same_trace_and_rewind_is_exact() {
    let cfg = RaceConfig {
        hop: Hop {
            to_redis_ms: 1,
            from_redis_ms: 1,
            jitter_ms: 3,
        },
        jobs: 3,
        ..RaceConfig::default()
    };
    let mut a = race(42, &cfg);
    a.run(10_000);
    let mut b = race(42, &cfg);
    b.run(10_000);
    assert_eq!(a.trace(), b.trace());
    assert!(a.trace().len() > 30);
    let mut c = race(43, &cfg);
    c.run(10_000);
    assert_ne!(
        a.trace(),
        c.trace(),
        "another seed, other tokens and timings"
    );
    for n in [0, 1, 7, 20, a.trace().len()] {
        let mut r = race(42, &cfg);
        r.run_to_step(n);
        assert_eq!(&r.trace()[..n], &a.trace()[..n], "rewind to step {n}");
        r.run(10_000);
        assert_eq!(r.trace(), a.trace(), "stepping on from step {n}");
    }
    // Serialises for the UI.
    let json = serde_json::to_string(&a.trace()[..3]).unwrap();
    assert!(json.starts_with(r#"[{"step":0,"atMs":0,"actor":0,"what":{"kind":"act","input":{"on":"start"},"action":{"do":"send","cmd":["SET","lock","#), "{json}");
}

#[test]
fn lock_race_told_step_by_step() {
    // A and B start together; A's SET lands first (tie → insertion order), B retries after a
    // seeded 40–100 ms until A's token release frees the lock.
    let mut w = race(
        7,
        &RaceConfig {
            jobs: 1,
            ..RaceConfig::default()
        },
    );
    w.run(10_000);
    let t = w.trace_text();
    let e = execs(&w);
    assert_eq!(e[0].3, Some(Reply::ok()), "{t}");
    assert_eq!(e[1].3, Some(Reply::Nil), "{t}");
    assert_eq!(two_owner_moments(w.trace()), 0, "{t}");
    assert!(stolen_releases(w.trace()).is_empty());
    let oks = e.iter().filter(|x| x.3 == Some(Reply::ok())).count();
    assert_eq!(oks, 2, "each got the lock once\n{t}");
    assert!(w.is_idle());
}

#[test]
fn a_pause_past_the_ttl_with_plain_del_removes_bs_lock() {
    // A works 1500 ms on a 1000 ms lock: the lock expires, B takes it, and A's DEL deletes
    // B's lock. With the token-checked release, A's release answers 0 and B keeps its lock.
    let base = RaceConfig {
        ttl_ms: 1000,
        a_work_ms: 1500,
        b_work_ms: 800,
        jobs: 1,
        ..RaceConfig::default()
    };
    let mut del = race(
        3,
        &RaceConfig {
            release: Release::Del,
            ..base
        },
    );
    del.run(10_000);
    assert!(two_owner_moments(del.trace()) >= 1, "{}", del.trace_text());
    let stolen = stolen_releases(del.trace());
    assert_eq!(stolen.len(), 1, "{}", del.trace_text());
    assert_eq!(stolen[0].0, 0, "A deleted B's lock");

    let mut tok = race(
        3,
        &RaceConfig {
            release: Release::Token,
            ..base
        },
    );
    tok.run(10_000);
    assert!(
        stolen_releases(tok.trace()).is_empty(),
        "{}",
        tok.trace_text()
    );
    let a_release = execs(&tok)
        .into_iter()
        .find(|x| x.1 == 0 && x.2.starts_with("EVALSHA"))
        .expect("A released");
    assert_eq!(a_release.3, Some(Reply::Integer(0)), "{}", tok.trace_text());
}

#[test]
fn property_token_release_with_work_inside_the_ttl_never_has_two_owners() {
    // Work 300 ms + at most 3 + 3 ms of network each way < TTL 1000 ms: whoever holds the lock
    // releases it before it can expire, so over many seeds (jitter, tokens, back-offs) no two
    // critical sections overlap and no release ever deletes another's lock.
    let cfg = RaceConfig {
        hop: Hop {
            to_redis_ms: 1,
            from_redis_ms: 1,
            jitter_ms: 2,
        },
        jobs: 3,
        ..RaceConfig::default()
    };
    for seed in 0..300 {
        let mut w = race(seed, &cfg);
        w.run(100_000);
        assert!(w.is_idle(), "seed {seed} did not finish");
        assert_eq!(two_owner_moments(w.trace()), 0, "seed {seed}");
        assert!(stolen_releases(w.trace()).is_empty(), "seed {seed}");
        let sections = super::lockrace::critical_sections(w.trace()).len();
        assert_eq!(sections, 6, "seed {seed}: 3 jobs each");
    }
}
