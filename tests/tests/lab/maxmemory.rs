//! What is special to the maxmemory lab (the rest is `every_lab`'s): on the page,
//! `allkeys-lru` loses jobs in the burst and `volatile-lru` none, the same numbers as the
//! native run, at the room's size and on a phone; `noeviction` shows Redis' OOM reply. (It does not sit on the production deck's risk
//! slide: with the table it overflowed 1366×768 by 171 px; the slide's script points to it.)
//! Screenshots under
//! target/screenshots/labs/.

use crate::{native, open_lab};
use redislab_e2e::{assert_no_console_errors, assert_no_sideways_scroll, screenshot_dir, Browser};
use redislab_sim::labs::maxmemory::{MaxmemoryRun, INFO};

#[test]
fn allkeys_lru_loses_jobs_and_volatile_lru_none() {
    for (w, h, name) in [(1366, 768, "laptop"), (360, 740, "phone")] {
        let b = Browser::new(w, h);
        open_lab(&b, "maxmemory", "preset=allkeys-lru");
        let lost = native::<MaxmemoryRun>(&INFO, "preset=allkeys-lru")
            .total()
            .lost;
        assert!(lost > 0);
        b.wait(10, "the lost jobs", |b| {
            b.counter("[data-testid=maxmemory-lost]") == u64::from(lost)
        });
        assert!(b.exists("[data-testid=maxmemory-chart] .tc-lane .tc-tickmark.tone-red"));
        let plot = b.rect(".lab-maxmemory .tc-plot").expect("the chart");
        assert!(plot.height >= 120.0, "{plot:?}");
        assert_no_sideways_scroll(&b);
        b.screenshot(&screenshot_dir().join(format!("labs/maxmemory-{name}.png")));
        open_lab(&b, "maxmemory", "preset=volatile-lru");
        let v = native::<MaxmemoryRun>(&INFO, "preset=volatile-lru").total();
        assert_eq!((v.lost, v.oom_queue), (0, 0));
        b.wait(10, "no lost job", |b| {
            b.counter("[data-testid=maxmemory-lost]") == 0
                && b.counter("[data-testid=maxmemory-evicted]") == u64::from(v.evicted)
        });
        assert!(!b.exists("[data-testid=maxmemory-chart] .tc-lane .tc-tickmark.tone-red"));
        assert_no_console_errors(&b);
    }
}

#[test]
fn noeviction_shows_the_oom_reply() {
    let b = Browser::new(1366, 768);
    open_lab(&b, "maxmemory", "preset=noeviction");
    let o = native::<MaxmemoryRun>(&INFO, "preset=noeviction");
    let t = o.total();
    assert!(t.oom_queue > 0 && t.oom_cache > 0 && t.lost == 0);
    b.wait(10, "the refusals", |b| {
        b.counter("[data-testid=maxmemory-oom-queue]") == u64::from(t.oom_queue)
    });
    let reply = b.text(".lab-maxmemory .mm-oom code").unwrap_or_default();
    assert!(
        reply.contains("OOM command not allowed when used memory > 'maxmemory'."),
        "{reply}"
    );
    assert_no_console_errors(&b);
}
