//! The tests every question kind is held to, over 1,000 seeds: the stated answer is what the
//! lab's own run of the question's parameters gives (through the worker protocol, as "show
//! me" runs it), nothing is left unfilled, the same seed gives the same question, "show me"
//! opens the lab with values it accepts, and the grader takes the right answer in each of its
//! forms and refuses wrong ones with a Bengali reason. Each lab's file says how its run shows
//! each kind's answer (its `rerun`).

use super::*;
use crate::labs::lab::{Body, Job};
use crate::labs::params::Params;
use crate::labs::ui::Open;
use crate::labs::work::Work;
use serde::de::DeserializeOwned;

/// Seeds every kind is tried with.
pub const SEEDS: u32 = 1000;

/// An answer as a lab's run gives it.
#[derive(Debug)]
pub enum Truth {
    /// One key.
    Key(String),
    /// Keys in order.
    Keys(Vec<String>),
    /// A count.
    Count(i64),
    /// The right option's text.
    Choice(String),
    /// A percent.
    Percent(f64),
}

/// A response that is right (as a student might type it).
pub fn right_response(q: &Question) -> String {
    match &q.draft.answer {
        Answer::Key { key, .. } => key.clone(),
        Answer::Keys { keys, .. } => keys.join(" "),
        Answer::Count { n, .. } => n.to_string(),
        Answer::Choice { right, .. } => (right + 1).to_string(),
        Answer::Percent { value, .. } => format!("{value:.1}"),
    }
}

/// A response that is wrong.
pub fn wrong_response(q: &Question) -> String {
    match &q.draft.answer {
        Answer::Key { key, .. } => if key == "A" { "B" } else { "A" }.to_string(),
        Answer::Keys { keys, .. } => keys[..keys.len() - 1].join(" "),
        Answer::Count { n, .. } => (n + 1).to_string(),
        Answer::Choice { right, options, .. } => ((right + 1) % options.len() + 1).to_string(),
        Answer::Percent { value, within } => {
            let w = if *value + within + 1.0 <= 100.0 {
                value + within + 1.0
            } else {
                value - within - 1.0
            };
            format!("{w:.1}")
        }
    }
}

/// The output of the main run of the lab "show me" opens, with its parameters, through the
/// worker protocol (JSON and all), read as the lab's own type.
pub fn lab_output<T: DeserializeOwned>(show: &Show) -> T {
    let info = registry::info(&show.lab).expect("a lab of the registry");
    let (p, errors) = Params::from_query(info, &show.query);
    assert!(errors.is_empty(), "{}: {errors:?}", show.query);
    let msgs = Work::new(Job::new(info, &p))
        .unwrap_or_else(|e| panic!("{}: {e}", show.query))
        .run_to_end();
    match msgs.last() {
        Some(Body::Done(o)) => o.read().expect("the lab's output type"),
        other => panic!("{}: no output: {other:?}", show.query),
    }
}

/// Text that a format string left behind, or a number that is not one.
fn unfilled(s: &str) -> bool {
    s.contains('{')
        || s.contains('}')
        || s.contains("NaN")
        || s.contains("inf")
        || s.trim().is_empty()
}

fn bengali(s: &str) -> bool {
    s.chars().any(|c| ('\u{0980}'..='\u{09FF}').contains(&c))
}

/// A verdict that must be right.
fn right(q: &Question, r: &str, at: &str) {
    match grade(q, r) {
        Ok(v) => assert!(v.right && v.note.is_empty(), "{at}: {r:?} graded {v:?}"),
        Err(e) => panic!("{at}: {r:?} not read: {e}"),
    }
}

/// A verdict that must be wrong, with a Bengali reason.
fn wrong(q: &Question, r: &str, at: &str) -> Verdict {
    let v = grade(q, r).unwrap_or_else(|e| panic!("{at}: {r:?} not read: {e}"));
    assert!(!v.right, "{at}: {r:?} graded right");
    assert!(bengali(&v.note) && !unfilled(&v.note), "{at}: {r:?}: {v:?}");
    v
}

