//! Hand-worked runs of the queue: retries with backoff, the failed set, a crash and the
//! stalled check.

use super::*;
use crate::world::{Hop, World};

/// Jobs `j1..=jN` added at 0 ms; job `i` fails its first `fails[i]` runs; each run works
/// `work_ms`.
struct Toy {
    fails: Vec<u32>,
    work_ms: u64,
    runs: Vec<(String, u32, u64)>,
    ends: Vec<(String, Outcome, u64)>,
    stalls: Vec<(String, bool, u64)>,
    added: bool,
}

impl Toy {
    fn idx(id: &str) -> usize {
        id[1..].parse::<usize>().unwrap() - 1
    }
    fn terminal(&self) -> usize {
        self.ends
            .iter()
            .filter(|(_, o, _)| matches!(o, Outcome::Completed | Outcome::Failed { .. }))
            .count()
            + self.stalls.iter().filter(|s| s.1).count()
    }
}

impl Processor for Toy {
    fn step(&mut self, run: &mut Running, _reply: Option<&Reply>, _now: u64) -> Step {
        run.stage += 1;
        if run.stage == 1 {
            return Step::Work {
                ms: self.work_ms,
                what: "work".into(),
            };
        }
        if run.attempt <= self.fails[Self::idx(&run.id)] {
            Step::Finish(Err("boom".into()))
        } else {
            Step::Finish(Ok(()))
        }
    }
    fn started(&mut self, run: &Running, now: u64) {
        self.runs.push((run.id.clone(), run.attempt, now));
    }
    fn ended(&mut self, run: &Running, o: &Outcome, now: u64) {
        self.ends.push((run.id.clone(), o.clone(), now));
    }
    fn stalled(&mut self, id: &str, to_failed: bool, now: u64) {
        self.stalls.push((id.into(), to_failed, now));
    }
    fn finished(&self) -> bool {
        self.added && self.terminal() == self.fails.len()
    }
}

fn world(
    fails: Vec<u32>,
    work_ms: u64,
    cfg: QueueConfig,
    life: Life,
) -> (World<crate::SimRedis>, Rc<RefCell<Toy>>) {
    let keys = Keys::new("t");
    let mut w = World::with_sim(1);
    let toy = Rc::new(RefCell::new(Toy {
        fails: fails.clone(),
        work_ms,
        runs: vec![],
        ends: vec![],
        stalls: vec![],
        added: false,
    }));
    // Add the jobs straight into SimRedis (the producer is not what is tested here).
    let life = Rc::new(RefCell::new(life));
    w.add(
        Box::new(Slot::new(
            "w".into(),
            0,
            keys.clone(),
            cfg.clone(),
            life.clone(),
            toy.clone(),
            1000,
        )),
        Hop::symmetric(1),
        1,
    );
    w.add(
        Box::new(StalledCheck::new(
            "check".into(),
            keys.clone(),
            cfg,
            life,
            toy.clone(),
        )),
        Hop::symmetric(1),
        1,
    );
    (w, toy)
}

fn add_jobs(w: &mut World<crate::SimRedis>, n: usize) {
    let keys = Keys::new("t");
    // A producer actor: one add script per job.
    struct Producer {
        keys: Keys,
        n: usize,
        out: VecDeque<Command>,
    }
    impl Actor for Producer {
        fn name(&self) -> String {
            "api".into()
        }
        fn act(&mut self, _: &Input, _: &mut Ctx<'_>) -> Action {
            if self.out.is_empty() && self.n > 0 {
                let id = format!("j{}", self.n);
                self.out.push_back(self.keys.add(&id, "toy", "{}"));
                self.n -= 1;
            }
            match self.out.pop_front() {
                Some(c) => Action::Send { cmd: c },
                None => Action::Done,
            }
        }
    }
    w.add(
        Box::new(Producer {
            keys,
            n,
            out: VecDeque::new(),
        }),
        Hop::symmetric(1),
        0,
    );
}

