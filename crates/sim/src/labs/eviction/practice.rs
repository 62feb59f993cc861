//! Questions on the eviction policies: which policy wins on this trace and cache size, a
//! policy's hit ratio within ±2 points, and the smallest cache that lifts LRU over a hit
//! ratio. Every answer is read off the lab's own table run ([`TableRow`]s) of the question's
//! parameters.

use crate::bn;
use crate::eviction::runner::eviction_table;
use crate::eviction::TraceKind;
use crate::labs::eviction::{EvictionParams, INFO};
use crate::labs::params::Params;
use crate::practice::pick::{int, Draw};
use crate::practice::{params, show_end, Answer, Draft, QuestionKind};

/// The eviction lab's question kinds.
pub const KINDS: &[QuestionKind] = &[
    QuestionKind {
        id: "winner",
        title: "কোন policy জেতে",
        make: winner,
    },
    QuestionKind {
        id: "hit-ratio",
        title: "hit ratio কত (±২)",
        make: hit_ratio,
    },
    QuestionKind {
        id: "cache-for",
        title: "কত বড় ক্যাশ লাগে",
        make: cache_for,
    },
];

/// The policies the questions race (registry names, display names).
const RACED: [(&str, &str); 4] = [
    ("fifo", "FIFO"),
    ("random", "RANDOM"),
    ("lru", "LRU"),
    ("lfu", "LFU"),
];

/// A workload as the question draws it (inside the lab's ranges, small enough to run in a
/// few milliseconds).
#[derive(Clone, Copy)]
struct Load {
    alpha_tenths: u32,
    keys: u32,
    requests: u32,
    cache: u32,
    trace: TraceKind,
    seed: u32,
}

impl Load {
    fn draw(d: &mut Draw) -> Load {
        let keys = d.int(10, 40) * 100;
        Load {
            alpha_tenths: d.int(6, 12),
            keys,
            requests: d.int(6, 12) * 1000,
            cache: d.int(2, 20) * 10,
            trace: d.one(&TraceKind::ALL),
            seed: d.int(0, 99_999),
        }
    }

    fn lab(&self, cache: u32, policies: &[&str]) -> Params {
        params(
            &INFO,
            &[
                // Warm-up first: the lab's rule wants it under the requests at every step.
                ("warmup", (self.requests / 5).to_string()),
                (
                    "alpha",
                    format!("{:.1}", f64::from(self.alpha_tenths) / 10.0),
                ),
                ("cache", cache.to_string()),
                ("keys", self.keys.to_string()),
                ("requests", self.requests.to_string()),
                ("seed", self.seed.to_string()),
                ("policies", policies.join(",")),
                ("trace", self.trace.name().into()),
                ("scan_period", "1000".into()),
                ("scan_keys", "2".into()),
                ("shift_period", (self.requests / 3).to_string()),
                ("shift_amount", (self.keys / 3).to_string()),
            ],
        )
    }

    /// Hit ratios (percent) of `policies` on the question's trace with `cache`, as the lab's
    /// table computes that column.
    fn hits(&self, cache: u32, policies: &[&str]) -> Vec<f64> {
        let p: EvictionParams = self.lab(cache, policies).read();
        let mut cfg = p.config();
        cfg.traces = vec![self.trace];
        eviction_table(&cfg)
            .expect("registry policies")
            .rows
            .iter()
            .map(|r| r.stats[0].hit_percent())
            .collect()
    }

    fn scene(&self, cache: u32) -> String {
        let trace = match self.trace {
            TraceKind::Zipf => format!(
                "Zipf α = {} (অল্প কটা key খুব জনপ্রিয়)",
                bn::dec(f64::from(self.alpha_tenths) / 10.0, 1)
            ),
            TraceKind::Scan => format!(
                "Zipf α = {}, মাঝে মাঝে একবার-পড়া key-এর স্ক্যান মেশানো",
                bn::dec(f64::from(self.alpha_tenths) / 10.0, 1)
            ),
            TraceKind::Shift => format!(
                "Zipf α = {}, জনপ্রিয়তা সময়ের সাথে সরে যায়",
                bn::dec(f64::from(self.alpha_tenths) / 10.0, 1)
            ),
        };
        format!(
            "{}টা key, {}টা রিকোয়েস্ট, trace: {}; ক্যাশে ধরে {}টা key (প্রথম {}টা রিকোয়েস্ট warm-up, গোনা হয় না)।",
            int(self.keys.into()),
            int(self.requests.into()),
            trace,
            int(cache.into()),
            int((self.requests / 5).into())
        )
    }
}

