//! The hostile half of the soak: 300 sessions, each a kind of attack (floods, oversized and
//! malformed messages, slow reads, blocking hogs, key and script abuse), what each one sent
//! and what the proxy answered.

use super::support::{code, Ws};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

/// What one attacker's sessions did.
#[derive(Default, Clone)]
pub(crate) struct Attack {
    /// Answers by `code/limit` ("ok" for a success).
    pub(crate) answers: BTreeMap<String, u64>,
    /// Successes of its busiest session.
    pub(crate) max_ok_per_session: u64,
    pub(crate) sessions: u64,
    pub(crate) refused_upgrades: u64,
    pub(crate) closes: BTreeMap<String, u64>,
    /// The namespace of its session open at the end.
    pub(crate) namespace: Option<String>,
}

impl Attack {
    fn count(&mut self, v: &Value) {
        let k = if code(v).is_empty() {
            "ok".to_string()
        } else {
            format!("{}/{}", code(v), v["err"]["limit"].as_str().unwrap_or(""))
        };
        *self.answers.entry(k).or_default() += 1;
    }
}

/// The attacks of `kind` for `round`, as JSON, made once for all attackers (20 rounds a kind,
/// then again: the test's client must not spend the machine building 60 KB messages).
fn attacks(kind: usize, round: u64) -> &'static [&'static str] {
    static ALL: std::sync::OnceLock<Vec<Vec<Vec<&'static str>>>> = std::sync::OnceLock::new();
    let all = ALL.get_or_init(|| {
        (0..6)
            .map(|k| {
                (0..20)
                    .map(|r| {
                        attack_commands(k, r)
                            .into_iter()
                            .map(|v| &*Box::leak(v.to_string().into_boxed_str()))
                            .collect()
                    })
                    .collect()
            })
            .collect()
    });
    &all[kind][(round % 20) as usize]
}

