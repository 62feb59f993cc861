//! The deck source parser. The format is described in `docs/deck-format.md`; every error names
//! the 1-based line it was found on, so a malformed deck fails the build with `file:line: what`.

use crate::highlight;
use crate::model::*;
use std::borrow::Cow;
use std::fmt;

/// A parse error at a line of the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong, for a person.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

type Result<T> = std::result::Result<T, ParseError>;

fn err<T>(line: usize, message: impl Into<String>) -> Result<T> {
    Err(ParseError {
        line,
        message: message.into(),
    })
}

/// Container kinds the app knows how to draw.
pub const CONTAINERS: &[&str] = &[
    "cards", "stats", "steps", "defs", "levels", "diagram", "lab", "quiz",
];

/// Live labs a deck can embed (`:::lab NAME key=value …`): the simulator's registry.
pub use redislab_sim::labs::registry::IDS as LABS;

/// The diagrams a deck can name (`:::diagram NAME`): the one list of them. The parser checks
/// names against it; the app draws each with an exhaustive `match`, so a diagram added here
/// without a drawing (or drawn without being here) does not compile.
pub use crate::model::Diagram;

/// How a correction marker starts: `! সংশোধন: …` is a [`Block::Fix`], not a note.
pub const FIX: &str = "সংশোধন:";

/// Code languages the highlighter knows.
pub const LANGS: &[&str] = &["js", "lua", "json", "redis", "sh", "text"];

/// Parses one deck. `expected_id` is the file stem the deck's `id` must equal.
///
/// # Errors
/// A [`ParseError`] naming the first malformed line.
pub fn parse_deck(src: &str, expected_id: &str) -> Result<Deck> {
    let lines: Vec<(usize, &str)> = src
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end()))
        .filter(|(_, l)| !l.starts_with("%%"))
        .collect();
    let mut chunks: Vec<&[(usize, &str)]> = lines.split(|(_, l)| *l == "---").collect();
    if chunks.len() < 2 {
        return err(
            lines.last().map_or(1, |l| l.0),
            "a deck needs a header, then slides separated by lines of `---`",
        );
    }
    let header = chunks.remove(0);
    let mut deck = Deck {
        id: Cow::Borrowed(""),
        title: Cow::Borrowed(""),
        subtitle: Cow::Borrowed(""),
        order: 100,
        slides: Cow::Owned(Vec::new()),
    };
    let mut seen = Vec::new();
    for &(n, line) in header {
        if line.trim().is_empty() {
            continue;
        }
        let (key, value) = key_value(n, line)?;
        if seen.contains(&key) {
            return err(n, format!("`{key}` is given twice"));
        }
        seen.push(key);
        match key {
            "id" => {
                if value.is_empty()
                    || !value
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                {
                    return err(
                        n,
                        format!(
                            "deck id `{value}` must be lowercase ASCII letters, digits and `-`"
                        ),
                    );
                }
                if value != expected_id {
                    return err(
                        n,
                        format!("deck id `{value}` must equal the file name `{expected_id}`"),
                    );
                }
                deck.id = own(value);
            }
            "title" => deck.title = own(value),
            "subtitle" => deck.subtitle = own(value),
            "order" => {
                deck.order = value
                    .parse()
                    .or_else(|_| err(n, format!("order `{value}` is not a whole number")))?
            }
            _ => {
                return err(
                    n,
                    format!("unknown deck header key `{key}` (id, title, subtitle, order)"),
                )
            }
        }
    }
    let first = header.first().map_or(1, |l| l.0);
    if deck.id.is_empty() {
        return err(first, "the deck header has no `id:`");
    }
    if deck.title.is_empty() {
        return err(first, "the deck header has no `title:`");
    }
    let mut slides = Vec::new();
    for chunk in chunks {
        slides.push(parse_slide(chunk)?);
    }
    deck.slides = Cow::Owned(slides);
    Ok(deck)
}

