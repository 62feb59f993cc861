//! The streams lab (production slide 17, the chat's Redis Streams): producers `XADD … MAXLEN ~`,
//! a consumer group whose workers read `COUNT 200 BLOCK 5000`, save and `XACK`; a failed batch
//! retried one message at a time, poison to the dead-letter stream, a crashed worker's batch
//! taken over by `XAUTOCLAIM`, trimming that loses unread entries; Pub/Sub beside it.
//!
//! It draws XLEN and the group's pending count over virtual time, the counters at the
//! cursor, and the command log up to the cursor. Everything comes from
//! `redislab_sim::labs::streams`, run in the simulation worker; the timeline walks its samples.
//!
//! Live mode (its own page only): the "আসল Redis" switch runs the same producers and workers
//! against a real Redis through the proxy (in the worker, [`crate::live::use_live`]) with the
//! counts scaled down (the lab says so): `XGROUP CREATE … MKSTREAM`, `XADD … MAXLEN ~`,
//! `XREADGROUP … COUNT … BLOCK` (the proxy bounds the block and runs it on the session's own
//! connection), `XACK`, `XAUTOCLAIM`, the dead-letter `XADD`. The plot then draws Redis' own
//! `XLEN` and `XPENDING`, sampled as it runs, the log shows the real replies with round trips,
//! and a table sets the simulation of the same scaled-down run beside the real counts.

use super::kit::{
    failed_or_progress, live_panel, stat, use_lab, use_sim_live, use_steps, CmdLog, Controls,
    LabFrame, LabProps, Open,
};
use crate::live::bar::{counts_table, CountRow};
use redislab_deck::bn;
use redislab_sim::labs::def::Steps;
use redislab_sim::labs::streams::{
    Counters, Sample, StreamsOutput, StreamsParams, StreamsRun, INFO,
};
use yew::prelude::*;

/// The lab's view, by the name the dispatch uses.
pub use StreamsLab as View;

/// Milliseconds per timeline tick.
const TICK_MS: u32 = 120;
/// Log rows shown (the newest up to the cursor).
const LOG: usize = 12;

fn n(v: u64) -> String {
    bn::int(v as i64)
}

/// A moment of the run (`১২.৩ s`).
fn secs(ms: u64) -> String {
    bn::qty(ms as f64 / 1000.0, 1, bn::Unit::S)
}

/// A log note as a person reads it: its counts and message numbers in Bengali digits (`দখল:
/// ৪৮টা`), a worker's name (`w2`) and a command's argument (`MAXLEN ~ 100000`) as Redis has
/// them. The run's JSON keeps the note as the simulator wrote it.
fn note_text(note: &str) -> String {
    let chars: Vec<char> = note.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
        let run: String = chars[start..i].iter().collect();
        let after_letter = start > 0 && chars[start - 1].is_ascii_alphanumeric();
        let argument = start >= 2 && chars[start - 2] == '~';
        match run.parse::<i64>() {
            Ok(v) if !after_letter && !argument => out.push_str(&bn::int(v)),
            _ => out.push_str(&run),
        }
    }
    out
}

