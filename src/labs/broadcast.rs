//! The broadcast lab (seed 004, steps 1–17): one notification to 5,00,000 devices — the loop
//! inside the request against a BullMQ-style queue in SimRedis with cursor paging, 500-token
//! batches, a throttle, dedup, retries with backoff, dead tokens and a worker crash.
//!
//! It draws, at the timeline's moment: sent / total and the time gone; what the API answered;
//! a cell per batch coloured by its state (waiting, sent, waiting to retry, in the failed set);
//! the retries and incidents with when each batch runs next; the counters (delivered, sent
//! twice, lost, dead); the page cost of offset against cursor paging; and the Redis command
//! log. Everything comes from `redislab_sim::labs::broadcast`, run in the simulation worker.
//!
//! Live mode (its own page, the queue only: the naive loop never speaks Redis): the "আসল
//! Redis" switch runs the same API and worker slots against a real Redis through the proxy
//! (in the worker, [`crate::live::use_live`]) with the counts scaled down, as the lab says
//! (`BroadcastParams::for_live`): the dedup `SET … NX EX`, the `addjob` named script,
//! `BLMOVE`, the token locks, the limiter, the delayed and failed sets. FCM and Postgres stay
//! the simulation's timers, in real time. The page then draws the real run: the log shows
//! Redis' replies with their round trips, and a table sets the simulation of the same
//! scaled-down run beside the real counts.

mod compact;
mod live;
mod parts;

use super::kit::{
    failed_or_progress, live_panel, open_full, stat, use_lab, use_sim_live, use_steps, CmdLog,
    Controls, LabFrame, LabProps, Open,
};
use parts::{grid, incidents, page_chart, sent_chart};
use redislab_deck::bn;
use redislab_sim::labs::broadcast::{BroadcastOutput, BroadcastParams, BroadcastRun, Mode, INFO};
use redislab_sim::labs::def::Steps;
use redislab_sim::labs::log::CmdLine;
use yew::prelude::*;

/// The lab's view, by the name the dispatch uses.
pub use BroadcastLab as View;

/// Milliseconds per timeline tick.
const TICK_MS: u32 = 120;
/// Commands shown in the log (the newest up to the cursor).
const LOG: usize = 12;
/// Incidents listed (the newest up to the cursor).
const INCIDENTS: usize = 8;

fn g(n: u64) -> String {
    bn::grouped(i64::try_from(n).unwrap_or(i64::MAX))
}

/// A moment of the run, in seconds with a tenth (`৪১.৫ s`).
fn secs(ms: u64) -> String {
    bn::qty(ms as f64 / 1000.0, 1, bn::Unit::S)
}

fn log(r: &BroadcastOutput, t: u64, live: bool) -> Html {
    let upto = r.log().partition_point(|c| c.at_ms <= t);
    let from = upto.saturating_sub(LOG);
    let lines: Vec<(CmdLine, Classes)> = r.log()[from..upto]
        .iter()
        .map(|c| (c.clone(), Classes::new()))
        .collect();
    let empty = if r.params.mode == Mode::Naive {
        "লুপটা Redis-এ কিছুই লেখে না — কে পেল, তার কোনো রেকর্ড নেই"
    } else {
        "এখনো কোনো কমান্ড নয়"
    };
    html! { <CmdLog {lines} lab="bc" {live} secs=true class={classes!("bc-log")} empty={AttrValue::from(empty)} /> }
}

/// The line about the API's answer.
fn answer(r: &BroadcastOutput) -> Html {
    if r.params.mode == Mode::Naive {
        return html! {
            <p class="bc-answer bad" data-testid="bc-answer">
                { format!("অ্যাডমিনের রিকোয়েস্ট {} ধরে খোলা — প্রক্সি কাটে {}-এ (504); পুরো লুপে লাগত {}", bn::duration(r.naive.total_ms), bn::duration(r.params.proxy_timeout * 1000), bn::duration(r.naive.total_ms)) }
            </p>
        };
    }
    let first = r.responses.first();
    html! {
        <p class="bc-answer" data-testid="bc-answer">
            { first.map(|a| format!("API উত্তর দিল {}-এ — জব কিউতে, পাঠাবে ওয়ার্কার", bn::duration(a.ms))).unwrap_or_default() }
            { format!(" · লুপ হলে: প্রক্সি কাটত {}-এ, পুরো কাজ {}", bn::duration(r.params.proxy_timeout * 1000), bn::duration(r.naive.total_ms)) }
        </p>
    }
}

