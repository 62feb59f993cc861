//! The invalidation lab in a real headless Chromium: the lab page computes in the worker and
//! shows the native simulator's numbers (browser = wasm, native =
//! `redislab_sim::labs::invalidation::run`) — the four actions side by side, the my-courses
//! designs scaled to the viewers, the keyspace by group as the transport walks the seconds —
//! a preset comes from the address, and a bad parameter gets its Bengali message while the
//! lab keeps its last good run. Screenshots at laptop and phone sizes under
//! target/screenshots/labs/.

use redislab_e2e::{assert_no_console_errors, assert_no_sideways_scroll, screenshot_dir, Browser};
use redislab_sim::labs::invalidation::{run, InvalResult, INFO};
use redislab_sim::labs::params::Params;
use serde_json::json;

fn native(query: &str) -> InvalResult {
    let (p, errs) = Params::from_query(&INFO, query);
    assert!(errs.is_empty(), "{errs:?}");
    run(&p.typed())
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

fn want_table(r: &InvalResult) -> Vec<Row> {
    r.actions
        .iter()
        .map(|a| {
            (
                a.action.clone(),
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

fn wait_idle(b: &Browser) {
    b.wait(120, "the invalidation lab to finish", |b| {
        b.exists(".lab-invalidation[aria-busy=false] [data-testid=invalidation-compare]")
    });
}

fn step(b: &Browser) {
    b.click(".lab-invalidation .lab-controls button[aria-label='এক ধাপ সামনে']");
}

#[test]
fn the_lab_page_shows_the_native_run_and_walks_the_seconds() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/invalidation");
    wait_idle(&b);
    let r = native("");
    assert_eq!(r.params.action, "version");
    assert_eq!(table(&b), want_table(&r));
    let a = r.shown();
    assert_eq!(
        b.counter("[data-testid=invalidation-unreachable]"),
        u64::from(a.unreachable)
    );
    assert_eq!(b.counter("[data-testid=invalidation-trips]"), 1);
    assert_eq!(b.counter("[data-testid=invalidation-scans]"), 0);
    // Second 0: every list reachable; after the INCR (second 1 → 2), orphaned; at the end,
    // gone by their TTL.
    b.click(".lab-invalidation .lab-controls button[aria-label='রিসেট']");
    b.wait(5, "the start", |b| {
        group(b, "reachable") == i64::from(a.samples[0].reachable) && group(b, "orphaned") == 0
    });
    for k in 1..=2 {
        step(&b);
        let s = a.samples[k];
        b.wait(5, &format!("second {k}"), |b| {
            group(b, "orphaned") == i64::from(s.orphaned)
                && group(b, "reachable") == i64::from(s.reachable)
        });
    }
    assert!(group(&b, "orphaned") > 900);
    let now = b.text("[data-testid=invalidation-now]").unwrap_or_default();
    assert!(now.contains("INCR") && now.contains("অনাথ"), "{now}");
    b.screenshot(&screenshot_dir().join("labs/invalidation.png"));
    b.click(".lab-invalidation .lab-controls button[aria-label='শেষে যান']");
    let end = *a.samples.last().expect("samples");
    b.wait(5, "the end", |b| {
        group(b, "orphaned") == 0 && group(b, "expired") == i64::from(end.expired)
    });
    // The designs, scaled to 5,00,000 viewers.
    let want: Vec<(String, u64, u64, u64)> = r
        .designs
        .iter()
        .map(|d| {
            (
                d.design.clone(),
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
fn scan_from_the_address_and_del_on_a_phone() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/invalidation?preset=scan-del");
    b.wait(30, "the preset's button", |b| {
        b.exists(".lab-preset[data-preset=scan-del][aria-pressed=true]")
    });
    wait_idle(&b);
    let r = native("preset=scan-del");
    assert_eq!(table(&b), want_table(&r));
    let a = r.shown();
    assert_eq!(
        b.counter("[data-testid=invalidation-scans]"),
        u64::from(a.scan_calls)
    );
    assert_eq!(
        b.counter("[data-testid=invalidation-walked]"),
        u64::from(a.walked)
    );
    assert_eq!(
        b.counter("[data-testid=invalidation-missed]"),
        u64::from(a.missed)
    );
    assert!(a.missed > 0 && a.scan_calls > 100);
    b.click(".lab-invalidation .lab-controls button[aria-label='শেষে যান']");
    b.wait(5, "the end", |b| {
        b.text("[data-testid=invalidation-now]")
            .is_some_and(|t| t.contains("SCAN শেষ"))
    });
    b.screenshot(&screenshot_dir().join("labs/invalidation-scan.png"));

    let phone = Browser::new(360, 740);
    phone.open("#/lab/invalidation?preset=del");
    wait_idle(&phone);
    let r = native("preset=del");
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
fn a_bad_parameter_gets_a_bengali_message_and_changes_nothing() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/invalidation?preset=version&count=5");
    wait_idle(&b);
    let msg = b
        .text("[data-field=count] .field-error")
        .unwrap_or_default();
    assert!(msg.contains("১০ থেকে") || msg.contains("10 থেকে"), "{msg}");
    let good = native("preset=version");
    assert_eq!(table(&b), want_table(&good));
    assert_no_console_errors(&b);
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
