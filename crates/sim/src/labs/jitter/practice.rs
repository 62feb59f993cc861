//! Questions on TTL jitter: the busiest second of expirations for this J (multiple choice:
//! the run's peak against the figures a student confuses it with), the smallest J that keeps
//! the busiest second under a bound, and how many seconds the wave spreads over. Every answer
//! is read off the lab's own run ([`JitterOutput`]) of the question's parameters.

use crate::bn;
use crate::labs::jitter::{JitterParams, JitterWave, INFO};
use crate::labs::params::Params;
use crate::practice::pick::{int, Draw};
use crate::practice::{params, show_end, Answer, Draft, QuestionKind};

/// The jitter lab's question kinds.
pub const KINDS: &[QuestionKind] = &[
    QuestionKind {
        id: "peak",
        title: "সবচেয়ে ব্যস্ত সেকেন্ডে কয়টা key মরে",
        make: peak,
    },
    QuestionKind {
        id: "smallest-j",
        title: "কত J দিলে চূড়া সীমার নিচে",
        make: smallest_j,
    },
    QuestionKind {
        id: "spread",
        title: "ঢেউ কত সেকেন্ডে ছড়ায়",
        make: spread,
    },
];

/// The J values the questions use (the seed's, without 0).
const JS: [f64; 4] = [0.01, 0.05, 0.1, 0.2];

/// A batch of keys written at once, as the question draws it.
#[derive(Clone, Copy)]
struct Batch {
    keys: u32,
    ttl: u32,
    seed: u32,
}

impl Batch {
    fn draw(d: &mut Draw) -> Batch {
        Batch {
            keys: d.int(20, 200) * 100,
            ttl: d.one(&[300u32, 600, 900, 1800, 3600]),
            seed: d.int(0, 99_999),
        }
    }

    fn lab(&self, j: f64) -> Params {
        params(
            &INFO,
            &[
                ("keys", self.keys.to_string()),
                ("ttl", self.ttl.to_string()),
                ("jitter", format!("{j}")),
                ("round", "1".into()),
                ("seed", self.seed.to_string()),
            ],
        )
    }

    fn wave(&self, j: f64) -> JitterWave {
        let p: JitterParams = self.lab(j).read();
        JitterWave::run(&p.config(), p.case())
    }

    fn scene(&self) -> String {
        format!(
            "{}টা key একই মুহূর্তে লেখা হলো, প্রত্যেকটার TTL {} s",
            int(self.keys.into()),
            int(self.ttl.into())
        )
    }
}

/// J as the slides write it: `±১০%`.
fn pct(j: f64) -> String {
    format!("±{}%", bn::dec(j * 100.0, 0))
}

fn peak(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 41);
    let b = Batch::draw(&mut d);
    let j = d.one(&JS);
    let w = b.wave(j);
    let mean = libm::round(w.mean) as u64;
    let right = u64::from(w.max);
    let mut opts: Vec<(u64, String)> = vec![(right, String::new())];
    let mut add = |v: u64, why: String| {
        if !opts.iter().any(|(x, _)| *x == v) {
            opts.push((v, why));
        }
    };
    add(
        u64::from(b.keys),
        format!(
            "{} — সব key এক সেকেন্ডে মরে কেবল J = ০ হলে; jitter প্রত্যেকের TTL {} ছড়িয়ে দেয়।",
            int(b.keys.into()),
            pct(j)
        ),
    );
    add(
        mean,
        format!(
            "{} হলো গড় — {} সেকেন্ডে ছড়ানো ঢেউয়ের গড় হার; প্রশ্ন সবচেয়ে ব্যস্ত সেকেন্ডের, আর এলোমেলো টানে কিছু সেকেন্ড গড়ের চেয়ে ভারী।",
            int(mean as i64),
            int(w.span as i64)
        ),
    );
    add(
        (right * 2).max(1),
        "দ্বিগুণ ধরেছেন — ঢেউটা ছড়ায় TTL-এর দুই দিকে (−J থেকে +J), তাই চূড়া নামে ২·J·TTL সেকেন্ডে ভাগ হয়ে।"
            .into(),
    );
    opts.sort_by_key(|(v, _)| *v);
    let right_i = opts
        .iter()
        .position(|(v, _)| *v == right)
        .expect("an option");
    let p = b.lab(j);
    Draft {
        text: format!(
            "{}, আর প্রত্যেকটার TTL-এ jitter J = {} (TTL × (১ ± J) থেকে সমানভাবে এলোমেলো)। প্রথম মেয়াদে সবচেয়ে ব্যস্ত এক সেকেন্ডে কয়টা key মরে?",
            b.scene(),
            pct(j)
        ),
        code: Vec::new(),
        answer: Answer::Choice {
            options: opts.iter().map(|(v, _)| int(*v as i64)).collect(),
            right: right_i,
            hints: opts.into_iter().map(|(_, h)| h).collect(),
        },
        why: format!(
            "মেয়াদগুলো ছড়ায় প্রায় ২ × {} × {} s = {} সেকেন্ডে (এই রানে {}), গড়ে সেকেন্ডে {}টা; এলোমেলো টানে সবচেয়ে ভারী সেকেন্ডে {}টা।",
            pct(j).trim_start_matches('±'),
            int(b.ttl.into()),
            bn::dec(2.0 * j * f64::from(b.ttl), 0),
            int(w.span as i64),
            int(mean as i64),
            int(right as i64)
        ),
        show: show_end(&p),
    }
}

