//! Questions on the broadcast through a queue: how long the broadcast takes at a throttle
//! (multiple choice in whole seconds: the run's end, against the figures a student confuses
//! it with), how many tokens get the notification twice when the worker crashes at a given
//! moment (multiple choice: it depends on whether the crash falls inside an FCM call), and
//! where a batch whose first run failed in an FCM outage ends (completed or the failed set,
//! against the places a student might think of). Every answer is read off the lab's own run
//! ([`BroadcastOutput`]) of the question's parameters.

use crate::labs::broadcast::{run, BroadcastOutput, BroadcastParams, End, Why, INFO};
use crate::labs::params::Params;
use crate::practice::pick::{int, Draw};
use crate::practice::{params, show_end, Answer, Draft, QuestionKind};

/// The broadcast lab's question kinds.
pub const KINDS: &[QuestionKind] = &[
    QuestionKind {
        id: "duration",
        title: "এই থ্রটলে ব্রডকাস্টে কত সময়",
        make: duration,
    },
    QuestionKind {
        id: "crash-twice",
        title: "ওয়ার্কার ক্র্যাশে কয়টা টোকেন দুবার",
        make: crash_twice,
    },
    QuestionKind {
        id: "failed-where",
        title: "ব্যর্থ জব শেষে কোথায়",
        make: failed_where,
    },
];

/// A batch's Postgres query and its FCM call (the lab's defaults), ms.
const DB_MS: u64 = 50;
const CALL_MS: u64 = 200;

/// The lab's parameters of a question: the queue, small enough to run in milliseconds.
fn lab(pairs: &[(&str, String)]) -> Params {
    let mut all: Vec<(&str, String)> = vec![
        ("mode", "queue".into()),
        ("call_ms", CALL_MS.to_string()),
        ("db_ms", DB_MS.to_string()),
    ];
    all.extend(pairs.iter().cloned());
    params(&INFO, &all)
}

fn result(p: &Params) -> BroadcastOutput {
    run(&p.read::<BroadcastParams>())
}

/// `ms` as seconds, in Bengali (`১২.৩৪৫`), or whole seconds when it is whole.
fn secs(ms: u64) -> String {
    if ms % 1000 == 0 {
        int((ms / 1000) as i64)
    } else {
        crate::bn::dec(ms as f64 / 1000.0, 3)
    }
}

/// Options of token counts, sorted, the right one first among equals (a distractor equal to
/// the answer is dropped).
fn choice(right: i64, wrong: Vec<(i64, String)>, show_as: impl Fn(i64) -> String) -> Answer {
    let mut opts: Vec<(i64, String)> = vec![(right, String::new())];
    for (v, h) in wrong {
        if v >= 0 && !opts.iter().any(|(x, _)| *x == v) {
            opts.push((v, h));
        }
    }
    opts.sort_by_key(|(v, _)| *v);
    let r = opts
        .iter()
        .position(|(v, h)| *v == right && h.is_empty())
        .expect("the right figure is an option");
    Answer::Choice {
        options: opts.iter().map(|(v, _)| show_as(*v)).collect(),
        right: r,
        hints: opts.into_iter().map(|(_, h)| h).collect(),
    }
}

fn seconds_option(n: i64) -> String {
    format!("প্রায় {} সেকেন্ড", int(n))
}

fn tokens_option(n: i64) -> String {
    format!("{}টা টোকেন", int(n))
}

// --- how long -----------------------------------------------------------------------------

/// The run's end, in whole seconds (rounded): what the duration question asks.
pub(crate) fn whole_seconds(r: &BroadcastOutput) -> i64 {
    ((r.end_ms + 500) / 1000) as i64
}

