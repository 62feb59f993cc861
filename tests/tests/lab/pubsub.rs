//! The Pub/Sub lab in a real headless Chromium: the lab page computes in the worker and shows
//! the native simulator's numbers (browser = wasm, native = `redislab_sim::labs::pubsub::run`)
//! — the counters, each instance's received and dropped messages, the three adapters side by
//! side — a preset comes from the address, the transport walks the timeline, a bad parameter
//! gets its Bengali message while the lab keeps its last good run. Screenshots at laptop and
//! phone sizes under target/screenshots/labs/.

use redislab_e2e::{screenshot_dir, Browser};
use redislab_sim::labs::params::Params;
use redislab_sim::labs::pubsub::{run, PubSubResult, INFO};
use serde_json::json;

fn native(query: &str) -> PubSubResult {
    let (p, errs) = Params::from_query(&INFO, query);
    assert!(errs.is_empty(), "{errs:?}");
    run(&p.typed())
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

fn want_table(r: &PubSubResult) -> Vec<(String, u64, u64, u64)> {
    r.compare
        .iter()
        .map(|s| {
            (
                s.adapter.clone(),
                s.per_sec(s.deliveries).round() as u64,
                s.per_sec(s.wasted).round() as u64,
                s.lost,
            )
        })
        .collect()
}

fn wait_idle(b: &Browser) {
    b.wait(120, "the pubsub lab to finish", |b| {
        b.exists(".lab-pubsub[aria-busy=false] [data-testid=pubsub-deliveries]")
    });
}

#[test]
fn the_lab_page_shows_the_native_run_and_walks_its_timeline() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/pubsub");
    wait_idle(&b);
    let r = native("");
    let all = r.so_far(usize::MAX).to_vec();
    assert_eq!(shown(&b), all);
    assert_eq!(
        all,
        vec![
            r.summary.publishes,
            r.summary.deliveries,
            r.summary.wasted,
            r.summary.reached,
            r.summary.lost
        ]
    );
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
    let per = |a: &str| t.iter().find(|x| x.0 == a).map(|x| x.1).unwrap();
    assert!(per("dynamic") < per("plain"), "{t:?}");
    // The log shows the room channels and the pushes the subscribers read.
    let log = b.text("[data-testid=pubsub-log]").unwrap_or_default();
    assert!(log.contains("smessage socket.io#/#r"), "{log}");
    // Reset: nothing sent yet; one step: the first bucket's numbers.
    b.click(".lab-pubsub .lab-controls button[aria-label='রিসেট']");
    b.wait(5, "the start", |b| shown(b)[0] == 0 && shown(b)[1] == 0);
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
    assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
}

#[test]
fn the_plain_adapter_from_the_address_and_an_instance_away_on_a_phone() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/pubsub?preset=plain");
    b.wait(30, "the preset's button", |b| {
        b.exists(".lab-preset[data-preset=plain][aria-pressed=true]")
    });
    wait_idle(&b);
    let r = native("preset=plain");
    let s = shown(&b);
    assert_eq!(s, r.so_far(usize::MAX).to_vec());
    assert_eq!(s[1], s[0] * 6, "every instance gets every message");
    assert_eq!(instances(&b), r.instances_so_far(usize::MAX));
    let log = b.text("[data-testid=pubsub-log]").unwrap_or_default();
    assert!(log.contains("pmessage socket.io#/#r"), "{log}");
    b.screenshot(&screenshot_dir().join("labs/pubsub-plain.png"));

    let phone = Browser::new(360, 740);
    phone.open("#/lab/pubsub?preset=away");
    wait_idle(&phone);
    let r = native("preset=away");
    assert!(r.summary.lost > 0);
    assert_eq!(shown(&phone), r.so_far(usize::MAX).to_vec());
    assert_eq!(table(&phone), want_table(&r));
    let overflow = phone.js(
        "return document.documentElement.scrollWidth > window.innerWidth",
        json!([]),
    );
    assert_eq!(
        overflow,
        json!(false),
        "the page scrolls sideways at 360 px"
    );
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
    assert!(
        phone.console_errors().is_empty(),
        "{:?}",
        phone.console_errors()
    );
}

#[test]
fn a_bad_parameter_gets_a_bengali_message_and_changes_nothing() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/pubsub?preset=small-rooms&instances=99");
    wait_idle(&b);
    let msg = b
        .text("[data-field=instances] .field-error")
        .unwrap_or_default();
    assert!(
        msg.contains("১ থেকে ১৬") || msg.contains("1 থেকে 16"),
        "{msg}"
    );
    let good = native("preset=small-rooms");
    assert_eq!(shown(&b), good.so_far(usize::MAX).to_vec());
    b.js(
        "const i = document.querySelector('#lab-field-alpha'); i.value = 'lots'; i.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([]),
    );
    b.wait(5, "a message beside alpha", |b| {
        b.exists("[data-field=alpha] .field-error")
    });
    assert_eq!(shown(&b), good.so_far(usize::MAX).to_vec());
    assert!(!b.url().contains("lots"), "{}", b.url());
    assert!(b.console_errors().is_empty());
}
