//! The lock-race lab (production slide 7; broadcast steps 12–13): workers A and B race for
//! `lock:campaign:42` with `SET … NX PX`, work, write to the resource and release — by plain
//! `DEL` or by the token-checked Lua script — with an optional heartbeat, an injectable pause,
//! a fencing token and a double-click dedup.
//!
//! It draws, on one time axis: a lane per worker (its work, the pause, the waits between
//! tries, each command at the moment Redis ran it), the lock's owner in Redis over time, the
//! resource's accepted and rejected writes, the stretches with two owners; the counters so far;
//! the command log with Redis' replies; and the Lua source of the scripts in use. Everything it
//! shows comes from `redislab_sim::labs::lock` (run in the simulation worker); the timeline
//! walks the run's trace one entry at a time.
//!
//! Live mode (its own page only): the "আসল Redis" switch runs the same workers against a real
//! Redis through the proxy ([`crate::live::use_live`], in the worker), at a chosen time
//! scale; the timeline, counters and log then show the real race (with round trips), and a
//! table sets the simulation's prediction of the same (slowed) parameters beside it.

use super::kit::owners::{hold, lock_chart, storage_lane, stretch, Doing, WriteMark};
use super::kit::time_chart::{Key, Lane, Shape, Tick, Tone};
use super::kit::{
    failed_or_progress, live_panel, stat, use_lab, use_walk, CmdLog, Controls, LabFrame, LabProps,
    TracePos,
};
use redislab_deck::bn;
use redislab_sim::labs::def::Steps;
use redislab_sim::labs::lock::{
    CmdKind, CmdRow, LockOutput, LockParams, LockRun, OwnerEnd, SegKind, INFO, LOCK_KEY, NAMES,
};
use redislab_sim::labs::log::CmdLine;
use redislab_sim::redis::{scripts, Reply};
use yew::prelude::*;

/// The lab's view, by the name the dispatch uses.
pub use LockLab as View;

/// Milliseconds per timeline tick.
const TICK_MS: u32 = 160;
/// Commands kept in the log (the newest, up to the cursor).
const LOG: usize = 14;

/// A moment on the race's axis (`১,৪০৪ ms`).
fn ms(v: u64) -> String {
    bn::qty(v as f64, 0, bn::Unit::Ms)
}

/// A stretch drawn on a lane: consecutive pieces of the same kind merged (a heartbeat's round
/// trip splits the work, a failed try splits the waiting; neither is worth a box of its own).
#[derive(Clone, PartialEq)]
struct Span {
    step: usize,
    from: u64,
    to: u64,
    kind: SegKind,
    job: u32,
}

/// Gaps up to this many ms are merged.
const MERGE_MS: u64 = 12;
/// Up to this many failed tries or heartbeats per lane get a tick each (more would be a
/// comb; the log lists them all).
const MAX_TICKS: usize = 40;

/// What a lane draws, computed once per result.
#[derive(PartialEq)]
struct Lanes {
    spans: [Vec<Span>; 2],
    /// Indices into `commands` that get a tick.
    ticks: [Vec<usize>; 2],
}

fn lanes(r: &LockOutput) -> Lanes {
    let spans = [0, 1].map(|a| {
        let mut out: Vec<Span> = Vec::new();
        for s in r.page().segs.iter().filter(|s| s.actor == a) {
            match out.last_mut() {
                Some(l) if l.kind == s.kind && l.job == s.job && s.from_ms <= l.to + MERGE_MS => {
                    l.to = s.to_ms;
                }
                _ => out.push(Span {
                    step: s.step,
                    from: s.from_ms,
                    to: s.to_ms,
                    kind: s.kind,
                    job: s.job,
                }),
            }
        }
        out
    });
    let ticks = [0, 1].map(|a| {
        let mine = || {
            r.commands
                .iter()
                .enumerate()
                .filter(move |(_, c)| c.actor == a)
        };
        let many = |k: CmdKind, ok: bool| {
            mine()
                .filter(|(_, c)| c.kind == k && (c.reply == Reply::ok()) == ok)
                .count()
                > MAX_TICKS
        };
        let (misses, extends) = (many(CmdKind::Acquire, false), many(CmdKind::Extend, false));
        mine()
            .filter(|(_, c)| match c.kind {
                CmdKind::Acquire if c.reply != Reply::ok() => !misses,
                CmdKind::Extend => !extends,
                _ => true,
            })
            .map(|(i, _)| i)
            .collect()
    });
    Lanes { spans, ticks }
}

