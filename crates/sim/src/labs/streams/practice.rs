//! Questions on Redis Streams: what `XPENDING` shows once the messages are done after a
//! consumer crashed between its save and its `XACK` (with XAUTOCLAIM on or off), how many
//! messages `MAXLEN ~` trims away before the group read them when the consumers fall behind
//! (multiple choice: `~` trims whole nodes, so the exact figure is the run's), and how many
//! messages are saved twice once XAUTOCLAIM takes the crashed batch over. Every answer is
//! read off the lab's own run ([`StreamsOutput`]) of the question's parameters.

use crate::labs::params::{Params, Switch};
use crate::labs::streams::{run, StreamsOutput, StreamsParams, INFO};
use crate::practice::pick::{int, Draw};
use crate::practice::{params, show_end, Answer, Draft, QuestionKind};

/// The streams lab's question kinds.
pub const KINDS: &[QuestionKind] = &[
    QuestionKind {
        id: "pending-after-crash",
        title: "ক্র্যাশের পরে XPENDING কী দেখায়",
        make: pending_after_crash,
    },
    QuestionKind {
        id: "trim-loses",
        title: "MAXLEN ছাঁটাইয়ে কয়টা হারায়",
        make: trim_loses,
    },
    QuestionKind {
        id: "claim-twice",
        title: "XAUTOCLAIM-এর পরে কয়টা দুবার সেভ",
        make: claim_twice,
    },
];

fn result(p: &Params) -> StreamsOutput {
    run(&p.read::<StreamsParams>())
}

/// XPENDING's count at the end of the run.
pub(crate) fn pending_at_end(r: &StreamsOutput) -> u64 {
    r.samples.last().map_or(0, |s| s.pending)
}

/// A crash scene: one consumer dies after saving a batch, before its XACK.
struct Crash {
    workers: u32,
    count: u32,
    who: u32,
    at: u32,
    claim: bool,
    idle: u32,
    p: Params,
}

impl Crash {
    fn draw(d: &mut Draw, claim: bool) -> Crash {
        let workers = d.int(2, 4);
        let count = d.one(&[20u32, 50, 100]);
        let who = d.int(1, workers);
        let at = d.int(5, 20) * 100;
        let idle = d.one(&[1000u32, 2000, 3000]);
        let p = params(
            &INFO,
            &[
                ("messages", "3000".into()),
                ("rate", "1000".into()),
                ("workers", workers.to_string()),
                ("count", count.to_string()),
                ("save_ms", "100".into()),
                ("crash_worker", who.to_string()),
                ("crash_at", at.to_string()),
                (
                    "autoclaim",
                    if claim { Switch::On } else { Switch::Off }.word().into(),
                ),
                ("claim_idle", idle.to_string()),
                ("claim_every", "1000".into()),
                ("maxlen", "0".into()),
                ("seed", d.int(0, 99_999).to_string()),
            ],
        );
        Crash {
            workers,
            count,
            who,
            at,
            claim,
            idle,
            p,
        }
    }

    /// The crashed batch's size, as the run shows it.
    fn batch(&self, r: &StreamsOutput) -> u64 {
        if self.claim {
            r.counters.duplicates
        } else {
            r.counters.stuck
        }
    }

    /// The crashed consumer's loop, as it speaks to Redis.
    fn code(&self) -> Vec<String> {
        vec![format!(
            "XREADGROUP GROUP savers w{} COUNT {} BLOCK 5000 STREAMS orders >",
            self.who, self.count
        )]
    }

