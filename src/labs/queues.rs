//! The queues lab (patterns deck, slides 10–12): a producer, workers that crash at a chosen
//! moment, the list queue (`LPUSH` + `BRPOP`) and the reliable one (`BLMOVE` to a processing
//! list, start times in a sorted set beside it, a recovery pass, an idempotency key).
//!
//! It draws Redis' lists as the commands left them at the cursor (`queue:emails`, the
//! processing list, the start times, the `done:<id>` keys), each worker's hands (waiting, a
//! job, dead), every job's fate (waiting, in a worker's hands, stuck, done once or twice,
//! lost), the actors' time on one linear axis, what the step at the cursor means, the counts
//! so far and the command log. Everything comes from `redislab_sim::labs::queues` (run in the
//! simulation worker); the timeline walks the run's commands one at a time.
//!
//! Live mode (its own page only): the same producer, workers and recovery against a real
//! Redis through the proxy; a table sets the simulation's prediction beside it.

use super::kit::{
    failed_or_progress, live_panel, stat, use_lab, use_walk, CmdLog, CmdPos, Controls, LabFrame,
    LabProps,
};
use redislab_deck::bn;
use redislab_sim::labs::log::{CmdLine, CmdSteps};
use redislab_sim::labs::queues::{
    At, CmdKind, Event, EventKind, JobState, Place, QueuesOutput, QueuesRun, SegKind, INFO,
    PROCESSING, QUEUE, STARTED,
};
use redislab_sim::redis::Reply;
use yew::prelude::*;

/// The lab's view, by the name the dispatch uses.
pub use QueuesLab as View;

/// Milliseconds per timeline tick.
const TICK_MS: u32 = 220;
/// Commands kept in the log (the newest, up to the cursor).
const LOG: usize = 14;

/// A moment of the run (`১২.৩ s`).
fn ms(v: u64) -> String {
    bn::qty(v as f64 / 1000.0, 1, bn::Unit::S)
}

fn id(j: u32) -> String {
    bn::int(i64::from(j))
}

/// A position on the linear axis, in percent.
fn pos(t: u64, end: u64) -> f64 {
    (t as f64 / end.max(1) as f64 * 100.0).clamp(0.0, 100.0)
}

fn span_style(from: u64, to: u64, end: u64) -> String {
    let l = pos(from, end);
    let w = (pos(to, end) - l).max(0.4);
    format!("left: {l:.3}%; width: {w:.3}%")
}

/// One list as chips, left to right as `LRANGE` shows it.
fn list_box(name: &'static str, cls: &'static str, ids: &[u32], note: Html) -> Html {
    html! {
        <div class={classes!("qu-list", cls)} data-list={name}>
            <div class="qu-list-head"><code>{ name }</code>{ note }</div>
            <ol class="qu-chips" aria-label={format!("{name}: {}টা job", bn::int(ids.len() as i64))}>
                { for ids.iter().map(|&j| html! { <li class="qu-chip" data-job={j.to_string()}>{ id(j) }</li> }) }
                if ids.is_empty() { <li class="qu-empty">{"খালি"}</li> }
            </ol>
        </div>
    }
}

/// What a worker is doing at the cursor.
fn worker_card(r: &QueuesOutput, at: &At, actor: usize, cut: usize, now: u64) -> Html {
    let last = r.events.iter().rfind(|e| {
        e.actor == actor
            && e.step < cut
            && matches!(e.kind, EventKind::Crashed | EventKind::Restarted)
    });
    let dead = last.is_some_and(|e| e.kind == EventKind::Crashed);
    let held = at
        .jobs
        .iter()
        .find(|j| j.place == Place::Held(actor))
        .map(|j| j.id);
    let working = held.is_some()
        && r.segs().iter().any(|s| {
            s.actor == actor
                && s.kind == SegKind::Work
                && s.step < cut
                && s.from_ms <= now
                && now < s.to_ms
        });
    let verb = if r.setup.reliable { "BLMOVE" } else { "BRPOP" };
    let (cls, what) = match (dead, held) {
        (true, _) => (
            "dead",
            if r.setup.restart_ms > 0 {
                "মরে গেছে — ফিরবে খালি হাতে".to_string()
            } else {
                "মরে গেছে".to_string()
            },
        ),
        (false, Some(j)) if working => ("work", format!("job {}: ইমেইল পাঠাচ্ছে", id(j))),
        (false, Some(j)) => ("hold", format!("job {} হাতে", id(j))),
        (false, None) => ("wait", format!("{verb}-এ অপেক্ষা")),
    };
    html! {
        <div class={classes!("qu-worker", cls)} data-worker={r.name(actor)} data-state={cls}>
            <span class="qu-worker-name">{ r.name(actor) }</span>
            <span class="qu-worker-what">{ what }</span>
        </div>
    }
}