/// One worker's lane at position `n`: its work, pause and waits, and its commands.
fn lane(r: &LockOutput, g: &Lanes, actor: usize, n: usize) -> Lane {
    let spans = g.spans[actor].iter().filter(|s| s.step < n);
    let cmds = g.ticks[actor]
        .iter()
        .map(|&i| &r.commands[i])
        .filter(|c| c.step < n);
    Lane {
        name: format!("worker {}", NAMES[actor]),
        segs: spans
            .map(|s| match s.kind {
                SegKind::Work => {
                    let what = format!("কাজ (job {})", bn::int(i64::from(s.job)));
                    stretch(actor, Doing::Work, s.from, s.to, &what, ms)
                }
                SegKind::Pause => stretch(actor, Doing::Pause, s.from, s.to, "থমকে আছে", ms),
                SegKind::Wait => {
                    stretch(actor, Doing::Wait, s.from, s.to, "লক পায়নি, বারবার চেষ্টা", ms)
                }
            })
            .collect(),
        ticks: cmds.map(cmd_tick).collect(),
    }
}

fn cmd_tick(c: &CmdRow) -> Tick {
    let tone = match c.kind {
        _ if c.steals => Tone::Red,
        CmdKind::Acquire if c.reply == Reply::ok() => Tone::Green,
        CmdKind::Acquire | CmdKind::Dedup => Tone::Muted,
        CmdKind::Fence => Tone::Blue,
        CmdKind::Extend => Tone::Amber,
        CmdKind::Del | CmdKind::Release => Tone::Ink,
    };
    Tick {
        at_ms: c.at_ms as f64,
        tone,
        title: format!("{} · {} → {}", ms(c.at_ms), c.cmd_text(), c.reply),
        glyph: None,
    }
}

/// The race at position `n` on the kit's time chart: worker A, the lock's owner in Redis,
/// worker B, the resource.
fn chart(r: &LockOutput, g: Option<&Lanes>, n: usize, now: u64) -> Html {
    let owners = r.owners.iter().filter(|o| o.step < n).map(|o| {
        let how = match o.end {
            OwnerEnd::Released => "ছাড়া হলো",
            OwnerEnd::Stolen => "অন্যজনের DEL-এ মুছে গেল",
            OwnerEnd::Expired => "মেয়াদ ফুরোল",
            OwnerEnd::Held => "এখনো ধরা",
        };
        let what = format!("{LOCK_KEY} = {} ({})", o.token, NAMES[o.actor]);
        hold(o.actor, o.from_ms, o.to_ms, now, &what, how, ms)
    });
    let redis = Lane {
        name: "Redis-এ লক".into(),
        segs: owners.collect(),
        ticks: Vec::new(),
    };
    let writes = r.writes.iter().map(|w| {
        let who = NAMES[w.actor];
        WriteMark::new(w.step, w.at_ms, who, w.fence, w.stale, w.accepted)
    });
    let mut lanes = Vec::new();
    lanes.extend(g.map(|g| lane(r, g, 0, n)));
    lanes.push(redis);
    lanes.extend(g.map(|g| lane(r, g, 1, n)));
    lanes.push(storage_lane("resource", &r.overlaps, writes, n, ms));
    let more = vec![
        Key::new("লক পেল (SET NX)", Tone::Green, Shape::Tick),
        Key::new("অন্যের লক মুছল", Tone::Red, Shape::Tick),
    ];
    let label = format!(
        "সময়রেখা: worker A, Redis-এ লকের মালিক, worker B, resource — {} পর্যন্ত",
        ms(now)
    );
    html! {
        <div class="lock-chart" data-testid="lock-chart">
            { lock_chart(label, lanes, Vec::new(), "লক", more, r.end_ms, now) }
        </div>
    }
}

