//! Questions on failover and Redlock: whether B gets the lock too when the primary dies
//! before A's `SET` reached its asynchronous replica, how many of the five Redlock nodes say
//! OK to A (a dead node, a partition), and what the storage does with A's write after a long
//! pause (a stale write accepted, or turned away by the fencing token, or none at all).
//! Every answer is read off the lab's own run ([`RedlockOutput`]) of the question's
//! parameters.

use crate::labs::params::Params;
use crate::labs::redlock::{run, CmdKind, RedlockOutput, RedlockParams, INFO};
use crate::practice::pick::{int, options, until, Draw};
use crate::practice::{params, show, Answer, Draft, QuestionKind};
use crate::redis::Reply;

/// The Redlock lab's question kinds.
pub const KINDS: &[QuestionKind] = &[
    QuestionKind {
        id: "failover",
        title: "failover-এ B-ও lock পায়?",
        make: failover,
    },
    QuestionKind {
        id: "granted",
        title: "কয়টা node OK বলে",
        make: granted,
    },
    QuestionKind {
        id: "stale-write",
        title: "pause-এর পরে A-র লেখার কী হয়",
        make: stale_write,
    },
];

/// The lab's parameters: no fault but those in `pairs`.
fn lab(pairs: &[(&str, String)]) -> Params {
    let mut all: Vec<(&str, String)> = vec![
        ("crash", "off".into()),
        ("pause", "0".into()),
        ("jump", "0".into()),
        ("partition", "off".into()),
        ("fencing", "off".into()),
    ];
    all.extend(pairs.iter().cloned());
    params(&INFO, &all)
}

fn run_of(p: &Params) -> RedlockOutput {
    run(&p.read::<RedlockParams>())
}

/// When A's `SET … NX` first succeeded, ms.
fn a_set_at(r: &RedlockOutput) -> Option<u64> {
    r.commands
        .iter()
        .find(|c| c.client == 0 && c.kind == CmdKind::Acquire && c.line.reply == Ok(Reply::ok()))
        .map(|c| c.line.at_ms)
}

/// The timeline's step (1-based) of the first two-owner moment, or 1.
fn overlap_step(r: &RedlockOutput) -> usize {
    r.overlaps.first().map_or(1, |o| o.step + 1)
}

/// The failover question's options.
const FAILOVER: [&str; 2] = [
    "হ্যাঁ — B-ও lock পায়, একসাথে দুই মালিক",
    "না — B অপেক্ষা করে, A ছাড়লে তবে পায়",
];

fn failover(seed: u32) -> Draft {
    // A's SET before the crash (else A holds nothing to lose).
    let (p, r, set_at, lag, crash_at, promote, gap) = until(seed, 101, 100, |d| {
        let lag = d.int(0, 40) * 10;
        let crash_at = d.int(1, 20) * 10;
        let promote = d.int(0, 30) * 10;
        let gap = d.int(0, 50) * 10;
        let p = lab(&[
            ("setup", "single".into()),
            ("ttl", "30000".into()),
            ("work", "2000".into()),
            ("gap", gap.to_string()),
            ("lag", lag.to_string()),
            ("crash", "on".into()),
            ("crash_at", crash_at.to_string()),
            ("promote_after", promote.to_string()),
            ("seed", d.int(0, 99_999).to_string()),
        ]);
        let r = run_of(&p);
        let set_at = a_set_at(&r)?;
        (set_at < u64::from(crash_at)).then_some((p, r, set_at, lag, crash_at, promote, gap))
    });
    let two = r.counters.two_owner_moments > 0;
    let reached = set_at + u64::from(lag);
    let hints = [
        (
            FAILOVER[0],
            format!(
                "A-র `SET` replica-তে পৌঁছায় {} ms-এ, primary মরে {} ms-এ — তার আগেই lock replica-তে ছিল; promote হওয়া replica-তে key আছে, B-র `NX` ব্যর্থ।",
                int(reached as i64),
                int(crash_at.into())
            ),
        ),
        (
            FAILOVER[1],
            format!(
                "replication asynchronous: A-র `SET` replica-তে পৌঁছাত {} ms-এ, কিন্তু primary মরে {} ms-এ — promote হওয়া replica-তে lock নেই, B-র `SET … NX` সফল।",
                int(reached as i64),
                int(crash_at.into())
            ),
        ),
    ];
    Draft {
        text: format!(
            "একটা primary আর তার asynchronous replica (lag {} ms)। A `SET lock:reindex <token> NX PX …` পাঠায়, primary-তে সেটা চলে {} ms-এ; primary মরে {} ms-এ, replica promote হয় তার {} ms পরে। B চেষ্টা শুরু করে {} ms-এ, আর না পেলে আবার চেষ্টা করে। A তখনো কাজ করছে (lock-এর TTL অনেক লম্বা)। B কি lock পায়?",
            int(lag.into()),
            int(set_at as i64),
            int(crash_at.into()),
            int(promote.into()),
            int(gap.into())
        ),
        code: vec![
            "SET lock:reindex <token> NX PX 30000".into(),
            format!("# replica applies it {lag} ms later; primary crashes at {crash_at} ms"),
        ],
        answer: options(&hints, usize::from(!two)),
        why: if two {
            format!(
                "A-র lock শুধু primary-তে ছিল ({} ms থেকে), replica-তে পৌঁছানোর কথা {} ms-এ — তার আগেই ({} ms) primary মরে; নতুন primary-তে key নেই, তাই B-ও পায়: দুই মালিক।",
                int(set_at as i64),
                int(reached as i64),
                int(crash_at.into())
            )
        } else {
            format!(
                "A-র `SET` replica-তে পৌঁছে যায় {} ms-এ, primary মরে {} ms-এ — promote হওয়া replica-তেও lock আছে, B অপেক্ষা করে।",
                int(reached as i64),
                int(crash_at.into())
            )
        },
        show: show(&p, overlap_step(&r)),
    }
}

