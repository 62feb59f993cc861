//! The sampled-LRU lab's own browser tests (the shared ones are in `every_lab`): it opens on
//! the seed's k = 5 (position 5: the first five `k` measured), its chart's axes and every
//! number in Bengali digits, at a laptop's and a phone's size. Screenshots under
//! target/screenshots/labs/.

use redislab_e2e::{assert_no_console_errors, assert_no_sideways_scroll, screenshot_dir, Browser};
use redislab_sim::labs::params::Params;
use redislab_sim::labs::sampling::{run, INFO};

#[test]
fn the_lab_opens_on_redis_default_k_in_bengali() {
    let o = run(Params::defaults(&INFO).read());
    for (w, h, name) in [(1366, 768, "sampling"), (360, 740, "sampling-phone")] {
        let b = Browser::new(w, h);
        b.open("#/lab/sampling");
        b.wait(60, "the experiment", |b| {
            b.exists(".lab-sampling[aria-busy=false] [data-testid=sampling-k5]")
        });
        // Position k shows the first k measured: the lab opens on k = 5.
        b.wait(5, "k = ৫", |b| {
            b.text(".lab-sampling .scrub-label").as_deref() == Some("k = ৫")
        });
        let step = b.text(".smp-step").unwrap_or_default();
        let k5 = o.at(5).unwrap();
        assert!(
            step.contains(&redislab_deck::bn::share(k5.measured, 1)),
            "{step}"
        );
        // Back to the start: nothing measured yet, no cursor on the chart.
        b.click(".lab-sampling .lab-controls button[aria-label='রিসেট']");
        b.wait(5, "the start", |b| {
            b.text(".lab-sampling .scrub-label").as_deref() == Some("শুরু")
        });
        assert!(!b.exists(".lab-sampling .chart-svg .cursor"));
        b.click(".lab-sampling .lab-controls button[aria-label='শেষে যান']");
        b.wait(5, "k = ১৬", |b| {
            b.text(".lab-sampling .scrub-label").as_deref() == Some("k = ১৬")
        });
        let ascii = b.ascii_digits_drawn(".lab-sampling");
        assert!(ascii.is_empty(), "ASCII digits drawn: {ascii:?}");
        assert_no_sideways_scroll(&b);
        b.screenshot(&screenshot_dir().join(format!("labs/{name}.png")));
        assert_no_console_errors(&b);
    }
}
