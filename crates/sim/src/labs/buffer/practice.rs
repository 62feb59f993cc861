//! Questions on buffering writes (production slide 16): how many commands Redis gets a
//! second when the heartbeats wait a second and go in one pipeline of `ZADD`s of at most
//! `chunk` members (the chunks save commands, the pipeline round trips — so, over a run, one
//! round trip a second), how many database rows or queries one progress flush writes (rows
//! are users, not events: the Map keeps one row per user), and, when a flush fails, how many
//! users end without their latest progress under each requeue (newer-wins, blind, drop).
//! Every answer is read off the lab's own run ([`BufferOutput`]) of the question's
//! parameters.

use crate::labs::buffer::{run, BufferOutput, BufferParams, Requeue, INFO, ROOM};
use crate::labs::params::Params;
use crate::practice::pick::{counts, int, only_wrong, until, Draw};
use crate::practice::{params, show, show_end, Answer, Draft, QuestionKind};

/// The buffering lab's question kinds.
pub const KINDS: &[QuestionKind] = &[
    QuestionKind {
        id: "pipeline",
        title: "বাফারে কয়টা কমান্ড, কয়টা রাউন্ড-ট্রিপ",
        make: pipeline,
    },
    QuestionKind {
        id: "flush",
        title: "এক ফ্লাশে DB-তে কয়টা রো, কয়টা কোয়েরি",
        make: flush,
    },
    QuestionKind {
        id: "requeue",
        title: "ফ্লাশ ফেল হলে কার প্রোগ্রেস পিছিয়ে",
        make: requeue,
    },
];

/// The lab's parameters with `pairs` set (no failure, nobody leaving, unless set), and a
/// small SimRedis sample: the sample only shows the commands, the answers are the whole
/// audience's.
fn lab(pairs: &[(&str, String)]) -> Params {
    let mut all: Vec<(&str, String)> = vec![
        ("leave", "0".into()),
        ("fail", "0".into()),
        ("requeue", "newer-wins".into()),
        ("sample", "60".into()),
    ];
    all.extend(pairs.iter().cloned());
    params(&INFO, &all)
}

fn run_of(p: &Params) -> BufferOutput {
    run(&p.read::<BufferParams>())
}

/// The question asks the whole run's round trips (else a second's commands).
const TRIPS_ASKED: &str = "কয়টা রাউন্ড-ট্রিপ";

