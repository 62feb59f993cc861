//! The policy race's own browser tests (the shared ones are in `every_lab`): the seed's table
//! cell by cell for another parameter set too, "why was this key evicted", a change that goes
//! into the address (and a link that reproduces the run), a change in the middle of a heavy run
//! that shows only the new run's rows, and the race inside its slide opening on the seed
//! table's numbers. Screenshots under target/screenshots/labs/.

use redislab_e2e::{assert_no_console_errors, assert_no_sideways_scroll, screenshot_dir, Browser};
use redislab_sim::labs::def::Figures;
use redislab_sim::labs::eviction::{EvictionOutput, EvictionTable, INFO};
use serde_json::json;

/// The native table of a query (what the worker sends the page).
fn native(query: &str) -> EvictionOutput {
    super::native::<EvictionTable>(&INFO, query)
}

/// The table's cells as the page shows them: (figure, value, text).
fn cells(b: &Browser, css: &str) -> Vec<(String, f64, String)> {
    let v = b.js(
        "return [...document.querySelectorAll(arguments[0] + ' td[data-figure]')].map(c => [c.dataset.figure, Number(c.dataset.n), c.textContent])",
        json!([css]),
    );
    serde_json::from_value(v).unwrap_or_default()
}

/// The page's table equals the native one, cell by cell, in Bengali.
fn shows(b: &Browser, o: &EvictionOutput) {
    let want: Vec<(String, f64, String)> = o
        .figures()
        .into_iter()
        .map(|f| {
            let text = redislab_deck::bn::pct(f.value, 1);
            (f.key, f.value, text)
        })
        .collect();
    b.wait(60, "the native table", |b| {
        cells(b, "[data-testid=eviction-table]") == want
    });
}

fn wait_idle(b: &Browser) {
    b.wait(120, "the lab to finish", |b| {
        b.exists(".lab-eviction[aria-busy=false] [data-testid=eviction-table]")
    });
}

#[test]
fn the_seed_table_and_another_equal_native() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/eviction");
    wait_idle(&b);
    let o = native("");
    shows(&b, &o);
    // The seed's LRU row, to the last digit.
    let lru: Vec<String> = cells(&b, "[data-testid=eviction-table]")
        .into_iter()
        .filter(|c| c.0.starts_with("lru-"))
        .map(|c| c.2)
        .collect();
    assert_eq!(lru, ["৩৯.১%", "৩১.৯%", "৩৯.০%"]);
    let ascii = b.ascii_digits_drawn(".lab-eviction");
    assert!(ascii.is_empty(), "ASCII digits drawn: {ascii:?}");
    b.screenshot(&screenshot_dir().join("labs/eviction.png"));
    // Another parameter set: still identical to the native run.
    let q = "alpha=1.1&cache=500&seed=11&policies=lru,arc,w-tinylfu,opt&trace=scan";
    b.open(&format!("#/lab/eviction?{q}"));
    shows(&b, &native(q));
    assert_no_console_errors(&b);
}

#[test]
fn why_was_this_key_evicted() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/eviction");
    b.wait(60, "the race", |b| b.exists("[data-testid=race-bars]"));
    // At the start nothing has been replayed: no log yet.
    assert!(!b.exists(".why-row"));
    b.click(".lab-eviction .lab-controls button[aria-label='শেষে যান']");
    b.wait(5, "an eviction explained", |b| b.exists(".why-row.evict"));
    let why = b.text(".why-row.evict").unwrap();
    assert!(why.contains("বেরোল"), "{why}");
    assert_no_console_errors(&b);
}

#[test]
fn a_good_change_goes_into_the_address_and_a_link_reproduces_it() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/eviction");
    wait_idle(&b);
    b.open_form();
    b.js(
        // Two fields changed in one go: both count.
        "for (const [id, v] of [['#lab-field-cache', '600'], ['#lab-field-alpha', '1.2']]) { const i = document.querySelector(id); i.value = v; i.dispatchEvent(new Event('change', {bubbles: true})); }",
        json!([]),
    );
    b.wait(10, "the new address", |b| {
        b.url().contains("cache=600") && b.url().contains("alpha=1.2")
    });
    shows(&b, &native("cache=600&alpha=1.2"));
    let url = b.url();
    let hash = &url[url.find('#').unwrap()..];
    let c = Browser::new(1366, 768);
    c.open(hash);
    shows(&c, &native("cache=600&alpha=1.2"));
    // An unknown parameter is named in the form; the lab runs on.
    b.open("#/lab/eviction?colour=red");
    wait_idle(&b);
    assert!(b.text(".lab-form").unwrap_or_default().contains("colour"));
    assert_no_console_errors(&b);
}

