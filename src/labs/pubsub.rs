//! The Pub/Sub lab (production slide 13): Socket.IO's Redis adapters across six PM2
//! instances — the plain adapter (`PSUBSCRIBE socket.io#/#*`, every instance gets every
//! message) against the sharded one (`SSUBSCRIBE` of one channel per room: only instances
//! with a member of the room), and what a message published while an instance is away
//! becomes.
//!
//! It draws the instances (users, rooms, what each received and dropped up to the cursor),
//! the deliveries per stretch of time (useful, dropped, and the sockets that never got theirs),
//! the counters at the cursor, the three adapters side by side and the command log with the
//! pushes the subscribers read. Everything comes from `redislab_sim::labs::pubsub`, run in the
//! simulation worker; the timeline walks its buckets. No live mode: the proxy does not allow
//! `SUBSCRIBE`/`SSUBSCRIBE` (a subscriber connection is not a request/reply session).

use super::kit::{
    failed_or_progress, stat, use_lab, use_run, use_steps, CmdLog, Controls, LabFrame, LabProps,
    Open,
};
use redislab_deck::bn;
use redislab_sim::labs::log::CmdLine;
use redislab_sim::labs::pubsub::{Adapter, Fate, Line, PubSubOutput, PubSubRun, Summary, INFO};
use yew::prelude::*;

/// The lab's view, by the name the dispatch uses.
pub use PubSubLab as View;

/// Milliseconds per timeline tick.
const TICK_MS: u32 = 220;
/// Log lines shown (the newest up to the cursor).
const LOG: usize = 12;

fn secs(ms: u64) -> String {
    bn::qty(ms as f64 / 1000.0, 1, bn::Unit::S)
}

fn n(v: u64) -> String {
    bn::int(i64::try_from(v).unwrap_or(i64::MAX))
}

/// A count a second over the messages' span.
fn per_sec(s: &Summary, v: u64) -> u64 {
    s.per_sec_whole(v)
}

/// The instances: users, rooms, and what each got up to bucket `k`.
fn instances(r: &PubSubOutput, k: usize, away_now: bool) -> Html {
    let got = r.instances_so_far(k);
    let top = got.iter().map(|g| g.0).max().unwrap_or(0).max(1);
    html! {
        <ul class="ps-insts" aria-label="ইনস্ট্যান্সগুলো: কে কত মেসেজ পেল, কত ফেলে দিল">
            { for r.instances.iter().zip(got).enumerate().map(|(i, (inst, (rec, drop)))| {
                let away = away_now && i == 0;
                let use_w = (rec - drop) as f64 / top as f64 * 100.0;
                let drop_w = drop as f64 / top as f64 * 100.0;
                html! {
                    <li class={classes!("ps-inst", away.then_some("away"))} data-inst={i.to_string()}
                        data-received={rec.to_string()} data-dropped={drop.to_string()}>
                        <span class="ps-inst-name">{ &inst.name }</span>
                        <span class="ps-inst-who">{ format!("{} ইউজার · {} রুম", n(u64::from(inst.users)), n(u64::from(inst.rooms))) }</span>
                        <span class="ps-bar" aria-hidden="true">
                            <span class="ps-bar-use" style={format!("width: {use_w:.2}%")}></span>
                            <span class="ps-bar-drop" style={format!("width: {drop_w:.2}%")}></span>
                        </span>
                        <span class="ps-inst-n">
                            <span class="ps-got">{ format!("পেল {}", n(rec)) }</span>
                            <span class={classes!("ps-dropped", (drop > 0).then_some("bad"))}>{ format!("ফেলে দিল {}", n(drop)) }</span>
                        </span>
                        if away { <span class="ps-away">{"সংযোগ নেই"}</span> }
                    </li>
                }
            }) }
        </ul>
    }
}

