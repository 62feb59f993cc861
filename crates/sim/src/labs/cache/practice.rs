//! Questions on the cache engine: how many database queries a cold start makes with a drawn
//! layer setting (multiple choice: one, one per instance, one per user, one per request),
//! what a request's `GET` sees at its moment given the envelope's `freshUntil` and the
//! entry's `PX` (FRESH, STALE or MISS), and, with Redis down, how many queries run at once
//! (singleflight keeps it to one per instance; the lock, living in Redis, does nothing).
//! Every answer is read off the lab's own run ([`super::CacheOutput`]) of the question's
//! parameters.

use crate::labs::cache::{
    run, CacheCmd, CacheConfig, CacheParams, CacheRecord, CmdRow, Health, Layers, Path, INFO,
};
use crate::labs::params::{Params, Switch};
use crate::practice::pick::{int, Draw};
use crate::practice::{params, show_end, Answer, Draft, QuestionKind};

/// The cache lab's question kinds.
pub const KINDS: &[QuestionKind] = &[
    QuestionKind {
        id: "cold-queries",
        title: "ঠান্ডা ক্যাশে কয়টা ডেটাবেস query",
        make: cold_queries,
    },
    QuestionKind {
        id: "sees",
        title: "এই মুহূর্তে GET কী পায়: FRESH, STALE না MISS",
        make: sees,
    },
    QuestionKind {
        id: "down-peak",
        title: "Redis ডাউন: একসাথে কয়টা query",
        make: down_peak,
    },
];

/// Which layers are on, as a question draws them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Setting {
    /// Every layer off.
    Off,
    /// Singleflight alone.
    Flight,
    /// The Redis lock with its helpers, singleflight off.
    Lock,
    /// Every layer on.
    All,
}

impl Setting {
    const ALL: [Setting; 4] = [Setting::Off, Setting::Flight, Setting::Lock, Setting::All];

    /// (singleflight, lock, poll, rescue, heartbeat, recheck).
    fn layers(self) -> [bool; 6] {
        match self {
            Setting::Off => [false; 6],
            Setting::Flight => [true, false, false, false, false, false],
            Setting::Lock => [false, true, true, true, true, true],
            Setting::All => [true; 6],
        }
    }

    /// The setting, in Bengali.
    fn text(self) -> &'static str {
        match self {
            Setting::Off => "সব স্তর বন্ধ (singleflight নেই, Redis লক নেই)",
            Setting::Flight => "শুধু singleflight চালু (প্রতিটা ইনস্ট্যান্সের ভেতরে একটা লোড), Redis লক বন্ধ",
            Setting::Lock => {
                "singleflight বন্ধ, কিন্তু Redis লক চালু (যে লক পায় না সে cache poll করে অপেক্ষা করে)"
            }
            Setting::All => "চারটা স্তরই চালু (singleflight, Redis লক, poll করে অপেক্ষা, rescue)",
        }
    }
}

/// A run's parameters as a question draws them (inside the lab's ranges, small enough to
/// run in a few milliseconds).
#[derive(Clone, Copy)]
struct Setup {
    instances: u32,
    concurrent: u32,
    requests: u32,
    loader: u32,
    fresh: u32,
    stale: u32,
    layers: [bool; 6],
    redis: Health,
    seed: u32,
}

const LAYER_NAMES: [&str; 6] = [
    "singleflight",
    "lock",
    "poll",
    "rescue",
    "heartbeat",
    "recheck",
];

impl Setup {
    fn lab(&self) -> Params {
        let onoff = |b: bool| if b { Switch::On } else { Switch::Off }.word().to_string();
        let mut pairs = vec![
            ("instances", self.instances.to_string()),
            ("concurrent", self.concurrent.to_string()),
            ("requests", self.requests.to_string()),
            ("loader", self.loader.to_string()),
            ("fresh", self.fresh.to_string()),
            ("stale", self.stale.to_string()),
            ("redis", self.redis.word().to_string()),
            ("start", "empty".to_string()),
            ("seed", self.seed.to_string()),
        ];
        for (name, on) in LAYER_NAMES.iter().zip(self.layers) {
            pairs.push((name, onoff(on)));
        }
        params(&INFO, &pairs)
    }

