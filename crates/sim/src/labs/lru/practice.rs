//! Questions on the LRU step-through: which key is evicted at step n, what the list holds
//! after step n, how many `get`s hit, and whom FIFO would evict instead. Every answer is read
//! off the lab's own run ([`LruOutput`]) of the question's operations.

use crate::eviction::lru_trace::Outcome;
use crate::labs::lru::{run, LruOutput, LruParams, INFO};
use crate::labs::params::Params;
use crate::practice::pick::{int, Draw};
use crate::practice::{list, params, show, Answer, Draft, QuestionKind};

/// The LRU lab's question kinds.
pub const KINDS: &[QuestionKind] = &[
    QuestionKind {
        id: "evicted",
        title: "ধাপ n-এ কোন key বেরোয়",
        make: evicted,
    },
    QuestionKind {
        id: "order",
        title: "ধাপ n-এর পরে তালিকায় কী",
        make: order,
    },
    QuestionKind {
        id: "hits",
        title: "কয়টা get hit",
        make: hits,
    },
    QuestionKind {
        id: "fifo",
        title: "FIFO হলে কে বেরোয়",
        make: fifo,
    },
];

/// Operations over `cap + 2` keys: the first `cap + 1` bring distinct keys (so the cache
/// fills and must evict), the rest mix `get` and `put` of any key.
fn draw_ops(d: &mut Draw, cap: u32, len: u32) -> Vec<String> {
    let keys: Vec<char> = ('A'..='Z').take(cap as usize + 2).collect();
    let mut out = Vec::new();
    for i in 0..len {
        let key = if i <= cap {
            keys[i as usize]
        } else {
            d.one(&keys)
        };
        let verb = if i < 2 || d.chance(45) { "put" } else { "get" };
        out.push(format!("{verb} {key}"));
    }
    out
}

/// The lab's parameters for these operations.
fn lab(cap: u32, ops: &[String], policy: &str) -> Params {
    params(
        &INFO,
        &[
            ("capacity", cap.to_string()),
            ("ops", ops.join(", ")),
            ("policy", policy.into()),
            ("seed", "1".into()),
        ],
    )
}

/// The step-through of `p`, as the lab runs it.
fn walk(p: &Params) -> LruOutput {
    run(&p.read::<LruParams>()).expect("the kind's operations parse")
}

/// The operations as numbered code lines.
fn code(ops: &[String]) -> Vec<String> {
    ops.iter()
        .enumerate()
        .map(|(i, o)| format!("{}  {o}", crate::bn::text(&format!("{:>2}", i + 1))))
        .collect()
}

/// Every key the operations name, in first-use order.
fn keys_of(ops: &[String]) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for o in ops {
        if let Some(k) = o.split(' ').nth(1) {
            if !v.iter().any(|x| x == k) {
                v.push(k.to_string());
            }
        }
    }
    v
}

/// Step (0-based) at which `key`, resident before step `i`, last entered the cache.
fn entered(w: &LruOutput, i: usize, key: &str) -> usize {
    (0..i)
        .rev()
        .find(|&j| {
            w.steps[j].op.key == key && (j == 0 || !w.steps[j - 1].order.iter().any(|k| k == key))
        })
        .unwrap_or(0)
}

/// `n`th operation, as a student reads it: "৫ নম্বর".
fn nth(i: usize) -> String {
    format!("{} নম্বর", int(i as i64 + 1))
}

/// Why each wrong key is wrong when `w` evicts at step `i` (`fifo`: by entry, not by use).
fn key_hints(w: &LruOutput, ops: &[String], i: usize, fifo: bool) -> Vec<(String, String)> {
    let before = &w.steps[i - 1].order;
    let out = w.steps[i].evicted.clone().unwrap_or_default();
    let incoming = &w.steps[i].op.key;
    keys_of(ops)
        .into_iter()
        .filter(|k| *k != out)
        .map(|k| {
            let why = if k == *incoming {
                format!("`{k}` তো এই অপারেশনেই ক্যাশে ঢুকছে — তার জায়গা করতে অন্য একজন বেরোয়।")
            } else if !before.contains(&k) {
                format!(
                    "`{k}` তখন ক্যাশে ছিলই না — ক্যাশে ছিল {}।",
                    list(before)
                )
            } else if fifo {
                format!(
                    "`{k}` ঢুকেছিল {} অপারেশনে, `{out}` আরও আগে, {}-এ — FIFO দেখে কে আগে ঢুকেছে, ব্যবহার নয়।",
                    nth(entered(w, i, &k)),
                    nth(entered(w, i, &out))
                )
            } else if entered(w, i, &k) < entered(w, i, &out) {
                format!(
                    "`{k}` আগে ঢুকেছিল ঠিকই, কিন্তু পরে ব্যবহার হয়েছে — LRU দেখে শেষ ব্যবহার, ঢোকার সময় নয়। ক্রম ছিল (MRU → LRU) {}।",
                    list(before)
                )
            } else {
                format!(
                    "`{k}` ক্যাশে ছিল, কিন্তু LRU প্রান্তে নয়: ক্রম ছিল (MRU → LRU) {}।",
                    list(before)
                )
            };
            (k, why)
        })
        .collect()
}

