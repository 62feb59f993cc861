//! The app's routes: home (`#/`), a slide (`#/<deck>/<n>`) and a not-found view for any other
//! address. The address is the source of truth: back/forward, reload and shared links all land
//! on what it names.

use crate::catalog::{DeckRef, WithDeck, DECK_INDEX as DECKS};
use crate::deck::player::Player;
use crate::deck::print::PrintView;
use crate::deck::speaker::Speaker;
use crate::dom;
use crate::home::Home;
use crate::labs::LabPage;
use redislab_deck::route::{self, Route};
use yew::prelude::*;

/// The whole app.
#[component]
pub fn App() -> Html {
    let route = use_state_eq(|| route::parse(&dom::hash(), DECKS));
    // `#/production` means its first slide: show the full address.
    if let Route::Slide { deck, index, step } = &*route {
        let canonical = route::step_hash(&DECKS[*deck].id, *index, *step);
        if dom::hash() != canonical {
            dom::replace_hash(&canonical);
        }
    }
    {
        let route = route.clone();
        use_effect_with((), move |_| {
            let on_change = move |_| route.set(route::parse(&dom::hash(), DECKS));
            let w = dom::window();
            let a = dom::Listener::new(&w, "hashchange", on_change.clone());
            let b = dom::Listener::new(&w, "popstate", on_change);
            move || drop((a, b))
        });
    }
    // A player moved: a new slide is a new history entry (Back returns to it); a new step on
    // the same slide only replaces the address, so Back does not walk through fragments.
    let on_navigate = |deck: usize, speaker: bool| {
        let route = route.clone();
        Callback::from(move |(index, step): (usize, usize)| {
            let id = &DECKS[deck].id;
            let hash = if speaker {
                route::speaker_hash(id, index, step)
            } else {
                route::step_hash(id, index, step)
            };
            // The address as it is now (a handle captured earlier would be stale).
            let same_slide = matches!(route::parse(&dom::hash(), DECKS),
                Route::Slide { index: i, .. } | Route::Speaker { index: i, .. } if i == index);
            if dom::hash() != hash {
                if same_slide {
                    dom::replace_hash(&hash);
                } else {
                    dom::push_hash(&hash);
                }
            }
            route.set(if speaker {
                Route::Speaker { deck, index, step }
            } else {
                Route::Slide { deck, index, step }
            });
        })
    };
    match &*route {
        Route::Home => html! { <Home /> },
        Route::Slide { deck, index, step } => {
            let (index, step, on_navigate) = (*index, *step, on_navigate(*deck, false));
            let render = Callback::from(move |d: DeckRef| {
                html! {
                    <Player key={d.0.id.as_ref()} deck={d} {index} {step} on_navigate={on_navigate.clone()} />
                }
            });
            let cover_first = (index, step) == (0, 0);
            html! { <WithDeck key={DECKS[*deck].id.as_ref()} deck={*deck} {render} {cover_first} /> }
        }
        Route::Speaker { deck, index, step } => {
            let (index, step, on_navigate) = (*index, *step, on_navigate(*deck, true));
            let render = Callback::from(move |d: DeckRef| {
                html! {
                    <Speaker key={d.0.id.as_ref()} deck={d} {index} {step} on_navigate={on_navigate.clone()} />
                }
            });
            html! { <WithDeck key={format!("{}/speaker", DECKS[*deck].id)} deck={*deck} {render} /> }
        }
        Route::Print { deck, script } => {
            let script = *script;
            let render =
                Callback::from(move |d: DeckRef| html! { <PrintView deck={d} {script} /> });
            html! { <WithDeck key={format!("{}/print", DECKS[*deck].id)} deck={*deck} {render} /> }
        }
        Route::Lab { id, query } => html! {
            <LabPage key={format!("{id}?{query}")} id={*id} query={query.clone()} />
        },
        Route::Console => html! { <crate::live::console::ConsolePage /> },
        Route::Practice { path, query } => html! {
            <crate::practice::PracticePage path={path.clone()} query={query.clone()} />
        },
        Route::Join { query } => html! { <crate::class::slot::JoinPage query={query.clone()} /> },
        Route::NotFound(why) => html! { <NotFound why={why.clone()} /> },
    }
}

/// Props of [`NotFound`].
#[derive(Properties, PartialEq)]
pub struct NotFoundProps {
    /// Why nothing is here.
    pub why: AttrValue,
}

/// A clear "not found" page with a way home.
#[component]
pub fn NotFound(props: &NotFoundProps) -> Html {
    use_effect_with((), |_| dom::document().set_title("পাওয়া যায়নি · Redis Lab"));
    html! {
        <main class="notfound" role="main">
            <div class="notfound-card">
                <p class="notfound-code">{"৪০৪"}</p>
                <h1>{"এই ঠিকানায় কিছু নেই"}</h1>
                <p class="notfound-why">{props.why.clone()}</p>
                <a class="button primary" href="#/">{"← সব ডেক"}</a>
            </div>
        </main>
    }
}
