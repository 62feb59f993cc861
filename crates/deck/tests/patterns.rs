//! The `patterns` deck keeps the facts of seeds 003 (cache, queue and lock, told through one
//! office clerk) and 002 (why a freshly synced replica reports fewer keys): every command, key
//! name, reply and figure appears exactly, in the seeds' order; and where a seed is wrong about
//! Redis the slide says what Redis does beside a `সংশোধন:` note whose script names the source
//! that was checked (Redis' own files, its release notes, redis.io).

use redislab_deck::parse::parse_deck;
use redislab_deck::Block;

fn source() -> String {
    let path = format!("{}/../../src/decks/patterns.md", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

/// The slides' raw text (header, body and script), in order.
fn raw_slides(src: &str) -> Vec<&str> {
    src.split("\n---\n").skip(1).collect()
}

/// Where each fact first appears at or after the previous fact's place: facts listed in the
/// seed's order must appear in that order in the deck. Returns the facts missing or out of
/// order.
fn out_of_order(text: &str, facts: &[&str]) -> Vec<String> {
    let mut at = 0;
    let mut bad = Vec::new();
    for f in facts {
        match text[at..].find(f) {
            Some(i) => at += i,
            None if text.contains(f) => bad.push(format!("{f:?} (only before {at})")),
            None => bad.push(format!("{f:?} (missing)")),
        }
    }
    bad
}

/// Seed 003, in its order: the office story, cache-aside and its redis-cli session, the two
/// hazards, the list queue, the reliable queue, the lock, Redlock and the practical position.
const SEED_003: &[&str] = &[
    // The story: one clerk, three jobs.
    "আল-খোয়ারিজমি",
    "ছুটির নিয়ম",
    "ফোন নম্বরের তালিকা",
    "তিনতলার আর্কাইভ",
    "তারিখ",
    "ইন-ট্রে",
    "টাইপ",
    "বিল",
    "স্ট্রং-রুম",
    "আধ ঘণ্টা",
    // The mapping.
    "**ক্যাশ**",
    "**producer**",
    "**consumer**",
    "**distributed lock**",
    "**lock-এর TTL**",
    "`SET … NX EX`",
    "Redlock",
    // Three patterns.
    "তিন ছাঁচের",
    // Cache-aside.
    "`GET cache:product:99`",
    "hit",
    "`SELECT * FROM products WHERE id = 99`",
    "`SET cache:product:99 <serialized row> EX 300`",
    "127.0.0.1:6379> GET cache:product:99\n(nil)",
    "127.0.0.1:6379> SET cache:product:99 \"{\\\"id\\\":99,\\\"name\\\":\\\"Lamp\\\"}\" EX 300\nOK",
    "127.0.0.1:6379> GET cache:product:99\n\"{\\\"id\\\":99,\\\"name\\\":\\\"Lamp\\\"}\"",
    "সবসময় TTL",
    "`DEL cache:product:99`",
    "race",
    "miss সয়ে নাও",
    "Redis বন্ধ",
    // Stampede and penetration, with the labs that show them.
    "Cache stampede",
    "hot key",
    "ছোট একটা lock",
    "মেয়াদের একটু আগেই",
    "Cache penetration",
    "খালি চিহ্ন",
    ":::lab stampede",
    // The list queue.
    "127.0.0.1:6379> LPUSH queue:emails \"{\\\"to\\\":\\\"a@x.com\\\",\\\"tpl\\\":\\\"welcome\\\"}\"\n(integer) 1",
    "127.0.0.1:6379> BRPOP queue:emails 5\n1) \"queue:emails\"\n2) \"{\\\"to\\\":\\\"a@x.com\\\",\\\"tpl\\\":\\\"welcome\\\"}\"",
    "**FIFO**",
    "ব্লক হয় client, সার্ভার নয়",
    "fire-and-forget",
    "job গেল",
    // The reliable queue.
    "BLMOVE queue:emails queue:emails:processing RIGHT LEFT 5",
    "LREM queue:emails:processing 1 \"{\\\"to\\\":\\\"a@x.com\\\",\\\"tpl\\\":\\\"welcome\\\"}\"\n(integer) 1",
    "`BRPOPLPUSH`",
    "`queue:emails:processing`",
    "recovery",
    "timeout পেরোনো job",
    "at-least-once",
    "idempotent",
    // The seed's "chapter 5" and "chapter 7" are this app's decks and labs.
    "consumer group-সহ Streams",
    "acknowledgement",
    "আটকে থাকা job",
    "pending",
    // The lock.
    "cron job",
    "কার্ড থেকে টাকা কাটা",
    "ক্যাশ নতুন করে গড়া",
    "SET lock:reindex \"owner-token-abc\" NX EX 30\nOK",
    "SET lock:reindex \"owner-token-xyz\" NX EX 30\n(nil)",
    "+ NX |",
    "+ EX |",
    "deadlock",
    "অনন্য token",
    "`GET` **তারপর** `DEL` **নয়**",
    "if redis.call(\"GET\", KEYS[1]) == ARGV[1] then\n  return redis.call(\"DEL\", KEYS[1])\nelse\n  return 0\nend",
    "`production` ডেকে",
    // Redlock and the debate.
    "asynchronous",
    "স্বাধীন primary",
    "সংখ্যাগরিষ্ঠ",
    "Martin Kleppmann",
    "clock drift",
    "stop-the-world pause",
    "network delay",
    "antirez",
    // The seed's "fine for ordinary cases" misstates him; the card says what he argued.
    "নিজের মডেলে Redlock নিরাপদ",
    // Efficiency against correctness.
    "Efficiency lock",
    "Correctness lock",
    "দুবার চার্জ",
    "fencing token",
    "unique constraint",
    "শর্তসাপেক্ষ লেখা",
];

/// Seed 002, in its order.
const SEED_002: &[&str] = &[
    "volatile",
    "চোখে পড়ার মতো কম",
    "কিছুই হারায়নি",
    "দুটো খুঁটিনাটি",
    "lazy",
    "কমান্ড চালানোর আগেই",
    "active",
    "`INFO keyspace`",
    "`keys=`",
    "`expires=`",
    "সাধারণত ছোট",
    "RDB snapshot",
    "@mattsta",
    "RDB থেকে",
];

#[test]
fn keeps_seed_003s_facts_in_order() {
    let src = source();
    let bad = out_of_order(&src, SEED_003);
    assert!(bad.is_empty(), "patterns.md, seed 003: {bad:#?}");
}

#[test]
fn keeps_seed_002s_facts_in_order_after_003s() {
    let src = source();
    let start = src
        .find(SEED_003[SEED_003.len() - 1])
        .expect("seed 003's last fact");
    let bad = out_of_order(&src[start..], SEED_002);
    assert!(bad.is_empty(), "patterns.md, seed 002: {bad:#?}");
}

/// Each correction: a word of its `সংশোধন:` note, and the right facts that must stand on the
/// same slide (commands, figures, versions exactly).
const CORRECTIONS: &[(&str, &[&str])] = &[
    // SETNX takes no expiry and replies 1/0; SET … NX EX is one command.
    (
        "`SETNX` ≠ `SET … NX EX`",
        &["মেয়াদ বসে না", "`1`/`0`", "`EXPIRE`"],
    ),
    // BRPOPLPUSH is deprecated since 6.2 for BLMOVE.
    (
        "`BRPOPLPUSH` → `BLMOVE … RIGHT LEFT`",
        &["Redis ৬.২ থেকে `BRPOPLPUSH` deprecated"],
    ),
    // antirez argued Redlock is safe under its model, not merely "good enough" (the seed's
    // per-worker processing list against its one-list example is a script note, not a
    // correction: per-worker lists are a sound design).
    (
        "antirez-এর দাবি",
        &[
            "নিজের মডেলে Redlock নিরাপদ",
            "drift সীমিত থাকলেই চলে",
            "check-and-set",
        ],
    ),
    // No start times in a list; LREM by payload is ambiguous.
    (
        "list-এ শুরুর সময় নেই",
        &[
            "`ZADD queue:emails:started <ts> <job-id>`",
            "job id রাখো",
            "হুবহু এক রকম দুটো job",
        ],
    ),
    // The active expiry cycle's real numbers, classic and since Redis 6.
    (
        "সক্রিয় চক্রের সংখ্যাগুলো",
        &[
            "সেকেন্ডে ১০ বার",
            "এলোমেলো ২০টা",
            "২৫%-এর বেশি",
            "Redis ৬ থেকে",
            "ধাপে ধাপে scan",
            "১০%-এর বেশি",
        ],
    ),
    // Since 4.0.10 / 5.0 the snapshot keeps expired keys; a loading primary drops them, a
    // replica keeps them until its primary's DEL.
    (
        "আজকের snapshot মরা key বাদ দেয় না",
        &[
            "Redis ৪.০.৯ পর্যন্ত",
            "Redis ৪.০.১০ ও ৫.০ থেকে",
            "ডিস্ক থেকে লোড করে primary",
            "primary-র `DEL` এলে",
        ],
    ),
];

/// A slide's body (what the audience reads) and its script.
fn body_and_script(raw: &str) -> (&str, &str) {
    raw.split_once("\n???\n").unwrap_or((raw, ""))
}

#[test]
fn states_each_correction_beside_its_note() {
    let src = source();
    let raw = raw_slides(&src);
    for (note, facts) in CORRECTIONS {
        let marker = "! সংশোধন: ";
        let slide = raw
            .iter()
            .find(|s| s.lines().any(|l| l.starts_with(marker) && l.contains(note)))
            .unwrap_or_else(|| panic!("no `{marker}…{note}…` note in patterns.md"));
        let (body, _) = body_and_script(slide);
        let missing: Vec<_> = facts.iter().filter(|f| !body.contains(**f)).collect();
        assert!(
            missing.is_empty(),
            "the slide of the correction {note:?} does not state {missing:?}"
        );
    }
    assert_eq!(
        src.matches("\n! সংশোধন:").count(),
        CORRECTIONS.len(),
        "every correction note is listed here"
    );
}

#[test]
fn every_correction_names_its_source_in_the_script() {
    let src = source();
    let mut seen = 0;
    for (i, raw) in raw_slides(&src).iter().enumerate() {
        let (body, script) = body_and_script(raw);
        for marker in body.lines().filter_map(|l| l.strip_prefix("! সংশোধন:")) {
            seen += 1;
            let words = marker.split_whitespace().count();
            assert!(
                words <= 14,
                "slide {}: a correction marker is one short line ({words} words: {marker:?})",
                i + 1
            );
            assert!(
                script.contains("মূল লেখা"),
                "slide {}: the script compares with the seed (মূল লেখা…)",
                i + 1
            );
            let named = script.split_once("সূত্র:").is_some_and(|(_, rest)| {
                // Redis' C source, its release notes, or an article by its title (“…”).
                rest.contains(".c") || rest.contains("release notes") || rest.contains('“')
            });
            assert!(
                named,
                "slide {}: the script names no source (`সূত্র: … src/<file>.c`, release notes or “an article”) for {marker:?}",
                i + 1
            );
        }
        assert!(
            !body.contains("মূল লেখা"),
            "slide {}: the comparison with the seed belongs to the script",
            i + 1
        );
    }
    assert_eq!(seen, CORRECTIONS.len());
}

/// The deck's shape: about 20–26 slides, a cover and an end, and the labs that show its
/// patterns and hazards (cache-aside, the list queue, the stampede, the lock race, the
/// failover that loses a lock) embedded.
#[test]
fn has_its_shape_and_its_labs() {
    let deck = parse_deck(&source(), "patterns").unwrap();
    let n = deck.slides.len();
    assert!((20..=26).contains(&n), "patterns.md has {n} slides");
    let labs: Vec<String> = deck
        .slides
        .iter()
        .flat_map(|s| s.body.iter())
        .filter_map(|b| match b {
            Block::Container { kind, args, .. } if kind == "lab" => Some(args.join(" ")),
            _ => None,
        })
        .collect();
    for want in [
        "stampede",
        "streams preset=crash",
        "aside preset=update-race",
        "queues preset=simple-crash",
        "lock preset=plain-del",
        "lock preset=pause",
        "lock preset=fencing",
        "redlock preset=failover",
    ] {
        assert!(
            labs.iter().any(|l| l == want),
            "no `:::lab {want}` in {labs:?}"
        );
    }
    // Every slide speaks: a script of two to five sentences.
    for (i, s) in deck.slides.iter().enumerate() {
        let sentences = s.script.matches(['।', '?']).count();
        assert!(
            (2..=5).contains(&sentences),
            "slide {}: {sentences} sentences in the script",
            i + 1
        );
    }
}
