//! Questions on Redis failing under a cache (production slide 19, ioredis v5 as it really
//! is): a request's median latency when Redis is healthy (a hit, 2 ms), slow (`GET` rejected
//! by `commandTimeout` at 1,500 ms, not resent, then the query) or down (the `GET` waits in
//! the offline queue up to 1,500 ms; with the queue off only the query is left); how many
//! database queries a run makes (every request when Redis is slow or down, only the
//! expiring keys when it is healthy); and how long one request's queued `GET` waits with
//! Redis down — the whole 1,500 ms, less when a failed reconnection flushes the queue with
//! `MaxRetriesPerRequestError`, nothing with the queue off. Every answer is read off the
//! lab's own run ([`FailureOutput`]) of the question's parameters.

use crate::labs::failure::{
    run, FailureOutput, FailureParams, Level, COMMAND_TIMEOUT_MS, INFO, RETRY_CAP_MS,
};
use crate::labs::params::Params;
use crate::practice::pick::{counts, int, only_wrong, until, Draw};
use crate::practice::{params, show, show_end, Answer, Draft, QuestionKind};

/// The failure lab's question kinds.
pub const KINDS: &[QuestionKind] = &[
    QuestionKind {
        id: "p50",
        title: "সুস্থ, ধীর, ডাউন: মিডিয়ান লেটেন্সি কত",
        make: p50,
    },
    QuestionKind {
        id: "queries",
        title: "পুরো সময়ে ডেটাবেসে কয়টা কোয়েরি",
        make: queries,
    },
    QuestionKind {
        id: "offline",
        title: "Redis ডাউন: GET কতক্ষণ অপেক্ষা করে",
        make: offline,
    },
];

/// The timeout, as a count.
const TIMEOUT: i64 = COMMAND_TIMEOUT_MS as i64;
/// When the first failed reconnection of a run answers, ms: the `retryStrategy` wait at its
/// ceiling, then the refusal's round trip (1 ms each way). Every second failed
/// reconnection flushes the offline queue (`maxRetriesPerRequest` 1): the first, then every
/// two waits (a test holds this to the lab's log).
const FIRST_TRY_MS: i64 = RETRY_CAP_MS as i64 + 2;

/// The run's setting as a question draws it (inside the lab's ranges, a few hundred
/// requests, so the three levels run in milliseconds).
struct Setup {
    level: Level,
    rate: u32,
    seconds: u32,
    db: u32,
    keys: u32,
    ttl: u32,
    queue: bool,
    seed: u32,
}

impl Setup {
    fn lab(&self) -> Params {
        params(
            &INFO,
            &[
                ("redis", self.level.word().into()),
                ("rate", self.rate.to_string()),
                ("seconds", self.seconds.to_string()),
                ("db", self.db.to_string()),
                ("keys", self.keys.to_string()),
                ("ttl", self.ttl.to_string()),
                (
                    "offline_queue",
                    if self.queue { "on" } else { "off" }.into(),
                ),
                ("seed", self.seed.to_string()),
            ],
        )
    }

    /// Requests in the run.
    fn requests(&self) -> i64 {
        i64::from(self.rate) * i64::from(self.seconds)
    }