    /// The clients, in Bengali.
    fn scene(&self) -> String {
        format!(
            "{}টা API ইনস্ট্যান্স; {} জন ব্যবহারকারী, প্রত্যেকে প্রথম রিকোয়েস্ট পাঠায় প্রথম ২০ ms-এর মধ্যে, এলোমেলো একটা ইনস্ট্যান্সে, আর উত্তর পেলে ১০০–৩০০ ms পরে পরেরটা — মোট {}টা রিকোয়েস্ট। ডেটাবেস থেকে একবার লোড করতে লাগে {} ms।",
            int(self.instances.into()),
            int(self.concurrent.into()),
            int(self.requests.into()),
            int(self.loader.into())
        )
    }

    /// The cold-start crowd: every instance busy, more users than instances, a few rounds.
    fn crowd(d: &mut Draw, layers: [bool; 6], redis: Health) -> Setup {
        let instances = d.int(2, 6);
        let concurrent = d.int(3 * instances, 40);
        Setup {
            instances,
            concurrent,
            requests: concurrent * d.int(2, 5),
            loader: d.int(2, 16) * 50,
            fresh: d.int(8, 30) * 1000,
            stale: d.int(0, 10) * 500,
            layers,
            redis,
            seed: d.int(0, 99_999),
        }
    }
}

fn result(p: &Params) -> CacheRecord {
    run(&p.read::<CacheParams>().config())
}

/// The four figures a count question offers (one, one per instance, one per user, one per
/// request), in order, with the right one's index.
fn figures(s: &Setup, right: u32) -> (Vec<u32>, usize) {
    let opts = vec![1, s.instances, s.concurrent, s.requests];
    let i = opts
        .iter()
        .position(|&v| v == right)
        .expect("the right figure is an option");
    (opts, i)
}

