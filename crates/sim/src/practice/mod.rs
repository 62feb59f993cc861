//! Practice: predict, then run. Questions the simulator writes and grades.
//!
//! A lab registers its question kinds with [`crate::labs::lab::Lab::questions`] (one line in
//! its `Lab` impl pointing at `practice::<lab>::KINDS`). A [`QuestionKind`] turns a seed into a
//! [`Draft`]: Bengali text, the operations it is about, its answer — computed by running the
//! lab's simulation with those parameters, never written by hand — a sentence of why, what a
//! likely wrong answer misses, and where "show me" opens the lab ([`Show`]).
//!
//! * [`topics`] — every lab with questions: what the practice page offers.
//! * [`generate`] — question `kind` of a topic for a seed; one address per question
//!   (`#/practice/<topic>/<kind>?seed=N`, [`address`]).
//! * [`grade`] — reads a typed answer in any of its correct forms (Bengali or ASCII digits,
//!   keys in either case, any separator) and says, in Bengali, why a wrong one is wrong.
//!
//! Everything is a pure function of its seed, natively and in wasm.

pub mod grade;
pub mod pick;
pub mod progress;
pub mod set;

pub use grade::{grade, Verdict};

use crate::labs::registry;
use serde::{Deserialize, Serialize};

/// One kind of question a topic asks, e.g. "which key does LRU evict at step n".
#[derive(Clone, Copy, Debug)]
pub struct QuestionKind {
    /// Id, unique in its topic (`evicted`); the address names it.
    pub id: &'static str,
    /// What it asks, in a few Bengali words (the practice page's list).
    pub title: &'static str,
    /// The question of a seed.
    pub make: fn(u32) -> Draft,
}

/// A kind as the pages list it: its id and title, without the simulation that makes its
/// questions ([`QuestionKind::make`]). The practice page, the sets and class mode run in the
/// labs module on the page's main thread; they read these, so that module links no
/// simulation (the questions are made in the worker).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KindInfo {
    /// [`QuestionKind::id`].
    pub id: &'static str,
    /// [`QuestionKind::title`].
    pub title: &'static str,
}

/// A lab's kinds without their `make`: evaluated at compile time (the registry's [`TOPICS`]),
/// so no function pointer, and none of the simulation behind it, is kept.
///
/// [`TOPICS`]: crate::labs::registry::TOPICS
pub const fn light<const N: usize>(kinds: &[QuestionKind]) -> [KindInfo; N] {
    let mut out = [KindInfo { id: "", title: "" }; N];
    let mut i = 0;
    while i < N {
        out[i] = KindInfo {
            id: kinds[i].id,
            title: kinds[i].title,
        };
        i += 1;
    }
    out
}

/// A question as a kind makes it, before it is stamped with its topic, kind and seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Draft {
    /// The question, in Bengali; commands and keys in backticks.
    pub text: String,
    /// Lines shown as code under the question (the operations), exactly as written: commands
    /// and their numbers stay as Redis reads them (a kind writes step numbers in Bengali).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub code: Vec<String>,
    /// The answer, with what a wrong one misses.
    pub answer: Answer,
    /// One sentence on why, shown with the answer.
    pub why: String,
    /// Where "show me" opens, if a lab shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub show: Option<Show>,
}

/// One question.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Question {
    /// Its topic: a lab's id.
    pub topic: String,
    /// Its kind ([`QuestionKind::id`]).
    pub kind: String,
    /// The seed it was made from.
    pub seed: u32,
    /// What the kind made.
    #[serde(flatten)]
    pub draft: Draft,
}

/// What the right answer is, and what the kind knows about the likely wrong ones.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Answer {
    /// One key (`A`).
    Key {
        /// The right key.
        key: String,
        /// Why each plausible wrong key is wrong (key, Bengali sentence).
        hints: Vec<(String, String)>,
    },
    /// Keys in order (`C → B → A`).
    Keys {
        /// The right keys, in order.
        keys: Vec<String>,
        /// What the order means, in Bengali ("MRU থেকে LRU").
        order: String,
    },
    /// A count.
    Count {
        /// The right count.
        n: i64,
        /// Why each likely wrong count is wrong (count, Bengali sentence).
        hints: Vec<(i64, String)>,
    },
    /// One of a few options (multiple choice): the distractors are plausible and never the
    /// answer (each differs from the right option's text).
    Choice {
        /// The options, in the order shown (Bengali).
        options: Vec<String>,
        /// The right option's index.
        right: usize,
        /// Why each option is wrong (empty for the right one), in Bengali.
        hints: Vec<String>,
    },
    /// A share in percent, right within `within` points (a hit ratio).
    Percent {
        /// The simulator's figure, in percent.
        value: f64,
        /// How far from it an answer is still right, in points.
        within: f64,
    },
}

impl Answer {
    /// The right answer as shown (Bengali digits).
    pub fn right_text(&self) -> String {
        match self {
            Answer::Key { key, .. } => key.clone(),
            Answer::Keys { keys, .. } => list(keys),
            Answer::Count { n, .. } => crate::bn::int(*n),
            Answer::Choice { options, right, .. } => {
                format!("{} {}", choice_label(*right), options[*right])
            }
            Answer::Percent { value, .. } => format!("{}%", crate::bn::dec(*value, 1)),
        }
    }

