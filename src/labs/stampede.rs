//! Cache stampede lab, from seed 001 §৭ ("Cache stampede গভীরে — lock, XFetch, stale পরিবেশন"):
//! one hot key, seeded Poisson arrivals, a TTL and a recompute of Δ seconds, handled four ways
//! on the same seed — no protection, a single-flight lock, lock + serve stale (soft TTL) and
//! XFetch's probabilistic early refresh.
//!
//! It shows, per design, the DB load over time (recomputes in flight per bucket, on one shared
//! y scale) swept by a timeline with a cursor on every chart and the counters up to the cursor
//! (DB recomputes, waited at expiry, served stale, peak parallel), a one-line takeaway, and the
//! seed's final table (none 503 503 0 117 / lock 5 475 0 1 / stale 5 0 475 1 / xfetch 12 0 0 3
//! with the seed's parameters). The runs come from `redislab-sim`'s `StampedeSet`, run in the
//! simulation worker.

use super::kit::{
    Open,
    failed_or_progress, open_full, use_lab, use_timeline, use_work, Controls, LabFrame, LabProps, ParamForm,
};
use super::kit::charts::num;
use redislab_deck::bn;
use redislab_sim::jsfmt::js_string;
use redislab_sim::labs::stampede::{
    header, Counters, Mode, StampedeConfig, StampedeOutput, StampedeParams, StampedeSummary, INFO,
};
use yew::prelude::*;

/// The lab's view, by the name the dispatch uses.
pub use StampedeLab as View;

/// Timeline positions at most (several buckets per position on long runs).
const MAX_FRAMES: usize = 240;
/// Milliseconds per timeline tick.
const TICK_MS: u32 = 120;

/// Bengali name of a mode and its one-line takeaway (short inside a slide).
fn about(mode: Mode, c: &Counters, short: bool) -> (&'static str, String) {
    let (title, long, brief) = match mode {
        Mode::None => (
            "সুরক্ষা নেই",
            "সবাই DB-তে — মেয়াদের দেয়ালে প্রতিটি রিকোয়েস্ট নিজেই recompute করে",
            "সবাই DB-তে",
        ),
        Mode::Lock => (
            "single-flight lock",
            "একজন যায়, বাকিরা অপেক্ষা করে — DB শান্ত, কিন্তু ব্যবহারকারী আটকে থাকে",
            "একজন যায়, বাকিরা অপেক্ষা",
        ),
        Mode::Stale => (
            "lock + পুরোনো মান (soft TTL)",
            "কেউ অপেক্ষা করে না — একজন পেছনে নবায়ন করে, বাকিরা পুরোনো মান পায়",
            "কেউ অপেক্ষা করে না",
        ),
        Mode::XFetch if c.waited > 0 => {
            let n = bn::int(c.waited as i64);
            return (
                "আগাম নবায়ন (XFetch)",
                if short {
                    format!("আগাম নবায়ন, তবু {n}টি দেয়ালে")
                } else {
                    format!(
                        "মেয়াদের আগেই নবায়নের চেষ্টা, তবু {n}টি রিকোয়েস্ট দেয়ালে পৌঁছাল — β বাড়ালে নবায়ন আরও আগে"
                    )
                },
            );
        }
        Mode::XFetch => (
            "আগাম নবায়ন (XFetch)",
            "মেয়াদের আগেই কেউ একজন নবায়ন করে — দেয়ালে কেউ পৌঁছায় না",
            "মেয়াদের আগেই কেউ একজন নবায়ন করে",
        ),
    };
    (title, if short { brief } else { long }.to_string())
}

