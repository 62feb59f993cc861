//! The queues lab's parameters, declared once ([`crate::params!`]): the seed's list queue
//! (`BRPOP queue:emails 5`, worker w1 dying mid-job) as the defaults, the presets, the rules
//! between fields, and what a run runs ([`Setup`], shaped for live mode by
//! [`QueuesParams::for_live`]).

use super::{LIVE_BLOCK_MS, LIVE_DEADLINE_MS, LIVE_JOBS, LIVE_WORKERS, MAX_MS};
use crate::labs::lab::Broken;
use crate::labs::params::{broken, Switch};
use crate::labs::preset::Preset;
use serde::{Deserialize, Serialize};

crate::choices! {
    /// Which kind of list queue.
    pub enum Queue {
        /// `LPUSH` + `BRPOP`: the job leaves Redis when it is taken.
        Simple = "simple" / "সরল (BRPOP)",
        /// `BLMOVE` to a processing list: the job stays recorded while in flight.
        Reliable = "reliable" / "নির্ভরযোগ্য (BLMOVE)",
    }
}

crate::choices! {
    /// Which worker dies.
    pub enum Crash {
        /// Nobody.
        None = "none" / "কেউ না",
        /// Worker w1.
        W1 = "w1" / "w1",
        /// Worker w2.
        W2 = "w2" / "w2",
        /// Worker w3.
        W3 = "w3" / "w3",
        /// Worker w4.
        W4 = "w4" / "w4",
    }
}

impl Crash {
    /// The worker that dies (0-based), if any.
    pub fn worker(self) -> Option<usize> {
        Crash::ALL
            .iter()
            .position(|&c| c == self)
            .and_then(|i| i.checked_sub(1))
    }
}

crate::choices! {
    /// Where in its job a worker dies.
    pub enum CrashIn {
        /// In the middle of its work, before the effect.
        Work = "work" / "কাজের মাঝপথে",
        /// Right after the effect, before acknowledging.
        Ack = "ack" / "কাজ শেষে, ack-এর আগে",
        /// At the moment: working, or the first time it acts after it.
        Any = "any" / "ঠিক সেই মুহূর্তে",
    }
}

crate::params! {
    /// The queues lab's parameters.
    #[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
    pub struct QueuesParams {
        /// `BRPOP` or `BLMOVE` to a processing list.
        pub queue: Queue = choice(Queue::Simple, "কিউ"),
        /// A recovery pass puts stale jobs back.
        pub recovery: Switch = choice(Switch::Off, "recovery"),
        /// The idempotency key.
        pub idem: Switch = choice(Switch::Off, "idempotency key"),
        /// Jobs the producer pushes.
        pub jobs: u32 = int(6, 1..=40, "job"),
        /// Workers.
        pub workers: u32 = int(2, 1..=4, "worker"),
        /// One job's work, ms.
        pub work: u64 = int(800, 10..=10000, "এক job-এর কাজ (ms)"),
        /// The producer's gap, ms.
        pub every: u64 = int(300, 0..=10000, "producer-এর ফাঁক (ms)"),
        /// The blocking pop's timeout, s.
        pub block: u64 = int(5, 1..=30, "BRPOP/BLMOVE-এর timeout (s)"),
        /// Who dies.
        pub crash: Crash = choice(Crash::W1, "কে মরে"),
        /// Where in its job.
        pub crash_in: CrashIn = choice(CrashIn::Work, "কখন মরে"),
        /// When, ms.
        pub crash_at: u64 = int(1000, 0..=600000, "মরার সময় (ms)"),
        /// Back after, ms (0: never).
        pub restart: u64 = int(2000, 0..=60000, "ফিরে আসে (ms পরে, ০ = না)"),
        /// A job in flight longer than this is put back, ms.
        pub visibility: u64 = int(3000, 100..=600000, "কতক্ষণ পরে ফেরত (ms)"),
        /// The recovery's gap, ms.
        pub recover_every: u64 = int(1000, 100..=60000, "recovery-র ফাঁক (ms)"),
        /// Seed of the network's jitter.
        pub seed: u32 = seed(5),
    }
    rules = rules;
}

impl Default for QueuesParams {
    fn default() -> Self {
        crate::labs::params::Params::defaults(&super::INFO).read()
    }
}

/// The crash names a worker that runs; a job is not put back while it is still worked on.
fn rules(p: &QueuesParams) -> Result<(), Broken> {
    if p.crash.worker().is_some_and(|w| w >= p.workers as usize) {
        return Err(broken(
            "crash",
            "এতজন worker নেই — worker-এর সংখ্যার মধ্যে একজনকে বাছুন",
        ));
    }
    if p.visibility <= p.work + 100 {
        // The field the student changed: the visibility, unless it is still the default.
        let key = if p.visibility == QueuesParams::default().visibility {
            "work"
        } else {
            "visibility"
        };
        return Err(broken(
            key,
            "এক job-এর কাজের চেয়ে অন্তত ১০০ ms বেশি দিন — নইলে কাজ চলা অবস্থাতেই job ফেরত যায়",
        ));
    }
    Ok(())
}

