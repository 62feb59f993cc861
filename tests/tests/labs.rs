//! The labs' platform in a real headless Chromium: the app works served from a sub-path, the
//! labs module and the simulator load only when a lab is near (and without the page's compile
//! worker), the decks' lab ids are the simulator's, every embedded lab fits its slide and
//! enlarges to the stage. What each lab shows is checked by the `lab` test binary
//! (`tests/tests/lab/`: `every_lab` and a module per lab); the long-task checks are in
//! `longtasks.rs`.

use redislab_e2e::{serve_dist, Browser};
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
    assert!(table.contains("৩৯.১%"), "{table}");
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
    assert!(table.contains("৩৯.১%"), "{table}");
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
