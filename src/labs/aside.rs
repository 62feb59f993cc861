//! The cache-aside lab (patterns deck, slides 5–8): readers and writers of one product row,
//! the application's code between Redis and the database.
//!
//! It draws, on one time axis (logarithmic: the writes' milliseconds and the TTL's minutes
//! both readable): the database's committed price, the cache key's values (each `SET` to its
//! end: expired, deleted, replaced) with the stale windows in red, each writer's commit, pause
//! and cache step, each reader's `GET`s (hit, miss, stale) and database reads; what the command
//! at the cursor means, the counters so far, and the command log with Redis' replies.
//! Everything comes from `redislab_sim::labs::aside` (run in the simulation worker); the
//! timeline walks the run's commands one at a time.
//!
//! Live mode (its own page only): the same readers and writers against a real Redis through
//! the proxy, the TTLs and gaps a hundred times shorter; a table sets the simulation's
//! prediction of the same setup beside it.

use super::kit::{
    failed_or_progress, live_panel, stat, stat_f, use_lab, use_walk, CmdLog, CmdPos, Controls,
    LabFrame, LabProps,
};
use redislab_deck::bn;
use redislab_sim::labs::aside::{
    key, price_of, AsideOutput, AsideRun, CmdKind, CmdRow, DbKind, SpanEnd, FIRST_PRICE, INFO,
    MISSING, PRODUCT,
};
use redislab_sim::labs::log::CmdLine;
use redislab_sim::redis::Reply;
use yew::prelude::*;

/// The lab's view, by the name the dispatch uses.
pub use AsideLab as View;

/// Milliseconds per timeline tick.
const TICK_MS: u32 = 140;
/// Commands kept in the log (the newest, up to the cursor).
const LOG: usize = 14;

/// A moment of the run (`১২.৩ s`).
fn ms(v: u64) -> String {
    bn::qty(v as f64 / 1000.0, 1, bn::Unit::S)
}

fn price(p: u32) -> String {
    bn::int(i64::from(p))
}

/// The time axis: logarithmic from `unit` ms, so a run's first second and its TTL's minutes
/// both have room.
#[derive(Clone, Copy, PartialEq)]
struct Axis {
    end: u64,
    unit: f64,
}

impl Axis {
    fn new(end: u64) -> Self {
        Axis {
            end: end.max(1),
            unit: (end as f64 / 4000.0).max(1.0),
        }
    }

    /// A position, in percent.
    fn pos(&self, t: u64) -> f64 {
        let f = |t: f64| (1.0 + t / self.unit).ln();
        (f(t as f64) / f(self.end as f64) * 100.0).clamp(0.0, 100.0)
    }

    fn span(&self, from: u64, to: u64) -> String {
        let l = self.pos(from);
        let w = (self.pos(to) - l).max(0.3);
        format!("left: {l:.3}%; width: {w:.3}%")
    }

    fn at(&self, t: u64) -> String {
        format!("left: {:.3}%", self.pos(t))
    }

    /// The ticks: 0, the round powers of ten (100 ms, 1 s, 10 s, …) that leave room for
    /// their labels, and the end.
    fn ticks(&self) -> Vec<u64> {
        let mut out = vec![0];
        let mut last = 0.0;
        let mut t = 100;
        while t < self.end {
            let p = self.pos(t);
            if (10.0..=78.0).contains(&p) && p - last >= 14.0 {
                out.push(t);
                last = p;
            }
            t *= 10;
        }
        out.push(self.end);
        out
    }
}

/// An axis label, short: `০`, `১০০ms`, `১০s`, `৪০৪s`.
fn tick_label(t: u64) -> String {
    match t {
        0 => bn::int(0),
        t if t < 1000 => bn::qty(t as f64, 0, bn::Unit::Ms),
        t => bn::qty((t / 1000) as f64, 0, bn::Unit::S),
    }
}

/// The price a `SET` wrote (`None`: the "none" marker or not a row).
fn set_price(c: &CmdRow) -> Option<u32> {
    c.cmd.get(2).and_then(|v| price_of(v.as_bytes()))
}

fn lane(name: String, class: &'static str, data: String, body: Html) -> Html {
    html! {
        <div class={classes!("as-row", class)} data-lane={data}>
            <span class="as-name">{ name }</span>
            <div class="as-lane">{ body }</div>
        </div>
    }
}

