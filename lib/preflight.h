/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checks before anything is loaded, each failing with one sentence:
 * privileges (root, or CAP_BPF + CAP_PERFMON), kernel BTF, and libbpf's
 * logging. RLIMIT_MEMLOCK is raised when allowed; kernels since 5.11
 * account BPF memory to the memcg, so a refusal is not an error.
 */
#ifndef SCHEDSCAN_PREFLIGHT_H
#define SCHEDSCAN_PREFLIGHT_H

#include <stdbool.h>
#include <stddef.h>

struct common_opts;

/* Returns 0, or -1 after printing "<tool>: <reason>" to stderr. */
int preflight(const char *tool, const struct common_opts *opts);
/* Exported for tests. */
bool has_bpf_privileges(void);
const char *kernel_release(void);
/* The verifier's reason for refusing a program, from its log, on one line. */
void verifier_log_reason(const char *log, char *out, size_t outlen);

#endif