fn pipeline(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 131);
    let viewers = d.int(1_000, 100_000);
    let chunk = if d.chance(10) {
        1
    } else {
        d.one(&[50, 100, 200, 250, 300, 400, 500, 1_000])
    };
    let seconds = d.int(10, 60);
    let trips = d.chance(35);
    let p = lab(&[
        ("viewers", viewers.to_string()),
        ("seconds", seconds.to_string()),
        ("chunk", chunk.to_string()),
        ("seed", d.int(0, 99_999).to_string()),
    ]);
    let r = run_of(&p);
    let (n, c, s) = (i64::from(viewers), i64::from(chunk), i64::from(seconds));
    let per_s = (n + c - 1) / c;
    let scene = format!(
        "{} জন দর্শক একটা ভিডিও দেখছে, কেউ মাঝপথে যায় না; প্রত্যেকে সেকেন্ডে একটা প্রেজেন্স হার্টবিট পাঠায়। বাফারে লেখা হয়: হার্টবিট ১ সেকেন্ড মেমোরিতে জমে, তারপর {} জন করে একেকটা `ZADD`-এ ভাগ হয়, আর সেকেন্ডের সব `ZADD` যায় এক pipeline-এ।",
        int(n),
        int(c)
    );
    let code = vec![
        format!("ZADD {ROOM} <ms> user:<i> <ms> user:<j> …   # at most {chunk} members"),
        "pipeline.exec()   # once a second".into(),
    ];
    if trips {
        let right = r.buffered.round_trips as i64;
        let hints = only_wrong(
            vec![
                (
                    s * per_s,
                    format!(
                        "এটা পুরো সময়ের কমান্ড (সেকেন্ডে {}টা `ZADD`) — pipeline কমান্ড কমায় না, কমায় আসা-যাওয়া: সেকেন্ডের সবগুলো এক রাউন্ড-ট্রিপে যায়।",
                        int(per_s)
                    ),
                ),
                (
                    s * n,
                    "এটা সরাসরি লেখার পথে: প্রতিটা হার্টবিট আলাদা `ZADD`, আলাদা রাউন্ড-ট্রিপ। বাফারে সেকেন্ডে একটাই।".into(),
                ),
                (
                    1,
                    "pipeline একটা নয়, প্রতি সেকেন্ডে একটা — বাফার প্রতি সেকেন্ডে খালি হয়।".into(),
                ),
            ],
            right,
        );
        Draft {
            text: format!(
                "{scene} {} সেকেন্ড ধরে এভাবে চললে পুরো সময়ে বাফারের পথে Redis-এর সাথে {TRIPS_ASKED} হয়?",
                int(s)
            ),
            code,
            answer: Answer::Count { n: right, hints },
            why: format!(
                "pipeline সেকেন্ডের {}টা `ZADD` একসাথে পাঠায়, উত্তরও আসে একসাথে — সেকেন্ডে একটা রাউন্ড-ট্রিপ, {} সেকেন্ডে {}টা; সরাসরি পথে হতো {}টা।",
                int(per_s),
                int(s),
                int(right),
                int(s * n)
            ),
            show: show_end(&p),
        }
    } else {
        let right = (r.buffered.redis_cmds / u64::from(seconds)) as i64;
        let hints = only_wrong(
            vec![
                (
                    n,
                    format!(
                        "{} হয় সরাসরি লিখলে (প্রতিটা হার্টবিট আলাদা `ZADD`) বা চাঙ্ক ছাড়া pipeline-এ — pipeline কমায় রাউন্ড-ট্রিপ, কমান্ড কমায় চাঙ্ক: এক `ZADD`-এ {} জন।",
                        int(n),
                        int(c)
                    ),
                ),
                (
                    1,
                    "১ হলো রাউন্ড-ট্রিপ: সব `ZADD` এক pipeline-এ যায়, কিন্তু প্রতিটা `ZADD` তবু আলাদা কমান্ড।".into(),
                ),
                (
                    n / c,
                    format!(
                        "ভাগফল নিচে নামালে শেষের {} জন বাদ পড়ে — তাদের জন্যও একটা `ZADD` লাগে, তাই ওপরের দিকে।",
                        int(n % c)
                    ),
                ),
            ],
            right,
        );
        Draft {
            text: format!("{scene} বাফারের পথে Redis সেকেন্ডে কয়টা কমান্ড পায়?"),
            code,
            answer: Answer::Count { n: right, hints },
            why: format!(
                "চাঙ্ক কমায় কমান্ড: {} জনের হার্টবিট {} জন করে — {}টা `ZADD` (শেষটায় বাকিরা); pipeline সেগুলো এক রাউন্ড-ট্রিপে পাঠায়, আর Redis তবু সেকেন্ডে {}টা সদস্যই লেখে।",
                int(n),
                int(c),
                int(right),
                int(n)
            ),
            show: show_end(&p),
        }
    }
}

/// The question asks one flush's queries (else its rows).
const QUERIES_ASKED: &str = "কয়টা কোয়েরি";