    /// The setting, in Bengali.
    fn scene(&self) -> String {
        format!(
            "একটা API-তে সেকেন্ডে গড়ে {}টা রিকোয়েস্ট আসে, {} সেকেন্ড ধরে — মোট {}টা। প্রতিটা রিকোয়েস্ট একটা ক্যাশ ফাংশন ডাকে: `GET`, না পেলে ডেটাবেস কোয়েরি ({} ms), তারপর `SET … EX`; `GET`-এ error হলে catch-এ সোজা `loader()`, অর্থাৎ কোয়েরি। ক্যাশ গরম: {}টা key-র সবই ক্যাশে, TTL {} সেকেন্ড (প্রত্যেকটার মেয়াদের এলোমেলো একটা অংশ বাকি)। ক্যাশ কানেকশন ioredis-এর (সংস্করণ ৫): `commandTimeout` ১,৫০০ ms, `maxRetriesPerRequest` ১, `enableOfflineQueue` {}। {}",
            int(self.rate.into()),
            int(self.seconds.into()),
            int(self.requests()),
            int(self.db.into()),
            int(self.keys.into()),
            int(self.ttl.into()),
            if self.queue { "চালু (default)" } else { "বন্ধ" },
            match self.level {
                Level::Healthy => "Redis সুস্থ: প্রতিটা কমান্ডের উত্তর আসে ১ ms যেতে, ১ ms ফিরতে।",
                Level::Slow => "Redis ধীর: সংযোগ আছে, কিন্তু প্রতিটা কমান্ডের উত্তর দেয় ২,০০০–৩,০০০ ms দেরিতে।",
                Level::Down => "Redis অনেকক্ষণ ধরে পুরো ডাউন: সংযোগ refused, ioredis প্রতি ২,০০০ ms পরপর আবার সংযোগের চেষ্টা করে।",
            }
        )
    }

    fn code(&self) -> Vec<String> {
        vec![
            format!(
                "redisCacheConnection: commandTimeout: 1500, maxRetriesPerRequest: 1, enableOfflineQueue: {}",
                self.queue
            ),
            "GET cache:product:<id>   # on error: catch → return loader()".into(),
        ]
    }
}

fn run_of(p: &Params) -> FailureOutput {
    run(&p.read::<FailureParams>())
}

