//! `labsim cache` through the binary: the same numbers as the library (text and `--json`),
//! the lab's fields as options with the lab's defaults and ranges, bad values refused with the
//! lab's message and exit code 2.

use redislab_sim::labs::cache::{pair, CacheOutput, CacheParams, PairRecord, INFO, PAIR_NAMES};
use redislab_sim::labs::params::{Kind, Params};
use std::process::{Command, Output};

fn labsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_labsim"))
        .args(args)
        .output()
        .expect("labsim runs")
}

fn lib(query: &str) -> PairRecord {
    let (p, errs) = Params::from_query(&INFO, query);
    assert!(errs.is_empty(), "{errs:?}");
    pair(&p.read::<CacheParams>().config())
}

#[test]
fn labsim_cache_equals_the_library() {
    for (args, query) in [
        (&[][..], ""),
        (
            &[
                "--loader",
                "7000",
                "--lock-ttl",
                "5000",
                "--wait",
                "6000",
                "--heartbeat",
                "off",
            ][..],
            "loader=7000&lock_ttl=5000&wait=6000&heartbeat=off",
        ),
        (&["--redis", "down"][..], "redis=down"),
        (
            &["--redis", "slow", "--requests", "300"][..],
            "redis=slow&requests=300",
        ),
        (
            &["--start", "old-version", "--stale", "0"][..],
            "start=old-version&stale=0",
        ),
    ] {
        let lab = lib(query);
        let text = labsim(&[&["cache"][..], args].concat());
        assert!(text.status.success(), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&text.stdout),
            CacheOutput::summary(&lab, false).table(PAIR_NAMES),
            "{args:?}"
        );
        for series in [false, true] {
            let mut a = vec!["cache", "--json"];
            if series {
                a.push("--series");
            }
            let out = labsim(&[&a[..], args].concat());
            assert!(out.status.success());
            // The serde JSON of the lab's output type, byte for byte.
            let want = serde_json::to_value(CacheOutput::summary(&lab, series)).unwrap();
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                format!("{want}\n"),
                "{args:?} series={series}"
            );
            let back: CacheOutput = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(back, CacheOutput::summary(&lab, series), "{args:?}");
        }
    }
    // The default preset's numbers, as the binary prints them.
    let out = labsim(&["cache", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["off"]["counts"]["db"], 158);
    assert_eq!(v["on"]["counts"]["db"], 3);
    assert_eq!(v["on"]["paths"]["WAIT"], 39);
}

#[test]
fn labsim_cache_takes_the_labs_fields() {
    let fields = INFO.fields;
    let base = ["cache", "--requests", "100"];
    let plain = labsim(&base);
    assert!(plain.status.success());
    for f in fields.iter().filter(|f| f.key != "requests") {
        let opt = format!("--{}", f.key.replace('_', "-"));
        let with = labsim(&[&base[..], &[opt.as_str(), f.default][..]].concat());
        assert_eq!(
            with.stdout, plain.stdout,
            "{opt} {} is not the default",
            f.default
        );
        let past = match f.kind {
            Kind::Int { max, .. } => (max + 1).to_string(),
            _ => "no-such-thing".to_string(),
        };
        let out = labsim(&[&base[..], &[opt.as_str(), past.as_str()][..]].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{opt} {past}: {err}");
        assert!(err.contains(&opt), "{opt} {past}: {err}");
    }
    let out = labsim(&["cache", "--loader", "abc"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("পূর্ণসংখ্যা"));
}
