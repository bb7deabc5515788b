#!/usr/bin/env bash
# Installs droidverify and everything it needs into a virtual environment (default .venv), at the
# versions in requirements.lock, then checks that what is installed is what the lock says.
# Idempotent. Upgrading is deliberate: `bash scripts/lock.sh` rewrites the lock (see its header).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV=${DROIDVERIFY_VENV:-.venv}
[ -x "$VENV/bin/python" ] || $PY -m venv "$VENV"
VPY="$VENV/bin/python"
# The lock constrains every pip call below, and (through the environment variable) the isolated
# build environments of packages compiled from source, so a later release never sneaks in.
export PIP_CONSTRAINT="$PWD/requirements.lock"
$VPY -m pip install -q --upgrade pip setuptools wheel
source scripts/install_steps.sh
install_droidverify "$VPY"
$VPY scripts/check_lock.py requirements.lock
