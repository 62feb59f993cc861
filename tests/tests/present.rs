//! Presenting for real, in headless Chromium, as an instructor does it: fullscreen that fills
//! the screen, fragments, blackout, jumping by number, the speaker window in step with the
//! audience, handouts that print one slide a page, the laser pointer, and accessibility
//! (axe-core, focus in dialogs).

use redislab_deck::{bn, Deck};
use redislab_e2e::{assert_no_console_errors, deck, key, screenshot_dir, Browser};
use serde_json::json;

fn fullscreen(b: &Browser) -> bool {
    b.js("return !!document.fullscreenElement", json!([])) == json!(true)
}

/// Is the element matching `css` drawn at all (a box with area)?
fn drawn(b: &Browser, css: &str) -> bool {
    b.rect(css).is_some_and(|r| r.width > 0.0 && r.height > 0.0)
}

/// The first slide of `production` with at least three fragments (1-based) and its count.
fn slide_with_fragments(d: &Deck) -> (usize, usize) {
    let i = d
        .slides
        .iter()
        .position(|s| s.steps() >= 3)
        .expect("a slide that builds up in three or more steps");
    (i + 1, d.slides[i].steps())
}

fn shown(b: &Browser) -> usize {
    b.js(
        "return [...document.querySelectorAll('.stage .frag')].filter(e => getComputedStyle(e).visibility === 'visible').length",
        json!([]),
    )
    .as_u64()
    .unwrap_or(99) as usize
}

#[test]
fn fullscreen_fills_the_screen_at_every_size() {
    let b = Browser::new(1280, 720);
    for (w, h) in [(1280, 720), (1366, 768), (1920, 1080), (2560, 1440)] {
        b.set_viewport(w, h);
        b.open("#/production/2");
        b.wait_counter("০২ / ২২");
        b.press("f");
        b.wait(15, "fullscreen", fullscreen);
        // The page has heard `fullscreenchange` and drawn its fullscreen look.
        b.wait(5, "the fullscreen look", |b| {
            b.exists(".player.is-fullscreen")
        });
        // The stage fills at least 90% of the screen's width or height, 16:9 kept.
        b.wait(5, &format!("the stage to fill {w}×{h}"), |b| {
            let (vw, vh) = b.viewport();
            b.rect(".stage")
                .is_some_and(|r| r.width >= 0.9 * vw || r.height >= 0.9 * vh)
        });
        let (vw, vh) = b.viewport();
        let r = b.rect(".stage").unwrap();
        assert!(
            r.width >= 0.9 * vw || r.height >= 0.9 * vh,
            "{w}×{h}: stage {r:?} in {vw}×{vh}"
        );
        assert!(
            (r.width / r.height - 16.0 / 9.0).abs() < 0.02,
            "{w}×{h}: stage {r:?} is not 16:9"
        );
        assert!(
            r.x >= -1.0 && r.y >= -1.0 && r.x + r.width <= vw + 1.0 && r.y + r.height <= vh + 1.0
        );
        // The slide inside is drawn, not collapsed, and shows its title.
        assert!(
            drawn(&b, ".stage .slide-title"),
            "{w}×{h}: no title on screen"
        );
        // No toolbar, no footer buttons, no scrollbars; the counter stays, small.
        assert!(!drawn(&b, ".topbar"), "{w}×{h}: the top bar shows");
        assert!(!drawn(&b, ".bar .nav-btn"), "{w}×{h}: footer buttons show");
        assert!(!drawn(&b, ".progress"), "{w}×{h}: the progress bar shows");
        assert!(drawn(&b, ".counter"));
        let scroll = b.js(
            "const e = document.scrollingElement; return [e.scrollWidth - innerWidth, e.scrollHeight - innerHeight]",
            json!([]),
        );
        assert_eq!(scroll, json!([0, 0]), "{w}×{h}: the page scrolls");
        if (w, h) == (1920, 1080) {
            b.screenshot(&screenshot_dir().join("features/fullscreen-1920.png"));
        }
        // Esc restores the layout.
        b.press(key::ESCAPE);
        b.wait(5, "leaving fullscreen", |b| !fullscreen(b));
        b.wait(5, "the top bar back", |b| drawn(b, ".topbar"));
        // Back in the page's layout: the stage sits between the top bar and the footer again.
        // (Headless Chromium may give the window back at another size; the layout must fit
        // whatever it gets.)
        b.wait(10, "the stage between the bars", |b| {
            match (b.rect(".topbar"), b.rect(".stage"), b.rect(".bar")) {
                (Some(top), Some(st), Some(bar)) => {
                    st.height > 100.0
                        && st.y >= top.y + top.height - 1.0
                        && st.y + st.height <= bar.y + 1.0
                        && (st.width / st.height - 16.0 / 9.0).abs() < 0.02
                }
                _ => false,
            }
        });
        assert!(drawn(&b, ".bar .nav-btn"));
    }
    assert_no_console_errors(&b);
}

