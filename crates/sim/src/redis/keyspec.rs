//! Where a command's keys are, as Redis 7.0's command table says: the legacy `first`, `last`,
//! `step` of `COMMAND INFO` for every command SimRedis knows, and for the commands whose keys
//! move with their arguments (`movablekeys`: EVAL's `numkeys`, XREAD's `STREAMS`, a
//! container's subcommand) the positions `COMMAND GETKEYS` answers. `tests/command_table.rs`
//! checks both against a real `redis-server`; the proxy's tests check its allowlist against
//! them, so the two tables of commands cannot drift apart unseen.

use super::commands::lookup;

/// What the command table says of one command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommandInfo {
    /// Redis' arity: `n` exactly n words (the name included), `-n` at least n.
    pub arity: i32,
    /// The first key's position (0: no key at a fixed position).
    pub first_key: i32,
    /// The last key's position (negative: from the end, -1 the last word).
    pub last_key: i32,
    /// The step from one key to the next (2 for MSET's key-value pairs).
    pub key_step: i32,
}

/// The legacy key positions of a command SimRedis knows (its name in lower case).
fn legacy(lower: &[u8]) -> (i32, i32, i32) {
    match lower {
        b"mget" | b"del" | b"unlink" | b"exists" | b"sinter" | b"sunion" | b"sdiff"
        | b"pfcount" | b"pfmerge" | b"watch" | b"ssubscribe" | b"sunsubscribe" => (1, -1, 1),
        b"mset" | b"msetnx" => (1, -1, 2),
        b"rename" | b"renamenx" | b"lmove" | b"rpoplpush" | b"blmove" | b"brpoplpush" => (1, 2, 1),
        b"brpop" | b"blpop" => (1, -2, 1),
        b"object" | b"scan" | b"ping" | b"echo" | b"dbsize" | b"flushall" | b"flushdb"
        | b"info" | b"config" | b"debug" | b"replicaof" | b"slaveof" | b"multi" | b"exec"
        | b"discard" | b"unwatch" | b"evalsha" | b"eval" | b"script" | b"xgroup" | b"xread"
        | b"xreadgroup" | b"publish" | b"subscribe" | b"unsubscribe" | b"psubscribe"
        | b"punsubscribe" => (0, 0, 0),
        _ => (1, 1, 1),
    }
}

/// The table's row for command `name` (any case); `None` for a command SimRedis does not know.
pub fn command_info(name: &str) -> Option<CommandInfo> {
    let lower = name.to_ascii_lowercase();
    let spec = lookup(lower.as_bytes())?;
    let (first_key, last_key, key_step) = legacy(lower.as_bytes());
    Some(CommandInfo {
        arity: spec.arity,
        first_key,
        last_key,
        key_step,
    })
}

/// The positions of the keys in `argv` (the name at 0), as `COMMAND GETKEYS` finds them;
/// `None` for an unknown command, a wrong number of words, or keys the words do not hold
/// (a `numkeys` past the end, an odd number of words after `STREAMS`).
pub fn key_positions<A: AsRef<[u8]>>(argv: &[A]) -> Option<Vec<usize>> {
    let name = std::str::from_utf8(argv.first()?.as_ref()).ok()?;
    let info = command_info(name)?;
    let n = argv.len();
    let ok = if info.arity >= 0 {
        n == info.arity as usize
    } else {
        n >= info.arity.unsigned_abs() as usize
    };
    if !ok {
        return None;
    }
    let word = |i: usize| argv[i].as_ref().to_ascii_lowercase();
    let number = |i: usize| -> Option<usize> {
        std::str::from_utf8(argv.get(i)?.as_ref())
            .ok()?
            .parse()
            .ok()
    };
    let counted = |at: usize, from: usize| -> Option<Vec<usize>> {
        let k = number(at)?;
        (from + k <= n).then(|| (from..from + k).collect())
    };
    match name.to_ascii_lowercase().as_str() {
        "eval" | "evalsha" => counted(2, 3),
        "zunionstore" => counted(2, 3).map(|ks| [vec![1], ks].concat()),
        "object" => Some(match word(1).as_slice() {
            b"encoding" | b"freq" | b"idletime" | b"refcount" if n > 2 => vec![2],
            _ => vec![],
        }),
        "xgroup" => Some(match word(1).as_slice() {
            b"create" | b"setid" | b"destroy" | b"createconsumer" | b"delconsumer" if n > 2 => {
                vec![2]
            }
            _ => vec![],
        }),
        // Shard channels sit where keys would (the legacy positions say so), but they are
        // channels (`not_key`): GETKEYS leaves them out.
        "spublish" | "ssubscribe" | "sunsubscribe" => Some(vec![]),
        "xread" | "xreadgroup" => {
            let at = (1..n).find(|&i| word(i) == b"streams")?;
            let rest = n - at - 1;
            (rest > 0 && rest % 2 == 0).then(|| (at + 1..at + 1 + rest / 2).collect())
        }
        _ => {
            if info.first_key == 0 {
                return Some(vec![]);
            }
            let last = if info.last_key < 0 {
                n as i32 + info.last_key
            } else {
                info.last_key
            };
            Some(
                (info.first_key..=last)
                    .step_by(info.key_step as usize)
                    .map(|i| i as usize)
                    .collect(),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(line: &str) -> Option<Vec<usize>> {
        key_positions(&line.split(' ').collect::<Vec<_>>())
    }

    #[test]
    fn positions() {
        assert_eq!(keys("GET k"), Some(vec![1]));
        assert_eq!(keys("get k v"), None);
        assert_eq!(keys("MSET a 1 b 2"), Some(vec![1, 3]));
        assert_eq!(keys("BRPOP a b 5"), Some(vec![1, 2]));
        assert_eq!(keys("LMOVE a b LEFT RIGHT"), Some(vec![1, 2]));
        assert_eq!(keys("PING"), Some(vec![]));
        assert_eq!(keys("EVAL s 2 a b x"), Some(vec![3, 4]));
        assert_eq!(keys("EVAL s 3 a b"), None);
        assert_eq!(keys("ZUNIONSTORE d 2 a b WEIGHTS 1 2"), Some(vec![1, 3, 4]));
        assert_eq!(
            keys("XREADGROUP GROUP g c COUNT 1 STREAMS a b > >"),
            Some(vec![7, 8])
        );
        assert_eq!(keys("XREAD STREAMS a b 0"), None);
        assert_eq!(keys("XGROUP CREATE s g $"), Some(vec![2]));
        assert_eq!(keys("XGROUP HELP"), Some(vec![]));
        assert_eq!(keys("OBJECT ENCODING k"), Some(vec![2]));
        assert_eq!(keys("NOPE k"), None);
        assert_eq!(keys("SPUBLISH ch m"), Some(vec![]));
        assert_eq!(
            command_info("Get"),
            Some(CommandInfo {
                arity: 2,
                first_key: 1,
                last_key: 1,
                key_step: 1
            })
        );
    }
}
