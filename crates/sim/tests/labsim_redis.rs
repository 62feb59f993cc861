//! `labsim redis` through the binary: redis-cli syntax in, one JSON reply per line out,
//! `#advance` moving the virtual clock, exit code 2 on a malformed directive.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn session(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_labsim"))
        .arg("redis")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("labsim runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("labsim finishes")
}

#[test]
fn one_json_reply_per_command() {
    let input = r#"
# a lock with a 100 ms TTL, then the token-checked release
SET lock tok1 NX PX 100
SET lock tok2 NX PX 100
PTTL lock
#advance 40
PTTL lock
EVALSHA b70c2384248f88e6b75b9f89241a180f856ad852 1 lock tok2
EVALSHA b70c2384248f88e6b75b9f89241a180f856ad852 1 lock tok1
set "a key" "say \"hi\"\n" 
MGET "a key" 'it\'s' nope
RPUSH q a b c
LRANGE q 0 -1
HSET h f 1
HINCRBY h f 41
HGETALL h
ZADD z 2.5 m 1 n
ZRANGE z -inf +inf BYSCORE WITHSCORES
INCR q
get
TYPE z
SET t v PX 50
#advance 51
GET t
BRPOP empty 0.2
PTTL nothing
set "unbalanced
"#;
    let out = session(&[], input);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = String::from_utf8(out.stdout).unwrap();
    let want = [
        r#"{"status":"OK"}"#,
        r#"null"#,
        r#"100"#,
        r#"60"#,
        r#"0"#,
        r#"1"#,
        r#"{"status":"OK"}"#,
        r#"["say \"hi\"\n",null,null]"#,
        r#"3"#,
        r#"["a","b","c"]"#,
        r#"1"#,
        r#"42"#,
        r#"["f","42"]"#,
        r#"2"#,
        r#"["n","1","m","2.5"]"#,
        r#"{"error":"WRONGTYPE Operation against a key holding the wrong kind of value"}"#,
        r#"{"error":"ERR wrong number of arguments for 'get' command"}"#,
        r#"{"status":"zset"}"#,
        r#"{"status":"OK"}"#,
        r#"null"#,
        r#"null"#,
        r#"-2"#,
        r#"{"error":"Invalid argument(s)"}"#,
    ];
    let lines: Vec<&str> = got.lines().collect();
    assert_eq!(lines, want, "\n{got}");
    for l in lines {
        serde_json::from_str::<serde_json::Value>(l).expect("each line is JSON");
    }
}

#[test]
fn blocking_forever_is_an_error_not_a_hang() {
    let out = session(&[], "BRPOP q 0\nPING\n");
    assert_eq!(out.status.code(), Some(0));
    let got = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = got.lines().collect();
    assert!(lines[0].contains("would block forever"), "{got}");
    assert_eq!(lines[1], r#"{"status":"PONG"}"#);
}

#[test]
fn bad_directive_or_flag_exits_2() {
    let out = session(&[], "PING\n#advance soon\nPING\n");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 2") && err.contains("#advance"), "{err}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "{\"status\":\"PONG\"}\n"
    );
    let out = session(&["--seed", "x"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage: labsim"));
}

#[test]
fn a_replica_lags_and_a_promotion_loses_what_it_had_not_received() {
    let input = r#"
SET lock tok PX 200
#lag 50
#node replica
GET lock
#advance 60
GET lock
SET x y
#node primary
SET lock2 tok2
#advance 10
#promote
GET lock
GET lock2
SET x y
"#;
    let out = session(&[], input);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = got.lines().collect();
    assert_eq!(
        lines,
        [
            r#"{"status":"OK"}"#,
            // the snapshot is still on its way, then it has arrived
            "null",
            r#""tok""#,
            r#"{"error":"READONLY You can't write against a read only replica."}"#,
            r#"{"status":"OK"}"#,
            // promoted 10 ms after lock2 was written, 40 ms before it would have arrived
            r#""tok""#,
            "null",
            r#"{"status":"OK"}"#,
        ],
        "\n{got}"
    );
}

#[test]
fn now_sets_the_clock_and_bad_directives_exit_2() {
    let out = session(
        &["--now", "1799999990000"],
        "SET k v EXAT 1800000000\nTTL k\n",
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "{\"status\":\"OK\"}\n10\n"
    );
    let out = session(&[], "SET k v EXAT 1800000000\nTTL k\n");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "{\"status\":\"OK\"}\n100000000\n",
        "the fixed date is 2023-11-14"
    );
    for (input, what) in [
        ("#node elsewhere\n", "#node"),
        ("#lag soon\n", "#lag"),
        ("#promote\n", "#promote"),
    ] {
        let out = session(&[], input);
        assert_eq!(out.status.code(), Some(2), "{input}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("line 1") && err.contains(what), "{err}");
    }
    let out = session(&["--now", "soon"], "");
    assert_eq!(out.status.code(), Some(2));
    let help = Command::new(env!("CARGO_BIN_EXE_labsim"))
        .args(["redis", "--help"])
        .output()
        .expect("labsim runs");
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("--now") && help.contains("2023-11-14") && help.contains("#promote"));
}
