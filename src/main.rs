//! The app's entry: mounts [`redislab::app::App`] on the page's body. The app keeps this one
//! Yew root and no portals: the labs module (`src/bin/labs.rs`) relies on it, its labs being
//! roots numbered 2 and up, which Yew's event delegation must not mistake for the app's.

fn main() {
    // The first render is a task of its own, after the one that instantiated the wasm: the
    // two together held the main thread for 50–100 ms on a cold load (most of it V8
    // compiling the functions the first render calls, which it does when they are first
    // called). A task later, nothing else has changed: the page still shows its shell.
    gloo_timers::callback::Timeout::new(0, start).forget();
}

fn start() {
    // The first slide written into the page at build time (`redislab_deck::shell`) gives way
    // to the app in this same task, so no frame shows both or neither.
    let doc = redislab::dom::document();
    if let Ok(shells) = doc.query_selector_all(".app-shell") {
        for i in 0..shells.length() {
            if let Some(el) = shells.item(i).and_then(|n| n.parent_node().map(|p| (p, n))) {
                let _ = el.0.remove_child(&el.1);
            }
        }
    }
    yew::Renderer::<redislab::app::App>::new().render();
}
