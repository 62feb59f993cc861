//! Questions on the lock race: how many times two workers both believe they own the lock,
//! whose lock A's `DEL` removes, and how many writes the fencing check turns away. Every
//! answer is read off the lab's own run ([`LockOutput`]) of the question's parameters.

use crate::labs::def::Steps;
use crate::labs::lock::{run, CmdKind, LockOutput, LockParams, Release, INFO};
use crate::labs::params::{Params, Switch};
use crate::practice::pick::{int, Draw};
use crate::practice::{params, show, Answer, Draft, QuestionKind};
use crate::redis::Reply;

/// The lock lab's question kinds.
pub const KINDS: &[QuestionKind] = &[
    QuestionKind {
        id: "two-owners",
        title: "কতবার একসাথে দুই মালিক",
        make: two_owners,
    },
    QuestionKind {
        id: "whose-lock",
        title: "A-র DEL কার লক মোছে",
        make: whose_lock,
    },
    QuestionKind {
        id: "fencing",
        title: "fencing কয়টা লেখা ফেরায়",
        make: fencing,
    },
    QuestionKind {
        id: "reply",
        title: "Redis কী উত্তর দেয়",
        make: reply,
    },
];

/// The key the reply question's clients share.
const LOCK_KEY: &str = "lock:report";

/// The reply question's history: `(t ms, client, command)`; the last is the one asked about.
fn history(ttl: u64, b_at: u64, last_at: u64, last: u32) -> Vec<(u64, &'static str, String)> {
    vec![
        (0, "A", format!("SET {LOCK_KEY} a1 NX PX {ttl}")),
        (b_at, "B", format!("SET {LOCK_KEY} b2 NX PX {ttl}")),
        (
            last_at,
            "C",
            match last {
                0 => format!("GET {LOCK_KEY}"),
                1 => format!("PTTL {LOCK_KEY}"),
                2 => format!("DEL {LOCK_KEY}"),
                _ => format!("SET {LOCK_KEY} c3 NX PX {ttl}"),
            },
        ),
    ]
}

/// Runs a history on a fresh SimRedis; each command's reply.
pub(crate) fn replay(h: &[(u64, &str, String)]) -> Vec<Reply> {
    let mut r = crate::redis::SimRedis::new(1);
    let mut now = 0;
    h.iter()
        .map(|(t, _, cmd)| {
            r.advance(t - now);
            now = *t;
            let args: Vec<&str> = cmd.split(' ').collect();
            r.cmd(&args)
        })
        .collect()
}

fn reply(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 24);
    let ttl = u64::from(d.one(&[500u32, 800, 1000, 1500]));
    // Half-hundreds, so no command lands on a deadline's very millisecond.
    let b_at = u64::from(d.int(1, 19)) * 100 + 50;
    let last_at = b_at + u64::from(d.int(1, 19)) * 100 + 50;
    let last = d.int(0, 3);
    let h = history(ttl, b_at, last_at, last);
    let replies = replay(&h);
    let right = replies[2].to_string();
    // Who holds the lock when C's command runs, told in Bengali.
    let b_got = b_at > ttl;
    let (holder, until) = if b_got { ("B", b_at + ttl) } else { ("A", ttl) };
    let held = last_at < until;
    let state = format!(
        "A-র লকের মেয়াদ {} ms-এ; B {} ms-এ চেষ্টা করে {} — {holder}-র লক টেকে {} ms পর্যন্ত; C-র কমান্ডের সময় ({} ms) লক {}।",
        int(ttl as i64),
        int(b_at as i64),
        if b_got {
            "পায় (A-র লক তখন মেয়াদোত্তীর্ণ)"
        } else {
            "পায় না (`NX`: key তখনো আছে)"
        },
        int(until as i64),
        int(last_at as i64),
        if held {
            format!("{holder}-র হাতে")
        } else {
            "কারও হাতে নেই".to_string()
        }
    );
    let mut options: Vec<String> = match last {
        0 => vec!["\"a1\"".into(), "\"b2\"".into(), "(nil)".into()],
        1 => vec![
            format!("(integer) {ttl}"),
            "(integer) -1".into(),
            "(integer) -2".into(),
        ],
        2 => vec!["(integer) 1".into(), "(integer) 0".into()],
        _ => vec!["OK".into(), "(nil)".into()],
    };
    if !options.contains(&right) {
        options.insert(0, right.clone());
    }
    let r_i = options
        .iter()
        .position(|o| *o == right)
        .expect("the reply is an option");
    let hints = options
        .iter()
        .enumerate()
        .map(|(i, o)| {
            if i == r_i {
                String::new()
            } else {
                let what = match o.as_str() {
                    "(nil)" if last == 0 => "`GET` nil দেয় key না থাকলে".to_string(),
                    "(nil)" => "`SET … NX` nil দেয় key থাকলে".to_string(),
                    "OK" => "`SET … NX` OK দেয় key না থাকলে".to_string(),
                    "(integer) -2" => "`PTTL` -2 দেয় key না থাকলে".to_string(),
                    "(integer) -1" => {
                        "`PTTL` -1 দেয় key থাকলে কিন্তু তার TTL না থাকলে — এখানে `PX` দিয়ে TTL বসানো"
                            .to_string()
                    }
                    "(integer) 1" => "`DEL` ১ দেয় একটা key মুছলে".to_string(),
                    "(integer) 0" => "`DEL` ০ দেয় মোছার মতো key না থাকলে".to_string(),
                    x if x.starts_with("(integer)") => {
                        "এটা পুরো TTL — `PTTL` দেয় যতটা বাকি আছে".to_string()
                    }
                    _ => format!("`{o}` লেখা থাকে অন্য ক্লায়েন্টের লকে"),
                };
                format!("{what}; {state}")
            }
        })
        .collect();
    Draft {
        text: format!(
            "A, B আর C একই লক `{LOCK_KEY}` নিয়ে কাজ করে; নিচে কে কখন (ms-এ) কোন কমান্ড পাঠায়। C-র শেষ কমান্ডে Redis কী উত্তর দেয়?"
        ),
        code: h
            .iter()
            .map(|(t, who, cmd)| format!("t={t:<5} {who}: {cmd}"))
            .collect(),
        answer: Answer::Choice {
            options,
            right: r_i,
            hints,
        },
        why: format!("{state} তাই উত্তর `{right}`।"),
        show: None,
    }
}

