use redislab_e2e::*;
use serde_json::json;
use std::collections::HashMap;

#[test]
fn probe() {
    let b = Browser::new(1366, 768);
    b.open("#/nope");
    b.wait(10, "nf", |b| b.exists(".notfound"));
    // load the labs module first
    b.js("location.hash = '#/lab/lru'", json!([]));
    b.wait(30, "lab", |b| {
        b.exists(".lab") && !b.exists("[aria-busy=true]")
    });
    b.js("location.hash = '#/nope'", json!([]));
    b.wait(10, "nf", |b| b.exists(".notfound"));
    b.cdp("Profiler.enable", json!({}));
    b.cdp("Profiler.setSamplingInterval", json!({"interval": 200}));
    b.cdp("Profiler.start", json!({}));
    b.js(
        "location.hash = '#/lab/broadcast?preset=all-at-once'",
        json!([]),
    );
    b.wait(30, "lab", |b| {
        b.exists(".lab-broadcast") && !b.exists("[aria-busy=true]")
    });
    b.js("const s = document.querySelector('.lab-broadcast .scrubber'); for (const v of [s.max / 2, s.max]) { s.value = String(Math.round(v)); s.dispatchEvent(new Event('input', {bubbles: true})); }", json!([]));
    let prof = b.cdp("Profiler.stop", json!({}));
    let p = &prof["profile"];
    let nodes = p["nodes"].as_array().unwrap();
    let mut byid = HashMap::new();
    let mut parent = HashMap::new();
    for n in nodes {
        byid.insert(n["id"].as_i64().unwrap(), n);
        for c in n["children"]
            .as_array()
            .map(|a| a.to_vec())
            .unwrap_or_default()
        {
            parent.insert(c.as_i64().unwrap(), n["id"].as_i64().unwrap());
        }
    }
    let name_of = |id: i64| {
        let f = &byid[&id]["callFrame"];
        format!(
            "{} {}",
            f["functionName"].as_str().unwrap(),
            f["url"].as_str().unwrap().rsplit('/').next().unwrap()
        )
    };
    let samples: Vec<i64> = p["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    let deltas: Vec<f64> = p["timeDeltas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let mut i = 0;
    while i < samples.len() {
        if name_of(samples[i]).starts_with("(idle)") {
            i += 1;
            continue;
        }
        let mut j = i;
        let mut dur = 0.0;
        while j < samples.len() && !name_of(samples[j]).starts_with("(idle)") {
            dur += deltas[j];
            j += 1;
        }
        if dur > 25_000.0 {
            println!("RUN {:.1} ms", dur / 1000.0);
            let mut incl: HashMap<String, f64> = HashMap::new();
            let mut selfm: HashMap<String, f64> = HashMap::new();
            for k in i..j {
                *selfm.entry(name_of(samples[k])).or_default() += deltas[k];
                let mut id = samples[k];
                let mut seen = std::collections::HashSet::new();
                loop {
                    let n = name_of(id);
                    if seen.insert(n.clone()) {
                        *incl.entry(n).or_default() += deltas[k];
                    }
                    match parent.get(&id) {
                        Some(&pp) => id = pp,
                        None => break,
                    }
                }
            }
            let mut v: Vec<_> = selfm.into_iter().collect();
            v.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap());
            for (n, us) in v.iter().take(8) {
                println!(
                    "   self {:6.1} ms {}",
                    us / 1000.0,
                    n.chars().take(110).collect::<String>()
                );
            }
            let mut v: Vec<_> = incl
                .into_iter()
                .filter(|(n, _)| !n.starts_with("wasm-function"))
                .collect();
            v.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap());
            for (n, us) in v.iter().take(10) {
                println!(
                    "   incl {:6.1} ms {}",
                    us / 1000.0,
                    n.chars().take(110).collect::<String>()
                );
            }
        }
        i = j;
    }
}
