//! Every lab's `labsim --json` output, for its defaults, every preset and `--series` where it
//! takes it, is byte for byte what it was when the lab redesign began (issue 32: "every
//! recorded `labsim --json` output unchanged"). The outputs are 6 MB, so the list keeps a
//! 64-bit FNV-1a hash and the length of each (`tests/recorded/labsim-json.txt`, one line per
//! command: the arguments, the hash, the length).
//!
//! A lab whose numbers change on purpose records them again: run the command, put its hash and
//! length in the list, and say why in the commit.

use std::process::Command;

/// FNV-1a, 64 bits: a fixed, dependency-free fingerprint of the output.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[test]
fn every_recorded_labsim_json_output_is_unchanged() {
    let list = include_str!("recorded/labsim-json.txt");
    let mut changed = Vec::new();
    let mut n = 0;
    for line in list.lines().filter(|l| !l.trim().is_empty()) {
        let mut cols = line.split('\t');
        let (args, hash, len) = (
            cols.next().expect("arguments"),
            cols.next().expect("hash"),
            cols.next().expect("length"),
        );
        let out = Command::new(env!("CARGO_BIN_EXE_labsim"))
            .args(args.split(' '))
            .output()
            .expect("labsim runs");
        assert!(
            out.status.success(),
            "labsim {args}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got = format!("{:016x}\t{}", fnv(&out.stdout), out.stdout.len());
        if got != format!("{hash}\t{len}") {
            changed.push(format!(
                "labsim {args}: was {hash} ({len} bytes), now {got}"
            ));
        }
        n += 1;
    }
    assert!(n >= 100, "the list holds {n} commands");
    assert!(
        changed.is_empty(),
        "{} outputs changed:\n{}",
        changed.len(),
        changed.join("\n")
    );
}
