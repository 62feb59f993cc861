use redislab_e2e::Browser;
use serde_json::json;
#[test]
fn scratch() {
    let b = Browser::new(1366, 768);
    b.open("#/");
    b.wait(10, "home", |b| b.exists(".deck-card"));
    b.throttle_cpu(4.0);
    b.js("window.__long = []; window.__log = []; const ol = console.log; console.log = (...a) => { window.__log.push([Math.round(performance.now()), a.join(' ')]); }; new PerformanceObserver(l => l.getEntries().forEach(e => window.__long.push([location.hash.slice(0,20), Math.round(e.startTime), Math.round(e.duration)]))).observe({type: 'longtask'});", json!([]));
    for h in ["#/lab/lru", "#/lab/eviction", "#/lab/stampede"] {
        let t = b.js("window.__log = []; const t = performance.now(); setTimeout(() => { location.hash = arguments[0]; }, 0); return t", json!([h]));
        b.wait(120, "idle", |b| b.exists(".lab") || b.exists(".deck-card"));
        b.wait(120, "idle", |b| !b.exists(".lab[aria-busy=true]"));
        println!(
            "{h} at {t}: long {}",
            b.js(
                "const l = window.__long; window.__long = []; return l",
                json!([])
            )
        );
        for x in b.js("return window.__log", json!([])).as_array().unwrap() {
            println!("  {x}");
        }
    }
}
