//! The deck lint: the writing rules of `docs/deck-format.md` ("Lint"), checked on every deck
//! the build reads, so a deck that breaks one fails the build with `file:line: lint: …`, as a
//! malformed deck does. Each rule is small and named ([`Rule`]); the tests in
//! `tests/lint.rs` show each failing on a bad line.
//!
//! - [`Rule::Note`]: a `%%` editing note left in the deck.
//! - [`Rule::AsciiDigit`]: ASCII digits in prose or a script (`Redis 7.0`, `429`); identifiers
//!   that mix letters and digits (`PM2`, `RESP3`, `v41`) are names, not numbers, and pass.
//! - [`Rule::Grouping`]: a Bengali number of four or more digits not in Indian grouping
//!   (`২০০০০` → `২০,০০০`); a four-digit year (১৯০০–২০৯৯) passes.
//! - [`Rule::BengaliDigitInCode`]: a Bengali digit inside code (a fence or a `` `span` ``).
//! - [`Rule::Glossary`]: a variant the glossary ([`GLOSSARY`]) replaces, in prose or a script.
//! - [`Rule::Words`]: a slide whose visible text (title, kicker and body, without code, labs
//!   and chart numbers) is over [`WORD_BUDGET`] words.
//! - [`Rule::Fix`]: a correction marker (`! সংশোধন: …`) longer than [`FIX_WORDS`] words, or on
//!   a slide whose script does not name its source (`সূত্র: …`).
//! - [`Rule::SeedOnSlide`]: the seed ("মূল লেখা") named on what the audience reads; the
//!   comparison with the seed belongs in the script.

use crate::model::{plain, Block, Deck, Inline, Slide};
use std::fmt;

/// Most words a slide may show (title, kicker and body; code, labs and chart data aside).
pub const WORD_BUDGET: usize = 120;
/// Most words in a correction marker: it is one small line.
pub const FIX_WORDS: usize = 14;
/// What a script says before the source of a correction.
pub const SOURCE: &str = "সূত্র:";

/// The rule a finding breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// `%%` note left in a deck.
    Note,
    /// ASCII digits in prose or a script.
    AsciiDigit,
    /// A Bengali number not in Indian grouping.
    Grouping,
    /// A Bengali digit in code.
    BengaliDigitInCode,
    /// A glossary variant.
    Glossary,
    /// A slide over the word budget.
    Words,
    /// A correction marker too long, or without a source in the script.
    Fix,
    /// The seed named on the slide.
    SeedOnSlide,
}

impl Rule {
    /// The rule's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Note => "note",
            Rule::AsciiDigit => "ascii-digit",
            Rule::Grouping => "grouping",
            Rule::BengaliDigitInCode => "bengali-digit-in-code",
            Rule::Glossary => "glossary",
            Rule::Words => "words",
            Rule::Fix => "fix",
            Rule::SeedOnSlide => "seed-on-slide",
        }
    }
}

/// One broken rule at a line of the deck source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// 1-based line.
    pub line: usize,
    /// Which rule.
    pub rule: Rule,
    /// What is wrong and what to write instead.
    pub message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}: lint: {}: {}",
            self.line,
            self.rule.name(),
            self.message
        )
    }
}

/// One entry of the glossary: the form the decks write, the variants it replaces, and words
/// after which a variant is part of a name and stays (`cache stampede`).
#[derive(Clone, Copy, Debug)]
pub struct Term {
    /// The form to write.
    pub write: &'static str,
    /// Variants it replaces (a variant of several words is matched as a phrase).
    pub not: &'static [&'static str],
    /// Words that, following a variant, make it part of a name that stays.
    pub names: &'static [&'static str],
}

