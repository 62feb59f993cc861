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

use super::kit::{
    Open,
    failed_or_progress, live_panel, open_full, stat, CmdLog, use_lab, use_sim_live_untyped, use_timeline, Controls, LabFrame,
    LabProps,
};
use crate::live::bar::{counts_table, CountRow};
use redislab_deck::bn;
use redislab_sim::labs::log::CmdLine;
use redislab_sim::labs::broadcast::{
    Attempt, BroadcastParams, BroadcastResult, End, Frame, Why, INFO,
};
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
    bn::grouped(n as i64)
}

/// `1 মিনিট 42.8 সেকেন্ড`, `27.8 ঘণ্টা`, `40 ms`.
fn dur(ms: u64) -> String {
    if ms < 1000 {
        return format!("{} ms", bn::int(ms as i64));
    }
    if ms >= 3 * 3_600_000 {
        return format!(
            "{} ঘণ্টা",
            bn::text(&format!("{:.1}", ms as f64 / 3_600_000.0))
        );
    }
    let s = ms / 1000;
    let tenth = (ms % 1000) / 100;
    let sec = if tenth > 0 {
        format!("{}.{}", s % 60, tenth)
    } else {
        (s % 60).to_string()
    };
    if s >= 60 {
        format!(
            "{} মিনিট {} সেকেন্ড",
            bn::text(&(s / 60).to_string()),
            bn::text(&sec)
        )
    } else {
        format!("{} সেকেন্ড", bn::text(&sec))
    }
}

fn secs(ms: u64) -> String {
    format!("{} s", bn::text(&format!("{:.1}", ms as f64 / 1000.0)))
}

fn why_text(w: Why) -> &'static str {
    match w {
        Why::DbTimeout => "Postgres-এ কানেকশন মেলেনি (টাইমআউট)",
        Why::TooMany => "FCM পুরো কল ফিরিয়ে দিল: ৫০০-র বেশি টোকেন",
        Why::Unavailable => "FCM সাড়া দেয়নি (আউটেজ)",
        Why::Quota => "FCM: 429, কোটা পেরিয়েছে",
    }
}

/// A batch's state at time `t`, from its runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cell {
    Waiting,
    Running,
    Sent,
    Retry,
    Failed,
}

fn cells(r: &BroadcastResult, t: u64) -> Vec<Cell> {
    let n = r.batches as usize;
    let mut out = vec![Cell::Waiting; n];
    for a in r.attempts.iter().filter(|a| a.from_ms <= t) {
        let Some(b) = a.batch else { continue };
        let Some(c) = out.get_mut(b as usize) else {
            continue;
        };
        *c = if a.to_ms > t {
            Cell::Running
        } else {
            match a.end {
                End::Completed => Cell::Sent,
                End::Retry | End::Crashed | End::LockLost => Cell::Retry,
                End::Failed => Cell::Failed,
                End::Running => Cell::Running,
            }
        };
    }
    // A batch the stalled check put in the failed set.
    for m in r
        .moments
        .iter()
        .filter(|m| m.kind == "failed" && m.at_ms <= t)
    {
        if let Some(c) = m
            .job
            .as_ref()
            .filter(|j| j.contains('-'))
            .and_then(|_| out.get_mut(m.n as usize))
        {
            *c = Cell::Failed;
        }
    }
    out
}

