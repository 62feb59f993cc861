//! Class mode (`docs/class-mode.md`): the `/class` WebSocket, beside `/ws`. A page sends the
//! typed operations of `redislab_sim::class` (create, teach, join, show, answer, results,
//! end), never a Redis command; the proxy checks who may do what — default deny: a page
//! that has not joined or taken a class can do nothing but that, a student can only answer
//! for themselves, only the connection that holds the instructor's secret (and the lease of
//! its tab) can move the class — and does the Redis work with its own scripts
//! ([`store`]). Pushes come through this proxy's one subscription per class ([`hub`]).

pub mod conn;
pub mod hub;
pub mod store;

use std::time::Duration;

/// Class mode's bounds (the README's table says why each is what it is).
#[derive(Clone, Copy, Debug)]
pub struct ClassLimits {
    /// Students a class takes.
    pub max_students: u32,
    /// How long a class lasts at most; its keys expire then, whatever happens.
    pub max_duration: Duration,
    /// Joins from one address in a minute (a class behind one NAT joins from one).
    pub joins_per_address: u32,
    /// Joins with a code no class has, from one address in a minute: past them every join
    /// from the address is refused for the rest of the minute (code guessing).
    pub wrong_codes_per_address: u32,
    /// Joins with one student's token in 10 s (a page that reconnects in a loop).
    pub joins_per_student: u32,
    /// Answers (and results) one student may send in 10 s.
    pub answers_per_student: u32,
    /// Answers (and results) from one address in 10 s.
    pub answers_per_address: u32,
    /// Classes made from one address in an hour.
    pub classes_per_address: u32,
    /// Messages a second one class connection may send (burst 2×), before anything is read.
    pub messages_per_sec: u32,
}

impl Default for ClassLimits {
    fn default() -> Self {
        ClassLimits {
            max_students: 1000,
            max_duration: Duration::from_secs(4 * 3600),
            joins_per_address: 600,
            wrong_codes_per_address: 10,
            joins_per_student: 30,
            answers_per_student: 20,
            answers_per_address: 3000,
            classes_per_address: 20,
            messages_per_sec: 10,
        }
    }
}

/// The window of a student's counters.
pub const STUDENT_WINDOW_MS: u64 = 10_000;
/// How long the instructor's tab holds the class without renewing.
pub const LEASE_MS: u64 = 30_000;
