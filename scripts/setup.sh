#!/usr/bin/env bash
# Set up the project on a machine that has only Python 3.11+ and pip:
# find uv (or install it into .tools/, never into the system Python), then create .venv from
# the lock file. Safe to run again; it only changes what is missing or out of date.
set -euo pipefail
cd "$(dirname "$0")/.."

if command -v uv >/dev/null 2>&1; then
  UV=$(command -v uv)
else
  if [ ! -x .tools/bin/uv ]; then
    python3 -m venv .tools
    .tools/bin/python -m pip install --quiet --disable-pip-version-check "uv>=0.9,<1"
  fi
  UV=.tools/bin/uv
fi
"$UV" sync --frozen --all-packages "$@"
echo "$UV"
