#!/usr/bin/env bash
# `npm run graph`: the import graph between domain folders, from the code itself, written to
# docs/import-graph.mmd (Mermaid: GitHub and most editors draw it; no Graphviz needed).
# Tests and test helpers are left out: the picture is what ships. The layering rules that keep
# this picture honest are in .dependency-cruiser.cjs; docs/architecture.md explains them.
set -euo pipefail
cd "$(dirname "$0")/.."

# Test files and helpers, in today's names and in the scheme docs/conventions.md sets.
tests='\.test\.tsx?$|\.test-helper\.tsx?$|^test/'

npx depcruise --config .dependency-cruiser.cjs \
  --exclude "(^|/)node_modules/|${tests}" \
  --collapse '^(shared|appliance|hub)/src/[^/]+|^(scripts)/[^/]+' \
  --include-only '^(shared|appliance|hub|scripts)/' \
  --output-type mermaid \
  shared appliance/src hub/src scripts > docs/import-graph.mmd
echo "wrote docs/import-graph.mmd"
