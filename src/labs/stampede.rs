//! Cache stampede lab, from seed 001 §৭ ("Cache stampede গভীরে — lock, XFetch, stale পরিবেশন"):
//! one hot key, seeded Poisson arrivals, a TTL and a recompute of Δ seconds, handled four ways
//! on the same seed — no protection, a single-flight lock, lock + serve stale (soft TTL) and
//! XFetch's probabilistic early refresh.
//!
//! It shows, per design, the DB load over time (recomputes in flight per bucket, on one shared
//! y scale) swept by a timeline with a cursor on every chart and the counters up to the cursor
//! (DB recomputes, waited at expiry, served stale, peak parallel), a one-line takeaway, and the
//! seed's final table (none 503 503 0 117 / lock 5 475 0 1 / stale 5 0 475 1 / xfetch 12 0 0 3
//! with the seed's parameters). The runs come from `redislab_sim::labs::stampede`, run in the
//! simulation worker.

use super::kit::charts::num;
use super::kit::{
    failed_or_progress, open_full, stat, use_lab, use_run, use_steps, Controls, LabFrame, LabProps,
    Open, ParamForm,
};
use redislab_deck::bn;
use redislab_sim::labs::stampede::{
    Counters, Mode, StampedeOutput, StampedeParams, StampedeRow, StampedeRun, INFO,
};
use yew::prelude::*;

/// The lab's view, by the name the dispatch uses.
pub use StampedeLab as View;

/// Milliseconds per timeline tick.
const TICK_MS: u32 = 120;

/// A number of seconds as the form takes it (`০.০৫ s`, `৬০ s`): its own decimals, up to three.
fn secs(s: f64) -> String {
    let places = (0..=3)
        .find(|&p| (s * 10f64.powi(p)).fract().abs() < 1e-9)
        .unwrap_or(3);
    bn::qty(s, places as usize, bn::Unit::S)
}

/// A design's one-line takeaway (short inside a slide).
fn take(mode: Mode, c: &Counters, short: bool) -> String {
    let (long, brief) = match mode {
        Mode::None => (
            "সবাই ডেটাবেসে — মেয়াদের দেয়ালে প্রতিটি রিকোয়েস্ট নিজেই recompute করে",
            "সবাই ডেটাবেসে",
        ),
        Mode::Lock => (
            "একজন যায়, বাকিরা অপেক্ষা করে — ডেটাবেস শান্ত, কিন্তু ব্যবহারকারী আটকে থাকে",
            "একজন যায়, বাকিরা অপেক্ষা",
        ),
        Mode::Stale => (
            "কেউ অপেক্ষা করে না — একজন পেছনে নবায়ন করে, বাকিরা পুরোনো মান পায়",
            "কেউ অপেক্ষা করে না",
        ),
        Mode::XFetch if c.waited > 0 => {
            let n = bn::int(c.waited as i64);
            return if short {
                format!("আগাম নবায়ন, তবু {n}টি দেয়ালে")
            } else {
                format!(
                    "মেয়াদের আগেই নবায়নের চেষ্টা, তবু {n}টি রিকোয়েস্ট দেয়ালে পৌঁছাল — β বাড়ালে নবায়ন আরও আগে"
                )
            };
        }
        Mode::XFetch => (
            "মেয়াদের আগেই কেউ একজন নবায়ন করে — দেয়ালে কেউ পৌঁছায় না",
            "মেয়াদের আগেই কেউ একজন নবায়ন করে",
        ),
    };
    if short { brief } else { long }.to_string()
}

/// One design's DB-load strip with the cursor after `upto` buckets.
fn strip(r: &StampedeRow, top: f64, upto: usize, duration: f64) -> Html {
    let b = r.buckets();
    let n = b.len();
    let y = |v: u32| 100.0 - (f64::from(v) / top * 100.0).clamp(0.0, 100.0);
    let bars = |range: std::ops::Range<usize>| -> String {
        range
            .filter(|&i| b[i].peak_inflight > 0)
            .map(|i| format!("M{i} 100V{:.2}h1V100Z", y(b[i].peak_inflight)))
            .collect()
    };
    let cur = upto.min(n);
    html! {
        <div class="st-chart">
            <div class="st-y" aria-hidden="true"><span>{ num(top) }</span><span>{"০"}</span></div>
            <div class="st-plot">
                <svg viewBox={format!("0 0 {n} 100")} preserveAspectRatio="none" role="img"
                    aria-label={format!("{}: ডেটাবেসে একসাথে চলা recompute, ০ থেকে {}", r.mode.label(), secs(duration))}>
                    <line class="st-grid" x1="0" x2={n.to_string()} y1="50" y2="50" />
                    <path class="st-bars done" d={bars(0..cur)} />
                    <path class="st-bars later" d={bars(cur..n)} />
                    <line class="st-cursor" x1={cur.to_string()} x2={cur.to_string()} y1="0" y2="100" />
                </svg>
            </div>
            <div class="st-x" aria-hidden="true">
                <span>{"০ s"}</span>
                <span>{ secs(duration / 2.0) }</span>
                <span>{ secs(duration) }</span>
            </div>
        </div>
    }
}

