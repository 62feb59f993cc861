//! Class mode's wire: the typed messages between a page and the proxy's `/class` socket
//! (`docs/class-mode.md`), and the pure parts both sides and the tests share — the join
//! code, the generated pseudonyms, the answer chart and the practice set's report.
//!
//! A page never sends a Redis command in class mode: it sends one of the [`Op`]s below,
//! and the proxy does the Redis work (its own scripts, on the class' keys). Every message is
//! one JSON object: `{"id": 3, "op": "join", "code": "482917", "name": "রিয়া"}` up, and
//! `{"t": "joined", …}`, `{"t": "view", …}`, … down ([`Down`]). Unknown fields are refused.
//!
//! Plain data and serde, like [`crate::wire`]: the app and the proxy (and its tests) read the
//! same types.

mod cue;
pub use cue::Cue;

use crate::bn;
use crate::practice::{grade, Answer, Question, Show};
use serde::{Deserialize, Serialize};

/// Digits in a join code.
pub const CODE_DIGITS: usize = 6;
/// The longest display name a student may choose (characters).
pub const MAX_NAME: usize = 24;
/// The longest answer a student may send (bytes).
pub const MAX_ANSWER: usize = 200;
/// The longest practice-set answer (bytes), and the most answers a result carries.
pub const MAX_SET_ANSWER: usize = 64;
/// …
pub const MAX_SET_ANSWERS: usize = crate::practice::set::MAX_N as usize;
/// The largest view an instructor may publish (bytes of its JSON).
pub const MAX_VIEW: usize = 24 * 1024;

/// A join code as typed: Bengali or ASCII digits, spaces and dashes anywhere; `None` unless
/// it is exactly [`CODE_DIGITS`] digits.
pub fn read_code(typed: &str) -> Option<String> {
    let c: String = bn::ascii(typed)
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .collect();
    (c.len() == CODE_DIGITS && c.bytes().all(|b| b.is_ascii_digit())).then_some(c)
}

/// A code as the join card shows it, in two groups of three: `৪৮২ ৯১৭`.
pub fn code_bn(code: &str) -> String {
    let d = bn::text(code);
    let mid = d.char_indices().nth(3).map_or(d.len(), |(i, _)| i);
    format!("{} {}", &d[..mid], &d[mid..])
}

/// The proxy's class socket for a page at `page` (`http://h:8080/x/#/y` → `ws://h:8080/x/class`).
pub fn ws_url(page: &str) -> String {
    let ws = crate::wire::ws_url(page);
    format!("{}class", ws.strip_suffix("ws").unwrap_or(&ws))
}

/// The name a student who chose none is shown by: a bird and their number (`দোয়েল ১২`).
pub fn pseudonym(who: u32) -> String {
    const BIRDS: [&str; 12] = [
        "দোয়েল",
        "শালিক",
        "টিয়া",
        "ময়না",
        "কোকিল",
        "মাছরাঙা",
        "বুলবুলি",
        "চড়ুই",
        "ঘুঘু",
        "বক",
        "টুনটুনি",
        "বাবুই",
    ];
    format!(
        "{} {}",
        BIRDS[who as usize % BIRDS.len()],
        bn::int(i64::from(who))
    )
}

/// A chosen name kept short and printable: control characters go, spaces are folded;
/// empty means none.
pub fn clean_name(name: &str) -> String {
    let words: Vec<&str> = name.split_whitespace().collect();
    words
        .join(" ")
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_NAME)
        .collect()
}

/// Where the instructor is: a deck, a slide (0-based) and the fragments shown.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Position {
    /// The deck's id (`production`).
    pub deck: String,
    /// The slide, from 0.
    pub slide: u32,
    /// Fragments revealed.
    pub step: u32,
}

/// How a question is answered, as a phone needs to know it (never the answer).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Form {
    /// One key.
    Key,
    /// Keys in order.
    Keys,
    /// A count.
    Count,
    /// One of these options.
    Choice {
        /// The options, in order.
        options: Vec<String>,
    },
    /// A share in percent.
    Percent,
}

impl Form {
    /// The form of `a`: what a phone shows for it.
    pub fn of(a: &Answer) -> Form {
        match a {
            Answer::Key { .. } => Form::Key,
            Answer::Keys { .. } => Form::Keys,
            Answer::Count { .. } => Form::Count,
            Answer::Choice { options, .. } => Form::Choice {
                options: options.clone(),
            },
            Answer::Percent { .. } => Form::Percent,
        }
    }
}

