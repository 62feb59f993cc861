use super::*;
use crate::labs::def::{Figures, Steps};
use crate::labs::lab::Lab;

fn params(q: &str) -> FailureParams {
    let (p, errors) = Params::from_query(&INFO, q);
    assert!(errors.is_empty(), "{errors:?}");
    p.read()
}

fn level(out: &FailureOutput, l: Level) -> &FailureLevel {
    &out.levels[l.index()]
}

#[test]
fn defaults_golden() {
    let out = run(&params(""));
    assert_eq!(out.requests, 1_000);
    assert_eq!(out.levels.len(), 3);
    // Healthy: the warm cache answers; only the keys that expire go to the database.
    let h = level(&out, Level::Healthy);
    assert_eq!((h.hits, h.misses, h.db_queries), (978, 22, 22));
    assert_eq!((h.p50_ms, h.p99_ms, h.max_ms), (2, 44, 44));
    assert_eq!(h.db_qps, 1.1);
    // Slow: one timeout at 1,500 ms, no resend, then the 40 ms query — every request.
    let s = level(&out, Level::Slow);
    assert_eq!(s.timed_out, 1_000);
    assert_eq!(s.db_queries, 1_000);
    assert_eq!(s.db_qps, 50.0);
    assert_eq!((s.p50_ms, s.p99_ms, s.max_ms), (1_540, 1_540, 1_540));
    assert_eq!(s.p50_ms, COMMAND_TIMEOUT_MS + out.db_ms);
    // Down: the offline queue holds each GET until its timeout or the flush every second
    // failed reconnection (every 4,004 ms here) — never fail-fast.
    let d = level(&out, Level::Down);
    assert_eq!((d.timed_out, d.flushed, d.rejected), (620, 380, 0));
    assert_eq!(d.db_queries, 1_000);
    assert_eq!(d.db_qps, 50.0);
    assert_eq!((d.p50_ms, d.p99_ms), (1_540, 1_540));
    assert_eq!(d.mean_ms, 1_242.535);
    assert_eq!(d.hits + d.misses, 0);
    // The page's figures: each card's three, the focused level's seven bins.
    let f = out.figures();
    let of = |k: &str| f.iter().find(|x| x.key == k).map(|x| x.value);
    assert_eq!(f.len(), 3 * 3 + 7);
    assert_eq!(
        (of("slow-p50"), of("healthy-dbqps")),
        (Some(1_540.0), Some(1.1))
    );
    assert_eq!(of("bin-0"), Some(978.0));
    // The timeline walks the healthy level's log.
    assert_eq!(out.steps(), out.levels[0].log.len());
    assert_eq!(out.after_line(0), 1);
}

#[test]
fn down_without_offline_queue_fails_fast() {
    let out = run(&params("preset=down-no-queue"));
    assert_eq!(out.focus, Level::Down);
    let d = level(&out, Level::Down);
    assert_eq!((d.rejected, d.timed_out, d.flushed), (1_000, 0, 0));
    assert_eq!((d.p50_ms, d.p99_ms), (40, 40));
    // The queue does not matter while the connection is up.
    assert_eq!(level(&out, Level::Slow).p50_ms, 1_540);
}

#[test]
fn flushes_follow_max_retries() {
    // A reconnection every 2,000 ms + the 2 ms refusal; every second one flushes.
    let d = run_level(&params("redis=down"), Level::Down);
    let flushes: Vec<u64> = d
        .log
        .iter()
        .filter(|l| l.cmd.is_empty() && l.note.contains("flush"))
        .map(|l| l.at_ms)
        .collect();
    assert_eq!(flushes, vec![2_002, 6_006, 10_010]);
    assert_eq!(d.reconnects, 10);
    // Latency never exceeds the timeout plus the query.
    assert_eq!(d.max_ms, COMMAND_TIMEOUT_MS + 40);
    // A flushed GET waited less: the fastest request.
    assert!(d.hist[..5].iter().sum::<u32>() > 0);
}

#[test]
fn presets_set_the_focus_only() {
    let a = run(&params("preset=slow"));
    let b = run(&params("preset=healthy"));
    assert_eq!(a.focus, Level::Slow);
    assert_eq!(a.levels, b.levels);
}

#[test]
fn heaviest_parses_and_runs() {
    let (p, errors) = Params::from_query(&INFO, LAB.heaviest());
    assert!(errors.is_empty(), "{errors:?}");
    let p: FailureParams = p.read();
    assert_eq!(p.requests(), 60_000);
    let out = run(&p);
    assert!(out.levels.iter().all(|l| l.requests == 60_000));
}

#[test]
fn cli_prints_the_table() {
    let text = text(&run(&params("")));
    assert!(text.contains("slow        1540    1540"), "{text}");
}
