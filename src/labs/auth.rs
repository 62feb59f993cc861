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

use super::kit::time_chart::{
    time_chart, Band, Key, Lane, Line, Mark, Seg, Shape, Stack, Tick, TimeChart, Tone,
};
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
        (
            "ব্যান শেষ, কিন্তু ক্যাশের এন্ট্রিতে এখনো আছে — এখনো ফেরানো হচ্ছে",
            true,
        )
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

/// Queries per second (bars) against 4 × the requests (the dashed line), the warm window
/// shaded, the ban's moments marked, and with a ban the banned student's requests (let in or
/// refused) under the user entries cached for them — all on the kit's time chart, the cursor
/// after the first `k` seconds.
fn chart(o: &AuthOutput, k: usize) -> Html {
    let group = o.secs.len().div_ceil(BARS).max(1);
    let sums: Vec<(f64, f64)> = o
        .secs
        .chunks(group)
        .map(|c| {
            c.iter().fold((0.0, 0.0), |(r, q), s| {
                (r + f64::from(s.requests), q + f64::from(s.queries))
            })
        })
        .collect();
    let per_bar = if group == 1 {
        "প্রতি সেকেন্ডে".to_string()
    } else {
        format!("প্রতি {} সেকেন্ডে", bn::int(group as i64))
    };
    let mut c = TimeChart {
        title: format!("ডেটাবেস কোয়েরি, {per_bar}"),
        label: format!("ডেটাবেস কোয়েরি {per_bar}, আর ক্যাশ ছাড়া একই রিকোয়েস্টে কত হতো"),
        bucket_ms: group as f64 * 1000.0,
        stacks: vec![Stack {
            label: "ডেটাবেস কোয়েরি".into(),
            tone: Tone::Amber,
            values: sums.iter().map(|s| s.1).collect(),
        }],
        span_ms: (group * sums.len()).max(1) as f64 * 1000.0,
        now_ms: Some(k as f64 * 1000.0),
        ..TimeChart::default()
    };
    if o.params.cached() {
        c.lines.push(Line {
            label: "ক্যাশ ছাড়া: ৪ × রিকোয়েস্ট".into(),
            tone: Tone::Red,
            values: sums
                .iter()
                .map(|s| f64::from(QUERIES_UNCACHED) * s.0)
                .collect(),
        });
        if let Some(w) = &o.warm {
            c.bands.push(Band {
                label: "গরম: সব key ক্যাশে, মেয়াদ ফুরোয়নি".into(),
                tone: Tone::Teal,
                from_ms: w.from_ms as f64,
                to_ms: w.to_ms as f64,
            });
        }
    }
    if let Some(b) = &o.ban {
        c.marks.push(Mark {
            label: "ব্যান শুরু / শেষ".into(),
            tone: Tone::Red,
            at_ms: b.at_ms as f64,
            dashed: false,
        });
        if b.stale_until_ms > b.at_ms {
            c.marks.push(Mark {
                label: "পুরোনো এন্ট্রির মেয়াদ শেষ".into(),
                tone: Tone::Teal,
                at_ms: b.stale_until_ms as f64,
                dashed: true,
            });
        }
        if let Some(e) = b.ends_ms {
            c.marks.push(Mark {
                label: String::new(),
                tone: Tone::Red,
                at_ms: e as f64,
                dashed: true,
            });
        }
        c.lanes.push(lane(o));
        c.keys = vec![
            Key::new(format!("{}: ঢুকল", o.watched), Tone::Green, Shape::Tick),
            Key::new("ফেরানো", Tone::Red, Shape::Tick),
            Key::new("ক্যাশে তার এন্ট্রি", Tone::Teal, Shape::Box),
        ];
    }
    html! { <div class="au-chart" data-testid="auth-chart">{ time_chart(&c) }</div> }
}

/// The banned student's requests (ticks: let in or refused) under the user entries cached
/// for them (segments: listing the ban or not).
fn lane(o: &AuthOutput) -> Lane {
    let listed = o.params.filters();
    Lane {
        name: o.watched.clone(),
        segs: o
            .entries
            .iter()
            .map(|e| {
                let (tone, what) = match (e.banned, listed) {
                    (false, _) => (Tone::Teal, "ব্যান নেই"),
                    (true, true) => (Tone::Blue, "ব্যান আছে — পড়ার পরে ছাঁকা হয়"),
                    (true, false) => (Tone::Red, "ব্যান আছে"),
                };
                Seg {
                    from_ms: e.set_ms as f64,
                    to_ms: e.expires_ms as f64,
                    tone,
                    title: format!(
                        "ক্যাশে ইউজার এন্ট্রি {}–{}: {what}",
                        secs(e.set_ms),
                        secs(e.expires_ms)
                    ),
                }
            })
            .collect(),
        ticks: o
            .visits
            .iter()
            .map(|v| Tick {
                at_ms: v.at_ms as f64,
                tone: if v.allowed { Tone::Green } else { Tone::Red },
                title: format!(
                    "{}: {}",
                    secs(v.at_ms),
                    if v.allowed {
                        "ঢুকল"
                    } else {
                        "ফেরানো"
                    }
                ),
                glyph: None,
            })
            .collect(),
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
            let label = format!(
                "{} / {}",
                secs(k as u64 * 1000),
                secs(o.params.duration * 1000)
            );
            let cut = k as u64 * 1000;
            // The log is in time order: the newest LOG lines before the cursor's second ends.
            let upto = o.log.partition_point(|l| l.at_ms < cut);
            let lines: Vec<_> = o.log[upto.saturating_sub(LOG)..upto]
                .iter()
                .map(|l| {
                    let cls = if l.cmd.is_empty() {
                        "au-note"
                    } else {
                        "au-cmd"
                    };
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
