//! What every lab shares, checked over the registry (issue 32: "browser tests from the
//! registry"): a lab needs no test of its own for these.
//!
//! * **Every preset shows the simulator's numbers.** For the defaults and every preset, the
//!   lab's page, at the end of its run, shows each figure its output names
//!   (`redislab_sim::labs::def::Figures`: the `stat` with that `data-figure`) with the value of
//!   the native run of the same parameters — the numbers `labsim <id> --preset <p>` prints.
//! * **A bad parameter gets its message and changes nothing:** a value outside a field's range
//!   in the address is named beside its field in Bengali, and the page's figures stay those of
//!   the defaults.
//! * **The timeline walks:** from the end, one step back, reset to the start and forward one
//!   step move the scrubber (its value) one position at a time, and the end button returns to
//!   the figures of the whole run.

use redislab_e2e::{assert_no_console_errors, Browser};
use redislab_sim::labs::def::Figure;
use redislab_sim::labs::lab::{Body, Job, Lab};
use redislab_sim::labs::params::{Kind, Params};
use redislab_sim::labs::registry::{self, LABS};
use redislab_sim::labs::work::Work;
use serde_json::json;

/// The figures of the native run of `query` (the main run, through the worker's protocol).
fn native(lab: &dyn Lab, query: &str) -> Vec<Figure> {
    let (p, errs) = Params::from_query(lab.info(), query);
    assert!(errs.is_empty(), "{}?{query}: {errs:?}", lab.info().id);
    let msgs = Work::new(Job::new(lab.info(), &p))
        .unwrap_or_else(|e| panic!("{}: {e}", lab.info().id))
        .run_to_end();
    match msgs.last() {
        Some(Body::Done(out)) => registry::figures(lab.info().id, out)
            .unwrap_or_else(|| panic!("{}: no such lab", lab.info().id))
            .unwrap_or_else(|e| panic!("{}: {e}", lab.info().id)),
        other => panic!("{} ended without output: {other:?}", lab.info().id),
    }
}

/// The labs whose output names its figures.
fn labs_with_figures() -> Vec<&'static dyn Lab> {
    LABS.iter()
        .copied()
        .filter(|l| !native(*l, "").is_empty())
        .collect()
}

