//! The auth lab (production slide 11): every protected request's three lookups — who the
//! user is, which course the id belongs to, does the student have access — with and without
//! the Redis cache, and a ban against the user entry's TTL.
//!
//! It draws the database's queries second by second beside what the same requests would cost
//! without the cache (4 each), the warm window (every student seen, no key expired: 0
//! queries), and — with a ban — the banned student's requests (let in or refused) under the
//! user entries cached for them, the ban's start and end marked; the counters up to the
//! cursor; the student's commands. Everything comes from `redislab_sim::labs::auth`, run in
//! the simulation worker; the timeline walks the seconds. No live mode (see the simulator's
//! module doc).

use super::kit::{
    failed_or_progress, open_full, stat, stat_f, use_lab, use_run, use_steps, CmdLog, Controls,
    LabFrame, LabProps, Open,
};
use redislab_deck::bn;
use redislab_sim::labs::auth::{AuthOutput, AuthRun, BanOutcome, INFO, QUERIES_UNCACHED};
use yew::prelude::*;

/// The lab's view, by the name the dispatch uses.
pub use AuthLab as View;

/// Milliseconds per timeline tick (one second of virtual time).
const TICK_MS: u32 = 60;
/// Most bars in the chart.
const BARS: usize = 80;
/// Log lines shown (the newest up to the cursor).
const LOG: usize = 14;

fn secs(ms: u64) -> String {
    bn::qty(ms as f64 / 1000.0, 1, bn::Unit::S)
}

fn n(v: u64) -> String {
    bn::grouped(i64::try_from(v).unwrap_or(i64::MAX))
}

/// Where the banned student stands at `t`.
fn ban_state(o: &AuthOutput, b: &BanOutcome, t: u64) -> (&'static str, bool) {
    let end = b.ends_ms.unwrap_or(u64::MAX);
    let listed = b.listed_until_ms.unwrap_or(0);
    let filters = o.params.filters();
    if t < b.at_ms {
        ("এখনো ব্যান হয়নি", false)
    } else if t <= b.stale_until_ms && t < end {
        ("ব্যান হয়েছে, কিন্তু ক্যাশের পুরোনো এন্ট্রিতে নেই — ঢুকছে", true)
    } else if t < end {
        ("ব্যান কার্যকর — ফেরানো হচ্ছে", false)
    } else if !filters && t <= listed {
        ("ব্যান শেষ, কিন্তু ক্যাশের এন্ট্রিতে এখনো আছে — এখনো ফেরানো হচ্ছে", true)
    } else {
        ("ব্যান শেষ — আবার ঢুকছে", false)
    }
}

/// What happened up to position `k` (the first `k` seconds).
fn now_line(o: &AuthOutput, k: usize) -> Html {
    let (r, q) = o.so_far(k);
    let per = q as f64 / r.max(1) as f64;
    let t = (k as u64) * 1000;
    let mut say = if o.params.cached() {
        format!(
            "{} রিকোয়েস্ট, ডেটাবেসে {} কোয়েরি — রিকোয়েস্টপিছু {}; ক্যাশ ছাড়া হতো {}",
            n(r),
            n(q),
            bn::dec(per, 3),
            n(u64::from(QUERIES_UNCACHED) * r)
        )
    } else {
        format!(
            "{} রিকোয়েস্ট, ডেটাবেসে {} কোয়েরি — রিকোয়েস্টপিছু {}",
            n(r),
            n(q),
            bn::dec(per, 2)
        )
    };
    let mut bad = false;
    if let Some(b) = &o.ban {
        let (s, warn) = ban_state(o, b, t.saturating_sub(1));
        say = format!("{say}। {}: {s}", o.watched);
        bad = warn;
    }
    html! {
        <p class={classes!("lab-now", bad.then_some("bad"))} data-testid="auth-now">
            <span class="lab-now-t">{ secs(t) }</span>{ " " }{ say }
        </p>
    }
}

