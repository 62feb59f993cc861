//! Every corrected claim of issues 21 and 33, checked on what the audience reads: a slide's
//! kicker, title and body (the script is the presenter's and may quote the seed it corrects;
//! where the script itself was wrong, it is checked too). Each test names the source the fact
//! was checked against; a test fails if the wrong claim comes back.

use redislab_deck::{plain, Block, Deck, Slide};

fn deck(id: &str) -> Deck {
    static DECKS: std::sync::OnceLock<Vec<Deck>> = std::sync::OnceLock::new();
    let decks = DECKS.get_or_init(|| {
        let dir = format!("{}/../../src/decks", env!("CARGO_MANIFEST_DIR"));
        redislab_deck::parse::load_dir(std::path::Path::new(&dir))
            .unwrap_or_else(|e| panic!("{e}"))
            .0
    });
    decks
        .iter()
        .find(|d| d.id == id)
        .cloned()
        .unwrap_or_else(|| panic!("no deck {id}"))
}

/// What a slide shows: kicker, title, and the text of every block (code included).
fn shown(s: &Slide) -> String {
    let mut out = vec![s.kicker.to_string(), s.title_text()];
    for b in s.body.iter() {
        match b {
            Block::Para(t) | Block::Lead(t) | Block::Note(t) | Block::Fix(t) => out.push(plain(t)),
            Block::Bullets(items) | Block::Numbered(items) => {
                out.extend(items.iter().map(|t| plain(t)))
            }
            Block::Code { tokens, .. } => {
                out.push(tokens.iter().map(|(_, s)| s.as_ref()).collect())
            }
            Block::Table { head, rows } => {
                out.extend(head.iter().map(|t| plain(t)));
                out.extend(rows.iter().flat_map(|r| r.iter().map(|t| plain(t))));
            }
            Block::Container { args, items, .. } => {
                out.extend(args.iter().map(|a| a.to_string()));
                out.extend(items.iter().flat_map(|it| it.iter().map(|t| plain(t))));
            }
        }
    }
    out.join("\n")
}

/// Slide `n` (1-based) of a deck, as shown.
fn slide(d: &Deck, n: usize) -> String {
    shown(&d.slides[n - 1])
}

/// Every slide of a deck, as shown.
fn all(d: &Deck) -> Vec<String> {
    d.slides.iter().map(shown).collect()
}

fn has(text: &str, what: &[&str]) {
    for w in what {
        assert!(text.contains(w), "`{w}` not on the slide:\n{text}");
    }
}

fn lacks(text: &str, what: &[&str]) {
    for w in what {
        assert!(!text.contains(w), "`{w}` on the slide:\n{text}");
    }
}

/// The lock story: A and B overlap from the moment B takes A's expired lock; A's DEL lets a
/// third worker in; the token check stops the wrong delete, not the overlap (Redis' `SET NX
/// PX` semantics; the lock lab's two-owner count).
#[test]
fn the_lock_story_overlaps_from_bs_lock_and_del_lets_a_third_in() {
    let p = deck("production");
    let lock = slide(&p, 7);
    has(
        &lock,
        &[
            "B লক নিল: দুজন এখনই একসাথে",
            "তৃতীয় জন",
            "ভুল মোছা বন্ধ হয়, একসাথে চলা নয়",
            "fencing token",
        ],
    );
    let b = deck("broadcast");
    let step12 = slide(&b, 13);
    has(&step12, &["এই মুহূর্ত থেকেই দুজন একসাথে", "তৃতীয় কেউও"]);
    lacks(&step12, &["POSTGRES-এ দুজনই একসাথে কাজ করছে"]);
    has(&slide(&b, 14), &["দুজনের একসাথে চলা নয়", "fencing token"]);
}

/// The heartbeat extends the lock only while it is still ours (the token-checked `extend`
/// script the labs use), never a plain `PEXPIRE` that would extend someone else's lock.
#[test]
fn the_heartbeat_checks_the_token() {
    let p = deck("production");
    let s = slide(&p, 6);
    has(
        &s,
        &[
            "startLockHeartbeat",
            "টোকেন মিলিয়ে",
            "লক এখনো নিজের হলে তবেই PEXPIRE",
        ],
    );
    has(
        &slide(&deck("broadcast"), 22),
        &["heartbeat", "টোকেন মিলিয়ে"],
    );
}

