use super::*;
use crate::labs::def::{Figures, Steps};
use model::{bucket_width, ModeSet, StampedeSim, MAX_BUCKETS};

#[test]
fn stepping_matches_run_to_end() {
    let cfg = StampedeConfig::default();
    let mut sim = StampedeSim::new(cfg, Mode::Lock);
    let n = sim.by_ref().count() as u64;
    let s = StampedeSummary::run(&cfg, Mode::Lock);
    assert_eq!(sim.counters(), s.counters);
    assert_eq!(n, s.counters.requests);
    let per_bucket: u64 = s.buckets.iter().map(|b| u64::from(b.recomputes)).sum();
    assert_eq!(per_bucket, s.counters.db);
    assert_eq!(s.buckets.len(), 600);
}

#[test]
fn the_set_in_steps_equals_the_table() {
    let cfg = StampedeConfig {
        duration: 20.0,
        bucket: bucket_width(20.0),
        ..StampedeConfig::default()
    };
    let (want, _) = table(&cfg, Mode::ALL);
    for events in [1, 777, usize::MAX] {
        let mut set = ModeSet::new(cfg);
        let mut got = Vec::new();
        while !set.is_done() {
            got.extend(set.step(events));
        }
        assert_eq!(got, want, "events {events}");
        assert_eq!(set.summaries(), &want[..]);
    }
    let s = &want[0];
    assert_eq!(s.so_far(s.buckets.len()), s.counters);
    assert_eq!(s.so_far(0), Counters::default());
}

#[test]
fn bucket_widths_are_round_and_few() {
    assert_eq!(bucket_width(60.0), 0.2);
    assert_eq!(bucket_width(1.0), 0.01);
    assert_eq!(bucket_width(600.0), 2.0);
    for d in [1.0, 7.5, 60.0, 333.0, 600.0] {
        assert!(d / bucket_width(d) <= MAX_BUCKETS, "{d}");
    }
}

/// The lab's run: the seed's table (503 / 5 / 5 / 12 recomputes, 117 at once without
/// protection), its figures, its timeline of 240 positions over 300 buckets, and the JSON
/// `labsim stampede --json` prints (the buckets only with `--series`).
#[test]
fn the_run_gives_the_seeds_table_and_its_figures() {
    let o = run(&StampedeParams::default().config());
    let db: Vec<u64> = o.rows.iter().map(|r| r.db_recomputes).collect();
    assert_eq!(db, [503, 5, 5, 12]);
    assert_eq!(o.row(Mode::None).unwrap().peak_parallel, 117);
    assert_eq!(o.buckets(), 300);
    assert_eq!((o.group(), o.steps()), (2, 150));
    assert_eq!((o.upto(0), o.upto(150)), (0, 300));
    assert_eq!(o.time_at(150), 60.0);
    for r in &o.rows {
        assert_eq!(StampedeOutput::so_far(r, o.upto(o.steps())), r.counters());
        assert_eq!(StampedeOutput::so_far(r, 0), Counters::default());
    }
    let f = o.figures();
    assert_eq!(f.len(), 16);
    assert_eq!((f[0].key.as_str(), f[0].value), ("none-db", 503.0));
    assert_eq!((f[3].key.as_str(), f[3].value), ("none-peak", 117.0));
    let (runs, _) = table(&o.config(), Mode::ALL);
    let bare = StampedeOutput::new(&o.config(), &runs, false);
    let json = serde_json::to_value(&bare).unwrap().to_string();
    assert!(json.starts_with(r#"{"beta":1.0,"bucket":0.2,"bucket_fields":["requests","recomputes","peak_inflight","waited","stale"],"delta":0.05,"duration":60.0,"rate":2000.0,"rows":[{"db_recomputes":503,"mode":"none","peak_parallel":117,"requests":120279,"served_stale":0,"waited":503},"#), "{json}");
    let back: StampedeOutput = serde_json::from_str(&serde_json::to_string(&o).unwrap()).unwrap();
    assert_eq!(back, o);
}