fn p50(seed: u32) -> Draft {
    // A run whose median is the level's story (long enough that fewer than half the queued
    // GETs are flushed early when Redis is down).
    let (s, p, right) = until(seed, 135, 100, |d| {
        let s = Setup {
            level: d.one(&[Level::Healthy, Level::Slow, Level::Down]),
            rate: d.int(5, 40),
            seconds: d.int(8, 12),
            db: d.int(2, 80) * 5,
            keys: d.int(50, 500),
            ttl: d.int(300, 3_600),
            queue: d.chance(70),
            seed: d.int(0, 99_999),
        };
        let p = s.lab();
        let right = run_of(&p).shown().p50_ms as i64;
        let db = i64::from(s.db);
        let story = match (s.level, s.queue) {
            (Level::Healthy, _) => 2,
            (Level::Down, false) => db,
            _ => TIMEOUT + db,
        };
        (right == story).then_some((s, p, right))
    });
    let db = i64::from(s.db);
    let healthy = s.level == Level::Healthy;
    let wrong = vec![
        (
            2,
            "২ ms হয় ক্যাশ হিটে, Redis সময়মতো উত্তর দিলে — এখানে কোনো `GET` সময়মতো উত্তর পায় না।".to_string(),
        ),
        (
            db,
            if healthy {
                "ডেটাবেসে যায় শুধু মেয়াদ ফুরোনো key — বেশিরভাগ রিকোয়েস্ট ক্যাশেই পায়।".to_string()
            } else if s.level == Level::Slow {
                "সংযোগ আছে, Redis শুধু দেরি করে — `GET` সাথে সাথে ব্যর্থ হয় না, `commandTimeout`-এর ১,৫০০ ms পর্যন্ত অপেক্ষা, তারপর কোয়েরি।".to_string()
            } else {
                "শুধু কোয়েরির সময় লাগত `enableOfflineQueue` বন্ধ থাকলে — চালু থাকায় `GET` offline queue-তে ১,৫০০ ms পর্যন্ত বসে থাকে: ডাউন মানে সাথে সাথে ব্যর্থ নয়।".to_string()
            },
        ),
        (
            TIMEOUT,
            if healthy {
                "সুস্থ Redis-এ টাইমআউট হয় না — `GET` ২ ms-এ উত্তর পায়।".to_string()
            } else {
                format!(
                    "১,৫০০ ms-এ শুধু `GET` ব্যর্থ হয়; তারপর `loader()`-এর {} ms-এর কোয়েরিও লাগে।",
                    int(db)
                )
            },
        ),
        (
            TIMEOUT + db,
            if healthy {
                "টাইমআউট আর তারপর কোয়েরি হয় Redis ধীর বা ডাউন হলে — সুস্থ Redis বেশিরভাগ `GET`-এর উত্তর দেয় ক্যাশ থেকে।".to_string()
            } else {
                "`enableOfflineQueue` বন্ধ: সংযোগ না থাকলে `GET` queue-তে ঢোকেই না, সাথে সাথে error — অপেক্ষা নেই, শুধু কোয়েরি।".to_string()
            },
        ),
        (
            2 * TIMEOUT + db,
            "টাইমআউট হওয়া কমান্ড ioredis আবার পাঠায় না — `maxRetriesPerRequest` গোনে reconnect, resend নয়; `loader()` চলে প্রথম ব্যর্থতার পরেই।".to_string(),
        ),
    ];
    let why = match (s.level, s.queue) {
        (Level::Healthy, _) => "Redis সুস্থ: গরম ক্যাশে প্রায় সব `GET` হিট — যেতে ১ ms, ফিরতে ১ ms; মেয়াদ ফুরোনো অল্প কয়েকটা key-ই ডেটাবেসে যায়, মিডিয়ানে পড়ে না।".to_string(),
        (Level::Slow, _) => format!(
            "Redis ধীর: প্রতিটা `GET` ১,৫০০ ms-এ Command timed out, আবার পাঠানো হয় না, তারপর {} ms-এর কোয়েরি — প্রায় সবার {} ms (offline queue এখানে কিছু বদলায় না, সংযোগ তো আছে)।",
            int(db),
            int(right)
        ),
        (Level::Down, true) => format!(
            "Redis ডাউন: `GET` offline queue-তে বসে, বেশিরভাগের ১,৫০০ ms-এর টাইমার ফুরোয় (কিছু আগে ছাড়া পায় flush-এ), তারপর {} ms-এর কোয়েরি — মিডিয়ান {} ms, ধীরের সমান।",
            int(db),
            int(right)
        ),
        _ => format!(
            "offline queue বন্ধ: সংযোগ নেই বলে `GET` সাথে সাথে error, বাকি শুধু {} ms-এর কোয়েরি — এভাবেই ডাউন সত্যিই দ্রুত ব্যর্থ হয়।",
            int(db)
        ),
    };
    Draft {
        text: format!("{} রিকোয়েস্টের মিডিয়ান লেটেন্সি কত ms?", s.scene()),
        code: s.code(),
        answer: counts(right, only_wrong(wrong, right)),
        why,
        show: show_end(&p),
    }
}

