//! The invalidation lab's parameters, declared once ([`crate::params!`]): the action the
//! picture shows (the run does all four), the keyspace, SCAN's COUNT, the round trip, the
//! writes during the walk and the viewers the two-versions figures are scaled to; the presets
//! (one per action).

use crate::labs::params::Params;
use crate::labs::preset::Preset;

crate::choices! {
    /// A way to make cached keys unreachable after a change, in the table's order.
    pub enum Action {
        /// `DEL` of the known keys, all at once.
        Del = "del" / "জানা key — DEL",
        /// `SCAN … MATCH` + `DEL` of each page.
        ScanDel = "scan-del" / "SCAN করে DEL",
        /// `INCR` of the catalog's version.
        Version = "version" / "ভার্সন বাম্প — INCR",
        /// my-courses keys named with two versions, read by one `MGET`.
        TwoVersions = "two-versions" / "দুই ভার্সন — MGET",
    }
}

crate::params! {
    /// The invalidation lab's parameters.
    #[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    pub struct InvalidationParams {
        /// The action the picture shows.
        pub action: Action = choice(Action::Version, "কোন কৌশল"),
        /// Catalog list keys of version 41 in the keyspace.
        pub lists: u32 = int(1000, 10..=5000, "ক্যাটালগের লিস্ট key (v41)"),
        /// Other keys in the keyspace (auth, membership, live-class lists).
        pub others: u32 = int(1000, 0..=5000, "keyspace-এ অন্য key"),
        /// SCAN's COUNT.
        pub count: u32 = int(10, 10..=1000, "SCAN-এর COUNT"),
        /// Round trip between the app and Redis, ms.
        pub rtt: u64 = int(1, 1..=50, "রাউন্ড-ট্রিপ (ms)"),
        /// While the SCAN walk runs, a request fills a new list key every this many ms (0:
        /// none).
        pub write_ms: u64 = int(5, 0..=1000, "SCAN চলাকালে নতুন লিস্ট লেখা, প্রতি কত ms-এ (০ = লেখা নেই)"),
        /// Students watching (the two-versions figures are scaled to them).
        pub viewers: u64 = int(500000, 1000..=10000000, "দর্শক (স্টুডেন্ট)"),
        /// Seed of the list keys' names and remaining TTLs and the reads' times.
        pub seed: u32 = seed(0),
    }
}

impl Default for InvalidationParams {
    fn default() -> Self {
        Params::defaults(&super::INFO).read()
    }
}

/// The presets: one per action.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "del",
        label: "জানা key — DEL",
        about: "চারটা জানা key একসাথে মোছা (allSettled): একটা টাইমআউট হলেও বাকি তিনটা মোছে",
        pairs: &[("action", "del")],
    },
    Preset {
        id: "scan-del",
        label: "SCAN করে DEL",
        about: "লিস্টের key খুঁজতে গোটা keyspace ঘোরা: শত শত রাউন্ড-ট্রিপ, আর চলার সময় লেখা key বাদ পড়ে",
        pairs: &[("action", "scan-del")],
    },
    Preset {
        id: "version",
        label: "ভার্সন বাম্প — INCR",
        about: "একটা INCR, ৪১ → ৪২: সব v41 লিস্ট অনাথ, SCAN শূন্য; TTL-এ তারা নিজেরাই সরে",
        pairs: &[("action", "version")],
    },
    Preset {
        id: "two-versions",
        label: "দুই ভার্সন — sv আর cv",
        about: "এক MGET-এ sv আর cv: কেনাকাটায় বাতিল এক স্টুডেন্টের key, কোর্স এডিটে সবার",
        pairs: &[("action", "two-versions")],
    },
];