/// What the entry at the cursor means, in one line.
fn now_line(r: &LockOutput, n: usize) -> Html {
    let Some(c) = r.commands.iter().rev().find(|c| c.step < n) else {
        return html! { <p class="lab-now">{"শুরু: দুই worker একই লকের দিকে ছুটছে"}</p> };
    };
    let who = NAMES[c.actor];
    let other = NAMES[1 - c.actor];
    let say = match c.kind {
        CmdKind::Acquire if c.reply == Reply::ok() => format!("{who} লক পেল (SET NX → OK)"),
        CmdKind::Acquire => format!("{who} লক পেল না (nil) — একটু পরে আবার চেষ্টা"),
        CmdKind::Dedup if c.reply == Reply::ok() => format!("{who}: প্রথম ক্লিক, কাজটা চলবে"),
        CmdKind::Dedup => format!("{who}: একই ক্লিক দ্বিতীয়বার — dedup key আগেই আছে, কাজ বাদ"),
        CmdKind::Fence => format!(
            "{who} পেল fencing token {}",
            bn::text(&c.reply.as_int().map_or_else(String::new, |n| n.to_string()))
        ),
        CmdKind::Extend if c.reply.as_int() == Some(1) => format!("{who}-র heartbeat: মেয়াদ বাড়ল"),
        CmdKind::Extend => format!("{who}-র heartbeat ০ পেল — লক আর তার নেই, কাজ থামাল"),
        CmdKind::Del | CmdKind::Release if c.steals => {
            format!(
                "{who}-র {} মুছে দিল {other}-র লক!",
                if c.kind == CmdKind::Del {
                    "DEL"
                } else {
                    "release"
                }
            )
        }
        CmdKind::Del | CmdKind::Release if c.reply.as_int() == Some(1) => {
            format!("{who} নিজের লক ছাড়ল")
        }
        CmdKind::Release => format!("{who}-র টোকেন মেলেনি — স্ক্রিপ্ট কিছুই মুছল না (০)"),
        CmdKind::Del => format!("{who}-র DEL: মোছার মতো কিছু ছিল না"),
    };
    html! {
        <p class={classes!("lab-now", c.steals.then_some("bad"))} data-testid="lock-now">
            <span class="lab-now-t">{ ms(c.at_ms) }</span>{ " " }{ say }
        </p>
    }
}

fn log(r: &LockOutput, n: usize, keep: usize, live: bool) -> Html {
    let upto = r.commands.partition_point(|c| c.step < n);
    let from = upto.saturating_sub(keep);
    let lines: Vec<(CmdLine, Classes)> = r.commands[from..upto]
        .iter()
        .map(|c| {
            (
                c.line(),
                classes!(format!("lk-w{}", c.actor), c.steals.then_some("steals")),
            )
        })
        .collect();
    html! { <CmdLog {lines} lab="lock" {live} /> }
}

fn scripts_used(p: &LockParams) -> Html {
    let mut shown = Vec::new();
    if p.token_release() {
        shown.push((&scripts::RELEASE, "টোকেন মিলিয়ে ছাড়া (release)"));
    }
    if p.heartbeat_on() {
        shown.push((&scripts::EXTEND, "heartbeat (extend)"));
    }
    html! {
        <div class="lk-scripts">
            { for shown.into_iter().map(|(s, title)| html! {
                <figure class="lk-script" data-script={s.name}>
                    <figcaption>{ title }{" · "}<code>{ format!("EVALSHA {}…", &s.sha1[..8]) }</code></figcaption>
                    <pre><code>{ s.source }</code></pre>
                </figure>
            }) }
        </div>
    }
}

fn grants(r: &LockOutput) -> String {
    let g: Vec<&str> = r.outcome().grants.iter().map(|&a| NAMES[a]).collect();
    if g.is_empty() {
        "—".into()
    } else {
        g.join(" → ")
    }
}

/// The simulation's prediction beside the real race.
fn compare(sim: &LockOutput, real: &LockOutput, done: bool) -> Html {
    let (s, r) = (sim.outcome(), real.outcome());
    let n = |v: u32| bn::int(v as i64);
    let yes = |b: bool| if b { "হ্যাঁ" } else { "না" }.to_string();
    let who = |a: Option<usize>| a.map_or("কেউ না".to_string(), |a| NAMES[a].to_string());
    let rows = [
        ("grants", "লক কে পেল, ক্রমে", grants(sim), grants(real)),
        (
            "first-steal",
            "প্রথম কে অন্যের লক মুছল",
            who(s.first_steal),
            who(r.first_steal),
        ),
        ("steals", "অন্যের লক মুছল", n(s.steals), n(r.steals)),
        (
            "two-owners",
            "দুই মালিক একসাথে",
            yes(s.two_owners),
            yes(r.two_owners),
        ),
        (
            "stale-accepted",
            "পুরোনো লেখা গৃহীত",
            n(s.stale_accepted),
            n(r.stale_accepted),
        ),
        (
            "stale-rejected",
            "পুরোনো লেখা বাতিল (fencing)",
            n(s.stale_rejected),
            n(r.stale_rejected),
        ),
    ];
    crate::live::bar::outcome_table(&rows, done, "আসল Redis-এও দৌড়টা ঠিক সিমুলেশনের মতোই শেষ হলো।")
}

