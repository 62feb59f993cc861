//! Questions on the LRU step-through: which key is evicted at step n, what the list holds
//! after step n, how many `get`s hit, and whom FIFO would evict instead.

use super::pick::{choice, int, numbers, Draw};
use super::{params, show, Draft, QuestionKind};
use crate::eviction::lru_trace::Outcome;
use crate::labs::lru::{LruParams, LruWalk, INFO};
use crate::labs::params::Params;

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
        title: "FIFO হলে কে বেরোত",
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
fn walk(p: &Params) -> LruWalk {
    LruWalk::new(&p.typed::<LruParams>()).expect("the kind's operations parse")
}

/// The operations as numbered code lines.
fn code(ops: &[String]) -> Vec<String> {
    ops.iter()
        .enumerate()
        .map(|(i, o)| format!("{:>2}  {o}", i + 1))
        .collect()
}

/// A list as the lab shows it, MRU first.
fn list(keys: &[String]) -> String {
    if keys.is_empty() {
        "খালি".into()
    } else {
        keys.join(" → ")
    }
}

fn evicted(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 11);
    let cap = d.int(2, 4);
    let ops = draw_ops(&mut d, cap, d.int(cap + 3, cap + 6));
    let p = lab(cap, &ops, "lru");
    let w = walk(&p);
    let at: Vec<usize> = (0..w.steps.len())
        .filter(|&i| w.steps[i].evicted.is_some())
        .collect();
    let i = d.one(&at);
    let step = &w.steps[i];
    let before = &w.steps[i - 1].order;
    let out = step.evicted.clone().expect("an eviction step");
    let pool = before
        .iter()
        .cloned()
        .chain([step.op.key.clone(), "কেউ না".into()])
        .chain(ops.iter().filter_map(|o| o.split(' ').nth(1).map(String::from)));
    Draft {
        text: format!(
            "LRU ক্যাশে {}টা key ধরে। নিচের অপারেশনগুলো একে একে চলে। {} নম্বর অপারেশনে (`{}`) কোন key ক্যাশ থেকে বেরিয়ে যায়?",
            int(cap.into()),
            int(i as i64 + 1),
            ops[i]
        ),
        code: code(&ops),
        answer: choice(&mut d, out.clone(), pool),
        why: format!(
            "{} নম্বরের আগে ক্যাশ ভরা, MRU থেকে LRU: {} — নতুন `{}`-এর জায়গা করতে LRU প্রান্তের `{out}` বেরোয়।",
            int(i as i64 + 1),
            list(before),
            step.op.key
        ),
        reveal: Vec::new(),
        show: show(&p, Some(i + 1)),
    }
}

fn order(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 12);
    let cap = d.int(3, 4);
    let ops = draw_ops(&mut d, cap, d.int(cap + 3, cap + 6));
    let p = lab(cap, &ops, "lru");
    let w = walk(&p);
    let i = d.int(cap, w.steps.len() as u32 - 1) as usize;
    let now = &w.steps[i].order;
    let before = &w.steps[i - 1].order;
    let mut rev = now.clone();
    rev.reverse();
    let swap = |a: usize, b: usize| {
        let mut v = now.clone();
        v.swap(a, b);
        v
    };
    let mut rot = now.clone();
    rot.rotate_left(1);
    let pool = [rev, before.clone(), swap(0, 1), swap(1, 2), rot]
        .into_iter()
        .map(|v| list(&v));
    Draft {
        text: format!(
            "LRU ক্যাশে {}টা key ধরে। নিচের অপারেশনগুলোর {} নম্বরটা (`{}`) চলার পরে তালিকা MRU থেকে LRU ক্রমে কেমন?",
            int(cap.into()),
            int(i as i64 + 1),
            ops[i]
        ),
        code: code(&ops),
        answer: choice(&mut d, list(now), pool),
        why: format!(
            "আগে ছিল {}; `{}` তার key-কে MRU মাথায় তোলে{}।",
            list(before),
            ops[i],
            match &w.steps[i].evicted {
                Some(x) => format!(", ভরা ক্যাশ থেকে `{x}` বেরোয়"),
                None => String::new(),
            }
        ),
        reveal: Vec::new(),
        show: show(&p, Some(i + 1)),
    }
}

