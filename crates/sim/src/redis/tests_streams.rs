//! Streams and pub/sub, hand-worked and against Redis 7.0.15's own replies.
//!
//! `TABLE` is one session's commands with the replies `redis-server` 7.0.15 gave (shown the
//! way `redis-cli` shows them, [`Reply`]'s `Display`), captured once over RESP with
//! no clock-dependent command in it (explicit IDs only, min-idle 0); the tests below it
//! work through what needs virtual time: BLOCK, idle times, XAUTOCLAIM after 30 s, and the
//! node-by-node `MAXLEN ~`.

use super::*;

fn r(s: &mut SimRedis, line: &str) -> Reply {
    let a = args::split_args(line).expect("valid line");
    let a: Vec<&[u8]> = a.iter().map(Vec::as_slice).collect();
    match s.dispatch(&a, Some(1)).into_exec() {
        Exec::Reply(r) => r,
        Exec::Blocked => panic!("{line} blocked"),
    }
}

fn x(s: &mut SimRedis, client: ClientId, line: &str) -> Exec {
    let a = args::split_args(line).expect("valid line");
    s.execute(client, &a)
}

#[rustfmt::skip]
const TABLE: &[(&str, &str)] = &[
        // XADD: explicit and ms-* ids, errors in Redis' order
        ("XADD s 1-1 f v", "\"1-1\""),
        ("XADD s 1-1 f v", "(error) ERR The ID specified in XADD is equal or smaller than the target stream top item"),
        ("XADD s 0-0 f v", "(error) ERR The ID specified in XADD must be greater than 0-0"),
        ("XADD s 1-* a b", "\"1-2\""),
        ("XADD s 1 a b", "(error) ERR The ID specified in XADD is equal or smaller than the target stream top item"),
        ("XADD s 2-* a b", "\"2-0\""),
        ("XADD s 0-* a b", "(error) ERR The ID specified in XADD is equal or smaller than the target stream top item"),
        ("XADD s MAXLEN", "(error) ERR wrong number of arguments for 'xadd' command"),
        ("XADD s MAXLEN ~ -1 3-0 f v", "(error) ERR The MAXLEN argument must be >= 0."),
        ("XADD s MAXLEN x 3-0 f v", "(error) ERR value is not an integer or out of range"),
        ("XADD s MAXLEN 1 MINID 1 3-0 f v", "(error) ERR syntax error, MAXLEN and MINID options at the same time are not compatible"),
        ("XADD s LIMIT 10 3-0 f v", "(error) ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"),
        ("XADD s MAXLEN 5 LIMIT 10 3-0 f v", "(error) ERR syntax error, LIMIT cannot be used without the special ~ option"),
        ("XADD s MAXLEN ~ 5 LIMIT -1 3-0 f v", "(error) ERR The LIMIT argument must be >= 0."),
        ("XADD s 99999999999999999999-1 f v", "(error) ERR Invalid stream ID specified as stream command argument"),
        ("XADD s + f v", "(error) ERR Invalid stream ID specified as stream command argument"),
        ("XADD s - f v", "(error) ERR Invalid stream ID specified as stream command argument"),
        ("XADD s 3-x f v", "(error) ERR Invalid stream ID specified as stream command argument"),
        ("XADD s 5-5 f", "(error) ERR wrong number of arguments for 'xadd' command"),
        ("XADD s 5-5 f v g", "(error) ERR wrong number of arguments for 'xadd' command"),
        ("XADD nope NOMKSTREAM 1-1 f v", "(nil)"),
        ("EXISTS nope", "(integer) 0"),
        ("XADD e NOMKSTREAM MAXLEN 0 1-1 f v", "(nil)"),
        ("SET str x", "OK"),
        ("XADD str 1-1 f v", "(error) WRONGTYPE Operation against a key holding the wrong kind of value"),
        ("XLEN str", "(error) WRONGTYPE Operation against a key holding the wrong kind of value"),
        ("XLEN s", "(integer) 3"),
        ("XLEN nokey", "(integer) 0"),
        ("XADD s2 18446744073709551615-18446744073709551615 f v", "\"18446744073709551615-18446744073709551615\""),
        ("XADD s2 5-0 f v", "(error) ERR The stream has exhausted the last possible ID, unable to add more items"),
        ("DEL s2", "(integer) 1"),
        ("XADD s2 007-1 f v", "\"7-1\""),
        ("XADD s2 \" 9-1\" f v", "\"9-1\""),
        ("XADD s2 +10-1 f v", "\"10-1\""),
        ("XADD s2 18446744073709551614-1 f v", "\"18446744073709551614-1\""),
        ("XADD s2 18446744073709551616-1 f v", "(error) ERR Invalid stream ID specified as stream command argument"),
        ("XADD s2 1-18446744073709551616 f v", "(error) ERR Invalid stream ID specified as stream command argument"),
        ("XADD s2 -1 f v", "(error) ERR Invalid stream ID specified as stream command argument"),
        ("XADD s2 1--1 f v", "(error) ERR Invalid stream ID specified as stream command argument"),
        // XRANGE / XREVRANGE
        ("XRANGE s - +", "[[\"1-1\", [\"f\", \"v\"]], [\"1-2\", [\"a\", \"b\"]], [\"2-0\", [\"a\", \"b\"]]]"),
        ("XREVRANGE s + -", "[[\"2-0\", [\"a\", \"b\"]], [\"1-2\", [\"a\", \"b\"]], [\"1-1\", [\"f\", \"v\"]]]"),
        ("XRANGE s - + COUNT 2", "[[\"1-1\", [\"f\", \"v\"]], [\"1-2\", [\"a\", \"b\"]]]"),
        ("XREVRANGE s + - COUNT 1", "[[\"2-0\", [\"a\", \"b\"]]]"),
        ("XRANGE s - + COUNT 0", "(nil)"),
        ("XRANGE s - + COUNT -5", "(nil)"),
        ("XRANGE nokey - + COUNT 0", "[]"),
        ("XRANGE str - +", "(error) WRONGTYPE Operation against a key holding the wrong kind of value"),
        ("XRANGE s (- +", "(error) ERR Invalid stream ID specified as stream command argument"),
        ("XRANGE s - (+", "(error) ERR Invalid stream ID specified as stream command argument"),
        ("XRANGE s (1-1 +", "[[\"1-2\", [\"a\", \"b\"]], [\"2-0\", [\"a\", \"b\"]]]"),
        ("XRANGE s (0-0 (1-2", "[[\"1-1\", [\"f\", \"v\"]]]"),
        ("XRANGE s - (0-0", "(error) ERR invalid end ID for the interval"),
        ("XRANGE s (18446744073709551615-18446744073709551615 +", "(error) ERR invalid start ID for the interval"),
        ("XRANGE s - (0", "[]"),
        ("XRANGE s 1 1", "[[\"1-1\", [\"f\", \"v\"]], [\"1-2\", [\"a\", \"b\"]]]"),
        ("XRANGE s 2 1", "[]"),
        ("XRANGE s - + COUNT", "(error) ERR syntax error"),
        ("XRANGE s - + FOO 1", "(error) ERR syntax error"),
        ("XRANGE s - + COUNT x", "(error) ERR value is not an integer or out of range"),
        ("XRANGE s x +", "(error) ERR Invalid stream ID specified as stream command argument"),
        ("XRANGE s - x", "(error) ERR Invalid stream ID specified as stream command argument"),
        // XDEL / XTRIM
        ("XADD t 1-0 a 1", "\"1-0\""),
        ("XADD t 2-0 a 2", "\"2-0\""),
        ("XADD t 3-0 a 3", "\"3-0\""),
        ("XADD t 4-0 a 4", "\"4-0\""),
        ("XADD t 5-0 a 5", "\"5-0\""),
        ("XDEL t 2-0 9-0 2-0", "(integer) 1"),
        ("XDEL t x", "(error) ERR Invalid stream ID specified as stream command argument"),
        ("XDEL t 3", "(integer) 1"),
        ("XDEL nokey 1-0", "(integer) 0"),
        ("XDEL str 1-0", "(error) WRONGTYPE Operation against a key holding the wrong kind of value"),
        ("XLEN t", "(integer) 3"),
        ("XRANGE t - +", "[[\"1-0\", [\"a\", \"1\"]], [\"4-0\", [\"a\", \"4\"]], [\"5-0\", [\"a\", \"5\"]]]"),
        ("XTRIM t", "(error) ERR wrong number of arguments for 'xtrim' command"),
        ("XTRIM t FOO 1", "(error) ERR syntax error"),
        ("XTRIM t MAXLEN 1 LIMIT 5", "(error) ERR syntax error, LIMIT cannot be used without the special ~ option"),
        ("XTRIM t LIMIT 5 MAXLEN ~ 1", "(integer) 0"),
        ("XTRIM t MAXLEN -1", "(error) ERR The MAXLEN argument must be >= 0."),
        ("XTRIM t MINID x", "(error) ERR Invalid stream ID specified as stream command argument"),
        ("XTRIM t MAXLEN 3", "(integer) 0"),
        ("XTRIM t MINID 5", "(integer) 2"),
        ("XRANGE t - +", "[[\"5-0\", [\"a\", \"5\"]]]"),
        ("XTRIM t MAXLEN ~ 0", "(integer) 1"),
        ("XTRIM t MAXLEN 0", "(integer) 0"),
        ("XLEN t", "(integer) 0"),
        ("XRANGE t - +", "[]"),
        ("EXISTS t", "(integer) 1"),
        ("XTRIM nokey MAXLEN 0", "(integer) 0"),
        ("XTRIM str MAXLEN 0", "(error) WRONGTYPE Operation against a key holding the wrong kind of value"),
        ("XADD t MAXLEN 0 9-0 a 9", "\"9-0\""),
        ("XLEN t", "(integer) 0"),
        ("TYPE t", "stream"),
        // XGROUP
        ("XGROUP", "(error) ERR wrong number of arguments for 'xgroup' command"),
        ("XGROUP FOO", "(error) ERR unknown subcommand 'FOO'. Try XGROUP HELP."),
        ("XGROUP foo a b", "(error) ERR unknown subcommand 'foo'. Try XGROUP HELP."),
        ("XGROUP CREATE s", "(error) ERR wrong number of arguments for 'xgroup|create' command"),
        ("XGROUP DESTROY s", "(error) ERR wrong number of arguments for 'xgroup|destroy' command"),
        ("XGROUP DESTROY s g x", "(error) ERR wrong number of arguments for 'xgroup|destroy' command"),
        ("XGROUP CREATE nokey g $", "(error) ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically."),
        ("XGROUP CREATE str g $", "(error) WRONGTYPE Operation against a key holding the wrong kind of value"),
        ("XGROUP CREATE s g $ FOO", "(error) ERR unknown subcommand or wrong number of arguments for 'CREATE'. Try XGROUP HELP."),
        ("XGROUP CREATE s g $ ENTRIESREAD -5", "(error) ERR value for ENTRIESREAD must be positive or -1"),
        ("XGROUP CREATE s g $ ENTRIESREAD x", "(error) ERR value is not an integer or out of range"),
        ("XGROUP CREATE s g x", "(error) ERR Invalid stream ID specified as stream command argument"),
        ("XGROUP CREATE s g -", "(error) ERR Invalid stream ID specified as stream command argument"),
        ("XGROUP CREATE s g $", "OK"),
        ("XGROUP CREATE s g 0", "(error) BUSYGROUP Consumer Group name already exists"),
        ("XGROUP CREATE s g0 0", "OK"),
        ("XGROUP CREATE s g2 $ MKSTREAM MKSTREAM MKSTREAM MKSTREAM", "(error) ERR unknown subcommand or wrong number of arguments for 'CREATE'. Try XGROUP HELP."),
        ("XGROUP CREATE m g 0 MKSTREAM", "OK"),
        ("XLEN m", "(integer) 0"),
        ("TYPE m", "stream"),
        ("XGROUP CREATECONSUMER s nog c", "(error) NOGROUP No such consumer group 'nog' for key name 's'"),
        ("XGROUP CREATECONSUMER s g c1", "(integer) 1"),
        ("XGROUP CREATECONSUMER s g c1", "(integer) 0"),
        ("XGROUP DELCONSUMER s g nobody", "(integer) 0"),
        ("XGROUP DELCONSUMER nokey g c", "(error) ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically."),
        ("XGROUP SETID s nog 0", "(error) NOGROUP No such consumer group 'nog' for key name 's'"),
        ("XGROUP SETID s g0 +", "OK"),
        ("XGROUP SETID s g0 x", "(error) ERR Invalid stream ID specified as stream command argument"),
        ("XGROUP SETID s g0 0 ENTRIESREAD", "(error) ERR unknown subcommand or wrong number of arguments for 'SETID'. Try XGROUP HELP."),
        ("XGROUP SETID s g0 0 ENTRIESREAD 3", "OK"),
        ("XGROUP DESTROY s nog", "(integer) 0"),
        ("XGROUP DESTROY nokey g", "(error) ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically."),
        ("XGROUP DESTROY m g", "(integer) 1"),
        ("XGROUP HELP", "[XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:, CREATE <key> <groupname> <id|$> [option],     Create a new consumer group. Options are:,     * MKSTREAM,       Create the empty stream if it does not exist.,     * ENTRIESREAD entries_read,       Set the group's entries_read counter (internal use)., CREATECONSUMER <key> <groupname> <consumer>,     Create a new consumer in the specified group., DELCONSUMER <key> <groupname> <consumer>,     Remove the specified consumer., DESTROY <key> <groupname>,     Remove the specified group., SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read],     Set the current group ID and entries_read counter., HELP,     Prints this help.]"),
        ("XGROUP HELP x", "(error) ERR wrong number of arguments for 'xgroup|help' command"),
        // XREADGROUP / XREAD / XACK / XPENDING summary
        ("XREADGROUP GROUP nog c STREAMS s >", "(error) NOGROUP No such key 's' or consumer group 'nog' in XREADGROUP with GROUP option"),
        ("XREADGROUP GROUP g c STREAMS nokey >", "(error) NOGROUP No such key 'nokey' or consumer group 'g' in XREADGROUP with GROUP option"),
        ("XREADGROUP GROUP g c STREAMS str >", "(error) WRONGTYPE Operation against a key holding the wrong kind of value"),
        ("XREADGROUP GROUP g c STREAMS s $", "(error) ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set."),
        ("XREADGROUP GROUP g c STREAMS s x", "(error) ERR Invalid stream ID specified as stream command argument"),
        ("XREADGROUP STREAMS s 0", "(error) ERR wrong number of arguments for 'xreadgroup' command"),
        ("XREADGROUP COUNT 1 STREAMS s 0", "(error) ERR wrong number of arguments for 'xreadgroup' command"),
        ("XREADGROUP GROUP g c FOO STREAMS s 0", "(error) ERR syntax error"),
        ("XREAD STREAMS s >", "(error) ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option."),
        ("XREAD GROUP g c STREAMS s 0", "(error) ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead."),
        ("XREAD NOACK STREAMS s 0", "(error) ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead."),
        ("XREAD STREAMS s", "(error) ERR wrong number of arguments for 'xread' command"),
        ("XREAD COUNT 1 STREAMS s s 0", "(error) ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified."),
        ("XREAD COUNT x STREAMS s 0", "(error) ERR value is not an integer or out of range"),
        ("XREAD BLOCK -1 STREAMS s 0", "(error) ERR timeout is negative"),
        ("XREAD BLOCK 1.5 STREAMS s 0", "(error) ERR timeout is not an integer or out of range"),
        ("XREAD FOO STREAMS s 0", "(error) ERR syntax error"),
        ("XREAD STREAMS s 0", "[[\"s\", [[\"1-1\", [\"f\", \"v\"]], [\"1-2\", [\"a\", \"b\"]], [\"2-0\", [\"a\", \"b\"]]]]]"),
        ("XREAD COUNT 1 STREAMS s t 0 0", "[[\"s\", [[\"1-1\", [\"f\", \"v\"]]]]]"),
        ("XREAD STREAMS s $", "(nil)"),
        ("XREAD STREAMS nokey 0", "(nil)"),
        ("XREAD STREAMS nokey $", "(nil)"),
        ("XREAD STREAMS str 0", "(error) WRONGTYPE Operation against a key holding the wrong kind of value"),
        ("XREAD COUNT -3 STREAMS s (1-1", "(error) ERR Invalid stream ID specified as stream command argument"),
        ("XREADGROUP GROUP g c STREAMS s >", "(nil)"),
        ("XREADGROUP GROUP g0 a COUNT 2 STREAMS s >", "[[\"s\", [[\"1-1\", [\"f\", \"v\"]], [\"1-2\", [\"a\", \"b\"]]]]]"),
        ("XREADGROUP GROUP g0 b STREAMS s >", "[[\"s\", [[\"2-0\", [\"a\", \"b\"]]]]]"),
        ("XREADGROUP GROUP g0 b STREAMS s >", "(nil)"),
        ("XREADGROUP GROUP g0 a STREAMS s 0", "[[\"s\", [[\"1-1\", [\"f\", \"v\"]], [\"1-2\", [\"a\", \"b\"]]]]]"),
        ("XREADGROUP GROUP g0 a COUNT 1 STREAMS s 0", "[[\"s\", [[\"1-1\", [\"f\", \"v\"]]]]]"),
        ("XREADGROUP GROUP g0 a STREAMS s 1-2", "[[\"s\", []]]"),
        ("XREADGROUP GROUP g0 nobody STREAMS s 0", "[[\"s\", []]]"),
        ("XPENDING s g0", "[(integer) 3, \"1-1\", \"2-0\", [[\"a\", \"2\"], [\"b\", \"1\"]]]"),
        ("XPENDING s g", "[(integer) 0, (nil), (nil), (nil)]"),
        ("XPENDING s nog", "(error) NOGROUP No such key 's' or consumer group 'nog'"),
        ("XPENDING nokey g", "(error) NOGROUP No such key 'nokey' or consumer group 'g'"),
        ("XPENDING str g", "(error) WRONGTYPE Operation against a key holding the wrong kind of value"),
        ("XPENDING s g0 x", "(error) ERR syntax error"),
        ("XPENDING s g0 - + 10 nobody b c", "[]"),
        ("XPENDING s g0 IDLE 10 - +", "(error) ERR syntax error"),
        ("XPENDING s g0 IDLE x - + 10", "(error) ERR value is not an integer or out of range"),
        ("XPENDING s g0 - + x", "(error) ERR value is not an integer or out of range"),
        ("XPENDING s g0 x + 10", "(error) ERR Invalid stream ID specified as stream command argument"),
        ("XPENDING s g0 - x 10", "(error) ERR Invalid stream ID specified as stream command argument"),
        ("XPENDING s g0 (+ + 10", "(error) ERR Invalid stream ID specified as stream command argument"),
        ("XPENDING s g0 - + 0", "[]"),
        ("XPENDING s g0 - + 10 nobody", "[]"),
        ("XPENDING s nog - + 10", "(error) NOGROUP No such key 's' or consumer group 'nog'"),
        ("XACK s g0 x", "(error) ERR Invalid stream ID specified as stream command argument"),
        ("XACK s g0 1-1 1-1 9-9", "(integer) 1"),
        ("XACK s nog 1-2", "(integer) 0"),
        ("XACK nokey g 1-2", "(integer) 0"),
        ("XACK str g 1-2", "(error) WRONGTYPE Operation against a key holding the wrong kind of value"),
        ("XDEL s 1-2", "(integer) 1"),
        ("XREADGROUP GROUP g0 a STREAMS s 0", "[[\"s\", [[\"1-2\", (nil)]]]]"),
        ("XPENDING s g0", "[(integer) 2, \"1-2\", \"2-0\", [[\"a\", \"1\"], [\"b\", \"1\"]]]"),
        ("XREADGROUP GROUP g0 c NOACK STREAMS s >", "(nil)"),
        ("XADD s 6-0 n 1", "\"6-0\""),
        ("XADD s 7-0 n 2", "\"7-0\""),
        ("XREADGROUP GROUP g0 c NOACK STREAMS s >", "[[\"s\", [[\"6-0\", [\"n\", \"1\"]], [\"7-0\", [\"n\", \"2\"]]]]]"),
        ("XPENDING s g0", "[(integer) 2, \"1-2\", \"2-0\", [[\"a\", \"1\"], [\"b\", \"1\"]]]"),
        ("XGROUP DELCONSUMER s g0 b", "(integer) 1"),
        ("XPENDING s g0", "[(integer) 1, \"1-2\", \"1-2\", [[\"a\", \"1\"]]]"),
        // XCLAIM / XAUTOCLAIM (min-idle 0: no clock needed)
        ("XCLAIM s nog c 0 1-1", "(error) NOGROUP No such key 's' or consumer group 'nog'"),
        ("XCLAIM nokey g c 0 1-1", "(error) NOGROUP No such key 'nokey' or consumer group 'g'"),
        ("XCLAIM str g c 0 1-1", "(error) WRONGTYPE Operation against a key holding the wrong kind of value"),
        ("XCLAIM s g0 c x 1-1", "(error) ERR Invalid min-idle-time argument for XCLAIM"),
        ("XCLAIM s g0 c 0 1-1 FOO", "(error) ERR Unrecognized XCLAIM option 'FOO'"),
        ("XCLAIM s g0 c 0 1-1 IDLE x", "(error) ERR Invalid IDLE option argument for XCLAIM"),
        ("XCLAIM s g0 c 0 1-1 TIME x", "(error) ERR Invalid TIME option argument for XCLAIM"),
        ("XCLAIM s g0 c 0 1-1 RETRYCOUNT x", "(error) ERR Invalid RETRYCOUNT option argument for XCLAIM"),
        ("XCLAIM s g0 c 0 1-1 LASTID x", "(error) ERR Invalid stream ID specified as stream command argument"),
        ("XADD s 8-0 n 3", "\"8-0\""),
        ("XADD s 9-0 n 4", "\"9-0\""),
        ("XREADGROUP GROUP g0 a STREAMS s >", "[[\"s\", [[\"8-0\", [\"n\", \"3\"]], [\"9-0\", [\"n\", \"4\"]]]]]"),
        ("XCLAIM s g0 z 0 8-0 9-0 1-1 JUSTID", "[\"8-0\", \"9-0\"]"),
        ("XPENDING s g0", "[(integer) 3, \"1-2\", \"9-0\", [[\"a\", \"1\"], [\"z\", \"2\"]]]"),
        ("XCLAIM s g0 y 0 8-0 RETRYCOUNT 7", "[[\"8-0\", [\"n\", \"3\"]]]"),
        ("XCLAIM s g0 y 0 5-0 FORCE JUSTID", "[]"),
        ("XCLAIM s g0 y 0 1-1 FORCE", "[[\"1-1\", [\"f\", \"v\"]]]"),
        ("XAUTOCLAIM s g0 c 0 0 COUNT 0", "(error) ERR COUNT must be > 0"),
        ("XAUTOCLAIM s g0 c 0 0 COUNT x", "(error) ERR COUNT must be > 0"),
        ("XAUTOCLAIM s g0 c x 0", "(error) ERR Invalid min-idle-time argument for XAUTOCLAIM"),
        ("XAUTOCLAIM s g0 c 0 x", "(error) ERR Invalid stream ID specified as stream command argument"),
        ("XAUTOCLAIM s g0 c 0 0 FOO", "(error) ERR syntax error"),
        ("XAUTOCLAIM s nog c 0 0", "(error) NOGROUP No such key 's' or consumer group 'nog'"),
        ("XAUTOCLAIM nokey g c 0 0", "(error) NOGROUP No such key 'nokey' or consumer group 'g'"),
        ("XAUTOCLAIM str g c 0 0", "(error) WRONGTYPE Operation against a key holding the wrong kind of value"),
        ("XAUTOCLAIM s g0 w 0 0 COUNT 1", "[\"1-2\", [[\"1-1\", [\"f\", \"v\"]]], []]"),
        ("XAUTOCLAIM s g0 w 0 0 COUNT 1 JUSTID", "[\"1-2\", [\"1-1\"], []]"),
        ("XDEL s 9-0", "(integer) 1"),
        ("XAUTOCLAIM s g0 v 0 0", "[\"0-0\", [[\"1-1\", [\"f\", \"v\"]], [\"8-0\", [\"n\", \"3\"]]], [\"1-2\", \"9-0\"]]"),
        ("XAUTOCLAIM s g0 v 0 (5-0 JUSTID", "[\"0-0\", [\"8-0\"], []]"),
        ("XPENDING s g0", "[(integer) 2, \"1-1\", \"8-0\", [[\"v\", \"2\"]]]"),
        // Pub/Sub
        ("PUBLISH ch", "(error) ERR wrong number of arguments for 'publish' command"),
        ("PUBLISH ch hello", "(integer) 0"),
        ("SUBSCRIBE", "(error) ERR wrong number of arguments for 'subscribe' command"),
        ("UNSUBSCRIBE", "[[\"unsubscribe\", (nil), (integer) 0]]"),
        ("PUNSUBSCRIBE", "[[\"punsubscribe\", (nil), (integer) 0]]"),
        ("SUBSCRIBE a b a", "[[\"subscribe\", \"a\", (integer) 1], [\"subscribe\", \"b\", (integer) 2], [\"subscribe\", \"a\", (integer) 2]]"),
        ("PUBLISH a x", "(error) ERR Can't execute 'publish': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"),
        ("GET str", "(error) ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"),
        ("PING", "[\"pong\", \"\"]"),
        ("PING hi", "[\"pong\", \"hi\"]"),
        ("PSUBSCRIBE n* h?llo [ab]c", "[[\"psubscribe\", \"n*\", (integer) 3], [\"psubscribe\", \"h?llo\", (integer) 4], [\"psubscribe\", \"[ab]c\", (integer) 5]]"),
        ("UNSUBSCRIBE b zz", "[[\"unsubscribe\", \"b\", (integer) 4], [\"unsubscribe\", \"zz\", (integer) 4]]"),
        ("PUNSUBSCRIBE h?llo", "[[\"punsubscribe\", \"h?llo\", (integer) 3]]"),
        ("UNSUBSCRIBE", "[[\"unsubscribe\", \"a\", (integer) 2]]"),
        ("PUNSUBSCRIBE n*", "[[\"punsubscribe\", \"n*\", (integer) 1]]"),
        ("PUNSUBSCRIBE", "[[\"punsubscribe\", \"[ab]c\", (integer) 0]]"),
        ("GET str", "\"x\""),
        ("PUBLISH a x", "(integer) 0"),
        ("XADD s 10-0 big 12345678901234567890123456789012345678901234567890123456789012345678901234567890", "\"10-0\""),
        ("XRANGE s 10 10", "[[\"10-0\", [\"big\", \"12345678901234567890123456789012345678901234567890123456789012345678901234567890\"]]]"),
];

