//! The four actions on the lab's defaults (1,000 catalog lists among 1,000 other keys,
//! SCAN COUNT 10, a 1 ms round trip, 5,00,000 viewers): the goldens the slides tell.

use super::model::{STALL_MS, TIMEOUT_MS, T_CHANGE};
use super::*;
use crate::labs::lab::Lab;
use crate::labs::params::Params;

fn p(q: &str) -> InvalidationParams {
    let (p, errs) = Params::from_query(&INFO, q);
    assert!(errs.is_empty(), "{errs:?}");
    p.read()
}

#[test]
fn del_bulk_one_failure_does_not_stop_the_rest() {
    let r = run(&p(""));
    let d = r.action(Action::Del);
    // Four DELs at once; the stalled one's client gives up, the other three are done.
    assert_eq!((d.round_trips, d.fulfilled, d.rejected), (4, 3, 1));
    assert_eq!(d.done_ms - d.start_ms, TIMEOUT_MS);
    // The timed-out DEL still reached Redis and ran: all four keys are gone.
    assert_eq!(d.unreachable, 4);
    let late = d
        .log
        .iter()
        .find(|l| l.actor == "app·2" && l.reply.is_ok())
        .expect("the late DEL ran");
    assert_eq!(late.at_ms, T_CHANGE + STALL_MS);
    // The student's next request: one MGET, four misses, four loads.
    assert_eq!((d.reads, d.db_loads, d.stale_reads), (1, 4, 0));
    assert_eq!(d.samples[0].known, 4);
    assert_eq!(d.scan_calls, 0);
}

#[test]
fn scan_walks_everything_and_misses_what_is_written_meanwhile() {
    let r = run(&p(""));
    let s = r.action(Action::ScanDel);
    // The whole keyspace walked (2,005 keys at the start, 81 written during), 10 at a time:
    // 204 SCAN calls and as many DELs, 408 round trips, for 1,000 lists.
    assert_eq!(s.walked, 2_086);
    assert_eq!((s.scan_calls, s.round_trips), (204, 408));
    assert_eq!(s.written_during, 81);
    assert_eq!(s.missed, 46);
    assert_eq!(s.unreachable, 1_028);
    // The missed keys serve the old list: one stale read each.
    assert_eq!(s.stale_reads, s.missed);
    assert_eq!(s.db_loads, 1_035);
    assert_eq!(s.reads, 1_000 + s.written_during);
    // A bigger COUNT: fewer round trips, the same walk.
    let big = run(&p("count=1000&write_ms=0"));
    let b = big.action(Action::ScanDel);
    assert!(b.scan_calls <= 4, "{}", b.scan_calls);
    assert_eq!((b.written_during, b.missed), (0, 0));
}

#[test]
fn version_bump_is_one_incr_and_the_orphans_leave_on_their_ttl() {
    let r = run(&p(""));
    let v = r.action(Action::Version);
    assert_eq!((v.round_trips, v.scan_calls, v.walked), (1, 0, 0));
    assert_eq!(v.unreachable, 1_000);
    assert_eq!((v.db_loads, v.stale_reads), (1_000, 0));
    let log0 = &v.log[0];
    assert_eq!(log0.cmd, ["INCR", CATALOG_VERSION]);
    assert_eq!(log0.reply, Ok(crate::redis::Reply::Integer(42)));
    // Before: all reachable. Right after the INCR: every list orphaned, none deleted.
    let at = |ms: u64| {
        v.samples
            .iter()
            .find(|s| s.at_ms == ms)
            .copied()
            .expect("sample")
    };
    assert_eq!((at(0).reachable, at(0).orphaned), (1_000, 0));
    let after = at(2_000);
    assert_eq!(after.deleted, 0);
    assert_eq!(after.orphaned + after.expired, 1_000);
    assert!(after.orphaned > 900);
    // 30 s later, every orphan is gone by its TTL and the v42 lists are the reachable ones.
    let end = v.samples.last().expect("samples");
    assert_eq!((end.orphaned, end.deleted), (0, 0));
    assert!(end.at_ms >= T_CHANGE + 30_000);
    // The orphans fall over time, never rise.
    assert!(v
        .samples
        .windows(2)
        .all(|w| w[1].orphaned <= w[0].orphaned || w[0].at_ms < T_CHANGE));
}

