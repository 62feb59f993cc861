//! The app's entry: mounts [`redislab::app::App`] on the page's body. The app keeps this one
//! Yew root and no portals: the labs module (`src/bin/labs.rs`) relies on it, its labs being
//! roots numbered 2 and up, which Yew's event delegation must not mistake for the app's.

fn main() {
    yew::Renderer::<redislab::app::App>::new().render();
}