/// Why the seed's 3,214 and 10 min 42 s agree.
fn naive_note(r: &BroadcastOutput) -> Html {
    let p = &r.params;
    html! {
        <p class="bc-note" data-testid="bc-naive-note">
            { format!(
                "{} ÷ {} = {} কল; ঘড়ি যদি শুধু পুরো সেকেন্ড দেখায় ({}), হিসাব দাঁড়ায় {} — বাকি {}টা কল পরের ভগ্নাংশ সেকেন্ডে। তাই মূল লেখার ৩,২১৪ আর {} পরস্পরবিরোধী নয়। আর {}-এর টাইমআউট কেবল অ্যাডমিনের কানেকশন কাটে; লুপটা চলতেই থাকে।",
                bn::duration(p.dies_at),
                bn::duration(p.call_ms),
                g(r.naive.at_death),
                bn::qty((p.dies_at / 1000) as f64, 0, bn::Unit::S),
                g(r.naive.whole_seconds),
                g(r.naive.at_death.saturating_sub(r.naive.whole_seconds)),
                bn::duration(p.dies_at / 1000 * 1000),
                bn::duration(p.proxy_timeout * 1000),
            ) }
        </p>
    }
}

/// The broadcast lab.
#[component]
pub fn BroadcastLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let typed: BroadcastParams = lab.params().read();
    let embedded = props.embedded;
    // The naive loop never speaks Redis: nothing to run live. The queue runs live scaled
    // down; the simulation of the same scaled-down run is its prediction.
    let queue = typed.queued();
    let sl = use_sim_live::<BroadcastRun>(&lab, queue, true);
    let busy = sl.busy();
    let predicted = sl.predicted();
    let real = sl.real();
    let result = sl.shown();
    let frames = result.map_or(1, Steps::positions);
    // A new result opens on the whole run; the naive loop's on the moment its process dies
    // (the seed's 3,214), with the rerun still to play.
    let open_at = result.and_then(|r| {
        (r.params.mode == Mode::Naive)
            .then(|| r.frames.iter().position(|f| f.at_ms >= r.params.dies_at))
            .flatten()
    });
    let t = use_steps(result, TICK_MS, open_at.map_or(Open::End, Open::At));
    // The fields a slide's query names (a preset's included): what the compact view is about.
    let named: Vec<String> = if embedded {
        let preset = redislab_address::value(&lab.query, "preset")
            .and_then(|id| INFO.presets.iter().find(|p| p.id == id));
        preset
            .into_iter()
            .flat_map(|p| p.pairs.iter().map(|(k, _)| k.to_string()))
            .chain(
                redislab_address::pairs(&lab.query)
                    .map(|(k, _)| k)
                    .filter(|k| !k.is_empty() && *k != "preset")
                    .map(str::to_string),
            )
            .collect()
    } else {
        Vec::new()
    };
    // Until the timeline has taken the new result's length, draw the position it opens on
    // (not the start): the result is drawn once, not at the start and again a moment later.
    let cursor = if t.frames == frames {
        t.cursor
    } else {
        open_at.unwrap_or(frames.saturating_sub(1))
    };
    let view = match result {
        None => failed_or_progress(&sl.sim),
        Some(r) if embedded => {
            let i = cursor.min(r.frames.len().saturating_sub(1));
            let now = r.frames.get(i).map_or(0, |f| f.at_ms);
            let label = format!("{} / {}", bn::duration(now), bn::duration(r.end_ms));
            html! {
                <>
                    <Controls timeline={t.clone()} label={label} />
                    { compact::compact(r, i, &named, open_full(&lab)) }
                </>
            }
        }
        Some(r) => {
            let i = cursor.min(r.frames.len().saturating_sub(1));
            let f = r.frames.get(i).copied().unwrap_or_default();
            let now = f.at_ms;
            let total = u64::from(r.params.tokens);
            let sent_pct = (f.delivered as f64 / total.max(1) as f64 * 100.0).clamp(0.0, 100.0);
            let label = format!("{} / {}", bn::duration(now), bn::duration(r.end_ms));
            let c = &r.counters;
            let at_end = i + 1 >= r.frames.len();
            // The counters at the cursor: the frame's, and the totals at the end.
            let lost = if at_end { c.lost } else { 0 };
            html! {
                <>
                    <Controls timeline={t.clone()} label={label} />
                    <div class="bc-progress" role="group" aria-label="পাঠানোর অগ্রগতি">
                        <div class="bc-big">
                            <span class="bc-big-label">{"পাঠানো হয়েছে"}</span>
                            <span class="bc-big-n" data-testid="bc-sent" data-n={f.delivered.to_string()}>{ format!("{} / {}", g(f.delivered), g(total)) }</span>
                        </div>
                        <div class="bc-big">
                            <span class="bc-big-label">{"সময় গেছে"}</span>
                            <span class="bc-big-n" data-testid="bc-time" data-ms={now.to_string()}>{ bn::duration(now) }</span>
                        </div>
                        <div class="bc-bar" aria-hidden="true"><div class="bc-bar-fill" style={format!("width: {sent_pct:.2}%")}></div></div>
                        { sent_chart(r, now) }
                    </div>
                    { answer(r) }
                    <dl class="lab-stats">
                        { stat("bc", "delivered", "পৌঁছেছে", f.delivered, false) }
                        { stat("bc", "twice", "দুবার পেয়েছে", f.twice, true) }
                        { stat("bc", "lost", "কখনো পায়নি", lost, true) }
                        { stat("bc", "calls", "FCM কল", f.calls, false) }
                        if r.params.mode == Mode::Queue {
                            { stat("bc", "retries", "রিট্রাই", f.retries, false) }
                            { stat("bc", "failed", "failed set", f.failed, true) }
                            { stat("bc", "dead", "মরা টোকেন নেভানো", f.marked, false) }
                            { stat("bc", "429", "৪২৯ উত্তর (কোটা পেরিয়ে)", c.calls_429, true) }
                            { stat("bc", "stalled", "stalled থেকে ফেরত", c.stalled, false) }
                            { stat("bc", "commands", "Redis কমান্ড", c.commands, false) }
                        }
                    </dl>
                    if let (Some(sim), Some(real)) = (predicted, real) {
                        { live::compare(sim, real, sl.live.done) }
                    }
                    if r.params.mode == Mode::Naive { { naive_note(r) } }
                    if r.params.mode == Mode::Queue {
                        <div class="bc-split">
                            { grid(r, now) }
                            { incidents(r, now, INCIDENTS) }
                        </div>
                        { page_chart(r) }
                    }
                    { log(r, now, real.is_some()) }
                </>
            }
        }
    };
    let lead = html! {
        <>
            {"একটা নোটিফিকেশন, ৫ লাখ ডিভাইস। নিচের প্রিসেটগুলো একে একে ভাঙন আর মেরামত দেখায়: API-র ভেতরে লুপ, কিউতে রেখে উত্তর, পেজিং, ৫০০-র ব্যাচ, থ্রটল, dedup, আউটেজে FCM-এর উত্তর না দেখা আর শুধু ব্যর্থ টোকেনের রিট্রাই, মরা টোকেন, ওয়ার্কার ক্র্যাশ। "}{ if real.is_some() { "কিউ এখন আসল Redis-এ (প্রক্সির এই সেশনের নামে) BullMQ-র মতো রাখা: " } else { "কিউ SimRedis-এ BullMQ-র মতো রাখা: " } }
            <code>{"bull:push:wait"}</code>{", "}<code>{"active"}</code>{", "}<code>{"delayed"}</code>{", "}<code>{"failed"}</code>{"।"}
        </>
    };
    let live = if queue {
        live_panel(
            &lab,
            &sl,
            Some(live::live_note(&typed.for_live(*sl.switch.scale))),
        )
    } else {
        html! {
            <p class="live-note" data-testid="live-none">{"আসল Redis: লুপের ধরনে Redis-এ কিছুই যায় না — লুপটা রিকোয়েস্টের ভেতর থেকে সরাসরি FCM ডাকে, তাই আসল Redis-এ চালানোর মতো কোনো কমান্ড নেই। কিউয়ের কোনো প্রিসেট বেছে নিলে সুইচটা ফেরে।"}</p>
        }
    };
    html! {
        <LabFrame lab={lab.clone()} {busy} {lead} {live} slide_presets={false} link={false}>
            <div class="bc-main">{ view }</div>
        </LabFrame>
    }
}
