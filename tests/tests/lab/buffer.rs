//! The buffering lab in a real headless Chromium: the page computes in the worker and shows
//! the native simulator's numbers (browser = wasm, native = `redislab_sim::labs::buffer::run`)
//! — direct and buffered side by side per second, the progress flushes, the SimRedis sample —
//! a failure preset from the address keeps every user's latest progress, the blind requeue
//! does not, and the slide shows the lab at room scale. Screenshots at laptop and phone
//! sizes under target/screenshots/labs/.

use redislab_e2e::{assert_no_console_errors, assert_no_sideways_scroll, screenshot_dir, Browser};
use redislab_sim::labs::buffer::{run, BufferResult, INFO};
use redislab_sim::labs::params::Params;
use serde_json::json;

fn native(query: &str) -> BufferResult {
    let (p, errs) = Params::from_query(&INFO, query);
    assert!(errs.is_empty(), "{errs:?}");
    run(&p.typed())
}

/// The chart: per row (key, direct total, buffered total), as the page shows it.
type Row = (String, u64, u64);

fn chart(b: &Browser) -> Vec<Row> {
    let v = b.js(
        "return [...document.querySelectorAll('[data-testid=buffer-chart] tbody tr')].map(r => [r.dataset.key,
            Number(r.querySelector('[data-design=direct]').dataset.n), Number(r.querySelector('[data-design=buffered]').dataset.n)])",
        json!([]),
    );
    serde_json::from_value(v).expect("the chart")
}

fn want_chart(r: &BufferResult) -> Vec<Row> {
    let (d, b) = (&r.direct, &r.buffered);
    vec![
        ("cmds".into(), d.redis_cmds, b.redis_cmds),
        ("trips".into(), d.round_trips, b.round_trips),
        ("rows".into(), d.db_rows, b.db_rows),
        ("queries".into(), d.db_queries, b.db_queries),
    ]
}

/// The flushes: (second, rows, queries, failed).
fn flushes(b: &Browser) -> Vec<(u64, u64, u64, bool)> {
    let v = b.js(
        "return [...document.querySelectorAll('[data-testid=buffer-flushes] li')].map(e =>
            [Number(e.dataset.s), Number(e.dataset.rows), Number(e.dataset.queries), e.classList.contains('failed')])",
        json!([]),
    );
    serde_json::from_value(v).expect("the flushes")
}

fn want_flushes(r: &BufferResult) -> Vec<(u64, u64, u64, bool)> {
    r.flushes
        .iter()
        .map(|f| (u64::from(f.at_s), f.rows, f.queries, !f.ok))
        .collect()
}

fn wait_idle(b: &Browser) {
    b.wait(120, "the buffer lab to finish", |b| {
        b.exists(".lab-buffer[aria-busy=false] [data-testid=buffer-chart]")
    });
}

#[test]
fn the_lab_page_shows_the_native_run_side_by_side() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/buffer");
    wait_idle(&b);
    let r = native("");
    assert_eq!(chart(&b), want_chart(&r));
    // The numbers, per second: 50,000 commands direct, 167 in one round trip.
    let per = |key: &str, design: &str| {
        b.text(&format!(
            "[data-testid=buffer-chart] tr[data-key={key}] [data-design={design}] .buf-v"
        ))
        .unwrap_or_default()
    };
    assert_eq!(per("cmds", "direct"), "৫০,০০০");
    assert_eq!(per("cmds", "buffered"), "১৬৭");
    assert_eq!(per("trips", "buffered"), "১");
    assert_eq!(b.counter("[data-testid=buffer-per-trip]"), 167);
    assert_eq!(b.counter("[data-testid=buffer-members]"), 50_000);
    assert_eq!(b.counter("[data-testid=buffer-behind]"), 0);
    assert_eq!(flushes(&b), want_flushes(&r));
    let now = b.text("[data-testid=buffer-now]").unwrap_or_default();
    assert!(now.contains("রাউন্ড-ট্রিপ") && now.contains("১৬৭"), "{now}");
    // The sample's counts, and its first buffered command cut with its size.
    let s = b.js(
        "const e = document.querySelector('[data-testid=buffer-sample]'); return [Number(e.dataset.direct), Number(e.dataset.buffered), Number(e.dataset.bufferedTrips)]",
        json!([]),
    );
    assert_eq!(
        s,
        json!([
            r.sample.direct.cmds,
            r.sample.buffered.cmds,
            r.sample.buffered.round_trips
        ])
    );
    assert_eq!(s, json!([1_800, 6, 3]));
    let log = b
        .text(".buf-sample [data-testid=buffer-log]")
        .unwrap_or_default();
    assert!(log.contains("ZADD presence:room:42"), "{log}");
    let bars = b.rect("[data-testid=buffer-chart]").expect("the chart");
    assert!(bars.width > 600.0 && bars.height > 120.0, "{bars:?}");
    b.screenshot(&screenshot_dir().join("labs/buffer.png"));
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{axe:#?}");
    assert_no_console_errors(&b);
}

