#!/usr/bin/env bash
# `npm run graph`: the import graph between domain folders, from the code itself, written to
# docs/import-graph.mmd (Mermaid: GitHub and most editors draw it; no Graphviz needed).
# `scripts/graph.sh --check` (run by `npm test`) draws it afresh and fails when the committed
# file differs, so the picture cannot go stale.
# Tests and test helpers are left out: the picture is what ships. The layering rules that keep
# this picture honest are in .dependency-cruiser.cjs; docs/architecture.md explains them.
set -euo pipefail
cd "$(dirname "$0")/.."

# Test files and helpers, in today's names and in the scheme docs/conventions.md sets.
tests='\.test\.tsx?$|\.test-helper\.tsx?$|^test/'

out=docs/import-graph.mmd
if [ "${1:-}" = "--check" ]; then out=$(mktemp); trap 'rm -f "$out"' EXIT; fi

npx depcruise --config .dependency-cruiser.cjs \
  --exclude "(^|/)node_modules/|${tests}" \
  --collapse '^(shared|appliance|hub)/src/[^/]+|^(scripts)/[^/]+' \
  --include-only '^(shared|appliance|hub|scripts)/' \
  --output-type mermaid \
  shared appliance/src hub/src scripts > "$out"

if [ "${1:-}" = "--check" ]; then
  if ! diff -q docs/import-graph.mmd "$out" >/dev/null; then
    echo "docs/import-graph.mmd is stale: run npm run graph and commit it" >&2
    diff docs/import-graph.mmd "$out" | head -n 20 >&2
    exit 1
  fi
  echo "docs/import-graph.mmd matches the code"
else
  echo "wrote docs/import-graph.mmd"
fi
