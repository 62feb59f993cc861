//! Where a lab goes in the app: [`LabHost`] holds its place, loads the labs module
//! (`labs.js` + `labs_bg.wasm`, built from `src/bin/labs.rs`) the first time any lab is shown,
//! and lets that module draw the lab inside it. The first load carries none of it: a deck's
//! slides without labs never fetch it.
//!
//! The module is wasm-bindgen's `no-modules` output: `labs.js` declares a global
//! `wasm_bindgen` initialiser, which runs the module's `main`; that `main` publishes
//! `window.redislabLabs` (see `src/bin/labs.rs`). Both files are addressed relative to the
//! page, so the app works under any sub-path.

use crate::dom;
use js_sys::{Array, Function, Promise, Reflect};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use yew::prelude::*;

/// The labs module's script and wasm, beside `index.html`.
const SCRIPT: &str = "labs.js";
const WASM: &str = "labs_bg.wasm";
/// What the module's `main` sets on `window`.
const MOUNT: &str = "redislabLabs";

thread_local! {
    /// The script's loading and the wasm's start, shared by every lab on the page; forgotten
    /// when they fail, so the next lab shown tries again.
    static SCRIPT_LOAD: RefCell<Option<Promise>> = const { RefCell::new(None) };
    static WASM_START: RefCell<Option<Promise>> = const { RefCell::new(None) };
}

/// The labs module's mount function, loading and starting the module the first time.
async fn mount_fn() -> Result<Function, JsValue> {
    let published =
        || Reflect::get(&dom::window(), &MOUNT.into()).map(|f| f.dyn_into::<Function>());
    if let Ok(Ok(f)) = published() {
        return Ok(f);
    }
    let fail = |e: JsValue| {
        SCRIPT_LOAD.with(|l| l.borrow_mut().take());
        WASM_START.with(|l| l.borrow_mut().take());
        e
    };
    let script = SCRIPT_LOAD.with(|l| l.borrow_mut().get_or_insert_with(add_script).clone());
    JsFuture::from(script).await.map_err(fail)?;
    let start = WASM_START.with(|l| {
        let mut l = l.borrow_mut();
        if l.is_none() {
            *l = Some(start()?);
        }
        Ok::<_, JsValue>(l.clone())
    });
    let start = start.map_err(fail)?.ok_or(JsValue::NULL)?;
    JsFuture::from(start).await.map_err(fail)?;
    published()?.map_err(|_| fail(format!("{MOUNT} missing").into()))
}

/// Fetches and starts the labs module now, if it is not yet (a slide with a lab is next);
/// a failure is forgotten, and the lab itself will try again and say so. The simulation
/// worker is not started ahead: it waits until a lab is shown.
pub fn prefetch() {
    wasm_bindgen_futures::spawn_local(async {
        let _ = mount_fn().await;
    });
}

/// How long a slide before a lab waits before [`prefetch`]: 1.5 s on the slide, and not
/// before the page's first paint is 4 s old. The first seconds of a phone's slow link belong
/// to what the first slide needs (its fonts, the deck, the player); the labs module (about
/// 370 KB gzip, near 2 s at 1.6 Mbps) comes after them. A student who moves to the lab sooner
/// gets it at once, as the lab asks for it itself.
pub fn prefetch_delay_ms() -> u32 {
    const ON_SLIDE: f64 = 1500.0;
    const AFTER_PAINT: f64 = 4000.0;
    let Some(perf) = dom::window().performance() else {
        return ON_SLIDE as u32;
    };
    let painted = perf
        .get_entries_by_name("first-contentful-paint")
        .get(0)
        .dyn_into::<js_sys::Object>()
        .ok()
        .and_then(|e| Reflect::get(&e, &"startTime".into()).ok())
        .and_then(|t| t.as_f64())
        .unwrap_or_else(|| perf.now());
    ON_SLIDE.max(painted + AFTER_PAINT - perf.now()).ceil() as u32
}

