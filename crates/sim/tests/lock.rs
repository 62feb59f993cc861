//! The lock-race lab over many seeds and through `labsim lock`: with the token release and a
//! fencing token the resource never accepts a stale write; with the token release and a
//! heartbeat no two workers ever work under the lock at once while every pause is shorter
//! than the TTL; and `labsim lock --json` prints exactly what the library computes (with `--page`, what the
//! lab's page receives).

mod labsim_json;

use labsim_json::{json_equals_library, labsim};
use redislab_sim::labs::lock::{run, LockOutput, LockParams, Release, Who, INFO};
use redislab_sim::labs::params::Switch;
use redislab_sim::rng::Mulberry32;

/// Random parameters for property seed `s` (the run's own seed is `s` too).
fn random(s: u32) -> LockParams {
    let mut r = Mulberry32::new(s ^ 0x10C4_BACE);
    let mut pick = |lo: u32, hi: u32| u64::from(lo + r.below(hi - lo + 1));
    let ttl = pick(300, 3000);
    let onoff = |b: u64| if b == 1 { Switch::On } else { Switch::Off };
    LockParams {
        ttl,
        work: pick(10, 3000),
        jobs: pick(1, 3) as u32,
        release: Release::Token,
        heartbeat: onoff(pick(0, 1)),
        fencing: onoff(pick(0, 1)),
        dedup: onoff(pick(0, 1)),
        dedup_ex: pick(1, 900),
        pause_worker: if pick(0, 1) == 1 { Who::B } else { Who::A },
        pause_at: pick(0, 4000),
        pause: pick(0, 4000),
        gap: pick(0, 200),
        seed: s,
    }
}

#[test]
fn token_release_and_fencing_never_accept_a_stale_write() {
    let (mut stale_seen, mut rejected) = (0, 0);
    for s in 0..10_000 {
        let mut p = random(s);
        p.fencing = Switch::On;
        let r = run(&p);
        assert_eq!(
            r.counters.stale_accepted, 0,
            "seed {s}: {p:?}\n{:?}",
            r.counters
        );
        stale_seen += u32::from(r.writes.iter().any(|w| w.stale));
        rejected += r.counters.stale_rejected;
    }
    // The property is not vacuous: many runs had stale writes to reject.
    assert!(
        stale_seen > 500 && rejected > 500,
        "{stale_seen} {rejected}"
    );
}

#[test]
fn token_release_and_heartbeat_never_have_two_owners_while_pauses_are_shorter_than_the_ttl() {
    let mut lost = 0;
    for s in 0..10_000 {
        let mut p = random(s);
        p.heartbeat = Switch::On;
        p.pause %= p.ttl;
        let r = run(&p);
        assert_eq!(
            r.counters.two_owner_moments, 0,
            "seed {s}: {p:?}\n{:?}",
            r.overlaps
        );
        assert_eq!(r.counters.steals, 0, "seed {s}");
        lost += r.counters.lost;
    }
    // Some pauses did cost the lock, and the heartbeat noticed.
    assert!(lost > 0);
}

#[test]
fn plain_del_without_heartbeat_does_have_two_owners() {
    // The counter-check: the same generator with plain DEL and no heartbeat finds them.
    let n = (0..2_000)
        .filter(|&s| {
            let mut p = random(s);
            p.release = Release::Del;
            p.heartbeat = Switch::Off;
            run(&p).counters.two_owner_moments > 0
        })
        .count();
    assert!(n > 100, "{n}");
}

#[test]
fn labsim_lock_json_equals_the_library() {
    for (args, query) in [
        (vec!["--preset", "plain-del"], "preset=plain-del"),
        (vec!["--preset", "token"], "preset=token"),
        (vec!["--preset", "pause"], "preset=pause"),
        (
            vec!["--preset", "fencing", "--seed", "17"],
            "preset=fencing&seed=17",
        ),
        (
            vec![
                "--ttl",
                "500",
                "--work",
                "900",
                "--dedup",
                "on",
                "--pause-worker",
                "b",
            ],
            "ttl=500&work=900&dedup=on&pause_worker=b",
        ),
    ] {
        let (want, text) =
            json_equals_library(&INFO, &args, query, |p| run(&p.read()), LockOutput::printed);
        // The text form ends with the same counters.
        assert!(text.contains(&format!(
            "two-owner moments {} ",
            want["counters"]["twoOwnerMoments"]
        )));
    }
    let golden = labsim(&["lock", "--preset", "pause"]);
    let text = String::from_utf8(golden.stdout).unwrap();
    assert!(
        text.contains("stale writes accepted 1 rejected 0"),
        "{text}"
    );
}

#[test]
fn labsim_lock_bad_input_exits_2() {
    for (args, msg) in [
        (
            &["lock", "--preset", "nope"][..],
            "--preset: unknown preset 'nope'",
        ),
        (&["lock", "--ttl", "5"], "--ttl: 300 থেকে 30000-এর মধ্যে"),
        (
            &["lock", "--release", "unlink"],
            "--release: এগুলোর একটা: del, token",
        ),
        (&["lock", "--bogus", "1"], "unknown option '--bogus'"),
    ] {
        let out = labsim(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(msg), "{args:?}: {err}");
    }
}
