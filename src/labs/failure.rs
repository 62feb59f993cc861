//! The failure lab (production slide 19): one stream of cache-aside requests run three times
//! on the same seed — Redis healthy, slow and down — through the cache connection as the seed
//! configures it (ioredis `commandTimeout: 1500`, `maxRetriesPerRequest: 1`).
//!
//! It draws the three levels side by side: each with its median and 99th-percentile request
//! latency (a bar on a 0–2 s scale), the database's queries per second, and which features
//! still work (the cache falls back to the database; BullMQ queues, streams and the Socket.IO
//! adapter need Redis itself). The level the parameters name (`redis=`, the presets) is
//! marked, and below — folded inside a slide — its latency histogram, what stops, and its
//! first commands. Everything comes from `redislab_sim::labs::failure`, run in the
//! simulation worker. No live mode (see the simulator module).

use super::kit::{
    failed_or_progress, stat_f, use_lab, use_run, use_steps, CmdLog, Controls, LabFrame, LabProps,
    Open,
};
use redislab_deck::bn;
use redislab_sim::labs::def::Steps;
use redislab_sim::labs::failure::output::{card_keys, BIN_KEYS};
use redislab_sim::labs::failure::{
    FailureLevel, FailureOutput, FailureRun, Level, BUCKETS, COMMAND_TIMEOUT_MS, INFO,
};
use yew::prelude::*;

/// The lab's view, by the name the dispatch uses.
pub use FailureLab as View;

/// The latency bar's full width, ms.
const SCALE_MS: f64 = 2_000.0;

fn n(v: u64) -> String {
    bn::grouped(i64::try_from(v).unwrap_or(i64::MAX))
}

fn ms(v: u64) -> String {
    bn::qty(v as f64, 0, bn::Unit::Ms)
}

fn title(l: Level) -> &'static str {
    match l {
        Level::Healthy => "Redis সুস্থ",
        Level::Slow => "Redis ধীর",
        Level::Down => "Redis ডাউন",
    }
}

/// How a feature fares: works, slow, falls back, stops.
#[derive(Clone, Copy, PartialEq)]
enum Fare {
    Ok,
    Slow,
    Fallback,
    Dead,
}

impl Fare {
    fn class(self) -> &'static str {
        match self {
            Fare::Ok => "ok",
            Fare::Slow => "slow",
            Fare::Fallback => "fallback",
            Fare::Dead => "dead",
        }
    }
    fn mark(self) -> &'static str {
        match self {
            Fare::Ok => "✓",
            Fare::Slow => "ধীর",
            Fare::Fallback => "↓DB",
            Fare::Dead => "✗",
        }
    }
}

/// The features, and how each fares at a level (the seed's facts).
const FEATURES: [(&str, &str); 4] = [
    ("cache", "ক্যাশ"),
    ("queue", "কিউ"),
    ("streams", "স্ট্রিম"),
    ("adapter", "Socket.IO"),
];

fn fare(level: Level, feature: usize) -> Fare {
    match (level, feature) {
        (Level::Healthy, _) => Fare::Ok,
        (Level::Slow, 0) => Fare::Fallback,
        (Level::Slow, _) => Fare::Slow,
        (Level::Down, 0) => Fare::Fallback,
        (Level::Down, _) => Fare::Dead,
    }
}

/// What stops when Redis is down, feature by feature (the full page).
fn what_stops(level: Level) -> Html {
    let rows: [(&str, &str); 4] = match level {
        Level::Healthy => [
            ("ক্যাশ", "GET-এ উত্তর, ডেটাবেস প্রায় বসে থাকে"),
            ("কিউ (BullMQ)", "জব জমা হয়, worker তুলে নেয়"),
            ("স্ট্রিম", "চ্যাট XADD হয়ে সেভ হয়"),
            ("Socket.IO adapter", "অন্য ইনস্ট্যান্সের ইউজারও মেসেজ পায়"),
        ],
        Level::Slow => [
            ("ক্যাশ", "১,৫০০ ms পরে হাল ছেড়ে loader() — উত্তর আসে, দেরিতে"),
            (
                "কিউ (BullMQ)",
                "ওদের কানেকশনে commandTimeout নেই: জব জমা হয়, তবে দেরিতে",
            ),
            ("স্ট্রিম", "সেভ হয়, দেরিতে"),
            ("Socket.IO adapter", "মেসেজ পৌঁছায়, দেরিতে"),
        ],
        Level::Down => [
            ("ক্যাশ", "প্রতিটা কল loader()-এ — সাইট চলে, ধীরে"),
            ("কিউ (BullMQ)", "জব জমা হয় না"),
            ("স্ট্রিম", "চ্যাট সেভ হয় না"),
            ("Socket.IO adapter", "অন্য ইনস্ট্যান্সে মেসেজ হারায়"),
        ],
    };
    html! {
        <ul class="fl-stops" data-testid="failure-stops">
            { for rows.iter().enumerate().map(|(i, (name, what))| {
                let f = fare(level, i);
                html! {
                    <li class={classes!("fl-stop", f.class())}>
                        <span class="fl-chip-mark">{ f.mark() }</span>
                        <b>{ *name }</b>{" — "}{ *what }
                    </li>
                }
            }) }
        </ul>
    }
}

