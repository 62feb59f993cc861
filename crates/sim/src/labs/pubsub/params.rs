//! The Pub/Sub lab's parameters, declared once ([`crate::params!`]): the app's setup as the
//! defaults (six PM2 instances, the sharded adapter in its default mode), the presets (the
//! slide's steps) and the three adapters.

use crate::labs::params::Params;
use crate::labs::preset::Preset;

crate::choices! {
    /// Socket.IO's Redis adapter (`@socket.io/redis-adapter` 8), in the comparison's order.
    pub enum Adapter {
        /// `createAdapter`: a pattern, every instance gets everything.
        Plain = "plain" / "সাধারণ (PSUBSCRIBE)",
        /// Sharded, one shard channel for the namespace.
        Static = "static" / "sharded, এক চ্যানেল",
        /// Sharded, one shard channel per room.
        Dynamic = "dynamic" / "sharded, রুমপ্রতি চ্যানেল",
    }
}

crate::params! {
    /// The Pub/Sub lab's parameters.
    #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    pub struct PubSubParams {
        /// The adapter the picture shows (the run compares all three).
        pub adapter: Adapter = choice(Adapter::Dynamic, "adapter"),
        /// API instances.
        pub instances: u32 = int(6, 1..=16, "ইনস্ট্যান্স (PM2)"),
        /// Rooms.
        pub rooms: u32 = int(200, 1..=2000, "রুম"),
        /// Users.
        pub users: u32 = int(1200, 1..=20000, "ইউজার"),
        /// Zipf exponent of the rooms' popularity (0: even).
        pub alpha: f64 = float(1.0, 0..=2, "রুমের জনপ্রিয়তা (Zipf α, ০ = সমান)"),
        /// Messages per second, all rooms together.
        pub rate: u32 = int(100, 1..=500, "মেসেজ / সেকেন্ড"),
        /// How long messages are sent, s.
        pub seconds: u32 = int(10, 1..=30, "মেসেজ চলে (সেকেন্ড)"),
        /// When api-1's subscriber connection drops, ms after the messages start.
        pub away_at: u64 = int(3000, 0..=60000, "api-1 সরে যায় (ms, মেসেজ শুরুর পরে)"),
        /// How long it is gone, ms (0: never).
        pub away: u64 = int(0, 0..=60000, "api-1 কতক্ষণ নেই (ms, ০ = নেই)"),
        /// Seed of the users' rooms and instances and the messages' senders.
        pub seed: u32 = seed(13),
    }
}

impl Default for PubSubParams {
    fn default() -> Self {
        Params::defaults(&super::INFO).read()
    }
}

impl PubSubParams {
    /// The same setup with another adapter.
    pub fn with_adapter(&self, adapter: Adapter) -> Self {
        PubSubParams {
            adapter,
            ..self.clone()
        }
    }
}

/// The slide's steps.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "plain",
        label: "সাধারণ adapter",
        about: "প্রতিটা মেসেজ ছয়টা ইনস্ট্যান্সই পায় — যার রুমে কেউ নেই সেও পায়, পেয়ে ফেলে দেয়",
        pairs: &[("adapter", "plain")],
    },
    Preset {
        id: "sharded",
        label: "sharded adapter (রুমপ্রতি চ্যানেল)",
        about: "রুমপ্রতি আলাদা চ্যানেল: মেসেজ পায় কেবল সেই ইনস্ট্যান্সগুলো, যাদের কাছে রুমের কেউ আছে",
        pairs: &[("adapter", "dynamic")],
    },
    Preset {
        id: "static",
        label: "SSUBSCRIBE, কিন্তু এক চ্যানেল",
        about: "sharded adapter-এর static মোড: SSUBSCRIBE-ই, তবু সবাই সব পায় — এক Redis-এ সাশ্রয়টা আসে রুমপ্রতি চ্যানেল থেকে",
        pairs: &[("adapter", "static")],
    },
    Preset {
        id: "small-rooms",
        label: "ছোট ছোট রুম",
        about: "৪০০টা রুমে গড়ে ৩ জন — বেশির ভাগ রুম দু-একটা ইনস্ট্যান্সে, রুমপ্রতি চ্যানেলে বাঁচে সবচেয়ে বেশি",
        pairs: &[("adapter", "dynamic"), ("rooms", "400"), ("alpha", "0")],
    },
    Preset {
        id: "one-class",
        label: "একটাই বড় ক্লাস",
        about: "সবাই এক রুমে — সব ইনস্ট্যান্সেই সদস্য আছে, রুমপ্রতি চ্যানেলে কিছুই বাঁচে না",
        pairs: &[("adapter", "dynamic"), ("rooms", "1")],
    },
    Preset {
        id: "away",
        label: "api-1 দুই সেকেন্ড নেই",
        about: "api-1-এর subscriber সংযোগ ২ সেকেন্ড ছিন্ন — সেই সময়ের মেসেজ তার ইউজাররা কখনো পায় না: Pub/Sub কিছুই রাখে না",
        pairs: &[("adapter", "dynamic"), ("away", "2000")],
    },
];
