//! Redis Lab: Bengali slide decks about Redis in production, with live simulations.
//! This file only mounts the app; see `app.rs` for the routes.

mod app;
mod deck;
mod diagrams;
mod dom;
mod home;
mod labs;

/// Every deck, compiled in from `src/decks/*.md` by `build.rs`.
pub mod data {
    include!(concat!(env!("OUT_DIR"), "/decks.rs"));
}

fn main() {
    yew::Renderer::<app::App>::new().render();
}
