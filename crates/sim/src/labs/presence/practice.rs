//! Questions on counting a room's viewers: whether the count shown comes from the sorted
//! set's exact `ZCARD` or the HyperLogLog's estimate at a drawn room size, which takes more
//! memory at the end — the sorted set (it stops at the limit) or the window's HyperLogLog
//! keys (sparse while small, 12,304 bytes dense) — and what `PFCOUNT` of the window's buckets
//! merged says (multiple choice: an estimate; the options are its figure and the figures a
//! student confuses it with). Every answer is read off the lab's own room run
//! ([`PresenceOutput`]) of the question's parameters.

use crate::labs::params::Params;
use crate::labs::presence::{run_room, Bucket, PresenceOutput, INFO};
use crate::practice::pick::{counts, int, options, until, Draw};
use crate::practice::{params, show_end, Draft, QuestionKind};

/// The presence lab's question kinds.
pub const KINDS: &[QuestionKind] = &[
    QuestionKind {
        id: "exact",
        title: "গোনা নিখুঁত, না আন্দাজ",
        make: exact,
    },
    QuestionKind {
        id: "memory",
        title: "কোনটা বেশি মেমোরি নেয়",
        make: memory,
    },
    QuestionKind {
        id: "pfcount",
        title: "কয়েক bucket মিলিয়ে PFCOUNT",
        make: pfcount,
    },
];

/// A room as a question draws it (inside the lab's ranges, small enough to run in
/// milliseconds).
struct Room {
    size: u32,
    rounds: u32,
    leave: u32,
    window: u32,
    limit: u32,
    seed: u32,
}

impl Room {
    fn lab(&self) -> Params {
        params(
            &INFO,
            &[
                ("size", self.size.to_string()),
                ("rounds", self.rounds.to_string()),
                ("leave", self.leave.to_string()),
                ("window", self.window.to_string()),
                ("limit", self.limit.to_string()),
                ("seed", self.seed.to_string()),
            ],
        )
    }

    /// The room, in Bengali.
    fn told(&self) -> String {
        format!(
            "একটা লাইভ ক্লাসের রুম {}টা ৩০ সেকেন্ডের bucket-এ সমান তালে বেড়ে {} জনে পৌঁছায়{}; প্রতি bucket-এ প্রত্যেক সক্রিয় দর্শককে `markactive` স্ক্রিপ্ট একবার চিহ্নিত করে (`PFADD` সেই bucket-এর HyperLogLog-এ, আর রুম {} জনের সীমার নিচে থাকলে sorted set-এ `ZADD`)। গোনা হয় শেষ {}টা bucket মিলিয়ে।",
            int(self.rounds.into()),
            int(self.size.into()),
            if self.leave == 0 {
                ", কেউ চলে যায় না".to_string()
            } else {
                format!(", প্রতি bucket-এর শুরুতে {}% চলে যায়", int(self.leave.into()))
            },
            int(self.limit.into()),
            int(self.window.into())
        )
    }
}

fn run_of(p: &Params) -> PresenceOutput {
    run_room(&p.read())
}

fn last(r: &PresenceOutput) -> &Bucket {
    r.buckets.last().expect("at least one bucket")
}

/// The code lines every presence question shows.
fn code(limit: u32) -> Vec<String> {
    vec![
        format!(
            "EVALSHA <markactive> 2 presence:room:42 hll:room:42:<bucket> <now> <viewer> {limit}"
        ),
        "ZCARD presence:room:42".into(),
        "PFCOUNT hll:room:42:<b-2> hll:room:42:<b-1> hll:room:42:<b>".into(),
    ]
}

/// The exact question's options.
const SOURCES: [&str; 2] = [
    "sorted set-এর `ZCARD` — নিখুঁত গোনা",
    "HyperLogLog-এর `PFCOUNT` — আন্দাজ",
];

