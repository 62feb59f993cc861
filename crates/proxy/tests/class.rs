//! Class mode through the proxy, against a real Redis (and the 3-node cluster): one
//! instructor and 300 students over two proxies, one of them SIGKILLed mid-question; forged
//! moves and answers; code guessing; a Redis restart; nothing left when the class ends.

mod support;

use redislab_proxy::Config;
use redislab_sim::class::{Asked, Down, Ending, Form, Op, Refusal, View};
use std::collections::BTreeMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;
use support::class::{at, refusal, ClassWs};
use support::cluster::Cluster;
use support::{config, Proxy, ProxyProcess, RedisServer};

/// A proxy's config for a whole class from one address (the tests' loopback).
fn class_config(mut c: Config) -> Config {
    c.max_connections = 1000;
    c.max_sessions_per_address = 1000;
    c.new_sessions_per_sec = 1000;
    c.new_sessions_burst = 1000;
    c.class.joins_per_address = 2000;
    c.timeout = Duration::from_secs(5);
    c
}

/// The question the tests ask: three options.
fn quiz(slide: u32) -> View {
    View {
        question: Some(Asked {
            topic: "lru".into(),
            kind: "evicted".into(),
            seed: 7,
            text: "কোনটা?".into(),
            code: vec![],
            form: Form::Choice {
                options: vec!["ক".into(), "খ".into(), "গ".into()],
            },
        }),
        ..at(slide, 0)
    }
}

fn show(view: View, ask: bool, reveal: bool) -> Op {
    Op::Show { view, ask, reveal }
}

fn join(code: &str, name: &str, resume: &str) -> Op {
    Op::Join {
        code: code.into(),
        name: name.into(),
        resume: resume.into(),
    }
}

/// Makes a class on `addr`: the instructor's page, its code and secret.
async fn create(addr: SocketAddr) -> (ClassWs, String, String) {
    let mut t = ClassWs::connect(addr).await;
    let d = t
        .call(Op::Create {
            view: at(0, 0),
            tab: "tab-1".into(),
        })
        .await;
    let Down::Created { code, secret, .. } = d else {
        panic!("created: {d:?}")
    };
    assert_eq!(code.len(), 6);
    (t, code, secret)
}

/// A joined student: the page, their number, their resume token.
struct Student {
    ws: ClassWs,
    who: u32,
    resume: String,
}

async fn join_as(addr: SocketAddr, code: &str, name: &str, resume: &str) -> Student {
    let mut ws = ClassWs::connect(addr).await;
    let d = ws.call(join(code, name, resume)).await;
    let Down::Joined { you, resume, .. } = d else {
        panic!("joined: {d:?}")
    };
    Student {
        ws,
        who: you,
        resume,
    }
}

/// Every key whose name starts with `pattern`'s prefix, with its PTTL.
async fn keys(c: &mut redis::aio::MultiplexedConnection, pattern: &str) -> Vec<(String, i64)> {
    let found: Vec<String> = redis::cmd("KEYS")
        .arg(pattern)
        .query_async(c)
        .await
        .unwrap();
    let mut out = Vec::new();
    for k in found {
        let t: i64 = redis::cmd("PTTL").arg(&k).query_async(c).await.unwrap();
        out.push((k, t));
    }
    out
}

