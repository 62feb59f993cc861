//! The app's entry: mounts [`redislab::app::App`] on the page's body.

fn main() {
    yew::Renderer::<redislab::app::App>::new().render();
}