    /// What the answer field asks for, in Bengali (its hint under the field).
    pub fn form_hint(&self) -> &'static str {
        match self {
            Answer::Key { .. } => "একটা key লিখুন, যেমন A",
            Answer::Keys { .. } => "key-গুলো ক্রমে লিখুন, যেমন C B A বা C → B → A",
            Answer::Count { .. } => "একটা সংখ্যা লিখুন, যেমন ৩ বা 3",
            Answer::Choice { .. } => "একটা বেছে নিন — তীর-কী দিয়ে সরে, তারপর Enter",
            Answer::Percent { .. } => "শতাংশে একটা সংখ্যা লিখুন, যেমন ৪২.৫ বা 42.5",
        }
    }
}

/// The label of option `i` of a multiple-choice question: `ক)`, `খ)` …
pub fn choice_label(i: usize) -> String {
    const L: [&str; 6] = ["ক", "খ", "গ", "ঘ", "ঙ", "চ"];
    format!("{})", L.get(i).copied().unwrap_or("?"))
}

/// Keys as the LRU lab shows a list, MRU first (`খালি` when none).
pub fn list(keys: &[String]) -> String {
    if keys.is_empty() {
        "খালি".into()
    } else {
        keys.join(" → ")
    }
}

/// Where "show me" opens: a lab with the question's parameters, at the moment that decides
/// the answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Show {
    /// The lab's id.
    pub lab: String,
    /// Its parameters (the lab's address query).
    pub query: String,
    /// The step (1-based) that decides the answer, as the lab numbers its steps; 0 when the
    /// whole run does (a total, a winner).
    pub step: usize,
    /// Where the lab's timeline opens (its position, the address' `at=`); `None`: at its end,
    /// the whole run's result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<usize>,
}

impl Show {
    /// The lab page's address, with where its timeline opens (`at=3`, `at=end`).
    pub fn hash(&self) -> String {
        use crate::labs::ui::{Open, OPEN_KEY};
        let at = format!("{OPEN_KEY}={}", self.at.map_or(Open::End, Open::At).word());
        redislab_address::lab_hash(&self.lab, &redislab_address::and(&[&self.query, &at]))
    }
}

/// A topic of practice: a lab with questions.
#[derive(Clone, Copy, Debug)]
pub struct Topic {
    /// Id (the lab's id).
    pub id: &'static str,
    /// Title, in Bengali.
    pub title: &'static str,
    /// Its kinds of question.
    pub kinds: &'static [KindInfo],
}

/// Every topic: the registry's labs that have questions, in its order (the light list:
/// no simulation is linked by reading it).
pub fn topics() -> Vec<Topic> {
    registry::TOPICS
        .iter()
        .filter(|t| !t.kinds.is_empty())
        .copied()
        .collect()
}

/// The topic with this id.
pub fn topic(id: &str) -> Option<Topic> {
    topics().into_iter().find(|t| t.id == id)
}

/// Keeps an echoed string short and free of control characters.
fn short(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).take(24).collect()
}

/// Question `kind` of `topic` for `seed`.
///
/// # Errors
/// A Bengali message naming the unknown topic or kind, with what there is.
pub fn generate(topic_id: &str, kind: &str, seed: u32) -> Result<Question, String> {
    let (t, k) = find(topic_id, kind)?;
    let make = registry::LABS
        .iter()
        .find(|l| l.info().id == t.id)
        .and_then(|l| l.questions().iter().find(|q| q.id == k.id))
        .map(|q| q.make)
        .ok_or_else(|| format!("`{}`/`{}`: the registry has no maker", t.id, k.id))?;
    Ok(Question {
        topic: t.id.into(),
        kind: k.id.into(),
        seed,
        draft: make(seed),
    })
}

/// The topic and kind these ids name, without making a question (an address is checked
/// on the main thread; the question is made in the worker).
///
/// # Errors
/// A Bengali message naming the unknown topic or kind, with what there is.
pub fn find(topic_id: &str, kind: &str) -> Result<(Topic, KindInfo), String> {
    let t = topic(topic_id).ok_or_else(|| {
        let ids: Vec<&str> = topics().iter().map(|t| t.id).collect();
        format!(
            "`{}` নামে কোনো ল্যাবের প্রশ্ন নেই; আছে: {}",
            short(topic_id),
            ids.join(", ")
        )
    })?;
    let k = t.kinds.iter().find(|k| k.id == kind).ok_or_else(|| {
        let ids: Vec<&str> = t.kinds.iter().map(|k| k.id).collect();
        format!(
            "`{}`-এ `{}` নামে কোনো প্রশ্ন নেই; আছে: {}",
            t.id,
            short(kind),
            ids.join(", ")
        )
    })?;
    Ok((t, *k))
}

/// The practice page's address of question `kind` of `topic` with `seed`
/// (`#/practice/lru/hits?seed=42`; the addresses' one builder).
pub use redislab_address::question_hash as address;

