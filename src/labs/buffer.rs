//! The buffering lab (production slide 16): 50,000 viewers' heartbeats and progress events,
//! written directly or buffered, side by side.
//!
//! It draws, per second of the run (averaged), the Redis commands, the round trips, the
//! database rows and the database queries of both designs as bars on a log scale (50,000
//! against 167 against 1 would leave the small ones invisible on a straight one), the
//! sentence of what each saving is (the pipeline: round trips; the chunks: commands; Redis
//! writes the same members), the progress flushes in a row — a failed one with what its
//! requeue did — the check of every user's latest progress, and the SimRedis sample's first
//! commands in both designs. Everything comes from `redislab_sim::labs::buffer`, run in the
//! simulation worker. No live mode (see the simulator module: a 300-member `ZADD` is over the
//! proxy's 256 arguments).

use super::kit::{
    failed_or_progress, stat, use_lab, use_run, use_steps, CmdLog, Controls, LabFrame, LabProps,
    Open,
};
use redislab_deck::bn;
use redislab_sim::labs::buffer::output::{cell_key, chart_rows, sample_keys};
use redislab_sim::labs::buffer::{BufferOutput, BufferRun, Flush, Requeue, SampleDesign, INFO};
use redislab_sim::labs::log::CmdLine;
use yew::prelude::*;

/// The lab's view, by the name the dispatch uses.
pub use BufferLab as View;

fn n(v: u64) -> String {
    bn::int(i64::try_from(v).unwrap_or(i64::MAX))
}

/// A per-second average: whole from 100 up (or when it is whole), one decimal below.
fn per(v: f64) -> String {
    if v >= 100.0 || (v - v.round()).abs() < 1e-9 {
        bn::int(v.round() as i64)
    } else {
        bn::dec(v, 1)
    }
}

/// The chart's row labels, by key.
fn row_label(key: &str) -> &'static str {
    match key {
        "cmds" => "Redis কমান্ড",
        "trips" => "রাউন্ড-ট্রিপ",
        "rows" => "DB-তে রো",
        _ => "DB কোয়েরি",
    }
}

/// The bars: per second (averaged over the run), both designs, on a log scale.
fn chart(r: &BufferOutput) -> Html {
    let rows = chart_rows(&r.direct, &r.buffered);
    let top = rows
        .iter()
        .map(|&(_, d, b)| r.per_s(d).max(r.per_s(b)))
        .fold(1.0f64, f64::max);
    let width = |v: f64| {
        if v <= 0.0 {
            0.0
        } else {
            // log10(1 + v) over log10(1 + top): 1 a second still shows.
            ((1.0 + v).log10() / (1.0 + top).log10() * 100.0).max(1.5)
        }
    };
    let cell = |row: &str, buffered: bool, total: u64| {
        let v = r.per_s(total);
        let design = if buffered { "buffered" } else { "direct" };
        html! {
            <td class={classes!("buf-cell", design)} data-design={design} data-figure={cell_key(row, buffered)} data-n={total.to_string()}>
                <span class="buf-track" aria-hidden="true">
                    <span class="buf-fill" style={format!("width: {:.2}%", width(v))}></span>
                </span>
                <span class="buf-v">{ per(v) }</span>
            </td>
        }
    };
    html! {
        <table class="buf-chart" data-testid="buffer-chart">
            <caption>{"প্রতি সেকেন্ডে (গড়) — লগ স্কেল"}</caption>
            <thead>
                <tr>
                    <th scope="col"></th>
                    <th scope="col" class="direct">{"সরাসরি"}</th>
                    <th scope="col" class="buffered">{"বাফারে"}</th>
                </tr>
            </thead>
            <tbody>
                { for rows.iter().map(|&(key, d, b)| html! {
                    <tr data-key={key}>
                        <th scope="row">{ row_label(key) }</th>
                        { cell(key, false, d) }
                        { cell(key, true, b) }
                    </tr>
                }) }
            </tbody>
        </table>
    }
}