#[test]
fn a_failed_flush_from_the_address_newer_wins_and_blind_on_a_phone() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/buffer?preset=db-fails");
    b.wait(30, "the preset's button", |b| {
        b.exists(".lab-preset[data-preset=db-fails][aria-pressed=true]")
    });
    wait_idle(&b);
    let r = native("preset=db-fails");
    assert_eq!(chart(&b), want_chart(&r));
    assert_eq!(flushes(&b), want_flushes(&r));
    assert!(b.exists("[data-testid=buffer-flushes] li.failed[data-s='60']"));
    let f = r.flushes[1];
    assert_eq!(b.counter("[data-testid=buffer-requeued]"), f.requeued);
    assert_eq!(b.counter("[data-testid=buffer-kept-newer]"), f.kept_newer);
    assert_eq!(b.counter("[data-testid=buffer-behind]"), 0);
    let now = b.text("[data-testid=buffer-now]").unwrap_or_default();
    assert!(now.contains("কিছুই হারায়নি"), "{now}");
    b.screenshot(&screenshot_dir().join("labs/buffer-fails.png"));

    let phone = Browser::new(360, 740);
    phone.open("#/lab/buffer?preset=blind-requeue");
    wait_idle(&phone);
    let r = native("preset=blind-requeue");
    assert_eq!(chart(&phone), want_chart(&r));
    assert!(r.check.behind > 0);
    assert_eq!(phone.counter("[data-testid=buffer-behind]"), r.check.behind);
    assert_eq!(
        phone.counter("[data-testid=buffer-overwrote]"),
        r.flushes[1].overwrote_newer
    );
    assert_no_sideways_scroll(&phone);
    phone.screenshot(&screenshot_dir().join("labs/buffer-phone.png"));
    assert_no_console_errors(&phone);
}

#[test]
fn the_slide_shows_the_bars_at_room_scale() {
    let b = Browser::new(1366, 768);
    let deck = redislab_e2e::deck("production");
    let k = deck
        .slides
        .iter()
        .position(|s| {
            s.body.iter().any(|bl| {
                matches!(bl, redislab_deck::Block::Container { kind, args, .. }
                    if kind.as_ref() == "lab" && args.first().is_some_and(|a| a.as_ref() == "buffer"))
            })
        })
        .expect("the buffering slide");
    b.open(&format!("#/production/{}", k + 1));
    wait_idle(&b);
    assert!(b.exists(".slide .lab-buffer.embedded"));
    let r = native("");
    assert_eq!(chart(&b), want_chart(&r));
    let bars = b
        .rect(".slide [data-testid=buffer-chart]")
        .expect("the chart");
    assert!(bars.height >= 120.0, "{bars:?}");
    // The sample's log is folded on the slide.
    assert!(b.rect(".slide .buf-sample").is_none_or(|r| r.height == 0.0));
    b.screenshot(&screenshot_dir().join("labs/buffer-slide.png"));
    assert_no_console_errors(&b);
}
