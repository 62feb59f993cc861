//! Practice (`#/practice`) in a real headless Chromium: a question drawn from a seed shows
//! what the native simulator writes for that seed; a student answers by keyboard alone, wrong
//! then right, and sees the verdict (focused), why a wrong answer is wrong, the right answer,
//! and the way on; a bad address gets a Bengali message; it fits a 360 px phone.

use redislab_e2e::{assert_no_console_errors, key, screenshot_dir, scrolls_sideways, Browser};
use redislab_sim::practice::{self, Answer, Question};
use serde_json::json;

/// Text as the page shows it: backticks become `<code>`, whose text has none.
fn shown(s: &str) -> String {
    s.replace('`', "")
}

fn wait_text(b: &Browser, css: &str) -> String {
    b.wait(60, &format!("{css} to appear"), |b| b.exists(css));
    b.text(css).unwrap_or_default()
}

fn focused_id(b: &Browser) -> String {
    b.js(
        "return document.activeElement ? document.activeElement.id : ''",
        json!([]),
    )
    .as_str()
    .unwrap_or_default()
    .to_string()
}

/// Opens question `kind` with `seed` and waits for it; checks it is the native question.
fn open_question(b: &Browser, kind: &str, seed: u32) -> Question {
    b.open(&practice::address("lru", kind, seed));
    let q = practice::generate("lru", kind, seed).unwrap();
    check_shown(b, &q);
    q
}

/// The page shows `q` as the simulator natively writes it: its text, its operations (exactly
/// as written), the answer field focused.
fn check_shown(b: &Browser, q: &Question) {
    let sel = format!(
        ".practice-question[data-kind={}][data-seed='{}']",
        q.kind, q.seed
    );
    b.wait(60, &format!("question {sel}"), |b| b.exists(&sel));
    assert_eq!(b.text(".practice-text").unwrap(), shown(&q.draft.text));
    let lines = b.js(
        "return [...document.querySelectorAll('.practice-line')].map(e => e.textContent)",
        json!([]),
    );
    // Shown exactly as written: commands and their numbers stay as Redis reads them.
    let want: Vec<String> = q.draft.code.clone();
    assert_eq!(lines, json!(want));
    assert!(
        !lines_overlap(b),
        "{}/{}: code lines overlap",
        q.topic,
        q.kind
    );
    b.wait(10, "the answer field focused", |b| {
        focused_id(b) == "practice-answer"
    });
}

/// Whether two of the question's code lines are drawn over each other.
fn lines_overlap(b: &Browser) -> bool {
    b.js(
        "const r = [...document.querySelectorAll('.practice-line')].map(e => e.getBoundingClientRect()); \
         return r.some((a, i) => r.some((c, j) => j > i && a.left < c.right && c.left < a.right && a.top < c.bottom && c.top < a.bottom))",
        json!([]),
    ) == json!(true)
}

