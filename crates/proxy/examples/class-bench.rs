//! Class mode's budgets (issue 31), measured on loopback: a fresh `redis-server`, two proxies
//! (this example re-executed with `--serve`, each a process of its own), one instructor and
//! 1,000 students as WebSocket clients, half on each proxy:
//!
//! 1. a move reaching every student: 50 moves, each timed from the instructor's send to each
//!    student's receipt of that view (50,000 deliveries): p50, p99 — budget p99 ≤ 100 ms;
//! 2. 1,000 answers counted: a question asked, then every student answers at once; the time
//!    from the first send until the instructor has heard all 1,000 — budget ≤ 1 s;
//! 3. proxy memory per student: each proxy's resident memory (VmRSS) before the class and
//!    with its 500 students joined — budget ≤ 20 kB;
//! 4. Redis memory per class: `MEMORY USAGE` of every key of the class, summed, with 1,000
//!    students and their answers.
//!
//! Run with (a release build; LTO off so it builds in reasonable time on a small machine):
//! `CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
//!  CARGO_PROFILE_RELEASE_OPT_LEVEL=3 cargo run --release -p redislab-proxy --example class-bench`
//! Options: `--students N` (default 1000), `--moves N` (default 50). `cargo xtask bench`
//! runs it.

#[path = "../tests/support/mod.rs"]
mod support;

use redislab_proxy::Config;
use redislab_sim::class::{Asked, Down, Form, Op, Position, View};
use std::io::BufRead;
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};

use std::time::{Duration, Instant};
use support::class::ClassWs;
use support::{rss_kb, RedisServer};
use tokio::sync::{mpsc, watch};

fn main() {
    let args = support::BenchArgs::from_env();
    if let Some(url) = args.serve() {
        return serve(url);
    }
    let opt = |name: &str, default: usize| args.number(name, default);
    let (students, moves) = (opt("--students", 1000), opt("--moves", 50));
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(bench(students, moves));
}

/// A proxy of its own for the bench: one address' limits lifted (every client is on
/// loopback).
fn serve(redis_url: &str) {
    let mut cfg = Config::new(redis_url);
    cfg.max_connections = 2_000;
    cfg.max_sessions_per_address = 2_000;
    cfg.new_sessions_per_sec = 100_000;
    cfg.new_sessions_burst = 100_000;
    cfg.class.joins_per_address = 100_000;
    cfg.class.answers_per_address = 100_000;
    cfg.class.max_students = 2_000;
    support::serve_bench_proxy(cfg);
}

/// A proxy process and its address.
fn spawn_proxy(redis_url: &str) -> (Child, SocketAddr) {
    let exe = std::env::current_exe().unwrap();
    let mut child = Command::new(exe)
        .args(["--serve", redis_url])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the proxy starts");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("LISTEN ")
        .unwrap()
        .parse()
        .unwrap();
    (child, addr)
}

fn at(slide: u32) -> View {
    View {
        at: Position {
            deck: "production".into(),
            slide,
            step: 0,
        },
        ..View::default()
    }
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1]
}

