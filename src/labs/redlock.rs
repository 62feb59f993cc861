//! The failover-and-Redlock lab (patterns deck, "Redlock ১/৪" … "Redlock ৪/৪"): clients A
//! and B want `lock:reindex` from a primary with an asynchronous replica, or from five
//! independent primaries (Redlock), while servers crash, a replica is promoted, a client
//! pauses or a server's clock jumps.
//!
//! It draws, on one time axis: a lane per client (its work, pause, waits, and its write to
//! the storage), a lane per server (who holds the key there, with the crash, the promotion
//! and the clock jump), and the storage (the two-owner stretches, the writes accepted or
//! rejected); the run's one status line (which guarantee the setup gave), the counters and
//! who holds the key on each server at the cursor; and the command log. Everything comes
//! from `redislab_sim::labs::redlock` (run in the simulation worker); the timeline walks the
//! run's trace. No live mode (see the simulator module: the proxy has one Redis).

use super::kit::owners::{hold, lock_chart, storage_lane, stretch, Doing, WriteMark};
use super::kit::time_chart::{Lane, Mark, Tone};
use super::kit::{
    failed_or_progress, stat, use_lab, use_run, use_steps, CmdLog, Controls, LabFrame, LabProps,
    Open, TracePos,
};
use redislab_deck::bn;
use redislab_sim::labs::log::CmdLine;
use redislab_sim::labs::redlock::{
    CmdKind, FaultRow, HoldEnd, RedlockOutput, RedlockRun, SegKind, Verdict, INFO, NAMES,
};
use redislab_sim::redis::Reply;
use yew::prelude::*;

/// The lab's view, by the name the dispatch uses.
pub use RedlockLab as View;

/// Milliseconds per timeline tick.
const TICK_MS: u32 = 120;
/// Commands kept in the log (the newest, up to the cursor).
const LOG: usize = 14;

/// A moment on the run's axis (`১,৪০৪ ms`).
fn ms(v: u64) -> String {
    bn::qty(v as f64, 0, bn::Unit::Ms)
}

/// A client's lane at position `n`: its work, pauses and waits.
fn client_lane(r: &RedlockOutput, c: usize, n: usize) -> Lane {
    let segs = r.page().segs.iter().filter(|s| s.client == c && s.step < n);
    Lane {
        name: format!("client {}", NAMES[c]),
        segs: segs
            .map(|s| {
                let (doing, what) = match s.kind {
                    SegKind::Work => (Doing::Work, "কাজ"),
                    SegKind::Pause => (Doing::Pause, "stop-the-world pause"),
                    SegKind::Wait => (Doing::Wait, "lock পায়নি, অপেক্ষা"),
                };
                stretch(c, doing, s.from_ms, s.to_ms, what, ms)
            })
            .collect(),
        ticks: Vec::new(),
    }
}

/// A server's lane at position `n`: who holds the key there.
fn node_lane(r: &RedlockOutput, lane: usize, n: usize, now: u64) -> Lane {
    let holds = r.holds.iter().filter(|h| h.lane == lane && h.step < n);
    let segs = holds.map(|h| {
        let how = match h.end {
            HoldEnd::Released => "ছাড়া হলো",
            HoldEnd::Expired => "মেয়াদ ফুরোল",
            HoldEnd::ClockJump => "ঘড়ির লাফে আগেই মেয়াদ ফুরোল",
            HoldEnd::Crashed => "server মরল",
            HoldEnd::Held => "এখনো ধরা",
        };
        let what = format!("lock:reindex = {}", NAMES[h.client]);
        hold(h.client, h.from_ms, h.to_ms, now, &what, how, ms)
    });
    Lane {
        name: r.lanes[lane].clone(),
        segs: segs.collect(),
        ticks: Vec::new(),
    }
}

/// The faults known at position `n`, as moments across the lanes.
fn fault_marks(r: &RedlockOutput, n: usize) -> Vec<Mark> {
    r.faults
        .iter()
        .filter(|f| f.step() < n)
        .map(|f| {
            let (at, lane, tone, what) = match *f {
                FaultRow::Crash { at_ms, lane, .. } => (at_ms, lane, Tone::Red, "মরল"),
                FaultRow::Promote { at_ms, lane, .. } => (at_ms, lane, Tone::Amber, "promote হলো"),
                FaultRow::ClockJump { at_ms, lane, .. } => (at_ms, lane, Tone::Blue, "ঘড়ি লাফ দিল"),
            };
            Mark {
                label: format!("{} {what}", r.lanes[lane]),
                tone,
                at_ms: at as f64,
                dashed: tone != Tone::Red,
            }
        })
        .collect()
}