/// The database's committed price over time, and its reads.
fn db_lane(r: &AsideOutput, cut: usize, now: u64, ax: &Axis) -> Html {
    let commits: Vec<_> =
        r.db.iter()
            .filter(|e| e.kind == DbKind::Commit && e.step < cut)
            .collect();
    let mut pieces = Vec::new();
    let mut from = 0;
    let mut p = FIRST_PRICE;
    for e in &commits {
        pieces.push((from, e.at_ms, p));
        from = e.at_ms;
        p = e.price.unwrap_or(p);
    }
    pieces.push((from, now, p));
    let reads =
        r.db.iter()
            .filter(|e| e.kind == DbKind::Read && e.step < cut);
    let body = html! {
        <>
            { for pieces.iter().enumerate().map(|(i, &(a, b, p))| html! {
                <span class={classes!("as-price", format!("as-v{}", i % 4))} style={ax.span(a, b.max(a))}
                    title={format!("ডেটাবেসে দাম {} · {}–{}", price(p), ms(a), ms(b))}>
                    <span class="as-price-n">{ price(p) }</span>
                </span>
            }) }
            { for reads.map(|e| html! {
                <span class="as-tick db-read" style={ax.at(e.at_ms)} title={format!("{} · SELECT (product {})", ms(e.at_ms), bn::int(i64::from(e.product)))}></span>
            }) }
            { for commits.iter().map(|e| html! {
                <span class="as-tick commit" style={ax.at(e.at_ms)} title={format!("{} · UPDATE commit: {}", ms(e.at_ms), e.price.map(price).unwrap_or_default())}></span>
            }) }
        </>
    };
    lane("ডেটাবেস".into(), "as-db", "db".into(), body)
}

/// A cache key's values over time, with the stale windows.
fn cache_lane(r: &AsideOutput, product: u32, cut: usize, now: u64, ax: &Axis) -> Html {
    let spans = r
        .spans
        .iter()
        .filter(|s| s.product == product && s.step < cut && s.from_ms <= now);
    let windows = r
        .windows
        .iter()
        .filter(|w| product == PRODUCT && w.step < cut && w.from_ms <= now);
    let body = html! {
        <>
            { for spans.map(|s| {
                let to = s.to_ms.min(now);
                let ended = s.to_ms <= now;
                let end = if ended { match s.end {
                    SpanEnd::Expired => "expired",
                    SpanEnd::Deleted => "deleted",
                    SpanEnd::Replaced => "replaced",
                    SpanEnd::Held => "held",
                } } else { "held" };
                let how = match (ended, s.end) {
                    (true, SpanEnd::Expired) => " · TTL ফুরোল",
                    (true, SpanEnd::Deleted) => " · DEL-এ মুছল",
                    (true, SpanEnd::Replaced) => " · নতুন SET-এ বদলাল",
                    _ => "",
                };
                let label = s.price.map_or("none".to_string(), price);
                html! {
                    <span class={classes!("as-val", end, s.price.is_none().then_some("none"))} style={ax.span(s.from_ms, to)}
                        title={format!("{} = {} · {}–{}{}", key(s.product), label, ms(s.from_ms), ms(to), how)}>
                        <span class="as-val-n">{ label }</span>
                    </span>
                }
            }) }
            { for windows.map(|w| html! {
                <span class="as-stale" style={ax.span(w.from_ms, w.to_ms.min(now))}
                    title={format!("বাসি: ক্যাশে {}, ডেটাবেসে {} · {}–{}", price(w.cached), price(w.db), ms(w.from_ms), ms(w.to_ms.min(now)))}></span>
            }) }
        </>
    };
    lane(
        format!(
            "Redis {}",
            if product == PRODUCT {
                "৯৯"
            } else {
                "৭৭৭৭"
            }
        ),
        "as-redis",
        key(product),
        body,
    )
}

