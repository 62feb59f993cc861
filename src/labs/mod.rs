//! The live labs: one component per lab, drawing what `redislab-sim` computes. A lab opens on
//! the seed's parameters, keeps them in the URL on its own page (`#/lab/<id>?…`) and can sit
//! inside a slide (`:::lab <id> key=value …` in a deck).

pub mod eviction;
pub mod jitter;
pub mod kit;
pub mod lru;
pub mod sampling;
pub mod stampede;
pub mod widgets;

use crate::dom;
use kit::LabProps;
use redislab_deck::route;
use yew::prelude::*;

/// Title of each lab, in Bengali.
pub fn title(id: &str) -> &'static str {
    match id {
        "lru" => "LRU-র ভেতরে — ধাপে ধাপে",
        "eviction" => "Eviction policy-র দৌড়",
        "sampling" => "নমুনা-ভিত্তিক LRU কতটা ভালো",
        "jitter" => "TTL jitter — একসাথে মরা ঠেকানো",
        "stampede" => "Cache stampede — চার নকশা পাশাপাশি",
        _ => "ল্যাব",
    }
}

/// The lab `id` with these props.
pub fn lab(id: &str, props: LabProps) -> Html {
    let LabProps {
        query,
        embedded,
        on_query,
    } = props;
    match id {
        "lru" => html! { <lru::LruLab {query} {embedded} {on_query} /> },
        "eviction" => html! { <eviction::EvictionLab {query} {embedded} {on_query} /> },
        "sampling" => html! { <sampling::SamplingLab {query} {embedded} {on_query} /> },
        "jitter" => html! { <jitter::JitterLab {query} {embedded} {on_query} /> },
        "stampede" => html! { <stampede::StampedeLab {query} {embedded} {on_query} /> },
        _ => Html::default(),
    }
}

/// Props of [`LabPage`].
#[derive(Properties, PartialEq)]
pub struct LabPageProps {
    /// Lab id.
    pub id: AttrValue,
    /// Parameters from the address.
    pub query: AttrValue,
}

/// A lab on its own page; its parameters follow the address, so a link reproduces the run.
#[component]
pub fn LabPage(props: &LabPageProps) -> Html {
    let id = props.id.clone();
    {
        let t = format!("{} · Redis Lab", title(&id));
        use_effect_with(t, |t| dom::document().set_title(t));
    }
    let on_query = {
        let id = id.clone();
        Callback::from(move |q: String| dom::replace_hash(&route::lab_hash(&id, &q)))
    };
    html! {
        <div class="lab-page">
            <header class="topbar">
                <a class="brand" href="#/" title="সব ডেক"><span class="brand-mark" aria-hidden="true">{"◆"}</span>{" Redis Lab"}</a>
                <span class="deck-name">{"ল্যাব · "}{ title(&id) }</span>
            </header>
            <main class="lab-main">
                <h1 class="lab-title">{ title(&id) }</h1>
                { lab(&id, LabProps { query: props.query.clone(), embedded: false, on_query }) }
            </main>
        </div>
    }
}

/// A link from an embedded lab to its own page with the current parameters.
pub fn open_full(id: &str, query: &str) -> Html {
    html! { <a class="lab-open" href={route::lab_hash(id, query)}>{"পুরো ল্যাব খুলুন ↗"}</a> }
}