/// One job per batch and a retry of the failed tokens only; `sendEachForMulticast` reports
/// per-token failures in `failureCount` instead of throwing (firebase-admin-node
/// `src/messaging/messaging.ts`); `attempts: 3` is three runs with waits of 10 s and 20 s
/// (BullMQ `src/classes/backoffs.ts`).
#[test]
fn retries_are_per_batch_and_attempts_3_is_three_runs() {
    let b = deck("broadcast");
    let s = slide(&b, 16);
    has(
        &s,
        &[
            "জব ব্যাচপিছু",
            "প্রথম টোকেন থেকে",
            "jobId",
            "res.responses[i]",
            "attempts: 3-এ চলা তিনবার, বিরতি ১০s আর ২০s",
        ],
    );
    has(&slide(&b, 8), &["এরর ছোড়ে না", "failureCount"]);
}

/// An FCM outage does not throw: `sendEach` settles every per-token request
/// (`Promise.allSettled`, firebase-admin-node `src/messaging/messaging.ts`) and resolves with
/// `failureCount`; UNAVAILABLE, INTERNAL and 429 are `success: false` (`src/messaging/error.ts`).
/// So step 14's loss is a job that *completes*; step 15 reads `responses[i]`, keeps the
/// retryable tokens in the job (`job.updateData`, BullMQ `src/classes/job.ts`) and throws, and
/// never retries a dead token.
#[test]
fn an_fcm_outage_does_not_throw_and_the_worker_throws_for_it() {
    let b = deck("broadcast");
    let lost = slide(&b, 15);
    has(
        &lost,
        &[
            "sendEachForMulticast এরর ছোড়ে না",
            "success: false",
            "failureCount: 500",
            "server-unavailable",
            "জব completed",
            "attempts আর backoff চলেই না",
            "আউটেজে কল এরর ছোড়ে না",
        ],
    );
    lacks(&lost, &["এক্সেপশন ছুড়লে", "✗ কল ফেল"]);
    assert!(b.slides[14].script.contains("Promise.allSettled"));
    let fix = slide(&b, 16);
    has(
        &fix,
        &[
            "RETRYABLE.has(res.responses[i].error.code)",
            "await job.updateData({ ...job.data, tokens: again })",
            "throw new Error",
            "registration-token-not-registered",
            "invalid-argument",
            "আবার কখনো নয়",
        ],
    );
    // No slide says the send itself fails or throws in an outage.
    for (i, t) in all(&b).iter().enumerate() {
        assert!(!t.contains("এক্সেপশন ছুড়লে"), "slide {}:\n{t}", i + 1);
    }
}

/// FCM's default quota is 600,000 messages a minute per project, counted in messages, not calls,
/// in a one-minute bucket: one wave of 5,00,000 fits. What breaks at once is the sender and
/// Postgres, and FCM's overload protection answers 429 with `retry-after`; the throttle of
/// 5,000/s is half the quota (FCM's throttling-and-quotas page).
#[test]
fn the_fcm_quota_is_600k_messages_a_minute_and_one_wave_fits() {
    let b = deck("broadcast");
    let s = slide(&b, 9);
    has(
        &s,
        &[
            "প্রজেক্টপিছু মিনিটে ৬,০০,০০০ মেসেজ (কল নয়)",
            "এক ঢেউ এতে ধরে যায়",
            "retry-after",
            "ভাঙে নিজের দিক",
            "FCM-এর কোটা মিনিটে ৬,০০,০০০ মেসেজ",
        ],
    );
    lacks(&s, &["কোটা পেরিয়ে গেছে", "পেরোলে Google ফেরত পাঠায়"]);
    has(&slide(&b, 10), &["কোটার অর্ধেক", "মিনিটে ৩,০০,০০০"]);
}

