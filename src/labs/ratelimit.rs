//! The rate-limit lab (production slide 18): six PM2 instances behind a round-robin balancer
//! and a login limiter — in each instance's memory or one counter in Redis (`INCR` +
//! `PEXPIRE`), a fixed window or a sliding one (a sorted set: `ZREMRANGEBYSCORE`, `ZADD`,
//! `ZCARD`, `PEXPIRE` in one round trip), the IP layer and the identity layer, an office of
//! students behind one IP.
//!
//! It draws the attacker's requests let through per instance up to the cursor against the
//! limit (six bars that each fill to the limit with memory counters; one Redis counter that
//! stops them all), the requests per stretch of time (let through, turned away; students
//! apart), the counters at the cursor and the command log. Everything comes from
//! `redislab_sim::labs::ratelimit`, run in the simulation worker; the timeline walks its
//! buckets.
//!
//! Live mode (its own page, the Redis store only): the same instances against a real Redis
//! through the proxy, the story shrunk to what one session carries (the lab says how); the
//! simulation of the same shrunk parameters is the prediction beside it.

use super::kit::{
    failed_or_progress, live_panel, stat, use_lab, use_sim_live, use_steps, CmdLog, Controls,
    LabFrame, LabProps, Open,
};
use crate::live::bar::{counts_table, CountRow};
use redislab_deck::bn;
use redislab_sim::labs::log::CmdLine;
use redislab_sim::labs::ratelimit::{
    Layers, RateOutput, RateParams, RateRun, RateSetup, Target, INFO,
};
use yew::prelude::*;

/// The lab's view, by the name the dispatch uses.
pub use RateLimitLab as View;

/// Milliseconds per timeline tick.
const TICK_MS: u32 = 140;
/// Log lines shown (the newest up to the cursor).
const LOG: usize = 12;

fn n(v: u64) -> String {
    bn::int(i64::try_from(v).unwrap_or(i64::MAX))
}

fn secs(ms: u64) -> String {
    bn::qty(ms as f64 / 1000.0, 1, bn::Unit::S)
}

/// Where the counter lives, and the instances with what each let through up to bucket `k`.
/// What the limit is about is the most let in within one window: that is the figure beside
/// the limit, marked when over it; the run's total stands apart, unmarked, once it spans more
/// than one window (a practice question on the edge asks for the one-window figure).
fn world(r: &RateOutput, k: usize) -> Html {
    let p = &r.params;
    let got = r.instances_so_far(k);
    let total: u64 = got.iter().sum();
    let window_max = r.window_max_at(k);
    let limit = u64::from(if p.layers == Layers::Ip {
        p.ip_limit
    } else {
        p.limit
    });
    // The bars' scale: the limit, or more when more got through.
    let top = got.iter().copied().max().unwrap_or(0).max(limit).max(1) as f64;
    let memory = !p.redis();
    html! {
        <div class={classes!("rl-world", if memory { "memory" } else { "redis" })}>
            <ul class="rl-insts" aria-label="ইনস্ট্যান্সগুলো: প্রতিটা কত রিকোয়েস্ট ঢুকতে দিল">
                { for got.iter().enumerate().map(|(i, &v)| {
                    let full = memory && v >= limit;
                    html! {
                        <li class={classes!("rl-inst", full.then_some("full"))} data-inst={i.to_string()} data-n={v.to_string()}>
                            <span class="rl-inst-name">{ format!("api-{}", i + 1) }</span>
                            <span class="rl-bar" aria-hidden="true">
                                <span class="rl-bar-fill" style={format!("height: {:.2}%", v as f64 / top * 100.0)}></span>
                                if memory {
                                    <span class="rl-bar-limit" style={format!("bottom: {:.2}%", limit as f64 / top * 100.0)}></span>
                                }
                            </span>
                            <span class="rl-inst-n">{ n(v) }</span>
                            if memory { <span class="rl-inst-store">{"নিজের কাউন্টার"}</span> }
                        </li>
                    }
                }) }
            </ul>
            <div class={classes!("rl-store", (window_max > limit && p.layers != Layers::Both).then_some("over"))}>
                <span class="rl-store-name">{ if memory { format!("মেমোরিতে — {}টা আলাদা হিসাব", n(u64::from(p.instances))) } else { "Redis — একটাই কাউন্টার".to_string() } }</span>
                <span class="rl-total" data-testid="ratelimit-window" data-n={window_max.to_string()}>
                    { match (p.layers == Layers::Both, window_max == total) {
                        (true, _) => format!("অ্যাটাকার ঢুকল {} · লিমিট: আইডেন্টিটি {}, IP {}", n(total), n(u64::from(p.limit)), n(u64::from(p.ip_limit))),
                        (false, true) => format!("অ্যাটাকার ঢুকল {} · লিমিট {}", n(total), n(limit)),
                        (false, false) => format!("এক উইন্ডোয় সর্বোচ্চ ঢুকল {} · লিমিট {}", n(window_max), n(limit)),
                    } }
                </span>
                if window_max != total && p.layers != Layers::Both {
                    <span class="rl-all" data-testid="ratelimit-total" data-n={total.to_string()}>
                        { format!("সব উইন্ডো মিলে মোট {}", n(total)) }
                    </span>
                }
                <code class="rl-store-cmd">{ match (memory, p.sliding()) {
                    (true, _) => "count[key]++ (প্রসেসের মেমোরিতে)",
                    (false, false) => "INCR rl:login:<id> · PEXPIRE",
                    (false, true) => "ZREMRANGEBYSCORE · ZADD · ZCARD · PEXPIRE",
                } }</code>
            </div>
        </div>
    }
}

