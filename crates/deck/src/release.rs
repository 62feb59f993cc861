//! One release of the built app, as its service worker knows it: written into `dist/` at the
//! end of every build (trunk's `post_build` hook, `deck-json --shell`), after the first slides.
//!
//! A published build (`trunk build --release`) gets
//! - `sw.js`: the service worker (`static/sw.js`) after three lines written here — `RELEASE`
//!   (this release's id), `FILES` (every file of `dist/` with its SHA-256) and `CORE` (the
//!   files kept when the worker installs: the page, the app, its styles; not the fonts, the
//!   decks, the icons, the labs module or the simulation worker, which are kept when opened
//!   or fetched later, when the page is idle). The worker never serves one file of another
//!   release: a file fetched from the network whose SHA-256 is not this release's is refused.
//!   The cache is named after the release, so two releases never share one.
//! - `<meta name="redislab-release" content="<id>">` in `index.html`: the page registers the
//!   worker only when it says which release it is (`static/offline.js`).
//!
//! A development build (`trunk serve`, or any debug build) gets an `sw.js` whose `RELEASE` is
//! `null`, and no meta: the app registers nothing, and a worker left by an earlier release
//! at the same address (say `cargo xtask serve --redis`, which serves a release at the same
//! 127.0.0.1:8080) replaces itself with this one, which deletes the caches, unregisters and
//! reloads the page from the network: no stale app while editing.
//!
//! The id is the first 16 hex digits of the SHA-256 of every file's name and SHA-256. SHA-256
//! is written out here (60 lines, checked against the standard's vectors and `sha256sum`)
//! because the worker checks files with the browser's `crypto.subtle.digest("SHA-256")`, and
//! this crate is a dependency of the app's wasm and of its build script: a digest crate here
//! would be compiled for both in every build for one hash a build.

use std::path::{Path, PathBuf};

/// The meta tag that names the release in `index.html`.
pub const META: &str = "redislab-release";

/// Files the page fetches when they are first needed, not at install: directories (with
/// their `/`) and file names.
const ON_DEMAND: &[&str] = &[
    "fonts/",
    "decks/",
    "icons/",
    "labs.js",
    "labs_bg.wasm",
    "worker.js",
    "worker_bg.wasm",
    "worker_loader.js",
    "compile-worker.js",
];

/// Where the service worker goes and what it is not (it never lists itself).
pub const SW: &str = "sw.js";

const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/// SHA-256 of `data` (FIPS 180-4), as 64 lowercase hex digits.
pub fn sha256(data: &[u8]) -> String {
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in msg.chunks_exact(64) {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *x = x.wrapping_add(y);
        }
    }
    h.iter().map(|x| format!("{x:08x}")).collect()
}

