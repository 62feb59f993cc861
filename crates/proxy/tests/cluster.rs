//! Scale-out on a Redis Cluster: three primaries from Debian's `redis-server`, made a cluster
//! by `redis-cli --cluster create`, and two proxies in front of it.
//!
//! - The lock race runs live through the proxies and ends as the simulation says. A session
//!   is one WebSocket with a namespace of its own, so two workers that contend for one lock
//!   must share a session: both workers of a race are two concurrent request streams on one
//!   WebSocket (the lock lab's live run, `labs::lock::LockLive`, driven as the browser's worker
//!   drives it: its commands sent for real, in real time). Each race runs twice at once — one session on
//!   each proxy, same key names — and a client that reconnects lands on the other proxy for
//!   the next race; every run must end like the simulation.
//! - Sessions on either proxy stay isolated; their keys spread over the nodes, each key on
//!   the node that owns its slot (`CLUSTER KEYSLOT`, and `EXISTS` on every node); multi-key
//!   commands, scripts (loaded on NOSCRIPT on the owning node) and blocking reads work.
//! - A session's slot migrated to another node mid-session (`CLUSTER SETSLOT`, `MIGRATE`):
//!   the proxy follows the `MOVED` and the session goes on, blocking reads included.

mod support;

use redislab_proxy::backend::key_slot;
use redislab_proxy::Config;
use redislab_sim::labs::lock::{self, CmdKind, LockLive, LockOutput, LockParams, Release, Who};
use redislab_sim::labs::params::Switch;
use redislab_sim::redis::SCRIPTS;
use redislab_sim::Reply;
use serde_json::json;
use std::collections::BTreeSet;
use std::time::Duration;
use support::cluster::Cluster;
use support::{code, drive_live, Proxy, Ws};

/// Test config for a proxy in front of the cluster, knowing `urls` of its nodes.
fn cluster_config(urls: Vec<String>) -> Config {
    let mut c = Config::cluster(urls);
    c.timeout = Duration::from_millis(2000);
    c.limits.max_block_ms = 2000;
    c
}

// ---- The lock race, live ----

/// The lock lab's race with margins of hundreds of ms, so real time on a loaded machine ends
/// the same way as virtual time: A takes the lock (TTL 2 s) and freezes 200–1800 ms into
/// its 1.4 s of work, so the lock expires at 2 s; B (20 ms later) retries every 40–100 ms,
/// takes it just after it expired and works to about 3.5 s; A releases at about 3 s.
fn race_params(release: Release) -> LockParams {
    LockParams {
        ttl: 2000,
        work: 1400,
        jobs: 1,
        release,
        heartbeat: Switch::Off,
        fencing: Switch::Off,
        dedup: Switch::Off,
        pause_worker: Who::A,
        pause_at: 200,
        pause: 1600,
        gap: 20,
        seed: 7,
        ..LockParams::default()
    }
}

