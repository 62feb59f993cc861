//! Browser timings of the release app in headless Chromium, printed as figures: first
//! contentful paint of `#/production/1`, key press → next slide on screen, every lab at the
//! seed's and at its largest parameters (time to done, main-thread long tasks), and the seed's
//! eviction table opened cold by a deep link, timed from the first paint; and a deep link to
//! `#/production/1` on an emulated phone (4× slower CPU, 1.6 Mbps down, 150 ms round trips,
//! served gzip as a static host serves it): time to the first slide on screen and the bytes
//! fetched until then and in the 3 s after, with and without Noto on the device, beside
//! another build's figures (`REDISLAB_DIST_BEFORE`) and a return visit.
//! And "next" on a practice set on the emulated phone: the time until the next question
//! shows (`browser-bench practice`).
//! Run through `cargo xtask bench` (it builds the app and sets the paths).

use redislab_e2e::{serve_dist_as, Browser};
use redislab_sim::practice::{self, set, Answer, Question};
use serde_json::json;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    // `browser-bench phone`: only the emulated phone.
    match std::env::args().nth(1).as_deref() {
        Some("phone") => return phone(),
        // One load of `phone`'s table, in a process of its own (its own fonts).
        Some("phone-one") => {
            return phone_one(std::env::args().nth(2).as_deref() == Some("second"))
        }
        // `browser-bench cold`: only the seed's eviction table opened cold.
        Some("cold") => return cold_table(),
        // `browser-bench labs [id…]`: only the labs' long tasks (only these labs).
        Some("labs") => {
            let only: Vec<String> = std::env::args().skip(2).collect();
            return print_labs(&labs(&only));
        }
        // `browser-bench practice`: only "next" → the next question on the emulated phone.
        Some("practice") => return practice(),
        _ => {}
    }
    // First contentful paint: a fresh browser each time, so nothing is cached.
    let mut fcp = Vec::new();
    for _ in 0..5 {
        let b = Browser::new(1366, 768);
        b.open("#/production/1");
        b.wait_counter("০১ / ২২");
        b.wait(10, "a paint entry", |b| {
            b.js(
                "return performance.getEntriesByName('first-contentful-paint').length",
                json!([]),
            ) == json!(1)
        });
        let t = b.js(
            "return performance.getEntriesByName('first-contentful-paint')[0].startTime",
            json!([]),
        );
        fcp.push(t.as_f64().unwrap_or(f64::NAN));
    }

    // Key press to the next slide on screen: a keydown, then the counter changes, then the
    // frame that shows it is painted (two animation frames later).
    let b = Browser::new(1366, 768);
    b.open("#/production/1");
    b.wait_counter("০১ / ২২");
    // The first slide shows from the index while the deck loads; keys work once it is here.
    b.wait(15, "the deck", |b| !b.exists(".player[aria-busy=true]"));
    b.script_timeout(60_000);
    // Key press to the next slide or build step on screen: a keydown, the player changes (seen by a
    // MutationObserver right after the render), then the next frame is painted (a task posted
    // from requestAnimationFrame runs after that paint).
    let times = b.js_async(
        "const done = arguments[arguments.length - 1];
         const counter = document.querySelector('.counter');
         const out = [];
         const once = (forward) => new Promise(resolve => {
           const t0 = performance.now();
           const mo = new MutationObserver(() => {
             mo.disconnect();
             requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0), 0));
           });
           mo.observe(document.querySelector('.player') || counter, {childList: true, characterData: true, subtree: true, attributes: true});
           document.dispatchEvent(new KeyboardEvent('keydown', {key: forward ? 'ArrowRight' : 'ArrowLeft', bubbles: true}));
         });
         (async () => {
           for (let i = 0; i < 21; i++) { out.push(await once(true)); await new Promise(r => setTimeout(r, 30)); }
           for (let i = 0; i < 21; i++) { out.push(await once(false)); await new Promise(r => setTimeout(r, 30)); }
           done(out);
         })();",
        json!([]),
    );
    let keys: Vec<f64> = times
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_f64()).collect())
        .unwrap_or_default();
    let worst = keys.iter().copied().fold(0.0, f64::max);

    let labs = labs(&[]);

    println!("\n== browser (headless Chromium, localhost) ==");
    println!("first contentful paint #/production/1   median {:>6.0} ms of {} runs  (budget 500 ms)  runs: {:?}",
        median(fcp.clone()), fcp.len(), fcp.iter().map(|v| v.round()).collect::<Vec<_>>());
    println!("key press -> next slide on screen       median {:>6.1} ms of {} presses, worst {:.1} ms  (budget 50 ms)",
        median(keys.clone()), keys.len(), worst);
    print_labs(&labs);

    cold_table();
    phone();
    practice();
}