#[test]
fn one_session_replies_exactly_as_redis_7_0() {
    let mut s = SimRedis::new(1);
    for (line, want) in TABLE {
        assert_eq!(r(&mut s, line).to_string(), *want, "{line}");
    }
}

#[test]
fn approximate_maxlen_trims_whole_nodes_of_100() {
    // 250 small entries make nodes of 100, 100, 50. `MAXLEN ~ 120` may drop a node only
    // while what stays is still >= 120: the first node goes (150 left), the second cannot.
    let mut s = SimRedis::new(1);
    for i in 1..=250 {
        r(&mut s, &format!("XADD q {i}-0 f {i}"));
    }
    assert_eq!(s.stream_nodes(b"q"), 3);
    assert_eq!(r(&mut s, "XTRIM q MAXLEN ~ 120"), Reply::Integer(100));
    assert_eq!(r(&mut s, "XLEN q"), Reply::Integer(150));
    // Exact trimming marks entries deleted inside the node; the node keeps its slots.
    assert_eq!(r(&mut s, "XTRIM q MAXLEN 120"), Reply::Integer(30));
    assert_eq!(r(&mut s, "XLEN q"), Reply::Integer(120));
    assert_eq!(s.stream_nodes(b"q"), 2);
    // XADD with MAXLEN ~ trims after adding: 121 entries, no whole node can go.
    assert_eq!(
        r(&mut s, "XADD q MAXLEN ~ 100 251-0 f 251"),
        Reply::bulk("251-0")
    );
    assert_eq!(r(&mut s, "XLEN q"), Reply::Integer(121));
}

