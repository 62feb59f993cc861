//! TTL jitter lab, from seed 001 §৫ ("একসাথে লেখা, একসাথে মরা — TTL jitter"): N keys written
//! at the same moment with TTL T, each TTL stretched to `T · (1 + J·u)`, u uniform in [−1, 1)
//! from mulberry32(seed); round r is each key's r-th expiry when keys are rewritten as they die.
//!
//! It shows, for the chosen J and round, a histogram of expirations per second (at most 150
//! bars) swept by a timeline — bars after the cursor dimmed, with "so far / this second"
//! counters — the case's span, mean and busiest second, and the seed's eight-row table
//! recomputed with the same keys, TTL and seed. Counting (up to 1,000,000 keys × 10 rounds)
//! and binning run in the simulation worker (`redislab_sim::labs::jitter`); this view only
//! draws what comes back.

use super::kit::charts::{histogram, num, Axes};
use super::kit::{
    failed_or_progress, open_full, stat, stat_f, use_lab, use_run, use_steps, Controls, LabFrame,
    LabProps, Open, ParamForm,
};
use redislab_deck::bn;
use redislab_sim::labs::jitter::output::nice_ceil;
use redislab_sim::labs::jitter::{
    JitterCase, JitterChart, JitterOutput, JitterParams, JitterRow, JitterTable, INFO,
};
use yew::prelude::*;

/// The lab's view, by the name the dispatch uses.
pub use JitterLab as View;

/// Milliseconds per timeline tick.
const TICK_MS: u32 = 120;