/// A response the page can read for `q` (right or wrong does not matter here).
fn response(q: &Question) -> Option<String> {
    match &q.draft.answer {
        Answer::Key { key, .. } => Some(key.clone()),
        Answer::Keys { keys, .. } => Some(keys.join(" ")),
        Answer::Count { n, .. } => Some(n.to_string()),
        Answer::Percent { value, .. } => Some(format!("{value:.1}")),
        Answer::Choice { .. } => None,
    }
}

/// A class set of ten questions of every lab on an emulated phone (360×740, 4× slower
/// CPU): each answered, then "next" pressed; the time from the press until the next question
/// is on screen (seen by a MutationObserver, then the frame that shows it painted), and the
/// main-thread tasks ≥ 50 ms from the first question to the score.
fn practice() {
    const SET: &str = "labs=all&seed=42&n=10";
    let spec = set::Spec::parse(SET).expect("the bench's set");
    let qs: Vec<Question> = set::picks(&spec, 42)
        .into_iter()
        .map(|(t, k, s)| practice::generate(&t, &k, s).expect("a question of the set"))
        .collect();
    let mut times = Vec::new();
    let mut tasks = Vec::new();
    for _ in 0..3 {
        let b = Browser::new(360, 740);
        b.throttle_cpu(4.0);
        b.open(&format!("#/practice?{SET}"));
        b.script_timeout(60_000);
        for (i, q) in qs.iter().enumerate() {
            let sel = format!(
                ".practice-question[data-kind='{}'][data-seed='{}']",
                q.kind, q.seed
            );
            b.wait(60, &format!("question {}", i + 1), |b| b.exists(&sel));
            if i == 0 {
                b.watch_long_tasks();
            }
            match response(q) {
                Some(r) => {
                    b.wait(10, "the answer field", |b| b.exists("#practice-answer"));
                    b.js(
                        "const f = document.getElementById('practice-answer'); f.focus();",
                        json!([]),
                    );
                    b.press(&r);
                    b.press(redislab_e2e::key::ENTER);
                }
                None => {
                    b.wait(10, "the options", |b| b.exists("#practice-choice-0"));
                    b.click("#practice-choice-0");
                    b.press(redislab_e2e::key::ENTER);
                }
            }
            b.wait(10, "the verdict", |b| b.exists(".practice-verdict"));
            if i + 1 == qs.len() {
                break;
            }
            // "next": from the press until the next question is on screen.
            let t = b.js_async(
                "const [sel, done] = arguments;
                 const t0 = performance.now();
                 const seen = () => document.querySelector(sel);
                 const mo = new MutationObserver(() => {
                   if (!seen()) return;
                   mo.disconnect();
                   requestAnimationFrame(() => setTimeout(() => done(performance.now() - t0), 0));
                 });
                 mo.observe(document.body, {childList: true, subtree: true, attributes: true});
                 document.querySelector('.practice-next').click();",
                json!([format!(
                    ".practice-question[data-kind='{}'][data-seed='{}']",
                    qs[i + 1].kind,
                    qs[i + 1].seed
                )]),
            );
            times.push(t.as_f64().unwrap_or(f64::NAN));
        }
        let long: Vec<f64> = b
            .js("return window.__long.map(e => e[1])", json!([]))
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_f64()).collect())
            .unwrap_or_default();
        tasks.push((long.iter().copied().fold(0.0, f64::max).round(), long.len()));
    }
    let worst = times.iter().copied().fold(0.0, f64::max);
    println!("\n== practice on an emulated phone (360x740, 4x CPU), #/practice?{SET} ==");
    println!(
        "next -> next question on screen  median {:>6.1} ms of {} presses, worst {worst:.1} ms  (budget 100 ms: {})",
        median(times.clone()),
        times.len(),
        if worst <= 100.0 { "met" } else { "MISSED by the worst" }
    );
    println!(
        "main-thread tasks >= 50 ms while answering: {:?} (longest ms, count) per run",
        tasks
    );
}

