//! The cache-aside lab in a real headless Chromium: each preset shows the native simulator's
//! numbers (browser = wasm in the worker, native = `redislab_sim::labs::aside::run`), stepping
//! back and forth follows the run's prefix, a phone sees the lanes without scrolling sideways,
//! and a bad parameter in the address gets its message while the lab keeps its last good state.

use redislab_deck::bn;
use redislab_e2e::{screenshot_dir, Browser};
use redislab_sim::labs::aside::{run, AsideResult, Counters, INFO, PRESETS};
use redislab_sim::labs::params::Params;
use serde_json::json;

fn native(query: &str) -> AsideResult {
    let (p, errs) = Params::from_query(&INFO, query);
    assert!(errs.is_empty(), "{errs:?}");
    run(&p.typed())
}

/// Waits until the lab has its result (`aria-busy` cleared).
fn wait_idle(b: &Browser) {
    b.wait(60, "the cache-aside lab to finish", |b| {
        b.exists(".lab-aside[aria-busy=false] [data-testid=aside-requests]")
    });
}

const KEYS: [&str; 6] = [
    "requests",
    "hits",
    "misses",
    "db-reads",
    "stale-reads",
    "longest-stale",
];

fn shown(b: &Browser, scope: &str) -> Vec<u64> {
    KEYS.iter()
        .map(|k| b.counter(&format!("{scope} [data-testid=aside-{k}]")))
        .collect()
}

fn want(c: &Counters) -> Vec<u64> {
    vec![
        u64::from(c.requests),
        u64::from(c.hits + c.negative_hits),
        u64::from(c.misses),
        u64::from(c.db_reads),
        u64::from(c.stale_reads),
        c.longest_stale_ms,
    ]
}

#[test]
fn every_preset_shows_the_native_numbers() {
    let b = Browser::new(1366, 768);
    for pr in PRESETS {
        let q = format!("preset={}", pr.id);
        b.open(&format!("#/lab/aside?{q}"));
        b.wait(30, "the preset's button", |b| {
            b.exists(&format!(
                ".lab-preset[data-preset={}][aria-pressed=true]",
                pr.id
            ))
        });
        wait_idle(&b);
        let r = native(&q);
        assert_eq!(shown(&b, ".lab-aside"), want(&r.counters), "{}", pr.id);
        // The mean answer time, as the formatter writes it.
        let mean = b.text("[data-testid=aside-mean]").unwrap_or_default();
        assert_eq!(
            mean,
            bn::qty(r.counters.mean_ms(), 1, bn::Unit::Ms),
            "{}",
            pr.id
        );
        // The whole run is on screen: the log ends with the run's last command, and the
        // cache lane draws one box per value the key held.
        let last = r.commands.last().unwrap();
        let log = b.text("[data-testid=aside-log]").unwrap_or_default();
        assert!(log.contains(&last.cmd_text()), "{}: {log}", pr.id);
        let boxes = b.js(
            "return document.querySelectorAll('[data-lane=\"cache:product:99\"] .as-val').length",
            json!([]),
        );
        let spans = r.spans.iter().filter(|s| s.product == 99).count();
        assert_eq!(boxes, json!(spans), "{}", pr.id);
        let windows = b.js(
            "return document.querySelectorAll('.as-stale').length",
            json!([]),
        );
        assert_eq!(windows, json!(r.windows.len()), "{}", pr.id);
        b.screenshot(&screenshot_dir().join(format!("labs/aside-{}.png", pr.id)));
    }
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{axe:#?}");
    // The presets' claims, as the student sees them.
    let n = |id: &str| native(&format!("preset={id}"));
    assert_eq!(n("basic").counters.stale_reads, 0);
    assert!(n("update-race").counters.stale_reads > 0);
    assert_eq!(n("delete").counters.stale_reads, 0);
    assert!(n("delete-race").counters.longest_stale_ms > n("short-ttl").counters.longest_stale_ms);
    assert!(n("no-ttl").outcome().stale_at_end);
    assert!(n("penetration").counters.db_reads > n("negative").counters.db_reads);
    assert!(n("redis-down").outcome().all_from_db);
    assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
}

#[test]
fn steps_back_and_forth_and_a_phone_sees_it_all() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/aside?preset=update-race");
    wait_idle(&b);
    let r = native("preset=update-race");
    b.click(".lab-aside .lab-controls button[aria-label='রিসেট']");
    b.wait(5, "the start", |b| {
        shown(b, ".lab-aside") == vec![0; KEYS.len()]
    });
    // To the first stale read: the line at the cursor turns red and the counters are the
    // native run's prefix; one step back they are the prefix before it.
    let i = r
        .commands
        .iter()
        .position(|c| c.stale)
        .expect("a stale read");
    let seek = format!(
        "const s = document.querySelector('.lab-aside .scrubber'); s.value = '{}'; s.dispatchEvent(new Event('input', {{bubbles: true}}));",
        i + 1
    );
    b.js(&seek, json!([]));
    b.wait(5, "the stale read at the cursor", |b| {
        b.exists("[data-testid=aside-now].bad")
    });
    assert_eq!(shown(&b, ".lab-aside"), want(&r.so_far(i + 1)));
    b.screenshot(&screenshot_dir().join("labs/aside-stale-read.png"));
    b.click(".lab-aside .lab-controls button[aria-label='এক ধাপ পিছনে']");
    b.wait(5, "a step back", |b| {
        shown(b, ".lab-aside") == want(&r.so_far(i))
    });

    let phone = Browser::new(360, 740);
    phone.open("#/lab/aside?preset=delete-race");
    wait_idle(&phone);
    let overflow = phone.js(
        "return document.documentElement.scrollWidth > window.innerWidth",
        json!([]),
    );
    assert_eq!(
        overflow,
        json!(false),
        "the page scrolls sideways at 360 px"
    );
    let lanes = phone.rect(".as-lanes").expect("the lanes");
    assert!(
        lanes.y < 740.0,
        "the lanes start below the first screen: {lanes:?}"
    );
    phone.screenshot(&screenshot_dir().join("labs/aside-phone.png"));
    assert!(phone.console_errors().is_empty());
}

#[test]
fn a_bad_parameter_gets_a_message_and_changes_nothing() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/aside?preset=delete-race&ttl=99999");
    wait_idle(&b);
    let msg = b.text("[data-field=ttl] .field-error").unwrap_or_default();
    assert!(!msg.is_empty(), "no message beside ttl");
    let good = native("preset=delete-race");
    assert_eq!(shown(&b, ".lab-aside"), want(&good.counters));
    // A good change runs and goes into the address.
    b.open_form();
    b.js(
        "const i = document.querySelector('#lab-field-ttl'); i.value = '30'; i.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([]),
    );
    b.wait(30, "ttl=30 in the address", |b| b.url().contains("ttl=30"));
    wait_idle(&b);
    let r = native("preset=delete-race&ttl=30");
    b.wait(30, "the ttl=30 run", |b| {
        shown(b, ".lab-aside") == want(&r.counters)
    });
    assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
}
