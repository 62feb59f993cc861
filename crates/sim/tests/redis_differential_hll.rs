//! HyperLogLog against a real Redis 7: SimRedis' HLL is a port of `hyperloglog.c`, so the
//! string itself and every count must equal Redis', byte for byte (see `tests/common` for
//! the server).
//!
//! * `pfadd_strings_and_counts_agree`: 200,000 seeded elements added in growing batches;
//!   at 40 checkpoints from 1 element to 200,000 (through the sparse → dense promotion at
//!   `hll-sparse-max-bytes` 3000) the raw string (GET), its length, PFCOUNT (and the string
//!   again, now with the cached cardinality in its header) agree; so do PFADD's 0/1.
//! * `merges_and_multi_key_counts_agree`: PFCOUNT of several keys and PFMERGE of sparse
//!   with sparse, sparse with dense and into an existing key, a smaller
//!   `hll-sparse-max-bytes`, and the errors (a string that is not an HLL, a corrupt one).

mod common;

use common::Server;
use redislab_sim::redis::SimRedis;
use redislab_sim::{Mulberry32, Reply};

fn both(sim: &mut SimRedis, real: &mut common::Conn, c: &[String]) -> Reply {
    let want = real.call(c);
    let got = sim.call(&c.iter().map(|x| x.as_bytes()).collect::<Vec<_>>());
    assert_eq!(got, want, "{:?}", &c[..c.len().min(4)]);
    want
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

#[test]
fn pfadd_strings_and_counts_agree() {
    let mut server = Server::start();
    let mut real = server.conn();
    let mut sim = SimRedis::new(1);
    let mut rng = Mulberry32::new(42);
    let mut checkpoints: Vec<usize> = vec![1, 2, 3, 5, 8, 13, 20, 50, 100, 200, 300, 500, 700];
    checkpoints.extend((1000..=3000).step_by(250));
    checkpoints.extend([
        4000, 6000, 10_000, 20_000, 50_000, 100_000, 150_000, 200_000,
    ]);
    checkpoints.sort_unstable();
    let mut added = 0usize;
    let mut random = 0usize;
    let mut saw = (false, false);
    for &cp in &checkpoints {
        while added < cp {
            let n = (cp - added).min(1000);
            let mut c = vec!["PFADD".to_string(), "h".into()];
            for _ in 0..n {
                c.push(format!("user:{}", rng.next_u32()));
            }
            both(&mut sim, &mut real, &c);
            added += n;
            random += n;
        }
        let raw = both(&mut sim, &mut real, &strs(&["GET", "h"]));
        let raw = raw.as_bulk().expect("a string").to_vec();
        if raw[4] == 1 {
            saw.0 = true;
        } else {
            saw.1 = true;
            assert_eq!(raw.len(), 12_304, "dense size");
        }
        both(&mut sim, &mut real, &strs(&["STRLEN", "h"]));
        let n = both(&mut sim, &mut real, &strs(&["PFCOUNT", "h"]));
        both(&mut sim, &mut real, &strs(&["GET", "h"]));
        let n = n.as_int().expect("a count");
        let distinct = (random + usize::from(cp > 1)) as f64; // and "user:x"
        assert!(
            (n as f64 - distinct).abs() <= (0.03 * distinct).max(2.0),
            "{distinct} elements counted {n}"
        );
        // Adding one already there changes nothing.
        both(&mut sim, &mut real, &strs(&["PFADD", "h", "user:x"]));
        both(&mut sim, &mut real, &strs(&["PFADD", "h", "user:x"]));
        added += 1;
    }
    assert_eq!(saw, (true, true), "both encodings were compared");
    assert_eq!(
        both(&mut sim, &mut real, &strs(&["OBJECT", "ENCODING", "h"])),
        Reply::bulk("raw")
    );
}

#[test]
fn merges_and_multi_key_counts_agree() {
    let mut server = Server::start();
    let mut real = server.conn();
    let mut sim = SimRedis::new(1);
    let mut rng = Mulberry32::new(7);
    let mut fill = |sim: &mut SimRedis, real: &mut common::Conn, key: &str, n: usize| {
        let mut left = n;
        while left > 0 {
            let k = left.min(500);
            let mut c = vec!["PFADD".to_string(), key.into()];
            for _ in 0..k {
                c.push(format!("e{}", rng.below(400_000)));
            }
            both(sim, real, &c);
            left -= k;
        }
    };
    fill(&mut sim, &mut real, "small", 300);
    fill(&mut sim, &mut real, "small2", 900);
    fill(&mut sim, &mut real, "big", 30_000);
    let cases: &[&[&str]] = &[
        &["PFCOUNT", "small", "small2"],
        &["PFCOUNT", "small", "big", "missing"],
        &["PFMERGE", "m1", "small", "small2"],
        &["GET", "m1"],
        &["PFCOUNT", "m1"],
        &["PFMERGE", "m2", "small", "big"],
        &["GET", "m2"],
        &["PFCOUNT", "m2"],
        &["PFMERGE", "small2", "small"],
        &["GET", "small2"],
        &["PFMERGE", "new"],
        &["GET", "new"],
        &["PFCOUNT", "new", "missing"],
        &["CONFIG", "SET", "hll-sparse-max-bytes", "400"],
        &["PFMERGE", "m3", "small", "small2"],
        &["GET", "m3"],
        &[
            "PFADD", "tiny", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j",
        ],
        &["GET", "tiny"],
        &["SET", "str", "hello"],
        &["PFADD", "str", "x"],
        &["PFCOUNT", "str"],
        &["PFCOUNT", "small", "str"],
        &["PFMERGE", "small", "str"],
        &["SET", "num", "12345"],
        &["PFADD", "num", "x"],
        &["LPUSH", "list", "x"],
        &["PFADD", "list", "x"],
        &["PFCOUNT", "list"],
        &["PFADD", "fresh"],
        &["PFADD", "fresh"],
        &["GET", "fresh"],
        &["SETRANGE", "m1", "20", "\u{7f}\u{7f}\u{7f}"],
        &["PFCOUNT", "m1"],
        &["PFADD", "m1", "zzz"],
        &["APPEND", "m2", "x"],
        &["PFADD", "m2", "y"],
    ];
    for c in cases {
        both(&mut sim, &mut real, &strs(c));
    }
}
