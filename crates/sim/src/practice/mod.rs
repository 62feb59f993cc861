//! Practice: predict, then run. Questions the simulator writes and grades.
//!
//! A lab registers its question kinds with [`crate::labs::lab::Lab::questions`] (one line in
//! its `Lab` impl pointing at `practice::<lab>::KINDS`). A [`QuestionKind`] turns a seed into a
//! [`Question`]: Bengali text, the parameters it is about, its answer — computed by running the
//! lab's simulation with those parameters, never written by hand — a sentence of why, and where
//! "show me" opens the lab ([`Show`]: the lab, its parameters, the timeline position that
//! decides the answer). Besides the labs, one topic asks for Redis replies over a short seeded
//! SimRedis history ([`redis`]).
//!
//! * [`topics`] — every lab with questions, then `redis`: what the practice page offers.
//! * [`SetSpec`], [`plan`], [`question`] — a question set (topics, seed, count): which kind
//!   and seed each question has, the same for everyone with the same link; the simulation
//!   worker makes one question at a time ([`start`], a job of the pseudo-lab [`JOB`]).
//! * [`grade`] — whether a response is right; [`code`] — the result code a student pastes to
//!   the instructor and `labsim practice --check` verifies.
//!
//! Everything is a pure function of its seed, natively and in wasm.

pub mod code;
pub mod pick;

pub mod broadcast;
pub mod cache;
pub mod eviction;
pub mod jitter;
pub mod lock;
pub mod lru;
pub mod redis;
pub mod sampling;
pub mod stampede;
pub mod streams;

use crate::labs::lab::{erase, AnyRun, Job, Ready};
use crate::labs::registry;
use crate::rng::Mulberry32;
use serde::{Deserialize, Serialize};

/// The `lab` of a practice job ([`Job::lab`]): not a lab, the practice module's runs.
pub const JOB: &str = "practice";
/// Questions in a set unless the link says otherwise.
pub const DEFAULT_N: usize = 10;
/// Most questions in a set.
pub const MAX_N: usize = 30;

/// One kind of question a topic asks, e.g. "which key does LRU evict at step n".
#[derive(Clone, Copy, Debug)]
pub struct QuestionKind {
    /// Id, unique in its topic (`evicted`); `:::quiz <lab> <kind>` names it.
    pub id: &'static str,
    /// What it asks, in a few Bengali words (the catalog, `labsim practice`).
    pub title: &'static str,
    /// The question of a seed.
    pub make: fn(u32) -> Draft,
}

/// A question as a kind makes it, before it is stamped with its topic, kind and seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Draft {
    /// The question, in Bengali; commands, keys and replies in backticks.
    pub text: String,
    /// Lines shown as code under the question (operations, a Redis history).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub code: Vec<String>,
    /// The answer.
    pub answer: Answer,
    /// One sentence on why, shown with the answer.
    pub why: String,
    /// The code lines again, each with what the simulation did (shown with the answer).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reveal: Vec<String>,
    /// Where "show me" opens, if a lab shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub show: Option<Show>,
}

/// One question.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Question {
    /// Its topic: a lab's id, or `redis`.
    pub topic: String,
    /// Its kind ([`QuestionKind::id`]).
    pub kind: String,
    /// The seed it was made from.
    pub seed: u32,
    /// What the kind made.
    #[serde(flatten)]
    pub draft: Draft,
}

/// What the right answer is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Answer {
    /// One of several options (each different, the right one among them).
    Choice {
        /// The options as shown, in order.
        options: Vec<String>,
        /// Index of the right one.
        correct: usize,
    },
    /// A number, right within `within` of `value`.
    Number {
        /// The simulation's value.
        value: f64,
        /// How far off still counts as right.
        within: f64,
        /// Decimal places to show it with.
        places: usize,
        /// Its unit as shown after it (`%`, or empty).
        unit: String,
    },
}

impl Answer {
    /// The right answer as shown.
    pub fn right_text(&self) -> String {
        match self {
            Answer::Choice { options, correct } => options[*correct].clone(),
            Answer::Number {
                value,
                places,
                unit,
                ..
            } => format!("{}{unit}", crate::bn::dec(*value, *places)),
        }
    }
}

