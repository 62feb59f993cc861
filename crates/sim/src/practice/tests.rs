//! The tests every question kind is held to, over 1,000 seeds: the stated answer is what the
//! lab's own run of the question's parameters gives (through the worker protocol, as the page
//! and "show me" run it), options are unique and the right one is among them, nothing is left
//! unfilled, the same seed gives the same question, and "show me" opens the lab with values
//! it accepts. Each lab's file says how its run shows each kind's answer (its `rerun`).

use super::*;
use crate::labs::lab::{Body, Job};
use crate::labs::params::Params;
use crate::labs::work::Work;
use serde::de::DeserializeOwned;

/// Seeds every kind is tried with.
pub const SEEDS: u32 = 1000;

/// An answer as a lab's run gives it.
#[derive(Debug)]
pub enum Truth {
    /// The right option's text.
    Text(String),
    /// A count, shown as `bn::int`.
    Int(i64),
    /// A typed number's value.
    Num(f64),
}

/// The output of run `run` of the lab "show me" opens, with its parameters, through the
/// worker protocol (JSON and all), read as the lab's own type.
pub fn lab_run<T: DeserializeOwned>(show: &Show, run: &str) -> T {
    let info = registry::info(&show.lab).expect("a lab of the registry");
    let (p, errors) = Params::from_query(info, &show.query);
    assert!(errors.is_empty(), "{}: {errors:?}", show.query);
    let msgs = Work::new(Job::new(info, &p).run(run))
        .unwrap_or_else(|e| panic!("{}: {e}", show.query))
        .run_to_end();
    match msgs.last() {
        Some(Body::Done(o)) => o.read().expect("the lab's output type"),
        other => panic!("{}: no output: {other:?}", show.query),
    }
}

/// [`lab_run`] of the lab's main run.
pub fn lab_output<T: DeserializeOwned>(show: &Show) -> T {
    lab_run(show, "")
}

/// Text that a format string left behind, or a number that is not one.
fn unfilled(s: &str) -> bool {
    s.contains('{') || s.contains('}') || s.contains("NaN") || s.contains("inf") || s.trim().is_empty()
}

/// Every check on one question.
fn check(q: &Question, truth: &Truth) {
    let d = &q.draft;
    let at = format!("{}/{} seed {}", q.topic, q.kind, q.seed);
    for s in [&d.text, &d.why].into_iter().chain(&d.code).chain(&d.reveal) {
        assert!(!unfilled(s), "{at}: unfilled: {s}");
    }
    assert!(
        d.text.chars().any(|c| ('\u{0980}'..='\u{09FF}').contains(&c)),
        "{at}: not Bengali: {}",
        d.text
    );
    match (&d.answer, truth) {
        (Answer::Choice { options, correct }, t) => {
            assert!(options.len() >= 3, "{at}: {options:?}");
            assert!(*correct < options.len(), "{at}");
            for (i, o) in options.iter().enumerate() {
                assert!(!unfilled(o), "{at}: option {o:?}");
                assert!(
                    !options[..i].contains(o),
                    "{at}: option {o:?} twice: {options:?}"
                );
            }
            let want = match t {
                Truth::Text(s) => s.clone(),
                Truth::Int(n) => crate::bn::int(*n),
                Truth::Num(_) => panic!("{at}: a choice checked as a number"),
            };
            assert_eq!(options[*correct], want, "{at}: {}", d.text);
        }
        (Answer::Number { value, within, .. }, Truth::Num(v)) => {
            assert!(value.is_finite() && *within > 0.0, "{at}");
            assert!((value - v).abs() < 1e-9, "{at}: says {value}, the run {v}");
        }
        (a, t) => panic!("{at}: answer {a:?} checked with {t:?}"),
    }
    if let Some(show) = &d.show {
        let info = registry::info(&show.lab).unwrap_or_else(|| panic!("{at}: no lab {}", show.lab));
        let (p, errors) = Params::from_query(info, &show.query);
        assert!(errors.is_empty(), "{at}: {errors:?}");
        assert_eq!(p.to_query(), show.query, "{at}");
        assert_eq!(split_at(&show.query_at()), (show.query.clone(), show.at));
    }
    let json = serde_json::to_string(q).expect("a question serialises");
    assert_eq!(&serde_json::from_str::<Question>(&json).unwrap(), q, "{at}");
}

/// Every kind of `topic` over [`SEEDS`] seeds: made twice the same, checked against `rerun`.
pub fn every_seed(topic_id: &str, rerun: fn(&Question) -> Truth) {
    let t = topic(topic_id).expect("a topic");
    assert!(t.kinds.len() >= 3, "{topic_id}: fewer than three kinds");
    for k in t.kinds {
        for seed in 0..SEEDS {
            let q = generate(t.id, k.id, seed).unwrap();
            assert_eq!(q, generate(t.id, k.id, seed).unwrap(), "not the same twice");
            check(&q, &rerun(&q));
        }
    }
}

#[test]
fn kinds_are_named_once_per_topic_and_topics_once() {
    let all = topics();
    for (i, t) in all.iter().enumerate() {
        assert!(!all[..i].iter().any(|o| o.id == t.id), "topic {} twice", t.id);
        for (j, k) in t.kinds.iter().enumerate() {
            assert!(
                !t.kinds[..j].iter().any(|o| o.id == k.id),
                "{}: kind {} twice",
                t.id,
                k.id
            );
            assert!(!k.title.is_empty());
        }
    }
    assert!(registry::info(JOB).is_none(), "`practice` is not a lab's id");
    assert!(generate("lru", "nope", 1).unwrap_err().contains("evicted"));
    assert!(generate("nope", "x", 1).unwrap_err().contains("lru"));
}