    fn scene(&self, n: u64) -> String {
        format!(
            "স্ট্রিম `orders`-এ সেকেন্ডে ১,০০০ মেসেজ, মোট ৩,০০০; গ্রুপ `savers`-এ {}টা worker, প্রত্যেকে COUNT {} পড়ে, ১০০ ms-এ সেভ করে তারপর XACK দেয়। {} ms পেরোনোর পরে {} নম্বর worker (নিচের consumer) হাতের ব্যাচের {}টা মেসেজ সেভ করে, কিন্তু XACK পাঠানোর আগেই ক্র্যাশ করে — আর ফেরে না। {}",
            int(self.workers.into()),
            int(self.count.into()),
            int(self.at.into()),
            int(self.who.into()),
            int(n as i64),
            if self.claim {
                format!(
                    "বাকিরা প্রতি সেকেন্ডে `XAUTOCLAIM … min-idle` চালায়, min-idle {} ms।",
                    int(self.idle.into())
                )
            } else {
                "XAUTOCLAIM কেউ চালায় না।".to_string()
            }
        )
    }
}

/// A run whose crash is clean: a batch of more than one message left pending, and (with
/// XAUTOCLAIM) exactly that batch taken over and saved again.
fn crash_run(seed: u32, salt: u32, claim: impl Fn(&mut Draw) -> bool) -> (Crash, StreamsOutput) {
    let mut d = Draw::new(seed, salt);
    for _ in 0..100 {
        let on = claim(&mut d);
        let c = Crash::draw(&mut d, on);
        let r = result(&c.p);
        let k = &r.counters;
        let clean = r.crash_ms.is_some()
            && r.settled
            && if on {
                k.stuck == 0 && k.reclaimed == k.duplicates && k.duplicates > 1
            } else {
                k.reclaimed == 0 && k.duplicates == 0 && k.stuck > 1
            };
        if clean {
            return (c, r);
        }
    }
    panic!("streams crash question {salt}: no clean run for seed {seed}")
}

/// The options of the XPENDING question, for a batch of `n` left by `who`.
fn pending_options(n: u64, who: u32) -> [String; 3] {
    [
        "০টা pending — কিছুই বাকি নেই".to_string(),
        format!("{}টা pending, সবগুলো ক্র্যাশ করা `w{who}`-এর নামে", int(n as i64)),
        format!("{}টা pending, বেঁচে থাকা কোনো worker-এর নামে", int(n as i64)),
    ]
}

fn pending_after_crash(seed: u32) -> Draft {
    let (c, r) = crash_run(seed, 51, |d| d.chance(50));
    let n = c.batch(&r);
    let options = pending_options(n, c.who);
    let right = if pending_at_end(&r) == 0 { 0 } else { 1 };
    let hints = (0..options.len())
        .map(|i| match i {
            _ if i == right => String::new(),
            0 => format!(
                "সেভ হয়েছে, কিন্তু XACK হয়নি — Redis সেভের কথা জানে না; XACK না পাওয়া পর্যন্ত এন্ট্রিগুলো PEL-এ `w{}`-এর নামেই থাকে, আর কেউ সেগুলো নেয় না।",
                c.who
            ),
            1 => "XAUTOCLAIM min-idle পেরোনো এন্ট্রিগুলো আরেক worker-কে দেয়; সে সেভ করে XACK দেয়, তাই শেষে PEL খালি।".into(),
            _ => "XAUTOCLAIM নেওয়া worker এন্ট্রিগুলো সেভ করে XACK-ও দেয় — শেষে তারা আর pending নয়।".into(),
        })
        .collect();
    Draft {
        text: format!(
            "{} সব মেসেজ শেষ হলে `XPENDING orders savers` কী দেখায়?",
            c.scene(n)
        ),
        code: c.code(),
        answer: Answer::Choice {
            options: options.to_vec(),
            right,
            hints,
        },
        why: if right == 0 {
            format!(
                "min-idle {} ms পেরোলে XAUTOCLAIM `w{}`-এর {}টা এন্ট্রি আরেক worker-কে দেয়; সে আবার সেভ করে XACK দেয় — PEL খালি, তবে ওই {}টা দুবার সেভ হয়েছে।",
                int(c.idle.into()),
                c.who,
                int(n as i64),
                int(n as i64)
            )
        } else {
            format!(
                "XACK ছাড়া Redis জানে না ব্যাচটা সেভ হয়েছে: {}টা এন্ট্রি `w{}`-এর PEL-এ থেকে যায়, আর XAUTOCLAIM না থাকলে কেউ নেয় না — শেষেও XPENDING {}টা দেখায়।",
                int(n as i64),
                c.who,
                int(pending_at_end(&r) as i64)
            )
        },
        show: show_end(&c.p),
    }
}

