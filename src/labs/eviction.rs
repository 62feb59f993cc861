//! The policy race of seed 001 §৪: FIFO, RANDOM, LRU, LFU and Belady's OPT (or any registry
//! policies) on the seed's three traces — Zipf, Zipf + scan, shifting popularity — with the
//! seed's table to the last digit, the race replayed step by step on one trace, "why was this
//! key evicted" for one chosen policy, and hit ratio against cache size with OPT as the ceiling.
//! All numbers come from `redislab-sim`, computed in the simulation worker.

use super::kit::{
    Open,
    failed_or_progress, open_full, pct, use_lab, use_timeline, use_work, Controls, LabFrame, LabProps,
    ParamForm, RunState,
};
use super::kit::charts::{hbars, line_chart, Axes, Bar, Series};
use redislab_deck::bn;
use redislab_sim::eviction::{Access, TraceKind};
use redislab_sim::jsfmt::to_fixed;
use redislab_sim::labs::eviction::{
    curve_policies, CurvePoint, CurveSeries, EvictionParams, Logged, Race, TableRow, FRAMES,
    INFO, LOG,
};
use yew::prelude::*;

/// The lab's view, by the name the dispatch uses.
pub use EvictionLab as View;

/// The curves drawn from what has arrived: the partial points until the result is in.
fn curves(run: &RunState<CurvePoint, Vec<CurveSeries>>, p: &EvictionParams) -> Vec<Series> {
    let from = |list: &[CurveSeries]| -> Vec<Series> {
        list.iter()
            .map(|c| Series {
                name: c.name.clone(),
                points: c.points.clone(),
                class: format!("p-{}", c.policy),
            })
            .collect()
    };
    if let Some(list) = run.result() {
        return from(list);
    }
    let mut list: Vec<CurveSeries> = curve_policies(&p.policies)
        .into_iter()
        .map(|policy| CurveSeries {
            name: policy.to_ascii_uppercase(),
            policy,
            points: Vec::new(),
        })
        .collect();
    for pt in run.parts.iter() {
        if let Some(s) = list.get_mut(pt.series) {
            s.points.push((pt.x, pt.y));
        }
    }
    list.retain(|s| !s.points.is_empty());
    from(&list)
}

