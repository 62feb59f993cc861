//! The app offline, installed and honest about the network.
//!
//! - [`start`] (once, from `src/main.rs`, before the first render): an app opened from the
//!   home screen (the manifest's `start_url`, `?launch=app`) opens on the last deck's slide the
//!   student was on; and, once the page is idle after the first slide, the service worker is
//!   registered (`sw.js`, written per release by `redislab_deck::release` from
//!   `static/sw.js`). The page then tells it what it has opened (kept for offline) and, unless
//!   the browser asks to save data (`navigator.connection.saveData`), to fetch the rest of
//!   the release at low priority. When a new release is waiting, the page offers
//!   "নতুন সংস্করণ — রিলোড"; the worker of the new release takes over only then, and a page
//!   whose worker changed under it (the reload in another tab) reloads, so no page ever runs
//!   on two releases' files. A development build's page names no release: it registers
//!   nothing and removes any worker an earlier release left at its address.
//! - [`use_online`] and [`NeedsNetwork`], for every part that needs the network (the labs'
//!   "আসল Redis" switch, the console, class mode): whether the browser says it is online, and
//!   the one plain sentence that says the part needs the network while the rest works.
//!
//! The banner is plain DOM at the end of `<body>`, outside the app's one Yew root (the labs
//! module counts on there being one).

use crate::catalog::DECK_INDEX;
use crate::dom::{self, Listener};
use js_sys::{Array, Object, Reflect};
use redislab_deck::route::{self, Route};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{ServiceWorkerRegistration, ServiceWorkerState};
use yew::prelude::*;

/// Where the browser keeps the last slide the student was on (`#/<deck>/<n>`).
const LAST: &str = "redislab.last";
/// The manifest's `start_url` marks a launch from the home screen with this.
const LAUNCH: &str = "launch=app";
/// How long the network must have been quiet before the worker is registered, ms.
const QUIET_MS: f64 = 2_000.0;

/// Opens an installed app on the last deck, remembers where the student is, and registers
/// the service worker when the page is idle.
pub fn start() {
    resume_last_deck();
    let Some(release) = release() else {
        forget_workers();
        return;
    };
    if !has_service_workers() {
        return;
    }
    when_quiet(move || spawn_local(register(release)));
}

/// The release this page belongs to (`<meta name="redislab-release">`; none in a
/// development build).
fn release() -> Option<String> {
    dom::document()
        .query_selector(&format!("meta[name={}]", redislab_deck::release::META))
        .ok()
        .flatten()
        .and_then(|m| m.get_attribute("content"))
        .filter(|c| !c.is_empty())
}

fn has_service_workers() -> bool {
    Reflect::has(&dom::window().navigator(), &"serviceWorker".into()).unwrap_or(false)
}

/// `#/<deck>/<n>` addresses are kept; a launch from the home screen onto the bare app goes
/// to the last one kept.
fn resume_last_deck() {
    let hash = dom::hash();
    let search = dom::window().location().search().unwrap_or_default();
    if search.contains(LAUNCH) && matches!(hash.as_str(), "" | "#" | "#/") {
        if let Some(last) = dom::stored(LAST) {
            if matches!(route::parse(&last, DECK_INDEX), Route::Slide { .. }) {
                dom::replace_hash(&last);
            }
        }
    }
    remember();
    // The player moves with the History API (no event): the address is read when it changes
    // by a link and when the page is hidden (the app closed or put away).
    let w = dom::window();
    std::mem::forget(Listener::new(&w, "hashchange", |_| remember()));
    std::mem::forget(Listener::new(&dom::document(), "visibilitychange", |_| {
        remember()
    }));
    std::mem::forget(Listener::new(&w, "pagehide", |_| remember()));
}

fn remember() {
    let hash = dom::hash();
    if matches!(route::parse(&hash, DECK_INDEX), Route::Slide { .. }) {
        dom::store(LAST, &hash);
    }
}

/// A development build: unregister what an earlier release registered here.
fn forget_workers() {
    if !has_service_workers() {
        return;
    }
    let c = dom::window().navigator().service_worker();
    spawn_local(async move {
        if let Ok(list) = JsFuture::from(c.get_registrations()).await {
            for reg in Array::from(&list).iter() {
                if let Ok(p) = reg
                    .unchecked_into::<ServiceWorkerRegistration>()
                    .unregister()
                {
                    let _ = JsFuture::from(p).await;
                }
            }
        }
    });
}

/// The newest `responseEnd` and the number of the page's resource entries.
fn network_mark() -> (usize, f64) {
    let Some(perf) = dom::window().performance() else {
        return (0, 0.0);
    };
    let entries = perf.get_entries_by_type("resource");
    let last = entries
        .iter()
        .filter_map(|e| Reflect::get(&e, &"responseEnd".into()).ok()?.as_f64())
        .fold(0.0, f64::max);
    (entries.length() as usize, last)
}

