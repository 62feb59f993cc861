//! The instructor's keyboard against what sits on a slide, in a real headless Chromium with
//! real key presses and mouse clicks: the "go to" box closes on Esc from any state of its
//! field and gives the keys back; a click inside an embedded lab (its scrubber, its speed
//! menu) does not keep the keys from the deck; Tab into the lab's controls is the deliberate
//! way to work it from the keyboard; Esc always returns focus to the deck.

use redislab_deck::bn;
use redislab_e2e::{assert_no_console_errors, deck, key, screenshot_dir, Browser};
use serde_json::json;

/// Where the deck is: the address's position (`8` or `8.1`).
fn position(b: &Browser) -> String {
    b.url().rsplit('/').next().unwrap_or_default().to_string()
}

/// What has focus: its tag and classes (`SECTION.stage`, `INPUT.scrubber`).
fn focused(b: &Browser) -> String {
    b.js(
        "const e = document.activeElement; return e ? e.tagName + '.' + [...e.classList].join('.') : ''",
        json!([]),
    )
    .as_str()
    .unwrap_or_default()
    .to_string()
}

fn value(b: &Browser, css: &str) -> String {
    b.js(
        "const e = document.querySelector(arguments[0]); return e ? e.value : null",
        json!([css]),
    )
    .as_str()
    .unwrap_or_default()
    .to_string()
}

#[test]
fn the_go_to_box_closes_on_esc_from_any_state_and_gives_the_keys_back() {
    let b = Browser::new(1366, 768);
    b.open("#/production/4");
    b.wait_counter("০৪ / ২২");
    let dir = screenshot_dir().join("keys");
    // (what is typed, Enter after it) — empty, a number not yet sent, a refused number, words.
    let states: [(&str, bool); 4] = [("", false), ("9", false), ("99", true), ("abc", false)];
    let mut at = 4;
    for (typed, enter) in states {
        b.press("g");
        b.wait(5, "the go-to box", |b| b.exists(".goto input:focus"));
        b.press(typed);
        if enter {
            b.press(key::ENTER);
            b.wait(5, "the refusal", |b| {
                b.text("#goto-error").is_some_and(|t| !t.is_empty())
            });
            b.screenshot(&dir.join("goto-refused-1366x768.png"));
        }
        b.press(key::ESCAPE);
        b.wait(5, &format!("the box closed after {typed:?}"), |b| {
            !b.exists(".goto")
        });
        assert!(
            !focused(&b).starts_with("INPUT"),
            "focus stays in a field: {}",
            focused(&b)
        );
        // Nothing typed moved the deck; the next key is the deck's again.
        b.wait_counter(&bn::counter(at - 1, 22));
        b.press(key::RIGHT);
        let steps = deck("production").slides[at - 1].steps();
        if steps == 0 {
            at += 1;
            b.wait_counter(&bn::counter(at - 1, 22));
        } else {
            b.wait(5, "a fragment", |b| position(b) == format!("{at}.1"));
            b.press(key::LEFT);
            b.wait(5, "back", |b| position(b) == at.to_string());
            b.press(key::END);
            b.wait_counter("২২ / ২২");
            b.press(key::HOME);
            b.wait_counter("০১ / ২২");
            b.open(&format!("#/production/{at}"));
            b.wait_counter(&bn::counter(at - 1, 22));
        }
    }
    assert_no_console_errors(&b);
}

/// patterns 8: the stampede lab on the stage, with its scrubber and speed menu.
#[test]
fn a_click_in_a_lab_keeps_no_keys_tab_works_it_and_esc_returns_to_the_deck() {
    let d = deck("patterns");
    let steps = d.slides[7].steps();
    let next = if steps > 0 { "8.1" } else { "9" };
    let b = Browser::new(1366, 768);
    let open = |b: &Browser| {
        b.open("#/patterns/8");
        b.wait_counter(&bn::counter(7, d.slides.len()));
        b.wait(60, "the lab's scrubber", |b| {
            b.exists(".stage .lab[aria-busy=false] .scrubber")
        });
    };
    open(&b);
    let scrub = ".stage .scrubber";
    // A click on the scrubber (it moves to where it was clicked), then →: the deck's.
    b.click(scrub);
    let clicked = value(&b, scrub);
    assert_eq!(focused(&b), "INPUT.scrubber");
    b.press(key::RIGHT);
    b.wait(5, "→ to reach the deck", |b| position(b) == next);
    if steps > 0 {
        assert_eq!(value(&b, scrub), clicked, "the scrubber stayed");
    }
    assert_eq!(focused(&b), "SECTION.stage", "the click's focus let go");
    b.press(key::LEFT);
    b.wait(5, "← to the slide", |b| position(b) == "8");

    // The speed menu: a click opens its list, a speed is picked there (↓ Enter: while the
    // list is open its keys are the browser's list's), the list closes; then →: the deck's,
    // and the speed stays as picked.
    open(&b);
    b.click(".stage .speed");
    b.press(key::DOWN);
    b.press(key::ENTER);
    b.wait(5, "2×", |b| value(b, ".stage .speed") == "2");
    b.press(key::RIGHT);
    b.wait(5, "→ from the speed menu to reach the deck", |b| {
        position(b) == next
    });
    if steps > 0 {
        assert_eq!(value(&b, ".stage .speed"), "2", "the speed stayed");
    }
    b.press(key::LEFT);
    b.wait(5, "← to the slide", |b| position(b) == "8");

    // Deliberately: Tab into the lab's controls; then → moves the scrubber, not the deck.
    open(&b);
    b.press("n");
    b.wait(5, "the script panel", |b| b.exists(".script"));
    b.click(scrub);
    b.press_shift(key::TAB);
    b.press(key::TAB);
    assert_eq!(focused(&b), "INPUT.scrubber", "Tab lands on the scrubber");
    let before: u64 = value(&b, scrub).parse().unwrap();
    b.press(key::LEFT);
    b.wait(5, "← to move the scrubber", |b| {
        value(b, scrub).parse::<u64>().ok() == Some(before.saturating_sub(1))
    });
    assert_eq!(position(&b), "8", "the deck stayed");
    b.screenshot(&screenshot_dir().join("keys/lab-worked-by-tab-1366x768.png"));
    // Esc (here from the speed menu, one Tab on): focus back on the deck, nothing else
    // closes; the next → is the deck's.
    b.press(key::TAB);
    assert_eq!(focused(&b), "SELECT.speed");
    b.press(key::ESCAPE);
    b.wait(5, "focus back on the deck", |b| {
        focused(b) == "SECTION.stage"
    });
    assert!(
        b.exists(".script"),
        "Esc from the lab only gave the keys back"
    );
    b.press(key::RIGHT);
    b.wait(5, "→ to reach the deck", |b| position(b) == next);
    assert_no_console_errors(&b);
}
