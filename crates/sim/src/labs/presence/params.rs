//! The presence lab's parameters, declared once ([`crate::params!`]): the room (its final
//! size, buckets, leavers, the window `PFCOUNT` merges, the sorted set's limit) and the
//! spread (rooms and viewers per room); the presets and the spread's size rule.

use super::SPREAD_MAX_ADDS;
use crate::labs::lab::Broken;
use crate::labs::params::{broken, Params};
use crate::labs::preset::Preset;

crate::params! {
    /// The presence lab's parameters.
    #[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    pub struct PresenceParams {
        /// The room's size at the last bucket.
        pub size: u32 = int(2000, 1..=500000, "রুমের শেষ আকার (জন)"),
        /// Buckets simulated; the room grows evenly to `size` over them.
        pub rounds: u32 = int(6, 1..=10, "কত bucket (প্রতিটা ৩০ s)"),
        /// Percent of the active viewers who leave at each bucket's start.
        pub leave: u32 = int(10, 0..=90, "প্রতি bucket-এ চলে যায় (%)"),
        /// Buckets `PFCOUNT` merges (the window is `window × 30 s`).
        pub window: u32 = int(3, 1..=6, "PFCOUNT-এ কয়টা bucket"),
        /// The sorted set's limit (the script's `ARGV[3]`).
        pub limit: u32 = int(500, 1..=1000, "ZSET-এর সীমা (জন)"),
        /// Viewers per room in the spread run.
        pub sample: u32 = int(20000, 100..=100000, "স্প্রেড: প্রতি রুমে (জন)"),
        /// Rooms (seeds) in the spread run.
        pub seeds: u32 = int(100, 10..=1000, "স্প্রেড: কয়টা রুম (seed)"),
        /// Seed of joins, leaves and viewer names.
        pub seed: u32 = seed(1),
    }
    rules = rules;
}

/// The spread run's adds within [`SPREAD_MAX_ADDS`].
fn rules(p: &PresenceParams) -> Result<(), Broken> {
    if i64::from(p.sample) * i64::from(p.seeds) > SPREAD_MAX_ADDS {
        return Err(broken(
            "seeds",
            "স্প্রেড: রুম × জন বড়জোর ২,০০,০০,০০০ — seed বা প্রতি রুমের জন কমান",
        ));
    }
    Ok(())
}

impl Default for PresenceParams {
    fn default() -> Self {
        Params::defaults(&super::INFO).read()
    }
}

/// The presets.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "small-room",
        label: "ছোট রুম",
        about: "৫০০-র কম: ZSET-এ সবাই আছে, ZCARD নিখুঁত; HyperLogLog তখনো sparse, কয়েকশো বাইট",
        pairs: &[("size", "400"), ("leave", "5")],
    },
    Preset {
        id: "big-room",
        label: "বড় রুম",
        about: "৫ লাখ পর্যন্ত: ZSET ৫০০-তে থেমে থাকে, HyperLogLog dense ১২,৩০৪ বাইটে; সবাইকে ZSET-এ রাখলে কত লাগত",
        pairs: &[("size", "500000"), ("rounds", "3")],
    },
    Preset {
        id: "buckets",
        label: "bucket মেলানো",
        about: "অনেকে চলে যায়: শুধু এই bucket-এর PFCOUNT বনাম তিন bucket একসাথে — শেষ ৯০ সেকেন্ডে সক্রিয়",
        pairs: &[("size", "20000"), ("leave", "40"), ("window", "3")],
    },
    Preset {
        id: "spread",
        label: "ভুলের ছড়ানো",
        about: "১,০০০টা রুম, প্রতিটায় ২০,০০০ জন: ভুলের standard deviation ০.৮১%-এর কাছে, কিছু রুম তার বাইরে",
        pairs: &[("seeds", "1000"), ("sample", "20000")],
    },
];