/// One SVG path per state: a cell per batch, `cols` a row.
fn grid(r: &BroadcastResult, t: u64) -> Html {
    use std::fmt::Write;
    let cs = cells(r, t);
    let n = cs.len().max(1);
    let cols = if n <= 100 { 20 } else { 50 };
    let rows = n.div_ceil(cols);
    let mut paths = [
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
    ];
    for (i, c) in cs.iter().enumerate() {
        let (x, y) = (i % cols, i / cols);
        let _ = write!(paths[*c as usize], "M{x} {y}h.86v.86h-.86z");
    }
    let class = ["wait", "run", "sent", "retry", "failed"];
    let count = |c: Cell| cs.iter().filter(|x| **x == c).count();
    html! {
        <figure class="bc-grid-fig">
            <svg class="bc-grid" viewBox={format!("0 0 {cols} {rows}")} preserveAspectRatio="xMinYMin meet" role="img"
                aria-label={format!("{}টা ব্যাচ: পাঠানো {}, রিট্রাইয়ের অপেক্ষায় {}, failed set-এ {}", bn::int(n as i64), bn::text(&count(Cell::Sent).to_string()), bn::text(&count(Cell::Retry).to_string()), bn::text(&count(Cell::Failed).to_string()))}>
                { for paths.iter().zip(class).map(|(d, c)| html! { <path class={c} d={d.clone()} /> }) }
            </svg>
            <figcaption class="bc-legend">
                <span class="k sent">{"পাঠানো"}</span>
                <span class="k run">{"চলছে"}</span>
                <span class="k retry">{"রিট্রাইয়ের অপেক্ষায়"}</span>
                <span class="k failed">{"failed set"}</span>
                <span class="k wait">{"বাকি"}</span>
            </figcaption>
        </figure>
    }
}


