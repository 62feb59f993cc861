//! The streams lab in a real headless Chromium, what is its own (every preset's counters, a
//! bad parameter and the timeline's walk are `every_lab`'s): the start shows nothing yet and
//! one step on the first sample's counters and the group being made; the crash is marked on
//! the plot and the take-over is in the log, its note in Bengali digits (issue 35 item 16)
//! beside the worker's own name; the lab on the production deck's streams slide, at the
//! room's size and on a phone.

use redislab_e2e::{
    assert_no_console_errors, assert_no_sideways_scroll, deck, screenshot_dir, Browser,
};
use redislab_sim::labs::params::Params;
use redislab_sim::labs::streams::{run, Counters, StreamsOutput, INFO};
use serde_json::json;

fn native(query: &str) -> StreamsOutput {
    run(&Params::from_query(&INFO, query).0.read())
}

const KEYS: [&str; 6] = [
    "saved",
    "duplicates",
    "dead",
    "lost",
    "pubsub-lost",
    "delivered",
];

fn want(c: &Counters) -> Vec<u64> {
    vec![
        c.saved,
        c.duplicates,
        c.dead,
        c.lost_trim,
        c.pubsub_lost,
        c.delivered,
    ]
}

fn shown(b: &Browser, scope: &str) -> Vec<u64> {
    KEYS.iter()
        .map(|k| b.counter(&format!("{scope} [data-testid=streams-{k}]")))
        .collect()
}

fn computed(b: &Browser, scope: &str) {
    b.wait(90, "the streams lab to finish", |b| {
        b.exists(&format!(
            "{scope} .lab-streams[aria-busy=false] .lab-controls .scrubber"
        ))
    });
}

#[test]
fn the_start_then_one_sample_and_the_crash_taken_over() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/streams");
    computed(&b, "");
    let r = native("");
    let plot = b.rect(".sx-plot svg").expect("the plot");
    assert!(plot.width > 600.0 && plot.height > 80.0, "{plot:?}");
    // The start: nothing yet, an empty log; one step on: the first sample, the group made.
    b.click(".lab-streams .lab-controls button[aria-label='রিসেট']");
    b.wait(5, "the start", |b| {
        shown(b, ".lab-streams") == vec![0; KEYS.len()]
    });
    assert!(!b.exists("[data-testid=streams-log] li"));
    b.click(".lab-streams .lab-controls button[aria-label='এক ধাপ সামনে']");
    b.wait(5, "one step", |b| {
        shown(b, ".lab-streams") == want(&r.samples[0].counters)
    });
    let log = b.text("[data-testid=streams-log]").unwrap_or_default();
    assert!(
        log.contains("XGROUP CREATE orders savers $ MKSTREAM"),
        "{log}"
    );
    b.screenshot(&screenshot_dir().join("labs/streams.png"));
    // The crash: marked on the plot; at the end the take-over's note in Bengali digits.
    b.open("#/lab/streams?preset=crash");
    computed(&b, "");
    let r = native("preset=crash");
    assert!(r.counters.duplicates > 0 && r.counters.duplicates == r.counters.reclaimed);
    assert!(b.exists(".sx-crash"), "the crash is marked on the plot");
    let note = r
        .log
        .iter()
        .find(|l| l.note.starts_with("দখল"))
        .expect("a take-over");
    let seek = format!(
        "const s = document.querySelector('.lab-streams .scrubber'); s.value = '{}'; s.dispatchEvent(new Event('input', {{bubbles: true}}));",
        r.samples.partition_point(|s| s.t < note.at_ms) + 1
    );
    b.js(&seek, json!([]));
    // The log and the line at the cursor, as a person reads them.
    let read = |b: &Browser| {
        b.text("[data-testid=streams-log]").unwrap_or_default()
            + &b.text("[data-testid=streams-now]").unwrap_or_default()
    };
    b.wait(5, "the take-over on screen", |b| read(b).contains("দখল"));
    let log = read(&b);
    assert!(log.contains("XAUTOCLAIM orders savers"), "{log}");
    let taken: String = note
        .note
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(char::is_ascii_digit)
        .collect();
    let bengali = format!("দখল: {}টা", redislab_deck::bn::int(taken.parse().unwrap()));
    assert!(log.contains(&bengali), "{bengali} not in {log}");
    assert!(!log.contains(&format!("দখল: {taken}টা")), "{log}");
    b.screenshot(&screenshot_dir().join("labs/streams-crash.png"));
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{axe:#?}");
    assert_no_console_errors(&b);
}

#[test]
fn the_lab_on_the_streams_slide_at_both_sizes() {
    let d = deck("production");
    let n = d
        .slides
        .iter()
        .position(|s| s.title.iter().any(|t| t.contains("Redis Streams")))
        .expect("the streams slide")
        + 1;
    for (w, h, name) in [(1366, 768, "laptop"), (360, 740, "phone")] {
        let b = Browser::new(w, h);
        b.open(&format!("#/production/{n}"));
        b.wait(30, "the embedded streams lab", |b| {
            b.exists(".slide .lab-streams")
        });
        computed(&b, ".slide");
        let r = native("preset=crash");
        assert_eq!(shown(&b, ".slide .lab-streams"), want(&r.counters));
        assert!(b.exists(".slide .lab-streams a.lab-open[href*='#/lab/streams']"));
        if name == "phone" {
            assert_no_sideways_scroll(&b);
        }
        b.screenshot(&screenshot_dir().join(format!("labs/streams-slide-{name}.png")));
        let axe = b.axe_serious();
        assert!(axe.is_empty(), "{axe:#?}");
        assert_no_console_errors(&b);
    }
}
