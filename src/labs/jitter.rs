//! TTL jitter lab, from seed 001 §৫ ("একসাথে লেখা, একসাথে মরা — TTL jitter"): N keys written
//! at the same moment with TTL T, each TTL stretched to `T · (1 + J·u)`, u uniform in [−1, 1)
//! from mulberry32(seed); round r is each key's r-th expiry when keys are rewritten as they die.
//!
//! It shows, for the chosen J and round, a histogram of expirations per second (at most 150
//! bars) swept by a timeline — bars after the cursor dimmed, with "so far / this second"
//! counters — the case's span, mean and busiest second exactly as `redislab-sim`'s
//! `JitterWave` gives them, and the seed's eight-row table recomputed live with the same keys,
//! TTL and seed. Counting (up to 1,000,000 keys × 10 rounds) and binning run in the
//! simulation worker; this view only draws what comes back.

use super::kit::{
    Open,
    failed_or_progress, open_full, use_lab, use_timeline, use_work, Controls, LabFrame, LabProps, ParamForm,
};
use super::kit::charts::{histogram, num, Axes};
use redislab_deck::bn;
use redislab_sim::jsfmt::to_fixed;
use redislab_sim::labs::jitter::{
    nice_ceil, JitterCase, JitterChart, JitterConfig, JitterWave, HEADER,
};
use redislab_sim::labs::jitter::{JitterOutput, JitterParams, INFO};
use redislab_sim::labs::lab::Job;
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

/// J as a share, `±10%` (the seed prints `+-10%`).
fn share(j: f64) -> String {
    format!("±{}%", to_fixed(j * 100.0, 0))
}

fn chart(c: &JitterChart, cursor: usize) -> Html {
    let n = c.bins.len();
    let per_s = c.per_second();
    let top = nice_ceil(
        per_s
            .iter()
            .copied()
            .fold(f64::from(c.wave.max), f64::max)
            .max(c.wave.mean),
    );
    let y = |v: f64| 100.0 - (v / top * 100.0).clamp(0.0, 100.0);
    let bars = |range: std::ops::Range<usize>| -> String {
        range
            .filter(|&i| per_s[i] > 0.0)
            .map(|i| format!("M{i} 100V{:.2}h1V100Z", y(per_s[i])))
            .collect()
    };
    let cur = cursor.min(n);
    let peak_x = (c.peak_at - c.w0) as f64 / c.bin as f64 + 0.5 / c.bin as f64;
    let w1 = c.w0 + c.bin * n as i64;
    let unit = if c.bin == 1 {
        "প্রতিটি বার ১ সেকেন্ড".to_string()
    } else {
        format!("প্রতিটি বার {} সেকেন্ড, তার গড়", bn::int(c.bin))
    };
    let mean_y = y(c.wave.mean);
    let peak_y = y(f64::from(c.wave.max));
    html! {
        <figure class="jt-chart">
            <div class="jt-y" aria-hidden="true">
                <span>{ num(top) }</span><span>{ num(top / 2.0) }</span><span>{"0"}</span>
            </div>
            <div class="jt-plot">
                <svg viewBox={format!("0 0 {n} 100")} preserveAspectRatio="none" role="img"
                    aria-label={format!("প্রতি সেকেন্ডে মেয়াদ শেষ, {} থেকে {} সেকেন্ড", c.w0, w1)}>
                    <line class="jt-grid" x1="0" x2={n.to_string()} y1="50" y2="50" />
                    <path class="jt-bars done" d={bars(0..cur)} />
                    <path class="jt-bars later" d={bars(cur..n)} />
                    <line class="jt-mean" x1="0" x2={n.to_string()} y1={format!("{mean_y:.2}")} y2={format!("{mean_y:.2}")} />
                    <line class="jt-peak" x1={format!("{peak_x:.3}")} x2={format!("{peak_x:.3}")} y1="100" y2={format!("{peak_y:.2}")} />
                    <line class="jt-cursor" x1={cur.to_string()} x2={cur.to_string()} y1="0" y2="100" />
                </svg>
                <span class="jt-tag mean" style={format!("top: {:.1}%", mean_y.clamp(16.0, 100.0))}>
                    { format!("গড় {}/s", bn::text(&to_fixed(c.wave.mean, 1))) }
                </span>
                <span class={classes!("jt-tag", "peak", (peak_x > n as f64 * 0.6).then_some("left"))}
                    style={format!("top: {:.1}%; left: {:.2}%", peak_y.clamp(16.0, 100.0), peak_x / n as f64 * 100.0)}>
                    { format!("▲ সর্বোচ্চ {}/s", c.wave.max) }
                </span>
            </div>
            <div class="jt-x" aria-hidden="true">
                <span>{ format!("{} s", c.w0) }</span>
                <span>{ format!("{} s", c.w0 + c.bin * (n as i64 / 2)) }</span>
                <span>{ format!("{w1} s") }</span>
            </div>
            <figcaption class="jt-axis">
                { format!("x: লেখার পর সময় (সেকেন্ড) — {unit} (সর্বোচ্চ ১৫০টি বার) · y: সেকেন্ডে কয়টি key মরছে") }
            </figcaption>
        </figure>
    }
}