#[test]
fn big_entries_close_a_node_at_4096_bytes() {
    // 1000-byte values: a listpack passes 4096 bytes after 4 entries, so nodes hold 4.
    let v = "x".repeat(1000);
    let mut s = SimRedis::new(1);
    for i in 1..=10 {
        r(&mut s, &format!("XADD b {i}-0 f {v}"));
    }
    assert_eq!(s.stream_nodes(b"b"), 3);
    assert_eq!(r(&mut s, "XTRIM b MAXLEN ~ 5"), Reply::Integer(4));
}

#[test]
fn auto_ids_follow_the_virtual_clock() {
    let mut s = SimRedis::new(1);
    let ms = EPOCH_MS;
    assert_eq!(r(&mut s, "XADD a * f v"), Reply::bulk(format!("{ms}-0")));
    assert_eq!(r(&mut s, "XADD a * f v"), Reply::bulk(format!("{ms}-1")));
    s.advance(5);
    assert_eq!(
        r(&mut s, "XADD a * f v"),
        Reply::bulk(format!("{}-0", ms + 5))
    );
    // An explicit ID in the future: `*` then continues from it.
    r(&mut s, &format!("XADD a {}-7 f v", ms + 100));
    assert_eq!(
        r(&mut s, "XADD a * f v"),
        Reply::bulk(format!("{}-8", ms + 100))
    );
}