fn claim_twice(seed: u32) -> Draft {
    let (c, r) = crash_run(seed, 52, |_| true);
    let n = r.counters.duplicates as i64;
    let hints = vec![
        (
            0,
            "ডেটাবেসে কপি একটাই থাকে (upsert), কিন্তু সেভ দুবার হয়: ক্র্যাশ করা worker-এর সেভ XACK পায়নি, তাই XAUTOCLAIM-এ যে নেয় সে আবার সেভ করে।".into(),
        ),
        (
            n * i64::from(c.workers - 1),
            "XAUTOCLAIM একটা এন্ট্রি একজনকেই দেয় (দাবি করা এন্ট্রির idle আবার শূন্য হয়) — বাকি worker-রা সেটা পায় না।".into(),
        ),
    ]
    .into_iter()
    .filter(|(k, _): &(i64, String)| *k != n)
    .collect();
    Draft {
        text: format!(
            "{} সব মেসেজ শেষ হলে কয়টা মেসেজ দ্বিতীয়বার সেভ হয়েছে?",
            c.scene(n as u64)
        ),
        code: c.code(),
        answer: Answer::Count { n, hints },
        why: format!(
            "`w{}`-এর ব্যাচের {}টা মেসেজ সেভ হয়েছিল কিন্তু XACK হয়নি; min-idle {} ms পরে XAUTOCLAIM সেগুলো আরেক worker-কে দেয়, সে আবার সেভ করে — at-least-once: {}টা দুবার।",
            c.who,
            int(n),
            int(c.idle.into()),
            int(n)
        ),
        show: show_end(&c.p),
    }
}

/// Entries the trim took from the group: never read, or deleted while pending.
pub(crate) fn lost(r: &StreamsOutput) -> i64 {
    (r.counters.lost_trim + r.counters.claim_deleted) as i64
}

