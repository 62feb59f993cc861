//! The labs in a real headless Chromium, one test binary for all of them.
//!
//! * [`every_lab`] — what every lab shares, run over the registry: every preset shows the
//!   simulator's figures, a bad parameter gets its message and changes nothing, the timeline
//!   walks.
//! * one module per lab, named by its id and made from the registry (`for_each_lab!`): only
//!   what is special to that lab (a seed's table, a race, its slide).

mod every_lab;

/// One module per lab, from the registry: a new lab's file is picked up by its id.
macro_rules! lab_tests {
    ($($lab:ident),*) => {
        $(mod $lab;)*
    };
}
redislab_sim::for_each_lab!(lab_tests);
