//! The labs in a real headless Chromium: they open on the seed's numbers, the browser's numbers
//! equal the native simulator's for the same parameters and seed, and bad input gets a clear
//! message while the lab keeps its last good state.

use redislab_e2e::{screenshot_dir, Browser};
use redislab_sim::eviction_table;
use redislab_sim::labs::params::{eviction_config, Params, EVICTION};
use serde_json::json;

fn laptop() -> Browser {
    Browser::new(1366, 768)
}

fn wait_text(b: &Browser, css: &str) -> String {
    b.wait(30, &format!("{css} to appear"), |b| b.exists(css));
    b.text(css).unwrap_or_default()
}

/// The native table for a lab query, computed the way `labsim eviction` does.
fn native_table(query: &str) -> String {
    let (p, errs) = Params::from_query(EVICTION, query);
    assert!(errs.is_empty(), "{errs:?}");
    eviction_table(&eviction_config(&p)).unwrap().to_text()
}

#[test]
fn eviction_lab_shows_the_seed_table_and_equals_native() {
    let b = laptop();
    b.open("#/lab/eviction");
    let table = wait_text(&b, "[data-testid=eviction-table]");
    // The seed's table, to the last digit.
    for row in [
        "FIFO         34.7%     27.7%     34.6%",
        "RANDOM       34.7%     27.7%     34.5%",
        "LRU          39.1%     31.9%     39.0%",
        "LFU          48.7%     48.2%     22.2%",
        "OPT          59.9%     59.9%     59.2%",
    ] {
        assert!(table.contains(row), "missing `{row}` in\n{table}");
    }
    assert_eq!(
        table.trim_end(),
        native_table("").trim_end(),
        "browser (wasm) and native differ"
    );
    b.screenshot(&screenshot_dir().join("labs/eviction.png"));

    // Another parameter set: still identical to the native run.
    let q = "alpha=1.1&cache=500&seed=11&policies=lru,arc,w-tinylfu,opt&trace=scan";
    b.open(&format!("#/lab/eviction?{q}"));
    b.wait(30, "the new table", |b| {
        b.text("[data-testid=eviction-table]")
            .is_some_and(|t| t.contains("alpha 1.1"))
    });
    let table = b.text("[data-testid=eviction-table]").unwrap();
    assert_eq!(table.trim_end(), native_table(q).trim_end());
    assert!(b.console_errors().is_empty());
}

#[test]
fn eviction_lab_steps_and_scrubs() {
    let b = laptop();
    b.open("#/lab/eviction");
    wait_text(&b, "[data-testid=eviction-table]");
    wait_text(&b, "[data-testid=race-bars]");
    let label = || b.text(".scrub-label").unwrap_or_default();
    let first = label();
    b.click(".lab-controls button[aria-label='এক ধাপ সামনে']");
    b.wait(5, "a step", |_| label() != first);
    let second = label();
    b.click(".lab-controls button[aria-label='এক ধাপ পিছনে']");
    b.wait(5, "a step back", |_| label() == first);
    b.click("[data-testid=play]");
    b.wait(20, "playing to move on", |_| {
        label() != first && label() != second
    });
    b.click("[data-testid=play]");
    // The why-evicted log names evictions with the policy's rule.
    b.click(".lab-controls button[aria-label='শেষে যান']");
    b.wait(5, "an eviction explained", |b| b.exists(".why-row.evict"));
    let why = b.text(".why-row.evict").unwrap();
    assert!(why.contains("বেরোল"), "{why}");
}

#[test]
fn bad_lab_parameters_get_a_message_and_change_nothing() {
    let b = laptop();
    // From the address: the message sits beside the field, the run uses the seed's value.
    b.open("#/lab/eviction?alpha=abc&cache=300");
    let table = wait_text(&b, "[data-testid=eviction-table]");
    assert!(table.contains("Zipf alpha 0.9"), "{table}");
    let msg = b
        .text("[data-field=alpha] .field-error")
        .unwrap_or_default();
    assert!(!msg.is_empty(), "no message beside alpha");
    // Typed into the form: message, and the lab keeps its last good state.
    b.js(
        "const i = document.querySelector('#lab-field-cache'); i.value = '-5'; i.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([]),
    );
    b.wait(5, "a message beside cache", |b| {
        b.exists("[data-field=cache] .field-error")
    });
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(b.text("[data-testid=eviction-table]").unwrap(), table);
    assert!(b.url().contains("#/lab/eviction"));
    // Unknown lab and unknown parameter.
    b.open("#/lab/eviction?colour=red");
    wait_text(&b, "[data-testid=eviction-table]");
    assert!(b.text(".lab-form").unwrap_or_default().contains("colour"));
    b.open("#/lab/nope");
    b.wait(10, "not found", |b| b.exists(".notfound"));
    assert!(b.console_errors().is_empty());
}

