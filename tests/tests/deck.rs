//! The deck player in a real headless Chromium, as an instructor and a student use it.

use redislab_deck::{bn, Deck};
use redislab_e2e::{assert_no_console_errors, deck, key, screenshot_dir, Browser};
use serde_json::json;

const LAPTOP: (u32, u32) = (1366, 768);
const PHONE: (u32, u32) = (360, 740);

fn production() -> Deck {
    deck("production")
}

fn laptop() -> Browser {
    Browser::new(LAPTOP.0, LAPTOP.1)
}

fn title_on_screen(b: &Browser) -> String {
    b.js(
        "return [...document.querySelectorAll('.stage .slide-title .title-line')].map(e => e.textContent).join(' ')",
        json!([]),
    )
    .as_str()
    .unwrap_or_default()
    .to_string()
}

/// Walks every slide of a deck with → checking counter, address and title; a slide with
/// fragments takes one press per fragment before the counter moves; slides without a live lab
/// must fit their 16:9 stage; slides with one must show it running. Saves screenshots.
fn walk(id: &str) -> Browser {
    let deck = deck(id);
    let n = deck.slides.len();
    let b = laptop();
    b.open(&format!("#/{id}/1"));
    let shots = screenshot_dir().join(format!("laptop/{id}"));
    for i in 0..n {
        b.wait_counter(&bn::counter(i, n));
        assert!(
            b.url().ends_with(&format!("#/{id}/{}", i + 1)),
            "{id} slide {}: url {}",
            i + 1,
            b.url()
        );
        assert_eq!(
            title_on_screen(&b),
            deck.slides[i].title_text(),
            "{id} slide {}",
            i + 1
        );
        if b.exists(".stage .slide.has-lab") {
            b.wait(30, "the embedded lab", |b| {
                b.exists(".stage .lab") && !b.exists(".stage .lab-progress")
            });
        } else {
            // Nothing is cut off.
            let overflow = b.js("const s = document.querySelector('.stage .slide'); return s.scrollHeight - s.clientHeight", json!([]));
            assert!(
                overflow.as_i64().unwrap_or(99) <= 1,
                "{id} slide {} overflows its stage by {overflow} px",
                i + 1
            );
        }
        // Fragments first: each → reveals one, the counter stays.
        let steps = deck.slides[i].steps();
        let visible = |b: &Browser| {
            b.js(
                // A quiz slide's steps are its answer and its lab, drawn by the labs module.
                "return [...document.querySelectorAll('.stage .frag')].filter(e => getComputedStyle(e).visibility === 'visible').length + [...document.querySelectorAll('.stage .quiz-answer, .stage .quiz-run')].filter(e => e.getBoundingClientRect().height > 0).length",
                json!([]),
            )
            .as_u64()
            .unwrap_or(0)
        };
        let mut seen = visible(&b);
        assert_eq!(seen, 0, "{id} slide {}: fragments show before any →", i + 1);
        for k in 1..=steps {
            b.press(key::RIGHT);
            b.wait(5, &format!("{id} slide {} step {k}", i + 1), |b| {
                b.rect(&format!(".stage[data-step='{k}']")).is_some() && visible(b) > seen
            });
            seen = visible(&b);
            assert_eq!(b.text(".counter").unwrap(), bn::counter(i, n));
            assert!(
                b.url().ends_with(&format!("#/{id}/{}.{k}", i + 1)),
                "{}",
                b.url()
            );
        }
        b.screenshot(&shots.join(format!("{:02}.png", i + 1)));
        b.press(key::RIGHT);
    }
    b.wait_counter(&bn::counter(n - 1, n));
    assert_no_console_errors(&b);
    b
}

#[test]
fn walk_the_eviction_deck() {
    let d = deck("eviction");
    let labs = d
        .slides
        .iter()
        .filter(|s| {
            s.body
                .iter()
                .any(|b| matches!(b, redislab_deck::Block::Container { kind, .. } if kind == "lab"))
        })
        .count();
    assert!(labs >= 5, "the eviction deck embeds its labs ({labs})");
    walk("eviction");
}

