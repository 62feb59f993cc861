//! The LRU lab's own browser tests (the shared ones are in `every_lab`): the seed's
//! walk-through row by row, a step's sentence, a student's own trace and a bad one that keeps
//! the last good run, and its numbers in Bengali digits. Screenshots under
//! target/screenshots/labs/.

use redislab_e2e::{assert_no_console_errors, screenshot_dir, Browser};
use serde_json::json;

#[test]
fn the_lab_reproduces_the_seeds_walk_through() {
    let b = Browser::new(1366, 768);
    b.open("#/lab/lru");
    b.wait(30, "the walk", |b| b.exists("[data-testid=lru-table]"));
    // The seed's printed results and list orders (MRU ... LRU), in order.
    let rows = b.js(
        "return [...document.querySelectorAll('[data-testid=lru-table] tbody tr')].map(r => [...r.cells].map(c => c.textContent.trim()).join(' | '))",
        json!([]),
    );
    let rows: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        rows,
        [
            "put A | stored | A",
            "put B | stored | B <-> A",
            "put C | stored | C <-> B <-> A",
            "get A | hit | A <-> C <-> B",
            "put D | stored, evict B | D <-> A <-> C",
            "get B | miss, load, evict C | B <-> D <-> A",
            "get A | hit | A <-> B <-> D",
        ]
    );
    // Step to "put D": the sentence names the eviction of B, the tally counts one hit.
    for _ in 0..5 {
        b.click(".lab-controls button[aria-label='এক ধাপ সামনে']");
    }
    b.wait(5, "step 5", |b| {
        b.text("[data-testid=lru-step]")
            .is_some_and(|t| t.contains("evict B"))
    });
    assert_eq!(
        (
            b.counter("[data-testid=lru-hits]"),
            b.counter("[data-testid=lru-evictions]")
        ),
        (1, 1)
    );
    let ascii = b.ascii_digits_drawn(".lab-lru");
    assert!(ascii.is_empty(), "ASCII digits drawn: {ascii:?}");
    // A student's own trace, and a bad one.
    b.js(
        "const i = document.querySelector('#lab-field-ops'); i.value = 'put X, get X, put Y'; i.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([]),
    );
    b.wait(5, "the new trace", |b| {
        b.text("[data-testid=lru-table]")
            .is_some_and(|t| t.contains("put Y"))
    });
    b.js(
        "const i = document.querySelector('#lab-field-ops'); i.value = 'fly X'; i.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([]),
    );
    b.wait(5, "a message beside ops", |b| {
        b.exists("[data-field=ops] .field-error")
    });
    assert!(
        b.text("[data-testid=lru-table]").unwrap().contains("put Y"),
        "the last good run stays"
    );
    b.screenshot(&screenshot_dir().join("labs/lru.png"));
    assert_no_console_errors(&b);
}

#[test]
fn the_lab_on_a_phone() {
    let b = Browser::new(360, 740);
    b.open("#/lab/lru?at=5");
    b.wait(30, "the walk at step 5", |b| {
        b.text("[data-testid=lru-step]")
            .is_some_and(|t| t.contains("evict B"))
    });
    redislab_e2e::assert_no_sideways_scroll(&b);
    b.screenshot(&screenshot_dir().join("labs/lru-phone.png"));
    assert_no_console_errors(&b);
}
