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
use wasm_bindgen::JsCast;
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
                if let Some(from) = came_from(&id) {
                    <a class="lab-back" href={from.clone()}>{ if from.starts_with("#/practice") { "← প্রশ্নে ফিরুন" } else { "← স্লাইডে ফিরুন" } }</a>
                }
                <h1 class="lab-title">{ title(&id) }</h1>
                <host::LabHost id={id.clone()} query={props.query.clone()} embedded={false} />
            </main>
        </div>
    }
}

/// A link from an embedded lab to its own page with the current parameters. Followed, it
/// opens the page where the embedded lab's scrubber stands (`at=`, read at the moment of the
/// tap) and remembers where it came from, for the page's way back ([`came_from`]).
pub fn open_full(id: &str, query: &str) -> Html {
    let href = route::lab_hash(id, query);
    let onclick = {
        let (id, href) = (id.to_string(), href.clone());
        Callback::from(move |e: MouseEvent| {
            let at = e
                .target_dyn_into::<web_sys::Element>()
                .and_then(|a| a.closest(".lab").ok().flatten())
                .and_then(|lab| lab.query_selector(".scrubber").ok().flatten())
                .and_then(|s| s.dyn_into::<web_sys::HtmlInputElement>().ok())
                .map(|s| s.value());
            remember_origin(&id);
            if let Some(at) = at {
                e.prevent_default();
                let sep = if href.contains('?') { '&' } else { '?' };
                let _ = dom::window()
                    .location()
                    .set_hash(&format!("{href}{sep}at={at}"));
            }
        })
    };
    html! { <a class="lab-open" href={href} {onclick}>{"পুরো ল্যাব খুলুন ↗"}</a> }
}

/// Where the lab page of `id` was opened from (this tab's session): a slide's or a practice
/// question's address.
pub fn came_from(id: &str) -> Option<String> {
    let s = dom::window().session_storage().ok()??;
    let v = s.get_item(&format!("lab-from:{id}")).ok()??;
    (!v.is_empty()).then_some(v)
}

/// Remembers the current address as where lab `id`'s page is being opened from.
pub fn remember_origin(id: &str) {
    if let Ok(Some(s)) = dom::window().session_storage() {
        let _ = s.set_item(&format!("lab-from:{id}"), &dom::hash());
    }
}
