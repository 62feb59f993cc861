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
                // What to press, or on a touch screen what to tap and swipe (the stylesheet
                // shows one by the primary pointer).
                <p class="home-lead">
                    {"প্রতিটা ডেক একটা পুরো গল্প। "}
                    <span class="for-keys">{"কিবোর্ডে ← → দিয়ে চলুন, A চাপলে অটোপ্লে, N চাপলে প্রেজেন্টারের স্ক্রিপ্ট, F চাপলে ফুলস্ক্রিন।"}</span>
                    <span class="for-touch">{"একটা ডেকে ট্যাপ করুন, তারপর স্লাইডে আঙুল বাঁয়ে টানলে পরেরটা, ডানে টানলে আগেরটা (নিচের ← → বোতামেও হয়); ✎ বোতামে প্রেজেন্টারের স্ক্রিপ্ট।"}</span>
                </p>
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
                { for crate::labs::LABS.iter().map(|lab| html! {
                    <li class="lab-card">
                        <a href={route::lab_hash(lab.id, "")}>
                            <span class="lab-card-title">{ lab.title }</span>
                            <span class="lab-card-what">{ lab.blurb }</span>
                        </a>
                    </li>
                }) }
            </ul>
            <p class="home-practice">
                <a class="button primary" href={route::practice_hash("", "")}>{"অনুশীলন"}</a>
                {" — সিমুলেটর প্রশ্ন বানায়, আপনি আগে ভেবে উত্তর দেন, তারপর ল্যাবে চালিয়ে দেখেন কেন"}
            </p>
            <p class="home-console">
                <a href={redislab_address::CONSOLE}>{"Redis কনসোল"}</a>
                {" — প্রক্সি দিয়ে চালালে (server mode) আসল Redis-এ redis-cli-র মতো কমান্ড চালান, নিজের আলাদা জায়গায়"}
            </p>
        </main>
    }
}