/// One mode's DB-load strip with the cursor after `upto` buckets.
fn strip(run: &StampedeSummary, top: f64, upto: usize, cfg: &StampedeConfig) -> Html {
    let n = run.buckets.len();
    let y = |v: u32| 100.0 - (f64::from(v) / top * 100.0).clamp(0.0, 100.0);
    let bars = |range: std::ops::Range<usize>| -> String {
        run.buckets[range.clone()]
            .iter()
            .zip(range)
            .filter(|(b, _)| b.peak_inflight > 0)
            .map(|(b, i)| format!("M{i} 100V{:.2}h1V100Z", y(b.peak_inflight)))
            .collect()
    };
    let cur = upto.min(n);
    html! {
        <div class="st-chart">
            <div class="st-y" aria-hidden="true"><span>{ num(top) }</span><span>{"0"}</span></div>
            <div class="st-plot">
                <svg viewBox={format!("0 0 {n} 100")} preserveAspectRatio="none" role="img"
                    aria-label={format!("{}: DB-তে একসাথে চলা recompute, ০ থেকে {} s", run.mode.name(), bn::text(&js_string(cfg.duration)))}>
                    <line class="st-grid" x1="0" x2={n.to_string()} y1="50" y2="50" />
                    <path class="st-bars done" d={bars(0..cur)} />
                    <path class="st-bars later" d={bars(cur..n)} />
                    <line class="st-cursor" x1={cur.to_string()} x2={cur.to_string()} y1="0" y2="100" />
                </svg>
            </div>
            <div class="st-x" aria-hidden="true">
                <span>{"০ s"}</span>
                <span>{ format!("{} s", bn::text(&js_string(cfg.duration / 2.0))) }</span>
                <span>{ format!("{} s", bn::text(&js_string(cfg.duration))) }</span>
            </div>
        </div>
    }
}

fn card(
    run: &StampedeSummary,
    top: f64,
    upto: usize,
    cfg: &StampedeConfig,
    embedded: bool,
) -> Html {
    let name = run.mode.name();
    let now = run.so_far(upto);
    let (title, take) = about(run.mode, &run.counters, embedded);
    let stat = |label: &'static str, short: &'static str, v: String, key: &'static str| {
        html! {
            <div class={classes!("st-stat", key)}>
                <dt>{ if embedded { short } else { label } }</dt>
                <dd data-testid={format!("stampede-{name}-{key}")}>{ v }</dd>
            </div>
        }
    };
    html! {
        <section class={classes!("st-card", format!("st-{name}"))} data-mode={name}>
            <h3 class="st-head"><span class="st-mode">{ name }</span><span class="st-title">{ title }</span></h3>
            { strip(run, top, upto, cfg) }
            <dl class="st-stats">
                { stat("DB recompute", "DB", bn::int(now.db as i64), "db") }
                { stat("দেয়ালে অপেক্ষা", "অপেক্ষা", bn::int(now.waited as i64), "waited") }
                { stat("পুরোনো মান", "stale", bn::int(now.stale as i64), "stale") }
                { stat("একসাথে সর্বোচ্চ", "peak", bn::int(now.peak as i64), "peak") }
            </dl>
            <p class="st-take">{ take }</p>
        </section>
    }
}

