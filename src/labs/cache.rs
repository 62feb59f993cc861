//! The cache-engine lab (production deck, slides 4–6 and 19): API instances read one hot key
//! through the envelope cache; every layer off beside the chosen layers, on the same seed.
//!
//! It shows, per side, a lane per instance with each request as a bar from its arrival to its
//! answer, coloured by its path (FRESH / STALE / MISS / LOCK / WAIT / ERROR / Redis-less DB),
//! database queries over time, and the counters up to the timeline's cursor (DB queries, the
//! most at once, stale answers, time spent waiting); below, the command log (time, instance,
//! command, reply) newest first at the cursor, and `labsim cache`'s table for the same run.
//! The runs come from `redislab-sim`'s `labs::cache` (its run `CachePair`, whose output is
//! what `labsim cache --json` prints), computed in the simulation worker; the timeline walks
//! the output's steps (equal slices of the pair's time).
//!
//! Live mode (its own page only): the "আসল Redis" switch runs the chosen layers' instances
//! against a real Redis through the proxy (in the worker, [`crate::live::use_live`]) — real
//! `GET`, `SET … PX`, `SET lock:… NX PX`, `DEL`, the named `extend`/`release` scripts — at a
//! chosen time scale, with the counts scaled down to what one proxy connection carries. The
//! pair then shows the simulation's prediction of the same config beside the real run, a
//! table sets their counts side by side, and the log shows Redis' real replies with round
//! trips.

use super::kit::{
    failed_or_progress, live_panel, open_full, stat, stat_f, use_lab, use_sim_live, use_steps,
    CmdLog, Controls, LabFrame, LabProps, Open, ParamForm, TimeAction,
};
use crate::live::bar::{counts_table, CountRow};
use redislab_deck::bn;
use redislab_sim::labs::cache::output::waited_s;
use redislab_sim::labs::cache::{
    CacheConfig, CacheOutput, CachePair, CacheParams, Counts, Health, Layers, Path, SideKeys,
    SideTimeline, INFO, LIVE_NAMES, PAIR_NAMES,
};
use redislab_sim::labs::def::Steps;
use redislab_sim::labs::log::CmdLine;
use yew::prelude::*;

/// The lab's view, by the name the dispatch uses.
pub use CacheLab as View;

/// Milliseconds per timeline tick.
const TICK_MS: u32 = 100;
/// Log lines shown at most (the newest up to the cursor).
const LOG_LINES: usize = 80;

/// A path's CSS class and Bengali meaning.
fn about(p: Path) -> (&'static str, &'static str) {
    match p {
        Path::Fresh => ("fresh", "টাটকা, সাথে সাথে"),
        Path::Stale => ("stale", "বাসিটা দিয়ে পেছনে রিফ্রেশ"),
        Path::Miss => ("miss", "লক ছাড়াই নিজে DB-তে"),
        Path::Lock => ("lock", "লক নিয়ে DB-তে"),
        Path::Wait => ("wait", "অন্যের লোডের অপেক্ষা"),
        Path::Error => ("error", "অপেক্ষা ফুরোল — এরর"),
        Path::Fallback => ("fallback", "Redis ছাড়া সোজা DB"),
    }
}

fn legend(embedded: bool) -> Html {
    html! {
        <ul class="ce-legend" aria-label="রঙের মানে">
            { for Path::ALL.iter().map(|&p| {
                let (class, meaning) = about(p);
                html! {
                    <li class={classes!("ce-key", class)} title={meaning}>
                        <span class="ce-swatch" aria-hidden="true"></span><b>{ p.name() }</b>
                        if !embedded { {" "}{ meaning } }
                    </li>
                }
            }) }
        </ul>
    }
}

