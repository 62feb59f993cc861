//! The failover-and-Redlock lab in a real headless Chromium: each preset shows the native
//! simulator's numbers and status line (browser = wasm in the worker, native =
//! `redislab_sim::labs::redlock::run`), the timeline's counters follow the native run's
//! prefix, a phone sees it without sideways scrolling, and the lab embedded on the patterns
//! deck's "Redlock ১/৪" slide runs without console errors.

use redislab_e2e::{screenshot_dir, Browser};
use redislab_sim::labs::params::Params;
use redislab_sim::labs::redlock::{run, Counters, RedlockResult, INFO, NAMES, PRESETS};
use serde_json::json;

fn native(query: &str) -> RedlockResult {
    let (p, errs) = Params::from_query(&INFO, query);
    assert!(errs.is_empty(), "{errs:?}");
    run(&p.typed())
}

fn wait_idle(b: &Browser) {
    b.wait(60, "the redlock lab to finish", |b| {
        b.exists(".lab-redlock[aria-busy=false] [data-testid=redlock-two-owner]")
    });
}

const KEYS: [&str; 5] = [
    "grants",
    "two-owner",
    "two-owner-ms",
    "stale-accepted",
    "stale-rejected",
];

fn shown(b: &Browser, scope: &str) -> Vec<u64> {
    KEYS.iter()
        .map(|k| b.counter(&format!("{scope} [data-testid=redlock-{k}]")))
        .collect()
}

fn want(c: &Counters) -> Vec<u64> {
    vec![
        u64::from(c.grants),
        u64::from(c.two_owner_moments),
        c.two_owner_ms,
        u64::from(c.stale_accepted),
        u64::from(c.stale_rejected),
    ]
}

#[test]
fn every_preset_shows_the_native_numbers_and_status() {
    let b = Browser::new(1366, 768);
    for pr in PRESETS {
        let q = format!("preset={}", pr.id);
        b.open(&format!("#/lab/redlock?{q}"));
        b.wait(30, "the preset's button", |b| {
            b.exists(&format!(
                ".lab-preset[data-preset={}][aria-pressed=true]",
                pr.id
            ))
        });
        wait_idle(&b);
        let r = native(&q);
        assert_eq!(shown(&b, ".lab-redlock"), want(&r.counters), "{}", pr.id);
        let status = b.text("[data-testid=redlock-status]").unwrap_or_default();
        assert_eq!(status.trim(), r.verdict.line(), "{}", pr.id);
        // Who holds the key on each server at the end of the run.
        let end = r.holders_at(r.steps, r.time_at(r.steps));
        for (lane, who) in r.lanes.iter().zip(end) {
            let t = b
                .text(&format!("[data-testid=redlock-holder-{lane}]"))
                .unwrap_or_default();
            let w = who.map_or("—", |c| NAMES[c]);
            assert!(t.ends_with(w), "{}: {lane} shows {t}, want {w}", pr.id);
        }
        // The whole run is on screen: the log ends with the run's last command.
        let last = r.commands.last().unwrap();
        let log = b.text("[data-testid=redlock-log]").unwrap_or_default();
        assert!(log.contains(&last.line.cmd_text()), "{}: {log}", pr.id);
        b.screenshot(&screenshot_dir().join(format!("labs/redlock-{}.png", pr.id)));
    }
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{axe:#?}");
    assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
}

#[test]
fn the_timeline_follows_the_native_prefix_and_a_phone_sees_it() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/redlock?preset=clock-jump");
    wait_idle(&b);
    let r = native("preset=clock-jump");
    b.click(".lab-redlock .lab-controls button[aria-label='রিসেট']");
    b.wait(5, "the start", |b| shown(b, ".lab-redlock") == vec![0; 5]);
    // Just after B's winning attempt: two grants, and the overlap already known.
    let won_b = r.attempts.iter().find(|a| a.won && a.client == 1).unwrap();
    let n = won_b.step + 2;
    let seek = format!(
        "const s = document.querySelector('.lab-redlock .scrubber'); s.value = '{n}'; s.dispatchEvent(new Event('input', {{bubbles: true}}));"
    );
    b.js(&seek, json!([]));
    b.wait(5, "the cursor at B's win", |b| {
        shown(b, ".lab-redlock") == want(&r.so_far(n))
    });
    assert_eq!(r.so_far(n).grants, 2);
    b.screenshot(&screenshot_dir().join("labs/redlock-clock-jump-mid.png"));

    let phone = Browser::new(360, 740);
    phone.open("#/lab/redlock?preset=fencing");
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
    assert_eq!(
        shown(&phone, ".lab-redlock"),
        want(&native("preset=fencing").counters)
    );
    phone.screenshot(&screenshot_dir().join("labs/redlock-phone.png"));
    phone.js(
        "document.querySelector('.lab-redlock .lab-stats').scrollIntoView()",
        json!([]),
    );
    phone.screenshot(&screenshot_dir().join("labs/redlock-phone-stats.png"));
    assert!(phone.console_errors().is_empty());
}

#[test]
fn a_bad_parameter_gets_a_message_and_changes_nothing() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/redlock?preset=pause&ttl=5");
    wait_idle(&b);
    let msg = b.text("[data-field=ttl] .field-error").unwrap_or_default();
    assert!(msg.contains("300"), "{msg}");
    assert_eq!(
        shown(&b, ".lab-redlock"),
        want(&native("preset=pause").counters)
    );
    assert!(b.console_errors().is_empty());
}

#[test]
fn the_lab_on_the_redlock_slide_runs_without_console_errors() {
    let b = Browser::new(1366, 768);
    b.open("#/patterns/17");
    b.wait(30, "the embedded redlock lab", |b| {
        b.exists(".slide .lab-redlock")
    });
    wait_idle(&b);
    let r = native("preset=failover");
    assert_eq!(shown(&b, ".slide .lab-redlock"), want(&r.counters));
    let status = b
        .text(".slide [data-testid=redlock-status]")
        .unwrap_or_default();
    assert_eq!(status.trim(), r.verdict.line());
    assert!(b.exists(".slide .lab-redlock a.lab-open[href*='#/lab/redlock']"));
    b.screenshot(&screenshot_dir().join("labs/redlock-slide.png"));
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{axe:#?}");
    assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
}
