//! The maxmemory lab (production deck's risks 1 and 2, eviction deck's noeviction trap): a
//! cache and a queue in one Redis with a memory limit. It draws the memory used second by
//! second against `maxmemory` (the waiting jobs' share apart), with lanes marking the seconds
//! where jobs were lost to eviction and where writes were refused with OOM; the counters up to
//! the cursor (jobs lost, `SET`s refused for the queue and for the cache, cache keys evicted,
//! the hit ratio) and Redis' own OOM reply. Everything comes from
//! `redislab_sim::labs::maxmemory`, run in the simulation worker; the timeline walks the
//! seconds.

use super::kit::time_chart::{time_chart, Key, Lane, Line, Shape, Stack, Tick, TimeChart, Tone};
use super::kit::{
    failed_or_progress, stat, stat_f, use_lab, use_run, use_steps, Controls, LabFrame, LabProps,
    Open,
};
use redislab_deck::bn;
use redislab_sim::labs::maxmemory::{EvictPolicy, MaxmemoryOutput, MaxmemoryRun, INFO};
use yew::prelude::*;

/// The lab's view, by the name the dispatch uses.
pub use MaxmemoryLab as View;

/// Milliseconds per timeline tick (one second of virtual time).
const TICK_MS: u32 = 60;

fn kb(bytes: u64) -> f64 {
    bytes as f64 / 1024.0
}

fn secs(s: usize) -> String {
    bn::qty(s as f64, 0, bn::Unit::S)
}

/// Memory used (the jobs' keys and the rest) against the limit, and the lanes of lost jobs
/// and refused writes, the cursor after the first `k` seconds.
fn chart(o: &MaxmemoryOutput, k: usize) -> Html {
    let n = o.secs.len();
    let jobs: Vec<f64> = o.secs.iter().map(|s| kb(s.jobs_bytes)).collect();
    let rest: Vec<f64> = o
        .secs
        .iter()
        .map(|s| kb(s.used.saturating_sub(s.jobs_bytes)))
        .collect();
    let tick = |s: usize, n: u32, tone: Tone, what: &str| Tick {
        at_ms: s as f64 * 1000.0 + 500.0,
        tone,
        title: format!("{}: {} {what}", secs(s), bn::int(i64::from(n))),
        glyph: None,
    };
    let lost: Vec<Tick> = o
        .secs
        .iter()
        .enumerate()
        .filter(|(_, s)| s.lost > 0)
        .map(|(i, s)| tick(i, s.lost, Tone::Red, "জব হারাল"))
        .collect();
    let refused: Vec<Tick> = o
        .secs
        .iter()
        .enumerate()
        .filter(|(_, s)| s.oom_queue + s.oom_cache > 0)
        .map(|(i, s)| tick(i, s.oom_queue + s.oom_cache, Tone::Amber, "লেখা OOM পেল"))
        .collect();
    let c = TimeChart {
        title: "মেমোরি (KB), প্রতি সেকেন্ডের শেষে".into(),
        label: "প্রতি সেকেন্ডে Redis-এর used_memory, অপেক্ষমাণ জবের অংশ আলাদা, maxmemory-র রেখার সাথে; নিচে যে সেকেন্ডে জব হারাল আর যে সেকেন্ডে লেখা OOM পেল".into(),
        bucket_ms: 1000.0,
        stacks: vec![
            Stack { label: "Redis নিজে + ক্যাশ".into(), tone: Tone::Teal, values: rest },
            Stack { label: "অপেক্ষমাণ জব".into(), tone: Tone::Violet, values: jobs },
        ],
        lines: vec![Line { label: "maxmemory".into(), tone: Tone::Red, values: vec![kb(o.limit); n] }],
        lanes: vec![
            Lane { name: "জব হারাল".into(), segs: Vec::new(), ticks: lost },
            Lane { name: "OOM".into(), segs: Vec::new(), ticks: refused },
        ],
        keys: vec![
            Key::new("জব হারাল (eviction)", Tone::Red, Shape::Tick),
            Key::new("লেখা ফেরত (OOM)", Tone::Amber, Shape::Tick),
        ],
        span_ms: n.max(1) as f64 * 1000.0,
        now_ms: Some(k as f64 * 1000.0),
        ..TimeChart::default()
    };
    html! { <div class="mm-chart" data-testid="maxmemory-chart">{ time_chart(&c) }</div> }
}