/// The table's rows that have arrived, in the seed's layout (the whole table replaces them).
fn rows_so_far(run: &RunState<TableRow, String>) -> String {
    run.parts
        .iter()
        .map(|r| {
            format!(
                "{:<8}{}",
                r.name,
                r.stats
                    .iter()
                    .map(|s| format!("{:>10}", format!("{}%", to_fixed(s.hit_percent(), 1))))
                    .collect::<String>()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn access_text(step: &Logged, rule: &str) -> Html {
    let (class, what) = match step.access {
        Access::Hit => ("hit", "hit — আগে থেকেই ক্যাশে".to_string()),
        Access::Miss { evicted: Some(e) } if e == step.key => (
            "bypass",
            "miss — নতুন key-টাকেই রাখা হলো না (admission)".to_string(),
        ),
        Access::Miss { evicted: Some(e) } => ("evict", format!("miss → key {e} বেরোল: {rule}")),
        Access::Miss { evicted: None } => ("miss", "miss — জায়গা ছিল, কাউকে সরাতে হয়নি".to_string()),
    };
    html! {
        <li class={classes!("why-row", class)}>
            <span class="why-idx">{ format!("#{}", step.index + 1) }</span>
            <span class="why-key">{ format!("key {}", step.key) }</span>
            <span class="why-what">{ what }</span>
        </li>
    }
}

/// The policy race.
#[component]
pub fn EvictionLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let typed: EvictionParams = lab.typed();
    // Three runs, queued in this order in the worker: the table first (the seed's numbers),
    // then the race replay for the timeline, then the curve. Inside a slide only the race is
    // drawn, so only the race runs.
    let full = !props.embedded;
    let table = use_work::<TableRow, String>(full.then(|| lab.job().run("table")));
    let race = use_work::<(), Race>(Some(lab.job().run("race")));
    let curve_run = use_work::<CurvePoint, Vec<CurveSeries>>(full.then(|| lab.job().run("curve")));
    let busy = table.busy() || race.busy() || curve_run.busy();
    // Inside a slide the race opens where the slide's bullets are: its final numbers (the
    // seed's table); play from the start with ⏮. The lab page opens at the start.
    let t = use_timeline(
        FRAMES,
        250,
        if props.embedded { Open::End } else { Open::Start },
    );
    let kind = typed.kind();
    // The seed's (and the slides') labels for the three traces.
    let kind_label = match kind {
        TraceKind::Zipf => "(ক) Zipf",
        TraceKind::Scan => "(খ) + scan",
        TraceKind::Shift => "(গ) shift",
    };

    let table_view = match table.result() {
        Some(text) => html! {
            <div class="race-table">
                <p class="lab-caption">{ format!("তিন trace-এ পুরো ফল (seed-এর টেবিলের বিন্যাসে) · এই ব্রাউজারে হিসাব লাগল {} ms", bn::digits(table.millis.round() as usize, 1)) }</p>
                <pre class="lab-table" tabindex="0" data-testid="eviction-table" data-ms={format!("{:.1}", table.millis)}>{ text.clone() }</pre>
            </div>
        },
        _ => html! {
            <div class="race-table">
                { failed_or_progress(&table) }
                if !table.parts.is_empty() {
                    <pre class="lab-table partial" tabindex="0" data-testid="eviction-rows">{ rows_so_far(&table) }</pre>
                }
            </div>
        },
    };
    let race_view = match race.result() {
        Some(r) => {
            let f = t.cursor.min(FRAMES - 1);
            let pos = r.positions.get(f).copied().unwrap_or(0);
            let bars: Vec<Bar> = r
                .names
                .iter()
                .enumerate()
                .map(|(i, name)| {
                    let s = r.frames[f].get(i).copied().unwrap_or_default();
                    // During warm-up nothing is scored yet: show all requests, marked as such.
                    let warm = s.scored_requests == 0;
                    let v = if warm {
                        pct(s.hits, s.requests)
                    } else {
                        pct(s.scored_hits, s.scored_requests)
                    };
                    Bar {
                        label: name.to_string(),
                        value: v,
                        text: if warm {
                            format!("{} ·w", bn::pct(v, 1))
                        } else {
                            bn::pct(v, 1)
                        },
                        class: if name == "OPT" {
                            "opt"
                        } else if warm {
                            "warm"
                        } else {
                            ""
                        },
                    }
                })
                .collect();
            let label = format!(
                "{} / {} রিকোয়েস্ট · {kind_label}",
                bn::int(pos as i64),
                bn::int(r.trace_len as i64)
            );
            html! {
                <>
                    <Controls timeline={t.clone()} label={label} />
                    <div class="race">
                        <div class="race-bars" data-testid="race-bars">
                            <p class="lab-caption">{ format!("{kind_label} trace-এ এ পর্যন্ত hit ratio — প্রথম {} রিকোয়েস্ট warm-up (·w), গোনা হয় না", bn::int(typed.warmup as i64)) }</p>
                            { hbars(&bars, 100.0) }
                        </div>
                        if !props.embedded {
                            <div class="why">
                                <p class="lab-caption">{ format!("{} — শেষ {}টা রিকোয়েস্টে কী হলো, আর কেন", r.focus_name, bn::digits(LOG, 1)) }</p>
                                <ol class="why-list">{ for r.logs[f].iter().map(|s| access_text(s, &r.focus_rule)) }</ol>
                            </div>
                        }
                    </div>
                </>
            }
        }
        _ if table.busy() => Html::default(),
        _ => failed_or_progress(&race),
    };
    let curve = if props.embedded {
        Html::default()
    } else {
        let series = curves(&curve_run, &typed);
        html! {
            <div class="race-curve">
                if curve_run.busy() && !race.busy() { { failed_or_progress(&curve_run) } }
                if !series.is_empty() {
                    <p class="lab-caption">{ format!("ক্যাশের আকার বনাম hit ratio ({kind_label}) — OPT হলো ছাদ") }</p>
                    { line_chart(&series, &Axes { x: "ক্যাশের আকার (key, log স্কেল)".into(), y: "hit %".into(), log_x: true }, 100.0, Some(f64::from(typed.cache))) }
                }
            </div>
        }
    };
    html! {
        <LabFrame lab={lab.clone()} {busy} link={false}>
            // Inside a slide the three fields the slide is about sit above the race.
            if props.embedded {
                <ParamForm state={lab.form.clone()} set={lab.set.clone()} only={vec!["alpha", "cache", "trace"]} />
            }
            { race_view }
            // Inside a slide: the race; the seed's whole table is on the full lab page.
            if !props.embedded { { table_view } }
            { curve }
            if props.embedded { { open_full(&lab) } }
        </LabFrame>
    }
}
