//! The app's addresses. Everything lives in the URL fragment so a static server can host the app:
//! `#/` is home, `#/<deck>/<n>` is slide n (1-based) of a deck and `#/<deck>/<n>.<k>` the same
//! slide with its first k fragments revealed; `…/speaker` after a slide is the speaker window;
//! `#/<deck>/print` lays every slide out for printing (`?script` adds the narration).
//! Anything else is "not found", with a reason a person can read.
//!
//! Every address is written by its builder in `redislab_address` (re-exported here) and its
//! query read with that crate's syntax: this module checks an address against the decks and
//! the labs.

use crate::model::Shape;
pub use redislab_address::{
    lab_hash, position_text, practice_hash, print_hash, question_hash, slide_hash, speaker_hash,
    step_hash,
};

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
        /// Fragments revealed (0 = none).
        step: usize,
    },
    /// The speaker window of a deck at a slide and step.
    Speaker {
        /// Index of the deck in the deck list.
        deck: usize,
        /// 0-based slide index.
        index: usize,
        /// Fragments revealed.
        step: usize,
    },
    /// Every slide of a deck, one per printed page.
    Print {
        /// Index of the deck in the deck list.
        deck: usize,
        /// Each slide's presenter script under it.
        script: bool,
    },
    /// A lab page: `#/lab/<id>?<parameters>`.
    Lab {
        /// The lab's id (one of [`crate::parse::LABS`]).
        id: &'static str,
        /// The query after `?`, as typed (the lab checks each value).
        query: String,
    },
    /// The redis-cli style console of server mode: `#/console`.
    Console,
    /// Practice: `#/practice` (the list), `#/practice/<topic>/<kind>?seed=N` (one question).
    /// The labs module checks the rest (`redislab_sim::practice::place`), so the first load
    /// carries no question code.
    Practice {
        /// What follows `#/practice/` (empty, or `<topic>/<kind>`).
        path: String,
        /// The query after `?`, as typed.
        query: String,
    },
    /// Class mode's student page: `#/join`, `#/join?code=482917` (the QR code's).
    Join {
        /// The query after `?`, as typed (the page reads its code).
        query: String,
    },
    /// Nothing lives here; the reason says why, in Bengali.
    NotFound(String),
}

/// Parses a location hash (with or without the leading `#`) against the decks that exist.
pub fn parse<D: Shape>(hash: &str, decks: &[D]) -> Route {
    let (h, query) = redislab_address::split_hash(hash);
    if h.is_empty() || h == "/" {
        return Route::Home;
    }
    let Some(path) = h.strip_prefix('/') else {
        return Route::NotFound(format!("ঠিকানাটা চেনা গেল না: `{}`", shorten(hash)));
    };
    let parts: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    if parts == ["console"] {
        return Route::Console;
    }
    if parts == ["join"] {
        return Route::Join {
            query: query.to_string(),
        };
    }
    if parts[0] == "practice" {
        return if parts.len() <= 3 {
            Route::Practice {
                path: parts[1..].join("/"),
                query: query.to_string(),
            }
        } else {
            Route::NotFound(format!("ঠিকানাটা চেনা গেল না: `{}`", shorten(hash)))
        };
    }
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
    let Some(deck) = decks.iter().position(|d| d.id() == parts[0]) else {
        return Route::NotFound(format!("`{}` নামে কোনো ডেক নেই", shorten(parts[0])));
    };
    let d = &decks[deck];
    let position = |n: &str| slide_position(n, d);
    match parts.as_slice() {
        [_] => Route::Slide {
            deck,
            index: 0,
            step: 0,
        },
        [_, "print"] => match query {
            "" => Route::Print {
                deck,
                script: false,
            },
            "script" | "script=1" => Route::Print { deck, script: true },
            other => Route::NotFound(format!(
                "প্রিন্টের ঠিকানায় `{}` চলে না — শুধু `?script`",
                shorten(other)
            )),
        },
        [_, n] => match position(n) {
            Ok((index, step)) => Route::Slide { deck, index, step },
            Err(why) => Route::NotFound(why),
        },
        [_, n, "speaker"] => match position(n) {
            Ok((index, step)) => Route::Speaker { deck, index, step },
            Err(why) => Route::NotFound(why),
        },
        _ => Route::NotFound(format!("ঠিকানাটা চেনা গেল না: `{}`", shorten(hash))),
    }
}