/// The run at position `n` on the kit's time chart: client A, the servers, client B, the
/// storage; the faults as moments across them.
fn chart(r: &RedlockOutput, n: usize, now: u64) -> Html {
    let writes = r.writes.iter().map(|w| {
        let who = NAMES[w.client];
        WriteMark::new(w.step, w.at_ms, who, w.fence, w.stale, w.accepted)
    });
    let mut lanes = vec![client_lane(r, 0, n)];
    lanes.extend((0..r.lanes.len()).map(|l| node_lane(r, l, n, now)));
    lanes.push(client_lane(r, 1, n));
    lanes.push(storage_lane("storage", &r.overlaps, writes, n, ms));
    let label = format!(
        "সময়রেখা: client A, প্রতিটা server-এ lock-এর মালিক, client B, storage — {} পর্যন্ত",
        ms(now)
    );
    let marks = fault_marks(r, n);
    html! {
        <div class="lock-chart" data-testid="redlock-chart">
            { lock_chart(label, lanes, marks, "lock", Vec::new(), r.end_ms, now) }
        </div>
    }
}

/// What the entry at the cursor means, in one line.
fn now_line(r: &RedlockOutput, n: usize) -> Html {
    let fault = r.faults.iter().rev().find(|f| f.step() < n);
    let cmd = r.commands.iter().rev().find(|c| c.step < n);
    let attempt = r.attempts.iter().rev().find(|a| a.step < n);
    let write = r.writes.iter().rev().find(|w| w.step < n);
    // The latest of them.
    let at = |s: Option<usize>| s.map_or(-1, |s| s as i64);
    let (f, c, a, w) = (
        at(fault.map(|f| f.step())),
        at(cmd.map(|c| c.step)),
        at(attempt.map(|a| a.step)),
        at(write.map(|w| w.step)),
    );
    let (t, say) = if f < 0 && c < 0 {
        (0, "শুরু: A আর B একই lock চায়".to_string())
    } else if w > f && w > c && w > a {
        let w = write.expect("latest");
        let token = w.fence.map_or(String::new(), |f| {
            format!(" (fencing token {})", bn::int(f))
        });
        let how = match (w.accepted, w.stale) {
            (true, false) => "গৃহীত",
            (true, true) => "গৃহীত — বাসি লেখা নতুন ডেটার ওপর চেপে বসল!",
            (false, _) => "ফিরিয়ে দিল: token পুরোনো",
        };
        (
            w.at_ms,
            format!("{} storage-এ লিখল{token} — {how}", NAMES[w.client]),
        )
    } else if f >= c && f >= a {
        match *fault.expect("latest") {
            FaultRow::Crash { at_ms, lane, .. } => (
                at_ms,
                format!("{} মরল — replica-তে যা পৌঁছায়নি, তা হারাল", r.lanes[lane]),
            ),
            FaultRow::Promote { at_ms, .. } => {
                (at_ms, "replica promote হয়ে নতুন primary".to_string())
            }
            FaultRow::ClockJump {
                at_ms, lane, ms: j, ..
            } => (
                at_ms,
                format!("{}-এর ঘড়ি {} লাফ দিল", r.lanes[lane], ms(j.max(0) as u64)),
            ),
        }
    } else if a > c {
        let a = attempt.expect("latest");
        let who = NAMES[a.client];
        let k = bn::int(a.granted.len() as i64);
        if a.won && r.lanes.len() > 2 {
            (
                a.to_ms,
                format!(
                    "{who} lock পেল: {k}টা node-এ, validity {}",
                    ms(a.validity_ms.max(0) as u64)
                ),
            )
        } else if a.won {
            (a.to_ms, format!("{who} lock পেল (OK)"))
        } else if r.lanes.len() > 2 {
            (
                a.to_ms,
                format!("{who} পেল মাত্র {k}টা — সংখ্যাগরিষ্ঠ নয়, সবগুলো থেকে ছেড়ে আবার চেষ্টা"),
            )
        } else {
            (a.to_ms, format!("{who} lock পেল না — একটু পরে আবার চেষ্টা"))
        }
    } else {
        let c = cmd.expect("latest");
        let who = NAMES[c.client];
        let say = match (&c.line.reply, c.kind) {
            (Err(_), _) => format!("{who}: connection refused — server নেই"),
            (Ok(r), CmdKind::Acquire) if *r == Reply::ok() => format!("{who}: SET NX → OK"),
            (Ok(_), CmdKind::Acquire) => format!("{who}: SET NX → nil, অন্য কারও lock আছে"),
            (Ok(r), CmdKind::Fence) => format!(
                "{who} পেল fencing token {}",
                bn::int(r.as_int().unwrap_or(0))
            ),
            (Ok(r), CmdKind::Release) if r.as_int() == Some(1) => format!("{who} নিজের lock ছাড়ল"),
            (Ok(_), CmdKind::Release) => format!("{who}-র token মেলেনি — কিছুই মোছেনি"),
        };
        (c.line.at_ms, say)
    };
    html! {
        <p class="lab-now" data-testid="redlock-now">
            <span class="lab-now-t">{ ms(t) }</span>{ " " }{ say }
        </p>
    }
}