/// What a race ends with: (releases that removed the other's lock, two-owner moments,
/// locks granted, the last reply of each worker's release).
fn outcome(r: &LockOutput) -> (u32, u32, u32, Vec<Reply>) {
    let releases = (0..2)
        .map(|a| {
            r.commands
                .iter()
                .rev()
                .find(|c| c.actor == a && matches!(c.kind, CmdKind::Del | CmdKind::Release))
                .map(|c| c.reply.clone())
                .expect("each worker released")
        })
        .collect();
    let c = &r.counters;
    (c.steals, c.two_owner_moments, c.grants, releases)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lock_race_live_through_two_proxies_ends_as_simulated() {
    let cluster = Cluster::start().await;
    // One proxy knows every node; the other only one of them and learns the rest.
    let p1 = Proxy::start(cluster_config(cluster.urls())).await;
    let p2 = Proxy::start(cluster_config(vec![cluster.nodes[1].url()])).await;
    for (release, proxies) in [(Release::Del, [&p1, &p2]), (Release::Token, [&p2, &p1])] {
        let p = race_params(release);
        let expected = outcome(&lock::run(&p));
        match release {
            // Plain DEL: A's release removes B's lock while B works.
            Release::Del => assert_eq!(
                expected,
                (1, 1, 2, vec![Reply::Integer(1), Reply::Integer(0)])
            ),
            // Token: A's release finds B's token and leaves the lock alone.
            Release::Token => assert_eq!(
                expected,
                (0, 1, 2, vec![Reply::Integer(0), Reply::Integer(1)])
            ),
        }
        // The same race at once on a session of each proxy, with the same key names; the
        // next race reconnects and lands on the other proxy.
        let mut sessions = [proxies[0].connect().await, proxies[1].connect().await];
        assert_ne!(sessions[0].namespace(), sessions[1].namespace());
        let [s0, s1] = &mut sessions;
        let (mut r0, mut r1) = (LockLive::of(&p, None), LockLive::of(&p, None));
        let limit = Duration::from_secs(60);
        let (e0, e1) = tokio::join!(
            drive_live(s0, &mut r0, limit),
            drive_live(s1, &mut r1, limit)
        );
        assert_eq!((e0, e1), (vec![], vec![]), "no error answers");
        for (i, r) in [r0.output(), r1.output()].iter().enumerate() {
            assert_eq!(outcome(r), expected, "{release}, live run {i}: {r:#?}");
            assert!(r.commands.iter().all(|c| c.rtt_us.is_some()), "{i}");
        }
    }
}

// ---- Sessions on a cluster ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_isolated_and_spread_over_the_nodes() {
    let cluster = Cluster::start().await;
    let p1 = Proxy::start(cluster_config(cluster.urls())).await;
    let p2 = Proxy::start(cluster_config(cluster.urls())).await;
    let mut node_conns = Vec::new();
    for n in &cluster.nodes {
        node_conns.push((n.port, n.conn().await));
    }
    let sha = SCRIPTS.iter().find(|s| s.name == "release").unwrap().sha1;
    const N: usize = 24;
    let mut sessions = Vec::new();
    for i in 0..N {
        sessions.push(if i % 2 == 0 {
            p1.connect().await
        } else {
            p2.connect().await
        });
    }
    let mut owners = BTreeSet::new();
    for (i, s) in sessions.iter_mut().enumerate() {
        let me = i.to_string();
        // Multi-key commands and a script: all of a session's keys are in one slot.
        s.ok(&["SET", "k", &me]).await;
        s.ok(&["SET", "lock:x", &me, "NX", "PX", "60000"]).await;
        assert_eq!(
            s.ok(&["MGET", "k", "lock:x", "none"]).await,
            json!([me, me, null])
        );
        s.ok(&["RPUSH", "q", "a", "b"]).await;
        assert_eq!(
            s.ok(&["LMOVE", "q", "done", "LEFT", "RIGHT"]).await,
            json!("a")
        );
        assert_eq!(
            s.script("release", &["lock:x"], &["other"]).await["ok"],
            json!(0)
        );
        assert_eq!(
            s.script("release", &["lock:x"], &[&me]).await["ok"],
            json!(1)
        );
        assert_eq!(
            s.ok(&["EXISTS", "k", "q", "done", "lock:x"]).await,
            json!(3)
        );
        // A blocking read, on the session's own connection to the slot's node.
        let id = s.start(&["BRPOP", "jobs", "2"]).await;
        s.start(&["LPUSH", "jobs", "j1"]).await;
        let (a, b) = (s.recv().await.unwrap(), s.recv().await.unwrap());
        let (brpop, push) = if a["id"] == json!(id) { (a, b) } else { (b, a) };
        assert_eq!(brpop["ok"], json!(["jobs", "j1"]), "{brpop}");
        assert_eq!(push["ok"], json!(1), "{push}");

        // Keyless commands (the cluster client sends PING to every node) and streams with a
        // blocking group read.
        assert_eq!(s.ok(&["PING"]).await, json!({"status": "PONG"}));
        assert_eq!(s.ok(&["PUBLISH", "ch", "hi"]).await, json!(0));
        s.ok(&["XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"]).await;
        let xid = s.ok(&["XADD", "s", "*", "job", &me]).await;
        let r = s
            .ok(&[
                "XREADGROUP",
                "GROUP",
                "g",
                "c",
                "BLOCK",
                "1000",
                "STREAMS",
                "s",
                ">",
            ])
            .await;
        assert_eq!(r, json!([["s", [[xid, ["job", me]]]]]));

        // Where the keys are: the slot Redis computes is ours, and only its owner has them.
        let ns = s.namespace();
        let key = format!("{ns}k");
        let slot: u16 = redis::cmd("CLUSTER")
            .arg("KEYSLOT")
            .arg(&key)
            .query_async(&mut node_conns[0].1)
            .await
            .unwrap();
        assert_eq!(slot, key_slot(key.as_bytes()));
        let (_, owner) = cluster.owner(slot).await;
        for (port, conn) in &mut node_conns {
            let n: i64 = redis::cmd("EXISTS")
                .arg(&key)
                .arg(format!("{ns}done"))
                .query_async(conn)
                .await
                .unwrap_or(0); // another node answers MOVED
            assert_eq!(n, if *port == owner { 2 } else { 0 }, "{key} on {port}");
        }
        // The script was loaded (after NOSCRIPT) on the node that owns the slot.
        let mut oc = cluster.node(owner).conn().await;
        let loaded: Vec<i64> = redis::cmd("SCRIPT")
            .arg("EXISTS")
            .arg(sha)
            .query_async(&mut oc)
            .await
            .unwrap();
        assert_eq!(loaded, vec![1]);
        owners.insert(owner);
    }
    // 24 random namespaces over 3 nodes: more than one node holds sessions (all on one node
    // has probability 3 × 3⁻²⁴).
    assert!(owners.len() >= 2, "{owners:?}");
    // Isolation: every session still sees its own values only.
    for (i, s) in sessions.iter_mut().enumerate() {
        assert_eq!(s.ok(&["GET", "k"]).await, json!(i.to_string()));
        assert_eq!(s.ok(&["LRANGE", "done", "0", "-1"]).await, json!(["a"]));
    }
    let namespaces: BTreeSet<String> = sessions.iter().map(Ws::namespace).collect();
    assert_eq!(namespaces.len(), N);
    for s in &mut sessions {
        let foreign = namespaces.iter().find(|n| **n != s.namespace()).unwrap();
        let v = s.cmd(&["GET", &format!("{foreign}k")]).await;
        assert_eq!(code(&v), "NAMESPACE", "{v}");
    }
}

