//! What the live-mode tests stand on: the proxy binary in front of a `redis-server` each test
//! starts on free ports ([`Live`]), a small RESP client to ask Redis directly what happened,
//! and the page reads the tests share (a compare table's cell, a counter, the round trips of
//! a log).

use redislab_e2e::{assert_no_console_errors, Browser};
use serde_json::json;
use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

pub use redislab_e2e::{data, Live};

/// A RESP reply, as far as these tests read them.
#[derive(Debug, Clone, PartialEq)]
pub enum Resp {
    Text(String),
    Int(i64),
    Nil,
    Array(Vec<Resp>),
}

impl Resp {
    pub fn int(&self) -> i64 {
        match self {
            Resp::Int(n) => *n,
            other => panic!("not an integer: {other:?}"),
        }
    }
    pub fn text(&self) -> &str {
        match self {
            Resp::Text(t) => t,
            other => panic!("not text: {other:?}"),
        }
    }
    pub fn items(&self) -> &[Resp] {
        match self {
            Resp::Array(a) => a,
            other => panic!("not an array: {other:?}"),
        }
    }
}

pub fn read_resp(r: &mut impl std::io::BufRead) -> Resp {
    let mut line = String::new();
    r.read_line(&mut line).expect("a reply line");
    let line = line.trim_end();
    let (kind, rest) = line.split_at(1);
    match kind {
        "+" => Resp::Text(rest.to_string()),
        "-" => panic!("Redis error: {rest}"),
        ":" => Resp::Int(rest.parse().unwrap()),
        "$" if rest == "-1" => Resp::Nil,
        "$" => {
            let n: usize = rest.parse().unwrap();
            let mut buf = vec![0; n + 2];
            r.read_exact(&mut buf).unwrap();
            buf.truncate(n);
            Resp::Text(String::from_utf8(buf).unwrap())
        }
        "*" if rest == "-1" => Resp::Nil,
        "*" => {
            let n: usize = rest.parse().unwrap();
            Resp::Array((0..n).map(|_| read_resp(r)).collect())
        }
        _ => panic!("unexpected reply {line}"),
    }
}

/// One command on a direct connection to the test's own Redis (no proxy in between).
pub fn redis(port: u16, args: &[&str]) -> Resp {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("redis");
    s.set_read_timeout(Some(Duration::from_secs(5))).ok();
    let mut req = format!("*{}\r\n", args.len());
    for a in args {
        req.push_str(&format!("${}\r\n{a}\r\n", a.len()));
    }
    s.write_all(req.as_bytes()).unwrap();
    read_resp(&mut std::io::BufReader::new(s))
}

/// `INFO commandstats` as command → calls.
pub fn command_calls(port: u16) -> std::collections::HashMap<String, u64> {
    let info = redis(port, &["INFO", "commandstats"]);
    info.text()
        .lines()
        .filter_map(|l| {
            let (name, rest) = l.strip_prefix("cmdstat_")?.split_once(':')?;
            let calls = rest.split(',').find_map(|kv| kv.strip_prefix("calls="))?;
            Some((name.to_string(), calls.parse().ok()?))
        })
        .collect()
}

/// The one key matching `pattern` (a session's namespaced key).
pub fn one_key(port: u16, pattern: &str) -> String {
    let keys = redis(port, &["KEYS", pattern]);
    let keys = keys.items();
    assert_eq!(keys.len(), 1, "{pattern}: {keys:?}");
    keys[0].text().to_string()
}

/// The number in the live comparison table: row `row`, side `sim` or `real`.
pub fn compared(b: &Browser, row: &str, side: &str) -> u64 {
    data(
        b,
        &format!("[data-testid=live-compare] tr[data-row={row}] td[data-side={side}]"),
        "n",
    )
    .unwrap_or_else(|| panic!("no {side} {row} in the comparison"))
    .parse()
    .unwrap()
}

