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
        &args::split_args(line).unwrap(),
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

/// Ten keys past their TTL (the cycle off, so none is reclaimed), ten with a long TTL, ten
/// without: what each snapshot holds and what each loader keeps.
fn with_stale_keys() -> SimRedis {
    let mut s = SimRedis::new(3);
    r(&mut s, "DEBUG SET-ACTIVE-EXPIRE 0");
    for i in 0..10 {
        s.cmd(&["SET", &format!("gone:{i}"), "v", "PX", "100"]);
        s.cmd(&["SET", &format!("kept:{i}"), "v", "EX", "1000"]);
        s.cmd(&["SET", &format!("plain:{i}"), "v"]);
    }
    s.advance(101);
    assert_eq!((s.dbsize(), s.volatile_len(), s.stale_len()), (30, 20, 10));
    assert!(s.is_stale(b"gone:3") && !s.is_stale(b"kept:3") && !s.is_stale(b"nope"));
    s
}

#[test]
fn a_primary_loading_a_snapshot_drops_what_has_expired() {
    let s = with_stale_keys();
    assert_eq!(s.rdb(Snapshot::All).len(), 30);
    assert_eq!(s.rdb(Snapshot::SkipExpired).len(), 20);
    let (mut b, loaded) = s.restarted(9, Snapshot::All);
    assert_eq!(
        loaded,
        Loaded {
            keys: 20,
            expired: 10
        }
    );
    assert_eq!((b.dbsize(), b.volatile_len(), b.stale_len()), (20, 10, 0));
    assert_eq!(b.now_ms(), s.now_ms());
    assert_eq!(r(&mut b, "TTL kept:0"), int(1000));
    assert_eq!(r(&mut b, "GET gone:0"), Reply::Nil);
    // From an old snapshot the same keys are simply not there.
    let (_, old) = s.restarted(9, Snapshot::SkipExpired);
    assert_eq!(
        old,
        Loaded {
            keys: 20,
            expired: 0
        }
    );
    // DEBUG RELOAD in place: the same.
    let mut c = s.clone();
    assert_eq!(r(&mut c, "DEBUG RELOAD"), Reply::ok());
    assert_eq!((c.dbsize(), c.volatile_len(), c.stale_len()), (20, 10, 0));
    assert_eq!(
        c.expire_stats().lazy,
        0,
        "dropped on load, not expired by a read"
    );
}

#[test]
fn a_replica_keeps_the_stale_keys_of_a_new_snapshot_and_none_of_an_old_one() {
    let s = with_stale_keys();
    let mut today = Replicated::attach(s.clone(), 4, 10);
    today.advance(10);
    let rep = today.node(Node::Replica);
    assert_eq!(
        (rep.dbsize(), rep.volatile_len(), rep.stale_len()),
        (30, 20, 10)
    );
    let mut old = Replicated::attach_with(s, 4, 10, Snapshot::SkipExpired);
    old.advance(10);
    let rep = old.node(Node::Replica);
    assert_eq!(
        (rep.dbsize(), rep.volatile_len(), rep.stale_len()),
        (20, 10, 0)
    );
    // The primary's DEL of a key the old replica never got changes nothing there.
    assert_eq!(
        old.execute(Node::Primary, 1, &["GET", "gone:0"]),
        Exec::Reply(Reply::Nil)
    );
    old.advance(10);
    assert_eq!(old.node(Node::Primary).dbsize(), 29);
    assert_eq!(old.node(Node::Replica).dbsize(), 20);
}
