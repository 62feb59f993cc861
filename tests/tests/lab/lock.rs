//! The lock-race lab in a real headless Chromium: each preset shows the native simulator's
//! numbers (browser = wasm in the worker, native = `redislab_sim::labs::lock::run`), the lab
//! embedded on production slide 7 runs without console errors, and a bad parameter in the
//! address gets its message while the lab keeps its last good state.

use redislab_e2e::{screenshot_dir, Browser};
use redislab_sim::labs::lock::{run, Counters, LockResult, INFO, PRESETS};
use redislab_sim::labs::params::Params;
use serde_json::json;

fn native(query: &str) -> LockResult {
    let (p, errs) = Params::from_query(&INFO, query);
    assert!(errs.is_empty(), "{errs:?}");
    run(&p.typed())
}

/// Waits until every lab on the page has its result (`aria-busy` cleared).
fn wait_idle(b: &Browser) {
    b.wait(60, "the lock lab to finish", |b| {
        b.exists(".lab-lock[aria-busy=false] [data-testid=lock-two-owner]")
    });
}

fn shown(b: &Browser, scope: &str) -> Vec<u64> {
    ["two-owner", "steals", "stale-accepted", "stale-rejected"]
        .iter()
        .map(|k| b.counter(&format!("{scope} [data-testid=lock-{k}]")))
        .collect()
}

fn want(c: &Counters) -> Vec<u64> {
    vec![
        u64::from(c.two_owner_moments),
        u64::from(c.steals),
        u64::from(c.stale_accepted),
        u64::from(c.stale_rejected),
    ]
}

#[test]
fn every_preset_shows_the_native_numbers() {
    let b = Browser::new(1366, 768);
    for pr in PRESETS {
        let q = format!("preset={}", pr.id);
        b.open(&format!("#/lab/lock?{q}"));
        b.wait(30, "the preset's button", |b| {
            b.exists(&format!(
                ".lab-preset[data-preset={}][aria-pressed=true]",
                pr.id
            ))
        });
        wait_idle(&b);
        let r = native(&q);
        assert_eq!(shown(&b, ".lab-lock"), want(&r.counters), "{}", pr.id);
        // The whole run is on screen: the command log ends with the run's last command.
        let last = r.commands.last().unwrap();
        let log = b.text("[data-testid=lock-log]").unwrap_or_default();
        assert!(log.contains(&last.cmd_text()), "{}: {log}", pr.id);
        match r.first_steal() {
            Some(s) => {
                let at = b.js(
                    "return document.querySelector('[data-testid=lock-steal]').dataset.at",
                    json!([]),
                );
                assert_eq!(at.as_str(), Some(s.at_ms.to_string().as_str()), "{}", pr.id);
            }
            None => assert!(!b.exists("[data-testid=lock-steal]"), "{}", pr.id),
        }
        // The release script's Lua source is shown when it is used.
        assert_eq!(
            b.exists(".lk-script[data-script=release]"),
            r.params.token_release(),
            "{}",
            pr.id
        );
        b.screenshot(&screenshot_dir().join(format!("labs/lock-{}.png", pr.id)));
    }
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{axe:#?}");
    // The presets' claims, as the student sees them.
    let n = |id: &str| want(&native(&format!("preset={id}")).counters);
    assert!(n("plain-del")[0] >= 1 && n("plain-del")[1] >= 1);
    assert_eq!(n("token")[0], 0);
    assert!(n("pause")[2] >= 1);
    assert_eq!((n("fencing")[2], n("fencing")[3] >= 1), (0, true));
    assert!(b.console_errors().is_empty());
}

#[test]
fn steps_back_and_forth_and_a_phone_sees_it_all() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/lock?preset=plain-del");
    wait_idle(&b);
    let r = native("preset=plain-del");
    // Back to the start: nothing counted yet; one step at a time the counters follow the
    // native run's prefix.
    b.click(".lab-lock .lab-controls button[aria-label='রিসেট']");
    b.wait(5, "the start", |b| {
        shown(b, ".lab-lock") == vec![0, 0, 0, 0]
    });
    let steal = r.first_steal().unwrap().step;
    let seek = format!(
        "const s = document.querySelector('.lab-lock .scrubber'); s.value = '{}'; s.dispatchEvent(new Event('input', {{bubbles: true}}));",
        steal + 1
    );
    b.js(&seek, json!([]));
    b.wait(5, "the steal on screen", |b| {
        b.exists("[data-testid=lock-steal]")
    });
    assert_eq!(shown(&b, ".lab-lock"), want(&r.so_far(steal + 1)));
    b.click(".lab-lock .lab-controls button[aria-label='এক ধাপ পিছনে']");
    b.wait(5, "a step back", |b| !b.exists("[data-testid=lock-steal]"));
    assert_eq!(shown(&b, ".lab-lock"), want(&r.so_far(steal)));
    b.screenshot(&screenshot_dir().join("labs/lock-steal.png"));

    let phone = Browser::new(360, 740);
    phone.open("#/lab/lock?preset=fencing");
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
    phone.screenshot(&screenshot_dir().join("labs/lock-phone.png"));
    phone.js(
        "document.querySelector('.lab-lock .lab-controls').scrollIntoView()",
        json!([]),
    );
    phone.screenshot(&screenshot_dir().join("labs/lock-phone-lanes.png"));
    assert!(phone.console_errors().is_empty());
}