#[test]
fn fragments_reveal_one_press_at_a_time() {
    let d = deck("production");
    let (n, steps) = slide_with_fragments(&d);
    let counter = bn::counter(n - 1, 22);
    let b = Browser::new(1366, 768);
    b.open(&format!("#/production/{n}"));
    b.wait_counter(&counter);
    assert_eq!(shown(&b), 0, "nothing revealed yet");
    for k in 1..=steps {
        b.press(key::RIGHT);
        b.wait(5, &format!("fragment {k}"), |b| shown(b) == k);
        assert_eq!(
            b.text(".counter").unwrap(),
            counter,
            "press {k} keeps the slide"
        );
        assert!(
            b.url().ends_with(&format!("#/production/{n}.{k}")),
            "{}",
            b.url()
        );
    }
    b.screenshot(&screenshot_dir().join("features/fragments-built.png"));
    b.press(key::RIGHT);
    b.wait_counter(&bn::counter(n, 22));
    // ← comes back fully built, then hides one at a time.
    b.press(key::LEFT);
    b.wait_counter(&counter);
    assert_eq!(shown(&b), steps);
    for k in (0..steps).rev() {
        b.press(key::LEFT);
        b.wait(5, &format!("back to {k} fragments"), |b| shown(b) == k);
        assert_eq!(b.text(".counter").unwrap(), counter);
    }
    // A deep link with a step shows that step, also after a reload.
    b.open(&format!("#/production/{n}.2"));
    b.wait(5, "the linked step", |b| shown(b) == 2);
    b.reload();
    b.wait(10, "the linked step after reload", |b| {
        b.text(".counter").as_deref() == Some(counter.as_str()) && shown(b) == 2
    });
    // A step the slide does not have is a clear not-found.
    b.open(&format!("#/production/{n}.{}", steps + 5));
    b.wait(5, "not found", |b| b.exists(".notfound"));
    assert!(b.text(".notfound-why").unwrap().contains("ধাপ"));
    // The overview shows slides fully built.
    b.open(&format!("#/production/{n}"));
    b.wait_counter(&counter);
    b.press("o");
    b.wait(5, "the overview", |b| b.exists(".overview"));
    let thumb_hidden = b.js(
        "return [...document.querySelectorAll('.overview .frag')].filter(e => getComputedStyle(e).visibility !== 'visible').length",
        json!([]),
    );
    assert_eq!(thumb_hidden, json!(0));
    assert_no_console_errors(&b);
}

