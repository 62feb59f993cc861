//! The queues lab's unit tests: golden presets, stepping, the lists against SimRedis' own
//! keyspace, the worker protocol.

use super::*;
use crate::labs::params::Params;
use crate::redis::Reply;

fn preset_params(id: &str) -> QueuesParams {
    let (p, errs) = Params::from_query(&INFO, &format!("preset={id}"));
    assert!(errs.is_empty(), "{errs:?}");
    p.read()
}

fn counters(id: &str) -> Counters {
    run(&preset_params(id)).end.counters
}

#[test]
fn defaults_are_the_first_preset_and_the_rules_hold() {
    assert_eq!(QueuesParams::default(), preset_params("simple-crash"));
    let (p, errs) = Params::from_query(&INFO, "workers=2&crash=w3");
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!((errs[0].key.as_str(), p.get("crash")), ("crash", "w1"));
    // A visibility not above the work: the message on visibility, which goes back to its
    // default; with the default visibility the message is on the work.
    let (p, errs) = Params::from_query(&INFO, "work=2000&visibility=2050");
    assert_eq!(errs[0].key, "visibility", "{errs:?}");
    assert_eq!((p.get("work"), p.get("visibility")), ("2000", "3000"));
    let (p, errs) = Params::from_query(&INFO, "work=5000");
    assert_eq!(errs[0].key, "work", "{errs:?}");
    assert_eq!(p.get("work"), "800");
    let s = preset_params("simple").setup();
    assert_eq!((s.crash, s.block_arg().as_str()), (None, "5"));
}

/// Golden runs of the presets (seed 5: six jobs 300 ms apart, two workers, 800 ms of work
/// each, w1 dying at 1 s).
#[test]
fn golden_presets() {
    let pick = |c: Counters| {
        (
            c.done,
            c.lost,
            c.stuck,
            c.taken_twice,
            c.effects_twice,
            c.skipped,
        )
    };
    // LPUSH + BRPOP: w1 dies in the middle of job 3, which left Redis with BRPOP: lost.
    assert_eq!(pick(counters("simple-crash")), (5, 1, 0, 0, 0, 0));
    let r = run(&preset_params("simple-crash"));
    let crash = r.crash().unwrap();
    assert_eq!((crash.actor, crash.job, crash.at_ms), (1, Some(3), 1000));
    assert_eq!(r.end.jobs[2].place, Place::Lost);
    assert_eq!(r.commands[1].cmd_text(), "BRPOP queue:emails 5");
    assert_eq!(pick(counters("simple")), (6, 0, 0, 0, 0, 0));
    // BLMOVE: job 3 stays in the processing list, and nobody finishes it.
    let r = run(&preset_params("reliable"));
    assert_eq!(pick(r.end.counters), (5, 0, 1, 0, 0, 0));
    assert_eq!(r.end.lists.processing, [3]);
    assert_eq!(r.end.lists.started, [(3, 818)]);
    // Recovery puts it back after the visibility: taken twice, done once.
    let r = run(&preset_params("recovery"));
    assert_eq!(pick(r.end.counters), (6, 0, 0, 1, 0, 0));
    assert_eq!(r.end.counters.requeued, 1);
    assert!(r.end.lists.processing.is_empty() && r.end.lists.started.is_empty());
    let back = r
        .commands
        .iter()
        .find(|c| c.kind == CmdKind::Requeue)
        .unwrap();
    assert_eq!(back.at_ms, 4053);
    // Dead after the email, before LREM: it goes out twice…
    assert_eq!(pick(counters("twice")), (6, 0, 0, 1, 1, 0));
    // …unless the second run finds done:3.
    let r = run(&preset_params("idempotent"));
    assert_eq!(pick(r.end.counters), (6, 0, 0, 1, 0, 1));
    assert_eq!(r.end.lists.done_keys.len(), 6);
    let found = r
        .commands
        .iter()
        .find(|c| c.kind == CmdKind::Check && c.ok() == Some(&Reply::bulk("1")))
        .unwrap();
    assert_eq!(found.cmd_text(), "GET done:3");
    for pr in PRESETS {
        assert!(!run(&preset_params(pr.id)).cut_short, "{}", pr.id);
    }
}

