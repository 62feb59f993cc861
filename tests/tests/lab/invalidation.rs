//! The invalidation lab in a real headless Chromium, what is its own (every preset's figures,
//! a bad parameter and the timeline's walk are `every_lab`'s): the four actions side by side
//! and the my-courses designs scaled to the viewers as the native run has them, the keyspace
//! by group and the counters following the scrubber second by second (issue 35 item 19: not
//! the run's totals at 0.0 s), the SCAN slide of the broadcast deck, `DEL` on a phone and the
//! `DEL` slide stepping to the timed-out `DEL`. Screenshots at laptop and phone sizes under
//! target/screenshots/labs/.

use crate::{native, open_lab};
use redislab_deck::bn;
use redislab_deck::model::Block;
use redislab_e2e::{
    assert_no_console_errors, assert_no_sideways_scroll, deck, screenshot_dir, Browser,
};
use redislab_sim::labs::invalidation::{
    Action, ActionSeconds, InvalidationOutput, InvalidationRun, InvalidationSim, INFO,
};
use redislab_sim::labs::lab::Run;
use redislab_sim::labs::params::Params;
use serde_json::json;

fn run(query: &str) -> InvalidationOutput {
    native::<InvalidationRun>(&INFO, query)
}

/// The counters second by second of action `a` in the run of `query` (the run's parts).
fn seconds(query: &str, a: Action) -> ActionSeconds {
    let (p, errs) = Params::from_query(&INFO, query);
    assert!(errs.is_empty(), "{errs:?}");
    let mut sim = InvalidationSim::new(&p.read());
    let mut parts = Vec::new();
    while !sim.is_done() {
        parts.extend(sim.step());
    }
    parts
        .into_iter()
        .find(|x| x.action == a)
        .expect("every action's seconds")
}

/// The counters the page shows: (unreachable, trips, scans, loads).
fn counters(b: &Browser, scope: &str) -> [u64; 4] {
    ["unreachable", "trips", "scans", "loads"]
        .map(|k| b.counter(&format!("{scope}[data-testid=invalidation-{k}]")))
}

/// The table: per action, (action, unreachable, trips, scans, missed, loads, stale).
type Row = (String, u64, u64, u64, u64, u64, u64);

fn table(b: &Browser) -> Vec<Row> {
    let v = b.js(
        "return [...document.querySelectorAll('[data-testid=invalidation-compare] tbody tr')].map(r => [r.dataset.action,
            ...['unreachable', 'trips', 'scans', 'missed', 'loads', 'stale'].map(k => Number(r.querySelector(`[data-key=${k}]`).dataset.n))])",
        json!([]),
    );
    serde_json::from_value(v).expect("the table")
}

fn want_table(r: &InvalidationOutput) -> Vec<Row> {
    r.actions
        .iter()
        .map(|a| {
            (
                a.action.word().to_string(),
                u64::from(a.unreachable),
                u64::from(a.round_trips),
                u64::from(a.scan_calls),
                u64::from(a.missed),
                u64::from(a.db_loads),
                u64::from(a.stale_reads),
            )
        })
        .collect()
}

/// The designs: (design, purchase loads, edit loads, edit stale).
fn designs(b: &Browser) -> Vec<(String, u64, u64, u64)> {
    let v = b.js(
        "return [...document.querySelectorAll('[data-testid=invalidation-designs] tbody tr')].map(r => [r.dataset.design,
            ...['purchase', 'edit', 'stale'].map(k => Number(r.querySelector(`[data-key=${k}]`).dataset.n))])",
        json!([]),
    );
    serde_json::from_value(v).expect("the designs")
}

/// A keyspace group's count as drawn.
fn group(b: &Browser, g: &str) -> i64 {
    b.js(
        "const e = document.querySelector(`[data-testid=invalidation-keyspace] [data-group='${arguments[0]}']`); return e ? Number(e.dataset.n) : -1",
        json!([g]),
    )
    .as_i64()
    .unwrap_or(-1)
}

fn step(b: &Browser) {
    b.click(".lab-invalidation .lab-controls button[aria-label='এক ধাপ সামনে']");
}

