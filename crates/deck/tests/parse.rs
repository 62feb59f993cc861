//! The deck parser on good decks and on every kind of malformed one. Each malformed deck must
//! fail naming the line a person would fix.

use redislab_deck::parse::parse_deck;
use redislab_deck::*;

const GOOD: &str = r#"id: demo
title: ডেমো ডেক
subtitle: একটা ছোট ডেক
order: 2
---
kicker: Redis in Production
title: প্রথম লাইন // দ্বিতীয় লাইন
layout: cover

> বড় বাক্য, **জোর** দিয়ে।

:::stats
- ৮ | ভূমিকা
- ২০ | ক্যাশড কোয়েরি
:::

???
এটা স্ক্রিপ্ট। দুই লাইনে
লেখা।
---
%% a comment line is ignored
kicker: ক্যাশ ইঞ্জিন ১/৩
title: খাম

```json
{ "version": 1 }
```

- **version** — ফরম্যাট বদলালে `DEL` লাগে না
  চলতি লাইন
- দ্বিতীয় ==Redis== *জোর*

1. এক
2. দুই

| data | TTL |
|---|---|
| auth | ৬০s |

:::diagram roles
- Worker A | token = a1b2
- Redis | lock = a1b2
:::

:::lab eviction trace=scan seed=7
:::

! একটা নোট \*তারকা\*

! সংশোধন: ছোট এক লাইন, `code` সহ

???
স্ক্রিপ্ট।
"#;

#[test]
fn parses_a_good_deck() {
    let d = parse_deck(GOOD, "demo").expect("good deck parses");
    assert_eq!(d.id, "demo");
    assert_eq!(d.title, "ডেমো ডেক");
    assert_eq!(d.order, 2);
    assert_eq!(d.slides.len(), 2);
    let s0 = &d.slides[0];
    assert_eq!(s0.kicker, "Redis in Production");
    assert_eq!(s0.title.as_ref(), ["প্রথম লাইন", "দ্বিতীয় লাইন"]);
    assert_eq!(s0.layout, Layout::Cover);
    assert_eq!(s0.script, "এটা স্ক্রিপ্ট। দুই লাইনে লেখা।");
    assert_eq!(s0.line, 6);
    match &s0.body[0] {
        Block::Lead(t) => assert_eq!(t[1], Inline::Bold("জোর".into())),
        other => panic!("{other:?}"),
    }
    match &s0.body[1] {
        Block::Container { kind, items, .. } => {
            assert_eq!(kind, "stats");
            assert_eq!(items.len(), 2);
            assert_eq!(plain(&items[1][0]), "২০");
        }
        other => panic!("{other:?}"),
    }
    let s1 = &d.slides[1];
    assert_eq!(s1.layout, Layout::Default);
    let kinds: Vec<&str> = s1
        .body
        .iter()
        .map(|b| match b {
            Block::Code { .. } => "code",
            Block::Bullets(_) => "bullets",
            Block::Numbered(_) => "numbered",
            Block::Table { .. } => "table",
            Block::Container { .. } => "container",
            Block::Note(_) => "note",
            Block::Fix(_) => "fix",
            Block::Para(_) => "para",
            Block::Lead(_) => "lead",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "code",
            "bullets",
            "numbered",
            "table",
            "container",
            "container",
            "note",
            "fix"
        ]
    );
    let Block::Bullets(items) = &s1.body[1] else {
        unreachable!()
    };
    assert_eq!(plain(&items[0]), "version — ফরম্যাট বদলালে DEL লাগে না চলতি লাইন");
    assert_eq!(items[1][1], Inline::Mark("Redis".into()));
    let Block::Note(t) = &s1.body[6] else {
        unreachable!()
    };
    assert_eq!(plain(t), "একটা নোট *তারকা*");
    // `! সংশোধন: …` is a correction marker, its text without the word.
    let Block::Fix(t) = &s1.body[7] else {
        unreachable!()
    };
    assert_eq!(plain(t), "ছোট এক লাইন, code সহ");
    let Block::Code { tokens, .. } = &s1.body[0] else {
        unreachable!()
    };
    let text: String = tokens.iter().map(|(_, s)| s.as_ref()).collect();
    assert_eq!(text, "{ \"version\": 1 }");
}

#[test]
fn generated_code_keeps_everything() {
    let d = parse_deck(GOOD, "demo").unwrap();
    let src = codegen::decks_source(&[d]);
    assert!(src.contains("pub static DECKS"));
    assert!(src.contains("\"ডেমো ডেক\""));
    assert!(src.contains("Layout::Cover"));
    assert!(src.contains("Tok::Num"));
}