/// A live lab after its run: accessible, no console errors, screenshots of the lab and its
/// comparison at 1366×768 and 360×740, and the comparison inside a phone's width.
pub fn looks_right(b: &Browser, dir: &std::path::Path, lab: &str) {
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{lab} accessibility: {axe:#?}");
    assert_no_console_errors(b);
    let show = |css: &str, at: &str| {
        b.js(
            "document.querySelector(arguments[0]).scrollIntoView({block: arguments[1]})",
            json!([css, at]),
        );
    };
    b.screenshot(&dir.join(format!("{lab}-live-1366x768.png")));
    show("[data-testid=live-compare]", "center");
    b.screenshot(&dir.join(format!("{lab}-live-compare-1366x768.png")));
    b.set_viewport(360, 740);
    show("[data-testid=live-bar]", "center");
    b.screenshot(&dir.join(format!("{lab}-live-360x740.png")));
    show("[data-testid=live-compare]", "start");
    b.screenshot(&dir.join(format!("{lab}-live-compare-360x740.png")));
    let table = b.rect("[data-testid=live-compare]").expect("the table");
    assert!(
        table.x >= 0.0 && table.x + table.width <= 360.5,
        "{lab}: {table:?}"
    );
}

/// A lab whose live run cannot start (`state`: `no-proxy` or `redis-down`): once its
/// simulation (`ready`) is on screen the switch is turned on; the indicator and a message
/// say what is wrong (`says`) and that the lab simulates, and it does.
pub fn fails_and_simulates(
    b: &Browser,
    dir: &std::path::Path,
    lab: &str,
    ready: &str,
    state: &str,
    says: &str,
) {
    b.wait(60, "the simulation", |b| b.exists(ready));
    b.click("[data-testid=live-switch]");
    b.wait(30, "the indicator and the message", |b| {
        data(b, "[data-testid=live-indicator]", "state").as_deref() == Some(state)
            && b.exists("[data-testid=live-msg]")
    });
    let msg = b.text("[data-testid=live-msg]").unwrap_or_default();
    assert!(
        msg.contains(says) && msg.contains("সিমুলেশন"),
        "{lab}: {msg}"
    );
    let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        b.wait(60, "the simulation after the failure", |b| b.exists(ready))
    }));
    if ok.is_err() {
        b.screenshot(&dir.join(format!("{lab}-stuck-after-failure.png")));
        panic!(
            "{lab} stayed busy after the failure: {:?} {:?}",
            b.js(
                "return document.querySelector('.lab').outerHTML.slice(0, 3000)",
                json!([])
            ),
            b.console_errors()
        );
    }
}

/// The round trips shown by the elements `css` (a log's), ms.
pub fn round_trips(b: &Browser, css: &str) -> Vec<f64> {
    b.js(
        "return [...document.querySelectorAll(arguments[0])].map(e => e.textContent)",
        json!([css]),
    )
    .as_array()
    .expect("round trips")
    .iter()
    .map(|t| {
        let t = t.as_str().unwrap();
        t.strip_suffix(" ms")
            .unwrap_or_else(|| panic!("{t}"))
            .parse()
            .unwrap()
    })
    .collect()
}

pub fn counter(b: &Browser, k: &str) -> u64 {
    data(b, &format!("[data-testid=lock-{k}]"), "n")
        .unwrap_or_else(|| panic!("no counter {k}"))
        .parse()
        .unwrap()
}

pub fn wait_idle(b: &Browser) {
    b.wait(60, "the lock lab to finish", |b| {
        b.exists(".lab-lock[aria-busy=false] [data-testid=lock-two-owner]")
    });
}

/// `ZCARD` of the session's one `bull:push:<set>`.
pub fn zcard(port: u16, set: &str) -> u64 {
    let k = one_key(port, &format!("lab:{{*}}:bull:push:{set}"));
    redis(port, &["ZCARD", &k]).int() as u64
}
