#!/usr/bin/env bash
# Rebuilds the installed app's PNG icons (static/icons/, named in static/manifest.webmanifest)
# from the page's icon (static/icon.svg), drawn by headless Chromium: 192 and 512 px with the
# icon's rounded corners, and a 512 px "maskable" one (full-bleed background, the mark within
# the central 80 % a launcher may crop to). The PNGs are committed; run this only when the
# icon changes.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
svg=$(cat static/icon.svg)
page() { printf '<html><body style="margin:0;background:transparent"><div style="position:fixed;inset:0">%s</div></body></html>' "$1"; }
page "${svg/<svg /<svg width=\"100%\" height=\"100%\" }" > "$tmp/any.html"
mark=$(sed -e 's/<rect[^>]*>//' -e 's/<svg[^>]*>//' -e 's#</svg>##' static/icon.svg)
page "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 64 64\" width=\"100%\" height=\"100%\"><rect width=\"64\" height=\"64\" fill=\"#0a1020\"/><g transform=\"translate(32 32) scale(0.8) translate(-32 -32)\">$mark</g></svg>" > "$tmp/mask.html"
shot() { chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1 \
  --default-background-color=00000000 --window-size="$1,$1" --screenshot="$2" "file://$3" 2>/dev/null; }
mkdir -p static/icons
shot 192 static/icons/icon-192.png "$tmp/any.html"
shot 512 static/icons/icon-512.png "$tmp/any.html"
shot 512 static/icons/icon-maskable-512.png "$tmp/mask.html"
ls -l static/icons