#[test]
fn walk_the_broadcast_deck() {
    assert_eq!(deck("broadcast").slides.len(), 29);
    walk("broadcast");
}

#[test]
fn walk_the_patterns_deck() {
    let n = deck("patterns").slides.len();
    assert!((20..=26).contains(&n), "the patterns deck has {n} slides");
    walk("patterns");
}

/// The patterns deck is on the home page, with its slide count and its handout (one page a
/// slide, every fragment shown).
#[test]
fn the_patterns_deck_is_listed_with_its_handout() {
    let d = deck("patterns");
    let n = d.slides.len();
    let b = laptop();
    b.open("#/");
    b.wait(10, "the home page", |b| b.exists(".deck-card"));
    let card = b.js(
        "return [...document.querySelectorAll('.deck-card')].map(c => c.textContent).find(t => t.includes(arguments[0])) || ''",
        json!([d.title.as_ref()]),
    );
    let card = card.as_str().unwrap_or_default();
    assert!(
        card.contains(&format!("{}টি স্লাইড", bn::digits(n, 1))),
        "the home page's card: {card:?}"
    );
    b.click(".deck-card a[href='#/patterns/print']");
    b.wait(10, "the handout", |b| b.exists(".print-page"));
    assert_eq!(
        b.js(
            "return document.querySelectorAll('.print-page').length",
            json!([])
        ),
        json!(n)
    );
    assert_eq!(
        b.js("return [...document.querySelectorAll('.print-page .frag')].filter(e => getComputedStyle(e).visibility !== 'visible').length", json!([])),
        json!(0)
    );
    b.screenshot(&screenshot_dir().join("features/patterns-handout.png"));
    assert_no_console_errors(&b);
}

#[test]
fn walk_the_whole_deck_with_the_arrow_keys() {
    let deck = production();
    assert_eq!(deck.slides.len(), 22);
    let b = walk("production");
    // Past the end nothing moves.
    b.wait_counter("২২ / ২২");
    b.press(key::LEFT);
    b.wait_counter("২১ / ২২");
    // ← lands on the previous slide fully built.
    let steps = deck.slides[20].steps();
    let expected = if steps == 0 {
        "#/production/21".to_string()
    } else {
        format!("#/production/21.{steps}")
    };
    assert!(b.url().ends_with(&expected), "{}", b.url());
    b.press(key::HOME);
    b.wait_counter("০১ / ২২");
    b.press(key::END);
    b.wait_counter("২২ / ২২");
    b.press(key::PAGE_UP);
    b.wait_counter("২১ / ২২");
    b.press(key::PAGE_DOWN);
    b.wait_counter("২২ / ২২");
    b.press(key::HOME);
    b.press(key::SPACE);
    b.wait_counter("০২ / ২২");
    // Screen readers hear the change.
    let live = b.text("[aria-live]").unwrap_or_default();
    assert!(
        live.contains("০২ / ২২") && live.contains(&deck.slides[1].title_text()),
        "aria-live says {live:?}"
    );
    assert!(!b.exists("[role=application]"));
    assert_no_console_errors(&b);
}

#[test]
fn deep_links_reload_and_history_land_on_the_same_slide() {
    let b = laptop();
    b.open("#/production/9");
    b.wait_counter("০৯ / ২২");
    b.reload();
    b.wait_counter("০৯ / ২২");
    b.press(key::RIGHT);
    b.wait_counter("১০ / ২২");
    b.press(key::RIGHT);
    b.wait_counter("১১ / ২২");
    b.back();
    b.wait_counter("১০ / ২২");
    b.back();
    b.wait_counter("০৯ / ২২");
    b.forward();
    b.wait_counter("১০ / ২২");
    assert!(b.url().ends_with("#/production/10"));
    // A deck without a slide number opens its first slide, with the full address.
    b.open("#/production");
    b.wait_counter("০১ / ২২");
    assert!(b.url().ends_with("#/production/1"), "{}", b.url());
    assert_no_console_errors(&b);
}

