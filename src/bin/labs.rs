//! The labs module: every lab's view and the simulation worker's client, built by trunk as its
//! own wasm (`<link data-trunk rel="rust" data-type="worker" data-bin="labs">` in `index.html`:
//! the `no-modules` output, `labs.js` + `labs_bg.wasm`, which the page loads with a plain
//! `<script>`; trunk's worker type is the one that builds it so and injects nothing into the
//! page). The app fetches it the first time a lab is shown (`labs::host`), so neither the
//! views nor the messages' deserialisers weigh on the first slide.
//!
//! Its `main` publishes one function, `window.redislabLabs(host, id, query, embedded)`, which
//! draws lab `id` inside the element `host` with its own Yew renderer and returns a function
//! that removes it again. A function on `window` rather than a `#[wasm_bindgen]` export: the
//! app reaches it with `Reflect` alone, and this file needs no glue of its own.

use redislab::dom;
use redislab::labs::kit::{AskedOpen, LabProps};
use redislab::labs::{host, views, worker};
use redislab::later::Later;
use redislab_deck::route;
use redislab_sim::labs::ui::split_open;
use wasm_bindgen::prelude::*;
use yew::prelude::*;

/// Where a lab is drawn and with what.
#[derive(Properties, PartialEq)]
struct RootProps {
    id: AttrValue,
    query: AttrValue,
    embedded: bool,
}

/// One lab, drawn inside the app's placeholder. On its own page its parameters follow the
/// address (replaced, not pushed, so Back leaves the lab rather than undoing a slider). An
/// `at=` in the query says where its timeline opens ([`AskedOpen`]); a bad one is named in a
/// message above the lab, which opens as it would without it.
#[component]
fn Root(props: &RootProps) -> Html {
    let (query, open) = split_open(&props.query);
    let on_query = if props.embedded {
        Callback::noop()
    } else {
        let id = props.id.clone();
        Callback::from(move |q: String| dom::replace_hash(&route::lab_hash(&id, &q)))
    };
    let p = LabProps {
        query: query.into(),
        embedded: props.embedded,
        on_query,
    };
    let view = views::view(&props.id, p).unwrap_or_else(|| {
        html! { <p class="lab-error" role="alert">{"এই নামে কোনো ল্যাব নেই: "}{ props.id.clone() }</p> }
    });
    let (asked, bad) = match open {
        Some(Ok(o)) => (Some(o), None),
        Some(Err(m)) => (None, Some(m)),
        None => (None, None),
    };
    // The lab's first render is a task after the mount's: the mount starts this module's
    // Yew, the first render compiles the view's code, and the two in one task held the main
    // thread for 50–70 ms (see `redislab::later`).
    html! {
        <ContextProvider<AskedOpen> context={AskedOpen(asked)}>
            if let Some(m) = bad { <p class="lab-error lab-open-error" role="alert">{ m }</p> }
            <Later placeholder={host::loading()}>{ view }</Later>
        </ContextProvider<AskedOpen>>
    }
}

fn mount(host: web_sys::Element, id: String, query: String, embedded: bool) -> JsValue {
    // A lab page always needs the simulator: let its wasm load while the lab renders.
    if !embedded {
        worker::prepare();
    }
    let props = RootProps {
        id: id.into(),
        query: query.into(),
        embedded,
    };
    let app = yew::Renderer::<Root>::with_root_and_props(host, props).render();
    Closure::once_into_js(move || app.destroy())
}

/// Renders nothing; see [`main`].
#[component]
fn Keeper() -> Html {
    Html::default()
}

fn main() {
    // Yew numbers its roots per module from 1 and marks the elements it draws with that
    // number in a DOM property both modules read (`__yew_subtree_id`); the app's one root is
    // number 1, so a lab drawn as root number 1 here would have its clicks run the app's
    // handlers too. An empty root of our own takes number 1 first: every lab gets 2 or more.
    // (The app has no other root and no portal, so it never uses those numbers.)
    if let Ok(el) = dom::document().create_element("div") {
        std::mem::forget(yew::Renderer::<Keeper>::with_root(el).render());
    }
    let mount = Closure::<dyn Fn(web_sys::Element, String, String, bool) -> JsValue>::new(mount);
    let _ = js_sys::Reflect::set(&dom::window(), &"redislabLabs".into(), mount.as_ref());
    mount.forget();
}