fn own(s: &str) -> Str {
    Cow::Owned(s.to_string())
}

fn key_value(n: usize, line: &str) -> Result<(&str, &str)> {
    match line.split_once(':') {
        Some((k, v)) if !k.is_empty() && k.chars().all(|c| c.is_ascii_lowercase() || c == '-') => {
            Ok((k, v.trim()))
        }
        _ => err(n, format!("expected `key: value`, found `{line}`")),
    }
}

fn parse_slide(chunk: &[(usize, &str)]) -> Result<Slide> {
    // Skip blank lines before the header.
    let start = chunk.iter().position(|(_, l)| !l.trim().is_empty());
    let Some(start) = start else {
        let n = chunk.first().map_or(1, |l| l.0.saturating_sub(1).max(1));
        return err(n, "empty slide (two `---` with nothing between)");
    };
    let chunk = &chunk[start..];
    let slide_line = chunk[0].0;
    let mut i = 0;
    let mut kicker = None;
    let mut title = None;
    let mut layout = Layout::Default;
    while i < chunk.len() && !chunk[i].1.trim().is_empty() {
        let (n, line) = chunk[i];
        if line == "???" {
            break;
        }
        let (key, value) = key_value(n, line)?;
        match key {
            "kicker" => kicker = Some(own(value)),
            "title" => {
                title = Some(Cow::Owned(
                    value
                        .split(" // ")
                        .map(|s| own(s.trim()))
                        .collect::<Vec<_>>(),
                ))
            }
            "layout" => {
                layout = match value {
                    "default" => Layout::Default,
                    "cover" => Layout::Cover,
                    "end" => Layout::End,
                    _ => return err(n, format!("unknown layout `{value}` (default, cover, end)")),
                }
            }
            _ => {
                return err(
                    n,
                    format!("unknown slide header key `{key}` (kicker, title, layout)"),
                )
            }
        }
        i += 1;
    }
    let kicker = kicker.filter(|k| !k.is_empty()).ok_or_else(|| ParseError {
        line: slide_line,
        message: "slide has no `kicker:`".into(),
    })?;
    let title = title
        .filter(|t: &List<Str>| t.iter().any(|s| !s.is_empty()))
        .ok_or_else(|| ParseError {
            line: slide_line,
            message: "slide has no `title:`".into(),
        })?;
    let rest = &chunk[i..];
    let script_at = rest.iter().position(|(_, l)| *l == "???");
    let Some(script_at) = script_at else {
        return err(
            slide_line,
            "slide has no presenter script (a line `???` followed by the narration)",
        );
    };
    let (body, frags) = parse_body(&rest[..script_at])?;
    let script_lines = &rest[script_at + 1..];
    if let Some((n, _)) = script_lines.iter().find(|(_, l)| *l == "???") {
        return err(*n, "a second `???` in one slide");
    }
    let script = script_lines
        .iter()
        .map(|(_, l)| l.trim())
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if script.is_empty() {
        return err(
            rest[script_at].0,
            "the presenter script after `???` is empty",
        );
    }
    Ok(Slide {
        kicker,
        title,
        layout,
        body: Cow::Owned(body),
        script: Cow::Owned(script),
        frags: Cow::Owned(frags),
        line: slide_line as u32,
    })
}

fn is_ordered(line: &str) -> Option<&str> {
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && line[digits..].starts_with(". ") {
        Some(&line[digits + 2..])
    } else {
        None
    }
}