#[test]
fn script_fullscreen_overview_and_help() {
    let deck = production();
    let b = laptop();
    b.open("#/production/3");
    b.wait_counter("০৩ / ২২");
    assert!(!b.exists(".script"));
    b.press("n");
    b.wait(5, "the script panel", |b| b.exists(".script"));
    assert_eq!(b.text(".script-text").unwrap(), deck.slides[2].script);
    b.screenshot(&screenshot_dir().join("features/script.png"));
    b.press(key::RIGHT);
    b.wait_counter("০৪ / ২২");
    assert_eq!(
        b.text(".script-text").unwrap(),
        deck.slides[3].script,
        "the script follows the slide"
    );
    b.press("N");
    b.wait(5, "the script panel to close", |b| !b.exists(".script"));

    b.press("f");
    b.wait(15, "fullscreen", |b| {
        b.js("return !!document.fullscreenElement", json!([])) == json!(true)
    });
    b.wait(5, "the fullscreen look", |b| {
        b.exists(".player.is-fullscreen")
    });
    b.press(key::ESCAPE);
    b.wait(5, "Esc to leave fullscreen", |b| {
        b.js("return !document.fullscreenElement", json!([])) == json!(true)
    });
    b.wait(5, "the normal look", |b| !b.exists(".player.is-fullscreen"));
    // F toggles as well.
    b.press("f");
    b.wait(5, "fullscreen again", |b| {
        b.js("return !!document.fullscreenElement", json!([])) == json!(true)
    });
    b.press("f");
    b.wait(5, "leaving fullscreen", |b| {
        b.js("return !document.fullscreenElement", json!([])) == json!(true)
    });

    b.press("o");
    b.wait(5, "the overview", |b| b.exists(".overview"));
    let n = b.js(
        "return document.querySelectorAll('.overview-item').length",
        json!([]),
    );
    assert_eq!(n, json!(22));
    // Its backdrop hides the slide: no large text shows through.
    assert_eq!(
        b.js(
            "const c = getComputedStyle(document.querySelector('.overview')).backgroundColor; return c.startsWith('rgb(') || c.endsWith(', 1)')",
            json!([])
        ),
        json!(true),
        "the overview's backdrop is opaque"
    );
    b.screenshot(&screenshot_dir().join("features/overview.png"));
    b.click(".overview-item a[data-slide='15']");
    b.wait_counter("১৫ / ২২");
    assert!(!b.exists(".overview"), "the overview closes after a jump");
    assert!(b.url().ends_with("#/production/15"));

    b.press("?");
    b.wait(5, "the help", |b| b.exists(".help"));
    let help = b.text(".help").unwrap();
    for k in ["A", "N", "F", "O", "Esc", "Home"] {
        assert!(help.contains(k), "help lists {k}");
    }
    b.screenshot(&screenshot_dir().join("features/help.png"));
    b.press(key::ESCAPE);
    b.wait(5, "the help to close", |b| !b.exists(".help"));
    assert_no_console_errors(&b);
}

#[test]
fn autoplay_advances_by_itself_and_a_key_pauses_it() {
    let b = laptop();
    b.open("#/production/20");
    b.wait_counter("২০ / ২২");
    b.press("a");
    b.wait(5, "the autoplay indicator", |b| {
        b.exists("[data-testid=autoplay]")
    });
    b.wait(45, "autoplay to reach slide 21", |b| {
        b.text(".counter").as_deref() == Some("২১ / ২২")
    });
    assert!(b.url().ends_with("#/production/21"));
    assert!(
        b.exists("[data-testid=autoplay]"),
        "still playing after one step"
    );
    b.press(key::LEFT);
    b.wait_counter("২০ / ২২");
    b.wait(5, "autoplay to pause", |b| {
        !b.exists("[data-testid=autoplay]")
    });
    assert_no_console_errors(&b);
}

