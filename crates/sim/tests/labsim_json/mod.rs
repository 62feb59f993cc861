//! What the labs' `labsim` tests share: running `labsim`, and the check that its `--json`
//! prints exactly what the library computes (with `--page`, what the lab's page receives).

use redislab_sim::labs::lab::LabInfo;
use redislab_sim::labs::params::Params;
use serde::Serialize;
use std::process::{Command, Output};

/// `labsim` with `args`.
pub fn labsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_labsim"))
        .args(args)
        .output()
        .expect("labsim runs")
}

/// `labsim <lab> <args> --json` prints `printed(run(query))` and with `--page` the whole
/// `run(query)`; returns what it printed (as JSON) and the text `labsim <lab> <args>` prints.
pub fn json_equals_library<O: Serialize + Clone>(
    info: &'static LabInfo,
    args: &[&str],
    query: &str,
    run: impl Fn(&Params) -> O,
    printed: impl Fn(O) -> O,
) -> (serde_json::Value, String) {
    let mut a = vec![info.id];
    a.extend(args);
    a.push("--json");
    let out = labsim(&a);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let (p, errs) = Params::from_query(info, query);
    assert!(errs.is_empty(), "{errs:?}");
    let out = run(&p);
    let want = serde_json::to_value(printed(out.clone())).unwrap();
    assert_eq!(got, want, "{args:?}");
    // With --page: the whole output, as the lab's page receives it.
    a.push("--page");
    let page: serde_json::Value = serde_json::from_slice(&labsim(&a).stdout).unwrap();
    assert_eq!(page, serde_json::to_value(&out).unwrap(), "{args:?} --page");
    a.truncate(a.len() - 2);
    let text = String::from_utf8(labsim(&a).stdout).unwrap();
    (want, text)
}
