//! Questions on cache-aside: how long a stale price lives after a race (its TTL: the stale
//! `SET` carries one), what the cache holds for the product when the run ends (the database's
//! price, an older one, or nothing), and how many database reads a missing id costs with
//! negative caching (multiple choice: the readers' times are drawn, so the options are the
//! run's figure and the figures a student confuses it with). Every answer is read off the
//! lab's own run ([`AsideOutput`]) of the question's parameters.

use crate::labs::aside::{run, AsideOutput, AsideParams, Pause, SpanEnd, Write, INFO, PRODUCT};
use crate::labs::log::CmdSteps;
use crate::labs::params::Params;
use crate::practice::pick::{counts, int, options, until, Draw};
use crate::practice::{params, show, show_end, Answer, Draft, QuestionKind};

/// The cache-aside lab's question kinds.
pub const KINDS: &[QuestionKind] = &[
    QuestionKind {
        id: "stale-for",
        title: "বাসি দাম কতক্ষণ থাকে",
        make: stale_for,
    },
    QuestionKind {
        id: "at-end",
        title: "শেষে ক্যাশে কী",
        make: at_end,
    },
    QuestionKind {
        id: "negative",
        title: "নেই-এমন id-তে কয়টা ডেটাবেস পড়া",
        make: negative,
    },
];

fn lab(pairs: &[(&str, String)]) -> Params {
    params(&INFO, pairs)
}

fn run_of(p: &Params) -> AsideOutput {
    run(&p.read::<AsideParams>())
}

/// The two races the questions draw: update in place with two writers, the first paused
/// between its commit and its `SET`; delete on write, a reader paused between its `SELECT`
/// and its `SET`.
const RACES: [(Write, &str, Pause, &str); 2] = [
    (Write::Update, "2", Pause::Writer, "100"),
    (Write::Delete, "1", Pause::Reader, "100"),
];

/// The race told in Bengali.
fn race_told(race: usize) -> &'static str {
    if race == 0 {
        "দুই লেখক পরপর দাম বদলায়, প্রত্যেকে লেখার পরে ক্যাশে নিজের সারি `SET` করে (update in place); প্রথম লেখক commit-এর পরে, `SET`-এর আগে থমকে যায়"
    } else {
        "লেখক দাম বদলে ক্যাশ `DEL` করে; কিন্তু এক পাঠক পুরোনো সারি `SELECT` করে `SET`-এর আগে থমকে যায়, লেখকের `DEL`-এর পরে পুরোনোটাই বসায়"
    }
}

fn stale_for(seed: u32) -> Draft {
    let (race, ttl, p, r) = until(seed, 111, 100, |d| {
        let race = d.int(0, 1) as usize;
        let (write, writers, pause, write_at) = RACES[race];
        let ttl = d.int(1, 60) * 5;
        let p = lab(&[
            ("write", write.word().into()),
            ("writers", writers.into()),
            ("pause", pause.word().into()),
            ("pause_ms", (d.int(2, 10) * 50).to_string()),
            ("write_at", write_at.into()),
            ("ttl", ttl.to_string()),
            ("readers", d.int(1, 3).to_string()),
            ("read_every", (d.int(4, 20) * 500).to_string()),
            ("db_ms", (d.int(1, 8) * 10).to_string()),
            ("duration", (ttl + d.int(10, 60)).to_string()),
            ("seed", d.int(0, 99_999).to_string()),
        ]);
        let r = run_of(&p);
        (r.outcome().longest_end == Some(SpanEnd::Expired)).then_some((race, ttl, p, r))
    });
    let right = r.counters.longest_stale_ms as i64;
    let mut hints = vec![
        (
            0,
            "race-এ পুরোনো দাম ক্যাশে বসে যায় লেখার পরে — তারপর কেউ আর মোছে না।".to_string(),
        ),
        (
            i64::from(r.params.pause_ms as u32),
            "থমকানো শেষ হলে তবেই বাসি `SET` হয় — বাসি থাকা শুরু সেখান থেকে, আর চলে তার TTL পর্যন্ত।".into(),
        ),
        (
            i64::from(r.params.duration as u32) * 1000,
            "TTL আছে — বাসি মান পুরো রান ধরে থাকে না, মেয়াদে মুছে যায়, পরের miss নতুন দাম আনে।".into(),
        ),
    ];
    hints.retain(|(v, _)| *v != right);
    // "Show me" opens on the command that begins the longest window.
    let step = r
        .windows
        .iter()
        .max_by_key(|w| w.to_ms - w.from_ms)
        .map_or(1, |w| r.position_of_step(w.step));
    Draft {
        text: format!(
            "cache-aside: {} জন পাঠক, প্রত্যেকে গড়ে {} ms পরপর `GET` করে, না পেলে ডেটাবেস থেকে পড়ে (প্রতিবার {} ms) `SET … EX {}` (TTL {} সেকেন্ড)। ১০০ ms-এ লেখা শুরু: {} ({} ms)। রান চলে {} সেকেন্ড। ক্যাশে বাসি দাম (ডেটাবেসে আর নেই এমন) সবচেয়ে বেশি কত ms টিকে থাকে?",
            int(r.params.readers.into()),
            int(r.params.read_every as i64),
            int(r.params.db_ms as i64),
            int(ttl.into()),
            int(ttl.into()),
            race_told(race),
            int(r.params.pause_ms as i64),
            int(r.params.duration as i64)
        ),
        code: vec![
            "GET cache:product:99".into(),
            format!("SET cache:product:99 <row> EX {ttl}"),
            if race == 0 {
                format!("SET cache:product:99 <new row> EX {ttl}   # writer")
            } else {
                "DEL cache:product:99   # writer".into()
            },
        ],
        answer: Answer::Count { n: right, hints },
        why: format!(
            "বাসি সারির `SET`-এ TTL {} সেকেন্ড — কেউ আর সেটা মোছে না, মেয়াদ ফুরোলে তবে যায়: {} ms; TTL না থাকলে থাকত পরের লেখা পর্যন্ত।",
            int(ttl.into()),
            int(right)
        ),
        show: show(&p, step),
    }
}