/// Calls the page's function `name` (written into `index.html` by
/// `crates/deck/src/shell.rs`), if it has one.
fn call_page(name: &str) {
    if let Ok(f) = Reflect::get(&dom::window(), &name.into()) {
        if let Some(f) = f.dyn_ref::<Function>() {
            let _ = f.call0(&JsValue::NULL);
        }
    }
}

/// A lab is about to be shown. The simulation worker starts now, through the page's
/// `redislabStartWorker`, so its wasm compiles while the labs module loads; the labs module
/// adopts it (without that function the labs module starts its own). And every font face is
/// asked for (`redislabFonts`; on a lab's page they are asked for already): a face still
/// loading at a lab's first layout sends the browser to the system's fonts, a slow detour on
/// Linux.
fn prepare_for_lab() {
    call_page("redislabStartWorker");
    call_page("redislabFonts");
}

/// Adds `labs.js` to the page; resolves when it has run.
fn add_script() -> Promise {
    Promise::new(&mut |ok: Function, no: Function| {
        let doc = dom::document();
        let Ok(script) = doc.create_element("script") else {
            let _ = no.call1(&JsValue::NULL, &"script".into());
            return;
        };
        let _ = script.set_attribute("src", SCRIPT);
        let _ = script.add_event_listener_with_callback("load", &ok);
        let on_error = Closure::once_into_js(move || {
            let _ = no.call1(&JsValue::NULL, &format!("{SCRIPT} did not load").into());
        });
        let _ = script.add_event_listener_with_callback("error", on_error.unchecked_ref());
        if let Some(head) = doc.head() {
            let _ = head.append_child(&script);
        }
    })
}

/// Starts the module's wasm through the `wasm_bindgen` global `labs.js` declared (a lexical
/// global, which only a script's own scope can name, hence a function made from text). The
/// wasm comes compiled from the page's `redislabCompile` (a worker compiles it, see
/// `crates/deck/src/shell.rs`), or by wasm-bindgen's own streaming if that is missing or
/// fails. The promise resolves a task later than the start, so the lab's first render is a
/// task of its own and not one long task with the module's instantiation.
fn start() -> Result<Promise, JsValue> {
    let start = format!(
        "var url = '{WASM}';
        var go = function (m) {{ return wasm_bindgen({{ module_or_path: m }}); }};
        var c = window.redislabCompile;
        var started = typeof c === 'function'
            ? c(url).then(go, function () {{ return go(url); }})
            : go(url);
        return started.then(function () {{
            return new Promise(function (ok) {{ setTimeout(ok, 0); }});
        }});"
    );
    Function::new_no_args(&start)
        .call0(&JsValue::NULL)?
        .dyn_into()
}

/// What stands in a lab's place while it is on its way (here, and in the labs module until
/// the lab's first render).
pub fn loading() -> Html {
    html! { <p class="lab-loading" aria-busy="true" role="status">{"ল্যাব আসছে…"}</p> }
}