fn flush(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 132);
    let viewers = d.int(1_000, 30_000);
    let progress_s = d.one(&[10, 15, 20, 30, 45, 60]);
    let flushes = d.int(2, 5);
    let seconds = progress_s * flushes;
    let batch = d.one(&[100, 200, 250, 500, 1_000, 2_000]);
    let leave = if d.chance(40) { 0 } else { d.int(10, 60) };
    let k = d.int(1, flushes);
    let queries = d.chance(50);
    let p = lab(&[
        ("viewers", viewers.to_string()),
        ("seconds", seconds.to_string()),
        ("progress_s", progress_s.to_string()),
        ("batch", batch.to_string()),
        ("leave", leave.to_string()),
        ("seed", d.int(0, 99_999).to_string()),
    ]);
    let r = run_of(&p);
    let f = r.flushes[k as usize - 1];
    let (n, b, ps) = (i64::from(viewers), i64::from(batch), i64::from(progress_s));
    let ceil = |x: i64| (x + b - 1) / b;
    // The window's seconds: events sent in them, users sending at its start and its end.
    let from = ((k - 1) * progress_s) as usize;
    let to = (k * progress_s) as usize;
    let events: i64 = r.active[from..to].iter().map(|&a| i64::from(a)).sum();
    let at_end = i64::from(r.active[to - 1]);
    let rows = f.rows as i64;
    let right = if queries { f.queries as i64 } else { rows };
    let when = format!(
        "{} নম্বর ফ্লাশে ({} সেকেন্ডে)",
        int(k.into()),
        int((k * progress_s).into())
    );
    let events_hint = format!(
        "এটা ইভেন্ট ধরে — কিন্তু Map-এ ইউজারপিছু একটাই রো থাকে, নতুন ইভেন্ট পুরোনোটার ওপর বসে; {} সেকেন্ডের সব ইভেন্টে রো বাড়ে না।",
        int(ps)
    );
    let wrong: Vec<(i64, String)> = if queries {
        vec![
            (
                rows,
                format!("এটা রো-র সংখ্যা — এক কোয়েরিতে {} রো যায়।", int(b)),
            ),
            (
                rows / b,
                "ভাগফল নিচে নামালে শেষের অল্প কয়টা রো বাদ পড়ে — সেগুলোর জন্যও একটা কোয়েরি লাগে।".into(),
            ),
            (ceil(events), events_hint),
            (
                ceil(n),
                "সব দর্শকের রো এই ফ্লাশে থাকে না — উইন্ডো শুরুর আগেই যারা চলে গেছে, তারা এই উইন্ডোতে কিছু পাঠায়নি।"
                    .into(),
            ),
        ]
    } else {
        vec![
            (events, events_hint),
            (
                ceil(rows),
                format!("এটা কোয়েরির সংখ্যা — প্রশ্ন রো-র; এক কোয়েরিতে {} রো।", int(b)),
            ),
            (
                n,
                "সব দর্শকের রো এই ফ্লাশে থাকে না — উইন্ডো শুরুর আগেই যারা চলে গেছে, তারা এই উইন্ডোতে কিছু পাঠায়নি, Map-এ তাদের রো নেই।".into(),
            ),
            (
                at_end,
                "এরা শুধু ফ্লাশের ঠিক আগের সেকেন্ডেও যারা ছিল — উইন্ডোর মাঝে চলে যাওয়া ইউজারের শেষ ইভেন্টও Map-এ থাকে, সেটাও রো।".into(),
            ),
        ]
    };
    let wrong = only_wrong(wrong, right);
    let text = format!(
        "{} জন দর্শক {} সেকেন্ড ধরে ভিডিও দেখে; প্রত্যেকে যতক্ষণ থাকে, সেকেন্ডে একটা প্রোগ্রেস ইভেন্ট পাঠায়{}। প্রোগ্রেস জমে মেমোরির একটা Map-এ, ইউজার ধরে (একই ইউজারের নতুন ইভেন্ট পুরোনোটার ওপর), আর প্রতি {} সেকেন্ডে Map খালি করে DB-তে লেখা হয়, এক কোয়েরিতে {}টা রো। {when} DB-তে {}?",
        int(n),
        int(seconds.into()),
        if leave == 0 {
            "; কেউ মাঝপথে যায় না".to_string()
        } else {
            format!(
                "; {}% দর্শক চালানোর মাঝে কোনো এক এলোমেলো মুহূর্তে চলে যায়",
                int(leave.into())
            )
        },
        int(ps),
        int(b),
        if queries {
            format!("{QUERIES_ASKED} যায়")
        } else {
            "কয়টা রো লেখা হয়".to_string()
        }
    );
    let why = format!(
        "রো মানে ইউজার, ইভেন্ট নয়: এই উইন্ডোতে অন্তত একটা ইভেন্ট পাঠিয়েছে {} জন (ইভেন্ট {}টা), তাই {}টা রো, {} রো করে {}টা কোয়েরি; সরাসরি লিখলে এই {} সেকেন্ডেই {}টা রো।",
        int(rows),
        int(events),
        int(rows),
        int(b),
        int(f.queries as i64),
        int(ps),
        int(events)
    );
    let answer = if leave == 0 {
        Answer::Count {
            n: right,
            hints: wrong,
        }
    } else {
        counts(right, wrong)
    };
    Draft {
        text,
        code: vec![
            "progress.set(userId, event)   # newer overwrites".into(),
            format!("every {progress_s} s: INSERT … {batch} rows a query"),
        ],
        answer,
        why,
        show: show(&p, r.after_flush(k as usize)),
    }
}

