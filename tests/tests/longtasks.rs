//! Main-thread long tasks (PerformanceObserver `longtask`, 50 ms or more) while labs compute,
//! with the heaviest parameters their fields allow. These tests time the browser's main
//! thread, so they run here, alone: cargo runs one test binary at a time, and the lock below
//! keeps this file's tests from running beside each other. In `labs.rs`, `broadcast.rs` and
//! `lock.rs` they shared two cores with other tests' browsers, whose work stretched the page's
//! tasks past 50 ms (measured: a 20 ms render taking 60-110 ms at load 6-8) and said nothing
//! about the labs.

use redislab_e2e::Browser;
use redislab_sim::labs::params::Params;
use redislab_sim::labs::registry::LABS;
use redislab_sim::labs::{broadcast, lock};
use std::sync::{Mutex, MutexGuard};

/// Held by each test for its whole run: one browser at a time in this file.
fn alone() -> MutexGuard<'static, ()> {
    static ALONE: Mutex<()> = Mutex::new(());
    ALONE.lock().unwrap_or_else(|e| e.into_inner())
}

/// A laptop-sized browser on the home page, watching the main thread's long tasks; the labs
/// are opened from there.
fn watching_from_home() -> Browser {
    let b = Browser::new(1366, 768);
    b.open("#/");
    b.wait(10, "home", |b| b.exists(".deck-card"));
    b.watch_long_tasks();
    b
}

/// The 1-minute load average and the number of cores (Linux; elsewhere no load).
fn machine_load() -> (f64, f64) {
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    (load, cores)
}

/// Waits until no lab on the page computes (`aria-busy` cleared everywhere).
fn wait_labs_idle(b: &Browser) {
    b.wait(120, "the labs to finish", |b| {
        b.exists(".lab") && !b.exists(".lab[aria-busy=true]")
    });
}

/// What the simulator computes natively for the broadcast lab's address query.
fn broadcast_native(query: &str) -> broadcast::BroadcastOutput {
    let (p, errs) = Params::from_query(&broadcast::INFO, query);
    assert!(errs.is_empty(), "{errs:?}");
    broadcast::run(&p.read())
}

/// What the simulator computes natively for the lock lab's address query.
fn lock_native(query: &str) -> lock::LockOutput {
    let (p, errs) = Params::from_query(&lock::INFO, query);
    assert!(errs.is_empty(), "{errs:?}");
    lock::run(&p.read())
}

/// Every lab at the largest values its fields allow, opened from a link: the work runs in the
/// simulation worker, so the main thread never runs a task of 50 ms or more (the browser's
/// `longtask` entries) from the navigation until the lab's results are complete (`aria-busy`
/// cleared).
#[test]
fn heavy_labs_never_block_the_main_thread() {
    let _alone = alone();
    // Every lab of the registry, at the parameters that make the most work its fields allow.
    let heavy: Vec<(&str, &str)> = LABS
        .iter()
        .map(|l| (l.info().id, l.heaviest()))
        .filter(|(_, q)| !q.is_empty())
        .collect();
    let b = watching_from_home();
    for (id, q) in heavy {
        let attempts = b.long_task_openings(&format!("#/lab/{id}?{q}"), 3, |b| {
            b.wait(10, &format!("{id} to start"), |b| {
                b.exists(&format!(".lab[data-lab={id}]"))
            });
            wait_labs_idle(b);
            let errors = b.text(".lab .field-error").unwrap_or_default();
            assert!(errors.is_empty(), "{id}: {errors}");
        });
        if attempts.len() == 3 {
            // Wall-clock task lengths mean nothing when the machine runs several times more
            // threads than it has cores (a 5 ms task then takes 50 ms): say so plainly rather
            // than fail on the machine's account.
            let (load, cores) = machine_load();
            assert!(
                load > 4.0 * cores,
                "{id}: long main-thread tasks: {attempts:?} (load average {load:.1} on {cores} cores)"
            );
            eprintln!(
                "NOT CHECKED: {id}: long tasks {attempts:?}, but the load average is {load:.1} on {cores} cores"
            );
        }
    }
    assert!(b.console_errors().is_empty());
}

/// The broadcast lab's heaviest preset (1,000 worker slots, everything at once) computes in
/// the worker and draws, also while scrubbed, without a main-thread task of 50 ms or more.
#[test]
fn the_heaviest_broadcast_never_blocks_the_main_thread() {
    let _alone = alone();
    let q = "preset=all-at-once";
    let b = watching_from_home();
    let attempts = b.long_task_openings(&format!("#/lab/broadcast?{q}"), 3, |b| {
        b.wait(10, "the lab", |b| b.exists(".lab-broadcast"));
        b.wait(60, "the broadcast lab to finish", |b| {
            b.exists(".lab-broadcast[aria-busy=false] [data-testid=bc-delivered]")
        });
        b.scrub_middle_and_end(".lab-broadcast");
    });
    let r = broadcast_native(q);
    // Everything at once fits FCM's real quota (6,00,000 a minute): nobody is lost; the page
    // shows the native run's deliveries.
    assert_eq!(
        b.counter("[data-testid=bc-delivered]"),
        r.counters.delivered
    );
    assert!(r.counters.delivered > 0);
    assert!(attempts.len() < 3, "long main-thread tasks: {attempts:?}");
}

/// The lock lab's largest run the fields allow (the most commands: a 300 ms TTL with a
/// heartbeat every 100 ms through 10 s of work and a 10 s pause, five jobs each) computes in
/// the worker and draws, also while scrubbed, without a main-thread task of 50 ms or more.
#[test]
fn the_largest_lock_race_never_blocks_the_main_thread() {
    let _alone = alone();
    let q = "ttl=300&work=10000&jobs=5&release=token&heartbeat=on&pause_at=0&pause=10000";
    let b = watching_from_home();
    let attempts = b.long_task_openings(&format!("#/lab/lock?{q}"), 2, |b| {
        b.wait(10, "the lab", |b| b.exists(".lab-lock"));
        b.wait(60, "the lock lab to finish", |b| {
            b.exists(".lab-lock[aria-busy=false] [data-testid=lock-two-owner]")
        });
        b.scrub_middle_and_end(".lab-lock");
    });
    let r = lock_native(q);
    let c = &r.counters;
    let shown = ["two-owner", "steals", "stale-accepted", "stale-rejected"]
        .map(|k| b.counter(&format!(".lab-lock [data-testid=lock-{k}]")));
    let want = [
        c.two_owner_moments,
        c.steals,
        c.stale_accepted,
        c.stale_rejected,
    ]
    .map(u64::from);
    assert_eq!(shown, want);
    assert!(attempts.len() < 2, "long main-thread tasks: {attempts:?}");
    eprintln!(
        "largest run: {} commands, {} trace entries",
        r.commands.len(),
        redislab_sim::labs::def::Steps::steps(&r)
    );
}