/// A parameter changed in the middle of a heavy run: the lab shows only the new run's rows
/// and table (every row it ever showed is a row of the new table), equal to native.
#[test]
fn a_change_mid_run_shows_only_the_new_run() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/eviction?keys=200000&cache=20000&warmup=0&requests=300000");
    b.wait(20, "the heavy run to be under way", |b| {
        b.exists(".lab[aria-busy=true] .lab-progress")
    });
    b.open_form();
    // Record every table cell the page shows from now on.
    b.js(
        "window.__seen = []; const seen = () => document.querySelectorAll('[data-testid=eviction-table] td, [data-testid=eviction-rows] td').forEach(e => window.__seen.push([e.dataset.figure, Number(e.dataset.n)])); new MutationObserver(seen).observe(document.body, {subtree: true, childList: true, characterData: true});",
        json!([]),
    );
    b.js(
        "const i = document.querySelector('#lab-field-cache'); i.value = '500'; i.dispatchEvent(new Event('change', {bubbles: true})); const s = document.querySelector('#lab-field-seed'); s.value = '3'; s.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([]),
    );
    b.wait(10, "the new address", |b| b.url().contains("cache=500"));
    // The heavy run had keys=200000: the new run keeps it (only cache and seed changed).
    let o = native("keys=200000&warmup=0&requests=300000&cache=500&seed=3");
    shows(&b, &o);
    let want = o.figures();
    let seen: Vec<(String, f64)> =
        serde_json::from_value(b.js("return window.__seen", json!([]))).unwrap_or_default();
    assert!(!seen.is_empty(), "nothing was recorded");
    for (key, v) in &seen {
        assert!(
            want.iter().any(|f| f.key == *key && f.value == *v),
            "a cell not of the new run was shown: {key} = {v}"
        );
    }
    assert_no_console_errors(&b);
}

/// Inside a slide the policy race opens where the slide's bullets are: at its end, with the
/// seed table's final numbers (LRU ৩৯.১%, LFU ৪৮.৭% on the Zipf trace) and the seed's labels.
#[test]
fn the_embedded_race_opens_at_the_seed_tables_numbers() {
    let deck = redislab_e2e::deck("eviction");
    let n = deck
        .slides
        .iter()
        .position(|s| {
            s.body.iter().any(|bl| {
                matches!(bl, redislab_deck::Block::Container { kind, args, .. }
                    if kind.as_ref() == "lab" && args.len() == 1 && args[0].as_ref() == "eviction")
            })
        })
        .expect("a slide with the eviction lab at its defaults")
        + 1;
    for (w, h, name) in [(1366, 768, "laptop"), (360, 740, "phone")] {
        let b = Browser::new(w, h);
        b.open(&format!("#/eviction/{n}"));
        b.wait(60, "the race at its end", |b| {
            b.text(".stage [data-testid=race-bars] .hbars")
                .is_some_and(|t| t.contains("৩৯.১%") && !t.contains("·w"))
        });
        let bars = b.text(".stage [data-testid=race-bars]").unwrap();
        assert!(bars.contains("(ক) Zipf"), "{bars}");
        for (policy, want) in [("LRU", "৩৯.১%"), ("LFU", "৪৮.৭%"), ("OPT", "৫৯.৯%")]
        {
            let row = b
                .js(
                    "const r = [...document.querySelectorAll('.stage [data-testid=race-bars] .hbar')].find(r => r.textContent.includes(arguments[0])); return r ? r.textContent : null;",
                    json!([policy]),
                )
                .as_str()
                .map(str::to_owned)
                .unwrap_or_default();
            assert!(row.contains(want), "{policy}: {row:?}");
        }
        let ascii = b.ascii_digits_drawn(".stage .lab-eviction");
        assert!(ascii.is_empty(), "ASCII digits drawn: {ascii:?}");
        if w < 400 {
            assert_no_sideways_scroll(&b);
        }
        b.screenshot(&screenshot_dir().join(format!("labs/eviction-slide-{name}.png")));
        assert_no_console_errors(&b);
    }
}