/// How many seconds carry each load: the mean is in the middle, the database must take the tail.
fn spread(c: &JitterChart) -> Html {
    let unit = if c.load_bin == 1 {
        String::new()
    } else {
        format!(", প্রতিটি বার {}টি মানের", bn::int(c.load_bin as i64))
    };
    html! {
        <div class="jt-spread">
            <p class="jt-spread-cap">
                { format!("জানালার {} সেকেন্ডের ভার কেমন ছড়ানো — গড় {}, কিন্তু ডেটাবেসকে সামলাতে হয় ডানের লেজ, সর্বোচ্চ {}",
                    bn::grouped(c.wave.span as i64), bn::text(&to_fixed(c.wave.mean, 1)), bn::grouped(i64::from(c.wave.max))) }
            </p>
            { histogram(&c.loads, &Axes { x: format!("এক সেকেন্ডে কয়টি key মরল{unit} · উচ্চতা: এমন কত সেকেন্ড"), y: String::new(), log_x: false }, None) }
        </div>
    }
}

fn figures(c: &JitterChart, keys: u32) -> Html {
    let w = &c.wave;
    let calmer = if w.max > 0 {
        f64::from(keys) / f64::from(w.max)
    } else {
        1.0
    };
    let verdict = if w.case.jitter == 0.0 {
        "jitter নেই: সব key একই সেকেন্ডে — ডেটাবেসে একটা দেয়াল".to_string()
    } else {
        format!(
            "jitter ছাড়া সবচেয়ে ভারী সেকেন্ডে {} key; এখানে {} — প্রায় {} গুণ কম",
            bn::grouped(i64::from(keys)),
            bn::grouped(i64::from(w.max)),
            bn::text(&format!("{calmer:.0}"))
        )
    };
    html! {
        <div class="jt-figures">
            <div class="jt-fig"><span class="jt-fig-num" data-testid="jitter-span">{ bn::int(w.span as i64) }</span><span class="jt-fig-label">{"জানালা (span, s)"}</span></div>
            <div class="jt-fig"><span class="jt-fig-num" data-testid="jitter-mean">{ bn::text(&to_fixed(w.mean, 1)) }</span><span class="jt-fig-label">{"সেকেন্ডে গড়"}</span></div>
            <div class="jt-fig peak"><span class="jt-fig-num" data-testid="jitter-max">{ bn::int(i64::from(w.max)) }</span><span class="jt-fig-label">{"সবচেয়ে ভারী সেকেন্ডে"}</span></div>
            <p class="jt-verdict">{ verdict }</p>
        </div>
    }
}