/// The figures in Bengali: `৩৯.১%`.
fn pct(x: f64) -> String {
    format!("{}%", bn::dec(x, 1))
}

fn winner(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 51);
    let names: Vec<&str> = RACED.iter().map(|(n, _)| *n).collect();
    let (l, hits) = loop {
        let l = Load::draw(&mut d);
        let h = l.hits(l.cache, &names);
        let mut sorted = h.clone();
        sorted.sort_by(|a, b| b.total_cmp(a));
        // A clear winner: ahead by at least a tenth of a point.
        if sorted[0] - sorted[1] >= 0.1 {
            break (l, h);
        }
    };
    let best = (0..hits.len())
        .max_by(|&a, &b| hits[a].total_cmp(&hits[b]))
        .expect("four policies");
    let hints = RACED
        .iter()
        .zip(&hits)
        .enumerate()
        .map(|(i, ((_, name), h))| {
            if i == best {
                String::new()
            } else {
                format!(
                    "{name} পায় {}, {} পায় {} — {}",
                    pct(*h),
                    RACED[best].1,
                    pct(hits[best]),
                    match (RACED[i].0, l.trace) {
                        ("lfu", TraceKind::Shift) =>
                            "জনপ্রিয়তা সরে গেলে LFU-র পুরোনো গোনা তাকে পুরোনো key ধরে রাখায়।",
                        ("lru", TraceKind::Scan) => "স্ক্যানের একবার-পড়া key LRU-র ক্যাশ ধুয়ে দেয়।",
                        ("fifo", _) | ("random", _) =>
                            "সে key-এর ব্যবহার দেখেই না, তাই জনপ্রিয় key-ও বের করে দেয়।",
                        _ => "এই trace আর ক্যাশ-আকারে সে পিছিয়ে।",
                    }
                )
            }
        })
        .collect();
    let p = l.lab(l.cache, &names);
    Draft {
        text: format!(
            "{} FIFO, RANDOM, LRU আর LFU-র মধ্যে কার hit ratio সবচেয়ে বেশি?",
            l.scene(l.cache)
        ),
        code: Vec::new(),
        answer: Answer::Choice {
            options: RACED.iter().map(|(_, n)| n.to_string()).collect(),
            right: best,
            hints,
        },
        why: format!(
            "এই trace-এ: {} — {} এগিয়ে।",
            RACED
                .iter()
                .zip(&hits)
                .map(|((_, n), h)| format!("{n} {}", pct(*h)))
                .collect::<Vec<_>>()
                .join(", "),
            RACED[best].1
        ),
        show: show_end(&p),
    }
}

fn hit_ratio(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 52);
    let l = Load::draw(&mut d);
    let (name, label) = d.one(&RACED[..]);
    let h = l.hits(l.cache, &[name])[0];
    let value = libm::round(h * 10.0) / 10.0;
    let p = l.lab(l.cache, &[name]);
    Draft {
        text: format!(
            "{} {}-এর hit ratio কত শতাংশ? (±২ পয়েন্টের মধ্যে হলেই ঠিক)",
            l.scene(l.cache),
            label
        ),
        code: Vec::new(),
        answer: Answer::Percent { value, within: 2.0 },
        why: format!(
            "warm-up-এর পরের {}টা রিকোয়েস্টে {} hit করে {} — ক্যাশে key-এর {} ভাগ ({}টার {}টা), কিন্তু জনপ্রিয় key-গুলো রিকোয়েস্টের বড় অংশ নেয়।",
            int((l.requests - l.requests / 5).into()),
            label,
            pct(value),
            pct(f64::from(l.cache) / f64::from(l.keys) * 100.0),
            int(l.keys.into()),
            int(l.cache.into())
        ),
        show: show_end(&p),
    }
}

