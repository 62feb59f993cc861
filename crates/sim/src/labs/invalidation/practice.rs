//! Questions on cache invalidation: how many keys an action makes unreachable (four known
//! keys by `DEL`, every list by a SCAN walk, every list at once by one `INCR` of the
//! version), how many `SCAN` calls the walk takes (multiple choice: SCAN's COUNT is a hint,
//! so the options are the run's figure and the figures a student confuses it with), and how
//! many database loads a purchase or a course edit costs under each design of the
//! two-version key. Every answer is read off the lab's own run ([`InvalidationOutput`]) of the
//! question's parameters.

use crate::labs::invalidation::{run, Action, Design, InvalidationOutput, INFO};
use crate::labs::params::Params;
use crate::practice::pick::{counts, int, until, Draw};
use crate::practice::{params, show_end, Answer, Draft, QuestionKind};

/// The invalidation lab's question kinds.
pub const KINDS: &[QuestionKind] = &[
    QuestionKind {
        id: "unreachable",
        title: "কয়টা key অচল হয়",
        make: unreachable,
    },
    QuestionKind {
        id: "scan-calls",
        title: "SCAN কয়বার ডাকতে হয়",
        make: scan_calls,
    },
    QuestionKind {
        id: "two-versions",
        title: "দুই ভার্সনে কয়টা ডেটাবেস লোড",
        make: two_versions,
    },
];

/// A keyspace as a question draws it (inside the lab's ranges, small enough to run fast).
struct Space {
    lists: u32,
    others: u32,
    count: u32,
    rtt: u32,
    seed: u32,
}

impl Space {
    fn draw(d: &mut Draw) -> Space {
        Space {
            lists: d.int(2, 30) * 10,
            others: d.int(0, 30) * 10,
            count: d.int(1, 10) * 10,
            rtt: d.int(1, 5),
            seed: d.int(0, 99_999),
        }
    }

    fn lab(&self, action: Action, viewers: u64) -> Params {
        params(
            &INFO,
            &[
                ("action", action.word().into()),
                ("lists", self.lists.to_string()),
                ("others", self.others.to_string()),
                ("count", self.count.to_string()),
                ("rtt", self.rtt.to_string()),
                ("write_ms", "0".into()),
                ("viewers", viewers.to_string()),
                ("seed", self.seed.to_string()),
            ],
        )
    }

    /// The keyspace, in Bengali.
    fn told(&self) -> String {
        format!(
            "Redis-এ কোর্স ক্যাটালগের {}টা লিস্ট key (পুরোনো ভার্সনের নামে), আর {}টা অন্য key (auth, membership …) এবং একজন স্টুডেন্টের চারটা জানা key; রাউন্ড-ট্রিপ {} ms।",
            int(self.lists.into()),
            int(self.others.into()),
            int(self.rtt.into())
        )
    }
}

fn run_of(p: &Params) -> InvalidationOutput {
    run(&p.read())
}

/// The actions the unreachable question asks about: the action, what is done (Bengali).
const ACTIONS: [(Action, &str); 3] = [
    (
        Action::Del,
        "স্টুডেন্টের চারটা জানা key একসাথে `DEL` করা হয় (`Promise.allSettled`; একটা সংযোগ আটকে থাকে, তার ক্লায়েন্ট টাইমআউটে হাল ছাড়ে)",
    ),
    (
        Action::ScanDel,
        "ক্যাটালগের লিস্টগুলোর নাম জানা নেই, তাই `SCAN … MATCH` দিয়ে খুঁজে প্রতি পাতার key `DEL` করা হয় (চলাকালে নতুন কিছু লেখা হয় না)",
    ),
    (
        Action::Version,
        "ক্যাটালগের ভার্সন key-তে একটা `INCR` — লিস্টের নাম ভার্সন দিয়ে তৈরি",
    ),
];

fn action_code(action: Action, count: u32) -> Vec<String> {
    match action {
        Action::Del => {
            vec!["DEL <auth> | DEL <access> | DEL <context> | DEL <chat>   # allSettled".into()]
        }
        Action::ScanDel => vec![
            format!("SCAN <cursor> MATCH cache:course-catalog:v1:list:* COUNT {count}"),
            "DEL <the page's keys>".into(),
        ],
        Action::Version | Action::TwoVersions => vec![
            "INCR cache:course-catalog:v1:version   # 41 -> 42".into(),
            "GET cache:course-catalog:v1:list:<filter>:v42".into(),
        ],
    }
}

