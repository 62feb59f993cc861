//! Expiry and the replica (patterns deck, "Replica ১/৫" … "৫/৫"; seed 002): a primary with
//! expiring keys, a second server made from its snapshot — a replica, or a primary started
//! from the RDB — and over virtual time `INFO keyspace` on both sides, the stale keys
//! (expired, not yet deleted) on each, the primary's lazy and active deletions and its DELs
//! on their way. The status line answers the seed's question with the numbers at the
//! cursor: what a read finds is the same on both sides; the counts differ only by stale
//! keys. Everything comes from `redislab_sim::labs::replica`, run in the simulation worker;
//! the timeline walks its frames. No live mode (see the simulator's module).

use super::kit::{
    failed_or_progress, open_full, stat, use_lab, use_run, use_steps, CmdLog, Controls, LabFrame,
    LabProps, Open,
};
use redislab_deck::bn;
use redislab_sim::labs::replica::{Counts, Frame, ReplicaOutput, ReplicaParams, ReplicaRun, INFO};
use yew::prelude::*;

/// The lab's view, by the name the dispatch uses.
pub use ReplicaLab as View;

/// Milliseconds per timeline tick.
const TICK_MS: u32 = 120;

fn n(v: u32) -> String {
    bn::int(i64::from(v))
}

fn secs(ms: u64) -> String {
    bn::qty(ms as f64 / 1000.0, 1, bn::Unit::S)
}

/// The second server's name.
fn second_name(o: &ReplicaOutput) -> &'static str {
    if o.replica {
        "replica"
    } else {
        "RDB থেকে চালু primary"
    }
}

/// The seed's question answered at frame `f` (`short`: in one line, inside a slide).
fn now_line(o: &ReplicaOutput, f: &Frame, short: bool) -> Html {
    let who = second_name(o);
    let synced = o.at_sync.filter(|_| f.t_ms >= o.sync_ms);
    let say = match (f.second, synced) {
        // Inside a slide the names, in the chart's colours, are its legend.
        (Some(s), _) if short => {
            return html! {
                <p class="lab-now rp-now" data-testid="replica-now">
                    { format!("কিছু হারায়নি: পড়লে মেলে দুদিকেই {}টা key; keys= ", n(f.primary.live())) }
                    <span class="rp-name p">{"primary"}</span>{ format!(" {}, ", n(f.primary.keys)) }
                    <span class="rp-name s">{ who }</span>{ format!(" {} — ফারাক শুধু না-মোছা মরা key", n(s.keys)) }
                </p>
            };
        }
        (Some(s), _) => format!(
            "কিছু হারায়নি: পড়লে মেলে এমন key দুদিকেই {}টা। keys= primary {}, {who} {} — ফারাক শুধু মেয়াদ পেরোনো, না-মোছা key-এ (primary {}, {who} {})",
            n(f.primary.live()),
            n(f.primary.keys),
            n(s.keys),
            n(f.primary.stale),
            n(s.stale),
        ),
        (None, Some(a)) => format!(
            "full sync চলছে: snapshot-এ {} key (মেয়াদ পেরোনো {}টা{}), replica পাবে {}-এ",
            n(a.snapshot),
            n(a.stale),
            if a.snapshot < a.keys { " বাদ" } else { "ও আছে" },
            secs(o.loaded_ms),
        ),
        (None, None) => format!(
            "replica এখনো জোড়েনি ({}-এ জুড়বে): primary-তে keys= {}, তার {}টা মেয়াদ পেরোনো কিন্তু এখনো মোছা হয়নি",
            secs(o.sync_ms),
            n(f.primary.keys),
            n(f.primary.stale),
        ),
    };
    html! {
        <p class="lab-now rp-now" data-testid="replica-now">
            <span class="lab-now-t">{ secs(f.t_ms) }</span>{ " " }{ say }
        </p>
    }
}

/// One line of a chart: its name, class and value at a frame.
struct Line {
    name: &'static str,
    class: &'static str,
    at: fn(&Frame) -> Option<u32>,
}

/// The chart's legend: each line's name beside its stroke.
fn legend(lines: &[Line]) -> Html {
    html! {
        <div class="rp-legend">
            { for lines.iter().map(|l| html! { <span class={classes!("rp-key", l.class)}>{ l.name }</span> }) }
        </div>
    }
}

