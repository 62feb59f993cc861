//! Golden tests: seed 001's four printed tables, reproduced to the last digit, both as the
//! formatted text `labsim` prints and as numbers.

use redislab_sim::eviction::lru_trace::{format_table, lru_trace, seed_ops};
use redislab_sim::labs::jitter::{self, JitterConfig};
use redislab_sim::labs::stampede::{self, Mode, StampedeConfig};
use redislab_sim::{eviction_table, EvictionConfig};

const EVICTION: &str = "\
keys 10000, Zipf alpha 0.9, cache 300 keys, 60000 user requests (first 10000 = warm-up)
policy     (a) Zipf  (b) + scan  (c) shift
FIFO         34.7%     27.7%     34.6%
RANDOM       34.7%     27.7%     34.5%
LRU          39.1%     31.9%     39.0%
LFU          48.7%     48.2%     22.2%
OPT          59.9%     59.9%     59.2%
";

const LRU_TRACE: &str = "\
op     result               list (MRU ... LRU)
put A  stored               A
put B  stored               B <-> A
put C  stored               C <-> B <-> A
get A  hit                  A <-> C <-> B
put D  stored, evict B      D <-> A <-> C
get B  miss, load, evict C  B <-> D <-> A
get A  hit                  A <-> B <-> D
";

const JITTER: &str = "\
jitter  round  span (s)  mean per s  max per s
  +-0%      1         1    100000.0    100000
  +-1%      1        72      1388.9      1479
  +-5%      1       360       277.8       325
 +-10%      1       720       138.9       180
 +-20%      1      1440        69.4        99
  +-0%      3         1    100000.0    100000
 +-10%      2      1436        69.6       169
 +-10%      3      2129        47.0       130
";

const STAMPEDE: &str = "\
recompute 50 ms, TTL 10 s, 2000 req/s for 60 s
mode     DB recomputes   waited  served  peak DB
                      at expiry   stale  parallel
none              503      503       0       117
lock                5      475       0         1
stale               5        0     475         1
xfetch             12        0       0         3
";

#[test]
fn eviction_table_matches_the_seed() {
    let t = eviction_table(&EvictionConfig::default()).unwrap();
    assert_eq!(t.to_text(), EVICTION);
    // Exact hit counts (out of 50,000 scored requests), from the seed's JavaScript.
    let hits: Vec<Vec<u64>> = t
        .rows
        .iter()
        .map(|r| r.stats.iter().map(|s| s.scored_hits).collect())
        .collect();
    assert_eq!(
        hits,
        [
            [17372, 13869, 17325],
            [17369, 13831, 17260],
            [19568, 15945, 19482],
            [24363, 24101, 11115],
            [29959, 29959, 29582],
        ]
    );
    for r in &t.rows {
        for s in &r.stats {
            assert_eq!(s.scored_requests, 50_000);
        }
    }
    // Trace (b) adds two scan reads per request in the 6 odd blocks of 5,000: 60,000 more.
    assert_eq!(t.rows[0].stats[1].requests, 60_000 + 2 * 30_000);
}

#[test]
fn lru_trace_matches_the_seed() {
    let steps = lru_trace(3, &seed_ops());
    assert_eq!(format_table(&steps, "MRU ... LRU"), LRU_TRACE);
    let notes: Vec<String> = steps.iter().map(|s| s.note()).collect();
    assert_eq!(
        notes,
        [
            "stored",
            "stored",
            "stored",
            "hit",
            "stored, evict B",
            "miss, load, evict C",
            "hit"
        ]
    );
    assert_eq!(steps[6].order, ["A", "B", "D"]);
}

#[test]
fn jitter_table_matches_the_seed() {
    let (waves, text) = jitter::table(&JitterConfig::default(), &jitter::seed_cases());
    assert_eq!(text, JITTER);
    let spans: Vec<u64> = waves.iter().map(|w| w.span).collect();
    let maxes: Vec<u32> = waves.iter().map(|w| w.max).collect();
    assert_eq!(spans, [1, 72, 360, 720, 1440, 1, 1436, 2129]);
    assert_eq!(maxes, [100000, 1479, 325, 180, 99, 100000, 169, 130]);
    let means: Vec<String> = waves
        .iter()
        .map(|w| redislab_sim::jsfmt::to_fixed(w.mean, 1))
        .collect();
    assert_eq!(
        means,
        ["100000.0", "1388.9", "277.8", "138.9", "69.4", "100000.0", "69.6", "47.0"]
    );
    for w in &waves {
        assert_eq!(w.histogram.iter().map(|h| h.1).sum::<u32>(), 100_000);
    }
}

#[test]
fn stampede_table_matches_the_seed() {
    let (runs, text) = stampede::table(&StampedeConfig::default(), Mode::ALL);
    assert_eq!(text, STAMPEDE);
    let nums: Vec<(u64, u64, u64, u32)> = runs
        .iter()
        .map(|r| {
            let c = r.counters;
            (c.db, c.waited, c.stale, c.peak)
        })
        .collect();
    assert_eq!(
        nums,
        [
            (503, 503, 0, 117),
            (5, 475, 0, 1),
            (5, 0, 475, 1),
            (12, 0, 0, 3)
        ]
    );
    // The chart series agrees with the totals.
    for r in &runs {
        let peak = r.buckets.iter().map(|b| b.peak_inflight).max().unwrap();
        assert_eq!(peak, r.counters.peak);
        let db: u64 = r.buckets.iter().map(|b| u64::from(b.recomputes)).sum();
        assert_eq!(db, r.counters.db);
    }
}

#[test]
fn labsim_prints_the_seed_tables() {
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_labsim"))
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(run(&["eviction"]), EVICTION);
    assert_eq!(run(&["lru-trace"]), LRU_TRACE);
    assert_eq!(run(&["jitter"]), JITTER);
    assert_eq!(run(&["stampede"]), STAMPEDE);
}