fn smallest_j(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 42);
    loop {
        let b = Batch::draw(&mut d);
        let peaks: Vec<u32> = JS.iter().map(|&j| b.wave(j).max).collect();
        // The bound sits between two neighbours' peaks, so one J is the smallest under it.
        let i = d.int(1, JS.len() as u32 - 1) as usize;
        if peaks[i] + 1 >= peaks[i - 1] || !peaks.windows(2).all(|w| w[1] < w[0]) {
            continue;
        }
        let bound = (peaks[i] + peaks[i - 1]) / 2;
        let hints = JS
            .iter()
            .zip(&peaks)
            .enumerate()
            .map(|(k, (&j, &pk))| {
                if k == i {
                    String::new()
                } else if pk > bound {
                    format!(
                        "J = {}-এ সবচেয়ে ব্যস্ত সেকেন্ডে {}টা — সীমা {}-এর ওপরে।",
                        pct(j),
                        int(pk.into()),
                        int(bound.into())
                    )
                } else {
                    format!(
                        "J = {}-এও চলে ({}টা), কিন্তু {}-ই যথেষ্ট ({}টা) — বেশি jitter মানে key-এর আয়ু নিয়ে বেশি অনিশ্চয়তা।",
                        pct(j),
                        int(pk.into()),
                        pct(JS[i]),
                        int(peaks[i].into())
                    )
                }
            })
            .collect();
        let p = b.lab(JS[i]);
        return Draft {
            text: format!(
                "{}। ডেটাবেস সেকেন্ডে বড়জোর {}টা মরে-যাওয়া key-এর রিলোড সামলাতে পারে। প্রথম মেয়াদে সবচেয়ে ব্যস্ত সেকেন্ড এই সীমার নিচে রাখতে সবচেয়ে ছোট কোন J লাগে?",
                b.scene(),
                int(bound.into())
            ),
            code: Vec::new(),
            answer: Answer::Choice {
                options: JS.iter().map(|&j| pct(j)).collect(),
                right: i,
                hints,
            },
            why: format!(
                "সবচেয়ে ব্যস্ত সেকেন্ড: {} — সীমা {}-এর নিচে প্রথম নামে J = {}-এ।",
                JS.iter()
                    .zip(&peaks)
                    .map(|(&j, &pk)| format!("{} → {}", pct(j), int(pk.into())))
                    .collect::<Vec<_>>()
                    .join(", "),
                int(bound.into()),
                pct(JS[i])
            ),
            show: show_end(&p),
        };
    }
}

fn spread(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 43);
    let b = Batch::draw(&mut d);
    let j = d.one(&JS);
    let w = b.wave(j);
    let right = w.span as i64;
    let mut hints = Vec::new();
    let half = libm::round(j * f64::from(b.ttl)) as i64;
    if half != right {
        hints.push((
            half,
            format!(
                "J × TTL = {} s শুধু এক দিকের ছড়ানো — jitter TTL-কে কমায়ও, বাড়ায়ও, তাই ঢেউ প্রায় দ্বিগুণ চওড়া।",
                int(half)
            ),
        ));
    }
    if right != 1 {
        hints.push((1, "এক সেকেন্ডে সব মরে কেবল J = ০ হলে।".to_string()));
    }
    let p = b.lab(j);
    Draft {
        text: format!(
            "{}, jitter J = {}। প্রথম মেয়াদে প্রথম key মরার সেকেন্ড থেকে শেষ key মরার সেকেন্ড পর্যন্ত (দুটো সেকেন্ডই ধরে) কত সেকেন্ড?",
            b.scene(),
            pct(j)
        ),
        code: Vec::new(),
        answer: Answer::Count { n: right, hints },
        why: format!(
            "প্রতিটা TTL পড়ে {} × (১ − {}) থেকে {} × (১ + {}) s-এর মধ্যে, মানে প্রায় {} s চওড়া জানালায়; {}টা key সেই জানালা প্রায় ভরে দেয় — এই রানে {} সেকেন্ড।",
            int(b.ttl.into()),
            bn::dec(j, 2),
            int(b.ttl.into()),
            bn::dec(j, 2),
            bn::dec(2.0 * j * f64::from(b.ttl), 0),
            int(b.keys.into()),
            int(right)
        ),
        show: show_end(&p),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labs::jitter::{JitterOutput, JitterRow};
    use crate::practice::tests::{every_seed, lab_output, with_value, Truth};
    use crate::practice::{Question, Show};

    fn chart(show: &Show) -> JitterRow {
        lab_output::<JitterOutput>(show).row
    }

    /// What the lab's own runs (through the worker protocol) say the answer is.
    fn rerun(q: &Question) -> Truth {
        let show = q.draft.show.as_ref().expect("every question shows the lab");
        match q.kind.as_str() {
            "peak" => Truth::Choice(int(chart(show).max_per_s.into())),
            "spread" => Truth::Count(chart(show).span as i64),
            "smallest-j" => {
                // The bound is in the text; each J's run says whether it keeps under it.
                let digits: String = crate::bn::ascii(&q.draft.text);
                let bound: u32 = digits
                    .split("বড়জোর ")
                    .nth(1)
                    .and_then(|s| s.split('ট').next())
                    .map(|s| s.replace(',', ""))
                    .and_then(|s| s.trim().parse().ok())
                    .expect("the bound in the text");
                let j_now = |j: f64| {
                    chart(&Show {
                        query: with_value(&show.query, "jitter", &format!("{j}")),
                        ..show.clone()
                    })
                    .max_per_s
                };
                let first = JS
                    .iter()
                    .find(|&&j| j_now(j) <= bound)
                    .expect("some J keeps under the bound");
                Truth::Choice(pct(*first))
            }
            k => panic!("no rerun for {k}"),
        }
    }

    #[test]
    fn jitter_questions_over_1000_seeds() {
        every_seed("jitter", rerun);
    }

    #[test]
    fn answers_vary() {
        crate::practice::tests::answers_vary("jitter");
    }
}
