use super::*;
use crate::labs::def::{Figures, Steps};
use crate::labs::log::{CmdLine, NoReply};
use crate::labs::params::Params;
use crate::labs::work::{Body, Job, Work};
use crate::redis::{scripts, Reply};
use crate::rng::Mulberry32;

fn cfg(q: &str) -> CacheConfig {
    let (p, errs) = Params::from_query(&INFO, q);
    assert!(errs.is_empty(), "{q}: {errs:?}");
    p.read::<CacheParams>().config()
}

fn paths(r: &CacheRecord) -> [u32; 7] {
    r.counts.paths
}

/// The command log as it is drawn: the words Redis got.
fn lines(r: &CacheRecord) -> Vec<CmdLine> {
    r.log.iter().map(CmdRow::line).collect()
}

#[test]
fn the_lab_defaults_are_the_engine_defaults() {
    assert_eq!(cfg(""), CacheConfig::default());
    let c = cfg("heartbeat=off&redis=slow&start=old-version&stale=0");
    assert!(!c.layers.heartbeat && c.layers.lock);
    assert_eq!(
        (c.redis, c.start, c.stale_ms),
        (Health::Slow, Start::OldVersion, 0)
    );
}

/// The default preset, to the last request: every layer off against every layer on.
#[test]
fn golden_default_preset() {
    let lab = pair(&CacheConfig::default());
    assert_eq!(paths(&lab.off), [642, 118, 40, 0, 0, 0, 0]);
    assert_eq!((lab.off.counts.db, lab.off.counts.peak_db), (158, 118));
    assert_eq!(paths(&lab.on), [556, 204, 0, 1, 39, 0, 0]);
    assert_eq!((lab.on.counts.db, lab.on.counts.peak_db), (3, 1));
    assert_eq!(lab.on.counts.overlaps, 0);
    // The seed's claim, on the cold start: one query instead of one per request.
    let first = |r: &CacheRecord| r.queries.iter().filter(|q| q.start < 600).count();
    assert_eq!(first(&lab.off), 40);
    assert_eq!(first(&lab.on), 1);
    // Every request was answered, once.
    for r in [&lab.off, &lab.on] {
        assert_eq!(r.counts.requests(), 800);
        assert_eq!(r.requests.len(), 800);
        assert!(r.requests.iter().all(|q| q.end >= q.start));
    }
    // The command log starts with the cold reads and the lock race.
    let on = lines(&lab.on);
    assert_eq!(lab.on.log[0].cmd, CacheCmd::Get);
    assert_eq!(on[0].cmd, ["GET", "cache:course-catalog"]);
    assert_eq!(on[0].reply, Ok(Reply::Nil));
    let set_lock = |l: &&CmdLine| l.cmd[..2] == ["SET", LOCK];
    let lock = on.iter().find(set_lock).unwrap();
    assert_eq!(lock.cmd[3..], ["NX", "PX", "3000"], "{:?}", lock.cmd);
    assert!(on.iter().any(|l| set_lock(&l) && l.reply == Ok(Reply::Nil)));
    let write = on.iter().find(|l| l.cmd[..2] == ["SET", KEY]).unwrap();
    // As redis-cli echoes it: the JSON in double quotes.
    assert!(
        write
            .cmd_text()
            .contains(r#""{\"version\":2,\"freshUntil\":"#),
        "{}",
        write.cmd_text()
    );
    assert_eq!(write.cmd[3], "PX");
    let px: f64 = write.cmd[4].parse().unwrap();
    assert!((2250.0..=2750.0).contains(&px), "PX {px} is not 2500 ± 10%");
    assert!(on
        .iter()
        .any(|l| l.cmd[..2] == ["EVALSHA", scripts::RELEASE.sha1]
            && l.reply == Ok(Reply::Integer(1))));
    assert_eq!(
        CacheOutput::summary(&lab, false)
            .table(PAIR_NAMES)
            .lines()
            .nth(4)
            .unwrap(),
        "layers on       556      204        0        1       39        0        0        3     1     34.9     700      1017"
    );
}

#[test]
fn golden_failure_levels() {
    // Redis down: ioredis queues every command (the offline queue) until `commandTimeout`
    // rejects it at 1,500 ms; then the database — every layer off → one query per request;
    // singleflight → one per instance at a time. Nothing reaches Redis.
    let lab = pair(&cfg("redis=down"));
    assert_eq!(paths(&lab.off), [0, 0, 0, 0, 0, 0, 800]);
    assert_eq!(lab.off.counts.db, 800);
    assert_eq!(paths(&lab.on), [0, 0, 0, 0, 680, 0, 120]);
    assert_eq!((lab.on.counts.db, lab.on.counts.peak_db), (120, 6));
    assert_eq!(lab.on.counts.commands, 0);
    assert!(lab
        .on
        .log
        .iter()
        .all(|l| l.reply == Err(NoReply::TimedOut(TIMEOUT_MS))));
    for r in &lab.off.requests {
        assert_eq!(
            r.end - r.start,
            TIMEOUT_MS + 600,
            "{r:?}: the timeout, then the query"
        );
    }
    for inst in 0..6 {
        let qs: Vec<&Query> = lab.on.queries.iter().filter(|q| q.inst == inst).collect();
        assert!(
            qs.windows(2).all(|w| w[1].start >= w[0].end),
            "api-{inst} ran two at once"
        );
    }
    // Redis slow: a command with no reply at 1,500 ms is rejected and not sent again: the
    // request goes to the database after one timeout, never two.
    let lab = pair(&cfg("redis=slow"));
    assert_eq!(paths(&lab.off), [206, 133, 18, 0, 0, 0, 443]);
    assert_eq!(paths(&lab.on), [17, 74, 0, 5, 543, 7, 154]);
    assert!(lab
        .on
        .log
        .iter()
        .any(|l| l.reply == Err(NoReply::TimedOut(1500))));
    let fallback = lab.off.requests.iter().filter(|r| r.path == Path::Fallback);
    assert!(fallback.clone().count() > 0);
    for r in fallback {
        // One GET timed out (1,500 ms after its hop out), then the query (600 ms).
        let d = r.end - r.start;
        assert!(
            (TIMEOUT_MS + 600..TIMEOUT_MS + 600 + 10).contains(&d),
            "{r:?}: {d} ms is not one timeout and the query"
        );
    }
    // Without a commandTimeout (ioredis' default) nothing falls back: every command waits for
    // its late reply, and a request takes seconds.
    let lab = pair(&cfg("redis=slow&timeout=0"));
    assert_eq!(lab.off.counts.paths[6] + lab.on.counts.paths[6], 0);
    assert!(lab.off.counts.requests() == 800 && lab.on.counts.requests() == 800);
    let slowest = lab
        .on
        .requests
        .iter()
        .map(|r| r.end - r.start)
        .max()
        .unwrap();
    assert!(slowest > 5_000, "{slowest} ms");
}

#[test]
fn down_needs_a_timeout() {
    let (p, errs) = Params::from_query(&INFO, "redis=down&timeout=0");
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].key, "timeout");
    assert_eq!(
        (p.get("redis"), p.get("timeout")),
        ("down", "1500"),
        "the bad value is put back, nothing else changes"
    );
}

