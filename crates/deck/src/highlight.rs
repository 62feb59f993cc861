//! Light syntax colouring for the code samples in decks: comments, strings, numbers, keywords
//! (for `redis`, the command names). It runs at build time; the app only paints tokens.

use crate::model::{Str, Tok};
use std::borrow::Cow;

const JS: &[&str] = &[
    "const",
    "let",
    "var",
    "function",
    "return",
    "if",
    "else",
    "for",
    "while",
    "await",
    "async",
    "new",
    "export",
    "import",
    "from",
    "class",
    "this",
    "of",
    "in",
    "null",
    "undefined",
    "true",
    "false",
    "throw",
    "try",
    "catch",
];
const LUA: &[&str] = &[
    "local", "if", "then", "else", "elseif", "end", "return", "function", "for", "do", "while",
    "and", "or", "not", "nil", "true", "false", "in",
];

fn keywords(lang: &str) -> &'static [&'static str] {
    match lang {
        "js" => JS,
        "lua" => LUA,
        _ => &[],
    }
}

fn line_comment(lang: &str) -> &'static [&'static str] {
    match lang {
        "js" => &["//"],
        "lua" => &["--"],
        "redis" | "sh" => &["#"],
        _ => &[],
    }
}

/// Splits `src` into coloured tokens. Concatenating the token texts gives `src` back.
pub fn tokens(lang: &str, src: &str) -> Vec<(Tok, Str)> {
    let mut out: Vec<(Tok, String)> = Vec::new();
    let push = |out: &mut Vec<(Tok, String)>, tok: Tok, s: &str| match out.last_mut() {
        Some((t, text)) if *t == tok => text.push_str(s),
        _ => out.push((tok, s.to_string())),
    };
    let comments = line_comment(lang);
    let kws = keywords(lang);
    let mut at_line_start = true;
    let mut rest = src;
    while let Some(c) = rest.chars().next() {
        if lang == "text" {
            push(&mut out, Tok::Plain, rest);
            break;
        }
        if comments.iter().any(|m| rest.starts_with(m)) {
            let end = rest.find('\n').unwrap_or(rest.len());
            push(&mut out, Tok::Comment, &rest[..end]);
            rest = &rest[end..];
            continue;
        }
        if c == '"' || c == '\'' || (c == '`' && lang == "js") {
            let mut end = c.len_utf8();
            let mut escaped = false;
            for ch in rest[end..].chars() {
                end += ch.len_utf8();
                if escaped {
                    escaped = false;
                } else if ch == '\\' {
                    escaped = true;
                } else if ch == c || ch == '\n' {
                    break;
                }
            }
            let s = &rest[..end];
            // In JSON a string followed by `:` is a key.
            let tok = if lang == "json" && rest[end..].trim_start().starts_with(':') {
                Tok::Prop
            } else {
                Tok::Str
            };
            push(&mut out, tok, s);
            rest = &rest[end..];
            at_line_start = false;
            continue;
        }
        if c.is_ascii_digit() {
            let end = rest
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '.' || ch == '_'))
                .unwrap_or(rest.len());
            push(&mut out, Tok::Num, &rest[..end]);
            rest = &rest[end..];
            at_line_start = false;
            continue;
        }
        if c.is_alphabetic() || c == '_' || c == '$' {
            let end = rest
                .find(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == '$' || ch == '-'))
                .unwrap_or(rest.len());
            let mut word = &rest[..end];
            // `-` belongs to words only in redis/sh (`maxmemory-policy`); elsewhere it is an operator.
            if lang != "redis" && lang != "sh" {
                word = word.split('-').next().unwrap_or(word);
            }
            let tok = if kws.contains(&word)
                || (lang == "redis"
                    && at_line_start
                    && word.chars().any(|c| c.is_ascii_alphabetic()))
            {
                Tok::Keyword
            } else {
                Tok::Plain
            };
            push(&mut out, tok, word);
            rest = &rest[word.len()..];
            at_line_start = false;
            continue;
        }
        if c == '\n' {
            at_line_start = true;
        } else if !c.is_whitespace() {
            at_line_start = false;
        }
        push(&mut out, Tok::Plain, &rest[..c.len_utf8()]);
        rest = &rest[c.len_utf8()..];
    }
    out.into_iter().map(|(t, s)| (t, Cow::Owned(s))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(lang: &str, src: &str) -> Vec<(Tok, String)> {
        tokens(lang, src)
            .into_iter()
            .map(|(t, s)| (t, s.into_owned()))
            .collect()
    }

    #[test]
    fn round_trips_every_language() {
        let src = "const x = \"a\\\"b\"; // note\nif (x) return 42;";
        for lang in ["js", "lua", "json", "redis", "sh", "text"] {
            let joined: String = tokens(lang, src).iter().map(|(_, s)| s.as_ref()).collect();
            assert_eq!(joined, src, "{lang}");
        }
    }

    #[test]
    fn js_keywords_strings_comments_numbers() {
        let t = kinds("js", "const n = 5; // five");
        assert_eq!(t[0], (Tok::Keyword, "const".into()));
        assert!(t.contains(&(Tok::Num, "5".into())));
        assert_eq!(t.last().unwrap(), &(Tok::Comment, "// five".into()));
    }

    #[test]
    fn lua_comment_and_keywords() {
        let t = kinds(
            "lua",
            "-- own lock only\nif redis.call(\"GET\", KEYS[1]) == ARGV[1] then",
        );
        assert_eq!(t[0], (Tok::Comment, "-- own lock only".into()));
        assert!(t.contains(&(Tok::Keyword, "if".into())));
        assert!(t.contains(&(Tok::Str, "\"GET\"".into())));
        assert!(t.contains(&(Tok::Keyword, "then".into())));
    }

    #[test]
    fn redis_command_at_line_start_is_a_keyword() {
        let t = kinds(
            "redis",
            "SET lock:product:42 9f3c1a NX PX 2000\nmaxmemory-policy allkeys-lfu",
        );
        assert_eq!(t[0], (Tok::Keyword, "SET".into()));
        assert!(t.contains(&(Tok::Keyword, "maxmemory-policy".into())));
        assert!(!t.contains(&(Tok::Keyword, "NX".into())));
    }

    #[test]
    fn json_keys_are_props() {
        let t = kinds("json", "{ \"version\": 1 }");
        assert!(t.contains(&(Tok::Prop, "\"version\"".into())));
        assert!(t.contains(&(Tok::Num, "1".into())));
    }
}