/// Runs `f` once the page is idle after its first slide: the fonts in, nothing fetched for
/// [`QUIET_MS`] (the app, the deck, the faces loaded after start, the labs module when the
/// next slide has a lab), then in an idle period. The offline copy never shares the line
/// with what the student is waiting for.
fn when_quiet(f: impl FnOnce() + 'static) {
    fn check(f: Box<dyn FnOnce()>, seen: usize) {
        gloo_timers::callback::Timeout::new(500, move || {
            let (n, last) = network_mark();
            let now = dom::window().performance().map_or(0.0, |p| p.now());
            let fonts_in =
                dom::document().fonts().status() == web_sys::FontFaceSetLoadStatus::Loaded;
            if n == seen && now - last >= QUIET_MS && fonts_in {
                let cb = Closure::once_into_js(f);
                let w = dom::window();
                if w.request_idle_callback(cb.unchecked_ref()).is_err() {
                    let _ = w.set_timeout_with_callback(cb.unchecked_ref());
                }
            } else {
                check(f, n);
            }
        })
        .forget();
    }
    check(Box::new(f), usize::MAX);
}

/// A plain JS object of `pairs`.
fn object(pairs: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (k, v) in pairs {
        let _ = Reflect::set(&o, &(*k).into(), v);
    }
    o.into()
}

/// Whether the browser asks pages to save data (`navigator.connection.saveData`).
fn save_data() -> bool {
    Reflect::get(&dom::window().navigator(), &"connection".into())
        .ok()
        .filter(|c| c.is_object())
        .and_then(|c| Reflect::get(&c, &"saveData".into()).ok())
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
}

/// The release's files this page has fetched so far, as paths in the app's folder.
fn opened() -> Array {
    let base = dom::page_url();
    let base = &base[..base.rfind('/').map_or(0, |i| i + 1)];
    let out = Array::new();
    if let Some(perf) = dom::window().performance() {
        for e in perf.get_entries_by_type("resource").iter() {
            let name = Reflect::get(&e, &"name".into())
                .ok()
                .and_then(|n| n.as_string())
                .unwrap_or_default();
            if let Some(path) = name.strip_prefix(base) {
                let path = path.split(['?', '#']).next().unwrap_or_default();
                if !path.is_empty() {
                    out.push(&path.into());
                }
            }
        }
    }
    out.push(&"index.html".into());
    out
}

/// Says hello to the active worker: this page's release, what it has opened, and whether to
/// fetch the rest.
fn hello(reg: &ServiceWorkerRegistration, release: &str) {
    if let Some(w) = reg.active() {
        let _ = w.post_message(&object(&[
            ("type", "hello".into()),
            ("release", release.into()),
            ("opened", opened().into()),
            ("fill", (!save_data()).into()),
        ]));
    }
}

async fn register(release: String) {
    let c = dom::window().navigator().service_worker();
    let opts = web_sys::RegistrationOptions::new();
    opts.set_update_via_cache(web_sys::ServiceWorkerUpdateViaCache::None);
    let Ok(reg) = JsFuture::from(c.register_with_options("sw.js", &opts)).await else {
        return;
    };
    let reg: ServiceWorkerRegistration = reg.unchecked_into();
    // A page whose worker is replaced under it (a reload in another tab took the new
    // release) reloads: it would otherwise fetch its labs and decks from the new release.
    // The first worker taking a page over (no controller before) is not a change of release.
    let controlled = Rc::new(Cell::new(c.controller().is_some()));
    {
        let controlled = controlled.clone();
        std::mem::forget(Listener::new(&c, "controllerchange", move |_| {
            if controlled.replace(true) {
                let _ = dom::window().location().reload();
            }
        }));
    }
    watch_updates(&reg, controlled);
    std::mem::forget(Listener::new(&c, "message", on_message));
    let Ok(ready) = c.ready() else {
        return;
    };
    let Ok(ready) = JsFuture::from(ready).await else {
        return;
    };
    let reg: ServiceWorkerRegistration = ready.unchecked_into();
    hello(&reg, &release);
    // Look for a new release when the student comes back to the page, and go on keeping
    // the release when the network comes back.
    let r = reg.clone();
    std::mem::forget(Listener::new(
        &dom::document(),
        "visibilitychange",
        move |_| {
            if dom::document().visibility_state() == web_sys::VisibilityState::Visible {
                quietly(r.update());
            }
        },
    ));
    std::mem::forget(Listener::new(&dom::window(), "online", move |_| {
        quietly(reg.update());
        hello(&reg, &release);
    }));
}

/// Lets a promise settle, whatever it says (an update check that finds nothing, or no
/// network, is nothing to report).
fn quietly(p: Result<js_sys::Promise, JsValue>) {
    if let Ok(p) = p {
        spawn_local(async move {
            let _ = JsFuture::from(p).await;
        });
    }
}