/// Where "show me" opens: a lab with the question's parameters, at the timeline position
/// that decides it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Show {
    /// The lab's id.
    pub lab: String,
    /// Its parameters (the lab's address query).
    pub query: String,
    /// The timeline position to open at (`None`: where the lab opens by itself).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<usize>,
}

/// The address key of the timeline position a lab page opens at (not a field: the labs
/// module takes it off the query before the lab reads its parameters).
pub const AT: &str = "at";

impl Show {
    /// The lab's query with the position: what `#/lab/<lab>?…` carries.
    pub fn query_at(&self) -> String {
        match self.at {
            Some(at) if self.query.is_empty() => format!("{AT}={at}"),
            Some(at) => format!("{}&{AT}={at}", self.query),
            None => self.query.clone(),
        }
    }

    /// The lab page's address.
    pub fn hash(&self) -> String {
        let q = self.query_at();
        if q.is_empty() {
            format!("#/lab/{}", self.lab)
        } else {
            format!("#/lab/{}?{q}", self.lab)
        }
    }
}

/// Takes the timeline position ([`AT`]) off a lab's query: the query without it, and the
/// position if it was there and is a number.
pub fn split_at(query: &str) -> (String, Option<usize>) {
    let mut at = None;
    let rest: Vec<&str> = query
        .split('&')
        .filter(|pair| {
            let Some(v) = pair.strip_prefix(AT).and_then(|r| r.strip_prefix('=')) else {
                return true;
            };
            at = v.parse().ok().or(at);
            false
        })
        .collect();
    (rest.join("&"), at)
}

/// A student's response to one question.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Response {
    /// Chose option `i`.
    Choice(usize),
    /// Typed a number.
    Number(f64),
    /// Went on without answering.
    Skip,
}

/// Whether `r` is the right answer to `q`.
pub fn grade(q: &Question, r: &Response) -> bool {
    match (&q.draft.answer, r) {
        (Answer::Choice { correct, .. }, Response::Choice(i)) => i == correct,
        (Answer::Number { value, within, .. }, Response::Number(x)) => {
            x.is_finite() && (x - value).abs() <= *within + 1e-9
        }
        _ => false,
    }
}

/// A topic of practice: a lab with questions, or the Redis replies.
#[derive(Clone, Copy, Debug)]
pub struct Topic {
    /// Id (the lab's id, or `redis`).
    pub id: &'static str,
    /// Title, in Bengali.
    pub title: &'static str,
    /// Its kinds of question.
    pub kinds: &'static [QuestionKind],
}

/// Every topic: the registry's labs that have questions, in its order, then `redis`.
pub fn topics() -> Vec<Topic> {
    registry::LABS
        .iter()
        .filter(|l| !l.questions().is_empty())
        .map(|l| Topic {
            id: l.info().id,
            title: l.info().title,
            kinds: l.questions(),
        })
        .chain([redis::TOPIC])
        .collect()
}

/// The topic with this id.
pub fn topic(id: &str) -> Option<Topic> {
    topics().into_iter().find(|t| t.id == id)
}

/// Question `kind` of `topic` for `seed`.
///
/// # Errors
/// A message naming the unknown topic or kind (with what there is).
pub fn generate(topic_id: &str, kind: &str, seed: u32) -> Result<Question, String> {
    let t = topic(topic_id).ok_or_else(|| {
        let ids: Vec<&str> = topics().iter().map(|t| t.id).collect();
        format!("no practice topic `{topic_id}` ({})", ids.join(", "))
    })?;
    let k = t.kinds.iter().find(|k| k.id == kind).ok_or_else(|| {
        let ids: Vec<&str> = t.kinds.iter().map(|k| k.id).collect();
        format!("`{topic_id}` has no question kind `{kind}` ({})", ids.join(", "))
    })?;
    Ok(Question {
        topic: t.id.into(),
        kind: k.id.into(),
        seed,
        draft: (k.make)(seed),
    })
}

/// A question set: which topics, which seed, how many. Its query is the practice page's
/// address (`labs=lru,lock&seed=42&n=8`), so a link gives everyone the same questions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetSpec {
    /// Topic ids, in [`topics`] order; empty means every topic.
    pub topics: Vec<String>,
    /// The set's seed.
    pub seed: u32,
    /// Questions in the set.
    pub n: usize,
}