/// The lock-race lab.
#[component]
pub fn LockLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let typed: LockParams = lab.params().read();
    // Live mode: the same race against a real Redis, slowed `scale` times; the simulation
    // of the slowed parameters is its prediction.
    let (sl, t) = use_walk::<LockRun>(&lab, TICK_MS);
    let busy = sl.busy();
    let predicted = sl.predicted();
    let real = sl.real();
    // The timeline draws the real race when there is one, the simulation otherwise (also
    // when live mode found no proxy: the lab stays usable).
    let result = sl.shown();
    // The lanes' geometry, once per result (the timeline only filters it).
    let geometry = {
        let key = result.map(|r| (r.params.clone(), r.steps()));
        use_memo(key, |_| result.map(lanes))
    };
    let embedded = props.embedded;
    let view = match result {
        None => failed_or_progress(&sl.sim),
        Some(r) => {
            let TracePos { n, now, label } = TracePos::of(r, t.cursor, r.end_ms, ms);
            let c = r.so_far(n);
            let steal = r.first_steal().filter(|s| s.step < n).map(|s| {
                html! {
                    <p class="lk-steal" data-testid="lock-steal" data-at={s.at_ms.to_string()}>
                        { format!("{}-এ {}-র `{}` মুছে দিল {}-র লক", ms(s.at_ms), NAMES[s.actor], s.cmd_text(), NAMES[1 - s.actor]) }
                    </p>
                }
            });
            html! {
                <>
                    <Controls timeline={t.clone()} label={label} />
                    { chart(r, geometry.as_ref().as_ref(), n, now) }
                    <div class="lab-status">
                    { now_line(r, n) }
                    <dl class="lab-stats">
                        { stat("lock", "two-owner", "দুই মালিক একসাথে", u64::from(c.two_owner_moments), true) }
                        { stat("lock", "steals", "অন্যের লক মুছল", u64::from(c.steals), true) }
                        { stat("lock", "stale-accepted", "পুরোনো লেখা গৃহীত", u64::from(c.stale_accepted), true) }
                        { stat("lock", "stale-rejected", "পুরোনো লেখা বাতিল", u64::from(c.stale_rejected), false) }
                        if !embedded {
                            { stat("lock", "grants", "লক দেওয়া হলো", u64::from(c.grants), false) }
                            { stat("lock", "duplicates", "ডুপ্লিকেট বাদ", u64::from(c.duplicates), false) }
                            { stat("lock", "lost", "heartbeat-এ ধরা পড়ল", u64::from(c.lost), false) }
                        }
                    </dl>
                    </div>
                    if !embedded { { steal.unwrap_or_default() } }
                    if let (Some(sim), Some(real)) = (predicted, real) {
                        { compare(sim, real, sl.live.done) }
                    }
                    if !embedded { { log(r, n, LOG, real.is_some()) } }
                </>
            }
        }
    };
    let lead = html! {
        <>
            {"দুই worker, A আর B, একই কাজের লক চায়: "}<code>{"SET lock:campaign:42 <token> NX PX <ttl>"}</code>
            {"। কাজ সেরে resource-এ লেখে, তারপর লক ছাড়ে — সাধারণ DEL-এ, নয়তো টোকেন মিলিয়ে Lua স্ক্রিপ্টে। মাঝে একজনকে থমকে দিন (GC, ধীর কোয়েরি) আর দেখুন লক কার হাতে থাকে।"}
        </>
    };
    let live = live_panel(&lab, &sl, None);
    html! {
        <LabFrame lab={lab.clone()} {busy} {lead} {live} after={scripts_used(&typed)}>
            <div class="lk-main">{ view }</div>
        </LabFrame>
    }
}