fn table(waves: &[JitterWave], chosen: JitterCase, cfg: &JitterConfig, complete: bool) -> Html {
    // The seed's table text, to the last space, for anyone comparing with `labsim jitter`.
    let text: String = std::iter::once(HEADER.to_string())
        .chain(waves.iter().map(JitterWave::row))
        .map(|l| l + "\n")
        .collect();
    html! {
        <div class="jt-table-wrap">
            <table class="jt-table" data-testid={complete.then_some("jitter-table")} data-table={text}>
                <caption>{ format!("seed-এর আট সারি: {} key, TTL {} s, seed {}", cfg.keys, cfg.ttl, cfg.seed) }</caption>
                <thead><tr>
                    <th scope="col">{"jitter"}</th>
                    <th scope="col">{"round"}</th>
                    <th scope="col">{"span (s)"}</th>
                    <th scope="col">{"mean per s"}</th>
                    <th scope="col">{"max per s"}</th>
                </tr></thead>
                <tbody>
                    { for waves.iter().map(|w| {
                        let here = w.case == chosen;
                        // The sim's own row text, cell by cell: the numbers are the seed's.
                        let row = w.row();
                        let cells: Vec<String> = row.split_whitespace().map(|s| s.replace("+-", "±")).collect();
                        html! {
                            <tr class={classes!(here.then_some("current"))} aria-current={here.then_some("true")}>
                                { for cells.into_iter().map(|c| html! { <td>{ c }</td> }) }
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
    let typed: JitterParams = lab.typed();
    let cfg = typed.config();
    let case = typed.case();

    let chosen_run = use_work::<JitterWave, JitterOutput>(Some(lab.job().run("chart")));
    // The table depends on keys, TTL and seed only: J and round leave it in place.
    let table_job = {
        let mut p = lab.params().clone();
        // The defaults' own values: always valid.
        let _ = (p.set("jitter", "0"), p.set("round", "1"));
        Job::new(&INFO, &p).run("table")
    };
    let rows_run = use_work::<JitterWave, JitterOutput>(Some(table_job));
    let busy = chosen_run.busy() || rows_run.busy();
    let chosen = match chosen_run.result() {
        Some(JitterOutput::Chart(c)) => Some(c),
        _ => None,
    };

    let frames = chosen.map_or(1, |c| c.bins.len() + 1);
    // A new result opens on the whole run; ▶ replays it from the start.
    let t = use_timeline(frames, TICK_MS, Open::End);

    let view = match chosen {
        None => failed_or_progress(&chosen_run),
        Some(c) => {
            let cur = t.cursor.min(c.bins.len());
            let at = c.w0 + c.bin * cur as i64;
            let gone = c.before(cur);
            let this = c.this_second(cur);
            let label = format!("t = {} s ({})", bn::grouped(at), clock(at));
            html! {
                <>
                    <Controls timeline={t.clone()} label={label} />
                    <p class="jt-now" data-testid="jitter-counter" aria-live="polite">
                        { format!("এখন পর্যন্ত {} key মরেছে, এই সেকেন্ডে {}", bn::grouped(gone as i64), bn::grouped(i64::from(this))) }
                        <span class="jt-now-case">{ format!(" · J = {}, round {}", share(case.jitter), bn::int(case.round as i64)) }</span>
                    </p>
                    { chart(c, cur) }
                    { figures(c, cfg.keys) }
                    if !props.embedded && c.wave.span > 1 { { spread(c) } }
                </>
            }
        }
    };
    let rows_view = match rows_run.result() {
        Some(JitterOutput::Table(w)) => table(w, case, &cfg, true),
        _ => html! { <>{ failed_or_progress(&rows_run) }{ table(&rows_run.parts, case, &cfg, false) }</> },
    };
    let lead = html! {
        { format!("{} key একই মুহূর্তে লেখা, TTL {} s; প্রতিটির মেয়াদ TTL × (১ + J·u), u −১ থেকে ১-এর মধ্যে সমবণ্টিত (mulberry32({})). মরলেই আবার লেখা হয় — round মানে কততম মেয়াদ।",
            bn::grouped(i64::from(cfg.keys)), bn::grouped(cfg.ttl as i64), cfg.seed) }
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
