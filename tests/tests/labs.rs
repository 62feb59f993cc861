//! The labs in a real headless Chromium: they open on the seed's numbers, the browser's numbers
//! equal the native simulator's for the same parameters and seed, bad input gets a clear
//! message while the lab keeps its last good state, the simulator runs in its worker (a changed
//! parameter shows only the new run; the long-task checks are in `longtasks.rs`), and the app
//! works served from a sub-path.

use redislab_e2e::{screenshot_dir, serve_dist, Browser};
use redislab_sim::eviction_table;
use redislab_sim::labs::eviction::{EvictionParams, INFO as EVICTION};
use redislab_sim::labs::params::Params;
use serde_json::json;

fn laptop() -> Browser {
    Browser::new(1366, 768)
}

/// Waits until no lab on the page computes (`aria-busy` cleared everywhere).
fn wait_idle(b: &Browser) {
    b.wait(120, "the labs to finish", |b| {
        b.exists(".lab") && !b.exists(".lab[aria-busy=true]")
    });
}

fn wait_text(b: &Browser, css: &str) -> String {
    b.wait(30, &format!("{css} to appear"), |b| b.exists(css));
    b.text(css).unwrap_or_default()
}

/// Waits until every font face of the style sheets (seven) is loaded.
fn wait_every_font_face(b: &Browser) {
    b.wait(10, "every font face loaded", |b| {
        b.js(
            "return [...document.fonts].length >= 7 && [...document.fonts].every(f => f.status === 'loaded')",
            json!([]),
        ) == json!(true)
    });
}

/// The native table for a lab query, computed the way `labsim eviction` does.
fn native_table(query: &str) -> String {
    let (p, errs) = Params::from_query(&EVICTION, query);
    assert!(errs.is_empty(), "{errs:?}");
    eviction_table(&p.typed::<EvictionParams>().config())
        .unwrap()
        .to_text()
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
    b.open_form();
    b.js(
        "const i = document.querySelector('#lab-field-cache'); i.value = '-5'; i.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([]),
    );
    b.wait(5, "a message beside cache", |b| {
        b.exists("[data-field=cache] .field-error")
    });
    assert_eq!(b.text("[data-testid=eviction-table]").unwrap(), table);
    // A barrier instead of a pause: a later good change, whose run we wait for, still runs
    // with cache 300 — the bad value changed nothing.
    b.open_form();
    b.js(
        "const i = document.querySelector('#lab-field-seed'); i.value = '8'; i.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([]),
    );
    b.wait(30, "the run with seed 8", |b| b.url().contains("seed=8"));
    wait_idle(&b);
    let after = b.text("[data-testid=eviction-table]").unwrap();
    assert!(after.contains("cache 300 keys"), "{after}");
    assert_eq!(after.trim_end(), native_table("seed=8").trim_end());
    assert!(b.url().contains("cache=300"), "{}", b.url());
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
    b.open_form();
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
        b.text("[data-testid=jitter-max]").as_deref() == Some("১৮০")
    });
    assert_eq!(b.text("[data-testid=jitter-span]").as_deref(), Some("৭২০"));
    assert_eq!(
        b.text("[data-testid=jitter-mean]").as_deref(),
        Some("১৩৮.৯")
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

/// A parameter changed in the middle of a heavy run: the lab shows only the new run's rows
/// and table (every row it ever showed is a row of the new table), equal to native.
#[test]
fn a_change_mid_run_shows_only_the_new_run() {
    let b = laptop();
    b.open("#/lab/eviction?keys=200000&cache=20000&warmup=0&requests=300000");
    b.wait(20, "the heavy run to be under way", |b| {
        b.exists(".lab[aria-busy=true] .lab-progress")
    });
    b.open_form();
    // Record every table text and every partial row the page shows from now on.
    b.js(
        "window.__seen = []; const seen = () => document.querySelectorAll('[data-testid=eviction-table], [data-testid=eviction-rows]').forEach(e => window.__seen.push(e.textContent)); new MutationObserver(seen).observe(document.body, {subtree: true, childList: true, characterData: true});",
        json!([]),
    );
    let q = "cache=500&seed=3";
    b.js(
        "const i = document.querySelector('#lab-field-cache'); i.value = '500'; i.dispatchEvent(new Event('change', {bubbles: true})); const s = document.querySelector('#lab-field-seed'); s.value = '3'; s.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([]),
    );
    b.wait(10, "the new address", |b| b.url().contains("cache=500"));
    // The heavy run had keys=200000: the new run keeps it (only cache and seed changed).
    let q = format!("keys=200000&warmup=0&requests=300000&{q}");
    wait_idle(&b);
    let table = b.text("[data-testid=eviction-table]").unwrap();
    let native = native_table(&q);
    assert_eq!(table.trim_end(), native.trim_end());
    let seen = b.js("return window.__seen", json!([]));
    let seen: Vec<String> = seen
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_string())
        .collect();
    assert!(!seen.is_empty(), "nothing was recorded");
    for text in &seen {
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            assert!(
                native.lines().any(|n| n.trim_end() == line.trim_end()),
                "a line not of the new run was shown: `{line}`\nnew table:\n{native}"
            );
        }
    }
    assert!(b.console_errors().is_empty());
}