#[test]
fn two_versions_invalidate_only_what_changed() {
    let r = run(&p(""));
    let d = |id: Design| r.design(id).clone();
    // Course-wide version only: a purchase must bump it, and 5,00,000 go to the database.
    let c = d(Design::Course);
    assert_eq!(
        (c.purchase.unreachable, c.purchase.db_loads),
        (500_000, 500_000)
    );
    assert_eq!(c.edit.db_loads, 500_000);
    // Student version only: the purchase costs one load; the course edit is never seen.
    let s = d(Design::Student);
    assert_eq!((s.purchase.unreachable, s.purchase.db_loads), (1, 1));
    assert_eq!(
        (s.edit.unreachable, s.edit.db_loads, s.edit.stale_reads),
        (0, 0, 500_000)
    );
    // Both: the purchase one key, the edit everyone's (the course changed for all).
    let b = d(Design::Both);
    assert_eq!((b.purchase.unreachable, b.purchase.db_loads), (1, 1));
    assert_eq!(
        (b.edit.unreachable, b.edit.db_loads, b.edit.stale_reads),
        (500_000, 500_000, 0)
    );
    assert!(b.key.ends_with(":sv3:cv41"), "{}", b.key);
    // The action's reads: one MGET of sv and cv each.
    let a = r.action(Action::TwoVersions);
    assert!(a.log.iter().any(|l| l.cmd[0] == "MGET" && l.cmd.len() == 3));
}

#[test]
fn the_viewers_scale_the_designs() {
    let r = run(&p("viewers=1000"));
    let c = r.design(Design::Course);
    assert_eq!(c.purchase.db_loads, 1_000);
    assert_eq!(r.design(Design::Both).purchase.db_loads, 1);
}

#[test]
fn same_seed_same_run_and_the_heaviest_runs() {
    assert_eq!(run(&p("seed=7")), run(&p("seed=7")));
    let (hp, errs) = Params::from_query(&INFO, LAB.heaviest());
    assert!(errs.is_empty(), "{errs:?}");
    let h = run(&hp.read());
    let s = h.action(Action::ScanDel);
    assert!(s.written_during <= model::MAX_WRITES);
    assert!(s.scan_calls > 500, "{}", s.scan_calls);
}

/// The counters second by second (the run's parts) start at nothing before the change and
/// end at each action's totals — the figures the page shows at the end; the timeline's
/// positions are the samples.
#[test]
fn the_seconds_end_at_the_totals() {
    use crate::labs::def::{Figures, Steps};
    use crate::labs::lab::Run;
    let params = p("");
    let mut sim = InvalidationSim::new(&params);
    let mut parts = Vec::new();
    while !sim.is_done() {
        parts.extend(sim.step());
    }
    let out = sim.output();
    assert_eq!(out, run(&params));
    let got: Vec<Action> = parts.iter().map(|x: &ActionSeconds| x.action).collect();
    assert_eq!(got, Action::ALL);
    for sec in &parts {
        let a = out.action(sec.action);
        assert_eq!(sec.counts.len(), a.samples.len(), "{}", sec.action);
        assert_eq!(
            sec.at(0),
            Counts::default(),
            "{}: nothing before the change",
            sec.action
        );
        assert_eq!(sec.at(usize::MAX), a.totals(), "{}", sec.action);
        assert!(sec
            .counts
            .windows(2)
            .all(|w| w[0].round_trips <= w[1].round_trips));
    }
    // The SCAN walk takes 408 ms from 1 s: at 1 s nothing is deleted yet, at 2 s all of it.
    let scan = &parts[1];
    assert_eq!(scan.at(1).unreachable, 0);
    assert_eq!(scan.at(2).unreachable, 1_028);
    assert!(
        scan.at(2).db_loads < scan.at(usize::MAX).db_loads,
        "the reads come later"
    );
    assert_eq!(out.steps(), out.shown().samples.len() - 1);
    let f = out.figures();
    let get = |k: &str| f.iter().find(|x| x.key == k).map(|x| x.value as u32);
    assert_eq!(get("unreachable"), Some(out.shown().unreachable));
}