/// One level's card: latency, database load, features.
fn card(r: &FailureLevel, focus: bool) -> Html {
    let w = |ms: u64| (ms as f64 / SCALE_MS * 100.0).clamp(0.5, 100.0);
    let timeout = COMMAND_TIMEOUT_MS as f64 / SCALE_MS * 100.0;
    let [p50, p99, qps] = card_keys(r.level);
    html! {
        <section class={classes!("fl-card", r.level.word(), focus.then_some("shown"))}
            data-testid={format!("failure-card-{}", r.level.word())}
            aria-label={title(r.level)}>
            <h3 class="fl-h">{ title(r.level) }</h3>
            <div class="fl-bar" aria-hidden="true">
                <span class="fl-fill" style={format!("width: {:.1}%", w(r.p50_ms))}></span>
                <span class="fl-p99" style={format!("left: {:.1}%", w(r.p99_ms))}></span>
                <span class="fl-timeout" style={format!("left: {timeout:.1}%")}></span>
            </div>
            <dl class="lab-stats fl-stats">
                { stat_f("failure", p50, "p50", r.p50_ms as f64, ms(r.p50_ms)) }
                { stat_f("failure", p99, "p99", r.p99_ms as f64, ms(r.p99_ms)) }
                { stat_f("failure", qps, "DB কোয়েরি/s", r.db_qps, bn::dec(r.db_qps, 1)) }
            </dl>
            <ul class="fl-chips" aria-label="ফিচার">
                { for FEATURES.iter().enumerate().map(|(i, (key, name))| {
                    let f = fare(r.level, i);
                    html! {
                        <li class={classes!("fl-chip", f.class(), *key)}>
                            { *name }{" "}<span class="fl-chip-mark">{ f.mark() }</span>
                        </li>
                    }
                }) }
            </ul>
        </section>
    }
}

/// The focused level in a sentence.
fn now_line(o: &FailureOutput) -> Html {
    let r = o.shown();
    let db = ms(o.db_ms);
    let say = match r.level {
        Level::Healthy => format!(
            "Redis সুস্থ: {}টা রিকোয়েস্টের {}টা ক্যাশে পেল (২ ms); মেয়াদ ফুরোনো {}টা key-র জন্য ডেটাবেসে গেল — সেকেন্ডে {} কোয়েরি",
            n(u64::from(r.requests)),
            n(u64::from(r.hits)),
            n(u64::from(r.misses)),
            bn::dec(r.db_qps, 1)
        ),
        Level::Slow => format!(
            "Redis ধীর: প্রতিটা GET ১,৫০০ ms-এ Command timed out, আবার পাঠানো হয় না; তারপর {db}-এর কোয়েরি — p50 {}, আর প্রতিটা রিকোয়েস্ট ডেটাবেসে (সেকেন্ডে {})",
            ms(r.p50_ms),
            bn::dec(r.db_qps, 1)
        ),
        Level::Down if r.rejected > 0 => format!(
            "Redis ডাউন, offline queue বন্ধ: GET সাথে সাথে error, শুধু {db}-এর কোয়েরি — p50 {}; সেকেন্ডে {} কোয়েরি",
            ms(r.p50_ms),
            bn::dec(r.db_qps, 1)
        ),
        Level::Down => format!(
            "Redis ডাউন: GET offline queue-তে বসে থাকে — {}টা ১,৫০০ ms-এ timed out, {}টা আগেই MaxRetriesPerRequestError-এ; p50 {}, সেকেন্ডে {} কোয়েরি",
            n(u64::from(r.timed_out)),
            n(u64::from(r.flushed)),
            ms(r.p50_ms),
            bn::dec(r.db_qps, 1)
        ),
    };
    html! { <p class="lab-now" data-testid="failure-now">{ say }</p> }
}

