//! Questions on the login rate limit: how many of an attacker's requests get through with a
//! counter in each instance's memory against one counter in Redis (the limit once per
//! instance, or once), how many the fixed window lets through around its edge against the
//! sliding one (twice the limit in two seconds, or the limit), and how many students behind
//! one office IP the IP layer turns away. Every answer is read off the lab's own run
//! ([`RateOutput`]) of the question's parameters.

use crate::labs::params::Params;
use crate::labs::ratelimit::{run, Algo, Layers, Pattern, RateOutput, Store, Target, INFO};
use crate::practice::pick::{int, Draw};
use crate::practice::{params, show, show_end, Answer, Draft, QuestionKind};

/// The rate-limit lab's question kinds.
pub const KINDS: &[QuestionKind] = &[
    QuestionKind {
        id: "stores",
        title: "মেমোরি না Redis: কয়টা ঢোকে",
        make: stores,
    },
    QuestionKind {
        id: "edge",
        title: "উইন্ডোর কিনারায় কয়টা ঢোকে",
        make: edge,
    },
    QuestionKind {
        id: "office",
        title: "এক IP-র অফিসে কয়টা আটকায়",
        make: office,
    },
];

/// The lab's parameters: its defaults (one Redis counter, a fixed window, the identity
/// layer, no office) with `pairs` set.
fn lab(pairs: &[(&str, String)]) -> Params {
    let mut all: Vec<(&str, String)> = vec![
        ("store", Store::Redis.word().into()),
        ("algo", Algo::Fixed.word().into()),
        ("layers", Layers::Identity.word().into()),
        ("pattern", Pattern::Steady.word().into()),
        ("target", Target::One.word().into()),
        ("office", "0".into()),
    ];
    all.extend(pairs.iter().cloned());
    params(&INFO, &all)
}

fn run_of(p: &Params) -> RateOutput {
    run(&p.read())
}

fn stores(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 51);
    let store = d.one(Store::ALL);
    let instances = d.int(2, 8);
    let limit = d.int(2, 40);
    let attempts = limit * instances + d.int(0, limit * instances);
    let rps = d.int(2, 20) * 10;
    let window = attempts / rps + d.int(2, 60);
    let p = lab(&[
        ("store", store.word().into()),
        ("instances", instances.to_string()),
        ("limit", limit.to_string()),
        ("window", window.to_string()),
        ("attempts", attempts.to_string()),
        ("rps", rps.to_string()),
    ]);
    let r = run_of(&p);
    let right = r.attacker.allowed as i64;
    let (l, n, a) = (i64::from(limit), i64::from(instances), i64::from(attempts));
    let mut hints = vec![
        (
            l,
            format!(
                "{} হয় একটা কাউন্টারে — মেমোরির কাউন্টার প্রতিটা ইনস্ট্যান্সের নিজের, round-robin-এ প্রত্যেকে রিকোয়েস্টের একটা ভাগ পায় আর নিজের {}টা ছাড়ে।",
                int(l),
                int(l)
            ),
        ),
        (
            l * n,
            format!(
                "{} হতো প্রতিটা ইনস্ট্যান্সের আলাদা কাউন্টারে — এখানে সব ইনস্ট্যান্স Redis-এর একটাই key-তে `INCR` করে, তাই লিমিট পুরো সিস্টেমে একবার।",
                int(l * n)
            ),
        ),
        (
            a,
            format!(
                "{} তো অ্যাটাকারের মোট রিকোয়েস্ট — সবই এক উইন্ডোর মধ্যে, লিমিট পেরোনোর পরেরগুলো ৪২৯ পায়।",
                int(a)
            ),
        ),
    ];
    hints.retain(|(v, _)| *v != right);
    hints.dedup_by_key(|(v, _)| *v);
    Draft {
        text: format!(
            "{}টা API ইনস্ট্যান্স (আলাদা Node প্রসেস), সামনে round-robin। লগইনের লিমিট প্রতি আইডেন্টিটি {} সেকেন্ডে {}টা রিকোয়েস্ট (fixed window); কাউন্টার থাকে {}। একজন অ্যাটাকার একটা অ্যাকাউন্টে সেকেন্ডে {}টা করে মোট {}টা লগইন চেষ্টা পাঠায় — সবই প্রথম উইন্ডোর মধ্যে। কয়টা রিকোয়েস্ট ঢুকতে পারে?",
            int(n),
            int(window.into()),
            int(l),
            if store == Store::Memory {
                "প্রতিটা ইনস্ট্যান্সের নিজের মেমোরিতে (express-rate-limit-এর default store)"
            } else {
                "Redis-এ, সব ইনস্ট্যান্সের একটাই key (rate-limit-redis)"
            },
            int(rps.into()),
            int(a)
        ),
        code: if store == Store::Memory {
            vec![format!("hits[rl:login:<id>] += 1   # in each instance, limit {limit}")]
        } else {
            vec![
                "INCR rl:login:<id>".into(),
                format!("PEXPIRE rl:login:<id> {}   # on the first", u64::from(window) * 1000),
            ]
        },
        answer: Answer::Count { n: right, hints },
        why: if store == Store::Memory {
            format!(
                "round-robin-এ প্রতিটা ইনস্ট্যান্স পায় মোটামুটি {}টা, আর প্রত্যেকে নিজের হিসাবে {}টা পর্যন্ত ছাড়ে — মোট {}টা, লিমিটের {} গুণ পর্যন্ত।",
                int(a / n),
                int(l),
                int(right),
                int(n)
            )
        } else {
            format!(
                "সব ইনস্ট্যান্স একই key-তে `INCR` করে: প্রথম {}টা ঢোকে, বাকি {}টা ৪২৯ — ইনস্ট্যান্স যতই হোক।",
                int(right),
                int(a - right)
            )
        },
        show: show_end(&p),
    }
}