/// How each requeue is told.
fn requeue_told(requeue: Requeue) -> &'static str {
    match requeue {
        Requeue::Blind => "সব রো Map-এ ফেরত যায়, ইউজারের যা-ই থাকুক তার ওপর (অন্ধ requeue)",
        Requeue::Drop => "রো-গুলো ফেলে দেওয়া হয় (requeue নেই)",
        Requeue::NewerWins => "রো-গুলো Map-এ ফেরত যায়, তবে ইউজারের নতুন ইভেন্ট এর মধ্যে Map-এ এসে থাকলে নতুনটাই থাকে (newer-wins)",
    }
}

fn requeue(seed: u32) -> Draft {
    let (asked, p, behind, failed_rows, r) = until(seed, 133, 100, |d| {
        let asked = d.one(Requeue::ALL);
        let viewers = d.int(2_000, 20_000);
        let progress_s = d.one(&[10, 15, 20, 30]);
        let flushes = d.int(3, 6);
        let fail = d.int(1, flushes - 1);
        let db_ms = d.int(5, 50) * 100;
        let leave = d.int(20, 60);
        let lab_seed = d.int(0, 99_999);
        // The same audience and failure under each requeue: the options are their figures.
        let mut runs: Vec<(Params, BufferOutput)> = Requeue::ALL
            .iter()
            .map(|q| {
                let p = lab(&[
                    ("viewers", viewers.to_string()),
                    ("seconds", (progress_s * flushes).to_string()),
                    ("progress_s", progress_s.to_string()),
                    ("batch", "1000".into()),
                    ("leave", leave.to_string()),
                    ("fail", fail.to_string()),
                    ("db_ms", db_ms.to_string()),
                    ("requeue", q.word().into()),
                    ("seed", lab_seed.to_string()),
                ]);
                let r = run_of(&p);
                (p, r)
            })
            .collect();
        let behind: Vec<i64> = runs.iter().map(|(_, r)| r.check.behind as i64).collect();
        // newer-wins keeps everyone; blind loses some, drop more.
        let fits = behind[0] == 0 && behind[1] > 0 && behind[2] > behind[1];
        let i = Requeue::ALL
            .iter()
            .position(|q| *q == asked)
            .expect("a requeue");
        let (p, r) = runs.swap_remove(i);
        let rows = r.flushes[fail as usize - 1].rows as i64;
        fits.then_some((asked, p, behind, rows, r))
    });
    let (fail, db_ms) = (r.params.fail, r.params.db_ms);
    let b = r.params.clone();
    let right = r.check.behind as i64;
    let wrong = vec![
        (
            behind[0],
            "এটা newer-wins-এ: ফেরত রো বসে কেবল যার নতুন ইভেন্ট Map-এ নেই, তাই শেষে সবার সর্বশেষটাই লেখা হয় বা Map-এ থাকে।".into(),
        ),
        (
            behind[1],
            format!(
                "এটা অন্ধ requeue-এ: ফেল আর ফেরতের মাঝের {} ms-এ যারা নতুন ইভেন্ট পাঠিয়ে চলে গেছে, শুধু তাদের নতুনটার ওপর পুরোনোটা বসে।",
                int(db_ms.into())
            ),
        ),
        (
            behind[2],
            format!(
                "এটা রো ফেলে দিলে: ফেল করা ফ্লাশের আগের {} সেকেন্ডে যারা চলে গেছে, তাদের শেষ প্রোগ্রেস আর কখনো লেখা হয় না।",
                int(i64::from(r.params.progress_s))
            ),
        ),
        (
            failed_rows,
            "এটা ফেল করা ফ্লাশের সব রো — কিন্তু যারা তখনো আছে, তারা নতুন ইভেন্ট পাঠায়, সেটা পরের ফ্লাশে লেখা হয়।".into(),
        ),
    ];
    let ps = i64::from(b.progress_s);
    let text = format!(
        "{} জন দর্শক {} সেকেন্ড ধরে ভিডিও দেখে, প্রত্যেকে যতক্ষণ থাকে সেকেন্ডে একটা প্রোগ্রেস ইভেন্ট পাঠায়; {}% দর্শক মাঝে কোনো এক এলোমেলো মুহূর্তে চলে যায়। প্রোগ্রেস জমে ইউজারপিছু একটা Map-এ (নতুন ইভেন্ট পুরোনোটার ওপর), প্রতি {} সেকেন্ডে DB-তে ফ্লাশ হয়। {} নম্বর ফ্লাশ ({} সেকেন্ডে) ফেল করে; ফেল টের পেতে লাগে {} ms, তারপর {}। শেষে কতজন ইউজারের সর্বশেষ প্রোগ্রেস DB-তেও নেই, পরের ফ্লাশের জন্য Map-এও নেই (পুরোনোটা লেখা, বা কিছুই না)?",
        int(b.viewers.into()),
        int(b.seconds.into()),
        int(b.leave.into()),
        int(ps),
        int(fail.into()),
        int(i64::from(fail) * ps),
        int(db_ms.into()),
        requeue_told(asked)
    );
    let f = r.flushes[fail as usize - 1];
    let why = match asked {
        Requeue::Blind => format!(
            "অন্ধ requeue {}টা রো ফেরত দেয়, তার {}টা ইউজারের নতুন ইভেন্টের ওপর বসে; যারা এরপর আর কিছু পাঠায়নি (চলে গেছে), সেই {} জনের DB-তে যায় পুরোনো প্রোগ্রেস।",
            int(f.requeued as i64),
            int(f.overwrote_newer as i64),
            int(right)
        ),
        Requeue::Drop => format!(
            "{}টা রো ফেলে দেওয়া হয়; যারা তখনো আছে তাদের নতুন ইভেন্ট পরের ফ্লাশে যায়, কিন্তু ফেল করা ফ্লাশের আগের {} সেকেন্ডে শেষ ইভেন্ট পাঠিয়ে যারা চলে গেছে, সেই {} জনের শেষ প্রোগ্রেস হারায়।",
            int(f.dropped as i64),
            int(ps),
            int(right)
        ),
        Requeue::NewerWins => format!(
            "newer-wins {}টা রো ফেরত দেয়, আর {}টায় নতুন ইভেন্টটাই থাকে — কারও সর্বশেষ প্রোগ্রেস হারায় না, পিছিয়েও থাকে না।",
            int(f.requeued as i64),
            int(f.kept_newer as i64)
        ),
    };
    Draft {
        text,
        code: vec![
            format!("flush #{fail}: INSERT … → error after {db_ms} ms"),
            match asked {
                Requeue::Blind => "for (row of rows) progress.set(row.userId, row)".into(),
                Requeue::Drop => "// rows dropped".into(),
                Requeue::NewerWins => {
                    "for (row of rows) if (!progress.has(row.userId)) progress.set(row.userId, row)"
                        .into()
                }
            },
        ],
        answer: counts(right, wrong),
        why,
        show: show(&p, r.after_flush(fail as usize)),
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
        let out: BufferOutput = lab_output(show);
        match q.kind.as_str() {
            "pipeline" => {
                let secs = u64::from(out.params.seconds);
                if q.draft.text.contains(TRIPS_ASKED) {
                    Truth::Count(out.buffered.round_trips as i64)
                } else {
                    assert_eq!(out.buffered.redis_cmds % secs, 0, "the same every second");
                    Truth::Count((out.buffered.redis_cmds / secs) as i64)
                }
            }
            "flush" => {
                let f = out.flushes[show.step - 1];
                assert!(f.ok);
                let n = if q.draft.text.contains(QUERIES_ASKED) {
                    f.queries
                } else {
                    f.rows
                } as i64;
                if out.params.leave == 0 {
                    Truth::Count(n)
                } else {
                    Truth::Choice(int(n))
                }
            }
            "requeue" => {
                assert!(!out.flushes[show.step - 1].ok, "it shows the failed flush");
                Truth::Choice(int(out.check.behind as i64))
            }
            k => panic!("no rerun for {k}"),
        }
    }

    #[test]
    fn buffer_questions_over_1000_seeds() {
        every_seed("buffer", rerun);
    }

    #[test]
    fn answers_vary() {
        crate::practice::tests::answers_vary("buffer");
    }
}
