//! The proxy's allowlist against SimRedis' command table (which `redislab-sim`'s
//! `tests/command_table.rs` holds to a real Redis 7): for every command both know, the same
//! arity, and the keys the proxy namespaces are the keys Redis finds in the command, on a
//! sample of it. A channel (PUBLISH) is namespaced like a key but is no key.

use redislab_proxy::commands::{table, Keys};
use redislab_sim::redis::{command_info, key_positions, SimRedis};
use redislab_sim::Reply;

/// A well-formed sample of `name` with this arity: its own words where the keys move with
/// them, else the name and distinct words (two more than a minimum arity asks, so "every
/// argument but the last" is seen).
fn sample(name: &str, arity: i32) -> Vec<String> {
    let own: &[&str] = match name {
        "XREADGROUP" => &[
            "XREADGROUP",
            "GROUP",
            "g",
            "c",
            "COUNT",
            "1",
            "STREAMS",
            "k1",
            "k2",
            ">",
            ">",
        ],
        "XGROUP" => &["XGROUP", "CREATE", "k1", "g", "$", "MKSTREAM"],
        _ => &[],
    };
    if !own.is_empty() {
        return own.iter().map(|w| w.to_string()).collect();
    }
    let n = if arity > 0 { arity } else { 2 - arity } as usize;
    std::iter::once(name.to_string())
        .chain((1..n).map(|i| format!("w{i}")))
        .collect()
}

/// The positions the proxy's table says hold keys in `words`.
fn proxy_keys(keys: Keys, words: &[String]) -> Vec<usize> {
    let n = words.len();
    match keys {
        Keys::None | Keys::Channel => vec![],
        Keys::First => vec![1],
        Keys::FirstTwo => vec![1, 2],
        Keys::All => (1..n).collect(),
        Keys::AllButLast => (1..n - 1).collect(),
        Keys::Second => vec![2],
        Keys::Streams => {
            let at = words
                .iter()
                .position(|w| w.eq_ignore_ascii_case("STREAMS"))
                .expect("STREAMS in the sample");
            let half = (n - at - 1) / 2;
            (at + 1..at + 1 + half).collect()
        }
    }
}

#[test]
fn the_allowlist_agrees_with_simredis() {
    let mut both = 0;
    let mut wrong = Vec::new();
    for (name, arity, keys) in table() {
        let Some(sim) = command_info(name) else {
            wrong.push(format!(
                "{name}: SimRedis does not know it (the labs' commands run on both)"
            ));
            continue;
        };
        both += 1;
        if name == "XGROUP" {
            // The proxy's row is XGROUP CREATE, the one subcommand it lets through (Redis'
            // `xgroup|create`, arity -5); SimRedis' row is the container (-2) and its
            // handler checks the subcommand: one word short is its arity error.
            let mut r = SimRedis::new(1);
            let short = r.cmd(&["XGROUP", "CREATE", "k", "g"]);
            assert_eq!(arity, -5, "XGROUP CREATE");
            assert!(
                matches!(&short, Reply::Error(e) if e.contains("wrong number of arguments")),
                "{short:?}"
            );
            assert_eq!(
                r.cmd(&["XGROUP", "CREATE", "k", "g", "$", "MKSTREAM"]),
                Reply::ok()
            );
        } else if arity != sim.arity {
            wrong.push(format!("{name}: arity {arity}, SimRedis {}", sim.arity));
        }
        let words = sample(name, arity);
        let ours = proxy_keys(keys, &words);
        let theirs = key_positions(&words);
        if theirs.as_ref() != Some(&ours) {
            wrong.push(format!(
                "{words:?}: the proxy's keys at {ours:?}, SimRedis' {theirs:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(both >= 50, "only {both} commands");
}
