//! The failover-and-Redlock lab in a real headless Chromium, what is its own (every preset's
//! numbers, a bad parameter and the timeline's walk are `every_lab`'s): each preset's status
//! line, who holds the key on each server at the end and the log's last command; the clock
//! jump's cursor just after B's win; a phone sees it without sideways scrolling; and the lab
//! embedded on the patterns deck's "Redlock ১/৪" slide. Screenshots under
//! target/screenshots/labs/.

use super::{native, open_lab};
use redislab_e2e::{screenshot_dir, Browser};
use redislab_sim::labs::def::Steps;
use redislab_sim::labs::log::TraceSteps;
use redislab_sim::labs::redlock::{Counters, RedlockRun, INFO, NAMES, PRESETS};
use serde_json::json;

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
fn every_preset_shows_its_status_its_holders_and_its_last_command() {
    let b = Browser::new(1366, 768);
    for pr in PRESETS {
        let q = format!("preset={}", pr.id);
        open_lab(&b, "redlock", &q);
        let r = native::<RedlockRun>(&INFO, &q);
        let status = b.text("[data-testid=redlock-status]").unwrap_or_default();
        assert_eq!(status.trim(), r.status, "{}", pr.id);
        // Who holds the key on each server at the end of the run.
        let end = r.holders_at(r.steps(), r.time_at(r.steps()));
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
fn the_clock_jump_just_after_b_wins_and_a_phone_sees_it() {
    let b = Browser::new(1366, 768);
    open_lab(&b, "redlock", "preset=clock-jump");
    let r = native::<RedlockRun>(&INFO, "preset=clock-jump");
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
    open_lab(&phone, "redlock", "preset=fencing");
    let overflow = phone.js(
        "return document.documentElement.scrollWidth > window.innerWidth",
        json!([]),
    );
    assert_eq!(
        overflow,
        json!(false),
        "the page scrolls sideways at 360 px"
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
fn the_lab_on_the_redlock_slide_runs_without_console_errors() {
    let b = Browser::new(1366, 768);
    b.open("#/patterns/17");
    b.wait(60, "the embedded redlock lab", |b| {
        b.exists(".slide .lab-redlock[aria-busy=false] [data-testid=redlock-two-owner]")
    });
    let r = native::<RedlockRun>(&INFO, "preset=failover");
    assert_eq!(shown(&b, ".slide .lab-redlock"), want(&r.counters));
    let status = b
        .text(".slide [data-testid=redlock-status]")
        .unwrap_or_default();
    assert_eq!(status.trim(), r.status);
    assert!(b.exists(".slide .lab-redlock a.lab-open[href*='#/lab/redlock']"));
    b.screenshot(&screenshot_dir().join("labs/redlock-slide.png"));
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{axe:#?}");
    assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
}