/// A deck survives its trip through JSON whole, and the index names the file by its content.
#[test]
fn json_round_trip_and_index() {
    let d = parse_deck(GOOD, "demo").unwrap();
    let json = d.to_json();
    assert_eq!(Deck::from_json(&json).unwrap(), d);
    assert!(Deck::from_json("{\"id\": 1}").is_err());
    let info = d.info(&json);
    assert_eq!(info.steps.len(), d.slides.len());
    assert_eq!(info.cover, d.slides[0]);
    assert!(
        info.file.starts_with("demo-") && info.file.ends_with(".json"),
        "{}",
        info.file
    );
    // Another content, another file name; the same content, the same name.
    let mut other = d.clone();
    other.title = "অন্য".into();
    assert_ne!(other.info(&other.to_json()).file, info.file);
    assert_eq!(d.info(&d.to_json()).file, info.file);
    let src = codegen::index_source(&[info]);
    assert!(src.contains("pub static DECK_INDEX") && src.contains("\"ডেমো ডেক\""));
}

/// (what is wrong, the deck source, the line the error must name, a word the message must hold)
fn malformed() -> Vec<(&'static str, String, usize, &'static str)> {
    let slide = "kicker: k\ntitle: t\n\nbody\n\n???\nscript.\n";
    let deck = |body: &str| format!("id: demo\ntitle: T\n---\n{body}");
    vec![
        ("no separator", "id: demo\ntitle: T\n".into(), 2, "---"),
        ("missing id", format!("title: T\n---\n{slide}"), 1, "id"),
        (
            "wrong id",
            format!("id: other\ntitle: T\n---\n{slide}"),
            1,
            "file name",
        ),
        (
            "bad id chars",
            format!("id: De mo\ntitle: T\n---\n{slide}"),
            1,
            "lowercase",
        ),
        (
            "missing title",
            format!("id: demo\n---\n{slide}"),
            1,
            "title",
        ),
        (
            "unknown deck key",
            format!("id: demo\ntitle: T\ncolour: red\n---\n{slide}"),
            3,
            "colour",
        ),
        (
            "duplicate deck key",
            format!("id: demo\ntitle: T\ntitle: U\n---\n{slide}"),
            3,
            "twice",
        ),
        (
            "header not key: value",
            format!("id: demo\njust words\n---\n{slide}"),
            2,
            "key: value",
        ),
        (
            "empty slide",
            deck(&format!("{slide}---\n\n---\n{slide}")),
            11,
            "empty slide",
        ),
        ("no kicker", deck("title: t\n\nx\n\n???\ns.\n"), 4, "kicker"),
        ("no title", deck("kicker: k\n\nx\n\n???\ns.\n"), 4, "title"),
        (
            "unknown layout",
            deck("kicker: k\ntitle: t\nlayout: wide\n\nx\n???\ns.\n"),
            6,
            "layout",
        ),
        (
            "unknown slide key",
            deck("kicker: k\ntitle: t\ncolor: red\n\n???\ns.\n"),
            6,
            "color",
        ),
        (
            "no script",
            deck("kicker: k\ntitle: t\n\nbody only\n"),
            4,
            "script",
        ),
        (
            "empty script",
            deck("kicker: k\ntitle: t\n\nx\n\n???\n\n"),
            9,
            "empty",
        ),
        (
            "two scripts",
            deck("kicker: k\ntitle: t\n\n???\na.\n???\nb.\n"),
            9,
            "second",
        ),
        (
            "unclosed code",
            deck("kicker: k\ntitle: t\n\n```js\nlet a;\n\n???\ns.\n"),
            7,
            "closed",
        ),
        (
            "unknown language",
            deck("kicker: k\ntitle: t\n\n```cobol\nx\n```\n???\ns.\n"),
            7,
            "cobol",
        ),
        (
            "unclosed container",
            deck("kicker: k\ntitle: t\n\n:::cards\n- a | b\n\n???\ns.\n"),
            7,
            "not closed",
        ),
        (
            "unknown container",
            deck("kicker: k\ntitle: t\n\n:::boxes\n- a\n:::\n???\ns.\n"),
            7,
            "boxes",
        ),
        (
            "unknown diagram",
            deck("kicker: k\ntitle: t\n\n:::diagram moon\n- a\n:::\n???\ns.\n"),
            7,
            "moon",
        ),
        (
            "unknown flow node kind",
            deck("kicker: k\ntitle: t\n\n:::diagram flow app cloud\n- a\n- b\n:::\n???\ns.\n"),
            7,
            "cloud",
        ),
        (
            "unknown load row class",
            deck("kicker: k\ntitle: t\n\n:::diagram load ugly\n- a | 1 2\n:::\n???\ns.\n"),
            7,
            "ugly",
        ),
        (
            "unknown lab",
            deck("kicker: k\ntitle: t\n\n:::lab moon\n:::\n???\ns.\n"),
            7,
            "unknown lab",
        ),
        (
            "lab value out of range",
            deck("kicker: k\ntitle: t\n\n:::lab cache requests=0\n:::\n???\ns.\n"),
            7,
            "requests",
        ),
        (
            "unknown lab key",
            deck("kicker: k\ntitle: t\n\n:::lab lock colour=red\n:::\n???\ns.\n"),
            7,
            "colour",
        ),
        (
            "unknown lab preset",
            deck("kicker: k\ntitle: t\n\n:::lab lock preset=nope\n:::\n???\ns.\n"),
            7,
            "nope",
        ),
        (
            "quiz without a kind",
            deck("kicker: k\ntitle: t\n\n:::quiz lru\n:::\n???\ns.\n"),
            7,
            "needs a lab and a kind",
        ),
        (
            "quiz of a lab without questions",
            deck("kicker: k\ntitle: t\n\n:::quiz moon evicted\n:::\n???\ns.\n"),
            7,
            "moon",
        ),
        (
            "quiz of an unknown kind",
            deck("kicker: k\ntitle: t\n\n:::quiz lru nope\n:::\n???\ns.\n"),
            7,
            "evicted",
        ),
        (
            "quiz with a bad seed",
            deck("kicker: k\ntitle: t\n\n:::quiz lru evicted seed=-1\n:::\n???\ns.\n"),
            7,
            "seed=N",
        ),
        (
            "quiz with items",
            deck("kicker: k\ntitle: t\n\n:::quiz lru evicted\n- a\n:::\n???\ns.\n"),
            7,
            "no items",
        ),
        (
            "diagram without name",
            deck("kicker: k\ntitle: t\n\n:::diagram\n- a\n:::\n???\ns.\n"),
            7,
            "name",
        ),
        (
            "container non-item",
            deck("kicker: k\ntitle: t\n\n:::cards\nprose\n:::\n???\ns.\n"),
            8,
            "list item",
        ),
        (
            "empty container",
            deck("kicker: k\ntitle: t\n\n:::cards\n:::\n???\ns.\n"),
            7,
            "no items",
        ),
        (
            "stray closer",
            deck("kicker: k\ntitle: t\n\n:::\n\n???\ns.\n"),
            7,
            "closes nothing",
        ),
        (
            "ragged table",
            deck("kicker: k\ntitle: t\n\n| a | b |\n|---|---|\n| 1 |\n\n???\ns.\n"),
            9,
            "cells",
        ),
        (
            "table no separator",
            deck("kicker: k\ntitle: t\n\n| a | b |\n| 1 | 2 |\n\n???\ns.\n"),
            8,
            "separator",
        ),
        (
            "table no rows",
            deck("kicker: k\ntitle: t\n\n| a | b |\n|---|---|\n\n???\ns.\n"),
            8,
            "row",
        ),
        (
            "unclosed bold",
            deck("kicker: k\ntitle: t\n\nsome **bold\n\n???\ns.\n"),
            7,
            "**",
        ),
        (
            "unclosed code span",
            deck("kicker: k\ntitle: t\n\n- item `x\n\n???\ns.\n"),
            7,
            "`",
        ),
        (
            "unclosed mark in card",
            deck("kicker: k\ntitle: t\n\n:::cards\n- a | ==b\n:::\n???\ns.\n"),
            8,
            "==",
        ),
        (
            "bad list line",
            deck("kicker: k\ntitle: t\n\n- item\nnot an item\n\n???\ns.\n"),
            8,
            "list item",
        ),
        (
            "glued block",
            deck("kicker: k\ntitle: t\n\ntext\n```js\nx\n```\n\n???\ns.\n"),
            8,
            "blank line",
        ),
    ]
}