/// Checks a quiz slide's words: `:::quiz <lab> <kind> [seed=N]`, a lab with practice
/// questions, one of its kinds, a seed from 0 to 4294967295.
fn quiz_args(n: usize, args: &[Str]) -> Result<()> {
    use redislab_sim::practice;
    let ids = || {
        practice::topics()
            .iter()
            .map(|t| t.id)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let [lab, kind, rest @ ..] = args else {
        return err(
            n,
            format!(
                "`:::quiz` needs a lab and a kind (`:::quiz lru evicted seed=7`; labs: {})",
                ids()
            ),
        );
    };
    let Some(t) = practice::topic(lab) else {
        return err(
            n,
            format!(
                "`:::quiz`: no practice questions for lab `{lab}` ({})",
                ids()
            ),
        );
    };
    if !t.kinds.iter().any(|k| k.id == kind.as_ref()) {
        let kinds: Vec<&str> = t.kinds.iter().map(|k| k.id).collect();
        return err(
            n,
            format!("`:::quiz {lab}`: no kind `{kind}` ({})", kinds.join(", ")),
        );
    }
    for a in rest {
        match a.split_once('=') {
            Some(("seed", v)) if v.parse::<u32>().is_ok() => {}
            _ => {
                return err(
                    n,
                    format!("`:::quiz`: `{a}` — only `seed=N` (0 to 4294967295) follows the kind"),
                )
            }
        }
    }
    Ok(())
}

/// The body's blocks, and its fragments (block, item) in reveal order.
type Body = (Vec<Block>, Vec<(u16, u16)>);

fn parse_body(lines: &[(usize, &str)]) -> Result<Body> {
    let mut blocks = Vec::new();
    let mut frags = Vec::new();
    // Items written with `+ ` are fragments of the block about to be pushed.
    let mut mark = |blocks: &Vec<Block>, items: &[Item]| {
        let b = blocks.len() as u16;
        frags.extend(
            items
                .iter()
                .enumerate()
                .filter(|(_, it)| it.2)
                .map(|(k, _)| (b, k as u16)),
        );
    };
    let mut i = 0;
    while i < lines.len() {
        let (n, line) = lines[i];
        if line.trim().is_empty() {
            i += 1;
            continue;
        }
        if let Some(lang) = line.strip_prefix("```") {
            let lang = lang.trim();
            let lang = if lang.is_empty() { "text" } else { lang };
            if !LANGS.contains(&lang) {
                return err(
                    n,
                    format!("unknown code language `{lang}` ({})", LANGS.join(", ")),
                );
            }
            let end = lines[i + 1..]
                .iter()
                .position(|(_, l)| l.trim_start() == "```");
            let Some(end) = end else {
                return err(n, "code block is not closed with ```");
            };
            let code: Vec<&str> = lines[i + 1..i + 1 + end].iter().map(|(_, l)| *l).collect();
            let text = code.join("\n");
            if text.trim().is_empty() {
                return err(n, "empty code block");
            }
            blocks.push(Block::Code {
                lang: own(lang),
                tokens: Cow::Owned(highlight::tokens(lang, &text)),
            });
            i += end + 2;
            continue;
        }
        if let Some(spec) = line.strip_prefix(":::") {
            let mut words = spec.split_whitespace();
            let Some(kind) = words.next() else {
                return err(
                    n,
                    "a `:::` that closes nothing (a container opens with `:::kind`)",
                );
            };
            if !CONTAINERS.contains(&kind) {
                return err(
                    n,
                    format!("unknown container `{kind}` ({})", CONTAINERS.join(", ")),
                );
            }
            let args: Vec<Str> = words.map(own).collect();
            if kind == "diagram" {
                let names = || {
                    Diagram::ALL
                        .iter()
                        .map(|d| d.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                match args.first().map(|d| (d, Diagram::from_name(d))) {
                    None => return err(n, format!("`:::diagram` needs a name ({})", names())),
                    Some((d, None)) => {
                        return err(n, format!("unknown diagram `{d}` ({})", names()))
                    }
                    Some((d, Some(diagram))) => {
                        if let Some(ok) = diagram.words() {
                            if let Some(bad) = args[1..].iter().find(|a| !ok.contains(&a.as_ref()))
                            {
                                return err(
                                    n,
                                    format!("diagram `{d}` takes {}, not `{bad}`", ok.join(", ")),
                                );
                            }
                        }
                    }
                }
            }
            if kind == "lab" {
                match args.first() {
                    None => return err(n, format!("`:::lab` needs a name ({})", LABS.join(", "))),
                    Some(l) if !LABS.contains(&l.as_ref()) => {
                        return err(n, format!("unknown lab `{l}` ({})", LABS.join(", ")))
                    }
                    _ => {}
                }
                if let Some(bad) = args[1..].iter().find(|a| {
                    !a.split_once('=')
                        .is_some_and(|(k, v)| !k.is_empty() && !v.is_empty())
                }) {
                    return err(n, format!("lab preset `{bad}` must be `key=value`"));
                }
                // The values as the lab itself checks them (its fields, ranges and presets).
                let info = redislab_sim::labs::registry::info(&args[0]).expect("checked above");
                let query = args[1..]
                    .iter()
                    .map(|a| a.as_ref())
                    .collect::<Vec<&str>>()
                    .join("&");
                let (_, errors) = redislab_sim::labs::params::Params::from_query(info, &query);
                if let Some(e) = errors.first() {
                    return err(n, format!("lab `{}`: `{}`: {}", info.id, e.key, e.message));
                }
            }
            if kind == "quiz" {
                quiz_args(n, &args)?;
            }
            let end = lines[i + 1..].iter().position(|(_, l)| *l == ":::");
            let Some(end) = end else {
                return err(n, format!("container `:::{kind}` is not closed with `:::`"));
            };
            let items = list_items(&lines[i + 1..i + 1 + end], true)?;
            if items.is_empty() && kind != "lab" && kind != "quiz" {
                return err(n, format!("container `:::{kind}` has no items (`- a | b`)"));
            }
            if kind == "quiz" {
                if !items.is_empty() {
                    return err(
                        n,
                        "`:::quiz` takes no items: the simulator writes the question",
                    );
                }
                // Two reveal steps: the answer, then the lab that shows it.
                mark(
                    &blocks,
                    &[(n, String::new(), true), (n, String::new(), true)],
                );
            }
            mark(&blocks, &items);
            let items = items
                .into_iter()
                .map(|(ln, text, _)| {
                    text.split(" | ")
                        .map(|f| inline(ln, f.trim()))
                        .collect::<Result<Vec<_>>>()
                        .map(Cow::Owned)
                })
                .collect::<Result<Vec<_>>>()?;
            blocks.push(Block::Container {
                kind: own(kind),
                args: Cow::Owned(args),
                items: Cow::Owned(items),
            });
            i += end + 2;
            continue;
        }
        // The remaining blocks run to the next blank line.
        let end = lines[i..]
            .iter()
            .position(|(_, l)| l.trim().is_empty())
            .map_or(lines.len(), |e| i + e);
        let para = &lines[i..end];
        i = end;
        if line.starts_with('|') {
            blocks.push(table(para)?);
        } else if line.starts_with("- ") || line.starts_with("+ ") {
            let items = list_items(para, false)?;
            mark(&blocks, &items);
            blocks.push(Block::Bullets(texts(
                items.into_iter().map(|(n, t, _)| (n, t)).collect(),
            )?));
        } else if is_ordered(line).is_some() {
            let mut items = Vec::new();
            for &(ln, l) in para {
                if let Some(rest) = is_ordered(l) {
                    items.push((ln, rest.to_string()));
                } else if let (Some(last), Some(cont)) = (items.last_mut(), l.strip_prefix("  ")) {
                    last.1.push(' ');
                    last.1.push_str(cont.trim());
                } else {
                    return err(
                        ln,
                        "in a numbered list every line starts with `N. ` or two spaces",
                    );
                }
            }
            blocks.push(Block::Numbered(texts(items)?));
        } else {
            for &(ln, l) in para {
                if l.starts_with("```") || l.starts_with(":::") || l.starts_with('|') {
                    return err(
                        ln,
                        "a code block, container or table must start after a blank line",
                    );
                }
            }
            let joined = para
                .iter()
                .map(|(_, l)| l.trim())
                .collect::<Vec<_>>()
                .join(" ");
            let (make, text): (fn(Text) -> Block, &str) = if let Some(t) = joined.strip_prefix("> ")
            {
                (Block::Lead, t)
            } else if let Some(t) = joined.strip_prefix("! ") {
                match t.strip_prefix(FIX) {
                    Some(rest) => (Block::Fix, rest.trim_start()),
                    None => (Block::Note, t),
                }
            } else {
                (Block::Para, &joined)
            };
            blocks.push(make(inline(n, text)?));
        }
    }
    Ok((blocks, frags))
}

fn texts(items: Vec<(usize, String)>) -> Result<List<Text>> {
    items
        .into_iter()
        .map(|(n, t)| inline(n, &t))
        .collect::<Result<Vec<_>>>()
        .map(Cow::Owned)
}

/// A list item: its line, its text, and whether it is a fragment (written `+ `).
type Item = (usize, String, bool);

/// Items of a list: each starts with `- `, or `+ ` for a fragment (revealed step by step);
/// continuation lines start with two spaces.
fn list_items(lines: &[(usize, &str)], skip_blank: bool) -> Result<Vec<Item>> {
    let mut items: Vec<Item> = Vec::new();
    for &(n, l) in lines {
        if l.trim().is_empty() && skip_blank {
            continue;
        }
        if let Some(rest) = l.strip_prefix("- ") {
            items.push((n, rest.trim().to_string(), false));
        } else if let Some(rest) = l.strip_prefix("+ ") {
            items.push((n, rest.trim().to_string(), true));
        } else if let (Some(last), Some(cont)) = (items.last_mut(), l.strip_prefix("  ")) {
            last.1.push(' ');
            last.1.push_str(cont.trim());
        } else {
            return err(
                n,
                format!(
                    "expected a list item starting with `- ` (or `+ ` for a fragment), found `{l}`"
                ),
            );
        }
    }
    Ok(items)
}

fn table(lines: &[(usize, &str)]) -> Result<Block> {
    let cells = |n: usize, l: &str| -> Result<Vec<Text>> {
        let inner = l.trim();
        let Some(inner) = inner.strip_prefix('|').and_then(|s| s.strip_suffix('|')) else {
            return err(n, "a table row starts and ends with `|`");
        };
        inner.split('|').map(|c| inline(n, c.trim())).collect()
    };
    if lines.len() < 2 {
        return err(
            lines[0].0,
            "a table needs a header row and a `|---|` separator",
        );
    }
    let head = cells(lines[0].0, lines[0].1)?;
    let (sn, sep) = lines[1];
    if !sep.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ')) {
        return err(
            sn,
            "the second table row must be a separator like `|---|---|`",
        );
    }
    let mut rows = Vec::new();
    for &(n, l) in &lines[2..] {
        let row = cells(n, l)?;
        if row.len() != head.len() {
            return err(
                n,
                format!(
                    "table row has {} cells, the header has {}",
                    row.len(),
                    head.len()
                ),
            );
        }
        rows.push(Cow::Owned(row));
    }
    if rows.is_empty() {
        return err(sn, "a table needs at least one row under the separator");
    }
    Ok(Block::Table {
        head: Cow::Owned(head),
        rows: Cow::Owned(rows),
    })
}

/// Parses inline markup: `**bold**`, `*em*`, `` `code` ``, `==mark==`, `\` escapes.
///
/// # Errors
/// An unclosed marker, reported at line `n`.
pub fn inline(n: usize, src: &str) -> Result<Text> {
    let mut out: Vec<Inline> = Vec::new();
    let mut plain = String::new();
    let mut rest = src;
    while let Some(c) = rest.chars().next() {
        if c == '\\' {
            let mut it = rest[1..].chars();
            match it.next() {
                Some(e) => {
                    plain.push(e);
                    rest = it.as_str();
                }
                None => {
                    plain.push('\\');
                    rest = "";
                }
            }
            continue;
        }
        let marker = if rest.starts_with("**") {
            Some(("**", Inline::Bold as fn(Str) -> Inline))
        } else if rest.starts_with("==") {
            Some(("==", Inline::Mark as fn(Str) -> Inline))
        } else if c == '`' {
            Some(("`", Inline::Code as fn(Str) -> Inline))
        } else if c == '*' {
            Some(("*", Inline::Em as fn(Str) -> Inline))
        } else {
            None
        };
        if let Some((m, make)) = marker {
            let body = &rest[m.len()..];
            // Code is verbatim; inside bold, emphasis and highlight a `\` escape still works.
            let escapes = m != "`";
            let Some(end) = find_close(body, m, escapes) else {
                return err(n, format!("`{m}` is opened but never closed in `{src}` (escape a literal one with `\\`)"));
            };
            if end == 0 {
                return err(n, format!("empty `{m}{m}` in `{src}`"));
            }
            if !plain.is_empty() {
                out.push(Inline::Text(Cow::Owned(std::mem::take(&mut plain))));
            }
            let inner = &body[..end];
            // Markup does not nest: a code span inside bold would show its backticks.
            if escapes && inner.replace("\\`", "").contains('`') {
                return err(n, format!("`` ` `` inside `{m}…{m}` in `{src}`: markup does not nest; put the code outside (or escape the backtick with `\\`)"));
            }
            out.push(make(if escapes {
                Cow::Owned(unescape(inner))
            } else {
                own(inner)
            }));
            rest = &body[end + m.len()..];
            continue;
        }
        plain.push(c);
        rest = &rest[c.len_utf8()..];
    }
    if !plain.is_empty() {
        out.push(Inline::Text(Cow::Owned(plain)));
    }
    Ok(Cow::Owned(out))
}

/// Where the closing `m` is in `body`, skipping `\`-escaped characters when `escapes`.
fn find_close(body: &str, m: &str, escapes: bool) -> Option<usize> {
    let mut it = body.char_indices();
    while let Some((i, c)) = it.next() {
        if escapes && c == '\\' {
            it.next();
        } else if body[i..].starts_with(m) {
            return Some(i);
        }
    }
    None
}

/// `s` with every `\x` escape replaced by `x` (a trailing lone `\` stays).
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            out.push(it.next().unwrap_or('\\'));
        } else {
            out.push(c);
        }
    }
    out
}