/// With the HTTP v1 API behind `sendEachForMulticast`, `UNREGISTERED` is
/// `messaging/registration-token-not-registered` and `INVALID_ARGUMENT` is
/// `messaging/invalid-argument`; `invalid-registration-token` is topic management's
/// (firebase-admin-node `src/messaging/error.ts`).
#[test]
fn the_fcm_error_codes_are_the_http_v1_ones() {
    let b = deck("broadcast");
    let s = slide(&b, 18);
    has(
        &s,
        &[
            "messaging/registration-token-not-registered",
            "messaging/invalid-argument",
        ],
    );
    for (i, t) in all(&b).iter().enumerate() {
        lacks(t, &["messaging/invalid-registration-token"]);
        assert!(!t.contains("invalid-registration-token"), "slide {}", i + 1);
    }
}

/// FCM's quota is messages per minute per project: no slide says a bigger machine sends faster.
#[test]
fn no_slide_says_a_bigger_machine_sends_faster() {
    let b = deck("broadcast");
    has(&slide(&b, 9), &["প্রজেক্টপিছু মিনিটে"]);
    has(
        &slide(&b, 10),
        &["প্রজেক্ট-কোটা", "মেশিন বড় করলে FCM বেশি নেয় না"],
    );
    for t in all(&b) {
        lacks(&t, &["বড় মেশিনে", "তুললেই ব্রডকাস্ট আরও ছোট", "যন্ত্র শক্তিশালী"]);
    }
    // A page brings ids; each batch reads its own 500 tokens: 1,000 queries at once.
    has(&slide(&b, 9), &["পেজে আসে আইডি", "১,০০০ কোয়েরি"]);
}

/// 0.81% is HyperLogLog's standard error — one σ of the relative error, not a mean error and
/// not a bound (±1,000 at 1,24,382); the dense encoding is 12,304 bytes, sparse turns dense past
/// `hll-sparse-max-bytes` (Redis 7.0 `src/hyperloglog.c`, `src/config.c`).
#[test]
fn hyperloglog_has_a_standard_error_not_a_bound() {
    let p = deck("production");
    let s = slide(&p, 14);
    has(
        &s,
        &[
            "standard error ০.৮১%",
            "±১,০০০",
            "১২,৩০৪ বাইট",
            "০.৮১% আপেক্ষিক ভুলের এক σ (standard error), সর্বোচ্চ সীমা নয়",
        ],
    );
    lacks(&s, &["২০০ কম-বেশি", "~০.৮% পর্যন্ত", "গড় ভুল"]);
}

/// A member of a skiplist ZSET, counted whole: `MEMORY USAGE key SAMPLES 0` on redis 7.0.15
/// gives 51,616 bytes for 500 members of 11 bytes (~103 a member) and 67,600 for 500 UUIDs
/// (~135); without `SAMPLES` Redis extrapolates from 5 nodes (`OBJ_COMPUTE_SIZE_DEF_SAMPLES`,
/// Redis 7.0 `src/object.c`), the old "~120" came from that.
#[test]
fn a_zset_member_is_measured_with_samples_0() {
    let p = deck("production");
    let s = slide(&p, 14);
    has(
        &s,
        &["ZSET-এ ইউজারপিছু ~১০৩ বাইট, UUID-এ ~১৩৫ (skiplist), ~৭০ বাইট নয়"],
    );
    lacks(&s, &["~১২০ বাইট", "~১২৪"]);
    let script = &p.slides[13].script;
    assert!(script.contains("SAMPLES") && script.contains("একশো পঁয়ত্রিশ"));
    assert!(!script.contains("২৪,৭৪,০০৮"), "{script}");
}

/// The sharded adapter saves on a single Redis through its per-room channels
/// (`subscriptionMode: "dynamic"`), not through `SSUBSCRIBE` itself (socket.io-redis-adapter
/// `lib/sharded-adapter.ts`); sharded Pub/Sub needs Redis 7.0 (`ssubscribe.json`).
#[test]
fn the_sharded_adapter_saves_through_room_channels() {
    let s = slide(&deck("production"), 13);
    has(
        &s,
        &["রুমপিছু চ্যানেল", "Redis ৭.০", "SSUBSCRIBE নিজে কিছু বাঁচায় না"],
    );
    lacks(&s, &["shard channel-এ, তাই অকারণ ট্রাফিক"]);
}