/// The attacks, by kind (an attacker runs one kind, session after session).
fn attack_commands(kind: usize, round: u64) -> Vec<Value> {
    let big = "x".repeat(1000);
    let r = round.to_string();
    let w = |words: &[&str]| json!(words);
    match kind {
        // A list as big as the budget allows, then full-range reads and walks of it.
        0 => {
            let mut push = vec!["RPUSH", "big"];
            push.extend(std::iter::repeat_n(big.as_str(), 60));
            let mut v = vec![w(&push)];
            v.extend(std::iter::repeat_n(w(&["LRANGE", "big", "0", "-1"]), 16));
            v.extend(std::iter::repeat_n(w(&["LREM", "big", "0", "nomatch"]), 8));
            if round % 20 == 19 {
                v.push(w(&["DEL", "big"]));
            }
            v
        }
        // A big hash and sorted set, read whole; offsets and counts past the caps.
        1 => {
            let mut hset = vec!["HSET".to_string(), "h".into()];
            for i in 0..30 {
                hset.push(format!("f{round}-{i}"));
                hset.push(big.clone());
            }
            let mut v = vec![json!(hset)];
            v.push(w(&["ZADD", "z", &r, &format!("m{r}")]));
            v.extend(std::iter::repeat_n(w(&["HGETALL", "h"]), 12));
            v.push(w(&["ZRANGE", "z", "0", "-1", "WITHSCORES"]));
            v.push(w(&[
                "ZRANGEBYSCORE",
                "z",
                "-inf",
                "+inf",
                "LIMIT",
                "100000000",
                "1",
            ]));
            v
        }
        // Pending entries: groups reading from 0 without COUNT, FORCE claims, huge counts.
        2 => {
            let mut v = Vec::new();
            for i in 0..20 {
                v.push(w(&[
                    "XADD",
                    "s",
                    "*",
                    "n",
                    &format!("{round}-{i}"),
                    "pad",
                    &big[..200],
                ]));
            }
            v.push(w(&[
                "XGROUP",
                "CREATE",
                "s",
                &format!("g{}", round % 10),
                "0",
                "MKSTREAM",
            ]));
            v.push(w(&[
                "XREADGROUP",
                "GROUP",
                "g0",
                &format!("c{}", round % 80),
                "STREAMS",
                "s",
                ">",
            ]));
            v.push(w(&["XCLAIM", "s", "g0", "c0", "0", "0-1", "FORCE"]));
            v.push(w(&[
                "XPENDING",
                "s",
                "g0",
                "IDLE",
                "999999999",
                "-",
                "+",
                "100000",
            ]));
            v.push(w(&[
                "XAUTOCLAIM",
                "s",
                "g0",
                "c1",
                "0",
                "0",
                "COUNT",
                "9223372036854775807",
            ]));
            v.push(w(&["XRANGE", "s", "-", "+"]));
            v.push(w(&["XADD", "s", "MINID", "0", "*", "f", "v"]));
            v
        }
        // Keys: many, concurrent, with TTLs pushed past the session's end or removed.
        3 => {
            let mut v = Vec::new();
            for i in 0..16 {
                v.push(w(&["SET", &format!("k{round}-{i}"), "v"]));
            }
            v.push(w(&["EXPIRE", &format!("k{round}-0"), "999999999"]));
            v.push(w(&["PERSIST", &format!("k{round}-1")]));
            v.push(w(&["SET", &format!("k{round}-2"), "v", "KEEPTTL"]));
            v.push(w(&["INCRBY", "n", "9223372036854775807"]));
            v
        }
        // Blocking reads, the BLOCK Redis obeys last set to "for ever".
        4 => vec![
            w(&["BRPOP", "q", "0"]),
            w(&["BLMOVE", "a", "b", "LEFT", "LEFT", "0"]),
            w(&[
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
            w(&["XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"]),
        ],
        // Forbidden and malformed things, lookalike names, other namespaces.
        5 => vec![
            w(&["FLUSHALL"]),
            w(&["KEYS", "*"]),
            w(&["EVAL", "return 1", "0"]),
            w(&["GET", "lab:{00000000000000000000000000000000}:x"]),
            w(&["G\u{0415}T", "a"]),
            w(&["DEBUG", "SLEEP", "1"]),
            w(&["CONFIG", "SET", "maxmemory", "1"]),
        ],
        _ => unreachable!(),
    }
}

/// One attacker: sessions from `from`, one after another (a closed one is opened again),
/// each sending its kind of attack with up to 64 requests in flight (the cap), as fast as answers
/// come, ignoring what they say. Kind 6 floods (pings, binary frames, junk, past the rate);
/// kind 7 hogs slots (opens more sessions than its address may).
/// The attackers' phase: 0 waiting, 1 attacking, 2 done.
pub(crate) type Phase = tokio::sync::watch::Receiver<u8>;

pub(crate) async fn attacker(
    proxy: SocketAddr,
    from: Ipv4Addr,
    kind: usize,
    mut phase: Phase,
) -> Attack {
    let origin = format!("http://{proxy}");
    let mut a = Attack::default();
    let mut hogs = Vec::new();
    let mut round = 0u64;
    while *phase.borrow() != 2 {
        let mut ws = match Ws::connect_from(proxy, &origin, from).await {
            Ok(ws) => ws,
            Err(_) => {
                a.refused_upgrades += 1;
                // Refused (429): try again a little later (or when the phase changes).
                let _ = tokio::time::timeout(Duration::from_millis(200), phase.changed()).await;
                continue;
            }
        };
        a.sessions += 1;
        a.namespace = Some(ws.namespace());
        if kind == 7 {
            // Try for more places than the address has; hold what it gets, pinging only.
            for _ in 0..8 {
                match Ws::connect_from(proxy, &origin, from).await {
                    Ok(h) => hogs.push(h),
                    Err(_) => a.refused_upgrades += 1,
                }
            }
        }
        let mut ok_here = 0u64;
        let mut next_id = 1u64;
        let mut in_flight = 0usize;
        let mut queue: Vec<&'static str> = Vec::new();
        let closed = loop {
            let now = *phase.borrow();
            if now == 2 {
                break None;
            }
            if now == 0 && in_flight == 0 {
                // Between attacks: idle, the session open.
                tokio::select! {
                    _ = phase.changed() => {}
                    m = ws.ws.next() => match m {
                        Some(Ok(Message::Close(f))) => {
                            break Some(f.map_or("none".to_string(), |f| f.reason.to_string()))
                        }
                        Some(Ok(_)) => {}
                        _ => break Some("socket".into()),
                    },
                }
                continue;
            }
            // Fill the window (attacking).
            while now == 1 && in_flight < 64 {
                let msg = match kind {
                    6 => {
                        next_id += 1;
                        match next_id % 4 {
                            0 => Message::Binary(vec![0; 64].into()),
                            1 => Message::Ping(vec![].into()),
                            2 => Message::Text("{\"not json".into()),
                            _ => Message::Text(
                                json!({"id": next_id, "cmd": ["PING"]}).to_string().into(),
                            ),
                        }
                    }
                    7 => Message::Ping(vec![].into()),
                    _ => {
                        if queue.is_empty() {
                            queue = attacks(kind, round).to_vec();
                            queue.reverse();
                            round += 1;
                        }
                        next_id += 1;
                        let cmd = queue.pop().unwrap();
                        Message::Text(format!(r#"{{"id":{next_id},"cmd":{cmd}}}"#).into())
                    }
                };
                let answered = !matches!(msg, Message::Ping(_));
                if ws.ws.send(msg).await.is_err() {
                    break;
                }
                if answered {
                    in_flight += 1;
                } else if kind == 7 {
                    break;
                }
            }
            // The answers (however long the proxy holds this address back), or the phase's
            // next change.
            let next = tokio::select! {
                m = ws.ws.next() => Some(m),
                _ = phase.changed() => None,
                _ = tokio::time::sleep(Duration::from_millis(500)), if kind == 7 => None,
            };
            match next {
                None => {}
                Some(Some(Ok(Message::Text(t)))) => {
                    in_flight = in_flight.saturating_sub(1);
                    let v: Value = serde_json::from_str(t.as_str()).unwrap();
                    if code(&v).is_empty() {
                        ok_here += 1;
                    }
                    a.count(&v);
                }
                Some(Some(Ok(Message::Close(f)))) => {
                    break Some(f.map_or("none".to_string(), |f| f.reason.to_string()))
                }
                Some(Some(Ok(_))) => {}
                Some(Some(Err(_)) | None) => break Some("socket".into()),
            }
        };
        a.max_ok_per_session = a.max_ok_per_session.max(ok_here);
        if let Some(c) = closed {
            *a.closes.entry(c).or_default() += 1;
        }
    }
    drop(hogs);
    a
}
