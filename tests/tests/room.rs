//! Every slide reads from the back of a room: fully built, at 1366×768 and in fullscreen at
//! 1920×1080, no text on a slide is drawn under 14 px (code, diagrams and SVG labels included,
//! measured as drawn: an SVG's font size times its scale) and its body text — paragraphs,
//! bullets, the lead and notes — is 20 px or more. A failure names the deck, the slide, the
//! element and its words; a slide the player had to shrink to fit (`--fit` under 1) fails too.
//! Screenshots of every slide go to `target/screenshots/room/`.
//!
//! The inside of an embedded lab is measured by its own test (the last one here): its text,
//! its charts' heights and the slide with it inside the stage (issue 24, item 2).

use redislab_e2e::slides::{self, Which, MEASURE_JS};
use redislab_e2e::{screenshot_dir, Browser};
use serde_json::{json, Value};

/// The smallest text a room can read, and the body text it needs, in CSS px.
const SMALLEST: f64 = 14.0;
const BODY: f64 = 20.0;

/// The smallest drawn text on the stage's slide and the smallest body text, each with the
/// element and words it was found in.
const MEASURE: &str = r#"
const slide = document.querySelector('.stage .slide');
const out = { min: null, body: null, fit: getComputedStyle(slide).getPropertyValue('--fit').trim() };
const walker = document.createTreeWalker(slide, NodeFilter.SHOW_TEXT);
for (let n = walker.nextNode(); n; n = walker.nextNode()) {
  const words = n.textContent.replace(/\s+/g, ' ').trim();
  const el = n.parentElement;
  if (!words || !el || el.closest('.lab-host, .sr-only') || !shown(el, slide)) continue;
  const px = size(el);
  if (!out.min || px < out.min.px) out.min = { px, el: name(el), words: words.slice(0, 50) };
  const block = el.closest('.slide-body > p:not(.fix), .slide-body .bullets > li, .slide-body .numbered > li');
  if (block) {
    const b = size(block);
    if (!out.body || b < out.body.px) out.body = { px: b, el: name(block), words: words.slice(0, 50) };
  }
}
return out;
"#;

fn describe(v: &Value) -> String {
    format!(
        "{} px in `{}` «{}»",
        v["px"],
        v["el"].as_str().unwrap_or_default(),
        v["words"].as_str().unwrap_or_default()
    )
}

/// Walks every slide of every deck fully built, measures it and saves its screenshot.
fn walk(b: &Browser, size: &str, failures: &mut Vec<String>) -> usize {
    let measure = format!("{MEASURE_JS}{MEASURE}");
    slides::each_built(b, Which::All, 30, |d, i| {
        let m = b.js(&measure, json!([]));
        let at = format!("[{size}] {} slide {}", d.id, i + 1);
        match m["min"]["px"].as_f64() {
            Some(px) if px < SMALLEST => failures.push(format!(
                "{at}: text under {SMALLEST} px: {} (--fit {})",
                describe(&m["min"]),
                m["fit"].as_str().unwrap_or("1")
            )),
            None => failures.push(format!("{at}: no text measured")),
            _ => {}
        }
        // A slide that had to shrink its type to fit says too much for the room.
        if let Some(fit) = m["fit"].as_str().and_then(|f| f.parse::<f64>().ok()) {
            if fit < 1.0 {
                failures.push(format!(
                    "{at}: shrunk to fit (--fit {fit}): say less, let the script carry the rest"
                ));
            }
        }
        if let Some(px) = m["body"]["px"].as_f64() {
            if px < BODY {
                failures.push(format!(
                    "{at}: body text under {BODY} px: {} (--fit {})",
                    describe(&m["body"]),
                    m["fit"].as_str().unwrap_or("1")
                ));
            }
        }
        let shots = screenshot_dir().join(format!("room/{size}/{}", d.id));
        b.screenshot(&shots.join(format!("{:02}.png", i + 1)));
    })
}