fn exact(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 71);
    let limit = d.int(50, 600);
    let small = d.chance(50);
    // Far enough from the limit that the estimate's error cannot cross it.
    let pct = if small {
        d.int(20, 85)
    } else {
        d.int(120, 400)
    };
    let room = Room {
        size: (limit * pct / 100).max(1),
        rounds: d.int(1, 3),
        leave: 0,
        window: d.int(1, 3),
        limit,
        seed: d.int(0, 99_999),
    };
    let p = room.lab();
    let r = run_of(&p);
    let b = last(&r);
    let right = usize::from(!b.exact);
    let hints = [
        (
            SOURCES[0],
            format!(
                "রুমে {} জন, সীমা {} — sorted set সীমায় থেমে যায় (স্ক্রিপ্ট আর `ZADD` করে না), তাই `ZCARD` আর সবাইকে গোনে না; দেখানো হয় `PFCOUNT`-এর আন্দাজ।",
                int(room.size.into()),
                int(limit.into())
            ),
        ),
        (
            SOURCES[1],
            format!(
                "রুমে {} জন, সীমা {}-এর নিচে — সবাই sorted set-এ আছে, তাই নিখুঁত `ZCARD`-ই দেখানো হয়; আন্দাজ লাগে সীমার ওপরে।",
                int(room.size.into()),
                int(limit.into())
            ),
        ),
    ];
    Draft {
        text: format!(
            "{} নিয়ম: আন্দাজ সীমার নিচে থাকলে `ZCARD` দেখানো হয়, ওপরে গেলে `PFCOUNT` (তবে `ZCARD`-এর কম নয়)। শেষ bucket-এ যে সংখ্যা দেখানো হয়, সেটা কোথা থেকে আসে?",
            room.told()
        ),
        code: code(limit),
        answer: options(&hints, right),
        why: format!(
            "শেষ bucket-এ সত্যিকারের সক্রিয় {} জন; `ZCARD` {}, `PFCOUNT` {} — দেখানো হয় {} ({})।",
            int(b.truth.into()),
            int(b.zcard),
            int(b.pf_window),
            int(b.shown),
            if b.exact {
                "সীমার নিচে, নিখুঁত"
            } else {
                "সীমার ওপরে, আন্দাজ"
            }
        ),
        show: show_end(&p),
    }
}

/// The memory question's options.
const BIGGER: [&str; 2] = [
    "sorted set `presence:room:42`",
    "শেষ কয়েক bucket-এর HyperLogLog key-গুলো মিলে",
];

/// Which of [`BIGGER`] takes more bytes in bucket `b`.
fn bigger(b: &Bucket) -> usize {
    usize::from(b.hll_bytes > b.zset_bytes)
}

fn memory(seed: u32) -> Draft {
    // A clear winner: one side at least a quarter bigger.
    let (room, p, r) = until(seed, 72, 100, |d| {
        let room = Room {
            size: d.int(1, 60) * 50,
            rounds: d.int(1, 2),
            leave: d.int(0, 3) * 10,
            window: d.int(1, 3),
            limit: d.int(1, 40) * 25,
            seed: d.int(0, 99_999),
        };
        let p = room.lab();
        let r = run_of(&p);
        let b = last(&r);
        let (z, h) = (b.zset_bytes as f64, b.hll_bytes as f64);
        (z > 1.25 * h || h > 1.25 * z).then_some((room, p, r))
    });
    let b = last(&r);
    let right = bigger(b);
    let told = format!(
        "এই রানে sorted set {} বাইট ({} জন সদস্য), HyperLogLog key-গুলো মিলে {} বাইট ({}টা dense, প্রতিটা ১২,৩০৪ বাইট; বাকিগুলো sparse, কয়েকশো থেকে ৩,০০০ বাইট)।",
        int(b.zset_bytes as i64),
        int(b.zcard),
        int(b.hll_bytes as i64),
        int(b.dense.into())
    );
    let hints = [
        (
            BIGGER[0],
            format!("সীমায় থামা sorted set ছোট থাকে, আর dense HyperLogLog প্রতিটা ১২ KB — {told}"),
        ),
        (
            BIGGER[1],
            format!("ছোট রুমে HyperLogLog sparse, কয়েকশো বাইট; sorted set-এ প্রতিজন সদস্যের খরচ আলাদা — {told}"),
        ),
    ];
    Draft {
        text: format!("{} শেষ bucket-এর পরে কোনটা বেশি মেমোরি নেয়?", room.told()),
        code: code(room.limit),
        answer: options(&hints, right),
        why: told,
        show: show_end(&p),
    }
}