/// Deliveries per bucket: useful and dropped stacked, the lost sockets' messages below.
fn chart(r: &PubSubOutput, k: usize) -> Html {
    let nb = r.buckets.len().max(1);
    let top = r
        .buckets
        .iter()
        .map(|b| b.deliveries.max(b.lost))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let w = 1000.0 / nb as f64;
    let h = |v: u32| f64::from(v) / top * 180.0;
    let (from, to) = r.away.unwrap_or((0, 0));
    html! {
        <figure class="ps-chart">
            <svg viewBox="0 0 1000 200" preserveAspectRatio="none" role="img"
                aria-label={format!("প্রতি {}-এ ইনস্ট্যান্সগুলোর কাছে পৌঁছানো মেসেজ: কাজে লাগল আর ফেলে দেওয়া", secs(r.bucket_ms))}>
                if r.away.is_some() {
                    <rect class="ps-away-band" x={format!("{:.1}", from as f64 / (nb as u64 * r.bucket_ms) as f64 * 1000.0)} y="0"
                        width={format!("{:.1}", (to - from) as f64 / (nb as u64 * r.bucket_ms) as f64 * 1000.0)} height="200" />
                }
                { for r.buckets.iter().enumerate().map(|(i, b)| {
                    let x = i as f64 * w;
                    let past = i < k;
                    let used = b.deliveries - b.wasted;
                    html! {
                        <g class={classes!(if past { "past" } else { "future" })}>
                            <rect class="ps-use" x={format!("{:.1}", x + w * 0.1)} y={format!("{:.1}", 200.0 - h(used))} width={format!("{:.1}", w * 0.8)} height={format!("{:.1}", h(used))} />
                            <rect class="ps-drop" x={format!("{:.1}", x + w * 0.1)} y={format!("{:.1}", 200.0 - h(used) - h(b.wasted))} width={format!("{:.1}", w * 0.8)} height={format!("{:.1}", h(b.wasted))} />
                            if b.lost > 0 {
                                <rect class="ps-lost" x={format!("{:.1}", x + w * 0.3)} y={format!("{:.1}", 200.0 - h(b.lost))} width={format!("{:.1}", w * 0.4)} height={format!("{:.1}", h(b.lost))} />
                            }
                        </g>
                    }
                }) }
                <line class="ps-cursor" x1={format!("{:.1}", k as f64 * w)} x2={format!("{:.1}", k as f64 * w)} y1="0" y2="200" />
            </svg>
            <figcaption class="ps-legend">
                <span class="ps-key use">{"ইউজারের কাছে গেল"}</span>
                <span class="ps-key drop">{"ফেলে দিল (নিজের মেসেজ, বা রুমে কেউ নেই)"}</span>
                if r.away.is_some() {
                    <span class="ps-key lost">{"হারাল (api-1 শুনছিল না)"}</span>
                }
                <span class="ps-axis">{ format!("প্রতি দাগ {} · সর্বোচ্চ {}", secs(r.bucket_ms), n(top as u64)) }</span>
            </figcaption>
        </figure>
    }
}

fn now_line(r: &PubSubOutput, k: usize) -> Html {
    let t = r.time_at(k);
    let away_now = k > 0 && r.buckets.get(k - 1).is_some_and(|b| b.away);
    let (say, bad) = if k == 0 || t <= r.start_ms {
        (
            format!(
                "ইউজাররা রুমে ঢুকছে; ইনস্ট্যান্সগুলো subscribe করছে — {}",
                match r.params.adapter {
                    Adapter::Plain => "সবাই একই pattern-এ",
                    Adapter::Static => "সবাই একই shard channel-এ",
                    Adapter::Dynamic => "প্রত্যেকে কেবল নিজের রুমগুলোর চ্যানেলে",
                }
            ),
            false,
        )
    } else if away_now {
        (
            "api-1-এর subscriber সংযোগ নেই — এই সময়ের মেসেজ তার ইউজারদের কাছে আর কখনো পৌঁছাবে না"
                .to_string(),
            true,
        )
    } else if t > r.stop_ms {
        let [publishes, deliveries, wasted, _, lost] = r.so_far(k);
        (
            format!(
                "মেসেজ শেষ: {}টা মেসেজে {} ডেলিভারি, তার {} ফেলে দেওয়া",
                n(publishes),
                n(deliveries),
                n(wasted)
            ),
            lost > 0,
        )
    } else {
        (
            format!(
                "সেকেন্ডে {}টা মেসেজ; প্রতিটা যায় {}",
                n(u64::from(r.params.rate)),
                match r.params.adapter {
                    Adapter::Dynamic => "কেবল সেই রুমের সদস্য-থাকা ইনস্ট্যান্সে".to_string(),
                    Adapter::Plain | Adapter::Static =>
                        format!("{}টা ইনস্ট্যান্সের সবার কাছে", n(u64::from(r.params.instances))),
                }
            ),
            false,
        )
    };
    html! {
        <p class={classes!("lab-now", bad.then_some("bad"))} data-testid="pubsub-now">
            <span class="lab-now-t">{ secs(t) }</span>{ " " }{ say }
        </p>
    }
}