/// The lists the analysis reads from the commands are SimRedis' own: at the end of every
/// preset (and of a hundred random runs) `LRANGE` and `ZRANGE … WITHSCORES` say the same.
#[test]
fn the_lists_agree_with_simredis() {
    let mut all: Vec<QueuesParams> = PRESETS.iter().map(|p| preset_params(p.id)).collect();
    for s in 0..100u32 {
        let mut p = preset_params("idempotent");
        p.seed = s;
        p.crash_in = CrashIn::ALL[s as usize % 3];
        p.crash_at = u64::from(s * 37 % 4000);
        p.restart = u64::from(s % 2) * 500;
        all.push(p);
    }
    for p in all {
        let mut r = QueuesSim::of(&p, None);
        r.steps(usize::MAX);
        let out = r.output();
        let mut redis = r.world().backend().clone();
        let ids = |rep: Reply| -> Vec<u32> {
            match rep {
                Reply::Array(a) => a.iter().filter_map(|x| id_of(x.as_bulk()?)).collect(),
                _ => Vec::new(),
            }
        };
        assert_eq!(
            ids(redis.cmd(&["LRANGE", QUEUE, "0", "-1"])),
            out.end.lists.queue,
            "{p:?}"
        );
        assert_eq!(
            ids(redis.cmd(&["LRANGE", PROCESSING, "0", "-1"])),
            out.end.lists.processing,
            "{p:?}"
        );
        let Reply::Array(z) = redis.cmd(&["ZRANGE", STARTED, "0", "-1", "WITHSCORES"]) else {
            panic!("ZRANGE")
        };
        let z: Vec<(u32, u64)> = z
            .chunks(2)
            .map(|w| {
                let s = |i: usize| String::from_utf8_lossy(w[i].as_bulk().unwrap()).into_owned();
                (s(0).parse().unwrap(), s(1).parse().unwrap())
            })
            .collect();
        assert_eq!(z, out.end.lists.started, "{p:?}");
    }
}

#[test]
fn stepping_equals_the_run_to_the_end() {
    for id in ["simple-crash", "reliable", "twice", "idempotent"] {
        let p = preset_params(id);
        let full = run(&p);
        let mut chunked = QueuesSim::of(&p, None);
        while !chunked.steps(5) {}
        assert_eq!(chunked.output(), full, "{id}");
        let n = full.commands.len();
        for k in [0, 1, 2, 7, 13, n / 3, n / 2, n - 1]
            .into_iter()
            .filter(|&k| k < n)
        {
            let mut part = QueuesSim::of(&p, None);
            if k > 0 {
                part.run_to_step(full.commands[k - 1].step + 1);
            }
            // One event may write two entries (a push and the pop it served): the prefix
            // run may hold one command more; what position k shows is the same.
            let r = part.output();
            assert_eq!(r.commands[..k], full.commands[..k], "{id} {k}");
            assert_eq!(r.at(k), full.at(k), "{id} at position {k}");
        }
        assert_eq!(full.at(n), full.end, "{id}");
    }
}

#[test]
fn live_setup_is_short_and_blocks_briefly() {
    let mut p = preset_params("idempotent");
    p.jobs = 40;
    p.workers = 4;
    p.crash = Crash::W4;
    let s = p.for_live(2);
    assert_eq!(
        (s.jobs, s.workers, s.crash),
        (LIVE_JOBS, LIVE_WORKERS, None)
    );
    assert_eq!((s.block_ms, s.block_arg().as_str()), (200, "0.2"));
    assert_eq!((s.work_ms, s.visibility_ms), (1600, 6000));
}

#[test]
fn the_worker_protocol_gives_the_same_result() {
    use crate::labs::work::{Body, Job, Work};
    let job = Job::new(&INFO, &Params::from_query(&INFO, "preset=twice").0);
    let msgs = Work::new(job).unwrap().run_to_end();
    let Some(Body::Done(r)) = msgs.last() else {
        panic!("no result: {msgs:?}")
    };
    assert_eq!(
        r.read::<QueuesOutput>().unwrap(),
        run(&preset_params("twice"))
    );
}

/// The heaviest parameters (the long-task tests open the lab with them) are valid and end
/// with every job done, through thousands of commands.
#[test]
fn the_heaviest_parameters_are_valid_and_run() {
    use crate::labs::lab::Lab;
    let (p, errs) = Params::from_query(&INFO, LAB.heaviest());
    assert!(errs.is_empty(), "{errs:?}");
    let r = run(&p.read());
    assert!(!r.cut_short);
    assert_eq!((r.end.counters.done, r.end.counters.lost), (40, 0));
    assert!(r.commands.len() > 2_000, "{}", r.commands.len());
}
