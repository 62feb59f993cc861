//! How good is sampled LRU? Seed 001 §৩ as an experiment: draw `k` resident keys at random,
//! evict the oldest of them, and measure where that victim stands by age (0% = newest,
//! 100% = oldest). The line chart shows the measured mean against the theory `k/(k+1)` and
//! exact LRU's 100%; the timeline walks through `k`, with the seed's sentence ("k = 5: victim
//! গড়ে বাকি ৮৩% key-এর চেয়ে পুরোনো") in measured numbers. Numbers come from
//! `redislab_sim`'s `SamplingRun` in the simulation worker (a point per `k` as it is measured,
//! the same numbers as `sampling_quality`).

use super::kit::{
    Open,
    failed_or_progress, open_full, use_lab, use_timeline, use_work, Controls, LabFrame, LabProps, ParamForm,
};
use super::kit::charts::{line_chart, Axes, Series};
use redislab_deck::bn;
use redislab_sim::eviction::sampling::SamplingPoint;
use redislab_sim::labs::sampling::{SamplingParams, INFO};
use yew::prelude::*;

/// The lab's view, by the name the dispatch uses.
pub use SamplingLab as View;

/// A fraction as a percentage with one decimal, in Bengali digits.
fn pct_bn(x: f64) -> String {
    bn::text(&format!("{:.1}%", x * 100.0))
}

/// A short remark for some `k`.
fn remark(k: u32) -> &'static str {
    match k {
        1 => "একটিমাত্র নমুনা মানে এলোমেলো একটি key — random eviction-এর সমান, গড়ে মাঝামাঝি।",
        2 | 3 => "নমুনা বাড়ছে, লাভ দ্রুত বাড়ছে।",
        5 => "Redis-এর ডিফল্ট (maxmemory-samples 5)।",
        10 => "দশটি নমুনায় বেশিরভাগ লাভ এসে গেছে।",
        k if k > 10 => "এর পরে প্রতিটি নমুনায় লাভ সামান্য, কিন্তু প্রতি eviction-এ CPU বেশি।",
        _ => "",
    }
}

