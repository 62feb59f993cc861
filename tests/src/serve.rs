//! The static file server the browser tests load the built app from: `dist/` on a free
//! port, under a path prefix as a static host serves a project site, gzip when asked, with a
//! log of what it sent and when.

use super::env_path;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// A free TCP port on the loopback interface.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Serves `dist/` on a free port, once per test process; returns the base URL.
pub fn app_url() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| serve_dist("/").url)
}

/// A static server of `dist/` under a path prefix, as a static host serves a project site.
pub struct Served {
    /// The app's URL (`http://127.0.0.1:<port><prefix>`).
    pub url: String,
    /// Every response sent so far, with when its request arrived.
    pub sent: std::sync::Arc<std::sync::Mutex<Vec<Sent>>>,
    root: std::sync::Arc<std::sync::Mutex<PathBuf>>,
}

impl Served {
    /// From the next request on, serves `dir` instead.
    pub fn set_root(&self, dir: PathBuf) {
        if let Ok(mut r) = self.root.lock() {
            *r = dir;
        }
    }

    /// Every path answered so far, in order.
    pub fn requests(&self) -> Vec<String> {
        self.sent
            .lock()
            .map(|l| l.iter().map(|s| s.path.clone()).collect())
            .unwrap_or_default()
    }
}

/// One response of [`serve_dist`]'s server.
#[derive(Clone, Debug)]
pub struct Sent {
    /// The path asked for.
    pub path: String,
    /// When the request arrived, in milliseconds since the Unix epoch (a page's
    /// `performance.timeOrigin + performance.now()` on the same machine's clock).
    pub at_ms: f64,
    /// Bytes written: the head and the body as sent (gzip when it went gzip).
    pub bytes: usize,
}

/// Serves `dist/` under `prefix` (`/` or `/redis-lab/`) on a free port: `<prefix>x` is
/// `dist/x`, anything outside the prefix is a 404.
pub fn serve_dist(prefix: &'static str) -> Served {
    serve_dist_as(prefix, false)
}

/// The built `dist/` (`REDISLAB_DIST`).
pub fn dist_dir() -> PathBuf {
    env_path("REDISLAB_DIST")
}

/// [`serve_dist`], and with `gzip` the text files (HTML, JS, wasm, CSS, JSON, SVG) go
/// `Content-Encoding: gzip` (`gzip -9`, made once per file) to a browser that accepts it, as
/// a static host serves them; fonts are already compressed and go as they are.
pub fn serve_dist_as(prefix: &'static str, gzip: bool) -> Served {
    let dist = env_path("REDISLAB_DIST");
    assert!(
        dist.join("index.html").exists(),
        "{}/index.html is missing: build the app first",
        dist.display()
    );
    serve_dir(dist, prefix, gzip)
}

/// [`serve_dist_as`] of any folder; [`Served::set_root`] swaps the folder under a running
/// server (a new build published over an old one).
pub fn serve_dir(dir: PathBuf, prefix: &'static str, gzip: bool) -> Served {
    let root = std::sync::Arc::new(std::sync::Mutex::new(dir));
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind the static server");
    let url = format!(
        "http://127.0.0.1:{}{prefix}",
        listener.local_addr().unwrap().port()
    );
    let sent = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let (log, served_root) = (sent.clone(), root.clone());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let dist = root.lock().map(|d| d.clone()).unwrap_or_default();
            let log = log.clone();
            std::thread::spawn(move || serve_one(stream, &dist, prefix, gzip, &log));
        }
    });
    Served {
        url,
        sent,
        root: served_root,
    }
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("wasm") => "application/wasm",
        Some("css") => "text/css",
        Some("woff2") => "font/woff2",
        Some("png") => "image/png",
        Some("svg") => "image/svg+xml",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

/// `file` as `gzip -9` makes it, made once per file and kept.
fn gzipped(file: &Path, body: &[u8]) -> Option<Vec<u8>> {
    static MADE: OnceLock<std::sync::Mutex<std::collections::HashMap<PathBuf, Vec<u8>>>> =
        OnceLock::new();
    let made = MADE.get_or_init(Default::default);
    if let Some(z) = made.lock().ok()?.get(file) {
        return Some(z.clone());
    }
    let mut child = Command::new("gzip")
        .args(["-9", "-c"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    let mut input = child.stdin.take()?;
    let body = body.to_vec();
    let feed = std::thread::spawn(move || input.write_all(&body));
    let out = child.wait_with_output().ok()?;
    feed.join().ok()?.ok()?;
    made.lock()
        .ok()?
        .insert(file.to_path_buf(), out.stdout.clone());
    Some(out.stdout)
}

fn serve_one(
    mut stream: TcpStream,
    dist: &Path,
    prefix: &str,
    gzip: bool,
    sent: &std::sync::Mutex<Vec<Sent>>,
) {
    let at_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0);
    let mut reader = BufReader::new(stream.try_clone().expect("clone stream"));
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() {
        return;
    }
    // Drain the headers, noting whether the browser takes gzip.
    let (mut line, mut takes_gzip) = (String::new(), false);
    while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
        let l = line.to_ascii_lowercase();
        takes_gzip |= l.starts_with("accept-encoding:") && l.contains("gzip");
        line.clear();
    }
    let path = request
        .split_whitespace()
        .nth(1)
        .unwrap_or("/")
        .split(['?', '#'])
        .next()
        .unwrap_or("/");
    // Outside the app's folder there is nothing (a host serving a project site has other
    // things there, never the app's files).
    let file = path.strip_prefix(prefix).map(|rel| {
        if rel.is_empty() || rel.contains("..") {
            dist.join("index.html")
        } else {
            dist.join(rel)
        }
    });
    let found = file
        .as_ref()
        .and_then(|f| std::fs::read(f).ok().map(|b| (b, content_type(f))));
    let (status, mut body, ctype) = match found {
        Some((b, t)) => ("200 OK", b, t),
        None => ("404 Not Found", b"not found".to_vec(), "text/plain"),
    };
    let mut encoding = "";
    let compressible = !matches!(ctype, "font/woff2" | "image/png" | "text/plain");
    if gzip && takes_gzip && compressible {
        if let Some(z) = file.as_ref().and_then(|f| gzipped(f, &body)) {
            body = z;
            encoding = "Content-Encoding: gzip\r\n";
        }
    }
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\n{encoding}Content-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
    if let Ok(mut l) = sent.lock() {
        l.push(Sent {
            path: path.to_string(),
            at_ms,
            bytes: head.len() + body.len(),
        });
    }
}