/// A question as the class sees it while it is open: everything but the answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Asked {
    /// Its lab, kind and seed (the question's address).
    pub topic: String,
    /// …
    pub kind: String,
    /// …
    pub seed: u32,
    /// The question, in Bengali.
    pub text: String,
    /// Code lines under it.
    #[serde(default)]
    pub code: Vec<String>,
    /// How it is answered.
    pub form: Form,
}

impl Asked {
    /// `q` without its answer.
    pub fn of(q: &Question) -> Asked {
        Asked {
            topic: q.topic.clone(),
            kind: q.kind.clone(),
            seed: q.seed,
            text: q.draft.text.clone(),
            code: q.draft.code.clone(),
            form: Form::of(&q.draft.answer),
        }
    }
}

/// One bar of the answer chart: an option, or a value as the grader read it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bar {
    /// What was answered, as the grader writes it (`ক) …`, `৩`, `C → B → A`).
    pub label: String,
    /// How many answered it.
    pub count: u32,
    /// Whether it is the right answer (the stage hides this until the reveal).
    pub right: bool,
    /// Why it is wrong (the grader's hint), empty when right.
    #[serde(default)]
    pub note: String,
}

/// The answers to a question, counted: the chart, how many answered and were right.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tally {
    /// Students who answered (the last answer of each).
    pub answered: u32,
    /// … of whom right.
    pub right: u32,
    /// Answers the grader could not read (empty, the wrong form).
    pub unreadable: u32,
    /// The bars: a choice's options in order; otherwise each value heard, most common first
    /// (at most [`Tally::MAX_BARS`], the rest in an "other" bar).
    pub bars: Vec<Bar>,
}

impl Tally {
    /// Bars a chart of values shows before it folds the rest into one.
    pub const MAX_BARS: usize = 8;

    /// Counts `answers` (each student's last) to `q` with the practice grader.
    pub fn count<'a>(q: &Question, answers: impl IntoIterator<Item = &'a str>) -> Tally {
        let mut t = Tally::default();
        if let Answer::Choice { options, right, .. } = &q.draft.answer {
            t.bars = options
                .iter()
                .enumerate()
                .map(|(i, o)| Bar {
                    label: format!("{} {o}", crate::practice::choice_label(i)),
                    count: 0,
                    right: i == *right,
                    note: String::new(),
                })
                .collect();
        }
        let mut heard: Vec<Bar> = Vec::new();
        for a in answers {
            t.answered += 1;
            let Ok(v) = grade(q, a) else {
                t.unreadable += 1;
                continue;
            };
            t.right += u32::from(v.right);
            let bars = if t.bars.is_empty() {
                &mut heard
            } else {
                &mut t.bars
            };
            match bars.iter_mut().find(|b| b.label == v.heard) {
                Some(b) => b.count += 1,
                None => bars.push(Bar {
                    label: v.heard,
                    count: 1,
                    right: v.right,
                    note: v.note,
                }),
            }
        }
        if t.bars.is_empty() {
            // Most common first; ties by label, so every page draws the same chart.
            heard.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.label.cmp(&b.label)));
            if heard.len() > Self::MAX_BARS {
                let rest: u32 = heard[Self::MAX_BARS - 1..].iter().map(|b| b.count).sum();
                heard.truncate(Self::MAX_BARS - 1);
                heard.push(Bar {
                    label: "অন্যান্য".into(),
                    count: rest,
                    right: false,
                    note: String::new(),
                });
            }
            t.bars = heard;
        }
        for b in &mut t.bars {
            if b.note.is_empty() && !b.right {
                if let Answer::Choice { options, hints, .. } = &q.draft.answer {
                    if let Some(i) = options.iter().position(|o| b.label.ends_with(o.as_str())) {
                        b.note = hints.get(i).cloned().unwrap_or_default();
                    }
                }
            }
        }
        t
    }

    /// The common wrong answers, most common first, each with the grader's hint.
    pub fn wrong(&self) -> Vec<&Bar> {
        let mut w: Vec<&Bar> = self
            .bars
            .iter()
            .filter(|b| !b.right && b.count > 0 && !b.note.is_empty())
            .collect();
        w.sort_by_key(|b| std::cmp::Reverse(b.count));
        w.truncate(3);
        w
    }
}

/// The reveal: the question with its answer (each phone grades its own answer with it), and
/// the class' tally as the instructor's page counted it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reveal {
    /// The whole question, answer included.
    pub question: Question,
    /// The answers, counted.
    pub tally: Tally,
}

