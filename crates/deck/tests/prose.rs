//! The decks are in our own words: the same check as the shared `copied-prose` tool, over
//! `src/decks/*.md`, against the fingerprints of the seeds' 8-word runs in
//! `tests/seed-shingles.txt` (hashes only; `cargo xtask fingerprints` regenerates them from
//! `../shared/seeds/`). No run of 10 or more words may be shared with a seed, and at most 5 runs
//! of 8–9 words across all decks (fact-dense lists of identifiers may coincide).

use redislab_deck::prose::{self, copied_runs, Run};
use std::collections::HashSet;
use std::path::Path;

/// Longest run allowed is `LONGEST - 1` words.
const LONGEST: usize = 10;
/// Runs of 8–9 words allowed across all decks.
const SHORT_RUNS: usize = 5;

fn fingerprints() -> HashSet<u64> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/seed-shingles.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run `cargo xtask fingerprints`)", path.display()));
    let set =
        prose::parse_fingerprints(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        set.len() > 1000,
        "{}: only {} fingerprints",
        path.display(),
        set.len()
    );
    set
}

fn shown(name: &str, r: &Run) -> String {
    format!(
        "{name}:{}: {} words: {}",
        r.line,
        r.words.len(),
        r.words.join(" ")
    )
}

/// Checks decks (name, text) against fingerprints: `Ok(runs of 8–9 words)` or an error that
/// names every copied run by deck and line.
fn check(decks: &[(String, String)], seeds: &HashSet<u64>) -> Result<Vec<String>, String> {
    let mut long = Vec::new();
    let mut short = Vec::new();
    for (name, text) in decks {
        for r in copied_runs(text, seeds) {
            if r.words.len() >= LONGEST {
                long.push(shown(name, &r));
            } else {
                short.push(shown(name, &r));
            }
        }
    }
    if long.is_empty() && short.len() <= SHORT_RUNS {
        return Ok(short);
    }
    let mut msg = String::from("decks share prose with a seed; say it in our own words:\n");
    if !long.is_empty() {
        msg.push_str(&format!(
            "{} run(s) of {LONGEST}+ words (none allowed):\n",
            long.len()
        ));
        for l in &long {
            msg.push_str(&format!("  {l}\n"));
        }
    }
    if short.len() > SHORT_RUNS {
        msg.push_str(&format!(
            "{} runs of {}–{} words (at most {SHORT_RUNS} allowed):\n",
            short.len(),
            prose::SHINGLE,
            LONGEST - 1
        ));
        for s in &short {
            msg.push_str(&format!("  {s}\n"));
        }
    }
    Err(msg)
}

fn shipped_decks() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../src/decks");
    let mut decks: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    decks.sort();
    assert!(decks.len() >= 2, "no decks in {}", dir.display());
    decks
}

#[test]
fn the_decks_are_in_our_own_words() {
    match check(&shipped_decks(), &fingerprints()) {
        Ok(short) => {
            for s in short {
                eprintln!("tolerated: {s}");
            }
        }
        Err(msg) => panic!("{msg}"),
    }
}

/// The real fingerprints catch a line the seeds have: the first seed's subtitle (once this
/// project's deck header) is one 9-word run, Bengali digit and all.
#[test]
fn the_fingerprints_catch_a_seed_line() {
    let deck = "subtitle: Redis in Production · Backend System Design · বাংলা · পর্ব ২\n";
    let runs = copied_runs(deck, &fingerprints());
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0].line, 1);
    assert_eq!(
        runs[0].words.join(" "),
        "redis in production backend system design বাংলা পর্ব 2"
    );
}

/// The check fails, naming deck, line and run, when a deck copies 10 or more words or has too
/// many shorter runs; code (fenced or inline) does not count.
#[test]
fn the_check_fails_on_copied_prose() {
    let seed = "<h1>একটা বানানো seed</h1> ক্যাশ ফেল করলে ফিচার ফেল করা উচিত না, কারণ ক্যাশ \
                কেবল একটা অপ্টিমাইজেশন আর ১৫০০ms পেরোলে টাইমআউট। অন্য দিকে \
                আলাদা আটটা শব্দের একটা ছোট্ট বাক্য এখানে আছে।";
    let seeds = prose::seed_fingerprints(seed);
    let copied = "title: x\n\n- ক্যাশ ফেল করলে ফিচার ফেল করা উচিত না, কারণ ক্যাশ কেবল একটা\n";
    let err = check(&[("demo.md".into(), copied.into())], &seeds).unwrap_err();
    assert!(
        err.contains("demo.md:3: 12 words: ক্যাশ ফেল করলে ফিচার ফেল করা উচিত না কারণ ক্যাশ কেবল একটা"),
        "{err}"
    );
    // Digits are folded and punctuation dropped: `1500ms` matches `১৫০০ms`.
    let runs = copied_runs("অপ্টিমাইজেশন আর 1500ms, পেরোলে টাইমআউট. অন্য দিকে আলাদা", &seeds);
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].words.len(), 8);
    // Six short runs are one too many.
    let short = "আলাদা আটটা শব্দের একটা ছোট্ট বাক্য এখানে আছে।\n".repeat(6);
    let err = check(&[("demo.md".into(), short)], &seeds).unwrap_err();
    assert!(err.contains("6 runs of 8–9 words"), "{err}");
    // Code is not prose.
    let code = format!("```text\n{seed}\n```\n- `ক্যাশ ফেল করলে ফিচার ফেল করা উচিত না কারণ` ক্যাশ\n");
    assert_eq!(check(&[("demo.md".into(), code)], &seeds), Ok(vec![]));
}

/// Words are split as the tool splits them.
#[test]
fn words_split_like_the_tool() {
    assert_eq!(
        prose::words("ZSET-এর score = timestamp; ২৩টার মধ্যে ২০টা · Bélády"),
        [
            "zset",
            "এর",
            "score",
            "timestamp",
            "23টার",
            "মধ্যে",
            "20টা",
            "bélády"
        ]
    );
    let ws: Vec<String> = prose::deck_words("a `b c` d\n```\ne\n```\nf")
        .into_iter()
        .map(|(w, n)| format!("{w}@{n}"))
        .collect();
    assert_eq!(ws, ["a@1", "d@1", "f@5"]);
    assert_eq!(prose::seed_words("x <b>y</b> z"), ["x", "y", "z"]);
}
