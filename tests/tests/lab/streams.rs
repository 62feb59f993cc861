//! The streams lab in a real headless Chromium: the lab page computes in the worker and shows
//! the native simulator's counters (browser = wasm, native = `redislab_sim::labs::streams::run`),
//! a preset comes from the address, a bad parameter gets its Bengali message while the lab
//! keeps its last good run, and the lab embedded on the production deck's streams slide runs
//! without console errors. Screenshots at laptop and phone sizes.

use redislab_e2e::{deck, screenshot_dir, Browser};
use redislab_sim::labs::params::Params;
use redislab_sim::labs::streams::{run, Counters, StreamsResult, INFO, PRESETS};
use serde_json::json;

fn native(pairs: &str) -> StreamsResult {
    let (p, errs) = Params::from_query(&INFO, pairs);
    assert!(errs.is_empty(), "{errs:?}");
    run(&p.typed())
}

fn preset_query(id: &str) -> String {
    let p = PRESETS.iter().find(|p| p.id == id).expect("preset");
    p.pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&")
}

const KEYS: [&str; 6] = [
    "saved",
    "duplicates",
    "dead",
    "lost",
    "pubsub-lost",
    "delivered",
];

fn want(c: &Counters) -> Vec<u64> {
    vec![
        c.saved,
        c.duplicates,
        c.dead,
        c.lost_trim,
        c.pubsub_lost,
        c.delivered,
    ]
}

fn shown(b: &Browser, scope: &str) -> Vec<u64> {
    KEYS.iter()
        .map(|k| b.counter(&format!("{scope} [data-testid=streams-{k}]")))
        .collect()
}

/// Waits until the streams lab on the page has its result (`aria-busy` cleared).
fn wait_idle(b: &Browser, scope: &str) {
    b.wait(90, "the streams lab to finish", |b| {
        b.exists(&format!(
            "{scope}.lab-streams[aria-busy=false] [data-testid=streams-saved]"
        ))
    });
}

#[test]
fn the_lab_page_computes_and_shows_the_counters() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/streams");
    wait_idle(&b, "");
    let r = native("");
    assert_eq!(shown(&b, ".lab-streams"), want(&r.counters));
    // The counters a person reads, in Bengali digits.
    let saved = b.text("[data-testid=streams-saved]").unwrap_or_default();
    assert_eq!(saved, "৫,০০০");
    // The plot and the log are on screen; the log shows the group being made.
    let plot = b.rect(".sx-plot svg").expect("the plot");
    assert!(plot.width > 600.0 && plot.height > 80.0, "{plot:?}");
    b.click(".lab-streams .lab-controls button[aria-label='রিসেট']");
    b.wait(5, "the start", |b| shown(b, ".lab-streams")[0] == 0);
    let log = b.text("[data-testid=streams-log]").unwrap_or_default();
    assert!(
        log.contains("XGROUP CREATE orders savers $ MKSTREAM"),
        "{log}"
    );
    // A step forward moves the counters to the next sample's.
    b.click(".lab-streams .lab-controls button[aria-label='এক ধাপ সামনে']");
    b.wait(5, "one step", |b| {
        shown(b, ".lab-streams") == want(&r.samples[1].counters)
    });
    b.screenshot(&screenshot_dir().join("labs/streams.png"));
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{axe:#?}");
    assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
}

#[test]
fn a_preset_from_the_address_runs_and_a_phone_sees_it() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/streams?preset=crash");
    b.wait(30, "the preset's button", |b| {
        b.exists(".lab-preset[data-preset=crash][aria-pressed=true]")
    });
    wait_idle(&b, "");
    let r = native(&preset_query("crash"));
    let c = r.counters;
    assert!(c.duplicates > 0 && c.duplicates == c.reclaimed);
    assert_eq!(shown(&b, ".lab-streams"), want(&c));
    let log = b.text("[data-testid=streams-log]").unwrap_or_default();
    assert!(log.contains("XAUTOCLAIM orders savers"), "{log}");
    assert!(b.exists(".sx-crash"), "the crash is marked on the plot");
    b.screenshot(&screenshot_dir().join("labs/streams-crash.png"));

    let phone = Browser::new(360, 740);
    phone.open("#/lab/streams?preset=trim");
    wait_idle(&phone, "");
    let r = native(&preset_query("trim"));
    assert!(r.counters.lost_trim > 0);
    assert_eq!(shown(&phone, ".lab-streams"), want(&r.counters));
    let overflow = phone.js(
        "return document.documentElement.scrollWidth > window.innerWidth",
        json!([]),
    );
    assert_eq!(
        overflow,
        json!(false),
        "the page scrolls sideways at 360 px"
    );
    phone.js(
        "document.querySelector('.lab-streams .lab-controls').scrollIntoView()",
        json!([]),
    );
    phone.screenshot(&screenshot_dir().join("labs/streams-phone.png"));
    assert!(phone.console_errors().is_empty());
}

#[test]
fn a_bad_parameter_gets_a_bengali_message_and_changes_nothing() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/streams?preset=poison&workers=99");
    wait_idle(&b, "");
    let msg = b
        .text("[data-field=workers] .field-error")
        .unwrap_or_default();
    assert!(
        msg.contains("১ থেকে ১৬") || msg.contains("1 থেকে 16"),
        "{msg}"
    );
    assert!(msg.contains("পূর্ণসংখ্যা"), "{msg}");
    let good = native(&preset_query("poison"));
    assert_eq!(shown(&b, ".lab-streams"), want(&good.counters));
    b.open_form();
    b.js(
        "const i = document.querySelector('#lab-field-fail_rate'); i.value = 'many'; i.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([]),
    );
    b.wait(5, "a message beside fail_rate", |b| {
        b.exists("[data-field=fail_rate] .field-error")
    });
    assert_eq!(shown(&b, ".lab-streams"), want(&good.counters));
    assert!(!b.url().contains("many"), "{}", b.url());
    assert!(b.console_errors().is_empty());
}

#[test]
fn the_lab_on_the_streams_slide_runs_without_console_errors() {
    let d = deck("production");
    let n = d
        .slides
        .iter()
        .position(|s| s.title.iter().any(|t| t.contains("Redis Streams")))
        .expect("the streams slide")
        + 1;
    for (w, h, name) in [(1366, 768, "laptop"), (360, 740, "phone")] {
        let b = Browser::new(w, h);
        b.open(&format!("#/production/{n}"));
        b.wait(30, "the embedded streams lab", |b| {
            b.exists(".slide .lab-streams")
        });
        wait_idle(&b, ".slide ");
        let r = native(&preset_query("crash"));
        assert_eq!(shown(&b, ".slide .lab-streams"), want(&r.counters));
        assert!(b.exists(".slide .lab-streams a.lab-open[href*='#/lab/streams']"));
        b.screenshot(&screenshot_dir().join(format!("labs/streams-slide-{name}.png")));
        let axe = b.axe_serious();
        assert!(axe.is_empty(), "{axe:#?}");
        assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
    }
}