/// Requests per bucket: the attacker's let through and turned away, the students' beside.
fn chart(r: &RateOutput, k: usize) -> Html {
    let nb = r.buckets.len().max(1);
    let top = r
        .buckets
        .iter()
        .map(|b| (b.attacker_ok + b.attacker_no).max(b.students_ok + b.students_no))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let w = 1000.0 / nb as f64;
    let h = |v: u32| f64::from(v) / top * 185.0;
    let students = r.students.sent > 0;
    let attacker = r.attacker.sent > 0;
    let span = nb as u64 * r.bucket_ms;
    let edge = r.params.window_ms();
    html! {
        <figure class="rl-chart">
            <svg viewBox="0 0 1000 200" preserveAspectRatio="none" role="img"
                aria-label={format!("প্রতি {}-এ রিকোয়েস্ট: ঢুকতে দিল আর ফেরাল", secs(r.bucket_ms))}>
                if edge < span {
                    <line class="rl-edge" x1={format!("{:.1}", edge as f64 / span as f64 * 1000.0)} x2={format!("{:.1}", edge as f64 / span as f64 * 1000.0)} y1="0" y2="200" />
                }
                { for r.buckets.iter().enumerate().map(|(i, b)| {
                    let x = i as f64 * w;
                    let (bw, sx) = if students && attacker { (w * 0.4, w * 0.5) } else { (w * 0.8, w * 0.1) };
                    html! {
                        <g class={classes!(if i < k { "past" } else { "future" })}>
                            if attacker {
                                <rect class="rl-a-ok" x={format!("{:.1}", x + w * 0.1)} y={format!("{:.1}", 200.0 - h(b.attacker_ok))} width={format!("{bw:.1}")} height={format!("{:.1}", h(b.attacker_ok))} />
                                <rect class="rl-a-no" x={format!("{:.1}", x + w * 0.1)} y={format!("{:.1}", 200.0 - h(b.attacker_ok) - h(b.attacker_no))} width={format!("{bw:.1}")} height={format!("{:.1}", h(b.attacker_no))} />
                            }
                            if students {
                                <rect class="rl-s-ok" x={format!("{:.1}", x + sx)} y={format!("{:.1}", 200.0 - h(b.students_ok))} width={format!("{bw:.1}")} height={format!("{:.1}", h(b.students_ok))} />
                                <rect class="rl-s-no" x={format!("{:.1}", x + sx)} y={format!("{:.1}", 200.0 - h(b.students_ok) - h(b.students_no))} width={format!("{bw:.1}")} height={format!("{:.1}", h(b.students_no))} />
                            }
                        </g>
                    }
                }) }
                <line class="rl-cursor" x1={format!("{:.1}", k as f64 * w)} x2={format!("{:.1}", k as f64 * w)} y1="0" y2="200" />
            </svg>
            <figcaption class="rl-legend">
                if attacker {
                    <span class="rl-key a-ok">{"অ্যাটাকার: ঢুকল"}</span>
                    <span class="rl-key a-no">{"অ্যাটাকার: ৪২৯"}</span>
                }
                if students {
                    <span class="rl-key s-ok">{"স্টুডেন্ট: ঢুকল"}</span>
                    <span class="rl-key s-no">{"স্টুডেন্ট: ৪২৯"}</span>
                }
                if edge < span { <span class="rl-key edge">{"উইন্ডোর কিনারা"}</span> }
                <span class="rl-axis">{ format!("প্রতি দাগ {} · সর্বোচ্চ {}", secs(r.bucket_ms), n(top as u64)) }</span>
            </figcaption>
        </figure>
    }
}