#[test]
fn the_lab_page_walks_the_keyspace_and_the_counters_second_by_second() {
    let b = Browser::new(1366, 768);
    open_lab(&b, "invalidation", "");
    let r = run("");
    assert_eq!(r.params.action, Action::Version);
    assert_eq!(table(&b), want_table(&r));
    let a = r.shown();
    let sec = seconds("", Action::Version);
    // It opens before the change: every list reachable, nothing counted yet.
    b.wait(5, "the start", |b| {
        group(b, "reachable") == i64::from(a.samples[0].reachable)
            && group(b, "orphaned") == 0
            && counters(b, "") == [0; 4]
    });
    // After the INCR (second 1 → 2), orphaned, the counters with them; at the end, gone by
    // their TTL and the totals.
    for k in 1..=2 {
        step(&b);
        let s = a.samples[k];
        let c = sec.at(k);
        b.wait(5, &format!("second {k}"), |b| {
            group(b, "orphaned") == i64::from(s.orphaned)
                && group(b, "reachable") == i64::from(s.reachable)
                && counters(b, "")
                    == [c.unreachable, c.round_trips, c.scan_calls, c.db_loads].map(u64::from)
        });
    }
    assert_eq!(
        sec.at(2).unreachable,
        a.unreachable,
        "one INCR orphans them all"
    );
    assert!(group(&b, "orphaned") > 900);
    let now = b.text("[data-testid=invalidation-now]").unwrap_or_default();
    assert!(now.contains("INCR") && now.contains("অনাথ"), "{now}");
    b.screenshot(&screenshot_dir().join("labs/invalidation.png"));
    b.click(".lab-invalidation .lab-controls button[aria-label='শেষে যান']");
    let end = *a.samples.last().expect("samples");
    b.wait(5, "the end", |b| {
        group(b, "orphaned") == 0
            && group(b, "expired") == i64::from(end.expired)
            && counters(b, "")
                == [a.unreachable, a.round_trips, a.scan_calls, a.db_loads].map(u64::from)
    });
    // The designs, scaled to 5,00,000 viewers.
    let want: Vec<(String, u64, u64, u64)> = r
        .designs
        .iter()
        .map(|d| {
            (
                d.design.word().to_string(),
                d.purchase.db_loads,
                d.edit.db_loads,
                d.edit.stale_reads,
            )
        })
        .collect();
    assert_eq!(designs(&b), want);
    assert_eq!(
        want[0].1, 500_000,
        "course-only: a purchase sends everyone to the DB"
    );
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{axe:#?}");
    assert_no_console_errors(&b);
}

#[test]
/// The broadcast deck's SCAN slide: at 0.0 s nothing is counted; at 2 s the walk is over
/// (deleted 1,028, the keyspace's "deleted, still empty" bar beside it); at the end the
/// totals, the deleted lists filled again by the reads after — the line saying both numbers,
/// its "still empty" the bar's (issue 35 item 19: once "মোছা ১,০২৮" beside a bar of ০).
fn the_scan_slide_follows_the_scrubber() {
    let d = deck("broadcast");
    let i = d
        .slides
        .iter()
        .position(|s| {
            s.body.iter().any(|b| {
                matches!(b, Block::Container { kind, args, .. }
                    if kind == "lab" && args.iter().any(|a| a == "invalidation")
                        && args.iter().any(|a| a == "preset=scan-del"))
            })
        })
        .expect("the SCAN slide");
    let r = run("preset=scan-del");
    let a = r.shown();
    let sec = seconds("preset=scan-del", Action::ScanDel);
    for (w, h, name) in [(1366, 768, "laptop"), (360, 740, "phone")] {
        let b = Browser::new(w, h);
        b.open(&format!("#/broadcast/{}", i + 1));
        b.wait(60, "the slide's lab", |b| {
            b.exists(
                ".slide .lab-invalidation[aria-busy=false] [data-testid=invalidation-keyspace]",
            )
        });
        b.wait(5, "nothing counted at 0.0 s", |b| {
            counters(b, ".slide ") == [0; 4]
        });
        for _ in 0..2 {
            step(&b);
        }
        let c = sec.at(2);
        b.wait(5, "the walk over at 2 s", |b| {
            counters(b, ".slide ")
                == [c.unreachable, c.round_trips, c.scan_calls, c.db_loads].map(u64::from)
                && group(b, "deleted") == i64::from(a.samples[2].deleted)
        });
        assert_eq!(c.unreachable, a.unreachable);
        assert!(group(&b, "deleted") > 0);
        let now = b
            .text(".slide [data-testid=invalidation-now]")
            .unwrap_or_default();
        assert!(now.contains("SCAN শেষ") && now.contains("১,০২৮"), "{now}");
        // The words and the bar agree: "still empty" in the line is the bar's number.
        assert_words_match_the_bar(&b, &now);
        b.screenshot(&screenshot_dir().join(format!("labs/invalidation-slide-scan-{name}.png")));
        b.click(".slide .lab-invalidation .lab-controls button[aria-label='শেষে যান']");
        b.wait(5, "the totals at the end", |b| {
            counters(b, ".slide ")
                == [a.unreachable, a.round_trips, a.scan_calls, a.db_loads].map(u64::from)
        });
        // At the end: 1,028 deleted, every one filled again — the bar of ০ says so, and so
        // does the line.
        let now = b
            .text(".slide [data-testid=invalidation-now]")
            .unwrap_or_default();
        let end = a.samples.last().expect("samples");
        assert_eq!(group(&b, "deleted"), i64::from(end.deleted));
        assert!(
            now.contains(&format!("মুছল {}টা", bn::int(i64::from(a.unreachable))))
                && now.contains(&format!("আবার ভরা {}টা", bn::int(i64::from(a.db_loads)))),
            "{now}"
        );
        assert_words_match_the_bar(&b, &now);
        b.screenshot(
            &screenshot_dir().join(format!("labs/invalidation-slide-scan-end-{name}.png")),
        );
        assert_no_console_errors(&b);
    }
}

/// The line's "এখনো ফাঁকা Nটা" is the "deleted, still empty" bar's count, as drawn.
fn assert_words_match_the_bar(b: &Browser, now: &str) {
    let said = now
        .split("এখনো ফাঁকা ")
        .nth(1)
        .and_then(|t| t.split("টা").next())
        .unwrap_or_else(|| panic!("the line names the empty lists: {now}"));
    let bar = b
        .text(".slide [data-testid=invalidation-keyspace] [data-group=deleted] .inv-group-n")
        .unwrap_or_default();
    assert_eq!(said, bar, "{now}");
    assert_eq!(said, bn::int(group(b, "deleted")), "{now}");
}

#[test]
fn del_on_a_phone() {
    let phone = Browser::new(360, 740);
    open_lab(&phone, "invalidation", "preset=del");
    let r = run("preset=del");
    assert_eq!(table(&phone), want_table(&r));
    phone.click(".lab-invalidation .lab-controls button[aria-label='শেষে যান']");
    phone.wait(5, "the end", |b| {
        b.text("[data-testid=invalidation-now]")
            .is_some_and(|t| t.contains("allSettled"))
    });
    assert_eq!(phone.counter("[data-testid=invalidation-trips]"), 4);
    assert_no_sideways_scroll(&phone);
    phone.screenshot(&screenshot_dir().join("labs/invalidation-phone.png"));
    assert_no_console_errors(&phone);
}

#[test]
fn the_del_slide_steps_to_the_timed_out_del() {
    let b = Browser::new(1366, 768);
    b.open("#/production/8");
    b.wait(60, "the slide's lab", |b| {
        b.exists(".slide .lab-invalidation[aria-busy=false] [data-testid=invalidation-keyspace]")
    });
    assert_eq!(group(&b, "known"), 4);
    for _ in 0..2 {
        step(&b);
    }
    // Second 2: the four DELs ran (one of them late, after its client's timeout); the
    // student's next request has not come yet.
    b.wait(5, "the DELs", |b| group(b, "known") == 0);
    let log = b
        .text(".slide [data-testid=invalidation-log]")
        .unwrap_or_default();
    assert!(
        log.contains("timeout 100 ms") && log.contains("DEL"),
        "{log}"
    );
    let now = b
        .text(".slide [data-testid=invalidation-now]")
        .unwrap_or_default();
    assert!(now.contains("allSettled"), "{now}");
    b.screenshot(&screenshot_dir().join("labs/invalidation-slide-del.png"));
    assert_no_console_errors(&b);
}
