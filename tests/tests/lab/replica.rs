//! The replica lab's own browser tests (the shared ones — every preset's figures at the end,
//! a bad parameter, the timeline walk — are in `every_lab`): the native simulator's numbers at
//! the frames around the sync (position k is frame k, 0 the start), each slide's story at its
//! load frame on a laptop and a phone, and the lab embedded on the patterns deck's "Replica
//! ৫/৫" slide with its chart's time axis and legend, as on its page (issue 35 item 20).
//! Screenshots at 1366×768 and 360×740.

use super::{native, open_lab};
use redislab_deck::bn;
use redislab_e2e::{assert_no_sideways_scroll, deck, screenshot_dir, Browser};
use redislab_sim::labs::replica::{Frame, ReplicaRun, INFO};
use serde_json::json;

/// What a frame shows: both sides' keys=, expires=, stale, then lazy and active.
fn want(f: &Frame) -> Vec<Option<u64>> {
    let s = f.second;
    vec![
        Some(u64::from(f.primary.keys)),
        Some(u64::from(f.primary.expires)),
        Some(u64::from(f.primary.stale)),
        s.map(|c| u64::from(c.keys)),
        s.map(|c| u64::from(c.expires)),
        s.map(|c| u64::from(c.stale)),
        Some(f.lazy),
        Some(f.active),
    ]
}

fn shown(b: &Browser, scope: &str) -> Vec<Option<u64>> {
    [
        "p-keys",
        "p-expires",
        "p-stale",
        "s-keys",
        "s-expires",
        "s-stale",
        "lazy",
        "active",
    ]
    .iter()
    .map(|k| {
        let css = format!("{scope} [data-testid=replica-{k}]");
        b.exists(&css).then(|| b.counter(&css))
    })
    .collect()
}

fn seek(b: &Browser, scope: &str, frame: usize) {
    b.js(
        "const s = document.querySelector(arguments[0] + ' .scrubber'); s.value = String(arguments[1]); s.dispatchEvent(new Event('input', {bubbles: true}));",
        json!([scope, frame]),
    );
}

#[test]
fn the_lab_page_shows_the_native_run_frame_by_frame() {
    let b = Browser::new(1366, 768);
    open_lab(&b, "replica", "");
    let o = native::<ReplicaRun>(&INFO, "");
    let last = o.frames.last().unwrap();
    assert_eq!(shown(&b, ".lab-replica"), want(last));
    // The seed's question answered with the numbers at the cursor.
    let now = b.text("[data-testid=replica-now]").unwrap_or_default();
    assert!(now.contains("কিছু হারায়নি"), "{now}");
    assert!(
        now.contains(&bn::int(i64::from(last.primary.live()))),
        "{now}"
    );
    let log = b.text("[data-testid=replica-log]").unwrap_or_default();
    assert!(log.contains("GET key:08879"), "{log}");
    assert!(log.contains("পৌঁছল"), "{log}");
    let plot = b.rect(".rp-plot svg").expect("the chart");
    assert!(plot.width > 500.0 && plot.height >= 120.0, "{plot:?}");
    b.screenshot(&screenshot_dir().join("labs/replica.png"));
    // Before the sync, at the sync, once loaded: the same numbers as the native frames.
    for k in [0, 40, 60, 62, 120] {
        seek(&b, ".lab-replica", k);
        b.wait(5, "the frame", |b| {
            shown(b, ".lab-replica") == want(&o.frames[k])
        });
    }
    seek(&b, ".lab-replica", 20);
    b.wait(5, "the frame", |b| {
        shown(b, ".lab-replica") == want(&o.frames[20])
    });
    let now = b.text("[data-testid=replica-now]").unwrap_or_default();
    assert!(now.contains("এখনো জোড়েনি"), "{now}");
    let axe = b.axe_serious();
    assert!(axe.is_empty(), "{axe:#?}");
    assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
}

#[test]
fn each_preset_from_the_address_shows_its_story_on_a_laptop_and_a_phone() {
    for (id, w, h) in [
        ("old-rdb", 1366, 768),
        ("restart", 360, 740),
        ("no-reads", 360, 740),
    ] {
        let b = Browser::new(w, h);
        open_lab(&b, "replica", &format!("preset={id}"));
        assert!(b.exists(&format!(".lab-preset[data-preset={id}][aria-pressed=true]")));
        let o = native::<ReplicaRun>(&INFO, &format!("preset={id}"));
        assert_eq!(shown(&b, ".lab-replica"), want(o.frames.last().unwrap()));
        // The load: old-rdb's replica starts with fewer keys, restart's copy drops them.
        let k = (o.loaded_ms / o.step_ms) as usize;
        seek(&b, ".lab-replica", k);
        b.wait(5, "the load frame", |b| {
            shown(b, ".lab-replica") == want(&o.frames[k])
        });
        let f = &o.frames[k];
        if id != "no-reads" {
            assert!(f.second.unwrap().keys < f.primary.keys, "{id}");
        }
        assert_no_sideways_scroll(&b);
        b.screenshot(&screenshot_dir().join(format!("labs/replica-{id}-{w}.png")));
        assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
    }
}