fn table(runs: &[StampedeSummary], cfg: &StampedeConfig, embedded: bool, complete: bool) -> Html {
    let head = |bn_text: &'static str, seed: &'static str| {
        html! {
            <th scope="col">{ bn_text }if !embedded { <small>{ seed }</small> }</th>
        }
    };
    // The seed's table text, to the last space, for anyone comparing with `labsim stampede`.
    let text: String = header(cfg) + &runs.iter().map(|r| r.row() + "\n").collect::<String>();
    html! {
        <div class="st-table-wrap">
            <table class="st-table" data-testid={complete.then_some("stampede-table")} data-table={text}>
                <caption>
                    { format!("শেষ ফল — recompute {} ms, TTL {} s, {} req/s, {} s ধরে",
                        js_string(cfg.delta * 1000.0), js_string(cfg.ttl), js_string(cfg.rate), js_string(cfg.duration)) }
                </caption>
                <thead><tr>
                    <th scope="col">{"mode"}</th>
                    { head("DB-তে recompute", "DB recomputes") }
                    { head("দেয়ালে অপেক্ষা", "waited at expiry") }
                    { head("পুরোনো মান", "served stale") }
                    { head("একসাথে সর্বোচ্চ", "peak DB parallel") }
                </tr></thead>
                <tbody>
                    { for runs.iter().map(|r| {
                        let c = &r.counters;
                        html! {
                            <tr class={format!("st-row-{}", r.mode.name())}>
                                <th scope="row">{ r.mode.name() }</th>
                                <td>{ c.db }</td>
                                <td>{ c.waited }</td>
                                <td>{ c.stale }</td>
                                <td>{ c.peak }</td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
        </div>
    }
}

/// The stampede lab: four designs side by side.
#[component]
pub fn StampedeLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let typed: StampedeParams = lab.typed();
    let cfg = typed.config();
    let run = use_work::<(Mode, Counters), StampedeOutput>(Some(lab.job()));
    let busy = run.busy();
    let runs = run.result().map(|o| &o.runs);

    let n = runs.and_then(|r| r.first()).map_or(1, |r| r.buckets.len());
    let step = n.div_ceil(MAX_FRAMES).max(1);
    let frames = if runs.is_some() {
        n.div_ceil(step) + 1
    } else {
        1
    };
    // A new result opens on the whole run; ▶ replays it from the start.
    let t = use_timeline(frames, TICK_MS, Open::End);

    let (view, final_table) = match runs {
        None => {
            // The designs' rows as each finishes; the charts come with the result.
            let rows: Vec<StampedeSummary> = run
                .parts
                .iter()
                .map(|&(mode, counters)| StampedeSummary {
                    mode,
                    counters,
                    buckets: Vec::new(),
                })
                .collect();
            (
                failed_or_progress(&run),
                table(&rows, &cfg, props.embedded, false),
            )
        }
        Some(runs) => {
            let upto = (t.cursor * step).min(n);
            let width = cfg.bucket;
            let at = (upto as f64 * width).min(cfg.duration);
            let top = runs
                .iter()
                .flat_map(|r| r.buckets.iter().map(|b| b.peak_inflight))
                .max()
                .unwrap_or(0)
                .max(1);
            let top = f64::from(top);
            let label = format!(
                "t = {} s / {} s",
                bn::text(&if width < 0.1 {
                    format!("{at:.2}")
                } else {
                    format!("{at:.1}")
                }),
                bn::text(&js_string(cfg.duration))
            );
            (
                html! {
                    <>
                        <Controls timeline={t.clone()} label={label} />
                        if !props.embedded {
                            <p class="st-scale">
                                { format!("প্রতিটি ছকে: DB-তে একসাথে চলা recompute (প্রতি {} s-এ সর্বোচ্চটি), চার ছকেই একই মাপ — ০ থেকে {}",
                                    bn::text(&js_string(width)), bn::text(&num(top))) }
                            </p>
                        }
                        <div class="st-grid4">
                            { for runs.iter().map(|r| card(r, top, upto, &cfg, props.embedded)) }
                        </div>
                    </>
                },
                table(runs, &cfg, props.embedded, true),
            )
        }
    };
    let wall = cfg.rate * cfg.delta;
    let lead = html! {
        { format!("একটা hot key, সেকেন্ডে λ = {} রিকোয়েস্ট (seeded Poisson), recompute-এ Δ = {} s, TTL {} s। মেয়াদের দেয়ালে একসাথে আটকায় প্রায় λ × Δ = {}টি রিকোয়েস্ট — একই seed-এ চার নকশা পাশাপাশি।",
            bn::text(&js_string(cfg.rate)), bn::text(&js_string(cfg.delta)), bn::text(&js_string(cfg.ttl)), bn::text(&format_wall(wall))) }
    };
    html! {
        <LabFrame lab={lab.clone()} {busy} {lead} link={false}>
            <div class="st-body">
                <div class="st-main">{ view }</div>
                <div class="st-side">
                    // Inside a slide the two fields the slide is about sit beside the table.
                    if props.embedded {
                        <ParamForm state={lab.form.clone()} set={lab.set.clone()} only={vec!["delta", "beta"]} />
                    }
                    { final_table }
                    if props.embedded { { open_full(&lab) } }
                </div>
            </div>
        </LabFrame>
    }
}

/// λ × Δ, whole when it is large.
fn format_wall(v: f64) -> String {
    if v >= 10.0 {
        bn::dec(v, 0)
    } else {
        bn::dec(v, 1)
    }
}