/// Queries per second (bars) against 4 × the requests (the line), the warm window shaded,
/// the ban's moments marked, the cursor after the first `k` seconds.
fn chart(o: &AuthOutput, k: usize) -> Html {
    let n_secs = o.secs.len().max(1);
    let group = n_secs.div_ceil(BARS).max(1);
    let bars: Vec<(u64, u64)> = o
        .secs
        .chunks(group)
        .map(|c| {
            c.iter().fold((0, 0), |(r, q), s| {
                (r + u64::from(s.requests), q + u64::from(s.queries))
            })
        })
        .collect();
    let top = bars
        .iter()
        .map(|&(r, q)| (u64::from(QUERIES_UNCACHED) * r).max(q))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let w = 1000.0 / bars.len().max(1) as f64;
    let y = |v: u64| 100.0 - v as f64 / top * 100.0;
    let x_ms = |ms: u64| (ms as f64 / 1000.0 / (group * bars.len().max(1)) as f64 * 1000.0).min(1000.0);
    // Bars whose seconds have all passed at position k are drawn as done.
    let mut done = String::new();
    let mut later = String::new();
    for (i, &(_, q)) in bars.iter().enumerate() {
        if q == 0 {
            continue;
        }
        let d = format!(
            "M{:.2} 100V{:.2}H{:.2}V100Z",
            i as f64 * w,
            y(q),
            (i as f64 + 1.0) * w - w * 0.15
        );
        if (i + 1) * group <= k { &mut done } else { &mut later }.push_str(&d);
    }
    let mut line = String::new();
    for (i, &(r, _)) in bars.iter().enumerate() {
        let v = y(u64::from(QUERIES_UNCACHED) * r);
        line.push_str(&format!(
            "{}{:.2} {v:.2}H{:.2}",
            if i == 0 { "M" } else { "L" },
            i as f64 * w,
            (i as f64 + 1.0) * w
        ));
    }
    let cx = k as f64 / (group * bars.len().max(1)) as f64 * 1000.0;
    let per_bar = if group == 1 {
        "প্রতি সেকেন্ডে".to_string()
    } else {
        format!("প্রতি {} সেকেন্ডে", bn::int(group as i64))
    };
    let mark = |ms: u64, class: &'static str| {
        let x = format!("{:.2}", x_ms(ms));
        html! { <line class={classes!("au-mark", class)} x1={x.clone()} x2={x} y1="0" y2="100" /> }
    };
    let end = o.params.duration * 1000;
    html! {
        <figure class="au-chart" data-testid="auth-chart">
            <figcaption class="au-chart-title">{ format!("ডেটাবেস কোয়েরি, {per_bar}") }</figcaption>
            <div class="au-chart-body">
                <div class="au-y" aria-hidden="true"><span>{ n(top as u64) }</span><span>{"০"}</span></div>
                <div class="au-plot">
                    <svg viewBox="0 0 1000 100" preserveAspectRatio="none" role="img"
                        aria-label={format!("ডেটাবেস কোয়েরি {per_bar}, আর ক্যাশ ছাড়া একই রিকোয়েস্টে কত হতো")}>
                        if let Some(wm) = &o.warm {
                            <rect class="au-warm" x={format!("{:.2}", x_ms(wm.from_ms))} y="0"
                                width={format!("{:.2}", x_ms(wm.to_ms) - x_ms(wm.from_ms))} height="100" />
                        }
                        if o.params.cached() {
                            <path class="au-nocache" d={line} />
                        }
                        <path class="au-bars done" d={done} />
                        <path class="au-bars later" d={later} />
                        if let Some(b) = &o.ban {
                            { mark(b.at_ms, "ban") }
                            if b.stale_until_ms > b.at_ms { { mark(b.stale_until_ms, "stale") } }
                            if let Some(e) = b.ends_ms { { mark(e, "ends") } }
                        }
                        <line class="au-cursor" x1={format!("{cx:.2}")} x2={format!("{cx:.2}")} y1="0" y2="100" />
                    </svg>
                </div>
                <div class="au-x" aria-hidden="true"><span>{"০ s"}</span><span>{ secs(end) }</span></div>
                if let Some(b) = &o.ban {
                    <div class="au-lane-who" aria-hidden="true">{ o.watched.clone() }</div>
                    { lane(o, b, k, (group * bars.len()) as u64 * 1000) }
                }
            </div>
            <div class="au-legend">
                <span class="au-key q">{"ডেটাবেস কোয়েরি"}</span>
                if o.params.cached() {
                    <span class="au-key nc">{"ক্যাশ ছাড়া: ৪ × রিকোয়েস্ট"}</span>
                    if o.warm.is_some() { <span class="au-key warm">{"গরম: সব key ক্যাশে, মেয়াদ ফুরোয়নি"}</span> }
                }
                if o.ban.is_some() {
                    <span class="au-key ban">{"ব্যান শুরু / শেষ"}</span>
                    <span class="au-key in">{ format!("{}: ঢুকল", o.watched) }</span>
                    <span class="au-key out">{"ফেরানো"}</span>
                    <span class="au-key entry">{"ক্যাশে তার এন্ট্রি"}</span>
                }
                if o.ban.as_ref().is_some_and(|b| b.stale_until_ms > b.at_ms) {
                    <span class="au-key stale">{"পুরোনো এন্ট্রির মেয়াদ শেষ"}</span>
                }
            </div>
        </figure>
    }
}