/// Every check on one question.
fn check(q: &Question, truth: &Truth) {
    let d = &q.draft;
    let at = format!("{}/{} seed {}", q.topic, q.kind, q.seed);
    for s in [&d.text, &d.why].into_iter().chain(&d.code) {
        assert!(!unfilled(s), "{at}: unfilled: {s}");
    }
    assert!(bengali(&d.text) && bengali(&d.why), "{at}: not Bengali");
    // Numbers in Bengali digits; code between backticks (a key, a worker's name `w1`) as the
    // lab writes it.
    let prose: String = d.text.split('`').step_by(2).collect();
    assert!(
        !prose.chars().any(|c| c.is_ascii_digit()),
        "{at}: ASCII digits in {}",
        d.text
    );
    match (&d.answer, truth) {
        (Answer::Key { key, hints }, Truth::Key(t)) => {
            assert_eq!(key, t, "{at}: {}", d.text);
            right(q, key, &at);
            right(q, &key.to_lowercase(), &at);
            right(q, &format!(" `{key}` "), &at);
            right(q, &format!("key {key}"), &at);
            for (k, _) in hints {
                assert_ne!(k, key, "{at}: a hint for the right key");
                let v = wrong(q, k, &at);
                assert_eq!(&v.heard, k);
            }
            // Any other key of the operations is wrong too, with a reason.
            for k in ('A'..='F').map(String::from).filter(|k| k != key) {
                wrong(q, &k, &at);
            }
        }
        (Answer::Keys { keys, .. }, Truth::Keys(t)) => {
            assert_eq!(keys, t, "{at}: {}", d.text);
            right(q, &keys.join(" "), &at);
            right(q, &keys.join(",").to_lowercase(), &at);
            right(q, &keys.join(" → "), &at);
            right(q, &keys.join("->"), &at);
            right(q, &keys.concat(), &at);
            let mut rev = keys.clone();
            rev.reverse();
            if rev != *keys {
                assert!(wrong(q, &rev.join(" "), &at).note.contains("উল্টো"), "{at}");
            }
            let mut swapped = keys.clone();
            swapped.swap(0, 1);
            if swapped != rev {
                assert!(
                    wrong(q, &swapped.join(" "), &at).note.contains("ক্রম"),
                    "{at}"
                );
            }
            let short = &keys[..keys.len() - 1];
            assert!(wrong(q, &short.join(" "), &at).note.contains("বাদ"), "{at}");
            let twice = [keys.as_slice(), &keys[..1]].concat();
            assert!(wrong(q, &twice.join(" "), &at).note.contains("দুবার"), "{at}");
        }
        (Answer::Count { n, hints }, Truth::Count(t)) => {
            assert_eq!(n, t, "{at}: {}", d.text);
            right(q, &n.to_string(), &at);
            right(q, &crate::bn::int(*n), &at);
            right(q, &format!("{}টা", crate::bn::int(*n)), &at);
            for (k, _) in hints {
                assert_ne!(k, n, "{at}: a hint for the right count");
            }
            for x in [n + 1, n + 2, n - 1].into_iter().filter(|x| *x >= 0) {
                let v = wrong(q, &x.to_string(), &at);
                assert_eq!(v.heard, crate::bn::int(x));
            }
        }
        (
            Answer::Choice {
                options,
                right: r,
                hints,
            },
            Truth::Choice(t),
        ) => {
            assert_eq!(&options[*r], t, "{at}: {}", d.text);
            assert!((2..=6).contains(&options.len()), "{at}: {options:?}");
            assert_eq!(hints.len(), options.len(), "{at}");
            for (i, o) in options.iter().enumerate() {
                assert!(!unfilled(o), "{at}: option {o}");
                assert!(
                    !options[..i].contains(o),
                    "{at}: option {o} twice: {options:?}"
                );
                if i == *r {
                    right(q, &(i + 1).to_string(), &at);
                    right(q, &choice_label(i), &at);
                    right(q, &((b'a' + i as u8) as char).to_string(), &at);
                    right(q, o, &at);
                } else {
                    let v = wrong(q, &(i + 1).to_string(), &at);
                    assert_eq!(v.note, hints[i], "{at}");
                }
            }
            assert!(grade(q, &(options.len() + 1).to_string()).is_err(), "{at}");
        }
        (Answer::Percent { value, within }, Truth::Percent(t)) => {
            assert!((value - t).abs() < 0.05 + 1e-9, "{at}: {value} vs {t}");
            assert!(*within > 0.0, "{at}");
            right(q, &format!("{value:.1}"), &at);
            right(q, &format!("{:.1}%", (value - within).max(0.0)), &at);
            right(q, &crate::bn::dec(*value, 1), &at);
            wrong(q, &wrong_response(q), &at);
        }
        (a, t) => panic!("{at}: answer {a:?} checked with {t:?}"),
    }
    assert!(grade(q, "").is_err() && grade(q, "   ").is_err(), "{at}");
    if let Some(show) = &d.show {
        let info = registry::info(&show.lab).unwrap_or_else(|| panic!("{at}: no lab {}", show.lab));
        let (p, errors) = Params::from_query(info, &show.query);
        assert!(errors.is_empty(), "{at}: {errors:?}");
        assert_eq!(p.to_query(), show.query, "{at}");
        let (query, open) = crate::labs::ui::split_open(show.hash().split_once('?').unwrap().1);
        assert_eq!(query, show.query, "{at}");
        let want = show.at.map_or(Open::End, Open::At);
        assert_eq!(open, Some(Ok(want)), "{at}");
        assert!(show.step >= 1 || show.at.is_none(), "{at}");
    }
    let json = serde_json::to_string(q).expect("a question serialises");
    assert_eq!(&serde_json::from_str::<Question>(&json).unwrap(), q, "{at}");
    assert_eq!(
        place(
            &format!("{}/{}", q.topic, q.kind),
            &format!("seed={}", q.seed)
        ),
        Ok(Place::Question {
            topic: q.topic.clone(),
            kind: q.kind.clone(),
            seed: q.seed
        })
    );
}