/// `h:mm:ss` in Bengali digits.
fn clock(t: i64) -> String {
    let t = t.max(0);
    bn::text(&format!("{}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60))
}

/// J as a share, `±১০%` (the seed prints `+-10%`).
fn share(j: f64) -> String {
    format!("±{}", bn::pct(j * 100.0, 0))
}

fn secs(s: i64) -> String {
    bn::qty(s as f64, 0, bn::Unit::S)
}

fn chart(c: &JitterOutput, cursor: usize) -> Html {
    let n = c.bins.len();
    let per_s = c.per_second();
    let (mean, max) = (c.row.mean_per_s, f64::from(c.row.max_per_s));
    let top = nice_ceil(per_s.iter().copied().fold(max, f64::max).max(mean));
    let y = |v: f64| 100.0 - (v / top * 100.0).clamp(0.0, 100.0);
    let bars = |range: std::ops::Range<usize>| -> String {
        range
            .filter(|&i| per_s[i] > 0.0)
            .map(|i| format!("M{i} 100V{:.2}h1V100Z", y(per_s[i])))
            .collect()
    };
    let cur = cursor.min(n);
    let peak_x = (c.peak_at - c.w0) as f64 / c.bin as f64 + 0.5 / c.bin as f64;
    let unit = if c.bin == 1 {
        "প্রতিটি বার ১ সেকেন্ড".to_string()
    } else {
        format!("প্রতিটি বার {} সেকেন্ড, তার গড়", bn::int(c.bin))
    };
    let (mean_y, peak_y) = (y(mean), y(max));
    html! {
        <figure class="jt-chart">
            <div class="jt-y" aria-hidden="true">
                <span>{ num(top) }</span><span>{ num(top / 2.0) }</span><span>{"০"}</span>
            </div>
            <div class="jt-plot">
                <svg viewBox={format!("0 0 {n} 100")} preserveAspectRatio="none" role="img"
                    aria-label={format!("প্রতি সেকেন্ডে মেয়াদ শেষ, {} থেকে {}", secs(c.w0), secs(c.second_at(n)))}>
                    <line class="jt-grid" x1="0" x2={n.to_string()} y1="50" y2="50" />
                    <path class="jt-bars done" d={bars(0..cur)} />
                    <path class="jt-bars later" d={bars(cur..n)} />
                    <line class="jt-mean" x1="0" x2={n.to_string()} y1={format!("{mean_y:.2}")} y2={format!("{mean_y:.2}")} />
                    <line class="jt-peak" x1={format!("{peak_x:.3}")} x2={format!("{peak_x:.3}")} y1="100" y2={format!("{peak_y:.2}")} />
                    <line class="jt-cursor" x1={cur.to_string()} x2={cur.to_string()} y1="0" y2="100" />
                </svg>
                <span class="jt-tag mean" style={format!("top: {:.1}%", mean_y.clamp(16.0, 100.0))}>
                    { format!("গড় {}", bn::qty(mean, 1, bn::Unit::PerSec)) }
                </span>
                <span class={classes!("jt-tag", "peak", (peak_x > n as f64 * 0.6).then_some("left"))}
                    style={format!("top: {:.1}%; left: {:.2}%", peak_y.clamp(16.0, 100.0), peak_x / n as f64 * 100.0)}>
                    { format!("▲ সর্বোচ্চ {}", bn::qty(max, 0, bn::Unit::PerSec)) }
                </span>
            </div>
            <div class="jt-x" aria-hidden="true">
                <span>{ secs(c.w0) }</span>
                <span>{ secs(c.second_at(n / 2)) }</span>
                <span>{ secs(c.second_at(n)) }</span>
            </div>
            <figcaption class="jt-axis">
                { format!("x: লেখার পর সময় (সেকেন্ড) — {unit} (সর্বোচ্চ ১৫০টি বার) · y: সেকেন্ডে কয়টি key মরছে") }
            </figcaption>
        </figure>
    }
}

/// How many seconds carry each load: the mean is in the middle, the database must take the tail.
fn spread(c: &JitterOutput) -> Html {
    let unit = if c.load_bin == 1 {
        String::new()
    } else {
        format!(", প্রতিটি বার {}টি মানের", bn::int(i64::from(c.load_bin)))
    };
    html! {
        <div class="jt-spread">
            <p class="jt-spread-cap">
                { format!("জানালার {} সেকেন্ডের ভার কেমন ছড়ানো — গড় {}, কিন্তু ডেটাবেসকে সামলাতে হয় ডানের লেজ, সর্বোচ্চ {}",
                    bn::int(c.row.span as i64), bn::dec(c.row.mean_per_s, 1), bn::int(i64::from(c.row.max_per_s))) }
            </p>
            { histogram(&c.loads, &Axes { x: format!("এক সেকেন্ডে কয়টি key মরল{unit} · উচ্চতা: এমন কত সেকেন্ড"), y: String::new(), log_x: false }, None) }
        </div>
    }
}

/// The case's span, mean and busiest second, and how much calmer than no jitter.
fn figures(c: &JitterOutput) -> Html {
    let r = &c.row;
    let calmer = f64::from(c.keys) / f64::from(r.max_per_s.max(1));
    let verdict = if r.jitter == 0.0 {
        "jitter নেই: সব key একই সেকেন্ডে — ডেটাবেসে একটা দেয়াল".to_string()
    } else {
        format!(
            "jitter ছাড়া সবচেয়ে ভারী সেকেন্ডে {} key; এখানে {} — প্রায় {} গুণ কম",
            bn::int(i64::from(c.keys)),
            bn::int(i64::from(r.max_per_s)),
            bn::dec(calmer, 0)
        )
    };
    html! {
        <div class="jt-figures">
            <dl class="lab-stats jt-stats">
                { stat("jitter", "span", "জানালা (s)", r.span, false) }
                { stat_f("jitter", "mean", "সেকেন্ডে গড়", r.mean_per_s, bn::dec(r.mean_per_s, 1)) }
                { stat("jitter", "max", "সবচেয়ে ভারী সেকেন্ডে", u64::from(r.max_per_s), true) }
            </dl>
            <p class="jt-verdict">{ verdict }</p>
        </div>
    }
}

/// The seed's table, the chosen case's row marked (`complete`: every row has arrived).
fn table(rows: &[JitterRow], chosen: JitterCase, p: &JitterParams, complete: bool) -> Html {
    html! {
        <div class="jt-table-wrap">
            <table class="jt-table" data-testid={complete.then_some("jitter-table")}>
                <caption>{ format!("seed-এর আট সারি: {} key, TTL {}, seed {}", bn::int(i64::from(p.keys)), bn::qty(p.ttl, 0, bn::Unit::S), bn::int(i64::from(p.seed))) }</caption>
                <thead><tr>
                    <th scope="col">{"TTL-এর ± (J)"}</th>
                    <th scope="col">{"কততম মেয়াদ"}</th>
                    <th scope="col">{"ছড়ায় (s)"}</th>
                    <th scope="col">{"সেকেন্ডে গড়"}</th>
                    <th scope="col">{"সেকেন্ডে সর্বোচ্চ"}</th>
                </tr></thead>
                <tbody>
                    { for rows.iter().map(|r| {
                        let here = r.jitter == chosen.jitter && r.round == chosen.round;
                        html! {
                            <tr class={classes!(here.then_some("current"))} aria-current={here.then_some("true")}>
                                <td>{ share(r.jitter) }</td>
                                <td>{ bn::int(i64::from(r.round)) }</td>
                                <td>{ bn::int(r.span as i64) }</td>
                                <td>{ bn::dec(r.mean_per_s, 1) }</td>
                                <td>{ bn::int(i64::from(r.max_per_s)) }</td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
        </div>
    }
}

/// The TTL-jitter lab.
#[component]
pub fn JitterLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let p: JitterParams = lab.params().read();
    let chosen_run = use_run::<JitterChart>(&lab, true);
    // The table depends on keys, TTL and seed only: J and round leave it in place.
    let table_lab = {
        let mut l = lab.clone();
        // The defaults' own values: always valid.
        let _ = (
            l.form.good.set("jitter", "0"),
            l.form.good.set("round", "1"),
        );
        l
    };
    let rows_run = use_run::<JitterTable>(&table_lab, true);
    let busy = chosen_run.busy() || rows_run.busy();
    // A new result opens on the whole run; ▶ replays it from the start.
    let t = use_steps(chosen_run.result(), TICK_MS, Open::End);

    let view = match chosen_run.result() {
        None => failed_or_progress(&chosen_run),
        Some(c) => {
            let cur = t.cursor.min(c.bins.len());
            let at = c.second_at(cur);
            let label = format!("t = {} ({})", secs(at), clock(at));
            html! {
                <>
                    <Controls timeline={t.clone()} label={label} />
                    <div class="jt-now" data-testid="jitter-counter" aria-live="polite">
                        <dl class="lab-stats jt-now-stats">
                            { stat("jitter", "gone", "এ পর্যন্ত মরেছে", c.before(cur), false) }
                            { stat("jitter", "this-second", "এই সেকেন্ডে", u64::from(c.this_second(cur)), false) }
                        </dl>
                        <span class="jt-now-case">{ format!("J = {}, মেয়াদ {}", share(p.jitter), bn::int(i64::from(p.round))) }</span>
                    </div>
                    { chart(c, cur) }
                    { figures(c) }
                    if !props.embedded && c.row.span > 1 { { spread(c) } }
                </>
            }
        }
    };
    let rows_view = match rows_run.result() {
        Some(t) => table(&t.rows, p.case(), &p, true),
        None => {
            html! { <>{ failed_or_progress(&rows_run) }{ table(&rows_run.parts, p.case(), &p, false) }</> }
        }
    };
    let lead = html! {
        { format!("{} key একই মুহূর্তে লেখা, TTL {}; প্রতিটির মেয়াদ TTL × (১ + J·u), u −১ থেকে ১-এর মধ্যে সমবণ্টিত (seed {}-এর এলোমেলো সংখ্যা)। মরলেই আবার লেখা হয় — তাই দ্বিতীয়, তৃতীয় মেয়াদও আছে।",
            bn::int(i64::from(p.keys)), bn::qty(p.ttl, 0, bn::Unit::S), bn::int(i64::from(p.seed))) }
    };
    html! {
        <LabFrame lab={lab.clone()} {busy} {lead} link={false}>
            <div class="jt-body">
                <div class="jt-main">{ view }</div>
                <div class="jt-side">
                    // Inside a slide the two fields the slide is about sit beside the table.
                    if props.embedded {
                        <ParamForm state={lab.form.clone()} set={lab.set.clone()} only={vec!["jitter", "round"]} />
                    }
                    { rows_view }
                    if props.embedded { { open_full(&lab) } }
                </div>
            </div>
        </LabFrame>
    }
}