fn cache_for(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 53);
    loop {
        let l = Load::draw(&mut d);
        let base = d.int(1, 5) * 10;
        let sizes: Vec<u32> = (0..4).map(|k| base << k).collect();
        let hits: Vec<f64> = sizes.iter().map(|&c| l.hits(c, &["lru"])[0]).collect();
        let i = d.int(1, 3) as usize;
        // LRU is a stack policy: a bigger cache never hits less. The bound sits in a clear
        // gap between two neighbours, so one size is the smallest over it.
        if hits[i] - hits[i - 1] < 1.0 || hits.windows(2).any(|w| w[1] < w[0]) {
            continue;
        }
        let bound = libm::round((hits[i] + hits[i - 1]) / 2.0 * 10.0) / 10.0;
        let hints = sizes
            .iter()
            .zip(&hits)
            .enumerate()
            .map(|(k, (&c, &h))| {
                if k == i {
                    String::new()
                } else if h < bound {
                    format!(
                        "{}টা key-এর ক্যাশে LRU পায় {} — {}-এর নিচে।",
                        int(c.into()),
                        pct(h),
                        pct(bound)
                    )
                } else {
                    format!(
                        "{}টাতেও হয় ({}), কিন্তু {}টাতেই হয়ে যায় ({}) — প্রশ্ন সবচেয়ে ছোট ক্যাশের।",
                        int(c.into()),
                        pct(h),
                        int(sizes[i].into()),
                        pct(hits[i])
                    )
                }
            })
            .collect();
        let p = l.lab(sizes[i], &["lru"]);
        return Draft {
            text: format!(
                "{} LRU-র hit ratio অন্তত {} করতে সবচেয়ে ছোট কোন ক্যাশ লাগে?",
                l.scene(sizes[i])
                    .split("; ক্যাশে")
                    .next()
                    .unwrap_or_default()
                    .to_string()
                    + "।",
                pct(bound)
            ),
            code: Vec::new(),
            answer: Answer::Choice {
                options: sizes
                    .iter()
                    .map(|&c| format!("{}টা key", int(c.into())))
                    .collect(),
                right: i,
                hints,
            },
            why: format!(
                "LRU-র hit ratio: {} — {}-এ প্রথম পৌঁছায় {}টা key-এ।",
                sizes
                    .iter()
                    .zip(&hits)
                    .map(|(&c, &h)| format!("{} → {}", int(c.into()), pct(h)))
                    .collect::<Vec<_>>()
                    .join(", "),
                pct(bound),
                int(sizes[i].into())
            ),
            show: show_end(&p),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labs::eviction::EvictionRow;
    use crate::labs::lab::{Body, Job};
    use crate::labs::registry;
    use crate::labs::work::Work;
    use crate::practice::tests::{every_seed, with_value, Truth};
    use crate::practice::{Question, Show};

    /// Each policy's hit ratio on the shown trace, from the lab's table run (through the
    /// worker protocol), in row order.
    fn table(show: &Show, trace: &str) -> Vec<(String, f64)> {
        let info = registry::info(&show.lab).expect("the eviction lab");
        let (p, errors) = Params::from_query(info, &show.query);
        assert!(errors.is_empty(), "{errors:?}");
        let col = TraceKind::ALL
            .iter()
            .position(|t| t.name() == trace)
            .expect("a trace");
        Work::new(Job::new(info, &p).run("table"))
            .expect("a job")
            .run_to_end()
            .iter()
            .filter_map(|b| match b {
                Body::Part(j) => j.read::<EvictionRow>().ok(),
                _ => None,
            })
            .map(|r| (r.policy.clone(), r.results[col].hit_percent))
            .collect()
    }

    fn query_value<'a>(q: &'a str, key: &str) -> &'a str {
        redislab_address::value(q, key).unwrap_or_default()
    }

    /// What the lab's own runs say the answer is.
    fn rerun(q: &Question) -> Truth {
        let show = q.draft.show.as_ref().expect("every question shows the lab");
        let trace = query_value(&show.query, "trace").to_string();
        match q.kind.as_str() {
            "winner" => {
                let t = table(show, &trace);
                let best = t.iter().max_by(|a, b| a.1.total_cmp(&b.1)).expect("rows");
                Truth::Choice(best.0.clone())
            }
            "hit-ratio" => Truth::Percent(table(show, &trace)[0].1),
            "cache-for" => {
                let Answer::Choice { options, .. } = &q.draft.answer else {
                    panic!("a choice")
                };
                let bound: f64 = crate::bn::ascii(&q.draft.text)
                    .split("অন্তত ")
                    .nth(1)
                    .and_then(|s| s.split('%').next())
                    .and_then(|s| s.trim().parse().ok())
                    .expect("the bound in the text");
                let first = options
                    .iter()
                    .find(|o| {
                        let c: String = crate::bn::ascii(o)
                            .chars()
                            .filter(char::is_ascii_digit)
                            .collect();
                        let query = with_value(&show.query, "cache", &c);
                        let h = table(
                            &Show {
                                query,
                                ..show.clone()
                            },
                            &trace,
                        )[0]
                        .1;
                        libm::round(h * 10.0) / 10.0 >= bound
                    })
                    .expect("some size reaches the bound");
                Truth::Choice(first.clone())
            }
            k => panic!("no rerun for {k}"),
        }
    }

    #[test]
    fn eviction_questions_over_1000_seeds() {
        every_seed("eviction", rerun);
    }

    #[test]
    fn answers_vary() {
        crate::practice::tests::answers_vary("eviction");
    }
}
