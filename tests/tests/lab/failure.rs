//! The failure lab in a real headless Chromium, what is special to it (every preset's
//! figures, a bad parameter and the timeline are `every_lab`'s): the seed's golden figures as
//! the page writes them (slow: 1,500 ms + the query for every request), what stops and the
//! focused level's first commands; down without the offline queue on a phone; the embedded
//! lab on production slide 19 with the native run's figures (`redislab_sim::labs::failure`).
//! Screenshots at laptop and phone sizes under target/screenshots/labs/.

use redislab_e2e::{assert_no_console_errors, assert_no_sideways_scroll, screenshot_dir, Browser};
use redislab_sim::labs::failure::{FailureOutput, FailureRun, Level, INFO};
use serde_json::json;

/// The native run for `query`, as the worker computes it.
fn native(query: &str) -> FailureOutput {
    super::native::<FailureRun>(&INFO, query)
}

fn wait_idle(b: &Browser, scope: &str) {
    b.wait(60, "the failure lab to finish", |b| {
        b.exists(&format!("{scope} .lab-failure[aria-busy=false]"))
            && b.exists(&format!("{scope} [data-testid=failure-down-p50]"))
    });
}

fn data_n(b: &Browser, css: &str) -> String {
    b.js(
        "const e = document.querySelector(arguments[0]); return e ? e.dataset.n : null;",
        json!([css]),
    )
    .as_str()
    .unwrap_or_default()
    .to_string()
}

/// The page's numbers against the native run, level by level (the slide's; the page's are
/// `every_lab`'s).
fn check_levels(b: &Browser, scope: &str, out: &FailureOutput) {
    for r in &out.levels {
        let l = r.level.word();
        let sel = |k: &str| format!("{scope} [data-testid=failure-{l}-{k}]");
        assert_eq!(b.counter(&sel("p50")), r.p50_ms, "{l} p50");
        assert_eq!(b.counter(&sel("p99")), r.p99_ms, "{l} p99");
        assert_eq!(
            data_n(b, &sel("dbqps")).parse::<f64>().ok(),
            Some(r.db_qps),
            "{l} db q/s"
        );
    }
}

#[test]
fn the_lab_page_shows_the_native_run_and_the_goldens() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/failure?preset=slow");
    wait_idle(&b, "");
    // The seed's figures: slow = 1,500 ms + the 40 ms query, every request to the database.
    assert_eq!(
        b.text("[data-testid=failure-slow-p50]").as_deref(),
        Some("১,৫৪০ ms")
    );
    assert_eq!(b.counter("[data-testid=failure-slow-p99]"), 1_540);
    assert_eq!(data_n(&b, "[data-testid=failure-slow-dbqps]"), "50");
    // Healthy: the cache answers in 2 ms, the database nearly idle.
    assert_eq!(b.counter("[data-testid=failure-healthy-p50]"), 2);
    assert_eq!(data_n(&b, "[data-testid=failure-healthy-dbqps]"), "1.1");
    // Down: the offline queue holds the GET — p50 as slow, every request to the database.
    assert_eq!(b.counter("[data-testid=failure-down-p50]"), 1_540);
    assert_eq!(
        b.text("[data-testid=failure-down-dbqps]").as_deref(),
        Some("৫০.০")
    );
    assert!(b.exists("[data-testid=failure-card-slow].shown"));
    assert!(!b.exists("[data-testid=failure-card-down].shown"));
    // What stops, and the slow level's first commands: timed out, then the loader.
    let stops = b.text("[data-testid=failure-stops]").unwrap_or_default();
    assert!(stops.contains("দেরিতে"), "{stops}");
    let log = b.text("[data-testid=failure-log]").unwrap_or_default();
    assert!(log.contains("GET cache:product:"), "{log}");
    assert!(log.contains("timeout"), "{log}");
    let hist = b.rect(".fl-hist").expect("the histogram");
    assert!(hist.height >= 120.0, "{hist:?}");
    b.screenshot(&screenshot_dir().join("labs/failure.png"));
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{axe:#?}");
    assert_no_console_errors(&b);
}

#[test]
fn down_without_the_offline_queue_fails_fast_on_a_phone() {
    let phone = Browser::new(360, 740);
    let q = "preset=down-no-queue&rate=20";
    phone.open(&format!("#/lab/failure?{q}"));
    wait_idle(&phone, "");
    let out = native(q);
    assert_eq!(out.levels[Level::Down.index()].p50_ms, 40);
    assert_eq!(phone.counter("[data-testid=failure-down-p50]"), 40);
    let stops = phone
        .text("[data-testid=failure-stops]")
        .unwrap_or_default();
    assert!(stops.contains("জব জমা হয় না"), "{stops}");
    let log = phone.text("[data-testid=failure-log]").unwrap_or_default();
    assert!(log.contains("enableOfflineQueue"), "{log}");
    phone.screenshot(&screenshot_dir().join("labs/failure-360.png"));
    assert_no_sideways_scroll(&phone);
    phone.js(
        "document.querySelector('[data-testid=failure-log]').scrollIntoView()",
        json!([]),
    );
    phone.screenshot(&screenshot_dir().join("labs/failure-360-log.png"));
    assert_no_console_errors(&phone);
}

#[test]
fn the_embedded_lab_runs_on_production_slide_19() {
    let b = Browser::new(1366, 768);
    b.open("#/production/19");
    b.wait_counter("১৯ / ২২");
    wait_idle(&b, ".stage");
    let out = native("preset=down");
    check_levels(&b, ".stage", &out);
    assert!(b.exists(".stage [data-testid=failure-card-down].shown"));
    // The correction is on the slide.
    let slide = b.text(".stage .slide").unwrap_or_default();
    assert!(slide.contains("সংশোধন"), "{slide}");
    // The link opens the full lab with the slide's parameters.
    let href = b
        .js(
            "return document.querySelector('.stage .lab-open').getAttribute('href')",
            json!([]),
        )
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(href.starts_with("#/lab/failure?"), "{href}");
    assert!(href.contains("down"), "{href}");
    b.screenshot(&screenshot_dir().join("labs/failure-slide-19.png"));
    for (w, h) in [(1366, 768), (1280, 720), (1920, 1080)] {
        let over = b.slide_overflow_at(w, h);
        b.screenshot(&screenshot_dir().join(format!("labs/failure-slide-19-{w}.png")));
        assert!(over <= 1, "slide 19 is {over}px too tall at {w}×{h}");
    }
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{axe:#?}");
    assert_no_console_errors(&b);
}