/// The focused level's latency histogram.
fn histogram(r: &FailureLevel) -> Html {
    let top = r.hist.iter().copied().max().unwrap_or(1).max(1) as f64;
    let label = |i: usize| -> String {
        if i == 0 {
            format!("<{}", bn::int(BUCKETS[0] as i64))
        } else if i == BUCKETS.len() {
            format!("≥{}", bn::grouped(BUCKETS[i - 1] as i64))
        } else {
            format!(
                "{}–{}",
                bn::grouped(BUCKETS[i - 1] as i64),
                bn::grouped(BUCKETS[i] as i64)
            )
        }
    };
    html! {
        <figure class="fl-hist-box" data-testid="failure-hist">
            <figcaption>{ format!("{} — রিকোয়েস্টের লেটেন্সি (ms)", title(r.level)) }</figcaption>
            <div class="fl-hist">
                { for r.hist.iter().enumerate().map(|(i, &c)| html! {
                    <div class="fl-bin">
                        <span class="fl-bin-n" data-figure={BIN_KEYS.get(i).copied()} data-n={c.to_string()}>{ n(u64::from(c)) }</span>
                        <span class="fl-bin-bar" style={format!("height: {:.1}%", f64::from(c) / top * 100.0)}></span>
                        <span class="fl-bin-k">{ label(i) }</span>
                    </div>
                }) }
            </div>
        </figure>
    }
}

/// The focused level's commands up to the timeline's cursor (`k` lines).
fn log(r: &FailureLevel, k: usize) -> Html {
    let lines: Vec<(redislab_sim::labs::log::CmdLine, Classes)> = r
        .log
        .iter()
        .take(k)
        .map(|l| {
            let who = if l.actor == "ioredis" {
                "ioredis"
            } else {
                "req"
            };
            (l.clone(), classes!("fl-cmd", who))
        })
        .collect();
    html! {
        <CmdLog {lines} lab="failure" secs={true} class={classes!("fl-log")}
            empty={Some(AttrValue::from("কোনো কমান্ড নেই"))} />
    }
}

/// The failure lab.
#[component]
pub fn FailureLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let run = use_run::<FailureRun>(&lab, true);
    // The transport steps through the focused level's commands (the log below: position k
    // shows its first k); the levels' figures are the whole run's.
    let t = use_steps(run.result(), 250, Open::End);
    let view = match run.result() {
        None => failed_or_progress(&run),
        Some(o) if o.levels.len() < 3 => Html::default(),
        Some(o) => html! {
            <>
                <Controls timeline={t.clone()} label={format!("কমান্ড {} / {}", bn::int(t.cursor.min(o.steps()) as i64), bn::int(o.steps() as i64))} />
                <div class="lab-status">{ now_line(o) }</div>
                <div class="fl-cards">
                    { for o.levels.iter().map(|r| card(r, r.level == o.focus)) }
                </div>
                <div class="fl-detail">
                    { histogram(o.shown()) }
                    { what_stops(o.focus) }
                </div>
                { log(o.shown(), t.cursor) }
            </>
        },
    };
    let lead = html! {
        <>
            {"একই রিকোয়েস্টের স্রোত তিনবার চলে — প্রতিটা রিকোয়েস্ট একটা ক্যাশ ফাংশন ডাকে ("}<code>{"GET"}</code>
            {", না পেলে ডেটাবেস, তারপর "}<code>{"SET … EX"}</code>{")। ক্যাশ কানেকশন seed-এর মতো: "}
            <code>{"commandTimeout: 1500"}</code>{", "}<code>{"maxRetriesPerRequest: 1"}</code>
            {"। ioredis (v5) যা করে ঠিক তাই: টাইমআউট হওয়া কমান্ড আবার পাঠায় না; Redis ডাউন হলে কমান্ড offline queue-তে ১,৫০০ ms পর্যন্ত বসে থাকে, অথবা প্রতি দ্বিতীয় ব্যর্থ reconnect-এ MaxRetriesPerRequestError পায়। কিউ, স্ট্রিম আর Socket.IO adapter Redis ছাড়া চলে না। লাইভ মোড নেই: ক্লাসের Redis ধীর বা বন্ধ করা যায় না।"}
        </>
    };
    html! {
        <LabFrame lab={lab.clone()} busy={run.busy()} {lead}>
            <div class="fl-main">{ view }</div>
        </LabFrame>
    }
}