fn job_chip(j: &JobState, r: &QueuesOutput) -> Html {
    let (cls, what) = match j.place {
        Place::NotYet => ("notyet", "এখনো আসেনি".to_string()),
        Place::Queue => ("queue", "কিউতে".to_string()),
        Place::Held(a) => ("held", format!("{}-র হাতে", r.name(a))),
        Place::Stuck => ("stuck", "processing list-এ আটকে".to_string()),
        Place::Moving => ("moving", "recovery ফেরত দিচ্ছে".to_string()),
        Place::Done if j.effects > 1 => (
            "twice",
            format!("ইমেইল গেছে {} বার", bn::int(i64::from(j.effects))),
        ),
        Place::Done => ("done", "হয়েছে".to_string()),
        Place::Lost => ("lost", "হারিয়ে গেছে".to_string()),
    };
    let mark = match j.place {
        Place::Done if j.effects > 1 => format!("✓×{}", bn::int(i64::from(j.effects))),
        Place::Done => "✓".into(),
        Place::Lost => "✗".into(),
        _ => String::new(),
    };
    html! {
        <li class={classes!("qu-job", cls)} data-job={j.id.to_string()} data-place={cls} title={format!("job {}: {what}", id(j.id))}>
            <span class="qu-job-id">{ id(j.id) }</span>
            if !mark.is_empty() { <span class="qu-job-mark">{ mark }</span> }
        </li>
    }
}

/// The actors' time: pushes, waits, work, deaths, the recovery's returns.
fn lanes(r: &QueuesOutput, cut: usize, now: u64) -> Html {
    let end = r.end_ms.max(1);
    let workers = r.setup.workers as usize;
    let cmds_of = |a: usize| {
        r.commands
            .iter()
            .filter(move |c| c.actor == a && c.step < cut)
    };
    let producer = html! {
        <div class="qu-row" data-lane="producer">
            <span class="qu-name">{"producer"}</span>
            <div class="qu-lane">
                { for cmds_of(0).map(|c| html! {
                    <span class="qu-tick push" style={format!("left: {:.3}%", pos(c.at_ms, end))} title={format!("{} · {}", ms(c.at_ms), c.cmd_text())}></span>
                }) }
            </div>
        </div>
    };
    let worker = |a: usize| {
        let segs = r.segs().iter().filter(move |s| {
            s.actor == a && s.step < cut && s.from_ms <= now && s.kind != SegKind::Wait
        });
        let events = r.events.iter().filter(move |e| {
            e.actor == a
                && e.step < cut
                && matches!(
                    e.kind,
                    EventKind::Crashed | EventKind::Effect | EventKind::Skipped
                )
        });
        html! {
            <div class="qu-row" data-lane={r.name(a)}>
                <span class="qu-name">{ r.name(a) }</span>
                <div class="qu-lane">
                    { for segs.map(|s| {
                        let (cls, label) = match s.kind {
                            SegKind::Work => ("work", s.job.map(id).unwrap_or_default()),
                            SegKind::Dead => ("dead", "মৃত".to_string()),
                            SegKind::Wait => ("wait", String::new()),
                        };
                        html! {
                            <span class={classes!("qu-seg", cls)} style={span_style(s.from_ms, s.to_ms.min(now), end)}
                                title={format!("{label} · {}–{}", ms(s.from_ms), ms(s.to_ms.min(now)))}>
                                <span class="qu-seg-n">{ label }</span>
                            </span>
                        }
                    }) }
                    { for events.map(|e| {
                        let cls = match e.kind {
                            EventKind::Crashed => "crash",
                            EventKind::Skipped => "skipped",
                            _ => "effect",
                        };
                        html! { <span class={classes!("qu-tick", cls)} style={format!("left: {:.3}%", pos(e.at_ms, end))}
                            title={format!("{} · job {}", ms(e.at_ms), e.job.map(id).unwrap_or_default())}></span> }
                    }) }
                </div>
            </div>
        }
    };
    let recovery = r.setup.recovery.then(|| {
        let a = workers + 1;
        html! {
            <div class="qu-row" data-lane="recovery">
                <span class="qu-name">{"recovery"}</span>
                <div class="qu-lane">
                    { for cmds_of(a).filter(|c| matches!(c.kind, CmdKind::Scan | CmdKind::Requeue)).map(|c| html! {
                        <span class={classes!("qu-tick", if c.kind == CmdKind::Requeue { "requeue" } else { "scan" })}
                            style={format!("left: {:.3}%", pos(c.at_ms, end))} title={format!("{} · {}", ms(c.at_ms), c.cmd_text())}></span>
                    }) }
                </div>
            </div>
        }
    });
    html! {
        <div class="qu-lanes" role="img" aria-label={format!("সময়রেখা: producer, worker আর recovery — {} পর্যন্ত", ms(now))}>
            { producer }
            { for (1..=workers).map(worker) }
            { recovery.unwrap_or_default() }
            <div class="qu-axis" aria-hidden="true">
                <span>{"০"}</span><span>{ ms(end / 2) }</span><span>{ ms(end) }</span>
            </div>
            <div class="qu-cursor-track" aria-hidden="true">
                <span class="qu-cursor" style={format!("left: {:.3}%", pos(now, end))}></span>
            </div>
        </div>
    }
}