fn duration(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 41);
    let chunk = d.one(&[200u32, 250, 500]);
    let throttle = d.one(&[2u32, 4, 5, 8, 10]);
    let batches = d.int(3, 12) * throttle + d.int(0, throttle - 1);
    let tokens = batches * chunk;
    let p = lab(&[
        ("tokens", tokens.to_string()),
        ("chunk", chunk.to_string()),
        ("throttle", throttle.to_string()),
        ("concurrency", "10".into()),
        ("seed", d.int(0, 99_999).to_string()),
    ]);
    let r = result(&p);
    let right = whole_seconds(&r);
    let (b, t, c) = (i64::from(batches), i64::from(throttle), i64::from(chunk));
    let wrong = vec![
        (
            i64::from(tokens) / t,
            format!(
                "থ্রটল গোনে জব (ব্যাচ), টোকেন নয়: সেকেন্ডে {}টা ব্যাচ মানে {}টা টোকেন।",
                int(t),
                int(t * c)
            ),
        ),
        (
            b,
            format!(
                "এটা সেকেন্ডে একটা ব্যাচ ধরে — লিমিটার সেকেন্ডে {}টা ছাড়ে।",
                int(t)
            ),
        ),
        (
            (b * (DB_MS + CALL_MS) as i64 + 999) / 1000,
            "এটা ব্যাচগুলো একটার পর একটা, কোনো অপেক্ষা ছাড়া চললে — কিন্তু লিমিটার প্রতি সেকেন্ডে থ্রটলের বেশি ছাড়ে না, আর ওয়ার্কার একসাথে কয়েকটা চালায়।".into(),
        ),
        (
            (b * (DB_MS + CALL_MS) as i64 / 10 + 999) / 1000,
            "এটা ওয়ার্কারের ১০টা স্লট একসাথে, কোনো লিমিটার ছাড়া চললে — থ্রটল সেকেন্ডে এর চেয়ে কম ব্যাচ ছাড়ে, বাকিরা অপেক্ষা করে।".into(),
        ),
    ];
    Draft {
        text: format!(
            "{} টোকেনে ব্রডকাস্ট, কিউতে {}টা করে টোকেনের ব্যাচ জব; লিমিটার সেকেন্ডে {}টা জব ছাড়ে, ওয়ার্কারের concurrency ১০, প্রতিটা ব্যাচে {} ms Postgres আর {} ms FCM কল। ক্লিক থেকে শেষ টোকেন পৌঁছানো পর্যন্ত মোটামুটি কত সময় লাগে?",
            int(i64::from(tokens)),
            int(c),
            int(t),
            int(DB_MS as i64),
            int(CALL_MS as i64)
        ),
        code: Vec::new(),
        answer: choice(right, wrong, seconds_option),
        why: format!(
            "{} ÷ {} = {}টা ব্যাচ; লিমিটার সেকেন্ডে {}টা ছাড়ে (প্রথম সেকেন্ডের একটা জায়গা নেয় ব্রডকাস্ট জবটা নিজেই), তাই শেষ ব্যাচ শুরু হয় প্রায় {} সেকেন্ডে, আর শেষ হয় {} সেকেন্ডে।",
            int(i64::from(tokens)),
            int(c),
            int(b),
            int(t),
            int(b / t),
            secs(r.end_ms)
        ),
        show: show_end(&p),
    }
}

// --- a crash ------------------------------------------------------------------------------

/// Tokens that got it twice: what the crash question asks.
pub(crate) fn twice(r: &BroadcastOutput) -> i64 {
    r.counters.sent_twice as i64
}

/// Whether `crash` is clearly inside or outside every batch's FCM call (not within 25 ms of
/// one's start or end), so that the text's timings decide it.
fn clear_cut(r: &BroadcastOutput, crash: u64) -> bool {
    r.runs()
        .into_iter()
        .filter(|a| a.batch.is_some() && a.from_ms <= crash && crash <= a.to_ms.max(a.from_ms))
        .all(|a| {
            let into = crash - a.from_ms;
            [DB_MS, DB_MS + CALL_MS]
                .iter()
                .all(|edge| into.abs_diff(*edge) > 25)
        })
}