fn evicted(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 11);
    let cap = d.int(2, 4);
    let len = d.int(cap + 3, cap + 6);
    let ops = draw_ops(&mut d, cap, len);
    let p = lab(cap, &ops, "lru");
    let w = walk(&p);
    let at: Vec<usize> = (0..w.steps.len())
        .filter(|&i| w.steps[i].evicted.is_some())
        .collect();
    let i = d.one(&at);
    let step = &w.steps[i];
    let before = &w.steps[i - 1].order;
    let out = step.evicted.clone().expect("an eviction step");
    Draft {
        text: format!(
            "LRU ক্যাশে {}টা key ধরে। নিচের অপারেশনগুলো একে একে চলে। {} অপারেশনে (`{}`) কোন key ক্যাশ থেকে বেরিয়ে যায়?",
            int(cap.into()),
            nth(i),
            ops[i]
        ),
        code: code(&ops),
        answer: Answer::Key {
            key: out.clone(),
            hints: key_hints(&w, &ops, i, false),
        },
        why: format!(
            "{} অপারেশনের আগে ক্যাশ ভরা, MRU থেকে LRU: {} — নতুন `{}`-এর জায়গা করতে LRU প্রান্তের `{out}` বেরোয়।",
            nth(i),
            list(before),
            step.op.key
        ),
        show: show(&p, w.position_of(i)),
    }
}

fn order(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 12);
    let cap = d.int(3, 4);
    let len = d.int(cap + 3, cap + 6);
    let ops = draw_ops(&mut d, cap, len);
    let p = lab(cap, &ops, "lru");
    let w = walk(&p);
    let i = d.int(cap, w.steps.len() as u32 - 1) as usize;
    let now = &w.steps[i].order;
    let before = &w.steps[i - 1].order;
    Draft {
        text: format!(
            "LRU ক্যাশে {}টা key ধরে। নিচের অপারেশনগুলোর {}টা (`{}`) চলার পরে ক্যাশে কোন key-গুলো থাকে, MRU (সদ্য ব্যবহৃত) থেকে LRU ক্রমে?",
            int(cap.into()),
            nth(i),
            ops[i]
        ),
        code: code(&ops),
        answer: Answer::Keys {
            keys: now.clone(),
            order: "প্রথমে MRU, শেষে LRU".into(),
        },
        why: format!(
            "আগে ছিল {}; `{}` তার key-কে MRU মাথায় তোলে{}।",
            list(before),
            ops[i],
            match &w.steps[i].evicted {
                Some(x) => format!(", ভরা ক্যাশ থেকে `{x}` বেরোয়"),
                None => String::new(),
            }
        ),
        show: show(&p, w.position_of(i)),
    }
}