/// `commandTimeout` rejects a command, which is not re-sent; `maxRetriesPerRequest` counts
/// reconnections a queued command waits through (ioredis `lib/Command.ts`,
/// `lib/redis/event_handler.ts`).
#[test]
fn a_timed_out_command_is_not_resent() {
    let p = deck("production");
    has(
        &slide(&p, 3),
        &[
            "কমান্ড এরর দিয়ে ফেরে, আর পাঠানো হয় না",
            "maxRetries গোনে পুনঃসংযোগ",
        ],
    );
    lacks(&slide(&p, 3), &["রিট্রাই একবার"]);
    let b = deck("broadcast");
    let fix = slide(&b, 28);
    has(&fix, &["কানেকশন ছিঁড়লে একবার অপেক্ষা"]);
    lacks(&fix, &["রিট্রাই একবার"]);
    has(
        &slide(&b, 27),
        &["commandTimeout নেই", "maxRetriesPerRequest: 20"],
    );
}

/// `singleFlight("redis-down:…")` lives in one process: six instances, up to six queries.
#[test]
fn redis_down_singleflight_is_per_process() {
    has(
        &slide(&deck("production"), 6),
        &["প্রতি প্রসেসে একটা কোয়েরি, ছয় ইনস্ট্যান্সে বড়জোর ছয়টা"],
    );
}

/// `MAXLEN ~` trims entries nobody acknowledged; `XACK` only takes an entry off the PEL
/// (Redis 7.0 `src/t_stream.c`): the streams slide does not promise that no message is lost.
#[test]
fn streams_can_lose_messages_to_trimming() {
    let s = slide(&deck("production"), 17);
    lacks(&s, &["একটা মেসেজও হারায় না"]);
    has(
        &s,
        &["MAXLEN ~ ACK-হীন এন্ট্রিও ছাঁটে", "AOF ছাড়া", "XACK মোছে না"],
    );
}

/// `SCAN` does not block Redis (`COUNT 10` a call, Redis 7.0 `src/db.c`), but walks the whole
/// keyspace in many round trips; `KEYS` is what blocks.
#[test]
fn scan_does_not_block_but_costs() {
    let p = slide(&deck("production"), 9);
    has(&p, &["SCAN Redis-কে আটকায় না", "রাউন্ড-ট্রিপ"]);
    lacks(&p, &["Redis নিজেই ব্যস্ত হয়ে পড়বে"]);
    let b = slide(&deck("broadcast"), 25);
    has(&b, &["COUNT 10", "Redis আটকায় না", "আটকায় KEYS"]);
}

/// Open-source Redis defaults to `noeviction` (since 3.0); past `maxmemory` eviction starts
/// only under another policy (Redis 7.0 `src/config.c`, 3.0 `src/redis.h`).
#[test]
fn eviction_defaults_to_noeviction() {
    let e = deck("eviction");
    let s = slide(&e, 8);
    has(
        &s,
        &[
            "unless the policy is noeviction",
            "default since 3.0",
            "volatile-lru",
        ],
    );
    lacks(&s, &["অনেক সংস্করণে ডিফল্ট"]);
    let p = deck("production");
    has(
        &slide(&p, 20),
        &["policy ছাড়া key সরে না", "maxmemory একা key সরায় না"],
    );
}

/// A correction marker corrects Redis, not the seed's own count: the 20-of-23 call sites are
/// said on the slide as a fact, the seed's 20 and 23 compared only in the script.
#[test]
fn the_call_site_count_is_a_fact_not_a_correction() {
    let p = deck("production");
    let s = &p.slides[4];
    assert!(!s.body.iter().any(|b| matches!(b, Block::Fix(_))));
    has(&shown(s), &["২৩টা কল সাইটের ২০টা"]);
    assert!(s.script.contains("মূল লেখা"));
}