/// Every kind of `topic` over [`SEEDS`] seeds, checked against `rerun`; every tenth seed is
/// made twice and must be the same (a kind is a pure function of its seed: the tenth is
/// enough to catch one that is not, at a third less of the suite's time).
pub fn every_seed(topic_id: &str, rerun: fn(&Question) -> Truth) {
    let t = topic(topic_id).expect("a topic");
    assert!(!t.kinds.is_empty(), "{topic_id}: no kinds");
    for k in t.kinds {
        let mut texts = std::collections::BTreeSet::new();
        for seed in 0..SEEDS {
            let q = generate(t.id, k.id, seed).unwrap();
            if seed % 10 == 0 {
                assert_eq!(q, generate(t.id, k.id, seed).unwrap(), "not the same twice");
            }
            check(&q, &rerun(&q));
            texts.insert(q.draft.text.clone() + &q.draft.code.concat());
        }
        assert!(
            texts.len() > SEEDS as usize / 2,
            "{topic_id}/{}: only {} different questions",
            k.id,
            texts.len()
        );
    }
}

/// Over 60 seeds, every kind of `topic_id` has at least two different answers: a question
/// whose answer is always the same teaches nothing.
pub fn answers_vary(topic_id: &str) {
    for k in topic(topic_id).expect("a topic").kinds {
        let answers: std::collections::BTreeSet<String> = (0..60)
            .map(|s| {
                generate(topic_id, k.id, s)
                    .unwrap()
                    .draft
                    .answer
                    .right_text()
            })
            .collect();
        assert!(answers.len() >= 2, "{topic_id}/{}: {answers:?}", k.id);
    }
}