fn now_line(r: &RateOutput, k: usize) -> Html {
    let p = &r.params;
    let t = r.time_at(k);
    let [a_ok, a_no, _s_ok, s_no] = r.so_far(k);
    let limit = u64::from(p.limit);
    let many = p.target == Target::Many;
    let window_max = r.window_max_at(k);
    let (say, bad) = if k == 0 {
        (
            format!(
                "শুরু: লগইনের রিকোয়েস্ট আসছে, ব্যালান্সার পালা করে {}টা ইনস্ট্যান্সে পাঠায়",
                n(u64::from(p.instances))
            ),
            false,
        )
    } else if s_no > 0 {
        (
            format!(
                "এক IP-র পেছনের স্টুডেন্টরা আটকাচ্ছে: {}টা লগইন ফেরত (৪২৯)",
                n(s_no)
            ),
            true,
        )
    } else if many && p.ip_layer() && a_no > 0 {
        (
            format!(
                "প্রতিবার নতুন অ্যাকাউন্ট — আইডেন্টিটির লিমিট থামায় না, থামাল IP স্তর: {}টা ফেরত (৪২৯)",
                n(a_no)
            ),
            false,
        )
    } else if many && p.identity_layer() && !p.ip_layer() {
        (
            format!(
                "প্রতিবার নতুন অ্যাকাউন্ট — আইডেন্টিটির লিমিট কাউকে থামায় না: {} বার ঢুকল",
                n(a_ok)
            ),
            a_ok > limit,
        )
    } else if window_max > limit && p.layers != Layers::Ip {
        (
            format!(
                "লিমিট {}, কিন্তু এক উইন্ডোর মধ্যেই অ্যাটাকার ঢুকেছে {} বার",
                n(limit),
                n(window_max)
            ),
            true,
        )
    } else if a_ok > limit && p.layers != Layers::Ip {
        (
            format!(
                "যেকোনো এক উইন্ডোয় সর্বোচ্চ {} — লিমিটের মধ্যে; দুই উইন্ডো মিলে মোট ঢুকল {}",
                n(window_max),
                n(a_ok)
            ),
            false,
        )
    } else if a_no > 0 {
        (
            format!("লিমিট ছুঁয়েছে: অ্যাটাকারের {}টা রিকোয়েস্ট ফেরত (৪২৯)", n(a_no)),
            false,
        )
    } else {
        (format!("{}টা রিকোয়েস্ট ঢুকল, লিমিটের নিচে", n(a_ok)), false)
    };
    html! {
        <p class={classes!("lab-now", bad.then_some("bad"))} data-testid="ratelimit-now">
            <span class="lab-now-t">{ secs(t) }</span>{ " " }{ say }
        </p>
    }
}

