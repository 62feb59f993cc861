//! A student with a thumb, in a real headless Chromium made a touch screen (DevTools' device
//! mode: a coarse pointer that cannot hover) and driven by real touch events
//! (`Input.dispatchTouchEvent`): a sideways swipe on a code box scrolls that box and turns
//! nothing; anywhere else on the slide, an embedded lab included, it turns the slide, except on
//! the lab's scrubber, which it slides; the home page, the ? panel and a choice question say
//! what to tap and swipe; a practice set answered by taps shows each verdict whole, and the
//! result code goes to the clipboard with one tap.

use redislab_e2e::{assert_no_console_errors, screenshot_dir, Browser, Rect};
use redislab_sim::practice::{set, Answer};
use serde_json::json;

const PHONE: (u32, u32) = (360, 740);

fn phone() -> Browser {
    let b = Browser::new(PHONE.0, PHONE.1);
    b.touch_screen();
    b
}

/// Where the deck is: the address's position (`7` or `7.1`).
fn position(b: &Browser) -> String {
    b.url().rsplit('/').next().unwrap_or_default().to_string()
}

/// Scrolls `css` into the middle of the screen and returns its box.
fn in_view(b: &Browser, css: &str) -> Rect {
    b.js(
        "document.querySelector(arguments[0]).scrollIntoView({block: 'center'})",
        json!([css]),
    );
    b.rect(css).unwrap_or_else(|| panic!("no {css}"))
}

/// A finger drawn from right to left across the middle of `r`'s height.
fn swipe_left_across(b: &Browser, r: Rect) {
    let y = r.y + r.height / 2.0;
    b.swipe((r.x + r.width * 0.85, y), (r.x + r.width * 0.15, y));
}

fn scroll_left(b: &Browser, css: &str) -> f64 {
    b.js(
        "return document.querySelector(arguments[0]).scrollLeft",
        json!([css]),
    )
    .as_f64()
    .unwrap_or(-1.0)
}

/// Marks the largest chart (SVG) of the stage's lab and returns a selector for it.
fn largest_chart(b: &Browser) -> String {
    let found = b.js(
        "const all = [...document.querySelectorAll('.stage .lab svg')]; \
         const area = e => { const r = e.getBoundingClientRect(); return r.width * r.height; }; \
         const big = all.sort((a, c) => area(c) - area(a))[0]; \
         if (!big) return false; document.querySelectorAll('[data-swiped]').forEach(e => e.removeAttribute('data-swiped')); \
         big.setAttribute('data-swiped', ''); return area(big) > 4000",
        json!([]),
    );
    assert_eq!(found, json!(true), "a chart in the lab");
    ".stage .lab svg[data-swiped]".into()
}

#[test]
fn a_swipe_scrolls_code_and_turns_the_slide_from_anywhere_else() {
    let b = phone();
    let dir = screenshot_dir().join("touch");
    // production 7: the lock script (wider than the phone) above the lock lab.
    b.open("#/production/7");
    b.wait(60, "the lab", |b| {
        b.exists(".stage .lab[aria-busy=false] .scrubber")
    });
    let code = ".stage pre.code";
    let wide = b.js(
        "const c = document.querySelector(arguments[0]); return c.scrollWidth > c.clientWidth",
        json!([code]),
    );
    assert_eq!(wide, json!(true), "the code box is wider than the phone");
    swipe_left_across(&b, in_view(&b, code));
    b.wait(5, "the code to scroll", |b| scroll_left(b, code) > 20.0);
    assert_eq!(position(&b), "7", "a swipe on code turns nothing");
    // Nothing else on the slide scrolled sideways.
    let others = b.js(
        "return [...document.querySelectorAll('.stage *')].filter(e => e !== document.querySelector(arguments[0]) && e.scrollLeft > 0).map(e => e.className)",
        json!([code]),
    );
    assert_eq!(others, json!([]), "other boxes scrolled");
    b.screenshot(&dir.join("code-swiped-360x740.png"));
    // The lab's scrubber slides under a finger; the slide stays.
    let scrub = ".stage .scrubber";
    let before = b.js(
        "return document.querySelector(arguments[0]).value",
        json!([scrub]),
    );
    swipe_left_across(&b, in_view(&b, scrub));
    b.wait(5, "the scrubber to move", |b| {
        b.js(
            "return document.querySelector(arguments[0]).value",
            json!([scrub]),
        ) != before
    });
    assert_eq!(position(&b), "7", "a swipe on the scrubber turns nothing");
    // The lab anywhere else (its lanes): the slide turns.
    let steps = redislab_e2e::deck("production").slides[6].steps();
    let next = if steps > 0 { "7.1" } else { "8" };
    swipe_left_across(&b, in_view(&b, ".stage .lab .lk-main"));
    b.wait(5, "a swipe on the lab to turn the slide", |b| {
        position(b) == next
    });
    // Back with a swipe to the right on the slide's title.
    let title = in_view(&b, ".stage .slide-title");
    let y = title.y + title.height / 2.0;
    b.swipe((40.0, y), (320.0, y));
    b.wait(5, "a swipe right to go back", |b| position(b) == "7");

    // patterns 8: the lab fills the phone's screen; a swipe on it turns the slide.
    b.open("#/patterns/8");
    b.wait(60, "the stampede lab", |b| {
        b.exists(".stage .lab[aria-busy=false] .scrubber")
    });
    let steps = redislab_e2e::deck("patterns").slides[7].steps();
    let next = if steps > 0 { "8.1" } else { "9" };
    swipe_left_across(&b, in_view(&b, &largest_chart(&b)));
    b.wait(5, "a swipe on the stampede lab to turn", |b| {
        position(b) == next
    });
    // A vertical drag (reading down the slide) turns nothing.
    let here = position(&b);
    b.swipe((180.0, 600.0), (190.0, 250.0));
    assert_eq!(position(&b), here);
    assert_no_console_errors(&b);
}

