//! Questions on the cache stampede: how many database loads with no defence (multiple
//! choice, since arrivals are random: the options are the run's figure and the figures a
//! student confuses it with), which design has a given property (nobody waits and at most one
//! load at a time: stale; one load at a time but requests wait: lock; every expired request
//! loads: none), and how many loads the lock makes. Every answer is read off the lab's own
//! run ([`StampedeOutput`]) of the question's parameters.

use crate::bn;
use crate::labs::params::Params;
use crate::labs::stampede::{Counters, Mode, StampedeParams, StampedeSummary, INFO};
use crate::practice::pick::{int, Draw};
use crate::practice::{params, show_end, Answer, Draft, QuestionKind};

/// The stampede lab's question kinds.
pub const KINDS: &[QuestionKind] = &[
    QuestionKind {
        id: "none-loads",
        title: "কোনো সুরক্ষা ছাড়া কয়টা লোড",
        make: none_loads,
    },
    QuestionKind {
        id: "which-design",
        title: "কোন নকশা ডেটাবেসকে একটায় রাখে",
        make: which_design,
    },
    QuestionKind {
        id: "lock-loads",
        title: "লক দিলে কয়টা লোড",
        make: lock_loads,
    },
];

/// A hot key's parameters as the question draws them (inside the lab's ranges, small
/// enough that four designs run in milliseconds).
struct Hot {
    rate: u32,
    delta_ms: u32,
    ttl: u32,
    duration: u32,
    seed: u32,
}

impl Hot {
    fn draw(d: &mut Draw) -> Hot {
        Hot {
            rate: d.int(4, 30) * 10,
            delta_ms: d.int(2, 8) * 25,
            ttl: d.int(2, 8),
            duration: d.int(2, 6) * 5,
            seed: d.int(0, 99_999),
        }
    }

    fn lab(&self) -> Params {
        params(
            &INFO,
            &[
                ("rate", self.rate.to_string()),
                ("delta", format!("{}", f64::from(self.delta_ms) / 1000.0)),
                ("ttl", self.ttl.to_string()),
                ("duration", self.duration.to_string()),
                ("beta", "1".into()),
                ("seed", self.seed.to_string()),
            ],
        )
    }

    /// The scene, in Bengali.
    fn scene(&self) -> String {
        format!(
            "একটা hot key-তে সেকেন্ডে গড়ে {}টা রিকোয়েস্ট (Poisson), TTL {} s, ডেটাবেস থেকে আবার বানাতে (recompute) লাগে {} ms; চলে {} s।",
            int(self.rate.into()),
            int(self.ttl.into()),
            int(self.delta_ms.into()),
            int(self.duration.into())
        )
    }
}

/// Each design's counters, as the lab runs them.
fn runs(p: &Params) -> Vec<StampedeSummary> {
    let cfg = p.read::<StampedeParams>().config();
    Mode::ALL
        .iter()
        .map(|&m| StampedeSummary::run(&cfg, m))
        .collect()
}

fn of(runs: &[StampedeSummary], m: Mode) -> Counters {
    runs.iter()
        .find(|r| r.mode == m)
        .map(|r| r.counters)
        .expect("every design ran")
}

/// Draws until the run has what the kind needs (every kind's condition holds for most
/// draws; a hundred misses in a row would be a bug in the kind).
fn draw_until(
    seed: u32,
    salt: u32,
    ok: impl Fn(&[StampedeSummary]) -> bool,
) -> (Hot, Params, Vec<StampedeSummary>) {
    let mut d = Draw::new(seed, salt);
    for _ in 0..100 {
        let h = Hot::draw(&mut d);
        let p = h.lab();
        let r = runs(&p);
        if ok(&r) {
            return (h, p, r);
        }
    }
    panic!("stampede question {salt}: no fitting run for seed {seed}")
}