fn granted(seed: u32) -> Draft {
    let (p, r, fault, attempt) = until(seed, 102, 100, |d| {
        let fault = d.int(0, 2);
        let ttl = d.int(6, 30) * 100;
        let mut pairs: Vec<(&str, String)> = vec![
            ("setup", "redlock".into()),
            ("ttl", ttl.to_string()),
            ("work", (d.int(1, 10) * 50).to_string()),
            ("gap", (d.int(0, 20) * 50).to_string()),
            ("seed", d.int(0, 99_999).to_string()),
        ];
        match fault {
            1 => {
                pairs.push(("crash", "on".into()));
                pairs.push(("crash_at", "0".into()));
            }
            2 => pairs.push(("partition", "on".into())),
            _ => {}
        }
        let p = lab(&pairs);
        let r = run_of(&p);
        let a = r.attempts.iter().find(|a| a.client == 0)?.clone();
        Some((p, r, fault, a))
    });
    let right = attempt.granted.len() as i64;
    let mut hints: Vec<(i64, String)> = vec![
        (
            5,
            match fault {
                1 => "r১ শুরুতেই মৃত — তার কাছ থেকে OK আসে না; বাকি চারটা দেয়।".to_string(),
                _ => "r৪ আর r৫ A-র কাছ থেকে বিচ্ছিন্ন — তাদের উত্তর আসার আগেই টাইমআউট।".to_string(),
            },
        ),
        (
            3,
            "তিন হলো জেতার জন্য ন্যূনতম সংখ্যা — কিন্তু A সব node-কে জিজ্ঞেস করে, যে কয়টা পৌঁছায় সবাই OK বলে (তখনো কেউ lock ধরে নেই)।".to_string(),
        ),
        (
            4,
            "কোনো node মৃত বা বিচ্ছিন্ন নয় — পাঁচটাই A-র `SET … NX` পায় আর OK বলে।".to_string(),
        ),
    ];
    hints.retain(|(v, _)| *v != right);
    Draft {
        text: format!(
            "Redlock: পাঁচটা স্বাধীন primary r১…r৫, lock-এর TTL {} ms, প্রত্যেকের কাজ {} ms। A প্রথমে চেষ্টা করে — প্রতিটা node-এ পালা করে `SET lock:reindex <token> NX PX …`, প্রতিটায় ছোট টাইমআউট; B আসে {} ms পরে। {} A-র প্রথম চেষ্টায় কয়টা node OK বলে?",
            int(r.params.ttl as i64),
            int(r.params.work as i64),
            int(r.params.gap as i64),
            match fault {
                1 => "r১ শুরুতেই (০ ms-এ) মারা গেছে।",
                2 => "নেটওয়ার্ক ভাগ হয়ে r৪ আর r৫ A-র নাগাল থেকে বিচ্ছিন্ন।",
                _ => "সব node সুস্থ।",
            }
        ),
        code: vec![format!(
            "SET lock:reindex <token> NX PX {}   # on r1 … r5, in turn",
            r.params.ttl
        )],
        answer: Answer::Count { n: right, hints },
        why: format!(
            "{}টা node OK বলে ({}), তিনের সংখ্যাগরিষ্ঠতা {} — validity {} ms।",
            int(right),
            attempt
                .granted
                .iter()
                .map(|n| format!("r{}", int(*n as i64 + 1)))
                .collect::<Vec<_>>()
                .join(", "),
            if attempt.won { "পূরণ হয়, A lock পায়" } else { "পূরণ হয় না" },
            int(attempt.validity_ms)
        ),
        show: show(&p, attempt.step + 1),
    }
}

/// The stale-write question's options.
const WRITES: [&str; 3] = [
    "storage নিয়ে নেয় — B-র নতুন লেখার ওপরে A-র বাসি লেখা বসে যায়",
    "storage ফিরিয়ে দেয় — A-র fencing token B-রটার চেয়ে পুরোনো",
    "বাসি লেখা হয় না — A লেখার সময় আর কেউ lock পায়নি",
];

