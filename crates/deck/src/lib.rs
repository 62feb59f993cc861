//! Redis Lab's deck format and the deck player's pure logic.
//!
//! - [`model`]: the types a deck is made of, shared by the build-time parser and the app;
//! - [`parse`]: the deck source parser (Markdown-like, see `docs/deck-format.md`);
//! - [`highlight`]: light syntax colouring for code samples;
//! - [`codegen`]: turns parsed decks into Rust statics at build time;
//! - [`nav`]: slide navigation, keys and autoplay, as a pure state machine;
//! - [`route`]: the app's addresses (`#/`, `#/<deck>/<n>`), parsed and printed;
//! - [`bn`]: one way to write a number (Bengali digits, Indian grouping, units);
//! - [`lint`]: the writing rules every deck is held to at build time;
//! - [`prose`]: the copied-prose check (decks against fingerprints of the seeds);
//! - [`shell`] and [`release`]: what the build writes into `dist/` after trunk (each deck's
//!   first slide in `index.html`; the release's file list and its service worker).
//!
//! Nothing here touches the web, so all of it is tested natively.

/// One way to write a number: it lives in the simulator (whose practice questions write
/// numbers too) and is the same module here.
pub use redislab_sim::bn;
pub mod codegen;
pub mod highlight;
pub mod lint;
pub mod model;
pub mod nav;
pub mod parse;
pub mod prose;
pub mod release;
pub mod route;
pub mod shell;

pub use model::*;
