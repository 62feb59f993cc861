use super::*;
use crate::eviction::lru_trace::{lru_trace, seed_ops};
use crate::labs::def::{Figures, Steps};
use crate::labs::eviction::Policy;

#[test]
fn the_lru_walk_is_the_seeds() {
    let p = LruParams::default();
    let w = run(&p).unwrap();
    assert_eq!(w.steps, lru_trace(3, &seed_ops()));
    let about = w.about.clone().unwrap();
    assert_eq!(about.order_bn, ["MRU".to_string(), "LRU".to_string()]);
    assert!(about.linked && !about.rule_bn.is_empty() && !about.hit_bn.is_empty());
    // put A, put B, put C: new; get A: hit; put D: new (evicts B).
    let touches: Vec<Touch> = (0..w.steps.len())
        .map(|i| touch(&w.steps[i], w.order_at(i)))
        .collect();
    use Touch::{Hit, New};
    assert_eq!(touches, [New, New, New, Hit, New, New, Hit]);
    // OPT refuses a key never needed again: "put X" after the cache is full.
    let opt = LruParams {
        policy: Policy::Opt,
        capacity: 1,
        ops: "put A, put X, get A".into(),
        ..p.clone()
    };
    let o = run(&opt).unwrap();
    assert_eq!(touch(&o.steps[1], &o.steps[0].order), Touch::Refused);
    // Putting a resident key is an update (a hit), not a new key.
    let upd = run(&LruParams {
        ops: "put A, put A".into(),
        ..p.clone()
    })
    .unwrap();
    assert_eq!(touch(&upd.steps[1], &upd.steps[0].order), Touch::Hit);
    let bad = LruParams {
        ops: "fly A".into(),
        ..p
    };
    assert!(run(&bad).is_err());
}

/// The timeline: position 0 is the empty cache, position k the cache after k operations;
/// the figures are the whole walk's (2 hits, 1 load, 2 evictions in the seed's trace).
#[test]
fn positions_and_figures() {
    let w = run(&LruParams::default()).unwrap();
    assert_eq!((w.steps(), w.positions()), (7, 8));
    assert!(w.order_at(0).is_empty());
    assert_eq!(w.order_at(5), ["D", "A", "C"]);
    assert_eq!(w.so_far(0), (0, 0, 0));
    assert_eq!(w.so_far(5), (1, 0, 1));
    assert_eq!(w.position_of(4), 5);
    let f: Vec<(String, f64)> = w.figures().into_iter().map(|f| (f.key, f.value)).collect();
    assert_eq!(
        f,
        [
            ("hits".to_string(), 2.0),
            ("misses".to_string(), 1.0),
            ("evictions".to_string(), 2.0)
        ]
    );
}

/// What the view receives reads back as the same walk, for every policy (the outcome comes
/// back from the operation and the note); `labsim --json` prints the walk without the texts.
#[test]
fn the_output_round_trips_as_json() {
    for &policy in Policy::ALL {
        let p = LruParams {
            policy,
            ops: "put A, put B, get A, get C, put D, get B, put A, get E".into(),
            capacity: 2,
            ..LruParams::default()
        };
        let w = run(&p).unwrap();
        let back: LruOutput = serde_json::from_str(&serde_json::to_string(&w).unwrap()).unwrap();
        assert_eq!(back, w, "{policy}");
    }
    let bare = model::walk(&LruParams::default(), false).unwrap();
    assert_eq!(
        serde_json::to_value(&bare).unwrap().to_string(),
        r#"{"capacity":3,"policy":"lru","steps":[{"evicted":null,"key":"A","op":"put","order":["A"],"result":"stored"},{"evicted":null,"key":"B","op":"put","order":["B","A"],"result":"stored"},{"evicted":null,"key":"C","op":"put","order":["C","B","A"],"result":"stored"},{"evicted":null,"key":"A","op":"get","order":["A","C","B"],"result":"hit"},{"evicted":"B","key":"D","op":"put","order":["D","A","C"],"result":"stored, evict B"},{"evicted":"C","key":"B","op":"get","order":["B","D","A"],"result":"miss, load, evict C"},{"evicted":null,"key":"A","op":"get","order":["A","B","D"],"result":"hit"}]}"#
    );
}