#[test]
fn keys_do_nothing_while_typing_in_a_field() {
    let b = laptop();
    b.open("#/production/2");
    b.wait_counter("০২ / ২২");
    b.js("const i = document.createElement('input'); i.id = 'probe'; document.body.appendChild(i); i.focus();", json!([]));
    b.press("an");
    b.press(key::RIGHT);
    // A barrier instead of a sleep: once the field lets go of focus, a later key must act;
    // when its effect shows, the keys typed before it have been handled too.
    b.js("document.getElementById('probe').blur()", json!([]));
    b.press("?");
    b.wait(5, "the help after leaving the field", |b| b.exists(".help"));
    assert_eq!(b.text(".counter").as_deref(), Some("০২ / ২২"));
    assert!(!b.exists(".script") && !b.exists("[data-testid=autoplay]"));
    assert_eq!(
        b.js("return document.getElementById('probe').value", json!([])),
        json!("an")
    );
}

#[test]
fn bad_addresses_show_a_clear_not_found_page() {
    let b = laptop();
    for (addr, word) in [
        ("#/production/99", "৯৯"),
        ("#/production/0", "স্লাইড"),
        ("#/nope/1", "nope"),
        ("#garbage", "garbage"),
        ("#/production/abc", "abc"),
    ] {
        b.open(addr);
        b.wait(10, &format!("not-found for {addr}"), |b| {
            b.exists(".notfound")
        });
        let text = b.text(".notfound").unwrap();
        assert!(
            text.contains("এই ঠিকানায় কিছু নেই") && text.contains(word),
            "{addr}: {text}"
        );
        assert!(b.exists(".notfound a[href='#/']"), "{addr}: a link home");
    }
    b.screenshot(&screenshot_dir().join("features/notfound.png"));
    b.click(".notfound a");
    b.wait(10, "home", |b| b.exists(".home"));
    assert_no_console_errors(&b);
}

#[test]
fn home_lists_the_decks_and_opens_one() {
    let b = laptop();
    b.open("#/");
    b.wait(10, "home", |b| b.exists(".deck-card"));
    let card = b.text(".deck-card").unwrap();
    assert!(
        card.contains("প্রোডাকশনে Redis") && card.contains("২২টি স্লাইড"),
        "{card}"
    );
    assert!(
        b.exists(".deck-card .thumb .slide"),
        "a preview of the first slide"
    );
    b.screenshot(&screenshot_dir().join("features/home.png"));
    b.click(".deck-card a");
    b.wait_counter("০১ / ২২");
    assert!(b.url().ends_with("#/production/1"));
    assert_no_console_errors(&b);
}

