//! The auth lab in a real headless Chromium: the page computes in the worker and shows the
//! native simulator's numbers (browser = wasm, native = `redislab_sim::labs::auth::run`) —
//! requests and database queries up to the cursor, the warm window's 0, 4 per request
//! without the cache, the ban's let-ins and its end with and without the filter on read —
//! a preset comes from the address, a bad value gets its Bengali message, and the lab sits
//! on production slide 11. Screenshots at laptop and phone sizes under
//! target/screenshots/labs/.

use redislab_e2e::{
    assert_no_console_errors, assert_no_sideways_scroll, deck, screenshot_dir, Browser,
};
use redislab_sim::labs::auth::{run, AuthOutput, INFO};
use redislab_sim::labs::params::Params;
use serde_json::json;

fn native(query: &str) -> AuthOutput {
    let (p, errs) = Params::from_query(&INFO, query);
    assert!(errs.is_empty(), "{errs:?}");
    run(&p.read())
}

fn wait_idle(b: &Browser, scope: &str) {
    b.wait(120, "the auth lab to finish", |b| {
        b.exists(&format!(
            "{scope}.lab-auth[aria-busy=false] [data-testid=auth-per-request]"
        ))
    });
}

fn float(b: &Browser, key: &str) -> f64 {
    b.js(
        "const e = document.querySelector(arguments[0]); return e ? Number(e.dataset.n) : NaN",
        json!([format!("[data-testid=auth-{key}]")]),
    )
    .as_f64()
    .unwrap_or(f64::NAN)
}

/// Requests and queries as the page shows them at the cursor.
fn shown(b: &Browser) -> (u64, u64) {
    (
        b.counter("[data-testid=auth-requests]"),
        b.counter("[data-testid=auth-queries]"),
    )
}

#[test]
fn the_lab_page_shows_the_native_run() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/auth");
    wait_idle(&b, "");
    let o = native("");
    // The cursor starts at the end: the whole run.
    b.wait(5, "the run's totals", |b| {
        shown(b) == (o.requests, o.queries)
    });
    assert_eq!((o.requests, o.queries), (15_996, 2_174));
    let w = o.warm.clone().expect("a warm window");
    assert_eq!(w.queries, 0);
    assert_eq!(b.counter("[data-testid=auth-warm-queries]"), 0);
    let warm_requests = b.js(
        "return Number(document.querySelector('[data-testid=auth-warm-queries]').dataset.requests)",
        json!([]),
    );
    assert_eq!(warm_requests.as_u64(), Some(w.requests));
    assert_eq!(w.requests, 3_794);
    assert_eq!(b.counter("[data-testid=auth-uncached]"), 4 * o.requests);
    assert!((float(&b, "per-request") - o.per_request()).abs() < 1e-3);
    // Back to the start: nothing yet; one step on, the first second and the cold start's
    // queries.
    b.click(".lab-auth .lab-controls button[aria-label='রিসেট']");
    b.wait(5, "the start", |b| shown(b) == (0, 0));
    b.click(".lab-auth .lab-controls button[aria-label='এক ধাপ সামনে']");
    let s0 = &o.secs[0];
    b.wait(5, "the first second", |b| {
        shown(b) == (u64::from(s0.requests), u64::from(s0.queries))
    });
    assert!(s0.queries > 0);
    let plot = b.rect(".lab-auth .tc-plot").expect("the chart");
    assert!(plot.height >= 120.0 && plot.width > 300.0, "{plot:?}");
    b.click(".lab-auth .lab-controls button[aria-label='শেষে যান']");
    b.wait(5, "the end", |b| shown(b) == (o.requests, o.queries));
    b.screenshot(&screenshot_dir().join("labs/auth.png"));
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{axe:#?}");
    assert_no_console_errors(&b);
}