/// Moves `slot` from the node at `from` to the node at `to`, keys and all.
async fn migrate_slot(cluster: &Cluster, slot: u16, from: u16, to: u16) {
    let (from_id, _) = cluster.owner(slot).await;
    let mut src = cluster.node(from).conn().await;
    let mut dst = cluster.node(to).conn().await;
    let to_id: String = redis::cmd("CLUSTER")
        .arg("MYID")
        .query_async(&mut dst)
        .await
        .unwrap();
    assert_ne!(from_id, to_id);
    let _: () = redis::cmd("CLUSTER")
        .arg("SETSLOT")
        .arg(slot)
        .arg("IMPORTING")
        .arg(&from_id)
        .query_async(&mut dst)
        .await
        .unwrap();
    let _: () = redis::cmd("CLUSTER")
        .arg("SETSLOT")
        .arg(slot)
        .arg("MIGRATING")
        .arg(&to_id)
        .query_async(&mut src)
        .await
        .unwrap();
    loop {
        let keys: Vec<String> = redis::cmd("CLUSTER")
            .arg("GETKEYSINSLOT")
            .arg(slot)
            .arg(100)
            .query_async(&mut src)
            .await
            .unwrap();
        if keys.is_empty() {
            break;
        }
        let _: () = redis::cmd("MIGRATE")
            .arg("127.0.0.1")
            .arg(to)
            .arg("")
            .arg(0)
            .arg(5000)
            .arg("KEYS")
            .arg(&keys)
            .query_async(&mut src)
            .await
            .unwrap();
    }
    for n in &cluster.nodes {
        let mut c = n.conn().await;
        let _: () = redis::cmd("CLUSTER")
            .arg("SETSLOT")
            .arg(slot)
            .arg("NODE")
            .arg(&to_id)
            .query_async(&mut c)
            .await
            .unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_survives_its_slot_moving_to_another_node() {
    let cluster = Cluster::start().await;
    let proxy = Proxy::start(cluster_config(cluster.urls())).await;
    let mut s = proxy.connect().await;
    let ns = s.namespace();
    let slot = key_slot(ns.as_bytes());
    s.ok(&["SET", "k", "before"]).await;
    s.ok(&["RPUSH", "q", "1"]).await;
    // The session's own connection exists, on the slot's node.
    assert_eq!(s.ok(&["BRPOP", "q", "1"]).await, json!(["q", "1"]));
    let (_, from) = cluster.owner(slot).await;
    let to = cluster
        .nodes
        .iter()
        .map(|n| n.port)
        .find(|p| *p != from)
        .unwrap();
    migrate_slot(&cluster, slot, from, to).await;
    assert_eq!(cluster.owner(slot).await.1, to);
    // The proxy's slot map is stale: the node answers MOVED, the proxy follows it (the
    // command had not run), for ordinary commands, bookkeeping and blocking reads alike.
    // First a script: EVALSHA meets MOVED, then NOSCRIPT on the new node (SCRIPT LOAD and
    // EVALSHA go there together).
    let v = s.script("release", &["k"], &["before"]).await;
    assert_eq!(v["ok"], json!(1), "{v}");
    assert_eq!(s.ok(&["GET", "k"]).await, json!(null));
    s.ok(&["SET", "k", "moved"]).await;
    s.ok(&["SET", "k2", "after"]).await;
    s.ok(&["RPUSH", "q", "2"]).await;
    assert_eq!(s.ok(&["BRPOP", "q", "1"]).await, json!(["q", "2"]));
    assert_eq!(
        s.script("release", &["k2"], &["after"]).await["ok"],
        json!(1)
    );
    let mut dst = cluster.node(to).conn().await;
    let v: Option<String> = redis::cmd("GET")
        .arg(format!("{ns}k"))
        .query_async(&mut dst)
        .await
        .unwrap();
    assert_eq!(
        v.as_deref(),
        Some("moved"),
        "the session's keys are on the new owner"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_killed_and_restarted_the_proxy_recovers() {
    let mut cluster = Cluster::start().await;
    let mut cfg = cluster_config(cluster.urls());
    cfg.timeout = Duration::from_millis(1000);
    let proxy = Proxy::start(cfg).await;
    let mut s = proxy.connect().await;
    let slot = key_slot(s.namespace().as_bytes());
    s.ok(&["SET", "k", "before"]).await;
    s.ok(&["RPUSH", "q", "1"]).await;
    assert_eq!(s.ok(&["BRPOP", "q", "1"]).await, json!(["q", "1"]));
    let (_, owner) = cluster.owner(slot).await;
    let i = cluster.nodes.iter().position(|n| n.port == owner).unwrap();
    cluster.nodes[i].kill();
    // While the session's node is gone: typed errors, at once or at the deadline.
    let typed = ["UNAVAILABLE", "TIMEOUT", "UNKNOWN_OUTCOME"];
    for words in [&["GET", "k"][..], &["SET", "k", "x"], &["BRPOP", "q", "1"]] {
        let v = s.cmd(words).await;
        assert!(typed.contains(&code(&v)), "{words:?} → {v}");
        if words[0] == "GET" {
            assert_eq!(code(&v), "UNAVAILABLE", "a read that could not run: {v}");
        }
    }
    // The same node back on its port (empty): the proxy reconnects by itself, no restart.
    cluster.nodes[i].restart();
    cluster.wait_ok().await;
    let s = tokio::sync::Mutex::new(s);
    support::wait_until("the proxy recovers", Duration::from_secs(30), || async {
        let v = s.lock().await.cmd(&["SET", "k2", "after"]).await;
        assert!(v.get("ok").is_some() || typed.contains(&code(&v)), "{v}");
        v.get("ok").is_some()
    })
    .await;
    let mut s = s.into_inner();
    assert_eq!(s.ok(&["GET", "k2"]).await, json!("after"));
    assert_eq!(
        s.ok(&["GET", "k"]).await,
        json!(null),
        "the restarted node is empty"
    );
    s.ok(&["RPUSH", "q", "2"]).await;
    assert_eq!(s.ok(&["BRPOP", "q", "1"]).await, json!(["q", "2"]));
    assert_eq!(
        s.script("release", &["k2"], &["after"]).await["ok"],
        json!(1)
    );
    // A new session works too.
    let mut t = proxy.connect().await;
    t.ok(&["SET", "k", "new"]).await;
}