/// Every file under `dir`, as `/`-separated paths relative to it, sorted.
fn files(dir: &Path) -> Result<Vec<String>, String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<(), String> {
        let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries {
            let p: PathBuf = entry.map_err(|e| e.to_string())?.path();
            if p.is_dir() {
                walk(root, &p, out)?;
            } else if let Ok(rel) = p.strip_prefix(root) {
                let parts: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.push(parts.join("/"));
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out)?;
    out.sort();
    Ok(out)
}

/// `index` without a release meta tag (as an older run over the same file left it).
fn without_meta(index: &str) -> String {
    let start = format!("<meta name=\"{META}\"");
    match index.find(&start) {
        Some(at) => {
            let end = index[at..].find('>').map_or(index.len(), |e| at + e + 1);
            let end = if index[end..].starts_with('\n') {
                end + 1
            } else {
                end
            };
            format!("{}{}", &index[..at], &index[end..])
        }
        None => index.to_string(),
    }
}

/// `index` with the release meta right after `<meta charset…>` (or `<head>`).
fn with_meta(index: &str, id: &str) -> Result<String, String> {
    let bare = without_meta(index);
    let tag = format!("<meta name=\"{META}\" content=\"{id}\">\n");
    let at = bare
        .find("<meta charset")
        .and_then(|m| bare[m..].find('>').map(|e| m + e + 1))
        .or_else(|| bare.find("<head>").map(|h| h + "<head>".len()))
        .ok_or("index.html: no <head>")?;
    let nl = usize::from(bare[at..].starts_with('\n'));
    Ok(format!("{}{}{}", &bare[..at + nl], tag, &bare[at + nl..]))
}

/// A JavaScript string literal of `s` (paths are plain, but a quote or backslash stays one).
fn js_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// The lines the build writes before `template`: the release, its files and their SHA-256,
/// and the files kept at install.
fn header(release: Option<&str>, files: &[(String, String)]) -> String {
    let mut out = String::from(
        "// Written by the build (crates/deck/src/release.rs): this release and its files.\n",
    );
    out.push_str(&format!(
        "const RELEASE = {};\n",
        release.map_or("null".into(), js_str)
    ));
    out.push_str("const FILES = {\n");
    for (path, hash) in files {
        out.push_str(&format!("  {}: \"{hash}\",\n", js_str(path)));
    }
    out.push_str("};\nconst CORE = [");
    let core: Vec<String> = files
        .iter()
        .map(|(p, _)| p)
        .filter(|p| !ON_DEMAND.iter().any(|d| p.starts_with(d)) && !p.ends_with(".txt"))
        .map(|p| js_str(p))
        .collect();
    out.push_str(&core.join(", "));
    out.push_str("];\n\n");
    out
}

/// Makes `dir` (a built `dist/`, or trunk's staging copy of it) one release: writes the release
/// meta into its `index.html` and its `sw.js` from `template` (the worker's source). With
/// `publish` false (a development build) `sw.js` is the worker that removes itself and the
/// page names no release. Returns the release id (`None` for a development build).
pub fn write(dir: &Path, template: &str, publish: bool) -> Result<Option<String>, String> {
    let index_path = dir.join("index.html");
    let index = std::fs::read_to_string(&index_path)
        .map_err(|e| format!("{}: {e}", index_path.display()))?;
    let sw_path = dir.join(SW);
    if !publish {
        std::fs::write(&index_path, without_meta(&index))
            .map_err(|e| format!("{}: {e}", index_path.display()))?;
        let sw = format!("{}{template}", header(None, &[]));
        std::fs::write(&sw_path, sw).map_err(|e| format!("{}: {e}", sw_path.display()))?;
        return Ok(None);
    }
    let bare = without_meta(&index);
    let mut hashed = Vec::new();
    for path in files(dir)? {
        if path == SW {
            continue;
        }
        let bytes = if path == "index.html" {
            bare.clone().into_bytes()
        } else {
            let p = dir.join(&path);
            std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?
        };
        hashed.push((path, sha256(&bytes)));
    }
    let listing: String = hashed.iter().map(|(p, h)| format!("{p}\0{h}\n")).collect();
    let id = sha256(listing.as_bytes())[..16].to_string();
    let page = with_meta(&index, &id)?;
    std::fs::write(&index_path, &page).map_err(|e| format!("{}: {e}", index_path.display()))?;
    for (p, h) in hashed.iter_mut() {
        if p == "index.html" {
            *h = sha256(page.as_bytes());
        }
    }
    let sw = format!("{}{template}", header(Some(&id), &hashed));
    std::fs::write(&sw_path, sw).map_err(|e| format!("{}: {e}", sw_path.display()))?;
    Ok(Some(id))
}

/// Whether trunk is building for `trunk serve` (its autoreload script is in the page), where
/// the app must never be served from a cache.
pub fn is_dev_server_page(index: &str) -> bool {
    index.contains(".well-known/trunk/ws")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_matches_the_standard_vectors() {
        assert_eq!(
            sha256(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            sha256(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            sha256(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        );
        // A million 'a's: many blocks.
        assert_eq!(
            sha256(&vec![b'a'; 1_000_000]),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        );
    }

    #[test]
    fn a_release_lists_every_file_and_names_itself_in_the_page() {
        let dir = std::env::temp_dir().join(format!("redislab-release-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("fonts")).unwrap();
        std::fs::write(
            dir.join("index.html"),
            "<html><head>\n<meta charset=\"utf-8\">\n</head><body></body></html>",
        )
        .unwrap();
        std::fs::write(dir.join("app-1.js"), "js").unwrap();
        std::fs::write(dir.join("labs.js"), "labs").unwrap();
        std::fs::write(dir.join("fonts/a.woff2"), "font").unwrap();
        let id = write(&dir, "// worker\n", true).unwrap().unwrap();
        let page = std::fs::read_to_string(dir.join("index.html")).unwrap();
        assert!(
            page.contains(&format!(
                "<meta name=\"redislab-release\" content=\"{id}\">"
            )),
            "{page}"
        );
        let sw = std::fs::read_to_string(dir.join("sw.js")).unwrap();
        assert!(sw.contains(&format!("const RELEASE = \"{id}\";")), "{sw}");
        assert!(
            sw.contains(&format!("\"app-1.js\": \"{}\"", sha256(b"js"))),
            "{sw}"
        );
        assert!(
            sw.contains(&format!("\"index.html\": \"{}\"", sha256(page.as_bytes()))),
            "{sw}"
        );
        assert!(
            sw.contains("const CORE = [\"app-1.js\", \"index.html\"];"),
            "{sw}"
        );
        assert!(!sw.contains("\"sw.js\""), "{sw}");
        assert!(sw.ends_with("// worker\n"));
        // Run again over its own output: the same release, one meta.
        assert_eq!(write(&dir, "// worker\n", true).unwrap().unwrap(), id);
        let again = std::fs::read_to_string(dir.join("index.html")).unwrap();
        assert_eq!(again, page);
        // A changed file is another release.
        std::fs::write(dir.join("labs.js"), "labs 2").unwrap();
        assert_ne!(write(&dir, "// worker\n", true).unwrap().unwrap(), id);
        // A development build names no release.
        assert_eq!(write(&dir, "// worker\n", false).unwrap(), None);
        let dev = std::fs::read_to_string(dir.join("index.html")).unwrap();
        assert!(!dev.contains(META), "{dev}");
        let sw = std::fs::read_to_string(dir.join("sw.js")).unwrap();
        assert!(sw.contains("const RELEASE = null;"), "{sw}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn sha256_agrees_with_sha256sum() {
        let Ok(out) = std::process::Command::new("sha256sum")
            .arg(file!())
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .output()
        else {
            return; // no coreutils: the standard's vectors above still hold
        };
        let theirs = String::from_utf8_lossy(&out.stdout);
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(file!());
        let ours = sha256(&std::fs::read(path).unwrap());
        assert_eq!(theirs.split_whitespace().next(), Some(ours.as_str()));
    }
}