#[test]
fn backoff_doubles() {
    assert_eq!(
        (1..=4).map(|m| backoff_ms(10_000, m)).collect::<Vec<_>>(),
        [10_000, 20_000, 40_000, 80_000]
    );
}

#[test]
fn a_failing_job_waits_10_then_20_seconds_and_then_succeeds() {
    // Attempts 3: run 1 fails, wait 10 s; run 2 fails, wait 20 s; run 3 succeeds.
    let (mut w, toy) = world(vec![2], 100, QueueConfig::default(), Life::default());
    add_jobs(&mut w, 1);
    toy.borrow_mut().added = true;
    w.run(100_000);
    let t = toy.borrow();
    let starts: Vec<(u32, u64)> = t.runs.iter().map(|r| (r.1, r.2)).collect();
    assert_eq!(starts.len(), 3, "{starts:?}");
    let fail1 = t.ends[0].2;
    let fail2 = t.ends[1].2;
    // The due time is set when the failure is recorded, a few ms before the move ends.
    let due = |i: usize| match t.ends[i].1 {
        Outcome::Retry { due_ms, .. } => due_ms,
        ref o => panic!("{o:?}"),
    };
    assert!(
        (fail1 + 10_000 - 10..=fail1 + 10_000).contains(&due(0)),
        "{:?}",
        t.ends
    );
    assert!(
        (fail2 + 20_000 - 10..=fail2 + 20_000).contains(&due(1)),
        "{:?}",
        t.ends
    );
    assert_eq!(t.ends[2].1, Outcome::Completed);
    // Each retry starts after its due time, within the blocking timeout (1 s).
    assert!(
        starts[1].1 >= fail1 + 10_000 && starts[1].1 <= fail1 + 11_100,
        "{starts:?}"
    );
    assert!(
        starts[2].1 >= fail2 + 20_000 && starts[2].1 <= fail2 + 21_100,
        "{starts:?}"
    );
    let trace = w.trace_text();
    assert!(trace.contains("ZADD bull:t:delayed"), "{trace}");
    assert!(trace.contains("ZADD bull:t:completed"));
}

#[test]
fn after_the_last_attempt_the_job_is_in_the_failed_set() {
    let (mut w, toy) = world(vec![5], 100, QueueConfig::default(), Life::default());
    add_jobs(&mut w, 1);
    toy.borrow_mut().added = true;
    w.run(100_000);
    let t = toy.borrow();
    assert_eq!(t.runs.len(), 3);
    assert_eq!(
        t.ends[2].1,
        Outcome::Failed {
            reason: "boom".into()
        }
    );
    let trace = w.trace_text();
    assert!(trace.contains("ZADD bull:t:failed"), "{trace}");
    assert!(trace.contains("HSET bull:t:j1 failedReason boom"));
}

#[test]
fn a_crash_mid_job_is_taken_back_by_the_stalled_check_and_run_again() {
    // The job works 5 s; the process crashes at 1 s and is back at 3 s. Its lock (30 s) still
    // holds until ≈30 s; the check at ≈33 s has seen it active before and finds no lock: back
    // to wait, and it runs again to completion.
    let life = Life {
        down: vec![(1_000, 3_000)],
    };
    let (mut w, toy) = world(vec![0], 5_000, QueueConfig::default(), life);
    add_jobs(&mut w, 1);
    toy.borrow_mut().added = true;
    w.run(100_000);
    let t = toy.borrow();
    assert_eq!(t.ends[0].1, Outcome::Crashed);
    assert_eq!(t.stalls.len(), 1, "{:?}", t.stalls);
    assert!(!t.stalls[0].1);
    assert!(
        t.stalls[0].2 > 30_000 && t.stalls[0].2 < 70_000,
        "{:?}",
        t.stalls
    );
    assert_eq!(t.runs.len(), 2);
    assert_eq!(t.ends.last().unwrap().1, Outcome::Completed);
    let trace = w.trace_text();
    assert!(trace.contains("RPUSH bull:t:wait j1"), "{trace}");
}
