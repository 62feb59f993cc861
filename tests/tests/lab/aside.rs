//! The cache-aside lab in a real headless Chromium, what is its own (every preset's counters,
//! a bad parameter and the timeline's walk are `every_lab`'s): the cache lane draws a box per
//! value the key held and a red stretch per stale window, as the native run has them; the
//! first stale read at the cursor turns the line red, with the counters of the run's prefix
//! there and one step back; and a phone sees the lanes on its first screen.

use redislab_e2e::{assert_no_console_errors, assert_no_sideways_scroll, screenshot_dir, Browser};
use redislab_sim::labs::aside::{run, AsideOutput, Counters, INFO, PRODUCT};
use redislab_sim::labs::params::Params;
use serde_json::json;

fn native(query: &str) -> AsideOutput {
    run(&Params::from_query(&INFO, query).0.read())
}

fn computed(b: &Browser) {
    b.wait(60, "the cache-aside lab to finish", |b| {
        b.exists(".lab-aside[aria-busy=false] .lab-controls .scrubber")
    });
}

const KEYS: [&str; 5] = ["requests", "hits", "misses", "db-reads", "stale-reads"];

fn shown(b: &Browser) -> Vec<u64> {
    KEYS.iter()
        .map(|k| b.counter(&format!(".lab-aside [data-testid=aside-{k}]")))
        .collect()
}

fn want(c: &Counters) -> Vec<u64> {
    [
        c.requests,
        c.hits + c.negative_hits,
        c.misses,
        c.db_reads,
        c.stale_reads,
    ]
    .map(u64::from)
    .to_vec()
}

#[test]
fn the_cache_lane_draws_each_value_and_each_stale_window() {
    let b = Browser::new(1366, 768);
    for id in ["basic", "update-race", "no-ttl"] {
        let q = format!("preset={id}");
        b.open(&format!("#/lab/aside?{q}"));
        b.wait(30, "the preset's button", |b| {
            b.exists(&format!(".lab-preset[data-preset={id}][aria-pressed=true]"))
        });
        computed(&b);
        let r = native(&q);
        let last = r.commands.last().unwrap();
        let log = b.text("[data-testid=aside-log]").unwrap_or_default();
        assert!(log.contains(&last.cmd_text()), "{id}: {log}");
        let boxes = b.js(
            "return document.querySelectorAll('[data-lane=\"cache:product:99\"] .as-val').length",
            json!([]),
        );
        let spans = r.spans.iter().filter(|s| s.product == PRODUCT).count();
        assert_eq!(boxes, json!(spans), "{id}");
        let windows = b.js(
            "return document.querySelectorAll('.as-stale').length",
            json!([]),
        );
        assert_eq!(windows, json!(r.windows.len()), "{id}");
        b.screenshot(&screenshot_dir().join(format!("labs/aside-{id}.png")));
    }
    // The presets' claims, as the student sees them (the basic preset's delete leaves a
    // window of a few ms in the cache lane, but no reader falls in it).
    let n = |id: &str| native(&format!("preset={id}"));
    assert_eq!(n("basic").counters.stale_reads, 0);
    assert!(n("update-race").counters.stale_reads > 0);
    assert_eq!(n("delete").counters.stale_reads, 0);
    assert!(n("delete-race").counters.longest_stale_ms > n("short-ttl").counters.longest_stale_ms);
    assert!(n("no-ttl").outcome().stale_at_end);
    assert!(n("penetration").counters.db_reads > n("negative").counters.db_reads);
    assert!(n("redis-down").outcome().all_from_db);
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{axe:#?}");
    assert_no_console_errors(&b);
}

#[test]
fn the_first_stale_read_at_the_cursor_and_a_phone_sees_the_lanes() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/aside?preset=update-race");
    computed(&b);
    let r = native("preset=update-race");
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
    assert_eq!(shown(&b), want(&r.so_far(i + 1)));
    b.screenshot(&screenshot_dir().join("labs/aside-stale-read.png"));
    b.click(".lab-aside .lab-controls button[aria-label='এক ধাপ পিছনে']");
    b.wait(5, "a step back", |b| shown(b) == want(&r.so_far(i)));
    assert_no_console_errors(&b);

    let phone = Browser::new(360, 740);
    phone.open("#/lab/aside?preset=delete-race");
    computed(&phone);
    assert_no_sideways_scroll(&phone);
    let lanes = phone.rect(".as-lanes").expect("the lanes");
    assert!(
        lanes.y < 740.0,
        "the lanes start below the first screen: {lanes:?}"
    );
    phone.screenshot(&screenshot_dir().join("labs/aside-phone.png"));
    assert_no_console_errors(&phone);
}
