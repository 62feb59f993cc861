//! SimRedis' command table against a real Redis 7 (`tests/common` starts it): for every
//! command both know, the arity and the legacy key positions (`first`, `last`, `step`) equal
//! `COMMAND INFO`'s, and on a sample of the command the positions
//! `redislab_sim::redis::key_positions` finds are the ones `COMMAND GETKEYS` names. The
//! proxy's allowlist is checked against this table (`crates/proxy/tests/command_tables.rs`).

mod common;

use common::Server;
use redislab_sim::redis::{command_info, key_positions};
use redislab_sim::Reply;

/// A command's sample: its own words where its keys move with them, else the name and
/// distinct words, as many as its arity asks (two more when it is a minimum, so a `-2` last
/// key and a step of 2 are both seen).
fn sample(name: &str, arity: i32) -> Vec<String> {
    let own: &[&str] = match name {
        "eval" => &["EVAL", "return 1", "2", "k1", "k2", "x"],
        "evalsha" => &[
            "EVALSHA",
            "e0e1f9fabfc9d4800c877a703b823ac0578ff831",
            "1",
            "k1",
            "x",
        ],
        "zunionstore" => &["ZUNIONSTORE", "dst", "2", "k1", "k2", "WEIGHTS", "1", "2"],
        "object" => &["OBJECT", "ENCODING", "k1"],
        "xgroup" => &["XGROUP", "CREATE", "k1", "g", "$"],
        "xread" => &["XREAD", "COUNT", "1", "STREAMS", "k1", "k2", "0", "1"],
        "xreadgroup" => &["XREADGROUP", "GROUP", "g", "c", "STREAMS", "k1", ">"],
        _ => &[],
    };
    if !own.is_empty() {
        return own.iter().map(|w| w.to_string()).collect();
    }
    let n = if arity > 0 { arity } else { 2 - arity } as usize;
    std::iter::once(name.to_uppercase())
        .chain((1..n).map(|i| format!("w{i}")))
        .collect()
}

fn int(r: &Reply) -> i32 {
    match r {
        Reply::Integer(n) => *n as i32,
        other => panic!("an integer, not {other:?}"),
    }
}

fn text(r: &Reply) -> String {
    match r {
        Reply::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
        Reply::Status(s) => s.to_string(),
        other => panic!("a name, not {other:?}"),
    }
}

#[test]
fn simredis_table_agrees_with_redis() {
    let mut server = Server::start();
    let mut c = server.conn();
    let Reply::Array(all) = c.cmd(&["COMMAND"]) else {
        panic!("COMMAND answers an array")
    };
    let mut known = 0;
    let mut wrong = Vec::new();
    for row in &all {
        let Reply::Array(f) = row else {
            panic!("a command's row is an array")
        };
        let name = text(&f[0]);
        let Some(sim) = command_info(&name) else {
            continue;
        };
        known += 1;
        let real = (int(&f[1]), int(&f[3]), int(&f[4]), int(&f[5]));
        let ours = (sim.arity, sim.first_key, sim.last_key, sim.key_step);
        if ours != real {
            wrong.push(format!(
                "{name}: arity, first, last, step {ours:?}, Redis {real:?}"
            ));
        }
        let argv = sample(&name, sim.arity);
        let mut getkeys = vec!["COMMAND".to_string(), "GETKEYS".to_string()];
        getkeys.extend(argv.iter().cloned());
        // Redis answers an error for a command without keys.
        let names = match c.call(&getkeys) {
            Reply::Array(ks) => ks.iter().map(text).collect::<Vec<_>>(),
            Reply::Error(_) => Vec::new(),
            other => panic!("{name}: GETKEYS answered {other:?}"),
        };
        let real_pos: Vec<usize> = names
            .iter()
            .map(|k| {
                argv.iter()
                    .position(|w| w == k)
                    .expect("a key among the words")
            })
            .collect();
        let ours = key_positions(&argv);
        if ours.as_ref() != Some(&real_pos) {
            wrong.push(format!("{argv:?}: keys at {ours:?}, Redis {real_pos:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "SimRedis' table differs from Redis':\n{}",
        wrong.join("\n")
    );
    assert!(known >= 130, "only {known} commands in common");
}