fn cold_queries(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 41);
    let setting = d.one(&Setting::ALL);
    for _ in 0..100 {
        let s = Setup::crowd(&mut d, setting.layers(), Health::Healthy);
        let p = s.lab();
        let on = result(&p);
        let want = match setting {
            Setting::Off => s.concurrent,
            Setting::Flight => s.instances,
            Setting::Lock | Setting::All => 1,
        };
        // A cold start as the question tells it: every user's first request missed, every
        // instance got one of them.
        if on.counts.db != want {
            continue;
        }
        let (opts, right) = figures(&s, want);
        let (i, c, r) = (
            int(s.instances.into()),
            int(s.concurrent.into()),
            int(s.requests.into()),
        );
        let hints = opts
            .iter()
            .enumerate()
            .map(|(k, _)| {
                if k == right {
                    return String::new();
                }
                match k {
                    0 => "১টা query হয় Redis লক থাকলে — সব ইনস্ট্যান্স মিলে একজনই লোড করে, বাকিরা cache poll করে নতুন মান পায়। এখানে লক বন্ধ, তাই ইনস্ট্যান্সগুলো একে অন্যের জন্য অপেক্ষা করে না।".to_string(),
                    1 if setting == Setting::Off => format!(
                        "{i}টা হতো শুধু singleflight-এ (ইনস্ট্যান্সপিছু একটা লোড) — এখানে singleflight-ও বন্ধ, তাই একই ইনস্ট্যান্সের মিসগুলোও আলাদা আলাদা লোড করে।"
                    ),
                    1 => format!(
                        "{i}টা হতো শুধু singleflight-এ, ইনস্ট্যান্সপিছু একটা — Redis লক ইনস্ট্যান্সগুলোর মধ্যেও একজনকেই লোড করতে দেয়।"
                    ),
                    2 if setting == Setting::Flight => format!(
                        "{c}টা হয় সব স্তর বন্ধ থাকলে: প্রথম ঝাঁকের প্রত্যেকে মিস করে নিজে লোড করে। singleflight একই ইনস্ট্যান্সের মিসগুলোকে একটা লোডে জুড়ে দেয়।"
                    ),
                    2 => format!(
                        "{c}টা হয় সব স্তর বন্ধ থাকলে: প্রথম ঝাঁকের প্রত্যেকে মিস করে নিজে লোড করে। Redis লক একজনকেই লোড করতে দেয়, বাকিরা অপেক্ষা করে।"
                    ),
                    _ => format!(
                        "{r} তো মোট রিকোয়েস্ট — প্রথম লোড লেখা হয়ে গেলে খাম পুরো রান জুড়ে fresh থাকে, পরের রিকোয়েস্টগুলো FRESH পায়, ডেটাবেসে যায় না।"
                    ),
                }
            })
            .collect();
        let off = run(&CacheConfig {
            layers: Layers::NONE,
            ..p.read::<CacheParams>().config()
        })
        .counts
        .db;
        let why = match setting {
            Setting::Off => format!(
                "প্রথম লোড শেষ হতে {} ms লাগে, তাই প্রথম ২০ ms-এ আসা {c}টা রিকোয়েস্টই GET-এ কিছু পায় না, প্রত্যেকে নিজে লোড করে — {c}টা query; তারপর খাম fresh, বাকি সব FRESH।",
                int(s.loader.into())
            ),
            Setting::Flight => format!(
                "singleflight-এ একটা ইনস্ট্যান্সের প্রথম মিস লোড করে, পরের মিসগুলো সেই লোডে জুড়ে যায়; প্রথম ঝাঁকে {i}টা ইনস্ট্যান্সের প্রত্যেকটায় রিকোয়েস্ট গেছে, তাই {i}টা query — সব স্তর বন্ধ থাকলে হতো {}টা।",
                int(off.into())
            ),
            Setting::Lock | Setting::All => format!(
                "Redis লক (`SET … NX`) একজনই পায়; সে লোড করে লেখে, বাকিরা poll করে নতুন মান পায় — ১টা query, সব স্তর বন্ধ থাকলে হতো {}টা।",
                int(off.into())
            ),
        };
        return Draft {
            text: format!(
                "{} শুরুতে Redis-এ key নেই (ঠান্ডা ক্যাশ); খাম fresh থাকে {} ms — পুরো রানের চেয়ে বেশি। স্তর: {}। পুরো রানে ডেটাবেসে মোট কয়টা query যায়?",
                s.scene(),
                int(s.fresh.into()),
                setting.text()
            ),
            code: Vec::new(),
            answer: Answer::Choice {
                options: opts.iter().map(|&v| int(v.into())).collect(),
                right,
                hints,
            },
            why,
            show: show_end(&p),
        };
    }
    panic!("cache question cold-queries: no fitting run for seed {seed}")
}

/// What a `GET` of the envelope sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Seen {
    Fresh,
    Stale,
    Miss,
}

const SEEN: [(Seen, &str); 3] = [
    (Seen::Fresh, "FRESH — খাম এখনো তাজা, মানটা সাথে সাথে ফেরত যায়"),
    (
        Seen::Stale,
        "STALE — বাসি মানটাই সাথে সাথে ফেরত যায়, পেছনে refresh শুরু হয়",
    ),
    (Seen::Miss, "MISS — key নেই, মান আনতে হয় ডেটাবেস থেকে"),
];

/// What the request's path says its first read saw.
fn seen(p: Path) -> Seen {
    match p {
        Path::Fresh => Seen::Fresh,
        Path::Stale => Seen::Stale,
        _ => Seen::Miss,
    }
}

/// A read the question can ask about: a request's first `GET`, the last write before it.
struct Read<'a> {
    get: &'a CmdRow,
    write: &'a CmdRow,
    fresh_until: u64,
    px: u64,
    seen: Seen,
}

