//! The invalidation lab (production slides 8–10, broadcast steps 24–25): the same keyspace
//! invalidated four ways — `DEL` of the known keys, `SCAN` + `DEL`, a version bump with
//! `INCR`, two versions read by `MGET`.
//!
//! It draws the keyspace by group (catalog lists reachable, orphaned, gone by TTL, deleted
//! and not filled again yet; the known keys; my-courses lists; the rest) once a second of
//! virtual time, what happened up to the cursor, the action's counters up to the cursor (the
//! run's parts: each action's counters second by second), the four actions side by side, the
//! three designs of the my-courses key scaled to the viewers, and the commands up to the
//! cursor. Everything comes from `redislab_sim::labs::invalidation`, run in the simulation
//! worker; the timeline walks the seconds, position `k` the keyspace at `k` s. No live mode
//! (see the simulator's module doc).

use super::kit::{
    failed_or_progress, stat, use_lab, use_run, use_steps, CmdLog, Controls, LabFrame, LabProps,
    Open,
};
use redislab_deck::bn;
use redislab_sim::labs::invalidation::{
    Action, ActionOutcome, Counts, Design, InvalidationOutput, InvalidationParams, InvalidationRun,
    Sample, CATALOG_VERSION, CV0, INFO, T_EDIT,
};
use redislab_sim::labs::log::CmdLine;
use yew::prelude::*;

/// The lab's view, by the name the dispatch uses.
pub use InvalidationLab as View;

/// Milliseconds per timeline tick (one second of virtual time).
const TICK_MS: u32 = 500;
/// Log lines shown (the newest up to the cursor).
const LOG: usize = 12;
/// Log lines shown inside a slide.
const LOG_SLIDE: usize = 4;

fn n(v: u64) -> String {
    bn::grouped(i64::try_from(v).unwrap_or(i64::MAX))
}

fn secs(ms: u64) -> String {
    bn::qty(ms as f64 / 1000.0, 1, bn::Unit::S)
}

/// The keyspace's groups at sample `s`: (class, label, count).
fn groups(a: &ActionOutcome, s: &Sample) -> Vec<(&'static str, &'static str, u64)> {
    let mut g = vec![
        ("reachable", "লিস্ট — চলতি নামে", u64::from(s.reachable)),
        ("orphaned", "লিস্ট — পুরোনো নামে, অনাথ", u64::from(s.orphaned)),
        ("deleted", "লিস্ট — মোছা, এখনো ফাঁকা", u64::from(s.deleted)),
        ("expired", "লিস্ট — TTL-এ গেল", u64::from(s.expired)),
        ("known", "জানা চার key", u64::from(s.known)),
    ];
    if a.action == Action::TwoVersions {
        g.push((
            "mc-reachable",
            "my-courses — চলতি",
            u64::from(s.mc_reachable),
        ));
        g.push(("mc-orphaned", "my-courses — অনাথ", u64::from(s.mc_orphaned)));
    }
    g.push(("others", "অন্য key", u64::from(s.others)));
    g
}

/// The groups a slide shows for the action (the others are folded away inside a slide).
fn tells(action: Action, group: &str) -> bool {
    let g: &[&str] = match action {
        Action::Del => &["known"],
        Action::ScanDel => &["reachable", "deleted", "expired"],
        Action::Version => &["reachable", "orphaned", "expired"],
        Action::TwoVersions => &["mc-reachable", "mc-orphaned"],
    };
    g.contains(&group)
}

/// The keyspace at sample `k`: one row per group, its bar against the run's largest group.
fn keyspace(a: &ActionOutcome, k: usize) -> Html {
    let Some(s) = a.sample_at(k) else {
        return html! {};
    };
    // Each family of groups (the catalog lists, the known keys, the my-courses lists, the
    // rest) has its own scale: its largest group over the run.
    let family = |g: &str| match g {
        "known" | "others" => g.to_string(),
        g if g.starts_with("mc-") => "mc".into(),
        _ => "catalog".into(),
    };
    let top = |g: &str| {
        let f = family(g);
        a.samples
            .iter()
            .flat_map(|x| groups(a, x))
            .filter(|(c, _, _)| family(c) == f)
            .map(|(_, _, v)| v)
            .max()
            .unwrap_or(1)
            .max(1)
    };
    html! {
        <ul class="inv-keyspace" data-testid="invalidation-keyspace" aria-label="keyspace, key-এর দল ধরে (লিস্ট মানে কোর্স ক্যাটালগের লিস্ট key)">
            { for groups(a, s).into_iter().map(|(cls, label, v)| html! {
                <li class={classes!("inv-group", cls, (!tells(a.action, cls)).then_some("inv-aside"))} data-group={cls} data-n={v.to_string()}>
                    <span class="inv-group-label">{ label }</span>
                    <span class="inv-bar" aria-hidden="true">
                        <span class="inv-fill" style={format!("width: {:.2}%", v as f64 / top(cls) as f64 * 100.0)}></span>
                    </span>
                    <span class="inv-group-n">{ n(v) }</span>
                </li>
            }) }
        </ul>
    }
}