/// The built app served from a sub-path, as on a project site (`/redis-lab/`): a slide and a
/// lab work, and nothing is fetched from outside the sub-path.
#[test]
fn the_app_works_from_a_sub_path() {
    let served = serve_dist("/redis-lab/");
    let b = laptop();
    b.open_url(&format!("{}#/production/1", served.url));
    b.wait(15, "the first slide", |b| {
        b.text(".counter").is_some_and(|c| c.starts_with("০১ /"))
    });
    b.open_url(&format!("{}#/lab/eviction", served.url));
    let table = wait_text(&b, "[data-testid=eviction-table]");
    assert!(
        table.contains("LRU          39.1%     31.9%     39.0%"),
        "{table}"
    );
    // The fonts came from the sub-path too.
    b.wait(10, "the Bengali font", |b| {
        b.js(
            "return [...document.fonts].some(f => f.family.includes('Noto Sans Bengali') && f.status === 'loaded')",
            json!([]),
        ) == json!(true)
    });
    let requests = served.requests();
    for file in [
        "labs_bg.wasm",
        "worker_bg.wasm",
        "noto-sans-bengali-400.woff2",
    ] {
        assert!(
            requests.iter().any(|r| r.ends_with(file)),
            "{file} not fetched: {requests:?}"
        );
    }
    let outside: Vec<&String> = requests
        .iter()
        .filter(|r| !r.starts_with("/redis-lab/"))
        .collect();
    assert!(
        outside.is_empty(),
        "fetched outside the sub-path: {outside:?}"
    );
    assert!(b.console_errors().is_empty());
}

/// The first load is the player alone: the labs module comes when a slide with a lab is next
/// (fetched ahead, nothing drawn yet), the simulator when a lab first runs.
#[test]
fn labs_load_only_when_a_lab_is_near() {
    let served = serve_dist("/");
    let fetched = |file: &str| served.requests().iter().any(|r| r.ends_with(file));
    let b = laptop();
    // Slide 3: neither it nor the next holds a lab (slide 2, the roles map, holds the queue).
    b.open_url(&format!("{}#/production/3", served.url));
    b.wait_counter("০৩ / ২২");
    b.wait(15, "the deck", |b| !b.exists(".player[aria-busy=true]"));
    assert!(!fetched("labs_bg.wasm") && !fetched("worker_bg.wasm"));
    // Slide 6 holds the cache lab: from slide 5 the module is fetched ahead.
    b.open_url(&format!("{}#/production/5", served.url));
    b.wait_counter("০৫ / ২২");
    b.wait(15, "the labs module fetched ahead", |_| {
        fetched("labs_bg.wasm")
    });
    assert!(!b.exists(".lab"), "no lab is drawn on slide 5");
    // (Slide 5 reveals its items one → at a time: go straight to 6.)
    b.js("location.hash = '#/production/6'", json!([]));
    b.wait_counter("০৬ / ২২");
    b.wait(30, "the lab on slide 6", |b| {
        b.exists(".stage .lab[data-lab=cache]") && !b.exists(".stage [aria-busy=true]")
    });
    assert!(fetched("worker_bg.wasm"));
    assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
    // A lab's own page starts the worker before the labs module has loaded, and the module
    // takes that worker over instead of starting a second one.
    let loaders = || {
        served
            .requests()
            .iter()
            .filter(|r| r.ends_with("worker_loader.js"))
            .count()
    };
    let count = |file: &str| {
        served
            .requests()
            .iter()
            .filter(|r| r.ends_with(file))
            .count()
    };
    let b = laptop();
    let (before, modules) = (loaders(), count("labs_bg.wasm"));
    b.open_url(&format!("{}#/lab/eviction", served.url));
    b.wait(30, "the seed table", |b| {
        b.exists("[data-testid=eviction-table]")
    });
    assert_eq!(loaders() - before, 1, "one worker for the page");
    // The labs module is compiled by the page's compile worker, fetched once (no preload
    // beside it that the worker could not use).
    assert_eq!(
        count("labs_bg.wasm") - modules,
        1,
        "labs_bg.wasm fetched once"
    );
    // Every font face of the style sheets was asked for at the start: by the time the table
    // is there, all seven are in, also those this lab has not drawn a letter in yet.
    wait_every_font_face(&b);
    assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
}

