//! Property tests over many seeded random traces (a plain loop, no proptest):
//! capacity is never exceeded and the `Policy` contract holds for every registered policy;
//! OPT never has fewer hits than any online policy; equal seeds give equal runs; and the
//! five seed policies agree with a direct, slow port of the seed's JavaScript `run()`.

use redislab_sim::eviction::registry::by_name;
use redislab_sim::{run, Access, Mulberry32, Spec, Trace, POLICIES};

/// Random small traces: mixes of uniform, skewed and looping patterns.
fn traces(count: u32) -> Vec<(Vec<u32>, u32)> {
    let mut rng = Mulberry32::new(2024);
    (0..count)
        .map(|_| {
            let keys = 1 + rng.below(40);
            let len = 1 + rng.below(300);
            let cap = 1 + rng.below(12);
            let style = rng.below(3);
            let t = (0..len)
                .map(|i| match style {
                    0 => rng.below(keys),
                    1 => {
                        let u = rng.next_f64();
                        (u * u * u * f64::from(keys)) as u32
                    }
                    _ => i % keys,
                })
                .collect();
            (t, cap)
        })
        .collect()
}

#[test]
fn every_policy_keeps_the_contract() {
    for (t, cap) in traces(300) {
        for info in POLICIES {
            let spec = Spec {
                capacity: cap,
                seed: 5,
                future: &t,
            };
            let mut p = (info.build)(&spec);
            assert_eq!(p.capacity(), cap);
            for &k in &t {
                let was = p.contains(k);
                let a = p.access(k);
                assert_eq!(a.is_hit(), was, "{}: hit iff resident", info.name);
                assert!(p.len() <= cap, "{}: size {} > {cap}", info.name, p.len());
                if let Some(e) = a.evicted() {
                    assert!(!p.contains(e), "{}: evicted key still resident", info.name);
                }
                if a.evicted() != Some(k) {
                    assert!(p.contains(k), "{}: requested key not resident", info.name);
                }
                let keys = p.keys();
                assert_eq!(keys.len() as u32, p.len(), "{}: keys() vs len()", info.name);
                let mut sorted = keys.clone();
                sorted.sort_unstable();
                sorted.dedup();
                assert_eq!(sorted.len(), keys.len(), "{}: duplicate keys", info.name);
            }
        }
    }
}

#[test]
fn a_full_cache_stays_full() {
    // Every online policy keeps exactly `cap` keys once it has seen `cap` distinct keys
    // (no policy frees a slot it does not need, except OPT's and W-TinyLFU's rejections,
    // which keep the size unchanged too).
    for (t, cap) in traces(100) {
        for info in POLICIES {
            let mut p = (info.build)(&Spec {
                capacity: cap,
                seed: 1,
                future: &t,
            });
            let mut distinct = std::collections::BTreeSet::new();
            for &k in &t {
                p.access(k);
                distinct.insert(k);
                assert_eq!(p.len(), (distinct.len() as u32).min(cap), "{}", info.name);
            }
        }
    }
}

#[test]
fn opt_never_loses() {
    for (t, cap) in traces(400) {
        let trace = Trace::all_user(t.clone());
        let spec = Spec {
            capacity: cap,
            seed: 3,
            future: &t,
        };
        let opt = run(by_name("opt", &spec).unwrap().as_mut(), &trace, 0).hits;
        for info in POLICIES.iter().filter(|p| !p.offline) {
            let hits = run((info.build)(&spec).as_mut(), &trace, 0).hits;
            assert!(
                hits <= opt,
                "{} {hits} > OPT {opt} at cap {cap}: {t:?}",
                info.name
            );
        }
    }
}

#[test]
fn same_seed_same_run() {
    for (t, cap) in traces(60) {
        for info in POLICIES {
            let go = || {
                let mut p = (info.build)(&Spec {
                    capacity: cap,
                    seed: 77,
                    future: &t,
                });
                t.iter().map(|&k| p.access(k)).collect::<Vec<Access>>()
            };
            assert_eq!(go(), go(), "{}", info.name);
        }
    }
}

/// A direct port of the seed's `run(pol, tr)` on an insertion-ordered list (slow, obvious),
/// returning the hit count over all requests.
fn js_run(pol: &str, tr: &[u32], cap: usize, policy_seed: u32) -> u64 {
    let mut next = vec![1e9 as i64; tr.len()];
    let mut seen = std::collections::HashMap::new();
    for i in (0..tr.len()).rev() {
        if let Some(&j) = seen.get(&tr[i]) {
            next[i] = j;
        }
        seen.insert(tr[i], i as i64);
    }
    let mut rr = Mulberry32::new(policy_seed);
    let mut c: Vec<(u32, i64)> = Vec::new(); // the Map: insertion order
    let mut hits = 0;
    for (i, &k) in tr.iter().enumerate() {
        if let Some(pos) = c.iter().position(|e| e.0 == k) {
            hits += 1;
            match pol {
                "LRU" => {
                    c.remove(pos);
                    c.push((k, 0));
                }
                "LFU" => c[pos].1 += 1,
                "OPT" => c[pos].1 = next[i],
                _ => {}
            }
            continue;
        }
        if pol != "OPT" && c.len() >= cap {
            let mut v = 0;
            let j = (rr.next_f64() * c.len() as f64) as usize;
            if pol == "RANDOM" {
                v = j;
            }
            if pol == "LFU" {
                let mut m = i64::MAX;
                for (x, e) in c.iter().enumerate() {
                    if e.1 < m {
                        m = e.1;
                        v = x;
                    }
                }
            }
            c.remove(v);
        }
        c.push((
            k,
            if pol == "OPT" {
                next[i]
            } else {
                i64::from(pol == "LFU")
            },
        ));
        if pol == "OPT" && c.len() > cap {
            let mut m = -1;
            let mut v = 0;
            for (x, e) in c.iter().enumerate() {
                if e.1 > m {
                    m = e.1;
                    v = x;
                }
            }
            c.remove(v);
        }
    }
    hits
}

#[test]
fn seed_policies_agree_with_the_javascript_semantics() {
    for (t, cap) in traces(300) {
        let trace = Trace::all_user(t.clone());
        for (name, js) in [
            ("fifo", "FIFO"),
            ("random", "RANDOM"),
            ("lru", "LRU"),
            ("lfu", "LFU"),
            ("opt", "OPT"),
        ] {
            let spec = Spec {
                capacity: cap,
                seed: 99,
                future: &t,
            };
            let ours = run(by_name(name, &spec).unwrap().as_mut(), &trace, 0).hits;
            assert_eq!(
                ours,
                js_run(js, &t, cap as usize, 99),
                "{name} cap {cap}: {t:?}"
            );
        }
    }
}
