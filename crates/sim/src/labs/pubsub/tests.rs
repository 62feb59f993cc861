//! The Pub/Sub lab's golden numbers and invariants.

use super::*;
use crate::labs::params::Params;

fn preset(id: &str) -> PubSubParams {
    let (p, errs) = Params::from_query(&INFO, &format!("preset={id}"));
    assert!(errs.is_empty(), "{errs:?}");
    p.read()
}

#[test]
fn the_sharded_adapter_delivers_fewer_messages_than_the_plain_one() {
    let plain = run(&preset("plain"));
    let sharded = run(&preset("sharded"));
    let (p, s) = (&plain.summary, &sharded.summary);
    assert_eq!(p.publishes, s.publishes, "the same messages");
    assert_eq!(
        p.deliveries,
        p.publishes * 6,
        "plain: every instance gets every message"
    );
    assert!(
        s.deliveries < p.deliveries,
        "{} !< {}",
        s.deliveries,
        p.deliveries
    );
    assert!(s.wasted < p.wasted);
    // The same sockets are reached either way; nobody is lost.
    assert_eq!(p.reached, s.reached);
    assert_eq!((p.reached, p.lost, s.lost), (p.expected, 0, 0));
    // The comparison inside one run says the same.
    assert_eq!(sharded.of(Adapter::Plain), p);
    // Golden: the seed's run.
    assert_eq!(
        (p.publishes, p.deliveries, p.wasted, s.deliveries, s.wasted),
        (1000, 6000, 2095, 4905, 1000)
    );
}

#[test]
fn one_shard_channel_saves_nothing_on_one_redis() {
    let r = run(&preset("static"));
    let (plain, st) = (r.of(Adapter::Plain), r.of(Adapter::Static));
    assert_eq!(st.deliveries, plain.deliveries);
    assert_eq!(st.wasted, plain.wasted);
    assert_eq!(st.subscriptions, 6);
}

#[test]
fn small_rooms_save_most_and_one_class_saves_nothing() {
    let small = run(&preset("small-rooms"));
    let (p, d) = (small.of(Adapter::Plain), small.of(Adapter::Dynamic));
    assert!(
        d.deliveries * 10 < p.deliveries * 6,
        "{} vs {}",
        d.deliveries,
        p.deliveries
    );
    // Dynamic: nothing but the sender's own echo is wasted.
    assert_eq!((d.no_member, d.echo), (0, d.publishes));
    let one = run(&preset("one-class"));
    assert_eq!(
        one.of(Adapter::Dynamic).deliveries,
        one.of(Adapter::Plain).deliveries
    );
    assert_eq!(one.rooms_everywhere, 1);
}

#[test]
fn a_message_published_while_an_instance_is_away_is_lost_for_its_users() {
    let r = run(&preset("away"));
    let s = &r.summary;
    assert!(s.lost > 0);
    assert_eq!(s.reached + s.lost, s.expected);
    // Every adapter loses the same sockets: Pub/Sub keeps nothing, whatever the channel.
    for c in &r.compare {
        assert_eq!(c.lost, s.lost, "{}", c.adapter);
    }
    // The loss is inside the away window, and api-1 received nothing then.
    let (from, to) = r.away.unwrap();
    for b in &r.buckets {
        if b.to_ms <= from || b.to_ms - r.bucket_ms >= to {
            assert_eq!(b.lost, 0, "bucket to {}", b.to_ms);
        }
        if b.to_ms - r.bucket_ms >= from + 2 && b.to_ms <= to {
            assert_eq!(b.per_instance[0].0, 0, "bucket to {}", b.to_ms);
        }
    }
    // Back again, it gets messages: the resubscription worked.
    let after: u32 = r
        .buckets
        .iter()
        .filter(|b| b.to_ms > to + r.bucket_ms)
        .map(|b| b.per_instance[0].0)
        .sum();
    assert!(after > 0);
}

#[test]
fn redis_counts_the_deliveries_the_subscribers_read() {
    for id in ["plain", "sharded", "static", "away"] {
        let r = run(&preset(id));
        for s in &r.compare {
            assert_eq!(s.receivers, s.deliveries, "{id}: {}", s.adapter);
            assert_eq!(s.useful + s.wasted, s.deliveries, "{id}: {}", s.adapter);
            assert_eq!(s.echo + s.no_member, s.wasted, "{id}: {}", s.adapter);
        }
        let t = r.so_far(usize::MAX);
        assert_eq!(
            t,
            [
                r.summary.publishes,
                r.summary.deliveries,
                r.summary.wasted,
                r.summary.reached,
                r.summary.lost
            ],
            "{id}"
        );
    }
}

#[test]
fn the_run_is_a_function_of_its_parameters_and_the_worker_gives_the_same() {
    use crate::labs::work::{Body, Job, Work};
    let p = preset("away");
    assert_eq!(run(&p), run(&p));
    let job = Job::new(&INFO, &Params::from_query(&INFO, "preset=away").0);
    let msgs = Work::new(job).unwrap().run_to_end();
    let Some(Body::Done(r)) = msgs.last() else {
        panic!("no result")
    };
    assert_eq!(r.read::<PubSubOutput>().unwrap(), run(&p));
    let other = run(&PubSubParams {
        seed: 14,
        ..p.clone()
    });
    assert_ne!(other.summary, run(&p).summary);
}

#[test]
fn the_log_shows_the_real_commands_and_pushes() {
    let r = run(&preset("sharded"));
    let cmds: Vec<String> = r
        .log
        .iter()
        .filter_map(|l| match l {
            Line::Cmd(c) => Some(c.cmd_text()),
            Line::Push(_) => None,
        })
        .collect();
    assert!(
        cmds.iter()
            .any(|c| c.starts_with("SSUBSCRIBE socket.io#/#r")),
        "{cmds:?}"
    );
    assert!(
        cmds.iter().any(|c| c.starts_with("SPUBLISH socket.io#/#r")),
        "{cmds:?}"
    );
    assert!(r
        .log
        .iter()
        .any(|l| matches!(l, Line::Push(p) if p.kind == "smessage")));
    assert!(r.log.windows(2).all(|w| w[0].at_ms() <= w[1].at_ms()));
    let plain = run(&preset("plain"));
    assert!(plain
        .log
        .iter()
        .any(|l| matches!(l, Line::Push(p) if p.kind == "pmessage" && p.fate == Fate::NoMember)));
}

/// The timeline's last position is the whole run, its figures the summary's; the first is
/// before any message.
#[test]
fn the_timeline_ends_at_the_summary() {
    use crate::labs::def::{Figures, Steps};
    let r = run(&preset("away"));
    assert_eq!(r.so_far(0), [0; 5]);
    let [publishes, deliveries, wasted, _, lost] = r.so_far(r.steps());
    let f = r.figures();
    let get = |k: &str| f.iter().find(|x| x.key == k).map(|x| x.value as u64);
    assert_eq!(
        (
            get("publishes"),
            get("deliveries"),
            get("wasted"),
            get("lost")
        ),
        (Some(publishes), Some(deliveries), Some(wasted), Some(lost))
    );
    let first = r
        .position_of_first_loss()
        .expect("the away preset loses messages");
    assert_eq!(r.so_far(first - 1)[4], 0);
    assert!(r.so_far(first)[4] > 0);
    assert_eq!(run(&preset("sharded")).position_of_first_loss(), None);
}