fn pfcount(seed: u32) -> Draft {
    let (room, p, r) = until(seed, 73, 100, |d| {
        let window = d.int(2, 3);
        let room = Room {
            size: d.int(4, 40) * 50,
            rounds: window + d.int(0, 1),
            leave: d.int(2, 6) * 10,
            window,
            limit: 500,
            seed: d.int(0, 99_999),
        };
        let p = room.lab();
        let r = run_of(&p);
        let b = last(&r);
        let near = |x: i64| (x - b.pf_window).abs() * 100 < b.pf_window * 8;
        let sum: i64 = window_buckets(&r).iter().map(|b| i64::from(b.active)).sum();
        let ok = (b.pf_window - i64::from(b.truth)).abs() * 100 <= i64::from(b.truth) * 3
            && !near(b.pf_single)
            && !near(sum)
            && !near(i64::from(window_buckets(&r)[0].active));
        ok.then_some((room, p, r))
    });
    let b = last(&r);
    let wb = window_buckets(&r);
    let sum: i64 = wb.iter().map(|b| i64::from(b.active)).sum();
    let first = i64::from(wb[0].active);
    let story: Vec<String> = wb
        .iter()
        .enumerate()
        .map(|(i, x)| {
            if i == 0 {
                format!(
                    "{} নম্বর bucket-এ সক্রিয় {} জন",
                    int(i64::from(x.bucket) + 1),
                    int(x.active.into())
                )
            } else {
                format!(
                    "{} নম্বরে {} জন চলে যায়, {} জন নতুন আসে (সক্রিয় {})",
                    int(i64::from(x.bucket) + 1),
                    int(x.left.into()),
                    int(x.joined.into()),
                    int(x.active.into())
                )
            }
        })
        .collect();
    let answer = counts(
        b.pf_window,
        vec![
            (
                b.pf_single,
                "এটা শুধু শেষ bucket-এর `PFCOUNT` — কয়েকটা key একসাথে দিলে Redis সেগুলো মিলিয়ে (union) গোনে, মাঝে চলে যাওয়ারাও থাকে।".into(),
            ),
            (
                sum,
                "এটা প্রতি bucket-এর সক্রিয়দের যোগফল — যে দর্শক কয়েক bucket-এই ছিল তাকে বারবার গোনা; HyperLogLog মেলালে একজন একবারই গোনা হয়।".into(),
            ),
            (
                first,
                "এটা প্রথম bucket-এর সক্রিয়রা — পরে যারা নতুন এসেছে তারাও উইন্ডোর ভেতরে সক্রিয়।".into(),
            ),
        ],
    );
    Draft {
        text: format!(
            "{} {}। শেষ {}টা bucket-এর HyperLogLog একসাথে `PFCOUNT` করলে মোটামুটি কত আসে?",
            room.told(),
            story.join("; "),
            int(room.window.into())
        ),
        code: code(room.limit),
        answer,
        why: format!(
            "উইন্ডোতে আলাদা আলাদা দর্শক = প্রথম bucket-এর {} জন + পরে নতুন আসা {} জন = {}; `PFCOUNT` মিলিয়ে গোনে, আন্দাজ {} (ভুল {}%)।",
            int(first),
            int(i64::from(b.truth) - first),
            int(b.truth.into()),
            int(b.pf_window),
            crate::bn::dec(b.err_pct, 2)
        ),
        show: show_end(&p),
    }
}

/// The buckets the last bucket's window holds, oldest first.
fn window_buckets(r: &PresenceOutput) -> &[Bucket] {
    let w = r.params.window as usize;
    &r.buckets[r.buckets.len().saturating_sub(w)..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::practice::tests::{every_seed, lab_output, Truth};
    use crate::practice::Question;

    /// What the lab's own run (through the worker protocol) says the answer is.
    fn rerun(q: &Question) -> Truth {
        let show = q.draft.show.as_ref().expect("every question shows the lab");
        let out: PresenceOutput = lab_output(show);
        let b = out.buckets.last().expect("a bucket");
        assert_eq!(
            (show.step, show.at),
            (0, None),
            "the last bucket: the lab's result"
        );
        match q.kind.as_str() {
            "exact" => Truth::Choice(SOURCES[usize::from(!b.exact)].into()),
            "memory" => Truth::Choice(BIGGER[bigger(b)].into()),
            "pfcount" => Truth::Choice(int(b.pf_window)),
            k => panic!("no rerun for {k}"),
        }
    }

    #[test]
    fn presence_questions_over_1000_seeds() {
        every_seed("presence", rerun);
    }

    #[test]
    fn answers_vary() {
        crate::practice::tests::answers_vary("presence");
    }
}