/// The reads of run `r` whose answer is reasoned from the write before them, far enough (in
/// ms) from both deadlines that the network hop does not decide.
fn reads(r: &CacheRecord) -> Vec<Read<'_>> {
    let mut out = Vec::new();
    for q in &r.requests {
        let gets: Vec<&CmdRow> = r
            .log
            .iter()
            .filter(|l| l.cmd == CacheCmd::Get && l.inst == q.inst)
            .filter(|l| l.at_ms >= q.start && l.at_ms <= q.start + 5)
            .collect();
        let [get] = gets.as_slice() else { continue };
        // Nobody else on that instance sent a request near it.
        let near = r
            .requests
            .iter()
            .filter(|o| o.inst == q.inst && o.start + 5 >= get.at_ms && o.start <= get.at_ms)
            .count();
        if near != 1 {
            continue;
        }
        let Some(write) = r
            .log
            .iter()
            .rev()
            .find(|l| matches!(l.cmd, CacheCmd::Write { .. }) && l.at_ms < get.at_ms)
        else {
            continue;
        };
        let CacheCmd::Write {
            fresh_until, px_ms, ..
        } = write.cmd
        else {
            continue;
        };
        let t = get.at_ms;
        let gone = write.at_ms + px_ms;
        let far = |x: u64| t.abs_diff(x) >= 10;
        if get.at_ms - write.at_ms < 5
            || !far(fresh_until)
            || !far(gone)
            || r.log.iter().any(|l| l.cmd == CacheCmd::Del)
            || write.reply != Ok(crate::redis::Reply::ok())
        {
            continue;
        }
        let reasoned = if t >= gone {
            Seen::Miss
        } else if t >= fresh_until {
            Seen::Stale
        } else {
            Seen::Fresh
        };
        // The run agrees with the reasoning (it always does; a disagreement is skipped, not
        // asked).
        if seen(q.path) != reasoned {
            continue;
        }
        out.push(Read {
            get,
            write,
            fresh_until,
            px: px_ms,
            seen: reasoned,
        });
    }
    out
}

/// A command-log line as the question shows it.
fn log_line(at: u64, inst: u32, cmd: &str) -> String {
    format!("{at} ms  api-{}  {cmd}", inst + 1)
}

