//! The round-trips lab's parameters, declared once ([`crate::params!`]): the way the picture
//! shows, the round trip, the clients racing for the room's last place and the room's key;
//! the presets (one per way, and the error that shows there is no rollback).

use crate::labs::params::Params;
use crate::labs::preset::Preset;

crate::choices! {
    /// A way to send presence's four commands (the picture shows one; the run does all five).
    pub enum Way {
        /// Each command waits for the one before.
        OneByOne = "one-by-one" / "একটা একটা করে",
        /// The four in one pipeline.
        Pipeline = "pipeline" / "pipeline",
        /// `MULTI`, the four, `EXEC`, pipelined.
        Multi = "multi" / "MULTI/EXEC",
        /// `WATCH` + `ZCARD`, then `MULTI … EXEC`; again when `EXEC` is nil.
        Watch = "watch" / "WATCH + MULTI",
        /// `EVALSHA markactive`.
        Script = "script" / "Lua স্ক্রিপ্ট",
    }
}

crate::choices! {
    /// What the room's key holds before the clients come.
    pub enum RoomType {
        /// The room's sorted set.
        Zset = "zset" / "sorted set (ঠিক)",
        /// A string (a bug elsewhere): `ZCARD` fails.
        String = "string" / "string (ভুল টাইপ)",
    }
}

crate::params! {
    /// The round-trips lab's parameters.
    #[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    pub struct RoundTripsParams {
        /// The way the picture shows.
        pub mode: Way = choice(Way::OneByOne, "কোন পথে"),
        /// Round trip between a client and Redis, ms.
        pub rtt: u64 = int(10, 1..=500, "রাউন্ড-ট্রিপ (ms)"),
        /// Clients marking a new viewer each.
        pub clients: u32 = int(2, 1..=8, "একসাথে কতজন ক্লায়েন্ট"),
        /// The clients start at seeded times in `0..=spread` ms.
        pub spread: u64 = int(5, 0..=2000, "শুরুর ফারাক, সর্বোচ্চ (ms)"),
        /// Members in the room before.
        pub room: u32 = int(499, 0..=1000, "রুমে আগে থেকে (জন)"),
        /// The sorted set's limit (the script's `ARGV[3]`).
        pub limit: u32 = int(500, 1..=1000, "ZSET-এর সীমা"),
        /// What the room's key holds.
        pub room_type: RoomType = choice(RoomType::Zset, "রুমের key-এর টাইপ"),
        /// Seed of the clients' start times.
        pub seed: u32 = seed(0),
    }
}

impl Default for RoundTripsParams {
    fn default() -> Self {
        Params::defaults(&super::INFO).read()
    }
}

impl RoundTripsParams {
    /// The room's key holds the wrong type.
    pub fn broken_room(&self) -> bool {
        self.room_type == RoomType::String
    }
}

/// The presets: one per way, and the error that shows there is no rollback.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "one-by-one",
        label: "একটা একটা করে",
        about: "চার কমান্ড, চার রাউন্ড-ট্রিপ; যাচাই ক্লায়েন্টে, তাই ফাঁকে অন্যজনের ZADD ঢুকে রুম সীমা ছাড়ায়",
        pairs: &[("mode", "one-by-one")],
    },
    Preset {
        id: "pipeline",
        label: "pipeline",
        about: "এক রাউন্ড-ট্রিপ, কিন্তু ZCARD-এর উত্তর আসার আগেই ZADD চলে গেছে — যাচাই কিছুই থামায় না",
        pairs: &[("mode", "pipeline")],
    },
    Preset {
        id: "multi",
        label: "MULTI/EXEC",
        about: "এক রাউন্ড-ট্রিপ, মাঝে কেউ ঢোকে না; তবু ZCARD-এর উত্তর আসে EXEC-এর সাথে, লেখা শর্তহীন",
        pairs: &[("mode", "multi")],
    },
    Preset {
        id: "watch",
        label: "WATCH + MULTI",
        about: "আগে WATCH আর ZCARD, তারপর MULTI…EXEC; কেউ রুম ছুঁলে EXEC nil, ক্লায়েন্ট আবার চেষ্টা করে",
        pairs: &[("mode", "watch")],
    },
    Preset {
        id: "script",
        label: "Lua স্ক্রিপ্ট",
        about: "এক রাউন্ড-ট্রিপ, যাচাই আর লেখা Redis-এর ভেতরে এক টানে — রুম ঠিক সীমায় থামে",
        pairs: &[("mode", "script")],
    },
    Preset {
        id: "no-rollback",
        label: "মাঝপথে এরর",
        about: "রুমের key-এ ভুল টাইপ: ZCARD এরর দেয়, কিন্তু আগের PFADD থেকে যায় — স্ক্রিপ্টেও rollback নেই",
        pairs: &[("mode", "script"), ("room_type", "string")],
    },
];
