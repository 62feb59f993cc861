//! The buffering lab in a real headless Chromium, what is special to it (every preset's
//! figures, a bad parameter and the timeline are `every_lab`'s): the per-second
//! numbers as the chart writes them, the progress flushes as the native run
//! (`redislab_sim::labs::buffer::run`) makes them, the SimRedis sample's first command cut
//! with its size, a failure preset from the address that keeps every user's latest progress
//! and the blind requeue on a phone, and the slide at room scale. Screenshots at laptop and
//! phone sizes under target/screenshots/labs/.

use redislab_e2e::{assert_no_console_errors, assert_no_sideways_scroll, screenshot_dir, Browser};
use redislab_sim::labs::buffer::{BufferOutput, BufferRun, INFO};
use serde_json::json;

/// The native run for `query`, as the worker computes it.
fn native(query: &str) -> BufferOutput {
    super::native::<BufferRun>(&INFO, query)
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

fn want_flushes(r: &BufferOutput) -> Vec<(u64, u64, u64, bool)> {
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
    super::open_lab(&b, "buffer", "");
    let r = native("");
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
    assert_eq!(
        b.text("[data-testid=buffer-per-trip]").as_deref(),
        Some("১৬৭")
    );
    assert_eq!(flushes(&b), want_flushes(&r));
    let now = b.text("[data-testid=buffer-now]").unwrap_or_default();
    assert!(now.contains("রাউন্ড-ট্রিপ") && now.contains("১৬৭"), "{now}");
    // The sample's first buffered command, cut with its size.
    // (Both designs' logs: the direct one first, one ZADD a viewer; the buffered one's
    // ZADD carries 300 members, cut.)
    let log = b
        .js(
            "return [...document.querySelectorAll('.buf-sample [data-testid=buffer-log]')].map(e => e.textContent).join(' | ')",
            serde_json::json!([]),
        )
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(log.contains("ZADD presence:room:42"), "{log}");
    assert!(log.contains("(আরও 298 জন)"), "{log}");
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
    assert_eq!(flushes(&b), want_flushes(&r));
    assert!(b.exists("[data-testid=buffer-flushes] li.failed[data-s='60']"));
    let now = b.text("[data-testid=buffer-now]").unwrap_or_default();
    assert!(now.contains("কিছুই হারায়নি"), "{now}");
    b.screenshot(&screenshot_dir().join("labs/buffer-fails.png"));

    let phone = Browser::new(360, 740);
    phone.open("#/lab/buffer?preset=blind-requeue");
    wait_idle(&phone);
    let r = native("preset=blind-requeue");
    assert!(r.check.behind > 0);
    assert_eq!(phone.counter("[data-testid=buffer-behind]"), r.check.behind);
    let now = phone.text("[data-testid=buffer-now]").unwrap_or_default();
    assert!(now.contains("পিছিয়ে"), "{now}");
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
    let cells = b.js(
        "return [...document.querySelectorAll('.slide [data-testid=buffer-chart] td[data-figure]')].map(e => Number(e.dataset.n))",
        json!([]),
    );
    assert_eq!(
        cells,
        json!([
            r.direct.redis_cmds,
            r.buffered.redis_cmds,
            r.direct.round_trips,
            r.buffered.round_trips,
            r.direct.db_rows,
            r.buffered.db_rows,
            r.direct.db_queries,
            r.buffered.db_queries
        ])
    );
    let bars = b
        .rect(".slide [data-testid=buffer-chart]")
        .expect("the chart");
    assert!(bars.height >= 120.0, "{bars:?}");
    // The sample's log is folded on the slide.
    assert!(b.rect(".slide .buf-sample").is_none_or(|r| r.height == 0.0));
    b.screenshot(&screenshot_dir().join("labs/buffer-slide.png"));
    assert_no_console_errors(&b);
}