#[test]
fn every_malformed_deck_fails_at_its_line() {
    for (what, src, line, word) in malformed() {
        match parse_deck(&src, "demo") {
            Ok(_) => panic!("{what}: parsed, but should fail"),
            Err(e) => {
                assert_eq!(e.line, line, "{what}: wrong line in `{e}`\n{src}");
                assert!(
                    e.message.contains(word),
                    "{what}: `{e}` does not mention `{word}`"
                );
            }
        }
    }
}

#[test]
fn the_shipped_decks_parse() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../src/decks");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            let stem = path.file_stem().unwrap().to_str().unwrap();
            let src = std::fs::read_to_string(&path).unwrap();
            let deck = parse_deck(&src, stem).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            // Every presenter script is 2 to 5 sentences of narration.
            for s in deck.slides.iter() {
                let sentences = s
                    .script
                    .split(['।', '?', '!'])
                    .filter(|x| !x.trim().is_empty())
                    .count();
                assert!(
                    (2..=5).contains(&sentences),
                    "{}:{}: the script has {sentences} sentences (2 to 5 wanted)",
                    path.display(),
                    s.line
                );
            }
            n += 1;
        }
    }
    assert!(n >= 1, "no decks in {}", dir.display());
}

/// Items written `+ ` are the slide's fragments, in reading order across blocks.
#[test]
fn fragments_are_items_marked_with_plus() {
    let src = r#"id: frag
title: ধাপে ধাপে
---
kicker: ক
title: খ

- সবসময়
+ প্রথম ধাপ
+ দ্বিতীয় ধাপ

:::steps
- ০১ | শুরু
+ ০২ | পরে
:::

:::diagram pipeline
+ সুস্থ | ক
- ধীর | খ
:::

???
স্ক্রিপ্ট।
"#;
    let deck = parse_deck(src, "frag").unwrap();
    let s = &deck.slides[0];
    assert_eq!(s.frags.as_ref(), &[(0, 1), (0, 2), (1, 1), (2, 0)]);
    assert_eq!(s.steps(), 4);
    // The list is still one list of three items, the markers gone.
    let Block::Bullets(items) = &s.body[0] else {
        panic!("{:?}", s.body[0])
    };
    assert_eq!(items.len(), 3);
    assert_eq!(plain(&items[1]), "প্রথম ধাপ");
    assert_eq!(s.reveal(0, 0, 0), Reveal::Always);
    assert_eq!(s.reveal(0, 1, 0), Reveal::Hidden);
    assert_eq!(s.reveal(0, 1, 1), Reveal::Shown);
    assert_eq!(s.reveal(2, 0, 3), Reveal::Hidden);
    assert_eq!(s.reveal(2, 0, 4), Reveal::Shown);
    assert_eq!(s.reveal(2, 1, 0), Reveal::Always);
    // A slide without markers has no steps.
    let plain_deck = parse_deck(GOOD, "demo").unwrap();
    assert!(plain_deck.slides.iter().all(|s| s.steps() == 0));
}