/// An actor's lane: its commands, its database work and its pause.
fn actor_lane(r: &AsideOutput, actor: usize, cut: usize, now: u64, ax: &Axis) -> Html {
    let writer = actor >= r.setup.readers as usize;
    let cmds = r
        .commands
        .iter()
        .filter(|c| c.actor == actor && c.step < cut);
    let db = r.db.iter().filter(|e| e.actor == actor && e.step < cut);
    let pauses = r
        .pauses()
        .iter()
        .filter(|p| p.actor == actor && p.step < cut && p.from_ms <= now);
    let body = html! {
        <>
            { for pauses.map(|p| html! {
                <span class="as-pause" style={ax.span(p.from_ms, p.to_ms.min(now))}
                    title={format!("থমকে আছে {}–{} ({})", ms(p.from_ms), ms(p.to_ms), bn::duration(p.to_ms - p.from_ms))}></span>
            }) }
            { for db.map(|e| {
                let (cls, what) = match e.kind {
                    DbKind::Read => ("db-read", "SELECT"),
                    DbKind::Commit => ("commit", "UPDATE commit"),
                };
                html! { <span class={classes!("as-tick", cls)} style={ax.at(e.at_ms)} title={format!("{} · {what}", ms(e.at_ms))}></span> }
            }) }
            { for cmds.map(|c| {
                let cls = match c.kind {
                    _ if c.refused() => "refused",
                    CmdKind::Get if c.stale => "stale",
                    CmdKind::Get if c.hit() => "hit",
                    CmdKind::Get => "miss",
                    CmdKind::Fill | CmdKind::Negative | CmdKind::Update => "set",
                    CmdKind::Del => "del",
                };
                html! { <span class={classes!("as-tick", cls)} style={ax.at(c.at_ms)} title={format!("{} · {} → {}", ms(c.at_ms), c.cmd_text(), c.reply.as_ref().map_or("ECONNREFUSED".to_string(), |r| r.to_string()))}></span> }
            }) }
        </>
    };
    let name = if writer {
        format!("লেখক {}", r.name(actor))
    } else {
        format!("পাঠক {}", r.name(actor))
    };
    lane(
        name,
        if writer { "as-writer" } else { "as-reader" },
        r.name(actor),
        body,
    )
}

/// What the command at the cursor means, in one line.
fn now_line(r: &AsideOutput, n: usize) -> Html {
    let Some(c) = n.checked_sub(1).and_then(|i| r.commands.get(i)) else {
        return html! { <p class="lab-now" data-testid="aside-now">{"শুরু: পাঠকেরা আগে Redis-এ খোঁজে, না পেলে ডেটাবেসে"}</p> };
    };
    let who = r.name(c.actor);
    let db = r.db_price_at(c.at_ms);
    let p = set_price(c);
    let (say, bad) = match c.kind {
        _ if c.refused() => (
            format!("{who}: Redis বন্ধ — ECONNREFUSED; উত্তর আসবে ডেটাবেস থেকে"),
            false,
        ),
        CmdKind::Get if c.stale => (
            format!(
                "{who}: GET পেল বাসি দাম {} — ডেটাবেসে এখন {}",
                c.reply
                    .as_ref()
                    .ok()
                    .and_then(Reply::as_bulk)
                    .and_then(price_of)
                    .map(price)
                    .unwrap_or_default(),
                price(db)
            ),
            true,
        ),
        CmdKind::Get if c.hit() && c.key() != key(PRODUCT) => (
            format!("{who}: GET পেল “none” — product নেই, ডেটাবেসে যেতে হলো না"),
            false,
        ),
        CmdKind::Get if c.hit() => (format!("{who}: hit — দাম এল Redis থেকে"), false),
        CmdKind::Get if c.key() != key(PRODUCT) => (
            format!(
                "{who}: miss — product {} খোঁজে ডেটাবেসে যাচ্ছে",
                bn::int(i64::from(MISSING))
            ),
            false,
        ),
        CmdKind::Get => (format!("{who}: miss (nil) — এবার ডেটাবেস থেকে পড়বে"), false),
        CmdKind::Fill => {
            let stale = p.is_some_and(|p| p != db);
            (
                if stale {
                    format!(
                        "{who}: পুরোনো দাম {} ক্যাশে বসাল — ডেটাবেসে ততক্ষণে {}",
                        p.map(price).unwrap_or_default(),
                        price(db)
                    )
                } else {
                    format!(
                        "{who}: ডেটাবেসের দাম {} ক্যাশে বসাল, মেয়াদসহ",
                        p.map(price).unwrap_or_default()
                    )
                },
                stale,
            )
        }
        CmdKind::Negative => (format!("{who}: “নেই” উত্তরটাও ক্যাশে রাখল"), false),
        CmdKind::Update => {
            let stale = p.is_some_and(|p| p != db);
            (
                if stale {
                    format!(
                        "{who}: নিজের দাম {} ক্যাশে বসাল — কিন্তু ডেটাবেসে এখন {}",
                        p.map(price).unwrap_or_default(),
                        price(db)
                    )
                } else {
                    format!(
                        "{who}: নতুন দাম {} ক্যাশে বসাল (জায়গায় বদল)",
                        p.map(price).unwrap_or_default()
                    )
                },
                stale,
            )
        }
        CmdKind::Del => (
            if c.reply == Ok(Reply::Integer(1)) {
                format!("{who}: ক্যাশ মুছল — পরের পড়া ডেটাবেস থেকে নতুন দাম আনবে")
            } else {
                format!("{who}: DEL — ক্যাশে কিছু ছিল না")
            },
            false,
        ),
    };
    html! {
        <p class={classes!("lab-now", bad.then_some("bad"))} data-testid="aside-now">
            <span class="lab-now-t">{ ms(c.at_ms) }</span>{ " " }{ say }
        </p>
    }
}