impl SetSpec {
    /// Reads `labs=lru,lock&seed=42&n=8` (`labs` absent or `all`: every topic; `n` absent:
    /// [`DEFAULT_N`]); other keys (`i`, the question asked) are left to the caller.
    ///
    /// # Errors
    /// A Bengali message naming what is wrong: an unknown topic, a seed or count that is not
    /// a number in range, a missing seed.
    pub fn from_query(query: &str) -> Result<Self, String> {
        let mut topics = Vec::new();
        let mut seed = None;
        let mut n = DEFAULT_N;
        let known = self::topics();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            match k {
                "labs" => {
                    for id in v.split([',', '.']).filter(|s| !s.is_empty()) {
                        if id == "all" {
                            continue;
                        }
                        if !known.iter().any(|t| t.id == id) {
                            let ids: Vec<&str> = known.iter().map(|t| t.id).collect();
                            return Err(format!(
                                "`{}` নামে কোনো ল্যাবের প্রশ্ন নেই; আছে: {}",
                                short(id),
                                ids.join(", ")
                            ));
                        }
                        if !topics.iter().any(|t| t == id) {
                            topics.push(id.to_string());
                        }
                    }
                }
                "seed" => {
                    seed = Some(v.parse::<u32>().map_err(|_| {
                        format!("seed `{}` কোনো পূর্ণসংখ্যা নয় (০ থেকে ৪২৯৪৯৬৭২৯৫)", short(v))
                    })?)
                }
                "n" => {
                    n = v
                        .parse::<usize>()
                        .ok()
                        .filter(|n| (1..=MAX_N).contains(n))
                        .ok_or_else(|| {
                            format!(
                                "প্রশ্নের সংখ্যা `{}` চলে না: ১ থেকে {} দিন",
                                short(v),
                                crate::bn::int(MAX_N as i64)
                            )
                        })?
                }
                _ => {}
            }
        }
        // Topics in the catalog's order, whatever order the link wrote them in.
        topics.sort_by_key(|id| known.iter().position(|t| t.id == id));
        if topics.len() == known.len() {
            topics.clear();
        }
        let seed = seed.ok_or("seed নেই")?;
        Ok(SetSpec { topics, seed, n })
    }

    /// The query that gives this set.
    pub fn to_query(&self) -> String {
        let labs = if self.topics.is_empty() {
            "all".to_string()
        } else {
            self.topics.join(",")
        };
        format!("labs={labs}&seed={}&n={}", self.seed, self.n)
    }

    /// The topics it draws from (every topic when none is named).
    pub fn topic_ids(&self) -> Vec<&'static str> {
        let all = topics();
        if self.topics.is_empty() {
            all.iter().map(|t| t.id).collect()
        } else {
            all.iter()
                .filter(|t| self.topics.iter().any(|id| id == t.id))
                .map(|t| t.id)
                .collect()
        }
    }
}

fn short(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).take(24).collect()
}

/// One question of a set: its topic, kind and seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Topic id.
    pub topic: &'static str,
    /// Kind id.
    pub kind: &'static str,
    /// The question's seed.
    pub seed: u32,
}

/// Seeded shuffle (Fisher–Yates).
fn shuffle<T>(v: &mut [T], rng: &mut Mulberry32) {
    for i in (1..v.len()).rev() {
        let j = rng.below(i as u32 + 1) as usize;
        v.swap(i, j);
    }
}

/// The set's questions: topics taken in turn (a fresh seeded order each round), each
/// topic's kinds in turn (a fresh seeded order each time they are used up), each question
/// its own seed. The same spec gives the same slots everywhere.
pub fn plan(spec: &SetSpec) -> Vec<Slot> {
    let all = topics();
    let ids = spec.topic_ids();
    let chosen: Vec<Topic> = all.into_iter().filter(|t| ids.contains(&t.id)).collect();
    let mut rng = Mulberry32::new(spec.seed ^ 0x9E37_79B9);
    let mut queues: Vec<Vec<&'static str>> = vec![Vec::new(); chosen.len()];
    let mut order: Vec<usize> = Vec::new();
    let mut out = Vec::with_capacity(spec.n);
    while out.len() < spec.n && !chosen.is_empty() {
        if order.is_empty() {
            order = (0..chosen.len()).collect();
            shuffle(&mut order, &mut rng);
            order.reverse();
        }
        let ti = order.pop().expect("refilled");
        let t = &chosen[ti];
        if queues[ti].is_empty() {
            queues[ti] = t.kinds.iter().map(|k| k.id).collect();
            shuffle(&mut queues[ti], &mut rng);
        }
        let kind = queues[ti].pop().expect("refilled");
        out.push(Slot {
            topic: t.id,
            kind,
            seed: rng.next_u32(),
        });
    }
    out
}