/// The lab.
#[component]
pub fn MaxmemoryLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let run = use_run::<MaxmemoryRun>(&lab, true);
    let t = use_steps(run.result(), TICK_MS, Open::End);
    let embedded = props.embedded;
    let view = match run.result() {
        None => failed_or_progress(&run),
        Some(o) => {
            let k = t.cursor.min(o.secs.len());
            let s = o.so_far(k);
            let label = format!("{} / {}", secs(k), secs(o.secs.len()));
            let ratio = MaxmemoryOutput::hit_ratio(&s);
            let oom = o.oom.as_ref().filter(|(at, _)| *at < k as u64 * 1000);
            html! {
                <>
                    <Controls timeline={t.clone()} label={label} />
                    { chart(o, k) }
                    <div class="mm-row">
                        <dl class="lab-stats mm-stats">
                            { stat("maxmemory", "lost", "জব হারাল (eviction)", u64::from(s.lost), true) }
                            { stat("maxmemory", "oom-queue", "নতুন জব OOM পেল", u64::from(s.oom_queue), true) }
                            { stat("maxmemory", "oom-cache", "ক্যাশের SET OOM পেল", u64::from(s.oom_cache), true) }
                            { stat("maxmemory", "evicted", "ক্যাশের key সরল", u64::from(s.evicted), false) }
                            { stat_f("maxmemory", "hit-ratio", "ক্যাশ হিট", ratio, format!("{}%", bn::dec(ratio, 1))) }
                            if !embedded {
                                { stat("maxmemory", "added", "জব এল", u64::from(s.added), false) }
                                { stat("maxmemory", "done", "জব শেষ", u64::from(s.done), false) }
                            }
                        </dl>
                    </div>
                    if !embedded {
                        if let Some((_, e)) = oom {
                            <p class="mm-oom">{ "Redis-এর উত্তর: " }<code>{ format!("(error) {e}") }</code></p>
                        }
                    }
                </>
            }
        }
    };
    let policy = lab
        .params()
        .read::<redislab_sim::labs::maxmemory::MaxmemoryParams>()
        .policy;
    let lead = html! {
        <>
            {"একটা Redis, তাতে ক্যাশ (প্রতিটা key "}<code>{"SET … EX 60"}</code>{") আর কিউ (প্রতিটা জব TTL ছাড়া নিজের key; ওয়ার্কার "}<code>{"GETDEL"}</code>{" দিয়ে নেয়)। প্রতিটা কমান্ডের আগে, used_memory maxmemory ছাড়ালে, Redis policy মেনে key সরায়; সরানোর মতো কিছু না পেলে "}<code>{"SET"}</code>{"-এর মতো লেখা পায় "}<code>{"OOM command not allowed when used memory > 'maxmemory'."}</code>{" — পড়া আর মোছা চলে। "}
            { match policy {
                EvictPolicy::NoEviction => "noeviction কিছুই সরায় না: ভরলে ক্যাশ আর প্রডিউসার দুজনেরই লেখা ফেরে।",
                EvictPolicy::AllkeysLru => "allkeys-lru জব আর ক্যাশ আলাদা চেনে না: অপেক্ষমাণ জব কেউ ছোঁয় না, তাই সে-ই আগে সরে।",
                EvictPolicy::VolatileLru => "volatile-lru সরায় শুধু TTL-ওয়ালা key, মানে ক্যাশ; জব হারায় না, কিন্তু TTL-ওয়ালা key ফুরোলে লেখা ফেরে।",
            } }
            {" সীমার মধ্যে Redis-এর নিজের প্রায় ৮৭৭ KB-ও ধরা।"}
        </>
    };
    html! {
        <LabFrame lab={lab.clone()} busy={run.busy()} {lead}>
            <div class="mm-main">{ view }</div>
        </LabFrame>
    }
}