/// One lab's case: id, "seed" or "largest", ms to done, the longest task ≥ 50 ms, how many.
type LabCase = (&'static str, &'static str, f64, f64, usize);

/// Every lab (or those in `only`, when it names some) at the seed's and at its largest
/// parameters, each opened from a light page of the app in a fresh browser.
fn labs(only: &[String]) -> Vec<LabCase> {
    // Labs: time from opening a lab (from another page of the app) to all its numbers on screen
    // (`aria-busy` cleared), and the longest main-thread task meanwhile (PerformanceObserver
    // 'longtask' reports tasks of 50 ms or more), at the seed's parameters and at the largest
    // its fields allow.
    let heavy: Vec<(&str, &str)> = redislab_sim::labs::registry::LABS
        .iter()
        .map(|l| (l.info().id, l.heaviest()))
        .filter(|(id, _)| only.is_empty() || only.iter().any(|o| o == id))
        .collect();
    let mut labs = Vec::new();
    for (id, big) in heavy {
        for q in std::iter::once("").chain((!big.is_empty()).then_some(big)) {
            // From a light page of the app (the home page's slide previews take a while to
            // take down, which is the home page's cost, not the lab's).
            let b = Browser::new(1366, 768);
            b.open("#/nope");
            b.wait(10, "a light page", |b| b.exists(".notfound"));
            b.script_timeout(180_000);
            let r = b.js_async(
                "const [hash, done] = [arguments[0], arguments[arguments.length - 1]];
                 const long = [];
                 new PerformanceObserver(l => l.getEntries().forEach(e => long.push(e.duration))).observe({type: 'longtask'});
                 const t0 = performance.now();
                 location.hash = hash;
                 const poll = () => {
                   const lab = document.querySelector('.lab');
                   if (lab && lab.getAttribute('aria-busy') === 'false') {
                     const all = performance.now() - t0;
                     setTimeout(() => done({all, long}), 100);
                   } else { setTimeout(poll, 5); }
                 };
                 poll();",
                json!([redislab_deck::route::lab_hash(id, q)]),
            );
            labs.push((
                id,
                if q.is_empty() { "seed" } else { "largest" },
                r["all"].as_f64().unwrap_or(f64::NAN),
                r["long"]
                    .as_array()
                    .map(|a| a.iter().filter_map(|v| v.as_f64()).fold(0.0, f64::max))
                    .unwrap_or(0.0),
                r["long"].as_array().map_or(0, |a| a.len()),
            ));
        }
    }

    labs
}

fn print_labs(labs: &[LabCase]) {
    println!("\nlab        parameters   all done   long tasks >= 50 ms (budget: none)");
    for (id, which, all, worst, n) in labs {
        let verdict = if *n == 0 { "met" } else { "MISSED" };
        println!("{id:<10} {which:<9} {all:>8.0} ms   {n} (longest {worst:.0} ms)  {verdict}");
    }
}

