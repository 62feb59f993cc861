//! The presence lab (production slides 14–15): a room growing bucket by bucket, counted by a
//! sorted set (exact, stops at the limit) and by HyperLogLog buckets merged by `PFCOUNT`.
//!
//! It draws the two side by side at the cursor's bucket — the set's `ZCARD` against its
//! limit and its bytes, the window's estimate, one bucket's estimate, the error against the
//! true count, the buckets' bytes (sparse or dense) — the count the room shows, the memory of
//! both (and of a set holding everyone) on a log scale, the spread of the error over many
//! rooms as a histogram with ±0.81% marked, and the bucket's commands. Everything comes from
//! `redislab_sim::labs::presence`, run in the simulation worker (two runs: the room and the
//! spread); the timeline walks the buckets. No live mode (see the simulator module).

use super::kit::{
    failed_or_progress, stat, stat_f, use_lab, use_run, use_steps, CmdLog, Controls, LabFrame,
    LabProps, Open,
};
use redislab_deck::bn;
use redislab_sim::labs::log::CmdLine;
use redislab_sim::labs::presence::{
    Bucket, PresenceOutput, PresenceRoom, PresenceSpread, SpreadOutput, BINS, BIN_PCT, BUCKET_MS,
    INFO, ROOM, STANDARD_ERROR_PCT,
};
use yew::prelude::*;

/// The lab's view, by the name the dispatch uses.
pub use PresenceLab as View;

/// Milliseconds per timeline tick (one bucket).
const TICK_MS: u32 = 1_200;

fn n(v: i64) -> String {
    bn::int(v)
}

/// Bytes as a person reads them: বাইট under 10,000, then KB, then MB.
fn bytes(b: u64) -> String {
    let x = b as f64;
    if b < 10_000 {
        bn::qty(x, 0, bn::Unit::Byte)
    } else if b < 10_000_000 {
        bn::qty(x / 1024.0, 1, bn::Unit::Kb)
    } else {
        bn::qty(x / (1024.0 * 1024.0), 1, bn::Unit::Mb)
    }
}

/// `m:ss` of a bucket's start.
fn clock(ms: u64) -> String {
    let s = ms / 1000;
    bn::text(&format!("{}:{:02}", s / 60, s % 60))
}

/// The sorted set's panel.
fn zset_panel(r: &PresenceOutput, b: &Bucket, embedded: bool) -> Html {
    let limit = i64::from(r.params.limit);
    let top = limit.max(b.zcard).max(1) as f64;
    let fill = b.zcard as f64 / top * 100.0;
    html! {
        <section class={classes!("prs-panel", "prs-zset", b.exact.then_some("shown"))} aria-label="ZSET: প্রত্যেক দর্শক আলাদা সদস্য">
            <h3 class="prs-h">{"ZSET — নিখুঁত"}<code>{ ROOM }</code></h3>
            <div class="prs-bar" aria-hidden="true">
                <span class="prs-fill" style={format!("width: {fill:.2}%")}></span>
            </div>
            <p class="prs-bar-n">{ format!("{} / সীমা {}", n(b.zcard), n(limit)) }</p>
            <dl class="lab-stats prs-stats">
                { stat("presence", "zcard", "ZCARD", b.zcard.max(0) as u64, false) }
                { stat("presence", "zbytes", "মেমোরি (বাইট)", b.zset_bytes, false) }
                if !embedded {
                    { stat("presence", "allbytes", "সবাইকে রাখলে (বাইট)", b.all_zset_bytes, false) }
                    { stat("presence", "skipped", "সীমায় আটকাল (এই bucket)", u64::from(b.skipped), false) }
                }
            </dl>
        </section>
    }
}

/// The HyperLogLog panel.
fn hll_panel(r: &PresenceOutput, b: &Bucket, embedded: bool) -> Html {
    let w = r.params.window;
    let keys = (b.bucket + 1).min(w);
    let enc = if b.dense == 0 {
        "sparse".to_string()
    } else if b.dense == keys {
        "dense".to_string()
    } else {
        format!("{}টা dense", n(i64::from(b.dense)))
    };
    let off = if b.err_pct.abs() > STANDARD_ERROR_PCT {
        "ভুল (০.৮১%-এর বাইরে)"
    } else {
        "ভুল"
    };
    html! {
        <section class={classes!("prs-panel", "prs-hll", (!b.exact).then_some("shown"))} aria-label="HyperLogLog: শুধু আনুমানিক সংখ্যা">
            <h3 class="prs-h">{"HyperLogLog — আন্দাজ"}<code>{ format!("PFCOUNT × {}", bn::int(i64::from(keys))) }</code></h3>
            <dl class="lab-stats prs-stats">
                { stat("presence", "pf", "PFCOUNT (উইন্ডো)", b.pf_window.max(0) as u64, false) }
                { stat_f("presence", "err", off, b.err_pct, bn::pct(b.err_pct, 2)) }
                { stat("presence", "hllbytes", "মেমোরি (বাইট)", b.hll_bytes, false) }
                if !embedded {
                    { stat("presence", "single", "PFCOUNT (শুধু এই bucket)", b.pf_single.max(0) as u64, false) }
                }
            </dl>
            <p class="prs-enc">{ format!("{} key · {}", bn::int(i64::from(keys)), enc) }</p>
        </section>
    }
}

