//! How good is sampled LRU? Seed 001 §৩ as an experiment: draw `k` resident keys at random,
//! evict the oldest of them, and measure where that key stands by age (0% = newest, 100% =
//! oldest). The line chart shows the measured mean against the theory `k/(k+1)` and exact
//! LRU's 100%; the timeline walks through `k` (position `k` shows the first `k` measured,
//! position 0 nothing yet), with the seed's sentence ("k = ৫: ফেলা key গড়ে বাকি ৮৩% key-এর
//! চেয়ে পুরোনো") in measured numbers. Numbers come from `redislab_sim::labs::sampling`, run in
//! the simulation worker (a point per `k` as it is measured).

use super::kit::charts::{line_chart, Axes, Series};
use super::kit::{
    failed_or_progress, open_full, stat_f, use_lab, use_run, use_steps, Controls, LabFrame,
    LabProps, Open, ParamForm,
};
use redislab_deck::bn;
use redislab_sim::eviction::sampling::SamplingPoint;
use redislab_sim::labs::sampling::output::SHOWN;
use redislab_sim::labs::sampling::{SamplingOutput, SamplingParams, SamplingRun, INFO};
use yew::prelude::*;

/// The lab's view, by the name the dispatch uses.
pub use SamplingLab as View;

/// `k = ৫`.
fn k_is(k: u32) -> String {
    format!("k = {}", bn::int(i64::from(k)))
}

/// A short remark for some `k`.
fn remark(k: u32) -> &'static str {
    match k {
        1 => "একটিমাত্র নমুনা মানে এলোমেলো একটি key — random eviction-এর সমান, গড়ে মাঝামাঝি।",
        2 | 3 => "নমুনা বাড়ছে, লাভ দ্রুত বাড়ছে।",
        5 => "Redis-এর ডিফল্ট (maxmemory-samples-এ ৫)।",
        10 => "দশটি নমুনায় বেশিরভাগ লাভ এসে গেছে।",
        k if k > 10 => "এর পরে প্রতিটি নমুনায় লাভ সামান্য, কিন্তু প্রতি eviction-এ CPU বেশি।",
        _ => "",
    }
}

/// The measured line, the theory and exact LRU over the points so far; the cursor on `k`.
fn chart(points: &[SamplingPoint], k: Option<u32>) -> Html {
    let line = |name: &str, class: &str, y: fn(&SamplingPoint) -> f64| Series {
        name: name.into(),
        points: points.iter().map(|p| (f64::from(p.k), y(p))).collect(),
        class: class.into(),
    };
    let series = [
        line("মাপা (simulation)", "smp-measured", |p| {
            p.measured * 100.0
        }),
        line("তত্ত্ব k/(k+১)", "smp-theory", |p| {
            p.theory * 100.0
        }),
        line("নিখুঁত LRU ১০০%", "smp-perfect", |_| {
            100.0
        }),
    ];
    // The unit is in the caption above the chart (inside the plot it sat on the "১০০").
    let axes = Axes {
        x: "নমুনা k (প্রতি eviction-এ কয়টি key দেখা হয়)".into(),
        y: String::new(),
        log_x: false,
    };
    line_chart(&series, &axes, 100.0, k.map(f64::from))
}

/// Where the evicted key stands among the resident keys, newest → oldest.
fn ruler(pt: SamplingPoint) -> Html {
    let m = (pt.measured * 100.0).clamp(0.0, 100.0);
    let th = (pt.theory * 100.0).clamp(0.0, 100.0);
    html! {
        <div class="smp-ruler" aria-hidden="true">
            <div class="smp-ruler-bar">
                <span class="smp-ruler-older" style={format!("width: {m:.2}%")}></span>
                <span class="smp-ruler-theory" style={format!("left: {th:.2}%")}></span>
                <span class={classes!("smp-ruler-victim", (m > 60.0).then_some("flip"))} style={format!("left: {m:.2}%")}>{"ফেলা key"}</span>
            </div>
            <div class="smp-ruler-ends"><span>{"নতুন"}</span><span>{"বয়স অনুযায়ী সাজানো key"}</span><span>{"পুরোনো"}</span></div>
        </div>
    }
}