async fn bench(n: usize, moves: usize) {
    let redis = RedisServer::start();
    let (mut pa, a) = spawn_proxy(&redis.url());
    let (mut pb, b) = spawn_proxy(&redis.url());
    let (ra0, rb0) = (rss_kb(pa.id()), rss_kb(pb.id()));

    let mut teacher = ClassWs::connect(a).await;
    let Down::Created { code, .. } = teacher
        .call(Op::Create {
            view: at(0),
            tab: "bench".into(),
        })
        .await
    else {
        panic!("a class")
    };

    // The students: each a task reading its socket, reporting every view's arrival; on the
    // signal it answers the open question.
    let (seen_tx, mut seen) = mpsc::unbounded_channel::<(u64, Instant)>();
    let (go_tx, go) = watch::channel(0u64);
    let (done_tx, mut done) = mpsc::unbounded_channel::<()>();
    let t_join = Instant::now();
    for batch in 0..n.div_ceil(100) {
        let joined = futures_util::future::join_all((0..100.min(n - batch * 100)).map(|j| {
            let i = batch * 100 + j;
            let code = code.clone();
            async move {
                let mut ws = ClassWs::connect(if i % 2 == 0 { a } else { b }).await;
                let d = ws
                    .call(Op::Join {
                        code,
                        name: String::new(),
                        resume: String::new(),
                    })
                    .await;
                assert!(matches!(d, Down::Joined { .. }), "{d:?}");
                ws
            }
        }))
        .await;
        for (j, mut ws) in joined.into_iter().enumerate() {
            let (seen_tx, mut go, done_tx) = (seen_tx.clone(), go.clone(), done_tx.clone());
            let value = ((batch * 100 + j) % 3 + 1).to_string();
            tokio::spawn(async move {
                loop {
                    tokio::select! {
                        d = ws.next() => match d {
                            Some(Down::View { seq, .. }) => { let _ = seen_tx.send((seq, Instant::now())); }
                            Some(_) => {}
                            None => return,
                        },
                        r = go.changed() => {
                            if r.is_err() { return; }
                            let q = *go.borrow();
                            let id = ws.send(Op::Answer { q, value: value.clone() }).await;
                            let _ = id;
                            let _ = done_tx.send(());
                        }
                    }
                }
            });
        }
    }
    let joined_in = t_join.elapsed();
    // Every student has the class' first view (the catch-up read).
    let mut first = 0;
    while first < n {
        let (s, _) = seen.recv().await.unwrap();
        if s == 1 {
            first += 1;
        }
    }
    let (ra1, rb1) = (rss_kb(pa.id()), rss_kb(pb.id()));
    let per_student_kb = ((ra1 - ra0) + (rb1 - rb0)) as f64 * 1.024 / n as f64;

    // 1. Moves.
    let mut lat: Vec<f64> = Vec::with_capacity(n * moves);
    let mut seq = 1;
    for i in 1..=moves as u32 {
        let t0 = Instant::now();
        let d = teacher
            .call(Op::Show {
                view: at(i),
                ask: false,
                reveal: false,
            })
            .await;
        assert!(matches!(d, Down::Ok { .. }), "{d:?}");
        seq += 1;
        let mut got = 0;
        while got < n {
            let (s, t) = tokio::time::timeout(Duration::from_secs(30), seen.recv())
                .await
                .expect("every student gets the move")
                .unwrap();
            if s == seq {
                got += 1;
                lat.push(t.duration_since(t0).as_secs_f64() * 1000.0);
            }
        }
    }
    lat.sort_by(|x, y| x.partial_cmp(y).unwrap());
    let (p50, p99) = (pct(&lat, 0.50), pct(&lat, 0.99));

    // 2. A question, every student answering at once.
    let quiz = View {
        question: Some(Asked {
            topic: "lru".into(),
            kind: "evicted".into(),
            seed: 7,
            text: "?".into(),
            code: vec![],
            form: Form::Choice {
                options: vec!["ক".into(), "খ".into(), "গ".into()],
            },
        }),
        ..at(moves as u32 + 1)
    };
    teacher
        .call(Op::Show {
            view: quiz,
            ask: true,
            reveal: false,
        })
        .await;
    seq += 1;
    let q = seq;
    let mut got = 0;
    while got < n {
        let (s, _) = seen.recv().await.unwrap();
        if s == q {
            got += 1;
        }
    }
    teacher.pushes.clear();
    let t0 = Instant::now();
    go_tx.send(q).unwrap();
    let mut counted = std::collections::HashSet::new();
    while counted.len() < n {
        match teacher.next().await.expect("the instructor's socket") {
            Down::Answer { who, .. } => {
                counted.insert(who);
            }
            _ => continue,
        }
    }
    let answers_s = t0.elapsed().as_secs_f64();
    for _ in 0..n {
        done.recv().await.unwrap();
    }

    // 4. Redis memory per class.
    let mut admin = redis.admin().await;
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("class:{{{code}}}*"))
        .query_async(&mut admin)
        .await
        .unwrap();
    let mut bytes = 0u64;
    for k in &keys {
        let m: Option<u64> = redis::cmd("MEMORY")
            .arg("USAGE")
            .arg(k)
            .query_async(&mut admin)
            .await
            .unwrap();
        bytes += m.unwrap_or(0);
    }
    teacher.call(Op::End {}).await;

    let verdict = |ok: bool| if ok { "met" } else { "OVER" };
    println!(
        "class mode: {n} students over 2 proxies (joined in {:.1} s), 1 instructor",
        joined_in.as_secs_f64()
    );
    println!(
        "  a move reaching every student   p50 {p50:>6.1} ms   p99 {p99:>6.1} ms   ({} deliveries; budget p99 ≤ 100 ms: {})",
        lat.len(),
        verdict(p99 <= 100.0)
    );
    println!(
        "  {n} answers counted             {:>6.3} s                  (budget ≤ 1 s: {})",
        answers_s,
        verdict(answers_s <= 1.0)
    );
    println!(
        "  proxy memory per student        {per_student_kb:>6.1} kB                 (VmRSS, both proxies; budget ≤ 20 kB: {})",
        verdict(per_student_kb <= 20.0)
    );
    println!(
        "  Redis memory per class          {:>6.1} kB                 ({} keys, MEMORY USAGE, with {n} answers)",
        bytes as f64 / 1000.0,
        keys.len()
    );
    drop(pa.stdin.take());
    drop(pb.stdin.take());
    let _ = pa.wait();
    let _ = pb.wait();
}
