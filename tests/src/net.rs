//! Servers and the network for the browser tests: a real `redis-server` with the proxy in
//! front of it serving `dist/` ([`Live`]), and a cable between the browser and a server that
//! can be pulled out and plugged back ([`Cable`]).

use crate::free_port;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Waits until `port` answers a `PING` with `+PONG` (Redis) or accepts (anything else).
pub fn wait_port(port: u16, redis: bool, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) {
            if !redis {
                return;
            }
            s.set_read_timeout(Some(Duration::from_secs(2))).ok();
            let mut buf = [0u8; 7];
            if s.write_all(b"PING\r\n").is_ok()
                && s.read_exact(&mut buf).is_ok()
                && &buf == b"+PONG\r\n"
            {
                return;
            }
        }
        assert!(
            Instant::now() < deadline,
            "{what} did not start on port {port}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The proxy binary: `REDISLAB_PROXY` (set by `cargo xtask test`), or built here.
pub fn proxy_binary() -> PathBuf {
    if let Some(p) = std::env::var_os("REDISLAB_PROXY") {
        return p.into();
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args([
            "build",
            "-q",
            "-p",
            "redislab-proxy",
            "--bin",
            "redislab-proxy",
        ])
        .current_dir(&root)
        .status()
        .expect("cargo build the proxy");
    assert!(status.success(), "building the proxy failed");
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or(root.join("target"), PathBuf::from);
    target.join("debug/redislab-proxy")
}

/// A real `redis-server` and the proxy in front of it serving `dist/`; both stopped on drop.
pub struct Live {
    /// The app's address through the proxy (`http://127.0.0.1:<port>/`).
    pub url: String,
    /// Redis' port.
    pub rport: u16,
    /// The proxy's port.
    pub pport: u16,
    /// The `redis-server` process.
    pub redis: Child,
    /// The proxy process.
    pub proxy: Child,
}

impl Live {
    /// Redis and the proxy, started.
    pub fn start() -> Live {
        let rport = free_port();
        let redis = Command::new("redis-server")
            .args([
                "--port",
                &rport.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server (apt-get install redis-server)");
        wait_port(rport, true, "redis-server");
        let pport = free_port();
        let proxy = Self::proxy_on(rport, pport);
        Live {
            url: format!("http://127.0.0.1:{pport}/"),
            rport,
            pport,
            redis,
            proxy,
        }
    }

    fn proxy_on(rport: u16, pport: u16) -> Child {
        let dist = std::env::var("REDISLAB_DIST").expect("REDISLAB_DIST");
        let proxy = Command::new(proxy_binary())
            .args([
                "--redis",
                &format!("redis://127.0.0.1:{rport}"),
                "--listen",
                &format!("127.0.0.1:{pport}"),
                "--dist",
                &dist,
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the proxy");
        wait_port(pport, false, "the proxy");
        proxy
    }

    /// SIGKILLs the proxy (its pages lose their sockets at once).
    pub fn kill_proxy(&mut self) {
        let _ = self.proxy.kill();
        let _ = self.proxy.wait();
    }

    /// A new proxy on the same port (as a load balancer sends a page to another proxy).
    pub fn start_proxy(&mut self) {
        self.proxy = Self::proxy_on(self.rport, self.pport);
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        let _ = self.proxy.kill();
        let _ = self.proxy.wait();
        let _ = self.redis.kill();
        let _ = self.redis.wait();
    }
}

/// A cable from a port of its own to a server's: every connection is passed through byte for
/// byte until [`Cable::cut`], which closes the open ones (WebSockets included) and refuses new
/// ones, as a network that is gone; [`Cable::mend`] plugs it back. Pair it with the page's
/// offline emulation (`Network.emulateNetworkConditions`), which tells the page (its
/// `navigator.onLine`) but not the service worker's own fetches.
pub struct Cable {
    /// The server's address through the cable (`http://127.0.0.1:<port>/`).
    pub url: String,
    cut: Arc<AtomicBool>,
    open: Arc<Mutex<Vec<TcpStream>>>,
}

impl Cable {
    /// A cable to `127.0.0.1:port`.
    pub fn to(port: u16) -> Cable {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the cable");
        let url = format!(
            "http://127.0.0.1:{}/",
            listener.local_addr().unwrap().port()
        );
        let cut = Arc::new(AtomicBool::new(false));
        let open = Arc::new(Mutex::new(Vec::new()));
        let (c, o) = (cut.clone(), open.clone());
        std::thread::spawn(move || {
            for inbound in listener.incoming().flatten() {
                if c.load(Ordering::SeqCst) {
                    let _ = inbound.shutdown(Shutdown::Both);
                    continue;
                }
                let Ok(outbound) = TcpStream::connect(("127.0.0.1", port)) else {
                    continue;
                };
                if let Ok(mut l) = o.lock() {
                    l.extend(inbound.try_clone().ok());
                    l.extend(outbound.try_clone().ok());
                }
                for (mut from, mut to) in [
                    (inbound.try_clone(), outbound.try_clone()),
                    (outbound.try_clone(), inbound.try_clone()),
                ]
                .into_iter()
                .filter_map(|(a, b)| Some((a.ok()?, b.ok()?)))
                {
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut from, &mut to);
                        let _ = to.shutdown(Shutdown::Write);
                    });
                }
            }
        });
        Cable { url, cut, open }
    }

    /// Pulls the cable out: open connections close, new ones are refused.
    pub fn cut(&self) {
        self.cut.store(true, Ordering::SeqCst);
        if let Ok(mut l) = self.open.lock() {
            for s in l.drain(..) {
                let _ = s.shutdown(Shutdown::Both);
            }
        }
    }

    /// Plugs it back in.
    pub fn mend(&self) {
        self.cut.store(false, Ordering::SeqCst);
    }
}