/// What the step at the cursor means: what happened since the position before it — a death,
/// an email sent a second time, a second run made harmless, a worker back — or else its
/// command.
fn now_line(r: &QueuesOutput, n: usize, cut: usize) -> Html {
    let cmd = n.checked_sub(1).and_then(|i| r.commands.get(i));
    let from = n.checked_sub(1).map_or(0, |p| r.cut(p));
    let effects_before = |e: &Event| {
        r.events
            .iter()
            .filter(|x| x.kind == EventKind::Effect && x.job == e.job && x.step < e.step)
            .count()
    };
    let rank = |e: &Event| match e.kind {
        EventKind::Crashed => 4,
        EventKind::Effect if effects_before(e) > 0 => 3,
        EventKind::Skipped => 2,
        EventKind::Restarted => 1,
        _ => 0,
    };
    let event = r
        .events
        .iter()
        .filter(|e| e.step >= from && e.step < cut && rank(e) > 0)
        .max_by_key(|e| (rank(e), e.step));
    let j = |x: Option<u32>| x.map(id).unwrap_or_default();
    let (t, say, bad) = if let Some(e) = event {
        let who = r.name(e.actor);
        let (say, bad) = match e.kind {
            EventKind::Crashed => (
                match e.job {
                    Some(k) => format!("{who} মরে গেল — হাতে ছিল job {}", id(k)),
                    None => format!("{who} মরে গেল"),
                },
                true,
            ),
            EventKind::Effect => {
                let times = r
                    .events
                    .iter()
                    .filter(|x| x.kind == EventKind::Effect && x.job == e.job && x.step <= e.step)
                    .count();
                if times > 1 {
                    (
                        format!("{who}: job {}-এর ইমেইল আবার গেল — দ্বিতীয়বার!", j(e.job)),
                        true,
                    )
                } else {
                    (format!("{who}: job {}-এর ইমেইল গেল", j(e.job)), false)
                }
            }
            EventKind::Skipped => (
                format!("{who}: job {} আগেই হয়েছে — ইমেইল আর পাঠাল না", j(e.job)),
                false,
            ),
            _ => (format!("{who} ফিরে এল, হাত খালি"), false),
        };
        (e.at_ms, say, bad)
    } else if let Some(c) = cmd {
        let who = r.name(c.actor);
        let k = j(c.job);
        // A key's name stays as Redis has it.
        let key = format!("done:{}", c.job.map(|x| x.to_string()).unwrap_or_default());
        let count = |rep: Option<&Reply>| match rep {
            Some(Reply::Array(a)) => a.len(),
            _ => 0,
        };
        let say = match c.kind {
            CmdKind::Push => format!("producer: job {k} কিউতে দিল (LPUSH)"),
            CmdKind::Pop if c.job.is_none() => format!("{who}: কিউ ফাঁকা — timeout, আবার অপেক্ষা"),
            CmdKind::Pop if r.setup.reliable => {
                format!("{who}: job {k} তুলল, একই ধাপে processing list-এ রাখল (BLMOVE)")
            }
            CmdKind::Pop => format!("{who}: job {k} তুলল — Redis-এ আর নেই, আছে শুধু {who}-র হাতে"),
            CmdKind::Stamp => format!("{who}: job {k}-এর শুরুর সময় লিখল (ZADD {STARTED})"),
            CmdKind::Check if matches!(c.ok(), Some(Reply::Bulk(_))) => {
                format!("{who}: {key} আছে — job আগেই চলেছে")
            }
            CmdKind::Check => format!("{who}: {key} নেই — কাজ শুরু"),
            CmdKind::Mark => format!("{who}: {key} লিখে রাখল (SET NX EX)"),
            CmdKind::Ack => format!("{who}: কাজ শেষ — job {k} processing list থেকে সরাল (LREM)"),
            CmdKind::Unstamp => format!("{who}: job {k}-এর শুরুর সময় মুছল (ZREM)"),
            CmdKind::Scan => format!(
                "recovery: processing list পড়ল — {}টা job",
                bn::int(count(c.ok()) as i64)
            ),
            CmdKind::StampMissing => "recovery: সময় ছাড়া job-এ এখনকার সময় বসাল (ZADD NX)".into(),
            CmdKind::Old => format!(
                "recovery: বেশিক্ষণ আটকে থাকা job — {}টা",
                bn::int(count(c.ok()) as i64)
            ),
            CmdKind::Take => format!("recovery: job {k} processing list থেকে তুলল (LREM)"),
            CmdKind::Requeue => format!("recovery: job {k} আবার কিউতে দিল (LPUSH)"),
            CmdKind::Forget => format!("recovery: job {k}-এর পুরোনো সময় মুছল (ZREM)"),
        };
        (c.at_ms, say, false)
    } else {
        return html! { <p class="lab-now" data-testid="queues-now">{"শুরু: producer job দেবে, worker-রা কিউ থেকে তুলবে"}</p> };
    };
    html! {
        <p class={classes!("lab-now", bad.then_some("bad"))} data-testid="queues-now">
            <span class="lab-now-t">{ ms(t) }</span>{ " " }{ say }
        </p>
    }
}