/// Without the page's compile worker (a browser or a host that refuses it) the labs module
/// still loads, through wasm-bindgen's own streaming. (And a page that is not a lab's loads
/// the font faces once the app has started.)
#[test]
fn a_lab_loads_without_the_compile_worker() {
    let b = laptop();
    b.open("#/");
    b.wait(10, "the home page", |b| b.exists(".deck-card"));
    // Away from a lab the page loads every font face too, once the app has started.
    wait_every_font_face(&b);
    b.js(
        "window.redislabCompile = (url) => Promise.reject('no worker here')",
        json!([]),
    );
    b.js("location.hash = '#/lab/eviction'", json!([]));
    let table = wait_text(&b, "[data-testid=eviction-table]");
    assert!(
        table.contains("LRU          39.1%     31.9%     39.0%"),
        "{table}"
    );
    assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
}

/// The deck format's lab ids are the simulator's labs (each with its parameter fields).
#[test]
fn deck_lab_ids_are_the_simulators_labs() {
    for id in redislab_deck::parse::LABS {
        assert!(
            redislab_sim::labs::registry::info(id).is_some_and(|l| !l.fields.is_empty()),
            "{id} has no fields"
        );
    }
    assert!(redislab_deck::parse::LABS.len() >= 7);
}

/// Every lab embedded in a slide shows its essential view inside the slide box at laptop size
/// (nothing below the stage's edge), with a link to the full lab page, and its controls draw
/// their icons (inline SVG: the served fonts have no ⏮ ⏭ glyphs).
#[test]
fn embedded_labs_fit_their_slides() {
    let b = laptop();
    let mut seen = 0;
    for deck in ["eviction", "production", "broadcast", "patterns"] {
        b.open(&format!("#/{deck}/1"));
        b.wait(15, "the first slide", |b| {
            b.text(".counter").is_some_and(|c| c.starts_with("০১ /"))
        });
        // The counter says "০১ / ২৮": its total, in Bengali digits.
        let counter = b.text(".counter").unwrap_or_default();
        let total: usize = counter
            .rsplit('/')
            .next()
            .unwrap_or("")
            .chars()
            .filter(|c| ('০'..='৯').contains(c))
            .map(|c| c as u32 - '০' as u32)
            .fold(0, |n, d| n * 10 + d as usize);
        assert!(total > 0, "{counter}");
        for n in 1..=total {
            b.open(&format!("#/{deck}/{n}"));
            b.wait(15, "the slide", |b| b.exists(".stage .slide"));
            // The app draws a lab's place at once; the lab itself comes with the labs module.
            if !b.exists(".stage [data-lab-host]") {
                continue;
            }
            b.wait(30, "the lab in its place", |b| b.exists(".stage .lab"));
            seen += 1;
            wait_idle(&b);
            let over = b
                .js(
                    "const s = document.querySelector('.stage .slide'); return s.scrollHeight - s.clientHeight",
                    json!([]),
                )
                .as_f64()
                .unwrap_or(f64::NAN);
            assert!(over <= 1.0, "{deck}/{n}: the slide overflows by {over} px");
            assert!(
                b.exists(".stage .lab .lab-open"),
                "{deck}/{n}: no link to the full lab"
            );
            let icons = b
                .js(
                    "return document.querySelectorAll('.stage .lab-controls button svg path').length",
                    json!([]),
                )
                .as_u64()
                .unwrap_or(0);
            assert_eq!(icons, 5, "{deck}/{n}: control icons");
        }
    }
    assert!(seen >= 5, "only {seen} embedded labs found");
    assert!(b.console_errors().is_empty());
}