const fn term(write: &'static str, not: &'static [&'static str]) -> Term {
    Term {
        write,
        not,
        names: &[],
    }
}

/// The glossary: one form per term. `docs/deck-format.md` lists the same table (a test keeps
/// the two equal). Variants match whole words and their inflections (`ডাটাবেজে`, `DB-তে`),
/// never inside code.
pub const GLOSSARY: &[Term] = &[
    term("ডেটাবেস", &["ডাটাবেজ", "ডাটাবেস", "ডেটাবেজ", "DB"]),
    term("ডেটা", &["ডাটা"]),
    term("পুরোনো", &["পুরনো"]),
    term("মেমোরি", &["memory"]),
    term("ইউজার", &["ব্যবহারকারী"]),
    term("রিকোয়েস্ট", &["অনুরোধ", "request"]),
    Term {
        write: "ক্যাশ",
        not: &["cache"],
        names: &[
            "stampede",
            "pollution",
            "avalanche",
            "penetration",
            "busting",
            "invalidation",
        ],
    },
    term("ইনস্ট্যান্স", &["instance"]),
    term("রাউন্ড-ট্রিপ", &["রাউন্ড ট্রিপ", "round-trip", "round trip"]),
    term("লিংক", &["লিঙ্ক"]),
    term(
        "-টা (একটা, তিনটা, ৫টা, প্রতিটা)",
        &[
            "একটি",
            "দুটি",
            "দুইটি",
            "তিনটি",
            "চারটি",
            "পাঁচটি",
            "ছয়টি",
            "সাতটি",
            "আটটি",
            "নয়টি",
            "দশটি",
            "প্রতিটি",
            "কয়েকটি",
            "এটি",
            "সেটি",
            "যেটি",
            "<সংখ্যা>টি",
        ],
    ),
    term("দুটো", &["দুইটা", "দুটা"]),
];

/// Endings a variant may carry and still be the variant (`ডাটাবেজে`, `একটির`).
const ENDINGS: &[&str] = &[
    "",
    "ে",
    "ের",
    "েই",
    "েও",
    "েরও",
    "েরই",
    "র",
    "ই",
    "ও",
    "কে",
    "তে",
    "রই",
    "রও",
    "য়",
    "দের",
    "গুলো",
    "টা",
    "টাই",
    "টার",
];

fn is_word_char(c: char) -> bool {
    ('\u{0980}'..='\u{09FF}').contains(&c)
        || c.is_alphanumeric()
        || c == '_'
        || c == '\u{200C}'
        || c == '\u{200D}'
}

/// Words of prose: runs of word characters, with a hyphen inside a word kept (`cache-এর`,
/// `round-trip`).
fn words(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        let inner_hyphen =
            c == '-' && start.is_some() && chars.get(k + 1).is_some_and(|&(_, n)| is_word_char(n));
        // `cache.aside`, `Socket.IO`: a dot between letters is inside an identifier.
        let inner_dot = c == '.'
            && start.is_some()
            && k > 0
            && chars[k - 1].1.is_ascii_alphanumeric()
            && chars
                .get(k + 1)
                .is_some_and(|&(_, n)| n.is_ascii_alphanumeric());
        if is_word_char(c) || inner_hyphen || inner_dot {
            start.get_or_insert(i);
        } else if let Some(st) = start.take() {
            out.push(&s[st..i]);
        }
    }
    if let Some(st) = start {
        out.push(&s[st..]);
    }
    out
}

/// Whether `word` is `variant` with an inflection (`-এর`, `ে`, `র` …). A variant in lower
/// case matches any case (`cache`, `Cache`); one with capitals matches as written (`DB`, not
/// the `db` of `src/db.c`).
fn inflected(word: &str, variant: &str) -> bool {
    let (w, v) = if variant.chars().any(|c| c.is_ascii_uppercase()) {
        (word.to_string(), variant.to_string())
    } else {
        (word.to_lowercase(), variant.to_lowercase())
    };
    let Some(rest) = w.strip_prefix(&v) else {
        return false;
    };
    if let Some(after) = rest.strip_prefix('-') {
        // `cache-এর` is the variant; `cache-aside` is another name.
        return after
            .chars()
            .next()
            .is_some_and(|c| ('\u{0980}'..='\u{09FF}').contains(&c));
    }
    ENDINGS.contains(&rest)
}

