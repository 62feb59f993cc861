//! Redis Lab simulation core: pure Rust, seeded, deterministic, no web dependencies.