#[test]
fn before_the_cache_every_request_costs_four() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/auth?preset=before");
    wait_idle(&b, "");
    let o = native("preset=before");
    b.wait(5, "the totals", |b| shown(b) == (o.requests, o.queries));
    assert_eq!(o.queries, 4 * o.requests);
    assert_eq!(float(&b, "per-request"), 4.0);
    assert!(!b.exists("[data-testid=auth-warm-queries]"));
    assert_no_console_errors(&b);
}

#[test]
fn a_ban_on_a_phone_ends_late_without_the_filter() {
    let phone = Browser::new(360, 740);
    phone.open("#/lab/auth?preset=no-filter");
    wait_idle(&phone, "");
    let o = native("preset=no-filter");
    let ban = o.ban.clone().expect("a ban");
    phone.wait(5, "the totals", |b| shown(b) == (o.requests, o.queries));
    assert_eq!(ban.refused_after_end, 13);
    assert_eq!(
        phone.counter("[data-testid=auth-refused-after-end]"),
        u64::from(ban.refused_after_end)
    );
    assert_eq!(
        phone.counter("[data-testid=auth-let-in]"),
        u64::from(ban.let_in)
    );
    let late = ban.back_in_ms.expect("back in") - ban.ends_ms.expect("an end");
    assert!((float(&phone, "back") - late as f64 / 1000.0).abs() < 1e-3);
    assert!(phone.exists("[data-testid=auth-chart] .tc-lane .tc-seg.tone-red"));
    assert_no_sideways_scroll(&phone);
    phone.screenshot(&screenshot_dir().join("labs/auth-phone.png"));
    // With the filter on read: back in at the first request from the end on.
    phone.open("#/lab/auth?preset=ban-ends");
    wait_idle(&phone, "");
    let f = native("preset=ban-ends").ban.expect("a ban");
    phone.wait(5, "the filtered ban", |b| {
        b.counter("[data-testid=auth-refused-after-end]") == 0
            && (float(b, "back")
                - (f.back_in_ms.unwrap_or(0) - f.ends_ms.unwrap_or(0)) as f64 / 1000.0)
                .abs()
                < 1e-3
    });
    assert_eq!(f.refused_after_end, 0);
    assert_no_console_errors(&phone);
}

#[test]
fn a_bad_parameter_gets_a_bengali_message() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/auth?ban_at=500");
    wait_idle(&b, "");
    b.wait(30, "the rule's message", |b| {
        b.text("[data-field=ban_at] .field-error")
            .is_some_and(|t| t.contains("ব্যান"))
    });
    assert_no_console_errors(&b);
}

#[test]
fn the_lab_on_the_auth_slide() {
    let d = deck("production");
    let Some(i) = d
        .slides
        .iter()
        .position(|s| s.kicker.contains("সবচেয়ে বড় লাভ") && s.has_lab())
    else {
        panic!("no slide embeds the auth lab");
    };
    let n = i + 1;
    for (w, h, name) in [(1366, 768, "laptop"), (360, 740, "phone")] {
        let b = Browser::new(w, h);
        b.open(&format!("#/production/{n}"));
        b.wait(30, "the embedded auth lab", |b| {
            b.exists(".slide .lab-auth")
        });
        wait_idle(&b, ".slide ");
        let o = native("preset=ban-ends");
        b.wait(5, "the slide's numbers", |b| {
            (float(b, "per-request") - o.per_request()).abs() < 1e-3
                && b.counter(".slide [data-testid=auth-warm-queries]") == 0
        });
        let plot = b.rect(".slide .lab-auth .tc-plot").expect("the chart");
        assert!(plot.height >= 120.0, "{plot:?}");
        assert_eq!(b.counter(".slide [data-testid=auth-refused-after-end]"), 0);
        assert!(b.exists(".slide .lab-auth a.lab-open[href*='#/lab/auth']"));
        b.screenshot(&screenshot_dir().join(format!("labs/auth-slide-{name}.png")));
        let axe = b.axe_serious();
        assert!(axe.is_empty(), "{axe:#?}");
        assert_no_console_errors(&b);
    }
}
