#!/usr/bin/env bash
# Stages what an installed hub runs, under one folder that becomes /opt/alpr-hub: the bundled
# hub (npm run build:hub), the npm packages it leaves external copied from this checkout's
# node_modules (the production closure npm computes for the hub workspace, as
# image/lib/stage-app.sh does for the appliance), and this folder's install files. argon2's
# native module is the one built here for Node 20 (ABI 115), which is also Debian trixie's
# node 20.19's ABI. Usage: hub/deploy/stage.sh <staging dir> [version]
set -euo pipefail
dest=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
version=${2:-$(node -p "require('$root/hub/package.json').version")}
cd "$root"
node hub/build.mjs >/dev/null
rm -rf "$dest"
mkdir -p "$dest/hub" "$dest/node_modules" "$dest/deploy"
cp -a hub/dist "$dest/hub/dist"
echo "$version" > "$dest/VERSION"
# hubVersion() (backup manifests) reads ../../package.json from the bundle: this one.
printf '{ "name": "alpr-hub-server", "version": "%s", "private": true, "type": "module" }\n' "$version" > "$dest/package.json"
cp hub/deploy/alpr-hub.service hub/deploy/hub.env.example hub/deploy/install.sh hub/deploy/create-database.sh hub/deploy/alpr-hub "$dest/deploy/"

# The workspace packages are compiled into the bundle; type packages are never imported;
# esbuild only bundles the dashboard scripts, which build.mjs did already.
skip='^(@alpr/|@types/|esbuild$|@esbuild/)'
npm ls --omit=dev --all --parseable --workspace hub 2>/dev/null | while read -r path; do
  rel=${path#"$root"/}
  case "$rel" in node_modules/*|hub/node_modules/*) ;; *) continue ;; esac
  # hub/node_modules/X is the hub's own version of X: at the top level in /opt/alpr-hub.
  target=${rel#hub/}
  pkg=${target#node_modules/}
  top=$(echo "$pkg" | sed -E 's#^((@[^/]+/)?[^/]+).*#\1#')
  if echo "$top" | grep -Eq "$skip"; then continue; fi
  mkdir -p "$dest/$(dirname "$target")"
  rm -rf "${dest:?}/$target"
  cp -a "$path" "$dest/$target"
done
[ -d "$dest/node_modules/argon2" ] || { echo "argon2 missing from the staged node_modules" >&2; exit 1; }
echo "staged the hub: $(du -sh "$dest" | cut -f1) ($(ls "$dest/node_modules" | wc -l) top-level packages)"