#[test]
fn a_bad_parameter_gets_a_message_and_changes_nothing() {
    let b = Browser::new(1366, 768);
    // From the address: the message beside the field, the run uses the last good value.
    b.open("#/lab/lock?preset=fencing&ttl=5");
    wait_idle(&b);
    let msg = b.text("[data-field=ttl] .field-error").unwrap_or_default();
    assert!(msg.contains("300"), "{msg}");
    let good = native("preset=fencing");
    assert_eq!(shown(&b, ".lab-lock"), want(&good.counters));
    // Typed into the form: message, and the lab keeps its state.
    b.open_form();
    b.js(
        "const i = document.querySelector('#lab-field-pause'); i.value = 'lots'; i.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([]),
    );
    b.wait(5, "a message beside pause", |b| {
        b.exists("[data-field=pause] .field-error")
    });
    assert_eq!(shown(&b, ".lab-lock"), want(&good.counters));
    // A good change after it runs with the old pause (1500), and goes into the address.
    b.open_form();
    b.js(
        "const i = document.querySelector('#lab-field-seed'); i.value = '11'; i.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([]),
    );
    b.wait(30, "seed 11 in the address", |b| {
        b.url().contains("seed=11")
    });
    wait_idle(&b);
    assert!(b.url().contains("pause=1500"), "{}", b.url());
    let r = native("preset=fencing&seed=11");
    assert_eq!(shown(&b, ".lab-lock"), want(&r.counters));
    assert!(b.console_errors().is_empty());
}

#[test]
fn the_lab_on_production_slide_7_runs_without_console_errors() {
    let b = Browser::new(1366, 768);
    b.open("#/production/7");
    b.wait(30, "the embedded lock lab", |b| {
        b.exists(".slide .lab-lock")
    });
    wait_idle(&b);
    let r = native("preset=plain-del");
    assert_eq!(shown(&b, ".slide .lab-lock"), want(&r.counters));
    // A preset button switches the run in place.
    b.click(".slide .lab-preset[data-preset=token]");
    b.wait(30, "the token run", |b| {
        b.exists(".slide .lab-preset[data-preset=token][aria-pressed=true]")
    });
    wait_idle(&b);
    assert_eq!(
        shown(&b, ".slide .lab-lock"),
        want(&native("preset=token").counters)
    );
    assert!(b.exists(".slide .lab-lock a.lab-open[href*='#/lab/lock']"));
    b.screenshot(&screenshot_dir().join("labs/lock-slide7.png"));
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{axe:#?}");
    assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
}
