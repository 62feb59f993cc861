//! The app's addresses. Everything lives in the URL fragment so a static server can host the app:
//! `#/` is home, `#/<deck>/<n>` is slide n (1-based) of a deck. Anything else is "not found",
//! with a reason a person can read.

use crate::model::Deck;

/// Where the address points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// The home page: the list of decks.
    Home,
    /// Slide `index` (0-based) of deck `deck` (an index into the deck list).
    Slide {
        /// Index of the deck in the deck list.
        deck: usize,
        /// 0-based slide index.
        index: usize,
    },
    /// A lab page: `#/lab/<id>?<parameters>`.
    Lab {
        /// The lab's id (one of [`crate::parse::LABS`]).
        id: &'static str,
        /// The query after `?`, as typed (the lab checks each value).
        query: String,
    },
    /// Nothing lives here; the reason says why, in Bengali.
    NotFound(String),
}

/// Parses a location hash (with or without the leading `#`) against the decks that exist.
pub fn parse(hash: &str, decks: &[Deck]) -> Route {
    let h = hash.strip_prefix('#').unwrap_or(hash);
    let (h, query) = h.split_once('?').unwrap_or((h, ""));
    if h.is_empty() || h == "/" {
        return Route::Home;
    }
    let Some(path) = h.strip_prefix('/') else {
        return Route::NotFound(format!("ঠিকানাটা চেনা গেল না: `{}`", shorten(hash)));
    };
    let parts: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    if parts[0] == "lab" {
        return match parts.as_slice() {
            [_, id] => match crate::parse::LABS.iter().find(|l| *l == id) {
                Some(id) => Route::Lab {
                    id,
                    query: query.to_string(),
                },
                None => Route::NotFound(format!("`{}` নামে কোনো ল্যাব নেই", shorten(id))),
            },
            _ => Route::NotFound(format!("ঠিকানাটা চেনা গেল না: `{}`", shorten(hash))),
        };
    }
    let Some(deck) = decks.iter().position(|d| d.id == parts[0]) else {
        return Route::NotFound(format!("`{}` নামে কোনো ডেক নেই", shorten(parts[0])));
    };
    let len = decks[deck].slides.len();
    match parts.as_slice() {
        [_] => Route::Slide { deck, index: 0 },
        [_, n] => match n.parse::<usize>() {
            Ok(n) if (1..=len).contains(&n) => Route::Slide { deck, index: n - 1 },
            Ok(n) => Route::NotFound(format!(
                "এই ডেকে স্লাইড {} নেই — আছে ১ থেকে {} পর্যন্ত",
                crate::bn::digits(n.min(999_999), 1),
                crate::bn::digits(len, 1)
            )),
            Err(_) => Route::NotFound(format!("`{}` কোনো স্লাইড নম্বর নয়", shorten(n))),
        },
        _ => Route::NotFound(format!("ঠিকানাটা চেনা গেল না: `{}`", shorten(hash))),
    }
}

/// The address of slide `index` (0-based) of a deck: `#/production/3`.
pub fn slide_hash(deck_id: &str, index: usize) -> String {
    format!("#/{deck_id}/{}", index + 1)
}

/// The address of a lab with these parameters: `#/lab/eviction?alpha=0.9`.
pub fn lab_hash(id: &str, query: &str) -> String {
    if query.is_empty() {
        format!("#/lab/{id}")
    } else {
        format!("#/lab/{id}?{query}")
    }
}

/// Keeps an echoed user string short and free of control characters.
fn shorten(s: &str) -> String {
    let clean: String = s.chars().filter(|c| !c.is_control()).take(60).collect();
    if s.chars().count() > 60 {
        format!("{clean}…")
    } else {
        clean
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::*;
    use std::borrow::Cow;

    fn decks() -> Vec<Deck> {
        let slide = Slide {
            kicker: Cow::Borrowed("k"),
            title: Cow::Borrowed(&[]),
            layout: Layout::Default,
            body: Cow::Borrowed(&[]),
            script: Cow::Borrowed("s"),
            line: 1,
        };
        vec![Deck {
            id: Cow::Borrowed("production"),
            title: Cow::Borrowed("t"),
            subtitle: Cow::Borrowed(""),
            order: 1,
            slides: Cow::Owned(vec![slide; 22]),
        }]
    }

    #[test]
    fn home_and_slides() {
        let d = decks();
        assert_eq!(parse("", &d), Route::Home);
        assert_eq!(parse("#", &d), Route::Home);
        assert_eq!(parse("#/", &d), Route::Home);
        assert_eq!(
            parse("#/production/1", &d),
            Route::Slide { deck: 0, index: 0 }
        );
        assert_eq!(
            parse("#/production/22", &d),
            Route::Slide { deck: 0, index: 21 }
        );
        assert_eq!(
            parse("#/production/22/", &d),
            Route::Slide { deck: 0, index: 21 }
        );
        assert_eq!(
            parse("#/production", &d),
            Route::Slide { deck: 0, index: 0 }
        );
        assert_eq!(
            parse("#/production/5?x=1", &d),
            Route::Slide { deck: 0, index: 4 }
        );
    }

    #[test]
    fn every_kind_of_bad_address_is_not_found() {
        let d = decks();
        for bad in [
            "#/production/99",
            "#/production/0",
            "#/production/-1",
            "#/production/abc",
            "#/production/1.5",
            "#/production/99999999999999999999999",
            "#/nope/1",
            "#/nope",
            "#garbage",
            "#//",
            "#/production/1/2",
            "#/%E0%A6%95/1",
            "#/\u{0}\u{7}/1",
        ] {
            match parse(bad, &d) {
                Route::NotFound(why) => {
                    assert!(!why.is_empty(), "{bad}");
                    assert!(!why.chars().any(char::is_control), "{bad}: {why:?}");
                }
                other => panic!("{bad} parsed as {other:?}"),
            }
        }
        let Route::NotFound(why) = parse("#/production/99", &d) else {
            unreachable!()
        };
        assert!(why.contains("৯৯") && why.contains("২২"), "{why}");
    }

    #[test]
    fn long_garbage_is_shortened() {
        let long = format!("#/{}", "x".repeat(5000));
        let Route::NotFound(why) = parse(&long, &decks()) else {
            panic!()
        };
        assert!(why.chars().count() < 120, "{why}");
    }

    #[test]
    fn labs() {
        let d = decks();
        assert_eq!(
            parse("#/lab/eviction", &d),
            Route::Lab {
                id: "eviction",
                query: String::new()
            }
        );
        assert_eq!(
            parse("#/lab/jitter?jitter=0.2&round=2", &d),
            Route::Lab {
                id: "jitter",
                query: "jitter=0.2&round=2".into()
            }
        );
        assert_eq!(
            parse(&lab_hash("lru", "capacity=2"), &d),
            Route::Lab {
                id: "lru",
                query: "capacity=2".into()
            }
        );
        for bad in ["#/lab/nope", "#/lab", "#/lab/lru/2"] {
            assert!(matches!(parse(bad, &d), Route::NotFound(_)), "{bad}");
        }
    }

    #[test]
    fn hash_round_trip() {
        let d = decks();
        for i in 0..22 {
            assert_eq!(
                parse(&slide_hash("production", i), &d),
                Route::Slide { deck: 0, index: i }
            );
        }
    }
}