fn log(r: &QueuesOutput, n: usize, live: bool) -> Html {
    let upto = n.min(r.commands.len());
    let from = upto.saturating_sub(LOG);
    let lines: Vec<(CmdLine, Classes)> = r.commands[from..upto]
        .iter()
        .map(|c| {
            let who = if c.actor == 0 {
                "qu-by-producer"
            } else if c.actor > r.setup.workers as usize {
                "qu-by-recovery"
            } else {
                "qu-by-worker"
            };
            (c.line(r.name(c.actor)), classes!(who))
        })
        .collect();
    html! { <CmdLog {lines} lab="queues" {live} empty={Some(AttrValue::from("এখনো কোনো কমান্ড যায়নি"))} /> }
}

/// The simulation's prediction beside the real run.
fn compare(sim: &QueuesOutput, real: &QueuesOutput, done: bool) -> Html {
    let (s, r) = (sim.outcome(), real.outcome());
    let n = |v: u32| bn::int(i64::from(v));
    let rows = [
        ("done", "হয়েছে", n(s.done), n(r.done)),
        ("lost", "হারাল", n(s.lost), n(r.lost)),
        ("stuck", "আটকে", n(s.stuck), n(r.stuck)),
        ("taken-twice", "দুবার তোলা", n(s.taken_twice), n(r.taken_twice)),
        ("twice", "ইমেইল দুবার", n(s.effects_twice), n(r.effects_twice)),
        ("skipped", "দ্বিতীয়বার নিরীহ", n(s.skipped), n(r.skipped)),
    ];
    crate::live::bar::outcome_table(&rows, done, "আসল Redis-এও ঠিক সিমুলেশনের মতোই শেষ হলো।")
}