/// The instructor's last answer of each student to question `q`, from its pushes.
fn answers_seen(t: &ClassWs, q: u64) -> BTreeMap<u32, String> {
    let mut m = BTreeMap::new();
    for p in &t.pushes {
        match p {
            Down::Answers { q: aq, all } if *aq == q => m.extend(all.iter().cloned()),
            Down::Answer { q: aq, who, value } if *aq == q => {
                m.insert(*who, value.clone());
            }
            _ => {}
        }
    }
    m
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_hundred_students_over_two_proxies_one_killed_mid_question() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .try_init();
    let n: usize = std::env::var("CLASS_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let t0 = std::time::Instant::now();
    let phase = |what: &str| eprintln!("{:>7.1}s {what}", t0.elapsed().as_secs_f64());
    let redis = RedisServer::start();
    let a = Proxy::start(class_config(config(&redis.url()))).await;
    let mut b = ProxyProcess::spawn(&[
        "--redis",
        &redis.url(),
        "--max-connections",
        "1000",
        "--max-sessions-per-address",
        "1000",
        "--new-sessions-per-s",
        "1000",
        "--class-joins-per-address",
        "2000",
    ]);
    let (mut teacher, code, secret) = create(a.addr).await;

    // 300 students, half on each proxy, a third with a name of their own.
    let mut students: Vec<Student> = Vec::with_capacity(n);
    for batch in 0..n / 30 {
        let joined = futures_util::future::join_all((0..30).map(|j| {
            let i = batch * 30 + j;
            let addr = if i < n / 2 { a.addr } else { b.addr };
            let name = if i % 3 == 0 {
                format!("ছাত্র {i}")
            } else {
                String::new()
            };
            let code = code.clone();
            async move { join_as(addr, &code, &name, "").await }
        }))
        .await;
        students.extend(joined);
    }
    phase("joined");
    let mut numbers: Vec<u32> = students.iter().map(|s| s.who).collect();
    numbers.sort_unstable();
    numbers.dedup();
    assert_eq!(numbers.len(), n, "each student a number of their own");
    // The instructor sees them all: joined, and present.
    teacher
        .until("300 present", |t| {
            t.pushes.contains(&Down::Present { n: n as u32 })
        })
        .await;
    let joined = teacher
        .pushes
        .iter()
        .filter(|p| matches!(p, Down::Student { .. }))
        .count();
    assert_eq!(joined, n);

    phase("present");
    // 50 moves: every student ends on the instructor's last slide and fragment.
    for i in 1..=50u32 {
        let d = teacher.call(show(at(i, i % 3), false, false)).await;
        assert!(matches!(d, Down::Ok { .. }), "{d:?}");
    }
    teacher
        .until("the last move", |t| {
            t.view.as_ref().is_some_and(|v| v.4.at.slide == 50)
        })
        .await;
    let last = teacher.view.clone().unwrap();
    futures_util::future::join_all(students.iter_mut().map(|s| s.ws.until_seq(last.0))).await;
    for s in &students {
        let v = s.ws.view.as_ref().unwrap();
        assert_eq!((v.0, &v.4.at), (last.0, &last.4.at), "student {}", s.who);
    }

    phase("moved");
    // A question: every phone gets it.
    teacher.call(show(quiz(51), true, false)).await;
    teacher
        .until("the question", |t| {
            t.view.as_ref().is_some_and(|v| v.4.question.is_some())
        })
        .await;
    let (qseq, q) = {
        let v = teacher.view.as_ref().unwrap();
        (v.0, v.1)
    };
    assert_eq!(q, qseq, "a question's number is the view that asked it");
    futures_util::future::join_all(students.iter_mut().map(|s| s.ws.until_seq(qseq))).await;
    assert!(
        students.iter().all(|s| s.ws.view.as_ref().unwrap().2),
        "open on every phone"
    );

    let first = |i: usize| ((i % 3) + 1).to_string();
    let mut expected: BTreeMap<u32, String> = BTreeMap::new();
    // Half of proxy B's students and all of A's answer; then B is SIGKILLed.
    for (i, s) in students.iter_mut().enumerate().take(n / 2 + n / 4) {
        let d = s.ws.call(Op::Answer { q, value: first(i) }).await;
        assert!(matches!(d, Down::Answered { changed: false, .. }), "{d:?}");
        expected.insert(s.who, first(i));
    }
    phase("answered on A and half of B");
    b.kill9();
    // B's students lose their connection and come back through A, as the same students.
    for s in students.iter_mut().skip(n / 2) {
        s.ws.until_closed().await;
        let again = join_as(a.addr, &code, "", &s.resume).await;
        assert_eq!(again.who, s.who, "the same student again");
        s.ws = again.ws;
    }
    futures_util::future::join_all(
        students
            .iter_mut()
            .skip(n / 2)
            .map(|s| s.ws.until_seq(qseq)),
    )
    .await;
    phase("rejoined");
    // Those whose answer may have been lost send it again; the rest answer now; one in six
    // changes their mind.
    for (i, s) in students.iter_mut().enumerate().skip(n / 2) {
        let d = s.ws.call(Op::Answer { q, value: first(i) }).await;
        let resent = i < n / 2 + n / 4;
        assert!(
            matches!(d, Down::Answered { changed, .. } if changed == resent),
            "{d:?}"
        );
        expected.insert(s.who, first(i));
    }
    for (i, s) in students.iter_mut().enumerate().filter(|(i, _)| i % 6 == 0) {
        let other = (((i + 1) % 3) + 1).to_string();
        let d =
            s.ws.call(Op::Answer {
                q,
                value: other.clone(),
            })
            .await;
        assert!(matches!(d, Down::Answered { changed: true, .. }), "{d:?}");
        expected.insert(s.who, other);
    }
    phase("answered");
    // Counted exactly once each, the last answer of each: in Redis, and on the stage.
    let mut admin = redis.admin().await;
    let k = format!("class:{{{code}}}:ans");
    let stored: BTreeMap<u32, String> = redis::cmd("HGETALL")
        .arg(&k)
        .query_async(&mut admin)
        .await
        .unwrap();
    assert_eq!(stored, expected);
    teacher
        .until("every answer on the stage", |t| {
            answers_seen(t, q) == expected
        })
        .await;
    assert_eq!(answers_seen(&teacher, q).len(), n);

    phase("counted");
    // The reveal closes the question: a late answer is refused and changes nothing.
    teacher.call(show(quiz(51), false, true)).await;
    let s = &mut students[1];
    s.ws.until("the reveal", |w| w.view.as_ref().is_some_and(|v| !v.2))
        .await;
    let d =
        s.ws.call(Op::Answer {
            q,
            value: "3".into(),
        })
        .await;
    assert_eq!(refusal(&d), Refusal::Closed);

    // Forgeries: a student cannot move or end the class, nor answer for someone else; a
    // wrong secret, a second instructor tab and a page that never joined are refused.
    let d = s.ws.call(show(at(1, 0), false, false)).await;
    assert_eq!(refusal(&d), Refusal::Forbidden);
    let d = s.ws.call(Op::End {}).await;
    assert_eq!(refusal(&d), Refusal::Forbidden);
    s.ws.send_text(format!(
        r#"{{"id":99,"op":"answer","q":{q},"value":"1","who":1}}"#
    ))
    .await;
    let d = s.ws.next().await.unwrap();
    assert!(
        matches!(
            d,
            Down::Err {
                id: Some(99),
                code: Refusal::BadRequest,
                ..
            }
        ),
        "{d:?}"
    );
    let mut other = ClassWs::connect(a.addr).await;
    let d = other
        .call(Op::Answer {
            q,
            value: "1".into(),
        })
        .await;
    assert_eq!(refusal(&d), Refusal::Forbidden);
    let d = other
        .call(Op::Teach {
            code: code.clone(),
            secret: "0".repeat(32),
            tab: "tab-2".into(),
        })
        .await;
    assert_eq!(refusal(&d), Refusal::Forbidden);
    let d = other
        .call(Op::Teach {
            code: code.clone(),
            secret: secret.clone(),
            tab: "tab-2".into(),
        })
        .await;
    assert_eq!(refusal(&d), Refusal::TeacherElsewhere);
    let after: BTreeMap<u32, String> = redis::cmd("HGETALL")
        .arg(&k)
        .query_async(&mut admin)
        .await
        .unwrap();
    assert_eq!(after, expected, "nothing forged counted");

    phase("forgeries refused");
    // The end: every phone is told and let go; nothing of the class is left in Redis.
    teacher.call(Op::End {}).await;
    for s in students.iter_mut() {
        s.ws.until_closed().await;
        assert_eq!(s.ws.ended, Some(Some(Ending::Ended)), "student {}", s.who);
    }
    assert!(keys(&mut admin, &format!("class:{{{code}}}*"))
        .await
        .is_empty());
    for (key, ttl) in keys(&mut admin, "class:*").await {
        assert!(key.starts_with("class:rate:{"), "{key}");
        let window = if key.ends_with(":create") {
            3_600_000
        } else {
            60_000
        };
        assert!(
            (1..=window).contains(&ttl),
            "{key} expires within its window: {ttl}"
        );
    }
    support::wait_until(
        "the proxy lets the class go",
        Duration::from_secs(10),
        || async { a.state.class.counts() == (0, 0) },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn code_guessing_and_answer_floods_are_limited_in_redis() {
    let redis = RedisServer::start();
    let a = Proxy::start(config(&redis.url())).await;
    let b = Proxy::start(config(&redis.url())).await;
    let (mut teacher, code, _) = create(a.addr).await;
    let guesser = Ipv4Addr::new(127, 0, 0, 2);
    let wrong = if code == "000000" { "000001" } else { "000000" };
    // Ten wrong codes over both proxies (the counter is in Redis, shared), a malformed one
    // counting too …
    for i in 0..10 {
        let proxy = if i % 2 == 0 { a.addr } else { b.addr };
        let mut g = ClassWs::connect_from(proxy, guesser).await.unwrap();
        let typed = if i == 9 { "12" } else { wrong };
        let d = g.call(join(typed, "", "")).await;
        assert_eq!(refusal(&d), Refusal::NoClass, "guess {i}");
    }
    // … and the address is refused even the right code, on either proxy.
    for proxy in [a.addr, b.addr] {
        let mut g = ClassWs::connect_from(proxy, guesser).await.unwrap();
        let d = g.call(join(&code, "", "")).await;
        assert_eq!(refusal(&d), Refusal::RateLimited);
    }
    // Another address joins.
    let s = ClassWs::connect_from(b.addr, Ipv4Addr::new(127, 0, 0, 3))
        .await
        .unwrap();
    let mut s = Student {
        ws: s,
        who: 0,
        resume: String::new(),
    };
    let d = s.ws.call(join(&code, "রিয়া", "")).await;
    let Down::Joined { resume, name, .. } = d else {
        panic!("{d:?}")
    };
    assert_eq!(name, "রিয়া");
    teacher.call(show(quiz(3), true, false)).await;
    s.ws.until("the question", |w| w.view.as_ref().is_some_and(|v| v.2))
        .await;
    let q = s.ws.view.as_ref().unwrap().1;
    // One student with two tabs on two proxies: their answers count against one budget of
    // 20 in 10 s (each tab stays under its own connection's rate).
    let mut tab2 = ClassWs::connect_from(a.addr, Ipv4Addr::new(127, 0, 0, 3))
        .await
        .unwrap();
    tab2.call(join(&code, "", &resume)).await;
    // The student's counter has fixed windows of 10 s: start early in one.
    support::wait_until(
        "early in a 10 s window",
        Duration::from_secs(11),
        || async {
            let ms = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_millis();
            ms % 10_000 < 5_000
        },
    )
    .await;
    let mut refused = 0;
    for i in 0..12 {
        for w in [&mut s.ws, &mut tab2] {
            let d = w
                .call(Op::Answer {
                    q,
                    value: ((i % 3) + 1).to_string(),
                })
                .await;
            if let Down::Err { code, .. } = d {
                assert_eq!(code, Refusal::RateLimited);
                refused += 1;
            }
        }
        tokio::time::sleep(Duration::from_millis(110)).await;
    }
    assert_eq!(refused, 4, "24 answers, 20 taken");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_redis_is_said_and_the_class_reported_lost() {
    let mut redis = RedisServer::start();
    let a = Proxy::start(config(&redis.url())).await;
    let (mut teacher, code, _) = create(a.addr).await;
    let mut s = join_as(a.addr, &code, "", "").await;
    s.ws.until_seq(1).await;
    redis.restart();
    for w in [&mut s.ws, &mut teacher] {
        w.until("Redis lost", |w| {
            w.pushes.contains(&Down::Redis { up: false })
        })
        .await;
        w.until("Redis back", |w| {
            w.pushes.contains(&Down::Redis { up: true })
        })
        .await;
        w.until_closed().await;
        assert_eq!(w.ended, Some(Some(Ending::Lost)));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_class_on_a_cluster_lives_in_one_slot() {
    let cluster = Cluster::start().await;
    let mut ca = Config::cluster(cluster.urls());
    ca.timeout = Duration::from_secs(3);
    let mut cb = Config::cluster(vec![cluster.urls()[1].clone()]);
    cb.timeout = Duration::from_secs(3);
    let a = Proxy::start(ca).await;
    let b = Proxy::start(cb).await;
    let (mut teacher, code, _) = create(a.addr).await;
    let mut students = Vec::new();
    for i in 0..20 {
        students.push(join_as(if i % 2 == 0 { b.addr } else { a.addr }, &code, "", "").await);
    }
    for i in 1..=10 {
        teacher.call(show(at(i, 0), false, false)).await;
    }
    teacher.call(show(quiz(11), true, false)).await;
    teacher
        .until("asked", |t| t.view.as_ref().is_some_and(|v| v.2))
        .await;
    let (seq, q) = (
        teacher.view.as_ref().unwrap().0,
        teacher.view.as_ref().unwrap().1,
    );
    for (i, s) in students.iter_mut().enumerate() {
        s.ws.until_seq(seq).await;
        let d =
            s.ws.call(Op::Answer {
                q,
                value: ((i % 3) + 1).to_string(),
            })
            .await;
        assert!(matches!(d, Down::Answered { .. }), "{d:?}");
    }
    teacher
        .until("20 answers", |t| answers_seen(t, q).len() == 20)
        .await;
    // Every key of the class on the one node of its slot.
    let slot = redislab_proxy::backend::key_slot(format!("class:{{{code}}}").as_bytes());
    let (_, owner) = cluster.owner(slot).await;
    for n in &cluster.nodes {
        let mut c = n.conn().await;
        let found = keys(&mut c, &format!("class:{{{code}}}*")).await;
        if n.port == owner {
            assert!(found.len() >= 7, "{found:?}");
            assert!(
                found.iter().all(|(_, t)| *t > 0),
                "every key expires: {found:?}"
            );
        } else {
            assert!(found.is_empty(), "node {}: {found:?}", n.port);
        }
    }
    teacher.call(Op::End {}).await;
    for s in students.iter_mut() {
        s.ws.until_closed().await;
        assert_eq!(s.ws.ended, Some(Some(Ending::Ended)));
    }
    let mut c = cluster.node(owner).conn().await;
    assert!(keys(&mut c, &format!("class:{{{code}}}*")).await.is_empty());
}