/// The seed's eviction table opened cold by a deep link (`browser-bench cold` runs it alone).
fn cold_table() {
    // The seed's eviction table opened cold by a deep link: a fresh browser, the observer
    // installed before the page's own scripts, times from the first contentful paint to the
    // first row and to the whole table.
    let (mut first_rows, mut tables, mut cold_long) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..5 {
        let b = Browser::new(1366, 768);
        b.cdp(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": "window.__at = {}; window.__long = []; new PerformanceObserver(l => l.getEntries().forEach(e => window.__long.push(Math.round(e.duration)))).observe({type: 'longtask'}); new MutationObserver(() => { const t = performance.now(); if (!window.__at.row && document.querySelector('[data-testid=eviction-rows], [data-testid=eviction-table]')) window.__at.row = t; if (!window.__at.table && document.querySelector('[data-testid=eviction-table]')) window.__at.table = t; }).observe(document, {subtree: true, childList: true});"}),
        );
        b.open("#/lab/eviction");
        b.wait(30, "the table", |b| {
            b.exists("[data-testid=eviction-table]")
        });
        b.wait(10, "a paint entry", |b| {
            b.js(
                "return performance.getEntriesByName('first-contentful-paint').length",
                json!([]),
            ) == json!(1)
        });
        let r = b.js(
            "return [performance.getEntriesByName('first-contentful-paint')[0].startTime, window.__at.row, window.__at.table, window.__long]",
            json!([]),
        );
        cold_long.extend(
            r[3].as_array()
                .map(|a| a.iter().filter_map(|v| v.as_f64()).collect::<Vec<_>>())
                .unwrap_or_default(),
        );
        let fcp = r[0].as_f64().unwrap_or(f64::NAN);
        first_rows.push(r[1].as_f64().unwrap_or(f64::NAN) - fcp);
        tables.push(r[2].as_f64().unwrap_or(f64::NAN) - fcp);
    }
    let t = median(tables.clone());
    println!(
        "\nseed eviction table by a deep link, cold: first row {:.0} ms, whole table {:.0} ms after first paint (median of {}; budget 400 ms: {})  runs: {:?}",
        median(first_rows.clone()),
        t,
        tables.len(),
        if t <= 400.0 { "met" } else { "MISSED" },
        tables.iter().map(|v| v.round()).collect::<Vec<_>>()
    );
    println!(
        "  main-thread tasks >= 50 ms from the start of the page to the whole table, all runs: {:?} (the app's own start-up included)",
        cold_long
    );
}

