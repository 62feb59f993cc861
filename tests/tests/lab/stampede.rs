//! The stampede lab's own browser tests (the shared ones are in `every_lab`): the seed's table
//! (none 503 / lock 5 / stale 5 / xfetch 12 recomputes, 117 at once without protection) in
//! Bengali words and digits, equal to the native run, and the four designs' strips at a
//! laptop's and a phone's size. Screenshots under target/screenshots/labs/.

use redislab_deck::bn;
use redislab_e2e::{assert_no_console_errors, assert_no_sideways_scroll, screenshot_dir, Browser};
use redislab_sim::labs::stampede::{run, StampedeParams};
use serde_json::json;

#[test]
fn the_seeds_table_in_bengali_equals_native() {
    let o = run(&StampedeParams::default().config());
    let want: Vec<Vec<String>> = o
        .rows
        .iter()
        .map(|r| {
            vec![
                r.mode.label().to_string(),
                bn::int(r.db_recomputes as i64),
                bn::int(r.waited as i64),
                bn::int(r.served_stale as i64),
                bn::int(i64::from(r.peak_parallel)),
            ]
        })
        .collect();
    assert_eq!(want[0][1..], ["৫০৩", "৫০৩", "০", "১১৭"]);
    for (w, h, name) in [(1366, 768, "stampede"), (360, 740, "stampede-phone")] {
        let b = Browser::new(w, h);
        b.open("#/lab/stampede");
        b.wait(60, "the seed's table", |b| {
            b.exists(".lab-stampede[aria-busy=false] [data-testid=stampede-table]")
        });
        let rows = b.js(
            "return [...document.querySelectorAll('[data-testid=stampede-table] tbody tr')].map(r => [...r.cells].map(c => c.textContent.trim()))",
            json!([]),
        );
        let rows: Vec<Vec<String>> = serde_json::from_value(rows).unwrap_or_default();
        assert_eq!(rows, want);
        // The y axis of every strip: the most recomputes at once, 117, in Bengali.
        let tops = b.js(
            "return [...document.querySelectorAll('.st-y span:first-child')].map(s => s.textContent)",
            json!([]),
        );
        assert_eq!(tops, json!(["১১৭", "১১৭", "১১৭", "১১৭"]));
        let ascii = b.ascii_digits_drawn(".lab-stampede");
        assert!(ascii.is_empty(), "ASCII digits drawn: {ascii:?}");
        assert_no_sideways_scroll(&b);
        b.screenshot(&screenshot_dir().join(format!("labs/{name}.png")));
        assert_no_console_errors(&b);
    }
}