fn log(r: &AsideOutput, n: usize, live: bool) -> Html {
    let upto = n.min(r.commands.len());
    let from = upto.saturating_sub(LOG);
    let lines: Vec<(CmdLine, Classes)> = r.commands[from..upto]
        .iter()
        .map(|c| {
            let writer = c.actor >= r.setup.readers as usize;
            (
                c.line(r.name(c.actor)),
                classes!(
                    if writer {
                        "as-by-writer"
                    } else {
                        "as-by-reader"
                    },
                    c.stale.then_some("stale")
                ),
            )
        })
        .collect();
    html! { <CmdLog {lines} lab="aside" {live} empty={Some(AttrValue::from("এখনো কোনো কমান্ড যায়নি"))} /> }
}

fn yes(b: bool) -> String {
    if b { "হ্যাঁ" } else { "না" }.to_string()
}

fn end_word(e: Option<SpanEnd>) -> String {
    match e {
        None => "—",
        Some(SpanEnd::Expired) => "TTL ফুরিয়ে",
        Some(SpanEnd::Deleted) => "DEL-এ",
        Some(SpanEnd::Replaced) => "নতুন SET-এ",
        Some(SpanEnd::Held) => "শেষেও বাসি",
    }
    .to_string()
}

/// The simulation's prediction beside the real run.
fn compare(sim: &AsideOutput, real: &AsideOutput, done: bool) -> Html {
    let (s, r) = (sim.outcome(), real.outcome());
    let n = |v: u32| bn::int(i64::from(v));
    let rows = [
        ("lasting", "টেকা বাসি সময়", n(s.lasting), n(r.lasting)),
        (
            "longest-end",
            "সবচেয়ে লম্বাটা শেষ হলো",
            end_word(s.longest_end),
            end_word(r.longest_end),
        ),
        (
            "final-price",
            "ডেটাবেসের শেষ দাম",
            price(s.final_price),
            price(r.final_price),
        ),
        (
            "stale-at-end",
            "শেষেও ক্যাশ বাসি",
            yes(s.stale_at_end),
            yes(r.stale_at_end),
        ),
        (
            "all-from-db",
            "সব উত্তর ডেটাবেস থেকে",
            yes(s.all_from_db),
            yes(r.all_from_db),
        ),
    ];
    crate::live::bar::outcome_table(&rows, done, "আসল Redis-এও ঠিক সিমুলেশনের মতোই শেষ হলো।")
}