/// One design: its strip, its counters up to the cursor and its takeaway.
fn card(o: &StampedeOutput, r: &StampedeRow, top: f64, upto: usize, embedded: bool) -> Html {
    let now = StampedeOutput::so_far(r, upto);
    let [db, waited, stale, peak] = StampedeOutput::keys(r.mode);
    let label = |long: &'static str, short: &'static str| if embedded { short } else { long };
    html! {
        <section class={classes!("st-card", format!("st-{}", r.mode))} data-mode={r.mode.word()}>
            <h3 class="st-head"><span class="st-title">{ r.mode.label() }</span><code class="st-mode">{ r.mode.word() }</code></h3>
            { strip(r, top, upto, o.duration) }
            <dl class="st-stats">
                { stat("stampede", db, label("ডেটাবেসে recompute", "ডেটাবেস"), now.db, false) }
                { stat("stampede", waited, label("দেয়ালে অপেক্ষা", "অপেক্ষা"), now.waited, false) }
                { stat("stampede", stale, label("পুরোনো মান পেল", "পুরোনো"), now.stale, false) }
                { stat("stampede", peak, label("একসাথে সর্বোচ্চ", "সর্বোচ্চ"), u64::from(now.peak), false) }
            </dl>
            <p class="st-take">{ take(r.mode, &r.counters(), embedded) }</p>
        </section>
    }
}

/// The seed's table of the designs' final counters (`complete`: every row has arrived).
fn table(rows: &[StampedeRow], p: &StampedeParams, complete: bool) -> Html {
    html! {
        <div class="st-table-wrap">
            <table class="st-table" data-testid={complete.then_some("stampede-table")}>
                <caption>
                    { format!("শেষ ফল — recompute {}, TTL {}, সেকেন্ডে {} রিকোয়েস্ট, {} ধরে",
                        bn::qty(p.delta * 1000.0, 0, bn::Unit::Ms), secs(p.ttl), bn::dec(p.rate, 0), secs(p.duration)) }
                </caption>
                <thead><tr>
                    <th scope="col">{"নকশা"}</th>
                    <th scope="col">{"ডেটাবেসে recompute"}</th>
                    <th scope="col">{"দেয়ালে অপেক্ষা"}</th>
                    <th scope="col">{"পুরোনো মান পেল"}</th>
                    <th scope="col">{"একসাথে সর্বোচ্চ"}</th>
                </tr></thead>
                <tbody>
                    { for rows.iter().map(|r| html! {
                        <tr class={format!("st-row-{}", r.mode)} data-mode={r.mode.word()}>
                            <th scope="row">{ r.mode.label() }</th>
                            <td>{ bn::int(r.db_recomputes as i64) }</td>
                            <td>{ bn::int(r.waited as i64) }</td>
                            <td>{ bn::int(r.served_stale as i64) }</td>
                            <td>{ bn::int(i64::from(r.peak_parallel)) }</td>
                        </tr>
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
    let p: StampedeParams = lab.params().read();
    let run = use_run::<StampedeRun>(&lab, true);
    // A new result opens on the whole run; ▶ replays it from the start.
    let t = use_steps(run.result(), TICK_MS, Open::End);

    let (view, final_table) = match run.result() {
        // The designs' rows as each finishes; the charts come with the result.
        None => (failed_or_progress(&run), table(&run.parts, &p, false)),
        Some(o) => {
            let upto = o.upto(t.cursor);
            let top = o
                .rows
                .iter()
                .flat_map(|r| r.buckets().iter().map(|b| b.peak_inflight))
                .max()
                .unwrap_or(0)
                .max(1);
            let top = f64::from(top);
            let places = if o.bucket < 0.1 { 2 } else { 1 };
            let label = format!(
                "t = {} / {}",
                bn::qty(o.time_at(t.cursor), places, bn::Unit::S),
                secs(o.duration)
            );
            (
                html! {
                    <>
                        <Controls timeline={t.clone()} label={label} />
                        if !props.embedded {
                            <p class="st-scale">
                                { format!("প্রতিটি ছকে: ডেটাবেসে একসাথে চলা recompute (প্রতি {}-এ সর্বোচ্চটি), চার ছকেই একই মাপ — ০ থেকে {}",
                                    secs(o.bucket), num(top)) }
                            </p>
                        }
                        <div class="st-grid4">
                            { for o.rows.iter().map(|r| card(o, r, top, upto, props.embedded)) }
                        </div>
                    </>
                },
                table(&o.rows, &p, true),
            )
        }
    };
    let wall = p.rate * p.delta;
    let lead = html! {
        { format!("একটা hot key, সেকেন্ডে λ = {} রিকোয়েস্ট (seeded Poisson), recompute-এ Δ = {}, TTL {}। মেয়াদের দেয়ালে একসাথে আটকায় প্রায় λ × Δ = {}টি রিকোয়েস্ট — একই seed-এ চার নকশা পাশাপাশি।",
            bn::dec(p.rate, 0), secs(p.delta), secs(p.ttl), bn::dec(wall, if wall >= 10.0 { 0 } else { 1 })) }
    };
    html! {
        <LabFrame lab={lab.clone()} busy={run.busy()} {lead} link={false}>
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
