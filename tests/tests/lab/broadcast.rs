//! The broadcast lab in a real browser, what is special to it (every preset's figures, an
//! out-of-range value and the timeline are `every_lab`'s): what a person reads with the
//! defaults (5,00,000 / 5,00,000, the time gone, the API's 40 ms) and the scrubber's middle;
//! the naive loop opening on its process's death (3,214 sent) and the rerun's doubles; the
//! rule between fields (too many batches) with its message; the labs embedded in the
//! broadcast deck fitting their slides, each step's counters the simulator's
//! (`redislab_sim::labs::broadcast::run`). Screenshots at laptop and phone size. The heaviest
//! preset's long-task check is in `longtasks.rs`, the live run in `live.rs`.

use redislab_e2e::{screenshot_dir, Browser};
use redislab_sim::labs::broadcast::{BroadcastOutput, BroadcastRun, INFO};
use serde_json::json;

/// The native run for `query`, as the worker computes it.
fn native(query: &str) -> BroadcastOutput {
    super::native::<BroadcastRun>(&INFO, query)
}

fn wait_idle(b: &Browser, scope: &str) {
    b.wait(60, "the broadcast lab to finish", |b| {
        b.exists(&format!(
            "{scope} .lab-broadcast[aria-busy=false] [data-testid=bc-delivered]"
        ))
    });
}

/// Slide `n` of the broadcast deck, its lab computed.
fn open_slide(b: &Browser, n: usize) {
    b.open(&format!("#/broadcast/{n}"));
    wait_idle(b, ".stage");
}

fn n(b: &Browser, scope: &str, key: &str) -> u64 {
    b.counter(&format!("{scope} [data-testid=bc-{key}]"))
}

#[test]
fn the_defaults_make_1000_calls_and_lose_nobody() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/broadcast");
    wait_idle(&b, "");
    // What a person reads: the counter, the time gone, the API's answer.
    let sent = b.text("[data-testid=bc-sent]").unwrap_or_default();
    assert_eq!(sent, "৫,০০,০০০ / ৫,০০,০০০");
    let time = b.text("[data-testid=bc-time]").unwrap_or_default();
    assert!(time.starts_with("১ মিনিট ৪০"), "{time}");
    let answer = b.text("[data-testid=bc-answer]").unwrap_or_default();
    assert!(answer.contains("৪০ ms"), "{answer}");
    // Back to the start: nothing sent; the scrubber's middle: part of it.
    b.click(".lab-broadcast .lab-controls button[aria-label='রিসেট']");
    b.wait(5, "the start", |b| n(b, "", "delivered") == 0);
    b.js(
        "const s = document.querySelector('.lab-broadcast .scrubber'); s.value = String(Math.round(s.max / 2)); s.dispatchEvent(new Event('input', {bubbles: true}));",
        json!([]),
    );
    b.wait(5, "half way", |b| {
        let d = n(b, "", "delivered");
        d > 100_000 && d < 400_000
    });
    b.screenshot(&screenshot_dir().join("labs/broadcast-half.png"));
    b.click(".lab-broadcast .lab-controls button[aria-label='শেষে যান']");
    b.wait(5, "the end", |b| n(b, "", "delivered") == 500_000);
    b.screenshot(&screenshot_dir().join("labs/broadcast.png"));
    let log = b.text("[data-testid=bc-log]").unwrap_or_default();
    assert!(log.contains("bull:push:"), "{log}");
    // The parameter box is drawn when opened: every field, on screen.
    assert!(!b.exists(".lab-form-box [data-field=chunk]"));
    b.click(".lab-form-box summary");
    b.wait(5, "the fields", |b| {
        b.rect(".lab-form-box [data-field=chunk] input")
            .is_some_and(|r| r.width > 0.0 && r.height > 0.0)
    });
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{axe:#?}");
    assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());

    let phone = Browser::new(360, 740);
    phone.open("#/lab/broadcast?preset=outage");
    wait_idle(&phone, "");
    let overflow = phone.js(
        "return document.documentElement.scrollWidth > window.innerWidth",
        json!([]),
    );
    assert_eq!(
        overflow,
        json!(false),
        "the page scrolls sideways at 360 px"
    );
    phone.screenshot(&screenshot_dir().join("labs/broadcast-phone.png"));
    phone.js(
        "document.querySelector('.lab-broadcast .lab-controls').scrollIntoView()",
        json!([]),
    );
    phone.screenshot(&screenshot_dir().join("labs/broadcast-phone-run.png"));
    assert!(phone.console_errors().is_empty());
}

#[test]
fn the_naive_loop_shows_3214_and_the_rerun_sends_them_twice() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/broadcast?preset=naive");
    wait_idle(&b, "");
    let note = b.text("[data-testid=bc-naive-note]").unwrap_or_default();
    assert!(note.contains("৩,২১৪") && note.contains("৩,২১০"), "{note}");
    // It opens on the moment the process dies: 3,214 sent, nobody twice yet.
    b.wait(5, "the death", |b| n(b, "", "delivered") == 3214);
    assert_eq!(n(&b, "", "twice"), 0);
    let sent = b.text("[data-testid=bc-sent]").unwrap_or_default();
    assert_eq!(sent, "৩,২১৪ / ৫,০০,০০০");
    let time = b.text("[data-testid=bc-time]").unwrap_or_default();
    assert_eq!(time, "১০ মিনিট ৪২.৮ s");
    b.screenshot(&screenshot_dir().join("labs/broadcast-naive-death.png"));
    // The rerun, to its end: those 3,214 get it twice.
    b.click(".lab-broadcast .lab-controls button[aria-label='শেষে যান']");
    b.wait(5, "the rerun's end", |b| n(b, "", "twice") == 3214);
    assert_eq!(native("preset=naive").counters.sent_twice, 3214);
    b.screenshot(&screenshot_dir().join("labs/broadcast-naive.png"));
    assert!(b.console_errors().is_empty());
}