#[test]
fn the_bengali_font_is_served_by_the_app() {
    let b = laptop();
    b.open("#/production/1");
    b.wait_counter("০১ / ২২");
    b.script_timeout(15_000);
    let loaded = b.js_async(
        "const done = arguments[arguments.length - 1];
         document.fonts.ready.then(() => {
           const faces = [...document.fonts].filter(f => f.status === 'loaded').map(f => f.family.replace(/\"/g, '') + ' ' + f.weight);
           const files = performance.getEntriesByType('resource').map(r => r.name).filter(n => n.endsWith('.woff2'));
           done({faces, files});
         });",
        json!([]),
    );
    let faces = loaded["faces"].to_string();
    let files = loaded["files"].to_string();
    assert!(
        faces.contains("Noto Sans Bengali 400") && faces.contains("Noto Sans Bengali 700"),
        "{faces}"
    );
    assert!(
        files.contains("/fonts/noto-sans-bengali-400.woff2"),
        "{files}"
    );
    // The title is drawn with it.
    let family = b.js(
        "return getComputedStyle(document.querySelector('.slide-title')).fontFamily",
        json!([]),
    );
    assert!(family
        .as_str()
        .unwrap_or_default()
        .contains("Noto Sans Bengali"));
}

/// What a phone showed broken (issue 24): the roles map out of order, the TTL table's "why"
/// column cut off, a figure broken across lines, a see-through header over the page.
#[test]
fn the_phone_shows_the_roles_in_order_tables_whole_and_figures_on_one_line() {
    let b = Browser::new(PHONE.0, PHONE.1);
    // The roles map: eight cards, one under the other, in the order of their numbers.
    b.open("#/production/2");
    b.wait_counter("০২ / ২২");
    let tops = b.js(
        "return [...document.querySelectorAll('.stage .role')].map(e => [e.querySelector('.role-head').textContent, e.getBoundingClientRect().top])",
        json!([]),
    );
    let tops: Vec<(String, f64)> = tops
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            (
                r[0].as_str().unwrap_or_default().to_string(),
                r[1].as_f64().unwrap_or(0.0),
            )
        })
        .collect();
    assert_eq!(tops.len(), 8, "{tops:?}");
    for (i, w) in tops.windows(2).enumerate() {
        assert!(
            w[0].1 < w[1].1,
            "role {} is not above role {}: {tops:?}",
            i + 1,
            i + 2
        );
        assert!(w[0].0.starts_with(&bn::digits(i + 1, 2)), "{tops:?}");
    }
    b.screenshot(&screenshot_dir().join("phone/roles-in-order.png"));
    // The TTL table: every cell, the "why" column included, inside the screen, nothing to
    // scroll sideways.
    b.open("#/production/12");
    b.wait_counter("১২ / ২২");
    let out = b.js(
        "return [...document.querySelectorAll('.stage .table td')].filter(td => { const r = td.getBoundingClientRect(); return r.right > innerWidth + 0.5 || r.left < -0.5 || td.scrollWidth > td.clientWidth + 1; }).map(td => td.textContent)",
        json!([]),
    );
    assert_eq!(out, json!([]), "cells cut off at 360 px");
    let why = b.js(
        "const td = [...document.querySelectorAll('.stage .table td')].find(td => td.textContent.includes('বারবার রিফ্রেশ')); return td ? td.getBoundingClientRect().width : 0",
        json!([]),
    );
    assert!(
        why.as_f64().unwrap_or(0.0) > 200.0,
        "the why column is {why} px wide"
    );
    b.screenshot(&screenshot_dir().join("phone/ttl-table.png"));
    // Broadcast step 19: `৩–৪` stays one figure on one line.
    b.open("#/broadcast/20.1");
    b.wait_counter("২০ / ২৯");
    let lines = b.js(
        "return [...document.querySelectorAll('.stage .aq-num, .stage .stat-num')].map(e => { const lh = parseFloat(getComputedStyle(e).lineHeight) || parseFloat(getComputedStyle(e).fontSize) * 1.4; return Math.round(e.getBoundingClientRect().height / lh); })",
        json!([]),
    );
    assert!(
        lines
            .as_array()
            .is_some_and(|a| !a.is_empty() && a.iter().all(|n| n == &json!(1))),
        "figures wrap: {lines} lines"
    );
    // The header over the page is opaque.
    let alpha = b.js(
        "const c = getComputedStyle(document.querySelector('.topbar')).backgroundColor; const m = c.match(/rgba?\\(([^)]*)\\)/); const p = m ? m[1].split(',').map(Number) : []; return p.length === 4 ? p[3] : 1",
        json!([]),
    );
    assert_eq!(
        alpha.as_f64(),
        Some(1.0),
        "the header lets the page show through"
    );
    assert_no_console_errors(&b);
}

