//! The lab's tests: the seed's numbers and every preset's story, stepping in slices, seeded
//! crash schedules, and the pending count the consumers keep against Redis' own.

use super::model::replies::parse_u64;
use super::*;
use crate::labs::params::Params;
use crate::rng::Mulberry32;

fn with(q: &str) -> StreamsParams {
    let (p, e) = Params::from_query(&INFO, q);
    assert!(e.is_empty(), "{e:?}");
    p.read()
}

fn preset_params(id: &str, extra: &str) -> StreamsParams {
    let pr = PRESETS.iter().find(|p| p.id == id).expect("preset");
    let mut q: Vec<String> = pr.pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    if !extra.is_empty() {
        q.push(extra.into());
    }
    with(&q.join("&"))
}

/// The byte parser of `n` reads exactly what `str::parse::<u64>` reads.
#[test]
fn parse_u64_is_strs() {
    let mut g = Mulberry32::new(3);
    let mut cases: Vec<Vec<u8>> = [
        "",
        "+",
        "-",
        "-0",
        "+0",
        "0",
        "007",
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999",
        " 1",
        "1 ",
        "1a",
        "+-1",
        "١",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    for _ in 0..2000 {
        let len = g.below(22) as usize;
        cases.push(
            (0..len)
                .map(|_| b"0123456789+- x"[g.below(14) as usize])
                .collect(),
        );
    }
    for c in cases {
        let want = std::str::from_utf8(&c)
            .ok()
            .and_then(|s| s.parse::<u64>().ok());
        assert_eq!(parse_u64(&c), want, "{:?}", String::from_utf8_lossy(&c));
    }
}

#[test]
fn a_healthy_run_saves_everything_once() {
    let r = run(&StreamsParams::default());
    let c = r.counters;
    assert!(r.settled, "{}", r.text());
    assert_eq!(
        (
            c.produced,
            c.saved,
            c.duplicates,
            c.dead,
            c.lost_trim,
            c.stuck
        ),
        (5000, 5000, 0, 0, 0, 0)
    );
    assert_eq!(c.acked, 5000);
    assert_eq!(c.delivered, 5000);
    assert_eq!(c.pubsub_delivered, 5000);
    assert_eq!(r.samples.last().unwrap().pending, 0);
    // The log starts with the group and the first commands as sent.
    assert_eq!(
        r.log[0].cmd_text(),
        "XGROUP CREATE orders savers $ MKSTREAM"
    );
    assert!(r.log.iter().any(|l| l
        .cmd_text()
        .starts_with("XREADGROUP GROUP savers w1 COUNT 200 BLOCK 5000")));
}

#[test]
fn every_preset_shows_its_failure() {
    let r = run(&preset_params("retry", ""));
    assert!(r.counters.failed_batches > 0 && r.counters.retried > 0);
    assert_eq!(r.counters.saved, 5000);
    let r = run(&preset_params("poison", ""));
    assert_eq!(r.counters.dead, 7, "{}", r.text());
    assert_eq!(r.counters.saved + r.counters.dead, 5000);
    assert!(r
        .log
        .iter()
        .any(|l| l.cmd_text().starts_with("XADD orders:dead * id ")));
    let r = run(&preset_params("crash", ""));
    let c = r.counters;
    assert!(r.crash_ms.is_some());
    assert!(
        c.reclaimed > 0 && c.duplicates == c.reclaimed,
        "{}",
        r.text()
    );
    assert_eq!((c.saved, c.stuck, c.lost_trim), (20_000, 0, 0));
    assert!(r.end_ms >= r.crash_ms.unwrap() + 30_000);
    let r = run(&preset_params("crash-no-claim", ""));
    assert!(r.counters.stuck > 0 && r.counters.saved == 20_000 && r.counters.duplicates == 0);
    assert_eq!(r.samples.last().unwrap().pending, r.counters.stuck);
    let r = run(&preset_params("pubsub-away", ""));
    // 3 s away at 500/s: 1500 publishes nobody heard; the stream kept all of them.
    assert_eq!(r.counters.pubsub_lost, 1500);
    assert_eq!(r.counters.saved, 5000);
}

#[test]
fn falling_behind_with_maxlen_loses_unread_entries() {
    let r = run(&preset_params("trim", "messages=150000&rate=30000"));
    let c = r.counters;
    assert!(c.lost_trim > 0, "{}", r.text());
    assert_eq!(c.saved + c.lost_trim, c.produced, "{}", r.text());
    let peak = r.samples.iter().map(|s| s.xlen).max().unwrap();
    // MAXLEN ~ keeps at least 100000 and less than one node (100 entries) more.
    assert!((100_000..100_100).contains(&peak), "{peak}");
    // Without trimming nothing is lost.
    let r = run(&preset_params(
        "trim",
        "messages=150000&rate=30000&maxlen=0",
    ));
    assert_eq!((r.counters.lost_trim, r.counters.saved), (0, 150_000));
}

#[test]
fn stepped_in_any_slices_equals_the_run_to_the_end() {
    for q in [
        "",
        "crash_worker=1&fail_rate=20&poison_every=333&away_ms=1500",
    ] {
        let p = with(q);
        let want = run(&p);
        for slice in [1, 7, 1000] {
            let mut r = StreamsSim::of(&p, None);
            while !r.steps(slice) {}
            assert_eq!(r.output(), want, "slice {slice}");
        }
        // so_far at the end is the end counters; at 0 nothing has been saved.
        assert_eq!(want.so_far(u64::MAX), want.counters);
        assert_eq!(want.so_far(0).saved, 0);
    }
}

/// With XAUTOCLAIM and no trimming no entry is lost, and the duplicates are exactly the
/// re-claimed entries (the crash comes after the save, before the XACK): over seeded
/// random crash schedules, worker counts and failure rates.
#[test]
fn autoclaim_loses_nothing_and_duplicates_are_the_reclaimed() {
    let mut g = Mulberry32::new(2026);
    let mut with_claims = 0;
    for case in 0..40 {
        let workers = 2 + g.below(5);
        let messages = 500 + g.below(3000);
        let rate = 100 + g.below(4000);
        let span = u64::from(messages) * 1000 / u64::from(rate);
        let q = format!(
            "messages={messages}&rate={rate}&workers={workers}&count={}&save_ms={}&crash_worker={}&crash_at={}&fail_rate={}&poison_every={}&maxlen=0&claim_idle={}&claim_every={}&seed={}",
            1 + g.below(300),
            g.below(120),
            1 + g.below(workers),
            g.below(span as u32 + 1),
            g.below(40),
            [0, 97, 500][g.below(3) as usize],
            1000 + g.below(40_000),
            500 + g.below(6000),
            g.next_u32(),
        );
        let r = run(&with(&q));
        let c = r.counters;
        assert!(r.settled, "case {case} {q}\n{}", r.text());
        assert_eq!(c.lost_trim + c.stuck, 0, "case {case} {q}\n{}", r.text());
        assert_eq!(
            c.saved + c.dead,
            c.produced,
            "case {case} {q}\n{}",
            r.text()
        );
        assert_eq!(c.duplicates, c.reclaimed, "case {case} {q}\n{}", r.text());
        if c.reclaimed > 0 {
            with_claims += 1;
        }
    }
    assert!(
        with_claims >= 10,
        "only {with_claims} of 40 schedules had a take-over"
    );
}

/// The producers' counter and the XACK IDs write what `to_string` writes.
#[test]
fn decimals_in_place_are_to_string() {
    use super::model::{consumers::write_id, set_decimal};
    use crate::redis::StreamId;
    let (mut text, mut of) = (Vec::new(), None);
    for n in (0..2000).chain([9_999, 10_000, 10_001, 5, 99_999, 100_000]) {
        set_decimal(&mut text, &mut of, n);
        assert_eq!(text, n.to_string().into_bytes(), "{n}");
    }
    let mut ms = (Vec::new(), None);
    for (a, b) in [
        (1_700_000_000_000, 0),
        (1_700_000_000_000, 9),
        (1_700_000_000_000, 10),
        (1_700_000_000_001, 0),
        (5, 123_456),
        (5, 7),
    ] {
        let sid = StreamId { ms: a, seq: b };
        let mut id = b"stale".to_vec();
        write_id(&mut id, &mut ms, sid);
        assert_eq!(id, sid.to_string().into_bytes());
    }
}
