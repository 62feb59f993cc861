//! The grader: reads a typed answer in every form a right one may take, and says in Bengali
//! why a wrong one is wrong.
//!
//! Forms accepted: Bengali or ASCII digits, with or without grouping (`১,২০০`, `1200`), a
//! count word up to ten (`তিন`, `three`), a trailing unit (`৩টা`); keys in either case, with
//! or without backticks, the word `key` around them; a list with any separator (`C B A`,
//! `c,b,a`, `C → B → A`, `C->B->A`, or `CBA` when every key is one letter).

use super::{list, Answer, Question};
use crate::bn;
use serde::{Deserialize, Serialize};

/// What the grader made of a response.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// Whether it is right.
    pub right: bool,
    /// The response as the grader read it, written as the answer is shown.
    pub heard: String,
    /// Why it is wrong (empty when right), in Bengali.
    pub note: String,
    /// The response in one ASCII form that grades the same (a set's result code carries it):
    /// a key, keys joined by `+`, a count (`m` before a negative one), an option's number
    /// from 1, a percent with one decimal.
    pub canon: String,
}

/// The words of a response: runs of letters and digits (any script), with `key` dropped.
fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !w.eq_ignore_ascii_case("key") && *w != "কী")
        .map(String::from)
        .collect()
}

fn is_key(w: &str) -> bool {
    w.chars().all(|c| c.is_ascii_alphanumeric())
}

/// A count as typed: one number in Bengali or ASCII digits (grouping commas allowed), or a
/// count word; a unit after it (`টা`, `টি`, `বার`) is fine.
fn read_count(s: &str) -> Option<i64> {
    let a = bn::ascii(s.trim());
    // Grouping commas between digits go; any other comma separates.
    let chars: Vec<char> = a.chars().collect();
    let mut clean = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let between = i > 0
            && i + 1 < chars.len()
            && chars[i - 1].is_ascii_digit()
            && chars[i + 1].is_ascii_digit();
        if !(c == ',' && between) {
            clean.push(c);
        }
    }
    let numbers: Vec<&str> = clean
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .collect();
    if let [n] = numbers.as_slice() {
        return n.parse().ok();
    }
    if !numbers.is_empty() {
        return None;
    }
    const BN: [&str; 11] = [
        "শূন্য",
        "এক",
        "দুই",
        "তিন",
        "চার",
        "পাঁচ",
        "ছয়",
        "সাত",
        "আট",
        "নয়",
        "দশ",
    ];
    const EN: [&str; 11] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    let w = words(&clean);
    let [w] = w.as_slice() else { return None };
    let w = w.to_lowercase();
    let w = w
        .trim_end_matches("টা")
        .trim_end_matches("টি")
        .trim_end_matches('ে');
    BN.iter()
        .chain(EN.iter())
        .position(|x| *x == w || (w.starts_with(x) && w.len() <= x.len() + "টা".len()))
        .map(|i| (i % 11) as i64)
}

/// Grades `response` to `q`.
///
/// # Errors
/// A Bengali message when the response cannot be read as an answer of the asked form (empty,
/// two keys where one is asked, no number): the page shows it and lets the student type
/// again; nothing is graded.
pub fn grade(q: &Question, response: &str) -> Result<Verdict, String> {
    let ask = q.draft.answer.form_hint();
    if response.trim().is_empty() {
        return Err(format!("কিছু লেখা হয়নি — {ask}"));
    }
    match &q.draft.answer {
        Answer::Key { key, hints } => {
            let w = words(&bn::ascii(response));
            let [said] = w.as_slice() else {
                return Err(format!("একটাই key চাই — {ask}"));
            };
            if !is_key(said) {
                return Err(format!("`{}` কোনো key নয় — {ask}", short(said)));
            }
            let said = said.to_ascii_uppercase();
            let right = said == *key;
            let note = if right {
                String::new()
            } else {
                hints
                    .iter()
                    .find(|(k, _)| *k == said)
                    .map(|(_, why)| why.clone())
                    .unwrap_or_else(|| format!("`{said}` নামে কোনো key এই অপারেশনগুলোতে নেই।"))
            };
            Ok(Verdict {
                right,
                canon: said.clone(),
                heard: said,
                note,
            })
        }
        Answer::Keys { keys, order } => {
            let mut w = words(&bn::ascii(response));
            if let Some(bad) = w.iter().find(|w| !is_key(w)) {
                return Err(format!("`{}` কোনো key নয় — {ask}", short(bad)));
            }
            let single = keys.iter().all(|k| k.len() == 1);
            if w.len() == 1 && single && w[0].len() > 1 {
                w = w[0].chars().map(String::from).collect();
            }
            let said: Vec<String> = w.iter().map(|k| k.to_ascii_uppercase()).collect();
            let right = said == *keys;
            let note = if right {
                String::new()
            } else {
                keys_note(&said, keys, order)
            };
            Ok(Verdict {
                right,
                heard: list(&said),
                canon: said.join("+"),
                note,
            })
        }
        Answer::Count { n, hints } => {
            let said = read_count(response).ok_or_else(|| format!("সংখ্যাটা পড়া গেল না — {ask}"))?;
            let right = said == *n;
            let note = if right {
                String::new()
            } else {
                hints
                    .iter()
                    .find(|(k, _)| *k == said)
                    .map(|(_, why)| why.clone())
                    .unwrap_or_else(|| {
                        format!(
                            "আপনি লিখেছেন {}, সিমুলেশনে {} — {} গুনেছেন।",
                            bn::int(said),
                            bn::int(*n),
                            if said > *n { "বেশি" } else { "কম" }
                        )
                    })
            };
            Ok(Verdict {
                right,
                heard: bn::int(said),
                canon: canon_count(said),
                note,
            })
        }
        Answer::Choice {
            options,
            right: r,
            hints,
        } => {
            let i = read_choice(response, options).ok_or_else(|| {
                format!(
                    "কোন বিকল্প, তা বোঝা গেল না — {ask}; আছে {}",
                    (0..options.len())
                        .map(super::choice_label)
                        .collect::<Vec<_>>()
                        .join(" ")
                )
            })?;
            let right = i == *r;
            Ok(Verdict {
                right,
                heard: format!("{} {}", super::choice_label(i), options[i]),
                canon: (i + 1).to_string(),
                note: if right {
                    String::new()
                } else {
                    hints.get(i).cloned().unwrap_or_default()
                },
            })
        }
        Answer::Percent { value, within } => {
            let said = read_percent(response).ok_or_else(|| format!("শতাংশটা পড়া গেল না — {ask}"))?;
            let right = (said - value).abs() <= *within + 1e-9;
            let note = if right {
                String::new()
            } else {
                format!(
                    "আপনি লিখেছেন {}%, সিমুলেশনে {}% — {} পয়েন্ট {}; ±{} পয়েন্টের মধ্যে হলে ঠিক।",
                    bn::dec(said, 1),
                    bn::dec(*value, 1),
                    bn::dec((said - value).abs(), 1),
                    if said > *value {
                        "বেশি"
                    } else {
                        "কম"
                    },
                    bn::dec(*within, 0)
                )
            };
            Ok(Verdict {
                right,
                heard: format!("{}%", bn::dec(said, 1)),
                canon: format!("{said:.1}"),
                note,
            })
        }
    }
}

