//! The round-trips lab (production slide 15): presence's four commands sent five ways by
//! clients racing for a room's last place.
//!
//! It draws one lane per client with its round trips as boxes and the commands in each as
//! chips, lit as Redis runs them (a chip that ran inside another client's update is marked);
//! the room's size against its limit at the cursor; the counters; the five ways side by side;
//! and the commands in Redis' order. Everything comes from `redislab_sim::labs::roundtrips`,
//! run in the simulation worker; the timeline walks the shown way's commands one at a time.
//! No live mode: the proxy runs no client's `MULTI`/`WATCH` (a session shares connections).

use super::kit::{
    failed_or_progress, stat, stat_f, use_lab, use_run, use_steps, CmdLog, Controls, LabFrame,
    LabProps, Open,
};
use redislab_deck::bn;
use redislab_sim::labs::log::CmdLine;
use redislab_sim::labs::roundtrips::{
    client_name, Ran, RoundTripsOutput, RoundTripsRun, WayOutcome, INFO, ROOM,
};
use redislab_sim::redis::Reply;
use yew::prelude::*;

/// The lab's view, by the name the dispatch uses.
pub use RoundTripsLab as View;

/// Milliseconds per timeline tick (one command).
const TICK_MS: u32 = 600;
/// Log lines shown (the newest up to the cursor).
const LOG: usize = 12;

fn n(v: i64) -> String {
    bn::int(v)
}

fn ms(v: u64) -> String {
    bn::qty(v as f64, 0, bn::Unit::Ms)
}

/// A command's short name on its chip (the script by its name).
fn chip_name(r: &Ran) -> &str {
    match r.cmd.first().map(String::as_str) {
        Some("EVALSHA") => "markactive",
        Some(w) => w,
        None => "",
    }
}

/// One lane per client: its round trips as boxes, the commands in each as chips; `k`
/// commands have run.
fn lanes(w: &WayOutcome, k: usize) -> Html {
    let clients = w.clients.len() as u32;
    html! {
        <ol class="rt-lanes" aria-label="প্রতিটা ক্লায়েন্টের রাউন্ড-ট্রিপ, আর প্রতিটায় কোন কমান্ড">
            { for (0..clients).map(|c| {
                // (batch, [(index in Redis' order, command)]) in order.
                let mut trips: Vec<(u32, Vec<(usize, &Ran)>)> = Vec::new();
                for (i, r) in w.ran.iter().enumerate().filter(|(_, r)| r.client == c) {
                    match trips.last_mut() {
                        Some((b, v)) if *b == r.batch => v.push((i, r)),
                        _ => trips.push((r.batch, vec![(i, r)])),
                    }
                }
                let done = trips.iter().filter(|(_, v)| v.iter().all(|(i, _)| *i < k)).count();
                let end = &w.clients[c as usize];
                let status = if end.failed {
                    ("এরর", "bad")
                } else if end.in_set {
                    ("রুমে ঢুকল", "ok")
                } else {
                    ("রুম ভরা", "")
                };
                let over = done == trips.len();
                html! {
                    <li class="rt-lane" data-client={c.to_string()} data-trips={trips.len().to_string()}>
                        <span class={classes!("rt-who", format!("c{}", c % 8))}>{ client_name(c) }</span>
                        <ol class="rt-trips">
                            { for trips.iter().map(|(_, v)| html! {
                                <li class={classes!("rt-trip", v.iter().all(|(i, _)| *i < k).then_some("done"))}>
                                    { for v.iter().map(|(i, r)| html! {
                                        <span class={classes!(
                                            "rt-chip",
                                            (*i < k).then_some("ran"),
                                            (*i + 1 == k).then_some("now"),
                                            r.between.then_some("between"),
                                            (r.reply.is_error() || matches!(&r.reply, Reply::Array(a) if a.iter().any(Reply::is_error))).then_some("err"),
                                            (r.cmd.first().map(String::as_str) == Some("EXEC") && r.reply == Reply::Nil).then_some("nil"),
                                        )}>{ chip_name(r) }</span>
                                    }) }
                                </li>
                            }) }
                        </ol>
                        <span class="rt-lane-n">
                            { format!("{}/{} রাউন্ড-ট্রিপ", n(done as i64), n(trips.len() as i64)) }
                            if over {
                                <span class={classes!("rt-end", status.1)}>{ status.0 }</span>
                            }
                        </span>
                    </li>
                }
            }) }
        </ol>
    }
}

