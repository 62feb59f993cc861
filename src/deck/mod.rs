//! The deck player: the slide renderer, the player with its keys, autoplay, script, fullscreen,
//! overview and help.

pub mod player;
pub mod slide;