/// The lanes: one row per instance, each request a bar from arrival to answer.
fn lanes(
    side: &SideTimeline,
    instances: u32,
    end: u64,
    t: u64,
    label: &str,
    embedded: bool,
) -> Html {
    const W: f64 = 1000.0;
    const ROW: f64 = 10.0;
    let x = |ms: u64| ms as f64 / end.max(1) as f64 * W;
    let h = f64::from(instances) * ROW;
    let mut d: Vec<String> = vec![String::new(); Path::ALL.len()];
    for r in side.requests.iter().filter(|r| r.start <= t) {
        let a = x(r.start);
        let w = (x(r.end.min(t)) - a).max(1.6);
        let y = f64::from(r.inst) * ROW + 1.5;
        d[r.path as usize].push_str(&format!("M{a:.1} {y}h{w:.1}v7h-{w:.1}Z"));
    }
    let cur = x(t);
    html! {
        <div class="ce-lanes">
            <div class={classes!("ce-lane-names", embedded.then_some("hidden"))} aria-hidden="true">
                { for (1..=instances).map(|i| html! { <span>{ format!("api-{i}") }</span> }) }
            </div>
            <svg viewBox={format!("0 0 {W} {h}")} preserveAspectRatio="none" role="img" aria-label={label.to_string()}
                style={format!("height: {:.1}em", f64::from(instances) * if embedded { 0.55 } else { 0.95 })}>
                { for (0..instances).map(|i| html! {
                    <rect class="ce-lane-bg" x="0" y={(f64::from(i) * ROW).to_string()} width={W.to_string()} height={ROW.to_string()} />
                }) }
                { for Path::ALL.iter().map(|&p| html! {
                    <path class={classes!("ce-req", about(p).0)} d={d[p as usize].clone()} />
                }) }
                <line class="ce-cursor" x1={cur.to_string()} x2={cur.to_string()} y1="0" y2={h.to_string()} />
            </svg>
        </div>
    }
}

/// Database queries at once over time, on a scale shared by both sides.
fn db_chart(side: &SideTimeline, top: u32, upto: usize, label: &str) -> Html {
    let n = side.db.len();
    // A query is never thinner than a sliver, whatever the other side's peak.
    let y = |v: u32| 100.0 - (f64::from(v) / f64::from(top.max(1)) * 100.0).max(8.0);
    let bars = |range: std::ops::Range<usize>| -> String {
        side.db[range.clone()]
            .iter()
            .zip(range)
            .filter(|(v, _)| **v > 0)
            .map(|(v, i)| format!("M{i} 100V{:.2}h1V100Z", y(*v)))
            .collect()
    };
    let cur = upto.min(n);
    html! {
        <div class="ce-db">
            <span class="ce-db-top" aria-hidden="true">{ bn::int(i64::from(top)) }</span>
            <svg viewBox={format!("0 0 {n} 100")} preserveAspectRatio="none" role="img" aria-label={label.to_string()}>
                <path class="ce-db-bars done" d={bars(0..cur)} />
                <path class="ce-db-bars later" d={bars(cur..n)} />
                <line class="ce-cursor" x1={cur.to_string()} x2={cur.to_string()} y1="0" y2="100" />
            </svg>
        </div>
    }
}

/// A side's counters at the cursor, each a figure of the kit's (`data-figure`).
fn stats(c: &Counts, k: SideKeys, embedded: bool) -> Html {
    let count = |key, label, v: u32| stat("cache", key, label, u64::from(v), false);
    html! {
        <dl class="ce-stats">
            { count(k.db, "DB কোয়েরি", c.db) }
            { count(k.peak, "একসাথে সর্বোচ্চ", c.peak_db) }
            { count(k.stale, "বাসি উত্তর", c.path(Path::Stale)) }
            { stat_f("cache", k.waited, "অপেক্ষা", waited_s(c), bn::duration(c.waited)) }
            if !embedded {
                { count(k.error, "এরর", c.path(Path::Error)) }
                { count(k.answered, "উত্তর", c.requests()) }
            }
        </dl>
    }
}

/// One side's card at position `k`: its counters, its lanes and its queries at once.
fn side_card(
    out: &CacheOutput,
    side: &SideTimeline,
    keys: SideKeys,
    title: String,
    k: usize,
    top: u32,
    embedded: bool,
) -> Html {
    let t = out.time_at(k);
    let now = &side.frames[k.min(side.frames.len() - 1)];
    let inst = out.config.instances;
    let id = keys.id;
    html! {
        <section class={classes!("ce-card", format!("ce-{id}"))} data-side={id}>
            <h3 class="ce-head">{ title }</h3>
            { stats(now, keys, embedded) }
            if !embedded { <div class="ce-sub">{"প্রতিটি ইনস্ট্যান্সে রিকোয়েস্টের পথ"}</div> }
            { lanes(side, inst, out.end_ms(), t, &format!("{id}: প্রতিটি ইনস্ট্যান্সের রিকোয়েস্ট, রঙে পথ"), embedded) }
            if !embedded { <div class="ce-sub">{"DB-তে একসাথে চলা কোয়েরি"}</div> }
            { db_chart(side, top, k, &format!("{id}: DB-তে একসাথে চলা কোয়েরি, সময়ের সাথে")) }
            if side.more_requests > 0 && !embedded {
                <p class="ce-note">{ format!("ছবিতে প্রথম {}টি রিকোয়েস্ট; গণনায় সবগুলো", bn::int(side.requests.len() as i64)) }</p>
            }
        </section>
    }
}

