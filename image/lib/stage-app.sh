#!/usr/bin/env bash
# Stages what goes under /opt/alpr: the bundled appliance (npm run build:appliance) and the
# npm packages it leaves external, copied from this checkout's node_modules (the production
# closure npm itself computes for the appliance workspace), so the image needs no registry.
# better-sqlite3's native module is the one built here for Node 20 (ABI 115), which is also
# trixie's node 20.19's ABI; the boot test proves it loads in the guest.
# Usage: stage-app.sh <repo root> <staging dir> <version>
set -euo pipefail
root=$1 dest=$2 version=$3
cd "$root"
npm run -s build:appliance >/dev/null
rm -rf "$dest"
mkdir -p "$dest/appliance/dist" "$dest/node_modules"
# main.mjs starts the ordinary cameras' frame worker and the plate reader's worker from
# beside itself (appliance/build.mjs builds all three).
cp appliance/dist/main.mjs appliance/dist/frame-worker.mjs appliance/dist/reader-worker.mjs "$dest/appliance/dist/"
echo "$version" > "$dest/VERSION"
# The bundle is ESM: Node treats a .mjs as a module whatever package.json says; this one only
# names the payload.
printf '{ "name": "alpr-appliance-device", "version": "%s", "private": true, "type": "module" }\n' "$version" > "$dest/package.json"

# Drizzle's optional database peers (PGlite, postgres) and type packages are installed in the
# workspace for the hub and the tests; the bundle never imports them.
skip='^(@alpr/|@electric-sql/|postgres$|@types/)'
npm ls --omit=dev --all --parseable --workspace appliance 2>/dev/null | while read -r path; do
  rel=${path#"$root"/}
  case "$rel" in node_modules/*|appliance/node_modules/*) ;; *) continue ;; esac
  # appliance/node_modules/X is the appliance's own version of X: at the top level in /opt/alpr.
  target=${rel#appliance/}
  pkg=${target#node_modules/}
  top=$(echo "$pkg" | sed -E 's#^((@[^/]+/)?[^/]+).*#\1#')
  if echo "$top" | grep -Eq "$skip"; then continue; fi
  mkdir -p "$dest/$(dirname "$target")"
  rm -rf "${dest:?}/$target"
  cp -a "$path" "$dest/$target"
done

# better-sqlite3: only the loader and the compiled module (its SQLite sources and object
# files are 30+ MB the device never reads).
bs=$dest/node_modules/better-sqlite3
[ -f "$bs/build/Release/better_sqlite3.node" ] || { echo "better-sqlite3 has no compiled module in node_modules" >&2; exit 1; }
find "$bs" -mindepth 1 -maxdepth 1 ! -name lib ! -name package.json ! -name build ! -name LICENSE -exec rm -rf {} +
find "$bs/build" -mindepth 1 -maxdepth 1 ! -name Release -exec rm -rf {} +
find "$bs/build/Release" -mindepth 1 -maxdepth 1 ! -name better_sqlite3.node -exec rm -rf {} +
# onnxruntime-node ships its native runtime for six platforms (288 MB); the device is
# linux/x64 (amd64 image): keep that one (45 MB), drop the rest.
ort=$dest/node_modules/onnxruntime-node/bin/napi-v6
if [ -d "$ort" ]; then
  [ -f "$ort/linux/x64/onnxruntime_binding.node" ] || { echo "onnxruntime-node has no linux/x64 binary in node_modules" >&2; exit 1; }
  find "$ort" -mindepth 1 -maxdepth 1 ! -name linux -exec rm -rf {} +
  find "$ort/linux" -mindepth 1 -maxdepth 1 ! -name x64 -exec rm -rf {} +
fi
echo "staged /opt/alpr: $(du -sh "$dest" | cut -f1) ($(ls "$dest/node_modules" | wc -l) top-level packages)"
