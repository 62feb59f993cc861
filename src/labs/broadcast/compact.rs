//! The broadcast lab inside a slide: one panel with the counters the slide is about, a strip
//! of every batch and the newest incident.

use super::g;
use super::parts::{has_incidents, last_incident, strip};
use redislab_deck::bn;
use redislab_sim::labs::broadcast::{BroadcastOutput, Mode, Paging, Why};
use redislab_sim::labs::params::Switch;
use yew::prelude::*;

/// A counter of the compact form: a label and a number.
pub(super) fn mini_stat(key: &'static str, label: &'static str, v: u64, bad: bool) -> Html {
    html! {
        <span class={classes!("bc-stat", key, (bad && v > 0).then_some("bad"))}>
            <span class="bc-mini-label">{ label }</span>
            <b data-testid={format!("bc-{key}")} data-n={v.to_string()}>{ g(v) }</b>
        </span>
    }
}

/// The form inside a slide: the controls, then one panel with sent / total and the time gone
/// (animated as the lab plays), the counters this configuration is about, a strip of every
/// batch, and the newest incident — with a link to the full lab. The API's answer and the page
/// cost show where the slide's query names them (`clicks`, `mode=naive`, `paging`): the slide
/// is about them there, and elsewhere they are the same as on every other slide.
pub(super) fn compact(r: &BroadcastOutput, i: usize, named: &[String], link: Html) -> Html {
    let named = |k: &str| named.iter().any(|n| n == k);
    let f = r.frames.get(i).copied().unwrap_or_default();
    let now = f.at_ms;
    let p = &r.params;
    let c = &r.counters;
    let total = u64::from(p.tokens);
    let at_end = i + 1 >= r.frames.len();
    let lost = if at_end { c.lost } else { 0 };
    let queue = p.mode == Mode::Queue;
    // What this configuration is about, counted up to the cursor.
    let quota = r
        .attempts
        .iter()
        .filter(|a| a.to_ms <= now && a.why == Some(Why::Quota))
        .count() as u64;
    let stalled = r
        .moments
        .iter()
        .filter(|m| m.at_ms <= now && m.kind == "stalled")
        .count() as u64;
    let jobs = r
        .responses
        .iter()
        .filter(|x| x.queued && x.at_ms <= now)
        .count() as u64;
    let answer = (!queue || named("clicks")).then(|| {
        if queue {
            r.responses
                .first()
                .map(|a| format!("{} (200)", bn::duration(a.ms)))
                .unwrap_or_default()
        } else {
            format!("504, {}-এ", bn::duration(p.proxy_timeout * 1000))
        }
    });
    let costs = r.page_costs();
    let pages =
        (queue && named("paging") && p.paging != Paging::All && costs.len() > 1).then(|| {
            let first = costs[0];
            let last = costs[costs.len() - 1];
            if p.paging == Paging::Offset {
                format!(
                    "{} → {}",
                    bn::duration(first.offset_ms),
                    bn::duration(last.offset_ms)
                )
            } else {
                format!("সবগুলো {}", bn::duration(last.cursor_ms))
            }
        });
    html! {
        <div class="bc-mini" role="group" aria-label="পাঠানোর অগ্রগতি">
            <div class="bc-mini-row">
                <span class="bc-mini-big" data-testid="bc-delivered" data-n={f.delivered.to_string()}>
                    <span class="bc-mini-label">{"পাঠানো"}</span>
                    <b data-testid="bc-sent">{ format!("{} / {}", g(f.delivered), g(total)) }</b>
                </span>
                <span class="bc-mini-big">
                    <span class="bc-mini-label">{"সময় গেছে"}</span>
                    <b data-testid="bc-time" data-ms={now.to_string()}>{ bn::duration(now) }</b>
                </span>
                if let Some(answer) = answer {
                    <span class="bc-stat answer"><span class="bc-mini-label">{"API-র উত্তর"}</span><b class={classes!((!queue).then_some("bad"))}>{ answer }</b></span>
                }
                { mini_stat("twice", "দুবার", f.twice, true) }
                { mini_stat("lost", "কখনো পায়নি", lost, true) }
                { mini_stat("calls", "FCM কল", f.calls, false) }
                if queue && p.clicks > 1 { { mini_stat("jobs", "জব", jobs, jobs > 1) } }
                if let Some(pg) = pages {
                    <span class={classes!("bc-stat", "pages", (p.paging == Paging::Offset).then_some("bad"))}><span class="bc-mini-label">{"পেজের কোয়েরি"}</span><b data-testid="bc-pages">{ pg }</b></span>
                }
                if queue && (p.outage > 0 || c.retries > 0) { { mini_stat("retries", "রিট্রাই", f.retries, false) } }
                if queue && (p.outage > 0 || c.failed_jobs > 0) { { mini_stat("failed", "failed set", f.failed, true) } }
                if c.calls_429 > 0 { { mini_stat("429", "429", quota, true) } }
                if c.stalled > 0 { { mini_stat("stalled", "stalled", stalled, false) } }
                if p.dead > 0 && p.mark_dead == Switch::On { { mini_stat("dead", "মরা টোকেন নেভানো", f.marked, false) } }
                if p.dead > 0 && p.mark_dead != Switch::On { { mini_stat("dead", "মরা টোকেনে কল, নেভানো নয়", if at_end { c.dead } else { 0 }, true) } }
                { link }
            </div>
            { strip(r, &f, now) }
            if has_incidents(r) { { last_incident(r, now) } }
        </div>
    }
}
