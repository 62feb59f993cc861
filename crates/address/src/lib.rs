//! The app's addresses, written and read in one place. Everything lives in the URL fragment,
//! so a static server can host the app:
//!
//! | address | what |
//! | --- | --- |
//! | `#/` | home: the decks, the labs |
//! | `#/<deck>/<n>`, `#/<deck>/<n>.<k>` | slide n (from 1) of a deck, with its first k fragments revealed |
//! | `#/<deck>/<n>.<k>/speaker` | the speaker window at that slide and step |
//! | `#/<deck>/print`, `…/print?script` | every slide for printing, with the narration |
//! | `#/lab/<id>?<parameters>` | a lab's page (`at=<n>` or `at=end`: where its timeline opens) |
//! | `#/console` | the Redis console of server mode |
//! | `#/practice`, `#/practice?labs=…&seed=…&n=…`, `#/practice/<topic>/<kind>?seed=N` | practice: the list, a set, one question |
//!
//! Each address has one builder here ([`step_hash`], [`lab_hash`], [`question_hash`] …), and
//! a query one syntax ([`pairs`], [`value`], [`encode`], [`decode`]): the deck format's router
//! (`redislab_deck::route`, which checks an address against the decks and the labs), the
//! simulator (a lab's parameters, practice's addresses, `labsim`) and the app all use them.
//! A crate of its own because the deck format depends on the simulator and both need it.

/// The home page.
pub const HOME: &str = "#/";

/// The console of server mode.
pub const CONSOLE: &str = "#/console";

/// The query key of a lab's address that says where its timeline opens (`#/lab/lru?at=3`,
/// `at=end`): not a parameter of the lab.
pub const OPEN_KEY: &str = "at";

/// `n` or `n.k`: the slide-and-step part of a deck's address, slide `index` (from 0) with
/// `step` fragments revealed (also what the speaker window and the audience send each other).
pub fn position_text(index: usize, step: usize) -> String {
    if step == 0 {
        format!("{}", index + 1)
    } else {
        format!("{}.{step}", index + 1)
    }
}

/// Slide `index` (from 0) of a deck: `#/production/3`.
pub fn slide_hash(deck_id: &str, index: usize) -> String {
    step_hash(deck_id, index, 0)
}

/// Slide `index` with `step` fragments revealed: `#/production/3.2` (`#/production/3` when
/// none are).
pub fn step_hash(deck_id: &str, index: usize, step: usize) -> String {
    format!("#/{deck_id}/{}", position_text(index, step))
}

/// The speaker window at a slide and step: `#/production/3.2/speaker`.
pub fn speaker_hash(deck_id: &str, index: usize, step: usize) -> String {
    format!("#/{deck_id}/{}/speaker", position_text(index, step))
}

/// A deck's handout: `#/production/print`, with the narration `#/production/print?script`.
pub fn print_hash(deck_id: &str, script: bool) -> String {
    format!("#/{deck_id}/print{}", if script { "?script" } else { "" })
}

/// A lab's page with this query: `#/lab/eviction?alpha=0.9` (`#/lab/eviction` for none).
pub fn lab_hash(id: &str, query: &str) -> String {
    with_query(format!("#/lab/{id}"), query)
}

/// The practice page: `#/practice`, `#/practice?<query>`, `#/practice/<path>?<query>`.
pub fn practice_hash(path: &str, query: &str) -> String {
    let page = if path.is_empty() {
        "#/practice".to_string()
    } else {
        format!("#/practice/{path}")
    };
    with_query(page, query)
}

/// One practice question: `#/practice/lru/hits?seed=42`.
pub fn question_hash(topic: &str, kind: &str, seed: u32) -> String {
    practice_hash(&format!("{topic}/{kind}"), &format!("seed={seed}"))
}

fn with_query(page: String, query: &str) -> String {
    if query.is_empty() {
        page
    } else {
        format!("{page}?{query}")
    }
}

/// A hash's path and query: `#/lab/lru?capacity=2` → (`/lab/lru`, `capacity=2`). The `#` is
/// optional; no `?` is an empty query.
pub fn split_hash(hash: &str) -> (&str, &str) {
    let h = hash.strip_prefix('#').unwrap_or(hash);
    h.split_once('?').unwrap_or((h, ""))
}

/// The pairs of a query as written (`a=1`, `flag`), in order: separated by `&` or a space,
/// empty ones skipped. [`pairs`] splits each at its `=`.
pub fn pieces(query: &str) -> impl Iterator<Item = &str> {
    query.split(['&', ' ']).filter(|p| !p.is_empty())
}

/// The `key=value` pairs of a query, in order, as written (values not decoded: [`decode`]
/// does that where a value is free text). Pairs are separated by `&` or a space (a deck's
/// `:::lab lru capacity=2 trace=…` writes them with spaces); a pair without `=` has an empty
/// value; empty pairs are skipped.
pub fn pairs(query: &str) -> impl Iterator<Item = (&str, &str)> {
    pieces(query).map(|p| p.split_once('=').unwrap_or((p, "")))
}