/// Is `css` drawn (a box with area)?
fn drawn(b: &Browser, css: &str) -> bool {
    b.rect(css).is_some_and(|r| r.width > 0.0 && r.height > 0.0)
}

#[test]
fn a_touch_screen_is_told_what_to_tap_and_swipe() {
    let dir = screenshot_dir().join("touch");
    let b = phone();
    b.open("#/");
    b.wait(30, "the home page", |b| b.exists(".home-lead"));
    assert!(
        drawn(&b, ".home-lead .for-touch"),
        "the home page's touch words"
    );
    assert!(!drawn(&b, ".home-lead .for-keys"), "no keys on a phone");
    let lead = b.text(".home-lead .for-touch").unwrap_or_default();
    assert!(lead.contains("আঙুল") && lead.contains("ট্যাপ"), "{lead}");
    b.screenshot(&dir.join("home-360x740.png"));
    // The ? panel: fingers first.
    b.open("#/production/3");
    b.wait(30, "the slide", |b| b.exists(".counter"));
    // The overview (▦): a tap on a slide goes there; nothing of the slide shows through.
    b.tap_on(".tools button[title^='সব স্লাইড']");
    b.wait(5, "the overview", |b| b.exists(".overview"));
    b.screenshot(&dir.join("overview-360x740.png"));
    b.tap_on(".overview-item a[data-slide='5']");
    b.wait(5, "slide 5", |b| b.url().ends_with("#/production/5"));
    b.tap_on(".tools button[aria-label='কি-বোর্ড শর্টকাট']");
    b.wait(5, "the help", |b| b.exists(".help"));
    assert!(drawn(&b, ".help .touch-keys"));
    assert_eq!(
        b.text(".help h2 .for-touch").as_deref(),
        Some("আঙুলে কীভাবে চালাবেন")
    );
    assert!(!drawn(&b, ".help h2 .for-keys"));
    let touch = b.text(".help .touch-keys").unwrap_or_default();
    assert!(touch.contains("সোয়াইপ"), "{touch}");
    b.screenshot(&dir.join("help-360x740.png"));
    // A choice question: tap, not arrow keys.
    b.open("#/practice/lock/reply?seed=1");
    b.wait(60, "a choice question", |b| b.exists(".practice-choice"));
    assert!(drawn(&b, "#practice-hint .for-touch"));
    assert!(!drawn(&b, "#practice-hint .for-keys"));
    let hint = b.text("#practice-hint .for-touch").unwrap_or_default();
    assert!(hint.contains("ট্যাপ"), "{hint}");
    b.tap_on(".practice-form button[type=submit]");
    b.wait(5, "the unread message", |b| b.exists(".practice-unread"));
    let msg = b.text(".practice-unread").unwrap_or_default();
    assert!(msg.contains("ট্যাপ") && !msg.contains("তীর"), "{msg}");
    b.screenshot(&dir.join("choice-360x740.png"));
    assert_no_console_errors(&b);

    // A laptop reads the keys, and nothing of fingers.
    let l = Browser::new(1366, 768);
    l.open("#/");
    l.wait(30, "the home page", |b| b.exists(".home-lead"));
    assert!(drawn(&l, ".home-lead .for-keys"));
    assert!(!drawn(&l, ".home-lead .for-touch"));
    l.open("#/production/3");
    l.wait(30, "the slide", |b| b.exists(".counter"));
    l.press("?");
    l.wait(5, "the help", |b| b.exists(".help"));
    assert!(!drawn(&l, ".help .touch-keys"));
    assert!(drawn(&l, ".help .keys kbd"));
    assert_no_console_errors(&l);
}