#[test]
fn the_lab_on_the_replica_slide_runs_without_console_errors() {
    let d = deck("patterns");
    let Some(i) = d
        .slides
        .iter()
        .position(|s| s.kicker.contains("Replica") && s.has_lab())
    else {
        panic!("no slide embeds the replica lab");
    };
    let n = i + 1;
    for (w, h, name) in [(1366, 768, "laptop"), (360, 740, "phone")] {
        let b = Browser::new(w, h);
        b.open(&format!("#/patterns/{n}"));
        b.wait(30, "the embedded replica lab", |b| {
            b.exists(".slide .lab-replica")
        });
        b.wait(90, "the embedded lab to finish", |b| {
            b.exists(".slide .lab-replica[aria-busy=false] [data-testid=replica-p-keys]")
        });
        let o = native::<ReplicaRun>(&INFO, "preset=today");
        let f = o.frames.last().unwrap();
        let s = shown(&b, ".slide .lab-replica");
        assert_eq!(&s[..6], &want(f)[..6]);
        assert!(b.exists(".slide .lab-replica a.lab-open[href*='#/lab/replica']"));
        // The chart as its page has it: a time axis under the plot and a legend (issue 35
        // item 20; on a laptop beside the transport, where the stage has room), drawn,
        // readable and apart from each other and from the transport.
        let end = o.frames.last().map_or(0, |f| f.t_ms);
        let secs = |ms: u64| bn::qty(ms as f64 / 1000.0, 1, bn::Unit::S);
        let axis = b.js(
            "return [...document.querySelectorAll('.slide .lab-replica .rp-x span')].map(e => e.textContent)",
            json!([]),
        );
        assert_eq!(
            axis,
            json!(["০ s", format!("sync {}", secs(o.sync_ms)), secs(end)]),
            "{name}"
        );
        let legend = b.js(
            "return [...document.querySelectorAll('.slide .lab-replica .rp-legend .rp-key')].map(e => e.textContent)",
            json!([]),
        );
        assert_eq!(legend, json!(["primary keys=", "replica keys="]), "{name}");
        let boxes = b.js(
            "const lab = document.querySelector('.slide .lab-replica').getBoundingClientRect();
             const plot = document.querySelector('.slide .lab-replica .rp-plot').getBoundingClientRect();
             const fig = document.querySelector('.slide .lab-replica .rp-chart').getBoundingClientRect();
             const axis = [...document.querySelectorAll('.slide .lab-replica .rp-x span')];
             const keys = [...document.querySelectorAll('.slide .lab-replica .rp-legend .rp-key')];
             const controls = [...document.querySelectorAll('.slide .lab-replica .lab-controls > *, .slide .lab-replica .rp-now')];
             const r = es => es.map(e => e.getBoundingClientRect());
             const hit = (a, c) => a.left < c.right && c.left < a.right && a.top < c.bottom && c.top < a.bottom;
             const texts = r([...axis, ...keys]);
             let overlap = 0;
             for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++) if (hit(texts[i], texts[j])) overlap++;
             for (const k of r(keys)) for (const c of r(controls)) if (hit(k, c)) overlap++;
             return {
               overlap,
               drawn: texts.every(r => r.width > 0 && r.height > 0),
               below_plot: r(axis).every(r => r.top >= plot.bottom - 0.5 && r.bottom <= fig.bottom + 0.5),
               inside: texts.every(r => r.left >= lab.left - 0.5 && r.right <= lab.right + 0.5 && r.bottom <= lab.bottom + 0.5),
               min_px: Math.min(...[...axis, ...keys].map(e => parseFloat(getComputedStyle(e).fontSize))),
               body_px: parseFloat(getComputedStyle(document.querySelector('.slide .lab-replica .rp-now')).fontSize),
               plot_h: plot.height,
             };",
            json!([]),
        );
        assert_eq!(boxes["overlap"], json!(0), "{name}: {boxes}");
        assert_eq!(boxes["drawn"], json!(true), "{name}: {boxes}");
        assert_eq!(boxes["below_plot"], json!(true), "{name}: {boxes}");
        assert_eq!(boxes["inside"], json!(true), "{name}: {boxes}");
        // At the lab's own body size (its answer line's) at least, and 10 px or more: the
        // page's 0.72 em would be 7.6 px on a phone.
        let (min, body) = (
            boxes["min_px"].as_f64().unwrap_or(0.0),
            boxes["body_px"].as_f64().unwrap_or(f64::MAX),
        );
        assert!(min >= body.max(10.0), "{name}: {boxes}");
        // The plot keeps the room's 120 px on a laptop (the `room` test's bar).
        let least = if w >= 1366 { 120.0 } else { 60.0 };
        assert!(
            boxes["plot_h"].as_f64().unwrap_or(0.0) >= least,
            "{name}: {boxes}"
        );
        b.screenshot(&screenshot_dir().join(format!("labs/replica-slide-{name}.png")));
        let axe = b.axe_serious();
        assert!(axe.is_empty(), "{axe:#?}");
        assert!(b.console_errors().is_empty(), "{:?}", b.console_errors());
    }
}