fn crash_twice(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 42);
    for _ in 0..100 {
        let chunk = d.one(&[100u32, 200, 250, 500]);
        let throttle = d.int(2, 5);
        let secs_long = d.int(6, 14);
        let batches = secs_long * throttle;
        let at_s = d.int(2, secs_long - 2);
        // Half the crashes inside the calls' stretch of the second, half anywhere.
        let off = if d.chance(50) {
            d.int(90, 230)
        } else {
            d.int(0, 999)
        };
        let crash = u64::from(at_s) * 1000 + u64::from(off);
        let p = lab(&[
            ("tokens", (batches * chunk).to_string()),
            ("chunk", chunk.to_string()),
            ("throttle", throttle.to_string()),
            ("concurrency", "10".into()),
            ("crash_at", crash.to_string()),
            ("seed", d.int(0, 99_999).to_string()),
        ]);
        let r = result(&p);
        let right = twice(&r);
        // The text's reckoning (the calls run 50–250 ms into each second) must agree with
        // the run, whose limiter starts a batch a few ms late and drifts a little.
        let in_call = u64::from(off) > DB_MS && u64::from(off) < DB_MS + CALL_MS;
        if !clear_cut(&r, crash) || in_call != (right > 0) {
            continue;
        }
        let (t, c) = (i64::from(throttle), i64::from(chunk));
        let before = r.frame_at(crash).delivered as i64;
        let wrong = vec![
            (
                0,
                "FCM কল শুরু হলে টোকেনগুলো FCM নিয়ে নেয়; ওয়ার্কার উত্তর শোনার আগে মরলে জবটা stalled হয়ে আবার চলে, আর সেই টোকেনগুলো আবার পায় — at-least-once।".into(),
            ),
            (
                t * c,
                format!(
                    "এক সেকেন্ডের {}টা ব্যাচের সবাই দুবার পায় শুধু যদি ক্র্যাশটা তাদের FCM কলের ভেতরে পড়ে; Postgres-এর কোয়েরিতে বা কল শেষ হওয়ার পরে ক্র্যাশ হলে FCM কিছু পায়নি বা জব শেষ।",
                    int(t)
                ),
            ),
            (
                before,
                "কিউ শুরু থেকে আবার পাঠায় না — শেষ হওয়া ব্যাচগুলো completed-এ থাকে; আবার চলে শুধু ক্র্যাশের সময় হাতে থাকা (active) জবগুলো।".into(),
            ),
        ];
        return Draft {
            text: format!(
                "{} টোকেন, {}টা করে ব্যাচ; লিমিটার প্রতি সেকেন্ডের শুরুতে (কয়েক ms পরে) {}টা ব্যাচ ছাড়ে। প্রতিটা ব্যাচ আগে {} ms-এ Postgres থেকে টোকেন আনে, তারপর {} ms-এর FCM কল; কল শুরু হলেই FCM টোকেনগুলো নিয়ে নেয়। ওয়ার্কার ক্র্যাশ করে {} সেকেন্ডে, ফেরে ৫ সেকেন্ড পরে; লক ফুরোলে stalled চেক হাতের জবগুলো ফিরিয়ে আবার চালায়। কয়টা টোকেন নোটিফিকেশন দুবার পায়?",
                int(i64::from(batches * chunk)),
                int(c),
                int(t),
                int(DB_MS as i64),
                int(CALL_MS as i64),
                secs(crash)
            ),
            code: Vec::new(),
            answer: choice(right, wrong, tokens_option),
            why: if right > 0 {
                format!(
                    "ক্র্যাশটা সেকেন্ডের শুরুর {} ms পরে — ব্যাচগুলো তখন FCM কলের ভেতরে ({}–{} ms): FCM তাদের {}টা টোকেন নিয়ে নিয়েছে, কিন্তু জবগুলো শেষ হয়নি; stalled চেক সেগুলো আবার চালায়, তাই ওই টোকেনগুলো দুবার পায়।",
                    int(i64::from(off)),
                    int(DB_MS as i64),
                    int((DB_MS + CALL_MS) as i64),
                    int(right)
                )
            } else {
                format!(
                    "ক্র্যাশটা সেকেন্ডের শুরুর {} ms পরে — কোনো ব্যাচ তখন FCM কলের ভেতরে নেই ({}–{} ms): হয় Postgres-এ ছিল (FCM কিছু পায়নি), নয় কাজ শেষ। আবার চলা জব কাউকে দ্বিতীয়বার পাঠায় না।",
                    int(i64::from(off)),
                    int(DB_MS as i64),
                    int((DB_MS + CALL_MS) as i64)
                )
            },
            show: show_end(&p),
        };
    }
    panic!("broadcast crash question: no clear-cut run for seed {seed}")
}

