//! Live mode in a real headless Chromium: the proxy (`redislab-proxy`, the real binary)
//! serves the built app and its WebSocket, a real `redis-server` started here on a free port
//! behind it. The lock lab's "real Redis" switch runs the race live — the indicator says
//! connected, the log shows real replies with round trips, and it ends as the simulation
//! predicts; the console runs commands and shows the proxy's refusals in Bengali; the cache
//! engine and the streams lab run live too, and what they show is checked against the real
//! Redis itself (INFO commandstats, XLEN, XPENDING on a direct connection); the queue lab
//! runs its API and worker slots live, and its counts are Redis' own (`ZCARD` of the
//! completed and failed sets); and with no proxy (the harness' static server) the switch
//! says so and the lab keeps simulating.

#[path = "live/support.rs"]
mod support;
use support::*;

use redislab_e2e::{assert_no_console_errors, key, screenshot_dir, Browser};
use redislab_sim::labs::lock::{run, LockOutput, INFO};
use redislab_sim::labs::params::Params;
use serde_json::json;

fn native(query: &str) -> LockOutput {
    let (p, errs) = Params::from_query(&INFO, query);
    assert!(errs.is_empty(), "{errs:?}");
    run(&p.read())
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
    assert!(!b.exists(".cmd-log-rtt"));

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
    let rtts = round_trips(&b, "[data-testid=lock-log] .cmd-log-rtt");
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
        let (p, _) = Params::from_query(&INFO, q);
        run(&p.read::<redislab_sim::labs::lock::LockParams>().slowed(2))
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
        "document.querySelector('[data-testid=live-bar]').scrollIntoView({block: 'center'})",
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
    // redis-cli refuses a closing quote glued to more text (`SET "a"b`); so does the console.
    send("SET \"a\"b");
    b.wait(10, "the second local message", |b| nth_out(b, 4).is_some());
    assert_eq!(
        data(&b, ".console-entry:nth-child(5)", "state").as_deref(),
        Some("local")
    );
    let why = nth_out(&b, 4).unwrap_or_default();
    assert!(why.contains("ফাঁকা জায়গা"), "{why}");
    // `\xHH` in double quotes is a byte, as at redis-cli: two of them make one `é`.
    send(r#"SET e "\xc3\xa9""#);
    b.wait(10, "SET e's answer", |b| nth_out(b, 5).is_some());
    send("GET e");
    b.wait(10, "GET e's answer", |b| nth_out(b, 6).is_some());
    let got = b.text(".console-entry:nth-child(7) [data-testid=console-out]");
    assert_eq!(got.as_deref(), Some("\"é\""));
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
    assert!(!b.exists(".cmd-log-rtt"));
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
    assert!(!b.exists(".cmd-log-rtt"));
    b.click(".lab-preset[data-preset=plain-del]");
    b.wait(30, "the plain-DEL preset's run", |b| {
        b.exists(".lab-preset[data-preset=plain-del][aria-pressed=true]")
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
    // The cache engine and the streams lab say the same, and keep simulating.
    for (lab, ready, counter, want) in [
        (
            "cache",
            ".lab-cache[aria-busy=false] [data-testid=cache-on-db]",
            "[data-testid=cache-on-db]",
            redislab_deck::bn::int(i64::from(
                redislab_sim::labs::cache::pair(&Default::default())
                    .on
                    .counts
                    .db,
            )),
        ),
        (
            "streams",
            ".lab-streams[aria-busy=false] [data-testid=streams-saved]",
            "[data-testid=streams-saved]",
            redislab_deck::bn::grouped(
                redislab_sim::labs::streams::run(&Default::default())
                    .counters
                    .saved as i64,
            ),
        ),
        (
            "broadcast",
            ".lab-broadcast[aria-busy=false] [data-testid=bc-delivered]",
            "[data-testid=bc-delivered]",
            redislab_deck::bn::grouped(
                redislab_sim::labs::broadcast::run(&Default::default())
                    .counters
                    .delivered as i64,
            ),
        ),
    ] {
        b.set_viewport(1366, 768);
        b.open(&format!("#/lab/{lab}"));
        fails_and_simulates(&b, &dir, lab, ready, "no-proxy", "প্রক্সি নেই");
        assert_eq!(b.text(counter), Some(want), "{lab}");
        b.screenshot(&dir.join(format!("{lab}-no-proxy-1366x768.png")));
        b.set_viewport(360, 740);
        b.screenshot(&dir.join(format!("{lab}-no-proxy-360x740.png")));
    }
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

#[test]
fn the_cache_engine_and_the_streams_lab_run_on_a_real_redis() {
    use redislab_sim::labs::cache::{self, CacheConfig};
    use redislab_sim::labs::streams::{self, StreamsParams, INFO as SINFO, PRESETS};
    let live = Live::start();
    let b = Browser::new(1366, 768);
    let dir = screenshot_dir().join("live");

    // The cache engine: the default layers, live at ×1.
    b.open_url(&format!("{}#/lab/cache", live.url));
    b.wait(60, "the cache lab's simulation", |b| {
        b.exists(".lab-cache[aria-busy=false] [data-testid=cache-on-db]")
    });
    redis(live.rport, &["CONFIG", "RESETSTAT"]);
    b.click("[data-testid=live-switch]");
    b.wait(20, "the indicator to say connected", |b| {
        data(b, "[data-testid=live-indicator]", "state").as_deref() == Some("connected")
    });
    let note = b.text("[data-testid=live-note]").unwrap_or_default();
    assert!(note.contains("১২০টি রিকোয়েস্ট"), "{note}");
    b.wait(60, "the live cache run to end", |b| {
        b.exists(".lab-cache[aria-busy=false] [data-testid=live-verdict]")
    });
    let cfg = CacheConfig::default().for_live(1);
    let sim = cache::run(&cfg);
    // The prediction is the simulation of the same scaled-down config.
    assert_eq!(compared(&b, "db", "sim"), u64::from(sim.counts.db));
    assert_eq!(compared(&b, "answered", "sim"), 120);
    assert_eq!(compared(&b, "answered", "real"), 120);
    // The real side's counters are the real run's, on its card too.
    let real_db = compared(&b, "db", "real");
    assert_eq!(
        b.text("[data-testid=cache-real-db]").as_deref(),
        Some(redislab_deck::bn::int(real_db as i64).as_str())
    );
    assert!(
        (1..=3).contains(&real_db),
        "every layer on: {real_db} queries"
    );
    assert_eq!(compared(&b, "miss", "real"), 0);
    // Every command the lab logged reached the real Redis: its own command statistics. SET
    // exactly; GET once more for each script (`release` and `extend` read the lock with a
    // GET inside Lua, which Redis counts too); EVALSHA at least (the proxy's first EVALSHA
    // meets NOSCRIPT and loads the script).
    let calls = command_calls(live.rport);
    let logged: std::collections::HashMap<String, u64> = {
        let by = data(&b, "[data-testid=cache-log]", "byCommand").unwrap_or_default();
        let w: Vec<&str> = by.split(' ').collect();
        w.chunks(2)
            .map(|p| (p[0].to_ascii_lowercase(), p[1].parse().unwrap()))
            .collect()
    };
    let (call, log) = (
        |c: &str| calls.get(c).copied().unwrap_or(0),
        |c: &str| logged.get(c).copied().unwrap_or(0),
    );
    let why = format!("redis {calls:?}, the lab's log {logged:?}");
    assert_eq!(
        logged.values().sum::<u64>(),
        compared(&b, "commands", "real"),
        "{why}"
    );
    assert_eq!(call("set"), log("set"), "{why}");
    assert_eq!(call("get"), log("get") + log("evalsha"), "{why}");
    assert!(
        call("evalsha") >= log("evalsha") && log("evalsha") > 0,
        "{why}"
    );
    assert!(log("get") >= 120, "{why}");
    // The last envelope an instance wrote is in Redis, in the session's namespace.
    let k = one_key(live.rport, "lab:{*}:cache:course-catalog");
    let envelope = redis(live.rport, &["GET", &k]);
    assert!(
        envelope.text().starts_with(r#"{"version":2,"freshUntil":"#),
        "{envelope:?}"
    );
    let log = b.text("[data-testid=cache-log]").unwrap_or_default();
    assert!(log.contains("GET cache:course-catalog"), "{log}");
    let rtts = round_trips(&b, "[data-testid=cache-log] .cmd-log-rtt");
    assert!(!rtts.is_empty(), "no round trips: {log}");
    assert!(rtts.iter().all(|&ms| ms > 0.0 && ms < 1000.0), "{rtts:?}");
    assert!(b.exists(".ce-card.ce-sim") && b.exists(".ce-card.ce-real"));
    looks_right(&b, &dir, "cache");

    // The streams lab: a worker crashes after saving, XAUTOCLAIM takes its batch over.
    b.set_viewport(1366, 768);
    b.open_url(&format!("{}#/lab/streams?preset=crash", live.url));
    b.wait(60, "the streams lab's simulation", |b| {
        b.exists(".lab-streams[aria-busy=false] [data-testid=streams-saved]")
    });
    redis(live.rport, &["CONFIG", "RESETSTAT"]);
    b.click("[data-testid=live-switch]");
    b.wait(20, "the indicator to say connected", |b| {
        data(b, "[data-testid=live-indicator]", "state").as_deref() == Some("connected")
    });
    b.wait(90, "the live streams run to end", |b| {
        b.exists(".lab-streams[aria-busy=false] [data-testid=live-verdict]")
    });
    let pr = PRESETS.iter().find(|p| p.id == "crash").unwrap();
    let q: Vec<String> = pr.pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let p: StreamsParams = Params::from_query(&SINFO, &q.join("&")).0.read();
    let small = p.for_live(1);
    let sim = streams::run(&small);
    assert_eq!(compared(&b, "saved", "sim"), sim.counters.saved);
    assert_eq!(compared(&b, "produced", "real"), small.messages);
    assert_eq!(compared(&b, "saved", "real"), small.messages);
    let (dups, claimed) = (
        compared(&b, "duplicates", "real"),
        compared(&b, "reclaimed", "real"),
    );
    assert!(claimed > 0 && dups == claimed, "{dups} {claimed}");
    // XLEN and XPENDING on screen are Redis' own: ask it directly.
    let k = one_key(live.rport, "lab:{*}:orders");
    let xlen = redis(live.rport, &["XLEN", &k]).int() as u64;
    let pending = redis(live.rport, &["XPENDING", &k, "savers"]).items()[0].int() as u64;
    assert_eq!(compared(&b, "xlen", "real"), xlen);
    assert_eq!(compared(&b, "pending", "real"), pending);
    assert_eq!((xlen, pending), (small.messages, 0));
    let calls = command_calls(live.rport);
    assert_eq!(
        calls.get("xadd").copied(),
        Some(small.messages),
        "{calls:?}"
    );
    assert!(
        calls.get("xautoclaim").copied().unwrap_or(0) > 0,
        "{calls:?}"
    );
    assert!(
        calls.get("xreadgroup").copied().unwrap_or(0) > 0,
        "{calls:?}"
    );
    let log = b.text("[data-testid=streams-log]").unwrap_or_default();
    assert!(log.contains("XACK orders savers"), "{log}");
    let rtts = round_trips(&b, "[data-testid=streams-log] .cmd-log-rtt");
    assert!(!rtts.is_empty(), "no round trips: {log}");
    let note = b.text("[data-testid=live-note]").unwrap_or_default();
    assert!(
        note.contains("২০০টি মেসেজ") && note.contains("Pub/Sub"),
        "{note}"
    );
    looks_right(&b, &dir, "streams");

    // Redis gone: both labs say so and keep simulating.
    let mut live = live;
    let _ = live.redis.kill();
    let _ = live.redis.wait();
    b.set_viewport(1366, 768);
    for (lab, ready) in [
        (
            "cache",
            ".lab-cache[aria-busy=false] [data-testid=cache-on-db]",
        ),
        (
            "streams",
            ".lab-streams[aria-busy=false] [data-testid=streams-saved]",
        ),
        (
            "broadcast",
            ".lab-broadcast[aria-busy=false] [data-testid=bc-delivered]",
        ),
    ] {
        b.open_url(&format!("{}#/lab/{lab}", live.url));
        fails_and_simulates(&b, &dir, lab, ready, "redis-down", "Redis সাড়া দিচ্ছে না");
        assert!(!b.exists("[data-testid=live-compare]"), "{lab}");
        b.screenshot(&dir.join(format!("{lab}-redis-down-1366x768.png")));
    }
}

#[test]
fn the_queue_lab_runs_on_a_real_redis() {
    use redislab_sim::labs::broadcast::{self, BroadcastConfig, BroadcastParams, INFO as BINFO};
    let live = Live::start();
    let b = Browser::new(1366, 768);
    let dir = screenshot_dir().join("live");
    let shaped = |q: &str, k: u64| -> BroadcastConfig {
        Params::from_query(&BINFO, q)
            .0
            .read::<BroadcastParams>()
            .for_live(k)
    };
    let ready = ".lab-broadcast[aria-busy=false] [data-testid=bc-delivered]";

    // The naive loop speaks no Redis: no switch, a line that says why.
    b.open_url(&format!("{}#/lab/broadcast?preset=naive", live.url));
    b.wait(60, "the naive loop's simulation", |b| b.exists(ready));
    assert!(!b.exists("[data-testid=live-switch]"));
    let why = b.text("[data-testid=live-none]").unwrap_or_default();
    assert!(why.contains("Redis-এ কিছুই যায় না"), "{why}");

    // The outage with one attempt: the worker reads FCM's answers and throws, three batches
    // land in the failed set, in Redis.
    let one = "preset=outage&attempts=1";
    b.open_url(&format!("{}#/lab/broadcast?{one}", live.url));
    b.wait(60, "the queue's simulation", |b| b.exists(ready));
    redis(live.rport, &["CONFIG", "RESETSTAT"]);
    b.click("[data-testid=live-switch]");
    b.wait(20, "the indicator to say connected", |b| {
        data(b, "[data-testid=live-indicator]", "state").as_deref() == Some("connected")
    });
    let note = b.text("[data-testid=live-note]").unwrap_or_default();
    assert!(
        note.contains("৫,০০০ টোকেন") && note.contains("BLMOVE") && note.contains("FCM আর Postgres"),
        "{note}"
    );
    b.wait(90, "the live queue run to end", |b| {
        b.exists(".lab-broadcast[aria-busy=false] [data-testid=live-verdict]")
    });
    let sim = broadcast::sim(&shaped(one, 1)).finish();
    assert_eq!(compared(&b, "completed", "sim"), sim.completed());
    assert_eq!(compared(&b, "failed", "sim"), sim.counters.failed_jobs);
    // The real counts on the page are Redis' own: its completed and failed sets.
    let (completed, failed) = (zcard(live.rport, "completed"), zcard(live.rport, "failed"));
    assert_eq!(compared(&b, "completed", "real"), completed);
    assert_eq!(compared(&b, "failed", "real"), failed);
    assert_eq!(
        (completed, failed),
        (sim.completed(), sim.counters.failed_jobs),
        "the real run: {:?}\nthe prediction:\n{}",
        b.text("[data-testid=bc-incidents]"),
        broadcast::text(&sim)
    );
    assert!(failed > 0);
    assert_eq!(
        data(&b, "[data-testid=bc-failed]", "n"),
        Some(failed.to_string())
    );
    // Each failed batch's hash says why, as BullMQ's does.
    let f = one_key(live.rport, "lab:{*}:bull:push:failed");
    let ids = redis(live.rport, &["ZRANGE", &f, "0", "-1"]);
    let ns = f.strip_suffix("bull:push:failed").unwrap();
    for id in ids.items() {
        let reason = redis(
            live.rport,
            &[
                "HGET",
                &format!("{ns}bull:push:{}", id.text()),
                "failedReason",
            ],
        );
        assert!(
            reason.text().starts_with("messaging/server-unavailable"),
            "{}",
            reason.text()
        );
    }
    // Tokens: what FCM took, on the page, as predicted.
    let delivered = compared(&b, "delivered", "real");
    assert_eq!(delivered, sim.counters.delivered);
    assert_eq!(
        data(&b, "[data-testid=bc-delivered]", "n"),
        Some(delivered.to_string())
    );
    // The commands reached the real Redis: the slots' BLMOVE, the addjob script, the sets.
    let calls = command_calls(live.rport);
    for c in [
        "blmove", "evalsha", "zadd", "hincrby", "lrem", "incr", "set",
    ] {
        assert!(calls.get(c).copied().unwrap_or(0) > 0, "{c}: {calls:?}");
    }
    let log = b.text("[data-testid=bc-log]").unwrap_or_default();
    let rtts = round_trips(&b, "[data-testid=bc-log] .cmd-log-rtt");
    assert!(!rtts.is_empty(), "no round trips: {log}");
    assert!(rtts.iter().all(|ms| (0.0..3000.0).contains(ms)), "{rtts:?}");
    looks_right(&b, &dir, "broadcast");

    // The outage with retries, twice as slow: a preset click while live starts a new run in
    // a new session; every batch is sent at last, the retries as predicted.
    b.set_viewport(1366, 768);
    b.js("window.scrollTo(0, 0)", json!([]));
    b.js(
        "const s = document.querySelector('[data-testid=live-scale]'); s.value = '2'; s.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([]),
    );
    b.click(".lab-preset[data-preset=outage]");
    b.wait(20, "the new run to start", |b| {
        !b.exists("[data-testid=live-verdict]")
            && b.exists(".lab-preset[data-preset=outage][aria-pressed=true]")
    });
    b.wait(120, "the slowed live run to end", |b| {
        b.exists(".lab-broadcast[aria-busy=false] [data-testid=live-verdict]")
    });
    let p = shaped("preset=outage", 1).p;
    let slow = broadcast::sim(&shaped("preset=outage", 2)).finish();
    assert_eq!(p.backoff * 2, slow.params.backoff);
    assert_eq!(compared(&b, "retries", "sim"), slow.counters.retries);
    assert_eq!(compared(&b, "retries", "real"), slow.counters.retries);
    assert!(slow.counters.retries > 0);
    assert_eq!(compared(&b, "delivered", "real"), u64::from(p.tokens));
    let keys = redis(live.rport, &["KEYS", "lab:{*}:bull:push:completed"]);
    let completed: Vec<u64> = keys
        .items()
        .iter()
        .map(|k| redis(live.rport, &["ZCARD", k.text()]).int() as u64)
        .collect();
    assert!(
        completed.contains(&compared(&b, "completed", "real")),
        "{completed:?}"
    );
    assert_no_console_errors(&b);
    b.screenshot(&dir.join("broadcast-live-outage-x2-1366x768.png"));
}
