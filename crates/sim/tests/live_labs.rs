//! The cache-engine and streams labs' live drivers, fed by SimRedis in place of the proxy and
//! a real Redis: each command runs the moment it is sent and its reply comes back 2 ms later
//! (a blocking read when an entry comes or its block times out). The same instances and
//! workers as the simulation, so the same story: every request answered, every message saved
//! once (or dead-lettered), the crashed worker's batch taken over. The browser test
//! (`tests/tests/live.rs`) runs them through the real proxy and a real `redis-server`.

use redislab_sim::labs::broadcast::{self, BroadcastParams};
use redislab_sim::labs::cache::{self, CacheConfig, Layers, Path};
use redislab_sim::labs::params::Params;
use redislab_sim::labs::streams::{self, StreamsParams, INFO, PRESETS};
use redislab_sim::labs::work::LiveDriver;
use redislab_sim::redis::{Exec, Reply, SimRedis};
use std::collections::BTreeMap;

/// Round trip of every command, ms.
const RTT: u64 = 2;

/// Drives `live` to its end against SimRedis; returns the commands sent.
fn drive(live: &mut dyn LiveDriver, seed: u32) -> usize {
    drive_rtt(live, seed, RTT)
}

/// [`drive`] with round trips of `rtt` ms.
fn drive_rtt(live: &mut dyn LiveDriver, seed: u32, rtt: u64) -> usize {
    let mut redis = SimRedis::new(seed).with_named_scripts();
    let mut now = 0u64;
    // Replies on their way back: (arrives at, tag) → reply.
    let mut back: BTreeMap<(u64, usize), Reply> = BTreeMap::new();
    let mut sent = 0;
    let client = |tag: usize| tag as u64 + 1;
    while !live.is_done() {
        assert!(now < 600_000, "the live run never ended");
        redis.advance_to(now);
        for w in redis.take_woken() {
            back.insert(
                (w.at_ms.max(now) + rtt / 2, (w.client - 1) as usize),
                w.reply,
            );
        }
        while let Some(e) = back.first_entry() {
            if e.key().0 > now {
                break;
            }
            let ((_, tag), reply) = e.remove_entry();
            live.arrived(tag, reply, now, (rtt * 1000) as u32);
        }
        for (tag, cmd) in live.advance(now) {
            sent += 1;
            match redis.execute(client(tag), &cmd) {
                Exec::Reply(r) => {
                    back.insert((now + rtt, tag), r);
                }
                Exec::Blocked => {}
            }
            for w in redis.take_woken() {
                back.insert((now + rtt / 2, (w.client - 1) as usize), w.reply);
            }
        }
        if live.is_done() {
            break;
        }
        let next = [
            live.next_at(),
            back.keys().next().map(|k| k.0),
            redis.next_timeout_ms(),
        ]
        .into_iter()
        .flatten()
        .min()
        .expect("something is due");
        now = next.max(now + u64::from(next <= now));
    }
    sent
}

