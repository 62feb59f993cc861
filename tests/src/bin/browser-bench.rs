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
    let times = b.js_async(
        "const done = arguments[arguments.length - 1];
         const counter = () => document.querySelector('.counter').textContent;
         const out = [];
         const once = (forward) => new Promise(resolve => {
           const before = counter();
           const t0 = performance.now();
           document.dispatchEvent(new KeyboardEvent('keydown', {key: forward ? 'ArrowRight' : 'ArrowLeft', bubbles: true}));
           const poll = () => {
             if (counter() !== before) {
               requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - t0)));
             } else {
               requestAnimationFrame(poll);
             }
           };
           poll();
         });
         (async () => {
           for (let i = 0; i < 21; i++) out.push(await once(true));
           for (let i = 0; i < 21; i++) out.push(await once(false));
           done(out);
         })();",
        json!([]),
    );
    let keys: Vec<f64> = times
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_f64()).collect())
        .unwrap_or_default();
    let worst = keys.iter().copied().fold(0.0, f64::max);

    println!("\n== browser (headless Chromium, localhost) ==");
    println!("first contentful paint #/production/1   median {:>6.0} ms of {} runs  (budget 500 ms)  runs: {:?}",
        median(fcp.clone()), fcp.len(), fcp.iter().map(|v| v.round()).collect::<Vec<_>>());
    println!("key press -> next slide on screen       median {:>6.1} ms of {} presses, worst {:.1} ms  (budget 50 ms)",
        median(keys.clone()), keys.len(), worst);
}