fn queries(seed: u32) -> Draft {
    let (s, p, out) = until(seed, 136, 100, |d| {
        let level = d.one(&[
            Level::Healthy,
            Level::Slow,
            Level::Slow,
            Level::Down,
            Level::Down,
        ]);
        let seconds = d.int(2, 12);
        let s = Setup {
            level,
            rate: d.int(5, 40),
            seconds,
            db: d.int(2, 80) * 5,
            keys: d.int(20, 400),
            ttl: d.int(seconds * 2, seconds * 10),
            queue: d.chance(70),
            seed: d.int(0, 99_999),
        };
        let p = s.lab();
        let out = run_of(&p);
        let right = i64::from(out.shown().db_queries);
        // Healthy: some keys expire, not all, and not every request loads.
        let fits = level != Level::Healthy
            || (right > 0 && right < i64::from(s.keys) && right < s.requests());
        fits.then_some((s, p, out))
    });
    let n = s.requests();
    let right = i64::from(out.shown().db_queries);
    let healthy = i64::from(out.levels[0].db_queries);
    let text = format!("{} পুরো সময়ে ডেটাবেসে কয়টা কোয়েরি যায়?", s.scene());
    if s.level == Level::Healthy {
        let wrong = vec![
            (
                n,
                "প্রতিটা রিকোয়েস্ট ডেটাবেসে যায় Redis ধীর বা ডাউন হলে — সুস্থ Redis-এ গরম ক্যাশের বেশিরভাগ `GET` হিট।".to_string(),
            ),
            (
                i64::from(s.keys),
                "সব key-ই ক্যাশে আছে, প্রত্যেকটার TTL কিছু বাকি — ডেটাবেসে যায় শুধু যেগুলোর মেয়াদ চালানোর মাঝে ফুরোয় আর তারপর কেউ চায়।".to_string(),
            ),
            (
                0,
                format!(
                    "ক্যাশ গরম হলেও TTL ফুরোয়: {} সেকেন্ডের TTL-এর কিছু key এই {} সেকেন্ডেই ফুরোয়, তখন miss → `loader()`।",
                    int(s.ttl.into()),
                    int(s.seconds.into())
                ),
            ),
        ];
        return Draft {
            text,
            code: s.code(),
            answer: counts(right, only_wrong(wrong, right)),
            why: format!(
                "Redis সুস্থ: {}টা রিকোয়েস্টের {}টা ক্যাশে হিট; মেয়াদ ফুরোনো key যারা চাইল, শুধু তাদের {}টা miss → কোয়েরি → `SET … EX`, তারপর সেই key আবার ক্যাশে।",
                int(n),
                int(i64::from(out.shown().hits)),
                int(right)
            ),
            show: show_end(&p),
        };
    }
    let wrong = vec![
        (
            healthy,
            format!(
                "এটা Redis সুস্থ থাকলে: শুধু মেয়াদ ফুরোনো key ডেটাবেসে যায়। {} Redis-এ কোনো `GET` হিট হয় না, তাই প্রতিটা রিকোয়েস্টই `loader()`।",
                if s.level == Level::Slow { "ধীর" } else { "ডাউন" }
            ),
        ),
        (
            0,
            "ক্যাশ ব্যর্থ হলে ফিচার ব্যর্থ হয় না: catch-এ `return loader()` — রিকোয়েস্ট উত্তর পায় ডেটাবেস থেকে।".to_string(),
        ),
        (
            2 * n,
            "ব্যর্থ `GET` আবার পাঠানো হয় না, `loader()` চলে একবারই — প্রতি রিকোয়েস্টে একটা কোয়েরি।".to_string(),
        ),
        (
            i64::from(s.keys),
            "key-প্রতি একবার নয়: `GET` ব্যর্থ হলে `loader()`-এর ফল ক্যাশে লেখা হয় না, তাই একই key-র পরের রিকোয়েস্টও আবার ডেটাবেসে যায়।".to_string(),
        ),
    ];
    Draft {
        text,
        code: s.code(),
        answer: Answer::Count {
            n: right,
            hints: only_wrong(wrong, right),
        },
        why: format!(
            "{}, catch থেকে `loader()` — {}টা রিকোয়েস্টে {}টা কোয়েরি, সেকেন্ডে {}টা (সুস্থ Redis-এ হতো মোটে {}টা)।",
            match (s.level, s.queue) {
                (Level::Slow, _) => "Redis ধীর: প্রতিটা `GET` ১,৫০০ ms-এ টাইমআউট হয়",
                (Level::Down, true) => "Redis ডাউন: প্রতিটা `GET` offline queue থেকে টাইমআউটে বা flush-এ ব্যর্থ হয়",
                _ => "Redis ডাউন, offline queue বন্ধ: প্রতিটা `GET` সাথে সাথে ব্যর্থ হয়",
            },
            int(n),
            int(right),
            int(right / i64::from(s.seconds)),
            int(healthy)
        ),
        show: show_end(&p),
    }
}

/// The request a log line is about (`req <i>`), if it is one's.
fn request_of(actor: &str) -> Option<usize> {
    actor.strip_prefix("req ")?.parse().ok()
}

