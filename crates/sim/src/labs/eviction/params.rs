//! The policy race's parameters, declared once ([`crate::params!`]): the seed's three traces
//! and five policies; the policies of the registry as a choice ([`Policy`], the LRU lab's too)
//! and the rules between fields.

use crate::eviction::trace::{Scan, Shift, TraceKind};
use crate::labs::lab::Broken;
use crate::labs::params::broken;
use crate::EvictionConfig;

crate::choices! {
    /// A policy of the eviction registry (`crate::eviction::registry`), by its word.
    pub enum Policy {
        /// First in, first out.
        Fifo = "fifo" / "FIFO",
        /// A key at random.
        Random = "random" / "RANDOM (এলোমেলো)",
        /// Least recently used.
        Lru = "lru" / "LRU",
        /// Least frequently used.
        Lfu = "lfu" / "LFU",
        /// Belady's optimum (knows the future).
        Opt = "opt" / "OPT (ভবিষ্যৎ জানে)",
        /// CLOCK (second chance).
        Clock = "clock" / "CLOCK",
        /// SIEVE.
        Sieve = "sieve" / "SIEVE",
        /// Redis' sampled LRU with its eviction pool.
        RedisLru = "redis-lru" / "Redis LRU (নমুনা + pool)",
        /// Redis' sampled LRU without the pool (2.8).
        RedisLruNopool = "redis-lru-nopool" / "Redis LRU (pool ছাড়া)",
        /// Redis' LFU.
        RedisLfu = "redis-lfu" / "Redis LFU",
        /// Segmented LRU.
        Slru = "slru" / "SLRU",
        /// 2Q.
        TwoQ = "2q" / "2Q",
        /// ARC.
        Arc = "arc" / "ARC",
        /// W-TinyLFU.
        WTinyLfu = "w-tinylfu" / "W-TinyLFU",
    }
}

crate::choices! {
    /// One of the seed's three traces (the one the race replays).
    pub enum TraceName {
        /// Zipf popularity.
        Zipf = "zipf" / "(ক) Zipf",
        /// Zipf with a scan mixed in.
        Scan = "scan" / "(খ) Zipf + scan",
        /// Popularity that shifts.
        Shift = "shift" / "(গ) জনপ্রিয়তা সরে (shift)",
    }
}

impl TraceName {
    /// The trace's kind in the engine.
    pub fn kind(self) -> TraceKind {
        match self {
            TraceName::Zipf => TraceKind::Zipf,
            TraceName::Scan => TraceKind::Scan,
            TraceName::Shift => TraceKind::Shift,
        }
    }

    /// The name of a kind.
    pub fn of(kind: TraceKind) -> Self {
        match kind {
            TraceKind::Zipf => TraceName::Zipf,
            TraceKind::Scan => TraceName::Scan,
            TraceKind::Shift => TraceName::Shift,
        }
    }
}

crate::params! {
    /// The policy race's parameters.
    #[derive(Clone, Debug, PartialEq)]
    pub struct EvictionParams {
        /// Zipf α.
        pub alpha: f64 = float(0.9, 0.0..=3.0, "Zipf α"),
        /// Cache size in keys.
        pub cache: u32 = int(300, 1..=20000, "ক্যাশ (key)"),
        /// Distinct user keys.
        pub keys: u32 = int(10000, 10..=200000, "মোট key"),
        /// User requests.
        pub requests: u32 = int(60000, 1000..=300000, "রিকোয়েস্ট"),
        /// User requests not scored at the start.
        pub warmup: u32 = int(10000, 0..=299000, "warm-up (গোনা হয় না)"),
        /// Trace seed.
        pub seed: u32 = seed(7),
        /// Seed of the policies' own randomness.
        pub policy_seed: u32 = int(99, 0..=u32::MAX, "policy-র নিজের seed"),
        /// Registry words of the raced policies, in row order.
        pub policies: Vec<String> = many("fifo,random,lru,lfu,opt", <Policy as crate::labs::def::Choice>::WORDS, "কোন কোন policy"),
        /// The trace replayed on the timeline.
        pub trace: TraceName = choice(TraceName::Zipf, "কোন trace-এ দৌড়"),
        /// The policy whose evictions are explained.
        pub focus: Policy = choice(Policy::Lru, "কার eviction দেখব"),
        /// Requests between scans.
        pub scan_period: u32 = int(5000, 1..=100000, "scan-এর পালা (রিকোয়েস্ট)"),
        /// Scan keys per request.
        pub scan_keys: u32 = int(2, 1..=8, "scan key/রিকোয়েস্ট"),
        /// Requests between popularity shifts.
        pub shift_period: u32 = int(20000, 1..=200000, "shift-এর পালা (রিকোয়েস্ট)"),
        /// Keys the popularity moves by at each shift.
        pub shift_amount: u32 = int(3000, 0..=200000, "shift (key)"),
    }
    rules = rules;
}

/// Warm-up shorter than the run; a cache smaller than the keys.
fn rules(p: &EvictionParams) -> Result<(), Broken> {
    if p.warmup >= p.requests {
        return Err(broken("warmup", "warm-up মোট রিকোয়েস্টের চেয়ে কম হতে হবে"));
    }
    if p.cache > p.keys {
        return Err(broken(
            "cache",
            "ক্যাশ মোট key-এর চেয়ে বড় হলে সব hit — key-এর চেয়ে ছোট দিন",
        ));
    }
    Ok(())
}

impl Default for EvictionParams {
    fn default() -> Self {
        crate::labs::params::Params::defaults(&super::INFO).read()
    }
}

impl EvictionParams {
    /// The policy race these parameters describe (the same run `labsim eviction` makes with
    /// the same values).
    pub fn config(&self) -> EvictionConfig {
        let mut c = EvictionConfig::default();
        c.trace.keys = self.keys;
        c.trace.alpha = self.alpha;
        c.trace.requests = self.requests;
        c.trace.seed = self.seed;
        c.trace.scan = Some(Scan {
            period: self.scan_period,
            keys_per_request: self.scan_keys,
        });
        c.trace.shift = Some(Shift {
            period: self.shift_period,
            amount: self.shift_amount,
        });
        c.cache = self.cache;
        c.warmup = u64::from(self.warmup);
        c.policy_seed = self.policy_seed;
        c.policies = self.policies.clone();
        c.traces = TraceKind::ALL.to_vec();
        c
    }

    /// The trace shown on the timeline.
    pub fn kind(&self) -> TraceKind {
        self.trace.kind()
    }
}