fn report(failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{} slides too small for a room:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_slide_reads_from_the_back_of_the_room_at_1366() {
    let b = Browser::new(1366, 768);
    b.open("#/production/1");
    b.wait(15, "the deck", |b| b.exists(".stage .slide"));
    let mut failures = Vec::new();
    let seen = walk(&b, "1366x768", &mut failures);
    assert!(seen >= 79, "only {seen} slides walked");
    report(failures);
}

#[test]
fn every_slide_reads_from_the_back_of_the_room_in_fullscreen_at_1920() {
    let b = slides::fullscreen_1920();
    let mut failures = Vec::new();
    walk(&b, "fullscreen-1920", &mut failures);
    assert!(
        slides::in_fullscreen(&b),
        "still in fullscreen after the walk"
    );
    report(failures);
}

/// Inside the slide's embedded lab: its smallest drawn text, every distinct element drawn under
/// the smallest size (each at its smallest), and its charts' heights.
const MEASURE_LAB: &str = r#"
const SMALLEST = arguments[0];
const host = document.querySelector('.stage .lab-host');
const out = { min: null, small: [], charts: [] };
if (!host) return out;
const walker = document.createTreeWalker(host, NodeFilter.SHOW_TEXT);
for (let n = walker.nextNode(); n; n = walker.nextNode()) {
  const words = n.textContent.replace(/\s+/g, ' ').trim();
  const el = n.parentElement;
  if (!words || !el || el.closest('.sr-only') || !shown(el, host)) continue;
  const px = size(el);
  const found = { px, el: name(el), words: words.slice(0, 50) };
  if (!out.min || px < out.min.px) out.min = found;
  if (px < SMALLEST) {
    const seen = out.small.find((s) => s.el === found.el);
    if (!seen) out.small.push(found);
    else if (px < seen.px) Object.assign(seen, found);
  }
}
out.small.sort((a, b) => a.px - b.px);
// The lab inside the stage: the slide does not have to scroll to show it or what follows it.
const slide = host.closest('.slide');
out.over = Math.max(0, slide.scrollHeight - slide.clientHeight);
const stage = document.querySelector('.stage').getBoundingClientRect();
const box = host.getBoundingClientRect();
out.outside = Math.max(0, Math.round(box.bottom - stage.bottom), Math.round(stage.top - box.top));
for (const svg of host.querySelectorAll('svg.chart-svg, .lab svg[role=img]')) {
  if (shown(svg, host)) out.charts.push({ h: Math.round(svg.getBoundingClientRect().height), el: name(svg) });
}
return out;
"#;

/// Every lab embedded in a slide reads from the back of the room at 1366×768: no text of it
/// drawn under 14 px (lane labels, axes and legends included), every chart at least 120 px
/// tall, and the slide with its lab still inside the stage (no scrolling). Screenshots go to `target/screenshots/room/labs/`.
#[test]
fn every_embedded_lab_reads_from_the_back_of_the_room() {
    let b = Browser::new(1366, 768);
    b.open("#/production/1");
    b.wait(15, "the deck", |b| b.exists(".stage .slide"));
    let mut failures = Vec::new();
    let measure = format!("{MEASURE_JS}{MEASURE_LAB}");
    let seen = slides::each_built(&b, Which::WithLab, 60, |d, i| {
        let m = b.js(&measure, json!([SMALLEST]));
        let at = format!("{} slide {}", d.id, i + 1);
        // Every distinct element drawn too small, smallest first, so one run shows all.
        for small in m["small"].as_array().into_iter().flatten() {
            failures.push(format!(
                "{at}: lab text under {SMALLEST} px: {}",
                describe(small)
            ));
        }
        if m["over"].as_f64().is_some_and(|o| o > 1.0) {
            failures.push(format!(
                "{at}: the slide with its lab is {} px too tall for the stage",
                m["over"]
            ));
        }
        if m["outside"].as_f64().is_some_and(|o| o > 0.0) {
            failures.push(format!(
                "{at}: the lab is {} px outside the stage",
                m["outside"]
            ));
        }
        if m["min"].is_null() {
            failures.push(format!("{at}: no lab text measured"));
        }
        for c in m["charts"].as_array().into_iter().flatten() {
            if c["h"].as_f64().is_some_and(|h| h < 120.0) {
                failures.push(format!(
                    "{at}: a chart {} px tall: `{}`",
                    c["h"],
                    c["el"].as_str().unwrap_or_default()
                ));
            }
        }
        b.screenshot(&screenshot_dir().join(format!("room/labs/{}-{:02}.png", d.id, i + 1)));
        // Z: the whole lab over the stage (what folded away inside the slide is there),
        // for people to look at; Z again puts it back.
        b.press("z");
        b.wait(5, "the lab enlarged", |b| b.exists(".stage.lab-enlarged"));
        b.js_async(
                "const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => done(true)))",
                json!([]),
            );
        b.screenshot(&screenshot_dir().join(format!(
            "room/labs/{}-{:02}-enlarged.png",
            d.id,
            i + 1
        )));
        b.press("z");
        b.wait(5, "the lab back in its slide", |b| {
            !b.exists(".stage.lab-enlarged")
        });
    });
    assert!(seen >= 10, "only {seen} slides with labs");
    report(failures);
}
