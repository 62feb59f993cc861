//! Browser timings of the release app in headless Chromium, printed as figures:
//! first contentful paint of `#/production/1`, and key press → next slide on screen.
//! Run through `cargo xtask bench` (it builds the app and sets the paths).

use redislab_e2e::Browser;
use serde_json::json;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
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
    b.script_timeout(60_000);
    // Key press to the next slide on screen: a keydown, the counter's text changes (seen by a
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
           mo.observe(counter, {childList: true, characterData: true, subtree: true});
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

    // Labs: time from opening a lab to all its numbers on screen, and the longest main-thread
    // task meanwhile (PerformanceObserver 'longtask' reports tasks of 50 ms or more).
    let mut labs = Vec::new();
    let mut work = Vec::new();
    for (id, done) in [
        ("eviction", "[data-testid=eviction-table]"),
        ("lru", ".lab"),
        ("sampling", ".lab"),
        ("jitter", ".lab"),
        ("stampede", ".lab"),
    ] {
        let b = Browser::new(1366, 768);
        b.open("#/");
        b.wait(10, "home", |b| b.exists(".deck-card"));
        b.script_timeout(60_000);
        let r = b.js_async(
            "const [id, sel, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
             const long = [];
             new PerformanceObserver(l => l.getEntries().forEach(e => long.push(e.duration))).observe({type: 'longtask'});
             const t0 = performance.now();
             let firstAt = null;
             location.hash = '#/lab/' + id;
             const poll = () => {
               if (firstAt === null && document.querySelector(sel)) firstAt = performance.now() - t0;
               const busy = document.querySelector('.lab-progress');
               if (firstAt !== null && !busy) {
                 const t = document.querySelector('[data-testid=eviction-table]');
                 setTimeout(() => done({first: firstAt, all: performance.now() - t0, long: long, work: t ? parseFloat(t.dataset.ms) : null}), 100);
               } else { setTimeout(poll, 2); }
             };
             poll();",
            json!([id, done]),
        );
        labs.push((
            id,
            r["first"].as_f64().unwrap_or(f64::NAN),
            r["all"].as_f64().unwrap_or(f64::NAN),
            r["long"]
                .as_array()
                .map(|a| a.iter().filter_map(|v| v.as_f64()).fold(0.0, f64::max))
                .unwrap_or(0.0),
            r["long"].as_array().map_or(0, |a| a.len()),
        ));
    }

    println!("\n== browser (headless Chromium, localhost) ==");
    println!("first contentful paint #/production/1   median {:>6.0} ms of {} runs  (budget 500 ms)  runs: {:?}",
        median(fcp.clone()), fcp.len(), fcp.iter().map(|v| v.round()).collect::<Vec<_>>());
    println!("key press -> next slide on screen       median {:>6.1} ms of {} presses, worst {:.1} ms  (budget 50 ms)",
        median(keys.clone()), keys.len(), worst);
    println!("\nlab        first result   all done   long tasks (>= 50 ms)   (budget: seed eviction table <= 200 ms, no long task)");
    for (id, first, all, worst, n) in labs {
        println!("{id:<10} {first:>9.0} ms {all:>8.0} ms   {n} (longest {worst:.0} ms)");
    }
    // The seed table's own work, from the job's start to the finished table: opened straight
    // from a link (cold: the wasm's hot loops not yet optimised), and opened from the home page
    // a second after start (the app has warmed the simulator up in idle moments).
    let mut cold = Vec::new();
    for warm in [false, true] {
        for _ in 0..4 {
            let b = Browser::new(1366, 768);
            if warm {
                b.open("#/");
                b.wait(10, "home", |b| b.exists(".deck-card"));
                std::thread::sleep(std::time::Duration::from_millis(1000));
                b.js("location.hash = '#/lab/eviction'", json!([]));
            } else {
                b.open("#/lab/eviction");
            }
            b.wait(30, "the table", |b| {
                b.exists("[data-testid=eviction-table]")
            });
            if let Some(ms) = b.js("return parseFloat(document.querySelector('[data-testid=eviction-table]').dataset.ms)", json!([])).as_f64() {
                if warm { work.push(ms) } else { cold.push(ms) }
            }
        }
    }
    println!("seed eviction table, work in the browser, opened by link (cold): median {:.0} ms of {} runs  runs: {:?}",
        median(cold.clone()), cold.len(), cold.iter().map(|v| v.round()).collect::<Vec<_>>());
    println!("seed eviction table, work in the browser, opened from the app:   median {:.0} ms of {} runs (budget 200 ms)  runs: {:?}",
        median(work.clone()), work.len(), work.iter().map(|v| v.round()).collect::<Vec<_>>());
}