#[test]
fn blackout_and_jumping_by_number() {
    let b = Browser::new(1366, 768);
    b.open("#/production/3");
    b.wait_counter("০৩ / ২২");
    // B blanks the whole screen black; B again brings the same slide back.
    b.press("b");
    b.wait(5, "the black screen", |b| b.exists(".blank.black"));
    let (vw, vh) = b.viewport();
    let r = b.rect(".blank").unwrap();
    assert!(r.width >= vw && r.height >= vh, "{r:?}");
    let top = b.js(
        "const r = document.querySelector('.stage').getBoundingClientRect(); const e = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2); return [e.className, getComputedStyle(e).backgroundColor]",
        json!([]),
    );
    assert_eq!(
        top,
        json!(["blank black", "rgb(0, 0, 0)"]),
        "the slide is covered"
    );
    b.press("b");
    b.wait(5, "the slide back", |b| !b.exists(".blank"));
    assert_eq!(b.text(".counter").unwrap(), "০৩ / ২২");
    // W is white; any navigation ends it.
    b.press("w");
    b.wait(5, "the white screen", |b| b.exists(".blank.white"));
    b.press(key::RIGHT);
    b.wait_counter("০৪ / ২২");
    assert!(!b.exists(".blank"));
    // "12" and Enter jumps to slide 12; so does "১২".
    b.press("12");
    b.wait(5, "the typed number", |b| b.exists(".jump-hint"));
    assert!(b.text(".jump-hint").unwrap().contains("১২"));
    b.press(key::ENTER);
    b.wait_counter("১২ / ২২");
    assert!(b.url().ends_with("#/production/12"));
    b.press(key::HOME);
    b.wait_counter("০১ / ২২");
    b.press("১২");
    b.press(key::ENTER);
    b.wait_counter("১২ / ২২");
    b.press("৭");
    b.press(key::ENTER);
    b.wait_counter("০৭ / ২২");
    // G opens a small field with focus in it.
    b.press("g");
    b.wait(5, "the go-to field", |b| b.exists(".goto input"));
    b.wait(5, "focus in the field", |b| {
        b.js("return document.activeElement.id", json!([])) == json!("goto-field")
    });
    b.press("99");
    b.press(key::ENTER);
    b.wait(5, "a message for a bad number", |b| {
        b.text(".goto-error").is_some_and(|t| t.contains("২২"))
    });
    b.js(
        "document.getElementById('goto-field').value = ''",
        json!([]),
    );
    b.press("১৮");
    b.press(key::ENTER);
    b.wait_counter("১৮ / ২২");
    assert!(!b.exists(".goto"));
    assert_no_console_errors(&b);
}

#[test]
fn the_speaker_window_and_the_audience_move_together() {
    let d = deck("production");
    let (n, steps) = slide_with_fragments(&d);
    let b = Browser::new(1366, 768);
    let audience = b.window_handle();
    b.open(&format!("#/production/{}", n - 1));
    b.wait_counter(&bn::counter(n - 2, 22));
    // S opens the speaker window.
    b.press("s");
    b.wait(5, "a second window", |b| b.handles().len() == 2);
    let speaker = b
        .handles()
        .into_iter()
        .find(|h| *h != audience)
        .expect("the speaker window");
    b.switch_to(&speaker);
    b.wait(10, "the speaker view", |b| b.exists(".speaker"));
    assert!(
        b.url()
            .ends_with(&format!("#/production/{}/speaker", n - 1)),
        "{}",
        b.url()
    );
    b.wait_counter(&bn::counter(n - 2, 22));
    assert_eq!(
        b.text(".speaker-script .script-text").unwrap(),
        d.slides[n - 2].script,
        "the speaker sees the script"
    );
    assert!(b.exists(".speaker-next .thumb"), "and the next slide");
    assert!(b.text("[data-testid=elapsed]").is_some());
    b.screenshot(&screenshot_dir().join("features/speaker.png"));
    // → in the speaker moves the audience.
    b.press(key::RIGHT);
    b.wait_counter(&bn::counter(n - 1, 22));
    b.switch_to(&audience);
    b.wait_counter(&bn::counter(n - 1, 22));
    assert_eq!(shown(&b), 0);
    // → in the audience reveals a fragment in both.
    b.press(key::RIGHT);
    b.wait(5, "the audience's first fragment", |b| shown(b) == 1);
    b.switch_to(&speaker);
    b.wait(5, "the speaker's step", |b| {
        b.text(".speaker-step")
            .is_some_and(|t| t.contains(&format!("ধাপ ১ / {}", bn::digits(steps, 1))))
    });
    assert!(
        b.url().ends_with(&format!("#/production/{n}.1/speaker")),
        "{}",
        b.url()
    );
    // A click on the speaker's button moves both as well.
    b.click(".speaker-nav .button.primary");
    b.wait(5, "the speaker at step 2", |b| {
        b.url().ends_with(&format!("{n}.2/speaker"))
    });
    // B in the speaker blanks the projector.
    b.press("b");
    b.switch_to(&audience);
    b.wait(5, "the audience at step 2", |b| shown(b) == 2);
    b.wait(5, "the audience blanked", |b| b.exists(".blank.black"));
    // The audience never shows the script unless N is pressed there.
    assert!(!b.exists(".script"));
    b.press("b");
    b.wait(5, "the slide back", |b| !b.exists(".blank"));
    assert_no_console_errors(&b);
}