#[test]
fn a_set_is_the_same_for_everyone_and_mixes_its_topics() {
    let spec = SetSpec::from_query("labs=lock,lru&seed=42&n=8").unwrap();
    assert_eq!(spec.topics, ["lru", "lock"], "the catalog's order");
    assert_eq!(spec.to_query(), "labs=lru,lock&seed=42&n=8");
    let slots = plan(&spec);
    assert_eq!(slots.len(), 8);
    assert_eq!(slots, plan(&SetSpec::from_query(&spec.to_query()).unwrap()));
    for t in ["lru", "lock"] {
        let n = slots.iter().filter(|s| s.topic == t).count();
        assert_eq!(n, 4, "{t}: topics taken in turn");
    }
    // Each topic's kinds come in turn before one repeats.
    let lru: Vec<&str> = slots.iter().filter(|s| s.topic == "lru").map(|s| s.kind).collect();
    let mut k = lru.clone();
    k.sort_unstable();
    k.dedup();
    assert_eq!(k.len(), lru.len().min(KINDS_OF_LRU), "{lru:?}");
    // Another seed, another set.
    let other = plan(&SetSpec { seed: 43, ..spec.clone() });
    assert_ne!(other, slots);
    // Every topic, the default count.
    let all = SetSpec::from_query("seed=7").unwrap();
    assert!(all.topics.is_empty() && all.n == DEFAULT_N);
    assert_eq!(SetSpec::from_query("labs=all&seed=7").unwrap(), all);
    assert_eq!(plan(&all).len(), DEFAULT_N);
    // Bad links get a Bengali message.
    for bad in ["labs=nope&seed=1", "seed=x", "seed=1&n=0", "seed=1&n=99", "labs=lru"] {
        let e = SetSpec::from_query(bad).unwrap_err();
        assert!(e.chars().any(|c| ('\u{0980}'..='\u{09FF}').contains(&c)), "{bad}: {e}");
    }
    assert!(question(&spec, 8).is_err());
}

const KINDS_OF_LRU: usize = super::lru::KINDS.len();

#[test]
fn questions_through_the_worker_protocol() {
    let spec = SetSpec::from_query("labs=lru,redis&seed=5&n=3").unwrap();
    for i in 0..3 {
        let job = job(runs::QUESTION, format!("{}&i={i}", spec.to_query()));
        let msgs = Work::new(job).unwrap().run_to_end();
        let Some(Body::Done(o)) = msgs.last() else {
            panic!()
        };
        assert_eq!(o.read::<Question>().unwrap(), question(&spec, i).unwrap());
    }
    let msgs = Work::new(job(runs::TOPICS, String::new())).unwrap().run_to_end();
    let Some(Body::Done(o)) = msgs.last() else {
        panic!()
    };
    let cat: Vec<TopicInfo> = o.read().unwrap();
    assert_eq!(cat, catalog());
    assert_eq!(cat.last().unwrap().id, "redis");
    assert!(Work::new(job("nope", String::new())).is_err());
    assert!(Work::new(job(runs::QUESTION, "seed=1".into())).is_err());
}

#[test]
fn grading_and_result_codes() {
    let spec = SetSpec::from_query("labs=lru,lock&seed=42&n=4").unwrap();
    let qs: Vec<Question> = (0..4).map(|i| question(&spec, i).unwrap()).collect();
    // Answer the first two right and the rest wrong.
    let mut letters = String::new();
    let mut score = 0;
    for (i, q) in qs.iter().enumerate() {
        let r = match &q.draft.answer {
            Answer::Choice { correct, options } => {
                Response::Choice(if i < 2 { *correct } else { (correct + 1) % options.len() })
            }
            Answer::Number { value, within, .. } => {
                Response::Number(if i < 2 { *value } else { value + within * 3.0 })
            }
        };
        let right = grade(q, &r);
        assert_eq!(right, i < 2);
        score += usize::from(right);
        letters.push(code::letter(&r, right));
    }
    let c = code::make(&spec, &letters, score);
    let ok = code::check(&c).unwrap();
    assert_eq!((ok.score, ok.spec.clone()), (2, spec.clone()));
    // Every one-character change is caught.
    for (i, ch) in c.char_indices() {
        for other in ['a', 'b', 'y', 'x', '0', '3', 'K', '.'] {
            if other == ch {
                continue;
            }
            let mut t = c.clone();
            t.replace_range(i..i + ch.len_utf8(), &other.to_string());
            assert!(code::check(&t).is_err(), "{t} passed");
        }
    }
    // A score typed in by hand.
    let forged = c.replacen("-2-", "-4-", 1);
    assert!(code::check(&forged).is_err());
    // A right checksum over a wrong score (someone with the key): the grading catches it.
    let lie = code::make(&spec, &letters, 4);
    assert!(code::check(&lie).unwrap_err().contains("score"));
    assert!(code::check("hello").is_err());
    assert!(grade(&qs[0], &Response::Skip) == false);
}

#[test]
fn show_me_addresses() {
    let s = Show {
        lab: "lru".into(),
        query: "capacity=3".into(),
        at: Some(5),
    };
    assert_eq!(s.hash(), "#/lab/lru?capacity=3&at=5");
    assert_eq!(split_at("capacity=3&at=5"), ("capacity=3".into(), Some(5)));
    assert_eq!(split_at("at=x&seed=1"), ("seed=1".into(), None));
    assert_eq!(split_at(""), (String::new(), None));
}
