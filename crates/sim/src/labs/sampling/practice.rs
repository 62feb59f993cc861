//! Questions on Redis' sampled LRU: how good k samples are (the victim's mean rank within ±2
//! points), the smallest k that reaches a rank, and which k gave a measured rank. Every answer
//! is read off the lab's own run ([`SamplingPoint`]s) of the question's parameters.

use crate::bn;
use crate::eviction::sampling::SamplingPoint;
use crate::labs::params::Params;
use crate::labs::sampling::{run, SamplingOutput, SamplingParams, INFO};
use crate::practice::pick::{int, Draw};
use crate::practice::{params, show, Answer, Draft, QuestionKind};

/// The sampled-LRU lab's question kinds.
pub const KINDS: &[QuestionKind] = &[
    QuestionKind {
        id: "quality",
        title: "k নমুনা কতটা ভালো (±২)",
        make: quality,
    },
    QuestionKind {
        id: "k-for",
        title: "কত নমুনা লাগে",
        make: k_for,
    },
    QuestionKind {
        id: "which-k",
        title: "কোন k-এর ফল এটা",
        make: which_k,
    },
];

/// An experiment as the question draws it (small enough to run in milliseconds).
#[derive(Clone, Copy)]
struct Exp {
    keys: u32,
    kmax: u32,
    trials: u32,
    seed: u32,
}

impl Exp {
    fn draw(d: &mut Draw, kmax: u32) -> Exp {
        Exp {
            keys: d.one(&[100u32, 500, 1000, 5000, 10_000]),
            kmax,
            trials: d.int(20, 100) * 10,
            seed: d.int(0, 99_999),
        }
    }

    fn lab(&self) -> Params {
        params(
            &INFO,
            &[
                ("keys", self.keys.to_string()),
                ("kmax", self.kmax.to_string()),
                ("trials", self.trials.to_string()),
                ("seed", self.seed.to_string()),
            ],
        )
    }

    /// The lab's run: one point per k from 1 to `kmax`.
    fn run(&self) -> SamplingOutput {
        run(self.lab().read::<SamplingParams>())
    }

    /// Its points.
    fn points(&self) -> Vec<SamplingPoint> {
        self.run().points
    }

    fn scene(&self) -> String {
        format!(
            "ক্যাশে {}টা key। eviction-এর সময় Redis সবার বয়স দেখে না: এলোমেলো k-টা key তুলে তাদের মধ্যে সবচেয়ে পুরোনোটা ফেলে। {}বার eviction মেপে দেখা হলো, ফেলা key গড়ে কত শতাংশ key-এর চেয়ে পুরোনো।",
            int(self.keys.into()),
            int(self.trials.into())
        )
    }
}

fn pct(x: f64) -> String {
    format!("{}%", bn::dec(x * 100.0, 1))
}

fn quality(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 61);
    let k = d.one(&[1u32, 2, 3, 5, 10, 16]);
    let e = Exp::draw(&mut d, k);
    let m = e.points()[k as usize - 1].measured;
    let value = libm::round(m * 1000.0) / 10.0;
    Draft {
        text: format!(
            "{} k = {} হলে ফেলা key গড়ে কত শতাংশ key-এর চেয়ে পুরোনো? (±২ পয়েন্টের মধ্যে হলেই ঠিক)",
            e.scene(),
            int(k.into())
        ),
        code: Vec::new(),
        answer: Answer::Percent { value, within: 2.0 },
        why: format!(
            "k-টা এলোমেলো নমুনার সবচেয়ে পুরোনোটা গড়ে k/(k+১) অবস্থানে বসে: {}/{} = {}; মাপে এসেছে {}।",
            int(k.into()),
            int((k + 1).into()),
            pct(f64::from(k) / f64::from(k + 1)),
            pct(m)
        ),
        show: show(&e.lab(), e.run().position_of(k)),
    }
}

/// The k values the choice questions offer.
const KS: [u32; 4] = [1, 3, 5, 10];

