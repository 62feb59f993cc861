//! The cache-engine lab in a real headless Chromium: its page shows the native simulator's
//! numbers for a preset (wasm = native), the labs embedded on production slides 6 and 19 run
//! without console errors and fit their slides, and a bad parameter in the address gets its
//! message while the lab keeps its last good state.

use redislab_e2e::{screenshot_dir, Browser};
use redislab_sim::labs::cache::{pair, table, CacheLab};
use redislab_sim::labs::cache::{CacheParams, INFO};
use redislab_sim::labs::params::Params;
use serde_json::json;

fn native(query: &str) -> CacheLab {
    let (p, errs) = Params::from_query(&INFO, query);
    assert!(errs.is_empty(), "{errs:?}");
    pair(&p.typed::<CacheParams>().config())
}

/// Waits until no lab on the page computes.
fn wait_idle(b: &Browser) {
    b.wait(60, "the labs to finish", |b| {
        b.exists(".lab[data-lab=cache]") && !b.exists(".lab[aria-busy=true]")
    });
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

/// A counter's number (`data-n`); what a person reads beside it is the same in Bengali digits.
fn num(b: &Browser, css: &str) -> u32 {
    let n: u32 = b
        .js(
            "const e = document.querySelector(arguments[0]); return e ? e.dataset.n : null;",
            json!([css]),
        )
        .as_str()
        .unwrap_or_default()
        .parse()
        .unwrap_or_else(|_| panic!("{css} has no number: {:?}", b.text(css)));
    assert_eq!(
        b.text(css).as_deref(),
        Some(redislab_deck::bn::int(i64::from(n)).as_str()),
        "{css}"
    );
    n
}

#[test]
fn the_cache_lab_shows_the_native_numbers() {
    let b = Browser::new(1366, 768);
    for q in [
        "",
        "redis=slow&requests=300&seed=9",
        "loader=7000&lock_ttl=5000&wait=6000&heartbeat=off",
    ] {
        b.open(&format!("#/lab/cache?{q}"));
        wait_idle(&b);
        let lab = native(q);
        assert_eq!(
            page_table(&b),
            table(&lab),
            "browser (wasm) and native differ for `{q}`"
        );
        // The timeline opens at the end: the counters are the run's.
        assert_eq!(
            num(&b, "[data-testid=cache-off-db]"),
            lab.off.counts.db,
            "{q}"
        );
        assert_eq!(
            num(&b, "[data-testid=cache-on-db]"),
            lab.on.counts.db,
            "{q}"
        );
        assert_eq!(
            num(&b, "[data-testid=cache-on-stale]"),
            lab.on.counts.paths[1],
            "{q}"
        );
        if q.is_empty() {
            b.screenshot(&screenshot_dir().join("labs/cache.png"));
            let serious = b.axe_serious();
            assert!(serious.is_empty(), "axe: {serious:?}");
        }
    }
    // Back to the start, then one step: the log shows the first commands, newest first.
    b.open("#/lab/cache");
    wait_idle(&b);
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
    // Play moves the cursor on.
    let label = || b.text(".scrub-label").unwrap_or_default();
    let before = label();
    b.click("[data-testid=play]");
    b.wait(10, "playing to move on", |_| label() != before);
    b.click("[data-testid=play]");
    // A phone: one column, nothing wider than the screen.
    let p = Browser::new(360, 740);
    p.open("#/lab/cache");
    wait_idle(&p);
    let wide = p.js(
        "return document.documentElement.scrollWidth > window.innerWidth + 1",
        json!([]),
    );
    assert_eq!(wide, json!(false), "the page scrolls sideways at 360 px");
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
    assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
    assert!(p.console_errors().is_empty(), "{:?}", p.console_errors());
}

#[test]
fn the_embedded_cache_lab_runs_on_its_slide() {
    let b = Browser::new(1366, 768);
    // Slide 6 (slide 19 embeds the failure lab: tests/tests/failure.rs).
    let (slide, counter, preset) = (6, "০৬ / ২২", "");
    b.open(&format!("#/production/{slide}"));
    b.wait_counter(counter);
    b.wait(30, "the embedded lab", |b| {
        b.exists(".stage .lab[data-lab=cache]") && !b.exists(".stage [aria-busy=true]")
    });
    let lab = native(preset);
    assert_eq!(
        num(&b, ".stage [data-testid=cache-off-db]"),
        lab.off.counts.db
    );
    assert_eq!(
        num(&b, ".stage [data-testid=cache-on-db]"),
        lab.on.counts.db
    );
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
    if !preset.is_empty() {
        assert!(href.contains(preset), "{href}");
    }
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
    assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
}

#[test]
fn a_bad_cache_parameter_gets_a_message_and_changes_nothing() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/cache?loader=abc&requests=300");
    wait_idle(&b);
    let msg = b
        .text("[data-field=loader] .field-error")
        .unwrap_or_default();
    assert!(msg.contains("পূর্ণসংখ্যা"), "{msg}");
    let good = page_table(&b);
    assert_eq!(good, table(&native("requests=300")));
    // Typed into the form: a message, and the lab keeps its last good state.
    b.open_form();
    b.js(
        "const i = document.querySelector('#lab-field-instances'); i.value = '99'; i.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([]),
    );
    b.wait(5, "a message beside instances", |b| {
        b.exists("[data-field=instances] .field-error")
    });
    assert_eq!(page_table(&b), good);
    // A later good change runs with everything else as it was.
    b.open_form();
    b.js(
        "const i = document.querySelector('#lab-field-seed'); i.value = '7'; i.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([]),
    );
    b.wait(30, "the run with seed 7", |b| b.url().contains("seed=7"));
    wait_idle(&b);
    assert_eq!(page_table(&b), table(&native("requests=300&seed=7")));
    assert!(b.url().contains("instances=6"), "{}", b.url());
    assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
}