/// Props of [`LabHost`].
#[derive(Properties, PartialEq)]
pub struct LabHostProps {
    /// Lab id.
    pub id: AttrValue,
    /// Its parameters (a deck's preset or the address's query).
    #[prop_or_default]
    pub query: AttrValue,
    /// Inside a slide (compact, with a link to the full lab) rather than on its own page.
    pub embedded: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum Phase {
    Loading,
    Shown,
    Failed,
}

/// An embedded lab enlarged to the whole stage (Z, or the lab's button), for the moment the
/// instructor runs it: the player provides it to the slide's lab.
#[derive(Clone, PartialEq)]
pub struct Enlarge {
    /// The lab fills the stage.
    pub on: bool,
    /// Enlarge, or back.
    pub toggle: Callback<()>,
}

/// A lab's place: busy while the labs module loads, then the lab itself; a clear message if
/// the module cannot be fetched (the rest of the page keeps working, and a button tries again).
#[component]
pub fn LabHost(props: &LabHostProps) -> Html {
    let host = use_node_ref();
    let phase = use_state_eq(|| Phase::Loading);
    let attempt = use_state(|| 0u32);
    {
        let (host, phase) = (host.clone(), phase.clone());
        let key = (
            props.id.clone(),
            props.query.clone(),
            props.embedded,
            *attempt,
        );
        use_effect_with(key, move |(id, query, embedded, _)| {
            let gone = Rc::new(Cell::new(false));
            let unmount: Rc<RefCell<Option<Function>>> = Rc::default();
            phase.set(Phase::Loading);
            let args = (id.to_string(), query.to_string(), *embedded);
            // A lab is shown: the worker starts now, beside the labs module if that is
            // still loading (a prefetch fetches the module alone; see `prefetch`). The
            // console, drawn by the labs module too, runs nothing in it.
            if id.as_str() != "console" {
                prepare_for_lab();
            }
            {
                let (gone, unmount) = (gone.clone(), unmount.clone());
                wasm_bindgen_futures::spawn_local(async move {
                    let mounted = mount_fn().await.and_then(|mount| {
                        let el = host.cast::<web_sys::Element>().ok_or(JsValue::NULL)?;
                        if gone.get() {
                            return Ok(None);
                        }
                        let (id, query, embedded) = args;
                        let argv = Array::of4(&el, &id.into(), &query.into(), &embedded.into());
                        let undo = Reflect::apply(&mount, &JsValue::NULL, &argv)?;
                        Ok(Some(undo.unchecked_into::<Function>()))
                    });
                    match mounted {
                        Ok(Some(undo)) => {
                            *unmount.borrow_mut() = Some(undo);
                            phase.set(Phase::Shown);
                        }
                        Ok(None) => {}
                        Err(e) => {
                            web_sys::console::warn_2(&"labs module:".into(), &e);
                            if !gone.get() {
                                phase.set(Phase::Failed);
                            }
                        }
                    }
                });
            }
            move || {
                gone.set(true);
                if let Some(undo) = unmount.borrow_mut().take() {
                    let _ = undo.call0(&JsValue::NULL);
                }
            }
        });
    }
    let retry = {
        let attempt = attempt.clone();
        Callback::from(move |_| attempt.set(*attempt + 1))
    };
    let class = classes!("lab-host", props.embedded.then_some("embedded"));
    let enlarge = use_context::<Enlarge>().filter(|_| props.embedded);
    html! {
        <div class={class} data-lab-host={props.id.clone()}>
            if let Some(z) = enlarge {
                <button type="button" class="tool lab-enlarge" aria-pressed={z.on.to_string()} data-testid="lab-enlarge"
                    title={if z.on { "ল্যাব আগের জায়গায় (Z বা Esc)" } else { "ল্যাব পুরো পর্দায় (Z)" }}
                    onclick={Callback::from(move |_: MouseEvent| z.toggle.emit(()))}>
                    <svg class="tool-icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
                        <path d={if z.on { "M6 2v4H2M10 2v4h4M6 14v-4H2M10 14v-4h4" } else { "M2 6V2h4M14 6V2h-4M2 10v4h4M14 10v4h-4" }}
                            fill="none" stroke="currentColor" stroke-width="1.6" />
                    </svg>
                    { if z.on { " ছোট করুন" } else { " বড় করুন" } }
                </button>
            }
            if *phase == Phase::Loading { { loading() } }
            if *phase == Phase::Failed {
                <div class="lab-error" role="alert">
                    <p>{"ল্যাবটা আনা গেল না — নেটওয়ার্ক দেখে আবার চেষ্টা করুন। স্লাইড আর ডেক আগের মতোই চলবে।"}</p>
                    <button type="button" onclick={retry}>{"আবার চেষ্টা"}</button>
                </div>
            }
            // The labs module draws in here; this app renders nothing inside it.
            <div class="lab-mount" ref={host}></div>
        </div>
    }
}
