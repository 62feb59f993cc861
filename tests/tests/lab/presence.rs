//! The presence lab in a real headless Chromium: the page computes both runs in the worker
//! and shows the native simulator's numbers (browser = wasm, native =
//! `redislab_sim::labs::presence::{run_room, run_spread}`) bucket by bucket — the sorted
//! set's count and bytes, the HyperLogLog's estimate, error and bytes — and the error's
//! spread over the rooms; a preset comes from the address; a bad value gets its Bengali
//! message. Screenshots at laptop and phone sizes under target/screenshots/labs/.

use redislab_e2e::{assert_no_console_errors, assert_no_sideways_scroll, screenshot_dir, Browser};
use redislab_sim::labs::params::Params;
use redislab_sim::labs::presence::{run_room, run_spread, PresenceParams, RoomOutput, INFO};
use serde_json::json;

fn params(query: &str) -> PresenceParams {
    let (p, errs) = Params::from_query(&INFO, query);
    assert!(errs.is_empty(), "{errs:?}");
    p.typed()
}

fn wait_idle(b: &Browser) {
    b.wait(120, "the presence lab to finish", |b| {
        b.exists(".lab-presence[aria-busy=false] [data-testid=presence-spread]")
            && b.exists(".lab-presence [data-testid=presence-zcard]")
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

fn want(r: &RoomOutput, k: usize) -> [u64; 5] {
    let x = &r.buckets[k];
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
    b.open("#/lab/presence");
    wait_idle(&b);
    let p = params("");
    let r = run_room(&p);
    let s = run_spread(&p);
    b.click(".lab-presence .lab-controls button[aria-label='রিসেট']");
    for k in 0..r.buckets.len() {
        if k > 0 {
            b.click(".lab-presence .lab-controls button[aria-label='এক ধাপ সামনে']");
        }
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
    phone.open(&format!("#/lab/presence?{q}"));
    wait_idle(&phone);
    let r = run_room(&params(q));
    phone.click(".lab-presence .lab-controls button[aria-label='শেষে যান']");
    let last = r.buckets.len() - 1;
    let w = want(&r, last);
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
fn a_bad_parameter_gets_a_bengali_message() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/presence?size=600000&seeds=20");
    wait_idle(&b);
    let msg = b.text("[data-field=size] .field-error").unwrap_or_default();
    assert!(msg.contains("৫,০০,০০০") || msg.contains("500000"), "{msg}");
    let r = run_room(&params("seeds=20"));
    let last = r.buckets.len() - 1;
    b.click(".lab-presence .lab-controls button[aria-label='শেষে যান']");
    let w = want(&r, last);
    b.wait(5, "the defaults' last bucket", |b| shown(b) == w);
    // The spread's rule between two fields.
    b.open("#/lab/presence?seeds=1000&sample=100000");
    b.wait(30, "the rule's message", |b| {
        b.text("[data-field=seeds] .field-error")
            .is_some_and(|t| t.contains("স্প্রেড"))
    });
    assert_no_console_errors(&b);
}