fn k_for(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 62);
    loop {
        let e = Exp::draw(&mut d, 10);
        let pts = e.points();
        let m: Vec<f64> = KS.iter().map(|&k| pts[k as usize - 1].measured).collect();
        let i = d.int(1, 3) as usize;
        if m[i] - m[i - 1] < 0.02 || m.windows(2).any(|w| w[1] <= w[0]) {
            continue;
        }
        let bound = libm::round((m[i] + m[i - 1]) / 2.0 * 100.0) / 100.0;
        let hints = KS
            .iter()
            .zip(&m)
            .enumerate()
            .map(|(j, (&k, &x))| {
                if j == i {
                    String::new()
                } else if x < bound {
                    format!("k = {}-এ ফেলা key গড়ে {} key-এর চেয়ে পুরোনো — {}-এর নিচে।", int(k.into()), pct(x), pct(bound))
                } else {
                    format!(
                        "k = {}-এও হয় ({}), কিন্তু k = {}-ই যথেষ্ট ({}) — প্রতিটা নমুনা eviction-এর খরচ বাড়ায়।",
                        int(k.into()),
                        pct(x),
                        int(KS[i].into()),
                        pct(m[i])
                    )
                }
            })
            .collect();
        return Draft {
            text: format!(
                "{} ফেলা key গড়ে অন্তত {} key-এর চেয়ে পুরোনো হতে সবচেয়ে ছোট কোন k লাগে?",
                e.scene(),
                pct(bound)
            ),
            code: Vec::new(),
            answer: Answer::Choice {
                options: KS
                    .iter()
                    .map(|&k| format!("k = {}", int(k.into())))
                    .collect(),
                right: i,
                hints,
            },
            why: format!(
                "মাপা গড়: {} — {} ছাড়ায় প্রথম k = {}-এ (তত্ত্বে k/(k+১) = {})।",
                KS.iter()
                    .zip(&m)
                    .map(|(&k, &x)| format!("k = {} → {}", int(k.into()), pct(x)))
                    .collect::<Vec<_>>()
                    .join(", "),
                pct(bound),
                int(KS[i].into()),
                pct(f64::from(KS[i]) / f64::from(KS[i] + 1))
            ),
            show: show(&e.lab(), e.run().position_of(KS[i])),
        };
    }
}

fn which_k(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 63);
    let e = Exp::draw(&mut d, 10);
    let pts = e.points();
    let i = d.int(0, 3) as usize;
    let m = pts[KS[i] as usize - 1].measured;
    let hints = KS
        .iter()
        .enumerate()
        .map(|(j, &k)| {
            if j == i {
                String::new()
            } else {
                format!(
                    "k = {}-এ মাপা গড় {} (তত্ত্বে {}) — {}।",
                    int(k.into()),
                    pct(pts[k as usize - 1].measured),
                    pct(f64::from(k) / f64::from(k + 1)),
                    if k < KS[i] {
                        "আরও কম নমুনা, আরও কাঁচা বাছাই"
                    } else {
                        "আরও বেশি নমুনা, আরও পুরোনো key ধরা পড়ে"
                    }
                )
            }
        })
        .collect();
    Draft {
        text: format!("{} একটা k-এ মাপ এল {}। k কত ছিল?", e.scene(), pct(m)),
        code: Vec::new(),
        answer: Answer::Choice {
            options: KS
                .iter()
                .map(|&k| format!("k = {}", int(k.into())))
                .collect(),
            right: i,
            hints,
        },
        why: format!(
            "k-টা নমুনার সবচেয়ে পুরোনোটা গড়ে k/(k+১)-এ: k = {} হলে {}, মাপে {}।",
            int(KS[i].into()),
            pct(f64::from(KS[i]) / f64::from(KS[i] + 1)),
            pct(m)
        ),
        show: show(&e.lab(), e.run().position_of(KS[i])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::practice::tests::{every_seed, lab_output, Truth};
    use crate::practice::{Answer, Question};

    /// What the lab's own run (through the worker protocol) says the answer is.
    fn rerun(q: &Question) -> Truth {
        let show = q.draft.show.as_ref().expect("every question shows the lab");
        let out: SamplingOutput = lab_output(show);
        let at = |k: u32| out.at(k).expect("k measured").measured;
        let option = |k: u32| format!("k = {}", int(k.into()));
        match q.kind.as_str() {
            "quality" => Truth::Percent(out.shown_at(show.step).expect("a k").measured * 100.0),
            "k-for" => {
                let bound: f64 = crate::bn::ascii(&q.draft.text)
                    .split("অন্তত ")
                    .nth(1)
                    .and_then(|s| s.split('%').next())
                    .and_then(|s| s.trim().parse().ok())
                    .expect("the bound in the text");
                let k = KS
                    .iter()
                    .find(|&&k| at(k) * 100.0 >= bound)
                    .expect("some k reaches it");
                Truth::Choice(option(*k))
            }
            "which-k" => {
                let Answer::Choice { .. } = &q.draft.answer else {
                    panic!("a choice")
                };
                // The measured figure in the text is that of exactly one offered k.
                let said = crate::bn::ascii(&q.draft.text);
                let ks: Vec<u32> = KS
                    .iter()
                    .copied()
                    .filter(|&k| said.contains(&format!("মাপ এল {:.1}%", at(k) * 100.0)))
                    .collect();
                assert_eq!(ks.len(), 1, "{said}");
                Truth::Choice(option(ks[0]))
            }
            k => panic!("no rerun for {k}"),
        }
    }

    #[test]
    fn sampling_questions_over_1000_seeds() {
        every_seed("sampling", rerun);
    }
}