/// Pages in a PDF: the page objects (`/Type /Page`, not `/Pages`).
fn pdf_pages(pdf: &[u8]) -> usize {
    let text = String::from_utf8_lossy(pdf);
    text.match_indices("/Type /Page")
        .filter(|(i, _)| !text[i + 11..].starts_with('s'))
        .count()
}

#[test]
fn handouts_print_one_slide_a_page() {
    let d = deck("production");
    let b = Browser::new(1366, 768);
    b.open("#/");
    b.wait(10, "the home page", |b| b.exists(".deck-card"));
    b.click(".deck-links a");
    b.wait(10, "the handout", |b| b.exists(".print-page"));
    assert!(b.url().ends_with("#/production/print"), "{}", b.url());
    let pages = b.js(
        "return document.querySelectorAll('.print-page').length",
        json!([]),
    );
    assert_eq!(pages, json!(d.slides.len()));
    // Fully built: no fragment is hidden.
    assert_eq!(
        b.js("return [...document.querySelectorAll('.print-page .frag')].filter(e => getComputedStyle(e).visibility !== 'visible').length", json!([])),
        json!(0)
    );
    b.screenshot(&screenshot_dir().join("features/handout.png"));
    // 16:9 landscape pages (13.333 × 7.5 in), one slide each.
    let pdf = b.print_pdf(33.867, 19.05);
    assert!(pdf.starts_with(b"%PDF"), "not a PDF");
    assert_eq!(pdf_pages(&pdf), d.slides.len(), "one page per slide");
    std::fs::create_dir_all(screenshot_dir().join("features")).unwrap();
    std::fs::write(screenshot_dir().join("features/production.pdf"), &pdf).unwrap();
    // With the script under each slide: it opens in the light theme; still a page a slide.
    b.open("#/production/print?script");
    b.wait(10, "the handout with scripts", |b| {
        b.exists(".print-script")
    });
    b.wait(5, "the light theme", |b| b.exists(".print-light"));
    assert_eq!(
        b.js(
            "return getComputedStyle(document.querySelector('.print-view')).backgroundColor",
            json!([])
        ),
        json!("rgb(255, 255, 255)"),
        "a light page"
    );
    b.screenshot(&screenshot_dir().join("features/handout-script.png"));
    let script = b
        .text(".print-page:nth-child(3) .print-script")
        .unwrap_or_default();
    assert!(
        script.contains(d.slides[2].script.as_ref()),
        "slide 3's script under it: {script}"
    );
    let pdf = b.print_pdf(33.867, 19.05);
    assert_eq!(
        pdf_pages(&pdf),
        d.slides.len(),
        "one page per slide with the script"
    );
    std::fs::write(
        screenshot_dir().join("features/production-script.pdf"),
        &pdf,
    )
    .unwrap();
    // Every deck's longest scripts fit their pages too (production's run to 1,480 letters).
    for d in redislab_e2e::decks() {
        b.open(&format!("#/{}/print?script", d.id));
        b.wait(10, "the handout with scripts", |b| {
            b.exists(".print-light .print-script")
        });
        let pdf = b.print_pdf(33.867, 19.05);
        assert_eq!(
            pdf_pages(&pdf),
            d.slides.len(),
            "{}: one page per slide with the script",
            d.id
        );
    }
    assert_no_console_errors(&b);
}

