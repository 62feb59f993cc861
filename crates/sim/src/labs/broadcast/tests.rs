//! The broadcast lab's unit tests (the golden runs are in `tests/broadcast.rs`).

use super::*;
use crate::labs::params::Params;

fn preset_params(id: &str) -> BroadcastParams {
    let (p, errs) = Params::from_query(&INFO, &format!("preset={id}"));
    assert!(errs.is_empty(), "{errs:?}");
    p.typed()
}

#[test]
fn defaults_are_the_fixed_preset_and_every_preset_is_valid() {
    assert_eq!(BroadcastParams::default(), preset_params("fixed"));
    assert_eq!(
        Params::defaults(&INFO).preset().map(|p| p.id),
        Some("fixed")
    );
    for pr in PRESETS {
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
        let mut r = sim(&p);
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
    assert_eq!(r.read::<BroadcastResult>().unwrap(), run(&p));
    let s = serde_json::to_string(&msgs).unwrap();
    assert_eq!(serde_json::from_str::<Vec<Body>>(&s).unwrap(), msgs);
}
