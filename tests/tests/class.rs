//! Class mode in headless Chromium, through the real proxy and a real Redis: an instructor's
//! page at 1366×768 and three students (one a 360×740 phone). The students follow slides
//! and fragments; one browses back and returns; the quiz slide's question is answered on the
//! phones and counted on the stage; the reveal; "show me" on every page; the proxy killed and
//! started again, the pages back on the current slide; the end. Without a proxy, the class
//! controls say what class mode needs. Screenshots: the join card and the answer chart at
//! 1366×768, a phone's question and verdict.

use redislab_e2e::{app_url, assert_no_console_errors, key, screenshot_dir, Browser, Live};
use serde_json::json;

/// Sets a form field's value (as typing would) by its CSS selector.
fn fill(b: &Browser, css: &str, value: &str) {
    b.js(
        "const e = document.querySelector(arguments[0]); e.value = arguments[1]; \
         e.dispatchEvent(new Event('input', {bubbles: true}));",
        json!([css, value]),
    );
}

/// The slide and step a student's page shows.
fn shown(b: &Browser) -> Option<(String, String)> {
    let v = b.js(
        "const e = document.querySelector('.class-slide'); \
         return e ? [e.dataset.slide, e.dataset.step] : null",
        json!([]),
    );
    Some((v[0].as_str()?.to_string(), v[1].as_str()?.to_string()))
}

fn wait_shown(b: &Browser, slide: usize, step: usize, who: &str) {
    let want = Some((slide.to_string(), step.to_string()));
    b.wait(20, &format!("{who} on slide {slide}.{step}"), |b| {
        shown(b) == want
    });
}

/// A student joins with the code (typed in Bengali digits by one, ASCII by the others).
fn join(url: &str, width: u32, height: u32, code: &str, typed: &str, name: &str) -> Browser {
    let b = Browser::new(width, height);
    b.open_url(&format!("{url}#/join"));
    b.wait(20, "the join form", |b| b.exists("#class-code"));
    fill(&b, "#class-code", typed);
    fill(&b, "#class-name", name);
    b.click(".class-join-form button[type=submit]");
    b.wait(20, "joined", |b| b.exists("[data-testid=class-me]"));
    assert!(!code.is_empty());
    b
}