/// A race's parameters as the question draws them (the lab's fields, inside their ranges).
struct Race {
    ttl: u64,
    work: u64,
    jobs: u32,
    pause_at: u64,
    pause: u64,
    gap: u64,
    seed: u32,
}

impl Race {
    fn draw(d: &mut Draw) -> Race {
        Race {
            ttl: u64::from(d.one(&[800u32, 1000, 1200, 1500])),
            work: u64::from(d.int(3, 7) * 100),
            jobs: d.int(1, 2),
            pause_at: u64::from(d.int(1, 3) * 100),
            pause: u64::from(d.int(0, 20) * 100),
            gap: u64::from(d.int(0, 6) * 10),
            seed: d.int(0, 9999),
        }
    }

    /// The lab's parameters: this race with `release` and `fencing`.
    fn lab(&self, release: Release, fencing: Switch) -> Params {
        params(
            &INFO,
            &[
                ("ttl", self.ttl.to_string()),
                ("work", self.work.to_string()),
                ("jobs", self.jobs.to_string()),
                ("release", release.word().into()),
                ("heartbeat", "off".into()),
                ("fencing", fencing.word().into()),
                ("dedup", "off".into()),
                ("pause_worker", "a".into()),
                ("pause_at", self.pause_at.to_string()),
                ("pause", self.pause.to_string()),
                ("gap", self.gap.to_string()),
                ("seed", self.seed.to_string()),
            ],
        )
    }

    /// The race told in Bengali (every number in Bengali digits).
    fn told(&self, release: Release) -> String {
        format!(
            "লকের TTL {} ms। A আর B প্রত্যেকে {}টা কাজ করে, প্রতিটা {} ms; B আসে {} ms পরে। A কাজ শুরুর {} ms পরে {} ms থমকে যায় (GC)। লক ছাড়ে {}।",
            int(self.ttl as i64),
            int(self.jobs.into()),
            int(self.work as i64),
            int(self.gap as i64),
            int(self.pause_at as i64),
            int(self.pause as i64),
            if release == Release::Del {
                "সাধারণ `DEL`-এ"
            } else {
                "token মিলিয়ে, Lua স্ক্রিপ্টে"
            }
        )
    }

    /// The commands as code lines.
    fn code(&self, release: Release, fencing: bool) -> Vec<String> {
        let mut c = vec![format!("SET lock:campaign:42 <token> NX PX {}", self.ttl)];
        if fencing {
            c.push("INCR fence:campaign:42   # write with this token".into());
        }
        c.push(if release == Release::Del {
            "DEL lock:campaign:42".into()
        } else {
            "EVALSHA <release> 1 lock:campaign:42 <token>".into()
        });
        c
    }
}

fn lab_run(p: &Params) -> LockOutput {
    run(&p.read::<LockParams>())
}