/// Every `data-figure` the lab's page shows, with its `data-n`.
fn shown(b: &Browser, id: &str) -> Vec<(String, f64)> {
    let v = b.js(
        "return [...document.querySelectorAll(arguments[0])].filter(e => e.getClientRects().length > 0).map(e => [e.dataset.figure, Number(e.dataset.n)])",
        json!([format!(".lab-{id} [data-figure]")]),
    );
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|p| {
                    (
                        p[0].as_str().unwrap_or_default().to_string(),
                        p[1].as_f64().unwrap_or(f64::NAN),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// What differs between the page's figures and the native ones (empty: they agree).
fn differences(page: &[(String, f64)], want: &[Figure]) -> Vec<String> {
    want.iter()
        .filter_map(|f| match page.iter().find(|(k, _)| *k == f.key) {
            None => Some(format!("{} is not shown (native {})", f.key, f.value)),
            Some((_, v)) if (v - f.value).abs() > 1e-6 * f.value.abs().max(1.0) => {
                Some(format!("{}: page {v}, native {}", f.key, f.value))
            }
            Some(_) => None,
        })
        .collect()
}

/// Opens lab `id` with `query` and waits until it has computed and shows its transport.
fn open(b: &Browser, id: &str, query: &str) {
    b.open(&format!("#/lab/{id}?{query}"));
    b.wait(120, &format!("{id}?{query} to finish"), |b| {
        b.exists(&format!(
            ".lab-{id}[aria-busy=false] .lab-controls .scrubber"
        ))
    });
}

fn scrubber(b: &Browser, id: &str) -> (u64, u64) {
    let v = b.js(
        "const s = document.querySelector(arguments[0]); return [Number(s.value), Number(s.max)]",
        json!([format!(".lab-{id} .lab-controls .scrubber")]),
    );
    (v[0].as_u64().unwrap_or(0), v[1].as_u64().unwrap_or(0))
}

fn press(b: &Browser, id: &str, button: &str) {
    b.click(&format!(
        ".lab-{id} .lab-controls button[aria-label='{button}']"
    ));
}

/// Goes to the end of the run and waits for the page to show `want`; what still differs.
fn at_end_shows(b: &Browser, id: &str, want: &[Figure]) -> Vec<String> {
    let (at, last) = scrubber(b, id);
    if at < last {
        press(b, id, "শেষে যান");
    }
    b.wait_for(10, |b| differences(&shown(b, id), want).is_empty());
    differences(&shown(b, id), want)
}

#[test]
fn every_preset_shows_the_simulators_numbers() {
    let b = Browser::new(1366, 768);
    let mut wrong = Vec::new();
    let mut checked = 0;
    for lab in labs_with_figures() {
        let info = lab.info();
        let queries = std::iter::once(String::new())
            .chain(info.presets.iter().map(|p| format!("preset={}", p.id)));
        for q in queries {
            let want = native(lab, &q);
            open(&b, info.id, &q);
            for d in at_end_shows(&b, info.id, &want) {
                wrong.push(format!("#/lab/{}?{q}: {d}", info.id));
            }
            checked += 1;
        }
    }
    assert_no_console_errors(&b);
    assert!(checked > 0, "no lab names its figures");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_bad_parameter_gets_its_message_and_changes_nothing() {
    let b = Browser::new(1366, 768);
    let mut wrong = Vec::new();
    for lab in labs_with_figures() {
        let info = lab.info();
        // The first whole-number field, one past its largest value.
        let Some((key, bad)) = info.fields.iter().find_map(|f| match f.kind {
            Kind::Int { max, .. } if f.key != "seed" => Some((f.key, (max + 1).to_string())),
            _ => None,
        }) else {
            continue;
        };
        let want = native(lab, "");
        open(&b, info.id, &format!("{key}={bad}"));
        b.open_form();
        let msg = b
            .text(&format!(".lab-{} [data-field={key}] .field-error", info.id))
            .unwrap_or_default();
        if !msg.chars().any(|c| ('\u{0980}'..='\u{09FF}').contains(&c)) {
            wrong.push(format!(
                "{}: {key}={bad} has no Bengali message beside it: {msg:?}",
                info.id
            ));
        }
        for d in at_end_shows(&b, info.id, &want) {
            wrong.push(format!("{}?{key}={bad}: {d}", info.id));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_timeline_walks_one_position_at_a_time() {
    let b = Browser::new(1366, 768);
    let mut wrong = Vec::new();
    for lab in labs_with_figures() {
        let id = lab.info().id;
        let want = native(lab, "");
        open(&b, id, "");
        press(&b, id, "শেষে যান");
        let (_, last) = scrubber(&b, id);
        if last < 2 {
            wrong.push(format!("{id}: a timeline of {} positions", last + 1));
            continue;
        }
        let steps: [(&str, u64); 3] = [("এক ধাপ পিছনে", last - 1), ("রিসেট", 0), ("এক ধাপ সামনে", 1)];
        for (button, to) in steps {
            press(&b, id, button);
            if !b.wait_for(5, |b| scrubber(b, id).0 == to) {
                wrong.push(format!(
                    "{id}: {button} left the scrubber at {:?}, not {to}",
                    scrubber(&b, id)
                ));
            }
        }
        for d in at_end_shows(&b, id, &want) {
            wrong.push(format!("{id} back at the end: {d}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The numbers a lab draws, in its text and its SVG (axes, legends, labels), as a person reads
/// them: runs of ASCII digits outside code (commands, replies, key names, inputs) and not part of
/// a name (`w1`, `api-1`, `r4`, `key:01296`; a command log's actors and its notes, which quote
/// replies such as an HTTP status), with the element they are in.
const ASCII_NUMBERS: &str = r#"
const root = document.querySelector(arguments[0]);
const code = 'code, kbd, pre, samp, input, select, textarea, .cmd-log-cmd, .cmd-log-reply, .cmd-log-who, .cmd-log-note, [data-code]';
const out = [];
const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
for (let n = walk.nextNode(); n; n = walk.nextNode()) {
  const el = n.parentElement;
  if (!el || el.closest(code) || !el.getClientRects().length) continue;
  const t = n.textContent;
  for (const m of t.matchAll(/[0-9]+/g)) {
    const before = t[m.index - 1] || '';
    if (/[A-Za-z_:\-]/.test(before)) continue;
    out.push(`${el.tagName.toLowerCase()}.${[...el.classList].join('.')}: "${t.trim().slice(0, 60)}"`);
    break;
  }
}
return [...new Set(out)].slice(0, 8);
"#;

/// Issue 35 item 16: every number a lab draws is in Bengali digits (one formatter), SVG axes
/// included; code stays ASCII.
#[test]
fn every_lab_draws_its_numbers_in_bengali_digits() {
    let b = Browser::new(1366, 768);
    let mut wrong = Vec::new();
    for lab in LABS {
        let id = lab.info().id;
        open(&b, id, "");
        // Half way, where every part of the picture has something to say.
        b.scrub_middle_and_end(&format!(".lab-{id}"));
        let found = b.js(ASCII_NUMBERS, json!([format!(".lab-{id}")]));
        for f in found.as_array().into_iter().flatten() {
            wrong.push(format!("{id}: {}", f.as_str().unwrap_or_default()));
        }
    }
    assert!(
        wrong.is_empty(),
        "ASCII digits drawn by a lab:\n{}",
        wrong.join("\n")
    );
}

/// Issue 35 item 10: on a 360 px phone every control of an embedded lab a finger uses — the
/// transport, the scrubber, the speed, the presets, the link to the whole lab — has at least
/// 44×44 px of touch area (WCAG 2.5.5).
#[test]
fn every_embedded_control_is_thumb_sized_on_a_phone() {
    use redislab_e2e::decks;
    let b = Browser::new(360, 740);
    b.touch_screen();
    let mut wrong = Vec::new();
    for d in decks() {
        for (i, s) in d.slides.iter().enumerate() {
            if !s.has_lab() {
                continue;
            }
            b.open(&format!("#/{}/{}.{}", d.id, i + 1, s.steps()));
            b.wait(60, "the embedded lab", |b| {
                b.exists(".stage .lab[aria-busy=false]")
            });
            let small = b.js(
                "return [...document.querySelectorAll('.stage .lab button, .stage .lab input, .stage .lab select, .stage .lab a')].filter(e => e.getClientRects().length).map(e => [e.getAttribute('aria-label') || e.className || e.tagName, e.getBoundingClientRect()]).filter(([, r]) => r.width < 43.5 || r.height < 43.5).map(([n, r]) => `${n} ${Math.round(r.width)}×${Math.round(r.height)}`)",
                json!([]),
            );
            for s in small.as_array().into_iter().flatten() {
                wrong.push(format!(
                    "{} {}: {}",
                    d.id,
                    i + 1,
                    s.as_str().unwrap_or_default()
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "controls under 44×44 px on a phone:\n{}",
        wrong.join("\n")
    );
}