#[test]
fn the_cache_engine_live_answers_every_request_as_predicted() {
    for (layers, start) in [
        (Layers::ALL, cache::Start::Empty),
        (Layers::NONE, cache::Start::Empty),
        (Layers::ALL, cache::Start::Stale),
    ] {
        let cfg = CacheConfig {
            layers,
            start,
            ..CacheConfig::default()
        }
        .for_live(1);
        assert_eq!((cfg.concurrent, cfg.requests), (8, 120));
        let mut live = cache::live(&cfg);
        let sent = drive(&mut live, cfg.seed);
        let view: cache::CacheOutput = live.snapshot().read().expect("the cache's output");
        let real = live.scenario().result(live.world());
        let sim = live.scenario().other().expect("the prediction");
        assert_eq!(real.counts.requests(), 120, "{layers:?}");
        assert_eq!(view.on.counts, real.counts);
        assert_eq!(view.off.counts, sim.counts);
        // Every command but the starting entry is in the log with its round trip.
        let seeded = usize::from(start != cache::Start::Empty);
        assert_eq!(real.log.len() + seeded, sent, "{layers:?}");
        let log = &view.on.timeline.as_ref().expect("the page's output").log;
        assert_eq!(log.len(), real.log.len());
        assert!(log.iter().all(|l| l.rtt_us == Some(2000)));
        // The instances are the simulation's: the same story to within a query or two
        // (2 ms round trips here against the simulation's seeded 2–4 ms).
        if layers == Layers::ALL {
            assert!(
                real.counts.db <= sim.counts.db + 1,
                "{:?} {:?}",
                real.counts,
                sim.counts
            );
            assert_eq!(real.counts.path(Path::Miss), 0);
            assert_eq!(real.counts.overlaps, 0);
        } else {
            assert!(real.counts.db > 20, "{:?}", real.counts);
            assert!(real.counts.db.abs_diff(sim.counts.db) <= sim.counts.db / 5 + 2);
        }
        let table = view.table(cache::LIVE_NAMES);
        assert!(table.contains("real redis"), "{table}");
    }
}

fn preset(id: &str) -> StreamsParams {
    let pr = PRESETS.iter().find(|p| p.id == id).unwrap();
    let q: Vec<String> = pr.pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let (p, e) = Params::from_query(&INFO, &q.join("&"));
    assert!(e.is_empty());
    p.read()
}

#[test]
fn the_streams_lab_live_saves_everything_and_samples_redis() {
    for (id, k) in [
        ("healthy", 1),
        ("crash", 1),
        ("poison", 2),
        ("crash-no-claim", 1),
    ] {
        let p = preset(id).for_live(k);
        assert!(p.messages <= 200 && p.workers <= 3 && p.block <= 500 && p.away_ms == 0);
        let mut live = streams::StreamsLive::of(&p, None);
        drive(&mut live, p.seed);
        let r = live.output();
        let sim = streams::run(&p);
        let c = r.counters;
        assert!(r.live && r.settled, "{id}: {}", r.text());
        assert_eq!(c.produced, p.messages, "{id}");
        assert_eq!(c.saved + c.dead, p.messages, "{id}: {}", r.text());
        assert_eq!(
            (c.dead, c.duplicates > 0),
            (sim.counters.dead, sim.counters.duplicates > 0),
            "{id}: {}\n{}",
            r.text(),
            sim.text()
        );
        assert_eq!(c.duplicates, c.reclaimed, "{id}");
        // The last sample is Redis' own XLEN and XPENDING: every message is in the stream
        // (nothing trimmed at these counts), and only a dead worker's batch is pending.
        let last = r.samples.last().unwrap();
        assert_eq!(last.xlen, p.messages, "{id}");
        assert_eq!(last.pending, c.stuck, "{id}");
        assert_eq!(last.pending, sim.samples.last().unwrap().pending, "{id}");
        assert!(r
            .log
            .iter()
            .all(|l| l.cmd.is_empty() || l.rtt_us == Some(2000)));
        assert!(r
            .log
            .iter()
            .any(|l| l.cmd_text().starts_with("XREADGROUP GROUP savers w1 COUNT")));
        if id == "crash" {
            assert!(
                r.log.iter().any(|l| l.cmd_text().starts_with("XAUTOCLAIM")),
                "{id}"
            );
        }
    }
}

fn broadcast_preset(id: &str) -> BroadcastParams {
    let (p, e) = Params::from_query(&broadcast::INFO, &format!("preset={id}"));
    assert!(e.is_empty(), "{e:?}");
    p.read()
}