/// `query` with `key` set to `value` (a lab's address with one parameter changed).
pub fn with_value(query: &str, key: &str, value: &str) -> String {
    let pairs = redislab_address::pairs(query).map(|(k, v)| (k, if k == key { value } else { v }));
    redislab_address::join(pairs)
}

#[test]
fn kinds_are_named_once_per_topic_and_topics_once() {
    let all = topics();
    assert!(all.iter().any(|t| t.id == "lru"));
    for (i, t) in all.iter().enumerate() {
        assert!(
            !all[..i].iter().any(|o| o.id == t.id),
            "topic {} twice",
            t.id
        );
        for (j, k) in t.kinds.iter().enumerate() {
            assert!(
                !t.kinds[..j].iter().any(|o| o.id == k.id),
                "{}: kind {} twice",
                t.id,
                k.id
            );
            assert!(bengali(k.title));
        }
    }
    assert!(generate("lru", "nope", 1).unwrap_err().contains("evicted"));
    assert!(generate("nope", "x", 1).unwrap_err().contains("lru"));
}

#[test]
fn addresses_and_bad_ones() {
    assert_eq!(place("", ""), Ok(Place::Index));
    assert_eq!(place("/", ""), Ok(Place::Index));
    assert!(place("/", "x=1").unwrap_err().contains("`x`"));
    assert_eq!(
        place("", "labs=lru&seed=3"),
        Ok(Place::Set(set::Spec {
            labs: vec!["lru".into()],
            seed: Some(3),
            n: set::DEFAULT_N
        }))
    );
    assert_eq!(
        place("lru/order", ""),
        Ok(Place::Fresh {
            topic: "lru".into(),
            kind: "order".into()
        })
    );
    assert_eq!(
        place("lru/hits", "seed=4294967295"),
        Ok(Place::Question {
            topic: "lru".into(),
            kind: "hits".into(),
            seed: u32::MAX
        })
    );
    for (path, query, says) in [
        ("nope/evicted", "seed=1", "nope"),
        ("lru/nope", "seed=1", "evicted"),
        ("lru", "", "evicted"),
        ("nope", "", "lru"),
        ("lru/hits", "seed=-1", "seed"),
        ("lru/hits", "seed=4294967296", "seed"),
        ("lru/hits", "seed=abc", "abc"),
        ("lru/hits", "seed=1&colour=red", "colour"),
        ("lru/hits/3", "", "practice/lru/hits/3"),
    ] {
        let e = place(path, query).unwrap_err();
        assert!(bengali(&e) && e.contains(says), "{path}?{query}: {e}");
    }
    let q = generate("lru", "hits", 42).unwrap();
    assert_eq!(address("lru", "hits", 42), "#/practice/lru/hits?seed=42");
    let (t, k, s) = next(&q);
    assert_eq!((t.as_str(), k.as_str()), ("lru", "fifo"));
    assert_ne!(s, 42);
    assert_eq!(
        next(&q),
        (t, k, s),
        "the next question is fixed by this one"
    );
}

/// One question pinned to its text: a change in how a kind draws shows here first (and the
/// browser test compares the page with these same functions).
#[test]
fn a_pinned_question() {
    let q = generate("lru", "evicted", 42).unwrap();
    let t = text(&q);
    assert!(t.starts_with("[lru / evicted / seed 42]\nLRU ক্যাশে "), "{t}");
    assert!(t.contains("answer: "), "{t}");
    assert!(q
        .draft
        .show
        .as_ref()
        .unwrap()
        .hash()
        .starts_with("#/lab/lru?"));
}