#[test]
fn golden_heartbeat_keeps_one_loader() {
    // Lock 5 s, query 7 s, the waiters give up after 6 s: without the heartbeat the lock runs
    // out and a rescuer loads too.
    let off = run(&cfg("loader=7000&lock_ttl=5000&wait=6000&heartbeat=off"));
    assert_eq!(off.counts.overlaps, 1);
    assert_eq!((off.counts.db, off.counts.peak_db), (3, 2));
    let on = run(&cfg("loader=7000&lock_ttl=5000&wait=6000"));
    assert_eq!(on.counts.overlaps, 0);
    assert_eq!((on.counts.db, on.counts.peak_db), (2, 1));
    assert_eq!(paths(&on), [526, 162, 0, 1, 40, 71, 0]);
    let extend = |l: &&CmdLine| {
        l.cmd.len() > 4 && l.cmd[..4] == ["EVALSHA", scripts::EXTEND.sha1, "1", LOCK]
    };
    let on_lines = lines(&on);
    let beats: Vec<&CmdLine> = on_lines.iter().filter(extend).collect();
    assert!(beats.len() >= 4, "{} heartbeats", beats.len());
    assert!(beats.iter().all(|l| l.reply == Ok(Reply::Integer(1))));
    assert!(lines(&off).iter().all(|l| !extend(&l)));
}

#[test]
fn a_version_mismatch_and_a_corrupt_entry_are_deleted_and_count_as_misses() {
    for start in ["old-version", "corrupt"] {
        let r = run(&cfg(&format!("start={start}")));
        let log = lines(&r);
        let del = log
            .iter()
            .position(|l| l.cmd == ["DEL", "cache:course-catalog"])
            .unwrap();
        assert_eq!(log[del].reply, Ok(Reply::Integer(1)), "{start}");
        assert_eq!(log[0].cmd, ["GET", "cache:course-catalog"]);
        assert_ne!(
            r.log[0].reply,
            Ok(Reply::Nil),
            "{start}: the entry was there"
        );
        assert_eq!(
            r.counts.path(Path::Fresh) + r.counts.path(Path::Stale),
            760,
            "{start}"
        );
        assert_eq!(r.counts.db, 3);
    }
    // A fresh entry at the start: the first requests are FRESH, no query until it is stale.
    let r = run(&cfg("start=fresh"));
    assert_eq!(r.requests[0].path, Path::Fresh);
    assert!(r.queries[0].start >= 1500);
    // A stale one: the old value at once, a refresh behind it.
    let r = run(&cfg("start=stale"));
    assert_eq!(r.requests[0].path, Path::Stale);
    assert!(r.queries[0].refresh);
}