/// A practice set given to the class: everyone gets the same questions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetSpec {
    /// The labs' ids; empty: every lab.
    pub labs: Vec<String>,
    /// How many questions.
    pub n: u32,
    /// The seed.
    pub seed: u32,
}

impl SetSpec {
    /// The practice set's address query (`labs=lru,lock&seed=42&n=8`).
    pub fn query(&self) -> String {
        let labs = if self.labs.is_empty() {
            "all".to_string()
        } else {
            self.labs.join(",")
        };
        format!("labs={labs}&seed={}&n={}", self.seed, self.n)
    }
}

/// What every page of the class shows now: the instructor writes it, the proxy stores it,
/// numbers it and sends it on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct View {
    /// The instructor's slide.
    pub at: Position,
    /// The open (or revealed) question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<Asked>,
    /// Its reveal, once made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reveal: Option<Reveal>,
    /// "Show me": the lab open on the stage and every phone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub show: Option<Show>,
    /// The practice set given to the class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set: Option<SetSpec>,
}

/// A page's request: its id (echoed in the reply) and what it asks.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// Chosen by the page.
    pub id: u64,
    /// The operation.
    pub op: Op,
}

/// What a page may ask of the proxy. Instructor-only operations are refused on any other
/// connection; a student's operations act for that student only (the proxy knows who they
/// are from the join, never from the message).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Op {
    /// A new class for this deck, at this view (instructor): answered [`Down::Created`].
    Create {
        /// What the class shows first.
        view: View,
        /// This page's own random id (see [`Op::Teach::tab`]).
        tab: String,
    },
    /// Take the class back with its secret (instructor, after a reload or a lost
    /// connection): answered [`Down::Taught`], then the class as it is.
    Teach {
        /// The class' code.
        code: String,
        /// The secret [`Down::Created`] gave.
        secret: String,
        /// This page's own random id: the same tab may take its class back at once; another
        /// tab is refused while this one holds it.
        tab: String,
    },
    /// Join (student): answered [`Down::Joined`], then the class' view.
    Join {
        /// The code, as typed (Bengali or ASCII digits).
        code: String,
        /// A display name; none: a pseudonym.
        #[serde(default)]
        name: String,
        /// [`Down::Joined::resume`] of an earlier join: the same student again.
        #[serde(default)]
        resume: String,
    },
    /// The new view (instructor): moves every page; `ask` opens its question (a new one,
    /// whose earlier answers are gone), `reveal` closes it for answers.
    Show {
        /// What every page shows now.
        view: View,
        /// Whether this view asks its question anew.
        #[serde(default)]
        ask: bool,
        /// Whether this view reveals the answer (no answer is taken after it).
        #[serde(default)]
        reveal: bool,
    },
    /// An answer to the open question (student); a second one replaces the first.
    Answer {
        /// The question's number ([`Down::View::q`]).
        q: u64,
        /// As typed or picked.
        value: String,
    },
    /// The student's answers to the class' practice set so far, in order.
    Results {
        /// The set's number ([`Down::View::set`]).
        set: u64,
        /// Each answer in the grader's canonical form (or as typed).
        answers: Vec<String>,
    },
    /// End the class (instructor): every page is told, every key deleted.
    End {},
}

/// Why a request was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Refusal {
    /// Not one well-formed request of the protocol (an unknown field, a missing one).
    BadRequest,
    /// Over a size bound.
    TooLarge,
    /// No class has this code (a wrong code, or the class ended).
    NoClass,
    /// The class has as many students as it takes.
    Full,
    /// Only the instructor may do this (or the secret is wrong).
    Forbidden,
    /// The class is open in another instructor tab.
    TeacherElsewhere,
    /// The question is closed (revealed, or another one asked).
    Closed,
    /// Too many joins or answers: from this student or this address.
    RateLimited,
    /// Redis cannot be reached.
    Unavailable,
}

