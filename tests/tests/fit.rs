//! Every slide of every deck fits its stage, fully built, at the sizes instructors present at:
//! 1366×768 and 1280×720 laptops, and fullscreen at 1920×1080. "Fits" is what a person sees:
//! nothing inside the stage is cut off by a box that hides or scrolls its overflow. Screenshots
//! of every slide at every size go to `target/screenshots/fit/` for people to look at.

use redislab_deck::bn;
use redislab_e2e::{decks, screenshot_dir, Browser};
use serde_json::json;

/// Boxes inside the stage whose content is larger than the box while the box hides or
/// scrolls what does not fit, described for a person.
const CLIPPED: &str = r#"
const stage = document.querySelector('.stage');
const out = [];
for (const e of [stage, ...stage.querySelectorAll('*')]) {
  const cs = getComputedStyle(e);
  if (cs.display === 'none' || cs.display === 'contents') continue;
  const y = cs.overflowY !== 'visible' && e.scrollHeight > e.clientHeight + 1;
  const x = cs.overflowX !== 'visible' && e.scrollWidth > e.clientWidth + 1;
  if (x || y) {
    const what = e.tagName.toLowerCase() + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\s+/).join('.') : '');
    out.push(what + (y ? ` ${e.scrollHeight - e.clientHeight}px too tall` : '') + (x ? ` ${e.scrollWidth - e.clientWidth}px too wide` : ''));
  }
}
return out;
"#;

fn check_all(b: &Browser, size: &str, failures: &mut Vec<String>) {
    for d in decks() {
        let n = d.slides.len();
        let shots = screenshot_dir().join(format!("fit/{size}/{}", d.id));
        for (i, s) in d.slides.iter().enumerate() {
            let steps = s.steps();
            let at = if steps == 0 {
                format!("{}", i + 1)
            } else {
                format!("{}.{steps}", i + 1)
            };
            b.js(&format!("location.hash = '#/{}/{at}'", d.id), json!([]));
            b.wait_counter(&bn::counter(i, n));
            b.wait(10, "the slide built", |b| {
                b.rect(&format!(".stage[data-step='{steps}']")).is_some()
            });
            if b.exists(".stage .slide.has-lab") {
                b.wait(30, "the embedded lab", |b| {
                    b.exists(".stage .lab") && !b.exists(".stage [aria-busy=true]")
                });
            }
            // The fit pass runs after the slide is drawn: wait for the next frame.
            b.js_async(
                "const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => done(true)))",
                json!([]),
            );
            let clipped = b.js(CLIPPED, json!([]));
            for c in clipped.as_array().into_iter().flatten() {
                failures.push(format!(
                    "[{size}] {} slide {}: {}",
                    d.id,
                    i + 1,
                    c.as_str().unwrap_or_default()
                ));
            }
            b.screenshot(&shots.join(format!("{:02}.png", i + 1)));
        }
    }
}

#[test]
fn every_slide_fits_at_laptop_sizes() {
    let mut failures = Vec::new();
    for (w, h) in [(1366, 768), (1280, 720)] {
        let b = Browser::new(w, h);
        b.open("#/production/1");
        b.wait_counter("০১ / ২২");
        check_all(&b, &format!("{w}x{h}"), &mut failures);
    }
    assert!(
        failures.is_empty(),
        "{} cut off:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_slide_fits_in_fullscreen_at_1920() {
    let b = Browser::new(1920, 1080);
    // A headless browser's screen is 800×600 unless told, and fullscreen takes the screen's
    // size: the room's screen is 1920×1080.
    b.cdp(
        "Emulation.setDeviceMetricsOverride",
        json!({"width": 1920, "height": 1080, "deviceScaleFactor": 1, "mobile": false,
               "screenWidth": 1920, "screenHeight": 1080}),
    );
    b.open("#/production/1");
    b.wait_counter("০১ / ২২");
    b.press("f");
    b.wait(15, "fullscreen", |b| {
        b.js("return !!document.fullscreenElement", json!([])) == json!(true)
    });
    let size = b.js("return [innerWidth, innerHeight]", json!([]));
    assert_eq!(size, json!([1920, 1080]), "the fullscreen page's size");
    let mut failures = Vec::new();
    check_all(&b, "fullscreen-1920", &mut failures);
    assert!(
        b.js("return !!document.fullscreenElement", json!([])) == json!(true),
        "still in fullscreen after the walk"
    );
    assert!(
        failures.is_empty(),
        "{} cut off:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
