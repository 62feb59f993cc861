//! The deck lint, rule by rule: each rule fails on a bad line (named by its line) and passes
//! the same line written right. The shipped decks pass every rule, and the glossary in
//! `docs/deck-format.md` is the one the lint applies.

use redislab_deck::lint::{lint, visible_words, Rule, GLOSSARY, WORD_BUDGET};
use redislab_deck::parse::parse_deck;

/// A one-slide deck whose body is `body` and script `script`; the body starts at line 8.
fn deck(body: &str, script: &str) -> String {
    format!(
        "id: demo\ntitle: ডেমো\n---\nkicker: লক\ntitle: লক নেওয়া\n\n%%BODY%%\n{body}\n\n???\n{script}\n"
    )
    .replace("%%BODY%%\n", "")
}

/// The findings of one rule, as (line, message).
fn found(src: &str, rule: Rule) -> Vec<(usize, String)> {
    let d = parse_deck(src, "demo").unwrap_or_else(|e| panic!("{e}\n{src}"));
    lint(src, &d)
        .into_iter()
        .filter(|f| f.rule == rule)
        .map(|f| (f.line, f.message))
        .collect()
}

/// `bad` breaks `rule` at one of its own lines (the body starts at line 7); `good` does not.
fn fails_and_passes(rule: Rule, bad: &str, good: &str) {
    let f = found(&deck(bad, "একটা স্ক্রিপ্ট।"), rule);
    let lines = 7..7 + bad.lines().count();
    assert!(
        !f.is_empty() && f.iter().all(|(l, _)| lines.contains(l)),
        "{rule:?} should fail on `{bad}` at lines {lines:?}: {f:?}"
    );
    let f = found(&deck(good, "একটা স্ক্রিপ্ট।"), rule);
    assert!(f.is_empty(), "{rule:?} should pass `{good}`: {f:?}");
}

#[test]
fn a_note_left_in_the_deck_fails() {
    fails_and_passes(
        Rule::Note,
        "%% lab: stampede — could be embedded here",
        "- একটা বুলেট",
    );
}

#[test]
fn ascii_digits_in_prose_fail_and_names_with_digits_pass() {
    fails_and_passes(
        Rule::AsciiDigit,
        "- Redis 7.0-এ এসেছে",
        "- Redis ৭.০-এ এসেছে",
    );
    fails_and_passes(
        Rule::AsciiDigit,
        "- FCM ফেরত দেয় 429",
        "- FCM ফেরত দেয় `429`; PM2, RESP3, `v41`, 2Q আর T1 নাম, সংখ্যা নয়",
    );
    // In a container's fields and a table's cells too.
    fails_and_passes(
        Rule::AsciiDigit,
        ":::stats\n- 158 | রিকোয়েস্ট\n:::",
        ":::stats\n- ১৫৮ | রিকোয়েস্ট\n:::",
    );
    // In the script as well (line 10: body, blank, `???`, script).
    let f = found(&deck("- বুলেট", "দশ মিনিটে 3214 জন।"), Rule::AsciiDigit);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].0, 10);
    assert!(f[0].1.contains("৩২১৪"), "{}", f[0].1);
}

#[test]
fn a_load_charts_data_is_numbers_not_prose() {
    let good = ":::diagram load bad\n- একই TTL | ১ ১ ১২ ১ | ঢেউ\n:::";
    assert!(found(&deck(good, "স্ক্রিপ্ট।"), Rule::AsciiDigit).is_empty());
    let bad = ":::diagram load bad\n- একই TTL | ১ ১ ১২ ১ | প্রতি 30 সেকেন্ডে\n:::";
    let f = found(&deck(bad, "স্ক্রিপ্ট।"), Rule::AsciiDigit);
    assert_eq!(f.iter().map(|x| x.0).collect::<Vec<_>>(), [8], "{f:?}");
}

#[test]
fn ungrouped_bengali_numbers_fail() {
    fails_and_passes(
        Rule::Grouping,
        "- এক সেকেন্ডেই ১০০০০০টা মেয়াদ",
        "- এক সেকেন্ডেই ১,০০,০০০টা মেয়াদ, ১৯৯৪ সালের 2Q, ২৭.৮৩৩৩ ঘণ্টা",
    );
    // Western grouping is not Indian grouping.
    fails_and_passes(Rule::Grouping, "- ৫০০,০০০ টোকেন", "- ৫,০০,০০০ টোকেন");
    let f = found(&deck("- সময়সীমা ১৫০০ms", "স্ক্রিপ্ট।"), Rule::Grouping);
    assert!(f[0].1.contains("১,৫০০"), "{f:?}");
}

#[test]
fn bengali_digits_in_code_fail() {
    fails_and_passes(
        Rule::BengaliDigitInCode,
        "```redis\n# ১) lock নেওয়ার চেষ্টা\nSET lock:42 a1 NX PX 2000\n```",
        "```redis\n# 1) lock নেওয়ার চেষ্টা\nSET lock:42 a1 NX PX 2000\n```",
    );
    // The fence's first line is 7; its content starts at 8.
    let f = found(
        &deck("```redis\n# ১) lock\n```", "স্ক্রিপ্ট।"),
        Rule::BengaliDigitInCode,
    );
    assert_eq!(f[0].0, 8);
    fails_and_passes(
        Rule::BengaliDigitInCode,
        "- `skip: ৪৯৫০০০` ধীর",
        "- `skip: 495000` ধীর",
    );
}