/// The at-end question's options.
const ENDS: [&str; 3] = [
    "ডেটাবেসের এখনকার দাম",
    "একটা পুরোনো দাম — ডেটাবেসে আর নেই",
    "কিছুই না — key নেই",
];

/// Which of [`ENDS`] the run's end shows for the product.
fn end_of(r: &AsideOutput) -> usize {
    if r.outcome().stale_at_end {
        1
    } else if r
        .spans
        .iter()
        .any(|s| s.product == PRODUCT && s.end == SpanEnd::Held)
    {
        0
    } else {
        2
    }
}

fn at_end(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 112);
    let write = d.one(Write::ALL);
    let pause = d.one(Pause::ALL);
    let writers = if pause == Pause::Writer {
        2
    } else {
        d.int(1, 2)
    };
    let ttl = d.one(&[0, 0, 10, 30, 60, 120]);
    let duration = d.int(2, 12) * 10;
    let readers = d.int(1, 3);
    let read_every = d.int(2, 30) * 500;
    let p = lab(&[
        ("write", write.word().into()),
        ("writers", writers.to_string()),
        ("pause", pause.word().into()),
        ("pause_ms", (d.int(2, 10) * 50).to_string()),
        ("write_at", "100".into()),
        ("ttl", ttl.to_string()),
        ("readers", readers.to_string()),
        ("read_every", read_every.to_string()),
        ("duration", duration.to_string()),
        ("seed", d.int(0, 99_999).to_string()),
    ]);
    let r = run_of(&p);
    let right = end_of(&r);
    let hints = [
        (
            ENDS[0],
            "race-এ পুরোনো সারি ক্যাশে বসে গেছে, আর তারপর কেউ সেটা মোছেনি বা বদলায়নি।".to_string(),
        ),
        (
            ENDS[1],
            "শেষ যে মান ক্যাশে বসেছে সেটা শেষ commit-এর পরের — অথবা বাসি মান TTL-এ আগেই মুছে গেছে।".into(),
        ),
        (
            ENDS[2],
            "TTL না থাকলে key নিজে থেকে যায় না, আর লেখার পরের পড়া (miss) ক্যাশ আবার ভরে দেয়।".into(),
        ),
    ];
    Draft {
        text: format!(
            "cache-aside, {} জন পাঠক, প্রত্যেকে গড়ে {} ms পরপর পড়ে; ক্যাশে `SET`-এ {}। ১০০ ms-এ {} দাম বদলায়, লেখার পরে ক্যাশ {}। {}। রান চলে {} সেকেন্ড। শেষে `cache:product:<id>`-এ কী থাকে?",
            int(readers.into()),
            int(read_every.into()),
            if ttl == 0 {
                "কোনো TTL নেই".to_string()
            } else {
                format!("TTL {} সেকেন্ড", int(ttl.into()))
            },
            if writers == 2 {
                "দুই লেখক পরপর"
            } else {
                "একজন লেখক"
            },
            if write == Write::Update {
                "জায়গায় বদলায় (`SET` নিজের সারি)"
            } else {
                "মোছে (`DEL`)"
            },
            match pause {
                Pause::Writer => "প্রথম লেখক commit-এর পরে, ক্যাশে হাত দেওয়ার আগে থমকে যায়",
                Pause::Reader => "এক পাঠক ডেটাবেস থেকে পুরোনো সারি পড়ে `SET`-এর আগে থমকে যায়",
                Pause::None => "কেউ থমকায় না",
            },
            int(duration.into())
        ),
        code: vec![
            "GET cache:product:99".into(),
            if ttl == 0 {
                "SET cache:product:99 <row>".into()
            } else {
                format!("SET cache:product:99 <row> EX {ttl}")
            },
            if write == Write::Update {
                "SET cache:product:99 <new row>   # writer".into()
            } else {
                "DEL cache:product:99   # writer".into()
            },
        ],
        answer: options(&hints, right),
        why: format!(
            "এই রানে শেষে ক্যাশে: {}; ডেটাবেসের দাম {}, বাসি পড়া {}টা।",
            ENDS[right],
            int(r.outcome().final_price.into()),
            int(r.counters.stale_reads.into())
        ),
        show: show_end(&p),
    }
}