#[test]
fn a_class_follows_the_instructor_answers_and_sees_the_reveal() {
    let mut live = Live::start();
    let url = live.url.clone();
    let dir = screenshot_dir().join("class");
    let t = Browser::new(1366, 768);
    t.open_url(&format!("{url}#/eviction/1"));
    t.wait_counter("০১ / ২৯");
    // C starts the class: the join card, with its code and QR code.
    t.press("c");
    t.wait(20, "the join card", |b| {
        b.exists("[data-testid=class-code]")
    });
    let code = t
        .js(
            "return document.querySelector('[data-testid=class-code]').dataset.code",
            json!([]),
        )
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(code.len(), 6);
    let qr = t.rect(".class-card .class-qr").expect("a QR code");
    assert!(
        qr.width >= 200.0 && (qr.width - qr.height).abs() < 1.0,
        "{qr:?}"
    );
    let card = t.text("[data-testid=class-card]").unwrap();
    assert!(card.contains("/#/join"), "{card}");
    t.screenshot(&dir.join("join-card-1366x768.png"));

    let bengali: String = redislab_sim::bn::text(&code);
    let phone = join(&url, 360, 740, &code, &bengali, "রিয়া");
    let b2 = join(&url, 1024, 768, &code, &code, "");
    let b3 = join(
        &url,
        1024,
        768,
        &code,
        &format!("{} {}", &code[..3], &code[3..]),
        "তানভীর",
    );
    assert!(phone
        .text("[data-testid=class-me]")
        .unwrap()
        .contains("রিয়া"));
    t.wait(20, "three present", |b| {
        b.text("[data-testid=class-present]")
            .is_some_and(|s| s.contains('৩'))
    });
    // C again hides the card; the slides and fragments move every phone.
    t.press("c");
    t.wait(10, "the card hidden", |b| {
        !b.exists("[data-testid=class-card]")
    });
    t.press(key::RIGHT);
    t.wait_counter("০২ / ২৯");
    for (b, who) in [
        (&phone, "the phone"),
        (&b2, "student 2"),
        (&b3, "student 3"),
    ] {
        wait_shown(b, 2, 0, who);
    }
    // A slide that builds up: its fragments follow too.
    let deck = redislab_e2e::deck("eviction");
    let built = (2..deck.slides.len())
        .find(|&i| deck.slides[i].steps() > 0)
        .expect("a slide with fragments");
    t.press(&format!("{}\u{E007}", built + 1));
    t.wait(15, "the slide that builds up", |b| {
        b.url().ends_with(&format!("#/eviction/{}", built + 1))
    });
    t.press(key::RIGHT);
    wait_shown(&phone, built + 1, 1, "the phone");
    // A student browses back, the class moves on, the student returns to it.
    wait_shown(&b2, built + 1, 1, "student 2");
    b2.click(".class-nav .button");
    b2.wait(10, "browsing", |b| b.exists("[data-testid=class-back]"));
    let own = shown(&b2).unwrap();
    assert_eq!(own, (built.to_string(), "0".to_string()), "one slide back");
    let next = if built + 2 == 5 { 2 } else { built + 2 };
    t.press(&format!("{next}\u{E007}"));
    t.wait(15, "the class moved on", |b| {
        b.url().ends_with(&format!("#/eviction/{next}"))
    });
    wait_shown(&b3, next, 0, "student 3");
    assert_eq!(
        shown(&b2).unwrap(),
        own,
        "a browsing student stays where they are"
    );
    b2.click("[data-testid=class-back]");
    wait_shown(&b2, next, 0, "student 2, back in the class");

    // The quiz slide: the question opens on every phone.
    t.press("5\u{E007}");
    t.wait_counter("০৫ / ২৯");
    for b in [&phone, &b2, &b3] {
        b.wait(30, "the question on the phone", |b| {
            b.exists(".class-question[data-open=true]")
        });
    }
    let right = t
        .wait_for(30, |b| {
            b.text(".quiz-right strong").is_some_and(|s| !s.is_empty())
        })
        .then(|| t.text(".quiz-right strong").unwrap())
        .expect("the quiz slide's answer");
    let wrong = if right.trim() == "A" { "B" } else { "A" };
    for (b, answer) in [(&phone, right.trim()), (&b2, wrong), (&b3, "Q")] {
        fill(b, ".class-answer-form input", answer);
        b.click(".class-answer-form button");
        b.wait(10, "the answer taken", |b| {
            b.text("[data-testid=class-sent]")
                .is_some_and(|s| s.contains("পাঠানো হয়েছে"))
        });
    }
    // Student 3 changes their mind: still one answer of theirs.
    fill(&b3, ".class-answer-form input", wrong);
    b3.click(".class-answer-form button");
    t.wait(20, "three answers on the stage", |b| {
        b.js(
            "const e = document.querySelector('[data-testid=class-answers]'); return e && e.dataset.answered",
            json!([]),
        ) == json!("3")
    });
    let chart = t.text("[data-testid=class-answers]").unwrap();
    assert!(
        !chart.contains('✓'),
        "no right answer before the reveal: {chart}"
    );
    phone.screenshot(&dir.join("phone-question-360x740.png"));
    t.screenshot(&dir.join("answer-chart-1366x768.png"));

    // R reveals: the right answer and the share on the stage, each phone's own verdict.
    t.press("r");
    t.wait(20, "the reveal", |b| b.exists(".class-answers.revealed"));
    let head = t.text(".class-answers-head").unwrap();
    assert!(
        head.contains(right.trim()) && head.contains("৩ জনের ১ জন ঠিক"),
        "{head}"
    );
    phone.wait(20, "the phone's verdict", |b| {
        b.text("[data-testid=class-verdict]")
            .is_some_and(|s| s.contains("ঠিক!"))
    });
    b2.wait(20, "student 2's verdict", |b| {
        b.text("[data-testid=class-verdict]")
            .is_some_and(|s| s.contains("হয়নি"))
    });
    phone.screenshot(&dir.join("phone-verdict-360x740.png"));
    t.screenshot(&dir.join("reveal-1366x768.png"));

    // "Show me": the lab at the deciding step, on the stage and on every phone.
    t.click("[data-testid=class-show]");
    t.wait(20, "the lab on the stage", |b| {
        b.exists(".class-show-stage .lab-host")
    });
    for b in [&phone, &b2, &b3] {
        b.wait(20, "the lab on the phone", |b| {
            b.exists(".class-show[data-lab=lru]")
        });
    }

    // The proxy dies: the phones say so; a new one comes up, and the pages come back by
    // themselves onto the class' current slide.
    live.kill_proxy();
    phone.wait(20, "the phone says it is away", |b| {
        b.exists("[data-testid=class-away]")
    });
    live.start_proxy();
    t.wait(30, "the instructor back", |b| {
        b.text(".class-strip")
            .is_some_and(|s| !s.contains("সংযোগ নেই"))
    });
    // (The "show me" button has focus, where Enter would press it.)
    t.js("document.activeElement.blur()", json!([]));
    t.press("7\u{E007}");
    t.wait_counter("০৭ / ২৯");
    for (b, who) in [
        (&phone, "the phone"),
        (&b2, "student 2"),
        (&b3, "student 3"),
    ] {
        wait_shown(b, 7, 0, who);
        assert!(
            !b.exists("[data-testid=class-away]"),
            "{who} says it is back"
        );
    }

    // The end: every phone is told.
    t.click("[data-testid=class-end]");
    for b in [&phone, &b2, &b3] {
        b.wait(20, "the class ended", |b| {
            b.exists("[data-testid=class-ended]")
        });
    }
    phone.screenshot(&dir.join("phone-ended-360x740.png"));
    for b in [&t, &phone, &b2, &b3] {
        assert_no_console_errors(b);
    }
}

#[test]
fn without_a_proxy_the_class_controls_say_what_class_mode_needs() {
    let t = Browser::new(1366, 768);
    t.open("#/production/1");
    t.wait_counter("০১ / ২২");
    // The key help's button starts it, as C does.
    t.press("?");
    t.wait(10, "the key help", |b| {
        b.exists("[data-testid=class-start]")
    });
    t.click("[data-testid=class-start]");
    t.wait(20, "the message", |b| {
        b.exists("[data-testid=class-noproxy]")
    });
    let m = t.text("[data-testid=class-noproxy]").unwrap();
    assert!(
        m.contains("সার্ভার মোড") && m.contains("cargo xtask serve --redis"),
        "{m}"
    );
    // The join page says the same, on a phone.
    let p = Browser::new(360, 740);
    p.open_url(&format!("{}#/join?code=123456", app_url()));
    p.wait(20, "the join form", |b| b.exists("#class-code"));
    p.click(".class-join-form button[type=submit]");
    p.wait(20, "the message", |b| {
        b.exists("[data-testid=class-noproxy]")
    });
    p.screenshot(&screenshot_dir().join("class/phone-noproxy-360x740.png"));
}