/// What a practice address names (the part after `#/practice`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// `#/practice`: the list of topics and kinds.
    Index,
    /// `#/practice?labs=…&seed=…&n=…`: a set of questions, one at a time, and a score.
    Set(set::Spec),
    /// `#/practice/<topic>/<kind>` with no seed: a fresh question (the page picks a seed).
    Fresh {
        /// Topic id.
        topic: String,
        /// Kind id.
        kind: String,
    },
    /// `#/practice/<topic>/<kind>?seed=N`: one question.
    Question {
        /// Topic id.
        topic: String,
        /// Kind id.
        kind: String,
        /// Its seed.
        seed: u32,
    },
}

/// Reads a practice address: `path` is what follows `#/practice/` (empty, or
/// `<topic>/<kind>`), `query` what follows `?`.
///
/// # Errors
/// A Bengali message saying what is wrong: an unknown topic or kind, a seed that is not a
/// whole number from 0 to 4294967295, an unknown key.
pub fn place(path: &str, query: &str) -> Result<Place, String> {
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let (t, k) = match parts.as_slice() {
        [] if query.is_empty() => return Ok(Place::Index),
        [] => return set::Spec::parse(query).map(Place::Set),
        [t, k] => (*t, *k),
        [t] => {
            let ids = topic(t).map(|t| t.kinds.iter().map(|k| k.id).collect::<Vec<_>>());
            return Err(match ids {
                Some(ids) => format!("কোন প্রশ্ন, তা ঠিকানায় নেই; `{t}`-এর প্রশ্ন: {}", ids.join(", ")),
                None => find(t, "").unwrap_err(),
            });
        }
        _ => return Err(format!("ঠিকানাটা চেনা গেল না: `practice/{}`", short(path))),
    };
    let (t, k) = find(t, k)?;
    let mut seed = None;
    for (key, v) in redislab_address::pairs(query) {
        match key {
            "seed" => {
                seed = Some(v.parse::<u32>().map_err(|_| {
                    format!(
                        "seed `{}` চলে না: ০ থেকে ৪২৯,৪৯,৬৭,২৯৫-এর মধ্যে একটা পূর্ণসংখ্যা দিন",
                        short(v)
                    )
                })?)
            }
            other => return Err(format!("ঠিকানায় `{}` চেনা গেল না — শুধু seed চলে", short(other))),
        }
    }
    Ok(match seed {
        Some(seed) => Place::Question {
            topic: t.id.into(),
            kind: k.id.into(),
            seed,
        },
        None => Place::Fresh {
            topic: t.id.into(),
            kind: k.id.into(),
        },
    })
}

/// The question after `q`: the topic's next kind (in turn), with a seed drawn from `q`'s.
pub fn next(q: &Question) -> (String, String, u32) {
    let t = topic(&q.topic).expect("a question's topic exists");
    let i = t.kinds.iter().position(|k| k.id == q.kind).unwrap_or(0);
    let k = t.kinds[(i + 1) % t.kinds.len()];
    let seed = crate::rng::Mulberry32::new(q.seed ^ 0x9E37_79B9).next_u32();
    (t.id.into(), k.id.into(), seed)
}

/// What `labsim`-style text prints for question `q` (for instructors and tests).
pub fn text(q: &Question) -> String {
    let d = &q.draft;
    let mut s = format!("[{} / {} / seed {}]\n{}\n", q.topic, q.kind, q.seed, d.text);
    for line in &d.code {
        s.push_str(&format!("  {line}\n"));
    }
    s.push_str(&format!(
        "answer: {}\nwhy: {}\n",
        d.answer.right_text(),
        d.why
    ));
    if let Some(show) = &d.show {
        s.push_str(&format!("show me: {}\n", show.hash()));
    }
    s
}

/// The parameters of lab `info`: its defaults with `pairs` set, each checked as the lab
/// checks a link's values.
///
/// # Panics
/// When the lab refuses a value: a kind draws its parameters inside the lab's ranges (the
/// 1,000-seed tests run every kind), so this is a programming error.
pub(crate) fn params(
    info: &'static crate::labs::lab::LabInfo,
    pairs: &[(&str, String)],
) -> crate::labs::params::Params {
    let mut p = crate::labs::params::Params::defaults(info);
    for (k, v) in pairs {
        if let Err(e) = p.set(k, v) {
            panic!("{}: {k}={v}: {e}", info.id);
        }
    }
    p
}

/// "Show me" for the lab of `p` at position `position` of its timeline (the output's
/// [`crate::labs::def::Steps`]: after `position` steps; the LRU step-through, the lock race).
pub(crate) fn show(p: &crate::labs::params::Params, position: usize) -> Option<Show> {
    Some(Show {
        lab: p.lab().id.into(),
        query: p.to_query(),
        step: position,
        at: Some(position),
    })
}

/// "Show me" for the lab of `p` when the whole run decides the answer: the lab opens on its
/// result.
pub(crate) fn show_end(p: &crate::labs::params::Params) -> Option<Show> {
    Some(Show {
        lab: p.lab().id.into(),
        query: p.to_query(),
        step: 0,
        at: None,
    })
}

#[cfg(test)]
pub(crate) mod tests;
