//! The rate-limit lab in a real headless Chromium: each preset shows the native simulator's
//! numbers (browser = wasm in the worker, native = `redislab_sim::labs::ratelimit::run`) — the
//! attacker let through and turned away, the students, each instance's let-through count —
//! the transport walks the timeline, a bad parameter gets its Bengali message while the lab
//! keeps its last good run. Screenshots at laptop and phone sizes under
//! target/screenshots/labs/.

use redislab_e2e::{screenshot_dir, Browser};
use redislab_sim::labs::params::Params;
use redislab_sim::labs::ratelimit::{run, RateResult, INFO, PRESETS};
use serde_json::json;

fn native(query: &str) -> RateResult {
    let (p, errs) = Params::from_query(&INFO, query);
    assert!(errs.is_empty(), "{errs:?}");
    run(&p.typed())
}

fn wait_idle(b: &Browser) {
    b.wait(120, "the ratelimit lab to finish", |b| {
        b.exists(".lab-ratelimit[aria-busy=false] [data-testid=ratelimit-total]")
    });
}

/// A counter the page shows, or `None` when this run does not show it.
fn counter(b: &Browser, key: &str) -> Option<u64> {
    let css = format!(".lab-ratelimit [data-testid=ratelimit-{key}]");
    b.exists(&css).then(|| b.counter(&css))
}

/// What the page shows at the cursor: attacker let through / turned away, students let
/// through / turned away (0 when not shown: nobody of that kind sent anything).
fn shown(b: &Browser) -> [u64; 4] {
    ["allowed", "blocked", "students-ok", "students-no"].map(|k| counter(b, k).unwrap_or(0))
}

fn instances(b: &Browser) -> Vec<u64> {
    let v = b.js(
        "return [...document.querySelectorAll('.lab-ratelimit .rl-inst')].map(e => Number(e.dataset.n))",
        json!([]),
    );
    serde_json::from_value(v).expect("the instances")
}

#[test]
fn every_preset_shows_the_native_numbers() {
    let b = Browser::new(1366, 768);
    for pr in PRESETS {
        let q = format!("preset={}", pr.id);
        b.open(&format!("#/lab/ratelimit?{q}"));
        b.wait(30, "the preset's button", |b| {
            b.exists(&format!(
                ".lab-preset[data-preset={}][aria-pressed=true]",
                pr.id
            ))
        });
        wait_idle(&b);
        let r = native(&q);
        assert_eq!(shown(&b), r.so_far(usize::MAX), "{}", pr.id);
        assert_eq!(instances(&b), r.per_instance, "{}", pr.id);
        if r.attacker.sent > 0 {
            assert_eq!(
                counter(&b, "max-window"),
                Some(r.max_in_window),
                "{}",
                pr.id
            );
        }
        assert_eq!(counter(&b, "commands"), Some(r.commands), "{}", pr.id);
        match pr.id {
            // The slide's numbers: six memory counters let 3,000 through, one Redis counter 500.
            "memory" => {
                assert_eq!(instances(&b), vec![500; 6]);
                assert_eq!(
                    b.text("[data-testid=ratelimit-allowed]")
                        .unwrap_or_default(),
                    "৩,০০০"
                );
                let log = b.text("[data-testid=ratelimit-log]").unwrap_or_default();
                assert!(log.contains("মেমোরির কাউন্টার"), "{log}");
            }
            "redis" => {
                assert_eq!(counter(&b, "allowed"), Some(500));
                let log = b.text("[data-testid=ratelimit-log]").unwrap_or_default();
                assert!(log.contains("INCR rl:login:"), "{log}");
            }
            "edge" => assert_eq!(counter(&b, "max-window"), Some(999)),
            "sliding" => {
                assert!(counter(&b, "max-window").unwrap() <= 500);
                let log = b.text("[data-testid=ratelimit-log]").unwrap_or_default();
                assert!(log.contains("ZCARD rl:login:"), "{log}");
            }
            "office-ip" => assert_eq!(counter(&b, "students-no"), Some(100)),
            _ => {}
        }
        b.screenshot(&screenshot_dir().join(format!("labs/ratelimit-{}.png", pr.id)));
        assert!(
            b.console_errors().is_empty(),
            "{}: {:?}",
            pr.id,
            b.console_errors()
        );
    }
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{axe:#?}");
}

#[test]
fn the_transport_walks_the_timeline_and_a_phone_sees_it() {
    let b = Browser::new(360, 740);
    b.open("#/lab/ratelimit?preset=memory");
    wait_idle(&b);
    let r = native("preset=memory");
    b.click(".lab-ratelimit .lab-controls button[aria-label='রিসেট']");
    b.wait(5, "the start", |b| shown(b) == [0; 4]);
    for _ in 0..3 {
        b.click(".lab-ratelimit .lab-controls button[aria-label='এক ধাপ সামনে']");
    }
    b.wait(5, "three steps", |b| shown(b) == r.so_far(3));
    let per: Vec<u64> = r.instances_so_far(3);
    assert_eq!(instances(&b), per);
    let half = r.buckets.len() / 2;
    b.js(
        "const s = document.querySelector('.lab-ratelimit .scrubber'); s.value = String(arguments[0]); s.dispatchEvent(new Event('input', {bubbles: true}));",
        json!([half]),
    );
    b.wait(5, "the middle", |b| shown(b) == r.so_far(half));
    let overflow = b.js(
        "return document.documentElement.scrollWidth > window.innerWidth",
        json!([]),
    );
    assert_eq!(
        overflow,
        json!(false),
        "the page scrolls sideways at 360 px"
    );
    b.screenshot(&screenshot_dir().join("labs/ratelimit-phone.png"));
    b.js(
        "document.querySelector('.lab-ratelimit .rl-chart').scrollIntoView()",
        json!([]),
    );
    b.screenshot(&screenshot_dir().join("labs/ratelimit-phone-chart.png"));
    assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
}

#[test]
fn a_bad_parameter_gets_a_bengali_message_and_changes_nothing() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/ratelimit?preset=edge&limit=0");
    wait_idle(&b);
    let msg = b
        .text("[data-field=limit] .field-error")
        .unwrap_or_default();
    assert!(msg.contains("পূর্ণসংখ্যা"), "{msg}");
    let good = native("preset=edge");
    assert_eq!(shown(&b), good.so_far(usize::MAX));
    b.js(
        "const i = document.querySelector('#lab-field-window'); i.value = 'long'; i.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([]),
    );
    b.wait(5, "a message beside window", |b| {
        b.exists("[data-field=window] .field-error")
    });
    assert_eq!(shown(&b), good.so_far(usize::MAX));
    assert!(!b.url().contains("long"), "{}", b.url());
    assert!(b.console_errors().is_empty());
}