/// The broadcast story has 27 steps; step 21 shows the three layers its script names.
#[test]
fn the_broadcast_deck_counts_right() {
    let b = deck("broadcast");
    assert!(b.subtitle.contains("২৭ ধাপে"), "{}", b.subtitle);
    assert_eq!(b.slides.len(), 29);
    let s = &b.slides[21];
    let steps = s
        .body
        .iter()
        .find_map(|x| match x {
            Block::Container { kind, items, .. } if kind == "cards" => Some(items.len()),
            _ => None,
        })
        .expect("the layers");
    assert_eq!(steps, 3);
    assert!(s.script.contains("তিন স্তরে"), "{}", s.script);
}

/// Terms are explained where they first appear: the envelope and its `version` (not the
/// key's `v41`), `staleTtl`, strict, the rescue lock, PEL, RESP2/RESP3, sparse/dense, the
/// dedup key and what the campaign lock protects.
#[test]
fn terms_are_explained_where_they_first_appear() {
    let p = deck("production");
    has(&slide(&p, 4), &["খাম", "key-এর নামের v41 নয়", "staleTtl"]);
    has(&slide(&p, 5), &["strict মানে staleTtlMs = 0"]);
    has(&slide(&p, 6), &["Rescue lock", "আবার লকের চেষ্টা"]);
    has(&slide(&p, 17), &["PEL — group-এর pending list"]);
    assert!(p.slides[2].script.contains("RESP হলো"));
    assert!(
        p.slides[13].script.contains("sparse রূপে") && p.slides[13].script.contains("dense রূপে")
    );
    let b = deck("broadcast");
    has(
        &slide(&b, 12),
        &[
            "ক্যাম্পেইনের idempotency key",
            "তারপর আবার পাঠানো যায়",
            "ক্যাম্পেইনের লক",
        ],
    );
    assert!(b.slides[12].script.contains("একসময়ে একজন ওয়ার্কারই"));
}

/// The eviction deck shows the seed's O(1) LRU code and its output table, cites no episode
/// that is not here, and narrates its three cards in their order.
#[test]
fn the_eviction_deck_shows_its_code_and_cites_what_exists() {
    let e = deck("eviction");
    has(
        &slide(&e, 3),
        &[
            "class LRUCache",
            "unlink(n)",
            "pushFront(n)",
            "this.tail.prev",
        ],
    );
    has(
        &slide(&e, 4),
        &[
            "put D  stored, evict B      D <-> A <-> C",
            "get B  miss, load, evict C  B <-> D <-> A",
        ],
    );
    for (i, s) in e.slides.iter().enumerate() {
        let text = format!("{}\n{}", shown(s), s.script);
        assert!(
            !text.contains("পর্ব "),
            "slide {} cites an episode:\n{text}",
            i + 1
        );
    }
    let narration = &e.slides[1].script;
    let at = |w: &str| {
        narration
            .find(w)
            .unwrap_or_else(|| panic!("{w} not narrated"))
    };
    assert!(at("eviction") < at("expiration") && at("expiration") < at("invalidation"));
}

/// Heartbeat and fencing reduce two holders, they do not prevent them: a stalled holder's
/// heartbeat stalls too, and a fencing token makes the stale write rejected, not the overlap
/// impossible; what makes it safe is the resource checking every write (Kleppmann's "How to do
/// distributed locking"; the lock lab's fencing preset).
#[test]
fn heartbeat_and_fencing_reduce_two_holders_not_prevent_them() {
    let p = deck("production");
    let b = deck("broadcast");
    for (d, n) in [(&p, 7), (&b, 14)] {
        let s = slide(d, n);
        has(&s, &["heartbeat কমায়, ঠেকায় না", "নিরাপদ করে resource"]);
        lacks(&s, &["একসাথে চলা ঠেকাতে"]);
        assert!(d.slides[n - 1].script.contains("ঠেকায় না"));
    }
    let step21 = &b.slides[21].script;
    assert!(step21.contains("ঠেকায় না"), "{step21}");
    assert!(!step21.contains("দ্বিতীয় কেউ ডেটাবেসে ঢোকে না"), "{step21}");
    assert!(p.slides[5].script.contains("প্রসেসটাই থমকালে heartbeat-ও থামে"));
}