/// The cache-aside lab.
#[component]
pub fn AsideLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let (sl, t) = use_walk::<AsideRun>(&lab, TICK_MS);
    let real = sl.real();
    let embedded = props.embedded;
    let view = match sl.shown() {
        None => failed_or_progress(&sl.sim),
        Some(r) => {
            let CmdPos { n, now, cut, label } = CmdPos::of(r, t.cursor, ms);
            let ax = Axis::new(r.end_ms);
            let c = r.so_far(n);
            let actors = r.setup.actors();
            let absent = r.setup.absent > 0;
            let mean = c.mean_ms();
            html! {
                <>
                    <Controls timeline={t.clone()} label={label} />
                    <div class="as-lanes" role="img" aria-label={format!("সময়রেখা (লগ স্কেল): ডেটাবেস, Redis-এ ক্যাশ, লেখক আর পাঠক — {} পর্যন্ত", ms(now))}>
                        { db_lane(r, cut, now, &ax) }
                        { cache_lane(r, PRODUCT, cut, now, &ax) }
                        if absent { { cache_lane(r, MISSING, cut, now, &ax) } }
                        { for (r.setup.readers as usize..actors).map(|a| actor_lane(r, a, cut, now, &ax)) }
                        { for (0..r.setup.readers as usize).map(|a| actor_lane(r, a, cut, now, &ax)) }
                        <div class="as-axis" aria-hidden="true">
                            { for ax.ticks().into_iter().map(|t| html! {
                                <span class="as-axis-t" style={ax.at(t)}>{ tick_label(t) }</span>
                            }) }
                        </div>
                        <div class="as-cursor-track" aria-hidden="true">
                            <span class="as-cursor" style={ax.at(now)}></span>
                        </div>
                    </div>
                    <p class="as-key" aria-hidden="true">
                        <span class="as-k hit">{"hit"}</span>
                        <span class="as-k miss">{"miss"}</span>
                        <span class="as-k stale">{"বাসি পড়া"}</span>
                        <span class="as-k set">{"SET"}</span>
                        <span class="as-k del">{"DEL"}</span>
                        <span class="as-k db-read">{"ডেটাবেস পড়া"}</span>
                        <span class="as-k commit">{"ডেটাবেসে লেখা"}</span>
                        <span class="as-k win">{"ক্যাশ বাসি"}</span>
                        <span class="as-k as-k-note">{"সময়-অক্ষ লগ স্কেলে"}</span>
                    </p>
                    <div class="lab-status">
                        { now_line(r, n) }
                        <dl class="lab-stats">
                            { stat("aside", "requests", "রিকোয়েস্ট", u64::from(c.requests), false) }
                            { stat("aside", "hits", "hit", u64::from(c.hits + c.negative_hits), false) }
                            { stat("aside", "misses", "miss", u64::from(c.misses), false) }
                            { stat("aside", "db-reads", "ডেটাবেস পড়া", u64::from(c.db_reads), false) }
                            { stat("aside", "stale-reads", "বাসি পড়া", u64::from(c.stale_reads), true) }
                            { stat_f("aside", "longest-stale", "সবচেয়ে লম্বা বাসি সময়", c.longest_stale_ms as f64, bn::duration(c.longest_stale_ms)) }
                            if !embedded {
                                { stat("aside", "refused", "ফিরিয়ে দেওয়া কমান্ড", u64::from(c.refused), false) }
                                { stat_f("aside", "mean", "গড় উত্তর", mean, bn::qty(mean, 1, bn::Unit::Ms)) }
                            }
                        </dl>
                    </div>
                    if let (Some(sim), Some(real)) = (sl.predicted(), real) {
                        { compare(sim, real, sl.live.done) }
                    }
                    if !embedded { { log(r, n, real.is_some()) } }
                </>
            }
        }
    };
    let lead = html! {
        <>
            {"পাঠক আগে "}<code>{"GET cache:product:99"}</code>{" করে; না পেলে (miss) ডেটাবেস থেকে পড়ে "}
            <code>{"SET … EX 300"}</code>{" দিয়ে ক্যাশে রাখে। লেখক ডেটাবেসে দাম বদলে ক্যাশ হয় জায়গায় বদলায়, নয়তো মোছে। কাউকে থমকে দিন আর দেখুন ক্যাশ কতক্ষণ বাসি থাকে — TTL-ই তার সীমা।"}
        </>
    };
    let live = live_panel(&lab, &sl, None);
    html! {
        <LabFrame lab={lab.clone()} busy={sl.busy()} {lead} {live}>
            <div class="as-main">{ view }</div>
        </LabFrame>
    }
}