#[test]
fn stepping_equals_running_to_the_end() {
    for q in [
        "",
        "redis=slow&requests=200",
        "redis=down&requests=200",
        "singleflight=off&lock=off",
    ] {
        let c = cfg(q);
        let whole = run(&c);
        for n in [1usize, 7, 1000] {
            let mut r = sim(&c);
            let mut seen = 0;
            while !r.steps(n) {
                // What happened so far is a prefix of the whole run.
                let s = r.scenario().so_far();
                assert!(s.requests.len() >= seen);
                seen = s.requests.len();
                assert_eq!(s.requests[..], whole.requests[..seen], "{q} n={n}");
                assert_eq!(s.log[..], whole.log[..s.log.len()]);
            }
            assert_eq!(finish(r), whole, "{q} n={n}");
        }
        // The counters at the end of the timeline are the run's.
        // The counters at the end of the timeline are the run's: what the page shows at
        // its last position is the output's figures.
        let out = CacheOutput::new(&pair(&c));
        assert_eq!(out.steps(), VIEW_FRAMES);
        let last = out.on.timeline.as_ref().unwrap().frames.last().unwrap();
        assert_eq!(last.paths, whole.counts.paths);
        assert_eq!(last.db, whole.counts.db);
        assert_eq!(last.commands, whole.counts.commands);
        assert_eq!(
            SideKeys::ON.figures(last),
            SideKeys::ON.figures(&whole.counts),
            "{q}"
        );
    }
}

#[test]
fn the_worker_job_gives_the_same_numbers() {
    let params = Params::from_query(&INFO, "requests=300&stale=0").0;
    let p: CacheParams = params.read();
    let msgs = Work::new(Job::new(&INFO, &params)).unwrap().run_to_end();
    let Some(Body::Done(json)) = msgs.last() else {
        panic!("no output")
    };
    let out: CacheOutput = json.read().unwrap();
    let lab = pair(&p.config());
    assert_eq!(out, CacheOutput::new(&lab));
    assert_eq!(
        out.table(PAIR_NAMES),
        CacheOutput::summary(&lab, false).table(PAIR_NAMES)
    );
    assert_eq!(out.on.counts, lab.on.counts);
    assert_eq!(
        crate::labs::registry::figures("cache", json)
            .unwrap()
            .unwrap(),
        out.figures()
    );
    let s = serde_json::to_string(&msgs[0]).unwrap();
    assert_eq!(serde_json::from_str::<Body>(&s).unwrap(), msgs[0]);
}

/// With every layer on and Redis healthy, across instances: never two loads at once, and
/// after a load the next starts only when its entry can be stale or gone (fresh − 10%).
#[test]
fn property_one_load_per_stale_window_over_10000_seeds() {
    let starts = [
        Start::Empty,
        Start::Fresh,
        Start::Stale,
        Start::OldVersion,
        Start::Corrupt,
    ];
    for seed in 0..10_000u32 {
        let mut g = Mulberry32::new(seed.wrapping_mul(2_654_435_761));
        let mut pick = |lo: u32, hi: u32| lo + g.below(hi - lo + 1);
        let c = CacheConfig {
            instances: pick(1, 6),
            concurrent: pick(1, 12),
            requests: pick(1, 40),
            loader_ms: u64::from(pick(1, 1500)),
            fresh_ms: u64::from(pick(100, 800)),
            stale_ms: u64::from(pick(0, 800)),
            lock_ttl_ms: u64::from(pick(100, 2000)),
            wait_ms: u64::from(pick(100, 2000)),
            layers: Layers::ALL,
            redis: Health::Healthy,
            timeout_ms: TIMEOUT_MS,
            start: starts[pick(0, 4) as usize],
            seed,
        };
        let r = run(&c);
        assert_eq!(r.counts.overlaps, 0, "{c:?}");
        let min_gap = c.fresh_ms * 9 / 10 - 1;
        for w in r.queries.windows(2) {
            assert!(
                w[1].start >= w[0].end + min_gap,
                "seed {seed}: a load at {} after one ending at {}: {c:?}",
                w[1].start,
                w[0].end
            );
        }
        assert_eq!(r.counts.requests(), c.requests, "{c:?}");
    }
}
