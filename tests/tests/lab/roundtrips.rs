//! The round-trips lab in a real headless Chromium, what is its own (every preset's figures,
//! a bad parameter and the timeline's walk are `every_lab`'s): the five ways side by side as
//! the native run has them, each client's round trips, the room against its limit as the
//! transport walks Redis' commands one by one, five clients each in one round trip with the
//! script, no rollback on a phone. Screenshots at laptop and phone sizes under
//! target/screenshots/labs/.

use crate::{native, open_lab};
use redislab_e2e::{assert_no_console_errors, assert_no_sideways_scroll, screenshot_dir, Browser};
use redislab_sim::labs::roundtrips::{RoundTripsOutput, RoundTripsRun, Way, INFO};
use serde_json::json;

fn run(query: &str) -> RoundTripsOutput {
    native::<RoundTripsRun>(&INFO, query)
}

/// The table: per way, (mode, trips, slowest ms, room (-1: not a sorted set), over, between).
type Row = (String, u64, u64, i64, i64, u64);

fn table(b: &Browser) -> Vec<Row> {
    let v = b.js(
        "return [...document.querySelectorAll('[data-testid=roundtrips-compare] tbody tr')].map(r => [r.dataset.mode,
            ...['trips', 'slowest', 'room', 'over', 'between'].map(k => Number(r.querySelector(`[data-key=${k}]`).dataset.n))])",
        json!([]),
    );
    serde_json::from_value(v).expect("the table")
}

fn want_table(r: &RoundTripsOutput) -> Vec<Row> {
    r.ways
        .iter()
        .map(|w| {
            (
                w.mode.word().to_string(),
                u64::from(w.trips_total),
                w.slowest_ms,
                w.room_after.unwrap_or(-1),
                w.over,
                u64::from(w.between),
            )
        })
        .collect()
}

/// Each lane's round trips, as the page draws them.
fn lanes(b: &Browser) -> Vec<u64> {
    let v = b.js(
        "return [...document.querySelectorAll('.lab-roundtrips .rt-lane')].map(e => Number(e.dataset.trips))",
        json!([]),
    );
    serde_json::from_value(v).expect("the lanes")
}

fn room(b: &Browser) -> i64 {
    b.js(
        "const e = document.querySelector('[data-testid=roundtrips-room]'); return e ? Number(e.dataset.n) : null",
        json!([]),
    )
    .as_i64()
    .unwrap_or(i64::MIN)
}

fn step(b: &Browser) {
    b.click(".lab-roundtrips .lab-controls button[aria-label='এক ধাপ সামনে']");
}

#[test]
fn the_lab_page_shows_the_native_run_and_walks_redis_commands() {
    let b = Browser::new(1366, 768);
    open_lab(&b, "roundtrips", "");
    let r = run("");
    let w = r.shown();
    assert_eq!(w.mode, Way::OneByOne);
    assert_eq!(table(&b), want_table(&r));
    let trips: Vec<u64> = w.clients.iter().map(|c| u64::from(c.trips)).collect();
    assert_eq!(lanes(&b), trips);
    assert_eq!(trips, [4, 4], "one by one: four round trips each");
    // The start: the room as it was; step by step, the room as Redis' commands leave it.
    b.click(".lab-roundtrips .lab-controls button[aria-label='রিসেট']");
    b.wait(5, "the start", |b| room(b) == 499);
    for k in 1..=w.ran.len() {
        step(&b);
        let want = r.room_at(k).unwrap();
        b.wait(5, &format!("step {k}"), |b| {
            b.text("[data-testid=roundtrips-now]")
                .is_some_and(|t| t.contains(&w.ran[k - 1].cmd[0]) || k == w.ran.len())
                && room(b) == want
        });
    }
    // The end: over the limit, said in Bengali digits.
    assert_eq!(room(&b), 501);
    assert_eq!(b.counter("[data-testid=roundtrips-over]"), 1);
    let now = b.text("[data-testid=roundtrips-now]").unwrap_or_default();
    assert!(now.contains("৫০১") && now.contains("সীমা ছাড়াল"), "{now}");
    // Another client's command that ran inside an update is marked on its chip.
    assert!(w.between > 0);
    assert!(b.exists(".rt-chip.ran.between"));
    let lane = b.rect(".rt-lanes").expect("the lanes");
    assert!(lane.width > 600.0 && lane.height > 40.0, "{lane:?}");
    b.screenshot(&screenshot_dir().join("labs/roundtrips.png"));
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{axe:#?}");
    assert_no_console_errors(&b);
}

#[test]
fn the_script_from_the_address_and_no_rollback_on_a_phone() {
    let b = Browser::new(1366, 768);
    // Five clients: still one round trip each.
    open_lab(&b, "roundtrips", "preset=script&clients=5&spread=30");
    b.wait(30, "five lanes", |b| lanes(b).len() == 5);
    let r = run("preset=script&clients=5&spread=30");
    assert_eq!(table(&b), want_table(&r));
    assert_eq!(lanes(&b), vec![1; 5], "one round trip each");
    b.click(".lab-roundtrips .lab-controls button[aria-label='শেষে যান']");
    b.wait(5, "the end", |b| room(b) == 500);
    assert_eq!(b.counter("[data-testid=roundtrips-over]"), 0);
    b.screenshot(&screenshot_dir().join("labs/roundtrips-script.png"));

    let phone = Browser::new(360, 740);
    open_lab(&phone, "roundtrips", "preset=no-rollback");
    let r = run("preset=no-rollback");
    assert_eq!(table(&phone), want_table(&r));
    assert_eq!(room(&phone), -1, "the room's key is a string");
    phone.click(".lab-roundtrips .lab-controls button[aria-label='শেষে যান']");
    phone.wait(5, "the end", |b| {
        b.text("[data-testid=roundtrips-now]")
            .is_some_and(|t| t.contains("rollback নেই"))
    });
    assert_eq!(
        phone.counter("[data-testid=roundtrips-errors]"),
        u64::from(r.shown().errors)
    );
    assert_no_sideways_scroll(&phone);
    phone.screenshot(&screenshot_dir().join("labs/roundtrips-phone.png"));
    assert_no_console_errors(&phone);
}