/// Every deck in `dir` (`*.md`), parsed, linted ([`crate::lint`]) and in home-page order, with
/// the files read (for `rerun-if-changed`).
///
/// # Errors
/// `path:line: what is wrong` for the first malformed deck; every lint finding of every deck,
/// one `path:line: lint: rule: what` a line; or why the folder can't be read.
pub fn load_dir(
    dir: &std::path::Path,
) -> std::result::Result<(Vec<Deck>, Vec<std::path::PathBuf>), String> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: cannot read the deck folder: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    let mut decks = Vec::new();
    let mut findings = Vec::new();
    for path in &files {
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let src = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        let deck = parse_deck(&src, stem)
            .map_err(|e| format!("{}:{}: {}", path.display(), e.line, e.message))?;
        for f in crate::lint::lint(&src, &deck) {
            findings.push(format!(
                "{}:{}: lint: {}: {}",
                path.display(),
                f.line,
                f.rule.name(),
                f.message
            ));
        }
        decks.push(deck);
    }
    if !findings.is_empty() {
        return Err(format!(
            "{} lint finding(s) (docs/deck-format.md, \"Lint\"):\n{}",
            findings.len(),
            findings.join("\n")
        ));
    }
    if decks.is_empty() {
        return Err(format!("{}: no decks (*.md) found", dir.display()));
    }
    decks.sort_by(|a, b| a.order.cmp(&b.order).then_with(|| a.id.cmp(&b.id)));
    Ok((decks, files))
}