/// What the room shows now (`None`: the start, before the first bucket); the count shown is
/// its figure `shown` (`data-figure`), the number a person reads in the sentence.
fn now_line(r: &PresenceOutput, b: Option<&Bucket>) -> Html {
    let Some(b) = b else {
        let first = r.buckets.first().map_or(0, |b| b.joined);
        return html! {
            <p class="lab-now" data-testid="presence-now" data-shown="0" data-truth="0" data-figure="shown" data-n="0">{
                format!("শুরু: রুম খালি — প্রথম bucket-এ আসবে {} জন", n(i64::from(first)))
            }</p>
        };
    };
    let from = (b.bucket + 1).saturating_sub(r.params.window);
    let secs = (b.bucket - from + 1) as u64 * BUCKET_MS / 1000;
    let say = format!(
        "bucket {} ({}): {} জন এল, {} জন গেল; শেষ {} সেকেন্ডে সক্রিয় আসলে {} জন — দেখানো হলো {} ({})",
        n(i64::from(b.bucket + 1)),
        clock(b.at_ms),
        n(i64::from(b.joined)),
        n(i64::from(b.left)),
        n(secs as i64),
        n(i64::from(b.truth)),
        n(b.shown),
        if b.exact {
            "ZSET-এর নিখুঁত গোনা"
        } else if b.shown == b.zcard && b.pf_window < b.zcard {
            "আন্দাজ কম, তাই ZCARD"
        } else {
            "HyperLogLog-এর আন্দাজ"
        }
    );
    html! {
        <p class="lab-now" data-testid="presence-now" data-shown={b.shown.to_string()} data-truth={b.truth.to_string()}
            data-figure="shown" data-n={b.shown.max(0).to_string()}>{ say }</p>
    }
}

/// Memory on a log scale: everyone in a sorted set, the set that stops at the limit, the
/// HyperLogLog buckets.
fn memory(b: &Bucket) -> Html {
    let rows = [
        ("all", "সবাই ZSET-এ থাকলে", b.all_zset_bytes),
        ("zset", "ZSET (সীমা পর্যন্ত)", b.zset_bytes),
        ("hll", "HyperLogLog bucket-গুলো", b.hll_bytes),
    ];
    // 100 B … 100 MB.
    let w = |x: u64| (((x.max(100) as f64).log10() - 2.0) / 6.0 * 100.0).clamp(1.0, 100.0);
    html! {
        <figure class="prs-mem" aria-label="মেমোরি, লগ স্কেলে">
            <figcaption>{"মেমোরি (লগ স্কেল: প্রতি দাগ ১০ গুণ)"}</figcaption>
            { for rows.iter().map(|(k, label, v)| html! {
                <div class={classes!("prs-mem-row", *k)}>
                    <span class="prs-mem-k">{ *label }</span>
                    <span class="prs-mem-bar" aria-hidden="true"><span style={format!("width: {:.1}%", w(*v))}></span></span>
                    <span class="prs-mem-v" data-n={v.to_string()}>{ bytes(*v) }</span>
                </div>
            }) }
        </figure>
    }
}

/// The error over many rooms: a histogram with the standard error marked.
fn spread(s: &SpreadOutput) -> Html {
    let top = s.histogram.iter().copied().max().unwrap_or(1).max(1) as f64;
    let span = BIN_PCT * BINS as f64; // 8%
    let x = |pct: f64| (pct + span / 2.0) / span * 100.0;
    html! {
        <figure class="prs-spread" data-testid="presence-spread" aria-label="অনেক রুমে ভুলের ছড়ানো">
            <figcaption>{ format!("{}টা রুম, প্রতিটায় {} জন: PFCOUNT-এর ভুল কত", n(i64::from(s.seeds)), n(i64::from(s.sample))) }</figcaption>
            <div class="prs-hist" aria-hidden="true">
                { for s.histogram.iter().enumerate().map(|(i, &c)| {
                    let mid = (i as f64 + 0.5) * BIN_PCT - span / 2.0;
                    let out = mid.abs() > STANDARD_ERROR_PCT;
                    html! { <span class={classes!("prs-bin", out.then_some("out"))} style={format!("height: {:.1}%", f64::from(c) / top * 100.0)}></span> }
                }) }
                <span class="prs-se" style={format!("left: {:.2}%", x(-STANDARD_ERROR_PCT))}></span>
                <span class="prs-se" style={format!("left: {:.2}%", x(STANDARD_ERROR_PCT))}></span>
            </div>
            <div class="prs-hist-axis" aria-hidden="true"><span>{"−৪%"}</span><span>{"০"}</span><span>{"+৪%"}</span></div>
            <dl class="lab-stats prs-stats">
                { stat_f("presence", "sd", "ভুলের standard deviation", s.sd_pct, bn::pct(s.sd_pct, 2)) }
                { stat_f("presence", "se", "standard error (১.০৪/√১৬,৩৮৪)", STANDARD_ERROR_PCT, bn::pct(STANDARD_ERROR_PCT, 2)) }
                { stat("presence", "beyond", "±০.৮১%-এর বাইরে (রুম)", u64::from(s.beyond), false) }
                { stat("presence", "beyond2", "দ্বিগুণের বাইরে (রুম)", u64::from(s.beyond2), false) }
                { stat_f("presence", "worst", "সবচেয়ে বেশি ভুল", s.worst_pct, bn::pct(s.worst_pct, 2)) }
            </dl>
        </figure>
    }
}

