//! The labs' side of the simulator: every lab's parameters, runs and live driver, the one
//! registry of labs, and the worker protocol.
//!
//! * [`lab`] — what a lab is ([`lab::LabInfo`]), how it runs ([`lab::Lab`], [`lab::Run`]).
//! * [`registry`] — the one list of labs.
//! * [`params`], [`preset`] — a lab's fields, checked values and presets.
//! * [`work`] — the simulation worker's driver and messages.
//! * [`ui`] — the views' state machines (timeline, parameter form), web-free.
//! * [`owners`] — two-owner moments and the fencing check, shared by the lock labs.
//! * one module per lab: `lru`, `eviction`, `sampling`, `jitter`, `stampede` (seed 001),
//!   `cache`, `lock`, `streams`, `broadcast` (seeds 000 and 004).
//!
//! Each lab is a pure function of (parameters, seed): a typed parameter struct read from its
//! fields, a step-able run the worker drives in slices, and its output as the view draws it.

pub mod def;
pub mod lab;
pub mod log;
pub mod owners;
pub mod params;
pub mod preset;
pub mod registry;
pub mod scenario;
pub mod ui;
pub mod work;

/// One module per lab, named by its id (the registry's list).
macro_rules! lab_modules {
    ($($lab:ident),*) => {
        $(pub mod $lab;)*
    };
}
crate::for_each_lab!(lab_modules);