/// `text` without its quotations (`"…"`, `“…”`): a quoted error message or title is verbatim.
fn unquoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '"' => quoted = !quoted,
            '“' => quoted = true,
            '”' => quoted = false,
            c if !quoted => out.push(c),
            _ => {}
        }
    }
    out
}

/// Glossary variants in `text` (prose, code already removed): what to write instead.
fn glossary(text: &str) -> Vec<String> {
    let text = unquoted(text);
    let ws = words(&text);
    let mut out = Vec::new();
    for t in GLOSSARY {
        for &v in t.not {
            if v == "<সংখ্যা>টি" {
                for w in &ws {
                    let digits = w.chars().take_while(|&c| crate::bn::is_digit(c)).count();
                    let rest: String = w.chars().skip(digits).collect();
                    if digits > 0 && inflected(&rest, "টি") {
                        out.push(format!("`{w}` → write `{}`", w.replacen("টি", "টা", 1)));
                    }
                }
                continue;
            }
            let parts: Vec<&str> = v.split(' ').collect();
            for i in 0..ws.len() {
                if i + parts.len() > ws.len() {
                    break;
                }
                let last = parts.len() - 1;
                let matched = parts.iter().enumerate().all(|(k, p)| {
                    if k == last {
                        inflected(ws[i + k], p)
                    } else {
                        ws[i + k].eq_ignore_ascii_case(p)
                    }
                });
                let named = ws
                    .get(i + parts.len())
                    .is_some_and(|n| t.names.iter().any(|m| n.eq_ignore_ascii_case(m)));
                if matched && !named {
                    let found = ws[i..i + parts.len()].join(" ");
                    out.push(format!("`{found}` → write `{}`", t.write));
                }
            }
        }
    }
    out
}

/// Splits prose from its `` `code` `` spans (a `\` escapes the next character).
fn split_code(line: &str) -> (String, Vec<String>) {
    let mut prose = String::new();
    let mut code = Vec::new();
    let mut it = line.chars();
    let mut in_code: Option<String> = None;
    while let Some(c) = it.next() {
        match (&mut in_code, c) {
            (None, '\\') => {
                if let Some(n) = it.next() {
                    prose.push(n);
                }
            }
            (None, '`') => in_code = Some(String::new()),
            (None, c) => prose.push(c),
            (Some(_), '`') => {
                code.push(in_code.take().unwrap_or_default());
                prose.push(' ');
            }
            (Some(s), c) => s.push(c),
        }
    }
    if let Some(s) = in_code {
        prose.push_str(&s);
    }
    (prose, code)
}