/// A count in the canonical form: ASCII digits, `m` before a negative one.
fn canon_count(n: i64) -> String {
    if n < 0 {
        format!("m{}", n.unsigned_abs())
    } else {
        n.to_string()
    }
}

/// An option as typed: its number from 1, its letter (`ক`, `খ`… or `a`, `b`…, with or
/// without `)`), or its whole text.
fn read_choice(response: &str, options: &[String]) -> Option<usize> {
    const BN: [&str; 6] = ["ক", "খ", "গ", "ঘ", "ঙ", "চ"];
    let t = response.trim();
    if let Some(i) = options
        .iter()
        .position(|o| o.trim().eq_ignore_ascii_case(t))
    {
        return Some(i);
    }
    let a = bn::ascii(t);
    let w = a.trim_matches(|c: char| c.is_whitespace() || matches!(c, ')' | '(' | '.' | '`'));
    let i = if let Ok(n) = w.parse::<usize>() {
        n.checked_sub(1)?
    } else if let Some(i) = BN.iter().position(|b| *b == w) {
        i
    } else {
        let mut cs = w.chars();
        match (cs.next(), cs.next()) {
            (Some(c), None) if c.is_ascii_alphabetic() => {
                (c.to_ascii_lowercase() as u8 - b'a') as usize
            }
            _ => return None,
        }
    };
    (i < options.len()).then_some(i)
}

/// A percent as typed: one number (Bengali or ASCII digits, a decimal point), with or
/// without `%` or `শতাংশ`.
fn read_percent(response: &str) -> Option<f64> {
    let a = bn::ascii(response.trim());
    let a = a
        .trim_end_matches("শতাংশ")
        .trim_end_matches("percent")
        .trim()
        .trim_end_matches('%')
        .trim();
    if a.is_empty()
        || !a.chars().all(|c| c.is_ascii_digit() || c == '.')
        || a.matches('.').count() > 1
    {
        return None;
    }
    let x: f64 = a.parse().ok()?;
    (0.0..=100.0).contains(&x).then_some(x)
}

/// Why the list `said` is not `right`: a key twice, keys that were not there or are
/// missing, or the right keys in the wrong order.
fn keys_note(said: &[String], right: &[String], order: &str) -> String {
    if let Some((_, k)) = said
        .iter()
        .enumerate()
        .find(|(i, k)| said[..*i].contains(k))
    {
        return format!("`{k}` দুবার লিখেছেন — ক্যাশে একটা key একবারই থাকে।");
    }
    let extra: Vec<&String> = said.iter().filter(|k| !right.contains(k)).collect();
    let missing: Vec<&String> = right.iter().filter(|k| !said.contains(k)).collect();
    let ticks = |v: &[&String]| {
        v.iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut parts = Vec::new();
    if said.len() != right.len() {
        parts.push(format!(
            "তখন ক্যাশে {}টা key, আপনি লিখেছেন {}টা।",
            bn::int(right.len() as i64),
            bn::int(said.len() as i64)
        ));
    }
    if !extra.is_empty() {
        parts.push(format!("{} তখন ক্যাশে নেই।", ticks(&extra)));
    }
    if !missing.is_empty() {
        parts.push(format!("{} বাদ পড়েছে।", ticks(&missing)));
    }
    if parts.is_empty() {
        let mut rev = right.to_vec();
        rev.reverse();
        if said == rev.as_slice() {
            parts.push(format!("key-গুলো ঠিক, কিন্তু উল্টো ক্রমে: লিখতে হবে {order}।"));
        } else {
            let i = said
                .iter()
                .zip(right)
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            parts.push(format!(
                "key-গুলো ঠিক, ক্রম নয় ({order}): {} নম্বর জায়গায় থাকে `{}`, আপনি লিখেছেন `{}`।",
                bn::int(i as i64 + 1),
                right[i],
                said[i]
            ));
        }
    }
    parts.join(" ")
}

fn short(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).take(24).collect()
}