/// Question `i` (0-based) of the set.
///
/// # Errors
/// When `i` is past the set's end.
pub fn question(spec: &SetSpec, i: usize) -> Result<Question, String> {
    let slots = plan(spec);
    let s = slots
        .get(i)
        .ok_or_else(|| format!("the set has {} questions, not {}", slots.len(), i + 1))?;
    generate(s.topic, s.kind, s.seed)
}

/// A topic and its kinds, as the practice page lists them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopicInfo {
    /// Id.
    pub id: String,
    /// Title, in Bengali.
    pub title: String,
    /// Its kinds: (id, title).
    pub kinds: Vec<(String, String)>,
}

/// Every topic with its kinds.
pub fn catalog() -> Vec<TopicInfo> {
    topics()
        .iter()
        .map(|t| TopicInfo {
            id: t.id.into(),
            title: t.title.into(),
            kinds: t
                .kinds
                .iter()
                .map(|k| (k.id.into(), k.title.into()))
                .collect(),
        })
        .collect()
}

/// What a practice job asks for ([`Job::run`]).
pub mod runs {
    /// The catalog: [`super::catalog`].
    pub const TOPICS: &str = "topics";
    /// One question of a set: the query is the set's plus `i=<index>`.
    pub const QUESTION: &str = "question";
}

/// A practice job for the simulation worker: `run` is [`runs::TOPICS`] or
/// [`runs::QUESTION`] (with the set's query and `i`).
pub fn job(run: &str, query: String) -> Job {
    Job {
        lab: JOB.into(),
        run: run.into(),
        query,
        live_scale: None,
        live_url: None,
    }
}

/// Starts a practice job in the worker: the catalog, or one question (ready at once: a
/// question's simulation is small, well under the worker's slice).
///
/// # Errors
/// A message for an unknown run, a bad set or an index past its end.
pub fn start(job: &Job) -> Result<Box<dyn AnyRun>, String> {
    match job.run.as_str() {
        runs::TOPICS => Ok(erase(Ready::new(catalog()))),
        runs::QUESTION => {
            let spec = SetSpec::from_query(&job.query)?;
            let i = job
                .query
                .split('&')
                .find_map(|p| p.strip_prefix("i="))
                .and_then(|v| v.parse::<usize>().ok())
                .ok_or("no question index `i`")?;
            Ok(erase(Ready::new(question(&spec, i)?)))
        }
        other => Err(format!("practice has no run `{other}`")),
    }
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

/// "Show me" for the lab of `p`, at timeline position `at`.
pub(crate) fn show(p: &crate::labs::params::Params, at: Option<usize>) -> Option<Show> {
    Some(Show {
        lab: p.lab().id.into(),
        query: p.to_query(),
        at,
    })
}

/// What `labsim practice` prints for question `q`, numbered `n` (text for instructors).
pub fn text(n: usize, q: &Question) -> String {
    let d = &q.draft;
    let mut s = format!("{n}. [{} / {} / seed {}]\n   {}\n", q.topic, q.kind, q.seed, d.text);
    for line in &d.code {
        s.push_str(&format!("     {line}\n"));
    }
    if let Answer::Choice { options, correct } = &d.answer {
        for (i, o) in options.iter().enumerate() {
            let mark = if i == *correct { "*" } else { " " };
            s.push_str(&format!("   {mark}{}) {o}\n", char::from(b'a' + i as u8)));
        }
    }
    s.push_str(&format!("   answer: {}\n   why: {}\n", d.answer.right_text(), d.why));
    if let Some(show) = &d.show {
        s.push_str(&format!("   show me: {}\n", show.hash()));
    }
    s
}

#[cfg(test)]
pub(crate) mod tests;
