//! The deck player: the slide renderer, the audience's player with its keys, autoplay, script,
//! fullscreen, overview and help, the speaker window, and the handouts for printing.

pub mod control;
pub mod player;
pub mod print;
pub mod slide;
pub mod speaker;
