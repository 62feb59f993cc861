//! Hand-worked tests of maxmemory eviction and of the replica pair.

use super::tests::{bulk, err, int, r};
use super::*;

const OOM: &str = "OOM command not allowed when used memory > 'maxmemory'.";

/// A server whose limit leaves room for the base and about `keys` small strings.
fn limited(policy: &str, keys: u64) -> SimRedis {
    let mut s = SimRedis::new(1);
    let limit = evict::BASE_MEMORY + keys * 80 + 8 * keys.next_power_of_two() * 2;
    s.cmd(&["CONFIG", "SET", "maxmemory-policy", policy]);
    s.cmd(&["CONFIG", "SET", "maxmemory", &limit.to_string()]);
    s
}

#[test]
fn noeviction_refuses_writes_that_need_memory() {
    let mut s = limited("noeviction", 100);
    let mut refused = 0;
    for i in 0..300 {
        match s.cmd(&["SET", &format!("key:{i:04}"), "0123456789"]) {
            Reply::Error(e) => {
                assert_eq!(e, OOM);
                refused += 1;
            }
            other => assert_eq!(other, Reply::ok()),
        }
    }
    assert!(refused > 150, "{refused}");
    assert_eq!(
        r(&mut s, "GET key:0000"),
        bulk("0123456789"),
        "reads still work"
    );
    assert_eq!(r(&mut s, "DEL key:0000"), int(1), "DEL needs no memory");
    assert_eq!(r(&mut s, "EXPIRE key:0001 100"), int(1));
    assert_eq!(
        r(&mut s, "INFO stats")
            .as_bulk()
            .map(|b| String::from_utf8_lossy(b).contains("evicted_keys:0")),
        Some(true)
    );
}

#[test]
fn allkeys_lru_keeps_the_recently_used() {
    let mut s = limited("allkeys-lru", 200);
    for i in 0..200 {
        s.cmd(&["SET", &format!("old:{i}"), "0123456789"]);
    }
    s.advance(5_000); // the LRU clock has a 1 s resolution, as Redis'
    for i in 0..100 {
        s.cmd(&["GET", &format!("old:{i}")]); // touched: recent again
    }
    s.advance(5_000);
    for i in 0..150 {
        assert_eq!(
            s.cmd(&["SET", &format!("new:{i}"), "0123456789"]),
            Reply::ok()
        );
    }
    let alive = |s: &mut SimRedis, from: std::ops::Range<u32>| {
        from.filter(|i| s.cmd(&["EXISTS", &format!("old:{i}")]) == int(1))
            .count()
    };
    let (touched, untouched) = (alive(&mut s, 0..100), alive(&mut s, 100..200));
    assert!(
        touched > untouched + 30,
        "touched {touched}, untouched {untouched}"
    );
    assert!(s.used_memory() <= s.mem.maxmemory);
}

#[test]
fn volatile_policies_evict_only_keys_with_a_ttl() {
    let mut s = limited("volatile-ttl", 100);
    s.cmd(&["SET", "soon", "0123456789", "EX", "10"]);
    s.cmd(&["SET", "later", "0123456789", "EX", "10000"]);
    for i in 0..200 {
        if s.cmd(&["SET", &format!("k{i}"), "0123456789"]).is_error() {
            break;
        }
    }
    assert_eq!(
        r(&mut s, "EXISTS soon"),
        int(0),
        "the shortest TTL goes first"
    );
    assert_eq!(r(&mut s, "EXISTS later"), int(0), "then the next");
    assert_eq!(r(&mut s, "SET x y"), err(OOM), "no key with a TTL is left");
}

#[test]
fn a_replica_follows_with_a_lag_and_loses_what_promotion_cut_off() {
    let mut p = SimRedis::new(1);
    p.cmd(&["SET", "gone", "v", "PX", "5"]);
    p.cmd(&["DEBUG", "SET-ACTIVE-EXPIRE", "0"]);
    p.advance(10);
    let mut pair = Replicated::attach(p, 2, 50);
    let exec = |pair: &mut Replicated, n: Node, line: &str| match pair.execute(
        n,
        1,
        &cli::split_args(line).unwrap(),
    ) {
        Exec::Reply(x) => x,
        Exec::Blocked => panic!("blocked"),
    };
    assert_eq!(
        exec(&mut pair, Node::Replica, "DBSIZE"),
        int(0),
        "the snapshot is on its way"
    );
    pair.advance(50);
    // The snapshot carried the expired key: counted, not readable.
    assert_eq!(exec(&mut pair, Node::Replica, "DBSIZE"), int(1));
    assert_eq!(exec(&mut pair, Node::Replica, "GET gone"), Reply::Nil);
    assert_eq!(
        exec(&mut pair, Node::Replica, "INFO keyspace"),
        bulk("# Keyspace\r\ndb0:keys=1,expires=1,avg_ttl=0\r\n")
    );
    assert_eq!(
        exec(&mut pair, Node::Replica, "SET x 1"),
        err("READONLY You can't write against a read only replica.")
    );
    // A read on the primary reclaims the key; its DEL arrives 50 ms later.
    assert_eq!(exec(&mut pair, Node::Primary, "GET gone"), Reply::Nil);
    exec(&mut pair, Node::Primary, "SET lock tok");
    pair.advance(49);
    assert_eq!(exec(&mut pair, Node::Replica, "DBSIZE"), int(1));
    pair.advance(1);
    assert_eq!(exec(&mut pair, Node::Replica, "DBSIZE"), int(1));
    assert_eq!(exec(&mut pair, Node::Replica, "GET lock"), bulk("tok"));
    let info = exec(&mut pair, Node::Primary, "INFO replication");
    let info = String::from_utf8_lossy(info.as_bulk().unwrap()).into_owned();
    assert!(
        info.contains("role:master\r\nconnected_slaves:1\r\n"),
        "{info}"
    );
    assert_eq!(
        pair.node(Node::Primary).repl_offset(),
        pair.node(Node::Replica).repl_offset()
    );
    // Written, not yet sent, then the failover: the write is lost.
    exec(&mut pair, Node::Primary, "SET lock tok2");
    pair.advance(10);
    pair.promote();
    assert!(!pair.linked());
    assert_eq!(exec(&mut pair, Node::Replica, "GET lock"), bulk("tok"));
    assert_eq!(
        exec(&mut pair, Node::Replica, "SET lock mine"),
        Reply::ok(),
        "a primary now"
    );
    pair.advance(1_000);
    assert_eq!(
        exec(&mut pair, Node::Primary, "GET lock"),
        bulk("tok2"),
        "the old primary knows nothing of it"
    );
}

#[test]
fn active_expiry_on_the_primary_reaches_the_replica() {
    let mut pair = Replicated::attach(SimRedis::new(1), 2, 0);
    for i in 0..100 {
        pair.execute(
            Node::Primary,
            1,
            &["SET", &format!("k{i}"), "v", "PX", "100"],
        );
    }
    pair.advance(1);
    assert_eq!(pair.node(Node::Replica).dbsize(), 100);
    pair.advance(2_000);
    assert_eq!(
        pair.node(Node::Primary).dbsize(),
        0,
        "reclaimed by the cycle"
    );
    assert_eq!(pair.node(Node::Replica).dbsize(), 0, "and its DELs applied");
    assert_eq!(
        pair.node(Node::Replica).expire_stats().active,
        0,
        "a replica expires nothing itself"
    );
}
