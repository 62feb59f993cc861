//! Walking a deck's slides the way the room sees them, shared by the tests that look at every
//! slide (`fit`, `room`): each slide opened by its address fully built, its embedded lab done
//! computing, the fonts in and the player's fit pass drawn; and the room's 1920×1080 screen in
//! fullscreen. The JavaScript helpers that measure what is drawn are here too, so every test
//! measures a text's size and names an element the same way.

use crate::{decks, Browser};
use redislab_deck::{bn, Deck};
use serde_json::json;

/// Which slides [`each_built`] opens.
#[derive(Clone, Copy, PartialEq)]
pub enum Which {
    /// Every slide.
    All,
    /// Only the slides with an embedded lab.
    WithLab,
}

/// Opens every slide of every deck (or only those with a lab) fully built, through its
/// address, waits until it is drawn as the room sees it — the counter, the last fragment, the
/// embedded lab done computing (up to `lab_wait` seconds), the fonts and two frames for the
/// fit pass — and calls `f` with the deck and the slide's index. Returns how many
/// slides it walked.
pub fn each_built(
    b: &Browser,
    which: Which,
    lab_wait: u64,
    mut f: impl FnMut(&Deck, usize),
) -> usize {
    let mut seen = 0;
    for d in decks() {
        let n = d.slides.len();
        for (i, s) in d.slides.iter().enumerate() {
            if which == Which::WithLab && !s.has_lab() {
                continue;
            }
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
                b.wait(lab_wait, "the embedded lab", |b| {
                    b.exists(".stage .lab") && !b.exists(".stage [aria-busy=true]")
                });
            }
            settle(b);
            f(&d, i);
            seen += 1;
        }
    }
    seen
}

/// Waits for the fonts and two frames: whatever runs after a layout (the player's fit pass)
/// has drawn.
pub fn settle(b: &Browser) {
    b.js_async(
        "const done = arguments[0]; document.fonts.ready.then(() => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))",
        json!([]),
    );
}

/// A browser showing the room's 1920×1080 screen in fullscreen, on the first slide (the F key,
/// as an instructor does). A headless browser's screen is 800×600 unless told, and fullscreen
/// takes the screen's size.
pub fn fullscreen_1920() -> Browser {
    let b = Browser::new(1920, 1080);
    b.cdp(
        "Emulation.setDeviceMetricsOverride",
        json!({"width": 1920, "height": 1080, "deviceScaleFactor": 1, "mobile": false,
               "screenWidth": 1920, "screenHeight": 1080}),
    );
    b.open("#/production/1");
    // The counter is drawn by the player, whose keys listen from then on.
    b.wait_counter("০১ / ২২");
    b.press("f");
    b.wait(15, "fullscreen", in_fullscreen);
    let size = b.js("return [innerWidth, innerHeight]", json!([]));
    assert_eq!(size, json!([1920, 1080]), "the fullscreen page's size");
    b
}

/// Whether the page is in fullscreen.
pub fn in_fullscreen(b: &Browser) -> bool {
    b.js("return !!document.fullscreenElement", json!([])) == json!(true)
}

/// JavaScript helpers for a measuring script (prepend them): `shown(el, root)` — drawn and
/// not hidden up to `root`; `size(el)` — its font size as drawn, in CSS px (an SVG's font size
/// times its scale); `name(el)` — its tag and classes, for a person.
pub const MEASURE_JS: &str = r#"
const shown = (el, root) => {
  for (let e = el; e && e !== root.parentElement; e = e.parentElement) {
    const cs = getComputedStyle(e);
    if (cs.display === 'none' || cs.visibility === 'hidden' || Number(cs.opacity) === 0) return false;
  }
  const r = el.getBoundingClientRect();
  return r.width > 2 && r.height > 2;
};
const size = (el) => {
  let px = parseFloat(getComputedStyle(el).fontSize);
  if (el instanceof SVGElement && el.getScreenCTM) {
    const m = el.getScreenCTM();
    if (m) px *= Math.hypot(m.a, m.b);
  }
  return Math.round(px * 10) / 10;
};
const name = (el) => el.tagName.toLowerCase() + (typeof el.className === 'string' && el.className.trim()
  ? '.' + el.className.trim().split(/\s+/).join('.') : (el.className && el.className.baseVal ? '.' + el.className.baseVal.trim().split(/\s+/).join('.') : ''));
"#;