fn none_loads(seed: u32) -> Draft {
    // A stampede worth asking about: more loads with no defence than with the lock.
    let (h, p, r) = draw_until(seed, 31, |r| {
        let (none, lock) = (of(r, Mode::None), of(r, Mode::Lock));
        none.db > lock.db + 2 && none.requests > none.db + 2
    });
    let (none, lock) = (of(&r, Mode::None), of(&r, Mode::Lock));
    let mut opts: Vec<(u64, String)> = vec![
        (none.db, String::new()),
        (
            lock.db,
            format!(
                "{} — এটা লক দিলে: মেয়াদপিছু একটাই লোড। সুরক্ষা না থাকলে মেয়াদের পরে recompute শেষ হওয়ার আগে যত রিকোয়েস্ট আসে, প্রত্যেকে নিজে লোড করে।",
                int(lock.db as i64)
            ),
        ),
        (
            none.requests,
            format!(
                "{} তো মোট রিকোয়েস্ট — মেয়াদ থাকতে ক্যাশ থেকেই উত্তর যায়, লোড হয় শুধু মেয়াদের পরের ঝাঁকে।",
                int(none.requests as i64)
            ),
        ),
    ];
    let peak = u64::from(none.peak);
    if !opts.iter().any(|(v, _)| *v == peak) {
        opts.push((
            peak,
            format!(
                "{} হলো একসাথে সবচেয়ে বেশি চলা লোড (peak) — পুরো সময়ের মোট নয়।",
                int(peak as i64)
            ),
        ));
    }
    opts.sort_by_key(|(v, _)| *v);
    opts.dedup_by_key(|(v, _)| *v);
    let right = opts
        .iter()
        .position(|(v, _)| *v == none.db)
        .expect("the right figure is an option");
    Draft {
        text: format!(
            "{} ক্যাশে কোনো সুরক্ষা নেই: মেয়াদ ফুরোলে যে রিকোয়েস্ট আসে সে-ই ডেটাবেসে যায়। পুরো সময়ে ডেটাবেসে মোট কয়টা লোড যায়?",
            h.scene()
        ),
        code: Vec::new(),
        answer: Answer::Choice {
            options: opts.iter().map(|(v, _)| int(*v as i64)).collect(),
            right,
            hints: opts.into_iter().map(|(_, h)| h).collect(),
        },
        why: format!(
            "মেয়াদ ফুরোলে recompute-এর {} ms-এ গড়ে প্রায় {}টা রিকোয়েস্ট আসে, প্রত্যেকে নিজে লোড করে — সব মেয়াদ মিলে {}টা লোড; লক দিলে হতো {}টা।",
            int(h.delta_ms.into()),
            bn::dec(f64::from(h.rate) * f64::from(h.delta_ms) / 1000.0, 1),
            int(none.db as i64),
            int(lock.db as i64)
        ),
        show: show_end(&p),
    }
}

/// The properties the design question asks about, each true of exactly one of the three
/// designs it offers (none, lock, stale) on the question's run.
const PROPERTIES: [(&str, Mode); 3] = [
    (
        "মেয়াদের মুহূর্তে কোনো রিকোয়েস্ট অপেক্ষা করে না, আর ডেটাবেসে একসাথে একটার বেশি লোড যায় না",
        Mode::Stale,
    ),
    (
        "ডেটাবেসে একসাথে একটার বেশি লোড যায় না, কিন্তু মেয়াদের মুহূর্তে আসা রিকোয়েস্টগুলো নতুন মানের জন্য অপেক্ষা করে",
        Mode::Lock,
    ),
    (
        "মেয়াদের পরে recompute শেষ হওয়ার আগে আসা প্রতিটা রিকোয়েস্ট নিজেই ডেটাবেসে যায়, তাই একসাথে একাধিক লোড চলে",
        Mode::None,
    ),
];

const DESIGNS: [(Mode, &str); 3] = [
    (Mode::None, "কোনো সুরক্ষা নেই (none)"),
    (Mode::Lock, "single-flight লক (lock)"),
    (Mode::Stale, "লক + বাসি মান (stale)"),
];

/// Whether design `m` has property `i` on run `r`.
fn has(r: &[StampedeSummary], i: usize, m: Mode) -> bool {
    let c = of(r, m);
    match i {
        0 => c.waited == 0 && c.peak <= 1,
        1 => c.peak <= 1 && c.waited > 0,
        _ => c.peak > 1,
    }
}

fn which_design(seed: u32) -> Draft {
    let i = Draw::new(seed, 32).int(0, 2) as usize;
    let (h, p, r) = draw_until(seed, 33, |r| {
        DESIGNS.iter().filter(|(m, _)| has(r, i, *m)).count() == 1
    });
    let (prop, want) = PROPERTIES[i];
    let right = DESIGNS
        .iter()
        .position(|(m, _)| has(&r, i, *m))
        .expect("exactly one design has it");
    debug_assert_eq!(DESIGNS[right].0, want);
    let hints = DESIGNS
        .iter()
        .map(|(m, _)| {
            let c = of(&r, *m);
            if has(&r, i, *m) {
                String::new()
            } else {
                format!(
                    "এই রানে {}: একসাথে সবচেয়ে বেশি লোড {}টা, মেয়াদে অপেক্ষা করেছে {}টা রিকোয়েস্ট, বাসি মান পেয়েছে {}টা।",
                    m.word(),
                    int(i64::from(c.peak)),
                    int(c.waited as i64),
                    int(c.stale as i64)
                )
            }
        })
        .collect();
    let c = of(&r, want);
    Draft {
        text: format!(
            "{} কোন নকশায় {}?",
            h.scene(),
            prop
        ),
        code: Vec::new(),
        answer: Answer::Choice {
            options: DESIGNS.iter().map(|(_, s)| s.to_string()).collect(),
            right,
            hints,
        },
        why: format!(
            "{}-এ এই রানে একসাথে সবচেয়ে বেশি লোড {}টা, মেয়াদে অপেক্ষা {}টা, বাসি মান {}টা — লক একজনকেই ডেটাবেসে পাঠায়; stale বাকিদের পুরোনো মান দিয়ে দেয়, কাউকে দাঁড় করায় না।",
            want.word(),
            int(i64::from(c.peak)),
            int(c.waited as i64),
            int(c.stale as i64)
        ),
        show: show_end(&p),
    }
}

