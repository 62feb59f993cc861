//! Thin helpers over the browser: the address, history, event listeners that remove themselves.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Event, EventTarget};

/// The window. The app only runs in a browser, where there always is one.
pub fn window() -> web_sys::Window {
    web_sys::window().expect("a browser window")
}

/// The document of the window.
pub fn document() -> web_sys::Document {
    window().document().expect("a document")
}

/// `x` with `places` decimals, as CSS and SVG want them (`12.346`), written by the browser
/// (`Number.prototype.toFixed`): the first load carries no float formatter of its own.
pub fn fixed(x: f64, places: u8) -> String {
    js_sys::Number::from(x)
        .to_fixed(places)
        .map(String::from)
        .unwrap_or_else(|_| "0".into())
}

/// The current location hash, `#/…` (empty when there is none).
pub fn hash() -> String {
    window().location().hash().unwrap_or_default()
}

/// Moves to `hash` as a new history entry (so Back returns), without reloading.
pub fn push_hash(hash: &str) {
    if let Ok(history) = window().history() {
        let _ = history.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(hash));
    }
}

/// Replaces the current history entry's address with `hash`.
pub fn replace_hash(hash: &str) {
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(hash));
    }
}

/// What the browser keeps under `key` (`localStorage`), if it keeps anything: a private
/// window or a full store gives `None`, and the page goes on without it.
pub fn stored(key: &str) -> Option<String> {
    window().local_storage().ok()??.get_item(key).ok()?
}

/// Keeps `value` under `key` in `localStorage` (quietly nothing when the browser refuses).
pub fn store(key: &str, value: &str) {
    if let Ok(Some(s)) = window().local_storage() {
        let _ = s.set_item(key, value);
    }
}

/// An event listener that is removed when dropped (keep it in an effect's teardown).
pub struct Listener {
    target: EventTarget,
    kind: &'static str,
    capture: bool,
    closure: Closure<dyn FnMut(Event)>,
}

impl Listener {
    /// Listens for `kind` events on `target`.
    pub fn new(target: &EventTarget, kind: &'static str, f: impl FnMut(Event) + 'static) -> Self {
        Self::with_capture(target, kind, false, f)
    }

    /// Listens for `kind` events on `target` before they reach their own target (the capture
    /// phase), so nothing inside (a lab drawn by the labs module) can keep them from us.
    pub fn capture(
        target: &EventTarget,
        kind: &'static str,
        f: impl FnMut(Event) + 'static,
    ) -> Self {
        Self::with_capture(target, kind, true, f)
    }

    fn with_capture(
        target: &EventTarget,
        kind: &'static str,
        capture: bool,
        f: impl FnMut(Event) + 'static,
    ) -> Self {
        let closure = Closure::<dyn FnMut(Event)>::new(f);
        let _ = target.add_event_listener_with_callback_and_bool(
            kind,
            closure.as_ref().unchecked_ref(),
            capture,
        );
        Listener {
            target: target.clone(),
            kind,
            capture,
            closure,
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.target.remove_event_listener_with_callback_and_bool(
            self.kind,
            self.closure.as_ref().unchecked_ref(),
            self.capture,
        );
    }
}

/// True when the event comes from a field that takes typing, where our keys must not act.
pub fn typing_into(event: &Event) -> bool {
    let Some(el) = event
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
    else {
        return false;
    };
    matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT") || el.is_content_editable()
}

/// True when the element takes typed text (a text field, a text area, editable text): its
/// keys are its own however it got focus. A range, a drop-down or a button is not.
pub fn takes_text(el: &web_sys::Element) -> bool {
    match el.tag_name().as_str() {
        "TEXTAREA" => true,
        "INPUT" => matches!(
            el.get_attribute("type")
                .unwrap_or_default()
                .to_ascii_lowercase()
                .as_str(),
            "" | "text" | "number" | "search" | "email" | "url" | "tel" | "password"
        ),
        _ => el
            .dyn_ref::<web_sys::HtmlElement>()
            .is_some_and(|h| h.is_content_editable()),
    }
}

/// Focuses `el` without scrolling the page to it.
pub fn focus_quietly(el: &web_sys::HtmlElement) {
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &"preventScroll".into(), &true.into());
    if let Ok(f) = js_sys::Reflect::get(el, &"focus".into()) {
        if let Some(f) = f.dyn_ref::<js_sys::Function>() {
            let _ = f.call1(el, &options);
        }
    }
}

