//! The queues lab over many seeds, each with a crash at a seeded random moment, and through
//! `labsim queues`: the reliable queue with recovery never loses a job; with the idempotency
//! key no job's effect happens twice; the simple queue does lose jobs; and `labsim queues
//! --json` prints exactly what the library computes (with `--page`, what the lab's page
//! receives).

mod labsim_json;

use labsim_json::{json_equals_library, labsim};
use redislab_sim::labs::params::Switch;
use redislab_sim::labs::queues::{
    run, Crash, CrashIn, Place, Queue, QueuesOutput, QueuesParams, INFO,
};
use redislab_sim::rng::Mulberry32;
use std::time::Instant;

/// Seeds each property runs.
const SEEDS: u32 = 10_000;

/// Small random parameters for property seed `s` (the run's own seed is `s` too): 2–5 jobs,
/// 1–3 workers (one of them crashing at a random moment within the run, in its work, after
/// its effect or anywhere; a lone worker always comes back), a visibility just above the work.
fn random(s: u32) -> QueuesParams {
    let mut r = Mulberry32::new(s ^ 0x0E0E_5EED);
    let mut pick = |lo: u32, hi: u32| u64::from(lo + r.below(hi - lo + 1));
    let jobs = pick(2, 5) as u32;
    let workers = pick(1, 3) as u32;
    let work = pick(20, 300);
    let every = pick(0, 100);
    let span = u64::from(jobs) * (every + work) + 200;
    let restart = if workers == 1 || pick(0, 1) == 1 {
        pick(50, 500)
    } else {
        0
    };
    QueuesParams {
        queue: Queue::Reliable,
        recovery: Switch::On,
        idem: Switch::Off,
        jobs,
        workers,
        work,
        every,
        block: 1,
        crash: Crash::ALL[pick(1, workers) as usize],
        crash_in: CrashIn::ALL[pick(0, 2) as usize],
        crash_at: pick(0, u32::try_from(span).unwrap()),
        restart,
        visibility: work + pick(101, 600),
        recover_every: pick(150, 500),
        seed: s,
    }
}

#[test]
fn the_reliable_queue_with_recovery_never_loses_a_job() {
    let t = Instant::now();
    let (mut twice, mut requeued, mut effects_twice) = (0, 0, 0);
    let mut events = 0;
    for s in 0..SEEDS {
        let p = random(s);
        let r = run(&p);
        events += r.commands.len();
        let c = r.end.counters;
        assert!(!r.cut_short, "seed {s}: {p:?}");
        assert_eq!(
            (c.lost, c.stuck, c.done, c.produced),
            (0, 0, p.jobs, p.jobs),
            "seed {s}: {p:?}\n{:?}",
            r.end.jobs
        );
        assert!(r.end.jobs.iter().all(|j| j.place == Place::Done));
        assert!(r.end.lists.queue.is_empty() && r.end.lists.processing.is_empty());
        assert!(c.crashes <= 1, "seed {s}: {p:?}");
        twice += u32::from(c.taken_twice > 0);
        requeued += c.requeued;
        effects_twice += c.effects_twice;
    }
    // Not vacuous: crashes left jobs behind that the recovery put back, some of them after
    // their effect (which then happened twice: at-least-once).
    assert!(
        twice > 2_000 && requeued > 2_000 && effects_twice > 300,
        "{twice} {requeued} {effects_twice}"
    );
    eprintln!("{SEEDS} runs in {:?}, {events} commands", t.elapsed());
}

#[test]
fn with_the_idempotency_key_no_effect_happens_twice() {
    let t = Instant::now();
    let (mut skipped, mut twice) = (0, 0);
    for s in 0..SEEDS {
        let mut p = random(s);
        p.idem = Switch::On;
        let r = run(&p);
        let c = r.end.counters;
        assert_eq!(
            (c.effects_twice, c.lost, c.done),
            (0, 0, p.jobs),
            "seed {s}: {p:?}\n{:?}",
            r.end.jobs
        );
        assert!(r.end.jobs.iter().all(|j| j.effects == 1), "seed {s}");
        skipped += c.skipped;
        twice += u32::from(c.taken_twice > 0);
    }
    // Second runs happened, and the key made hundreds of them harmless.
    assert!(twice > 2_000 && skipped > 300, "{twice} {skipped}");
    eprintln!("{SEEDS} runs in {:?}", t.elapsed());
}

#[test]
fn the_simple_queue_loses_the_job_in_flight() {
    // The counter-check: the same crashes with LPUSH + BRPOP lose jobs, and a lost job is
    // exactly one its worker held when it died before the effect.
    let mut lost_runs = 0;
    for s in 0..2_000 {
        let mut p = random(s);
        p.queue = Queue::Simple;
        let r = run(&p);
        let c = r.end.counters;
        assert!(
            c.lost <= 1 && c.taken_twice == 0 && c.effects_twice == 0,
            "seed {s}"
        );
        if c.lost == 1 {
            let crash = r.crash().unwrap();
            let j = crash.job.expect("the dead worker held the lost job");
            assert_eq!(r.end.jobs[j as usize - 1].place, Place::Lost, "seed {s}");
            lost_runs += 1;
        }
    }
    assert!(lost_runs > 300, "{lost_runs}");
}

#[test]
fn labsim_queues_json_equals_the_library() {
    for (args, query) in [
        (vec!["--preset", "simple-crash"], "preset=simple-crash"),
        (vec!["--preset", "twice"], "preset=twice"),
        (
            vec!["--preset", "idempotent", "--seed", "9", "--workers", "3"],
            "preset=idempotent&seed=9&workers=3",
        ),
        (
            vec![
                "--queue",
                "reliable",
                "--crash-in",
                "any",
                "--crash-at",
                "1500",
            ],
            "queue=reliable&crash_in=any&crash_at=1500",
        ),
    ] {
        let (want, text) = json_equals_library(
            &INFO,
            &args,
            query,
            |p| run(&p.read()),
            QueuesOutput::printed,
        );
        assert!(
            text.contains(&format!(
                "done {}, lost {}",
                want["counters"]["done"], want["counters"]["lost"]
            )),
            "{text}"
        );
    }
    // A bad value: a message naming the option, nothing run.
    let out = labsim(&["queues", "--workers", "9"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("workers"));
}
