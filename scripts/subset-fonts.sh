#!/usr/bin/env bash
# Rebuilds the self-hosted fonts in static/fonts from Debian's Noto fonts (fonts-noto-core,
# fonts-noto-mono) with fonttools' pyftsubset (`pip install fonttools brotli`). The results are
# committed, so neither building nor serving the app needs this; run it only to change coverage.
set -euo pipefail
src=/usr/share/fonts/truetype/noto
out="$(dirname "$0")/../static/fonts"
mkdir -p "$out"
sub() { # source-file output-name unicode-ranges
  pyftsubset "$src/$1" --output-file="$out/$2.woff2" --flavor=woff2 --unicodes="$3" \
    --layout-features='*' --no-hinting --desubroutinize
}
BN='U+0964-0965,U+0980-09FF,U+200C-200D,U+25CC'
LATIN='U+0020-007E,U+00A0-00FF,U+2010-2027,U+2030-203A,U+2212,U+2248,U+20AC,U+2122'
sub NotoSansBengali-Regular.ttf noto-sans-bengali-400 "$BN"
sub NotoSansBengali-Bold.ttf noto-sans-bengali-700 "$BN"
sub NotoSans-Regular.ttf noto-sans-400 "$LATIN"
sub NotoSans-Bold.ttf noto-sans-700 "$LATIN"
sub NotoSansMono-Regular.ttf noto-sans-mono-400 'U+0020-007E,U+00A0-00FF,U+2010-2027,U+2190-2195,U+2248,U+2500-257F'
sub NotoSansSymbols-Regular.ttf noto-sans-symbols-400 'U+2190-21FF,U+26F6'
sub NotoSansSymbols2-Regular.ttf noto-sans-symbols2-400 'U+25A6,U+25B6,U+25C6,U+2713,U+2715,U+2717,U+270E,U+275A'
cp /usr/share/doc/fonts-noto-core/copyright "$out/LICENSE-Noto.txt"
ls -l "$out"