/// ASCII numbers in prose: a run of ASCII digits that is not part of a name mixing letters
/// and digits (`PM2`, `RESP3`, `v41`, `2Q`).
fn ascii_numbers(prose: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b: Vec<char> = prose.chars().collect();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_alphanumeric() || b[i] == '_' {
            let st = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            let word: String = b[st..i].iter().collect();
            if word.chars().all(|c| c.is_ascii_digit()) {
                out.push(word);
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Bengali numbers not in Indian grouping (a four-digit year passes; digits after a decimal
/// point are a fraction and pass).
fn ungrouped(prose: &str) -> Vec<String> {
    let b: Vec<char> = prose.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !crate::bn::is_digit(b[i]) {
            i += 1;
            continue;
        }
        let fraction = i >= 2 && b[i - 1] == '.' && crate::bn::is_digit(b[i - 2]);
        let st = i;
        while i < b.len()
            && (crate::bn::is_digit(b[i])
                || (b[i] == ',' && b.get(i + 1).is_some_and(|&c| crate::bn::is_digit(c))))
        {
            i += 1;
        }
        if fraction {
            continue;
        }
        let run: String = b[st..i].iter().collect();
        let plain: String = run.chars().filter(|&c| c != ',').collect();
        let n = plain.chars().count();
        let year = n == 4 && (run.starts_with("১৯") || run.starts_with("২০")) && !run.contains(',');
        if n >= 4 && !year {
            let want = crate::bn::text(&group_ascii(&crate::bn::ascii(&plain)));
            if want != run {
                out.push(format!("`{run}` → write `{want}`"));
            }
        }
    }
    out
}

fn group_ascii(digits: &str) -> String {
    let len = digits.len();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        let rest = len - i;
        out.push(c);
        if rest > 1 && (rest == 4 || (rest > 4 && rest % 2 == 0)) {
            out.push(',');
        }
    }
    out
}

/// What the source line at `n` is, for the line rules.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    /// Words the audience reads (or the presenter says, in a script).
    Prose { script: bool },
    /// A line of fenced code.
    Code,
    /// A line with nothing to check (`---`, `layout: …`, a `:::` directive).
    Skip,
}

/// The line rules: notes, digits, grouping, glossary, the seed named on a slide.
fn lines(src: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut in_header = true;
    let mut in_slide_header = false;
    let mut in_script = false;
    let mut in_fence = false;
    let mut in_load = false;
    for (i, raw) in src.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim_end();
        if line.starts_with("%%") {
            out.push(Finding {
                line: n,
                rule: Rule::Note,
                message: "a `%%` note left in the deck: do what it says, or move it to an issue"
                    .into(),
            });
            continue;
        }
        if in_fence {
            if line.trim_start() == "```" {
                in_fence = false;
                continue;
            }
            check(n, line, Part::Code, &mut out);
            continue;
        }
        if line == "---" {
            in_header = false;
            in_slide_header = true;
            in_script = false;
            continue;
        }
        let part = if in_header {
            match line.split_once(':') {
                Some(("title" | "subtitle", v)) => {
                    check(n, v, Part::Prose { script: false }, &mut out);
                    continue;
                }
                _ => Part::Skip,
            }
        } else if in_script {
            Part::Prose { script: true }
        } else if line == "???" {
            in_script = true;
            in_slide_header = false;
            Part::Skip
        } else if in_slide_header {
            if line.trim().is_empty() {
                in_slide_header = false;
                continue;
            }
            match line.split_once(':') {
                Some(("kicker" | "title", v)) => {
                    check(n, v, Part::Prose { script: false }, &mut out);
                    continue;
                }
                _ => Part::Skip,
            }
        } else if line.starts_with("```") {
            in_fence = true;
            Part::Skip
        } else if let Some(spec) = line.strip_prefix(":::") {
            in_load = spec.split_whitespace().take(2).eq(["diagram", "load"]);
            Part::Skip
        } else {
            Part::Prose { script: false }
        };
        if part == Part::Skip {
            continue;
        }
        // A `load` chart's second field is its data: numbers, never words.
        let text = if in_load {
            let mut fields: Vec<&str> = line.split(" | ").collect();
            if fields.len() > 1 {
                fields.remove(1);
            }
            fields.join(" | ")
        } else {
            line.to_string()
        };
        check(n, &text, part, &mut out);
    }
    out
}

fn check(n: usize, text: &str, part: Part, out: &mut Vec<Finding>) {
    let mut push = |rule, message| {
        out.push(Finding {
            line: n,
            rule,
            message,
        })
    };
    match part {
        Part::Skip => {}
        Part::Code => {
            if text.chars().any(crate::bn::is_digit) {
                push(
                    Rule::BengaliDigitInCode,
                    format!(
                        "Bengali digits in code (`{}`): code keeps ASCII digits",
                        text.trim()
                    ),
                );
            }
        }
        Part::Prose { script } => {
            let (prose, code) = split_code(text);
            for c in code.iter().filter(|c| c.chars().any(crate::bn::is_digit)) {
                push(
                    Rule::BengaliDigitInCode,
                    format!("Bengali digits in `{c}`: code keeps ASCII digits"),
                );
            }
            for num in ascii_numbers(&prose) {
                push(
                    Rule::AsciiDigit,
                    format!(
                        "ASCII digits `{num}` in {}: write `{}`{}",
                        if script { "the script" } else { "prose" },
                        crate::bn::text(&num),
                        if script {
                            ""
                        } else {
                            ", or put code in backticks"
                        }
                    ),
                );
            }
            for g in ungrouped(&prose) {
                push(Rule::Grouping, format!("{g} (Indian grouping)"));
            }
            for g in glossary(&prose) {
                push(Rule::Glossary, g);
            }
            if !script && (prose.contains("মূল লেখা") || prose.contains("the seed says"))
            {
                push(
                    Rule::SeedOnSlide,
                    "the slide compares itself with the seed (\"মূল লেখা\"): state the right fact; the comparison goes to the script".into(),
                );
            }
        }
    }
}