// --- where a failed job ends ---------------------------------------------------------------

/// The places the question offers; the first two are where a job can end.
const PLACES: [&str; 4] = [
    "completed সেটে (`bull:push:completed`) — পরের চেষ্টায় পাঠানো হয়েছে",
    "failed সেটে (`bull:push:failed`), কারণসহ — তার টোকেনগুলো পায়নি",
    "delayed সেটে, আবার চলার অপেক্ষায় — চিরকাল",
    "কোথাও না — ব্যর্থ জব Redis থেকে মুছে যায়",
];

/// Where batch `b` ended: 0 completed, 1 failed (`None`: neither, e.g. still running).
pub(crate) fn place_of(r: &BroadcastOutput, b: u32) -> Option<usize> {
    let last = r
        .runs()
        .into_iter()
        .filter(|a| a.batch == Some(b))
        .max_by_key(|a| a.attempt)?;
    match last.end {
        End::Completed => Some(0),
        End::Failed => Some(1),
        _ => None,
    }
}

fn failed_where(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 43);
    for _ in 0..200 {
        let throttle = d.int(2, 4);
        let batches = d.int(3, 6) * throttle;
        let outage_at = d.int(1, 2);
        let outage = d.int(1, 12);
        let attempts = d.int(1, 4);
        let backoff = d.one(&[1000u64, 2000, 3000, 5000]);
        let p = lab(&[
            ("tokens", (batches * 500).to_string()),
            ("chunk", "500".into()),
            ("throttle", throttle.to_string()),
            ("concurrency", "10".into()),
            ("outage_at", outage_at.to_string()),
            ("outage", outage.to_string()),
            ("attempts", attempts.to_string()),
            ("backoff", backoff.to_string()),
            ("seed", d.int(0, 99_999).to_string()),
        ]);
        let r = result(&p);
        let back = u64::from(outage_at + outage) * 1000;
        // Batches whose first run failed in the outage.
        let failed_first: Vec<_> = r
            .attempts
            .iter()
            .filter(|a| a.attempt == 1 && a.batch.is_some() && a.why == Some(Why::Unavailable))
            .collect();
        if failed_first.is_empty() {
            continue;
        }
        let first = failed_first[d.int(0, failed_first.len() as u32 - 1) as usize];
        let b = first.batch.expect("a batch");
        let Some(right) = place_of(&r, b) else {
            continue;
        };
        // The text's reckoning (each retry runs when it is due) must agree with the run,
        // clear of the outage's end.
        let mut start = first.from_ms;
        let mut nominal = None;
        let mut clear = true;
        for i in 0..attempts {
            let call = start + DB_MS;
            clear &= call.abs_diff(back) > 800;
            if call >= back {
                nominal = Some(0);
                break;
            }
            if i + 1 < attempts {
                start += DB_MS + CALL_MS + backoff * (1u64 << i);
            }
        }
        let nominal = nominal.unwrap_or(1);
        let runs_clear = r
            .runs()
            .into_iter()
            .filter(|a| a.batch == Some(b))
            .all(|a| (a.from_ms + DB_MS).abs_diff(back) > 800);
        if nominal != right || !clear || !runs_clear {
            continue;
        }
        let runs: Vec<_> = r
            .runs()
            .into_iter()
            .filter(|a| a.batch == Some(b))
            .map(|a| a.from_ms)
            .collect();
        let hints = (0..PLACES.len())
            .map(|i| match i {
                _ if i == right => String::new(),
                0 => format!(
                    "{} attempts-এর সব চেষ্টাই FCM ফেরার আগে পড়েছে ({} সেকেন্ডে ফেরে) — শেষ চেষ্টার পরে BullMQ আর চালায় না।",
                    int(i64::from(attempts)),
                    int(i64::from(outage_at + outage))
                ),
                1 => "backoff-এর পরের চেষ্টা FCM ফেরার পরে পড়ে, আর সেই চেষ্টা সফল — জবটা completed।".into(),
                2 => "attempts ফুরোলে জব আর delayed-এ যায় না: শেষ ব্যর্থতায় failed সেটে যায়; সময়মতো চেষ্টা সফল হলে completed-এ।".into(),
                _ => "BullMQ ব্যর্থ জব মোছে না: শেষ চেষ্টাও ব্যর্থ হলে জবটা failedReason-সহ failed সেটে থাকে, যাতে পরে দেখা বা আবার চালানো যায়।".into(),
            })
            .collect();
        let tries: Vec<String> = runs.iter().map(|ms| secs(*ms)).collect();
        return Draft {
            text: format!(
                "FCM ডাউন {} সেকেন্ড থেকে {} সেকেন্ড পর্যন্ত (প্রতিটা টোকেনের উত্তর messaging/server-unavailable; ওয়ার্কার উত্তর পড়ে ছোড়ে)। কিউর জবে attempts {}, backoff {} ms (exponential: প্রতিবার দ্বিগুণ)। নিচের ব্যাচ জবটার প্রথম চেষ্টা শুরু হয় {} সেকেন্ডে, {} ms Postgres-এর পরে FCM কলে ব্যর্থ হয়। সব শেষ হলে এই জবটা কোথায়?",
                int(i64::from(outage_at)),
                int(i64::from(outage_at + outage)),
                int(i64::from(attempts)),
                int(backoff as i64),
                secs(first.from_ms),
                int(DB_MS as i64)
            ),
            code: vec![format!("job id: {}", first.job)],
            answer: Answer::Choice {
                options: PLACES.iter().map(|s| s.to_string()).collect(),
                right,
                hints,
            },
            why: format!(
                "এই জবের চেষ্টাগুলো শুরু হয় {} সেকেন্ডে; FCM ফেরে {} সেকেন্ডে — {}",
                tries.join(", "),
                int(i64::from(outage_at + outage)),
                if right == 0 {
                    "শেষ চেষ্টাটা তার পরে, তাই সফল: completed সেটে।"
                } else {
                    "সব চেষ্টাই তার আগে, attempts ফুরিয়েছে: failed সেটে, failedReason messaging/server-unavailable।"
                }
            ),
            show: show_end(&p),
        };
    }
    panic!("broadcast failed-job question: no fitting run for seed {seed}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::practice::tests::{every_seed, lab_output, Truth};
    use crate::practice::Question;

    /// What the lab's own run (through the worker protocol) says the answer is.
    fn rerun(q: &Question) -> Truth {
        let show = q.draft.show.as_ref().expect("every question shows the lab");
        let out: BroadcastOutput = lab_output(show);
        match q.kind.as_str() {
            "duration" => Truth::Choice(seconds_option(whole_seconds(&out))),
            "crash-twice" => Truth::Choice(tokens_option(twice(&out))),
            "failed-where" => {
                let job = q.draft.code[0]
                    .strip_prefix("job id: ")
                    .expect("the code names the job");
                let b: u32 = job
                    .rsplit('-')
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("a batch job id");
                let i = place_of(&out, b).expect("the job ended");
                Truth::Choice(PLACES[i].to_string())
            }
            k => panic!("no rerun for {k}"),
        }
    }

    #[test]
    fn broadcast_questions_over_1000_seeds() {
        every_seed("broadcast", rerun);
    }

    #[test]
    fn answers_vary() {
        crate::practice::tests::answers_vary("broadcast");
    }
}