/// Runs `f` once the page's web fonts are in (`document.fonts.ready`): text measured before
/// then was measured in a fallback font.
pub fn when_fonts_ready(f: impl FnOnce() + 'static) {
    let ready = js_sys::Reflect::get(&document(), &"fonts".into())
        .and_then(|fonts| js_sys::Reflect::get(&fonts, &"ready".into()))
        .ok()
        .and_then(|r| r.dyn_into::<js_sys::Promise>().ok());
    if let Some(ready) = ready {
        wasm_bindgen_futures::spawn_local(async move {
            if wasm_bindgen_futures::JsFuture::from(ready).await.is_ok() {
                f();
            }
        });
    }
}

/// Is the primary pointer a finger (a phone or a tablet: coarse, and it cannot hover)? The
/// same test as the stylesheet's `@media (hover: none) and (pointer: coarse)`.
pub fn touch_first() -> bool {
    // `matchMedia` through the object, as web-sys' MediaQueryList feature would be built for
    // this one call.
    let w = window();
    js_sys::Reflect::get(&w, &"matchMedia".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .and_then(|f| {
            f.call1(&w, &"(hover: none) and (pointer: coarse)".into())
                .ok()
        })
        .and_then(|m| js_sys::Reflect::get(&m, &"matches".into()).ok())
        .and_then(|m| m.as_bool())
        .unwrap_or(false)
}

/// True when `key` would press the focused button or link (Space, Enter): it is theirs.
pub fn activates_control(event: &Event, key: &str) -> bool {
    let Some(el) = event
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
    else {
        return false;
    };
    matches!(key, " " | "Enter") && matches!(el.tag_name().as_str(), "BUTTON" | "A" | "SUMMARY")
}

/// Is the page in fullscreen?
pub fn is_fullscreen() -> bool {
    document().fullscreen_element().is_some()
}

/// Enters fullscreen with the whole page, or leaves it.
pub fn toggle_fullscreen() {
    let doc = document();
    if doc.fullscreen_element().is_some() {
        doc.exit_fullscreen();
    } else if let Some(root) = doc.document_element() {
        let _ = root.request_fullscreen();
    }
}

/// The page's address without its fragment (where the app is served, sub-path included).
pub fn page_url() -> String {
    let href = window().location().href().unwrap_or_default();
    match href.split_once('#') {
        Some((base, _)) => base.to_string(),
        None => href,
    }
}

/// What keyboard focus can land on inside an element.
const FOCUSABLE: &str = "a[href], button:not([disabled]), input:not([disabled]), select, textarea, [tabindex]:not([tabindex='-1'])";

/// Focuses the first element matching `css` inside the open dialog, or else the dialog's first
/// focusable element. Returns whether something took focus.
pub fn focus_in_dialog(css: &str) -> bool {
    let doc = document();
    let Some(dialog) = doc.query_selector("[role=dialog]").ok().flatten() else {
        return false;
    };
    let target = dialog
        .query_selector(css)
        .ok()
        .flatten()
        .or_else(|| dialog.query_selector(FOCUSABLE).ok().flatten());
    match target.and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok()) {
        Some(el) => el.focus().is_ok(),
        None => false,
    }
}

/// Keeps Tab inside the open dialog: from its last focusable element to its first and back.
pub fn trap_tab(event: &Event, backwards: bool) {
    let doc = document();
    let Some(dialog) = doc.query_selector("[role=dialog]").ok().flatten() else {
        return;
    };
    let Ok(list) = dialog.query_selector_all(FOCUSABLE) else {
        return;
    };
    let items: Vec<web_sys::HtmlElement> = (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| n.dyn_into::<web_sys::HtmlElement>().ok())
        .collect();
    let (Some(first), Some(last)) = (items.first(), items.last()) else {
        event.prevent_default();
        return;
    };
    let active = doc.active_element();
    let inside = active
        .as_ref()
        .is_some_and(|a| dialog.contains(Some(a.unchecked_ref())));
    let at = |el: &web_sys::HtmlElement| {
        active
            .as_ref()
            .is_some_and(|a| a == el.unchecked_ref::<web_sys::Element>())
    };
    if !inside || (backwards && at(first)) {
        event.prevent_default();
        let _ = if backwards {
            last.focus()
        } else {
            first.focus()
        };
    } else if !backwards && at(last) {
        event.prevent_default();
        let _ = first.focus();
    }
}

/// The element that has focus now (to give it back when a dialog closes).
pub fn focused() -> Option<web_sys::HtmlElement> {
    document()
        .active_element()
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
}

/// How many columns the grid `css` lays out now (items sharing the first item's top edge).
pub fn grid_columns(css: &str) -> usize {
    let Some(grid) = document().query_selector(css).ok().flatten() else {
        return 1;
    };
    let children = grid.children();
    let Some(first) = children.item(0) else {
        return 1;
    };
    let top = first.get_bounding_client_rect().top();
    (0..children.length())
        .filter_map(|i| children.item(i))
        .take_while(|c| (c.get_bounding_client_rect().top() - top).abs() < 2.0)
        .count()
        .max(1)
}
