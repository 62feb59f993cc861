//! The policy's unit tests: key positions, typed refusals, caps, MAXLEN, block times, shapes.

use super::*;

fn w(s: &[&str]) -> Vec<String> {
    s.iter().map(|s| s.to_string()).collect()
}
const P: &str = "lab:{abc}:";

fn words(p: &Prepared) -> Vec<String> {
    p.words
        .iter()
        .map(|b| String::from_utf8(b.clone()).unwrap())
        .collect()
}

#[test]
fn keys_are_prefixed_at_their_positions() {
    let l = Limits::default();
    let p = prepare(&w(&["set", "lock:x", "t", "NX", "PX", "5000"]), P, &l).unwrap();
    assert_eq!(
        words(&p),
        ["SET", "lab:{abc}:lock:x", "t", "NX", "PX", "5000"]
    );
    assert!(p.write && p.creates);
    assert_eq!(
        p.shape,
        Shape::Set {
            value_bytes: 1,
            expiry: Expiry::Given {
                at: 5,
                ms: 1,
                absolute: false
            },
            conditional: true
        }
    );
    let p = prepare(&w(&["MGET", "a", "b", "c"]), P, &l).unwrap();
    assert_eq!(p.keys.len(), 3);
    assert!(p.heavy && !p.write);
    let p = prepare(&w(&["BRPOP", "q1", "q2", "0"]), P, &l).unwrap();
    assert_eq!(words(&p), ["BRPOP", "lab:{abc}:q1", "lab:{abc}:q2", "5"]);
    assert_eq!(p.block_ms, Some(5000));
    let p = prepare(&w(&["BLMOVE", "a", "b", "LEFT", "RIGHT", "0.25"]), P, &l).unwrap();
    assert_eq!(p.block_ms, Some(250));
    assert_eq!(words(&p)[5], "0.25");
    let p = prepare(&w(&["XGROUP", "create", "s", "g", "$", "MKSTREAM"]), P, &l).unwrap();
    assert_eq!(words(&p)[2], "lab:{abc}:s");
    assert!(p.creates);
    let p = prepare(&w(&["XGROUP", "CREATE", "s", "g", "$"]), P, &l).unwrap();
    assert!(!p.creates, "without MKSTREAM it creates no key");
    let p = prepare(
        &w(&[
            "XREADGROUP",
            "GROUP",
            "g",
            "c",
            "COUNT",
            "5",
            "BLOCK",
            "0",
            "STREAMS",
            "s1",
            "s2",
            ">",
            ">",
        ]),
        P,
        &l,
    )
    .unwrap();
    assert_eq!(
        words(&p)[6..],
        [
            "BLOCK",
            "5000",
            "STREAMS",
            "lab:{abc}:s1",
            "lab:{abc}:s2",
            ">",
            ">"
        ]
    );
    assert_eq!(p.block_ms, Some(5000));
    let p = prepare(
        &w(&["XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"]),
        P,
        &l,
    )
    .unwrap();
    assert_eq!(p.block_ms, None);
    let p = prepare(&w(&["PING"]), P, &l).unwrap();
    assert!(p.keys.is_empty());
    let p = prepare(&w(&["PUBLISH", "ch", "hi"]), P, &l).unwrap();
    assert_eq!(words(&p)[1], "lab:{abc}:ch");
    assert!(p.keys.is_empty(), "a channel is no key");
}