fn stats(r: &PubSubOutput, k: usize, embedded: bool) -> Html {
    let [publishes, deliveries, wasted, reached, lost] = r.so_far(k);
    let s = &r.summary;
    html! {
        <dl class="lab-stats ps-stats">
            { stat("pubsub", "publishes", "মেসেজ পাঠানো", publishes, false) }
            { stat("pubsub", "deliveries", "ইনস্ট্যান্সে ডেলিভারি", deliveries, false) }
            { stat("pubsub", "wasted", "অকারণ ডেলিভারি", wasted, true) }
            { stat("pubsub", "lost", "হারানো (সকেট)", lost, true) }
            if !embedded {
                { stat("pubsub", "reached", "সকেটে পৌঁছাল", reached, false) }
                { stat("pubsub", "per-sec", "ডেলিভারি / সেকেন্ড", per_sec(s, s.deliveries), false) }
                { stat("pubsub", "wasted-per-sec", "অকারণ / সেকেন্ড", per_sec(s, s.wasted), true) }
                { stat("pubsub", "subscriptions", "সাবস্ক্রিপশন", s.subscriptions, false) }
            }
        </dl>
    }
}

/// The three adapters with the same users and messages.
fn compare(r: &PubSubOutput) -> Html {
    html! {
        <div class="ps-compare-box">
            <table class="ps-compare" data-testid="pubsub-compare">
                <caption>{"একই ইউজার, একই মেসেজ — তিন adapter"}</caption>
                <thead>
                    <tr>
                        <th scope="col">{"adapter"}</th>
                        <th scope="col">{"ডেলিভারি / s"}</th>
                        <th scope="col">{"অকারণ / s"}</th>
                        <th scope="col">{"হারাল"}</th>
                        <th scope="col">{"সাবস্ক্রিপশন"}</th>
                    </tr>
                </thead>
                <tbody>
                    { for r.compare.iter().map(|s| html! {
                        <tr data-adapter={s.adapter.word()} class={classes!((s.adapter == r.params.adapter).then_some("chosen"))}>
                            <th scope="row">{ s.adapter.label() }</th>
                            <td data-key="per-sec" data-n={per_sec(s, s.deliveries).to_string()}>{ n(per_sec(s, s.deliveries)) }</td>
                            <td data-key="wasted-per-sec" data-n={per_sec(s, s.wasted).to_string()}>{ n(per_sec(s, s.wasted)) }</td>
                            <td data-key="lost" data-n={s.lost.to_string()}>{ n(s.lost) }</td>
                            <td data-key="subscriptions" data-n={s.subscriptions.to_string()}>{ n(s.subscriptions) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}

/// The log up to time `t`: commands with Redis' replies, and the pushes the subscribers read
/// (a push is no command: its line says what the instance did with it).
fn log(r: &PubSubOutput, t: u64) -> Html {
    let upto = r.log.partition_point(|l| l.at_ms() < t);
    let from = upto.saturating_sub(LOG);
    let lines: Vec<(CmdLine, Classes)> = r.log[from..upto]
        .iter()
        .map(|l| match l {
            Line::Cmd(c) => (c.clone(), classes!("ps-cmd")),
            Line::Push(p) => {
                let what = match p.fate {
                    Fate::Delivered(u) => format!("{} জন ইউজারকে দিল", n(u64::from(u))),
                    Fate::Echo => "ফেলে দিল — নিজেরই পাঠানো মেসেজ".to_string(),
                    Fate::NoMember => "ফেলে দিল — এই রুমের কেউ এখানে নেই".to_string(),
                };
                let line = CmdLine {
                    at_ms: p.at_ms,
                    actor: format!("api-{} sub", p.instance + 1),
                    cmd: Vec::new(),
                    reply: Ok(redislab_sim::redis::Reply::Nil),
                    note: format!("{} {} → {what}", p.kind, p.channel),
                    rtt_us: None,
                };
                let cls = classes!(
                    "ps-push",
                    (!matches!(p.fate, Fate::Delivered(_))).then_some("dropped")
                );
                (line, cls)
            }
        })
        .collect();
    html! {
        <CmdLog {lines} lab="pubsub" secs={true} class={classes!("ps-log")}
            empty={Some(AttrValue::from("এখনো কিছু পাঠানো হয়নি"))} />
    }
}

/// The Pub/Sub lab.
#[component]
pub fn PubSubLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let run = use_run::<PubSubRun>(&lab, true);
    // A new result opens on the whole run; ▶ replays it from the start.
    let t = use_steps(run.result(), TICK_MS, Open::End);
    let embedded = props.embedded;
    let view = match run.result() {
        None => failed_or_progress(&run),
        Some(r) => {
            let k = t.cursor.min(r.buckets.len());
            let now = r.time_at(k);
            let end = r.time_at(r.buckets.len());
            let away_now = k > 0 && r.buckets[k - 1].away;
            let label = format!("{} / {}", secs(now), secs(end));
            html! {
                <>
                    <Controls timeline={t.clone()} label={label} />
                    <div class="ps-redis" data-adapter={r.params.adapter.word()}>
                        <span class="ps-redis-name">{"Redis"}</span>
                        <code class="ps-redis-sub">{ match r.params.adapter {
                            Adapter::Plain => "PSUBSCRIBE socket.io#/#*",
                            Adapter::Static => "SSUBSCRIBE socket.io#/#",
                            Adapter::Dynamic => "SSUBSCRIBE socket.io#/#<room>#",
                        } }</code>
                        <span class="ps-redis-n">{ format!("{} সাবস্ক্রিপশন · {} রুম · বড় রুমে {} জন", n(r.summary.subscriptions), n(u64::from(r.rooms_used)), n(u64::from(r.biggest_room))) }</span>
                    </div>
                    { instances(r, k, away_now) }
                    if !embedded { { chart(r, k) } }
                    <div class="lab-status">
                        { now_line(r, k) }
                        { stats(r, k, embedded) }
                    </div>
                    { compare(r) }
                    if !embedded { { log(r, now) } }
                </>
            }
        }
    };
    let lead = html! {
        <>
            {"ছয়টা PM2 ইনস্ট্যান্স, রুমে রুমে ইউজার। কেউ মেসেজ পাঠালে তার ইনস্ট্যান্স Redis-এ publish করে, বাকিরা subscribe করে নিজের ইউজারদের দেয়। সাধারণ adapter-এ "}
            <code>{"PSUBSCRIBE socket.io#/#*"}</code>
            {" — সবাই সব পায়; sharded adapter-এ "}<code>{"SSUBSCRIBE socket.io#/#<room>#"}</code>
            {" — পায় কেবল যার কাছে রুমের কেউ আছে।"}
        </>
    };
    html! {
        <LabFrame lab={lab.clone()} busy={run.busy()} {lead}>
            <div class="ps-main">{ view }</div>
        </LabFrame>
    }
}