/// A token goes stale when its device stops connecting to FCM, not when the user stops opening
/// the app; FCM rejects it only after 270 days, so error codes alone miss it: keep a per-token
/// timestamp and prune (Firebase's "Best practices for FCM registration token management").
/// The seed's "half in six months" has no source and is marked so.
#[test]
fn stale_tokens_are_devices_gone_from_fcm_and_need_a_timestamp() {
    let b = deck("broadcast");
    let s = slide(&b, 17);
    has(
        &s,
        &[
            "ডিভাইস আর FCM-এ আসে না",
            "২৭০ দিন পরে",
            "কথাটার উৎস নেই",
            "stale মানে ডিভাইস FCM-এ আসে না — অ্যাপ না খোলা নয়",
        ],
    );
    lacks(&s, &["কেউ বহু মাস ঢোকেনি", "ছয় মাসে অর্ধেক টোকেনই মরা হতে পারে"]);
    has(
        &slide(&b, 18),
        &["টোকেনপিছু updatedAt", "এরর কোড এদের ধরে না"],
    );
}

/// ioredis v5 sends a `defineCommand` script as `EVAL` the first time on each connection, then
/// `EVALSHA` (`lib/Script.ts`, `socketHasScriptLoaded`); v4 sent `EVALSHA` first.
#[test]
fn ioredis_v5_sends_eval_first_on_each_connection() {
    let p = deck("production");
    let s = slide(&p, 15);
    has(&s, &["প্রথমবার পুরো স্ক্রিপ্ট পাঠায় EVAL-এ, তারপর EVALSHA-তে"]);
    lacks(&s, &["ioredis পাঠায় EVALSHA-তে শুধু হ্যাশ"]);
    let script = &p.slides[14].script;
    assert!(script.contains("socketHasScriptLoaded"), "{script}");
    assert!(!script.contains("প্রথমে EVALSHA-তে হ্যাশ পাঠায়"), "{script}");
}

/// Redis' LFU starts a new key at `LFU_INIT_VAL` 5 (`src/object.c`) and, since November 2017,
/// subtracts one per `lfu-decay-time` period (`LFUDecrAndReturn`, `src/evict.c`; 4.0.0 halved
/// counters over 10): the eviction deck's generic LFU and Redis' do not read as one.
#[test]
fn redis_lfu_starts_at_5_and_decays_by_one() {
    let e = deck("eviction");
    let redis = slide(&e, 8);
    has(
        &redis,
        &["নতুন key শুরু করে ৫ থেকে", "counter থেকে ১ কমে, অর্ধেক নয়"],
    );
    lacks(&redis, &["বাস্তবের aging"]);
    let generic = slide(&e, 6);
    has(&generic, &["পাঠ্যবইয়ে সব অর্ধেক", "Redis-এর রূপ"]);
    lacks(&generic, &["নিয়মিত সব counter অর্ধেক।"]);
}

/// The active expiry cycle walks the expires table with a cursor since Redis 6
/// (`expires_cursor`, Redis 7.0 `src/expire.c`); up to 5.0 it sampled 20 random keys. The
/// eviction and patterns decks say the same.
#[test]
fn the_active_expiry_cycle_walks_a_cursor_in_both_decks() {
    let e = slide(&deck("eviction"), 14);
    has(
        &e,
        &["Redis ৬ থেকে cursor ধরে", "নমুনা তোলে না — cursor ধরে ঘোরে"],
    );
    lacks(&e, &["নমুনা তুলে মরা key খোঁজে"]);
    let p = slide(&deck("patterns"), 22);
    has(&p, &["Redis ৬ থেকে", "cursor-এ ধাপে ধাপে scan, ২০টা করে"]);
}

