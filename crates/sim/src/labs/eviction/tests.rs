use super::*;
use crate::eviction::registry::{by_name, Spec};
use crate::eviction::runner::{eviction_table, run, EvictionConfig};
use crate::eviction::trace::Trace;
use crate::eviction::Stats;
use crate::labs::def::{Figures, Steps};
use crate::labs::lab::Run;
use model::{curve_policies, curve_sizes, CurveCount, RaceReplay, TableCount};

const EVICTION: &LabInfo = &INFO;

fn small() -> EvictionParams {
    let (p, e) = Params::from_query(
        EVICTION,
        "keys=2000&cache=100&warmup=1000&requests=6000&policies=lru,arc,w-tinylfu,opt,random&focus=lfu&trace=scan",
    );
    assert!(e.is_empty(), "{e:?}");
    p.read()
}

#[test]
fn the_table_in_steps_equals_the_table() {
    for p in [EvictionParams::default(), small()] {
        let cfg = p.config();
        let want = eviction_table(&cfg).unwrap();
        let mut run = TableCount::new(cfg).unwrap();
        let mut rows = Vec::new();
        while !run.is_done() {
            rows.extend(run.step());
        }
        assert_eq!(run.table(), want);
        assert_eq!(rows.len(), want.rows.len());
        for (r, w) in rows.iter().zip(&want.rows) {
            assert_eq!(r.policy, w.name);
            let cells: Vec<Cell> = w.stats.iter().map(Cell::from).collect();
            assert_eq!(r.results, cells);
        }
        assert_eq!(run.progress(), 1.0);
    }
    let seed = TableCount::new(EvictionConfig::default()).unwrap();
    assert_eq!(seed.progress(), 0.0);
    let mut bad = EvictionConfig::default();
    bad.policies.push("nope".into());
    assert!(TableCount::new(bad).is_err());
}

#[test]
fn the_race_ends_where_a_run_to_the_end_does() {
    let p = small();
    let mut run = RaceReplay::new(&p).unwrap();
    let race = loop {
        if let Some(r) = run.step() {
            break r;
        }
    };
    let cfg = p.config();
    let trace = cfg.trace.with_kind(p.kind()).generate();
    assert_eq!(race.trace_len, trace.keys.len());
    assert_eq!(race.positions.last(), Some(&trace.keys.len()));
    for (i, name) in cfg.policies.iter().enumerate() {
        let spec = Spec {
            capacity: cfg.cache,
            seed: cfg.policy_seed,
            future: &trace.keys,
        };
        let mut pol = by_name(name, &spec).unwrap();
        let want = run_to(&mut *pol, &trace, cfg.warmup, usize::MAX);
        assert_eq!(race.frames[FRAMES - 1][i], want, "{name}");
        // Every frame is the run up to its boundary.
        for f in [0, 7, 23] {
            let mut pol = by_name(name, &spec).unwrap();
            let want = run_to(&mut *pol, &trace, cfg.warmup, race.positions[f]);
            assert_eq!(race.frames[f][i], want, "{name} frame {f}");
        }
    }
    // LFU is not raced but explained: its log ends at each frame's boundary.
    assert_eq!(race.focus_name, "LFU");
    assert!(race.focus_rule.contains("কম ব্যবহৃত"));
    for f in 0..FRAMES {
        let last = race.logs[f].last().unwrap();
        assert_eq!(last.index + 1, race.positions[f]);
        assert!(race.logs[f].len() <= LOG);
    }
    assert_eq!(run.progress(), 1.0);
    assert!(run.step().is_none());
}

/// The first `n` requests of `trace` through `policy`, scored like `run`.
fn run_to(policy: &mut dyn crate::eviction::Policy, trace: &Trace, warmup: u64, n: usize) -> Stats {
    let cut = Trace {
        keys: trace.keys[..n.min(trace.keys.len())].to_vec(),
        user_keys: trace.user_keys,
    };
    run(policy, &cut, warmup)
}

#[test]
fn the_curves_in_steps_equal_mrc() {
    let p = small();
    let cfg = p.config();
    let mut run = CurveCount::new(&p).unwrap();
    let mut points = Vec::new();
    while !run.is_done() {
        points.extend(run.step());
    }
    let trace = cfg.trace.with_kind(p.kind()).generate();
    let names = curve_policies(&cfg.policies);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let sizes = curve_sizes(cfg.cache, cfg.trace.keys);
    let want = crate::mrc(&names, &trace, cfg.warmup, &sizes, cfg.policy_seed).unwrap();
    assert_eq!(run.series().len(), want.len());
    for (s, w) in run.series().iter().zip(&want) {
        assert_eq!(s.name, w.name);
        let pts: Vec<(f64, f64)> = w
            .points
            .iter()
            .map(|(size, st)| (f64::from(*size), st.hit_percent()))
            .collect();
        assert_eq!(s.points, pts);
    }
    assert_eq!(points.len(), sizes.len() * want.len());
    assert_eq!(sizes, [12, 25, 50, 100, 200, 400, 800]);
}

/// The main run's output: the seed's table (LRU 39.1 / 31.9 / 39.0), its figures by cell, and
/// the JSON `labsim eviction --json` prints.
#[test]
fn the_output_is_the_seeds_table() {
    let mut t = TableCount::new(EvictionParams::default().config()).unwrap();
    while !t.is_done() {
        Run::step(&mut t);
    }
    let o = Run::output(&mut t);
    let lru = o.rows.iter().find(|r| r.policy == "LRU").unwrap();
    let pct: Vec<String> = lru
        .results
        .iter()
        .map(|c| format!("{:.1}", c.hit_percent))
        .collect();
    assert_eq!(pct, ["39.1", "31.9", "39.0"]);
    let f = o.figures();
    assert_eq!(f.len(), 15);
    assert_eq!(f[6].key, "lru-zipf");
    assert_eq!(f[6].value, lru.results[0].hit_percent);
    let json = serde_json::to_value(&o).unwrap().to_string();
    assert!(
        json.starts_with(r#"{"alpha":0.9,"cache":300,"keys":10000,"policy_seed":99,"requests":60000,"rows":[{"policy":"FIFO","results":[{"evictions":38931,"hit_percent":34.744,"hits":20769,"misses":39231,"requests":60000,"scored_hits":17372,"scored_requests":50000},"#),
        "{json}"
    );
    assert!(
        json.ends_with(r#""seed":7,"traces":["zipf","scan","shift"],"warmup":10000}"#),
        "{json}"
    );
    // What the view reads back is what was sent (serde_json parses a float to within one
    // unit in the last place, so the comparison is of the parsed JSON on both sides).
    let sent = serde_json::to_string(&o).unwrap();
    let back: EvictionOutput = serde_json::from_str(&sent).unwrap();
    assert_eq!(
        serde_json::to_value(&back).unwrap(),
        serde_json::from_str::<serde_json::Value>(&sent).unwrap()
    );
}

/// The race's timeline: position 0 before any request, position k after the k-th part.
#[test]
fn the_race_positions() {
    let mut r = RaceReplay::new(&small()).unwrap();
    while !Run::is_done(&r) {
        Run::step(&mut r);
    }
    let race = Run::output(&mut r);
    assert_eq!((race.steps(), race.positions()), (FRAMES, FRAMES + 1));
    assert_eq!(race.replayed(0), 0);
    assert_eq!(race.stats(0, 0), Stats::default());
    assert!(race.log(0).is_empty());
    assert_eq!(race.replayed(FRAMES), race.trace_len);
    assert_eq!(race.stats(1, 0), race.frames[0][0]);
}
