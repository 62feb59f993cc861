//! The broadcast lab (seed 004): golden runs of its presets, properties over seeded random
//! crash, outage and click schedules, and `labsim broadcast --json`.

use redislab_sim::labs::broadcast::{
    is_dead, run, BroadcastConfig, BroadcastParams, BroadcastScenario, BroadcastSim, End,
    Responses, Why, INFO,
};
use redislab_sim::labs::params::Params;
use redislab_sim::queue::Life;
use redislab_sim::rng::Mulberry32;
use std::process::Command;

fn preset(query: &str) -> BroadcastParams {
    let (p, errs) = Params::from_query(&INFO, query);
    assert!(errs.is_empty(), "{query}: {errs:?}");
    p.read()
}

/// 5,00,000 tokens with the defaults: 1,000 FCM calls (500 each), 10 a second → 100 s, plus
/// the last call's 200 ms and the first batch's start; nothing twice, nothing lost; the API
/// answers in 40 ms (4 round trips of 2 ms and a 32 ms log row).
#[test]
fn golden_defaults() {
    let r = run(&BroadcastParams::default());
    let c = r.counters;
    assert_eq!((c.fcm_calls, c.calls_ok, c.calls_429), (1000, 1000, 0));
    assert_eq!(
        (c.delivered, c.sent_twice, c.lost, c.dead),
        (500_000, 0, 0, 0)
    );
    assert_eq!(
        (c.jobs, c.broadcasts, c.retries, c.failed_jobs),
        (1001, 1, 0, 0)
    );
    assert!((100_000..=102_000).contains(&r.end_ms), "{}", r.end_ms);
    assert_eq!(r.end_ms, 100_867);
    assert_eq!(r.responses[0].ms, 40);
    assert!(r.responses[0].queued);
    // The animation ends where the run ends.
    let last = r.frames.last().unwrap();
    assert_eq!(
        (last.at_ms, last.delivered, last.calls),
        (r.end_ms, 500_000, 1000)
    );
    // The command log shows BullMQ's keys.
    let log: Vec<String> = r.log().iter().map(|c| c.cmd_text()).collect();
    for want in [
        "SET bcast:dedup:campaign:42 1 NX EX 900",
        "INCR bull:push:id",
        "LPUSH bull:push:wait 1",
        "BLMOVE bull:push:wait bull:push:active RIGHT LEFT",
        "SET bull:push:1-0:lock",
        "ZADD bull:push:completed",
        "INCR bull:push:limiter",
    ] {
        assert!(
            log.iter().any(|c| c.starts_with(want)),
            "{want} not in the log"
        );
    }
}

/// The naive loop: the proxy cuts at 30 s with 150 sent; the process dies at 642.8 s with
/// 3,214 sent (642 whole seconds would be 3,210: the seed's clock shows whole seconds); the
/// rerun sends those 3,214 again.
#[test]
fn golden_naive() {
    let r = run(&preset("preset=naive"));
    assert_eq!(r.naive.at_timeout, 150);
    assert_eq!(r.naive.at_death, 3_214);
    assert_eq!(r.naive.whole_seconds, 3_210);
    assert_eq!(r.naive.total_ms, 100_000_000);
    assert_eq!(r.counters.sent_twice, 3_214);
    assert_eq!(r.counters.delivered, 500_000);
    assert_eq!(r.responses[0].ms, 30_000);
    let died = r.moments.iter().find(|m| m.kind == "died").unwrap();
    assert_eq!((died.at_ms, died.n), (642_800, 3_214));
    // Without the rerun: 3,214 got it, the rest never will, nobody twice.
    let r = run(&preset("preset=naive&rerun=off"));
    assert_eq!(
        (r.counters.delivered, r.counters.lost, r.counters.sent_twice),
        (3_214, 496_786, 0)
    );
}

