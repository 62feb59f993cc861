//! The policy race of seed 001 §৪: FIFO, RANDOM, LRU, LFU and Belady's OPT (or any registry
//! policies) on the seed's three traces — Zipf, Zipf + scan, shifting popularity — with the
//! seed's table to the last digit, the race replayed step by step on one trace (position `k`
//! after the first `k` of its parts), "why was this key evicted" for one chosen policy, and hit
//! ratio against cache size with OPT as the ceiling. All numbers come from
//! `redislab_sim::labs::eviction`, computed in the simulation worker.

use super::kit::charts::{hbars, line_chart, Axes, Bar, Series};
use super::kit::{
    failed_or_progress, open_full, pct, use_lab, use_run, use_steps, Controls, LabFrame, LabProps,
    Open, ParamForm, RunState,
};
use redislab_deck::bn;
use redislab_sim::eviction::Access;
use redislab_sim::labs::eviction::model::curve_policies;
use redislab_sim::labs::eviction::{
    CurvePoint, CurveSeries, EvictionCurve, EvictionOutput, EvictionParams, EvictionRace,
    EvictionRow, EvictionTable, Logged, TraceName, INFO, LOG,
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

/// The seed's table: a row per policy, a cell per trace, each cell the figure of its hit
/// ratio (`lru-zipf`). `rows` so far while it runs (`out` once done).
fn table(rows: &[EvictionRow], out: Option<&EvictionOutput>, p: &EvictionParams) -> Html {
    let traces: Vec<TraceName> = out.map_or_else(|| TraceName::ALL.to_vec(), |o| o.traces.clone());
    let caption = format!(
        "মোট key {}, Zipf α {}, ক্যাশ {} key, {} রিকোয়েস্ট (প্রথম {} warm-up, গোনা হয় না) — সারিতে policy, কলামে trace, ঘরে hit ratio",
        bn::int(i64::from(p.keys)),
        bn::dec(p.alpha, 1),
        bn::int(i64::from(p.cache)),
        bn::int(i64::from(p.requests)),
        bn::int(i64::from(p.warmup))
    );
    html! {
        <table class={classes!("ev-table", out.is_none().then_some("partial"))}
            data-testid={if out.is_some() { "eviction-table" } else { "eviction-rows" }}>
            <caption>{ caption }</caption>
            <thead><tr>
                <th scope="col">{"policy"}</th>
                { for traces.iter().map(|t| html! { <th scope="col">{ t.label() }</th> }) }
            </tr></thead>
            <tbody>
                { for rows.iter().map(|r| html! {
                    <tr>
                        <th scope="row">{ r.policy.clone() }</th>
                        { for traces.iter().zip(&r.results).map(|(&t, c)| html! {
                            <td data-figure={EvictionOutput::key(&r.policy, t)} data-n={c.hit_percent.to_string()}>{ bn::pct(c.hit_percent, 1) }</td>
                        }) }
                    </tr>
                }) }
            </tbody>
        </table>
    }
}

fn access_text(step: &Logged, rule: &str) -> Html {
    let key = |k: u32| bn::digits(k as usize, 1);
    let (class, what) = match step.access {
        Access::Hit => ("hit", "hit — আগে থেকেই ক্যাশে".to_string()),
        Access::Miss { evicted: Some(e) } if e == step.key => (
            "bypass",
            "miss — নতুন key-টাকেই রাখা হলো না (admission)".to_string(),
        ),
        Access::Miss { evicted: Some(e) } => {
            ("evict", format!("miss → key {} বেরোল: {rule}", key(e)))
        }
        Access::Miss { evicted: None } => ("miss", "miss — জায়গা ছিল, কাউকে সরাতে হয়নি".to_string()),
    };
    html! {
        <li class={classes!("why-row", class)}>
            <span class="why-idx">{ format!("#{}", bn::int(step.index as i64 + 1)) }</span>
            <span class="why-key">{ format!("key {}", key(step.key)) }</span>
            <span class="why-what">{ what }</span>
        </li>
    }
}

/// The policy race.
#[component]
pub fn EvictionLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let p: EvictionParams = lab.params().read();
    // Three runs, queued in this order in the worker: the table first (the seed's numbers),
    // then the race replay for the timeline, then the curve. Inside a slide only the race is
    // drawn, so only the race runs.
    let full = !props.embedded;
    let table_run = use_run::<EvictionTable>(&lab, full);
    let race = use_run::<EvictionRace>(&lab, true);
    let curve_run = use_run::<EvictionCurve>(&lab, full);
    let busy = table_run.busy() || race.busy() || curve_run.busy();
    // Inside a slide the race opens where the slide's bullets are: its final numbers (the
    // seed's table); play from the start with ⏮. The lab page opens at the start.
    let t = use_steps(
        race.result(),
        250,
        if props.embedded {
            Open::End
        } else {
            Open::Start
        },
    );
    let kind_label = p.trace.label();

    let table_view = html! {
        <div class="race-table" tabindex="0" role="region" aria-label="দৌড়ের টেবিল">
            if let Some(o) = table_run.result() {
                <p class="lab-caption">{ format!("তিন trace-এ পুরো ফল (seed-এর টেবিল) · এই ব্রাউজারে হিসাব লাগল {}", bn::qty(table_run.millis.round(), 0, bn::Unit::Ms)) }</p>
                { table(&o.rows, Some(o), &p) }
            } else {
                { failed_or_progress(&table_run) }
                if !table_run.parts.is_empty() { { table(&table_run.parts, None, &p) } }
            }
        </div>
    };
    let race_view = match race.result() {
        Some(r) => {
            let k = t.cursor;
            let bars: Vec<Bar> = r
                .names
                .iter()
                .enumerate()
                .map(|(i, name)| {
                    let s = r.stats(k, i);
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
                        text: if warm && k > 0 {
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
                bn::int(r.replayed(k) as i64),
                bn::int(r.trace_len as i64)
            );
            html! {
                <>
                    <Controls timeline={t.clone()} label={label} />
                    <div class="race">
                        <div class="race-bars" data-testid="race-bars">
                            <p class="lab-caption">{ format!("{kind_label} trace-এ এ পর্যন্ত hit ratio — প্রথম {} রিকোয়েস্ট warm-up (·w), গোনা হয় না", bn::int(i64::from(p.warmup))) }</p>
                            { hbars(&bars, 100.0) }
                        </div>
                        if !props.embedded {
                            <div class="why">
                                <p class="lab-caption">{ format!("{} — শেষ {}টা রিকোয়েস্টে কী হলো, আর কেন", r.focus_name, bn::int(LOG as i64)) }</p>
                                <ol class="why-list">{ for r.log(k).iter().map(|s| access_text(s, &r.focus_rule)) }</ol>
                            </div>
                        }
                    </div>
                </>
            }
        }
        _ if table_run.busy() => Html::default(),
        _ => failed_or_progress(&race),
    };
    let curve = if props.embedded {
        Html::default()
    } else {
        let series = curves(&curve_run, &p);
        html! {
            <div class="race-curve">
                if curve_run.busy() && !race.busy() { { failed_or_progress(&curve_run) } }
                if !series.is_empty() {
                    <p class="lab-caption">{ format!("ক্যাশের আকার বনাম hit ratio, % ({kind_label}) — OPT হলো ছাদ") }</p>
                    { line_chart(&series, &Axes { x: "ক্যাশের আকার (key, log স্কেল)".into(), y: String::new(), log_x: true }, 100.0, Some(f64::from(p.cache))) }
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
