//! The cache-aside lab's unit tests: golden presets, stepping, the spans against SimRedis'
//! own keyspace, the live driver.

use super::*;
use crate::labs::params::Params;
use crate::redis::{Reply, SimRedis};

fn preset_params(id: &str) -> AsideParams {
    let (p, errs) = Params::from_query(&INFO, &format!("preset={id}"));
    assert!(errs.is_empty(), "{errs:?}");
    p.read()
}

fn counters(id: &str) -> Counters {
    run(&preset_params(id)).counters
}

#[test]
fn defaults_are_the_basic_preset_and_the_rule_holds() {
    assert_eq!(AsideParams::default(), preset_params("basic"));
    assert_eq!(
        Params::defaults(&INFO).preset().map(|p| p.id),
        Some("basic")
    );
    // Too many reads: the message is on read_every, which goes back to its default.
    let (p, errs) = Params::from_query(&INFO, "readers=6&duration=900&read_every=1000");
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].key, "read_every");
    assert!(errs[0].message.contains("২,০০০"), "{}", errs[0].message);
    assert_eq!(p.get("read_every"), "5000");
}

/// Golden runs of the presets (seed 3, three readers every ~5 s for 400 s, EX 300).
#[test]
fn golden_presets() {
    // The seed's flow: three first misses (one per reader, before anyone filled the key),
    // the write's DEL, one miss to refill it: a 2 ms window between the commit and the DEL.
    let b = counters("basic");
    assert_eq!(
        (b.requests, b.hits, b.misses, b.db_reads, b.db_writes),
        (236, 233, 3, 3, 1)
    );
    assert_eq!((b.stale_reads, b.longest_stale_ms), (0, 2));
    let r = run(&preset_params("basic"));
    let first = &r.commands[0];
    assert_eq!(
        (first.cmd_text().as_str(), &first.reply),
        ("GET cache:product:99", &Ok(Reply::Nil))
    );
    let fill = r.commands.iter().find(|c| c.kind == CmdKind::Fill).unwrap();
    assert_eq!(
        fill.cmd_text(),
        "SET cache:product:99 \"{\\\"id\\\":99,\\\"name\\\":\\\"Lamp\\\",\\\"price\\\":1200}\" EX 300"
    );

    // Update in place, two writers, A paused after its commit: A's older price sits in the
    // cache from 1,342 ms until its TTL runs out 300 s later.
    let u = run(&preset_params("update-race"));
    let w = u
        .windows
        .iter()
        .max_by_key(|w| w.to_ms - w.from_ms)
        .unwrap();
    assert_eq!(
        (w.from_ms, w.to_ms, w.cached, w.db, w.end),
        (1342, 301_342, 1250, 1300, SpanEnd::Expired)
    );
    assert_eq!(
        (u.counters.stale_reads, u.counters.longest_stale_ms),
        (176, 300_000)
    );
    // The same pause with delete on write: no stale read, the cache refilled with 1300.
    let d = counters("delete");
    assert_eq!((d.stale_reads, d.longest_stale_ms), (0, 102));
    let last = run(&preset_params("delete")).spans.pop().unwrap();
    assert_eq!((last.price, last.end), (Some(1300), SpanEnd::Held));

    // Read old, delete, set old: stale until the TTL — and with a 30 s TTL for 30 s.
    let dr = run(&preset_params("delete-race"));
    let w = dr.first_window().unwrap();
    assert_eq!(
        (w.from_ms, w.to_ms, w.cached, w.db, w.end),
        (346, 300_346, 1200, 1250, SpanEnd::Expired)
    );
    assert_eq!(dr.counters.stale_reads, 177);
    let s = counters("short-ttl");
    assert_eq!((s.stale_reads, s.longest_stale_ms), (16, 30_000));
    // Without a TTL: for ever (the run's end).
    let n = run(&preset_params("no-ttl"));
    assert_eq!(n.outcome().longest_end, Some(SpanEnd::Held));
    assert_eq!(n.counters.stale_reads, 234);

    // A missing id: 87 database reads without negative caching, 15 with it.
    let p = counters("penetration");
    let g = counters("negative");
    assert_eq!((p.db_reads, p.negative_hits), (87, 0));
    assert_eq!((g.db_reads, g.negative_hits), (15, 72));

    // Redis down: every answer from the database, right, ten times slower.
    let down = run(&preset_params("redis-down"));
    let c = down.counters;
    assert_eq!(
        (c.hits, c.stale_reads, c.db_reads, c.requests),
        (0, 0, 235, 235)
    );
    assert!(down.outcome().all_from_db);
    assert!(
        c.mean_ms() > 40.0 && b.mean_ms() < 5.0,
        "{} {}",
        c.mean_ms(),
        b.mean_ms()
    );
    assert!(down.commands.iter().all(|x| x.refused()));
}

#[test]
fn every_answer_is_the_database_or_the_cache_as_it_was() {
    for pr in PRESETS {
        let r = run(&preset_params(pr.id));
        for a in r.answers() {
            match (a.product, a.source) {
                (MISSING, _) => assert_eq!(a.price, None, "{}", pr.id),
                (_, Source::Db) => assert!(a.price.is_some(), "{}", pr.id),
                _ => {}
            }
        }
        // A stale read is a hit inside a stale window, and every hit inside one is stale.
        for c in r
            .commands
            .iter()
            .filter(|c| c.hit() && c.key() == key(PRODUCT))
        {
            let inside = r
                .windows
                .iter()
                .any(|w| w.from_ms <= c.at_ms && c.at_ms < w.to_ms);
            assert_eq!(c.stale, inside, "{} at {}", pr.id, c.at_ms);
        }
    }
}