#[test]
fn golden_presets() {
    let c = |q: &str| run(&preset(q)).counters;
    // All at once: 5,00,000 fit FCM's 6,00,000 a minute — no 429, nobody lost.
    let a = c("preset=all-at-once");
    assert_eq!((a.calls_429, a.lost, a.sent_twice), (0, 0, 0), "{a:?}");
    // 5,000 tokens a call: FCM rejects every call whole.
    let n = c("preset=no-chunks");
    assert_eq!((n.delivered, n.calls_ok, n.failed_jobs), (0, 0, 100));
    assert_eq!(n.calls_rejected, 300);
    // Two clicks, no dedup: two broadcasts, everyone twice.
    let d = c("preset=double-click");
    assert_eq!(
        (d.broadcasts, d.sent_twice, d.fcm_calls),
        (2, 500_000, 2000)
    );
    // Three clicks with SET NX: one job.
    let d = c("preset=dedup");
    assert_eq!((d.broadcasts, d.dedup_refused, d.sent_twice), (1, 2, 0));
    // A 25 s outage, the answers ignored: every batch completed, 1,25,000 never get it.
    let o = c("preset=no-retry");
    assert_eq!(
        (o.failed_jobs, o.retries, o.lost, o.calls_unavailable),
        (0, 0, 125_000, 250)
    );
    // The same with the answers read but one attempt: 250 batches in the failed set.
    let o = c("preset=outage&attempts=1");
    assert_eq!(
        (o.failed_jobs, o.lost, o.calls_unavailable),
        (250, 125_000, 250)
    );
    // The same outage with 3 attempts: every batch retried once, nothing lost or twice.
    let o = c("preset=outage");
    assert_eq!(
        (o.retries, o.failed_jobs, o.lost, o.sent_twice),
        (250, 0, 0, 0)
    );
    // A crash mid-call: ten batches were with FCM already; the stalled check takes them back
    // after their locks expire and they run again: 5,000 tokens twice, nobody lost.
    let k = c("preset=crash");
    assert_eq!((k.stalled, k.sent_twice, k.lost), (10, 5_000, 0));
    // 20 % dead tokens: reported, marked isValid = false once each, never counted delivered.
    let p = preset("preset=dead-tokens");
    let dead = (1..=p.tokens).filter(|&i| is_dead(p.seed, 20, i)).count() as u64;
    let t = c("preset=dead-tokens");
    assert_eq!(
        (t.dead, t.dead_marked, t.delivered + t.dead),
        (dead, dead, 500_000)
    );
    // Everything in memory: out of memory, the job stalls twice and fails.
    let l = run(&preset("preset=load-all"));
    assert_eq!(
        (
            l.counters.delivered,
            l.counters.stalled,
            l.counters.failed_jobs
        ),
        (0, 2, 1)
    );
    assert!(l.moments.iter().any(|m| m.kind == "oom" && m.n == 600));
    // Offset paging: the last page is the slowest; cursor pages are all the same.
    let r = run(&preset("preset=paging"));
    let costs = r.page_costs();
    let last = costs.last().unwrap();
    assert_eq!(
        (costs[0].offset_ms, last.offset_ms, last.cursor_ms),
        (40, 535, 40)
    );
    assert_eq!(r.pages.last().unwrap().ms, 535);
}

/// attempts 3 waits 10 s and 20 s; the seed's 10 → 20 → 40 needs attempts 4.
#[test]
fn backoff_waits_10_20_then_40_with_four_attempts() {
    for (attempts, want) in [
        (3u32, vec![10_000u64, 20_000]),
        (4, vec![10_000, 20_000, 40_000]),
    ] {
        let r = run(&preset(&format!(
            "tokens=5000&outage_at=0&outage=300&attempts={attempts}"
        )));
        let b0: Vec<_> = r.attempts.iter().filter(|a| a.batch == Some(3)).collect();
        let waits: Vec<u64> = b0
            .iter()
            .filter_map(|a| a.due_ms.map(|d| d - a.to_ms))
            .map(|w| (w + 50) / 1000 * 1000)
            .collect();
        assert_eq!(waits, want, "attempts {attempts}: {b0:?}");
        assert_eq!(b0.last().unwrap().end, End::Failed);
        assert_eq!(b0.len() as u32, attempts);
    }
}

/// Random schedules for property seed `s`: 10,000 tokens (20 batches), crashes, outages,
/// dead tokens and clicks drawn from `s`.
fn random(s: u32) -> BroadcastConfig {
    let mut r = Mulberry32::new(s ^ 0xB0AD_CA57);
    let mut pick = |lo: u32, hi: u32| u64::from(lo + r.below(hi - lo + 1));
    let mut p = preset(&format!("tokens=10000&seed={s}"));
    p.dead = pick(0, 30) as u32;
    p.concurrency = pick(1, 12) as u32;
    p.throttle = [0, 5, 10, 20][pick(0, 3) as usize];
    p.clicks = pick(1, 4) as u32;
    p.click_gap = pick(0, 1500);
    p.attempts = pick(3, 5) as u32;
    let mut life = Life::default();
    for _ in 0..pick(0, 2) {
        life.crash(pick(100, 8_000), pick(0, 6_000));
    }
    let mut outages = Vec::new();
    for _ in 0..pick(0, 2) {
        let a = pick(0, 8_000);
        outages.push((a, a + pick(500, 8_000)));
    }
    BroadcastConfig {
        pace: p.config().pace,
        p,
        life,
        outages,
    }
}