/// What the savings are, in one sentence.
fn now_line(r: &BufferOutput) -> Html {
    let p = &r.params;
    let c = &r.check;
    let (say, bad) = match r.failed() {
        Some(f) if c.behind > 0 => (
            format!(
                "{}-এর ফ্লাশ ফেল; {} — শেষে {} জনের প্রোগ্রেস পিছিয়ে",
                at(f),
                requeue_said(p.requeue, f),
                n(c.behind)
            ),
            true,
        ),
        Some(f) => (
            format!(
                "{}-এর ফ্লাশ ফেল; {} — শেষে সবার সর্বশেষ প্রোগ্রেস ঠিক, কিছুই হারায়নি",
                at(f),
                requeue_said(p.requeue, f)
            ),
            false,
        ),
        None => (
            format!(
                "pipeline বাঁচায় রাউন্ড-ট্রিপ ({} → {}), চাঙ্ক বাঁচায় কমান্ড ({} → {}); Redis তবু সেকেন্ডে {} সদস্য লেখে",
                per(r.per_s(r.direct.round_trips)),
                per(r.per_s(r.buffered.round_trips)),
                per(r.per_s(r.direct.redis_cmds)),
                per(r.per_s(r.buffered.redis_cmds)),
                per(r.per_s(r.buffered.members))
            ),
            false,
        ),
    };
    html! {
        <p class={classes!("lab-now", bad.then_some("bad"))} data-testid="buffer-now">{ say }</p>
    }
}

/// When flush `f` ran (`৬০ s`).
fn at(f: &Flush) -> String {
    bn::qty(f64::from(f.at_s), 0, bn::Unit::S)
}

fn requeue_said(requeue: Requeue, f: &Flush) -> String {
    match requeue {
        Requeue::Drop => format!("{} রো ফেলে দেওয়া হলো", n(f.dropped)),
        Requeue::Blind => format!(
            "{} রো ফেরত, তার {}টা নতুনটার ওপর বসল",
            n(f.requeued),
            n(f.overwrote_newer)
        ),
        Requeue::NewerWins => format!("{} রো ফেরত, {}টায় নতুনটাই থাকল", n(f.requeued), n(f.kept_newer)),
    }
}

/// The progress flushes, the first `k` done (the timeline's cursor), the rest still to come.
fn flushes(r: &BufferOutput, k: usize) -> Html {
    html! {
        <ol class="buf-flushes" aria-label="প্রোগ্রেস ফ্লাশ, একটার পর একটা" data-testid="buffer-flushes">
            { for r.flushes.iter().enumerate().map(|(i, f)| html! {
                <li class={classes!("buf-flush", (!f.ok).then_some("failed"), (i >= k).then_some("later"))} data-s={f.at_s.to_string()}
                    data-rows={f.rows.to_string()} data-queries={f.queries.to_string()}>
                    <span class="buf-flush-t">{ at(f) }</span>
                    if f.ok {
                        <span>{ format!("{} রো · {} কোয়েরি", n(f.rows), n(f.queries)) }</span>
                    } else {
                        <span>{ format!("ফেল · {} রো", n(f.rows)) }</span>
                    }
                </li>
            }) }
        </ol>
    }
}

fn stats(r: &BufferOutput, embedded: bool) -> Html {
    let per_trip = r.per_trip();
    let f = r.failed().copied().unwrap_or_default();
    html! {
        <dl class="lab-stats buf-stats">
            { stat("buffer", "per-trip", "এক pipeline-এ কমান্ড", per_trip, false) }
            { stat("buffer", "members", "সেকেন্ডে ZSET সদস্য (দুই পথেই)", r.per_s(r.buffered.members).round() as u64, false) }
            { stat("buffer", "requeued", "ফেরত রো", f.requeued, false) }
            { stat("buffer", "behind", "প্রোগ্রেস পিছিয়ে", r.check.behind, true) }
            if !embedded {
                { stat("buffer", "kept-newer", "নতুনটাই থাকল", f.kept_newer, false) }
                { stat("buffer", "overwrote", "নতুনের ওপর পুরোনো", f.overwrote_newer, true) }
                { stat("buffer", "dropped", "ফেলে দেওয়া রো", f.dropped, true) }
                { stat("buffer", "written", "সর্বশেষটা DB-তে", r.check.written, false) }
                { stat("buffer", "pending", "সর্বশেষটা Map-এ, পরের ফ্লাশে", r.check.pending, false) }
            }
        </dl>
    }
}

