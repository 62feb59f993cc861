//! The sampled-LRU lab's own browser tests (the shared ones are in `every_lab`): it opens on
//! the seed's k = 5 (position 5: the first five `k` measured), its chart's axes and every
//! number in Bengali digits, at a laptop's and a phone's size; the evicted key named in
//! Bengali ("ফেলা key", once "victim"), and no two of the chart's labels overlapping (the
//! "%" once sat on the "১০০", the y axis' "০" on the x axis' "১", the x title on the ticks)
//! on the page and on its slide at both sizes. Screenshots under target/screenshots/labs/.

use crate::{assert_words_are, colliding_svg_texts, page_and_slide};
use redislab_e2e::{assert_no_console_errors, assert_no_sideways_scroll, screenshot_dir, Browser};
use redislab_sim::labs::params::Params;
use redislab_sim::labs::sampling::{run, INFO};
use serde_json::json;

#[test]
fn the_lab_opens_on_redis_default_k_in_bengali() {
    let o = run(Params::defaults(&INFO).read());
    for (w, h, name) in [(1366, 768, "sampling"), (360, 740, "sampling-phone")] {
        let b = Browser::new(w, h);
        b.open("#/lab/sampling");
        b.wait(60, "the experiment", |b| {
            b.exists(".lab-sampling[aria-busy=false] [data-testid=sampling-k5]")
        });
        // Position k shows the first k measured: the lab opens on k = 5.
        b.wait(5, "k = ৫", |b| {
            b.text(".lab-sampling .scrub-label").as_deref() == Some("k = ৫")
        });
        let step = b.text(".smp-step").unwrap_or_default();
        let k5 = o.at(5).unwrap();
        assert!(
            step.contains(&redislab_deck::bn::share(k5.measured, 1)),
            "{step}"
        );
        // Back to the start: nothing measured yet, no cursor on the chart.
        b.click(".lab-sampling .lab-controls button[aria-label='রিসেট']");
        b.wait(5, "the start", |b| {
            b.text(".lab-sampling .scrub-label").as_deref() == Some("শুরু")
        });
        assert!(!b.exists(".lab-sampling .chart-svg .cursor"));
        b.click(".lab-sampling .lab-controls button[aria-label='শেষে যান']");
        b.wait(5, "k = ১৬", |b| {
            b.text(".lab-sampling .scrub-label").as_deref() == Some("k = ১৬")
        });
        let ascii = b.ascii_digits_drawn(".lab-sampling");
        assert!(ascii.is_empty(), "ASCII digits drawn: {ascii:?}");
        assert_no_sideways_scroll(&b);
        b.screenshot(&screenshot_dir().join(format!("labs/{name}.png")));
        assert_no_console_errors(&b);
    }
}

/// The Latin words the sampled-LRU lab may draw: technical terms, symbols and names.
const TERMS: &[&str] = &[
    "LRU",
    "k",
    "key",
    "eviction",
    "simulation",
    "Redis",
    "CPU",
    "allkeys-lru",
    "pool",
    "seed",
    "list",
    "pointer",
    "memory",
    "maxmemory-samples",
];

#[test]
fn the_charts_labels_do_not_collide_and_the_words_are_bengali() {
    for (w, h) in [(1366, 768), (360, 740)] {
        let b = Browser::new(w, h);
        for (url, scope) in page_and_slide("sampling", "eviction", "নমুনা-ভিত্তিক LRU")
        {
            b.open(&url);
            b.wait(60, "the experiment", |b| {
                b.exists(&format!(
                    "{scope}[aria-busy=false] [data-testid=sampling-k5]"
                ))
            });
            let svg = format!("{scope} .chart-svg");
            // Every tick and title drawn, from "০" and "১০০" to "১৬".
            let ticks = b.js(
                "return [...document.querySelectorAll(arguments[0] + ' text.tick')].filter(t => t.getBoundingClientRect().width > 0).map(t => t.textContent)",
                json!([svg]),
            );
            let ticks: Vec<String> = serde_json::from_value(ticks).unwrap_or_default();
            assert!(
                ["০", "১০০", "১", "১৬"]
                    .iter()
                    .all(|t| ticks.contains(&t.to_string())),
                "{url}: {ticks:?}"
            );
            let hits = colliding_svg_texts(&b, &svg);
            assert!(
                hits.is_empty(),
                "{url} at {w}×{h}: labels overlap: {hits:?}"
            );
            assert_eq!(
                b.text(&format!("{scope} .smp-ruler-victim")).as_deref(),
                Some("ফেলা key"),
                "{url}"
            );
            assert_words_are(&b, &scope, TERMS, &format!("{url} at {w}"));
            let at = if scope.starts_with(".slide") {
                "slide"
            } else {
                "page"
            };
            b.screenshot(&screenshot_dir().join(format!("labs/sampling-chart-{at}-{w}.png")));
        }
        assert_no_console_errors(&b);
    }
}