/// Offers the reload whenever a new release's worker is installed and waiting beside the
/// one that runs this page.
fn watch_updates(reg: &ServiceWorkerRegistration, controlled: Rc<Cell<bool>>) {
    let offer = {
        let reg = reg.clone();
        move || {
            if controlled.get() && reg.waiting().is_some() {
                banner(&reg);
            }
        }
    };
    offer();
    let r = reg.clone();
    let offer = Rc::new(offer);
    std::mem::forget(Listener::new(reg, "updatefound", move |_| {
        if let Some(w) = r.installing() {
            let (offer, w2) = (offer.clone(), w.clone());
            std::mem::forget(Listener::new(&w, "statechange", move |_| {
                if w2.state() == ServiceWorkerState::Installed {
                    offer();
                }
            }));
        }
    }));
}

thread_local! {
    static BANNER: RefCell<Option<web_sys::Element>> = const { RefCell::new(None) };
}

/// "নতুন সংস্করণ — রিলোড": the waiting worker takes over, and the page reloads on it.
fn banner(reg: &ServiceWorkerRegistration) {
    if BANNER.with(|b| b.borrow().is_some()) {
        return;
    }
    let doc = dom::document();
    let Ok(bar) = doc.create_element("div") else {
        return;
    };
    bar.set_class_name("update-banner");
    let _ = bar.set_attribute("role", "status");
    let _ = bar.set_attribute("data-testid", "update-banner");
    bar.set_inner_html(
        "<span class=\"update-text\">Redis Lab-এর নতুন সংস্করণ এসেছে।</span>\
         <button type=\"button\" class=\"update-reload\" data-testid=\"update-reload\">নতুন সংস্করণ — রিলোড</button>",
    );
    if let Ok(Some(button)) = bar.query_selector("button") {
        let reg = reg.clone();
        std::mem::forget(Listener::new(&button, "click", move |_| {
            match reg.waiting() {
                Some(w) => {
                    // It takes over; `controllerchange` reloads this page.
                    let _ = w.post_message(&object(&[("type", "activate".into())]));
                }
                None => {
                    let _ = dom::window().location().reload();
                }
            }
        }));
    }
    if let Some(body) = doc.body() {
        let _ = body.append_child(&bar);
    }
    BANNER.with(|b| *b.borrow_mut() = Some(bar));
}

/// What the worker says: `kept` (how much of the release is on the device).
fn on_message(e: web_sys::Event) {
    let Some(e) = e.dyn_ref::<web_sys::MessageEvent>() else {
        return;
    };
    let data = e.data();
    let get = |k: &str| Reflect::get(&data, &k.into()).unwrap_or(JsValue::UNDEFINED);
    if get("type").as_string().as_deref() != Some("kept") {
        return;
    }
    let (kept, total) = (
        get("kept").as_f64().unwrap_or(0.0),
        get("total").as_f64().unwrap_or(1.0),
    );
    if kept < total {
        return;
    }
    // The whole release is on this device: say so once, when it has just come in.
    if let Some(root) = dom::document().document_element() {
        let _ = root.set_attribute("data-offline", "ready");
    }
    if get("fetched").as_f64().unwrap_or(0.0) > 0.0 {
        note("এখন নেটওয়ার্ক ছাড়াও চলবে: সব ডেক, ল্যাব আর অনুশীলন এই ডিভাইসে রাখা হলো।");
    }
}

/// A short note at the foot of the screen, gone after a few seconds.
fn note(text: &str) {
    let doc = dom::document();
    let Ok(el) = doc.create_element("div") else {
        return;
    };
    el.set_class_name("offline-note");
    let _ = el.set_attribute("role", "status");
    let _ = el.set_attribute("data-testid", "offline-note");
    el.set_text_content(Some(text));
    if let Some(body) = doc.body() {
        let _ = body.append_child(&el);
    }
    gloo_timers::callback::Timeout::new(8_000, move || el.remove()).forget();
}

/// Whether the browser says it is online (`navigator.onLine`), kept up to date by its
/// `online` and `offline` events. Every part that needs the network asks this.
#[hook]
pub fn use_online() -> bool {
    let online = use_state_eq(|| dom::window().navigator().on_line());
    {
        let online = online.clone();
        use_effect_with((), move |_| {
            let w = dom::window();
            let (a, b) = (online.clone(), online);
            let up = Listener::new(&w, "online", move |_| a.set(true));
            let down = Listener::new(&w, "offline", move |_| b.set(false));
            move || drop((up, down))
        });
    }
    *online
}

/// Props of [`NeedsNetwork`].
#[derive(Properties, PartialEq)]
pub struct NeedsNetworkProps {
    /// The part that needs the network, as the sentence's subject ("আসল Redis", "কনসোল").
    pub what: AttrValue,
}

/// The plain sentence for a part that needs the network while there is none: what needs it,
/// and that the rest of the app works on.
#[component]
pub fn NeedsNetwork(props: &NeedsNetworkProps) -> Html {
    html! {
        <p class="needs-network" role="status" data-testid="needs-network">
            <strong>{"নেটওয়ার্ক নেই। "}</strong>
            { format!("{} নেটওয়ার্ক ছাড়া চলে না; সংযোগ ফিরলে আবার চলবে। ডেক, স্লাইড, ল্যাবের সিমুলেশন আর অনুশীলন এই ডিভাইসেই চলছে।", props.what) }
        </p>
    }
}
