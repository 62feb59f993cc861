//! Every lab of the registry in the frame every lab shares (`LabFrame`): on a 360×740 phone
//! the lab comes first — its picture and its transport on the first screen, the presets after
//! them, the form folded until opened; at 1366×768 the folded form takes at most a third of the
//! first screen. The list of labs is the simulator's registry, not a list of this file's.

use redislab_e2e::{screenshot_dir, Browser, Rect};
use redislab_sim::labs::registry::IDS;
use serde_json::json;

/// Waits until the lab has drawn its result (`aria-busy` cleared) with its transport.
fn open_lab(b: &Browser, id: &str) {
    b.open(&format!("#/lab/{id}"));
    b.wait(120, &format!("lab {id} to finish"), |b| {
        b.exists(".lab") && !b.exists(".lab[aria-busy=true]") && b.exists(".lab-controls")
    });
}

/// The rect of the first element `css` matches that has a box.
fn first_box(b: &Browser, css: &str) -> Option<Rect> {
    b.rect(css).filter(|r| r.width > 0.0 && r.height > 0.0)
}

#[test]
fn on_a_phone_every_lab_comes_first_and_its_form_is_folded() {
    let b = Browser::new(360, 740);
    let dir = screenshot_dir().join("labs");
    for &id in IDS {
        open_lab(&b, id);
        let (vw, vh) = b.viewport();
        let controls = first_box(&b, ".lab-controls").expect("a transport");
        assert!(
            controls.y >= 0.0 && controls.y + controls.height <= vh,
            "{id}: the transport is not on the first screen: {controls:?} in {vh}"
        );
        // Every control of the transport fits the screen's width.
        let outside = b.js(
            "const w = innerWidth; return [...document.querySelectorAll('.lab-controls > *')]
               .filter(e => { const r = e.getBoundingClientRect(); return r.width > 0 && (r.left < -0.5 || r.right > w + 0.5); })
               .map(e => e.className || e.tagName)",
            json!([]),
        );
        assert_eq!(outside, json!([]), "{id}: controls outside {vw} px");
        // The picture starts on the first screen, above the presets, the lead and the form.
        let picture_top = b
            .js(
                "const p = document.querySelector('.lab-picture'); const r = [...p.children].map(e => e.getBoundingClientRect()).find(r => r.height > 0); return r ? r.top : null",
                json!([]),
            )
            .as_f64()
            .expect("the picture has a box");
        assert!(
            picture_top < vh,
            "{id}: the picture starts below the first screen"
        );
        for after in [".lab-presets", ".lab-lead", ".lab-form-box"] {
            if let Some(r) = first_box(&b, after) {
                assert!(
                    r.y >= controls.y + controls.height - 0.5,
                    "{id}: {after} comes before the transport ({r:?} vs {controls:?})"
                );
            }
        }
        // The form is folded: no field drawn until it is opened.
        if b.exists(".lab-form-box") {
            assert!(!b.exists(".lab-form-box[open]"), "{id}: the form is open");
            assert!(
                !b.exists(".lab-form-box .lab-field"),
                "{id}: fields drawn folded"
            );
        }
        b.screenshot(&dir.join(format!("{id}-frame-phone.png")));
        assert!(
            b.console_errors().is_empty(),
            "{id}: {:?}",
            b.console_errors()
        );
    }
}

#[test]
fn at_laptop_size_the_folded_form_takes_at_most_a_third_of_the_screen() {
    let b = Browser::new(1366, 768);
    let dir = screenshot_dir().join("labs");
    for &id in IDS {
        open_lab(&b, id);
        let (_, vh) = b.viewport();
        if let Some(form) = first_box(&b, ".lab-form-box") {
            let on_screen = (form.y + form.height).min(vh) - form.y.max(0.0);
            assert!(
                on_screen <= vh / 3.0,
                "{id}: the form takes {on_screen} px of the first {vh}"
            );
        }
        let controls = first_box(&b, ".lab-controls").expect("a transport");
        assert!(
            controls.y + controls.height <= vh,
            "{id}: the transport is below the first screen"
        );
        // Opened, it shows every field (and closes again).
        if b.exists(".lab-form-box") {
            b.open_form();
            assert!(b.exists(".lab-form-box .lab-field"), "{id}");
        }
        b.screenshot(&dir.join(format!("{id}-frame-laptop.png")));
    }
}
