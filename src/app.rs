//! The app's routes: home (`#/`), a slide (`#/<deck>/<n>`) and a not-found view for any other
//! address. The address is the source of truth: back/forward, reload and shared links all land
//! on what it names.

use crate::data::DECKS;
use crate::deck::player::Player;
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
    if let Route::Slide { deck, index } = &*route {
        let canonical = route::slide_hash(&DECKS[*deck].id, *index);
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
    // A player moved: record the new address as a history entry and follow it.
    let on_navigate = {
        let route = route.clone();
        Callback::from(move |(deck, index): (usize, usize)| {
            let hash = route::slide_hash(&DECKS[deck].id, index);
            if dom::hash() != hash {
                dom::push_hash(&hash);
            }
            route.set(Route::Slide { deck, index });
        })
    };
    match &*route {
        Route::Home => html! { <Home /> },
        Route::Slide { deck, index } => html! {
            <Player key={DECKS[*deck].id.as_ref()} deck={*deck} index={*index} {on_navigate} />
        },
        Route::Lab { id, query } => html! {
            <LabPage key={format!("{id}?{query}")} id={*id} query={query.clone()} />
        },
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