/// The room's size against its limit at the cursor.
fn room(r: &RoundTripsOutput, k: usize) -> Html {
    let limit = i64::from(r.params.limit);
    match r.room_at(k) {
        None => html! {
            <div class="rt-room wrong" data-testid="roundtrips-room" data-n="-1">
                <span class="rt-room-name"><code>{ ROOM }</code></span>
                <span class="rt-room-n">{"sorted set নয় — string"}</span>
            </div>
        },
        Some(size) => {
            let top = (limit + 2).max(size) as f64;
            let fill = size as f64 / top * 100.0;
            let mark = limit as f64 / top * 100.0;
            html! {
                <div class={classes!("rt-room", (size > limit).then_some("over"))} data-testid="roundtrips-room" data-n={size.to_string()}>
                    <span class="rt-room-name"><code>{ ROOM }</code></span>
                    <span class="rt-room-bar" aria-hidden="true">
                        <span class="rt-room-fill" style={format!("width: {fill:.2}%")}></span>
                        <span class="rt-room-limit" style={format!("left: {mark:.2}%")}></span>
                    </span>
                    <span class="rt-room-n">{ format!("{} / সীমা {}", n(size), n(limit)) }</span>
                </div>
            }
        }
    }
}

fn now_line(r: &RoundTripsOutput, k: usize) -> Html {
    let w = r.shown();
    let (say, bad) = if k == 0 {
        (
            format!(
                "রুমে {}, সীমা {}; {} ক্লায়েন্ট একজন করে তুলবে — {}",
                n(i64::from(r.params.room)),
                n(i64::from(r.params.limit)),
                n(i64::from(r.params.clients)),
                w.mode.label()
            ),
            false,
        )
    } else if k >= w.ran.len() {
        match w.room_after {
            None => (
                format!(
                    "শেষ: {}টা এরর, আর এররের আগে যা লেখা হয়েছিল তা থেকে গেল — rollback নেই",
                    n(i64::from(w.errors))
                ),
                true,
            ),
            Some(size) if w.over > 0 => (
                format!(
                    "শেষ: রুমে {} জন — সীমা ছাড়াল {} জন; {} রাউন্ড-ট্রিপ",
                    n(size),
                    n(w.over),
                    n(i64::from(w.trips_total))
                ),
                true,
            ),
            Some(size) => (
                format!(
                    "শেষ: রুমে {} জন — সীমা মানা হলো; {} রাউন্ড-ট্রিপ",
                    n(size),
                    n(i64::from(w.trips_total))
                ),
                false,
            ),
        }
    } else {
        let x = &w.ran[k - 1];
        let mut say = format!(
            "{}-এর {} → {}",
            client_name(x.client),
            chip_name(x),
            redislab_sim::wire::redis_cli(&x.reply)
                .lines()
                .next()
                .unwrap_or("")
        );
        if x.between {
            say.push_str(" — অন্য ক্লায়েন্টের চার কমান্ডের মাঝে ঢুকে পড়ল");
        }
        (say, x.between || x.reply.is_error())
    };
    let t = if k == 0 { 0 } else { w.ran[k - 1].at_ms };
    html! {
        <p class={classes!("lab-now", bad.then_some("bad"))} data-testid="roundtrips-now">
            <span class="lab-now-t">{ ms(t) }</span>{ " " }{ say }
        </p>
    }
}

/// The shown way's numbers: the round trips and the slowest client's time for the whole
/// update, what ran in between and how far over the limit the room is up to the cursor.
fn stats(r: &RoundTripsOutput, k: usize, embedded: bool) -> Html {
    let w = r.shown();
    let between = u64::from(w.between_so_far(k));
    let over = r
        .room_at(k)
        .map_or(0, |n| (n - i64::from(r.params.limit)).max(0) as u64);
    html! {
        <dl class="lab-stats rt-stats">
            { stat("roundtrips", "trips", "রাউন্ড-ট্রিপ (সবাই)", u64::from(w.trips_total), false) }
            { stat_f("roundtrips", "slowest", "ধীরতম ক্লায়েন্ট", w.slowest_ms as f64, bn::duration(w.slowest_ms)) }
            { stat("roundtrips", "between", "মাঝে ঢুকল", between, true) }
            { stat("roundtrips", "over", "সীমা ছাড়াল", over, true) }
            if !embedded {
                { stat("roundtrips", "aborted", "EXEC nil", u64::from(w.aborted()), false) }
                { stat("roundtrips", "errors", "এরর", u64::from(w.errors), true) }
                { stat("roundtrips", "hll", "HyperLogLog-এর গোনা", w.hll_after.max(0) as u64, false) }
            }
        </dl>
    }
}