fn edge(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 52);
    let algo = d.one(Algo::ALL);
    let limit = d.int(2, 100);
    let window = d.int(1, 60) * 10;
    let attempts = 2 * limit;
    let p = lab(&[
        ("algo", algo.word().into()),
        ("pattern", Pattern::Edge.word().into()),
        ("instances", d.int(1, 8).to_string()),
        ("limit", limit.to_string()),
        ("window", window.to_string()),
        ("attempts", attempts.to_string()),
    ]);
    let r = run_of(&p);
    let right = r.max_in_window as i64;
    let l = i64::from(limit);
    let mut hints = if algo == Algo::Fixed {
        vec![
            (
                l,
                format!(
                    "fixed window-এর কাউন্টার উইন্ডো শেষে মুছে যায় (PEXPIRE) — শেষ সেকেন্ডের {}টা আর পরের উইন্ডোর প্রথম সেকেন্ডের {}টা, দুটোই নিজের উইন্ডোতে লিমিটের মধ্যে।",
                    int(l - 1),
                    int(l)
                ),
            ),
            (
                2 * l,
                "প্রায় — কিন্তু প্রথম রিকোয়েস্টটা উইন্ডোর শুরুতে, কিনারার ঝাঁকের অনেক আগে; এক উইন্ডোর সমান সময়ে সেটা ঝাঁক দুটোর সাথে পড়ে না।".into(),
            ),
        ]
    } else {
        vec![
            (
                2 * l - 1,
                "এটা fixed window-এ হতো — sorted set-এ প্রতিটা চেষ্টার সময় থাকে, তাই যেকোনো উইন্ডো-সমান সময়ে লিমিটের বেশি ঢোকে না।".into(),
            ),
            (
                l + 1,
                "এটা দুই উইন্ডো মিলে মোট ঢোকা — প্রথম রিকোয়েস্টটা কিনারার অনেক আগে; প্রশ্ন এক উইন্ডো-সমান সময়ের।".into(),
            ),
        ]
    };
    hints.retain(|(v, _)| *v != right);
    // The densest window's last request: there the lab shows this very figure.
    let at = r.position_of(r.max_span.1);
    Draft {
        text: format!(
            "লগইনের লিমিট একটা অ্যাকাউন্টে {} সেকেন্ডে {}টা, কাউন্টার Redis-এ, {}। অ্যাটাকার ০ সেকেন্ডে একটা রিকোয়েস্ট পাঠায় (তাতে উইন্ডো শুরু), তারপর উইন্ডোর শেষ সেকেন্ডে {}টা আর পরের উইন্ডোর প্রথম সেকেন্ডে {}টা — মোট {}টা। যেকোনো {} সেকেন্ডের মধ্যে সবচেয়ে বেশি কয়টা রিকোয়েস্ট ঢুকতে পারে?",
            int(window.into()),
            int(l),
            if algo == Algo::Fixed {
                "fixed window (`INCR`, প্রথমটায় `PEXPIRE`)"
            } else {
                "sliding window (sorted set-এ প্রতিটা চেষ্টার সময়)"
            },
            int(l - 1),
            int(l),
            int(2 * l),
            int(window.into())
        ),
        code: if algo == Algo::Fixed {
            vec![
                "INCR rl:login:<id>".into(),
                format!("PEXPIRE rl:login:<id> {}   # on the first", u64::from(window) * 1000),
            ]
        } else {
            vec![format!(
                "ZREMRANGEBYSCORE rl:login:<id> -INF <now-{}>; ZADD rl:login:<id> <now> <req>; ZCARD rl:login:<id>",
                u64::from(window) * 1000
            )]
        },
        answer: Answer::Count { n: right, hints },
        why: if algo == Algo::Fixed {
            format!(
                "প্রথম উইন্ডোর কাউন্টার শেষ সেকেন্ডের {}টা ছাড়ে (প্রথমটা সহ {}), উইন্ডো ফুরোলে key মুছে যায়, পরের উইন্ডো নতুন করে {}টা ছাড়ে — দুই সেকেন্ডে {}টা, লিমিটের প্রায় দ্বিগুণ।",
                int(l - 1),
                int(l),
                int(l),
                int(right)
            )
        } else {
            format!(
                "sorted set প্রতিটা চেষ্টার সময় রাখে (আটকানোগুলোও): পরের উইন্ডোর শুরুতে শুধু ০ সেকেন্ডের রিকোয়েস্টটা সরে, তাই যেকোনো {} সেকেন্ডে {}টার বেশি ঢোকে না।",
                int(window.into()),
                int(right)
            )
        },
        show: show(&p, at),
    }
}