fn trim_loses(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 53);
    for _ in 0..100 {
        let workers = d.int(1, 4);
        let count = d.one(&[20u32, 50, 100]);
        let save_ms = d.one(&[100u32, 200, 250, 500]);
        let consume = u64::from(workers * count) * 1000 / u64::from(save_ms);
        let rate = (consume * u64::from(d.int(15, 30)) / 10).div_ceil(100) * 100;
        let secs = d.int(2, 6);
        let messages = rate * u64::from(secs);
        let maxlen = d.one(&[100u64, 200, 500, 1000, 2000]);
        if messages > 20_000 || rate <= consume {
            continue;
        }
        let p = params(
            &INFO,
            &[
                ("messages", messages.to_string()),
                ("rate", rate.to_string()),
                ("workers", workers.to_string()),
                ("count", count.to_string()),
                ("save_ms", save_ms.to_string()),
                ("maxlen", maxlen.to_string()),
                ("seed", d.int(0, 99_999).to_string()),
            ],
        );
        let r = result(&p);
        let right = lost(&r);
        let backlog = ((rate - consume) * u64::from(secs)) as i64;
        // The text's reckoning (what piles up beyond MAXLEN) must come near the run.
        let estimate = (backlog - maxlen as i64).max(0);
        if right < 50 || (right - estimate).abs() * 4 > estimate {
            continue;
        }
        // Distractors a student confuses it with, kept clear of the run's figure.
        let far = |x: i64| (x - right).abs() * 5 > right;
        let mut opts: Vec<(i64, String)> = vec![(right, String::new())];
        let cands = [
            (
                0,
                "MAXLEN পড়া হয়েছে কি না দেখে না — পুরোনো মাথা থেকে কাটে; গ্রুপ পিছিয়ে থাকলে না-পড়া এন্ট্রিও যায়।".to_string(),
            ),
            (
                messages as i64 - maxlen as i64,
                format!(
                    "এটা ধরে নেয় কেউ কিছুই পড়েনি — কিন্তু worker-রা সেকেন্ডে প্রায় {}টা পড়ে ফেলে; হারায় শুধু পিছিয়ে থাকা অংশের যা MAXLEN-এ আঁটে না।",
                    int(consume as i64)
                ),
            ),
            (
                backlog,
                format!(
                    "এটা পুরো জমে থাকা অংশ — কিন্তু স্ট্রিম নিজে প্রায় MAXLEN-টা ({}টা) এন্ট্রি রেখে দেয়, worker-রা সেগুলো পরে পড়ে; হারায় তার বাইরেরটুকু।",
                    int(maxlen as i64)
                ),
            ),
        ];
        for (v, h) in cands {
            if v >= 0 && far(v) && !opts.iter().any(|(x, _)| *x == v) {
                opts.push((v, h));
            }
        }
        if opts.len() < 3 {
            continue;
        }
        opts.sort_by_key(|(v, _)| *v);
        let ri = opts
            .iter()
            .position(|(v, h)| *v == right && h.is_empty())
            .expect("the right figure is an option");
        return Draft {
            text: format!(
                "producer-রা সেকেন্ডে {}টা মেসেজ `XADD orders MAXLEN ~ …` করে, মোট {}টা; গ্রুপে {}টা worker, প্রত্যেকে COUNT {} পড়ে, সেভে লাগে {} ms। স্ট্রিমের MAXLEN ~ {}। পড়ার আগেই ছাঁটাইয়ে কয়টা মেসেজ গ্রুপের হাত থেকে হারায়?",
                int(rate as i64),
                int(messages as i64),
                int(workers.into()),
                int(count.into()),
                int(save_ms.into()),
                int(maxlen as i64)
            ),
            code: vec![format!("XADD orders MAXLEN ~ {maxlen} * n <i>")],
            answer: Answer::Choice {
                options: opts.iter().map(|(v, _)| format!("{}টা", int(*v))).collect(),
                right: ri,
                hints: opts.into_iter().map(|(_, h)| h).collect(),
            },
            why: format!(
                "worker-রা সেকেন্ডে প্রায় {}টা পড়ে, আসে {}টা — {} সেকেন্ডে প্রায় {}টা জমে; স্ট্রিম MAXLEN ~ {}-এর কাছে থাকে, তাই বাকিটা পড়ার আগেই কাটা যায়: এই রানে {}টা।",
                int(consume as i64),
                int(rate as i64),
                int(secs.into()),
                int(backlog),
                int(maxlen as i64),
                int(right)
            ),
            show: show_end(&p),
        };
    }
    panic!("streams trim question: no fitting run for seed {seed}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::practice::tests::{every_seed, lab_output, Truth};
    use crate::practice::Question;

    /// What the lab's own run (through the worker protocol) says the answer is.
    fn rerun(q: &Question) -> Truth {
        let show = q.draft.show.as_ref().expect("every question shows the lab");
        let out: StreamsOutput = lab_output(show);
        match q.kind.as_str() {
            "pending-after-crash" => {
                let pending = pending_at_end(&out);
                let who: u32 = out.params.crash_worker;
                let n = if out.params.autoclaim == Switch::On {
                    out.counters.duplicates
                } else {
                    out.counters.stuck
                };
                let opts = pending_options(n, who);
                if pending == 0 {
                    Truth::Choice(opts[0].clone())
                } else {
                    assert_eq!(pending, out.counters.stuck, "the dead consumer's entries");
                    Truth::Choice(opts[1].clone())
                }
            }
            "trim-loses" => Truth::Choice(format!("{}টা", int(lost(&out)))),
            "claim-twice" => Truth::Count(out.counters.duplicates as i64),
            k => panic!("no rerun for {k}"),
        }
    }

    #[test]
    fn streams_questions_over_1000_seeds() {
        every_seed("streams", rerun);
    }

    #[test]
    fn answers_vary() {
        crate::practice::tests::answers_vary("streams");
    }
}