/// One load on the emulated phone: a fresh browser (nothing cached), the conditions set
/// through the DevTools protocol before the page loads. "On screen" is the first frame
/// painted after the first slide's title is in the page in its own font (Bengali text before
/// its font is in shows as empty boxes on a machine without one, so the font is part of being
/// seen; a task posted from `requestAnimationFrame` runs after that paint); bytes are what the
/// Resource Timing entries say went over the wire (`transferSize`, headers included), split
/// at that moment, and what the server sent that the page's entries do not show (a worker's
/// fetches: the labs module, the simulator, the service worker's copy), counted whole in the
/// window its request arrived in. With `second`, the page was opened once before in the same
/// browser, unthrottled, until the service worker had kept the whole release: the load
/// measured is a return visit.
fn phone_load(served: &redislab_e2e::Served, second: bool) -> serde_json::Value {
    let b = Browser::new(412, 915);
    if second {
        b.open_url(&format!("{}#/production/1", served.url));
        b.wait(120, "the release kept on the device", |b| {
            b.js("return document.documentElement.dataset.offline", json!([])) == json!("ready")
        });
        b.open_url("about:blank");
    }
    b.cdp("Network.enable", json!({}));
    b.cdp("Network.setCacheDisabled", json!({"cacheDisabled": true}));
    b.cdp(
        "Network.emulateNetworkConditions",
        json!({"offline": false, "latency": 150, "downloadThroughput": 1_600_000 / 8, "uploadThroughput": 750_000 / 8}),
    );
    b.throttle_cpu(4.0);
    b.cdp(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({"source": "window.__slide = 0; window.__keys = 0; const keys = () => { if (document.querySelector('.counter')) window.__keys = performance.now(); else requestAnimationFrame(keys); }; requestAnimationFrame(keys); const look = () => { const h = document.querySelector('.stage .slide-title'); if (h && h.textContent.trim() && document.fonts.check(getComputedStyle(h).font, h.textContent)) { requestAnimationFrame(() => setTimeout(() => { window.__slide = performance.now(); }, 0)); } else { requestAnimationFrame(look); } }; requestAnimationFrame(look);"}),
    );
    let start = served.sent.lock().map_or(0, |l| l.len());
    b.open_url(&format!("{}#/production/1", served.url));
    b.wait(60, "the first slide on screen", |b| {
        b.js("return window.__slide > 0", json!([])) == json!(true)
    });
    b.wait(60, "the player (keys work)", |b| {
        b.js("return window.__keys > 0", json!([])) == json!(true)
    });
    b.wait(60, "3 s after the first slide", |b| {
        b.js(
            "return performance.now() > window.__slide + 3000",
            json!([]),
        ) == json!(true)
    });
    let r = b.js(
        "const t = window.__slide;
         const all = performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'));
         const until = all.filter(e => e.responseEnd <= t).reduce((a, e) => a + e.transferSize, 0);
         const after = all.filter(e => e.responseEnd > t && e.responseEnd <= t + 3000).reduce((a, e) => a + e.transferSize, 0);
         return [t, until, after, all.filter(e => e.responseEnd <= t).map(e => e.name.split('/').pop() + ' ' + e.transferSize).join(', '), window.__keys, performance.timeOrigin, all.map(e => new URL(e.name).pathname)];",
        json!([]),
    );
    // What the page's entries do not show, from the server's own record, counted whole in
    // the window its request arrived in: more than went over the wire by then, never less.
    let (t, origin) = (
        r[0].as_f64().unwrap_or(f64::NAN),
        r[5].as_f64().unwrap_or(f64::NAN),
    );
    let mut seen: Vec<String> = r[6]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let (mut unseen_until, mut unseen_after, mut unseen) = (0.0, 0.0, Vec::new());
    let sent = served.sent.lock().map(|l| l.clone()).unwrap_or_default();
    for s in sent.iter().skip(start) {
        let at = s.at_ms - origin;
        if !(0.0..=t + 3000.0).contains(&at) {
            continue;
        }
        if let Some(i) = seen.iter().position(|p| *p == s.path) {
            seen.swap_remove(i);
            continue;
        }
        if at <= t {
            unseen_until += s.bytes as f64;
        } else {
            unseen_after += s.bytes as f64;
        }
        unseen.push(format!("{} {} at {at:.0} ms", s.path, s.bytes));
    }
    json!({
        "slide": t,
        "until": r[1].as_f64().unwrap_or(f64::NAN) + unseen_until,
        "after": r[2].as_f64().unwrap_or(f64::NAN) + unseen_after,
        "fetched": r[3],
        "keys": r[4],
        "unseen": unseen.join(", "),
    })
}

/// `browser-bench phone-one [second]`: one load (see [`phone_load`]) of `REDISLAB_DIST`,
/// printed as one JSON line; the fonts the browser has are the ones `FONTCONFIG_FILE` gives
/// it (the parent sets it for the "installed" cases).
fn phone_one(second: bool) {
    let served = serve_dist_as("/", true);
    println!("{}", phone_load(&served, second));
}

/// One case of the phone's table: a build, the fonts its browser has, a first or a return
/// visit.
struct PhoneCase {
    label: String,
    dist: std::path::PathBuf,
    fonts: Option<std::path::PathBuf>,
    second: bool,
    runs: Vec<serde_json::Value>,
}

