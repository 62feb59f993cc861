//! Labs beyond eviction: seed 001's TTL jitter wave (§5) and cache stampede (§7).
//!
//! Each lab is a pure function of (parameters, seed): a config struct whose `Default` is the
//! seed's preset, a run-to-end function, a step API for a UI that scrubs, the seed's table
//! as text (to the last digit) and a JSON form.

pub mod jitter;
pub mod params;
pub mod stampede;