impl Refusal {
    /// What it means, in Bengali, for the person who sees it.
    pub fn bn(self) -> &'static str {
        match self {
            Refusal::BadRequest => "বার্তাটা ঠিকমতো গড়া নয়",
            Refusal::TooLarge => "বার্তাটা সীমার চেয়ে বড়",
            Refusal::NoClass => "এই কোডে কোনো ক্লাস নেই — কোডটা আবার দেখুন, নয়তো ক্লাস শেষ হয়ে গেছে",
            Refusal::Full => "ক্লাসে আর জায়গা নেই",
            Refusal::Forbidden => "এটা শুধু শিক্ষক করতে পারেন",
            Refusal::TeacherElsewhere => {
                "ক্লাসটা আরেকটা ট্যাবে খোলা — সেখান থেকেই চালান, বা সেটা বন্ধ করে আবার চেষ্টা করুন"
            }
            Refusal::Closed => "প্রশ্নটা বন্ধ হয়ে গেছে — উত্তর আর নেওয়া হচ্ছে না",
            Refusal::RateLimited => "খুব ঘন ঘন চেষ্টা হচ্ছে — একটু পরে আবার করুন",
            Refusal::Unavailable => {
                "সার্ভার এখন Redis-এ পৌঁছাতে পারছে না — একটু পরে আপনা থেকেই আবার চেষ্টা হবে"
            }
        }
    }
}

/// How a class ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// The instructor ended it.
    Ended,
    /// Its time limit passed.
    TimeUp,
    /// Its keys are gone from Redis (a restart without persistence).
    Lost,
}

impl Ending {
    /// What a page says, in Bengali.
    pub fn bn(self) -> &'static str {
        match self {
            Ending::Ended => "শিক্ষক ক্লাস শেষ করেছেন",
            Ending::TimeUp => "ক্লাসের সময় শেষ",
            Ending::Lost => "ক্লাসটা হারিয়ে গেছে — Redis নতুন করে চালু হয়েছে, ক্লাসের তথ্য আর নেই",
        }
    }
}

/// A student as the instructor sees them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Member {
    /// Their number in the class (from 1).
    pub who: u32,
    /// The name they chose; empty: none ([`pseudonym`]).
    pub name: String,
}

impl Member {
    /// The name to show.
    pub fn shown(&self) -> String {
        if self.name.is_empty() {
            pseudonym(self.who)
        } else {
            self.name.clone()
        }
    }
}

/// What the proxy sends a page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case", deny_unknown_fields)]
pub enum Down {
    /// A request done.
    Ok {
        /// Its id.
        id: u64,
    },
    /// A request refused; nothing of it happened.
    Err {
        /// Its id (`None`: the message could not be read far enough).
        id: Option<u64>,
        /// Why.
        code: Refusal,
        /// In English, for logs and tests; pages show [`Refusal::bn`].
        message: String,
    },
    /// A class made (instructor).
    Created {
        /// The request's id.
        id: u64,
        /// The join code.
        code: String,
        /// What takes the class back after a reload ([`Op::Teach`]); never sent to anyone else.
        secret: String,
        /// When the class ends by itself (unix ms).
        ends_at: u64,
    },
    /// The instructor has the class (again).
    Taught {
        /// The request's id.
        id: u64,
        /// When it ends by itself.
        ends_at: u64,
    },
    /// A student is in.
    Joined {
        /// The request's id.
        id: u64,
        /// The class' code.
        code: String,
        /// Their number.
        you: u32,
        /// The name they are shown by.
        name: String,
        /// Keep it to come back as the same student ([`Op::Join::resume`]); it is their
        /// only key, never shown to anyone.
        resume: String,
        /// When the class ends by itself.
        ends_at: u64,
    },
    /// An answer taken.
    Answered {
        /// The request's id.
        id: u64,
        /// It replaced an earlier answer of the same student (counted once).
        changed: bool,
    },
    /// What the class shows now (after every change, and on every (re)join: the catch-up).
    View {
        /// Its number: a page ignores a view older than one it has.
        seq: u64,
        /// The open question's number (0: none asked yet).
        q: u64,
        /// Whether answers are taken.
        open: bool,
        /// The practice set's number (0: none given).
        set: u64,
        /// The view.
        view: Box<View>,
    },
    /// The class ended; the page stops following.
    Ended {
        /// How.
        why: Ending,
    },
    /// The proxy lost Redis (`false`) or has it back (`true`); a page says so.
    Redis {
        /// Whether Redis answers.
        up: bool,
    },
    /// Instructor: students connected now (presence).
    Present {
        /// How many.
        n: u32,
    },
    /// Instructor: every student so far (on taking the class).
    Roster {
        /// The students.
        students: Vec<Member>,
    },
    /// Instructor: a student joined.
    Student {
        /// Who.
        member: Member,
    },
    /// Instructor: a student's answer (their last replaces any earlier one).
    Answer {
        /// The question.
        q: u64,
        /// The student.
        who: u32,
        /// As sent.
        value: String,
    },
    /// Instructor: every answer so far to question `q` (on taking the class).
    Answers {
        /// The question.
        q: u64,
        /// (student, answer).
        all: Vec<(u32, String)>,
    },
    /// Instructor: a student's practice-set answers so far.
    Results {
        /// The set.
        set: u64,
        /// The student.
        who: u32,
        /// Their answers, in order.
        answers: Vec<String>,
    },
}