/// The emulated phone (4× slower CPU, 1.6 Mbps down, 150 ms round trips, served gzip as a
/// static host serves it), deep link to `#/production/1`: this build and, when
/// `REDISLAB_DIST_BEFORE` names another build's `dist/` (the one before a change), that one
/// beside it in the same run; each with no Noto installed (Debian's fonts only: DejaVu) and,
/// when `REDISLAB_NOTO` names the folder `cargo xtask bench` fills
/// (`xtask::tools::ensure_noto_fonts`), with Android's Noto Sans Bengali and with every Noto
/// face the style sheet names installed (a fontconfig folder given to Chromium through
/// `FONTCONFIG_FILE`, never installed on the machine); and this build's return visit, from
/// the service worker's copy. Five rounds, each load in a fresh browser (a process of its own,
/// so that each has its own fonts), the cases taking turns; medians.
fn phone() {
    let this = redislab_e2e::dist_dir();
    let mut builds = vec![("this build".to_string(), this.clone())];
    if let Some(before) = std::env::var_os("REDISLAB_DIST_BEFORE") {
        builds.push(("before".to_string(), before.into()));
    }
    let noto = std::env::var_os("REDISLAB_NOTO").map(std::path::PathBuf::from);
    let mut fonts: Vec<(&str, Option<std::path::PathBuf>)> = vec![("no Noto", None)];
    if let Some(n) = &noto {
        fonts.push((
            "Android's Noto Sans Bengali",
            Some(n.join("android/fonts.conf")),
        ));
        fonts.push(("every Noto face", Some(n.join("all/fonts.conf"))));
    }
    let mut cases = Vec::new();
    for (name, dist) in &builds {
        for (f, conf) in &fonts {
            cases.push(PhoneCase {
                label: format!("{name}, {f}"),
                dist: dist.clone(),
                fonts: conf.clone(),
                second: false,
                runs: Vec::new(),
            });
        }
    }
    cases.push(PhoneCase {
        label: "this build, no Noto, return visit".into(),
        dist: this,
        fonts: None,
        second: true,
        runs: Vec::new(),
    });
    let me = std::env::current_exe().expect("browser-bench's own path");
    for _ in 0..5 {
        for c in &mut cases {
            let mut cmd = std::process::Command::new(&me);
            cmd.arg("phone-one").env("REDISLAB_DIST", &c.dist);
            if c.second {
                cmd.arg("second");
            }
            match &c.fonts {
                Some(conf) => cmd.env("FONTCONFIG_FILE", conf),
                None => cmd.env_remove("FONTCONFIG_FILE"),
            };
            let out = cmd.output().expect("run browser-bench phone-one");
            let line = String::from_utf8_lossy(&out.stdout);
            match line
                .lines()
                .last()
                .map(serde_json::from_str::<serde_json::Value>)
            {
                Some(Ok(v)) => c.runs.push(v),
                _ => eprintln!(
                    "{}: a load failed: {}",
                    c.label,
                    String::from_utf8_lossy(&out.stderr)
                ),
            }
        }
    }
    let med =
        |c: &PhoneCase, k: &str| median(c.runs.iter().filter_map(|r| r[k].as_f64()).collect());
    println!(
        "\n== emulated phone (4x CPU, 1.6 Mbps, 150 ms RTT, gzip), deep link #/production/1, median of {} loads ==",
        cases.first().map_or(0, |c| c.runs.len())
    );
    println!(
        "{:<52} {:>12} {:>14} {:>15} {:>10}",
        "build, fonts on the device", "first slide", "bytes before", "bytes 3 s after", "keys work"
    );
    for c in &cases {
        if c.runs.is_empty() {
            println!("{:<52} (no load finished)", c.label);
            continue;
        }
        let t = med(c, "slide");
        let budget = if c.fonts.is_some() { 1000.0 } else { 1300.0 };
        println!(
            "{:<52} {:>9.0} ms {:>11.1} KB {:>12.1} KB {:>7.0} ms   {}  runs: {:?}",
            c.label,
            t,
            med(c, "until") / 1000.0,
            med(c, "after") / 1000.0,
            med(c, "keys"),
            if c.second {
                String::new()
            } else if t <= budget {
                format!("(budget {budget:.0} ms: met)")
            } else {
                format!("(budget {budget:.0} ms: MISSED)")
            },
            c.runs
                .iter()
                .map(|r| r["slide"].as_f64().unwrap_or(f64::NAN).round())
                .collect::<Vec<_>>()
        );
    }
    println!("budgets: first slide <= 1000 ms with the fonts on the device, <= 1300 ms without; bytes before <= 200 KB; 3 s after <= 250 KB");
    for c in &cases {
        if let Some(r) = c.runs.last() {
            println!(
                "  {}: fetched before the first slide (last run): {}",
                c.label,
                r["fetched"].as_str().unwrap_or_default()
            );
            println!(
                "  {}: fetched by workers until the window's end (last run): {}",
                c.label,
                Some(r["unseen"].as_str().unwrap_or_default())
                    .filter(|u| !u.is_empty())
                    .unwrap_or("none")
            );
        }
    }
}
