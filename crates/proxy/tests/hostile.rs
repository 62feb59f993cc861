//! Hostile messages: each gets a typed error and nothing reaches Redis (INFO commandstats is
//! the same before and after). Also the upgrade's checks (Origin, connection cap), oversized
//! frames, the rate limit, the idle timeout.

mod support;

use serde_json::{json, Value};
use std::time::Duration;
use support::{code, commandstats, config, Proxy, RedisServer, Ws};

/// `(message, expected code)`; the message is sent as is.
fn hostile() -> Vec<(String, &'static str)> {
    let mut v: Vec<(String, &'static str)> = Vec::new();
    let mut id = 1000u64;
    let mut cmd = |words: Vec<String>, code: &'static str, v: &mut Vec<(String, &'static str)>| {
        id += 1;
        v.push((json!({"id": id, "cmd": words}).to_string(), code));
    };
    let s = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    // Lua from the client, server and keyspace commands — in any case.
    for words in [
        s(&["EVAL", "return 1", "0"]),
        s(&["eval", "return redis.call('flushall')", "0"]),
        s(&["Eval_RO", "return 1", "0"]),
        s(&[
            "EVALSHA",
            "b70c2384248f88e6b75b9f89241a180f856ad852",
            "1",
            "lock",
            "t",
        ]),
        s(&["evalsha", "b70c2384248f88e6b75b9f89241a180f856ad852", "0"]),
        s(&["SCRIPT", "LOAD", "return 1"]),
        s(&["script", "flush"]),
        s(&["FUNCTION", "LIST"]),
        s(&["FCALL", "f", "0"]),
        s(&["FLUSHALL"]),
        s(&["flushall"]),
        s(&["FlUsHdB"]),
        s(&["KEYS", "*"]),
        s(&["SCAN", "0"]),
        s(&["RANDOMKEY"]),
        s(&["INFO"]),
        s(&["CONFIG", "SET", "maxmemory", "1"]),
        s(&["CLIENT", "LIST"]),
        s(&["client", "kill", "type", "normal"]),
        s(&["MONITOR"]),
        s(&["SELECT", "1"]),
        s(&["DEBUG", "SLEEP", "10"]),
        s(&["MULTI"]),
        s(&["EXEC"]),
        s(&["SUBSCRIBE", "news"]),
        s(&["PSUBSCRIBE", "*"]),
        s(&["SHUTDOWN", "NOSAVE"]),
        s(&["RENAME", "a", "b"]),
        s(&["SORT", "a"]),
        s(&["OBJECT", "ENCODING", "a"]),
        s(&["DUMP", "a"]),
        s(&["MIGRATE", "127.0.0.1", "1", "a", "0", "1"]),
        s(&["ACL", "LIST"]),
        s(&["SWAPDB", "0", "1"]),
        s(&["BGSAVE"]),
        s(&["WAIT", "0", "0"]),
        // The name must be the whole name: spaces, NUL, newlines, lookalikes.
        s(&[" GET", "a"]),
        s(&["GET ", "a"]),
        s(&["GET\u{0}", "a"]),
        s(&["GET\r\nFLUSHALL", "a"]),
        s(&["G\u{0415}T", "a"]),               // Cyrillic Е
        s(&["\u{017F}et", "a", "b"]),          // ſ: Unicode upper-cases it to S
        s(&["\u{FF27}\u{FF25}\u{FF34}", "a"]), // fullwidth ＧＥＴ
        s(&["GETT", "a"]),
        s(&["GE", "a"]),
        s(&["XGROUP", "DESTROY", "s", "g", "x"]),
        s(&["XGROUP", "SETID", "s", "g", "$"]),
    ] {
        cmd(words, "FORBIDDEN", &mut v);
    }
    // Other sessions' keys, hash-tag tricks.
    for words in [
        s(&["GET", "lab:{other}:x"]),
        s(&["get", "LAB:{other}:x"]),
        s(&["SET", "x{y}", "1"]),
        s(&["SET", "}", "1"]),
        s(&["DEL", "fine", "lab:{o}:k"]),
        s(&["MGET", "a", "b", "{o}"]),
        s(&["LMOVE", "a", "lab:{o}:b", "LEFT", "RIGHT"]),
        s(&["BRPOP", "q", "{o}", "1"]),
        s(&["XGROUP", "CREATE", "{x}", "g", "$", "MKSTREAM"]),
        s(&["XREADGROUP", "GROUP", "g", "c", "STREAMS", "lab:{o}:s", ">"]),
        s(&[
            "XREADGROUP",
            "GROUP",
            "g",
            "c",
            "COUNT",
            "1",
            "STREAMS",
            "s",
            "{t}",
            ">",
            ">",
        ]),
        s(&["PUBLISH", "lab:{o}:ch", "hi"]),
    ] {
        cmd(words, "NAMESPACE", &mut v);
    }
    // Sizes.
    cmd(s(&["GET", &"k".repeat(600)]), "TOO_LARGE", &mut v);
    cmd(s(&["SET", "a", &"x".repeat(20_000)]), "TOO_LARGE", &mut v);
    cmd(
        std::iter::once("MGET".to_string())
            .chain((0..300).map(|i| format!("k{i}")))
            .collect(),
        "TOO_LARGE",
        &mut v,
    );
    cmd(
        std::iter::once("DEL".to_string())
            .chain((0..12_000).map(|_| "a".to_string()))
            .collect(),
        "TOO_LARGE",
        &mut v,
    );
    // Arity and options.
    for words in [
        s(&[]),
        s(&["GET"]),
        s(&["GET", "a", "b"]),
        s(&["SET", "a"]),
        s(&["PING", "a", "b"]),
        s(&["LMOVE", "a", "b", "LEFT"]),
        s(&["XGROUP", "CREATE", "s"]),
        s(&["BRPOP", "q", "-1"]),
        s(&["BRPOP", "q", "soon"]),
        s(&["BRPOP", "q", "inf"]),
        s(&["BLMOVE", "a", "b", "LEFT", "LEFT", "NaN"]),
        s(&["XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "t", ">"]),
        s(&[
            "XREADGROUP",
            "GROUP",
            "g",
            "c",
            "BLOCK",
            "-1",
            "STREAMS",
            "s",
            ">",
        ]),
        s(&["XREADGROUP", "GROUP", "g", "c", "FAST", "STREAMS", "s", ">"]),
        s(&["XREADGROUP", "group", "g", "c", "STREAMS"]),
    ] {
        cmd(words, "BAD_REQUEST", &mut v);
    }
    // Not a request at all.
    for raw in [
        "not json",
        "{",
        "[]",
        "null",
        "42",
        r#"{"id": 1}"#,
        r#"{"id": 2, "cmd": ["GET", "a"], "extra": 1}"#,
        r#"{"id": 3, "cmd": ["GET", 1]}"#,
        r#"{"id": -1, "cmd": ["GET", "a"]}"#,
        r#"{"id": "4", "cmd": ["GET", "a"]}"#,
        r#"{"cmd": ["GET", "a"]}"#,
        r#"{"id": 5, "cmd": "GET a"}"#,
        r#"{"id": 6, "cmd": ["GET", "a"], "script": "release"}"#,
        r#"{"id": 7, "cmd": ["GET", "a"], "keys": ["a"]}"#,
        r#"{"id": 8, "script": "release"}"#,
        r#"{"id": 9, "id": 10, "cmd": ["PING"]}"#,
        r#"{"id": 11, "cmd": ["PING"], "__proto__": {}}"#,
    ] {
        v.push((raw.to_string(), "BAD_REQUEST"));
    }
    // Scripts: only the server's, by their exact name, keys in the namespace.
    for (raw, c) in [
        (
            r#"{"id": 20, "script": "flushall", "keys": ["a"]}"#,
            "FORBIDDEN",
        ),
        (
            r#"{"id": 21, "script": "RELEASE", "keys": ["a"], "args": ["t"]}"#,
            "FORBIDDEN",
        ),
        (
            r#"{"id": 22, "script": "return redis.call('flushall')", "keys": ["a"]}"#,
            "FORBIDDEN",
        ),
        (
            r#"{"id": 23, "script": "b70c2384248f88e6b75b9f89241a180f856ad852", "keys": ["a"]}"#,
            "FORBIDDEN",
        ),
        (
            r#"{"id": 24, "script": "release", "keys": ["lab:{o}:lock"], "args": ["t"]}"#,
            "NAMESPACE",
        ),
        (
            r#"{"id": 25, "script": "release", "keys": [], "args": ["t"]}"#,
            "BAD_REQUEST",
        ),
    ] {
        v.push((raw.to_string(), c));
    }
    // Between the 64 KB limit and the hard cap: a typed TOO_LARGE, the socket stays open.
    v.push((
        json!({"id": 30, "cmd": ["SET", "a", "x".repeat(70_000)]}).to_string(),
        "TOO_LARGE",
    ));
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_messages_get_typed_errors_and_never_reach_redis() {
    let redis = RedisServer::start();
    let mut admin = redis.admin().await;
    let proxy = Proxy::start(config(&redis.url())).await;
    let mut ws = proxy.connect().await;
    let before = commandstats(&mut admin).await;

    let cases = hostile();
    assert!(cases.len() >= 100, "{} hostile messages", cases.len());
    for (msg, want) in &cases {
        ws.send_text(msg.clone()).await;
        let got = ws.recv().await.expect("an answer, the socket open");
        assert_eq!(code(&got), *want, "{} → {got}", &msg[..msg.len().min(120)]);
        assert!(got["err"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()));
        // The id is echoed when the message had a readable numeric one.
        let sent_id = serde_json::from_str::<Value>(msg)
            .ok()
            .and_then(|v| v.get("id").and_then(Value::as_u64));
        if msg.len() <= 65_536 {
            assert_eq!(got["id"].as_u64(), sent_id, "{msg:.80} → {got}");
        }
    }
    // A binary frame.
    ws.ws
        .send(tokio_tungstenite::tungstenite::Message::Binary(
            vec![1, 2, 3].into(),
        ))
        .await
        .unwrap();
    assert_eq!(code(&ws.recv().await.unwrap()), "BAD_REQUEST");

    // Past the hard cap (twice the limit) the socket is closed with 1009.
    let mut big = proxy.connect().await;
    big.send_text(json!({"id": 1, "cmd": ["SET", "a", "x".repeat(200_000)]}).to_string())
        .await;
    let f = big.close_frame().await.expect("a close frame");
    assert_eq!(u16::from(f.code), 1009);

    // The sentinel: the proxy handles a socket's messages in order, so once a PING sent
    // after all of them is answered, whatever they sent has reached Redis — exactly one PING.
    assert_eq!(ws.ok(&["PING"]).await, json!({"status": "PONG"}));
    let mut after = commandstats(&mut admin).await;
    let pings = after.remove("ping").expect("the sentinel PING");
    assert_eq!(
        pings,
        before
            .get("ping")
            .map_or("calls=1,rejected_calls=0,failed_calls=0".to_string(), |p| {
                let n: u64 = p[6..p.find(',').unwrap()].parse().unwrap();
                format!("calls={},rejected_calls=0,failed_calls=0", n + 1)
            })
    );
    let mut before = before;
    before.remove("ping");
    assert_eq!(before, after, "nothing else reached Redis");
    drop(ws);
    drop(big);
    println!("{} hostile messages, none reached Redis", cases.len() + 2);
}

use futures_util::SinkExt;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_upgrade_checks_origin_and_the_connection_cap() {
    let redis = RedisServer::start();
    let mut cfg = config(&redis.url());
    cfg.max_connections = 2;
    cfg.allow_origins = vec!["https://lab.example".into()];
    let proxy = Proxy::start(cfg).await;
    // Missing or foreign Origin: 403.
    for o in [
        None,
        Some("http://evil.example"),
        Some("null"),
        Some("http://127.0.0.1"),
    ] {
        match Ws::connect(proxy.addr, o).await {
            Err(tokio_tungstenite::tungstenite::Error::Http(r)) => {
                assert_eq!(r.status(), 403, "origin {o:?}")
            }
            other => panic!("origin {o:?} accepted: {:?}", other.is_ok()),
        }
    }
    let a = Ws::connect(proxy.addr, Some("https://lab.example"))
        .await
        .unwrap();
    let b = proxy.connect().await;
    // The cap: 503 for the third.
    match Ws::connect(proxy.addr, Some(&proxy.origin())).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 503),
        other => panic!("third connection accepted: {:?}", other.is_ok()),
    }
    drop(a);
    drop(b);
    // Places free up when sessions end.
    proxy.wait_no_sessions(Duration::from_secs(5)).await;
    proxy.connect().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limit_and_idle_timeout() {
    let redis = RedisServer::start();
    let mut admin = redis.admin().await;
    let mut cfg = config(&redis.url());
    cfg.rate_per_sec = 5;
    cfg.burst = 5;
    cfg.idle_timeout = Duration::from_millis(500);
    let proxy = Proxy::start(cfg).await;
    let before = commandstats(&mut admin).await;
    let mut ws = proxy.connect().await;
    let mut ids = vec![];
    for _ in 0..20 {
        ids.push(ws.start(&["PING"]).await);
    }
    let mut limited = 0;
    let mut ok = 0;
    for _ in &ids {
        let v = ws.recv().await.unwrap();
        match code(&v) {
            "RATE_LIMITED" => limited += 1,
            "" => ok += 1,
            other => panic!("{other}"),
        }
    }
    assert!(ok <= 6 && limited >= 14, "ok {ok}, limited {limited}");
    let after = commandstats(&mut admin).await;
    // Exactly the PINGs that were answered reached Redis (the support's start-up check
    // sent one before).
    let pings = |m: &std::collections::BTreeMap<String, String>| -> u64 {
        m.get("ping")
            .and_then(|v| v.strip_prefix("calls="))
            .and_then(|v| v.split(',').next())
            .map_or(0, |n| n.parse().unwrap())
    };
    assert_eq!(pings(&after) - pings(&before), ok);
    // Idle: closed with a close frame.
    let f = ws.close_frame().await.expect("close frame");
    assert_eq!(u16::from(f.code), 1000);
    assert_eq!(f.reason.as_str(), "idle timeout");
}