fn negative(seed: u32) -> Draft {
    let (neg, p, r) = until(seed, 113, 100, |d| {
        let neg = d.int(1, 12) * 5;
        let p = lab(&[
            ("writers", "0".into()),
            ("absent", "100".into()),
            ("negative", neg.to_string()),
            ("ttl", "300".into()),
            ("readers", d.int(1, 3).to_string()),
            ("read_every", (d.int(2, 10) * 500).to_string()),
            ("duration", (d.int(2, 12) * 10).to_string()),
            ("seed", d.int(0, 99_999).to_string()),
        ]);
        let r = run_of(&p);
        let c = r.counters;
        (c.requests > 2 * c.db_reads && c.db_reads > 1).then_some((neg, p, r))
    });
    let c = r.counters;
    let right = i64::from(c.db_reads);
    let answer = counts(
        right,
        vec![
            (
                i64::from(c.requests),
                "প্রতিটা পড়া ডেটাবেসে যায় না — প্রথম miss-এর পরে `none` ক্যাশে বসে, তার TTL পর্যন্ত পড়াগুলো Redis থেকেই উত্তর পায়।".into(),
            ),
            (
                1,
                "`none`-এরও TTL আছে — মেয়াদ ফুরোলে পরের পড়া আবার ডেটাবেসে যায়।".into(),
            ),
        ],
    );
    Draft {
        text: format!(
            "cache-aside, কোনো লেখক নেই; {} জন পাঠক সবসময় এমন একটা id চায় যেটা ডেটাবেসে নেই, প্রত্যেকে গড়ে {} ms পরপর; রান চলে {} সেকেন্ড। negative caching চালু: ডেটাবেসে না পেলে `SET … none EX {}`। সব মিলিয়ে মোট {}টা পড়া হয়। ডেটাবেসে কয়বার পড়া যায়?",
            int(r.params.readers.into()),
            int(r.params.read_every as i64),
            int(r.params.duration as i64),
            int(neg.into()),
            int(c.requests.into())
        ),
        code: vec![
            "GET cache:product:7777".into(),
            format!("SET cache:product:7777 none EX {neg}   # not in the database"),
        ],
        answer,
        why: format!(
            "প্রতি {} সেকেন্ডে `none` একবার মেয়াদোত্তীর্ণ হয়, পরের পড়া ডেটাবেসে যায় — {}টা পড়ার মধ্যে {}বার; negative caching ছাড়া {}বারই যেত।",
            int(neg.into()),
            int(c.requests.into()),
            int(right),
            int(c.requests.into())
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
        let out: AsideOutput = lab_output(show);
        match q.kind.as_str() {
            "stale-for" => {
                // "Show me" opens on the command that begins the longest stale window.
                let w = out
                    .windows
                    .iter()
                    .max_by_key(|w| w.to_ms - w.from_ms)
                    .expect("a window");
                let at = show.at.expect("a position");
                assert_eq!(at, out.position_of_step(w.step), "{}", q.seed);
                assert!(
                    out.cut(at) > w.step && out.cut(at - 1) <= w.step,
                    "{}",
                    q.seed
                );
                Truth::Count(out.counters.longest_stale_ms as i64)
            }
            "at-end" => Truth::Choice(ENDS[end_of(&out)].into()),
            "negative" => Truth::Choice(int(out.counters.db_reads.into())),
            k => panic!("no rerun for {k}"),
        }
    }

    #[test]
    fn aside_questions_over_1000_seeds() {
        every_seed("aside", rerun);
    }

    #[test]
    fn answers_vary() {
        crate::practice::tests::answers_vary("aside");
    }
}