/// The rule between fields: a chunk that makes too many batches is put back, with why.
#[test]
fn too_many_batches_get_their_message_and_change_nothing() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/broadcast");
    wait_idle(&b, "");
    assert_eq!(n(&b, "", "calls"), 1000);
    b.open_form();
    b.js(
        "const i = document.querySelector('#lab-field-chunk'); i.value = '10'; i.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([]),
    );
    b.wait(5, "a message beside chunk", |b| {
        b.text("[data-field=chunk] .field-error")
            .is_some_and(|m| m.contains("হিসাব অনেক লম্বা"))
    });
    assert_eq!(n(&b, "", "calls"), 1000);
    assert!(!b.url().contains("chunk=10"), "{}", b.url());
    assert!(b.console_errors().is_empty());
}

/// Every slide of the broadcast deck with the lab: it computes, fits the slide (nothing
/// below the stage's edge), links to the full lab, and no console errors; the compact form's
/// counters at each step are the simulator's, and its last line says what went wrong.
#[test]
fn the_labs_in_the_broadcast_deck_fit_and_run() {
    let b = Browser::new(1366, 768);
    let mut seen = Vec::new();
    let mut over_by = Vec::new();
    for slide in 1..=29 {
        b.open(&format!("#/broadcast/{slide}"));
        b.wait(15, "the slide", |b| b.exists(".stage .slide"));
        // The app draws a lab's place at once; the lab itself comes with the labs module.
        if !b.exists(".stage [data-lab-host=broadcast]") {
            continue;
        }
        b.wait(30, "the lab in its place", |b| {
            b.exists(".stage .lab-broadcast")
        });
        wait_idle(&b, ".stage");
        let over = b
            .js(
                "const s = document.querySelector('.stage .slide'); return s.scrollHeight - s.clientHeight",
                json!([]),
            )
            .as_f64()
            .unwrap_or(f64::NAN);
        b.screenshot(&screenshot_dir().join(format!("labs/broadcast-slide{slide}.png")));
        if over > 1.0 {
            over_by.push((slide, over));
        }
        assert!(b.exists(".stage .lab-broadcast .lab-open"));
        seen.push(slide);
    }
    assert!(
        over_by.is_empty(),
        "slides that overflow (slide, px): {over_by:?}"
    );
    assert_eq!(
        seen,
        [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15, 16, 17, 18],
        "the slides that embed the lab"
    );
    // The naive slide shows the seed's counter: 3,214 when the process dies at 642.8 s.
    open_slide(&b, 2);
    assert_eq!(n(&b, ".stage", "delivered"), 3214);
    let sent = b.text(".stage [data-testid=bc-sent]").unwrap_or_default();
    assert_eq!(sent, "৩,২১৪ / ৫,০০,০০০");
    let last = b
        .text(".stage [data-testid=bc-incidents]")
        .unwrap_or_default();
    assert!(last.contains("প্রসেস মরল"), "{last}");
    // Each step's counters are the simulator's, and what went wrong is said in a line.
    let r = native("preset=no-chunks");
    open_slide(&b, 7);
    assert_eq!(n(&b, ".stage", "failed"), r.counters.failed_jobs);
    assert_eq!(n(&b, ".stage", "lost"), 500_000);
    let last = b
        .text(".stage [data-testid=bc-incidents]")
        .unwrap_or_default();
    assert!(last.contains("৫০০-র বেশি টোকেন"), "{last}");
    let r = native("preset=all-at-once");
    open_slide(&b, 9);
    assert_eq!(n(&b, ".stage", "lost"), r.counters.lost);
    // One wave of 5,00,000 fits FCM's 6,00,000 a minute: no 429, no 429 counter.
    assert_eq!(r.counters.calls_429, 0);
    assert!(!b.exists(".stage [data-testid=bc-429]"));
    open_slide(&b, 11);
    assert_eq!(n(&b, ".stage", "twice"), 500_000);
    assert_eq!(n(&b, ".stage", "jobs"), 2);
    open_slide(&b, 12);
    assert_eq!(n(&b, ".stage", "twice"), 0);
    assert_eq!(n(&b, ".stage", "jobs"), 1);
    let r = native("preset=outage");
    open_slide(&b, 16);
    assert_eq!(n(&b, ".stage", "retries"), r.counters.retries);
    assert_eq!(n(&b, ".stage", "lost"), 0);
    let r = native("preset=dead-tokens");
    open_slide(&b, 18);
    assert_eq!(n(&b, ".stage", "dead"), r.counters.dead_marked);
    // The strip of batches is drawn: on screen, as wide as the panel.
    let strip = b.rect(".stage .bc-strip").expect("the strip");
    let panel = b.rect(".stage .bc-mini").expect("the panel");
    assert!(
        strip.height >= 4.0 && strip.width > 0.9 * panel.width,
        "{strip:?} in {panel:?}"
    );
    // Back to the start: nothing sent yet, the clock at zero.
    b.click(".stage .lab-broadcast .lab-controls button[aria-label='রিসেট']");
    b.wait(5, "the start", |b| n(b, ".stage", "delivered") == 0);
    assert_eq!(
        b.text(".stage [data-testid=bc-time]").as_deref(),
        Some("০ ms")
    );
    assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
}