/// The banned student's requests (ticks: let in or refused) under the user entries cached for
/// them (bars: with the ban listed or not): a lane under the chart, on its time axis.
fn lane(o: &AuthOutput, b: &BanOutcome, k: usize, span_ms: u64) -> Html {
    let end = span_ms.max(1);
    let x = |ms: u64| ms as f64 / end as f64 * 1000.0;
    let t = k as u64 * 1000;
    let listed = o.params.filters();
    let label = format!(
        "{}-এর রিকোয়েস্ট (ঢুকল বা ফেরানো) আর ক্যাশে তার ইউজার এন্ট্রি",
        o.watched
    );
    html! {
        // A lane of ticks on the chart's time axis, not a chart of its own: the lane is the image.
        <div class="au-lane" data-testid="auth-strip" role="img" aria-label={label}>
            <svg viewBox="0 0 1000 40" preserveAspectRatio="none" aria-hidden="true">
                { for o.entries.iter().map(|e| {
                    let cls = if e.banned { if listed { "filtered" } else { "banned" } } else { "clean" };
                    html! {
                        <rect class={classes!("au-entry", cls, (e.set_ms > t).then_some("later"))}
                            x={format!("{:.2}", x(e.set_ms))} y="2"
                            width={format!("{:.2}", (x(e.expires_ms.min(end)) - x(e.set_ms)).max(1.0))} height="12" />
                    }
                }) }
                { for o.visits.iter().map(|v| html! {
                    <rect class={classes!("au-visit", if v.allowed { "in" } else { "out" }, (v.at_ms > t).then_some("later"))}
                        x={format!("{:.2}", x(v.at_ms) - 1.5)} y="18" width="3" height="22" />
                }) }
                <line class="au-mark ban" x1={format!("{:.2}", x(b.at_ms))} x2={format!("{:.2}", x(b.at_ms))} y1="0" y2="40" />
                if let Some(e) = b.ends_ms {
                    <line class="au-mark ends" x1={format!("{:.2}", x(e))} x2={format!("{:.2}", x(e))} y1="0" y2="40" />
                }
            </svg>
        </div>
    }
}

/// The ban's numbers.
fn ban_stats(o: &AuthOutput, b: &BanOutcome, embedded: bool) -> Html {
    let late = b.last_let_in_ms.map_or(0, |t| t.saturating_sub(b.at_ms));
    let back = b
        .ends_ms
        .map(|e| b.back_in_ms.map_or(0, |t| t.saturating_sub(e)));
    html! {
        <>
            { stat("auth", "let-in", "ব্যানের পরে ঢুকল (বার)", u64::from(b.let_in), true) }
            { stat_f("auth", "late", "শেষবার, ব্যানের পরে", late as f64 / 1000.0, secs(late)) }
            if !embedded {
                { stat_f("auth", "stale", "পুরোনো এন্ট্রি রইল ব্যানের পরে (≤ TTL)", (b.stale_until_ms - b.at_ms) as f64 / 1000.0, secs(b.stale_until_ms - b.at_ms)) }
            }
            if let Some(back) = back {
                { stat("auth", "refused-after-end", "ব্যান শেষে তবু ফেরানো (বার)", u64::from(b.refused_after_end), true) }
                { stat_f("auth", "back", if o.params.filters() { "আবার ঢুকল, শেষের পরে (প্রথম রিকোয়েস্টেই)" } else { "আবার ঢুকল, শেষের পরে" }, back as f64 / 1000.0, secs(back)) }
            }
        </>
    }
}

