//! The live labs: one component per lab, drawing what `redislab-sim` computes in the
//! simulation worker ([`worker`]). A lab opens on the seed's parameters, keeps them in the URL
//! on its own page (`#/lab/<id>?…`) and can sit inside a slide (`:::lab <id> key=value …` in a
//! deck). [`LABS`] is the one table of labs (what the home page lists); [`views`] draws each
//! one. Their parameter fields are the simulator's (`redislab_sim::labs::params::fields`),
//! which `labsim` shares.
//!
//! The views live in the labs module (`src/bin/labs.rs`), not in the app: the app shows a
//! [`host::LabHost`] where a lab goes, which loads that module the first time and lets it draw.

pub mod broadcast;
pub mod cache;
pub mod eviction;
pub mod host;
pub mod jitter;
pub mod kit;
pub mod lock;
pub mod lru;
pub mod sampling;
pub mod stampede;
pub mod streams;
pub mod views;
pub mod widgets;
pub mod worker;

use crate::dom;
use redislab_deck::route;
use yew::prelude::*;

/// One lab: everything the app needs to know about it, in one place.
pub struct Lab {
    /// Id in addresses (`#/lab/<id>`) and deck directives (`:::lab <id>`).
    pub id: &'static str,
    /// Title, in Bengali.
    pub title: &'static str,
    /// One line on what a student sees (the home page's card).
    pub blurb: &'static str,
}

/// Every lab, in the home page's order.
pub const LABS: &[Lab] = &[
    Lab {
        id: "lru",
        title: "LRU-র ভেতরে — ধাপে ধাপে",
        blurb: "hash map আর doubly linked list — প্রতিটি get/put-এ কী বদলায়, কে বেরোয় আর কেন",
    },
    Lab {
        id: "eviction",
        title: "Eviction policy-র দৌড়",
        blurb:
            "FIFO, RANDOM, LRU, LFU, OPT আর আধুনিক policy — তিন trace-এ hit ratio, seed-এর টেবিল হুবহু",
    },
    Lab {
        id: "sampling",
        title: "নমুনা-ভিত্তিক LRU কতটা ভালো",
        blurb: "Redis-এর নমুনা-ভিত্তিক LRU: k-টি নমুনা কতটা কাছে যায়, k/(k+1)",
    },
    Lab {
        id: "jitter",
        title: "TTL jitter — একসাথে মরা ঠেকানো",
        blurb: "একসাথে লেখা key একসাথে মরে — jitter দিলে ঢেউ কতটা চ্যাপ্টা হয়",
    },
    Lab {
        id: "stampede",
        title: "Cache stampede — চার নকশা পাশাপাশি",
        blurb: "মেয়াদের মুহূর্তে ডেটাবেসে ভিড় — none, lock, stale, XFetch পাশাপাশি",
    },
    Lab {
        id: "cache",
        title: "ক্যাশ ইঞ্জিন — চার স্তর বনাম stampede",
        blurb: "ছয়টা API ইনস্ট্যান্স, খাম, FRESH/STALE/MISS, লক আর heartbeat — সব স্তর বন্ধ বনাম চালু, Redis ধীর বা ডাউন হলে কী হয়",
    },
    Lab {
        id: "lock",
        title: "লকের দৌড় — DEL, টোকেন, fencing",
        blurb: "দুই worker একই লক চায় — সাধারণ DEL অন্যের লক মোছে, টোকেন-স্ক্রিপ্ট আর fencing token তা ঠেকায়",
    },
    Lab {
        id: "streams",
        title: "Redis Streams — consumer group, XACK, XAUTOCLAIM",
        blurb: "ব্যাচে পড়া, সেভ করে XACK, poison-এর dead-letter, মরা worker-এর ব্যাচ XAUTOCLAIM-এ — আর পাশে Pub/Sub, যা কেউ না শুনলে হারায়",
    },
    Lab {
        id: "broadcast",
        title: "এক ক্লিকে ৫ লাখ ডিভাইস — কিউ, ব্যাচ, রিট্রাই",
        blurb: "API-র ভেতরে লুপ বনাম BullMQ-র মতো কিউ: cursor, ৫০০-র ব্যাচ, থ্রটল, dedup, backoff-এ রিট্রাই, মরা টোকেন, ওয়ার্কার ক্র্যাশ — কে পেল, কে দুবার, কে বাদ",
    },
];

/// The lab with this id.
pub fn find(id: &str) -> Option<&'static Lab> {
    LABS.iter().find(|l| l.id == id)
}

/// Title of a lab, in Bengali.
pub fn title(id: &str) -> &'static str {
    find(id).map_or("ল্যাব", |l| l.title)
}

/// Props of [`LabPage`].
#[derive(Properties, PartialEq)]
pub struct LabPageProps {
    /// Lab id.
    pub id: AttrValue,
    /// Parameters from the address.
    pub query: AttrValue,
}

/// A lab on its own page; its parameters follow the address, so a link reproduces the run.
#[component]
pub fn LabPage(props: &LabPageProps) -> Html {
    let id = props.id.clone();
    {
        let t = format!("{} · Redis Lab", title(&id));
        use_effect_with(t, |t| dom::document().set_title(t));
    }
    html! {
        <div class="lab-page">
            <header class="topbar">
                <a class="brand" href="#/" title="সব ডেক"><span class="brand-mark" aria-hidden="true">{"◆"}</span>{" Redis Lab"}</a>
                <span class="deck-name">{"ল্যাব · "}{ title(&id) }</span>
            </header>
            <main class="lab-main">
                <h1 class="lab-title">{ title(&id) }</h1>
                <host::LabHost id={id.clone()} query={props.query.clone()} embedded={false} />
            </main>
        </div>
    }
}

/// A link from an embedded lab to its own page with the current parameters.
pub fn open_full(id: &str, query: &str) -> Html {
    html! { <a class="lab-open" href={route::lab_hash(id, query)}>{"পুরো ল্যাব খুলুন ↗"}</a> }
}