#[test]
fn xreadgroup_blocks_in_virtual_time() {
    let mut s = SimRedis::new(1);
    r(&mut s, "XGROUP CREATE q g $ MKSTREAM");
    // Two consumers block; one XADD serves the first, the second keeps waiting.
    assert_eq!(
        x(
            &mut s,
            1,
            "XREADGROUP GROUP g c1 COUNT 10 BLOCK 5000 STREAMS q >"
        ),
        Exec::Blocked
    );
    assert_eq!(
        x(
            &mut s,
            2,
            "XREADGROUP GROUP g c2 COUNT 10 BLOCK 5000 STREAMS q >"
        ),
        Exec::Blocked
    );
    s.advance(1000);
    assert_eq!(
        x(&mut s, 3, "XADD q 1-0 job 1"),
        Exec::Reply(Reply::bulk("1-0"))
    );
    let w = s.take_woken();
    assert_eq!(w.len(), 1);
    assert_eq!((w[0].client, w[0].at_ms), (1, 1000));
    assert_eq!(
        w[0].reply.to_string(),
        r#"[["q", [["1-0", ["job", "1"]]]]]"#
    );
    assert!(s.is_blocked(2));
    // c2 times out 5 s after it blocked, with a nil.
    s.advance(3999);
    assert!(s.take_woken().is_empty());
    s.advance(1);
    let w = s.take_woken();
    assert_eq!(
        (w[0].client, &w[0].reply, w[0].at_ms),
        (2, &Reply::Nil, 5000)
    );
    // XREAD (no group) blocked on `$` sees only what comes after it blocked.
    assert_eq!(x(&mut s, 4, "XREAD BLOCK 0 STREAMS q $"), Exec::Blocked);
    r(&mut s, "XADD q 2-0 job 2");
    let w = s.take_woken();
    assert_eq!(
        w[0].reply.to_string(),
        r#"[["q", [["2-0", ["job", "2"]]]]]"#
    );
    // Destroying the group wakes its blocked readers with NOGROUP.
    assert_eq!(
        x(&mut s, 5, "XREADGROUP GROUP g c1 BLOCK 0 STREAMS q >"),
        Exec::Reply(Reply::Array(vec![Reply::Array(vec![
            Reply::bulk("q"),
            Reply::Array(vec![Reply::Array(vec![
                Reply::bulk("2-0"),
                Reply::Array(vec![Reply::bulk("job"), Reply::bulk("2")])
            ])])
        ])]))
    );
    assert_eq!(
        x(&mut s, 5, "XREADGROUP GROUP g c1 BLOCK 0 STREAMS q >"),
        Exec::Blocked
    );
    r(&mut s, "XGROUP DESTROY q g");
    let w = s.take_woken();
    assert_eq!(
        w[0].reply,
        Reply::err("NOGROUP the consumer group this client was blocked on no longer exists")
    );
    // Without a client (a script), BLOCK answers nil at once.
    assert_eq!(
        s.cmd(&["XREAD", "BLOCK", "100", "STREAMS", "nokey", "0"]),
        Reply::Nil
    );
}