/// Deleting on write is safer than updating in place, not race-free: a reader that missed can
/// `SET` the old row after the writer's `DEL` (the eviction deck's invalidation part).
#[test]
fn delete_on_write_is_safer_not_race_free() {
    let p = deck("patterns");
    let s = slide(&p, 7);
    has(&s, &["মোছা নিরাপদ, তবে race-মুক্ত নয়"]);
    lacks(&s, &["race-এ পড়ে; মোছা নিরাপদ"]);
    assert!(p.slides[6].script.contains("পুরোনো সারিটাই SET করল"));
}

/// Per-worker processing lists are a sound design, not a fact about Redis to correct: the
/// seed's per-worker list and its one-list example are a note in the script, not a `সংশোধন`.
#[test]
fn the_processing_list_is_a_script_note_not_a_correction() {
    let p = deck("patterns");
    let s = &p.slides[10];
    for b in s.body.iter() {
        if let Block::Fix(t) = b {
            assert!(!plain(t).contains("processing list"), "{}", plain(t));
        }
    }
    has(
        &shown(s),
        &["queue:emails:processing:<worker>", "নিজের list দেখেই"],
    );
    assert!(s.script.contains("worker-প্রতি list-ই ভালো নকশা"));
}

/// antirez argued Redlock is safe under its model (bounded drift, not synchronized clocks; the
/// elapsed-time check; pauses after acquiring hit every leased lock), not merely "fine for
/// ordinary use" ("Is Redlock safe?", February 2016).
#[test]
fn the_antirez_card_states_his_position() {
    let s = slide(&deck("patterns"), 19);
    has(
        &s,
        &[
            "নিজের মডেলে Redlock নিরাপদ",
            "drift সীমিত থাকলেই চলে",
            "Redlock তার মডেলে নিরাপদ",
        ],
    );
    lacks(&s, &["সাধারণ কাজে Redlock ঠিক আছে"]);
}

/// The recap counts the story's 14 breaks (steps 01, 02, 04, …, 26) and 13 fixes (03, 05, …,
/// 27): a row a fix, its breaks before the arrow — steps 01 and 02 share the fix of step 03.
#[test]
fn the_broadcast_recap_counts_14_breaks_and_13_fixes() {
    let b = deck("broadcast");
    let s = &b.slides[28];
    assert_eq!(s.title_text(), "১৪টা ভাঙন, ১৩টা মেরামত");
    let rows = s
        .body
        .iter()
        .find_map(|x| match x {
            Block::Table { rows, .. } => Some(rows.clone()),
            _ => None,
        })
        .expect("the recap table");
    assert_eq!(rows.len(), 13);
    let steps: Vec<String> = rows.iter().map(|r| plain(&r[0])).collect();
    let breaks: usize = steps
        .iter()
        .map(|s| s.split('→').next().unwrap().split('·').count())
        .sum();
    assert_eq!(breaks, 14, "{steps:?}");
    let fixes: std::collections::BTreeSet<&str> = steps
        .iter()
        .map(|s| s.split('→').nth(1).unwrap().trim())
        .collect();
    assert_eq!(fixes.len(), 13, "{fixes:?}");
}

/// Smaller things a reviewer finds in the scripts: firebase-admin's 500-token message changed
/// wording in 14.1 (fids), not 14.0 (`src/messaging/messaging.ts` at v14.0.0 and v14.1.0);
/// `SLOWLOG` is on by default (`slowlog-log-slower-than` 10000, Redis 7.0 `src/config.c`); an
/// ARC ghost list adapts on a *hit* in B1/B2; a jobId is deduplicated while the first job is
/// still in the queue (BullMQ).
#[test]
fn the_scripts_small_claims_hold() {
    let b = deck("broadcast");
    assert!(b.slides[6].script.contains("চোদ্দ দশমিক এক থেকে"));
    assert!(b.slides[10].script.contains("আগেরটা কিউতে থাকতে একই jobId"));
    let p = deck("production");
    assert!(p.slides[20].script.contains("ডিফল্টেই চালু"));
    let arc = slide(&deck("eviction"), 10);
    lacks(&arc, &["B1-এ miss হলে"]);
    has(&arc, &["B1-এ মিললে T1 বেশি জায়গা পায়"]);
}
