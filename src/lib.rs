//! Redis Lab: Bengali slide decks about Redis in production, with live simulations.
//!
//! One library, three wasm modules (trunk builds each from a binary; see `index.html`):
//! - the app (`src/main.rs`): the player, the home page, the decks' index and every route —
//!   the only module the first load fetches;
//! - the labs (`src/bin/labs.rs`): every lab's view and the simulation worker's client, fetched
//!   the first time a lab is shown ([`labs::host`]) and drawing into the app's placeholder;
//! - the simulation worker (`src/bin/worker.rs`), started by the labs.
//!
//! The app never names a lab's view ([`labs::views`]), so the linker leaves them, their
//! messages' deserialisers and the simulator's checks out of the first load.

pub mod app;
pub mod catalog;
pub mod class;
pub mod deck;
pub mod diagrams;
pub mod dom;
pub mod home;
pub mod labs;
pub mod later;
pub mod live;
pub mod offline;
pub mod practice;
