//! The broadcast lab live: the simulation's prediction beside the real run, and what a live
//! run runs, in one line.

use super::{g, secs};
use crate::live::bar::{counts_table, CountRow};
use redislab_deck::bn;
use redislab_sim::labs::broadcast::{BroadcastConfig, BroadcastOutput};
use yew::prelude::*;

/// The simulation's prediction beside the real run: the batches, the retries, the failed
/// set, the tokens.
pub(super) fn compare(sim: &BroadcastOutput, real: &BroadcastOutput, done: bool) -> Html {
    let (a, b) = (&sim.counters, &real.counters);
    let rows = [
        (
            "completed",
            "completed set-এ জব",
            sim.completed(),
            real.completed(),
        ),
        ("retries", "রিট্রাই (delayed set-এ)", a.retries, b.retries),
        ("failed", "failed set", a.failed_jobs, b.failed_jobs),
        ("delivered", "পৌঁছেছে (টোকেন)", a.delivered, b.delivered),
        ("twice", "দুবার পেয়েছে", a.sent_twice, b.sent_twice),
        ("jobs", "জব যোগ হলো", a.jobs, b.jobs),
        (
            "dedup",
            "dedup-এ ফেরানো ক্লিক",
            a.dedup_refused,
            b.dedup_refused,
        ),
        ("calls", "FCM কল", a.fcm_calls, b.fcm_calls),
    ];
    let rows: Vec<CountRow> = rows
        .iter()
        .map(|(k, label, x, y)| (k.to_string(), label.to_string(), *x, *y))
        .collect();
    let same = rows.iter().all(|r| r.2 == r.3);
    let verdict = format!(
        "আসল Redis-এ শেষে completed set-এ {}টি জব, failed set-এ {}টি — সিমুলেশন বলেছিল {} আর {}। {}",
        g(real.completed()),
        g(b.failed_jobs),
        g(sim.completed()),
        g(a.failed_jobs),
        if same {
            "প্রতিটা সংখ্যা মিলেছে: একই স্লট, একই কিউ — উত্তর দিল আসল Redis।"
        } else {
            "যেটা মেলেনি তা আসল সময়ের খেলা: কোন ব্যাচ কখন চলল, তা নেটওয়ার্ক আর ঘড়ির ওপর নির্ভর করে (ক্র্যাশের মুহূর্তে কোন কল চলছিল, কোটা কে আগে পেল)।"
        }
    );
    counts_table("bc-compare", &rows, done, verdict)
}

/// What a live run runs, in one line.
pub(super) fn live_note(cfg: &BroadcastConfig) -> String {
    let p = &cfg.p;
    let k = (cfg.pace.window / 1000).max(1);
    let throttle = if p.throttle == 0 {
        "থ্রটল নেই".to_string()
    } else if k == 1 {
        format!("সেকেন্ডে {}টি ব্যাচ", g(u64::from(p.throttle)))
    } else {
        format!("{} সেকেন্ডে {}টি ব্যাচ", g(k), g(u64::from(p.throttle)))
    };
    let outage = match cfg.outages.first() {
        Some(&(a, z)) => format!(", FCM আউটেজ {} থেকে {} পর্যন্ত", secs(a), secs(z)),
        None => String::new(),
    };
    let crash = if p.crash_at > 0 {
        format!(", ওয়ার্কার ক্র্যাশ {}-এ", bn::duration(p.crash_at))
    } else {
        String::new()
    };
    format!(
        "আসল Redis-এ ছোট করে চলে: {} টোকেন ({}টি ব্যাচ), {}টি ওয়ার্কার স্লট, {}, FCM কোটা {} মেসেজ/{} মিনিট; কিউয়ের সময় দশ ভাগের এক{} — backoff {}, লক {}, stalled চেক {}{}{}। খালি কিউতে BLMOVE {} অপেক্ষা করে (প্রক্সি এক সেশনে একবারে একটাই blocking read চালায়, তাই স্লটগুলো পালা করে)। FCM আর Postgres আসল নয় — সিমুলেশনের টাইমার, আসল সময়ে চলে। পাশের সংখ্যা একই ছোট রানের সিমুলেশন।",
        g(u64::from(p.tokens)),
        g(p.batches()),
        g(u64::from(p.concurrency)),
        throttle,
        g(u64::from(p.quota)),
        g(k),
        if k > 1 {
            format!(", তারপর সবকিছু {} গুণ ধীর", g(k))
        } else {
            String::new()
        },
        bn::duration(p.backoff),
        bn::duration(p.lock),
        bn::duration(p.stalled),
        outage,
        crash,
        bn::duration(cfg.pace.block)
    )
}