/// Sent over time, up to `t`.
fn sent_chart(r: &BroadcastResult, t: u64) -> Html {
    let end = r.end_ms.max(1) as f64;
    let total = u64::from(r.params.tokens).max(1) as f64;
    let pts = |f: fn(&Frame) -> u64| -> String {
        r.frames
            .iter()
            .filter(|x| x.at_ms <= t)
            .map(|x| {
                format!(
                    "{:.2},{:.2}",
                    x.at_ms as f64 / end * 100.0,
                    40.0 - f(x) as f64 / total * 40.0
                )
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    html! {
        <svg class="bc-chart" viewBox="0 0 100 40" preserveAspectRatio="none" aria-hidden="true">
            <polyline class="sent" points={pts(|x| x.delivered)} />
            <polyline class="twice" points={pts(|x| x.twice)} />
        </svg>
    }
}

/// Page cost both ways (offset grows, cursor stays flat).
fn page_chart(r: &BroadcastResult) -> Html {
    let costs = &r.page_costs;
    if costs.len() < 2 {
        return Html::default();
    }
    let max = costs
        .iter()
        .map(|c| c.offset_ms.max(c.cursor_ms))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let n = costs.len() as f64;
    let line = |f: fn(&redislab_sim::labs::broadcast::PageCost) -> u64| -> String {
        costs
            .iter()
            .enumerate()
            .map(|(i, c)| {
                format!(
                    "{:.2},{:.2}",
                    i as f64 / (n - 1.0) * 100.0,
                    30.0 - f(c) as f64 / max * 28.0
                )
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let last = costs.last().copied().unwrap_or(costs[0]);
    let chosen = r.params.paging.as_str();
    html! {
        <figure class="bc-pages" data-testid="bc-pages">
            <svg viewBox="0 0 100 30" preserveAspectRatio="none" aria-hidden="true">
                <polyline class={classes!("offset", (chosen == "offset").then_some("on"))} points={line(|c| c.offset_ms)} />
                <polyline class={classes!("cursor", (chosen == "cursor").then_some("on"))} points={line(|c| c.cursor_ms)} />
            </svg>
            <figcaption>
                { format!("প্রতি পেজের কোয়েরি ({} পেজ): ", bn::text(&costs.len().to_string())) }
                <span class="offset">{ format!("offset — প্রথমটা {}, শেষটা (skip {}) {}", dur(costs[0].offset_ms), g(u64::from(r.params.page) * (costs.len() as u64 - 1)), dur(last.offset_ms)) }</span>
                {" · "}
                <span class="cursor">{ format!("cursor — সবগুলো {}", dur(last.cursor_ms)) }</span>
                { format!(" · সব রো একসাথে: {} MB, প্রসেসের মেমোরি {} MB", g(r.memory_mb.0), g(r.params.heap_mb)) }
            </figcaption>
        </figure>
    }
}

/// Retries and incidents up to `t`, newest last (only the last few are drawn).
fn incidents(r: &BroadcastResult, t: u64, keep: usize) -> Html {
    enum Row<'a> {
        A(&'a Attempt),
        M(&'a redislab_sim::labs::broadcast::Moment),
    }
    // (when, arrival order, row): the same order a stable sort by time gives.
    let mut rows: Vec<((u64, usize), Row)> = r
        .attempts
        .iter()
        .filter(|a| a.to_ms <= t && a.end != End::Completed && a.end != End::Running)
        .map(|a| (a.to_ms, Row::A(a)))
        .chain(
            r.moments
                .iter()
                .filter(|m| m.at_ms <= t && !matches!(m.kind.as_str(), "click" | "failed"))
                .map(|m| (m.at_ms, Row::M(m))),
        )
        .enumerate()
        .map(|(i, (at, row))| ((at, i), row))
        .collect();
    if rows.is_empty() {
        return html! { <p class="bc-calm" data-testid="bc-incidents">{"এ পর্যন্ত কোনো ফেল, রিট্রাই বা দুর্ঘটনা নেই"}</p> };
    }
    // Only the newest `keep` are drawn: pick them in linear time, then sort those few.
    let from = rows.len().saturating_sub(keep);
    if from > 0 {
        rows.select_nth_unstable_by_key(from, |r| r.0);
    }
    rows[from..].sort_by_key(|r| r.0);
    html! {
        <ol class="bc-incidents" data-testid="bc-incidents" aria-label="রিট্রাই আর ঘটনা">
            { for rows[from..].iter().map(|(_, row)| match row {
                Row::A(a) => attempt_row(a),
                Row::M(m) => moment_row(m),
            }) }
        </ol>
    }
}

fn moment_row(m: &redislab_sim::labs::broadcast::Moment) -> Html {
    let say = match m.kind.as_str() {
        "timeout" => format!(
            "প্রক্সির টাইমআউট: অ্যাডমিন পেল 504, লুপ থামেনি — এ পর্যন্ত {} জন",
            g(m.n)
        ),
        "died" => format!(
            "প্রসেস মরল — {} জন পেয়েছে, কারা পেয়েছে তার কোনো রেকর্ড নেই",
            g(m.n)
        ),
        "rerun" => format!("আবার চালানো হলো — প্রথম {} জন আবার পাবে", g(m.n)),
        "outage" => format!("FCM আউটেজ শুরু ({} সেকেন্ড)", bn::int(m.n as i64)),
        "back" => "FCM আবার সাড়া দিচ্ছে".into(),
        "crash" => "ওয়ার্কার প্রসেস ক্র্যাশ করল — হাতের জব active-এ আটকে, লক থাকা পর্যন্ত".into(),
        "restart" => "ওয়ার্কার আবার চালু".into(),
        "oom" => format!("OUT OF MEMORY — সব রো একসাথে {} MB", g(m.n)),
        "stalled" => match &m.job {
            Some(j) if j.contains('-') => format!(
                "stalled চেক: ব্যাচ {}-এর লক নেই — wait-এ ফেরত, আবার চলবে",
                g(m.n)
            ),
            _ => "stalled চেক: ব্রডকাস্ট জবের লক নেই — wait-এ ফেরত".into(),
        },
        "dup" => format!(
            "ক্লিক {}: dedup key আগেই আছে (SET NX → nil) — নতুন জব নয়",
            bn::int(m.n as i64)
        ),
        _ => return Html::default(),
    };
    let bad = matches!(
        m.kind.as_str(),
        "timeout" | "died" | "outage" | "crash" | "oom" | "rerun"
    );
    html! { <li class={classes!(bad.then_some("bad"))}><span class="bc-t">{ secs(m.at_ms) }</span>{ say }</li> }
}

fn attempt_row(a: &Attempt) -> Html {
    let what = match a.batch {
        Some(n) => format!("ব্যাচ {}", g(u64::from(n))),
        None => "ব্রডকাস্ট জব".into(),
    };
    let why = a.why.map(why_text).unwrap_or("");
    let say = match a.end {
        End::Retry => format!(
            "{what}, চেষ্টা {}: {why} → delayed set-এ, আবার চলবে {}-এ",
            bn::int(a.attempt as i64),
            a.due_ms.map(secs).unwrap_or_default()
        ),
        End::Failed => format!(
            "{what}, চেষ্টা {}: {why} → শেষ চেষ্টা, failed set-এ কারণসহ",
            bn::int(a.attempt as i64)
        ),
        End::Crashed => format!(
            "{what}: ওয়ার্কার মরল কাজের মাঝে{}",
            if a.delivered > 0 {
                format!(" — FCM আগেই {} টোকেন নিয়েছিল", g(u64::from(a.delivered)))
            } else {
                String::new()
            }
        ),
        End::LockLost => format!("{what}: লক আর নেই — ফল বাতিল"),
        _ => return Html::default(),
    };
    let cls = if a.end == End::Failed || a.end == End::Crashed {
        "bad"
    } else {
        "retry"
    };
    html! { <li class={cls}><span class="bc-t">{ secs(a.to_ms) }</span>{ say }</li> }
}

fn log(r: &BroadcastResult, t: u64, live: bool) -> Html {
    let upto = r.commands.partition_point(|c| c.at_ms <= t);
    let from = upto.saturating_sub(LOG);
    let lines: Vec<(CmdLine, Classes)> = r.commands[from..upto]
        .iter()
        .map(|c| (c.clone(), Classes::new()))
        .collect();
    let empty = if r.params.mode == "naive" {
        "লুপটা Redis-এ কিছুই লেখে না — কে পেল, তার কোনো রেকর্ড নেই"
    } else {
        "এখনো কোনো কমান্ড নয়"
    };
    html! { <CmdLog {lines} lab="bc" {live} secs=true class={classes!("bc-log")} empty={AttrValue::from(empty)} /> }
}

/// The line about the API's answer.
fn answer(r: &BroadcastResult) -> Html {
    if r.params.mode == "naive" {
        return html! {
            <p class="bc-answer bad" data-testid="bc-answer">
                { format!("অ্যাডমিনের রিকোয়েস্ট {} ধরে খোলা — প্রক্সি কাটে {}-এ (504); পুরো লুপে লাগত {}", dur(r.naive.total_ms), dur(r.params.proxy_timeout * 1000), dur(r.naive.total_ms)) }
            </p>
        };
    }
    let first = r.responses.first();
    html! {
        <p class="bc-answer" data-testid="bc-answer">
            { first.map(|a| format!("API উত্তর দিল {}-এ (200 OK) — জব কিউতে, পাঠাবে ওয়ার্কার", dur(a.ms))).unwrap_or_default() }
            { format!(" · লুপ হলে: প্রক্সি কাটত {}-এ, পুরো কাজ {}", dur(r.params.proxy_timeout * 1000), dur(r.naive.total_ms)) }
        </p>
    }
}

/// Why the seed's 3,214 and 10 min 42 s agree.
fn naive_note(r: &BroadcastResult) -> Html {
    let p = &r.params;
    html! {
        <p class="bc-note" data-testid="bc-naive-note">
            { format!(
                "{} ÷ {} ms = {} কল; ঘড়ি যদি শুধু পুরো সেকেন্ড দেখায় ({} সেকেন্ড), হিসাব দাঁড়ায় {} — বাকি {}টা কল পরের ভগ্নাংশ সেকেন্ডে। তাই মূল লেখার ৩,২১৪ আর ১০ মিনিট ৪২ সেকেন্ড পরস্পরবিরোধী নয়। আর ৩০ সেকেন্ডের টাইমআউট কেবল অ্যাডমিনের কানেকশন কাটে; লুপটা চলতেই থাকে।",
                dur(p.dies_at),
                bn::int(p.call_ms as i64),
                g(r.naive.at_death),
                g(p.dies_at / 1000),
                g(r.naive.whole_seconds),
                g(r.naive.at_death.saturating_sub(r.naive.whole_seconds)),
            ) }
        </p>
    }
}

/// The newest incident up to `t` as one line, or a calm line before the first.
fn last_incident(r: &BroadcastResult, t: u64) -> Html {
    let attempt = r
        .attempts
        .iter()
        .filter(|a| a.to_ms <= t && a.end != End::Completed && a.end != End::Running)
        .max_by_key(|a| a.to_ms);
    // Of moments at the same instant the first (the process dies, then the rerun starts).
    let moment = r
        .moments
        .iter()
        .rev()
        .filter(|m| m.at_ms <= t && !matches!(m.kind.as_str(), "click" | "failed"))
        .max_by_key(|m| m.at_ms);
    let row = match (attempt, moment) {
        (Some(a), Some(m)) if m.at_ms >= a.to_ms => moment_row(m),
        (Some(a), _) => attempt_row(a),
        (None, Some(m)) => moment_row(m),
        (None, None) => html! { <li class="calm">{"এখনো কোনো ফেল, রিট্রাই বা দুর্ঘটনা নেই"}</li> },
    };
    html! { <ol class="bc-incidents bc-last" data-testid="bc-incidents" aria-label="সবশেষ ঘটনা">{ row }</ol> }
}

/// Whether the run has anything for [`last_incident`] at all (then its line is kept from the
/// start, so the slide does not grow while the lab plays).
fn has_incidents(r: &BroadcastResult) -> bool {
    r.attempts
        .iter()
        .any(|a| a.end != End::Completed && a.end != End::Running)
        || r.moments
            .iter()
            .any(|m| !matches!(m.kind.as_str(), "click" | "failed"))
}

/// A one-row strip: every batch coloured by its state at `t` (runs of one state are one
/// rectangle, so a thousand batches stay a handful of path segments); for the naive loop, how
/// far the loop got and how many of those were sent twice.
fn strip(r: &BroadcastResult, f: &Frame, t: u64) -> Html {
    use std::fmt::Write;
    let mut paths: [String; 5] = Default::default();
    let cols;
    if r.params.mode == "naive" {
        cols = 1000;
        let total = u64::from(r.params.tokens).max(1);
        let w = |n: u64| (n as f64 / total as f64 * 1000.0).max(if n > 0 { 2.0 } else { 0.0 });
        let _ = write!(
            paths[Cell::Sent as usize],
            "M0 0h{:.1}v1h-{:.1}z",
            w(f.delivered),
            w(f.delivered)
        );
        if f.twice > 0 {
            let _ = write!(
                paths[Cell::Failed as usize],
                "M0 0h{:.1}v1h-{:.1}z",
                w(f.twice),
                w(f.twice)
            );
        }
    } else {
        let cs = cells(r, t);
        cols = cs.len().max(1);
        let mut i = 0;
        while i < cs.len() {
            let c = cs[i];
            let n = cs[i..].iter().take_while(|x| **x == c).count();
            let _ = write!(paths[c as usize], "M{i} 0h{n}v1h-{n}z");
            i += n;
        }
    }
    let class = ["wait", "run", "sent", "retry", "failed"];
    html! {
        <svg class="bc-strip" viewBox={format!("0 0 {cols} 1")} preserveAspectRatio="none" aria-hidden="true">
            <rect class="wait" width={cols.to_string()} height="1" />
            { for paths.iter().zip(class).filter(|(d, _)| !d.is_empty()).map(|(d, c)| html! { <path class={c} d={d.clone()} /> }) }
        </svg>
    }
}

/// The simulation's prediction beside the real run: the batches, the retries, the failed
/// set, the tokens.
fn compare(sim: &BroadcastResult, real: &BroadcastResult, done: bool) -> Html {
    let (a, b) = (&sim.counters, &real.counters);
    let rows = [
        (
            "completed",
            "completed set-এ জব",
            sim.completed(),
            real.completed(),
        ),
        ("retries", "রিট্রাই (delayed set-এ)", a.retries, b.retries),
        ("failed", "failed set", a.failed_jobs, b.failed_jobs),
        ("delivered", "পৌঁছেছে (টোকেন)", a.delivered, b.delivered),
        ("twice", "দুবার পেয়েছে", a.sent_twice, b.sent_twice),
        ("jobs", "জব যোগ হলো", a.jobs, b.jobs),
        (
            "dedup",
            "dedup-এ ফেরানো ক্লিক",
            a.dedup_refused,
            b.dedup_refused,
        ),
        ("calls", "FCM কল", a.fcm_calls, b.fcm_calls),
    ];
    let rows: Vec<CountRow> = rows
        .iter()
        .map(|(k, label, x, y)| (k.to_string(), label.to_string(), *x, *y))
        .collect();
    let same = rows.iter().all(|r| r.2 == r.3);
    let verdict = format!(
        "আসল Redis-এ শেষে completed set-এ {}টি জব, failed set-এ {}টি — সিমুলেশন বলেছিল {} আর {}। {}",
        g(real.completed()),
        g(b.failed_jobs),
        g(sim.completed()),
        g(a.failed_jobs),
        if same {
            "প্রতিটা সংখ্যা মিলেছে: একই স্লট, একই কিউ — উত্তর দিল আসল Redis।"
        } else {
            "যেটা মেলেনি তা আসল সময়ের খেলা: কোন ব্যাচ কখন চলল, তা নেটওয়ার্ক আর ঘড়ির ওপর নির্ভর করে (ক্র্যাশের মুহূর্তে কোন কল চলছিল, কোটা কে আগে পেল)।"
        }
    );
    counts_table("bc-compare", &rows, done, verdict)
}

/// What a live run runs, in one line.
fn live_note(p: &BroadcastParams) -> String {
    let k = (p.window / 1000).max(1);
    let throttle = if p.throttle == 0 {
        "থ্রটল নেই".to_string()
    } else if k == 1 {
        format!("সেকেন্ডে {}টি ব্যাচ", g(u64::from(p.throttle)))
    } else {
        format!("{} সেকেন্ডে {}টি ব্যাচ", g(k), g(u64::from(p.throttle)))
    };
    let outage = match p.config().outages.first() {
        Some(&(a, z)) => format!(", FCM আউটেজ {} থেকে {} পর্যন্ত", secs(a), secs(z)),
        None => String::new(),
    };
    let crash = if p.crash_at > 0 {
        format!(", ওয়ার্কার ক্র্যাশ {}-এ", dur(p.crash_at))
    } else {
        String::new()
    };
    format!(
        "আসল Redis-এ ছোট করে চলে: {} টোকেন ({}টি ব্যাচ), {}টি ওয়ার্কার স্লট, {}, FCM কোটা {} টোকেন/{} সেকেন্ড; কিউয়ের সময় দশ ভাগের এক{} — backoff {}, লক {}, stalled চেক {}{}{}। খালি কিউতে BLMOVE {} অপেক্ষা করে (প্রক্সি এক সেশনে একবারে একটাই blocking read চালায়, তাই স্লটগুলো পালা করে)। FCM আর Postgres আসল নয় — সিমুলেশনের টাইমার, আসল সময়ে চলে। পাশের সংখ্যা একই ছোট রানের সিমুলেশন।",
        g(u64::from(p.tokens)),
        g(p.batches()),
        g(u64::from(p.concurrency)),
        throttle,
        g(u64::from(p.quota)),
        g(k),
        if k > 1 {
            format!(", তারপর সবকিছু {} গুণ ধীর", g(k))
        } else {
            String::new()
        },
        dur(p.backoff),
        dur(p.lock),
        dur(p.stalled),
        outage,
        crash,
        dur(p.block)
    )
}

/// A counter of the compact form: a label and a number.
fn mini_stat(key: &'static str, label: &'static str, v: u64, bad: bool) -> Html {
    html! {
        <span class={classes!("bc-stat", key, (bad && v > 0).then_some("bad"))}>
            <span class="bc-mini-label">{ label }</span>
            <b data-testid={format!("bc-{key}")} data-n={v.to_string()}>{ g(v) }</b>
        </span>
    }
}

/// The form inside a slide: the controls, then one panel with sent / total and the time gone
/// (animated as the lab plays), the counters this configuration is about, a strip of every
/// batch, and the newest incident — with a link to the full lab. The API's answer and the page
/// cost show where the slide's query names them (`clicks`, `mode=naive`, `paging`): the slide
/// is about them there, and elsewhere they are the same as on every other slide.
fn compact(r: &BroadcastResult, i: usize, named: &[String], link: Html) -> Html {
    let named = |k: &str| named.iter().any(|n| n == k);
    let f = r.frames.get(i).copied().unwrap_or_default();
    let now = f.at_ms;
    let p = &r.params;
    let c = &r.counters;
    let total = u64::from(p.tokens);
    let at_end = i + 1 >= r.frames.len();
    let lost = if at_end { c.lost } else { 0 };
    let queue = p.mode == "queue";
    // What this configuration is about, counted up to the cursor.
    let quota = r
        .attempts
        .iter()
        .filter(|a| a.to_ms <= now && a.why == Some(Why::Quota))
        .count() as u64;
    let stalled = r
        .moments
        .iter()
        .filter(|m| m.at_ms <= now && m.kind == "stalled")
        .count() as u64;
    let jobs = r
        .responses
        .iter()
        .filter(|x| x.queued && x.at_ms <= now)
        .count() as u64;
    let answer = (!queue || named("clicks")).then(|| {
        if queue {
            r.responses
                .first()
                .map(|a| format!("{} (200)", dur(a.ms)))
                .unwrap_or_default()
        } else {
            format!("504, {}-এ", dur(p.proxy_timeout * 1000))
        }
    });
    let pages =
        (queue && named("paging") && p.paging != "all" && r.page_costs.len() > 1).then(|| {
            let first = r.page_costs[0];
            let last = r.page_costs[r.page_costs.len() - 1];
            if p.paging == "offset" {
                format!("{} → {}", dur(first.offset_ms), dur(last.offset_ms))
            } else {
                format!("সবগুলো {}", dur(last.cursor_ms))
            }
        });
    html! {
        <div class="bc-mini" role="group" aria-label="পাঠানোর অগ্রগতি">
            <div class="bc-mini-row">
                <span class="bc-mini-big" data-testid="bc-delivered" data-n={f.delivered.to_string()}>
                    <span class="bc-mini-label">{"পাঠানো"}</span>
                    <b data-testid="bc-sent">{ format!("{} / {}", g(f.delivered), g(total)) }</b>
                </span>
                <span class="bc-mini-big">
                    <span class="bc-mini-label">{"সময় গেছে"}</span>
                    <b data-testid="bc-time" data-ms={now.to_string()}>{ dur(now) }</b>
                </span>
                if let Some(answer) = answer {
                    <span class="bc-stat answer"><span class="bc-mini-label">{"API-র উত্তর"}</span><b class={classes!((!queue).then_some("bad"))}>{ answer }</b></span>
                }
                { mini_stat("twice", "দুবার", f.twice, true) }
                { mini_stat("lost", "কখনো পায়নি", lost, true) }
                { mini_stat("calls", "FCM কল", f.calls, false) }
                if queue && p.clicks > 1 { { mini_stat("jobs", "জব", jobs, jobs > 1) } }
                if let Some(pg) = pages {
                    <span class={classes!("bc-stat", "pages", (p.paging == "offset").then_some("bad"))}><span class="bc-mini-label">{"পেজের কোয়েরি"}</span><b data-testid="bc-pages">{ pg }</b></span>
                }
                if queue && (p.outage > 0 || c.retries > 0) { { mini_stat("retries", "রিট্রাই", f.retries, false) } }
                if queue && (p.outage > 0 || c.failed_jobs > 0) { { mini_stat("failed", "failed set", f.failed, true) } }
                if c.calls_429 > 0 { { mini_stat("429", "429", quota, true) } }
                if c.stalled > 0 { { mini_stat("stalled", "stalled", stalled, false) } }
                if p.dead > 0 && p.mark_dead == "on" { { mini_stat("dead", "মরা টোকেন নেভানো", f.marked, false) } }
                if p.dead > 0 && p.mark_dead != "on" { { mini_stat("dead", "মরা টোকেনে কল, নেভানো নয়", if at_end { c.dead } else { 0 }, true) } }
                { link }
            </div>
            { strip(r, &f, now) }
            if has_incidents(r) { { last_incident(r, now) } }
        </div>
    }
}

/// The broadcast lab.
#[component]
pub fn BroadcastLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let typed: BroadcastParams = lab.typed();
    let embedded = props.embedded;
    // The naive loop never speaks Redis: nothing to run live. The queue runs live scaled
    // down; the simulation of the same scaled-down run is its prediction.
    let queue = typed.mode == "queue";
    let sl = use_sim_live_untyped::<BroadcastResult>(&lab, queue, true);
    let busy = sl.busy();
    let predicted = sl.predicted();
    let real = sl.real();
    let result = sl.shown();
    let frames = result.map_or(1, |r| r.frames.len().max(1));
    // A new result opens on the whole run; the naive loop's on the moment its process dies
    // (the seed's 3,214), with the rerun still to play.
    let open_at = result.and_then(|r| {
        (r.params.mode == "naive")
            .then(|| r.frames.iter().position(|f| f.at_ms >= r.params.dies_at))
            .flatten()
    });
    let t = use_timeline(frames, TICK_MS, open_at.map_or(Open::End, Open::At));
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
            let label = format!("{} / {}", dur(now), dur(r.end_ms));
            html! {
                <>
                    <Controls timeline={t.clone()} label={label} />
                    { compact(r, i, &named, open_full(&lab)) }
                </>
            }
        }
        Some(r) => {
            let i = cursor.min(r.frames.len().saturating_sub(1));
            let f = r.frames.get(i).copied().unwrap_or_default();
            let now = f.at_ms;
            let total = u64::from(r.params.tokens);
            let sent_pct = (f.delivered as f64 / total.max(1) as f64 * 100.0).clamp(0.0, 100.0);
            let label = format!("{} / {}", dur(now), dur(r.end_ms));
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
                            <span class="bc-big-n" data-testid="bc-time" data-ms={now.to_string()}>{ dur(now) }</span>
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
                        if r.params.mode == "queue" {
                            { stat("bc", "retries", "রিট্রাই", f.retries, false) }
                            { stat("bc", "failed", "failed set", f.failed, true) }
                            { stat("bc", "dead", "মরা টোকেন নেভানো", f.marked, false) }
                            { stat("bc", "429", "429 উত্তর", c.calls_429, true) }
                            { stat("bc", "stalled", "stalled থেকে ফেরত", c.stalled, false) }
                            { stat("bc", "commands", "Redis কমান্ড", c.commands, false) }
                        }
                    </dl>
                    if let (Some(sim), Some(real)) = (predicted, real) {
                        { compare(sim, real, sl.live.done) }
                    }
                    if r.params.mode == "naive" { { naive_note(r) } }
                    if r.params.mode == "queue" {
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
            {"একটা নোটিফিকেশন, ৫ লাখ ডিভাইস। নিচের প্রিসেটগুলো একে একে ভাঙন আর মেরামত দেখায়: API-র ভেতরে লুপ, কিউতে রেখে উত্তর, পেজিং, ৫০০-র ব্যাচ, থ্রটল, dedup, আউটেজে রিট্রাই, মরা টোকেন, ওয়ার্কার ক্র্যাশ। "}{ if real.is_some() { "কিউ এখন আসল Redis-এ (প্রক্সির এই সেশনের নামে) BullMQ-র মতো রাখা: " } else { "কিউ SimRedis-এ BullMQ-র মতো রাখা: " } }
            <code>{"bull:push:wait"}</code>{", "}<code>{"active"}</code>{", "}<code>{"delayed"}</code>{", "}<code>{"failed"}</code>{"।"}
        </>
    };
    let live = if queue {
        live_panel(&lab, &sl, Some(live_note(&typed.for_live(*sl.switch.scale))))
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