/// The sampled-LRU quality lab.
#[component]
pub fn SamplingLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let setup: SamplingParams = lab.typed();
    let run = use_work::<SamplingPoint, Vec<SamplingPoint>>(Some(lab.job()));
    let busy = run.busy();
    // The points measured so far (all of them once done): the chart grows as they arrive.
    let points: Vec<SamplingPoint> = match run.result() {
        Some(v) => v.clone(),
        None => run.parts.to_vec(),
    };

    // Open on k = 5, Redis' default, the seed's headline number.
    let t = use_timeline(setup.kmax as usize, 600, Open::At(4));
    let k = (t.cursor as u32 + 1).min(setup.kmax);
    let at = |k: u32| points.iter().find(|p| p.k == k).copied();
    let cur = at(k);

    let label = format!("k = {k}");
    let sentence = match cur {
        Some(pt) => format!(
            "k = {k}: victim গড়ে বাকি {} key-এর চেয়ে পুরোনো (তত্ত্ব k/(k+1) = {})",
            pct_bn(pt.measured),
            pct_bn(pt.theory)
        ),
        None => format!("k = {k}: হিসাব চলছে…"),
    };

    let chart = match &points {
        v if !v.is_empty() => {
            let series = [
                Series {
                    name: "মাপা (simulation)".into(),
                    points: v
                        .iter()
                        .map(|p| (f64::from(p.k), p.measured * 100.0))
                        .collect(),
                    class: "smp-measured".into(),
                },
                Series {
                    name: "তত্ত্ব k/(k+1)".into(),
                    points: v
                        .iter()
                        .map(|p| (f64::from(p.k), p.theory * 100.0))
                        .collect(),
                    class: "smp-theory".into(),
                },
                Series {
                    name: "নিখুঁত LRU ১০০%".into(),
                    points: v.iter().map(|p| (f64::from(p.k), 100.0)).collect(),
                    class: "smp-perfect".into(),
                },
            ];
            let axes = Axes {
                x: "নমুনা k (প্রতি eviction-এ কয়টি key দেখা হয়)".into(),
                y: "%".into(),
                log_x: false,
            };
            line_chart(&series, &axes, 100.0, Some(f64::from(k)))
        }
        _ => failed_or_progress(&run),
    };

    // Where the victim stands among the resident keys, newest → oldest.
    let ruler = cur.map(|pt| {
        let m = (pt.measured * 100.0).clamp(0.0, 100.0);
        let th = (pt.theory * 100.0).clamp(0.0, 100.0);
        html! {
            <div class="smp-ruler" aria-hidden="true">
                <div class="smp-ruler-bar">
                    <span class="smp-ruler-older" style={format!("width: {m:.2}%")}></span>
                    <span class="smp-ruler-theory" style={format!("left: {th:.2}%")}></span>
                    <span class={classes!("smp-ruler-victim", (m > 60.0).then_some("flip"))} style={format!("left: {m:.2}%")}>{"victim"}</span>
                </div>
                <div class="smp-ruler-ends"><span>{"নতুন"}</span><span>{"বয়স অনুযায়ী সাজানো key"}</span><span>{"পুরোনো"}</span></div>
            </div>
        }
    });

    let stat = |k: u32, what: &'static str, id: Option<&'static str>| -> Html {
        match at(k) {
            Some(pt) if k <= setup.kmax => html! {
                <div class={classes!("smp-stat", (k == 5).then_some("redis"))}>
                    <span class="smp-stat-num" data-testid={id} data-value={format!("{:.1}", pt.measured * 100.0)}>{ pct_bn(pt.measured) }</span>
                    <span class="smp-stat-label">{ format!("k = {k} · {what}") }</span>
                </div>
            },
            _ => Html::default(),
        }
    };

    let after = html! {
        <>
            <p class="smp-caption">
                {"Redis allkeys-lru ডিফল্টে প্রতি eviction-এ ৫টি নমুনা দেখে (maxmemory-samples 5); সংস্করণ ৩.০ থেকে প্রার্থীদের একটি ছোট pool রেখে আন্দাজ আরও ভালো। এখানের রেখা pool ছাড়া, শুধু নমুনার।"}
            </p>
            <p class="smp-note">
                { format!(
                    "{} key-এর মধ্যে k-টি সমান সম্ভাবনায় তুলে সবচেয়ে পুরোনোটিকে সরানো হলো, প্রতিটি k-তে {} বার (seed {})। k-টি সমবণ্টিত সংখ্যার সর্বোচ্চটির গড় k/(k+1) — তাই নমুনা বাড়লে victim নিখুঁত LRU-র দিকে এগোয়, আর key-প্রতি list-এর দুটি pointer-এর memory বাঁচে।",
                    bn::int(setup.keys as i64),
                    bn::int(setup.trials as i64),
                    setup.seed
                ) }
            </p>
        </>
    };
    html! {
        <LabFrame lab={lab.clone()} {busy} {after} link={false}>
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
                    <p class="smp-chart-cap">{"victim গড়ে কত % key-এর চেয়ে পুরোনো"}</p>
                    { chart }
                </div>
                <div class="smp-side">
                    <p class="smp-step" aria-live="polite">{ sentence }</p>
                    if let Some(r) = ruler { { r } }
                    if !remark(k).is_empty() { <p class="smp-remark">{ remark(k) }</p> }
                    if !busy {
                        <div class="smp-stats">
                            { stat(5, "Redis ডিফল্ট", Some("sampling-k5")) }
                            { stat(10, "দশটি নমুনা", None) }
                            <div class="smp-stat perfect">
                                <span class="smp-stat-num">{"১০০%"}</span>
                                <span class="smp-stat-label">{"নিখুঁত LRU"}</span>
                            </div>
                        </div>
                    }
                </div>
            </div>
        </LabFrame>
    }
}