/// XLEN and pending over time: the whole run faint, its first `k` samples bright.
fn plot(r: &StreamsOutput, k: usize) -> Html {
    let end = r.end_ms.max(1) as f64;
    let top = r
        .samples
        .iter()
        .map(|s| s.xlen.max(s.pending))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let pts = |v: &[Sample], f: fn(&Sample) -> u64| -> String {
        v.iter()
            .map(|s| {
                format!(
                    "{:.1},{:.1}",
                    s.t as f64 / end * 1000.0,
                    200.0 - f(s) as f64 / top * 190.0
                )
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let upto = &r.samples[..k.min(r.samples.len())];
    let now = upto.last().map_or(0, |s| s.t);
    let x = now as f64 / end * 1000.0;
    html! {
        <figure class="sx-plot">
            <svg viewBox="0 0 1000 200" preserveAspectRatio="none" role="img"
                aria-label={format!("XLEN আর pending, সময়ের সাথে — {} পর্যন্ত", secs(now))}>
                <polyline class="sx-xlen faint" points={pts(&r.samples, |s| s.xlen)} />
                <polyline class="sx-pend faint" points={pts(&r.samples, |s| s.pending)} />
                <polyline class="sx-xlen" points={pts(upto, |s| s.xlen)} />
                <polyline class="sx-pend" points={pts(upto, |s| s.pending)} />
                if let Some(c) = r.crash_ms {
                    <line class="sx-crash" x1={format!("{:.1}", c as f64 / end * 1000.0)} x2={format!("{:.1}", c as f64 / end * 1000.0)} y1="0" y2="200" />
                }
                <line class="sx-cursor" x1={format!("{x:.1}")} x2={format!("{x:.1}")} y1="0" y2="200" />
            </svg>
            <figcaption class="sx-legend">
                if r.live { <span class="sx-key real">{"আসল Redis:"}</span> }
                <span class="sx-key xlen">{"XLEN orders"}</span>
                <span class="sx-key pend">{"XPENDING (ack-হীন)"}</span>
                if r.crash_ms.is_some() { <span class="sx-key crash">{"ক্র্যাশ"}</span> }
                <span class="sx-axis">{ format!("০ – {} · সর্বোচ্চ {}", secs(r.end_ms), n(top as u64)) }</span>
            </figcaption>
        </figure>
    }
}

fn stats(c: &Counters, s: &Sample, embedded: bool) -> Html {
    html! {
        <dl class="lab-stats sx-stats">
            { stat("streams", "xlen", "XLEN", s.xlen, false) }
            { stat("streams", "pending", "pending", s.pending, false) }
            { stat("streams", "delivered", "ডেলিভারি", c.delivered, false) }
            { stat("streams", "saved", "সেভ হলো", c.saved, false) }
            { stat("streams", "duplicates", "দুবার সেভ", c.duplicates, true) }
            { stat("streams", "dead", "dead-letter", c.dead, true) }
            { stat("streams", "lost", "ছাঁটাইয়ে হারাল", c.lost_trim, true) }
            { stat("streams", "pubsub-lost", "Pub/Sub-এ হারাল", c.pubsub_lost, true) }
            if !embedded {
                { stat("streams", "reclaimed", "XAUTOCLAIM-এ দখল", c.reclaimed, false) }
                { stat("streams", "retried", "একটা একটা করে", c.retried, false) }
                { stat("streams", "stuck", "মরা worker-এ আটকে", c.stuck, true) }
                { stat("streams", "commands", "কমান্ড", c.commands, false) }
            }
        </dl>
    }
}

/// The newest notable event up to `now` (`None`: the start, nothing yet), in one line (red
/// when the run says it reports a loss or a crash).
fn now_line(r: &StreamsOutput, now: Option<u64>) -> Html {
    let last = now.and_then(|now| {
        r.log
            .iter()
            .rposition(|l| l.at_ms <= now && !l.note.is_empty())
    });
    match last {
        None => {
            html! { <p class="lab-now" data-testid="streams-now">{"producer লিখছে, worker-রা ব্যাচে পড়ছে, সেভ করে XACK দিচ্ছে"}</p> }
        }
        Some(i) => {
            let l = &r.log[i];
            let bad = r.alarms.binary_search(&i).is_ok();
            html! {
                <p class={classes!("lab-now", bad.then_some("bad"))} data-testid="streams-now">
                    <span class="lab-now-t">{ secs(l.at_ms) }</span>{ " " }{ format!("{} — {}", l.actor, note_text(&l.note)) }
                </p>
            }
        }
    }
}

/// The newest [`LOG`] lines of the command log up to `now` (`None`: none yet; the kit's log
/// draws them).
fn log(r: &StreamsOutput, now: Option<u64>) -> Html {
    let upto = now.map_or(0, |now| r.log.partition_point(|l| l.at_ms <= now));
    let from = upto.saturating_sub(LOG);
    let lines = (from..upto)
        .map(|i| {
            let alarm = r.alarms.binary_search(&i).is_ok();
            let mut line = r.log[i].clone();
            line.note = note_text(&line.note);
            (line, classes!(alarm.then_some("alarm")))
        })
        .collect::<Vec<_>>();
    html! { <CmdLog {lines} lab="streams" live={r.live} secs=true class="sx-log" /> }
}

/// The simulation's prediction beside the real run: Redis' XLEN and XPENDING, and what the
/// workers counted.
fn compare(sim: &StreamsOutput, real: &StreamsOutput, done: bool) -> Html {
    let last = |r: &StreamsOutput| r.samples.last().copied().unwrap_or_default();
    let (ls, lr) = (last(sim), last(real));
    let (a, b) = (&sim.counters, &real.counters);
    let rows = [
        ("xlen", "XLEN orders", ls.xlen, lr.xlen),
        ("pending", "XPENDING (ack-হীন)", ls.pending, lr.pending),
        ("produced", "XADD হলো", a.produced, b.produced),
        ("saved", "সেভ হলো", a.saved, b.saved),
        ("duplicates", "দুবার সেভ", a.duplicates, b.duplicates),
        ("reclaimed", "XAUTOCLAIM-এ দখল", a.reclaimed, b.reclaimed),
        ("dead", "dead-letter", a.dead, b.dead),
        ("acked", "XACK হলো", a.acked, b.acked),
        ("stuck", "মরা worker-এ আটকে", a.stuck, b.stuck),
    ];
    let rows: Vec<CountRow> = rows
        .iter()
        .map(|(k, label, x, y)| (k.to_string(), label.to_string(), *x, *y))
        .collect();
    let verdict = format!(
        "শেষে আসল Redis-এ XLEN {}, XPENDING {} — সিমুলেশন বলেছিল {} আর {}।",
        n(lr.xlen),
        n(lr.pending),
        n(ls.xlen),
        n(ls.pending)
    );
    counts_table("sx-compare", &rows, done, verdict)
}

/// What a live run runs, in one line.
fn live_note(p: &StreamsParams) -> String {
    format!(
        "আসল Redis-এ ছোট করে চলে: {}টি মেসেজ, সেকেন্ডে {}টি, {}টি worker, BLOCK {} ms (প্রক্সি এক সেশনে একবারে একটাই blocking read চালায়, তাই worker-রা পালা করে পড়ে), XAUTOCLAIM {} ms অলস হলে; Pub/Sub কেবল সিমুলেশনে (প্রক্সি দিয়ে SUBSCRIBE চলে না)। পাশের সংখ্যা একই ছোট রানের সিমুলেশন।",
        n(p.messages),
        n(p.rate),
        n(u64::from(p.workers)),
        n(p.block),
        n(p.claim_idle)
    )
}

/// The streams lab.
#[component]
pub fn StreamsLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let typed: StreamsParams = lab.params().read();
    // Live: the same producers and workers against a real Redis, scaled down; the
    // simulation of the same scaled-down run is the prediction.
    let sl = use_sim_live::<StreamsRun>(&lab, true, true);
    let busy = sl.busy();
    let predicted = sl.predicted();
    // A live run shows itself from its first sample of Redis' XLEN and XPENDING on.
    let real = sl.real().filter(|r| !r.samples.is_empty());
    let result = real.or(predicted);
    // A new result opens on the whole run; ▶ replays it from the start.
    let t = use_steps(result, TICK_MS, Open::End);
    let embedded = props.embedded;
    let view = match result {
        None => failed_or_progress(&sl.sim),
        Some(r) => {
            // Position k: after the first k samples (0: the start, nothing yet).
            let k = t.cursor.min(r.steps());
            let s = r.sample_at(k);
            let until = (k > 0).then_some(s.t);
            let label = format!("{} / {}", secs(s.t), secs(r.end_ms));
            html! {
                <>
                    <Controls timeline={t.clone()} label={label} />
                    { plot(r, k) }
                    <div class="lab-status">
                        { now_line(r, until) }
                        { stats(&s.counters, &s, embedded) }
                    </div>
                    if let (Some(sim), Some(real)) = (predicted, real) {
                        { compare(sim, real, sl.live.done) }
                    }
                    if !embedded { { log(r, until) } }
                </>
            }
        }
    };
    let lead = html! {
        <>
            {"producer লেখে "}<code>{"XADD orders MAXLEN ~ 100000 * n <i>"}</code>
            {"; consumer group-এর worker-রা পড়ে "}<code>{"XREADGROUP GROUP savers w1 COUNT 200 BLOCK 5000 STREAMS orders >"}</code>
            {", ডেটাবেসে সেভ করে তারপর XACK। পাশে একই মেসেজ PUBLISH — কেউ না শুনলে হারিয়ে যায়।"}
        </>
    };
    let live = live_panel(
        &lab,
        &sl,
        Some(live_note(&typed.for_live(*sl.switch.scale))),
    );
    html! {
        <LabFrame lab={lab.clone()} {busy} {lead} {live}>
            <div class="sx-main">{ view }</div>
        </LabFrame>
    }
}