fn unreachable(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 81);
    let (action, what) = d.one(&ACTIONS);
    let s = Space::draw(&mut d);
    let p = s.lab(action, 1000);
    let r = run_of(&p);
    let a = r.action(action);
    let right = i64::from(a.unreachable);
    let lists = i64::from(s.lists);
    let mut hints: Vec<(i64, String)> = match action {
        Action::Del => vec![
            (
                3,
                "টাইমআউট মানে শুধু ক্লায়েন্ট অপেক্ষা ছেড়েছে — আটকে থাকা `DEL` দেরিতে Redis-এ পৌঁছে ঠিকই চলে; চারটাই মোছে।".into(),
            ),
            (
                lists,
                "`DEL` কেবল নাম ধরে দেওয়া চারটা key মোছে — ক্যাটালগের লিস্ট ছোঁয় না।".into(),
            ),
        ],
        Action::ScanDel => vec![
            (
                lists + i64::from(s.others),
                "SCAN পুরো keyspace ঘোরে, কিন্তু `MATCH`-এ মেলা key-গুলোই ফেরত দেয় — মোছা হয় শুধু ক্যাটালগের লিস্ট।".into(),
            ),
            (
                i64::from(s.count),
                "COUNT শুধু প্রতি ডাকে কতটা ঘাঁটবে তার ইঙ্গিত — ঘোরা চলে cursor ০ হওয়া পর্যন্ত, সব লিস্ট মোছে।".into(),
            ),
        ],
        _ => vec![
            (
                0,
                "`INCR` কোনো key মোছে না, কিন্তু নতুন রিকোয়েস্ট নতুন ভার্সনের নাম বানায় — পুরোনো নামের সব লিস্ট আর কেউ খোঁজে না: অনাথ, অচল।".into(),
            ),
            (
                1,
                "একটা key বদলায় (ভার্সন), কিন্তু অচল হয় সেই ভার্সনের নামে গড়া সব লিস্ট।".into(),
            ),
        ],
    };
    hints.retain(|(v, _)| *v != right);
    Draft {
        text: format!(
            "{} পরিবর্তনের পরে {}। কয়টা key অচল হয় (মুছে, বা নতুন নাম হয়ে আর খোঁজা হয় না বলে)?",
            s.told(),
            what
        ),
        code: action_code(action, s.count),
        answer: Answer::Count { n: right, hints },
        why: match action {
            Action::Del => format!(
                "চারটা `DEL`-ই Redis-এ চলে — টাইমআউট হওয়াটাও দেরিতে পৌঁছে চলে; {}টা key মোছে, ক্যাটালগ যেমন ছিল।",
                int(right)
            ),
            Action::ScanDel => format!(
                "SCAN {}বার ডেকে পুরো keyspace ঘোরে ({}টা রাউন্ড-ট্রিপ), আর মেলা {}টা লিস্ট মোছে।",
                int(a.scan_calls.into()),
                int(a.round_trips.into()),
                int(right)
            ),
            _ => format!(
                "একটা `INCR`, একটা রাউন্ড-ট্রিপ: পুরোনো ভার্সনের নামের {}টা লিস্টই অনাথ — কেউ মোছে না, TTL-এ (৩০ s) নিজেরাই সরে।",
                int(right)
            ),
        },
        show: show_end(&p),
    }
}

fn scan_calls(seed: u32) -> Draft {
    let (s, p, r) = until(seed, 82, 100, |d| {
        let s = Space::draw(d);
        // Other keys enough that walking them shows.
        if s.others * 2 < s.lists {
            return None;
        }
        let p = s.lab(Action::ScanDel, 1000);
        let r = run_of(&p);
        let a = r.action(Action::ScanDel);
        let only = i64::from(s.lists.div_ceil(s.count));
        (i64::from(a.scan_calls) > only + 1).then_some((s, p, r))
    });
    let a = r.action(Action::ScanDel);
    let right = i64::from(a.scan_calls);
    let answer = counts(
        right,
        vec![
            (
                i64::from(s.lists.div_ceil(s.count)),
                "এটা শুধু মেলা লিস্টগুলো COUNT করে ভাগ — কিন্তু `MATCH` ছাঁকে ঘাঁটার পরে; SCAN প্রতি ডাকে মোটামুটি COUNT-টা key ঘাঁটে, মিলুক বা না মিলুক, তাই পুরো keyspace ঘুরতে হয়।".into(),
            ),
            (
                i64::from(a.round_trips),
                "এটা মোট রাউন্ড-ট্রিপ — প্রতি পাতার পরে একটা `DEL`-ও যায়; প্রশ্ন শুধু SCAN-এর।".into(),
            ),
            (
                1,
                "SCAN একবারে সব দেয় না — cursor ফেরত দেয়, ০ না আসা পর্যন্ত আবার ডাকতে হয়।".into(),
            ),
        ],
    );
    Draft {
        text: format!(
            "{} লিস্টগুলোর নাম জানা নেই: cursor ০ থেকে `SCAN … MATCH … COUNT {}` ডেকে প্রতি পাতার key `DEL` করা হয়, cursor আবার ০ না হওয়া পর্যন্ত। `SCAN` মোট কতবার ডাকা হয়?",
            s.told(),
            int(s.count.into())
        ),
        code: action_code(Action::ScanDel, s.count),
        answer,
        why: format!(
            "SCAN পুরো keyspace ঘোরে — {}টা key, প্রতি ডাকে মোটামুটি {}টা — তাই {}বার ডাকা ({}টা রাউন্ড-ট্রিপ, `DEL` সহ), যদিও মেলে কেবল {}টা লিস্ট।",
            int(i64::from(a.walked)),
            int(s.count.into()),
            int(right),
            int(a.round_trips.into()),
            int(s.lists.into())
        ),
        show: show_end(&p),
    }
}

