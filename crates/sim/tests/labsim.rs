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
        (
            &["eviction", "--cache", "0"],
            "--cache: 1 থেকে 20000-এর মধ্যে",
        ),
        (&["eviction", "--cache", "-5"], "--cache"),
        (&["eviction", "--alpha", "NaN"], "--alpha"),
        (
            &["eviction", "--alpha", "abc"],
            "--alpha: 0 থেকে 3-এর মধ্যে একটা সংখ্যা দিন",
        ),
        (
            &["eviction", "--requests", "1000", "--warmup", "1000"],
            "--warmup: warm-up মোট রিকোয়েস্টের চেয়ে কম হতে হবে",
        ),
        (&["eviction", "--keys", "200001"], "--keys"),
        (
            &["eviction", "--cache", "20000"],
            "--cache: ক্যাশ মোট key-এর চেয়ে বড়",
        ),
        (&["eviction", "--policies", "lru,nope"], "`nope` চেনা নেই"),
        (&["eviction", "--traces", "zipf,x"], "unknown trace 'x'"),
        (&["eviction", "stray"], "unexpected argument"),
        (&["eviction", "--json=yes"], "takes no value"),
        (&["lru-trace", "--ops", "fetch A"], "--ops"),
        (&["lru-trace", "--capacity", "0"], "--capacity"),
        (&["jitter", "--case", "0.1"], "J:ROUND"),
        (&["jitter", "--case", "0.1:0"], "--case: round"),
        (&["jitter", "--round", "11"], "--round"),
        (&["jitter", "--keys", "1000001"], "--keys"),
        (&["jitter", "--case", "2:1"], "--case"),
        (&["jitter", "--ttl", "0"], "--ttl"),
        (&["stampede", "--rate", "abc"], "--rate"),
        (
            &["stampede", "--modes", "none,panic"],
            "unknown mode 'panic'",
        ),
        (&["stampede", "--rate", "20001"], "--rate"),
        (&["stampede", "--delta", "0"], "--delta"),
        (&["mrc", "--trace", "loop"], "unknown trace 'loop'"),
        (&["mrc", "--sizes", "10,,x"], "--sizes"),
        (&["sampling", "--samples", "0"], "--samples"),
        (&["sampling", "--kmax", "33"], "--kmax"),
        (&["lru-trace", "--capacity", "13"], "--capacity"),
        (&["eviction", "--focus", "lru"], "unknown option"),
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
    let out = labsim(&["sampling", "--samples", "5,10", "--trials", "20000"]);
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

/// `labsim` takes the labs' own fields: every field of the table-printing labs is an option
/// with the lab's default (giving it explicitly changes nothing), its range (one past it is
/// refused, naming the option) and the lab's numbers.
#[test]
fn labsim_and_the_labs_agree_on_fields_and_defaults() {
    use redislab_sim::labs::params::{self, Kind};
    use redislab_sim::labs::{eviction, registry};
    let light = |cmd: &str| -> Vec<&'static str> {
        match cmd {
            "eviction" => vec!["--requests", "3000", "--warmup", "100"],
            "jitter" => vec!["--keys", "2000"],
            "stampede" => vec!["--duration", "5"],
            "sampling" => vec!["--trials", "200"],
            _ => vec![],
        }
    };
    for (cmd, lab, skip) in [
        ("eviction", "eviction", &["trace", "focus"][..]),
        ("lru-trace", "lru", &[][..]),
        ("jitter", "jitter", &["jitter", "round"][..]),
        ("stampede", "stampede", &[][..]),
        ("sampling", "sampling", &[][..]),
    ] {
        let fields = registry::info(lab).unwrap().fields;
        let base = light(cmd);
        let plain = labsim(&[&[cmd][..], &base].concat());
        assert!(plain.status.success(), "{cmd}");
        for f in fields.iter().filter(|f| !skip.contains(&f.key)) {
            let opt = format!("--{}", f.key.replace('_', "-"));
            if base.contains(&opt.as_str()) {
                continue;
            }
            let with = labsim(&[&[cmd, opt.as_str(), f.default][..], &base].concat());
            assert_eq!(
                String::from_utf8_lossy(&with.stdout),
                String::from_utf8_lossy(&plain.stdout),
                "{cmd} {opt} {} is not the default",
                f.default
            );
            let past = match f.kind {
                Kind::Int { max, .. } => (max + 1).to_string(),
                Kind::Float { max, .. } => (max * 2.0 + 1.0).to_string(),
                _ => "no-such-thing".to_string(),
            };
            let out = labsim(&[&[cmd, opt.as_str(), past.as_str()][..], &base].concat());
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{cmd} {opt} {past}: {err}");
            assert!(err.contains(&opt), "{cmd} {opt} {past}: {err}");
        }
    }
    // The lab's default eviction run is labsim's default table.
    let p: eviction::EvictionParams = params::Params::defaults(&eviction::INFO).read();
    let table = redislab_sim::eviction_table(&p.config()).unwrap().to_text();
    let out = labsim(&["eviction"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), table);
}

