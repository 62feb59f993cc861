//! The rate-limit lab in a real headless Chromium, what is its own (every preset's figures, a
//! bad parameter and the timeline's walk are `every_lab`'s): each instance's let-through bar
//! as the native run has them (six memory counters at the limit each, one Redis counter), the
//! log's commands, the scrubber and the bars on a phone, and the sliding window opened where
//! its practice question's "show me" opens it — the figure the question asks about shown, the
//! run's total beside it not marked (issue 35 item 19), and a fixed-window question's own
//! "show me" address, where everything red is the question's figure. Screenshots at laptop
//! and phone sizes under target/screenshots/labs/.

use crate::{native, open_lab};
use redislab_deck::bn;
use redislab_e2e::{assert_no_console_errors, assert_no_sideways_scroll, screenshot_dir, Browser};
use redislab_sim::labs::ratelimit::{Algo, RateOutput, RateRun, INFO};
use redislab_sim::practice::{self, Answer};
use serde_json::json;

fn run(query: &str) -> RateOutput {
    native::<RateRun>(&INFO, query)
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
fn memory_counters_let_the_limit_through_each_and_redis_once() {
    let b = Browser::new(1366, 768);
    open_lab(&b, "ratelimit", "preset=memory");
    let r = run("preset=memory");
    // The slide's numbers: six memory counters let 3,000 through, 500 each.
    assert_eq!(instances(&b), vec![500; 6]);
    assert_eq!(instances(&b), r.per_instance);
    assert_eq!(
        b.text("[data-testid=ratelimit-allowed]")
            .unwrap_or_default(),
        "৩,০০০"
    );
    let log = b.text("[data-testid=ratelimit-log]").unwrap_or_default();
    assert!(log.contains("মেমোরির কাউন্টার"), "{log}");
    b.screenshot(&screenshot_dir().join("labs/ratelimit-memory.png"));
    open_lab(&b, "ratelimit", "preset=redis");
    let r = run("preset=redis");
    assert_eq!(instances(&b), r.per_instance);
    assert_eq!(counter(&b, "allowed"), Some(500));
    let log = b.text("[data-testid=ratelimit-log]").unwrap_or_default();
    assert!(log.contains("INCR rl:login:"), "{log}");
    b.screenshot(&screenshot_dir().join("labs/ratelimit-redis.png"));
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{axe:#?}");
    assert_no_console_errors(&b);
}

/// Opened as the edge question's "show me" opens it (`at=` the densest window's last
/// request): the page shows the most let in within one window — the question's answer — and
/// does not mark the run's total, which spans two windows.
#[test]
fn the_sliding_window_from_a_practice_question_shows_the_one_window_figure() {
    let b = Browser::new(1366, 768);
    let r = run("preset=sliding");
    let at = r.position_of(r.max_span.1);
    b.open(&format!("#/lab/ratelimit?preset=sliding&at={at}"));
    b.wait(120, "the sliding run at the question's position", |b| {
        b.exists(".lab-ratelimit[aria-busy=false] [data-testid=ratelimit-max-window]")
            && b.js(
                "return Number(document.querySelector('.lab-ratelimit .scrubber').value)",
                json!([]),
            ) == json!(at)
    });
    assert_eq!(counter(&b, "max-window"), Some(r.max_in_window));
    assert_eq!(r.max_in_window, 500);
    assert_eq!(counter(&b, "allowed"), Some(r.so_far(at)[0]));
    assert!(
        r.so_far(at)[0] > r.max_in_window,
        "the total spans two windows"
    );
    let marked = |key: &str| {
        b.exists(&format!(
            ".lab-ratelimit .lab-stat.bad [data-testid=ratelimit-{key}]"
        ))
    };
    assert!(!marked("allowed") && !marked("max-window"));
    let now = b.text("[data-testid=ratelimit-now]").unwrap_or_default();
    assert!(now.contains("৫০০") && now.contains("লিমিটের মধ্যে"), "{now}");
    b.screenshot(&screenshot_dir().join("labs/ratelimit-sliding-question.png"));
    // The fixed window's edge: the same place marks the figure over the limit.
    let f = run("preset=edge");
    let at = f.position_of(f.max_span.1);
    b.open(&format!("#/lab/ratelimit?preset=edge&at={at}"));
    b.wait(120, "the edge run at the question's position", |b| {
        counter(b, "max-window") == Some(f.max_in_window)
    });
    assert!(marked("max-window") && !marked("allowed"));
    assert_no_console_errors(&b);
}

/// The colour a person sees on the element `css`.
fn colour(b: &Browser, css: &str) -> String {
    b.js(
        "const e = document.querySelector(arguments[0]); return e ? getComputedStyle(e).color : ''",
        json!([css]),
    )
    .as_str()
    .unwrap_or_default()
    .to_string()
}

/// Issue 35 item 19: a fixed-window edge question ("the most let in within any one window")
/// opened by its own "show me" address. Everything the page draws in red is that figure —
/// beside the limit in the counter's box and among the counters — and the run's total (two
/// windows, one more) stands apart, not red.
#[test]
fn the_edge_questions_show_me_marks_the_figure_it_asks_about_not_the_total() {
    let q = (1..200)
        .map(|seed| practice::generate("ratelimit", "edge", seed).unwrap())
        .find(|q| {
            q.draft
                .show
                .as_ref()
                .is_some_and(|s| s.query.contains(&format!("algo={}", Algo::Fixed.word())))
        })
        .expect("a fixed-window edge question");
    let show = q.draft.show.clone().unwrap();
    let r = run(&show.query);
    let Answer::Count { n: right, .. } = q.draft.answer else {
        panic!("the edge question counts");
    };
    assert_eq!(right as u64, r.max_in_window);
    let total = r.attacker.allowed;
    assert!(total > r.max_in_window, "the run spans two windows");
    for (w, h) in [(1366, 768), (360, 740)] {
        let b = Browser::new(w, h);
        b.open(&show.hash());
        b.wait(120, "the lab where the question opens it", |b| {
            b.exists(".lab-ratelimit[aria-busy=false] [data-testid=ratelimit-window]")
                && counter(b, "max-window") == Some(r.max_in_window)
        });
        // The lab's red: the edge of the line that says the limit was passed.
        let red = b
            .js(
                "const e = document.querySelector('.lab-ratelimit .lab-now.bad'); return e ? getComputedStyle(e).borderLeftColor : ''",
                json!([]),
            )
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(!red.is_empty(), "the line says the limit was passed");
        // Beside the limit: the question's figure, in red.
        let window = b
            .text(".lab-ratelimit [data-testid=ratelimit-window]")
            .unwrap_or_default();
        assert!(window.contains(&bn::int(right)), "{window}");
        assert!(!window.contains(&bn::int(total as i64)), "{window}");
        assert_eq!(
            colour(&b, ".lab-ratelimit [data-testid=ratelimit-window]"),
            red
        );
        // The total apart, not red; the counters mark the one-window figure only.
        let all = b
            .text(".lab-ratelimit [data-testid=ratelimit-total]")
            .unwrap_or_default();
        assert!(all.contains(&bn::int(total as i64)), "{all}");
        assert_ne!(
            colour(&b, ".lab-ratelimit [data-testid=ratelimit-total]"),
            red
        );
        assert_eq!(
            colour(&b, ".lab-ratelimit [data-testid=ratelimit-max-window]"),
            red
        );
        assert_ne!(
            colour(&b, ".lab-ratelimit [data-testid=ratelimit-allowed]"),
            red
        );
        assert_no_sideways_scroll(&b);
        b.screenshot(&screenshot_dir().join(format!("labs/ratelimit-edge-question-{w}.png")));
        assert_no_console_errors(&b);
    }
}

#[test]
fn the_scrubber_and_the_bars_on_a_phone() {
    let b = Browser::new(360, 740);
    open_lab(&b, "ratelimit", "preset=memory");
    let r = run("preset=memory");
    b.click(".lab-ratelimit .lab-controls button[aria-label='রিসেট']");
    for _ in 0..3 {
        b.click(".lab-ratelimit .lab-controls button[aria-label='এক ধাপ সামনে']");
    }
    b.wait(5, "three steps", |b| shown(b) == r.so_far(3));
    assert_eq!(instances(&b), r.instances_so_far(3));
    let half = r.buckets.len() / 2;
    b.js(
        "const s = document.querySelector('.lab-ratelimit .scrubber'); s.value = String(arguments[0]); s.dispatchEvent(new Event('input', {bubbles: true}));",
        json!([half]),
    );
    b.wait(5, "the middle", |b| shown(b) == r.so_far(half));
    assert_no_sideways_scroll(&b);
    b.screenshot(&screenshot_dir().join("labs/ratelimit-phone.png"));
    b.js(
        "document.querySelector('.lab-ratelimit .rl-chart').scrollIntoView()",
        json!([]),
    );
    b.screenshot(&screenshot_dir().join("labs/ratelimit-phone-chart.png"));
    assert_no_console_errors(&b);
}
