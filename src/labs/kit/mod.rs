//! The lab view kit: what every lab shares, so a lab's view only draws its own picture.
//!
//! * [`use_lab`] — the preamble: the lab's parameters from its query (checked, with a message
//!   beside a bad field while the lab keeps its last good state), a setter, the preset buttons'
//!   rule (the defaults plus the preset's values, the seed kept).
//! * [`use_work`] — a run in the simulation worker, followed as it goes (progress, typed
//!   partial results, the typed result), so no main-thread task runs long; [`use_sim_live`]
//!   beside it runs the same lab against a real Redis and the simulation as its prediction.
//! * [`LabFrame`] — one frame for every lab: its picture first (on a phone the first screen),
//!   then the lead, the presets, the live panel and the form folded until opened.
//! * [`Controls`] — the transport: play, pause, step, scrub, speed and reset on a [`Timeline`].
//! * [`stat`], [`progress`] — the small pieces every lab draws the same way.
//! * [`charts`] — bars, line charts and histograms drawn the same way in every lab.

pub mod charts;
mod form;
mod frame;
pub mod owners;
pub mod time_chart;
mod transport;
mod walk;
mod work;

pub use form::*;
pub use frame::*;
pub use redislab_sim::labs::ui::{Open, ParamState, TimeAction, Timeline};
pub use transport::*;
pub use walk::*;
pub use work::*;