#[test]
fn phone_width_stays_readable() {
    let b = Browser::new(PHONE.0, PHONE.1);
    for id in ["production", "eviction", "broadcast", "patterns"] {
        let n = deck(id).slides.len();
        let shots = screenshot_dir().join(format!("phone/{id}"));
        for i in 1..=n {
            b.open(&format!("#/{id}/{i}"));
            b.wait_counter(&bn::counter(i - 1, n));
            if b.exists(".stage .slide.has-lab") {
                b.wait(30, "the embedded lab", |b| {
                    b.exists(".stage .lab") && !b.exists(".stage .lab-progress")
                });
            }
            // No sideways scrolling, and body text no smaller than 13 px.
            let w = b.js("return document.documentElement.scrollWidth", json!([]));
            assert!(
                w.as_u64().unwrap_or(999) <= PHONE.0 as u64,
                "{id} slide {i}: page is {w} px wide"
            );
            let px = b.js("return parseFloat(getComputedStyle(document.querySelector('.stage .slide')).fontSize)", json!([]));
            assert!(
                px.as_f64().unwrap_or(0.0) >= 13.0,
                "{id} slide {i}: {px} px text"
            );
            // On a phone the slide is a page that scrolls: an item still to come takes no
            // room, so a slide opened at its first step shows its text at once.
            let kept = b.js(
                "return [...document.querySelectorAll('.stage .frag:not(.shown)')].filter(e => e.getBoundingClientRect().height > 0).length",
                json!([]),
            );
            assert_eq!(
                kept,
                json!(0),
                "{id} slide {i}: items still to come keep room"
            );
            b.screenshot(&shots.join(format!("{i:02}.png")));
        }
    }
    // Slide 6 builds four cards above its bullets: at the first step the bullets are on the
    // first screen, and → brings the first card in above them, with a box of its own.
    b.open("#/production/6");
    b.wait_counter("০৬ / ২২");
    let bullets = b.rect(".stage .slide ul").expect("slide 6's bullets");
    assert!(
        bullets.y + 20.0 < f64::from(PHONE.1),
        "slide 6's bullets start at {} px, below the screen",
        bullets.y
    );
    b.press(key::RIGHT);
    b.wait(5, "the first card", |b| b.exists(".stage .frag.shown"));
    let card = b.rect(".stage .frag.shown").expect("the first card");
    let moved = b.rect(".stage .slide ul").expect("slide 6's bullets");
    assert!(
        card.height > 20.0 && card.y < moved.y,
        "card {card:?}, bullets {moved:?}"
    );
    assert_eq!(b.text(".counter").as_deref(), Some("০৬ / ২২"));
    // The lab pages too.
    for id in ["lru", "eviction", "sampling", "jitter", "stampede"] {
        b.open(&format!("#/lab/{id}"));
        b.wait(30, &format!("the {id} lab"), |b| {
            b.exists(".lab") && !b.exists(".lab-progress")
        });
        let w = b.js("return document.documentElement.scrollWidth", json!([]));
        assert!(
            w.as_u64().unwrap_or(999) <= PHONE.0 as u64,
            "lab {id}: page is {w} px wide"
        );
        b.screenshot(&screenshot_dir().join(format!("phone/lab-{id}.png")));
    }
    // A swipe to the left goes forward.
    b.open("#/production/3");
    b.wait_counter("০৩ / ২২");
    b.js(
        "const el = document.querySelector('.stage-wrap');
         const t = (x, y) => new Touch({identifier: 1, target: el, clientX: x, clientY: y});
         el.dispatchEvent(new TouchEvent('touchstart', {touches: [t(300, 300)], changedTouches: [t(300, 300)], bubbles: true}));
         el.dispatchEvent(new TouchEvent('touchend', {touches: [], changedTouches: [t(120, 310)], bubbles: true}));",
        json!([]),
    );
    b.wait_counter("০৪ / ২২");
    assert_no_console_errors(&b);
}

