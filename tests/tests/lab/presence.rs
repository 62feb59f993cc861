//! The presence lab in a real headless Chromium, what is its own (every preset's figures at
//! the last bucket, a bad parameter and the timeline's walk are `every_lab`'s): the room
//! bucket by bucket from the empty room at position 0 (the one timeline convention) as the
//! native run has it — the sorted set's count and bytes, the HyperLogLog's estimate, error and
//! bytes — the error's spread over the rooms (the second run), a big room on a phone and the
//! spread's rule between two fields. Screenshots at laptop and phone sizes under
//! target/screenshots/labs/.

use crate::{native, open_lab};
use redislab_e2e::{assert_no_console_errors, assert_no_sideways_scroll, screenshot_dir, Browser};
use redislab_sim::labs::presence::{PresenceOutput, PresenceRoom, PresenceSpread, INFO};
use serde_json::json;

/// Opens the lab with `query` and waits for both runs: the room and the spread.
fn open(b: &Browser, query: &str) {
    open_lab(b, "presence", query);
    b.wait(120, "the spread", |b| {
        b.exists(".lab-presence[aria-busy=false] [data-testid=presence-spread] [data-testid=presence-beyond]")
    });
}

/// The numbers the page shows for the cursor's bucket.
fn shown(b: &Browser) -> [u64; 5] {
    [
        b.counter("[data-testid=presence-zcard]"),
        b.counter("[data-testid=presence-zbytes]"),
        b.counter("[data-testid=presence-pf]"),
        b.counter("[data-testid=presence-hllbytes]"),
        b.js(
            "return Number(document.querySelector('[data-testid=presence-now]').dataset.shown)",
            json!([]),
        )
        .as_u64()
        .unwrap_or(u64::MAX),
    ]
}

/// What position `k` shows: the `k`-th bucket, nothing at 0.
fn want(r: &PresenceOutput, k: usize) -> [u64; 5] {
    let Some(x) = r.bucket_at(k) else {
        return [0; 5];
    };
    [
        x.zcard as u64,
        x.zset_bytes,
        x.pf_window as u64,
        x.hll_bytes,
        x.shown as u64,
    ]
}

fn float(b: &Browser, key: &str) -> f64 {
    b.js(
        "return Number(document.querySelector(arguments[0]).dataset.n)",
        json!([format!("[data-testid=presence-{key}]")]),
    )
    .as_f64()
    .unwrap_or(f64::NAN)
}

#[test]
fn the_lab_page_shows_the_native_run_bucket_by_bucket() {
    let b = Browser::new(1366, 768);
    open(&b, "");
    let r = native::<PresenceRoom>(&INFO, "");
    let s = native::<PresenceSpread>(&INFO, "");
    b.click(".lab-presence .lab-controls button[aria-label='রিসেট']");
    b.wait(5, "the empty room", |b| {
        shown(b) == [0; 5]
            && b.text("[data-testid=presence-now]")
                .is_some_and(|t| t.contains("রুম খালি"))
    });
    for k in 1..=r.buckets.len() {
        b.click(".lab-presence .lab-controls button[aria-label='এক ধাপ সামনে']");
        let w = want(&r, k);
        b.wait(5, &format!("bucket {k}"), |b| shown(b) == w);
    }
    // The first bucket is exact; the last is the estimate, and the set stayed at the limit.
    assert_eq!(r.buckets[0].shown, i64::from(r.buckets[0].truth));
    assert!(r.buckets.last().unwrap().zcard <= 500);
    assert!(b.exists(".prs-hll.shown"));
    let err = float(&b, "err");
    assert!(
        (err - r.buckets.last().unwrap().err_pct).abs() < 1e-3,
        "{err}"
    );
    // The spread: the same standard deviation and rooms beyond ±0.81% as natively.
    assert!((float(&b, "sd") - s.sd_pct).abs() < 1e-3);
    assert_eq!(
        b.counter("[data-testid=presence-beyond]"),
        u64::from(s.beyond)
    );
    let hist = b.rect(".prs-hist").expect("the histogram");
    assert!(hist.height >= 120.0 && hist.width > 300.0, "{hist:?}");
    b.screenshot(&screenshot_dir().join("labs/presence.png"));
    b.js(
        "document.querySelector('[data-testid=presence-spread]').scrollIntoView()",
        json!([]),
    );
    b.screenshot(&screenshot_dir().join("labs/presence-spread.png"));
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{axe:#?}");
    assert_no_console_errors(&b);
}

#[test]
fn a_big_room_on_a_phone_is_dense_and_fits() {
    let phone = Browser::new(360, 740);
    let q = "preset=big-room&seeds=20&sample=2000";
    open(&phone, q);
    let r = native::<PresenceRoom>(&INFO, q);
    let last = r.buckets.len() - 1;
    // It opens on the last bucket: the room at its largest.
    let w = want(&r, last + 1);
    phone.wait(5, "the last bucket", |b| shown(b) == w);
    // Three dense keys: 3 × 12,304 bytes, with half a million in the room.
    assert_eq!(r.buckets[last].hll_bytes, 3 * 12_304);
    assert_eq!(r.buckets[last].active, 500_000);
    assert!(
        r.buckets[last].truth > 500_000,
        "the window also holds who left within it"
    );
    assert_no_sideways_scroll(&phone);
    phone.screenshot(&screenshot_dir().join("labs/presence-phone.png"));
    assert_no_console_errors(&phone);
}

#[test]
fn the_spreads_rule_between_two_fields_gets_its_message() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/presence?seeds=1000&sample=100000");
    b.wait(30, "the rule's message", |b| {
        b.text("[data-field=seeds] .field-error")
            .is_some_and(|t| t.contains("স্প্রেড"))
    });
    assert_no_console_errors(&b);
}
