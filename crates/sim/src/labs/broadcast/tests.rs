//! The broadcast lab's unit tests (the golden runs are in `tests/broadcast.rs`).

use super::*;
use crate::labs::def::{Figures, Steps};

fn preset_params(id: &str) -> BroadcastParams {
    let (p, errs) = Params::from_query(&INFO, &format!("preset={id}"));
    assert!(errs.is_empty(), "{errs:?}");
    p.read()
}

#[test]
fn defaults_are_the_fixed_preset_and_every_preset_is_valid() {
    assert_eq!(BroadcastParams::default(), preset_params("fixed"));
    assert_eq!(
        Params::defaults(&INFO).preset().map(|p| p.id),
        Some("fixed")
    );
    for pr in params::PRESETS {
        let (p, errs) = Params::from_query(&INFO, &format!("preset={}", pr.id));
        assert!(errs.is_empty(), "{}: {errs:?}", pr.id);
        assert!(p.preset().is_some(), "{}", pr.id);
    }
    assert_eq!(BroadcastParams::default().batches(), 1000);
}

#[test]
fn stepping_in_slices_equals_the_run_to_the_end() {
    for id in ["fixed", "outage", "crash", "dedup"] {
        let p = preset_params(id);
        let full = run(&p);
        let mut r = sim(&p.config());
        while !r.steps(997) {}
        assert_eq!(r.output(), full, "{id}");
    }
}

#[test]
fn the_worker_protocol_gives_the_same_result() {
    use crate::labs::work::{Body, Job, Work};
    let p = preset_params("dead-tokens");
    let job = Job::new(&INFO, &Params::from_query(&INFO, "preset=dead-tokens").0);
    let msgs = Work::new(job).unwrap().run_to_end();
    let Some(Body::Done(r)) = msgs.last() else {
        panic!("no result")
    };
    assert_eq!(r.read::<BroadcastOutput>().unwrap(), run(&p));
    let s = serde_json::to_string(&msgs).unwrap();
    assert_eq!(serde_json::from_str::<Vec<Body>>(&s).unwrap(), msgs);
}

/// The page's figures are the end frame's and the counters'; the timeline walks the frames
/// (frame 0 at the start, the last the end); `labsim --json` leaves out only what the page
/// alone draws.
#[test]
fn figures_steps_and_the_cli_output() {
    let r = run(&preset_params("outage"));
    let f = r.figures();
    let of = |k: &str| f.iter().find(|x| x.key == k).map(|x| x.value);
    assert_eq!(of("delivered"), Some(500_000.0));
    assert_eq!(of("lost"), Some(0.0));
    assert_eq!(of("retries"), Some(r.counters.retries as f64));
    assert_eq!(r.steps() + 1, r.frames.len());
    assert_eq!(r.frames[0].at_ms, 0);
    // Every run once: the notable ones and the routine ones.
    let routine = r.routine.as_ref().expect("the page's runs");
    assert!(r.attempts.iter().all(Attempt::notable));
    assert!(routine.iter().all(|a| !a.notable()));
    assert_eq!(r.runs().len(), r.attempts.len() + routine.len());
    assert!(!r.log().is_empty());
    let cli = r.clone().for_cli(false);
    assert!(cli.routine.is_none() && cli.commands.is_none());
    let json = serde_json::to_value(&cli).unwrap();
    assert!(json.get("routine").is_none() && json.get("commands").is_none());
    assert_eq!(r.clone().for_cli(true), r);
    // The naive loop names no queue figures.
    let n = run(&preset_params("naive")).figures();
    assert!(n.iter().all(|x| x.key != "retries"));
}