/// Decks come when opened: the home page fetches none, a slide fetches only its own deck, and
/// a deck that can't be fetched says so and can be tried again.
#[test]
fn decks_load_when_opened_and_a_failed_load_can_be_retried() {
    let fetched = |b: &Browser| -> Vec<String> {
        b.js(
            "return performance.getEntriesByType('resource').map(e => e.name).filter(n => n.includes('/decks/'))",
            json!([]),
        )
        .as_array()
        .map(|a| a.iter().map(|v| v.as_str().unwrap_or_default().to_string()).collect())
        .unwrap_or_default()
    };
    let b = laptop();
    b.open("#/");
    b.wait(10, "the home page", |b| b.exists(".deck-card"));
    assert!(fetched(&b).is_empty(), "home fetched {:?}", fetched(&b));
    // Offline for a moment: opening a deck fails with a clear message, nothing else changes.
    b.js(
        "window.__fetch = window.fetch; window.fetch = () => Promise.reject(new TypeError('offline'));",
        json!([]),
    );
    b.click(".deck-card a");
    b.wait(10, "the failure message", |b| {
        b.text(".notfound h1")
            .is_some_and(|t| t.contains("আনা গেল না"))
    });
    assert!(b.text(".notfound-why").unwrap().contains("offline"));
    b.js("window.fetch = window.__fetch;", json!([]));
    b.click(".notfound button");
    b.wait_counter("০১ / ২২");
    let names = fetched(&b);
    assert!(
        names.len() == 1 && names[0].contains("/decks/production-"),
        "only the production deck: {names:?}"
    );
    assert!(b.url().ends_with("#/production/1"));
}

/// Boxes (x, y, width, height) and text of what a student sees on a deck's first slide.
fn first_slide_boxes(b: &Browser) -> serde_json::Value {
    b.js(
        "const sel = ['.topbar .brand', '.topbar .deck-name', '.stage .kicker', '.stage .slide-title', '.stage .lead', ...[0, 1, 2].map(i => `.stage .stat:nth-child(${i + 1})`), '.bar-mid'];
         return sel.map(s => { const e = document.querySelector(s); if (!e) return [s, null]; const r = e.getBoundingClientRect();
           return [s, Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height), s === '.bar-mid' ? '' : e.textContent]; });",
        json!([]),
    )
}

/// The first slide written into the page at build time shows with no wasm at all (a phone
/// still fetching it), in its fonts, and is the app's own first slide: the same text in the
/// same boxes, at laptop and phone sizes; then the app takes its place, leaving one player.
#[test]
fn the_first_slide_shows_before_the_app_and_matches_it() {
    for (w, h) in [LAPTOP, PHONE] {
        let before = Browser::new(w, h);
        before.cdp("Network.enable", json!({}));
        before.cdp("Network.setBlockedURLs", json!({"urls": ["*.wasm"]}));
        before.open("#/production/1");
        before.wait(15, "the first slide in its fonts, without the app", |b| {
            b.js(
                "const h = document.querySelector('.app-shell .stage .slide-title'); return !!h && document.fonts.check(getComputedStyle(h).font, h.textContent) && document.fonts.status === 'loaded'",
                json!([]),
            ) == json!(true)
        });
        let shell = first_slide_boxes(&before);
        assert!(
            !before.exists(".counter"),
            "no app: the player's counter is not there"
        );
        before.screenshot(&screenshot_dir().join(format!("deck/shell-{w}.png")));

        let app = Browser::new(w, h);
        app.open("#/production/1");
        app.wait_counter("০১ / ২২");
        app.wait(15, "the deck", |b| !b.exists(".player[aria-busy=true]"));
        app.wait(15, "the fonts", |b| {
            b.js("return document.fonts.status === 'loaded'", json!([])) == json!(true)
        });
        let drawn = first_slide_boxes(&app);
        assert_eq!(
            shell, drawn,
            "at {w}×{h}: the shell differs from the app's first slide"
        );
        assert!(
            drawn[3][5]
                .as_str()
                .is_some_and(|t| t.contains("প্রোডাকশনে Redis")),
            "{drawn}"
        );
        assert!(!app.exists(".app-shell"), "the shell gave way to the app");
        assert_eq!(
            app.js(
                "return document.querySelectorAll('.player').length",
                json!([])
            ),
            json!(1)
        );
        assert_no_console_errors(&app);
    }
    // An address that is not a first slide gets no shell.
    let b = laptop();
    b.cdp("Network.enable", json!({}));
    b.cdp("Network.setBlockedURLs", json!({"urls": ["*.wasm"]}));
    b.open("#/production/3");
    b.wait(10, "the page", |b| b.exists("noscript"));
    assert!(!b.exists(".app-shell"));
}