fn office(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 53);
    let students = d.int(5, 120);
    let tries = d.int(1, 6);
    let logins = students * tries;
    let ip_limit = (logins * d.int(30, 130) / 100).max(1);
    let window = d.int(1, 20) * 30;
    let p = lab(&[
        ("layers", Layers::Ip.word().into()),
        ("instances", d.int(1, 8).to_string()),
        ("ip_limit", ip_limit.to_string()),
        ("window", window.to_string()),
        ("attempts", "0".into()),
        ("office", students.to_string()),
        ("tries", tries.to_string()),
        ("seed", d.int(0, 99_999).to_string()),
    ]);
    let r = run_of(&p);
    let right = r.students.by_ip as i64;
    let total = i64::from(logins);
    let mut hints = vec![(
        0,
        format!(
            "প্রত্যেক স্টুডেন্ট মাত্র {}বার লগইন করে, কিন্তু IP স্তর গোনে IP ধরে — অফিসের সবার {}টা লগইন একটাই key-তে যায়।",
            int(tries.into()),
            int(total)
        ),
    )];
    if r.students_hit as i64 != right {
        hints.push((
            r.students_hit as i64,
            "এটা অন্তত একবার আটকানো স্টুডেন্টের সংখ্যা — প্রশ্ন আটকানো লগইনের।".into(),
        ));
    }
    hints.push((i64::from(ip_limit), "এটা যতগুলো ঢোকে — আটকায় বাকিগুলো।".into()));
    hints.retain(|(v, _)| *v != right);
    hints.dedup_by_key(|(v, _)| *v);
    Draft {
        text: format!(
            "একটা অফিসের {} জন স্টুডেন্ট একই IP-র পেছনে, প্রত্যেকে {} সেকেন্ডের উইন্ডোর মধ্যে এলোমেলো সময়ে {}বার লগইন করে। শুধু IP স্তর চালু: প্রতি IP {} সেকেন্ডে {}টা (fixed window, কাউন্টার Redis-এ)। কয়টা লগইন ৪২৯ পেয়ে আটকায়?",
            int(students.into()),
            int(window.into()),
            int(tries.into()),
            int(window.into()),
            int(ip_limit.into())
        ),
        code: vec![
            "INCR rl:ip:<office-ip>".into(),
            format!("PEXPIRE rl:ip:<office-ip> {}   # on the first", u64::from(window) * 1000),
        ],
        answer: Answer::Count { n: right, hints },
        why: if right > 0 {
            format!(
                "IP স্তরে পুরো অফিস একজন: {}টা লগইন একটাই কাউন্টারে, প্রথম {}টা ঢোকে, বাকি {}টা আটকায় — নিরীহ স্টুডেন্টরাও; তাই আইডেন্টিটির স্তর লাগে।",
                int(total),
                int(i64::from(ip_limit)),
                int(right)
            )
        } else {
            format!(
                "অফিসের সব লগইন মিলে {}টা, IP-র লিমিট {} — লিমিটের মধ্যেই, কেউ আটকায় না।",
                int(total),
                int(i64::from(ip_limit))
            )
        },
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
        let out: RateOutput = lab_output(show);
        match q.kind.as_str() {
            "stores" => Truth::Count(out.attacker.allowed as i64),
            "edge" => {
                // Opens where the page shows the most let in within one window: the answer.
                let at = show.at.expect("a position");
                assert_eq!(at, out.position_of(out.max_span.1));
                assert_eq!(out.window_max_at(at), out.max_in_window);
                Truth::Count(out.max_in_window as i64)
            }
            "office" => Truth::Count(out.students.blocked() as i64),
            k => panic!("no rerun for {k}"),
        }
    }

    #[test]
    fn ratelimit_questions_over_1000_seeds() {
        every_seed("ratelimit", rerun);
    }

    #[test]
    fn answers_vary() {
        crate::practice::tests::answers_vary("ratelimit");
    }
}