/// `labsim help` lists exactly the registry's labs, in its order (then the tools).
#[test]
fn help_lists_exactly_the_registry() {
    let out = labsim(&["help"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let labs_part = text
        .split("tools:")
        .next()
        .unwrap_or_default()
        .split_once("):\n")
        .map(|(_, rest)| rest)
        .unwrap_or_default();
    let listed: Vec<&str> = labs_part
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .map(|l| l.trim().split(' ').next().unwrap_or_default())
        .collect();
    let ids: Vec<&str> = redislab_sim::labs::registry::ids().collect();
    assert_eq!(listed, ids, "{text}");
    // Every lab answers to its id.
    for id in ids {
        let out = labsim(&[id, "--help"]);
        assert_eq!(out.status.code(), Some(0), "{id}");
    }
}

#[test]
fn practice_prints_the_questions_a_student_meets() {
    let out = labsim(&[
        "practice", "--lab", "lru", "--seed", "42", "--n", "5", "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let qs: Vec<redislab_sim::practice::Question> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(qs.len(), 5);
    assert_eq!(
        qs[0],
        redislab_sim::practice::generate("lru", "evicted", 42).unwrap()
    );
    for w in qs.windows(2) {
        let (t, k, s) = redislab_sim::practice::next(&w[0]);
        assert_eq!(
            (w[1].topic.as_str(), w[1].kind.as_str(), w[1].seed),
            (t.as_str(), k.as_str(), s)
        );
    }
    let text = labsim(&[
        "practice", "--lab", "lru", "--kind", "hits", "--seed", "7", "--n", "1",
    ]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.starts_with("1. #/practice/lru/hits?seed=7\n[lru / hits / seed 7]"),
        "{text}"
    );
    assert!(text.contains("answer: "), "{text}");
    for (args, says) in [
        (&["practice", "--seed", "1"][..], "--lab"),
        (&["practice", "--lab", "nope", "--seed", "1"], "nope"),
        (
            &["practice", "--lab", "lru", "--kind", "x", "--seed", "1"],
            "--kind",
        ),
        (&["practice", "--lab", "lru", "--seed", "-1"], "seed"),
        (&["practice", "--lab", "lru"], "--seed"),
    ] {
        let out = labsim(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(says),
            "{args:?}"
        );
    }
}

/// A class set: `--labs … --seed N` prints the questions the class link gives everyone;
/// `--check` grades a result code's answers again, and refuses a tampered code (exit 2).
#[test]
fn practice_sets_and_result_codes() {
    use redislab_sim::practice::{generate, grade, set, Answer, Question};
    let out = labsim(&[
        "practice", "--labs", "lru,lock", "--seed", "42", "--n", "4", "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let qs: Vec<Question> = serde_json::from_slice(&out.stdout).unwrap();
    let spec = set::Spec::parse("labs=lru,lock&n=4").unwrap();
    let want: Vec<Question> = set::picks(&spec, 42)
        .into_iter()
        .map(|(t, k, s)| generate(&t, &k, s).unwrap())
        .collect();
    assert_eq!(qs, want);
    // Answer the first two right, the rest wrong, as the page would.
    let canons: Vec<Option<String>> = qs
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let r = match (&q.draft.answer, i < 2) {
                (Answer::Key { key, .. }, true) => key.clone(),
                (Answer::Keys { keys, .. }, true) => keys.join(" "),
                (Answer::Count { n, .. }, true) => n.to_string(),
                (Answer::Count { n, .. }, false) => (n + 1).to_string(),
                (Answer::Key { key, .. }, false) => if key == "A" { "B" } else { "A" }.into(),
                (Answer::Keys { keys, .. }, false) => keys[1..].join(" "),
                (Answer::Choice { right, .. }, true) => (right + 1).to_string(),
                (Answer::Choice { right, options, .. }, false) => {
                    ((right + 1) % options.len() + 1).to_string()
                }
                (a, _) => panic!("lru and lock ask no {a:?}"),
            };
            Some(grade(q, &r).unwrap().canon)
        })
        .collect();
    let code = set::code(&spec, 42, 2, &canons);
    let ok = labsim(&["practice", "--check", &code]);
    let text = String::from_utf8_lossy(&ok.stdout);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(text.starts_with("valid: 2 of 4 right"), "{text}");
    // A score typed in by hand (check sum made to match) and a changed character: refused.
    let forged = set::code(&spec, 42, 4, &canons);
    let mut typo: Vec<char> = code.chars().collect();
    let last = typo.len() - 1;
    typo[last] = if typo[last] == '0' { '1' } else { '0' };
    let typo: String = typo.into_iter().collect();
    for (bad, says) in [(forged.as_str(), "earn 2"), (typo.as_str(), "check sum")] {
        let out = labsim(&["practice", "--check", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("refused") && err.contains(says), "{err}");
    }
}
