//! The queues lab in a real headless Chromium: each preset shows the native simulator's
//! counts, lists and job fates (browser = wasm in the worker, native =
//! `redislab_sim::labs::queues::run`), stepping to the crash shows the dead worker and the
//! counts of the run's prefix, a phone sees the picture without scrolling sideways, and a bad
//! parameter in the address gets its message while the lab keeps its last good state.

use redislab_e2e::{screenshot_dir, Browser};
use redislab_sim::labs::params::Params;
use redislab_sim::labs::queues::{run, At, Place, QueuesResult, INFO, PRESETS};
use serde_json::json;

fn native(query: &str) -> QueuesResult {
    let (p, errs) = Params::from_query(&INFO, query);
    assert!(errs.is_empty(), "{errs:?}");
    run(&p.typed())
}

fn wait_idle(b: &Browser) {
    b.wait(60, "the queues lab to finish", |b| {
        b.exists(".lab-queues[aria-busy=false] [data-testid=queues-done]")
    });
}

const KEYS: [&str; 5] = ["done", "lost", "stuck", "twice", "skipped"];

fn shown(b: &Browser) -> Vec<u64> {
    KEYS.iter()
        .map(|k| b.counter(&format!(".lab-queues [data-testid=queues-{k}]")))
        .collect()
}

fn want(a: &At) -> Vec<u64> {
    let c = a.counters;
    [c.done, c.lost, c.stuck, c.effects_twice, c.skipped]
        .map(u64::from)
        .to_vec()
}

/// The job ids in the list drawn as `name`.
fn list(b: &Browser, name: &str) -> Vec<u32> {
    let v = b.js(
        "return [...document.querySelectorAll(`.qu-list[data-list=\"${arguments[0]}\"] .qu-chip`)].map(e => Number(e.dataset.job))",
        json!([name]),
    );
    serde_json::from_value(v).unwrap()
}

/// Each job's place as drawn.
fn places(b: &Browser) -> Vec<String> {
    let v = b.js(
        "return [...document.querySelectorAll('[data-testid=queues-jobs] .qu-job')].map(e => e.dataset.place)",
        json!([]),
    );
    serde_json::from_value(v).unwrap()
}

fn place_word(p: Place, effects: u32) -> &'static str {
    match p {
        Place::NotYet => "notyet",
        Place::Queue => "queue",
        Place::Held(_) => "held",
        Place::Stuck => "stuck",
        Place::Moving => "moving",
        Place::Done if effects > 1 => "twice",
        Place::Done => "done",
        Place::Lost => "lost",
    }
}

#[test]
fn every_preset_shows_the_native_counts_lists_and_jobs() {
    let b = Browser::new(1366, 768);
    for pr in PRESETS {
        let q = format!("preset={}", pr.id);
        b.open(&format!("#/lab/queues?{q}"));
        b.wait(30, "the preset's button", |b| {
            b.exists(&format!(
                ".lab-preset[data-preset={}][aria-pressed=true]",
                pr.id
            ))
        });
        wait_idle(&b);
        let r = native(&q);
        assert_eq!(shown(&b), want(&r.end), "{}", pr.id);
        assert_eq!(list(&b, "queue:emails"), r.end.lists.queue, "{}", pr.id);
        if r.setup.reliable {
            assert_eq!(
                list(&b, "queue:emails:processing"),
                r.end.lists.processing,
                "{}",
                pr.id
            );
        } else {
            assert!(!b.exists(".qu-list[data-list='queue:emails:processing']"));
        }
        let jobs: Vec<&str> = r
            .end
            .jobs
            .iter()
            .map(|j| place_word(j.place, j.effects))
            .collect();
        assert_eq!(places(&b), jobs, "{}", pr.id);
        let last = r.commands.last().unwrap();
        let log = b.text("[data-testid=queues-log]").unwrap_or_default();
        assert!(log.contains(&last.cmd_text()), "{}: {log}", pr.id);
        b.screenshot(&screenshot_dir().join(format!("labs/queues-{}.png", pr.id)));
    }
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{axe:#?}");
    // The presets' story, as the student sees it.
    let n = |id: &str| want(&native(&format!("preset={id}")).end);
    assert_eq!(n("simple-crash")[1], 1);
    assert_eq!(n("simple")[..3], [6, 0, 0]);
    assert_eq!(n("reliable")[1..3], [0, 1]);
    assert_eq!(n("recovery")[..3], [6, 0, 0]);
    assert_eq!(n("twice")[3], 1);
    assert_eq!((n("idempotent")[3], n("idempotent")[4]), (0, 1));
    assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
}

#[test]
fn the_crash_on_screen_step_by_step_and_on_a_phone() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/queues?preset=simple-crash");
    wait_idle(&b);
    let r = native("preset=simple-crash");
    b.click(".lab-queues .lab-controls button[aria-label='রিসেট']");
    b.wait(5, "the start", |b| shown(b) == vec![0; KEYS.len()]);
    // The first position that holds the crash: w1 is dead, the line at the cursor says so
    // (red); one step back it is alive.
    let crash = r.crash().expect("a crash").step;
    let n = (1..r.frames()).find(|&n| r.cut(n) > crash).unwrap();
    let seek = format!(
        "const s = document.querySelector('.lab-queues .scrubber'); s.value = '{n}'; s.dispatchEvent(new Event('input', {{bubbles: true}}));"
    );
    b.js(&seek, json!([]));
    b.wait(5, "w1 dead", |b| {
        b.exists(".qu-worker[data-worker=w1][data-state=dead]")
    });
    assert_eq!(shown(&b), want(&r.at(n)));
    assert!(b.exists("[data-testid=queues-now].bad"));
    b.screenshot(&screenshot_dir().join("labs/queues-crash.png"));
    b.click(".lab-queues .lab-controls button[aria-label='এক ধাপ পিছনে']");
    b.wait(5, "a step back", |b| {
        !b.exists(".qu-worker[data-worker=w1][data-state=dead]")
    });
    assert_eq!(shown(&b), want(&r.at(n - 1)));

    let phone = Browser::new(360, 740);
    phone.open("#/lab/queues?preset=idempotent");
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
    let pic = phone.rect(".qu-picture").expect("the picture");
    assert!(
        pic.y < 740.0,
        "the picture starts below the first screen: {pic:?}"
    );
    phone.screenshot(&screenshot_dir().join("labs/queues-phone.png"));
    assert!(phone.console_errors().is_empty());
}

#[test]
fn a_bad_parameter_gets_a_message_and_changes_nothing() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/queues?preset=recovery&crash=w4");
    wait_idle(&b);
    let msg = b
        .text("[data-field=crash] .field-error")
        .unwrap_or_default();
    assert!(msg.contains("worker"), "{msg}");
    let good = native("preset=recovery");
    assert_eq!(shown(&b), want(&good.end));
    b.open_form();
    b.js(
        "const i = document.querySelector('#lab-field-seed'); i.value = '11'; i.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([]),
    );
    b.wait(30, "seed 11 in the address", |b| {
        b.url().contains("seed=11")
    });
    wait_idle(&b);
    let r = native("preset=recovery&seed=11");
    b.wait(30, "the seed-11 run", |b| shown(b) == want(&r.end));
    assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
}
