//! The Pub/Sub lab in a real headless Chromium, what is its own (every preset's figures, a
//! bad parameter and the timeline's walk are `every_lab`'s): each instance's received and
//! dropped messages and the three adapters side by side as the native run has them, the log's
//! room channels and pushes, the plain adapter's "every instance gets every message", api-1
//! away on a phone. Screenshots at laptop and phone sizes under target/screenshots/labs/.

use crate::{native, open_lab};
use redislab_e2e::{assert_no_console_errors, assert_no_sideways_scroll, screenshot_dir, Browser};
use redislab_sim::labs::pubsub::{Adapter, PubSubOutput, PubSubRun, INFO};
use serde_json::json;

fn run(query: &str) -> PubSubOutput {
    native::<PubSubRun>(&INFO, query)
}

const KEYS: [&str; 5] = ["publishes", "deliveries", "wasted", "reached", "lost"];

/// The counters at the cursor, as the page shows them (`reached` only on the lab's page).
fn shown(b: &Browser) -> Vec<u64> {
    KEYS.iter()
        .map(|k| b.counter(&format!(".lab-pubsub [data-testid=pubsub-{k}]")))
        .collect()
}

/// Each instance's (received, dropped) as the page shows them.
fn instances(b: &Browser) -> Vec<(u64, u64)> {
    let v = b.js(
        "return [...document.querySelectorAll('.lab-pubsub .ps-inst')].map(e => [Number(e.dataset.received), Number(e.dataset.dropped)])",
        json!([]),
    );
    serde_json::from_value(v).expect("the instances")
}

/// The comparison table: per adapter, deliveries a second, wasted a second, lost.
fn table(b: &Browser) -> Vec<(String, u64, u64, u64)> {
    let v = b.js(
        "return [...document.querySelectorAll('[data-testid=pubsub-compare] tbody tr')].map(r => [r.dataset.adapter,
            Number(r.querySelector('[data-key=per-sec]').dataset.n), Number(r.querySelector('[data-key=wasted-per-sec]').dataset.n),
            Number(r.querySelector('[data-key=lost]').dataset.n)])",
        json!([]),
    );
    serde_json::from_value(v).expect("the table")
}

fn want_table(r: &PubSubOutput) -> Vec<(String, u64, u64, u64)> {
    r.compare
        .iter()
        .map(|s| {
            (
                s.adapter.word().to_string(),
                s.per_sec_whole(s.deliveries),
                s.per_sec_whole(s.wasted),
                s.lost,
            )
        })
        .collect()
}

#[test]
fn the_lab_page_shows_the_instances_the_adapters_and_the_pushes() {
    let b = Browser::new(1366, 768);
    open_lab(&b, "pubsub", "");
    let r = run("");
    let all = r.so_far(usize::MAX).to_vec();
    assert_eq!(shown(&b), all);
    // What a person reads: Bengali digits, Indian grouping.
    assert_eq!(
        b.text("[data-testid=pubsub-publishes]").unwrap_or_default(),
        "১,০০০"
    );
    let want_inst: Vec<(u64, u64)> = r.instances_so_far(usize::MAX);
    assert_eq!(instances(&b), want_inst);
    assert_eq!(table(&b), want_table(&r));
    // The sharded adapter delivers fewer than the plain one, on the page too.
    let t = table(&b);
    let per = |a: Adapter| t.iter().find(|x| x.0 == a.word()).map(|x| x.1).unwrap();
    assert!(per(Adapter::Dynamic) < per(Adapter::Plain), "{t:?}");
    // The log shows the room channels and the pushes the subscribers read.
    let log = b.text("[data-testid=pubsub-log]").unwrap_or_default();
    assert!(log.contains("smessage socket.io#/#r"), "{log}");
    // Four steps in: the subscriptions to the rooms' channels in the log.
    b.click(".lab-pubsub .lab-controls button[aria-label='রিসেট']");
    for _ in 0..4 {
        b.click(".lab-pubsub .lab-controls button[aria-label='এক ধাপ সামনে']");
    }
    b.wait(5, "four steps", |b| shown(b) == r.so_far(4).to_vec());
    let log = b.text("[data-testid=pubsub-log]").unwrap_or_default();
    assert!(log.contains("SSUBSCRIBE socket.io#/#"), "{log}");
    b.click(".lab-pubsub .lab-controls button[aria-label='শেষে যান']");
    b.wait(5, "the end", |b| shown(b) == all);
    let chart = b.rect(".ps-chart svg").expect("the chart");
    assert!(chart.width > 600.0 && chart.height >= 120.0, "{chart:?}");
    b.screenshot(&screenshot_dir().join("labs/pubsub.png"));
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{axe:#?}");
    assert_no_console_errors(&b);
}

#[test]
fn the_plain_adapter_from_the_address_and_an_instance_away_on_a_phone() {
    let b = Browser::new(1366, 768);
    open_lab(&b, "pubsub", "preset=plain");
    let r = run("preset=plain");
    let s = shown(&b);
    assert_eq!(s, r.so_far(usize::MAX).to_vec());
    assert_eq!(s[1], s[0] * 6, "every instance gets every message");
    assert_eq!(instances(&b), r.instances_so_far(usize::MAX));
    let log = b.text("[data-testid=pubsub-log]").unwrap_or_default();
    assert!(log.contains("pmessage socket.io#/#r"), "{log}");
    b.screenshot(&screenshot_dir().join("labs/pubsub-plain.png"));

    let phone = Browser::new(360, 740);
    open_lab(&phone, "pubsub", "preset=away");
    let r = run("preset=away");
    assert!(r.summary.lost > 0);
    assert_eq!(shown(&phone), r.so_far(usize::MAX).to_vec());
    assert_eq!(table(&phone), want_table(&r));
    assert_no_sideways_scroll(&phone);
    phone.screenshot(&screenshot_dir().join("labs/pubsub-phone.png"));
    // Scrubbed into the time api-1 is away: its box says so.
    let (from, _) = r.away.unwrap();
    let k = r.buckets.iter().position(|b| b.away).unwrap() + 1;
    assert!(r.buckets[k - 1].to_ms > from);
    phone.js(
        "const s = document.querySelector('.lab-pubsub .scrubber'); s.value = String(arguments[0]); s.dispatchEvent(new Event('input', {bubbles: true}));",
        json!([k]),
    );
    phone.wait(5, "api-1 away", |b| {
        b.exists(".ps-inst.away[data-inst='0']")
    });
    assert_eq!(shown(&phone), r.so_far(k).to_vec());
    phone.js(
        "document.querySelector('.lab-pubsub .ps-insts').scrollIntoView()",
        json!([]),
    );
    phone.screenshot(&screenshot_dir().join("labs/pubsub-phone-away.png"));
    assert_no_console_errors(&phone);
}
