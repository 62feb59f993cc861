//! The stampede lab's own browser tests (the shared ones are in `every_lab`): the seed's table
//! (none 503 / lock 5 / stale 5 / xfetch 12 recomputes, 117 at once without protection) in
//! Bengali words and digits, equal to the native run, and the four designs' strips at a
//! laptop's and a phone's size; the designs' names and every word beside them in Bengali on
//! the page and on its slide (the seed's mode words `none`, `lock`, `stale`, `xfetch` stay
//! as code: the slide's title names the designs by them). Screenshots under
//! target/screenshots/labs/.

use crate::{assert_words_are, page_and_slide};
use redislab_deck::bn;
use redislab_e2e::{assert_no_console_errors, assert_no_sideways_scroll, screenshot_dir, Browser};
use redislab_sim::labs::stampede::{run, Mode, StampedeParams};
use serde_json::json;

#[test]
fn the_seeds_table_in_bengali_equals_native() {
    let o = run(&StampedeParams::default().config());
    let want: Vec<Vec<String>> = o
        .rows
        .iter()
        .map(|r| {
            vec![
                r.mode.label().to_string(),
                bn::int(r.db_recomputes as i64),
                bn::int(r.waited as i64),
                bn::int(r.served_stale as i64),
                bn::int(i64::from(r.peak_parallel)),
            ]
        })
        .collect();
    assert_eq!(want[0][1..], ["৫০৩", "৫০৩", "০", "১১৭"]);
    for (w, h, name) in [(1366, 768, "stampede"), (360, 740, "stampede-phone")] {
        let b = Browser::new(w, h);
        b.open("#/lab/stampede");
        b.wait(60, "the seed's table", |b| {
            b.exists(".lab-stampede[aria-busy=false] [data-testid=stampede-table]")
        });
        let rows = b.js(
            "return [...document.querySelectorAll('[data-testid=stampede-table] tbody tr')].map(r => [...r.cells].map(c => c.textContent.trim()))",
            json!([]),
        );
        let rows: Vec<Vec<String>> = serde_json::from_value(rows).unwrap_or_default();
        assert_eq!(rows, want);
        // The y axis of every strip: the most recomputes at once, 117, in Bengali.
        let tops = b.js(
            "return [...document.querySelectorAll('.st-y span:first-child')].map(s => s.textContent)",
            json!([]),
        );
        assert_eq!(tops, json!(["১১৭", "১১৭", "১১৭", "১১৭"]));
        let ascii = b.ascii_digits_drawn(".lab-stampede");
        assert!(ascii.is_empty(), "ASCII digits drawn: {ascii:?}");
        assert_no_sideways_scroll(&b);
        b.screenshot(&screenshot_dir().join(format!("labs/{name}.png")));
        assert_no_console_errors(&b);
    }
}

/// The technical terms a stampede page may write in Latin letters: the rest is Bengali
/// ("DB", "none", "stale", "peak", "mode", "lock" are not among them).
const TERMS: &[&str] = &[
    "Cache",
    "stampede",
    "hot",
    "key",
    "seeded",
    "Poisson",
    "seed",
    "recompute",
    "TTL",
    "XFetch",
    "single-flight",
    "s",
    "ms",
    "t",
];

#[test]
fn the_designs_and_their_words_in_bengali_on_the_page_and_the_slide() {
    let labels: Vec<&str> = Mode::ALL.iter().map(|m| m.label()).collect();
    assert_eq!(
        labels,
        [
            "সুরক্ষা নেই",
            "single-flight লক",
            "লক + পুরোনো মান",
            "আগাম নবায়ন (XFetch)"
        ]
    );
    for (w, h) in [(1366, 768), (360, 740)] {
        let b = Browser::new(w, h);
        for (url, scope) in page_and_slide("stampede", "eviction", "none, lock, stale, xfetch") {
            b.open(&url);
            b.wait(60, "the four designs", |b| {
                b.exists(&format!("{scope}[aria-busy=false] .st-card"))
            });
            let titles = b.js(
                "return [...document.querySelectorAll(arguments[0] + ' .st-title')].map(e => e.textContent)",
                json!([scope]),
            );
            assert_eq!(titles, json!(labels), "{url}");
            assert_words_are(&b, &scope, TERMS, &format!("{url} at {w}"));
            // The seed's mode words stay beside the names, as code.
            let codes = b.js(
                "return [...document.querySelectorAll(arguments[0] + ' code.st-mode')].map(e => e.textContent)",
                json!([scope]),
            );
            assert_eq!(codes, json!(["none", "lock", "stale", "xfetch"]));
        }
        b.screenshot(&screenshot_dir().join(format!("labs/stampede-slide-words-{w}.png")));
        assert_no_console_errors(&b);
    }
}
