//! The jitter lab's own browser tests (the shared ones are in `every_lab`): the seed's eight
//! rows as the table run computes them in the browser, equal to the native run, and every
//! number in Bengali digits (no `10k`, `10000/s` or an ungrouped `১০০০০.০`), at a laptop's
//! and a phone's size; its words in Bengali on the page and on its slide (the field and the
//! column once "jitter J" and "round", a window once "span"): "jitter" stays only as the
//! technique's name in sentences, J as the symbol beside the words. Screenshots under
//! target/screenshots/labs/.

use crate::{assert_words_are, latin_words_drawn, page_and_slide};
use redislab_deck::bn;
use redislab_e2e::{assert_no_console_errors, assert_no_sideways_scroll, screenshot_dir, Browser};
use redislab_sim::labs::jitter::{seed_cases, table, JitterConfig, JitterRow};
use serde_json::json;

/// The table's rows as the page shows them, cell by cell.
fn rows(b: &Browser) -> Vec<Vec<String>> {
    let v = b.js(
        "return [...document.querySelectorAll('[data-testid=jitter-table] tbody tr')].map(r => [...r.cells].map(c => c.textContent.trim()))",
        json!([]),
    );
    serde_json::from_value(v).unwrap_or_default()
}

#[test]
fn the_seeds_eight_rows_equal_native() {
    let (waves, _) = table(&JitterConfig::default(), &seed_cases());
    let want: Vec<Vec<String>> = waves
        .iter()
        .map(|w| JitterRow::of(w, false))
        .map(|r| {
            vec![
                format!("±{}", bn::pct(r.jitter * 100.0, 0)),
                bn::int(i64::from(r.round)),
                bn::int(r.span as i64),
                bn::dec(r.mean_per_s, 1),
                bn::int(i64::from(r.max_per_s)),
            ]
        })
        .collect();
    assert_eq!(want[3], ["±১০%", "১", "৭২০", "১৩৮.৯", "১৮০"]);
    assert_eq!(want[0][3], "১,০০,০০০.০");
    for (w, h, name) in [(1366, 768, "jitter"), (360, 740, "jitter-phone")] {
        let b = Browser::new(w, h);
        b.open("#/lab/jitter");
        b.wait(60, "the seed's table", |b| {
            b.exists(".lab-jitter[aria-busy=false] [data-testid=jitter-table]")
        });
        assert_eq!(rows(&b), want);
        // The chosen case (±10%, the first expiry) is the marked row.
        assert_eq!(
            b.text("[data-testid=jitter-table] tr[aria-current] td")
                .as_deref(),
            Some("±১০%")
        );
        let ascii = b.ascii_digits_drawn(".lab-jitter");
        assert!(ascii.is_empty(), "ASCII digits drawn: {ascii:?}");
        assert_no_sideways_scroll(&b);
        b.screenshot(&screenshot_dir().join(format!("labs/{name}.png")));
        assert_no_console_errors(&b);
    }
}

/// J = 0: a wall of 1,00,000 keys in one second, its tags and axes grouped in Bengali.
#[test]
fn no_jitter_is_a_wall_in_bengali() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/jitter?jitter=0");
    b.wait(60, "the wall", |b| {
        b.exists(".lab-jitter[aria-busy=false] [data-testid=jitter-max]")
    });
    assert_eq!(b.counter("[data-testid=jitter-max]"), 100_000);
    let tag = b.text(".jt-tag.peak").unwrap_or_default();
    assert!(tag.contains("১,০০,০০০/s"), "{tag}");
    let ascii = b.ascii_digits_drawn(".lab-jitter");
    assert!(ascii.is_empty(), "ASCII digits drawn: {ascii:?}");
    b.screenshot(&screenshot_dir().join("labs/jitter-wall.png"));
    assert_no_console_errors(&b);
}

/// The Latin words the jitter lab may draw: technical terms and symbols.
const TERMS: &[&str] = &["TTL", "jitter", "seed", "key", "J", "u", "s", "t", "x", "y"];

#[test]
fn the_fields_the_columns_and_the_words_are_bengali() {
    for (w, h) in [(1366, 768), (360, 740)] {
        let b = Browser::new(w, h);
        for (url, scope) in page_and_slide("jitter", "eviction", "Jitter") {
            b.open(&url);
            b.wait(60, "the jitter lab", |b| {
                b.exists(&format!(
                    "{scope}[aria-busy=false] [data-testid=jitter-max]"
                ))
            });
            let page = !scope.starts_with(".slide");
            if page {
                b.open_form();
            }
            // The two fields the slide is about, by their Bengali names (J the symbol).
            let labels = b.js(
                "return [...document.querySelectorAll(arguments[0] + ' .lab-field label')].filter(l => l.getClientRects().length).map(l => l.textContent)",
                json!([scope]),
            );
            let labels: Vec<String> = serde_json::from_value(labels).unwrap_or_default();
            assert!(
                labels.contains(&"TTL-এর ± কত ভাগ এলোমেলো (J)".to_string())
                    && labels.contains(&"কততম মেয়াদ".to_string()),
                "{url}: {labels:?}"
            );
            assert_words_are(&b, &scope, TERMS, &format!("{url} at {w}"));
            // Only the page has the seed's table: its columns carry no "jitter" or "round".
            if page {
                let head = latin_words_drawn(&b, ".lab-jitter .jt-table thead");
                assert_eq!(head, ["TTL", "J", "s"], "{url}");
            }
        }
        b.screenshot(&screenshot_dir().join(format!("labs/jitter-slide-words-{w}.png")));
        assert_no_console_errors(&b);
    }
}
