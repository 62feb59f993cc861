//! The queues lab in a real headless Chromium, what is its own (every preset's counts, a bad
//! parameter and the timeline's walk are `every_lab`'s): Redis' lists and every job's fate as
//! the native run leaves them (the processing list of the reliable queue, a job done twice),
//! the crash step by step — the dead worker on the step that holds it, alive one step back,
//! the counts of the run's prefix at both — and the picture on a phone's first screen.

use redislab_e2e::{assert_no_console_errors, assert_no_sideways_scroll, screenshot_dir, Browser};
use redislab_sim::labs::def::Steps;
use redislab_sim::labs::log::CmdSteps;
use redislab_sim::labs::params::Params;
use redislab_sim::labs::queues::{run, At, Place, QueuesOutput, INFO};
use serde_json::json;

fn native(query: &str) -> QueuesOutput {
    run(&Params::from_query(&INFO, query).0.read())
}

fn computed(b: &Browser) {
    b.wait(60, "the queues lab to finish", |b| {
        b.exists(".lab-queues[aria-busy=false] .lab-controls .scrubber")
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
fn the_lists_and_every_jobs_fate_are_the_native_runs() {
    let b = Browser::new(1366, 768);
    for id in ["simple-crash", "reliable", "twice"] {
        let q = format!("preset={id}");
        b.open(&format!("#/lab/queues?{q}"));
        b.wait(30, "the preset's button", |b| {
            b.exists(&format!(".lab-preset[data-preset={id}][aria-pressed=true]"))
        });
        computed(&b);
        let r = native(&q);
        assert_eq!(list(&b, "queue:emails"), r.end.lists.queue, "{id}");
        if r.setup.reliable {
            let processing = list(&b, "queue:emails:processing");
            assert_eq!(processing, r.end.lists.processing, "{id}");
        } else {
            assert!(!b.exists(".qu-list[data-list='queue:emails:processing']"));
        }
        let jobs: Vec<&str> = r
            .end
            .jobs
            .iter()
            .map(|j| place_word(j.place, j.effects))
            .collect();
        assert_eq!(places(&b), jobs, "{id}");
        let last = r.commands.last().unwrap();
        let log = b.text("[data-testid=queues-log]").unwrap_or_default();
        assert!(log.contains(&last.cmd_text()), "{id}: {log}");
        b.screenshot(&screenshot_dir().join(format!("labs/queues-{id}.png")));
    }
    // The stories, as the pictures tell them: BRPOP lost the job, BLMOVE kept it stuck,
    // the recovery ran it twice.
    assert!(native("preset=simple-crash")
        .end
        .jobs
        .iter()
        .any(|j| j.place == Place::Lost));
    assert!(native("preset=reliable")
        .end
        .jobs
        .iter()
        .any(|j| j.place == Place::Stuck));
    assert!(native("preset=twice")
        .end
        .jobs
        .iter()
        .any(|j| j.effects == 2));
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{axe:#?}");
    assert_no_console_errors(&b);
}

#[test]
fn the_crash_on_screen_step_by_step_and_on_a_phone() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/queues?preset=simple-crash");
    computed(&b);
    let r = native("preset=simple-crash");
    // The first position that holds the crash: w1 is dead, the line at the cursor says so
    // (red); one step back it is alive.
    let crash = r.crash().expect("a crash").step;
    let n = (1..=r.steps()).find(|&n| r.cut(n) > crash).unwrap();
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
    assert_no_console_errors(&b);

    let phone = Browser::new(360, 740);
    phone.open("#/lab/queues?preset=idempotent");
    computed(&phone);
    assert_no_sideways_scroll(&phone);
    let pic = phone.rect(".qu-picture").expect("the picture");
    assert!(
        pic.y < 740.0,
        "the picture starts below the first screen: {pic:?}"
    );
    phone.screenshot(&screenshot_dir().join("labs/queues-phone.png"));
    assert_no_console_errors(&phone);
}