/// The spans the analysis reads from the commands are SimRedis' own keyspace: at the end of
/// the run, the key holds what the last span says.
#[test]
fn the_spans_agree_with_simredis() {
    for pr in PRESETS {
        let p = preset_params(pr.id);
        let mut r = AsideSim::of(&p, None);
        r.steps(usize::MAX);
        let out = r.output();
        let mut redis = r.world().backend().clone();
        redis.advance_to(out.end_ms);
        for product in [PRODUCT, MISSING] {
            let held = out
                .spans
                .iter()
                .rfind(|s| s.product == product && s.end == SpanEnd::Held);
            let got = redis.cmd(&["GET", &key(product)]);
            let want = match held {
                Some(s) => Reply::bulk(s.price.map_or(NONE.to_string(), row)),
                None => Reply::Nil,
            };
            assert_eq!(got, want, "{} {product}", pr.id);
        }
    }
}

#[test]
fn stepping_equals_the_run_to_the_end() {
    for id in ["update-race", "delete-race", "negative", "redis-down"] {
        let p = preset_params(id);
        let full = run(&p);
        let mut chunked = AsideSim::of(&p, None);
        while !chunked.steps(7) {}
        assert_eq!(chunked.output(), full, "{id}");
        let n = full.commands.len();
        for k in [0, 1, 2, 5, 9, 17, n / 3, n / 2, n - 1] {
            let mut part = AsideSim::of(&p, None);
            if k > 0 {
                part.run_to_step(full.commands[k - 1].step + 1);
            }
            let r = part.output();
            assert_eq!(r.commands[..], full.commands[..k], "{id} {k}");
            assert_eq!(r.counters, full.so_far(k), "{id} at position {k}");
        }
        assert_eq!(full.so_far(n), full.counters, "{id}");
    }
}

#[test]
fn live_setup_keeps_the_story_in_seconds() {
    let p = preset_params("delete-race");
    let s = p.for_live(1);
    assert_eq!((s.ttl_ms, s.duration_ms, s.read_every_ms), (3000, 4000, 75));
    assert_eq!((s.db_ms, s.pause_ms, s.write_at_ms), (40, 300, 100));
    assert_eq!(Setup::expiry(s.ttl_ms), ["EX", "3"]);
    assert_eq!(Setup::expiry(300), ["PX", "300"]);
    assert!(Setup::expiry(0).is_empty());
    let two = p.for_live(2);
    assert_eq!((two.ttl_ms, two.pause_ms), (6000, 600));
}

/// The live driver with SimRedis answering every command the moment it is sent: the same
/// readers and writers, so the same story as the simulation of the same setup.
#[test]
fn the_live_driver_fed_by_simredis_ends_as_simulated() {
    use crate::labs::lab::LiveDriver;
    use crate::redis::Exec;
    for pr in PRESETS {
        let p = preset_params(pr.id);
        let mut live = AsideLive::of(&p, Some(1));
        let mut redis = SimRedis::new(p.seed);
        let mut now = 0;
        let mut sent = 0;
        while !LiveDriver::is_done(&live) {
            for (tag, c) in live.advance(now) {
                redis.advance_to(now);
                let Exec::Reply(r) = redis.execute(tag as u64 + 1, &c) else {
                    panic!("cache-aside never blocks")
                };
                live.arrived(tag, r, now, 250);
                sent += 1;
            }
            now = live.next_at().unwrap_or(now).max(now);
        }
        let (l, sim) = (live.output(), AsideSim::of(&p, Some(1)).finish());
        assert_eq!(l.outcome(), sim.outcome(), "{}", pr.id);
        let refused = l.commands.iter().filter(|c| c.refused()).count();
        assert_eq!(l.commands.len() - refused, sent, "{}", pr.id);
        assert!(l
            .commands
            .iter()
            .all(|c| c.refused() || c.rtt_us == Some(250)));
        assert_eq!(
            l.counters.stale_reads > 0,
            sim.counters.stale_reads > 0,
            "{}",
            pr.id
        );
    }
}

#[test]
fn the_worker_protocol_gives_the_same_result() {
    use crate::labs::work::{Body, Job, Work};
    let job = Job::new(&INFO, &Params::from_query(&INFO, "preset=delete-race").0);
    let msgs = Work::new(job).unwrap().run_to_end();
    let Some(Body::Done(r)) = msgs.last() else {
        panic!("no result: {msgs:?}")
    };
    assert_eq!(
        r.read::<AsideOutput>().unwrap(),
        run(&preset_params("delete-race"))
    );
}

/// The heaviest parameters (the long-task tests open the lab with them) are valid, stay
/// within the rule on reads, and run.
#[test]
fn the_heaviest_parameters_are_valid_and_run() {
    use crate::labs::lab::Lab;
    let (p, errs) = Params::from_query(&INFO, LAB.heaviest());
    assert!(errs.is_empty(), "{errs:?}");
    let p: AsideParams = p.read();
    assert!(p.setup().reads() <= MAX_READS);
    let r = run(&p);
    assert!(r.counters.requests > 1_500, "{}", r.counters.requests);
}