fn sees(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 42);
    let target = d.one(&[Seen::Fresh, Seen::Stale, Seen::Miss]);
    for _ in 0..200 {
        let s = Setup {
            instances: d.int(1, 3),
            concurrent: d.int(1, 3),
            requests: d.int(8, 30),
            loader: d.int(2, 30) * 10,
            fresh: d.int(4, 40) * 50,
            stale: if d.chance(30) { 0 } else { d.int(1, 20) * 50 },
            layers: [true; 6],
            redis: Health::Healthy,
            seed: d.int(0, 99_999),
        };
        let p = s.lab();
        let r = result(&p);
        let fits: Vec<Read> = reads(&r).into_iter().filter(|x| x.seen == target).collect();
        if fits.is_empty() {
            continue;
        }
        let x = &fits[d.int(0, fits.len() as u32 - 1) as usize];
        let (w, t, fu, px) = (x.write.at_ms, x.get.at_ms, x.fresh_until, x.px);
        let gone = w + px;
        let n = |v: u64| int(v as i64);
        let hints = SEEN
            .iter()
            .map(|(k, _)| match (x.seen, *k) {
                (a, b) if a == b => String::new(),
                (Seen::Fresh, Seen::Stale) => format!(
                    "বাসি হয় freshUntil ({} ms) পেরোলে — GET তার আগেই, {} ms-এ।",
                    n(fu),
                    n(t)
                ),
                (Seen::Fresh, _) => format!(
                    "key মুছবে {} ms-এ (লেখা {} ms + PX {}) — {} ms-এ key আছে।",
                    n(gone),
                    n(w),
                    n(px),
                    n(t)
                ),
                (Seen::Stale, Seen::Fresh) => format!(
                    "freshUntil {} ms, আর GET {} ms-এ — খাম আর তাজা নেই।",
                    n(fu),
                    n(t)
                ),
                (Seen::Stale, _) => format!(
                    "key মুছবে {} ms-এ (লেখা {} ms + PX {}) — {} ms-এ key এখনো আছে, তাই বাসি মানটাই পাওয়া যায়।",
                    n(gone),
                    n(w),
                    n(px),
                    n(t)
                ),
                (Seen::Miss, Seen::Fresh) => format!(
                    "খামে freshUntil যা-ই লেখা থাকুক, key-টা {} ms-এ মুছে গেছে (লেখা {} ms + PX {}) — GET পায় nil।",
                    n(gone),
                    n(w),
                    n(px)
                ),
                (Seen::Miss, _) => format!(
                    "বাসি মান দেওয়া যায় key থাকলে; PX {} ms, তাই {} ms-এ key মুছে গেছে — {} ms-এর GET পায় nil।",
                    n(px),
                    n(gone),
                    n(t)
                ),
            })
            .collect();
        let end = match x.seen {
            Seen::Fresh => "freshUntil-এর আগে, তাই FRESH".to_string(),
            Seen::Stale => "freshUntil পেরিয়েছে কিন্তু key আছে, তাই STALE".to_string(),
            Seen::Miss if gone < fu => {
                "key মুছে গেছে, তাই MISS — PX-এর −১০% পর্যন্ত কমে যেতে পারে বলে key freshUntil-এর আগেও মুছতে পারে".to_string()
            }
            Seen::Miss => "key মুছে গেছে, তাই MISS".to_string(),
        };
        let write = format!("SET cache:course-catalog <version 2, freshUntil {fu}, …> PX {px}");
        return Draft {
            text: format!(
                "ক্যাশ ইঞ্জিনের command log থেকে দুটো লাইন (খামের JSON ছোট করে দেখানো)। প্রথম লাইনে api-{} খামটা লিখেছে; তার পরে কেউ key-টা আর লেখেনি বা মোছেনি। দ্বিতীয় লাইনে api-{}-এর একটা রিকোয়েস্টের প্রথম GET। fresh TTL {} ms, stale জানালা {} ms, PX এই দুইয়ের যোগফল ±১০%। এই GET কী পায়?",
                int((x.write.inst + 1).into()),
                int((x.get.inst + 1).into()),
                int(s.fresh.into()),
                int(s.stale.into())
            ),
            code: vec![
                log_line(w, x.write.inst, &write),
                log_line(t, x.get.inst, "GET cache:course-catalog"),
            ],
            answer: Answer::Choice {
                options: SEEN.iter().map(|(_, o)| o.to_string()).collect(),
                right: SEEN
                    .iter()
                    .position(|(k, _)| *k == x.seen)
                    .expect("every read is one of three"),
                hints,
            },
            why: format!(
                "খাম লেখা {} ms-এ, PX {} ms, তাই key থাকে {} ms পর্যন্ত; freshUntil {} ms। GET {} ms-এ: {}।",
                n(w),
                n(px),
                n(gone),
                n(fu),
                n(t),
                end
            ),
            show: show_end(&p),
        };
    }
    panic!("cache question sees: no fitting run for seed {seed}")
}