fn sample_log(what: &'static str, buffered: bool, d: &SampleDesign) -> Html {
    let lines: Vec<(CmdLine, Classes)> = d
        .log
        .iter()
        .map(|l| (l.clone(), classes!("buf-cmd")))
        .collect();
    let [cmds, trips, zcard] = sample_keys(buffered);
    html! {
        <div class="buf-sample-side">
            <p class="lab-caption">{ what }</p>
            <dl class="lab-stats buf-sample-stats">
                { stat("buffer", cmds, "কমান্ড", d.cmds, false) }
                { stat("buffer", trips, "রাউন্ড-ট্রিপ", d.round_trips, false) }
                { stat("buffer", zcard, "শেষে ZCARD", d.zcard.max(0) as u64, false) }
            </dl>
            <CmdLog {lines} lab="buffer" class={classes!("buf-log")} />
        </div>
    }
}

/// The SimRedis sample: the first commands of both designs.
fn sample(r: &BufferOutput) -> Html {
    let s = &r.sample;
    html! {
        <section class="buf-sample" data-testid="buffer-sample"
            data-direct={s.direct.cmds.to_string()} data-buffered={s.buffered.cmds.to_string()}
            data-buffered-trips={s.buffered.round_trips.to_string()}>
            <h3 class="lab-caption">{ format!("SimRedis-এ আসল কমান্ড: প্রথম {} দর্শক, {} সেকেন্ড", n(u64::from(s.viewers)), n(u64::from(s.seconds))) }</h3>
            <div class="buf-sample-two">
                { sample_log("সরাসরি", false, &s.direct) }
                { sample_log("বাফারে", true, &s.buffered) }
            </div>
        </section>
    }
}

/// The buffering lab.
#[component]
pub fn BufferLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let run = use_run::<BufferRun>(&lab, true);
    let embedded = props.embedded;
    // The transport steps through the progress flushes (position k: the first k done); the
    // per-second figures are the run's.
    let t = use_steps(run.result(), 500, Open::End);
    let view = match run.result() {
        None => failed_or_progress(&run),
        Some(r) => html! {
            <>
                <Controls timeline={t.clone()} label={format!("ফ্লাশ {} / {}", bn::int(t.cursor.min(r.flushes.len()) as i64), bn::int(r.flushes.len() as i64))} />
                { chart(r) }
                <div class="lab-status">
                    { now_line(r) }
                    { stats(r, embedded) }
                </div>
                { flushes(r, t.cursor) }
                { sample(r) }
            </>
        },
    };
    let lead = html! {
        <>
            {"প্রত্যেক দর্শক সেকেন্ডে একটা হার্টবিট আর একটা প্রোগ্রেস ইভেন্ট পাঠায়। সরাসরি লিখলে প্রতিটা আলাদা "}
            <code>{"ZADD"}</code>
            {" আর আলাদা DB-লেখা। বাফারে: হার্টবিট ১ সেকেন্ড জমে, তারপর ৩০০ জন করে এক "}
            <code>{"ZADD"}</code>
            {", সব এক pipeline-এ; প্রোগ্রেস Map-এ ইউজারপিছু একটা, ৩০ সেকেন্ডে ১,০০০ রো করে DB-তে। pipeline কমায় রাউন্ড-ট্রিপ, চাঙ্ক কমায় কমান্ড। (চ্যাট একই কায়দায় ১২০ ms জমে।)"}
        </>
    };
    html! {
        <LabFrame lab={lab.clone()} busy={run.busy()} {lead}>
            <div class="buf-main">{ view }</div>
        </LabFrame>
    }
}
