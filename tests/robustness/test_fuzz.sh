#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A short libFuzzer run of every parser harness (tests/fuzz/), after the
# inputs that once crashed them; make fuzz runs them for long.
exec bash "$(dirname "$0")/../fuzz/run.sh" "${FUZZ_SECONDS:-5}"