/// Which of [`WRITES`] a run shows.
fn write_fate(r: &RedlockOutput) -> usize {
    if r.counters.stale_accepted > 0 {
        0
    } else if r.counters.stale_rejected > 0 {
        1
    } else {
        2
    }
}

fn stale_write(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 103);
    let fencing = d.chance(50);
    let ttl = d.int(3, 20) * 100;
    let work = d.int(1, 10) * 50;
    let gap = d.int(0, 10) * 50;
    let pause = d.int(0, 30) * 100;
    let p = lab(&[
        ("setup", "redlock".into()),
        ("ttl", ttl.to_string()),
        ("work", work.to_string()),
        ("gap", gap.to_string()),
        ("pause", pause.to_string()),
        ("fencing", if fencing { "on" } else { "off" }.into()),
        ("seed", d.int(0, 99_999).to_string()),
    ]);
    let r = run_of(&p);
    let right = write_fate(&r);
    let valid = r
        .attempts
        .iter()
        .find(|a| a.client == 0 && a.won)
        .map_or(0, |a| a.validity_ms);
    let told = format!(
        "A-র lock-এর validity {} ms; A থমকে থাকে {} ms, তারপর কাজ {} ms",
        int(valid),
        int(pause.into()),
        int(work.into())
    );
    let hints = [
        (
            WRITES[0],
            if fencing {
                format!("{told} — fencing চালু: storage পুরোনো token-এর লেখা নেয় না।")
            } else {
                format!("{told} — lock-এর মেয়াদের মধ্যেই A লিখে ফেলে, বাসি লেখা হয় না।")
            },
        ),
        (
            WRITES[1],
            if fencing {
                format!("{told} — A লেখে নিজের lock-এর মেয়াদেই, তখনো B-র নতুন token আসেনি।")
            } else {
                format!("{told} — fencing বন্ধ: Redlock নিজে কোনো token দেয় না, storage পুরোনো-নতুন চেনে না।")
            },
        ),
        (
            WRITES[2],
            format!(
                "{told} — A-র মেয়াদ ফুরোয় থমকে থাকার মধ্যেই, B তখন lock নিয়ে লেখে; A জেগে উঠে ঘড়ি না দেখেই লেখে।"
            ),
        ),
    ];
    let step = r.writes.iter().find(|w| w.stale).map_or(1, |w| w.step + 1);
    Draft {
        text: format!(
            "Redlock: পাঁচটা primary, lock-এর TTL {} ms। A lock পেয়েই থমকে যায় (GC) {} ms, তারপর {} ms কাজ করে storage-এ একবার লেখে — ঘড়ি না দেখে। B চেষ্টা শুরু করে {} ms পরে, পেলে সে-ও কাজ করে লেখে। fencing token {}। A-র লেখার কী হয়?",
            int(ttl.into()),
            int(pause.into()),
            int(work.into()),
            int(gap.into()),
            if fencing {
                "চালু: lock পেলে `INCR fence:reindex`, storage পুরোনো token-এর লেখা ফেরায়"
            } else {
                "নেই"
            }
        ),
        code: if fencing {
            vec![
                "SET lock:reindex <token> NX PX <ttl>   # on r1 … r5".into(),
                "INCR fence:reindex   # on r1".into(),
            ]
        } else {
            vec!["SET lock:reindex <token> NX PX <ttl>   # on r1 … r5".into()]
        },
        answer: options(&hints, right),
        why: format!(
            "{told}। {}",
            match right {
                0 => "A-র মেয়াদ থমকে থাকার মধ্যেই ফুরোয়, B lock নিয়ে লেখে; A জেগে উঠে লেখে আর storage সেটা নিয়ে নেয় — দুই মালিক, বাসি লেখা।",
                1 => "A-র মেয়াদ ফুরোয়, B বড় token নিয়ে লেখে; A-র পুরোনো token দেখে storage লেখাটা ফিরিয়ে দেয় — lock নয়, fencing বাঁচায়।",
                _ => "A-র লেখা আসে কেউ নতুন lock পাওয়ার আগেই, তাই কোনো লেখা বাসি নয়।",
            }
        ),
        show: show(&p, step),
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
        let out: RedlockOutput = lab_output(show);
        match q.kind.as_str() {
            "failover" => {
                Truth::Choice(FAILOVER[usize::from(out.counters.two_owner_moments == 0)].into())
            }
            "granted" => Truth::Count(
                out.attempts
                    .iter()
                    .find(|a| a.client == 0)
                    .expect("A tries")
                    .granted
                    .len() as i64,
            ),
            "stale-write" => Truth::Choice(WRITES[write_fate(&out)].into()),
            k => panic!("no rerun for {k}"),
        }
    }

    #[test]
    fn redlock_questions_over_1000_seeds() {
        every_seed("redlock", rerun);
    }

    #[test]
    fn answers_vary() {
        crate::practice::tests::answers_vary("redlock");
    }
}