/// The five ways with the same clients.
fn compare(r: &RoundTripsOutput) -> Html {
    html! {
        <div class="rt-compare-box">
            <table class="rt-compare" data-testid="roundtrips-compare">
                <caption>{"একই ক্লায়েন্ট, একই মুহূর্ত — পাঁচ পথ"}</caption>
                <thead>
                    <tr>
                        <th scope="col">{"পথ"}</th>
                        <th scope="col">{"রাউন্ড-ট্রিপ"}</th>
                        <th scope="col">{"ধীরতম"}</th>
                        <th scope="col">{"রুমে"}</th>
                        <th scope="col">{"সীমা ছাড়াল"}</th>
                        <th scope="col">{"মাঝে ঢুকল"}</th>
                    </tr>
                </thead>
                <tbody>
                    { for r.ways.iter().map(|w| html! {
                        <tr data-mode={w.mode.word()} class={classes!((w.mode == r.params.mode).then_some("chosen"))}>
                            <th scope="row">{ w.mode.label() }</th>
                            <td data-key="trips" data-n={w.trips_total.to_string()}>{ n(i64::from(w.trips_total)) }</td>
                            <td data-key="slowest" data-n={w.slowest_ms.to_string()}>{ bn::duration(w.slowest_ms) }</td>
                            <td data-key="room" data-n={w.room_after.unwrap_or(-1).to_string()}>{ w.room_after.map_or_else(|| "এরর".to_string(), n) }</td>
                            <td data-key="over" data-n={w.over.to_string()} class={classes!((w.over > 0).then_some("bad"))}>{ n(w.over) }</td>
                            <td data-key="between" data-n={w.between.to_string()}>{ n(i64::from(w.between)) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}

/// The commands Redis ran, up to the cursor.
fn log(w: &WayOutcome, k: usize) -> Html {
    let upto = k.min(w.ran.len());
    let lines: Vec<(CmdLine, Classes)> = w.ran[upto.saturating_sub(LOG)..upto]
        .iter()
        .map(|r| {
            let cls = classes!(
                "rt-cmd",
                format!("c{}", r.client % 8),
                r.between.then_some("between")
            );
            (r.line(), cls)
        })
        .collect();
    html! {
        <CmdLog {lines} lab="roundtrips" class={classes!("rt-log")}
            empty={Some(AttrValue::from("Redis এখনো কিছু চালায়নি"))} />
    }
}

/// The round-trips lab.
#[component]
pub fn RoundTripsLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let run = use_run::<RoundTripsRun>(&lab, true);
    // Opens before the first command: ▶ plays the race command by command.
    let t = use_steps(run.result(), TICK_MS, Open::Start);
    let embedded = props.embedded;
    let view = match run.result() {
        None => failed_or_progress(&run),
        Some(r) => {
            let w = r.shown();
            let k = t.cursor.min(w.ran.len());
            let label = format!("{} / {}", n(k as i64), n(w.ran.len() as i64));
            html! {
                <>
                    <Controls timeline={t.clone()} label={label} />
                    { lanes(w, k) }
                    { room(r, k) }
                    <div class="lab-status">
                        { now_line(r, k) }
                        { stats(r, k, embedded) }
                    </div>
                    { compare(r) }
                    { log(w, k) }
                </>
            }
        }
    };
    let lead = html! {
        <>
            {"রুমে একজন দর্শক তোলার চার কমান্ড — "}
            <code>{"PFADD"}</code>{", "}<code>{"ZCARD"}</code>{", "}<code>{"ZADD"}</code>{", "}<code>{"EXPIRE"}</code>
            {" — আর মাঝে \"রুমে জায়গা আছে?\" যাচাই। একটা একটা করে পাঠালে চার রাউন্ড-ট্রিপ, আর ফাঁকে অন্য ক্লায়েন্ট ঢুকে পড়ে; pipeline আর MULTI এক রাউন্ড-ট্রিপে যায় কিন্তু যাচাই থামাতে পারে না; WATCH আবার চেষ্টা করে; Lua স্ক্রিপ্ট যাচাই আর লেখা করে Redis-এর ভেতরে এক টানে।"}
        </>
    };
    html! {
        <LabFrame lab={lab.clone()} busy={run.busy()} {lead}>
            <div class="rt-main">{ view }</div>
        </LabFrame>
    }
}