#[test]
fn a_good_change_goes_into_the_address() {
    let b = laptop();
    b.open("#/lab/eviction");
    wait_text(&b, "[data-testid=eviction-table]");
    b.js(
        // Two fields changed in one go: both count.
        "for (const [id, v] of [['#lab-field-cache', '600'], ['#lab-field-alpha', '1.2']]) { const i = document.querySelector(id); i.value = v; i.dispatchEvent(new Event('change', {bubbles: true})); }",
        json!([]),
    );
    b.wait(30, "the run with cache 600", |b| {
        b.text("[data-testid=eviction-table]")
            .is_some_and(|t| t.contains("cache 600 keys"))
    });
    assert!(
        b.url().contains("cache=600") && b.url().contains("alpha=1.2"),
        "{}",
        b.url()
    );
    assert!(b
        .text("[data-testid=eviction-table]")
        .unwrap()
        .contains("alpha 1.2"));
    // The link reproduces the run.
    let url = b.url();
    let hash = &url[url.find('#').unwrap()..];
    let c = laptop();
    c.open(hash);
    c.wait(30, "the same run from the link", |c| {
        c.text("[data-testid=eviction-table]") == b.text("[data-testid=eviction-table]")
    });
}

#[test]
fn lru_lab_reproduces_the_seeds_walk_through() {
    let b = laptop();
    b.open("#/lab/lru");
    let table = wait_text(&b, "[data-testid=lru-table]");
    // The seed's printed results and list orders (MRU ... LRU), in order.
    let rows = b.js(
        "return [...document.querySelectorAll('[data-testid=lru-table] tbody tr')].map(r => [...r.cells].map(c => c.textContent.trim()).join(' | '))",
        json!([]),
    );
    let rows: Vec<String> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        rows,
        [
            "put A | stored | A",
            "put B | stored | B <-> A",
            "put C | stored | C <-> B <-> A",
            "get A | hit | A <-> C <-> B",
            "put D | stored, evict B | D <-> A <-> C",
            "get B | miss, load, evict C | B <-> D <-> A",
            "get A | hit | A <-> B <-> D",
        ],
        "{table}"
    );
    // Step to "put D": the sentence names the eviction of B.
    for _ in 0..5 {
        b.click(".lab-controls button[aria-label='এক ধাপ সামনে']");
    }
    b.wait(5, "step 5", |b| {
        b.text("[data-testid=lru-step]")
            .is_some_and(|t| t.contains('B'))
    });
    // A student's own trace, and a bad one.
    b.js(
        "const i = document.querySelector('#lab-field-ops'); i.value = 'put X, get X, put Y'; i.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([]),
    );
    b.wait(5, "the new trace", |b| {
        b.text("[data-testid=lru-table]")
            .is_some_and(|t| t.contains("put Y"))
    });
    b.js(
        "const i = document.querySelector('#lab-field-ops'); i.value = 'fly X'; i.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([]),
    );
    b.wait(5, "a message beside ops", |b| {
        b.exists("[data-field=ops] .field-error")
    });
    assert!(
        b.text("[data-testid=lru-table]").unwrap().contains("put Y"),
        "the last good run stays"
    );
    b.screenshot(&screenshot_dir().join("labs/lru.png"));
    assert!(b.console_errors().is_empty());
}

#[test]
fn jitter_stampede_and_sampling_labs_show_the_seeds_numbers() {
    let b = laptop();
    b.open("#/lab/jitter");
    b.wait(30, "the jitter figures", |b| {
        b.text("[data-testid=jitter-max]").as_deref() == Some("180")
    });
    assert_eq!(b.text("[data-testid=jitter-span]").as_deref(), Some("720"));
    assert_eq!(
        b.text("[data-testid=jitter-mean]").as_deref(),
        Some("138.9")
    );
    let table = b.js(
        "return document.querySelector('[data-testid=jitter-table]').dataset.table",
        json!([]),
    );
    let (_, native) = redislab_sim::labs::jitter::table(
        &redislab_sim::JitterConfig::default(),
        &redislab_sim::labs::jitter::seed_cases(),
    );
    assert_eq!(
        table.as_str().unwrap().trim_end(),
        native.trim_end(),
        "jitter: browser and native differ"
    );
    b.screenshot(&screenshot_dir().join("labs/jitter.png"));

    b.open("#/lab/stampede");
    b.wait(30, "the stampede table", |b| {
        b.exists("[data-testid=stampede-table]")
    });
    let table = b.js(
        "return document.querySelector('[data-testid=stampede-table]').dataset.table",
        json!([]),
    );
    let table = table.as_str().unwrap();
    for row in [
        "none              503      503       0       117",
        "lock                5      475       0         1",
        "stale               5        0     475         1",
        "xfetch             12        0       0         3",
    ] {
        assert!(table.contains(row), "missing `{row}` in\n{table}");
    }
    b.screenshot(&screenshot_dir().join("labs/stampede.png"));

    b.open("#/lab/sampling");
    b.wait(30, "k = 5", |b| b.exists("[data-testid=sampling-k5]"));
    let v: f64 = b
        .js(
            "return document.querySelector('[data-testid=sampling-k5]').dataset.value",
            json!([]),
        )
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((v - 83.3).abs() < 2.0, "k = 5 measured {v}%, theory 83.3%");
    b.screenshot(&screenshot_dir().join("labs/sampling.png"));
    assert!(b.console_errors().is_empty());
}
