//! What the differential tests share: a real `redis-server` on a free port, a tiny RESP2
//! client, polling, and the driver that sends the same commands to SimRedis and the server.
//!
//! The server is Debian's package (`cargo xtask test` installs it, or `apt-get install
//! redis-server`), started with `--save "" --appendonly no` and stopped on drop. Without it
//! the tests FAIL with a message saying how to install it.
//!
//! The client is a tiny RESP2 client over `std::net::TcpStream` rather than the `redis`
//! crate: the tests need the raw reply types (status vs bulk, null array vs null bulk) to
//! compare with SimRedis' `Reply`, and a 60-line client keeps a crate with a dozen
//! dependencies out of the build on a shared 2-core machine.

#![allow(dead_code)]

use redislab_sim::redis::{Exec, SimRedis};
use redislab_sim::Reply;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Server {
    child: Child,
    port: u16,
    /// The server's own working directory (a replica writes the RDB it receives there).
    dir: std::path::PathBuf,
}

impl Server {
    pub fn start() -> Server {
        Server::start_with(&[])
    }

    /// A server started with extra arguments (e.g. `--enable-debug-command local`).
    pub fn start_with(extra: &[&str]) -> Server {
        let version = Command::new("redis-server").arg("--version").output();
        let version = match version {
            Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).into_owned(),
            _ => panic!(
                "redis-server is not installed: the differential test needs a real Redis 7. \
                 Install Debian's package with `apt-get install redis-server` \
                 (`cargo xtask test` does this when run as root)."
            ),
        };
        assert!(
            version.contains("v=7."),
            "the differential test expects Redis 7.x, found: {version}"
        );
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let dir = std::env::temp_dir().join(format!("redislab-sim-redis-{port}"));
        std::fs::create_dir_all(&dir).expect("a directory for redis-server");
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .arg("--dir")
            .arg(&dir)
            .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        let mut s = Server { child, port, dir };
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if pong(port) {
                break;
            }
            if let Ok(Some(st)) = s.child.try_wait() {
                panic!("redis-server on port {port} exited at start: {st}");
            }
            assert!(
                Instant::now() < deadline,
                "redis-server did not answer on port {port}"
            );
            std::thread::yield_now();
        }
        s.conn().cmd(&["FLUSHALL"]);
        s
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn conn(&mut self) -> Conn {
        Conn::open(self.port).expect("connect to redis-server")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Whether a server on `port` answers `PING` with `PONG`; any failure on the way (refused,
/// reset while the server is still starting, a short read) is a no, never a panic.
fn pong(port: u16) -> bool {
    let Ok(mut w) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = w.set_read_timeout(Some(Duration::from_secs(2)));
    if w.write_all(b"*1\r\n$4\r\nPING\r\n").is_err() {
        return false;
    }
    let mut line = String::new();
    BufReader::new(w).read_line(&mut line).is_ok() && line == "+PONG\r\n"
}

/// A tiny RESP2 client.
pub struct Conn {
    r: BufReader<TcpStream>,
    w: TcpStream,
}

impl Conn {
    pub fn open(port: u16) -> std::io::Result<Conn> {
        let w = TcpStream::connect(("127.0.0.1", port))?;
        w.set_nodelay(true)?;
        w.set_read_timeout(Some(Duration::from_secs(10)))?;
        Ok(Conn {
            r: BufReader::new(w.try_clone()?),
            w,
        })
    }

    pub fn send<A: AsRef<[u8]>>(&mut self, args: &[A]) {
        let mut buf = format!("*{}\r\n", args.len()).into_bytes();
        for a in args {
            let a = a.as_ref();
            buf.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
            buf.extend_from_slice(a);
            buf.extend_from_slice(b"\r\n");
        }
        self.w.write_all(&buf).expect("write to redis-server");
    }

    pub fn call<A: AsRef<[u8]>>(&mut self, args: &[A]) -> Reply {
        self.send(args);
        self.read()
    }

    pub fn cmd(&mut self, args: &[&str]) -> Reply {
        self.call(args)
    }

    pub fn line(&mut self) -> String {
        let mut l = String::new();
        self.r.read_line(&mut l).expect("read from redis-server");
        assert!(l.ends_with("\r\n"), "truncated reply line {l:?}");
        l.truncate(l.len() - 2);
        l
    }

    pub fn read(&mut self) -> Reply {
        let l = self.line();
        let (t, rest) = l.split_at(1);
        match t {
            "+" => Reply::Status(rest.to_string().into()),
            "-" => Reply::Error(rest.into()),
            ":" => Reply::Integer(rest.parse().expect("integer reply")),
            "$" => {
                let n: i64 = rest.parse().expect("bulk length");
                if n < 0 {
                    return Reply::Nil;
                }
                let mut b = vec![0; n as usize + 2];
                self.r.read_exact(&mut b).expect("bulk body");
                b.truncate(n as usize);
                Reply::Bulk(b)
            }
            "*" => {
                let n: i64 = rest.parse().expect("array length");
                if n < 0 {
                    return Reply::Nil;
                }
                Reply::Array((0..n).map(|_| self.read()).collect())
            }
            _ => panic!("unexpected RESP type in {l:?}"),
        }
    }
}

pub fn show(args: &[String]) -> String {
    args.iter()
        .map(|a| format!("{a:?}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs a command on both sides itself and answers the two replies in comparable form, or
/// `None` to let the driver send it as it is.
pub type Special = fn(&mut SimRedis, &mut Conn, &[String]) -> Option<(Reply, Reply)>;

/// How the driver compares: `agree` on the two replies, after `special`.
#[derive(Clone, Copy)]
pub struct Judge {
    pub agree: fn(&[String], &Reply, &Reply) -> bool,
    pub special: Special,
}

/// Sends `n` commands from `next` (given the previous command and the real reply) to
/// SimRedis and the server, failing with the last commands when a reply disagrees; returns
/// how many commands were skipped because they would have blocked. `special` may run a
/// command on both sides itself and answer the two replies in comparable form.
pub fn drive(
    seed: u32,
    n: usize,
    sim: &mut SimRedis,
    real: &mut Conn,
    seen: &mut Seen,
    judge: Judge,
    mut next: impl FnMut(&mut SimRedis, Option<(&[String], &Reply)>) -> Vec<String>,
) -> usize {
    let start = Instant::now();
    let mut history: Vec<String> = Vec::new();
    let (mut sent, mut skipped) = (0, 0);
    let mut prev: Option<(Vec<String>, Reply)> = None;
    while sent < n {
        let cmd = next(sim, prev.as_ref().map(|(c, r)| (c.as_slice(), r)));
        sim.advance_to(start.elapsed().as_millis() as u64);
        let (got, want) = match (judge.special)(sim, real, &cmd) {
            Some(both) => both,
            None => {
                let got = match sim.execute(1, &cmd) {
                    Exec::Reply(r) => r,
                    Exec::Blocked => {
                        sim.cancel_block(1);
                        skipped += 1;
                        prev = None;
                        continue;
                    }
                };
                (got, real.call(&cmd))
            }
        };
        history.push(format!("{} -> {want}", show(&cmd)));
        if !(judge.agree)(&cmd, &got, &want) {
            let shown: usize = std::env::var("SIMREDIS_DIFF_HISTORY")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(25);
            let from = history.len().saturating_sub(shown);
            panic!(
                "seed {seed}, command {sent}: {}\n  SimRedis: {got}\n  Redis:    {want}\nlast commands (real replies):\n  {}",
                show(&cmd),
                history[from..].join("\n  ")
            );
        }
        let e = seen.entry(cmd[0].to_ascii_uppercase()).or_default();
        match &want {
            Reply::Error(_) => e.1 += 1,
            Reply::Array(v) if !v.is_empty() => (e.0, e.2) = (e.0 + 1, e.2 + 1),
            _ => e.0 += 1,
        }
        sent += 1;
        prev = Some((cmd, want));
    }
    skipped
}

/// Per command name: (answers that are not errors, error answers, non-empty arrays).
pub type Seen = std::collections::BTreeMap<String, (u32, u32, u32)>;

/// `blocked_clients` from the server's `INFO clients`.
pub fn blocked(c: &mut Conn) -> i64 {
    match c.cmd(&["INFO", "clients"]) {
        Reply::Bulk(b) => String::from_utf8_lossy(&b)
            .lines()
            .find_map(|l| l.strip_prefix("blocked_clients:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(-1),
        _ => -1,
    }
}

/// Polls `f` until it returns `Some`, failing after `secs`.
pub fn poll<T>(secs: u64, what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::yield_now();
    }
}

/// For `drive`: no command needs special handling.
pub fn no_special(_: &mut SimRedis, _: &mut Conn, _: &[String]) -> Option<(Reply, Reply)> {
    None
}

/// Two seeds by default; `SIMREDIS_DIFF_SEEDS=1-200` (or `3,7,9`) sweeps more.
pub fn seeds_from_env() -> Vec<u32> {
    match std::env::var("SIMREDIS_DIFF_SEEDS") {
        Ok(v) => match v.split_once('-') {
            Some((a, b)) => {
                (a.trim().parse().expect("seed")..=b.trim().parse().expect("seed")).collect()
            }
            None => v
                .split(',')
                .map(|x| x.trim().parse().expect("seed"))
                .collect(),
        },
        Err(_) => vec![1, 2026],
    }
}
