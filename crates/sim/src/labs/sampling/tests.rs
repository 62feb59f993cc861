use super::*;
use crate::eviction::sampling::sampling_quality;
use crate::labs::def::{Figures, Steps};
use crate::labs::lab::Run;

#[test]
fn sampling_in_steps_equals_sampling_quality() {
    let p = SamplingParams::default();
    let mut s = Sweep::new(p);
    let mut got = Vec::new();
    while !s.is_done() {
        got.extend(s.step());
    }
    let ks: Vec<u32> = (1..=p.kmax).collect();
    assert_eq!(got, sampling_quality(p.keys, &ks, p.trials, p.seed));
    assert_eq!(s.points(), &got[..]);
    assert_eq!(s.progress(), 1.0);
    assert_eq!(run(p).points, got);
}

/// The seed's numbers: k = 5 within a point of 5/6, k = 10 of 10/11; position k shows k.
#[test]
fn the_seeds_k5_and_positions() {
    let o = run(SamplingParams::default());
    assert_eq!((o.steps(), o.positions()), (16, 17));
    assert_eq!(o.shown_at(0), None);
    assert_eq!(o.shown_at(5).map(|p| p.k), Some(5));
    assert_eq!(o.position_of(5), 5);
    let f = o.figures();
    assert_eq!(f.len(), 2);
    assert_eq!(f[0].key, "k5");
    assert!((f[0].value - 83.03).abs() < 0.01, "{}", f[0].value);
    assert!((f[1].value - 91.10).abs() < 0.01, "{}", f[1].value);
    // Fewer than 5 k: no figure.
    let small = run(SamplingParams {
        kmax: 4,
        ..SamplingParams::default()
    });
    assert!(small.figures().is_empty());
    // The output is a JSON array of points, as `labsim sampling --json` prints it.
    let json = serde_json::to_string(&small).unwrap();
    assert!(json.starts_with(r#"[{"k":1,"measured":"#), "{json}");
    assert_eq!(
        serde_json::from_str::<SamplingOutput>(&json).unwrap(),
        small
    );
}