/// The lab.
#[component]
pub fn AuthLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let run = use_run::<AuthRun>(&lab, true);
    let t = use_steps(run.result(), TICK_MS, Open::End);
    let embedded = props.embedded;
    let view = match run.result() {
        None => failed_or_progress(&run),
        Some(o) if o.secs.is_empty() => Html::default(),
        Some(o) => {
            let k = t.cursor.min(o.secs.len());
            let (r, q) = o.so_far(k);
            let label = format!("{} / {}", secs(k as u64 * 1000), secs(o.params.duration * 1000));
            let cut = k as u64 * 1000;
            // The log is in time order: the newest LOG lines before the cursor's second ends.
            let upto = o.log.partition_point(|l| l.at_ms < cut);
            let lines: Vec<_> = o.log[upto.saturating_sub(LOG)..upto]
                .iter()
                .map(|l| {
                    let cls = if l.cmd.is_empty() { "au-note" } else { "au-cmd" };
                    (l.clone(), classes!(cls))
                })
                .collect();
            html! {
                <>
                    <Controls timeline={t.clone()} label={label} />
                    if !embedded { { now_line(o, k) } }
                    { chart(o, k) }
                    <div class="au-row">
                    <dl class="lab-stats au-stats">
                        if !embedded {
                            { stat("auth", "requests", "রিকোয়েস্ট", r, false) }
                            { stat("auth", "queries", "ডেটাবেস কোয়েরি", q, false) }
                        }
                        { stat_f("auth", "per-request", "রিকোয়েস্টপিছু কোয়েরি", q as f64 / r.max(1) as f64, bn::dec(q as f64 / r.max(1) as f64, 3)) }
                        if o.params.cached() {
                            if !embedded {
                                { stat("auth", "uncached", "ক্যাশ ছাড়া হতো", u64::from(QUERIES_UNCACHED) * r, false) }
                            }
                            if let Some(w) = &o.warm {
                                <div class="lab-stat warm">
                                    <dt>{ if embedded { "গরম অবস্থায় কোয়েরি".to_string() } else { format!("গরম অবস্থায় ({}–{}) কোয়েরি", secs(w.from_ms), secs(w.to_ms)) } }</dt>
                                    <dd data-testid="auth-warm-queries" data-figure="warm-queries" data-n={w.queries.to_string()} data-requests={w.requests.to_string()}>
                                        { format!("{} ({} রিকোয়েস্টে)", n(w.queries), n(w.requests)) }
                                    </dd>
                                </div>
                            }
                        }
                        if let Some(b) = &o.ban { { ban_stats(o, b, embedded) } }
                    </dl>
                    if embedded { { open_full(&lab) } }
                    </div>
                    if !embedded {
                        <dl class="lab-stats au-loads">
                            { stat("auth", "user-loads", "ইউজার লোড (২ কোয়েরি)", o.user_loads, false) }
                            { stat("auth", "context-loads", "কোর্স-কনটেক্সট লোড", o.context_loads, false) }
                            { stat("auth", "access-loads", "অ্যাক্সেস লোড", o.access_loads, false) }
                            { stat("auth", "zero", "০ কোয়েরির রিকোয়েস্ট (পুরো রান)", o.zero_query, false) }
                            { stat("auth", "commands", "Redis কমান্ড", o.commands, false) }
                        </dl>
                        <CmdLog {lines} lab="auth" secs={true} class={classes!("au-log")}
                            empty={Some(AttrValue::from(format!("{}-এর এখনো কোনো রিকোয়েস্ট নেই", o.watched)))} />
                    }
                </>
            }
        }
    };
    let lead = html! {
        <>
            {"প্রতিটা প্রোটেক্টেড রিকোয়েস্ট তিনটা প্রশ্ন করে: ইউজার কে (সাথে চলতি ব্যান/রেস্ট্রিকশন), আইডিটা কোন কোর্সের, তার অ্যাক্সেস আছে কি। ক্যাশ ছাড়া এর দাম ৪টা ডেটাবেস কোয়েরি। ক্যাশে প্রতিটা প্রশ্ন cache-aside: "}
            <code>{"GET"}</code>{"; না পেলে ডেটাবেস, তারপর "}<code>{"SET … EX <ttl>"}</code>
            {" — ইউজার ৬০ s, বাকি দুটো ১২০ s। ছায়া-দেওয়া অংশে সবার সব key ক্যাশে আর কোনোটার মেয়াদ ফুরোয়নি: সেখানে কোয়েরি ঠিক ০; পরে শুধু TTL ফুরোলে আবার লোড। ব্যানে ক্যাশ থেকে কিছু মোছা হয় না, তাই পুরোনো এন্ট্রি ফুরোনো পর্যন্ত (বড়জোর ৬০ s) ব্যান-হওয়া স্টুডেন্ট ঢোকে; ব্যান শেষ হলে পড়ার পরে ছেঁকে ফেলায় অপেক্ষা নেই। ডেটাবেসের সময় এখানে ধরা হয়নি — গোনা হয় শুধু কোয়েরি।"}
        </>
    };
    html! {
        // Inside a slide: no preset buttons and the link under the numbers, so the slide, its
        // bullets and the lab fit the stage (the page has every preset).
        <LabFrame lab={lab.clone()} busy={run.busy()} {lead} slide_presets={false} link={false}>
            <div class="au-main">{ view }</div>
        </LabFrame>
    }
}
