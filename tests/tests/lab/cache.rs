//! The cache-engine lab in a real headless Chromium, what is its own (`every_lab` holds its
//! figures to the native run, its bad parameter and its timeline walk): `labsim cache`'s table
//! on the page for the seed's run and two failure stories (wasm = native), the command log
//! from the first step, the phone's one column, and the lab embedded on production slide 6
//! fitting its slide and playing.

use super::{native, open_lab};
use redislab_e2e::{assert_no_console_errors, assert_no_sideways_scroll, screenshot_dir, Browser};
use redislab_sim::labs::cache::{CacheOutput, CachePair, INFO, PAIR_NAMES};
use serde_json::json;

fn lab(query: &str) -> CacheOutput {
    native::<CachePair>(&INFO, query)
}

fn page_table(b: &Browser) -> String {
    b.wait(30, "the cache table", |b| {
        b.exists("[data-testid=cache-table]")
    });
    b.js(
        "return document.querySelector('[data-testid=cache-table]').dataset.table",
        json!([]),
    )
    .as_str()
    .unwrap_or_default()
    .to_string()
}

#[test]
fn the_cache_lab_shows_the_native_table_and_its_log() {
    let b = Browser::new(1366, 768);
    for q in [
        "",
        "redis=slow&requests=300&seed=9",
        "loader=7000&lock_ttl=5000&wait=6000&heartbeat=off",
    ] {
        open_lab(&b, "cache", q);
        assert_eq!(
            page_table(&b),
            lab(q).table(PAIR_NAMES),
            "browser (wasm) and native differ for `{q}`"
        );
        if q.is_empty() {
            b.screenshot(&screenshot_dir().join("labs/cache.png"));
            let serious = b.axe_serious();
            assert!(serious.is_empty(), "axe: {serious:?}");
        }
    }
    // Back to the start, then one step: the log shows the first commands, newest first.
    open_lab(&b, "cache", "");
    b.click(".lab-controls button[aria-label='রিসেট']");
    b.wait(5, "the start", |b| b.exists(".ce-note"));
    b.click(".lab-controls button[aria-label='এক ধাপ সামনে']");
    b.wait(5, "the first commands", |b| {
        b.exists("[data-testid=cache-log] li")
    });
    let first = b
        .text("[data-testid=cache-log] li:last-child")
        .unwrap_or_default();
    assert!(first.contains("GET cache:course-catalog"), "{first}");
    assert!(first.contains("(nil)"), "{first}");
    assert_no_console_errors(&b);
    // A phone: one column, nothing wider than the screen.
    let p = Browser::new(360, 740);
    open_lab(&p, "cache", "");
    assert_no_sideways_scroll(&p);
    p.screenshot(&screenshot_dir().join("labs/cache-360.png"));
    let serious = p.axe_serious();
    assert!(serious.is_empty(), "360 px: axe: {serious:?}");
    p.js(
        "document.querySelector('.ce-pair').scrollIntoView()",
        json!([]),
    );
    p.screenshot(&screenshot_dir().join("labs/cache-360-pair.png"));
    p.js(
        "document.querySelector('.ce-log').scrollIntoView()",
        json!([]),
    );
    p.screenshot(&screenshot_dir().join("labs/cache-360-log.png"));
    assert_no_console_errors(&p);
}

#[test]
fn the_embedded_cache_lab_runs_on_its_slide() {
    let b = Browser::new(1366, 768);
    // Slide 6 (slide 19 embeds the failure lab: tests/tests/failure.rs).
    let slide = 6;
    b.open(&format!("#/production/{slide}"));
    b.wait_counter("০৬ / ২২");
    b.wait(30, "the embedded lab", |b| {
        b.exists(".stage .lab[data-lab=cache]") && !b.exists(".stage [aria-busy=true]")
    });
    let out = lab("");
    for (key, want) in [("off-db", out.off.counts.db), ("on-db", out.on.counts.db)] {
        assert_eq!(
            b.counter(&format!(".stage [data-testid=cache-{key}]")),
            u64::from(want),
            "{key}"
        );
    }
    // The link opens the full lab with the slide's parameters.
    let href = b
        .js(
            "return document.querySelector('.stage .lab-open').getAttribute('href')",
            json!([]),
        )
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(href.starts_with("#/lab/cache?"), "{href}");
    b.screenshot(&screenshot_dir().join(format!("labs/cache-slide-{slide}.png")));
    let serious = b.axe_serious();
    assert!(serious.is_empty(), "slide {slide}: axe: {serious:?}");
    // The stage does not scroll: the slide fits.
    let over = b.js(
        "const s = document.querySelector('.stage .slide'); return s.scrollHeight - s.clientHeight",
        json!([]),
    );
    assert!(
        over.as_i64().unwrap_or(99) <= 1,
        "slide {slide} is {over}px too tall"
    );
    // And at 1280×720.
    let over = b.slide_overflow_at(1280, 720);
    b.screenshot(&screenshot_dir().join(format!("labs/cache-slide-{slide}-1280.png")));
    assert!(over <= 1, "slide {slide} is {over}px too tall at 1280×720");
    b.set_viewport(1366, 768);
    // It plays.
    let label = || b.text(".stage .scrub-label").unwrap_or_default();
    b.click(".stage .lab-controls button[aria-label='রিসেট']");
    let before = label();
    b.click(".stage [data-testid=play]");
    b.wait(10, "the embedded lab to play", |_| label() != before);
    b.click(".stage [data-testid=play]");
    assert_no_console_errors(&b);
}
