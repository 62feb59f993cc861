//! The labs in a real headless Chromium, one test binary for all of them.
//!
//! * [`every_lab`] — what every lab shares, run over the registry: every preset shows the
//!   simulator's figures, a bad parameter gets its message and changes nothing, the timeline
//!   walks.
//! * one module per lab, named by its id and made from the registry (`for_each_lab!`): only
//!   what is special to that lab (a seed's table, a race, its slide).

mod every_lab;

use redislab_e2e::Browser;
use redislab_sim::labs::def::RunDef;
use redislab_sim::labs::lab::{Body, Job, LabInfo};
use redislab_sim::labs::params::Params;
use redislab_sim::labs::work::Work;

/// The native output of run `R` of lab `info` with `query`, through the worker's protocol
/// (what the page receives from the simulation worker).
pub fn native<R: RunDef>(info: &'static LabInfo, query: &str) -> R::Output {
    let (p, errs) = Params::from_query(info, query);
    assert!(errs.is_empty(), "{}?{query}: {errs:?}", info.id);
    let msgs = Work::new(Job::new(info, &p).run(R::NAME))
        .unwrap_or_else(|e| panic!("{}: {e}", info.id))
        .run_to_end();
    match msgs.last() {
        Some(Body::Done(out)) => out
            .read()
            .unwrap_or_else(|e| panic!("{}?{query}: {e}", info.id)),
        other => panic!("{}?{query} ended without output: {other:?}", info.id),
    }
}

/// Opens lab `id`'s page with `query` and waits until it has computed and shows its
/// transport.
pub fn open_lab(b: &Browser, id: &str, query: &str) {
    b.open(&format!("#/lab/{id}?{query}"));
    b.wait(120, &format!("{id}?{query} to finish"), |b| {
        b.exists(&format!(
            ".lab-{id}[aria-busy=false] .lab-controls .scrubber"
        ))
    });
}

/// The Latin words drawn inside `scope` (text and SVG, the form's labels included) outside
/// code (`code`, `pre`, a command log, menus), each once, in order: a lab's words are Bengali,
/// its technical terms (TTL, LRU, Redis …) excepted (issue 35 item 18).
pub fn latin_words_drawn(b: &Browser, scope: &str) -> Vec<String> {
    let v = b.js(
        "const out = []; for (const root of document.querySelectorAll(arguments[0])) { const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT); for (let n = w.nextNode(); n; n = w.nextNode()) { const e = n.parentElement; if (e.closest('code, pre, kbd, samp, .cmd-log, select, textarea, script, style')) continue; if (e.getClientRects().length === 0 || getComputedStyle(e).visibility === 'hidden') continue; for (const m of n.data.matchAll(/[A-Za-z]+(?:-[A-Za-z]+)*/g)) if (!out.includes(m[0])) out.push(m[0]); } } return out;",
        serde_json::json!([scope]),
    );
    serde_json::from_value(v).unwrap_or_default()
}

/// Asserts that every Latin word drawn inside `scope` ([`latin_words_drawn`]) is one of
/// `terms`, the lab's technical terms and symbols; `what` names the place in the message.
pub fn assert_words_are(b: &Browser, scope: &str, terms: &[&str], what: &str) {
    let words = latin_words_drawn(b, scope);
    let foreign: Vec<&String> = words
        .iter()
        .filter(|w| !terms.contains(&w.as_str()))
        .collect();
    assert!(
        foreign.is_empty(),
        "{what}: English words {foreign:?} among {words:?}"
    );
}

/// Lab `id`'s page and the slide of deck `deck` that embeds it under a title containing
/// `title`: each as (address, the lab's CSS scope there).
pub fn page_and_slide(id: &str, deck: &str, title: &str) -> [(String, String); 2] {
    let d = redislab_e2e::deck(deck);
    let n = d
        .slides
        .iter()
        .position(|s| s.has_lab() && s.title.iter().any(|t| t.contains(title)))
        .unwrap_or_else(|| panic!("no slide of {deck} titled …{title}… embeds a lab"))
        + 1;
    [
        (format!("#/lab/{id}"), format!(".lab-{id}")),
        (format!("#/{deck}/{n}"), format!(".slide .lab-{id}")),
    ]
}

/// The boxes of the texts drawn in the SVG `svg` (the first match) that intersect, as pairs
/// of their words: labels that collide (issue 35 item 20). Empty: none do.
pub fn colliding_svg_texts(b: &Browser, svg: &str) -> Vec<(String, String)> {
    let v = b.js(
        "const svg = document.querySelector(arguments[0]); if (!svg) return null; const boxes = [...svg.querySelectorAll('text')].map(t => [t.textContent, t.getBoundingClientRect()]).filter(([_, r]) => r.width > 0 && r.height > 0); const out = []; for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) { const [a, r] = boxes[i], [c, q] = boxes[j]; if (r.left < q.right && q.left < r.right && r.top < q.bottom && q.top < r.bottom) out.push([a, c]); } return out;",
        serde_json::json!([svg]),
    );
    assert!(!v.is_null(), "no {svg}");
    serde_json::from_value(v).unwrap_or_default()
}

/// One module per lab, from the registry: a new lab's file is picked up by its id.
macro_rules! lab_tests {
    ($($lab:ident),*) => {
        $(mod $lab;)*
    };
}
redislab_sim::for_each_lab!(lab_tests);