/// The TTL table (production 12) sorts by any column on the stage: TTLs as numbers (২০s before
/// ১২০s before ৬০০s), again to reverse; the "why" column stays with its row; the header says
/// which way it is sorted.
#[test]
fn the_ttl_table_sorts_by_a_column() {
    let b = Browser::new(1366, 768);
    b.open("#/production/12");
    b.wait_counter("১২ / ২২");
    let ttls = |b: &Browser| -> Vec<String> {
        let v = b.js(
            "return [...document.querySelectorAll('.stage .table tbody tr')].map(r => r.children[1].textContent + '|' + r.children[2].textContent)",
            json!([]),
        );
        serde_json::from_value(v).unwrap()
    };
    // A room sees no sort arrows until the rows are sorted, then only the sorted column's.
    let arrows_seen = |b: &Browser| -> Vec<String> {
        let v = b.js(
            "return [...document.querySelectorAll('.stage .table .th-arrow')].filter(a => getComputedStyle(a).opacity !== '0').map(a => a.textContent)",
            json!([]),
        );
        serde_json::from_value(v).unwrap()
    };
    b.move_mouse(5, 5);
    assert_eq!(
        arrows_seen(&b),
        Vec::<String>::new(),
        "arrows before sorting"
    );
    b.screenshot(&screenshot_dir().join("deck/ttl-table-unsorted.png"));
    let before = ttls(&b);
    assert_eq!(before.len(), 7);
    assert!(before[0].starts_with("২০s|বারবার রিফ্রেশ"), "{before:?}");
    b.click(".stage .table th:nth-child(2) .th-sort");
    b.wait(5, "sorted by TTL", |b| {
        b.exists(".stage .table th:nth-child(2)[aria-sort=ascending]")
    });
    let asc = ttls(&b);
    let secs: Vec<u32> = asc
        .iter()
        .map(|r| redislab_deck::bn::leading_number(r).unwrap())
        .collect();
    let mut sorted = secs.clone();
    sorted.sort_unstable();
    assert_eq!(secs, sorted, "{asc:?}");
    assert_eq!(secs.last(), Some(&600));
    // Each "why" still beside its TTL.
    let mut same = asc.clone();
    same.sort();
    let mut orig = before.clone();
    orig.sort();
    assert_eq!(same, orig);
    b.click(".stage .table th:nth-child(2) .th-sort");
    b.wait(5, "reversed", |b| {
        b.exists(".stage .table th:nth-child(2)[aria-sort=descending]")
    });
    let desc = ttls(&b);
    assert!(desc[0].starts_with("৬০০s|"), "{desc:?}");
    let arrow = b
        .text(".stage .table th:nth-child(2) .th-arrow")
        .unwrap_or_default();
    assert_eq!(arrow, "▼");
    b.move_mouse(5, 5);
    assert_eq!(
        arrows_seen(&b),
        vec!["▼".to_string()],
        "only the sorted column's"
    );
    let head = b
        .rect(".stage .table th:nth-child(2) .th-sort")
        .expect("the header button");
    assert!(head.width > 20.0 && head.height > 10.0, "{head:?}");
    b.screenshot(&screenshot_dir().join("deck/ttl-table-sorted.png"));
    assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
}