/// The queue live, fed by SimRedis (2 ms round trips, no simulated network): the same API and
/// worker slots as the simulation of the same shaped parameters, so the same batches,
/// retries, failed set, deliveries and double sends, for every preset of the queue mode and
/// at every time scale.
#[test]
fn the_queue_live_ends_as_its_simulation_for_every_preset() {
    for pr in broadcast::INFO.presets.iter().filter(|p| p.id != "naive") {
        for k in [1, 2] {
            let id = pr.id;
            let cfg = broadcast_preset(id).for_live(k);
            let p = &cfg.p;
            assert!(
                p.tokens <= broadcast::LIVE_TOKENS
                    && p.concurrency <= broadcast::LIVE_CONCURRENCY
                    && cfg.pace.block == broadcast::LIVE_BLOCK_MS
            );
            let mut live = broadcast::live_run(&cfg);
            let sent = drive(&mut live, p.seed);
            let (real, sim) = (live.output(), broadcast::sim(&cfg).finish());
            let (a, b) = (real.counters, sim.counters);
            let what = |c: &broadcast::Counters| {
                (
                    c.delivered,
                    c.sent_twice,
                    c.lost,
                    c.retries,
                    c.failed_jobs,
                    c.jobs,
                    c.dedup_refused,
                    c.calls_429,
                    c.stalled,
                    c.dead_marked,
                )
            };
            assert_eq!(
                (what(&a), real.completed(), real.batches_completed()),
                (what(&b), sim.completed(), sim.batches_completed()),
                "{id} ×{k}:\nlive {}\nsim  {}",
                broadcast::text(&real),
                broadcast::text(&sim)
            );
            // Every command went out and came back, with its round trip.
            assert_eq!(a.commands as usize, sent, "{id}");
            assert!(real.log().iter().all(|c| c.rtt_us == Some(2000)), "{id}");
            // It finishes well within a minute at ×1 (a live run's deadline is 90 s).
            assert!(real.end_ms < 60_000 * k, "{id} ×{k}: {} ms", real.end_ms);
        }
    }
}

/// The story a live run tells hangs little on the network: with round trips of 1 to 40 ms
/// (a loaded machine, a proxy across a city) an outage and its retries, the failed set and
/// dedup end as predicted. Two races do hang on it. Which batches win FCM's quota when all
/// run at once (past 9 ms, 40 ms round trips reorder them), and a crash's double sends: they
/// are the tokens of the FCM call in flight when the process dies, and ten round trips of
/// 9 ms move the batch past the crash — at-least-once, timing-dependent, as in production. On
/// loopback (a few ms) both end as predicted.
#[test]
fn the_queue_live_holds_its_numbers_across_round_trips() {
    for (id, rtts) in [
        ("outage", &[1, 9, 40][..]),
        ("no-retry", &[1, 9, 40]),
        ("all-at-once", &[1, 9]),
        ("dedup", &[1, 9, 40]),
        ("crash", &[1, 4]),
    ] {
        let cfg = broadcast_preset(id).for_live(1);
        let sim = broadcast::sim(&cfg).finish();
        for &rtt in rtts {
            let mut live = broadcast::live_run(&cfg);
            drive_rtt(&mut live, cfg.p.seed, rtt);
            let real = live.output();
            let (a, b) = (real.counters, sim.counters);
            assert_eq!(
                (
                    a.delivered,
                    a.sent_twice,
                    a.retries,
                    a.failed_jobs,
                    real.completed()
                ),
                (
                    b.delivered,
                    b.sent_twice,
                    b.retries,
                    b.failed_jobs,
                    sim.completed()
                ),
                "{id}, {rtt} ms:\nlive {}\nsim  {}",
                broadcast::text(&real),
                broadcast::text(&sim)
            );
        }
    }
}

