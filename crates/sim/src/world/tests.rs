//! World tests: ordering of ties, determinism, rewinding, blocking in virtual time. (The
//! lock race on this engine is tested with its lab, `labs::lock`.)

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

/// Two clients trading `INCR`s and `SET NX`s over a jittery network, with pauses between.
fn jittery(seed: u32) -> World<SimRedis> {
    let mut w = World::with_sim(seed);
    let hop = Hop {
        to_redis_ms: 1,
        from_redis_ms: 1,
        jitter_ms: 3,
    };
    for (name, start) in [("A", 0), ("B", 2)] {
        w.add(
            Script::new(
                name,
                &[
                    &["SET", "lock", name, "NX", "PX", "5"],
                    &["INCR", "n"],
                    &["GET", "lock"],
                    &["INCR", "n"],
                    &["SET", "lock", name, "NX", "PX", "5"],
                ],
                3,
            ),
            hop,
            start,
        );
    }
    w
}

#[test]
fn same_seed_same_trace_and_rewind_is_exact() {
    let mut a = jittery(42);
    a.run(10_000);
    let mut b = jittery(42);
    b.run(10_000);
    assert_eq!(a.trace(), b.trace());
    assert!(a.trace().len() > 30, "{}", a.trace_text());
    assert!(a.is_idle());
    let mut c = jittery(43);
    c.run(10_000);
    assert_ne!(a.trace(), c.trace(), "another seed, other network jitter");
    for n in [0, 1, 7, 20, a.trace().len()] {
        let mut r = jittery(42);
        r.run_to_step(n);
        assert_eq!(&r.trace()[..n], &a.trace()[..n], "rewind to step {n}");
        r.run(10_000);
        assert_eq!(r.trace(), a.trace(), "stepping on from step {n}");
    }
    // Serialises for the UI.
    let json = serde_json::to_string(&a.trace()[..3]).unwrap();
    assert!(json.starts_with(r#"[{"step":0,"atMs":0,"actor":0,"what":{"kind":"act","input":{"on":"start"},"action":{"do":"send","cmd":["SET","lock","#), "{json}");
}
