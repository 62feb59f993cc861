//! Redis Lab: Bengali slide decks about Redis in production, with live simulations.
//! This file only mounts the app; see `app.rs` for the routes.

mod app;
mod catalog;
mod deck;
mod diagrams;
mod dom;
mod home;
mod labs;
mod live;

fn main() {
    yew::Renderer::<app::App>::new().render();
}