/// The whole log's commands counted by name, `GET 140 SET 25 …` (what a test compares with
/// the real Redis' own command statistics).
fn by_command(side: &SideTimeline) -> String {
    let mut n: Vec<(&str, u32)> = Vec::new();
    for l in &side.log {
        let name = l.cmd.first().map(String::as_str).unwrap_or_default();
        match n.iter_mut().find(|(k, _)| *k == name) {
            Some((_, c)) => *c += 1,
            None => n.push((name, 1)),
        }
    }
    n.iter()
        .map(|(k, c)| format!("{k} {c}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn log_view(side: &SideTimeline, t: u64, live: bool) -> Html {
    let upto = side.log.partition_point(|l| l.at_ms <= t);
    let from = upto.saturating_sub(LOG_LINES);
    let title = if live {
        "আসল Redis-এর কমান্ড লগ — উত্তর আর আসা-যাওয়ার সময়, নতুনটা উপরে"
    } else {
        "কমান্ড লগ — নতুনটা উপরে, কার্সর পর্যন্ত"
    };
    // Newest first; a refused or timed-out command's "reply" is the kit's `none`.
    let lines: Vec<(CmdLine, Classes)> = side.log[from..upto]
        .iter()
        .rev()
        .map(|l| (l.clone(), Classes::new()))
        .collect();
    html! {
        <div class="ce-log-wrap">
            <h3 class="ce-log-title">{ title }</h3>
            <div class="ce-log-scroll" tabindex="0" role="region" aria-label="কমান্ড লগ">
                <CmdLog {lines} lab="cache" {live} class={classes!("ce-log")} by_command={AttrValue::from(by_command(side))} />
            </div>
            if upto == 0 { <p class="ce-note">{"এখনো কোনো কমান্ড যায়নি"}</p> }
            if side.more_log > 0 && upto == side.log.len() {
                <p class="ce-note">{ format!("লগে প্রথম {}টি কমান্ড দেখানো হলো", bn::int(side.log.len() as i64)) }</p>
            }
        </div>
    }
}

/// The simulation's prediction beside the real run: requests per path, queries, commands.
fn compare(v: &CacheOutput, done: bool) -> Html {
    let (sim, real) = (&v.off.counts, &v.on.counts);
    let row =
        |k: &str, label: String, a: u32, b: u32| (k.to_string(), label, u64::from(a), u64::from(b));
    let mut rows: Vec<CountRow> = vec![row(
        "hits",
        "ক্যাশ থেকে (FRESH + STALE)".into(),
        sim.path(Path::Fresh) + sim.path(Path::Stale),
        real.path(Path::Fresh) + real.path(Path::Stale),
    )];
    rows.extend(Path::ALL.iter().map(|&p| {
        row(
            &p.name().to_ascii_lowercase(),
            format!("{} — {}", p.name(), about(p).1),
            sim.path(p),
            real.path(p),
        )
    }));
    rows.extend([
        row("db", "DB কোয়েরি".into(), sim.db, real.db),
        row("peak", "একসাথে সর্বোচ্চ".into(), sim.peak_db, real.peak_db),
        row("commands", "Redis কমান্ড".into(), sim.commands, real.commands),
        row("answered", "উত্তর".into(), sim.requests(), real.requests()),
    ]);
    let n = |v: u32| bn::int(v as i64);
    let verdict = format!(
        "আসল Redis-এ {} রিকোয়েস্টে DB কোয়েরি {}টি, সিমুলেশন বলেছিল {}টি — সময় আসল ঘড়ির, তাই এক-আধটা এদিক-ওদিক হতে পারে।",
        n(real.requests()),
        n(real.db),
        n(sim.db)
    );
    counts_table("ce-compare", &rows, done, verdict)
}

/// What a live run runs, in one line.
fn live_note(c: &CacheConfig, asked: &CacheConfig) -> String {
    let mut s = format!(
        "আসল Redis-এ ছোট করে চলে: একসাথে {} জন, মোট {}টি রিকোয়েস্ট (প্রক্সি এক সংযোগ থেকে সেকেন্ডে ২০০ কমান্ড নেয়); একই সেটিংয়ের সিমুলেশন আর আসল Redis-এর রান পাশাপাশি।",
        bn::int(c.concurrent as i64),
        bn::int(c.requests as i64)
    );
    if asked.redis != Health::Healthy {
        s.push_str(" Redis ধীর বা বন্ধ — সেটা কেবল সিমুলেশনে; আসল Redis যেমন আছে তেমনই উত্তর দেয়।");
    }
    s
}

/// The cache-engine lab.
#[component]
pub fn CacheLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let asked = lab.params().read::<CacheParams>().config();
    // Live: the chosen layers' instances against a real Redis, scaled down; the live run
    // carries the simulation of the same config beside itself.
    let sl = use_sim_live::<CachePair>(&lab, true, false);
    let live_cfg = asked.for_live(*sl.switch.scale);
    let real = sl.real();
    let busy = sl.busy();
    let view = sl.shown();
    // A new result (and each snapshot of a live run) opens on the whole run.
    let t = use_steps(view, TICK_MS, Open::End);
    {
        let d = t.dispatcher();
        use_effect_with(real.map(CacheOutput::end_ms), move |end| {
            if end.is_some() {
                d.dispatch(TimeAction::End);
            }
        });
    }
    let body = match view.map(|v| (v, v.off.timeline.as_ref(), v.on.timeline.as_ref())) {
        Some((v, Some(off), Some(on))) => {
            let k = t.cursor.min(v.steps());
            let at = v.time_at(k);
            let label = format!(
                "{} / {}",
                bn::qty(at as f64, 0, bn::Unit::Ms),
                bn::qty(v.end_ms() as f64, 0, bn::Unit::Ms)
            );
            let top = off
                .db
                .iter()
                .chain(&on.db)
                .copied()
                .max()
                .unwrap_or(0)
                .max(1);
            let on_title = if v.config.layers == Layers::ALL {
                "সব স্তর চালু".to_string()
            } else if v.config.layers == Layers::NONE {
                "এদিকেও সব স্তর বন্ধ".to_string()
            } else {
                "বাছাই করা স্তর চালু".to_string()
            };
            let take = format!(
                "একই seed, একই {} রিকোয়েস্ট: DB কোয়েরি {} বনাম {}",
                bn::int(i64::from(v.off.counts.requests())),
                bn::int(i64::from(v.off.counts.db)),
                bn::int(i64::from(v.on.counts.db))
            );
            let is_live = real.is_some();
            let (left, right, names) = if is_live {
                (
                    (SideKeys::SIM, "সিমুলেশনের পূর্বাভাস".to_string()),
                    (SideKeys::REAL, format!("আসল Redis · {on_title}")),
                    LIVE_NAMES,
                )
            } else {
                (
                    (SideKeys::OFF, "সব স্তর বন্ধ".to_string()),
                    (SideKeys::ON, on_title),
                    PAIR_NAMES,
                )
            };
            let table = v.table(names);
            html! {
                <>
                    <Controls timeline={t.clone()} label={label} />
                    if !props.embedded && !is_live { <p class="ce-take" data-testid="cache-take">{ take }</p> }
                    <div class="ce-pair">
                        { side_card(v, off, left.0, left.1, k, top, props.embedded) }
                        { side_card(v, on, right.0, right.1, k, top, props.embedded) }
                    </div>
                    if is_live { { compare(v, sl.live.done) } }
                    <div class="ce-foot">
                        { legend(props.embedded) }
                        if props.embedded { { open_full(&lab) } }
                    </div>
                    if !props.embedded {
                        { log_view(on, at, is_live) }
                        <pre class="ce-table" data-testid="cache-table" data-table={table.clone()} tabindex="0" aria-label="labsim cache-এর টেবিল, একই রান">{ table }</pre>
                    }
                </>
            }
        }
        _ => failed_or_progress(&sl.sim),
    };
    let lead = html! {
        <>
            {"কয়েকটা API ইনস্ট্যান্স একটা জনপ্রিয় key পড়ছে খামের ভেতর দিয়ে ("}<code>{"{version, freshUntil, value}"}</code>
            {")। বাঁয়ে সব স্তর বন্ধ, ডানে আপনার বাছাই করা স্তর — একই seed-এ। প্রতিটি কমান্ড SimRedis-এ সত্যিই চলে; নিচের লগে তার উত্তর।"}
        </>
    };
    let live = live_panel(&lab, &sl, Some(live_note(&live_cfg, &asked)));
    html! {
        <LabFrame lab={lab.clone()} {busy} {lead} {live} link={false}>
            // Inside a slide the four switches the slide is about sit above the pair.
            if props.embedded {
                <ParamForm state={lab.form.clone()} set={lab.set.clone()} only={vec!["singleflight", "lock", "heartbeat", "redis"]} />
            }
            { body }
        </LabFrame>
    }
}