/// The speaker window shows the whole script of every slide at a glance: nothing to scroll in
/// its box, its type 18 px or more at 1366×768; and it follows the fragments.
#[test]
fn the_speaker_sees_each_whole_script_at_a_glance() {
    let b = Browser::new(1366, 768);
    let mut bad = Vec::new();
    let whole = |b: &Browser| -> (bool, f64) {
        let v = b.js(
            "const s = document.querySelector('.speaker-script'); const t = s.querySelector('.script-text'); \
             return [s.scrollHeight <= s.clientHeight, parseFloat(getComputedStyle(t).fontSize)]",
            json!([]),
        );
        (v[0] == json!(true), v[1].as_f64().unwrap_or(0.0))
    };
    let mut smallest = f64::MAX;
    for d in redislab_e2e::decks() {
        let n = d.slides.len();
        b.open(&format!("#/{}/1/speaker", d.id));
        b.wait(10, "the speaker view", |b| b.exists(".speaker-script"));
        for (i, s) in d.slides.iter().enumerate() {
            b.js(
                "location.hash = arguments[0]",
                json!([format!("#/{}/{}/speaker", d.id, i + 1)]),
            );
            b.wait_counter(&bn::counter(i, n));
            b.wait(5, "the slide's script", |b| {
                b.text(".speaker-script .script-text").as_deref() == Some(s.script.as_ref())
            });
            let fits = b.wait_for(3, |b| {
                let (fits, px) = whole(b);
                fits && px >= 18.0
            });
            let (_, px) = whole(&b);
            smallest = smallest.min(px);
            if !fits {
                bad.push(format!("{} {}: {px} px", d.id, i + 1));
            }
        }
    }
    assert!(bad.is_empty(), "scripts not whole at 18 px: {bad:#?}");
    eprintln!("the speaker's smallest script type: {smallest} px");
    // The longest script (production), and the fragments: the step shows, the script stays.
    let d = deck("production");
    let (i, _) = d
        .slides
        .iter()
        .enumerate()
        .max_by_key(|(_, s)| s.script.chars().count())
        .unwrap();
    b.open(&format!("#/production/{}/speaker", i + 1));
    b.wait_counter(&bn::counter(i, 22));
    b.screenshot(&screenshot_dir().join("features/speaker-longest-1366x768.png"));
    let (n, steps) = slide_with_fragments(&d);
    b.open(&format!("#/production/{n}/speaker"));
    b.wait_counter(&bn::counter(n - 1, 22));
    b.press(key::RIGHT);
    b.wait(5, "the step in the script's head", |b| {
        b.text(".speaker-script-head")
            .is_some_and(|t| t.contains(&format!("ধাপ ১ / {}", bn::digits(steps, 1))))
    });
    assert_eq!(
        b.text(".speaker-script .script-text").as_deref(),
        Some(d.slides[n - 1].script.as_ref())
    );
    assert!(whole(&b).0);
    b.screenshot(&screenshot_dir().join("features/speaker-step-1366x768.png"));
    assert_no_console_errors(&b);
}

#[test]
fn the_laser_pointer_follows_the_mouse() {
    let b = Browser::new(1366, 768);
    b.open("#/production/2");
    b.wait_counter("০২ / ২২");
    b.press("l");
    b.wait(5, "the laser dot", |b| b.exists(".laser"));
    b.move_mouse(600, 300);
    b.wait(5, "the dot under the mouse", |b| {
        b.rect(".laser").is_some_and(|r| {
            ((r.x + r.width / 2.0) - 600.0).abs() < 3.0
                && ((r.y + r.height / 2.0) - 300.0).abs() < 3.0
        })
    });
    let r = b.rect(".laser").unwrap();
    assert!(r.width >= 30.0, "large enough to see on a projector: {r:?}");
    b.press("l");
    b.wait(5, "the laser off", |b| !b.exists(".laser"));
}