/// What a run runs, in milliseconds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Setup {
    /// `BLMOVE` to a processing list (else `BRPOP`).
    pub reliable: bool,
    /// The recovery pass runs (reliable only).
    pub recovery: bool,
    /// The idempotency key.
    pub idem: bool,
    /// Jobs.
    pub jobs: u32,
    /// Workers.
    pub workers: u32,
    /// One job's work, ms.
    pub work_ms: u64,
    /// The producer's gap, ms.
    pub every_ms: u64,
    /// The blocking pop's timeout, ms.
    pub block_ms: u64,
    /// Which worker dies (0-based).
    pub crash: Option<usize>,
    /// Where.
    pub crash_in: CrashIn,
    /// When, ms.
    pub crash_at_ms: u64,
    /// Back after, ms (0: never).
    pub restart_ms: u64,
    /// A job in flight longer than this is put back, ms.
    pub visibility_ms: u64,
    /// The recovery's gap, ms.
    pub recover_every_ms: u64,
    /// The run stops here, ms.
    pub deadline_ms: u64,
    /// The seed.
    pub seed: u32,
}

impl QueuesParams {
    /// The run of these parameters.
    pub fn setup(&self) -> Setup {
        let reliable = self.queue == Queue::Reliable;
        Setup {
            reliable,
            recovery: reliable && self.recovery == Switch::On,
            idem: self.idem == Switch::On,
            jobs: self.jobs,
            workers: self.workers,
            work_ms: self.work,
            every_ms: self.every,
            block_ms: self.block * 1000,
            crash: self.crash.worker(),
            crash_in: self.crash_in,
            crash_at_ms: self.crash_at,
            restart_ms: self.restart,
            visibility_ms: self.visibility,
            recover_every_ms: self.recover_every,
            deadline_ms: MAX_MS,
            seed: self.seed,
        }
    }

    /// What a live run at time scale `k` runs: at most [`LIVE_JOBS`] jobs and
    /// [`LIVE_WORKERS`] workers, each blocking on the queue for [`LIVE_BLOCK_MS`] at a time
    /// (not 5 s: the proxy runs a session's blocking reads one at a time, and one waits at
    /// most its request timeout, 2 s, for its turn); every other time `k` times slower. It
    /// stops after [`LIVE_DEADLINE_MS`] × `k`. The simulation of the same setup is the
    /// prediction.
    pub fn for_live(&self, k: u64) -> Setup {
        let k = k.max(1);
        let s = self.setup();
        let workers = s.workers.min(LIVE_WORKERS);
        Setup {
            jobs: s.jobs.min(LIVE_JOBS),
            workers,
            crash: s.crash.filter(|&w| w < workers as usize),
            block_ms: LIVE_BLOCK_MS,
            work_ms: s.work_ms * k,
            every_ms: s.every_ms * k,
            crash_at_ms: s.crash_at_ms * k,
            restart_ms: s.restart_ms * k,
            visibility_ms: s.visibility_ms * k,
            recover_every_ms: s.recover_every_ms * k,
            deadline_ms: LIVE_DEADLINE_MS * k,
            ..s
        }
    }
}

impl Setup {
    /// The actors' names, by index: the producer, the workers, the recovery.
    pub fn name(&self, actor: usize) -> String {
        let workers = self.workers as usize;
        match actor {
            0 => "producer".into(),
            a if a <= workers => format!("w{a}"),
            a if a == workers + 1 && self.recovery => "recovery".into(),
            _ => "?".into(),
        }
    }

    /// How many actors run: the producer, the workers and (with recovery) the recovery.
    pub fn actors(&self) -> usize {
        1 + self.workers as usize + usize::from(self.recovery)
    }

    /// The blocking pop's timeout as the command writes it, in seconds (`5`, `0.2`).
    pub fn block_arg(&self) -> String {
        if self.block_ms % 1000 == 0 {
            (self.block_ms / 1000).to_string()
        } else {
            format!("{}", self.block_ms as f64 / 1000.0)
        }
    }
}

/// The presets: the list queue and its gap, the reliable queue, recovery, at-least-once and
/// the idempotency key.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "simple-crash",
        label: "BRPOP, worker মরে",
        about: "w1 একটা job তুলে কাজের মাঝপথে মরে — BRPOP ফেরার মুহূর্তেই job Redis থেকে গেছে: হারাল",
        pairs: &[],
    },
    Preset {
        id: "simple",
        label: "BRPOP, সব ঠিক",
        about: "কেউ মরে না: LPUSH বাঁয়ে ঢোকায়, BRPOP ডান থেকে তোলে — আগে এলে আগে যায়",
        pairs: &[("crash", "none")],
    },
    Preset {
        id: "reliable",
        label: "BLMOVE",
        about: "একই crash, কিন্তু job processing list-এ টুকে রাখা — হারায় না, তবে কেউ শেষও করে না: আটকে থাকে",
        pairs: &[("queue", "reliable")],
    },
    Preset {
        id: "recovery",
        label: "recovery",
        about: "recovery দেখে job ৩ সেকেন্ডের বেশি আটকে — কিউতে ফেরত পাঠায়, অন্য worker শেষ করে: কিছুই হারায় না",
        pairs: &[("queue", "reliable"), ("recovery", "on")],
    },
    Preset {
        id: "twice",
        label: "দুবার চলে",
        about: "w1 ইমেইল পাঠিয়ে LREM-এর আগেই মরে — recovery job ফেরত দেয়, ইমেইল যায় দুবার: at-least-once",
        pairs: &[
            ("queue", "reliable"),
            ("recovery", "on"),
            ("crash_in", "ack"),
        ],
    },
    Preset {
        id: "idempotent",
        label: "idempotency key",
        about: "একই crash, কিন্তু SET done:<id> 1 NX EX — দ্বিতীয়বার GET চাবিটা পায়, ইমেইল আর যায় না",
        pairs: &[
            ("queue", "reliable"),
            ("recovery", "on"),
            ("crash_in", "ack"),
            ("idem", "on"),
        ],
    },
];