/// The counts up to the cursor. The attacker's total is not marked: what the limit is about
/// is the most let in within one window, marked when it is over the limit (a run over two
/// windows rightly lets more through in all).
fn stats(r: &RateOutput, k: usize, embedded: bool) -> Html {
    let [a_ok, a_no, s_ok, s_no] = r.so_far(k);
    let students = r.students.sent > 0;
    let end = k >= r.buckets.len();
    let window_max = r.window_max_at(k);
    let over = r.params.attacker_limit().is_some_and(|l| window_max > l);
    html! {
        <dl class="lab-stats rl-stats">
            if r.attacker.sent > 0 {
                { stat("ratelimit", "allowed", "অ্যাটাকার ঢুকল (মোট)", a_ok, false) }
                { stat("ratelimit", "blocked", "অ্যাটাকার ফেরত (৪২৯)", a_no, false) }
                if !embedded {
                    { stat("ratelimit", "max-window", "যেকোনো এক উইন্ডোয় সর্বোচ্চ", window_max, over) }
                }
            }
            if students {
                { stat("ratelimit", "students-ok", "স্টুডেন্ট ঢুকল", s_ok, false) }
                { stat("ratelimit", "students-no", "স্টুডেন্ট ফেরত", s_no, true) }
            }
            if !embedded {
                if end && students {
                    { stat("ratelimit", "students-hit", "অন্তত একবার আটকানো স্টুডেন্ট", r.students_hit, true) }
                }
                if end {
                    { stat("ratelimit", "commands", "Redis কমান্ড", r.commands, false) }
                    { stat("ratelimit", "round-trips", "রাউন্ড-ট্রিপ", r.round_trips, false) }
                }
            }
        </dl>
    }
}