/// Lines over the frames, the part after the cursor faded; y up to the largest value, from
/// 0 or (`zoom`) from just under the smallest, so that a gap of a few hundred keys in ten
/// thousand shows (the axis says where it starts). `keyed`: its legend under it (inside a
/// slide the legend sits beside the transport instead, where the stage has room).
fn chart(
    o: &ReplicaOutput,
    k: usize,
    lines: &[Line],
    zoom: bool,
    label: &str,
    test: &'static str,
    keyed: bool,
) -> Html {
    let last = o.frames.len().saturating_sub(1).max(1) as f64;
    let values = || lines.iter().flat_map(|l| o.frames.iter().filter_map(l.at));
    let top = values().max().unwrap_or(0).max(1);
    let low = values().min().unwrap_or(0);
    let mut unit = 1;
    while unit * 10 <= low {
        unit *= 10;
    }
    let bottom = if zoom {
        (low / unit * unit).min(top - 1)
    } else {
        0
    };
    let y = |v: u32| 100.0 - f64::from(v - bottom) / f64::from(top - bottom) * 100.0;
    let path = |l: &Line, range: std::ops::Range<usize>| -> String {
        let mut d = String::new();
        let mut pen = false;
        for i in range {
            match (l.at)(&o.frames[i]) {
                Some(v) => {
                    d.push_str(&format!(
                        "{}{:.2} {:.2}",
                        if pen { "L" } else { "M" },
                        i as f64 / last * 1000.0,
                        y(v)
                    ));
                    pen = true;
                }
                None => pen = false,
            }
        }
        d
    };
    let cur = k.min(o.frames.len().saturating_sub(1));
    let x = cur as f64 / last * 1000.0;
    let sync_x = o.sync_ms as f64 / (last * o.step_ms as f64) * 1000.0;
    let end = o.frames.last().map_or(0, |f| f.t_ms);
    html! {
        <figure class="rp-chart" data-testid={test}>
            <figcaption class="rp-chart-title">{ label.to_string() }</figcaption>
            <div class="rp-chart-body">
                <div class="rp-y" aria-hidden="true"><span>{ n(top) }</span><span>{ n(bottom) }</span></div>
                <div class="rp-plot">
                    <svg viewBox="0 0 1000 100" preserveAspectRatio="none" role="img" aria-label={label.to_string()}>
                        <line class="rp-sync" x1={format!("{sync_x:.2}")} x2={format!("{sync_x:.2}")} y1="0" y2="100" />
                        { for lines.iter().map(|l| html! {
                            <g class={classes!("rp-line", l.class)}>
                                <path class="done" d={path(l, 0..cur + 1)} />
                                <path class="later" d={path(l, cur..o.frames.len())} />
                            </g>
                        }) }
                        <line class="rp-cursor" x1={format!("{x:.2}")} x2={format!("{x:.2}")} y1="0" y2="100" />
                    </svg>
                </div>
                <div class="rp-x" aria-hidden="true">
                    <span>{"০ s"}</span>
                    // Under the sync line, not midway.
                    <span class="rp-x-at" style={format!("--at: {:.2}%", sync_x / 10.0)}>{ format!("sync {}", secs(o.sync_ms)) }</span>
                    <span>{ secs(end) }</span>
                </div>
            </div>
            if keyed { { legend(lines) } }
        </figure>
    }
}

/// One server's `INFO keyspace` and stale keys at the cursor.
fn side(title: &str, key: &'static str, c: Option<Counts>, note: &str) -> Html {
    let k = |s: &'static str| -> &'static str {
        match (key, s) {
            ("p", "keys") => "p-keys",
            ("p", "expires") => "p-expires",
            ("p", _) => "p-stale",
            (_, "keys") => "s-keys",
            (_, "expires") => "s-expires",
            _ => "s-stale",
        }
    };
    html! {
        <section class={classes!("rp-side", format!("rp-{key}"))}>
            <h3 class="rp-side-name">{ title.to_string() }</h3>
            if let Some(c) = c {
                <code class="rp-info">{ format!("db0:keys={},expires={}", c.keys, c.expires) }</code>
                <dl class="lab-stats rp-stats">
                    { stat("replica", k("keys"), "keys=", u64::from(c.keys), false) }
                    { stat("replica", k("expires"), "expires=", u64::from(c.expires), false) }
                    { stat("replica", k("stale"), "মরা, মোছা বাকি", u64::from(c.stale), true) }
                </dl>
            } else {
                <p class="rp-side-note">{ note.to_string() }</p>
            }
        </section>
    }
}