fn hits(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 13);
    let cap = d.int(2, 4);
    let ops = draw_ops(&mut d, cap, d.int(cap + 4, cap + 7));
    let p = lab(cap, &ops, "lru");
    let w = walk(&p);
    let count = |w: &LruWalk| w.steps.iter().filter(|s| s.outcome == Outcome::Hit).count() as i64;
    let right = count(&w);
    let gets = ops.iter().filter(|o| o.starts_with("get")).count() as i64;
    let fifo = count(&walk(&lab(cap, &ops, "fifo")));
    Draft {
        text: format!(
            "LRU ক্যাশে {}টা key ধরে। নিচের সব অপারেশন শেষে কয়টা `get` hit হয় (key ক্যাশেই ছিল)?",
            int(cap.into()),
        ),
        code: code(&ops),
        answer: numbers(right, &[fifo, right + 1, gets, right - 1], 0, int),
        why: format!(
            "{}টা `get`-এর মধ্যে {}টার key তখন ক্যাশে ছিল; বাকিগুলো miss — ডেটাবেস থেকে এনে ক্যাশে রাখে।",
            int(gets),
            int(right)
        ),
        reveal: Vec::new(),
        show: show(&p, Some(w.steps.len())),
    }
}

fn fifo(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 14);
    for _ in 0..200 {
        let cap = d.int(2, 4);
        let ops = draw_ops(&mut d, cap, d.int(cap + 4, cap + 7));
        let (lp, fp) = (lab(cap, &ops, "lru"), lab(cap, &ops, "fifo"));
        let (l, f) = (walk(&lp), walk(&fp));
        // The first step where the two evict different keys.
        let Some(i) = (0..ops.len()).find(|&i| {
            f.steps[i].evicted.is_some() && f.steps[i].evicted != l.steps[i].evicted
        }) else {
            continue;
        };
        let out = f.steps[i].evicted.clone().expect("found");
        let pool = l.steps[i]
            .evicted
            .clone()
            .into_iter()
            .chain(f.steps[i - 1].order.iter().cloned())
            .chain([f.steps[i].op.key.clone(), "কেউ না".into()]);
        return Draft {
            text: format!(
                "ক্যাশে {}টা key ধরে, কিন্তু নিয়ম LRU নয়, FIFO: যে আগে ঢুকেছে সে আগে বেরোয়। নিচের অপারেশনগুলোর {} নম্বরে (`{}`) কোন key বেরোয়?",
                int(cap.into()),
                int(i as i64 + 1),
                ops[i]
            ),
            code: code(&ops),
            answer: choice(&mut d, out.clone(), pool),
            why: format!(
                "FIFO-তে hit ক্রম বদলায় না: `{out}` সবার আগে ঢুকেছিল, তাই সে বেরোয়{}।",
                match &l.steps[i].evicted {
                    Some(x) => format!(" — LRU হলে বেরোত `{x}`"),
                    None => String::new(),
                }
            ),
            reveal: Vec::new(),
            show: show(&fp, Some(i + 1)),
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
        let show = q.draft.show.as_ref().expect("every LRU question shows the lab");
        let w: LruWalk = lab_output(show);
        let at = show.at.expect("a step");
        let step = &w.steps[at - 1];
        match q.kind.as_str() {
            "evicted" | "fifo" => Truth::Text(step.evicted.clone().expect("an eviction")),
            "order" => Truth::Text(list(&step.order)),
            "hits" => Truth::Int(
                w.steps.iter().filter(|s| s.outcome == Outcome::Hit).count() as i64,
            ),
            k => panic!("no rerun for {k}"),
        }
    }

    #[test]
    fn lru_questions_over_1000_seeds() {
        every_seed("lru", rerun);
    }
}