impl Request {
    /// Reads a page's message.
    ///
    /// # Errors
    /// The refusal to send back, with the message's id when it had a numeric one.
    pub fn parse(text: &str) -> Result<Request, Box<Down>> {
        let bad = |id, message: String| {
            Box::new(Down::Err {
                id,
                code: Refusal::BadRequest,
                message,
            })
        };
        let mut v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| bad(None, format!("not JSON: {e}")))?;
        let id = v
            .as_object_mut()
            .and_then(|o| o.remove("id"))
            .and_then(|i| i.as_u64());
        let Some(id) = id else {
            return Err(bad(None, "a request has a numeric `id`".into()));
        };
        let op = Op::deserialize(v).map_err(|e| bad(Some(id), format!("not a request: {e}")))?;
        Ok(Request { id, op })
    }

    /// As the page sends it.
    pub fn to_text(&self) -> String {
        let mut v = serde_json::to_value(&self.op).expect("ops serialize");
        if let Some(o) = v.as_object_mut() {
            o.insert("id".into(), self.id.into());
        }
        v.to_string()
    }
}

impl Down {
    /// As JSON text.
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).expect("server messages serialize")
    }

    /// Reads a proxy message (`None`: not one of ours).
    pub fn parse(text: &str) -> Option<Down> {
        serde_json::from_str(text).ok()
    }
}

/// One student's practice-set result, as the instructor's page grades it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scored {
    /// The student.
    pub member: Member,
    /// Answers sent.
    pub answered: u32,
    /// … right.
    pub right: u32,
    /// The kinds they got wrong (`lab/kind`), in the set's order.
    pub wrong: Vec<String>,
}

/// A practice set's results: per student, and per kind the share right.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Each student who sent answers, by number.
    pub students: Vec<Scored>,
    /// Per kind (`lab/kind`, in the set's order): answers, right.
    pub kinds: Vec<(String, u32, u32)>,
}

impl Report {
    /// Grades every student's answers to the set's `questions` (the instructor's page made
    /// them from the same spec and seed), so what counts is what the grader says, never what
    /// a phone claimed.
    pub fn grade(questions: &[Question], results: &[(Member, Vec<String>)]) -> Report {
        let mut kinds: Vec<(String, u32, u32)> = Vec::new();
        for q in questions {
            let k = format!("{}/{}", q.topic, q.kind);
            if !kinds.iter().any(|(x, ..)| *x == k) {
                kinds.push((k, 0, 0));
            }
        }
        let mut students = Vec::new();
        for (m, answers) in results {
            let mut s = Scored {
                member: m.clone(),
                answered: 0,
                right: 0,
                wrong: Vec::new(),
            };
            for (q, a) in questions.iter().zip(answers) {
                if a.trim().is_empty() {
                    continue;
                }
                let k = format!("{}/{}", q.topic, q.kind);
                let right = grade(q, a).is_ok_and(|v| v.right);
                s.answered += 1;
                s.right += u32::from(right);
                if let Some(e) = kinds.iter_mut().find(|(x, ..)| *x == k) {
                    e.1 += 1;
                    e.2 += u32::from(right);
                }
                if !right && !s.wrong.contains(&k) {
                    s.wrong.push(k);
                }
            }
            students.push(s);
        }
        students.sort_by_key(|s| s.member.who);
        Report { students, kinds }
    }

    /// As CSV (RFC 4180: fields with a comma, quote or line break are quoted): one row per
    /// student — number, name, answered, right, out of, kinds wrong.
    pub fn csv(&self, out_of: usize) -> String {
        fn field(s: &str) -> String {
            if s.contains([',', '"', '\n', '\r']) {
                format!("\"{}\"", s.replace('"', "\"\""))
            } else {
                s.to_string()
            }
        }
        let mut out = String::from("number,name,answered,right,out_of,kinds_wrong\r\n");
        for s in &self.students {
            out.push_str(&format!(
                "{},{},{},{},{},{}\r\n",
                s.member.who,
                field(&s.member.shown()),
                s.answered,
                s.right,
                out_of,
                field(&s.wrong.join(" "))
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests;
