use super::*;
use crate::labs::def::{Figures, Steps};
use model::{expiry_times, CaseCount, CaseSet};
use output::{nice_ceil, MAX_BINS, MIN_WINDOW};

#[test]
fn no_jitter_is_one_second() {
    let w = JitterWave::run(
        &JitterConfig::default(),
        JitterCase {
            jitter: 0.0,
            round: 1,
        },
    );
    assert_eq!((w.span, w.max), (1, 100_000));
    assert_eq!(w.histogram, [(3600, 100_000)]);
}

#[test]
fn binned_sums_to_keys() {
    let cfg = JitterConfig {
        keys: 1000,
        ..JitterConfig::default()
    };
    let w = JitterWave::run(
        &cfg,
        JitterCase {
            jitter: 0.1,
            round: 1,
        },
    );
    let bins = w.binned(60);
    assert_eq!(bins.iter().map(|b| b.1).sum::<u32>(), 1000);
    assert!(bins.windows(2).all(|p| p[1].0 - p[0].0 == 60));
    let chart = JitterOutput::new(w.clone(), 1000);
    assert_eq!(chart.before(chart.bins.len()), 1000);
    assert!(chart.bins.len() as i64 <= MAX_BINS);
    assert_eq!(chart.row.max_per_s, w.max);
    // "This second" at the end of each bar is the histogram's count of that second.
    for (i, &e) in chart.ends.iter().enumerate() {
        let s = chart.w0 + chart.bin * (i as i64 + 1) - 1;
        let want = w.histogram.iter().find(|h| h.0 == s).map_or(0, |h| h.1);
        assert_eq!(e, want, "bar {i}");
        assert_eq!(chart.this_second(i + 1), want);
    }
    assert_eq!(chart.this_second(0), 0);
    // The load spread counts every second of the span once.
    let seconds: f64 = chart.loads.iter().map(|l| l.1).sum();
    assert_eq!(seconds as u64, w.span);
}

#[test]
fn a_wall_is_one_bar_in_a_minute_window() {
    let w = JitterWave::run(
        &JitterConfig::default(),
        JitterCase {
            jitter: 0.0,
            round: 1,
        },
    );
    let c = JitterOutput::new(w, 100_000);
    assert_eq!(c.bin, 1);
    assert_eq!(c.bins.len() as i64, MIN_WINDOW);
    assert_eq!(c.bins.iter().filter(|&&b| b > 0).count(), 1);
    assert_eq!(c.peak_at, 3600);
}

#[test]
fn the_set_in_steps_equals_the_table() {
    let cfg = JitterConfig {
        keys: 3000,
        ..JitterConfig::default()
    };
    let (want, _) = table(&cfg, &seed_cases());
    for draws in [1, 5000, u32::MAX] {
        let mut set = CaseSet::new(cfg, seed_cases(), true);
        let mut got = Vec::new();
        while !set.is_done() {
            got.extend(set.step(draws));
        }
        assert_eq!(got, want, "draws {draws}");
    }
}

#[test]
fn nice_ceilings() {
    for (v, want) in [
        (0.5, 1.0),
        (1.0, 1.0),
        (1.2, 2.0),
        (2.2, 2.5),
        (3.0, 5.0),
        (7.0, 10.0),
        (180.0, 200.0),
        (100_000.0, 100_000.0),
        (f64::NAN, 1.0),
    ] {
        assert_eq!(nice_ceil(v), want, "{v}");
    }
}

/// The plain definition: floor every expiry, sort, count runs.
fn reference(cfg: &JitterConfig, case: JitterCase) -> Vec<(i64, u32)> {
    let mut secs: Vec<i64> = expiry_times(cfg, case)
        .map(|t| libm::floor(t) as i64)
        .collect();
    secs.sort_unstable();
    let mut h: Vec<(i64, u32)> = Vec::new();
    for s in secs {
        match h.last_mut() {
            Some((last, n)) if *last == s => *n += 1,
            _ => h.push((s, 1)),
        }
    }
    h
}

/// Counting in chunks of any size gives the plain definition's histogram.
#[test]
fn chunked_counting_equals_the_definition() {
    for (keys, ttl, seed) in [(5_000, 3600.0, 5), (777, 10.0, 1), (3_000, 86_400.0, 42)] {
        let cfg = JitterConfig { keys, ttl, seed };
        for (jitter, round) in [(0.0, 1), (0.01, 1), (0.1, 3), (0.5, 2), (0.9, 10)] {
            let case = JitterCase { jitter, round };
            let want = reference(&cfg, case);
            for draws in [1, 97, 8192, u32::MAX] {
                let mut r = CaseCount::new(&cfg, case);
                while !r.step(draws) {}
                assert_eq!(
                    r.finish().histogram,
                    want,
                    "keys {keys} ttl {ttl} J {jitter} round {round} draws {draws}"
                );
            }
        }
    }
}

/// The main run gives the seed's ±10% case (720 s, 138.9 a second, 180 at most), its figures
/// at the end of the timeline; the table run the seed's rows without histograms.
#[test]
fn the_runs_give_the_seeds_numbers() {
    use crate::labs::lab::Run;
    let p = JitterParams::default();
    let mut c = ChartCount::new(p.config(), p.case());
    while !c.is_done() {
        c.step();
    }
    let o = c.output();
    assert_eq!((o.row.span, o.row.max_per_s), (720, 180));
    assert_eq!(o.positions(), o.bins.len() + 1);
    assert_eq!(o.second_at(0), o.w0);
    let f: Vec<(String, f64)> = o.figures().into_iter().map(|f| (f.key, f.value)).collect();
    assert_eq!(f[0], ("span".into(), 720.0));
    assert!((f[1].1 - 138.888_888).abs() < 1e-3);
    assert_eq!(f[2], ("max".into(), 180.0));
    assert_eq!(f[3], ("gone".into(), 100_000.0));
    let mut t = TableCount::new(
        JitterConfig {
            keys: 2000,
            ..p.config()
        },
        seed_cases(),
    );
    let mut parts = Vec::new();
    while !t.is_done() {
        parts.extend(t.step());
    }
    let cases = t.output();
    assert_eq!(cases.rows, parts);
    assert_eq!(cases.rows.len(), 8);
    assert!(cases.rows.iter().all(|r| r.histogram.is_none()));
    let json = serde_json::to_value(&cases).unwrap().to_string();
    assert!(
        json.starts_with(r#"{"keys":2000,"rows":[{"jitter":0.0,"max_per_s":2000,"mean_per_s":2000.0,"round":1,"span":1},"#),
        "{json}"
    );
    assert!(
        json.ends_with(r#""seed":5,"ttl":3600.0,"ttl_text":"3600"}"#),
        "{json}"
    );
}