fn log(r: &RedlockOutput, n: usize) -> Html {
    let upto = r.commands.partition_point(|c| c.step < n);
    let from = upto.saturating_sub(LOG);
    let lines: Vec<(CmdLine, Classes)> = r.commands[from..upto]
        .iter()
        .map(|c| (c.line.clone(), classes!(format!("rdl-c{}", c.client))))
        .collect();
    html! { <CmdLog {lines} lab="redlock" class={classes!("rdl-log")} /> }
}

/// Who holds the key on each server at the cursor.
fn holders(r: &RedlockOutput, n: usize, now: u64) -> Html {
    let h = r.holders_at(n, now);
    html! {
        <ul class="rdl-holders" aria-label="এই মুহূর্তে কোন server-এ lock কার">
            { for r.lanes.iter().zip(h).map(|(name, who)| html! {
                <li class={classes!(who.map(|c| format!("rdl-h{c}")))} data-testid={format!("redlock-holder-{name}")}>
                    <span>{ name.clone() }</span>{" "}<b>{ who.map_or("—", |c| NAMES[c]) }</b>
                </li>
            }) }
        </ul>
    }
}

/// The failover-and-Redlock lab.
#[component]
pub fn RedlockLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let run = use_run::<RedlockRun>(&lab, true);
    // A new result opens on the whole run; ▶ replays it from the start.
    let t = use_steps(run.result(), TICK_MS, Open::End);
    let embedded = props.embedded;
    let view = match run.result() {
        None => failed_or_progress(&run),
        Some(r) => {
            let TracePos { n, now, label } = TracePos::of(r, t.cursor, r.end_ms, ms);
            let c = r.so_far(n);
            let bad = !matches!(r.verdict, Verdict::NeverTwo | Verdict::StaleRejected { .. });
            // The run's one status line: above the picture on the lab's page, beside the
            // counters inside a slide (one row less).
            let verdict = html! {
                <p class={classes!("rdl-verdict", if bad { "bad" } else { "good" })} data-testid="redlock-status"
                    data-kind={match r.verdict { Verdict::TwoOwners { .. } => "two-owners", Verdict::NeverTwo => "never-two", Verdict::StaleRejected { .. } => "stale-rejected" }}>
                    { r.status.clone() }
                </p>
            };
            html! {
                <>
                    if !embedded { { verdict.clone() } }
                    <Controls timeline={t.clone()} label={label} />
                    { chart(r, n, now) }
                    <div class="lab-status">
                        if embedded { { verdict } }
                        { now_line(r, n) }
                        <dl class="lab-stats">
                            { stat("redlock", "grants", "lock দেওয়া হলো", u64::from(c.grants), false) }
                            { stat("redlock", "two-owner", "দুই মালিক একসাথে", u64::from(c.two_owner_moments), true) }
                            { stat("redlock", "two-owner-ms", "দুই মালিক (ms)", c.two_owner_ms, true) }
                            { stat("redlock", "stale-accepted", "বাসি লেখা গৃহীত", u64::from(c.stale_accepted), true) }
                            { stat("redlock", "stale-rejected", "বাসি লেখা ফেরত", u64::from(c.stale_rejected), false) }
                        </dl>
                    </div>
                    if !embedded { { holders(r, n, now) } }
                    if !embedded { { log(r, n) } }
                </>
            }
        }
    };
    let lead = html! {
        <>
            {"A আর B একই lock চায়: "}<code>{"SET lock:reindex <token> NX PX <ttl>"}</code>
            {"। একটা primary আর তার asynchronous replica, নয়তো Redlock-এর পাঁচটা স্বাধীন primary (অন্তত ৩টায় পেলে, validity = TTL − খরচ হওয়া সময় − drift)। primary মারুন, replica promote করুন, A-কে থমকে দিন, একটা server-এর ঘড়ি লাফাতে দিন — আর দেখুন কখন দুই মালিক হয়, আর fencing token কীভাবে বাসি লেখা ঠেকায়। আসল Redis-এ চালানো যায় না: proxy-র পেছনে একটাই Redis।"}
        </>
    };
    html! {
        <LabFrame lab={lab.clone()} busy={run.busy()} {lead}>
            <div class="rdl-main">{ view }</div>
        </LabFrame>
    }
}