/// What happened up to the cursor's second `t`, with the counters `c` up to it and the
/// keyspace `s` at it: a count the words give of a group is that group's bar (deleted lists
/// are filled again by the next request, so "deleted" up to now and "deleted, still empty"
/// now are two numbers, both said).
fn now_line(r: &InvalidationOutput, a: &ActionOutcome, t: u64, c: &Counts, s: &Sample) -> Html {
    let (say, bad) = if t < a.start_ms {
        (
            match a.action {
                Action::Del => {
                    "এনরোলমেন্ট বাতিল হবে: মুছতে হবে এই স্টুডেন্ট আর কোর্সের চারটা key".to_string()
                }
                Action::TwoVersions => {
                    "একজন স্টুডেন্ট কোর্স কিনবে, পরে অ্যাডমিন কোর্স এডিট করবেন".to_string()
                }
                Action::ScanDel | Action::Version => format!(
                    "অ্যাডমিন কোর্স এডিট করবেন: v{}-এর {}টা লিস্ট বাতিল করতে হবে",
                    bn::int(CV0),
                    n(u64::from(r.params.lists))
                ),
            },
            false,
        )
    } else if t < a.done_ms {
        match a.action {
            Action::Del => (
                "চারটা DEL একসাথে গেল (allSettled) — উত্তরের অপেক্ষা".to_string(),
                false,
            ),
            Action::ScanDel => (
                format!(
                    "SCAN চলছে: গোটা keyspace ঘোরা, প্রতি ডাকে COUNT {}; এ পর্যন্ত {} ডাক, মুছল {}টা লিস্ট, এখনো ফাঁকা {}টা",
                    n(u64::from(r.params.count)),
                    n(u64::from(c.scan_calls)),
                    n(u64::from(c.unreachable)),
                    n(u64::from(s.deleted))
                ),
                true,
            ),
            Action::Version | Action::TwoVersions => ("INCR গেল — উত্তরের অপেক্ষা".to_string(), false),
        }
    } else {
        match a.action {
            Action::Del => (
                format!(
                    "allSettled: {}টা মুছল, {}টা টাইমআউট — তবু বাকিরা থামেনি; টাইমআউট হওয়া DEL-ও পরে Redis-এ পৌঁছে চলেছে। মোট অচল {}",
                    n(u64::from(a.fulfilled)),
                    n(u64::from(a.rejected)),
                    n(u64::from(c.unreachable))
                ),
                a.rejected > 0,
            ),
            Action::ScanDel => (
                format!(
                    "SCAN শেষ: {} ডাক, {} key ঘোরা, মুছল {}টা লিস্ট; চলার সময় লেখা {}টার {}টা বাদ পড়ল — সেগুলো পুরোনো লিস্ট দেখায়। পরের রিকোয়েস্টে ডেটাবেস থেকে আবার ভরা {}টা, এখনো ফাঁকা {}টা",
                    n(u64::from(c.scan_calls)),
                    n(u64::from(c.walked)),
                    n(u64::from(c.unreachable)),
                    n(u64::from(a.written_during)),
                    n(u64::from(c.missed)),
                    n(u64::from(c.db_loads)),
                    n(u64::from(s.deleted))
                ),
                c.missed > 0,
            ),
            Action::Version => (
                format!(
                    "INCR {CATALOG_VERSION} → {}: {}টা লিস্ট এক কমান্ডে অনাথ, SCAN শূন্য; অনাথরা TTL-এ সরে। নতুন নামে ডেটাবেস থেকে ভরা: {}",
                    bn::int(CV0 + 1),
                    n(u64::from(c.unreachable)),
                    n(u64::from(c.db_loads))
                ),
                false,
            ),
            Action::TwoVersions if t < T_EDIT => (
                format!(
                    "কেনাকাটা: বাতিল শুধু তার নিজের key ({}টা) — ডেটাবেস লোড এ পর্যন্ত {}",
                    n(u64::from(c.unreachable)),
                    n(u64::from(c.db_loads))
                ),
                false,
            ),
            Action::TwoVersions => (
                format!(
                    "কোর্স এডিট: cv বাড়ল, সবার my-courses key অনাথ — ডেটাবেস লোড এ পর্যন্ত {}; বাতিল শুধু যা বদলেছে",
                    n(u64::from(c.db_loads))
                ),
                false,
            ),
        }
    };
    html! {
        <p class={classes!("lab-now", bad.then_some("bad"))} data-testid="invalidation-now">
            <span class="lab-now-t">{ secs(t) }</span>{ " " }{ say }
        </p>
    }
}