fn log(b: &Bucket) -> Html {
    let lines: Vec<(CmdLine, Classes)> = b
        .log
        .iter()
        .map(|l| {
            let who = if l.actor == "api" { "api" } else { "reader" };
            (l.clone(), classes!("prs-cmd", who))
        })
        .collect();
    html! {
        <CmdLog {lines} lab="presence" secs={true} class={classes!("prs-log")}
            empty={Some(AttrValue::from("এখনো কোনো কমান্ড নেই"))} />
    }
}

/// The presence lab.
#[component]
pub fn PresenceLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let run = use_run::<PresenceRoom>(&lab, true);
    // The spread (up to 20,000,000 `PFADD`s, seconds of one core in the simulation worker)
    // is asked for once the room's result is here, so the page's largest task — drawing that
    // result — never shares a two-core machine with it (issue 34: at the largest
    // parameters that task, about 20 ms, was once stretched to 116 ms).
    let spread_run = use_run::<PresenceSpread>(&lab, run.result().is_some());
    // Opens on the last bucket, the room at its largest; ▶ replays it from the empty room.
    let t = use_steps(run.result(), TICK_MS, Open::End);
    let embedded = props.embedded;
    // The start, before the first bucket: nobody yet, counted exactly.
    let empty = Bucket {
        exact: true,
        ..Bucket::default()
    };
    let view = match run.result() {
        None => failed_or_progress(&run),
        Some(r) if r.buckets.is_empty() => Html::default(),
        Some(r) => {
            let k = t.cursor.min(r.buckets.len());
            let at = r.bucket_at(k);
            let b = at.unwrap_or(&empty);
            let label = format!("bucket {} / {}", n(k as i64), n(r.buckets.len() as i64));
            html! {
                <>
                    <Controls timeline={t.clone()} label={label} />
                    <div class="lab-status">{ now_line(r, at) }</div>
                    <div class="prs-panels">
                        { zset_panel(r, b, embedded) }
                        { hll_panel(r, b, embedded) }
                    </div>
                    { memory(b) }
                    { log(b) }
                </>
            }
        }
    };
    let spread_view = match spread_run.result() {
        None => failed_or_progress(&spread_run),
        Some(s) => spread(s),
    };
    let lead = html! {
        <>
            {"একটা লাইভ রুম ৩০ সেকেন্ডের bucket ধরে বাড়ে; প্রত্যেক দর্শককে "}<code>{"markactive"}</code>
            {" স্ক্রিপ্ট চিহ্নিত করে — "}<code>{"PFADD"}</code>{" সবসময়, আর রুম ৫০০-র কম হলে "}<code>{"ZADD"}</code>
            {"-ও, যাচাইটা Redis-এর ভেতরে। বাঁদিকে ZSET: নিখুঁত, কিন্তু সদস্যপিছু মেমোরি; ডানদিকে HyperLogLog: আন্দাজ, "}
            <code>{"PFCOUNT"}</code>{" কয়েকটা bucket মিলিয়ে গোনে, dense রূপে bucket-প্রতি ১২,৩০৪ বাইট যত বড় রুমই হোক। নিচে অনেক রুমে ভুল কতটা ছড়ায়: ০.৮১% একটা standard error, সীমা নয়। ZSET-এর বাইট SimRedis-এর আন্দাজ (Redis-এর MEMORY USAGE-ও আনুমানিক); HyperLogLog-এর বাইট তার আসল STRLEN।"}
        </>
    };
    let busy = run.busy() || spread_run.busy();
    html! {
        <LabFrame lab={lab.clone()} {busy} {lead}>
            <div class="prs-main">
                { view }
                <div class="prs-spread-box">{ spread_view }</div>
            </div>
        </LabFrame>
    }
}