/// The lab.
#[component]
pub fn ReplicaLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let p: ReplicaParams = lab.params().read();
    let run = use_run::<ReplicaRun>(&lab, true);
    // Position k is frame k (0: the start); a new result opens on the whole run, ▶ replays
    // it from the start.
    let t = use_steps(run.result(), TICK_MS, Open::End);
    let embedded = props.embedded;
    let view = match run.result() {
        None => failed_or_progress(&run),
        Some(o) => {
            let k = t.cursor.min(o.frames.len().saturating_sub(1));
            let f = &o.frames[k];
            let end = o.frames.last().map_or(0, |f| f.t_ms);
            let label = format!("{} / {}", secs(f.t_ms), secs(end));
            let who = second_name(o);
            let keys = [
                Line {
                    name: "primary keys=",
                    class: "p",
                    at: |f| Some(f.primary.keys),
                },
                Line {
                    name: if o.replica {
                        "replica keys="
                    } else {
                        "RDB থেকে চালু keys="
                    },
                    class: "s",
                    at: |f| f.second.map(|c| c.keys),
                },
            ];
            let stale = [
                Line {
                    name: "primary: মরা, মোছা বাকি",
                    class: "p",
                    at: |f| Some(f.primary.stale),
                },
                Line {
                    name: if o.replica {
                        "replica: মরা, মোছা বাকি"
                    } else {
                        "RDB থেকে চালু: মরা, মোছা বাকি"
                    },
                    class: "s",
                    at: |f| f.second.map(|c| c.stale),
                },
            ];
            let waiting = if f.t_ms < o.sync_ms {
                format!("{}-এ জুড়বে", secs(o.sync_ms))
            } else {
                format!("snapshot আসছে — {}-এ লোড", secs(o.loaded_ms))
            };
            let lines: Vec<_> = o
                .log
                .iter()
                .filter(|l| l.at_ms <= f.t_ms)
                .map(|l| {
                    let cls = if l.actor == "primary" { "p" } else { "s" };
                    (l.clone(), classes!(format!("rp-log-{cls}")))
                })
                .collect();
            html! {
                <>
                    <Controls timeline={t.clone()} label={label} />
                    if embedded { { legend(&keys) } }
                    if embedded {
                        // The link to the whole lab beside the answer: the slide keeps one row.
                        <div class="rp-nowrow">{ now_line(o, f, true) }{ open_full(&lab) }</div>
                    } else {
                        { now_line(o, f, false) }
                    }
                    { chart(o, k, &keys, true, "INFO keyspace-এর keys= — দুদিকে", "replica-keys-chart", !embedded) }
                    <div class="rp-sides">
                        { side("primary", "p", Some(f.primary), "") }
                        { side(who, "s", f.second, &waiting) }
                    </div>
                    <dl class="lab-stats rp-work">
                        { stat("replica", "lazy", "lazy মোছা (GET-এ ধরা)", f.lazy, false) }
                        { stat("replica", "active", "সক্রিয় চক্রে মোছা", f.active, false) }
                        if o.replica {
                            { stat("replica", "in-flight", "পথে থাকা DEL", u64::from(f.in_flight), false) }
                        } else {
                            { stat("replica", "second-active", "ওর নিজের চক্রে মোছা", f.second_active, false) }
                        }
                        if !embedded {
                            { stat("replica", "reads", "client-এর GET", f.reads, false) }
                        }
                    </dl>
                    if !embedded {
                        { chart(o, k, &stale, false, "মেয়াদ পেরোনো, এখনো না-মোছা key — দুদিকে", "replica-stale-chart", true) }
                        <CmdLog {lines} lab="replica" secs={true} class={classes!("rp-log")}
                            empty={Some(AttrValue::from(format!("{}-এ দুদিকে একটা মরা key পড়া হবে", secs(o.loaded_ms + 1000))))} />
                    }
                </>
            }
        }
    };
    let lead = html! {
        <>
            {"primary-তে "}{ n(p.keys) }{" key, তার "}{ n(p.volatile) }{"% TTL-ওয়ালা। মেয়াদ ফুরোলেই key মোছে না: মোছে কেউ পড়লে (lazy) বা পেছনের সক্রিয় চক্রে। "}
            <code>{"INFO keyspace"}</code>
            {" মোছা-বাকি মরা key-ও গোনে। sync-এর মুহূর্তে snapshot যায় replica-তে; replica নিজে কিছু মোছে না, primary-র DEL-এর অপেক্ষা করে।"}
        </>
    };
    html! {
        // Inside a slide: no preset buttons (the slide tells today's story; the page has
        // them all) and the link beside the answer, so the slide and its lab fit the stage.
        <LabFrame lab={lab.clone()} busy={run.busy()} {lead} slide_presets={false} link={false}>
            <div class="rp-main">{ view }</div>
        </LabFrame>
    }
}
