#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Installs the Debian packages schedscan builds and tests with. Runs
# "apt-get update" once, and only when something is missing.
set -euo pipefail

packages=(
	make gcc clang llvm			# build, llvm-strip
	libclang-rt-14-dev			# libFuzzer (tests/fuzz)
	valgrind libcap2-bin			# leak and privilege tests
	bpftool libbpf-dev libelf-dev zlib1g-dev libzstd-dev
	python3 python3-jsonschema jq		# JSON output checks
	librsvg2-bin				# --svg pictures rendered by a real renderer
	prometheus prometheus-node-exporter curl	# OpenMetrics output checks
	linux-perf bpftrace			# independent counters in tests
	libbpf-tools stress-ng rt-tests		# bench comparison and workloads
	qemu-system-x86 busybox-static cpio kmod	# tests/vm guests
	bc bison flex dwarves libssl-dev patch xz-utils	# the SIS_FILTER guest kernel
	util-linux procps iproute2
)

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#packages[@]} packages present"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing Debian packages: ${missing[*]}" >&2
	echo "deps: run as root, or: sudo apt-get install -y ${missing[*]}" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "deps: done"