fn counters(r: &RateOutput) -> Html {
    if r.counters.is_empty() {
        return Html::default();
    }
    html! {
        <div class="rl-counters">
            <table class="rl-counter-table" data-testid="ratelimit-counters">
                <caption>{"কাউন্টার, শেষে (সবচেয়ে বড়গুলো)"}</caption>
                <thead><tr><th scope="col">{"কোথায়"}</th><th scope="col">{"key"}</th><th scope="col">{"গোনা"}</th></tr></thead>
                <tbody>
                    { for r.counters.iter().map(|c| html! {
                        <tr>
                            <td>{ &c.place }</td>
                            <td><code>{ &c.key }</code></td>
                            <td data-n={c.count.to_string()}>{ n(c.count) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}

fn log(r: &RateOutput, t: u64, live: bool) -> Html {
    let upto = r.log.partition_point(|l| l.at_ms < t);
    let from = upto.saturating_sub(LOG);
    let lines: Vec<(CmdLine, Classes)> = r.log[from..upto]
        .iter()
        .map(|l| {
            // Over its own layer's limit: the IP key's, or the identity key's.
            let ip = l.cmd.get(1).is_some_and(|k| k.starts_with("rl:ip:"));
            let limit = i64::from(if ip {
                r.params.ip_limit
            } else {
                r.params.limit
            });
            let over = matches!(l.cmd.first().map(String::as_str), Some("INCR" | "ZCARD"))
                && l.reply
                    .as_ref()
                    .ok()
                    .and_then(|x| x.as_int())
                    .is_some_and(|v| v > limit);
            (l.clone(), classes!(over.then_some("over")))
        })
        .collect();
    html! {
        <CmdLog {lines} lab="ratelimit" {live} secs={true} class={classes!("rl-log")}
            empty={Some(AttrValue::from(if r.params.redis() { "এখনো কোনো কমান্ড নেই" } else { "মেমোরির কাউন্টার Redis-এ কিছুই পাঠায় না" }))} />
    }
}

/// The simulation's prediction beside the real run.
fn compare(sim: &RateOutput, real: &RateOutput, done: bool) -> Html {
    let rows: Vec<CountRow> = [
        (
            "allowed",
            "অ্যাটাকার ঢুকল",
            sim.attacker.allowed,
            real.attacker.allowed,
        ),
        (
            "blocked",
            "অ্যাটাকার ফেরত",
            sim.attacker.blocked(),
            real.attacker.blocked(),
        ),
        (
            "students-ok",
            "স্টুডেন্ট ঢুকল",
            sim.students.allowed,
            real.students.allowed,
        ),
        (
            "students-no",
            "স্টুডেন্ট ফেরত",
            sim.students.blocked(),
            real.students.blocked(),
        ),
        ("commands", "Redis কমান্ড", sim.commands, real.commands),
    ]
    .iter()
    .map(|(k, l, a, b)| (k.to_string(), l.to_string(), *a, *b))
    .collect();
    let verdict = format!(
        "আসল Redis-এ অ্যাটাকার ঢুকল {} বার — সিমুলেশন বলেছিল {}।",
        n(real.attacker.allowed),
        n(sim.attacker.allowed)
    );
    counts_table("rl-compare", &rows, done, verdict)
}

fn live_note(s: &RateSetup) -> String {
    let p = &s.p;
    if !p.redis() {
        return "আসল Redis-এ চলে কেবল Redis কাউন্টার (store=redis): মেমোরির কাউন্টার Redis-এ কিছুই পাঠায় না।"
            .into();
    }
    format!(
        "আসল Redis-এ ছোট করে চলে: উইন্ডো {}, অ্যাটাকারের {}টা রিকোয়েস্ট, লিমিট {}, অফিসে {} জন — প্রক্সির এক সেশন যতটা বয়। পাশের সংখ্যা একই ছোট রানের সিমুলেশন।",
        secs(p.window_ms()),
        n(u64::from(p.attempts)),
        n(u64::from(p.limit)),
        n(u64::from(p.office))
    )
}

/// The rate-limit lab.
#[component]
pub fn RateLimitLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let typed: RateParams = lab.params().read();
    let sl = use_sim_live::<RateRun>(&lab, typed.redis(), true);
    let busy = sl.busy();
    let predicted = sl.predicted();
    let real = sl.real();
    let result = sl.shown();
    // A new result opens on the whole run; ▶ replays it from the start.
    let t = use_steps(result, TICK_MS, Open::End);
    let embedded = props.embedded;
    let view = match result {
        None => failed_or_progress(&sl.sim),
        Some(r) => {
            let k = t.cursor.min(r.buckets.len());
            let now = r.time_at(k);
            let end = r.time_at(r.buckets.len());
            let label = format!("{} / {}", secs(now), secs(end));
            html! {
                <>
                    <Controls timeline={t.clone()} label={label} />
                    { world(r, k) }
                    if !embedded { { chart(r, k) } }
                    <div class="lab-status">
                        { now_line(r, k) }
                        { stats(r, k, embedded) }
                    </div>
                    if let (Some(sim), Some(real)) = (predicted, real) {
                        { compare(sim, real, sl.live.done) }
                    }
                    if !embedded {
                        { log(r, now, real.is_some()) }
                        { counters(r) }
                    }
                </>
            }
        }
    };
    let lead = html! {
        <>
            {"লগইনে লিমিট: পাঁচ মিনিটে ৫০০। ব্যালান্সার রিকোয়েস্ট পালা করে ছয় ইনস্ট্যান্সে পাঠায়। কাউন্টার প্রতিটা প্রসেসের মেমোরিতে থাকলে ছয়টা আলাদা হিসাব; Redis-এ থাকলে সবাই একই key-তে "}
            <code>{"INCR rl:login:<id>"}</code>
            {" করে। fixed বনাম sliding window, IP আর আইডেন্টিটির দুই স্তরও এখানে।"}
        </>
    };
    let live = live_panel(
        &lab,
        &sl,
        Some(live_note(&typed.for_live(*sl.switch.scale))),
    );
    html! {
        <LabFrame lab={lab.clone()} {busy} {lead} {live}>
            <div class="rl-main">{ view }</div>
        </LabFrame>
    }
}
