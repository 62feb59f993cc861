//! Copied prose: runs of [`SHINGLE`] or more consecutive words that a deck shares with a seed.
//!
//! The same check as the shared tool `copied-prose` (Python), word for word, so the two agree:
//!
//! - a word is a run of word characters: the whole Bengali block U+0980–U+09FF, `_`, and
//!   letters and numbers of any script (the tool's `[\w\u0980-\u09ff]+`);
//! - Bengali digits become ASCII digits and text is lowercased before splitting, so `২০` and
//!   `20` are the same word and punctuation never counts;
//! - on the deck side, fenced code (lines between ```` ``` ```` lines) and inline `` `code` ``
//!   are left out; on the seed side, `<tags>` are;
//! - a seed is kept only as fingerprints: the 64-bit FNV-1a hash of every run of
//!   [`SHINGLE`] words, joined by single spaces ([`shingle_hash`]). `cargo xtask fingerprints`
//!   writes them, one lowercase hex number a line, sorted, so no seed text is in the project.
//!
//! One known difference: Python splits a word at a combining mark of another script (Arabic,
//! Devanagari …) while Rust's `char::is_alphanumeric` counts most of them as letters; the
//! common mark ranges are listed in [`is_foreign_mark`] so the two agree on the seeds we have.

use std::collections::HashSet;

/// Words in a shingle: the tool's default `--n 8`.
pub const SHINGLE: usize = 8;

/// FNV-1a, 64 bits: small, stable across platforms and Rust versions.
pub fn fnv1a(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The fingerprint of a run of words: FNV-1a of the words joined by single spaces.
pub fn shingle_hash<S: AsRef<str>>(words: &[S]) -> u64 {
    let mut joined = String::new();
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            joined.push(' ');
        }
        joined.push_str(w.as_ref());
    }
    fnv1a(&joined)
}

/// Combining marks of other scripts that Python's `\w` does not count as word characters but
/// `char::is_alphanumeric` would (Other_Alphabetic): Arabic and Devanagari vowel signs.
fn is_foreign_mark(c: char) -> bool {
    matches!(c as u32,
        0x0610..=0x061A | 0x064B..=0x065F | 0x0670 | 0x06D6..=0x06ED
        | 0x0900..=0x0903 | 0x093A..=0x093C | 0x093E..=0x094F | 0x0951..=0x0957 | 0x0962..=0x0963)
}

fn is_word_char(c: char) -> bool {
    ('\u{0980}'..='\u{09FF}').contains(&c)
        || c == '_'
        || (c.is_alphanumeric() && !is_foreign_mark(c))
}

/// The words of `text`: Bengali digits as ASCII, lowercased, split at non-word characters.
pub fn words(text: &str) -> Vec<String> {
    let folded: String = text
        .chars()
        .map(|c| match c {
            '০'..='৯' => char::from(b'0' + (c as u32 - '০' as u32) as u8),
            c => c,
        })
        .collect();
    folded
        .to_lowercase()
        .split(|c: char| !is_word_char(c))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// `line` with every `` `…` `` span replaced by a space (an unclosed backtick stays).
fn drop_inline_code(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(i) = rest.find('`') {
        out.push_str(&rest[..i]);
        match rest[i + 1..].find('`') {
            Some(j) => {
                out.push(' ');
                rest = &rest[i + 1 + j + 1..];
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// A deck's prose words with their 1-based line numbers: fenced and inline code left out.
pub fn deck_words(text: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut fence = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim().starts_with("```") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        for w in words(&drop_inline_code(line)) {
            out.push((w, i + 1));
        }
    }
    out
}

/// A seed's words, its `<tags>` left out.
pub fn seed_words(text: &str) -> Vec<String> {
    let mut plain = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('<') {
        plain.push_str(&rest[..i]);
        // `<[^>]+>`: at least one character before the closing `>`.
        match rest[i + 1..].find('>') {
            Some(j) if j > 0 => {
                plain.push(' ');
                rest = &rest[i + 1 + j + 1..];
            }
            _ => {
                plain.push('<');
                rest = &rest[i + 1..];
            }
        }
    }
    plain.push_str(rest);
    words(&plain)
}

/// The fingerprints of every shingle of a seed.
pub fn seed_fingerprints(text: &str) -> HashSet<u64> {
    seed_words(text)
        .windows(SHINGLE)
        .map(shingle_hash)
        .collect()
}

/// The fingerprint file: a `#` header, then one hex hash a line, sorted.
pub fn format_fingerprints(set: &HashSet<u64>, header: &str) -> String {
    let mut all: Vec<u64> = set.iter().copied().collect();
    all.sort_unstable();
    let mut out = String::new();
    for line in header.lines() {
        out.push_str("# ");
        out.push_str(line);
        out.push('\n');
    }
    for h in all {
        out.push_str(&format!("{h:016x}\n"));
    }
    out
}

/// Reads a fingerprint file (blank lines and `#` lines are skipped).
///
/// # Errors
/// The 1-based number and text of the first line that is not a hex hash.
pub fn parse_fingerprints(text: &str) -> Result<HashSet<u64>, String> {
    let mut set = HashSet::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let h = u64::from_str_radix(line, 16)
            .map_err(|e| format!("line {}: `{line}` is not a hex hash ({e})", i + 1))?;
        set.insert(h);
    }
    Ok(set)
}

/// A run of consecutive deck words that are all inside shingles a seed shares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The deck line the run starts on (1-based).
    pub line: usize,
    /// The run's words, normalised.
    pub words: Vec<String>,
}

/// Every copied run in a deck's text, in order, as the tool finds them.
pub fn copied_runs(deck: &str, seeds: &HashSet<u64>) -> Vec<Run> {
    let ws = deck_words(deck);
    if ws.len() < SHINGLE {
        return Vec::new();
    }
    let hit: Vec<bool> = ws
        .windows(SHINGLE)
        .map(|win| {
            let words: Vec<&str> = win.iter().map(|(w, _)| w.as_str()).collect();
            seeds.contains(&shingle_hash(&words))
        })
        .collect();
    let mut runs = Vec::new();
    let mut i = 0;
    while i < hit.len() {
        if !hit[i] {
            i += 1;
            continue;
        }
        let mut j = i;
        while j + 1 < hit.len() && hit[j + 1] {
            j += 1;
        }
        runs.push(Run {
            line: ws[i].1,
            words: ws[i..j + SHINGLE].iter().map(|(w, _)| w.clone()).collect(),
        });
        i = j + 1;
    }
    runs
}