#[test]
fn a_crashed_consumers_entries_are_autoclaimed_after_30_s() {
    let mut s = SimRedis::new(1);
    r(&mut s, "XGROUP CREATE q g 0 MKSTREAM");
    for i in 1..=3 {
        r(&mut s, &format!("XADD q {i}-0 n {i}"));
    }
    // c1 takes all three and dies without XACK.
    r(&mut s, "XREADGROUP GROUP g c1 STREAMS q >");
    s.advance(10_000);
    assert_eq!(
        r(&mut s, "XPENDING q g - + 10").to_string(),
        r#"[["1-0", "c1", (integer) 10000, (integer) 1], ["2-0", "c1", (integer) 10000, (integer) 1], ["3-0", "c1", (integer) 10000, (integer) 1]]"#
    );
    // Too early: nothing is idle for 30 s yet; the cursor walked the whole list.
    assert_eq!(
        r(&mut s, "XAUTOCLAIM q g c2 30000 0").to_string(),
        r#"["0-0", [], []]"#
    );
    s.advance(20_000);
    assert_eq!(
        r(&mut s, "XPENDING q g IDLE 30000 - + 10")
            .to_string()
            .matches("c1")
            .count(),
        3
    );
    // Two at a time: the cursor says where to go on.
    assert_eq!(
        r(&mut s, "XAUTOCLAIM q g c2 30000 0 COUNT 2").to_string(),
        r#"["3-0", [["1-0", ["n", "1"]], ["2-0", ["n", "2"]]], []]"#
    );
    r(&mut s, "XDEL q 3-0");
    assert_eq!(
        r(&mut s, "XAUTOCLAIM q g c2 30000 3-0 COUNT 2").to_string(),
        r#"["0-0", [], ["3-0"]]"#
    );
    assert_eq!(
        r(&mut s, "XPENDING q g").to_string(),
        r#"[(integer) 2, "1-0", "2-0", [["c2", "2"]]]"#
    );
    assert_eq!(
        r(&mut s, "XPENDING q g - + 10 c2").to_string(),
        r#"[["1-0", "c2", (integer) 0, (integer) 2], ["2-0", "c2", (integer) 0, (integer) 2]]"#
    );
    // XCLAIM with a min-idle the entry has not reached claims nothing.
    s.advance(100);
    assert_eq!(r(&mut s, "XCLAIM q g c3 1000 1-0").to_string(), "[]");
    assert_eq!(
        r(&mut s, "XCLAIM q g c3 50 1-0 JUSTID").to_string(),
        r#"["1-0"]"#
    );
    assert_eq!(r(&mut s, "XACK q g 1-0 2-0"), Reply::Integer(2));
    assert_eq!(s.stream_pending(b"q", b"g"), 0);
}