/// Every kind's question (seed 1) on a 360 px phone: its code lines each readable (none
/// drawn over another, none cut: a long command wraps), the page not wider than the phone.
#[test]
fn every_kind_reads_on_a_phone() {
    let b = Browser::new(360, 740);
    let mut bad = Vec::new();
    for t in practice::topics() {
        for k in t.kinds {
            b.open(&practice::address(t.id, k.id, 1));
            let sel = format!(
                ".practice-question[data-topic={}][data-kind={}][data-seed='1']",
                t.id, k.id
            );
            b.wait(60, &sel, |b| b.exists(&sel));
            if lines_overlap(&b) {
                bad.push(format!("{}/{}: code lines overlap", t.id, k.id));
            }
            if scrolls_sideways(&b) {
                bad.push(format!("{}/{}: wider than the phone", t.id, k.id));
            }
            // A command wraps inside its box, as nothing there scrolls sideways.
            let cut = b.js(
                "return [...document.querySelectorAll('.practice-code')].some(c => c.scrollWidth > c.clientWidth + 1)",
                json!([]),
            );
            if cut == json!(true) {
                bad.push(format!("{}/{}: a command scrolls in its box", t.id, k.id));
            }
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
    b.screenshot(
        &screenshot_dir()
            .join("practice")
            .join("long-code-360x740.png"),
    );
    assert_no_console_errors(&b);
}

/// Types `answer` and Enter; waits for the verdict.
fn answer(b: &Browser, text: &str) {
    b.press(text);
    b.press(key::ENTER);
    b.wait(10, "the verdict", |b| b.exists(".practice-verdict"));
}

#[test]
fn a_student_answers_wrong_then_right_by_keyboard() {
    let b = Browser::new(1366, 768);
    let q = open_question(&b, "evicted", 42);
    let Answer::Key { key: right, hints } = &q.draft.answer else {
        panic!("evicted asks for a key")
    };
    // Something unreadable first: a message, nothing graded, the field keeps focus.
    answer_unread(&b, "A B");
    // A wrong key the simulator has a reason for.
    let (wrong, why_wrong) = &hints[0];
    b.js(
        "document.getElementById('practice-answer').value = ''",
        json!([]),
    );
    answer(&b, &wrong.to_lowercase());
    assert_eq!(b.text(".practice-verdict").unwrap(), "হয়নি");
    assert_eq!(
        focused_id(&b),
        "practice-verdict",
        "the verdict takes focus"
    );
    assert_eq!(b.text(".practice-heard code").unwrap(), *wrong);
    assert_eq!(b.text(".practice-note").unwrap(), shown(why_wrong));
    assert_eq!(b.text(".practice-right code").unwrap(), *right);
    assert_eq!(b.text(".practice-why").unwrap(), shown(&q.draft.why));
    assert!(!b.exists(".practice-unread"));
    let show = q.draft.show.as_ref().unwrap();
    let href = b.js(
        "return document.querySelector('.practice-show').getAttribute('href')",
        json!([]),
    );
    assert_eq!(
        href,
        json!(show.hash()),
        "show me opens the lab with the question's operations"
    );
    let dir = screenshot_dir().join("practice");
    b.screenshot(&dir.join("wrong-1366x768.png"));
    assert!(b.axe_serious().is_empty(), "{:?}", b.axe_serious());

    // Tab from the verdict reaches "next"; Enter opens the next question.
    b.press(key::TAB);
    assert_eq!(
        b.js("return document.activeElement.className", json!([])),
        json!("button primary practice-next")
    );
    b.press(key::ENTER);
    let (_, kind, seed) = practice::next(&q);
    assert_eq!(kind, "order");
    b.wait(20, "the next question's address", |b| {
        b.url()
            .ends_with(&format!("#/practice/lru/order?seed={seed}"))
    });
    let q2 = practice::generate("lru", "order", seed).unwrap();
    check_shown(&b, &q2);
    let Answer::Keys { keys, .. } = &q2.draft.answer else {
        panic!("order asks for keys")
    };
    // The right order, typed lower case with commas: still right.
    answer(&b, &keys.join(",").to_lowercase());
    assert_eq!(b.text(".practice-verdict").unwrap(), "ঠিক উত্তর!");
    assert_eq!(focused_id(&b), "practice-verdict");
    assert_eq!(b.text(".practice-heard code").unwrap(), keys.join(" → "));
    assert!(!b.exists(".practice-note") && !b.exists(".practice-right"));
    b.screenshot(&dir.join("right-1366x768.png"));
    assert_no_console_errors(&b);
}

/// Types something the grader cannot read: a Bengali message, no verdict, focus kept.
fn answer_unread(b: &Browser, text: &str) {
    b.press(text);
    b.press(key::ENTER);
    let msg = wait_text(b, ".practice-unread");
    assert!(msg.contains("একটাই key"), "{msg}");
    assert!(!b.exists(".practice-verdict"));
    assert_eq!(focused_id(b), "practice-answer");
}

#[test]
fn on_a_phone_it_fits_and_a_count_is_read_in_any_digits() {
    let b = Browser::new(360, 740);
    let q = open_question(&b, "hits", 7);
    let Answer::Count { n, .. } = q.draft.answer else {
        panic!("hits asks for a count")
    };
    let fits = |b: &Browser| {
        b.js(
            "return document.documentElement.scrollWidth <= window.innerWidth",
            json!([]),
        ) == json!(true)
    };
    assert!(fits(&b), "nothing wider than the phone");
    // The question, its operations and the answer field on the first screen.
    let field = b.rect("#practice-answer").unwrap();
    assert!(field.y + field.height <= 740.0, "{field:?}");
    let dir = screenshot_dir().join("practice");
    b.screenshot(&dir.join("question-360x740.png"));
    answer(&b, &format!("{n}"));
    assert_eq!(b.text(".practice-verdict").unwrap(), "ঠিক উত্তর!");
    assert_eq!(
        b.text(".practice-heard code").unwrap(),
        redislab_deck::bn::int(n)
    );
    assert!(fits(&b));
    b.screenshot(&dir.join("right-360x740.png"));
    assert!(b.axe_serious().is_empty(), "{:?}", b.axe_serious());
    assert_no_console_errors(&b);
}

#[test]
fn the_list_a_fresh_question_and_bad_addresses() {
    let b = Browser::new(1366, 768);
    // Home links to practice.
    b.open("#/");
    b.wait(30, "the home page", |b| b.exists(".home-practice a"));
    b.click(".home-practice a");
    b.wait(30, "the list of questions", |b| b.exists(".practice-kind"));
    let kinds = b.js(
        "return [...document.querySelectorAll('.practice-kind')].map(a => a.getAttribute('href'))",
        json!([]),
    );
    // Every topic's kinds, in the registry's order (the LRU lab's first).
    let want: Vec<String> = practice::topics()
        .iter()
        .flat_map(|t| {
            t.kinds
                .iter()
                .map(move |k| format!("#/practice/{}/{}", t.id, k.id))
        })
        .collect();
    assert!(want[0].starts_with("#/practice/lru/") && want.iter().any(|w| w.contains("/lock/")));
    assert_eq!(kinds, json!(want));
    b.screenshot(&screenshot_dir().join("practice/list-1366x768.png"));
    // A kind without a seed: the page draws one and writes it into the address.
    b.click(".practice-kind");
    b.wait(20, "a seed in the address", |b| b.url().contains("?seed="));
    let url = b.url();
    let seed: u32 = url.rsplit("seed=").next().unwrap().parse().unwrap();
    let q = practice::generate("lru", "evicted", seed).unwrap();
    check_shown(&b, &q);
    // The same address again: the same question.
    b.reload();
    check_shown(&b, &q);
    // Bad addresses: a Bengali reason and a way back, nothing else.
    // (Each message differs from the one before, so the wait sees the new page.)
    for (hash, says) in [
        ("#/practice/lru/evicted?seed=abc", "`abc`"),
        ("#/practice/lru/evicted?seed=99999999999", "`99999999999`"),
        ("#/practice/nope/evicted?seed=1", "`nope` নামে কোনো ল্যাবের"),
        ("#/practice/lru/nope?seed=1", "`lru`-এ `nope`"),
        ("#/practice/lru", "কোন প্রশ্ন"),
    ] {
        b.open(hash);
        b.wait(30, &format!("{hash}: the message"), |b| {
            b.text(".practice-bad p")
                .is_some_and(|t| t.contains(&says.replace('`', "")))
        });
        assert_eq!(
            b.text(".practice-bad h2").unwrap(),
            "এই ঠিকানায় কোনো প্রশ্ন নেই",
            "{hash}"
        );
        assert!(!b.exists(".practice-question"), "{hash}");
        assert!(b.exists(".practice-bad a[href='#/practice']"), "{hash}");
    }
    b.screenshot(&screenshot_dir().join("practice/bad-1366x768.png"));
    b.open("#/practice/a/b/c");
    b.wait(20, "not found", |b| b.exists(".notfound"));
    assert_no_console_errors(&b);
}

/// A response to `q` that is right (or wrong), as a student types it.
fn response(q: &Question, right: bool) -> String {
    match (&q.draft.answer, right) {
        (Answer::Key { key, .. }, true) => key.to_lowercase(),
        (Answer::Key { key, .. }, false) => if key == "A" { "B" } else { "A" }.into(),
        (Answer::Keys { keys, .. }, true) => keys.join(" "),
        (Answer::Keys { keys, .. }, false) => keys[1..].join(" "),
        (Answer::Count { n, .. }, true) => redislab_deck::bn::int(*n),
        (Answer::Count { n, .. }, false) => (n + 1).to_string(),
        (Answer::Percent { value, .. }, true) => format!("{value}"),
        (Answer::Percent { value, within }, false) => {
            format!(
                "{}",
                if *value > 50.0 {
                    value - within - 2.0
                } else {
                    value + within + 2.0
                }
            )
        }
        (
            Answer::Choice {
                right: r, options, ..
            },
            ok,
        ) => (if ok { *r } else { (r + 1) % options.len() }).to_string(),
    }
}

/// Answers `q` by keyboard alone: types the response and Enter, or for a choice moves to
/// the option with the arrow keys (Space on the first) and presses Enter.
fn respond(b: &Browser, q: &Question, right: bool) {
    let r = response(q, right);
    if let Answer::Choice { .. } = q.draft.answer {
        b.wait(10, "the first option focused", |b| {
            focused_id(b) == "practice-choice-0"
        });
        let i: usize = r.parse().unwrap();
        if i == 0 {
            b.press(key::SPACE);
        } else {
            b.press(&key::DOWN.repeat(i));
        }
        b.wait(5, "the option checked", |b| {
            b.js(
                "return document.getElementById(arguments[0]).checked",
                json!([format!("practice-choice-{i}")]),
            ) == json!(true)
        });
        b.press(key::ENTER);
    } else {
        b.wait(10, "the answer field focused", |b| {
            focused_id(b) == "practice-answer"
        });
        b.press(&r);
        b.press(key::ENTER);
    }
    b.wait(10, "the verdict", |b| b.exists(".practice-verdict"));
}

/// A class link: ten questions of every lab, answered by keyboard alone (right, right,
/// wrong …); the score and a result code that the check (what `labsim practice --check`
/// runs) accepts with the same score and refuses when tampered with; "show me" opens the
/// lab with the question's parameters and Back returns to the same place in the set; a
/// second browser on a phone gets the same questions from the same link.
#[test]
fn a_class_set_by_keyboard_with_its_score_and_result_code() {
    use redislab_sim::practice::set;
    let link = "#/practice?labs=all&seed=42&n=10";
    let spec = set::Spec::parse("labs=all&n=10").unwrap();
    let qs: Vec<Question> = set::picks(&spec, 42)
        .into_iter()
        .map(|(t, k, s)| practice::generate(&t, &k, s).unwrap())
        .collect();
    assert!(
        qs.iter()
            .any(|q| matches!(q.draft.answer, Answer::Choice { .. })),
        "the set has a multiple-choice question"
    );
    let b = Browser::new(1366, 768);
    b.open(link);
    let dir = screenshot_dir().join("practice");
    let mut score = 0;
    for (i, q) in qs.iter().enumerate() {
        let sel = format!(
            ".practice-set[aria-busy=false] .practice-question[data-topic={}][data-kind={}][data-seed='{}']",
            q.topic, q.kind, q.seed
        );
        b.wait(60, &format!("question {}", i + 1), |b| b.exists(&sel));
        assert_eq!(b.text(".practice-text").unwrap(), shown(&q.draft.text));
        let place = b.text(".practice-place").unwrap();
        assert!(
            place.starts_with(&format!("প্রশ্ন {}/১০", redislab_deck::bn::int(i as i64 + 1))),
            "{place}"
        );
        let right = i % 3 != 2;
        respond(&b, q, right);
        let verdict = b.text(".practice-verdict").unwrap();
        assert_eq!(
            verdict,
            if right {
                "ঠিক উত্তর!"
            } else {
                "হয়নি"
            },
            "{}/{}",
            q.topic,
            q.kind
        );
        assert_eq!(focused_id(&b), "practice-verdict");
        score += usize::from(right);
        if matches!(q.draft.answer, Answer::Choice { .. })
            && !dir.join("set-choice-1366x768.png").exists()
        {
            b.screenshot(&dir.join("set-choice-1366x768.png"));
        }
        if i == 3 {
            // "Show me": the lab with the question's parameters; Back: the same place.
            let show = q.draft.show.as_ref().unwrap();
            b.click(".practice-show");
            b.wait(30, "the lab's address", |b| b.url().ends_with(&show.hash()));
            let lab = format!(".lab-{}[aria-busy=false]", show.lab);
            b.wait(60, "the lab", |b| b.exists(&lab));
            b.js("history.back()", json!([]));
            b.wait(60, "back at the answered question", |b| {
                b.exists(&sel) && b.exists(".practice-verdict")
            });
            b.js(
                "document.querySelector('.practice-next').focus()",
                json!([]),
            );
        } else {
            b.press(key::TAB);
            assert_eq!(
                b.js(
                    "return document.activeElement.classList.contains('practice-next')",
                    json!([])
                ),
                json!(true),
                "Tab from the verdict reaches next"
            );
        }
        b.press(key::ENTER);
    }
    b.wait(30, "the score", |b| b.exists(".practice-score-n"));
    assert_eq!(focused_id(&b), "practice-score-h");
    assert_eq!(
        b.js(
            "return document.querySelector('.practice-score-n').dataset.n",
            json!([])
        ),
        json!(score.to_string())
    );
    let code = b
        .js(
            "return document.getElementById('practice-result-code').dataset.code",
            json!([]),
        )
        .as_str()
        .unwrap()
        .to_string();
    let report = set::check(&code).unwrap_or_else(|e| panic!("{code}: {e}"));
    assert_eq!((report.score as usize, report.seed), (score, 42));
    let forged = code.replacen(&format!("-{score}-"), "-10-", 1);
    assert!(set::check(&forged).is_err(), "{forged} accepted");
    b.screenshot(&dir.join("score-1366x768.png"));
    assert!(b.axe_serious().is_empty(), "{:?}", b.axe_serious());
    // A reload keeps the score (the set's place is in the browser).
    b.reload();
    b.wait(30, "the score again", |b| b.exists(".practice-score-n"));
    // The list now shows this browser's tally and what to practise next.
    b.open("#/practice");
    b.wait(30, "the tally", |b| {
        b.exists(".practice-tally .practice-next-kind")
    });
    assert_no_console_errors(&b);

    // Another student, on a phone: the same link, the same first question; it fits.
    let p = Browser::new(360, 740);
    p.open(link);
    let first = format!(
        ".practice-question[data-kind={}][data-seed='{}']",
        qs[0].kind, qs[0].seed
    );
    p.wait(60, "the same first question", |b| b.exists(&first));
    assert_eq!(
        p.js(
            "return document.documentElement.scrollWidth <= window.innerWidth",
            json!([])
        ),
        json!(true)
    );
    p.screenshot(&dir.join("set-360x740.png"));
    assert_no_console_errors(&p);
}

/// The list starts a set of the chosen labs without a seed: the page draws one and writes
/// it into the address, which is then the class link.
#[test]
fn the_list_starts_a_set_of_the_chosen_labs() {
    let b = Browser::new(1366, 768);
    b.open("#/practice");
    b.wait(30, "the set form", |b| b.exists(".practice-start"));
    // Only the LRU lab: untick the others.
    b.js(
        "document.querySelectorAll('.practice-lab input').forEach(i => { i.checked = i.value === 'lru'; })",
        json!([]),
    );
    b.js(
        "document.getElementById('practice-n').value = '3'",
        json!([]),
    );
    b.click(".practice-go");
    b.wait(30, "a seeded set address", |b| {
        b.url().contains("#/practice?labs=lru&seed=") && b.url().ends_with("&n=3")
    });
    b.wait(60, "its first question", |b| {
        b.exists(".practice-set[aria-busy=false] .practice-question[data-topic=lru]")
    });
    // No lab ticked: a message, no set.
    b.open("#/practice");
    b.wait(30, "the set form", |b| b.exists(".practice-start"));
    b.js(
        "document.querySelectorAll('.practice-lab input').forEach(i => { i.checked = false; })",
        json!([]),
    );
    b.click(".practice-go");
    b.wait(10, "the message", |b| {
        b.exists(".practice-start .practice-unread")
    });
    assert!(b.url().ends_with("#/practice"));
    // A bad set address: a Bengali reason.
    b.open("#/practice?labs=nope&n=3");
    b.wait(30, "the reason", |b| {
        b.text(".practice-bad p")
            .is_some_and(|t| t.contains("nope"))
    });
    assert_no_console_errors(&b);
}

/// The eviction deck's question slide: the question the simulator writes for its seed, the
/// answer hidden; → shows the answer and why; → again runs the LRU lab at the question's
/// operations; → once more goes on to the next slide.
#[test]
fn a_question_slide_reveals_its_answer_then_runs_the_lab() {
    let d = redislab_e2e::deck("eviction");
    let i = d
        .slides
        .iter()
        .position(|s| {
            s.body.iter().any(
                |b| matches!(b, redislab_deck::Block::Container { kind, .. } if kind == "quiz"),
            )
        })
        .expect("the eviction deck has a question slide");
    let q = practice::generate("lru", "evicted", 22).unwrap();
    let b = Browser::new(1366, 768);
    b.open(&format!("#/eviction/{}", i + 1));
    b.wait(60, "the question", |b| {
        b.exists(".stage .quiz[aria-busy=false][data-kind=evicted][data-seed='22']")
    });
    assert_eq!(b.text(".stage .quiz-text").unwrap(), shown(&q.draft.text));
    let height = |b: &Browser, css: &str| b.rect(css).map_or(0.0, |r| r.height);
    assert_eq!(height(&b, ".stage .quiz-answer"), 0.0, "the answer waits");
    let dir = screenshot_dir().join("practice");
    b.screenshot(&dir.join("quiz-0-1366x768.png"));
    b.press(key::RIGHT);
    b.wait(10, "the answer", |b| height(b, ".stage .quiz-answer") > 0.0);
    assert_eq!(
        b.text(".stage .quiz-right strong").unwrap(),
        q.draft.answer.right_text()
    );
    assert!(
        b.url().ends_with(&format!("#/eviction/{}.1", i + 1)),
        "{}",
        b.url()
    );
    b.screenshot(&dir.join("quiz-1-1366x768.png"));
    b.press(key::RIGHT);
    b.wait(60, "the lab runs", |b| {
        b.exists(".stage .quiz-run .lab-lru[aria-busy=false]")
            && height(b, ".stage .quiz-run") > 100.0
    });
    // The whole slide still fits its stage.
    let overflow = b.js(
        "const s = document.querySelector('.stage .slide'); return s.scrollHeight - s.clientHeight",
        json!([]),
    );
    assert!(overflow.as_i64().unwrap_or(99) <= 1, "overflow {overflow}");
    b.screenshot(&dir.join("quiz-2-1366x768.png"));
    b.press(key::RIGHT);
    b.wait(10, "the next slide", |b| {
        b.url().ends_with(&format!("#/eviction/{}", i + 2))
    });
    assert_no_console_errors(&b);
}

/// The timeline's position and last position of the lab `id` on the page.
fn scrubber(b: &Browser, id: &str) -> (u64, u64) {
    let v = b.js(
        "const s = document.querySelector(`.lab-${arguments[0]} .scrubber`); return s ? [+s.value, +s.max] : null",
        json!([id]),
    );
    (v[0].as_u64().unwrap(), v[1].as_u64().unwrap())
}

/// Every kind's "show me" (seed 1): its lab opens with the question's parameters — no field
/// put back, no address error — at the position the question names, its step or the run's
/// end, without a console error. Each opens in a fresh page, so no earlier run is waited on.
#[test]
fn every_kinds_show_me_lands_where_it_says() {
    let b = Browser::new(1366, 768);
    let mut opened = 0;
    let mut missed = Vec::new();
    for t in practice::topics() {
        for k in t.kinds {
            let q = practice::generate(t.id, k.id, 1).unwrap();
            let Some(show) = q.draft.show.clone() else {
                continue;
            };
            let at = format!("{}/{} seed 1: {}", t.id, k.id, show.hash());
            b.open_url("about:blank");
            b.open(&show.hash());
            let lab = show.lab.clone();
            let ready = format!(".lab-{lab}[aria-busy=false] .scrubber");
            b.wait(120, &at, |b| b.exists(&ready));
            let want = |last: u64| show.at.map_or(last, |a| a as u64);
            let landed = b.wait_for(10, |b| {
                let (pos, last) = scrubber(b, &lab);
                pos == want(last)
            });
            let (pos, last) = scrubber(&b, &lab);
            if !landed {
                missed.push(format!("{at}: at {pos} of 0..={last}, not {}", want(last)));
            }
            assert!(b.text(".lab-open-error").is_none(), "{at}");
            assert!(
                b.text(&format!(".lab-{lab} .field-error")).is_none(),
                "{at}: a value was refused"
            );
            assert_no_console_errors(&b);
            opened += 1;
        }
    }
    assert!(missed.is_empty(), "{missed:#?}");
    assert!(opened > 60, "{opened} kinds show their lab");
}

#[test]
fn show_me_opens_the_lab_at_the_moment_that_decides() {
    let b = Browser::new(1366, 768);
    // A step question: the LRU step-through opens on the step whose eviction it asks about.
    let q = open_question(&b, "evicted", 42);
    let Answer::Key { key: right, .. } = &q.draft.answer else {
        panic!("evicted asks for a key")
    };
    answer(&b, right);
    let show = q.draft.show.clone().unwrap();
    let at = show.at.expect("a step question opens at its step") as u64;
    assert!(b
        .text(".practice-show")
        .unwrap()
        .contains(&redislab_deck::bn::int(show.step as i64)));
    b.click(".practice-show");
    b.wait(60, "the LRU lab", |b| {
        b.exists(".lab-lru[aria-busy=false] .scrubber")
    });
    b.wait(10, "the deciding step", |b| scrubber(b, "lru").0 == at);
    let (pos, last) = scrubber(&b, "lru");
    assert!(
        pos > 0 && pos < last,
        "step {pos} of {last}: not the start, not the end"
    );
    // The table's current row is that step, and its sentence names the evicted key.
    assert_eq!(
        b.js(
            "return [...document.querySelectorAll('.lru-table tbody tr')].findIndex(r => r.classList.contains('current'))",
            json!([])
        ),
        json!(at - 1),
        "the current row is the step"
    );
    assert!(b.text(".lab-lru").unwrap().contains(right.as_str()));

    // A whole-run question opens on the run's result.
    let q = practice::generate("stampede", "none-loads", 7).unwrap();
    let show = q.draft.show.clone().unwrap();
    assert_eq!(show.at, None);
    b.open(&show.hash());
    b.wait(60, "the stampede lab", |b| {
        b.exists(".lab-stampede[aria-busy=false] .scrubber")
    });
    b.wait(10, "its end", |b| {
        let (pos, last) = scrubber(b, "stampede");
        last > 0 && pos == last
    });

    // A bad `at` is named, and the lab opens as it would without it.
    b.open("#/lab/lru?at=x7");
    b.wait(60, "the LRU lab", |b| {
        b.exists(".lab-lru[aria-busy=false] .scrubber")
    });
    let msg = b.text(".lab-open-error").unwrap();
    assert!(msg.contains("at=x7") && msg.contains("end"), "{msg}");
    assert_eq!(scrubber(&b, "lru").0, 0);
    assert!(
        b.text(".lab-lru .field-error").is_none(),
        "`at` is no field"
    );
    assert_no_console_errors(&b);
}