/// What the pause does to the lock, in a sentence (for the hints and the why).
fn pause_vs_ttl(r: &Race) -> String {
    if r.pause == 0 {
        "A থমকায় না".to_string()
    } else if r.work + r.pause > r.ttl {
        format!(
            "A-র কাজ আর থমকানো মিলে {} ms, TTL {} ms-এর বেশি — মাঝপথে লকের মেয়াদ ফুরোয়",
            int((r.work + r.pause) as i64),
            int(r.ttl as i64)
        )
    } else {
        format!(
            "A-র কাজ আর থমকানো মিলে {} ms, TTL {} ms-এর মধ্যেই (থমকানো শুরু {} ms-এ)",
            int((r.work + r.pause) as i64),
            int(r.ttl as i64),
            int(r.pause_at as i64)
        )
    }
}

fn two_owners(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 21);
    let r = Race::draw(&mut d);
    let release = d.one(&[Release::Del, Release::Token]);
    let p = r.lab(release, Switch::Off);
    let out = lab_run(&p);
    let c = out.counters;
    let right = i64::from(c.two_owner_moments);
    let mut hints = Vec::new();
    if right > 0 {
        hints.push((
            0,
            format!(
                "{} — B তখন লক নিয়ে কাজ করে, অথচ A জানে না; টোকেন মিলিয়ে ছাড়লেও এটা ঠেকে না।",
                pause_vs_ttl(&r)
            ),
        ));
    } else {
        hints.push((
            1,
            format!(
                "{} — যে লক ধরে, সে মেয়াদের আগেই ছেড়ে দেয়, তাই দুজন একসাথে কাজ করে না।",
                pause_vs_ttl(&r)
            ),
        ));
    }
    let grants = i64::from(c.grants);
    if grants != right && grants > 0 {
        hints.push((
            grants,
            "এটা লক পাওয়ার সংখ্যা — প্রশ্ন কেবল সেই মুহূর্তগুলোর, যখন দুজনের কাজ একসাথে চলে।".into(),
        ));
    }
    let step = out.overlaps.first().map_or(out.steps(), |o| o.step + 1);
    Draft {
        text: format!(
            "{} কতবার এমন হয় যে A আর B দুজনেই নিজেকে লকের মালিক ভেবে একসাথে কাজ করছে?",
            r.told(release)
        ),
        code: r.code(release, false),
        answer: Answer::Count { n: right, hints },
        why: if right > 0 {
            format!(
                "{}; B লক পেয়ে কাজ শুরু করে, A জেগে উঠে নিজের কাজ চালিয়ে যায় — {} বার দুজনের কাজ মিলে যায়।",
                pause_vs_ttl(&r),
                int(right)
            )
        } else {
            format!(
                "{}; B লক পায় A ছেড়ে দেওয়ার পরেই, তাই দুজনের কাজ কখনো মেলে না।",
                pause_vs_ttl(&r)
            )
        },
        show: show(&p, step.max(1)),
    }
}

/// A's first `DEL` that removed a lock, and whose lock it was (`A` or `B`).
fn first_del(out: &LockOutput) -> Option<(usize, &'static str)> {
    out.commands
        .iter()
        .find(|c| c.actor == 0 && c.kind == CmdKind::Del && c.reply == Reply::Integer(1))
        .map(|c| (c.step, if c.steals { "B" } else { "A" }))
}

fn whose_lock(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 22);
    // Draw until A's DEL removes a lock at all (it finds none when the lock expired and
    // nobody took it yet); the lab's default race always has one.
    let (r, p, out) = (0..40)
        .map(|_| {
            let r = Race::draw(&mut d);
            let p = r.lab(Release::Del, Switch::Off);
            let out = lab_run(&p);
            (r, p, out)
        })
        .find(|(_, _, out)| first_del(out).is_some())
        .unwrap_or_else(|| {
            let r = Race {
                ttl: 1000,
                work: 600,
                jobs: 1,
                pause_at: 200,
                pause: 800,
                gap: 20,
                seed,
            };
            let p = r.lab(Release::Del, Switch::Off);
            let out = lab_run(&p);
            (r, p, out)
        });
    let (step, whose) = first_del(&out).expect("the default race's DEL removes B's lock");
    let other = if whose == "A" { "B" } else { "A" };
    let hint = if whose == "B" {
        format!(
            "A ভাবে লকটা তার, কিন্তু {} — ততক্ষণে B লক নিয়েছে; সাধারণ `DEL` মালিক দেখে না, যে key আছে তাকেই মোছে।",
            pause_vs_ttl(&r)
        )
    } else {
        format!(
            "{} — A-র লক তখনো টিকে আছে, B অপেক্ষায়; A-র `DEL` নিজের লকই মোছে।",
            pause_vs_ttl(&r)
        )
    };
    Draft {
        text: format!(
            "{} A কাজ শেষে প্রথম যে `DEL` পাঠায় আর যেটা একটা লক মুছে দেয় — সেটা কার লক?",
            r.told(Release::Del)
        ),
        code: r.code(Release::Del, false),
        answer: Answer::Key {
            key: whose.into(),
            hints: vec![(other.into(), hint.clone())],
        },
        why: hint,
        show: show(&p, step + 1),
    }
}

