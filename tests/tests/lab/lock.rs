//! The lock-race lab in a real headless Chromium, what is its own (every preset's numbers, a
//! bad parameter and the timeline's walk are `every_lab`'s): the steal — the scrubber on the
//! entry where A's `DEL` removes B's lock shows it, one step back it is gone, the counters are
//! the native run's prefix at both — the Lua source of the scripts in use, and the lab on its
//! slides (production 7, patterns 16) at the room's size and on a phone, the lanes' names
//! clear of their bars (issue 35 item 20). Screenshots under target/screenshots/labs/.

use redislab_deck::Block;
use redislab_e2e::{
    assert_no_console_errors, assert_no_sideways_scroll, deck, screenshot_dir, Browser,
};
use redislab_sim::labs::lock::{run, Counters, LockOutput, INFO};
use redislab_sim::labs::params::Params;
use serde_json::json;

fn native(query: &str) -> LockOutput {
    run(&Params::from_query(&INFO, query).0.read())
}

/// The four counters every view of the race shows, as the page shows them under `scope`.
fn counters(b: &Browser, scope: &str) -> [u64; 4] {
    ["two-owner", "steals", "stale-accepted", "stale-rejected"]
        .map(|k| b.counter(&format!("{scope} [data-testid=lock-{k}]")))
}

fn want(c: &Counters) -> [u64; 4] {
    [
        c.two_owner_moments,
        c.steals,
        c.stale_accepted,
        c.stale_rejected,
    ]
    .map(u64::from)
}

fn computed(b: &Browser, scope: &str) {
    b.wait(60, "the lock lab to finish", |b| {
        b.exists(&format!(
            "{scope} .lab-lock[aria-busy=false] .lab-controls .scrubber"
        ))
    });
}

#[test]
fn the_steal_shows_on_its_step_and_the_scripts_in_use_are_shown() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/lock?preset=plain-del");
    computed(&b, "");
    let r = native("preset=plain-del");
    // At the end: the whole log, the steal, no script (plain DEL).
    let log = b.text("[data-testid=lock-log]").unwrap_or_default();
    assert!(
        log.contains(&r.commands.last().unwrap().cmd_text()),
        "{log}"
    );
    let steal = r.first_steal().expect("plain DEL removes B's lock");
    let at = b.js(
        "return document.querySelector('[data-testid=lock-steal]').dataset.at",
        json!([]),
    );
    assert_eq!(at.as_str(), Some(steal.at_ms.to_string().as_str()));
    assert!(!b.exists(".lk-script"));
    // The scrubber on the steal's entry: the steal and the counters of that prefix; one
    // step back, neither.
    let seek = format!(
        "const s = document.querySelector('.lab-lock .scrubber'); s.value = '{}'; s.dispatchEvent(new Event('input', {{bubbles: true}}));",
        steal.step + 1
    );
    b.js(&seek, json!([]));
    b.wait(5, "the steal on screen", |b| {
        b.exists("[data-testid=lock-steal]")
    });
    assert_eq!(counters(&b, ".lab-lock"), want(&r.so_far(steal.step + 1)));
    b.click(".lab-lock .lab-controls button[aria-label='এক ধাপ পিছনে']");
    b.wait(5, "a step back", |b| !b.exists("[data-testid=lock-steal]"));
    assert_eq!(counters(&b, ".lab-lock"), want(&r.so_far(steal.step)));
    b.screenshot(&screenshot_dir().join("labs/lock-steal.png"));
    // The token preset: the release and extend scripts' Lua, and no steal at all.
    b.click(".lab-preset[data-preset=token]");
    computed(&b, "");
    b.wait(10, "the scripts", |b| {
        b.exists(".lk-script[data-script=release]") && b.exists(".lk-script[data-script=extend]")
    });
    assert!(!b.exists("[data-testid=lock-steal]"));
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{axe:#?}");
    assert_no_console_errors(&b);
}

/// The slides whose lab is the lock race: (deck, slide number, the lab's query).
fn lock_slides() -> Vec<(&'static str, usize, String)> {
    let mut out = Vec::new();
    for id in ["production", "patterns"] {
        for (i, s) in deck(id).slides.iter().enumerate() {
            for b in s.body.iter() {
                if let Block::Container { kind, args, .. } = b {
                    if kind == "lab" && args.first().is_some_and(|a| a == "lock") {
                        let query: Vec<&str> = args[1..].iter().map(|a| a.as_ref()).collect();
                        out.push((id, i + 1, query.join("&")));
                    }
                }
            }
        }
    }
    out
}

#[test]
fn on_its_slides_the_lanes_names_stay_clear_of_their_bars() {
    let slides = lock_slides();
    assert!(slides.len() >= 2, "{slides:?}");
    for (w, h, size) in [(1366, 768, "laptop"), (360, 740, "phone")] {
        let b = Browser::new(w, h);
        for (d, n, query) in &slides {
            b.open(&format!("#/{d}/{n}"));
            b.wait(30, "the embedded lock lab", |b| {
                b.exists(".slide .lab-lock")
            });
            computed(&b, ".slide");
            assert_eq!(
                counters(&b, ".slide"),
                want(&native(query).counters),
                "{d}/{n}: {query}"
            );
            // Every lane's name (worker A, Redis-এ লক, worker B, resource) ends before its
            // lane begins: the name never runs under the bar.
            let names = b.js(
                "return document.querySelectorAll('.slide .lab-lock .tc-lane-name').length",
                json!([]),
            );
            assert_eq!(names, json!(4), "{d}/{n} at {w}×{h}: the four lanes");
            let clash = b.js(
                "return [...document.querySelectorAll('.slide .lab-lock .tc-lane-name')].filter(e => {
                    const n = e.getBoundingClientRect();
                    const l = e.nextElementSibling.getBoundingClientRect();
                    return n.right > l.left + 0.5 && n.bottom > l.top && n.top < l.bottom;
                 }).map(e => e.textContent)",
                json!([]),
            );
            assert_eq!(
                clash,
                json!([]),
                "{d}/{n} at {w}×{h}: names over their lanes"
            );
            if size == "phone" {
                assert_no_sideways_scroll(&b);
            }
            b.screenshot(&screenshot_dir().join(format!("labs/lock-{d}-{n}-{size}.png")));
            assert!(b.exists(".slide .lab-lock a.lab-open[href*='#/lab/lock']"));
        }
        let axe = b.axe_serious();
        assert!(axe.is_empty(), "{axe:#?}");
        assert_no_console_errors(&b);
    }
}