/// The two-version question's designs: the design, the key's name told in Bengali.
const DESIGNS: [(Design, &str); 3] = [
    (Design::Course, "শুধু কোর্সের ভার্সন (cv)"),
    (Design::Student, "শুধু স্টুডেন্টের ভার্সন (sv)"),
    (Design::Both, "স্টুডেন্টের আর কোর্সের দুই ভার্সনই (sv আর cv)"),
];

fn two_versions(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 83);
    let (design, told) = d.one(&DESIGNS);
    let purchase = d.chance(50);
    let viewers = u64::from(d.int(1, 1000)) * 1000;
    let s = Space::draw(&mut d);
    let p = s.lab(Action::TwoVersions, viewers);
    let r = run_of(&p);
    let dr = r.design(design);
    let e = if purchase { dr.purchase } else { dr.edit };
    let right = e.db_loads as i64;
    let v = viewers as i64;
    let mut hints: Vec<(i64, String)> = vec![
        (
            v,
            if purchase {
                "একজনের কেনাকাটায় বদলায় শুধু তার নিজের লিস্ট — নামে তার নিজের ভার্সন থাকলে শুধু সেটাই অচল হয়।"
                    .into()
            } else {
                "কোর্স এডিটে সবার লিস্ট বদলায়, কিন্তু নামে কোর্সের ভার্সন না থাকলে কোনো key-ই অচল হয় না — সবাই পুরোনো লিস্ট পায়, ডেটাবেসে কেউ যায় না।".into()
            },
        ),
        (
            1,
            if purchase {
                "নামে স্টুডেন্টের ভার্সন নেই — একজনের কেনাকাটা জানাতে কোর্সের ভার্সনই বাড়াতে হয়, তাতে সবার key অচল, সবাই ডেটাবেসে।".into()
            } else {
                "কোর্স এডিট একজনের নয় — কোর্সের ভার্সন বাড়লে সব দর্শকের key অচল, প্রত্যেকে একবার ডেটাবেসে যায়।"
                    .into()
            },
        ),
        (
            0,
            "অচল key-এর পরের রিডে ক্যাশ মিস, সেখান থেকে ডেটাবেস লোড — এখানে অন্তত একটা key অচল হয়।".into(),
        ),
    ];
    hints.retain(|(x, _)| *x != right);
    Draft {
        text: format!(
            "{} জন স্টুডেন্ট নিজের my-courses লিস্ট দেখে; লিস্টের key-এর নামে থাকে {} — নাম বানানোর আগে ভার্সন key এক `MGET`-এ পড়া হয়। {}। তারপর সবাই আবার নিজের লিস্ট পড়লে ডেটাবেসে মোট কয়টা লোড যায়?",
            int(v),
            told,
            if purchase {
                "একজন স্টুডেন্ট একটা কোর্স কেনে (তার লিস্ট বদলায়; নামে যে ভার্সন আছে সেটাই বাড়ানো হয়)"
            } else {
                "অ্যাডমিন একটা কোর্স এডিট করে (সবার লিস্টে সেটা বদলায়; নামে যে ভার্সন আছে সেটাই বাড়ানো হয়)"
            }
        ),
        code: vec![
            "MGET <sv key> cache:course-catalog:v1:version".into(),
            match design {
                Design::Course => "GET my-courses:<student>:cv41".into(),
                Design::Student => "GET my-courses:<student>:sv3".into(),
                Design::Both => "GET my-courses:<student>:sv3:cv41".into(),
            },
        ],
        answer: Answer::Count { n: right, hints },
        why: format!(
            "এই নকশায় {}: অচল হয় {}টা key, ডেটাবেসে {}টা লোড, পুরোনো লিস্ট দেখে {} জন।",
            if purchase { "কেনাকাটায়" } else { "কোর্স এডিটে" },
            int(e.unreachable as i64),
            int(right),
            int(e.stale_reads as i64)
        ),
        show: show_end(&p),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::practice::tests::{every_seed, lab_output, Truth};
    use crate::practice::Question;

    /// What the lab's own run (through the worker protocol) says the answer is.
    fn rerun(q: &Question) -> Truth {
        let show = q.draft.show.as_ref().expect("every question shows the lab");
        let out: InvalidationOutput = lab_output(show);
        match q.kind.as_str() {
            "unreachable" => Truth::Count(i64::from(out.shown().unreachable)),
            "scan-calls" => Truth::Choice(int(out.shown().scan_calls.into())),
            "two-versions" => {
                let (id, _) = DESIGNS
                    .iter()
                    .find(|(_, t)| q.draft.text.contains(t))
                    .expect("the question names a design");
                let d = out.design(*id);
                let e = if q.draft.text.contains("কোর্স কেনে") {
                    d.purchase
                } else {
                    d.edit
                };
                Truth::Count(e.db_loads as i64)
            }
            k => panic!("no rerun for {k}"),
        }
    }

    #[test]
    fn invalidation_questions_over_1000_seeds() {
        every_seed("invalidation", rerun);
    }

    #[test]
    fn answers_vary() {
        crate::practice::tests::answers_vary("invalidation");
    }
}