#[test]
fn the_grader_reads_every_form_and_refuses_the_unreadable() {
    let q = |answer: Answer| Question {
        topic: "lru".into(),
        kind: "t".into(),
        seed: 0,
        draft: Draft {
            text: "প্রশ্ন".into(),
            code: vec![],
            answer,
            why: "কারণ".into(),
            show: None,
        },
    };
    let count = q(Answer::Count {
        n: 1200,
        hints: vec![(7, "সাত নয়।".into())],
    });
    for r in ["1200", "১২০০", "১,২০০", "1,200", " ১২০০টা ", "1200 টি"]
    {
        assert!(grade(&count, r).unwrap().right, "{r}");
    }
    assert_eq!(grade(&count, "7").unwrap().note, "সাত নয়।");
    assert!(grade(&count, "1300").unwrap().note.contains("বেশি"));
    assert!(grade(&count, "১১০০").unwrap().note.contains("কম"));
    for bad in ["", "অনেক", "12 13", "x"] {
        let e = grade(&count, bad).unwrap_err();
        assert!(bengali(&e), "{bad}: {e}");
    }
    let three = q(Answer::Count {
        n: 3,
        hints: vec![],
    });
    for r in ["তিন", "তিনটা", "three", "Three", "৩"] {
        assert!(grade(&three, r).unwrap().right, "{r}");
    }
    assert!(!grade(&three, "চার").unwrap().right);
    let key = q(Answer::Key {
        key: "B".into(),
        hints: vec![("A".into(), "A নয়।".into())],
    });
    for r in ["B", "b", "`B`", "key B", "'b'", " B।"] {
        assert!(grade(&key, r).unwrap().right, "{r}");
    }
    assert_eq!(grade(&key, "a").unwrap().note, "A নয়।");
    assert!(grade(&key, "Z").unwrap().note.contains("`Z`"));
    for bad in ["A B", "ক", ""] {
        assert!(bengali(&grade(&key, bad).unwrap_err()), "{bad}");
    }
    let keys = q(Answer::Keys {
        keys: vec!["C".into(), "A".into(), "B".into()],
        order: "প্রথমে MRU".into(),
    });
    for r in [
        "C A B",
        "c, a, b",
        "C → A → B",
        "C->A->B",
        "CAB",
        "`C` `A` `B`",
    ] {
        assert!(grade(&keys, r).unwrap().right, "{r}");
    }
    let v = grade(&keys, "C A D").unwrap();
    assert!(v.note.contains("`D`") && v.note.contains("`B`"), "{v:?}");
    assert_eq!(v.heard, "C → A → D");
    assert!(grade(&keys, "C B A").unwrap().note.contains("২ নম্বর"));
    assert!(grade(&keys, "B A C").unwrap().note.contains("উল্টো"));
    let choice = q(Answer::Choice {
        options: vec!["LRU".into(), "LFU".into(), "FIFO".into()],
        right: 1,
        hints: vec!["LRU নয়।".into(), String::new(), "FIFO নয়।".into()],
    });
    for r in ["2", "২", "খ", "খ)", "b", "B", " (b) ", "LFU", "lfu"] {
        let v = grade(&choice, r).unwrap();
        assert!(v.right && v.canon == "2", "{r}: {v:?}");
    }
    assert_eq!(grade(&choice, "ক").unwrap().note, "LRU নয়।");
    assert_eq!(grade(&choice, "3").unwrap().heard, "গ) FIFO");
    for bad in ["4", "0", "d", "ঘ", "ARC", "1 2"] {
        assert!(bengali(&grade(&choice, bad).unwrap_err()), "{bad}");
    }
    let pct = q(Answer::Percent {
        value: 39.1,
        within: 2.0,
    });
    for r in ["39.1", "৩৯.১", "41.1%", "37.1 %", "40 শতাংশ", "38"] {
        assert!(grade(&pct, r).unwrap().right, "{r}");
    }
    let v = grade(&pct, "42").unwrap();
    assert!(
        !v.right && v.note.contains("বেশি") && v.canon == "42.0",
        "{v:?}"
    );
    assert!(!grade(&pct, "36.9").unwrap().right);
    for bad in ["", "অনেক", "1.2.3", "120", "-5", "40 50"] {
        assert!(bengali(&grade(&pct, bad).unwrap_err()), "{bad}");
    }
}