fn lock_loads(seed: u32) -> Draft {
    let (h, p, r) = draw_until(seed, 34, |r| of(r, Mode::None).db > of(r, Mode::Lock).db);
    let (none, lock) = (of(&r, Mode::None), of(&r, Mode::Lock));
    let right = lock.db as i64;
    let mut hints = vec![(
        none.db as i64,
        format!(
            "{} হয় সুরক্ষা ছাড়া — লক থাকলে মেয়াদের ঝাঁকের একজনই লোড করে, বাকিরা অপেক্ষা করে।",
            int(none.db as i64)
        ),
    )];
    // The first load (a cold cache at 0 s, the key's first TTL) is easy to forget or add.
    for off in [-1i64, 1] {
        let x = right + off;
        if x >= 0 && !hints.iter().any(|(k, _)| *k == x) {
            hints.push((
                x,
                format!(
                    "প্রায় — প্রতিটা লোড মানটা আরও {} s বাঁচায়, আর নতুন মান আসে recompute শেষে ({} ms পরে); সময়রেখায় মেয়াদগুলো গুনে দেখুন।",
                    int(h.ttl.into()),
                    int(h.delta_ms.into())
                ),
            ));
        }
    }
    Draft {
        text: format!(
            "{} প্রথম মান ক্যাশে তৈরি আছে, TTL শুরু ০ s থেকে। মেয়াদ ফুরোলে single-flight লক: একজন লোড করে, বাকিরা অপেক্ষা করে। পুরো সময়ে ডেটাবেসে মোট কয়টা লোড যায়?",
            h.scene()
        ),
        code: Vec::new(),
        answer: Answer::Count { n: right, hints },
        why: format!(
            "প্রতিবার মেয়াদ ফুরোলে একটাই লোড, আর নতুন মান টেকে {} s (recompute-এর {} ms পরে থেকে) — {} s-এ {}টা মেয়াদ, তাই {}টা লোড; সুরক্ষা ছাড়া হতো {}টা।",
            int(h.ttl.into()),
            int(h.delta_ms.into()),
            int(h.duration.into()),
            int(right),
            int(right),
            int(none.db as i64)
        ),
        show: show_end(&p),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labs::stampede::StampedeOutput;
    use crate::practice::tests::{every_seed, lab_output, Truth};
    use crate::practice::{Answer, Question};

    /// What the lab's own run (through the worker protocol) says the answer is.
    fn rerun(q: &Question) -> Truth {
        let show = q.draft.show.as_ref().expect("every question shows the lab");
        let out: StampedeOutput = lab_output(show);
        let runs: Vec<StampedeSummary> = out.rows.iter().map(|r| r.summary()).collect();
        let c = |m: Mode| of(&runs, m);
        match q.kind.as_str() {
            "none-loads" => Truth::Choice(int(c(Mode::None).db as i64)),
            "which-design" => {
                let Answer::Choice { options, .. } = &q.draft.answer else {
                    panic!("a choice")
                };
                let i = PROPERTIES
                    .iter()
                    .position(|(p, _)| q.draft.text.contains(p))
                    .expect("the question names a property");
                let fits: Vec<&str> = DESIGNS
                    .iter()
                    .filter(|(m, _)| has(&runs, i, *m))
                    .map(|(_, s)| *s)
                    .collect();
                assert_eq!(fits.len(), 1, "{}: {fits:?}", q.draft.text);
                assert!(options.iter().any(|o| o == fits[0]));
                Truth::Choice(fits[0].to_string())
            }
            "lock-loads" => Truth::Count(c(Mode::Lock).db as i64),
            k => panic!("no rerun for {k}"),
        }
    }

    #[test]
    fn stampede_questions_over_1000_seeds() {
        every_seed("stampede", rerun);
    }

    #[test]
    fn answers_vary() {
        crate::practice::tests::answers_vary("stampede");
    }
}
