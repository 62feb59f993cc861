//! The decks: their index is compiled in (titles, slide and step counts, first slides), the
//! decks themselves are fetched as JSON the first time one is opened and kept for the rest of
//! the visit. So the first load carries only the player and the index, and adding a deck adds
//! one index entry to it, not the deck's text.

use crate::deck::player::PlayerShell;
use crate::deck::slide::SlideView;
use redislab_deck::{bn, Deck, DeckInfo};
use std::cell::RefCell;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use yew::prelude::*;

include!(concat!(env!("OUT_DIR"), "/decks.rs"));

thread_local! {
    /// Decks fetched so far, by index in [`DECK_INDEX`]. A deck is read once and lives as long
    /// as the page, so it is leaked into a `&'static` the player can hold without copies.
    static LOADED: RefCell<Vec<Option<&'static Deck>>> = RefCell::new(vec![None; DECK_INDEX.len()]);
}

/// A loaded deck, compared by identity (two handles to the same deck are equal without
/// comparing every slide).
#[derive(Clone, Copy)]
pub struct DeckRef(pub &'static Deck);

impl PartialEq for DeckRef {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

/// Deck `i` if it has been fetched already.
pub fn loaded(i: usize) -> Option<&'static Deck> {
    LOADED.with(|l| l.borrow().get(i).copied().flatten())
}

fn js_error(e: wasm_bindgen::JsValue) -> String {
    e.as_string()
        .or_else(|| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| "অজানা ত্রুটি".into())
}

/// Fetches deck `i`'s JSON (relative to the page, so the app also works under a sub-path),
/// checks it against the index and keeps it.
async fn fetch(i: usize) -> Result<&'static Deck, String> {
    let info = &DECK_INDEX[i];
    let url = format!("decks/{}", info.file);
    let resp = JsFuture::from(crate::dom::window().fetch_with_str(&url))
        .await
        .map_err(js_error)?;
    let resp: web_sys::Response = resp.dyn_into().map_err(js_error)?;
    if !resp.ok() {
        return Err(format!("{url}: HTTP {}", resp.status()));
    }
    let text = JsFuture::from(resp.text().map_err(js_error)?)
        .await
        .map_err(js_error)?
        .as_string()
        .unwrap_or_default();
    let deck = Deck::from_json(&text).map_err(|e| format!("{url}: {e}"))?;
    if deck.id != info.id || deck.slides.len() != info.steps.len() {
        return Err(format!("{url}: ফাইলটা এই অ্যাপের সূচির সাথে মেলে না"));
    }
    let deck: &'static Deck = Box::leak(Box::new(deck));
    LOADED.with(|l| l.borrow_mut()[i] = Some(deck));
    Ok(deck)
}

/// Props of [`WithDeck`].
#[derive(Properties, PartialEq)]
pub struct WithDeckProps {
    /// Index of the deck in [`DECK_INDEX`].
    pub deck: usize,
    /// What to draw once the deck is here.
    pub render: Callback<DeckRef, Html>,
    /// Meanwhile, draw the player's frame with the first slide (the address is slide 1).
    #[prop_or_default]
    pub cover_first: bool,
}

#[derive(Clone, PartialEq)]
enum Load {
    Waiting,
    Ready(DeckRef),
    Failed(String),
}

/// Draws `render` with deck `deck`, fetching it first if needed: meanwhile its first slide and
/// a "loading" line (`aria-busy`), and a clear message with a retry button if it can't come.
#[component]
pub fn WithDeck(props: &WithDeckProps) -> Html {
    let i = props.deck;
    let state = use_state(|| loaded(i).map_or(Load::Waiting, |d| Load::Ready(DeckRef(d))));
    let attempt = use_state(|| 0u32);
    {
        let state = state.clone();
        use_effect_with((i, *attempt), move |&(i, _)| {
            if let Some(d) = loaded(i) {
                state.set(Load::Ready(DeckRef(d)));
            } else {
                state.set(Load::Waiting);
                wasm_bindgen_futures::spawn_local(async move {
                    state.set(match fetch(i).await {
                        Ok(d) => Load::Ready(DeckRef(d)),
                        Err(e) => Load::Failed(e),
                    });
                });
            }
        });
    }
    let info: &DeckInfo = &DECK_INDEX[i];
    match &*state {
        Load::Ready(d) => props.render.emit(*d),
        Load::Waiting if props.cover_first => html! { <PlayerShell {info} /> },
        Load::Waiting => html! {
            <main class="deck-loading" aria-busy="true">
                <div class="thumb deck-loading-cover" aria-hidden="true"><SlideView slide={&info.cover} /></div>
                <p role="status">{ info.title.as_ref() }{" — "}{ bn::digits(info.steps.len(), 1) }{"টি স্লাইড আসছে…"}</p>
            </main>
        },
        Load::Failed(why) => {
            let retry = {
                let attempt = attempt.clone();
                Callback::from(move |_: MouseEvent| attempt.set(*attempt + 1))
            };
            html! {
                <main class="notfound" role="main">
                    <div class="notfound-card">
                        <h1>{"ডেকটা আনা গেল না"}</h1>
                        <p class="notfound-why">{"নেটওয়ার্ক বা সার্ভারে সমস্যা: "}{ why.clone() }</p>
                        <button class="button primary" onclick={retry}>{"আবার চেষ্টা করুন"}</button>
                        {" "}
                        <a class="button" href="#/">{"← সব ডেক"}</a>
                    </div>
                </main>
            }
        }
    }
}