/// The figures: the measured rank of k = 5 and k = 10, beside exact LRU's 100%.
fn stats(o: &SamplingOutput) -> Html {
    html! {
        <dl class="lab-stats smp-stats">
            { for SHOWN.iter().filter_map(|&k| o.at(k)).map(|pt| {
                let what = if pt.k == 5 { "Redis ডিফল্ট" } else { "দশটি নমুনা" };
                stat_f("sampling", SamplingOutput::key(pt.k), format!("{} · {what}", k_is(pt.k)), pt.measured * 100.0, bn::share(pt.measured, 1))
            }) }
            <div class="lab-stat perfect"><dt>{"নিখুঁত LRU"}</dt><dd>{"১০০%"}</dd></div>
        </dl>
    }
}

/// The sampled-LRU quality lab.
#[component]
pub fn SamplingLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let setup: SamplingParams = lab.params().read();
    let run = use_run::<SamplingRun>(&lab, true);
    // Open on k = 5, Redis' default, the seed's headline number.
    let t = use_steps(run.result(), 600, Open::At(5));
    // The points measured so far (all of them once done): the chart grows as they arrive.
    let points: Vec<SamplingPoint> = match run.result() {
        Some(o) => o.points.clone(),
        None => run.parts.to_vec(),
    };
    let cur = run.result().and_then(|o| o.shown_at(t.cursor));
    let label = cur.map_or_else(|| "শুরু".to_string(), |p| k_is(p.k));
    let sentence = match (cur, run.result()) {
        (Some(pt), _) => format!(
            "{}: ফেলা key গড়ে বাকি {} key-এর চেয়ে পুরোনো (তত্ত্ব k/(k+১) = {})",
            k_is(pt.k),
            bn::share(pt.measured, 1),
            bn::share(pt.theory, 1)
        ),
        (None, Some(_)) => "শুরু: এখনো কোনো k মাপা হয়নি — ▶ চাপুন বা এক ধাপ এগোন".to_string(),
        (None, None) => "হিসাব চলছে…".to_string(),
    };
    let chart = if points.is_empty() {
        failed_or_progress(&run)
    } else {
        chart(&points, cur.map(|p| p.k))
    };
    let after = html! {
        <>
            <p class="smp-caption">
                {"Redis allkeys-lru ডিফল্টে প্রতি eviction-এ ৫টি নমুনা দেখে ("}<code>{"maxmemory-samples 5"}</code>{"); সংস্করণ ৩.০ থেকে প্রার্থীদের একটি ছোট pool রেখে আন্দাজ আরও ভালো। এখানের রেখা pool ছাড়া, শুধু নমুনার।"}
            </p>
            <p class="smp-note">
                { format!(
                    "{} key-এর মধ্যে k-টি সমান সম্ভাবনায় তুলে সবচেয়ে পুরোনোটিকে সরানো হলো, প্রতিটি k-তে {} বার (seed {})। k-টি সমবণ্টিত সংখ্যার সর্বোচ্চটির গড় k/(k+১) — তাই নমুনা বাড়লে ফেলা key নিখুঁত LRU-র দিকে এগোয়, আর key-প্রতি list-এর দুটি pointer-এর memory বাঁচে।",
                    bn::int(i64::from(setup.keys)),
                    bn::int(i64::from(setup.trials)),
                    bn::int(i64::from(setup.seed))
                ) }
            </p>
        </>
    };
    html! {
        <LabFrame lab={lab.clone()} busy={run.busy()} {after} link={false}>
            // Inside a slide the one field worth changing sits above the chart.
            if props.embedded {
                <div class="smp-top">
                    <ParamForm state={lab.form.clone()} set={lab.set.clone()} only={vec!["kmax"]} />
                    { open_full(&lab) }
                </div>
            }
            <Controls timeline={t.clone()} label={label} />
            <div class="smp-body">
                <div class={classes!("smp-chart", (setup.kmax > 16).then_some("many-k"))}>
                    <p class="smp-chart-cap">{"ফেলা key গড়ে কত % key-এর চেয়ে পুরোনো"}</p>
                    { chart }
                </div>
                <div class="smp-side">
                    <p class="smp-step" aria-live="polite">{ sentence }</p>
                    if let Some(pt) = cur { { ruler(pt) } }
                    if let Some(pt) = cur.filter(|p| !remark(p.k).is_empty()) { <p class="smp-remark">{ remark(pt.k) }</p> }
                    if let Some(o) = run.result() { { stats(o) } }
                </div>
            </div>
        </LabFrame>
    }
}
