#!/usr/bin/env bash
# Reference results describe one commit, so the scripts that make them refuse a binary
# built from a tree with uncommitted changes (its `--version` ends in -dirty).
#
#   harness/require_clean_build.sh LBBENCH
set -euo pipefail
built_from="$("$1" --version)"
if [[ "$built_from" == *-dirty ]]; then
  echo "$1 was built from uncommitted changes ($built_from): commit, rebuild, and run again" >&2
  exit 2
fi