#[test]
fn dialogs_take_focus_keep_it_and_give_it_back() {
    let b = Browser::new(1366, 768);
    b.open("#/production/4");
    b.wait_counter("০৪ / ২২");
    let active_in_dialog = |b: &Browser| {
        b.js(
            "return !!document.activeElement.closest('[role=dialog]')",
            json!([]),
        ) == json!(true)
    };
    for (k, css) in [("o", ".overview"), ("?", ".help"), ("g", ".goto")] {
        b.press(k);
        b.wait(5, &format!("{css} open"), |b| b.exists(css));
        b.wait(5, &format!("focus inside {css}"), active_in_dialog);
        for _ in 0..30 {
            b.press(key::TAB);
        }
        assert!(active_in_dialog(&b), "Tab left {css}");
        b.press_shift(key::TAB);
        assert!(active_in_dialog(&b), "Shift+Tab left {css}");
        // The rest of the page is inert while the dialog is open.
        assert_eq!(
            b.js(
                "return document.querySelector('.stage-wrap').inert",
                json!([])
            ),
            json!(true)
        );
        b.press(key::ESCAPE);
        b.wait(5, &format!("{css} closed"), |b| !b.exists(css));
    }
    // Opened from its button, a dialog gives focus back to the button.
    b.click(".tools button[title^='সব স্লাইড']");
    b.wait(5, "the overview", |b| b.exists(".overview"));
    // → moves the selection through the grid instead of closing it.
    b.press(key::RIGHT);
    b.wait(5, "the next thumbnail selected", |b| {
        b.js("return document.activeElement.dataset.slide", json!([])) == json!("5")
    });
    assert!(b.exists(".overview"));
    b.press(key::ESCAPE);
    b.wait(5, "focus back on the button", |b| {
        b.js("return document.activeElement.title", json!([]))
            .as_str()
            .is_some_and(|t| t.starts_with("সব স্লাইড"))
    });
    // Esc closes the script panel too.
    b.press("n");
    b.wait(5, "the script", |b| b.exists(".script"));
    b.press(key::ESCAPE);
    b.wait(5, "the script closed", |b| !b.exists(".script"));
    // The → button keeps focus when it reaches the end.
    b.open("#/production/21");
    b.wait_counter("২১ / ২২");
    let steps = deck("production").slides[20].steps();
    for _ in 0..=steps {
        b.click(".bar .nav-btn[aria-label='পরের স্লাইড']");
    }
    b.wait_counter("২২ / ২২");
    assert_eq!(
        b.js(
            "return document.activeElement.getAttribute('aria-label')",
            json!([])
        ),
        json!("পরের স্লাইড")
    );
    assert_no_console_errors(&b);
}

#[test]
fn axe_finds_nothing_serious() {
    let mut failures = Vec::new();
    for (w, h, size) in [(1366, 768, "laptop"), (360, 740, "phone")] {
        let b = Browser::new(w, h);
        let mut check = |what: &str, b: &Browser| {
            for v in b.axe_serious() {
                failures.push(format!("[{size}] {what}: {v}"));
            }
        };
        b.open("#/");
        b.wait(10, "home", |b| b.exists(".deck-card"));
        check("home", &b);
        for (id, slides) in [
            ("production", &[1, 2, 4, 5, 7, 13, 17, 19, 22][..]),
            ("eviction", &[1, 4, 6, 11, 20][..]),
        ] {
            for &n in slides {
                b.open(&format!("#/{id}/{n}"));
                b.wait(10, "the slide", |b| b.exists(".stage .slide-title"));
                if b.exists(".stage .slide.has-lab") {
                    b.wait(30, "the embedded lab", |b| {
                        b.exists(".stage .lab") && !b.exists(".stage .lab-progress")
                    });
                }
                check(&format!("{id} {n}"), &b);
            }
        }
        b.open("#/production/3");
        b.wait_counter("০৩ / ২২");
        for (k, css) in [("o", ".overview"), ("?", ".help"), ("n", ".script")] {
            b.press(k);
            b.wait(5, css, |b| b.exists(css));
            check(css, &b);
            b.press(key::ESCAPE);
            b.wait(5, "closed", |b| !b.exists(css));
        }
        for lab in ["lru", "eviction", "sampling", "jitter", "stampede"] {
            b.open(&format!("#/lab/{lab}"));
            b.wait(30, "the lab", |b| {
                b.exists(".lab") && !b.exists(".lab-progress")
            });
            check(&format!("lab {lab}"), &b);
        }
        b.open("#/nope");
        b.wait(5, "not found", |b| b.exists(".notfound"));
        check("not found", &b);
        b.open("#/production/print");
        b.wait(5, "handout", |b| b.exists(".print-page"));
        check("handout", &b);
        b.open("#/production/3/speaker");
        b.wait(5, "speaker", |b| b.exists(".speaker"));
        check("speaker", &b);
    }
    assert!(
        failures.is_empty(),
        "axe: {} serious or critical:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