fn down_peak(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 43);
    let flight = d.chance(50);
    let lock = d.chance(50);
    let layers = [flight, lock, lock, lock, lock, lock];
    for _ in 0..100 {
        let s = Setup::crowd(&mut d, layers, Health::Down);
        let p = s.lab();
        let r = result(&p);
        let want = if flight { s.instances } else { s.concurrent };
        if r.counts.peak_db != want {
            continue;
        }
        let (opts, right) = figures(&s, want);
        let (i, c) = (int(s.instances.into()), int(s.concurrent.into()));
        let hints = (0..opts.len())
            .map(|k| match k {
                _ if k == right => String::new(),
                0 => "১ হতো Redis লক কাজ করলে — কিন্তু লকও তো Redis-এ থাকে; Redis ডাউন হলে `SET … NX`-ও offline queue-তে বসে এরর পায়, লক কেউ পায় না।".to_string(),
                1 => "ইনস্ট্যান্সপিছু একটা query হয় singleflight চালু থাকলে — এখানে বন্ধ, তাই প্রত্যেক রিকোয়েস্ট নিজেই ডেটাবেসে যায়।".to_string(),
                2 => format!(
                    "{c}টা হয় singleflight বন্ধ থাকলে — প্রত্যেক ব্যবহারকারীর রিকোয়েস্ট আলাদা query। চালু থাকলে একই ইনস্ট্যান্সের রিকোয়েস্টগুলো চলতি query-তে জুড়ে যায়।"
                ),
                _ => format!(
                    "{} তো সব মিলিয়ে রিকোয়েস্ট — একসাথে চলতে পারে বড়জোর ব্যবহারকারীর সংখ্যা ({c}), কারণ প্রত্যেকে উত্তর পেয়ে তবেই পরেরটা পাঠায়।",
                    int(s.requests.into())
                ),
            })
            .collect();
        let why = if flight {
            format!(
                "Redis ডাউন: GET offline queue-তে ১,৫০০ ms বসে এরর পেলে রিকোয়েস্ট ডেটাবেসে যায়, কিন্তু singleflight ইনস্ট্যান্সপিছু একটাই query চালায়, বাকিরা তাতে জুড়ে যায়; প্রথম ঝাঁকে {i}টা ইনস্ট্যান্সেই রিকোয়েস্ট গেছে, তাই একসাথে সবচেয়ে বেশি {i}টা।"
            )
        } else {
            format!(
                "Redis ডাউন: GET offline queue-তে ১,৫০০ ms বসে এরর পেলে রিকোয়েস্ট ডেটাবেসে যায়; singleflight বন্ধ, তাই প্রথম ঝাঁকের {c} জনের প্রত্যেকে নিজে query চালায়, আর {} ms ধরে সবগুলো একসাথে চলে — {c}টা।",
                int(s.loader.into())
            )
        };
        let onoff = |b: bool| if b { "চালু" } else { "বন্ধ" };
        return Draft {
            text: format!(
                "{} Redis ডাউন — ioredis প্রতিটা কমান্ড offline queue-তে রাখে, `commandTimeout` ১,৫০০ ms পেরোলে এরর, আবার পাঠায় না; তারপর রিকোয়েস্ট ডেটাবেসে যায়। singleflight {}, Redis লক {}। ডেটাবেসে একসাথে সবচেয়ে বেশি কয়টা query চলে?",
                s.scene(),
                onoff(flight),
                onoff(lock)
            ),
            code: Vec::new(),
            answer: Answer::Choice {
                options: opts.iter().map(|&v| int(v.into())).collect(),
                right,
                hints,
            },
            why,
            show: show_end(&p),
        };
    }
    panic!("cache question down-peak: no fitting run for seed {seed}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labs::cache::CacheOutput;
    use crate::practice::tests::{every_seed, lab_output, Truth};
    use crate::practice::Question;

    /// The time and instance (0-based) of the `GET` a `sees` question shows.
    fn asked(q: &Question) -> (u64, u32) {
        let line = &q.draft.code[1];
        let mut w = line.split_whitespace();
        let t = w.next().and_then(|x| x.parse().ok()).expect("a time");
        assert_eq!(w.next(), Some("ms"));
        let inst: u32 = w
            .next()
            .and_then(|x| x.strip_prefix("api-"))
            .and_then(|x| x.parse().ok())
            .expect("an instance");
        (t, inst - 1)
    }

    /// What the lab's own run (through the worker protocol) says the answer is.
    fn rerun(q: &Question) -> Truth {
        let show = q.draft.show.as_ref().expect("every question shows the lab");
        let out: CacheOutput = lab_output(show);
        let side = &out.on;
        match q.kind.as_str() {
            "cold-queries" => Truth::Choice(int(side.counts.db.into())),
            "down-peak" => Truth::Choice(int(side.counts.peak_db.into())),
            "sees" => {
                let (t, inst) = asked(q);
                let mine: Vec<_> = side
                    .timeline
                    .as_ref()
                    .expect("the page's output")
                    .requests
                    .iter()
                    .filter(|r| r.inst == inst && r.start <= t && t <= r.start + 5)
                    .collect();
                assert_eq!(mine.len(), 1, "{}: {mine:?}", q.draft.code[1]);
                let s = seen(mine[0].path);
                let o = SEEN.iter().find(|(k, _)| *k == s).expect("one of three").1;
                Truth::Choice(o.to_string())
            }
            k => panic!("no rerun for {k}"),
        }
    }

    #[test]
    fn cache_questions_over_1000_seeds() {
        every_seed("cache", rerun);
    }

    #[test]
    fn answers_vary() {
        crate::practice::tests::answers_vary("cache");
    }
}
