//! The labs in a real headless Chromium, one test binary for all of them.
//!
//! * [`every_lab`] — what every lab shares, run over the registry: every preset shows the
//!   simulator's figures, a bad parameter gets its message and changes nothing, the timeline
//!   walks.
//! * one module per lab, named by its id and made from the registry (`for_each_lab!`): only
//!   what is special to that lab (a seed's table, a race, its slide).

mod every_lab;

use redislab_e2e::Browser;
use redislab_sim::labs::def::RunDef;
use redislab_sim::labs::lab::{Body, Job, LabInfo};
use redislab_sim::labs::params::Params;
use redislab_sim::labs::work::Work;

/// The native output of run `R` of lab `info` with `query`, through the worker's protocol
/// (what the page receives from the simulation worker).
pub fn native<R: RunDef>(info: &'static LabInfo, query: &str) -> R::Output {
    let (p, errs) = Params::from_query(info, query);
    assert!(errs.is_empty(), "{}?{query}: {errs:?}", info.id);
    let msgs = Work::new(Job::new(info, &p).run(R::NAME))
        .unwrap_or_else(|e| panic!("{}: {e}", info.id))
        .run_to_end();
    match msgs.last() {
        Some(Body::Done(out)) => out
            .read()
            .unwrap_or_else(|e| panic!("{}?{query}: {e}", info.id)),
        other => panic!("{}?{query} ended without output: {other:?}", info.id),
    }
}

/// Opens lab `id`'s page with `query` and waits until it has computed and shows its
/// transport.
pub fn open_lab(b: &Browser, id: &str, query: &str) {
    b.open(&format!("#/lab/{id}?{query}"));
    b.wait(120, &format!("{id}?{query} to finish"), |b| {
        b.exists(&format!(
            ".lab-{id}[aria-busy=false] .lab-controls .scrubber"
        ))
    });
}

/// One module per lab, from the registry: a new lab's file is picked up by its id.
macro_rules! lab_tests {
    ($($lab:ident),*) => {
        $(mod $lab;)*
    };
}
redislab_sim::for_each_lab!(lab_tests);