#[test]
fn publish_reaches_only_who_listens_now() {
    let mut s = SimRedis::new(1);
    assert_eq!(s.cmd(&["PUBLISH", "chat", "m1"]), Reply::Integer(0));
    x(&mut s, 1, "SUBSCRIBE chat");
    x(&mut s, 2, "PSUBSCRIBE ch*");
    x(&mut s, 3, "SUBSCRIBE chat");
    x(&mut s, 3, "PSUBSCRIBE c?at");
    // 1 and 3 by channel, 2 and 3 by pattern: four deliveries.
    assert_eq!(s.cmd(&["PUBLISH", "chat", "m2"]), Reply::Integer(4));
    assert_eq!(s.take_messages(1).len(), 1);
    assert_eq!(s.take_messages(3).len(), 2);
    assert_eq!(
        s.take_messages(2)[0].to_string(),
        r#"["pmessage", "ch*", "chat", "m2"]"#
    );
    // 1 goes away: what is published meanwhile is gone for it, even after it comes back.
    s.disconnect(1);
    assert_eq!(s.cmd(&["PUBLISH", "chat", "m3"]), Reply::Integer(3));
    x(&mut s, 1, "SUBSCRIBE chat");
    assert_eq!(s.cmd(&["PUBLISH", "chat", "m4"]), Reply::Integer(4));
    let got: Vec<String> = s.take_messages(1).iter().map(|m| m.to_string()).collect();
    assert_eq!(got, vec![r#"["message", "chat", "m4"]"#]);
}

#[test]
fn glob_matches_like_stringmatchlen() {
    use pubsub::glob_match as m;
    // 7.0 quirk: the loop needs a character to look at, so `*` does not match "".
    assert!(!m(b"*", b""));
    assert!(m(b"h?llo", b"hello"));
    assert!(!m(b"h?llo", b"hllo"));
    assert!(m(b"h[ae]llo", b"hallo"));
    assert!(!m(b"h[^e]llo", b"hello"));
    assert!(m(b"h[a-b]llo", b"hbllo"));
    assert!(m(b"h[b-a]llo", b"hbllo"));
    assert!(m(b"a\\*b", b"a*b"));
    assert!(m(b"news.*", b"news.tech"));
    assert!(!m(b"news.*", b"new"));
    assert!(m(b"*a*b", b"xxaxxb"));
    assert!(m(b"[abc", b"a"));
}

#[test]
fn an_inbox_keeps_order_across_reads_and_clears() {
    let mut s = SimRedis::new(1);
    x(&mut s, 1, "SUBSCRIBE chat");
    x(&mut s, 1, "PSUBSCRIBE c*");
    s.cmd(&["PUBLISH", "chat", "a"]);
    s.cmd(&["PUBLISH", "cafe", "b"]);
    // Counted and dropped without being read: the next read starts after them.
    assert_eq!(s.clear_messages(1), 3);
    assert_eq!(s.clear_messages(1), 0);
    assert_eq!(s.clear_messages(9), 0);
    s.cmd(&["PUBLISH", "chat", ""]);
    s.cmd(&["PUBLISH", "cafe", "long message"]);
    let got: Vec<String> = s.take_messages(1).iter().map(|m| m.to_string()).collect();
    assert_eq!(
        got,
        vec![
            r#"["message", "chat", ""]"#,
            r#"["pmessage", "c*", "chat", ""]"#,
            r#"["pmessage", "c*", "cafe", "long message"]"#,
        ]
    );
    assert!(s.take_messages(1).is_empty());
}

/// The fields of a rendered entry (`[id, [f, v, …]]` or `[id, nil]`).
fn tree_entry(e: &Reply) -> (StreamId, Option<Vec<Vec<u8>>>) {
    let Reply::Array(pair) = e else {
        panic!("an entry is an array: {e}")
    };
    let id = StreamId::parse(pair[0].as_bulk().expect("bulk id")).expect("an ID");
    let fields = match &pair[1] {
        Reply::Nil => None,
        Reply::Array(f) => Some(
            f.iter()
                .map(|b| b.as_bulk().expect("bulk").to_vec())
                .collect(),
        ),
        other => panic!("fields: {other}"),
    };
    (id, fields)
}

/// Checks a compact read against its rendered tree: the same entries in the same order.
fn same_entries(read: &StreamRead, tree: &Reply) -> usize {
    let Reply::Array(streams) = tree else {
        panic!("a read is an array: {tree}")
    };
    let mut want = Vec::new();
    for st in streams {
        let Reply::Array(kv) = st else { panic!("{st}") };
        let key = kv[0].as_bulk().expect("key").to_vec();
        let Reply::Array(entries) = &kv[1] else {
            panic!("{st}")
        };
        want.extend(entries.iter().map(|e| (key.clone(), tree_entry(e))));
    }
    let got: Vec<_> = read
        .entries()
        .map(|e| {
            let fields = e.fields().map(|f| f.map(<[u8]>::to_vec).collect());
            (e.key.to_vec(), (e.id, fields))
        })
        .collect();
    assert_eq!(got, want);
    assert_eq!(read.streams(), streams.len());
    // `field` finds the first value of a name.
    for e in read.entries() {
        if let Some(mut f) = e.fields() {
            let first = f.next();
            assert_eq!(first.and_then(|n| e.field(n)), f.next());
        }
    }
    got.len()
}

/// Over seeded random histories of XADD (with `MAXLEN ~`), XDEL, XACK and reads — new
/// entries, a consumer's history with deleted entries in it (`[id, nil]`), several streams
/// at once, blocked readers woken by XADD or by their timeout — the compact reply
/// (`execute_raw`, `take_woken_raw`) renders to exactly what `execute` and `take_woken`
/// answer on a twin server, and its entries are the rendered tree's.
#[test]
fn compact_stream_reads_are_their_rendered_trees() {
    let mut g = crate::rng::Mulberry32::new(10);
    let (mut entries, mut nils, mut woken) = (0, 0, 0);
    for case in 0..30 {
        let mut s = SimRedis::new(case);
        let mut twin = SimRedis::new(case);
        for key in ["a", "b"] {
            let c = format!("XGROUP CREATE {key} g $ MKSTREAM");
            r(&mut s, &c);
            r(&mut twin, &c);
        }
        let mut added: Vec<String> = Vec::new();
        for step in 0..300 {
            let key = ["a", "b"][g.below(2) as usize];
            let some_id = |g: &mut crate::rng::Mulberry32| {
                if added.is_empty() {
                    "1-1".to_string()
                } else {
                    added[g.below(added.len() as u32) as usize].clone()
                }
            };
            let line = match g.below(10) {
                0..=3 => {
                    let mut l = format!("XADD {key} MAXLEN ~ {} *", 20 + g.below(200));
                    for f in 0..1 + g.below(3) {
                        l.push_str(&format!(" f{} {}", f % 2, "v".repeat(g.below(6) as usize)));
                    }
                    l
                }
                4 => format!("XDEL {key} {}", some_id(&mut g)),
                5 => format!(
                    "XREADGROUP GROUP g c{} COUNT {} STREAMS a b > >",
                    g.below(3),
                    g.below(30)
                ),
                6 => format!("XREADGROUP GROUP g c{} STREAMS {key} 0", g.below(3)),
                7 => format!("XREAD COUNT {} STREAMS a b 0 0", g.below(40)),
                8 => format!("XACK {key} g {} {}", some_id(&mut g), some_id(&mut g)),
                _ => format!(
                    "XREADGROUP GROUP g c{} COUNT 5 BLOCK 3 STREAMS {key} >",
                    3 + g.below(2)
                ),
            };
            if step % 37 == 0 {
                s.advance(1);
                twin.advance(1);
            }
            let words = args::split_args(&line).expect("valid line");
            let client = 1 + u64::from(g.below(4));
            let raw = s.execute_raw(client, &words);
            let want = twin.execute(client, &words);
            assert_eq!(raw.clone().into_exec(), want, "{line}");
            if let RawExec::Reply(RawReply::Id(id)) = &raw {
                added.push(id.to_string());
            }
            if let (RawExec::Reply(RawReply::Read(read)), Exec::Reply(tree)) = (&raw, &want) {
                entries += same_entries(read, tree);
                nils += read.entries().filter(|e| e.fields().is_none()).count();
            }
            let (got, want) = (s.take_woken_raw(), twin.take_woken());
            assert_eq!(got.len(), want.len());
            for (a, b) in got.into_iter().zip(want) {
                if let RawReply::Read(read) = &a.reply {
                    entries += same_entries(read, &b.reply);
                    woken += 1;
                }
                assert_eq!(a.into_woken(), b);
            }
        }
    }
    assert!(
        entries > 5000 && nils > 20 && woken > 20,
        "{entries} entries, {nils} deleted, {woken} woken"
    );
}
