//! The live labs: one component per lab, drawing what `redislab-sim` computes in the
//! simulation worker ([`worker`]). A lab opens on the seed's parameters, keeps them in the URL
//! on its own page (`#/lab/<id>?…`) and can sit inside a slide (`:::lab <id> key=value …` in a
//! deck). [`LABS`] is the simulator's registry of labs (what the home page lists); [`views`]
//! draws each one with the lab kit ([`kit`]). Their parameter fields are the simulator's
//! (`redislab_sim::labs::registry`), which `labsim` and the deck parser share.
//!
//! The views live in the labs module (`src/bin/labs.rs`), not in the app: the app shows a
//! [`host::LabHost`] where a lab goes, which loads that module the first time and lets it draw.

pub mod host;
pub mod kit;
pub mod views;
pub mod worker;

/// One view module per lab, named by its id (the simulator's registry: `for_each_lab`).
/// Each exports its component as `View`.
macro_rules! view_modules {
    ($($lab:ident),*) => {
        $(pub mod $lab;)*
    };
}
redislab_sim::for_each_lab!(view_modules);

use crate::dom;
use redislab_deck::route;
use yew::prelude::*;

/// Every lab, in the home page's order: the simulator's registry (its light view: ids,
/// titles and one line each, so the first load carries no lab).
pub use redislab_sim::labs::registry::CARDS as LABS;

/// The lab with this id.
pub fn find(id: &str) -> Option<&'static redislab_sim::labs::registry::Card> {
    LABS.iter().find(|l| l.id == id)
}

/// Title of a lab, in Bengali.
pub fn title(id: &str) -> &'static str {
    find(id).map_or("ল্যাব", |l| l.title)
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
    html! {
        <div class="lab-page">
            <header class="topbar">
                <a class="brand" href="#/" title="সব ডেক"><span class="brand-mark" aria-hidden="true">{"◆"}</span>{" Redis Lab"}</a>
                <span class="deck-name">{"ল্যাব · "}{ title(&id) }</span>
            </header>
            <main class="lab-main">
                <h1 class="lab-title">{ title(&id) }</h1>
                <host::LabHost id={id.clone()} query={props.query.clone()} embedded={false} />
            </main>
        </div>
    }
}

/// A link from an embedded lab to its own page with the current parameters.
pub fn open_full(id: &str, query: &str) -> Html {
    html! { <a class="lab-open" href={route::lab_hash(id, query)}>{"পুরো ল্যাব খুলুন ↗"}</a> }
}
