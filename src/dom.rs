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

/// An event listener that is removed when dropped (keep it in an effect's teardown).
pub struct Listener {
    target: EventTarget,
    kind: &'static str,
    closure: Closure<dyn FnMut(Event)>,
}

impl Listener {
    /// Listens for `kind` events on `target`.
    pub fn new(target: &EventTarget, kind: &'static str, f: impl FnMut(Event) + 'static) -> Self {
        let closure = Closure::<dyn FnMut(Event)>::new(f);
        let _ = target.add_event_listener_with_callback(kind, closure.as_ref().unchecked_ref());
        Listener {
            target: target.clone(),
            kind,
            closure,
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self
            .target
            .remove_event_listener_with_callback(self.kind, self.closure.as_ref().unchecked_ref());
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
