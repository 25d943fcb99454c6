#!/usr/bin/env bash
# Builds the demo web player into the directory $1 (the demo module's classes/io/playline/demo):
# index.html and demo.css copied from src/main/web, demo.js bundled by esbuild from
# src/main/web/app.ts and the JavaScript SDK in ../client-js (its frames generated from proto/ first).
# Without npm, or when npm cannot install, the page is packaged without its script and says so.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
js="$here/../client-js"
mkdir -p "$out"
cp "$here/src/main/web/index.html" "$here/src/main/web/demo.css" "$out/"
rm -f "$out/demo.js"
if ! command -v npm >/dev/null 2>&1; then
  echo "demo: npm not found: the demo page is packaged without its script (install Node >= 18 with npm, rebuild)" >&2
  exit 0
fi
build() {
  cd "$js"
  # Install only when the lock file changed since the last install.
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
  fi
  npm run --silent generate
  npx --no-install tsc --noEmit --strict --noUnusedLocals --target es2020 --module esnext --moduleResolution bundler \
    --lib es2020,dom --skipLibCheck "$here/src/main/web/app.ts"
  npx --no-install esbuild "$here/src/main/web/app.ts" --bundle --format=esm --target=es2020 --minify \
    --legal-comments=none --log-level=warning --outfile="$out/demo.js"
}
if ! (build); then
  echo "demo: building the demo script failed (above): the demo page is packaged without it" >&2
  rm -f "$out/demo.js"
fi