/// The queues lab.
#[component]
pub fn QueuesLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let (sl, t) = use_walk::<QueuesRun>(&lab, TICK_MS);
    let real = sl.real();
    let embedded = props.embedded;
    let view = match sl.shown() {
        None => failed_or_progress(&sl.sim),
        Some(r) => {
            let CmdPos { n, now, cut, label } = CmdPos::of(r, t.cursor, ms);
            let at = r.at(n);
            let c = at.counters;
            let s = &r.setup;
            let started = (s.reliable).then(|| {
                html! {
                    <div class="qu-list started" data-list={STARTED}>
                        <div class="qu-list-head"><code>{ STARTED }</code><span class="qu-note">{"শুরুর সময় (ms)"}</span></div>
                        <ol class="qu-chips">
                            { for at.lists.started.iter().map(|&(j, t)| html! {
                                <li class="qu-chip stamp" data-job={j.to_string()}>{ id(j) }<small>{ format!(" @{}", bn::int(t as i64)) }</small></li>
                            }) }
                            if at.lists.started.is_empty() { <li class="qu-empty">{"খালি"}</li> }
                        </ol>
                    </div>
                }
            });
            let verb = if s.reliable {
                "BLMOVE →"
            } else {
                "BRPOP →"
            };
            html! {
                <>
                    <Controls timeline={t.clone()} label={label} />
                    <div class="qu-picture" role="img" aria-label={format!("{} সময়ে Redis-এর list আর worker-দের হাত", ms(now))}>
                        <div class="qu-lists">
                            { list_box(QUEUE, "queue", &at.lists.queue, html! { <span class="qu-note">{"LPUSH বাঁয়ে · "}{ verb }{" ডান থেকে"}</span> }) }
                            if s.reliable {
                                { list_box(PROCESSING, "processing", &at.lists.processing, html! { <span class="qu-note">{"কাজ চলছে বা আটকে"}</span> }) }
                                { started.unwrap_or_default() }
                            }
                        </div>
                        <div class="qu-workers">
                            { for (1..=s.workers as usize).map(|a| worker_card(r, &at, a, cut, now)) }
                        </div>
                        <div class="qu-jobs-box">
                            <span class="qu-jobs-label">{"প্রতিটা job:"}</span>
                            <ol class="qu-jobs" data-testid="queues-jobs">
                                { for at.jobs.iter().map(|j| job_chip(j, r)) }
                            </ol>
                            if s.idem {
                                <span class="qu-done-keys" data-testid="queues-done-keys">
                                    {"done:<id> চাবি: "}{ bn::int(at.lists.done_keys.len() as i64) }
                                </span>
                            }
                        </div>
                    </div>
                    if !embedded { { lanes(r, cut, now) } }
                    <div class="lab-status">
                        { now_line(r, n, cut) }
                        <dl class="lab-stats">
                            { stat("queues", "done", "হয়েছে", u64::from(c.done), false) }
                            { stat("queues", "lost", "হারাল", u64::from(c.lost), true) }
                            { stat("queues", "stuck", "আটকে", u64::from(c.stuck), true) }
                            { stat("queues", "twice", "ইমেইল দুবার", u64::from(c.effects_twice), true) }
                            { stat("queues", "skipped", "দ্বিতীয়বার নিরীহ", u64::from(c.skipped), false) }
                            if !embedded {
                                { stat("queues", "taken-twice", "দুবার তোলা", u64::from(c.taken_twice), false) }
                                { stat("queues", "requeued", "ফেরত পাঠানো", u64::from(c.requeued), false) }
                                { stat("queues", "crashes", "crash", u64::from(c.crashes), false) }
                            }
                        </dl>
                    </div>
                    if let (Some(sim), Some(real)) = (sl.predicted(), real) {
                        { compare(sim, real, sl.live.done) }
                    }
                    if !embedded { { log(r, n, real.is_some()) } }
                </>
            }
        }
    };
    let lead = html! {
        <>
            {"producer "}<code>{"LPUSH queue:emails"}</code>{" দিয়ে job দেয়; worker "}<code>{"BRPOP"}</code>
            {" দিয়ে তোলে — তোলার মুহূর্তেই job Redis থেকে চলে যায়। একজন worker-কে মাঝপথে মেরে দেখুন job-টার কী হয়; তারপর "}
            <code>{"BLMOVE"}</code>{", recovery আর idempotency key দিয়ে সারান।"}
        </>
    };
    let live = live_panel(&lab, &sl, None);
    html! {
        <LabFrame lab={lab.clone()} busy={sl.busy()} {lead} {live}>
            <div class="qu-main">{ view }</div>
        </LabFrame>
    }
}