#[test]
fn refusals_are_typed() {
    let l = Limits::default();
    let code = |s: &[&str]| prepare(&w(s), P, &l).unwrap_err().code;
    assert_eq!(code(&["EVAL", "return 1", "0"]), Code::Forbidden);
    assert_eq!(code(&["ſet", "a", "b"]), Code::Forbidden);
    assert_eq!(code(&["GET "]), Code::Forbidden);
    assert_eq!(code(&["XGROUP", "DESTROY", "s", "g", "x"]), Code::Forbidden);
    assert_eq!(code(&["GET"]), Code::BadRequest);
    assert_eq!(code(&["PING", "a", "b"]), Code::BadRequest);
    assert_eq!(code(&["GET", "lab:{x}:k"]), Code::Namespace);
    assert_eq!(code(&["GET", "a{b"]), Code::Namespace);
    assert_eq!(code(&["BRPOP", "q", "-1"]), Code::BadRequest);
    assert_eq!(
        code(&["XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "t", ">"]),
        Code::BadRequest
    );
    assert_eq!(code(&[]), Code::BadRequest);
    assert_eq!(code(&["HSET", "h", "f", "v", "g"]), Code::BadRequest);
}

fn limit(s: &[&str]) -> Option<Limit> {
    prepare(&w(s), P, &Limits::default()).unwrap_err().limit
}

#[test]
fn counts_offsets_and_stream_trims_are_capped() {
    let l = Limits::default();
    // Every COUNT, and LIMIT's offset and count, within 10,000: Redis obeys the last one.
    let c = Some(Limit::Count);
    assert_eq!(limit(&["XRANGE", "s", "-", "+", "COUNT", "10001"]), c);
    assert_eq!(
        limit(&["XRANGE", "s", "-", "+", "COUNT", "1", "COUNT", "99999999"]),
        c
    );
    assert_eq!(
        limit(&[
            "XAUTOCLAIM",
            "s",
            "g",
            "c",
            "0",
            "0",
            "COUNT",
            "9223372036854775807"
        ]),
        c,
        "CVE-2022-35951's trigger"
    );
    assert_eq!(
        limit(&[
            "XREADGROUP",
            "GROUP",
            "g",
            "c",
            "COUNT",
            "20000",
            "STREAMS",
            "s",
            ">"
        ]),
        c
    );
    assert_eq!(
        limit(&[
            "XREADGROUP",
            "GROUP",
            "g",
            "c",
            "COUNT",
            "1",
            "COUNT",
            "20000",
            "STREAMS",
            "s",
            ">"
        ]),
        c
    );
    assert_eq!(
        limit(&["XPENDING", "s", "g", "IDLE", "1", "-", "+", "100000"]),
        c
    );
    assert_eq!(limit(&["XPENDING", "s", "g", "-", "+", "100000"]), c);
    assert_eq!(limit(&["LPOP", "l", "1000000"]), c);
    assert_eq!(
        limit(&["ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "0", "20000"]),
        c
    );
    assert_eq!(
        limit(&[
            "ZRANGEBYSCORE",
            "z",
            "-inf",
            "+inf",
            "LIMIT",
            "100000000",
            "1"
        ]),
        Some(Limit::Offset)
    );
    assert_eq!(
        limit(&["ZRANGE", "z", "0", "-1", "BYSCORE", "LIMIT", "0", "1", "LIMIT", "999999", "1"]),
        Some(Limit::Offset)
    );
    assert_eq!(
        limit(&["XADD", "s", "MINID", "0", "*", "f", "v"]),
        Some(Limit::StreamTrim)
    );
    assert_eq!(
        limit(&["XADD", "s", "MAXLEN", "~", "10", "LIMIT", "1", "*", "f", "v"]),
        Some(Limit::StreamTrim)
    );
    // What the labs send passes: the queue's promotion, ZRANGEBYSCORE … LIMIT 0 1000.
    assert!(prepare(
        &w(&["ZRANGEBYSCORE", "d", "-inf", "5", "LIMIT", "0", "1000"]),
        P,
        &l
    )
    .is_ok());
    assert!(prepare(
        &w(&[
            "XREADGROUP",
            "GROUP",
            "g",
            "w1",
            "COUNT",
            "10000",
            "BLOCK",
            "500",
            "STREAMS",
            "s",
            ">"
        ]),
        P,
        &l
    )
    .is_ok());
}

#[test]
fn every_xadd_gets_a_maxlen() {
    let l = Limits::default();
    let p = prepare(&w(&["XADD", "s", "*", "n", "1"]), P, &l).unwrap();
    assert_eq!(
        words(&p),
        ["XADD", "lab:{abc}:s", "MAXLEN", "~", "10000", "*", "n", "1"]
    );
    assert_eq!(
        p.shape,
        Shape::XAdd {
            bytes: 2,
            maxlen: 10_000
        }
    );
    // The lab's MAXLEN ~ 100000 is kept to the cap; a smaller one is kept as it is.
    let p = prepare(
        &w(&["XADD", "s", "MAXLEN", "~", "100000", "*", "n", "1"]),
        P,
        &l,
    )
    .unwrap();
    assert_eq!(words(&p)[4], "10000");
    let p = prepare(
        &w(&["XADD", "s", "NOMKSTREAM", "MAXLEN", "5", "1-1", "f", "v"]),
        P,
        &l,
    )
    .unwrap();
    assert_eq!(words(&p)[2..5], ["NOMKSTREAM", "MAXLEN", "5"]);
    assert_eq!(
        p.shape,
        Shape::XAdd {
            bytes: 2,
            maxlen: 5
        }
    );
}

#[test]
fn the_block_redis_obeys_is_bounded() {
    // Redis obeys the last BLOCK: `BLOCK 1 BLOCK 0` must not slip the cap.
    let l = Limits::default();
    let p = prepare(
        &w(&[
            "XREADGROUP",
            "GROUP",
            "g",
            "c",
            "BLOCK",
            "1",
            "BLOCK",
            "0",
            "STREAMS",
            "s",
            ">",
        ]),
        P,
        &l,
    )
    .unwrap();
    let ws = words(&p);
    assert_eq!(p.block_ms, Some(5000));
    assert_eq!((ws[7].as_str(), ws[9].as_str()), ("1", "5000"), "{ws:?}");
    // No COUNT: the cap's is added (and counted as the one Redis obeys).
    assert_eq!(ws[4..6], ["COUNT", "10000"]);
    let Shape::XReadGroup {
        count_at, count, ..
    } = p.shape
    else {
        panic!()
    };
    assert_eq!((count_at, count), (5, 10_000));
}

#[test]
fn shapes_for_the_accounting() {
    let l = Limits::default();
    let s = |x: &[&str]| prepare(&w(x), P, &l).unwrap().shape;
    assert_eq!(
        s(&["RPUSH", "l", "a", "bcd"]),
        Shape::Grow {
            key: 0,
            elems: 2,
            bytes: 4,
            max_elem: 3
        }
    );
    assert_eq!(
        s(&["HSET", "h", "f", "v", "ff", "vv"]),
        Shape::Grow {
            key: 0,
            elems: 2,
            bytes: 6,
            max_elem: 4
        }
    );
    assert_eq!(
        s(&["ZADD", "z", "NX", "CH", "1", "m", "2", "n"]),
        Shape::Grow {
            key: 0,
            elems: 2,
            bytes: 4,
            max_elem: 2
        }
    );
    assert_eq!(
        s(&["XCLAIM", "s", "g", "c", "0", "1-1", "2-2", "FORCE", "JUSTID"]),
        Shape::XClaim {
            consumer: b"c".to_vec(),
            force: 2
        }
    );
    assert_eq!(
        s(&["SET", "k", "v", "KEEPTTL"]),
        Shape::Set {
            value_bytes: 1,
            expiry: Expiry::Keep,
            conditional: false
        }
    );
    let p = prepare(
        &w(&[
            "XREADGROUP",
            "GROUP",
            "g",
            "c",
            "COUNT",
            "3",
            "STREAMS",
            "a",
            "b",
            ">",
            "0",
        ]),
        P,
        &l,
    )
    .unwrap();
    assert_eq!(
        p.shape,
        Shape::XReadGroup {
            consumer: b"c".to_vec(),
            count_at: 5,
            count: 3,
            new: vec![0]
        }
    );
}
