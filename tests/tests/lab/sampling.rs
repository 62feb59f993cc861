//! The sampling lab's own browser tests: what the shared ones (`every_lab`) do not check.
//! Its seed table and walk-through are checked in `tests/tests/labs.rs` until they move here.
