//! Browser timings of the release app in headless Chromium, printed as figures: first
//! contentful paint of `#/production/1`, key press → next slide on screen, every lab at the
//! seed's and at its largest parameters (time to done, main-thread long tasks), and the seed's
//! eviction table opened cold by a deep link, timed from the first paint; and a deep link to
//! `#/production/1` on an emulated phone (4× slower CPU, 1.6 Mbps down, 150 ms round trips,
//! served gzip as a static host serves it): time to the first slide on screen and the bytes
//! fetched until then and in the 3 s after.
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
        // `browser-bench cold`: only the seed's eviction table opened cold.
        Some("cold") => return cold_table(),
        // `browser-bench labs`: only the labs' long tasks.
        Some("labs") => return print_labs(&labs()),
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

    let labs = labs();

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

/// Every lab at the seed's and at its largest parameters, each opened from a light page of
/// the app in a fresh browser.
fn labs() -> Vec<LabCase> {
    // Labs: time from opening a lab (from another page of the app) to all its numbers on screen
    // (`aria-busy` cleared), and the longest main-thread task meanwhile (PerformanceObserver
    // 'longtask' reports tasks of 50 ms or more), at the seed's parameters and at the largest
    // its fields allow.
    let heavy: Vec<(&str, &str)> = redislab_sim::labs::registry::LABS
        .iter()
        .map(|l| (l.info().id, l.heaviest()))
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

/// The emulated phone: a fresh browser per run (nothing cached), the conditions set through
/// the DevTools protocol before the page loads. "On screen" is the first frame painted after
/// the first slide's title is in the page in its own font (Bengali text before its font is
/// in shows as empty boxes on a machine without one, so the font is part of being seen; a
/// task posted from `requestAnimationFrame` runs after that paint); bytes are what the
/// Resource Timing entries say went over the wire (`transferSize`, headers included), split
/// at that moment, and what the server sent that the page's entries do not show (a worker's
/// fetches: the labs module, the simulator), counted whole in the window its request arrived
/// in.
fn phone() {
    let served = serve_dist_as("/", true);
    let mut runs = Vec::new();
    for _ in 0..5 {
        let b = Browser::new(412, 915);
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
             const fonts = document.fonts.status;
             return [t, until, after, all.filter(e => e.responseEnd <= t).map(e => e.name.split('/').pop() + ' ' + e.transferSize).join(', '), fonts, window.__keys, performance.timeOrigin, all.map(e => new URL(e.name).pathname)];",
            json!([]),
        );
        // What the page's entries do not show (a worker's fetches), from the server's own
        // record, counted whole in the window its request arrived in: more than went over
        // the wire by then, never less.
        let (t, origin) = (
            r[0].as_f64().unwrap_or(f64::NAN),
            r[6].as_f64().unwrap_or(f64::NAN),
        );
        let mut seen: Vec<String> = r[7]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let (mut unseen_until, mut unseen_after, mut unseen) = (0.0, 0.0, Vec::new());
        for s in served.sent.lock().map(|l| l.clone()).unwrap_or_default() {
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
        runs.push((
            t,
            r[1].as_f64().unwrap_or(f64::NAN) + unseen_until,
            r[2].as_f64().unwrap_or(f64::NAN) + unseen_after,
            r[3].as_str().unwrap_or_default().to_string(),
            r[5].as_f64().unwrap_or(f64::NAN),
            unseen.join(", "),
        ));
    }
    let t = median(runs.iter().map(|r| r.0).collect());
    let until = median(runs.iter().map(|r| r.1).collect());
    let after = median(runs.iter().map(|r| r.2).collect());
    let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
    println!(
        "\n== emulated phone (4x CPU, 1.6 Mbps, 150 ms RTT, gzip), deep link #/production/1 =="
    );
    println!(
        "first slide on screen   median {t:>6.0} ms of {} runs  (budget 2000 ms: {}; stretch 1500 ms)  runs: {:?}",
        runs.len(),
        verdict(t <= 2000.0),
        runs.iter().map(|r| r.0.round()).collect::<Vec<_>>()
    );
    println!(
        "bytes until then        median {:>6.1} KB  (budget 200 KB: {})",
        until / 1000.0,
        verdict(until <= 200_000.0)
    );
    println!(
        "bytes in the 3 s after  median {:>6.1} KB  (budget 250 KB: {})",
        after / 1000.0,
        verdict(after <= 250_000.0)
    );
    let keys = median(runs.iter().map(|r| r.4).collect());
    println!(
        "player ready (keys work) median {keys:>5.0} ms  (the first slide shows before it, from the page itself)"
    );
    println!(
        "  fetched before the first slide (last run): {}",
        runs.last().map_or("", |r| r.3.as_str())
    );
    println!(
        "  fetched by workers until the window's end, from the server's record (all runs): {}",
        runs.iter()
            .map(|r| if r.5.is_empty() { "none" } else { r.5.as_str() })
            .collect::<Vec<_>>()
            .join(" | ")
    );
}