#[test]
fn glossary_variants_fail_in_prose_and_scripts_not_in_code() {
    fails_and_passes(
        Rule::Glossary,
        "- সরাসরি DB-তে যায়",
        "- সরাসরি ডেটাবেসে যায়; `DB` কোডে থাকতে পারে",
    );
    fails_and_passes(Rule::Glossary, "- ডাটাবেজে ভিড়", "- ডেটাবেসে ভিড়");
    fails_and_passes(
        Rule::Glossary,
        "- cache-এর ভেতরে",
        "- ক্যাশের ভেতরে; cache stampede আর cache-aside নাম",
    );
    fails_and_passes(Rule::Glossary, "- প্রতিটি key", "- প্রতিটা key");
    fails_and_passes(Rule::Glossary, "- ৫টি নমুনা", "- ৫টা নমুনা");
    fails_and_passes(Rule::Glossary, "- দুই অনুরোধ", "- দুই রিকোয়েস্ট");
    fails_and_passes(
        Rule::Glossary,
        "- এক রাউন্ড ট্রিপ",
        "- এক রাউন্ড-ট্রিপ, সেটিং বদলায় না",
    );
    let f = found(&deck("- বুলেট", "তারপর ব্যবহারকারী ফেরে।"), Rule::Glossary);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].1.contains("ইউজার"), "{f:?}");
}

#[test]
fn the_seed_is_not_named_on_the_slide() {
    fails_and_passes(
        Rule::SeedOnSlide,
        "- মূল লেখার \"প্রায় ২৭ ঘণ্টা\" আসলে পৌনে আঠাশ",
        "- ৫,০০,০০০ × ২০০ms ≈ ২৭.৮ ঘণ্টা",
    );
    // The script may compare.
    let src = deck("- বুলেট", "মূল লেখায় আছে প্রায় সাতাশ ঘণ্টা।");
    assert!(found(&src, Rule::SeedOnSlide).is_empty());
}

#[test]
fn a_slide_over_the_word_budget_fails_at_its_first_line() {
    let long = format!("- {}", "শব্দ ".repeat(WORD_BUDGET));
    let f = found(&deck(&long, "স্ক্রিপ্ট।"), Rule::Words);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].0, 4, "the slide's first line");
    // Code and chart data do not count.
    let code = format!("```text\n{}\n```\n\n- ছোট বুলেট", "word ".repeat(200));
    assert!(found(&deck(&code, "স্ক্রিপ্ট।"), Rule::Words).is_empty());
    let d = parse_deck(&deck("- এক দুই তিন", "স্ক্রিপ্ট।"), "demo").unwrap();
    // kicker (1) + title (2) + bullet (3)
    assert_eq!(visible_words(&d.slides[0]), 6);
}

#[test]
fn a_correction_names_its_source_and_stays_one_line() {
    let body = "- HLL-এর ভুল: standard error ০.৮১%\n\n! সংশোধন: ০.৮১% standard error, সীমা নয়";
    let f = found(&deck(body, "HyperLogLog-এর ভুল গড়ে এতটা।"), Rule::Fix);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].1.contains("সূত্র:"), "{f:?}");
    let ok = found(
        &deck(
            body,
            "HyperLogLog-এর ভুল গড়ে এতটা। সূত্র: Redis-এর src/hyperloglog.c।",
        ),
        Rule::Fix,
    );
    assert!(ok.is_empty(), "{ok:?}");
    let long = format!("! সংশোধন: {}", "শব্দ ".repeat(20));
    let f = found(&deck(&long, "সূত্র: Redis-এর সোর্স।"), Rule::Fix);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].1.contains("one line"), "{f:?}");
}

#[test]
fn the_shipped_decks_pass_the_lint() {
    let dir = format!("{}/../../src/decks", env!("CARGO_MANIFEST_DIR"));
    if let Err(e) = redislab_deck::parse::load_dir(std::path::Path::new(&dir)) {
        panic!("{e}");
    }
}

/// The glossary table in `docs/deck-format.md` lists exactly what the lint applies.
#[test]
fn the_documented_glossary_is_the_linted_one() {
    let doc = std::fs::read_to_string(format!(
        "{}/../../docs/deck-format.md",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let table: String = doc
        .split("### Glossary")
        .nth(1)
        .expect("a Glossary section")
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .collect::<Vec<_>>()
        .join("\n");
    for t in GLOSSARY {
        let row = format!("| {} | {} |", t.write, t.not.join(", "));
        assert!(
            table.lines().any(|l| l.starts_with(&row)),
            "docs/deck-format.md's glossary lacks the row `{row}`:\n{table}"
        );
    }
    assert_eq!(
        table
            .lines()
            .filter(|l| !l.contains("(not linted)"))
            .count(),
        GLOSSARY.len(),
        "the doc lists a linted term the lint does not know:\n{table}"
    );
}