/// Over random crash and outage schedules: a burst of clicks makes one job; every token is
/// counted once (delivered, dead or lost, and "sent twice" is exactly the tokens FCM took
/// more than once); every valid token is delivered at least once unless its batch is in the
/// failed set — and with outages shorter than the first backoff nothing ends there.
#[test]
fn properties_over_random_crash_and_outage_schedules() {
    for s in 0..40u32 {
        let cfg = random(s);
        let p = cfg.p.clone();
        let mut run = BroadcastSim::new(BroadcastScenario::new(&cfg), p.seed);
        run.steps(usize::MAX);
        let r = run.output();
        let sends = run.scenario().sends();
        let c = r.counters;
        assert_eq!(
            c.broadcasts, 1,
            "seed {s}: {} clicks made {} jobs",
            p.clicks, c.broadcasts
        );
        let valid = |i: u32| !is_dead(p.seed, p.dead, i);
        let got = (1..=p.tokens)
            .filter(|&i| valid(i) && sends[i as usize] >= 1)
            .count() as u64;
        let twice = (1..=p.tokens)
            .filter(|&i| valid(i) && sends[i as usize] >= 2)
            .count() as u64;
        assert_eq!((c.delivered, c.sent_twice), (got, twice), "seed {s}");
        let dead = (1..=p.tokens).filter(|&i| !valid(i)).count() as u64;
        assert_eq!(c.delivered + c.lost + dead, u64::from(p.tokens), "seed {s}");
        // Tokens of failed batches are the only ones that may be missing.
        let failed: Vec<u32> = r
            .runs()
            .into_iter()
            .filter(|a| a.end == End::Failed)
            .filter_map(|a| a.batch)
            .chain(
                r.moments
                    .iter()
                    .filter(|m| {
                        m.kind == "failed" && m.job.as_deref().is_some_and(|j| j.contains('-'))
                    })
                    .map(|m| m.n as u32),
            )
            .collect();
        for i in 1..=p.tokens {
            if valid(i) && sends[i as usize] == 0 {
                let in_failed = failed.iter().any(|&n| {
                    let (a, b) = p.batch_range(n);
                    (a..=b).contains(&i)
                });
                assert!(in_failed, "seed {s}: token {i} lost outside the failed set");
            }
        }
        if cfg.outages.iter().all(|&(a, b)| b - a < p.backoff) && cfg.life.down.len() <= 1 {
            assert_eq!((c.lost, c.failed_jobs), (0, 0), "seed {s}: {cfg:?}");
        }
        if cfg.life.down.is_empty() {
            assert_eq!(c.sent_twice, 0, "seed {s}");
        }
    }
}