/// Z (or the lab's own button) enlarges a slide's lab to the whole stage, for the moment the
/// instructor runs it; Z again, Esc or the next slide puts it back in its place.
#[test]
fn an_embedded_lab_enlarges_to_the_stage_and_back() {
    let b = laptop();
    let deck = redislab_e2e::deck("production");
    let n = deck
        .slides
        .iter()
        .position(|s| {
            s.body.iter().any(|bl| {
                matches!(bl, redislab_deck::Block::Container { kind, args, .. }
                    if kind.as_ref() == "lab" && args.first().is_some_and(|a| a.as_ref() == "lock"))
            })
        })
        .expect("a slide with the lock lab")
        + 1;
    b.open(&format!("#/production/{n}"));
    b.wait(30, "the lab in its slide", |b| {
        b.exists(".stage .lab") && !b.exists(".stage [aria-busy=true]")
    });
    let stage = b.rect(".stage").unwrap();
    let small = b.rect(".stage .lab-host").unwrap();
    assert!(small.height < stage.height * 0.9, "{small:?} in {stage:?}");
    let covers = |b: &Browser| {
        b.rect(".stage .lab-host")
            .is_some_and(|r| r.width >= stage.width * 0.95 && r.height >= stage.height * 0.95)
    };
    b.press("z");
    b.wait(5, "the lab over the whole stage", covers);
    assert_eq!(
        b.js("return document.querySelector('[data-testid=lab-enlarge]').getAttribute('aria-pressed')", json!([])),
        json!("true")
    );
    b.press("z");
    b.wait(5, "the lab back in its place", |b| !covers(b));
    b.click("[data-testid=lab-enlarge]");
    b.wait(5, "the lab enlarged by its button", covers);
    b.press("\u{E00C}");
    b.wait(5, "Esc puts it back", |b| !covers(b));
    b.press("z");
    b.wait(5, "enlarged again", covers);
    b.press("\u{E014}");
    b.wait(10, "the next step or slide, its lab small", |b| {
        !b.exists(".stage.lab-enlarged")
    });
    assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
}

/// Inside a slide the policy race opens where the slide's bullets are: at its end, with the
/// seed table's final numbers (LRU ৩৯.১%, LFU ৪৮.৭% on the Zipf trace) and the seed's labels.
#[test]
fn the_embedded_race_opens_at_the_seed_tables_numbers() {
    let b = laptop();
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
    b.open(&format!("#/eviction/{n}"));
    b.wait(60, "the race at its end", |b| {
        b.text(".stage [data-testid=race-bars] .hbars")
            .is_some_and(|t| t.contains("৩৯.১%") && !t.contains("·w"))
    });
    let bars = b.text(".stage [data-testid=race-bars]").unwrap();
    assert!(bars.contains("(ক) Zipf"), "{bars}");
    for (policy, want) in [("LRU", "৩৯.১%"), ("LFU", "৪৮.৭%"), ("OPT", "৫৯.৯%")] {
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
    assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
}

/// Issue 35 item 15: "পুরো ল্যাব খুলুন" opens the lab's page where the embedded lab stood (its
/// scrubber's position), and the page has a visible way back to the slide it came from.
#[test]
fn the_full_lab_continues_where_the_embedded_one_was_and_leads_back() {
    let b = laptop();
    let d = redislab_e2e::deck("production");
    let n = d
        .slides
        .iter()
        .position(|s| s.has_lab() && s.kicker.contains("সবচেয়ে বড় লাভ"))
        .expect("the auth slide")
        + 1;
    b.open(&format!("#/production/{n}"));
    b.wait(60, "the embedded lab", |b| {
        b.exists(".slide .lab-auth[aria-busy=false] .scrubber")
    });
    let slide = b.url();
    b.click(".slide .lab-auth .lab-controls button[aria-label='রিসেট']");
    for _ in 0..3 {
        b.click(".slide .lab-auth .lab-controls button[aria-label='এক ধাপ সামনে']");
    }
    let at = |b: &Browser| {
        b.js("const s = document.querySelector('.lab-auth .scrubber'); return s ? Number(s.value) : -1", serde_json::json!([])).as_i64()
    };
    b.wait(5, "the embedded lab at 3", |b| at(b) == Some(3));
    b.click(".slide .lab-auth a.lab-open");
    b.wait(60, "the lab's page at 3", |b| {
        b.exists(".lab-page .lab-auth[aria-busy=false]") && at(b) == Some(3)
    });
    let back = b.js("const a = document.querySelector('.lab-back'); return a && a.getClientRects().length ? a.getAttribute('href') : null", serde_json::json!([]));
    assert_eq!(
        back.as_str().map(|h| slide.ends_with(h)),
        Some(true),
        "{back} vs {slide}"
    );
    b.click(".lab-back");
    b.wait(30, "back on the slide", |b| {
        b.exists(".stage .slide .lab-auth")
    });
    redislab_e2e::assert_no_console_errors(&b);
}
