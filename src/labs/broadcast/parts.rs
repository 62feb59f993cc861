//! The broadcast lab's pictures: each batch's state at a moment (a grid on the page, a strip
//! on a slide), sent over time, the page cost of offset against cursor paging, and the
//! incidents (retries, the failed set, crashes, the outage) as lines.

use super::{g, secs};
use redislab_deck::bn;
use redislab_sim::labs::broadcast::{
    Attempt, BroadcastOutput, End, Frame, Mode, Moment, PageCost, Paging, Why,
};
use yew::prelude::*;

fn why_text(w: Why) -> &'static str {
    match w {
        Why::DbTimeout => "Postgres-এ কানেকশন মেলেনি (টাইমআউট)",
        Why::TooMany => "FCM পুরো কল ফিরিয়ে দিল: ৫০০-র বেশি টোকেন",
        Why::Unavailable => "FCM আউটেজ: টোকেনগুলো server-unavailable, ওয়ার্কার শুধু সেগুলো রেখে ছুড়ল",
        Why::Quota => "FCM: 429 message-rate-exceeded (মিনিটের কোটা শেষ, retry-after)",
    }
}

/// A batch's state at time `t`, from its runs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Cell {
    Waiting,
    Running,
    Sent,
    Retry,
    Failed,
}

pub(super) fn cells(r: &BroadcastOutput, t: u64) -> Vec<Cell> {
    let n = r.batches as usize;
    let mut out = vec![Cell::Waiting; n];
    for a in r.runs().into_iter().filter(|a| a.from_ms <= t) {
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
pub(super) fn grid(r: &BroadcastOutput, t: u64) -> Html {
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
                aria-label={format!("{}টা ব্যাচ: পাঠানো {}, রিট্রাইয়ের অপেক্ষায় {}, failed set-এ {}", bn::int(n as i64), g(count(Cell::Sent) as u64), g(count(Cell::Retry) as u64), g(count(Cell::Failed) as u64))}>
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
pub(super) fn sent_chart(r: &BroadcastOutput, t: u64) -> Html {
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
pub(super) fn page_chart(r: &BroadcastOutput) -> Html {
    let costs = &r.page_costs();
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
    let line = |f: fn(&PageCost) -> u64| -> String {
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
    let chosen = r.params.paging;
    html! {
        <figure class="bc-pages" data-testid="bc-pages">
            <svg viewBox="0 0 100 30" preserveAspectRatio="none" aria-hidden="true">
                <polyline class={classes!("offset", (chosen == Paging::Offset).then_some("on"))} points={line(|c| c.offset_ms)} />
                <polyline class={classes!("cursor", (chosen == Paging::Cursor).then_some("on"))} points={line(|c| c.cursor_ms)} />
            </svg>
            <figcaption>
                { format!("প্রতি পেজের কোয়েরি ({} পেজ): ", g(costs.len() as u64)) }
                <span class="offset">{ format!("offset — প্রথমটা {}, শেষটা (skip {}) {}", bn::duration(costs[0].offset_ms), g(u64::from(r.params.page) * (costs.len() as u64 - 1)), bn::duration(last.offset_ms)) }</span>
                {" · "}
                <span class="cursor">{ format!("cursor — সবগুলো {}", bn::duration(last.cursor_ms)) }</span>
                { format!(" · সব রো একসাথে: {} MB, প্রসেসের মেমোরি {} MB", g(r.memory_mb.0), g(r.params.heap_mb)) }
            </figcaption>
        </figure>
    }
}

/// Retries and incidents up to `t`, newest last (only the last few are drawn).
pub(super) fn incidents(r: &BroadcastOutput, t: u64, keep: usize) -> Html {
    enum Row<'a> {
        A(&'a Attempt),
        M(&'a Moment),
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

pub(super) fn moment_row(m: &Moment) -> Html {
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
        "outage" => format!("FCM আউটেজ শুরু ({})", bn::duration(m.n * 1000)),
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

pub(super) fn attempt_row(a: &Attempt) -> Html {
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

/// The newest incident up to `t` as one line, or a calm line before the first.
pub(super) fn last_incident(r: &BroadcastOutput, t: u64) -> Html {
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
pub(super) fn has_incidents(r: &BroadcastOutput) -> bool {
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
pub(super) fn strip(r: &BroadcastOutput, f: &Frame, t: u64) -> Html {
    use std::fmt::Write;
    let mut paths: [String; 5] = Default::default();
    let cols;
    if r.params.mode == Mode::Naive {
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