/// The action's counters up to the cursor.
fn stats(a: &ActionOutcome, c: &Counts, embedded: bool) -> Html {
    let scan = a.action == Action::ScanDel;
    html! {
        <dl class="lab-stats inv-stats">
            { stat("invalidation", "unreachable", "অচল key", u64::from(c.unreachable), false) }
            { stat("invalidation", "trips", "রাউন্ড-ট্রিপ", u64::from(c.round_trips), false) }
            { stat("invalidation", "scans", "SCAN ডাক", u64::from(c.scan_calls), true) }
            { stat("invalidation", "loads", "পরে ডেটাবেস লোড", u64::from(c.db_loads), false) }
            if scan || !embedded {
                { stat("invalidation", "walked", "ঘোরা key", u64::from(c.walked), false) }
                { stat("invalidation", "missed", "চলাকালে লেখা, বাদ পড়ল", u64::from(c.missed), true) }
            }
            if !embedded {
                { stat("invalidation", "stale", "পুরোনো ডেটা পড়া", u64::from(c.stale_reads), true) }
                { stat("invalidation", "commands", "মোট কমান্ড", u64::from(c.commands), false) }
            }
        </dl>
    }
}

/// The four actions on the same keyspace.
fn compare(r: &InvalidationOutput) -> Html {
    html! {
        <div class="inv-table-box">
            <table class="inv-table" data-testid="invalidation-compare">
                <caption>{"একই keyspace, চার কৌশল — পুরো রান"}</caption>
                <thead>
                    <tr>
                        <th scope="col">{"কৌশল"}</th>
                        <th scope="col">{"অচল key"}</th>
                        <th scope="col">{"রাউন্ড-ট্রিপ"}</th>
                        <th scope="col">{"SCAN"}</th>
                        <th scope="col">{"বাদ পড়ল"}</th>
                        <th scope="col">{"DB লোড"}</th>
                        <th scope="col">{"পুরোনো পড়া"}</th>
                    </tr>
                </thead>
                <tbody>
                    { for r.actions.iter().map(|a| html! {
                        <tr data-action={a.action.word()} class={classes!((a.action == r.params.action).then_some("chosen"))}>
                            <th scope="row">{ a.action.label() }</th>
                            <td data-key="unreachable" data-n={a.unreachable.to_string()}>{ n(u64::from(a.unreachable)) }</td>
                            <td data-key="trips" data-n={a.round_trips.to_string()}>{ n(u64::from(a.round_trips)) }</td>
                            <td data-key="scans" data-n={a.scan_calls.to_string()} class={classes!((a.scan_calls > 0).then_some("bad"))}>{ n(u64::from(a.scan_calls)) }</td>
                            <td data-key="missed" data-n={a.missed.to_string()} class={classes!((a.missed > 0).then_some("bad"))}>{ n(u64::from(a.missed)) }</td>
                            <td data-key="loads" data-n={a.db_loads.to_string()}>{ n(u64::from(a.db_loads)) }</td>
                            <td data-key="stale" data-n={a.stale_reads.to_string()} class={classes!((a.stale_reads > 0).then_some("bad"))}>{ n(u64::from(a.stale_reads)) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}

/// The my-courses key's three designs, scaled to the viewers.
fn designs(r: &InvalidationOutput) -> Html {
    html! {
        <div class="inv-table-box inv-designs">
            <table class="inv-table" data-testid="invalidation-designs">
                <caption>{ format!("my-courses key-এর তিন নকশা — {} দর্শকের হিসাবে", n(r.params.viewers)) }</caption>
                <thead>
                    <tr>
                        <th scope="col">{"নকশা"}</th>
                        <th scope="col">{"কেনাকাটা: DB লোড"}</th>
                        <th scope="col">{"কোর্স এডিট: DB লোড"}</th>
                        <th scope="col">{"এডিট দেখল না"}</th>
                    </tr>
                </thead>
                <tbody>
                    { for r.designs.iter().map(|d| html! {
                        <tr data-design={d.design.word()} class={classes!((d.design == Design::Both).then_some("chosen"))}>
                            <th scope="row">{ d.design.label() }<br /><code class="inv-key">{ d.key.clone() }</code></th>
                            <td data-key="purchase" data-n={d.purchase.db_loads.to_string()} class={classes!((d.purchase.db_loads > 1).then_some("bad"))}>{ n(d.purchase.db_loads) }</td>
                            <td data-key="edit" data-n={d.edit.db_loads.to_string()}>{ n(d.edit.db_loads) }</td>
                            <td data-key="stale" data-n={d.edit.stale_reads.to_string()} class={classes!((d.edit.stale_reads > 0).then_some("bad"))}>{ n(d.edit.stale_reads) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}

/// The commands up to the cursor's second `t`.
fn log(a: &ActionOutcome, t: u64, embedded: bool) -> Html {
    let upto = a.log.partition_point(|l| l.at_ms <= t);
    // Inside a slide (the DEL slide shows its log), the newest few.
    let keep = if embedded { LOG_SLIDE } else { LOG };
    let lines: Vec<(CmdLine, Classes)> = a.log[upto.saturating_sub(keep)..upto]
        .iter()
        .map(|l| {
            let cls = classes!(
                "inv-cmd",
                format!("a-{}", l.actor.replace('·', "")),
                l.reply.is_err().then_some("failed")
            );
            (l.clone(), cls)
        })
        .collect();
    html! {
        <CmdLog {lines} lab="invalidation" class={classes!("inv-log")}
            empty={Some(AttrValue::from("এখনো কোনো কমান্ড যায়নি"))} />
    }
}

/// The invalidation lab.
#[component]
pub fn InvalidationLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let run = use_run::<InvalidationRun>(&lab, true);
    // Opens before the change: ▶ walks the seconds and the counters follow.
    let t = use_steps(run.result(), TICK_MS, Open::Start);
    let embedded = props.embedded;
    let view = match run.result() {
        None => failed_or_progress(&run),
        Some(r) => {
            let a = r.shown();
            let k = t.cursor.min(a.samples.len().saturating_sub(1));
            let at = a.sample_at(k).map_or(0, |s| s.at_ms);
            let last = a.samples.last().map_or(0, |s| s.at_ms);
            // The counters up to the cursor: the shown action's seconds (every action's come
            // before the output), its totals at the end.
            let c = run
                .parts
                .iter()
                .find(|x| x.action == a.action)
                .map_or_else(|| a.totals(), |x| x.at(k));
            let label = format!("{} / {}", secs(at), secs(last));
            let now = a.sample_at(k).copied().unwrap_or_default();
            html! {
                <>
                    <Controls timeline={t.clone()} label={label} />
                    { keyspace(a, k) }
                    <div class="lab-status">
                        { now_line(r, a, at, &c, &now) }
                        { stats(a, &c, embedded) }
                    </div>
                    if a.action == Action::TwoVersions || !embedded {
                        { designs(r) }
                    }
                    { compare(r) }
                    { log(a, at, embedded) }
                </>
            }
        }
    };
    let lead = html! {
        <>
            {"কোর্স বদলালে ক্যাশের কোন key বাতিল হবে? নাম জানা থাকলে "}<code>{"DEL"}</code>
            {"; না জানলে "}<code>{"SCAN"}</code>{" দিয়ে গোটা keyspace ঘুরে খোঁজা — শত শত রাউন্ড-ট্রিপ, আর চলার সময় লেখা key বাদ পড়ে; অথবা key-এর নামে ভার্সন রেখে একটা "}
            <code>{"INCR"}</code>{" — পুরোনো নাম অনাথ হয়, TTL-এ সরে। my-courses-এর key-এ দুটো ভার্সন, এক "}<code>{"MGET"}</code>{"-এ পড়া।"}
        </>
    };
    html! {
        <LabFrame lab={lab.clone()} busy={run.busy()} {lead}>
            <div class={classes!("inv-main", match lab.params().read::<InvalidationParams>().action {
                Action::TwoVersions => Some("tv"),
                Action::Del => Some("del"),
                Action::ScanDel | Action::Version => None,
            })}>{ view }</div>
        </LabFrame>
    }
}