/// `n` or `n.k` of a deck's address: slide n (1-based), k fragments revealed.
///
/// # Errors
/// A Bengali sentence saying what is wrong with it.
pub fn slide_position<D: Shape + ?Sized>(text: &str, deck: &D) -> Result<(usize, usize), String> {
    let len = deck.slide_count();
    let (n, k) = match text.split_once('.') {
        Some((n, k)) => (n, Some(k)),
        None => (text, None),
    };
    let n = match n.parse::<usize>() {
        Ok(n) if (1..=len).contains(&n) => n,
        Ok(n) => {
            return Err(format!(
                "এই ডেকে স্লাইড {} নেই — আছে ১ থেকে {} পর্যন্ত",
                crate::bn::digits(n.min(999_999), 1),
                crate::bn::digits(len, 1)
            ))
        }
        Err(_) => return Err(format!("`{}` কোনো স্লাইড নম্বর নয়", shorten(text))),
    };
    let steps = deck.steps_of(n - 1);
    let step = match k.map(str::parse::<usize>) {
        None => 0,
        Some(Ok(k)) if k <= steps => k,
        Some(Ok(k)) => {
            return Err(format!(
                "স্লাইড {}-এ ধাপ {} নেই — আছে ০ থেকে {} পর্যন্ত",
                crate::bn::digits(n, 1),
                crate::bn::digits(k.min(999_999), 1),
                crate::bn::digits(steps, 1)
            ))
        }
        Some(Err(_)) => return Err(format!("`{}` কোনো ধাপের নম্বর নয়", shorten(text))),
    };
    Ok((n - 1, step))
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
            frags: Cow::Borrowed(&[]),
            line: 1,
        };
        let mut slides = vec![slide; 22];
        // Slide 3 reveals two items step by step.
        slides[2].frags = Cow::Borrowed(&[(0, 0), (0, 1)]);
        vec![Deck {
            id: Cow::Borrowed("production"),
            title: Cow::Borrowed("t"),
            subtitle: Cow::Borrowed(""),
            order: 1,
            slides: Cow::Owned(slides),
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
            Route::Slide {
                deck: 0,
                index: 0,
                step: 0
            }
        );
        assert_eq!(
            parse("#/production/22", &d),
            Route::Slide {
                deck: 0,
                index: 21,
                step: 0
            }
        );
        assert_eq!(
            parse("#/production/22/", &d),
            Route::Slide {
                deck: 0,
                index: 21,
                step: 0
            }
        );
        assert_eq!(
            parse("#/production", &d),
            Route::Slide {
                deck: 0,
                index: 0,
                step: 0
            }
        );
        assert_eq!(
            parse("#/production/5?x=1", &d),
            Route::Slide {
                deck: 0,
                index: 4,
                step: 0
            }
        );
    }

    #[test]
    fn steps_speaker_and_print() {
        let d = decks();
        let slide = |index, step| Route::Slide {
            deck: 0,
            index,
            step,
        };
        assert_eq!(parse("#/production/3.2", &d), slide(2, 2));
        // The index the app compiles in answers the same as the whole deck.
        let index: Vec<DeckInfo> = d.iter().map(|x| x.info(&x.to_json())).collect();
        assert_eq!(parse("#/production/3.2", &index), slide(2, 2));
        assert!(matches!(
            parse("#/production/3.3", &index),
            Route::NotFound(_)
        ));
        assert_eq!(parse("#/production/3.0", &d), slide(2, 0));
        assert_eq!(parse(&step_hash("production", 2, 1), &d), slide(2, 1));
        assert_eq!(step_hash("production", 2, 0), "#/production/3");
        assert_eq!(
            parse(&speaker_hash("production", 2, 2), &d),
            Route::Speaker {
                deck: 0,
                index: 2,
                step: 2
            }
        );
        assert_eq!(
            parse("#/production/print", &d),
            Route::Print {
                deck: 0,
                script: false
            }
        );
        assert_eq!(
            parse(&print_hash("production", true), &d),
            Route::Print {
                deck: 0,
                script: true
            }
        );
        for bad in [
            "#/production/3.3",
            "#/production/1.1",
            "#/production/3.x",
            "#/production/3.-1",
            "#/production/99/speaker",
            "#/production/3/speaker/x",
            "#/production/print?nope",
            "#/production/print/2",
        ] {
            assert!(matches!(parse(bad, &d), Route::NotFound(_)), "{bad}");
        }
        let Route::NotFound(why) = parse("#/production/3.9", &d) else {
            unreachable!()
        };
        assert!(why.contains('৯') && why.contains('২'), "{why}");
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
    fn practice() {
        let d = decks();
        let p = |path: &str, query: &str| Route::Practice {
            path: path.into(),
            query: query.into(),
        };
        assert_eq!(parse("#/practice", &d), p("", ""));
        assert_eq!(parse("#/practice/", &d), p("", ""));
        assert_eq!(
            parse("#/practice/lru/evicted?seed=42", &d),
            p("lru/evicted", "seed=42")
        );
        // The labs module judges topic, kind and seed (and says what is wrong).
        assert_eq!(parse("#/practice/nope", &d), p("nope", ""));
        assert!(matches!(parse("#/practice/a/b/c", &d), Route::NotFound(_)));
        assert_eq!(
            parse(&practice_hash("lru/hits", "seed=7"), &d),
            p("lru/hits", "seed=7")
        );
        assert_eq!(practice_hash("", ""), "#/practice");
    }

    #[test]
    fn console() {
        let d = decks();
        assert_eq!(parse("#/console", &d), Route::Console);
        assert_eq!(parse("#/console/", &d), Route::Console);
        assert!(matches!(parse("#/console/x", &d), Route::NotFound(_)));
    }

    /// Every address a builder writes, the router reads back as what was built: the decks',
    /// the labs' (a practice question's "show me" with its `at=`), practice's.
    #[test]
    fn every_builder_s_address_parses() {
        let d = decks();
        let show = |query: &str, at| redislab_sim::practice::Show {
            lab: "lru".into(),
            query: query.into(),
            step: 0,
            at,
        };
        for (hash, want) in [
            (
                show("capacity=2", Some(3)).hash(),
                "#/lab/lru?capacity=2&at=3",
            ),
            (show("", None).hash(), "#/lab/lru?at=end"),
            (lab_hash("lru", ""), "#/lab/lru"),
        ] {
            assert_eq!(hash, want);
            let query = want.split_once('?').map_or("", |(_, q)| q);
            assert_eq!(
                parse(&hash, &d),
                Route::Lab {
                    id: "lru",
                    query: query.into()
                }
            );
        }
        let q = redislab_sim::practice::address("lru", "hits", 42);
        assert_eq!(q, "#/practice/lru/hits?seed=42");
        assert_eq!(q, question_hash("lru", "hits", 42));
        assert_eq!(
            parse(&q, &d),
            Route::Practice {
                path: "lru/hits".into(),
                query: "seed=42".into()
            }
        );
        assert_eq!(
            parse(&practice_hash("", "labs=lru,lock&seed=42&n=8"), &d),
            Route::Practice {
                path: String::new(),
                query: "labs=lru,lock&seed=42&n=8".into()
            }
        );
        assert_eq!(speaker_hash("production", 2, 2), "#/production/3.2/speaker");
        assert_eq!(print_hash("production", false), "#/production/print");
        assert_eq!(parse(redislab_address::HOME, &d), Route::Home);
        assert_eq!(parse(redislab_address::CONSOLE, &d), Route::Console);
    }

    #[test]
    fn hash_round_trip() {
        let d = decks();
        for i in 0..22 {
            assert_eq!(
                parse(&slide_hash("production", i), &d),
                Route::Slide {
                    deck: 0,
                    index: i,
                    step: 0
                }
            );
        }
    }
}
