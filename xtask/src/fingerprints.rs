//! `cargo xtask fingerprints [SEEDS_DIR]`: writes the fingerprints of the seeds' 8-word runs to
//! `crates/deck/tests/seed-shingles.txt` (hashes only; see `redislab_deck::prose`), so the
//! copied-prose test runs in a clone that has no `../shared/seeds/`. The default seeds
//! directory is `../shared/seeds` beside the workspace.

use crate::root;
use redislab_deck::prose;
use std::collections::HashSet;
use std::path::PathBuf;

/// Where the copied-prose test reads the fingerprints.
pub const OUT: &str = "crates/deck/tests/seed-shingles.txt";

pub fn fingerprints(args: &[String]) -> Result<(), String> {
    let dir = args.first().map_or_else(
        || root().join("..").join("shared").join("seeds"),
        PathBuf::from,
    );
    let mut seeds: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    seeds.sort();
    if seeds.is_empty() {
        return Err(format!("no seed files in {}", dir.display()));
    }
    let mut all = HashSet::new();
    let mut names = Vec::new();
    for p in &seeds {
        let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
        all.extend(prose::seed_fingerprints(&text));
        names.push(
            p.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned(),
        );
    }
    let header = format!(
        "FNV-1a 64 of every normalised {n}-word run of the seeds (redislab_deck::prose), sorted.\n\
         No seed text is kept. Seeds: {}.\n\
         Regenerate with `cargo xtask fingerprints [SEEDS_DIR]` (default ../shared/seeds).",
        names.join(", "),
        n = prose::SHINGLE
    );
    let out = root().join(OUT);
    std::fs::write(&out, prose::format_fingerprints(&all, &header))
        .map_err(|e| format!("{}: {e}", out.display()))?;
    println!(
        "xtask: {} fingerprints of {} seeds written to {OUT}",
        all.len(),
        seeds.len()
    );
    Ok(())
}