fn hits(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 13);
    let cap = d.int(2, 4);
    let len = d.int(cap + 4, cap + 7);
    let ops = draw_ops(&mut d, cap, len);
    let p = lab(cap, &ops, "lru");
    let w = walk(&p);
    let right = w.steps.iter().filter(|s| s.outcome == Outcome::Hit).count() as i64;
    let gets: Vec<usize> = (0..ops.len())
        .filter(|&i| ops[i].starts_with("get"))
        .collect();
    let misses: Vec<usize> = gets
        .iter()
        .copied()
        .filter(|&i| w.steps[i].outcome != Outcome::Hit)
        .collect();
    let steps = |v: &[usize]| {
        v.iter()
            .map(|&i| int(i as i64 + 1))
            .collect::<Vec<_>>()
            .join(", ")
    };
    // A cache that never fills: every `get` of a key seen before hits.
    let seen_before: Vec<usize> = gets
        .iter()
        .copied()
        .filter(|&i| {
            ops[..i]
                .iter()
                .any(|o| o.split(' ').nth(1) == ops[i].split(' ').nth(1))
        })
        .collect();
    // Every operation whose key was resident, `put`s too.
    let touched = (1..ops.len())
        .filter(|&i| w.steps[i - 1].order.contains(&w.steps[i].op.key))
        .count() as i64;
    let mut hints = vec![(
        gets.len() as i64,
        format!(
            "সব `get` hit নয়: {} নম্বরের `get`-এ key তখন ক্যাশে ছিল না।",
            steps(&misses)
        ),
    )];
    let evicted_first: Vec<usize> = seen_before
        .iter()
        .copied()
        .filter(|i| misses.contains(i))
        .collect();
    if seen_before.len() as i64 != right {
        hints.push((
            seen_before.len() as i64,
            format!(
                "ক্যাশে {}টাই key ধরে — {} নম্বরের `get`-এর আগে তার key বেরিয়ে গিয়েছিল, তাই miss।",
                int(cap.into()),
                steps(&evicted_first)
            ),
        ));
    }
    if touched != right {
        hints.push((
            touched,
            "`put` গোনা হয় না — প্রশ্নটা শুধু `get`-এর hit নিয়ে।".into(),
        ));
    }
    hints.retain(|(n, _)| *n != right);
    Draft {
        text: format!(
            "LRU ক্যাশে {}টা key ধরে। নিচের সব অপারেশন শেষে কয়টা `get` hit হয় (key তখন ক্যাশেই ছিল)?",
            int(cap.into()),
        ),
        code: code(&ops),
        answer: Answer::Count { n: right, hints },
        why: format!(
            "{}টা `get`-এর মধ্যে {}টার key তখন ক্যাশে ছিল; বাকিগুলো miss — ডেটাবেস থেকে এনে ক্যাশে রাখে।",
            int(gets.len() as i64),
            int(right)
        ),
        show: show(&p, w.position_of(w.steps.len() - 1)),
    }
}

fn fifo(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 14);
    for _ in 0..200 {
        let cap = d.int(2, 4);
        let len = d.int(cap + 4, cap + 7);
        let ops = draw_ops(&mut d, cap, len);
        let (lp, fp) = (lab(cap, &ops, "lru"), lab(cap, &ops, "fifo"));
        let (l, f) = (walk(&lp), walk(&fp));
        // The first step where the two evict different keys.
        let Some(i) = (0..ops.len())
            .find(|&i| f.steps[i].evicted.is_some() && f.steps[i].evicted != l.steps[i].evicted)
        else {
            continue;
        };
        let out = f.steps[i].evicted.clone().expect("found");
        let mut hints = key_hints(&f, &ops, i, true);
        if let Some(x) = &l.steps[i].evicted {
            if let Some(h) = hints.iter_mut().find(|(k, _)| k == x) {
                h.1 = format!(
                    "LRU হলে `{x}` বেরোত; FIFO-তে hit ক্রম বদলায় না — বেরোয় যে সবার আগে ঢুকেছিল, `{out}`।"
                );
            }
        }
        return Draft {
            text: format!(
                "ক্যাশে {}টা key ধরে, কিন্তু নিয়ম LRU নয়, FIFO: যে আগে ঢুকেছে সে আগে বেরোয়। নিচের অপারেশনগুলোর {}টায় (`{}`) কোন key বেরোয়?",
                int(cap.into()),
                nth(i),
                ops[i]
            ),
            code: code(&ops),
            answer: Answer::Key { key: out.clone(), hints },
            why: format!(
                "FIFO-তে hit ক্রম বদলায় না: `{out}` সবার আগে ঢুকেছিল, তাই সে বেরোয়{}।",
                match &l.steps[i].evicted {
                    Some(x) => format!(" — LRU হলে বেরোত `{x}`"),
                    None => String::new(),
                }
            ),
            show: show(&fp, f.position_of(i)),
        };
    }
    panic!("seed {seed}: no trace where FIFO and LRU differ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::practice::tests::{every_seed, lab_output, Truth};
    use crate::practice::Question;

    /// What the lab's own run (through the worker protocol) says the answer is.
    fn rerun(q: &Question) -> Truth {
        let show = q
            .draft
            .show
            .as_ref()
            .expect("every LRU question shows the lab");
        let w: LruOutput = lab_output(show);
        let step = &w.steps[show.step - 1];
        match q.kind.as_str() {
            "evicted" | "fifo" => Truth::Key(step.evicted.clone().expect("an eviction")),
            "order" => Truth::Keys(step.order.clone()),
            "hits" => {
                Truth::Count(w.steps.iter().filter(|s| s.outcome == Outcome::Hit).count() as i64)
            }
            k => panic!("no rerun for {k}"),
        }
    }

    #[test]
    fn lru_questions_over_1000_seeds() {
        every_seed("lru", rerun);
    }
}