fn fencing(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 23);
    let r = Race::draw(&mut d);
    let p = r.lab(Release::Token, Switch::On);
    let out = lab_run(&p);
    let c = out.counters;
    let right = i64::from(c.writes_rejected);
    let total = i64::from(c.writes_accepted + c.writes_rejected);
    let mut hints = Vec::new();
    if right > 0 {
        hints.push((
            0,
            "B লক পেয়ে বড় token নিয়ে লিখেছে; A পুরোনো token নিয়ে পরে লিখতে এলে resource সেটা চেনে আর ফিরিয়ে দেয়।"
                .to_string(),
        ));
    } else {
        hints.push((
            1,
            format!(
                "{} — কেউ পুরোনো token নিয়ে লেখে না, তাই কিছুই ফেরে না।",
                pause_vs_ttl(&r)
            ),
        ));
    }
    if total != right && total > 0 {
        hints.push((
            total,
            "সব লেখা নয় — resource ফেরায় কেবল সেই লেখা, যার token সে আগেই দেখা বড় token-এর চেয়ে ছোট।"
                .into(),
        ));
    }
    let step = out
        .writes
        .iter()
        .find(|w| !w.accepted)
        .map_or(out.steps(), |w| w.step + 1);
    Draft {
        text: format!(
            "{} লক নেওয়ার সময় `INCR` দিয়ে fencing token নেয়, resource তার দেখা সবচেয়ে বড় token-এর চেয়ে ছোট token-এর লেখা ফিরিয়ে দেয়। সব কাজ শেষে resource কয়টা লেখা ফিরিয়ে দিয়েছে?",
            r.told(Release::Token)
        ),
        code: r.code(Release::Token, true),
        answer: Answer::Count { n: right, hints },
        why: if right > 0 {
            format!(
                "{}; B নতুন token নিয়ে লেখে, A জেগে উঠে পুরোনো token নিয়ে লিখতে আসে — {}টা লেখা ফেরত যায়।",
                pause_vs_ttl(&r),
                int(right)
            )
        } else {
            format!(
                "{}; প্রতিটা লেখা তখনকার সবচেয়ে নতুন token নিয়ে আসে, কোনোটা ফেরত যায় না।",
                pause_vs_ttl(&r)
            )
        },
        show: show(&p, step.max(1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::practice::tests::{every_seed, lab_output, Truth};
    use crate::practice::Question;

    /// What the lab's own run (through the worker protocol) says the answer is.
    fn rerun(q: &Question) -> Truth {
        let show = q
            .draft
            .show
            .as_ref()
            .expect("every lock question shows the lab");
        let out: LockOutput = lab_output(show);
        match q.kind.as_str() {
            "two-owners" => Truth::Count(i64::from(out.counters.two_owner_moments)),
            "whose-lock" => {
                Truth::Key(first_del(&out).expect("a DEL that removed a lock").1.into())
            }
            "fencing" => Truth::Count(i64::from(out.counters.writes_rejected)),
            k => panic!("no rerun for {k}"),
        }
    }

    /// The reply question's answer: its printed commands, read back and run on a fresh
    /// SimRedis at their printed times (SimRedis' replies are held to a real Redis by the
    /// differential tests).
    fn rerun_reply(q: &Question) -> Truth {
        let mut r = crate::redis::SimRedis::new(9);
        let mut now = 0u64;
        let mut last = Reply::Nil;
        for line in &q.draft.code {
            let rest = line.strip_prefix("t=").expect("t=…");
            let (t, rest) = rest.split_once(' ').expect("a time");
            let t: u64 = t.trim().parse().expect("ms");
            let cmd = rest.trim().split_once(": ").expect("who: command").1;
            r.advance(t - now);
            now = t;
            let args = crate::redis::args::split_args(cmd).expect("a command");
            let args: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
            last = r.call(&args);
        }
        Truth::Choice(last.to_string())
    }

    fn rerun_any(q: &Question) -> Truth {
        match q.kind.as_str() {
            "reply" => rerun_reply(q),
            _ => rerun(q),
        }
    }

    #[test]
    fn lock_questions_over_1000_seeds() {
        every_seed("lock", rerun_any);
    }

    #[test]
    fn answers_vary() {
        crate::practice::tests::answers_vary("lock");
    }
}
