//! Every slide of every deck fits its stage, fully built, at the sizes instructors present at:
//! 1366×768 and 1280×720 laptops, and fullscreen at 1920×1080. "Fits" is what a person sees:
//! nothing inside the stage is cut off by a box that hides or scrolls its overflow. Screenshots
//! of every slide at every size go to `target/screenshots/fit/` for people to look at.

use redislab_e2e::slides::{self, Which};
use redislab_e2e::{screenshot_dir, Browser};
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
    slides::each_built(b, Which::All, 30, |d, i| {
        for c in b.js(CLIPPED, json!([])).as_array().into_iter().flatten() {
            failures.push(format!(
                "[{size}] {} slide {}: {}",
                d.id,
                i + 1,
                c.as_str().unwrap_or_default()
            ));
        }
        let shots = screenshot_dir().join(format!("fit/{size}/{}", d.id));
        b.screenshot(&shots.join(format!("{:02}.png", i + 1)));
    });
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
    let b = slides::fullscreen_1920();
    let mut failures = Vec::new();
    check_all(&b, "fullscreen-1920", &mut failures);
    assert!(
        slides::in_fullscreen(&b),
        "still in fullscreen after the walk"
    );
    assert!(
        failures.is_empty(),
        "{} cut off:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
