//! The 3-primary Redis Cluster of the cluster tests (`tests/cluster.rs`, `tests/class.rs`):
//! three `redis-server --cluster-enabled yes` in temp dirs, made a cluster by
//! `redis-cli --cluster create`.

use super::{free_port, ping};
use redis::aio::MultiplexedConnection;
use std::path::PathBuf;
use std::process::{Child, Command as Process, Stdio};
use std::time::Duration;

/// A free port whose cluster bus port (+10000) is free too.
pub fn free_cluster_port() -> u16 {
    loop {
        let p = free_port();
        if p <= 55_000 && std::net::TcpListener::bind(("127.0.0.1", p + 10_000)).is_ok() {
            return p;
        }
    }
}

/// One node: a `redis-server --cluster-enabled yes` in a directory of its own.
pub struct Node {
    pub child: Child,
    pub port: u16,
    pub dir: PathBuf,
}

impl Node {
    /// `redis-server` on `port` with its cluster state in `dir`, once it answers PING;
    /// `None` when it exits first (the port was taken).
    pub fn spawn(port: u16, dir: &std::path::Path) -> Option<Child> {
        let mut child = Process::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--cluster-enabled", "yes"])
            .args(["--cluster-config-file", "nodes.conf"])
            .args(["--cluster-node-timeout", "5000"])
            .arg("--dir")
            .arg(dir)
            .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts (apt-get install redis-server)");
        let mut exited = false;
        super::wait_until_sync(
            "a cluster node answers PING",
            Duration::from_secs(10),
            || {
                exited = matches!(child.try_wait(), Ok(Some(_)));
                exited || ping(port)
            },
        );
        (!exited).then_some(child)
    }

    pub fn start() -> Node {
        for _attempt in 0..5 {
            let port = free_cluster_port();
            let dir = std::env::temp_dir()
                .join(format!("redislab-cluster-{}-{port}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).expect("a temp dir");
            if let Some(child) = Node::spawn(port, &dir) {
                return Node { child, port, dir };
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
        panic!("no cluster node could start");
    }

    /// SIGKILL, then the same node again (same port, same `nodes.conf`: it rejoins with its
    /// slots; its data is gone, nothing was saved).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub fn restart(&mut self) {
        self.child = Node::spawn(self.port, &self.dir).expect("the node restarts on its port");
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    pub async fn conn(&self) -> MultiplexedConnection {
        super::connect(&self.url()).await
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Three primaries, no replicas, every slot assigned, `cluster_state:ok` on every node.
pub struct Cluster {
    pub nodes: Vec<Node>,
}

impl Cluster {
    pub async fn start() -> Cluster {
        let cli = Process::new("redis-cli").arg("--version").output();
        assert!(
            cli.is_ok_and(|o| o.status.success()),
            "redis-cli is not installed (Debian's redis-tools, which redis-server pulls in)"
        );
        let nodes: Vec<Node> = (0..3).map(|_| Node::start()).collect();
        let out = Process::new("redis-cli")
            .arg("--cluster")
            .arg("create")
            .args(nodes.iter().map(|n| format!("127.0.0.1:{}", n.port)))
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .output()
            .expect("redis-cli runs");
        assert!(
            out.status.success(),
            "redis-cli --cluster create: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let c = Cluster { nodes };
        c.wait_ok().await;
        c
    }

    /// Waits for the state: every node sees the whole cluster, all slots served.
    pub async fn wait_ok(&self) {
        for n in &self.nodes {
            let conn = tokio::sync::Mutex::new(n.conn().await);
            super::wait_until(
                "every node sees the cluster ok",
                Duration::from_secs(30),
                || async {
                    let mut conn = conn.lock().await;
                    let info: String = redis::cmd("CLUSTER")
                        .arg("INFO")
                        .query_async(&mut *conn)
                        .await
                        .unwrap();
                    let known: String = redis::cmd("CLUSTER")
                        .arg("NODES")
                        .query_async(&mut *conn)
                        .await
                        .unwrap();
                    let connected = known.lines().filter(|l| l.contains(" connected")).count();
                    info.contains("cluster_state:ok") && connected == 3
                },
            )
            .await;
        }
    }

    pub fn urls(&self) -> Vec<String> {
        self.nodes.iter().map(Node::url).collect()
    }

    /// The node id and port of the primary that owns `slot`, as node 0 sees it.
    pub async fn owner(&self, slot: u16) -> (String, u16) {
        let mut c = self.nodes[0].conn().await;
        let nodes: String = redis::cmd("CLUSTER")
            .arg("NODES")
            .query_async(&mut c)
            .await
            .unwrap();
        for line in nodes.lines() {
            let f: Vec<&str> = line.split(' ').collect();
            let port: u16 = f[1]
                .split(['@', ':'])
                .nth(1)
                .and_then(|p| p.parse().ok())
                .unwrap();
            for range in &f[8..] {
                let (a, b) = range.split_once('-').unwrap_or((range, range));
                if let (Ok(a), Ok(b)) = (a.parse::<u16>(), b.parse::<u16>()) {
                    if (a..=b).contains(&slot) {
                        return (f[0].to_string(), port);
                    }
                }
            }
        }
        panic!("no node owns slot {slot}");
    }

    pub fn node(&self, port: u16) -> &Node {
        self.nodes.iter().find(|n| n.port == port).unwrap()
    }
}