/// The first flush of the offline queue after `ms` (a failed reconnection every
/// `RETRY_CAP_MS + 2` ms from [`FIRST_TRY_MS`], every second one flushing).
fn next_flush(ms: i64) -> i64 {
    let period = 2 * FIRST_TRY_MS;
    let k = (ms - FIRST_TRY_MS).max(0).div_euclid(period);
    let f = FIRST_TRY_MS + k * period;
    if f > ms {
        f
    } else {
        f + period
    }
}

fn offline(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 137);
    let s = Setup {
        level: Level::Down,
        rate: d.int(2, 30),
        seconds: d.int(3, 10),
        db: d.int(2, 80) * 5,
        keys: d.int(20, 500),
        ttl: d.int(60, 3_600),
        queue: d.chance(70),
        seed: d.int(0, 99_999),
    };
    let p0 = s.lab();
    let out = run_of(&p0);
    let arrivals = crate::labs::failure::requests(&p0.read::<FailureParams>());
    // A request's line of the log, drawn: its index in the log is the timeline's step.
    let lines: Vec<(usize, usize)> = out
        .shown()
        .log
        .iter()
        .enumerate()
        .filter_map(|(k, l)| request_of(&l.actor).map(|i| (k, i)))
        .collect();
    let (k, i) = lines[d.int(0, lines.len() as u32 - 1) as usize];
    let line = &out.shown().log[k];
    let at = arrivals[i].0 as i64;
    let right = line.at_ms as i64 - at;
    let db = i64::from(s.db);
    let flush = next_flush(at);
    let mut wrong = vec![(
        0,
        "`enableOfflineQueue` চালু: সংযোগ না থাকলে `GET` error দেয় না, offline queue-তে বসে থাকে — ডাউন মানে সাথে সাথে ব্যর্থ নয়।".to_string(),
    )];
    wrong.push((
        TIMEOUT,
        if s.queue {
            format!(
                "১,৫০০ ms পুরো হওয়ার আগেই {} ms-এ ব্যর্থ reconnect offline queue খালি করে দেয় (`MaxRetriesPerRequestError`)।",
                int(line.at_ms as i64)
            )
        } else {
            "`enableOfflineQueue` বন্ধ: `GET` queue-তে ঢোকেই না, সংযোগ নেই দেখে সাথে সাথে error — টাইমারের অপেক্ষা নেই।".to_string()
        },
    ));
    if s.queue && right == TIMEOUT {
        wrong.push((
            flush - at,
            format!(
                "পরের flush আসে {} ms-এ, কিন্তু তার আগেই `GET`-এর ১,৫০০ ms-এর টাইমার ফুরোয় — Command timed out।",
                int(flush)
            ),
        ));
    }
    wrong.extend([
        (
            2 * TIMEOUT,
            "টাইমআউট হওয়া কমান্ড ioredis আবার পাঠায় না — `maxRetriesPerRequest` গোনে reconnect, resend নয়।".to_string(),
        ),
        (
            RETRY_CAP_MS as i64,
            "২,০০০ ms হলো reconnect-এর অপেক্ষা (`retryStrategy`), `GET`-এর নয় — `GET`-এর টাইমার ১,৫০০ ms।".to_string(),
        ),
        (
            right + db,
            format!(
                "{} ms-এর কোয়েরি চলে `GET` ব্যর্থ হওয়ার পরে, `loader()`-এ — প্রশ্ন শুধু `GET`-এর অপেক্ষার।",
                int(db)
            ),
        ),
    ]);
    let why = if !s.queue {
        format!(
            "offline queue বন্ধ: সংযোগ নেই বলে `GET` সাথে সাথে বাতিল — অপেক্ষা শূন্য, দেরি শুধু {} ms-এর কোয়েরির।",
            int(db)
        )
    } else if right == TIMEOUT {
        format!(
            "`GET` offline queue-তে বসে থাকে; পরের flush {} ms-এ, তার আগেই {} ms-এ ১,৫০০ ms-এর টাইমার ফুরোয় — Command timed out, তারপর `loader()`।",
            int(flush),
            int(at + TIMEOUT)
        )
    } else {
        format!(
            "`GET` offline queue-তে বসে থাকে; {} ms-এ প্রতি দ্বিতীয় ব্যর্থ reconnect-এর একটা queue খালি করে (`MaxRetriesPerRequestError`) — {} ms পরে, ১,৫০০ ms-এর আগেই।",
            int(line.at_ms as i64),
            int(right)
        )
    };
    let first = FIRST_TRY_MS;
    Draft {
        text: format!(
            "{} প্রতিটা চেষ্টা ২ ms-এ refused হয়: {}, {}, {} ms …; প্রতি দ্বিতীয় ব্যর্থ চেষ্টায় ({}, {}, {} ms …) offline queue-র সব কমান্ড `MaxRetriesPerRequestError` পায়। {} ms-এ একটা রিকোয়েস্ট আসে (লগে req {})। আসার কত ms পরে তার `GET` error পায় (আর `loader()` শুরু হয়)?",
            s.scene(),
            int(first),
            int(2 * first),
            int(3 * first),
            int(first),
            int(3 * first),
            int(5 * first),
            int(at),
            int(i as i64)
        ),
        code: s.code(),
        answer: Answer::Count {
            n: right,
            hints: only_wrong(wrong, right),
        },
        why,
        show: show(&p0, out.after_line(k)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labs::failure::requests;
    use crate::labs::params::Params as P;
    use crate::practice::tests::{every_seed, lab_output, Truth};
    use crate::practice::Question;

    /// What the lab's own run (through the worker protocol) says the answer is.
    fn rerun(q: &Question) -> Truth {
        let show = q.draft.show.as_ref().expect("every question shows the lab");
        let out: FailureOutput = lab_output(show);
        let shown = &out.levels[out.focus.index()];
        match q.kind.as_str() {
            "p50" => Truth::Choice(int(shown.p50_ms as i64)),
            "queries" => {
                let n = i64::from(shown.db_queries);
                if out.focus == Level::Healthy {
                    Truth::Choice(int(n))
                } else {
                    Truth::Count(n)
                }
            }
            "offline" => {
                assert_eq!(out.focus, Level::Down);
                let line = &shown.log[show.step - 1];
                let i: usize = line.actor["req ".len()..]
                    .parse()
                    .expect("a request's line");
                let (p, _) = P::from_query(&INFO, &show.query);
                let arrived = requests(&p.read())[i].0;
                Truth::Count((line.at_ms - arrived) as i64)
            }
            k => panic!("no rerun for {k}"),
        }
    }

    #[test]
    fn failure_questions_over_1000_seeds() {
        every_seed("failure", rerun);
    }

    #[test]
    fn answers_vary() {
        crate::practice::tests::answers_vary("failure");
    }

    /// The reconnection times the offline question tells are the lab's: every failed one
    /// `FIRST_TRY_MS` apart, every second one (the first included) flushing the queue.
    #[test]
    fn the_told_reconnections_are_the_labs() {
        let (p, _) = P::from_query(&INFO, "redis=down&seconds=30&rate=1");
        let out = run(&p.read());
        let tries: Vec<(u64, bool)> = out
            .shown()
            .log
            .iter()
            .filter(|l| l.actor == "ioredis")
            .map(|l| (l.at_ms, l.note.contains("flush")))
            .collect();
        assert!(tries.len() >= 3, "{tries:?}");
        for (j, &(at, flushes)) in tries.iter().enumerate() {
            assert_eq!(at as i64, FIRST_TRY_MS * (j as i64 + 1), "{tries:?}");
            assert_eq!(flushes, j % 2 == 0, "{tries:?}");
            assert_eq!(
                next_flush(at as i64 - 1),
                if flushes {
                    at as i64
                } else {
                    at as i64 + FIRST_TRY_MS
                }
            );
        }
    }
}
