//! Live mode in a real headless Chromium: the proxy (`redislab-proxy`, the real binary)
//! serves the built app and its WebSocket, a real `redis-server` started here on a free port
//! behind it. The lock lab's "real Redis" switch runs the race live — the indicator says
//! connected, the log shows real replies with round trips, and it ends as the simulation
//! predicts; the console runs commands and shows the proxy's refusals in Bengali; and with no
//! proxy (the harness' static server) the switch says so and the lab keeps simulating.

use redislab_e2e::{free_port, key, screenshot_dir, Browser};
use redislab_sim::labs::lock::{expand_query, run, LockResult, FIELDS};
use redislab_sim::labs::params::Params;
use serde_json::json;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn native(query: &str) -> LockResult {
    let (p, errs) = Params::from_query(FIELDS, &expand_query(query));
    assert!(errs.is_empty(), "{errs:?}");
    run(&p.typed())
}

/// Waits until `port` answers a `PING` with `+PONG` (Redis) or accepts (anything else).
fn wait_port(port: u16, redis: bool, what: &str) {
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
fn proxy_binary() -> PathBuf {
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
struct Live {
    url: String,
    redis: Child,
    proxy: Child,
}

impl Live {
    fn start() -> Live {
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
        Live {
            url: format!("http://127.0.0.1:{pport}/"),
            redis,
            proxy,
        }
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

fn data(b: &Browser, css: &str, key: &str) -> Option<String> {
    b.js(
        "const e = document.querySelector(arguments[0]); return e ? e.dataset[arguments[1]] : null;",
        json!([css, key]),
    )
    .as_str()
    .map(str::to_string)
}

fn counter(b: &Browser, k: &str) -> u64 {
    data(b, &format!("[data-testid=lock-{k}]"), "n")
        .unwrap_or_else(|| panic!("no counter {k}"))
        .parse()
        .unwrap()
}

fn wait_idle(b: &Browser) {
    b.wait(60, "the lock lab to finish", |b| {
        b.exists(".lab-lock[aria-busy=false] [data-testid=lock-two-owner]")
    });
}

#[test]
fn the_lock_lab_races_on_a_real_redis_and_the_console_talks_to_it() {
    let live = Live::start();
    let b = Browser::new(1366, 768);
    let q = "preset=plain-del";
    b.open_url(&format!("{}#/lab/lock?{q}", live.url));
    wait_idle(&b);
    let sim = native(q);
    assert_eq!(counter(&b, "steals"), u64::from(sim.counters.steals));
    // Off: the indicator says the lab simulates.
    assert_eq!(
        data(&b, "[data-testid=live-indicator]", "state").as_deref(),
        Some("off")
    );
    assert!(!b.exists(".lk-log-rtt"));

    // Twice as slow: a busy machine's late timers are small beside doubled margins.
    b.js(
        "document.querySelector('[data-testid=live-scale]').focus()",
        json!([]),
    );
    b.press("\u{E015}");
    b.wait(10, "the time scale ×2", |b| {
        b.js(
            "return document.querySelector('[data-testid=live-scale]').value",
            json!([]),
        )
        .as_str()
            == Some("2")
    });
    b.click("[data-testid=live-switch]");
    b.wait(20, "the indicator to say connected", |b| {
        data(b, "[data-testid=live-indicator]", "state").as_deref() == Some("connected")
    });
    let ind = b.text("[data-testid=live-indicator]").unwrap_or_default();
    assert!(ind.contains("সংযুক্ত"), "{ind}");
    b.wait(60, "the live race to end", |b| {
        b.exists(".lab-lock[aria-busy=false] [data-testid=live-verdict]")
    });
    // Real replies with their round trips in the log.
    let log = b.text("[data-testid=lock-log]").unwrap_or_default();
    assert!(log.contains("DEL lock:campaign:42"), "{log}");
    assert!(log.contains("→ (integer) 1"), "{log}");
    let rtts = b.js(
        "return [...document.querySelectorAll('[data-testid=lock-log] .lk-log-rtt')].map(e => e.textContent)",
        json!([]),
    );
    let rtts: Vec<f64> = rtts
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
        .collect();
    assert!(!rtts.is_empty(), "no round trips in the log: {log}");
    assert!(rtts.iter().all(|&ms| ms > 0.0 && ms < 1000.0), "{rtts:?}");
    // The same ending as the simulation (of the same race, twice as slow), side by side.
    let table = b.text("[data-testid=live-compare]").unwrap_or_default();
    assert_eq!(
        data(&b, "[data-testid=live-verdict]", "same").as_deref(),
        Some("true"),
        "{table}"
    );
    for row in [
        "grants",
        "first-steal",
        "steals",
        "two-owners",
        "stale-accepted",
        "stale-rejected",
    ] {
        assert_eq!(
            data(
                &b,
                &format!("[data-testid=live-compare] tr[data-row={row}]"),
                "same"
            )
            .as_deref(),
            Some("true"),
            "{row}"
        );
    }
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "accessibility: {axe:#?}");
    let real = b.text("[data-testid=live-compare] tr[data-row=grants] td[data-side=real]");
    let slow = {
        let (p, _) = Params::from_query(FIELDS, &expand_query(q));
        run(&p.typed::<redislab_sim::labs::lock::LockParams>().slowed(2))
    };
    let names: Vec<&str> = slow
        .outcome()
        .grants
        .iter()
        .map(|&a| ["A", "B"][a])
        .collect();
    assert_eq!(real, Some(names.join(" → ")));
    assert!(log.contains("NX PX 2000"), "{log}");
    // The counters on screen are the real race's, and equal the simulation's.
    assert_eq!(counter(&b, "steals"), u64::from(slow.counters.steals));
    assert!(b.exists("[data-testid=lock-steal]"));
    let dir = screenshot_dir().join("live");
    b.screenshot(&dir.join("lock-live-1366x768.png"));
    b.js(
        "document.querySelector('[data-testid=live-compare]').scrollIntoView({block: 'center'})",
        json!([]),
    );
    b.screenshot(&dir.join("lock-live-compare-1366x768.png"));
    b.set_viewport(360, 740);
    b.js(
        "document.querySelector('[data-testid=live-bar]').scrollIntoView({block: 'start'})",
        json!([]),
    );
    b.screenshot(&dir.join("lock-live-360x740.png"));
    b.js(
        "document.querySelector('[data-testid=live-compare]').scrollIntoView({block: 'start'})",
        json!([]),
    );
    b.screenshot(&dir.join("lock-live-compare-360x740.png"));
    let sw = b
        .rect("[data-testid=live-switch]")
        .expect("the switch on screen");
    assert!(
        sw.width > 0.0 && sw.x >= 0.0 && sw.x + sw.width <= 360.0,
        "{sw:?}"
    );

    // The console, from the home page's link.
    b.set_viewport(1366, 768);
    b.open_url(&format!("{}#/", live.url));
    b.wait(20, "the console link", |b| b.exists("a[href='#/console']"));
    b.click("a[href='#/console']");
    b.wait(20, "the console to connect", |b| {
        data(b, "[data-testid=live-indicator]", "state").as_deref() == Some("connected")
    });
    let send = |line: &str| {
        b.click("[data-testid=console-input]");
        b.press(line);
        b.press(key::ENTER);
    };
    let nth_out = |b: &Browser, n: usize| {
        b.js(
            "const e = document.querySelectorAll('.console-entry')[arguments[0]]; return e && e.dataset.state !== 'waiting' ? e.innerText : null;",
            json!([n]),
        )
        .as_str()
        .map(str::to_string)
    };
    send("SET k v");
    b.wait(10, "SET's answer", |b| nth_out(b, 0).is_some());
    assert!(nth_out(&b, 0).unwrap().contains("OK"));
    send("GET k");
    b.wait(10, "GET's answer", |b| nth_out(b, 1).is_some());
    let got = b.text(".console-entry:nth-child(2) [data-testid=console-out]");
    assert_eq!(got.as_deref(), Some("\"v\""));
    assert!(b.exists(".console-entry:nth-child(2) [data-testid=console-rtt]"));
    send("KEYS *");
    b.wait(10, "KEYS' answer", |b| nth_out(b, 2).is_some());
    let refused = b
        .text(".console-entry:nth-child(3) [data-testid=console-refused]")
        .unwrap_or_default();
    assert!(refused.contains("FORBIDDEN"), "{refused}");
    assert!(refused.contains("অনুমোদিত তালিকায় নেই"), "{refused}");
    assert_eq!(
        data(
            &b,
            ".console-entry:nth-child(3) [data-testid=console-refused]",
            "code"
        )
        .as_deref(),
        Some("FORBIDDEN")
    );
    // ↑ brings back the last line, ↑ again the one before.
    b.click("[data-testid=console-input]");
    b.press("\u{E013}");
    b.press("\u{E013}");
    let value = |b: &Browser| {
        b.js(
            "return document.querySelector('[data-testid=console-input]').value",
            json!([]),
        )
        .as_str()
        .unwrap_or_default()
        .to_string()
    };
    assert_eq!(value(&b), "GET k");
    b.press("\u{E015}");
    assert_eq!(value(&b), "KEYS *");
    // A line redis-cli could not split: a Bengali message, nothing sent.
    b.press(key::END);
    send(" \"unclosed");
    b.wait(10, "the local message", |b| nth_out(b, 3).is_some());
    assert_eq!(
        data(&b, ".console-entry:nth-child(4)", "state").as_deref(),
        Some("local")
    );
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "accessibility: {axe:#?}");
    b.screenshot(&dir.join("console-1366x768.png"));
    b.set_viewport(360, 740);
    b.screenshot(&dir.join("console-360x740.png"));
    let input = b
        .rect("[data-testid=console-input]")
        .expect("the input on screen");
    assert!(input.x + input.width <= 360.0, "{input:?}");

    // Redis gone behind a running proxy: the lab says so, and still simulates.
    let mut live = live;
    let _ = live.redis.kill();
    let _ = live.redis.wait();
    b.set_viewport(1366, 768);
    b.open_url(&format!("{}#/lab/lock?preset=token", live.url));
    wait_idle(&b);
    b.click("[data-testid=live-switch]");
    b.wait(30, "the indicator to say Redis is unavailable", |b| {
        data(b, "[data-testid=live-indicator]", "state").as_deref() == Some("redis-down")
            && b.exists("[data-testid=live-msg]")
    });
    let msg = b.text("[data-testid=live-msg]").unwrap_or_default();
    assert!(msg.contains("Redis সাড়া দিচ্ছে না"), "{msg}");
    wait_idle(&b);
    assert_eq!(counter(&b, "two-owner"), 0);
    assert!(!b.exists(".lk-log-rtt"));
    b.screenshot(&dir.join("lock-redis-down-1366x768.png"));
}

#[test]
fn without_a_proxy_the_switch_says_so_and_the_lab_simulates() {
    // The harness' static server: no WebSocket at /ws.
    let b = Browser::new(1366, 768);
    let q = "preset=fencing";
    b.open(&format!("#/lab/lock?{q}"));
    wait_idle(&b);
    b.click("[data-testid=live-switch]");
    b.wait(20, "the no-proxy message", |b| {
        data(b, "[data-testid=live-indicator]", "state").as_deref() == Some("no-proxy")
            && b.exists("[data-testid=live-msg]")
    });
    let msg = b.text("[data-testid=live-msg]").unwrap_or_default();
    assert!(msg.contains("প্রক্সি নেই"), "{msg}");
    assert!(msg.contains("সিমুলেশন"), "{msg}");
    wait_idle(&b);
    // The lab still shows the simulation, and still takes input.
    let sim = native(q);
    assert_eq!(
        counter(&b, "stale-rejected"),
        u64::from(sim.counters.stale_rejected)
    );
    assert!(!b.exists(".lk-log-rtt"));
    b.click(".lk-preset[data-preset=plain-del]");
    b.wait(30, "the plain-DEL preset's run", |b| {
        b.exists(".lk-preset[data-preset=plain-del][aria-pressed=true]")
            && b.exists(".lab-lock[aria-busy=false] [data-testid=lock-two-owner]")
            && data(b, "[data-testid=live-indicator]", "state").as_deref() == Some("no-proxy")
    });
    assert_eq!(
        counter(&b, "steals"),
        u64::from(native("preset=plain-del").counters.steals)
    );
    let dir = screenshot_dir().join("live");
    b.screenshot(&dir.join("lock-no-proxy-1366x768.png"));
    b.set_viewport(360, 740);
    b.screenshot(&dir.join("lock-no-proxy-360x740.png"));
    // The console says the same.
    b.open("#/console");
    b.wait(20, "the console's no-proxy message", |b| {
        b.exists("[data-testid=live-msg]")
    });
    assert_eq!(
        data(&b, "[data-testid=live-indicator]", "state").as_deref(),
        Some("no-proxy")
    );
}