#[test]
fn labsim_broadcast_json_is_the_library_result() {
    let out = Command::new(env!("CARGO_BIN_EXE_labsim"))
        .args(["broadcast", "--preset", "naive", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["naive"]["atDeath"], 3214);
    assert_eq!(v["counters"]["sentTwice"], 3214);
    let out = Command::new(env!("CARGO_BIN_EXE_labsim"))
        .args(["broadcast", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = run(&BroadcastParams::default());
    assert_eq!(v["counters"], serde_json::to_value(r.counters).unwrap());
    assert_eq!(v["counters"]["fcmCalls"], 1000);
    // A bad value: exit 2, the lab's Bengali message.
    let out = Command::new(env!("CARGO_BIN_EXE_labsim"))
        .args(["broadcast", "--chunk", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--chunk: 1 থেকে 100000-এর মধ্যে"));
    let out = Command::new(env!("CARGO_BIN_EXE_labsim"))
        .args(["broadcast", "--chunk", "10"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("হিসাব অনেক লম্বা"));
}

/// FCM does not throw when tokens fail (`sendEachForMulticast` settles every request): in a
/// 25 s outage a worker that ignores the answers completes every batch — nothing retried,
/// nothing in the failed set, no dead token marked — and the outage's tokens are lost without
/// a trace. The fixed worker reads the answers, keeps the failed tokens in the job's data and
/// throws: the same outage loses nobody and sends nobody twice.
#[test]
fn golden_ignored_answers_lose_the_outage_and_the_fixed_worker_loses_nobody() {
    let i = run(&preset("preset=no-retry"));
    let c = i.counters;
    assert_eq!((c.retries, c.failed_jobs, c.calls_unavailable), (0, 0, 250));
    assert_eq!((c.lost, c.sent_twice, c.delivered), (125_000, 0, 375_000));
    assert_eq!(i.batches_completed(), 1000);
    let f = run(&preset("preset=outage"));
    let c = f.counters;
    assert_eq!(
        (c.failed_jobs, c.lost, c.sent_twice, c.delivered),
        (0, 0, 0, 500_000)
    );
    assert!(c.retries >= 250, "{c:?}");
    // Before it throws, the job writes the failed tokens into its data (updateData); the
    // retry sends only them.
    let small = run(&preset("preset=outage&tokens=5000&outage_at=0&outage=5"));
    assert!(
        small.log().iter().any(|l| l.cmd.len() == 4
            && (l.cmd[0].as_str(), l.cmd[1].as_str(), l.cmd[2].as_str())
                == ("HSET", "bull:push:1-0", "data")
            && l.cmd[3].contains(r#""left":500"#)),
        "no updateData in the log"
    );
    assert_eq!(small.counters.lost, 0);
    // Dead tokens: the ignoring worker never marks them; the fixed one marks each once and
    // never retries them.
    let q = "outage=25&dead=20";
    let d = run(&preset(&format!("preset=no-retry&{q}"))).counters;
    assert_eq!(d.dead_marked, 0);
    let d = run(&preset(&format!("preset=outage&{q}"))).counters;
    assert_eq!(
        (d.dead_marked, d.dead, d.lost, d.sent_twice),
        (d.dead, d.dead, 0, 0)
    );
}

/// FCM's quota is one bucket of `quota` messages a minute: 40 batches of 500 at once against
/// a 12,000 bucket — 24 calls go through, 16 get 429 with a retry-after to the next minute.
/// BullMQ's backoff (10 s, then 20 s) retries them inside the same minute, so with 3 attempts
/// they end in the failed set; with 4 (10 + 20 + 40 s) the last run falls in the next minute
/// and everyone gets it, nobody twice (only the failed tokens are retried).
#[test]
fn golden_the_quota_is_a_one_minute_bucket() {
    let q = "tokens=20000&quota=12000&throttle=0&concurrency=40&db_pool=40";
    let r = run(&preset(&format!("{q}&attempts=3")));
    let c = r.counters;
    assert_eq!(
        (c.calls_429, c.failed_jobs, c.lost, c.sent_twice),
        (48, 16, 8_000, 0),
        "{c:?}"
    );
    assert_eq!(c.delivered, 12_000);
    assert!(r
        .attempts
        .iter()
        .all(|a| a.why.is_none() || a.why == Some(Why::Quota)));
    let r = run(&preset(&format!("{q}&attempts=4")));
    let c = r.counters;
    assert_eq!(
        (c.calls_429, c.failed_jobs, c.lost, c.sent_twice),
        (48, 0, 0, 0),
        "{c:?}"
    );
    assert_eq!(c.delivered, 20_000);
    // The defaults: 5,000 a second is 3,00,000 a minute, half the 6,00,000 quota.
    assert_eq!(BroadcastParams::default().quota, 600_000);
    assert_eq!(run(&preset("preset=all-at-once")).counters.calls_429, 0);
}

/// Over random outage and quota schedules, the two workers: the one that ignores the answers
/// never retries or fails a batch, and every valid token it did not deliver was in a call that
/// failed (lost, never twice without a crash); the fixed one sends nobody twice without a
/// crash, loses tokens only in the failed set, and with outages shorter than the first
/// backoff loses nobody.
#[test]
fn properties_of_the_two_workers_over_random_outages_and_quotas() {
    for s in 0..30u32 {
        let mut cfg = random(s);
        cfg.life = Life::default();
        let mut r = Mulberry32::new(s ^ 0x0FC3_0FC3);
        cfg.p.quota = [600_000, 9_000, 4_000][r.below(3) as usize];
        for responses in [Responses::Ignore, Responses::Retry] {
            cfg.p.responses = responses;
            let p = cfg.p.clone();
            let mut sim = BroadcastSim::new(BroadcastScenario::new(&cfg), p.seed);
            sim.steps(usize::MAX);
            let out = sim.output();
            let c = out.counters;
            let sends = sim.scenario().sends();
            assert_eq!(c.sent_twice, 0, "seed {s} {responses:?}");
            let valid = |i: u32| !is_dead(p.seed, p.dead, i);
            let dead = (1..=p.tokens).filter(|&i| !valid(i)).count() as u64;
            assert_eq!(c.delivered + c.lost + dead, u64::from(p.tokens), "seed {s}");
            let missing = (1..=p.tokens)
                .filter(|&i| valid(i) && sends[i as usize] == 0)
                .count() as u64;
            assert_eq!(missing, c.lost, "seed {s} {responses:?}");
            let failed_calls = c.calls_unavailable + c.calls_429;
            match responses {
                Responses::Ignore => {
                    assert_eq!(c.dead_marked, 0, "seed {s}");
                    if c.db_timeouts == 0 {
                        assert_eq!((c.retries, c.failed_jobs), (0, 0), "seed {s}");
                    }
                    if failed_calls == 0 {
                        assert_eq!(c.lost, 0, "seed {s}");
                    }
                }
                Responses::Retry => {
                    if c.failed_jobs == 0 {
                        assert_eq!(c.lost, 0, "seed {s}: {cfg:?}");
                    }
                    if p.quota == 600_000 && cfg.outages.iter().all(|&(a, b)| b - a < p.backoff) {
                        assert_eq!((c.lost, c.failed_jobs), (0, 0), "seed {s}: {cfg:?}");
                    }
                }
            }
        }
    }
}