/// Words of a run of inline text.
fn count(t: &[Inline]) -> usize {
    plain(t)
        .split_whitespace()
        .filter(|w| w.chars().any(is_word_char))
        .count()
}

/// The words a slide shows: kicker, title and body (code, labs and chart data aside).
pub fn visible_words(s: &Slide) -> usize {
    let mut n = count(&[Inline::Text(s.kicker.clone())]);
    n += s
        .title
        .iter()
        .map(|l| count(&[Inline::Text(l.clone())]))
        .sum::<usize>();
    for b in s.body.iter() {
        n += match b {
            Block::Para(t) | Block::Lead(t) | Block::Note(t) | Block::Fix(t) => count(t),
            Block::Bullets(items) | Block::Numbered(items) => items.iter().map(|t| count(t)).sum(),
            Block::Code { .. } => 0,
            Block::Table { head, rows } => {
                head.iter().map(|t| count(t)).sum::<usize>()
                    + rows
                        .iter()
                        .flat_map(|r| r.iter())
                        .map(|t| count(t))
                        .sum::<usize>()
            }
            Block::Container { kind, args, items } => {
                let load = kind == "diagram" && args.first().is_some_and(|a| a == "load");
                items
                    .iter()
                    .flat_map(|it| {
                        it.iter()
                            .enumerate()
                            .filter(move |(k, _)| !(load && *k == 1))
                    })
                    .map(|(_, t)| count(t))
                    .sum()
            }
        };
    }
    n
}

/// The slide rules: the word budget, correction markers and their sources.
fn slides(deck: &Deck) -> Vec<Finding> {
    let mut out = Vec::new();
    for s in deck.slides.iter() {
        let line = s.line as usize;
        let words = visible_words(s);
        if words > WORD_BUDGET {
            out.push(Finding {
                line,
                rule: Rule::Words,
                message: format!(
                    "slide `{}` shows {words} words (at most {WORD_BUDGET}): say less on the slide, let the script carry the rest",
                    s.title_text()
                ),
            });
        }
        let fixes: Vec<&crate::model::Text> = s
            .body
            .iter()
            .filter_map(|b| match b {
                Block::Fix(t) => Some(t),
                _ => None,
            })
            .collect();
        for t in &fixes {
            let w = count(t);
            if w > FIX_WORDS {
                out.push(Finding {
                    line,
                    rule: Rule::Fix,
                    message: format!(
                        "the correction marker on `{}` has {w} words (at most {FIX_WORDS}): the marker is one line; the right fact is the slide's own bullet",
                        s.title_text()
                    ),
                });
            }
        }
        let named = s
            .script
            .split(SOURCE)
            .nth(1)
            .is_some_and(|rest| rest.split_whitespace().next().is_some());
        if !fixes.is_empty() && !named {
            out.push(Finding {
                line,
                rule: Rule::Fix,
                message: format!(
                    "slide `{}` has a `সংশোধন` but its script names no source (`{SOURCE} <what it was checked against>`)",
                    s.title_text()
                ),
            });
        }
    }
    out
}

/// Every rule on one deck: `src` is its source, `deck` what the parser made of it. Findings
/// are in line order.
pub fn lint(src: &str, deck: &Deck) -> Vec<Finding> {
    let mut out = lines(src);
    out.extend(slides(deck));
    out.sort_by_key(|f| f.line);
    out
}
