//! The WebDriver side of the harness: the ChromeDriver process (started once, on a free
//! port), its HTTP calls, and the base64 of what it sends back (screenshots, PDFs).

use crate::serve::free_port;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A required environment variable (set by `cargo xtask test`).
pub(crate) fn env_path(name: &str) -> PathBuf {
    std::env::var_os(name).map(PathBuf::from).unwrap_or_else(|| {
        panic!("{name} is not set: run the browser tests with `cargo xtask test`, which builds the app and sets it")
    })
}

/// The ChromeDriver process, started once per test process on a free port.
fn driver_port() -> u16 {
    static PORT: OnceLock<u16> = OnceLock::new();
    *PORT.get_or_init(|| {
        let port = free_port();
        // A small watchdog shell owns ChromeDriver and stops it (and so the browsers it
        // started) when this test process is gone, however it ends.
        let script = format!(
            "\"$0\" --port={port} >/dev/null 2>&1 & d=$!; while kill -0 {parent} 2>/dev/null; do sleep 0.5; done; kill $d",
            parent = std::process::id()
        );
        let child: Child = Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg(env_path("REDISLAB_CHROMEDRIVER"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        // The watchdog outlives this handle on purpose.
        drop(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "chromedriver did not start on port {port}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        port
    })
}

/// One HTTP request to ChromeDriver; returns the parsed JSON body.
pub(crate) fn http(method: &str, path: &str, body: Option<&Value>) -> Value {
    let port = driver_port();
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect to chromedriver");
    s.set_read_timeout(Some(Duration::from_secs(120))).ok();
    let payload = body.map(|b| b.to_string()).unwrap_or_default();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{payload}",
        payload.len()
    );
    s.write_all(req.as_bytes()).expect("write to chromedriver");
    // Read the head, then exactly the body (ChromeDriver may keep the connection open).
    let mut reader = BufReader::new(s);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        let n = reader.read_line(&mut line).expect("read from chromedriver");
        if n == 0 || line == "\r\n" {
            break;
        }
        head.push_str(&line.to_lowercase());
    }
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok());
    let body = match length {
        Some(n) => {
            let mut b = vec![0; n];
            reader
                .read_exact(&mut b)
                .expect("read body from chromedriver");
            b
        }
        None if head.contains("transfer-encoding: chunked") => read_chunked(&mut reader),
        None => {
            let mut b = Vec::new();
            reader
                .read_to_end(&mut b)
                .expect("read body from chromedriver");
            b
        }
    };
    serde_json::from_slice(&body).unwrap_or_else(|e| {
        panic!(
            "bad JSON from chromedriver ({e}): {}",
            String::from_utf8_lossy(&body)
        )
    })
}

fn read_chunked(r: &mut impl BufRead) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let mut size = String::new();
        if r.read_line(&mut size).unwrap_or(0) == 0 {
            break;
        }
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        let mut chunk = vec![0; n + 2];
        r.read_exact(&mut chunk)
            .expect("read a chunk from chromedriver");
        out.extend_from_slice(&chunk[..n]);
    }
    out
}

pub(crate) fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for v in s.bytes().filter_map(val) {
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64() {
        assert_eq!(super::base64_decode("aGVsbG8="), b"hello");
        assert_eq!(super::base64_decode("iVBORw0KGgo="), b"\x89PNG\r\n\x1a\n");
    }
}
