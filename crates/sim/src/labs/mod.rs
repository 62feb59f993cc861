//! The labs' side of the simulator: seed 001's TTL jitter wave (§5) and cache stampede (§7),
//! the eviction labs' step-able runs, typed parameters, and the worker protocol ([`work`]).
//!
//! Each lab is a pure function of (parameters, seed): a config struct whose `Default` is the
//! seed's preset, a run-to-end function, a step API for a UI that scrubs, the seed's table
//! as text (to the last digit) and a JSON form.

pub mod broadcast;
pub mod cache;
pub mod eviction;
pub mod jitter;
pub mod lock;
pub mod params;
pub mod preset;
pub mod stampede;
pub mod streams;
pub mod ui;
pub mod work;
