// SPDX-License-Identifier: GPL-2.0
/*
 * The floor of make bench: programs that do nothing, attached where a
 * tool attaches (bench/floor.c sets each copy's hook at run time), so
 * what the kernel charges for running any program on that hook is
 * measured on its own.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("tp_btf")
int floor_tp_btf(void *ctx)
{
	return 0;
}

SEC("raw_tp")
int floor_raw_tp(void *ctx)
{
	return 0;
}

SEC("tracepoint")
int floor_tp(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