#[test]
fn the_rate_limit_live_ends_as_simulated() {
    use redislab_sim::labs::ratelimit::{self, RateOutput, RateParams};
    for id in ["redis", "edge", "sliding", "office-ip", "office-both"] {
        let (p, errs) = Params::from_query(&ratelimit::INFO, &format!("preset={id}"));
        assert!(errs.is_empty());
        for k in [1, 2] {
            let s = p.read::<RateParams>().for_live(k);
            let mut live = ratelimit::live(&s);
            let sent = drive(&mut live, s.p.seed);
            let real: RateOutput = live.snapshot().read().expect("the output");
            let sim = ratelimit::sim(&s).finish();
            assert_eq!(real.commands as usize, sent, "{id} ×{k}");
            // 2 ms round trips against the simulation's 1 ms hops: the same decisions, up to
            // a request crossing the window's expiry at its very edge.
            assert_eq!(real.students, sim.students, "{id} ×{k}");
            assert!(
                real.attacker.allowed.abs_diff(sim.attacker.allowed) <= 1,
                "{id} ×{k}: {:?} vs {:?}",
                real.attacker,
                sim.attacker
            );
            assert!(real.log.iter().all(|l| l.rtt_us == Some(2000)), "{id}");
        }
    }
}

/// Cache-aside live, fed by SimRedis: the same readers and writers as the simulation of the
/// same shaped setup (a 300 s TTL lasting 3 s, reads 75 ms apart), so every preset tells its
/// story — the stale windows that last and how they end, the final price, Redis down — at ×1
/// and ×2; every command but the refused ones went out and came back with its round trip.
#[test]
fn cache_aside_live_tells_every_presets_story() {
    use redislab_sim::labs::aside;
    for pr in aside::PRESETS {
        for k in [1, 2] {
            let (p, e) = Params::from_query(&aside::INFO, &format!("preset={}", pr.id));
            assert!(e.is_empty(), "{e:?}");
            let p: aside::AsideParams = p.read();
            let mut live = aside::AsideLive::of(&p, Some(k));
            let sent = drive(&mut live, p.seed);
            let (real, sim) = (live.output(), aside::AsideSim::of(&p, Some(k)).finish());
            assert_eq!(real.outcome(), sim.outcome(), "{} ×{k}", pr.id);
            let refused = real.commands.iter().filter(|c| c.refused()).count();
            assert_eq!(real.commands.len() - refused, sent, "{} ×{k}", pr.id);
            assert!(real
                .commands
                .iter()
                .all(|c| c.refused() || c.rtt_us == Some(2000)));
            assert_eq!(
                real.counters.stale_reads > 0,
                sim.counters.stale_reads > 0,
                "{} ×{k}",
                pr.id
            );
            // A few seconds at ×1.
            assert!(
                real.end_ms < 6_000 * k,
                "{} ×{k}: {} ms",
                pr.id,
                real.end_ms
            );
        }
    }
}

/// The queues live, fed by SimRedis (2 ms round trips, blocking pops of 0.2 s): the same
/// producer, workers and recovery as the simulation of the same shaped setup, so every
/// preset ends with the same jobs done, lost, stuck, taken twice, done twice and made
/// harmless, and the same lists left in Redis.
#[test]
fn the_queues_live_end_as_simulated_for_every_preset() {
    use redislab_sim::labs::queues;
    for pr in queues::PRESETS {
        for k in [1, 2] {
            let (p, e) = Params::from_query(&queues::INFO, &format!("preset={}", pr.id));
            assert!(e.is_empty(), "{e:?}");
            let p: queues::QueuesParams = p.read();
            let mut live = queues::QueuesLive::of(&p, Some(k));
            let sent = drive(&mut live, p.seed);
            let (real, sim) = (live.output(), queues::QueuesSim::of(&p, Some(k)).finish());
            assert!(!real.cut_short, "{} ×{k}", pr.id);
            assert_eq!(real.outcome(), sim.outcome(), "{} ×{k}", pr.id);
            assert_eq!(real.end.lists.processing, sim.end.lists.processing);
            assert!(real.commands.iter().all(|c| c.rtt_us == Some(2000)));
            // Every command came back (the last blocking pops too, after the run stopped).
            assert!(real.commands.len() <= sent && sent <= real.commands.len() + 4);
            assert!(real.commands.iter().any(|c| c.cmd_text().ends_with(" 0.2")));
            assert!(
                real.end_ms < 10_000 * k,
                "{} ×{k}: {} ms",
                pr.id,
                real.end_ms
            );
        }
    }
}