/// The value of the first pair with this key, as written.
pub fn value<'a>(query: &'a str, key: &str) -> Option<&'a str> {
    pairs(query).find(|(k, _)| *k == key).map(|(_, v)| v)
}

/// Pairs joined into a query with `&` (values as given: [`encode`] a free-text one first).
pub fn join<K: AsRef<str>, V: AsRef<str>>(pairs: impl IntoIterator<Item = (K, V)>) -> String {
    pairs
        .into_iter()
        .map(|(k, v)| format!("{}={}", k.as_ref(), v.as_ref()))
        .collect::<Vec<_>>()
        .join("&")
}

/// Queries joined with `&`, the empty ones left out (`capacity=2` and `at=3` →
/// `capacity=2&at=3`).
pub fn and(queries: &[&str]) -> String {
    queries
        .iter()
        .filter(|q| !q.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join("&")
}

/// A free-text value for a query: letters, digits and `. - _ ,` as they are, a space as `+`,
/// anything else as `%HH` of its UTF-8 bytes.
pub fn encode(v: &str) -> String {
    v.chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '.' | '-' | '_' | ',' => c.to_string(),
            ' ' => "+".into(),
            c => {
                let mut b = [0; 4];
                c.encode_utf8(&mut b)
                    .bytes()
                    .map(|x| format!("%{x:02X}"))
                    .collect()
            }
        })
        .collect()
}

/// A value as written back to text: `+` is a space, `%HH` a byte (a `%` not followed by two
/// hex digits stays); bytes that are not UTF-8 become U+FFFD.
pub fn decode(v: &str) -> String {
    let bytes = v.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_address_as_today() {
        assert_eq!(slide_hash("production", 0), "#/production/1");
        assert_eq!(step_hash("production", 2, 0), "#/production/3");
        assert_eq!(step_hash("production", 2, 2), "#/production/3.2");
        assert_eq!(speaker_hash("production", 2, 1), "#/production/3.1/speaker");
        assert_eq!(speaker_hash("production", 0, 0), "#/production/1/speaker");
        assert_eq!(print_hash("production", false), "#/production/print");
        assert_eq!(print_hash("production", true), "#/production/print?script");
        assert_eq!(lab_hash("eviction", ""), "#/lab/eviction");
        assert_eq!(
            lab_hash("eviction", "alpha=0.9"),
            "#/lab/eviction?alpha=0.9"
        );
        assert_eq!(practice_hash("", ""), "#/practice");
        assert_eq!(practice_hash("", "labs=lru&n=8"), "#/practice?labs=lru&n=8");
        assert_eq!(practice_hash("lru/hits", ""), "#/practice/lru/hits");
        assert_eq!(
            question_hash("lru", "hits", 42),
            "#/practice/lru/hits?seed=42"
        );
        assert_eq!((HOME, CONSOLE), ("#/", "#/console"));
    }

    #[test]
    fn a_hash_splits_into_path_and_query() {
        assert_eq!(
            split_hash("#/lab/lru?capacity=2"),
            ("/lab/lru", "capacity=2")
        );
        assert_eq!(split_hash("/practice"), ("/practice", ""));
        assert_eq!(split_hash("#/x?a=1?b"), ("/x", "a=1?b"));
        assert_eq!(split_hash(""), ("", ""));
    }

    #[test]
    fn queries() {
        let q = "a=1&b=&c&&d=x=y e=2";
        let got: Vec<_> = pairs(q).collect();
        assert_eq!(
            got,
            [("a", "1"), ("b", ""), ("c", ""), ("d", "x=y"), ("e", "2")]
        );
        assert_eq!(pairs("").count(), 0);
        assert_eq!(
            pieces(q).collect::<Vec<_>>(),
            ["a=1", "b=", "c", "d=x=y", "e=2"]
        );
        assert_eq!(value(q, "d"), Some("x=y"));
        assert_eq!(value(q, "c"), Some(""));
        assert_eq!(value(q, "z"), None);
        assert_eq!(value("seed=1&seed=2", "seed"), Some("1"));
        assert_eq!(join([("a", "1"), ("b", "two")]), "a=1&b=two");
        assert_eq!(join(Vec::<(&str, &str)>::new()), "");
        assert_eq!(and(&["", "a=1", "", "at=end"]), "a=1&at=end");
    }

    #[test]
    fn free_text_values() {
        for v in ["", "GET A", "a+b%c", "কী ১", "x,y.z-_"] {
            assert_eq!(decode(&encode(v)), v, "{v}");
        }
        assert_eq!(encode("GET A"), "GET+A");
        assert_eq!(encode("a+b"), "a%2Bb");
        assert_eq!(decode("100%"), "100%");
        assert_eq!(decode("%zz%4"), "%zz%4");
        assert_eq!(decode("%E0%A6%95"), "ক");
        assert_eq!(decode("%FF"), "\u{FFFD}");
    }
}
