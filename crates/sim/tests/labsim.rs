//! The `labsim` binary: bad input exits 2 with a message on stderr (never a panic), help
//! exits 0, and every command's `--json` output parses (serde_json) and carries the numbers
//! of its text table.

use std::process::{Command, Output};

fn labsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_labsim"))
        .args(args)
        .output()
        .expect("labsim runs")
}

#[test]
fn bad_input_exits_2_with_a_message() {
    let cases: &[(&[&str], &str)] = &[
        (&[], "no command"),
        (&["frobnicate"], "unknown command"),
        (&["eviction", "--bogus"], "unknown option '--bogus'"),
        (&["eviction", "--cache"], "--cache needs a value"),
        (&["eviction", "--cache", "0"], "--cache: 0 is out of range"),
        (&["eviction", "--cache", "-5"], "--cache"),
        (&["eviction", "--alpha", "NaN"], "--alpha"),
        (&["eviction", "--alpha", "abc"], "not a valid number"),
        (
            &["eviction", "--requests", "100", "--warmup", "100"],
            "--warmup",
        ),
        (
            &["eviction", "--policies", "lru,nope"],
            "unknown policy 'nope'",
        ),
        (&["eviction", "--traces", "zipf,x"], "unknown trace 'x'"),
        (&["eviction", "stray"], "unexpected argument"),
        (&["eviction", "--json=yes"], "takes no value"),
        (&["lru-trace", "--ops", "fetch A"], "--ops"),
        (&["lru-trace", "--capacity", "0"], "--capacity"),
        (&["jitter", "--case", "0.1"], "J:ROUND"),
        (&["jitter", "--case", "0.1:0"], "--case"),
        (&["jitter", "--case", "2:1"], "--case"),
        (&["jitter", "--ttl", "0"], "--ttl"),
        (&["stampede", "--rate", "abc"], "--rate"),
        (
            &["stampede", "--modes", "none,panic"],
            "unknown mode 'panic'",
        ),
        (
            &["stampede", "--rate", "1e7", "--duration", "1e7"],
            "too much work",
        ),
        (&["mrc", "--trace", "loop"], "unknown trace 'loop'"),
        (&["mrc", "--sizes", "10,,x"], "--sizes"),
        (&["sampling", "--samples", "0"], "--samples"),
    ];
    for (args, want) in cases {
        let out = labsim(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: stderr lacks '{want}': {err}");
        assert!(err.contains("usage: labsim"), "{args:?}: no usage");
        assert!(!err.contains("panicked"), "{args:?} panicked");
        assert!(out.stdout.is_empty(), "{args:?} wrote to stdout");
    }
}

#[test]
fn help_exits_0() {
    for args in [
        &["--help"][..],
        &["help"],
        &["eviction", "--help"],
        &["jitter", "-h"],
    ] {
        let out = labsim(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("usage: labsim"));
    }
}

#[test]
fn json_everywhere() {
    let cmds: &[&[&str]] = &[
        &[
            "eviction",
            "--json",
            "--requests",
            "3000",
            "--warmup",
            "100",
            "--policies",
            "lru,arc",
        ],
        &["lru-trace", "--json"],
        &[
            "jitter", "--json", "--series", "--keys", "1000", "--case", "0.1:1",
        ],
        &["stampede", "--json", "--series", "--duration", "5"],
        &[
            "mrc",
            "--json",
            "--requests",
            "3000",
            "--warmup",
            "0",
            "--sizes",
            "10,20",
        ],
        &["sampling", "--json", "--trials", "1000"],
        &["policies", "--json"],
    ];
    for args in cmds {
        let out = labsim(args);
        assert!(out.status.success(), "{args:?}");
        let s = String::from_utf8(out.stdout).unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&s).unwrap_or_else(|e| panic!("{args:?}: {e}: {s}"));
        assert!(v.is_object() || v.is_array(), "{args:?}: {s}");
    }
}

fn json_of(args: &[&str]) -> serde_json::Value {
    let out = labsim(args);
    assert!(out.status.success(), "{args:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn json_carries_the_seeds_numbers() {
    // The seed's table: LRU on trace (a) scores 39.1%.
    let v = json_of(&["eviction", "--json"]);
    let lru = &v["rows"][2];
    assert_eq!(lru["policy"], "LRU");
    let hit = lru["results"][0]["hit_percent"].as_f64().unwrap();
    assert!((hit - 39.1).abs() < 0.05, "{hit}");
    assert_eq!(v["cache"], 300);
    assert_eq!(v["traces"], serde_json::json!(["zipf", "scan", "shift"]));
    // Stampede: none 503 503 0 117.
    let v = json_of(&["stampede", "--json"]);
    let none = &v["rows"][0];
    assert_eq!(
        (
            &none["mode"],
            &none["db_recomputes"],
            &none["waited"],
            &none["peak_parallel"]
        ),
        (
            &serde_json::json!("none"),
            &serde_json::json!(503),
            &serde_json::json!(503),
            &serde_json::json!(117)
        )
    );
    // Jitter ±10%, round 1: span 720, max 180.
    let v = json_of(&["jitter", "--json", "--case", "0.1:1"]);
    assert_eq!(v["rows"][0]["span"], 720);
    assert_eq!(v["rows"][0]["max_per_s"], 180);
    // The LRU walk: put D evicts B.
    let v = json_of(&["lru-trace", "--json"]);
    assert_eq!(v["steps"][4]["evicted"], "B");
    let v = json_of(&["policies", "--json"]);
    assert_eq!(v[0]["name"], "fifo");
}

#[test]
fn other_commands_print_tables() {
    let out = labsim(&[
        "mrc",
        "--requests",
        "5000",
        "--warmup",
        "500",
        "--sizes",
        "10,100",
    ]);
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.starts_with("trace zipf, keys 10000"));
    assert!(s.contains("W-TINYLFU") && s.contains("OPT"));
    let out = labsim(&["sampling", "--samples", "5,10"]);
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("83.3%") && s.contains("90.9%"), "{s}");
    let out = labsim(&[
        "lru-trace",
        "--policy",
        "fifo",
        "--ops",
        "put A, put B, get A, put C",
        "--capacity",
        "2",
    ]);
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("put C  stored, evict A"), "{s}");
}
