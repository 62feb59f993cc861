//! Class mode in headless Chromium, through the real proxy and a real Redis: an instructor's
//! page at 1366×768 and three students (one a 360×740 phone). The students follow slides
//! and fragments; one browses back and returns; the quiz slide's question is answered on the
//! phones and counted on the stage; the reveal; "show me" on every page; the proxy killed and
//! started again, the pages back on the current slide; the end. Without a proxy, the class
//! controls say what class mode needs. Screenshots: the join card and the answer chart at
//! 1366×768, a phone's question and verdict.

use redislab_e2e::{app_url, assert_no_console_errors, key, screenshot_dir, Browser, Live};
use redislab_sim::practice::{self, Answer, Question};
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

/// The instructor opens the eviction deck and starts a class with C; the class' code.
fn start_class(t: &Browser, url: &str) -> String {
    t.open_url(&format!("{url}#/eviction/1"));
    t.wait_counter("০১ / ২৯");
    t.press("c");
    t.wait(20, "the join card", |b| {
        b.exists("[data-testid=class-code]")
    });
    t.js(
        "return document.querySelector('[data-testid=class-code]').dataset.code",
        json!([]),
    )
    .as_str()
    .unwrap()
    .to_string()
}

#[test]
fn a_class_follows_the_instructor_answers_and_sees_the_reveal() {
    let mut live = Live::start();
    let url = live.url.clone();
    let dir = screenshot_dir().join("class");
    let t = Browser::new(1366, 768);
    // C starts the class: the join card, with its code and QR code.
    let code = start_class(&t, &url);
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

/// What a student types for `q`: the right answer, or a wrong one the grader still reads.
enum Typed {
    Field(String),
    Choice(usize),
}

fn typed(q: &Question, right: bool) -> Typed {
    let t = match &q.draft.answer {
        Answer::Key { key, .. } if right => Typed::Field(key.clone()),
        Answer::Key { key, .. } => Typed::Field(if key == "Q" { "Z" } else { "Q" }.into()),
        Answer::Keys { keys, .. } if right => Typed::Field(keys.join(" ")),
        Answer::Keys { keys, .. } => Typed::Field(format!("{} QQ", keys.join(" "))),
        Answer::Count { n, .. } => Typed::Field((n + i64::from(!right)).to_string()),
        Answer::Choice {
            right: r, options, ..
        } => Typed::Choice(if right { *r } else { (r + 1) % options.len() }),
        Answer::Percent { value, .. } if right => Typed::Field(format!("{value:.1}")),
        Answer::Percent { value, .. } => Typed::Field(format!(
            "{:.1}",
            if *value > 50.0 {
                value - 40.0
            } else {
                value + 40.0
            }
        )),
    };
    let said = match &t {
        Typed::Field(s) => s.clone(),
        Typed::Choice(i) => (i + 1).to_string(),
    };
    assert_eq!(
        practice::grade(q, &said).map(|v| v.right),
        Ok(right),
        "the test's answer {said} to {}/{}",
        q.topic,
        q.kind
    );
    t
}

/// Clicks by the page's own `click()`: on a phone the "ready offline" note may sit over the
/// button a moment.
fn press(b: &Browser, css: &str) {
    b.js("document.querySelector(arguments[0]).click()", json!([css]));
}

/// Answers the question on `b` inside `scope` (the set's card, or the class question).
fn answer_set_question(b: &Browser, q: &Question, right: bool) {
    let card = format!(
        ".class-set .practice-question[data-kind={}][data-seed='{}']",
        q.kind, q.seed
    );
    b.wait(
        30,
        &format!("the set's question {}/{}", q.topic, q.kind),
        |b| b.exists(&card),
    );
    match typed(q, right) {
        Typed::Field(s) => fill(b, &format!("{card} #practice-answer"), &s),
        Typed::Choice(i) => {
            b.js(
                "document.getElementById(arguments[0]).click()",
                json!([format!("practice-choice-{i}")]),
            );
        }
    }
    press(b, &format!("{card} .practice-form button[type=submit]"));
    b.wait(10, "the verdict", |b| {
        b.exists(&format!("{card} .practice-result"))
    });
    press(b, &format!("{card} .practice-next"));
}

#[test]
fn a_set_and_any_kind_are_given_from_the_speaker_window() {
    let live = Live::start();
    let url = live.url.clone();
    let dir = screenshot_dir().join("class");
    let t = Browser::new(1366, 768);
    let stage = t.window_handle();
    let code = start_class(&t, &url);
    t.press("c");
    let phone = join(&url, 360, 740, &code, &code, "রিয়া");
    let other = join(&url, 1024, 768, &code, &code, "");
    t.wait(20, "two present", |b| {
        b.text("[data-testid=class-present]")
            .is_some_and(|s| s.contains('২'))
    });

    // S: the speaker window, with the class' count and its controls.
    t.press("s");
    t.wait(10, "a second window", |b| b.handles().len() == 2);
    let speaker = t.handles().into_iter().find(|h| *h != stage).unwrap();
    t.switch_to(&speaker);
    t.set_viewport(1366, 768);
    t.wait(20, "the class in the speaker window", |b| {
        b.text("[data-testid=class-count]")
            .is_some_and(|s| s.contains("ক্লাসে ২ জন"))
    });
    t.click("[data-testid=class-cues]");
    t.wait(30, "the class' controls", |b| b.exists("#cue-n"));
    // A set of three LRU questions, seed 42.
    t.js(
        "for (const b of document.querySelectorAll('input[name=cue-labs]')) b.checked = b.value === 'lru'",
        json!([]),
    );
    fill(&t, "#cue-n", "3");
    fill(&t, "#cue-seed", "42");
    t.click("[data-testid=cue-set]");
    t.wait(10, "the set given", |b| {
        b.text("[data-testid=cue-said]")
            .is_some_and(|s| s.contains("সেট দেওয়া হলো"))
    });
    t.screenshot(&dir.join("speaker-cues-1366x768.png"));

    // The same questions, made here: the phone gets all right, the other student one.
    let spec = practice::set::Spec {
        labs: vec!["lru".into()],
        seed: Some(42),
        n: 3,
    };
    let qs: Vec<Question> = practice::set::picks(&spec, 42)
        .into_iter()
        .map(|(tp, k, s)| practice::generate(&tp, &k, s).unwrap())
        .collect();
    for (i, q) in qs.iter().enumerate() {
        answer_set_question(&phone, q, true);
        answer_set_question(&other, q, i == 0);
        if i == 0 {
            phone.screenshot(&dir.join("phone-set-360x740.png"));
        }
    }
    // Each phone's own score, as the practice page shows it (with its result code).
    for (b, n) in [(&phone, "3"), (&other, "1")] {
        b.wait(20, "the phone's score", |b| {
            redislab_e2e::data(b, ".class-set .practice-score-n", "n").as_deref() == Some(n)
        });
    }

    // On the stage: per student the score and the kinds wrong, per kind the share, the CSV.
    t.switch_to(&stage);
    t.wait(30, "both results graded", |b| {
        b.js(
            "return [...document.querySelectorAll('[data-testid=class-results-students] tr[data-who]')].map(r => r.dataset.who + ':' + r.dataset.right + '/' + r.dataset.answered).join(' ')",
            json!([]),
        ) == json!("1:3/3 2:1/3")
    });
    let table = t.text("[data-testid=class-results-students]").unwrap();
    let pseudonym = redislab_sim::class::pseudonym(2);
    assert!(
        table.contains("রিয়া") && table.contains(&pseudonym) && table.contains("৩ / ৩"),
        "{table}"
    );
    let wrong: Vec<String> = qs[1..]
        .iter()
        .map(|q| format!("{}/{}", q.topic, q.kind))
        .fold(Vec::new(), |mut v, k| {
            if !v.contains(&k) {
                v.push(k);
            }
            v
        });
    for k in &wrong {
        let title = practice::topic("lru")
            .unwrap()
            .kinds
            .iter()
            .find(|x| format!("lru/{}", x.id) == *k)
            .unwrap()
            .title;
        assert!(table.contains(title), "{k} wrong: {table}");
    }
    // Per kind: answered by both, right by the phone (and the other student on the first).
    for k in qs.iter().map(|q| &q.kind) {
        let of_kind: Vec<usize> = (0..qs.len()).filter(|&i| qs[i].kind == *k).collect();
        let row = t.js(
            "const r = document.querySelector(`[data-testid=class-results-kinds] tr[data-kind='${arguments[0]}']`); return r && [r.dataset.asked, r.dataset.right]",
            json!([format!("lru/{k}")]),
        );
        let right = of_kind.len() + usize::from(of_kind.contains(&0));
        assert_eq!(
            row,
            json!([(2 * of_kind.len()).to_string(), right.to_string()]),
            "lru/{k}"
        );
    }
    let csv = t
        .js(
            "const h = document.querySelector('[data-testid=class-csv]').href; return decodeURIComponent(h.slice(h.indexOf(',') + 1))",
            json!([]),
        )
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        csv.trim_start_matches('\u{feff}'),
        format!(
            "number,name,answered,right,out_of,kinds_wrong\r\n1,রিয়া,3,3,3,\r\n2,{pseudonym},3,1,3,{}\r\n",
            wrong.join(" ")
        )
    );
    t.screenshot(&dir.join("set-results-1366x768.png"));

    // Any kind, asked from the speaker window: on every phone, charted, revealed.
    t.click("[data-testid=class-results-toggle]");
    t.wait(10, "the results put away", |b| {
        !b.exists("[data-testid=class-results]")
    });
    t.switch_to(&speaker);
    t.js(
        "const s = document.getElementById('cue-lab'); s.value = 'lru'; s.dispatchEvent(new Event('change', {bubbles: true}))",
        json!([]),
    );
    t.wait(10, "the LRU's kinds", |b| {
        b.exists("#cue-kind option[value=evicted]")
    });
    t.js(
        "document.getElementById('cue-kind').value = 'evicted'",
        json!([]),
    );
    fill(&t, "#cue-ask-seed", "7");
    t.click("[data-testid=cue-ask]");
    let q = practice::generate("lru", "evicted", 7).unwrap();
    for b in [&phone, &other] {
        b.wait(30, "the picked question on the phone", |b| {
            b.exists(".class-question[data-open=true]")
        });
    }
    for (b, right) in [(&phone, true), (&other, false)] {
        match typed(&q, right) {
            Typed::Field(s) => {
                fill(b, ".class-answer-form input", &s);
                press(b, ".class-answer-form button");
            }
            Typed::Choice(i) => press(b, &format!(".class-options li:nth-child({}) button", i + 1)),
        }
        b.wait(10, "the answer taken", |b| {
            b.text("[data-testid=class-sent]")
                .is_some_and(|s| s.contains("পাঠানো হয়েছে"))
        });
    }
    t.switch_to(&stage);
    t.wait(20, "two answers charted", |b| {
        b.js(
            "const e = document.querySelector('[data-testid=class-answers]'); return e && e.dataset.answered",
            json!([]),
        ) == json!("2")
    });
    assert!(!t.text("[data-testid=class-answers]").unwrap().contains('✓'));
    // The speaker window's reveal, as R on the stage.
    t.switch_to(&speaker);
    t.click("[data-testid=cue-reveal]");
    t.switch_to(&stage);
    t.wait(20, "the reveal", |b| b.exists(".class-answers.revealed"));
    let head = t.text(".class-answers-head").unwrap();
    assert!(
        head.contains(&q.draft.answer.right_text()) && head.contains("২ জনের ১ জন ঠিক"),
        "{head}"
    );
    phone.wait(20, "the phone's verdict", |b| {
        b.text("[data-testid=class-verdict]")
            .is_some_and(|s| s.contains("ঠিক!"))
    });
    other.wait(20, "the other's verdict", |b| {
        b.text("[data-testid=class-verdict]")
            .is_some_and(|s| s.contains("হয়নি"))
    });
    t.screenshot(&dir.join("picked-reveal-1366x768.png"));
    phone.screenshot(&dir.join("phone-picked-verdict-360x740.png"));
    for b in [&phone, &other] {
        assert_no_console_errors(b);
    }
    assert_no_console_errors(&t);
}