/// A readable answer to `q` that a thumb types or taps (right or wrong does not matter here).
fn answer_by_touch(b: &Browser, answer: &Answer) {
    match answer {
        Answer::Choice { .. } => b.tap_on(".practice-choice:has(#practice-choice-0)"),
        other => {
            let typed = match other {
                Answer::Count { .. } => "1",
                Answer::Percent { .. } => "50",
                _ => "A",
            };
            b.tap_on("#practice-answer");
            b.press(typed);
        }
    }
    b.tap_on(".practice-form button[type=submit]");
    b.wait(10, "the verdict", |b| b.exists(".practice-verdict"));
}

/// The box of `css` is inside the screen, top to bottom.
fn whole_on_screen(b: &Browser, css: &str) -> Result<(), String> {
    let r = b.rect(css).ok_or(format!("no {css}"))?;
    let (_, h) = b.viewport();
    if r.y >= -0.5 && r.y + r.height <= h + 0.5 {
        Ok(())
    } else {
        Err(format!("{css} at {:.0}–{:.0} of {h}", r.y, r.y + r.height))
    }
}

#[test]
fn a_set_by_thumb_shows_each_verdict_whole_and_copies_the_code_with_a_tap() {
    let link = "#/practice?labs=all&seed=42&n=10";
    let spec = set::Spec::parse("labs=all&n=10").unwrap();
    let picks = set::picks(&spec, 42);
    let b = phone();
    let origin = redislab_e2e::app_url().trim_end_matches('/').to_string();
    b.cdp(
        "Browser.grantPermissions",
        json!({"permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"], "origin": origin}),
    );
    b.open(link);
    let dir = screenshot_dir().join("touch");
    let mut cut = Vec::new();
    for (i, (t, k, s)) in picks.iter().enumerate() {
        let q = redislab_sim::practice::generate(t, k, *s).unwrap();
        let sel = format!(
            ".practice-set[aria-busy=false] .practice-question[data-topic={t}][data-kind={k}][data-seed='{s}']"
        );
        b.wait(60, &format!("question {}", i + 1), |b| b.exists(&sel));
        answer_by_touch(&b, &q.draft.answer);
        // The verdict's explanation and the way on are on screen, not only its heading.
        let tall = b
            .rect(".practice-result")
            .is_some_and(|r| r.height > f64::from(PHONE.1));
        let whole = if tall {
            whole_on_screen(&b, ".practice-verdict")
        } else {
            whole_on_screen(&b, ".practice-result")
        };
        if let Err(e) = whole.and_then(|_| whole_on_screen(&b, ".practice-next")) {
            cut.push(format!("{t}/{k}: {e}"));
        }
        if i == 0 {
            b.screenshot(&dir.join("verdict-360x740.png"));
        }
        b.tap_on(".practice-next");
    }
    assert!(cut.is_empty(), "verdicts not whole on screen: {cut:#?}");
    b.wait(30, "the score", |b| b.exists("#practice-result-code"));
    let code = b
        .js(
            "return document.getElementById('practice-result-code').dataset.code",
            json!([]),
        )
        .as_str()
        .unwrap()
        .to_string();
    set::check(&code).unwrap_or_else(|e| panic!("{code}: {e}"));
    // All of it shows on the phone: the code wraps inside its button.
    let text = b.rect(".practice-code-text").unwrap();
    assert!(
        text.x >= 0.0 && text.x + text.width <= f64::from(PHONE.0),
        "{text:?}"
    );
    assert_eq!(
        b.text(".practice-code-text").as_deref(),
        Some(code.as_str())
    );
    let button = in_view(&b, "#practice-result-code");
    assert!(button.height >= 44.0, "a thumb's target: {button:?}");
    // One tap: the code is on the clipboard, and the page says so.
    b.tap_on("#practice-result-code");
    b.wait(5, "the copy said", |b| {
        b.text(".practice-copied")
            .is_some_and(|t| t.contains("কপি হয়েছে"))
    });
    b.script_timeout(10_000);
    let clip = b.js_async(
        "const done = arguments[arguments.length - 1]; navigator.clipboard.readText().then(done, e => done('refused: ' + e))",
        json!([]),
    );
    assert_eq!(clip, json!(code));
    // The system share sheet is offered where the browser has one (Linux Chromium has none).
    let can_share = b.js("return typeof navigator.share === 'function'", json!([])) == json!(true);
    assert_eq!(b.exists(".practice-share"), can_share);
    b.screenshot(&dir.join("result-code-360x740.png"));
    assert!(b.axe_serious().is_empty(), "{:?}", b.axe_serious());
    assert_no_console_errors(&b);
}
