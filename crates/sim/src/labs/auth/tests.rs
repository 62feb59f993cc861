use super::*;
use crate::labs::lab::Run;

fn with(q: &str) -> AuthParams {
    let (p, errors) = Params::from_query(&INFO, q);
    assert!(errors.is_empty(), "{errors:?}");
    p.read()
}

/// The seed's "before": exactly 4 database queries per request, no Redis command.
#[test]
fn golden_before_is_four_per_request() {
    let o = run(&with("preset=before"));
    assert_eq!(o.requests, 15_996);
    assert_eq!(o.queries, 4 * o.requests);
    assert_eq!(o.queries, 63_984);
    assert_eq!((o.commands, o.zero_query, o.refused), (0, 0, 0));
    assert!(o.warm.is_none());
    for s in &o.secs {
        assert_eq!(s.queries, 4 * s.requests);
    }
}

/// The seed's "after": the same requests; in the warm window (every student seen, no key
/// expired yet) 0 queries; over the run only the loads and the TTL reloads.
#[test]
fn golden_after_is_zero_when_warm() {
    let o = run(&AuthParams::default());
    let before = run(&with("preset=before"));
    assert_eq!(o.requests, before.requests);
    let w = o.warm.clone().expect("a warm window");
    assert_eq!((w.from_ms, w.to_ms), (2_997, 60_011));
    assert_eq!(w.requests, 3_794);
    assert_eq!(w.queries, 0);
    // Loads: every user at 0, 60, 120, 180 s (TTL 60 s); the rest per 120 s.
    assert_eq!(o.user_loads, 4 * 200);
    assert_eq!(o.access_loads, 2 * 200);
    assert_eq!(o.context_loads, 174);
    assert_eq!(
        o.queries,
        2 * o.user_loads + o.context_loads + o.access_loads
    );
    assert_eq!(o.queries, 2_174);
    assert_eq!(o.zero_query, 15_079);
    // Three GETs per request, a SET per load.
    assert_eq!(
        o.commands,
        3 * o.requests + o.user_loads + o.context_loads + o.access_loads
    );
    // Before any key expires, only the cold start costs queries.
    let cold: u32 = o.secs[..3].iter().map(|s| s.queries).sum();
    let warm: u32 = o.secs[3..60].iter().map(|s| s.queries).sum();
    assert!(cold > 0);
    assert_eq!(warm, 0);
}

/// The ban takes effect within the auth TTL, over many seeds: no request is let in after
/// the entry cached before the ban expires, and that is at most 60 s after the ban.
#[test]
fn a_ban_takes_effect_within_the_ttl() {
    let mut late = 0;
    for seed in 0..300 {
        // The ban at every phase of the cached entry's minute.
        let at = 61 + seed % 97;
        let o = run(&with(&format!("ban_at={at}&students=3&seed={seed}")));
        let b = o.ban.expect("a ban");
        assert!(b.stale_until_ms <= b.at_ms + 60_000, "seed {seed}: {b:?}");
        if let Some(t) = b.last_let_in_ms {
            assert!(t <= b.stale_until_ms, "seed {seed}: {b:?}");
            late = late.max(t - b.at_ms);
        }
        for v in o.visits.iter().filter(|v| v.at_ms > b.stale_until_ms) {
            assert!(!v.allowed, "seed {seed}: {v:?}");
        }
        assert!(b.first_refused_ms.is_some_and(|t| t > b.stale_until_ms));
    }
    // Some seed lets the student in for most of the minute.
    assert!(late > 50_000, "{late}");
    // Without the cache the ban is at once.
    let o = run(&with("preset=ban&cache=off"));
    let b = o.ban.expect("a ban");
    assert_eq!((b.let_in, b.stale_until_ms), (0, 90_000));
}

/// A ban that ends: filtered on read, the student is back at the first request from the
/// end on; without the filter the ban lasts until the cached entry expires.
#[test]
fn a_ban_ends_on_time_only_with_the_filter() {
    let mut late_seeds = 0;
    let mut latest = 0;
    for seed in 0..300 {
        let (at, ends) = (20 + seed % 83, 30 + seed * 7 % 101);
        let q = format!("ban_at={at}&ban_for={ends}&students=3&seed={seed}");
        let o = run(&with(&q));
        let b = o.ban.expect("a ban");
        let end = b.ends_ms.expect("an end");
        assert_eq!(b.refused_after_end, 0, "seed {seed}");
        let first_after = o.visits.iter().find(|v| v.at_ms >= end).map(|v| v.at_ms);
        assert_eq!(b.back_in_ms, first_after, "seed {seed}");
        for v in &o.visits {
            let banned = v.at_ms > b.stale_until_ms && v.at_ms < end;
            assert_eq!(v.allowed, !banned, "seed {seed}: {v:?} {b:?}");
        }
        let o = run(&with(&format!("{q}&filter=none")));
        let b = o.ban.expect("a ban");
        let listed = b.listed_until_ms.unwrap_or(end);
        assert!(
            listed >= end && listed <= end + 60_000,
            "seed {seed}: {b:?}"
        );
        for v in o.visits.iter().filter(|v| v.at_ms >= end) {
            assert_eq!(v.allowed, v.at_ms > listed, "seed {seed}: {v:?} {b:?}");
        }
        if b.refused_after_end > 0 {
            late_seeds += 1;
            latest = latest.max(listed - end);
        }
    }
    assert!(late_seeds > 250, "{late_seeds}");
    assert!(latest > 50_000, "{latest}");
}

/// The presets' stories with the defaults' seed.
#[test]
fn golden_ban_presets() {
    let b = run(&with("preset=ban")).ban.expect("a ban");
    assert_eq!(b.at_ms, 90_000);
    assert_eq!(b.stale_until_ms, 123_171);
    assert_eq!(b.let_in, 10);
    let f = run(&with("preset=ban-ends")).ban.expect("a ban");
    assert_eq!((f.refused_after_end, f.back_in_ms), (0, Some(150_201)));
    let n = run(&with("preset=no-filter")).ban.expect("a ban");
    assert_eq!(n.refused_after_end, 13);
    assert_eq!(n.listed_until_ms, Some(184_091));
    assert_eq!(n.back_in_ms, Some(184_491));
}

#[test]
fn rules_and_heaviest() {
    let (_, errors) = Params::from_query(&INFO, "students=2000&every=1000&duration=900");
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].key, "every");
    let (_, errors) = Params::from_query(&INFO, "ban_at=300");
    assert_eq!(errors[0].key, "ban_at");
    let (h, errors) = Params::from_query(&INFO, LAB.heaviest());
    assert!(errors.is_empty(), "{errors:?}");
    let mut r = model::sim(&h.read());
    for _ in 0..5 {
        r.step();
    }
    assert!(r.progress() > 0.0 && r.progress() < 0.1, "{}", r.progress());
    assert_eq!(text(&run(&with("duration=10"))).lines().count(), 4);
}
