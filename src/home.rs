//! The home page: every deck, with its title, slide count and a preview of its first slide.

use crate::catalog::DECK_INDEX;
use crate::deck::slide::SlideView;
use crate::dom;
use redislab_deck::{bn, route};
use yew::prelude::*;

/// The home page (`#/`).
#[component]
pub fn Home() -> Html {
    use_effect_with((), |_| {
        dom::document().set_title("Redis Lab — প্রোডাকশনে Redis শেখার ল্যাব")
    });
    html! {
        <main class="home" role="main">
            <header class="home-head">
                <p class="brand"><span class="brand-mark" aria-hidden="true">{"◆"}</span>{" Redis Lab"}</p>
                <h1>{"প্রোডাকশনে Redis — দেখে, চালিয়ে, ভেঙে শেখা"}</h1>
                <p class="home-lead">{"প্রতিটা ডেক একটা পুরো গল্প। কিবোর্ডে ← → দিয়ে চলুন, A চাপলে অটোপ্লে, N চাপলে প্রেজেন্টারের স্ক্রিপ্ট, F চাপলে ফুলস্ক্রিন।"}</p>
            </header>
            <ul class="deck-list">
                { for DECK_INDEX.iter().map(|d| {
                    let href = route::slide_hash(&d.id, 0);
                    html! {
                        <li class="deck-card">
                            <a href={href}>
                                <div class="thumb" aria-hidden="true">
                                    <SlideView slide={&d.cover} />
                                </div>
                                <div class="deck-meta">
                                    <h2>{ d.title.as_ref() }</h2>
                                    <p class="deck-sub">{ d.subtitle.as_ref() }</p>
                                    <p class="deck-count">{ format!("{}টি স্লাইড", bn::digits(d.steps.len(), 1)) }</p>
                                </div>
                            </a>
                            <p class="deck-links">
                                <a href={route::print_hash(&d.id, false)}>{"হ্যান্ডআউট — প্রিন্ট বা PDF"}</a>
                                {" · "}
                                <a href={route::print_hash(&d.id, true)}>{"স্ক্রিপ্টসহ"}</a>
                            </p>
                        </li>
                    }
                }) }
            </ul>
            <h2 class="home-sub">{"ল্যাব — নিজে চালিয়ে দেখুন"}</h2>
            <ul class="lab-list">
                { for LABS.iter().map(|(id, what)| html! {
                    <li class="lab-card">
                        <a href={route::lab_hash(id, "")}>
                            <span class="lab-card-title">{ crate::labs::title(id) }</span>
                            <span class="lab-card-what">{ *what }</span>
                        </a>
                    </li>
                }) }
            </ul>
        </main>
    }
}

/// The labs, with one line each on what a student sees.
const LABS: &[(&str, &str)] = &[
    (
        "lru",
        "hash map আর doubly linked list — প্রতিটি get/put-এ কী বদলায়, কে বেরোয় আর কেন",
    ),
    (
        "eviction",
        "FIFO, RANDOM, LRU, LFU, OPT আর আধুনিক policy — তিন trace-এ hit ratio, seed-এর টেবিল হুবহু",
    ),
    (
        "sampling",
        "Redis-এর নমুনা-ভিত্তিক LRU: k-টি নমুনা কতটা কাছে যায়, k/(k+1)",
    ),
    (
        "jitter",
        "একসাথে লেখা key একসাথে মরে — jitter দিলে ঢেউ কতটা চ্যাপ্টা হয়",
    ),
    (
        "stampede",
        "মেয়াদের মুহূর্তে ডেটাবেসে ভিড় — none, lock, stale, XFetch পাশাপাশি",
    ),
];