/// A question slide: two reveal steps (the answer, then the lab), and it counts as a lab.
#[test]
fn a_quiz_slide_reveals_its_answer_then_its_lab() {
    let src = "id: q\ntitle: t\n---\nkicker: k\ntitle: t\n\n- আগে\n\n:::quiz lru evicted seed=7\n:::\n\n???\nস্ক্রিপ্ট।\n";
    let deck = parse_deck(src, "q").unwrap();
    let s = &deck.slides[0];
    assert_eq!(s.steps(), 2);
    assert!(s.has_lab());
    assert_eq!(s.reveal(1, 0, 0), Reveal::Hidden);
    assert_eq!(s.reveal(1, 0, 1), Reveal::Shown);
    assert_eq!(s.reveal(1, 1, 1), Reveal::Hidden);
    assert_eq!(s.reveal(1, 1, 2), Reveal::Shown);
}

#[test]
fn a_stray_plus_line_in_a_container_names_its_line() {
    let src = "id: frag\ntitle: t\n---\nkicker: k\ntitle: t\n\n:::steps\n- ০১ | a\n+০২ | b\n:::\n\n???\nস্ক্রিপ্ট।\n";
    let e = parse_deck(src, "frag").unwrap_err();
    assert_eq!(e.line, 9, "{e}");
    assert!(e.message.contains("`+ `"), "{e}");
}

#[test]
fn code_inside_bold_is_refused_with_its_line() {
    use redislab_deck::parse::inline;
    let e = inline(7, "**`skip: 495000`** — ধীর").unwrap_err();
    assert_eq!(e.line, 7);
    assert!(e.message.contains("does not nest"), "{e}");
    assert!(inline(7, "`skip: 495000` **ধীর**").is_ok());
    assert!(inline(7, r"**a \` b**").is_ok());
}

/// A `\` escape works inside bold, emphasis and highlight too (production slide 4 once showed a
/// literal `\=`), and an escaped marker does not close the span; code stays verbatim.
#[test]
fn escapes_work_inside_markup() {
    use redislab_deck::parse::inline;
    let t = inline(1, r"**version মিসম্যাচ \= auto purge** · ==a \== b==").unwrap();
    assert_eq!(t[0], Inline::Bold("version মিসম্যাচ = auto purge".into()));
    assert_eq!(t[2], Inline::Mark("a == b".into()));
    let t = inline(1, r"*a \* b* `x \= y`").unwrap();
    assert_eq!(t[0], Inline::Em("a * b".into()));
    assert_eq!(t[2], Inline::Code(r"x \= y".into()));
}
