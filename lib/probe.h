/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Can this kernel attach a given flavour to a given function or
 * tracepoint? Each check really loads (and for fentry/raw_tp briefly
 * attaches) a two-instruction program, because "the symbol exists" is
 * not the same as "attaching works": on some kernels fentry loads fail
 * with EPERM while the BTF is all there. Results are one sentence in
 * why on failure.
 */
#ifndef SCHEDSCAN_PROBE_H
#define SCHEDSCAN_PROBE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * PROBE_ABSENT: the target is not in this kernel (inlined, renamed,
 * never there); PROBE_REFUSED: it is, but the kernel refuses the flavour
 * (a policy, a missing PMU): the first is about one name, the second
 * about the whole tier.
 */
enum probe_result { PROBE_OK, PROBE_ABSENT, PROBE_REFUSED };

enum probe_result probe_fentry(const char *func, char *why, size_t whylen);
/* Frees what the probes cached (the kernel BTF). */
void probe_release(void);
/* Type lookups from this BTF file (--btf) instead of the kernel's. */
void probe_use_btf(const char *path);
enum probe_result probe_kprobe(const char *func, char *why, size_t whylen);
enum probe_result probe_tp_btf(const char *tp, char *why, size_t whylen);
enum probe_result probe_raw_tp(const char *tp, char *why, size_t whylen);
enum probe_result probe_tracepoint(const char *category, const char *tp, char *why,
				   size_t whylen);
/*
 * Byte offset of member_name in struct_name in the running kernel's BTF,
 * or -1 if either is missing.
 */
int kernel_struct_member_offset(const char *struct_name, const char *member_name);
/*
 * The name of the struct that parameter index (from 0) of func points
 * to in the kernel's BTF ("vm_fault" for a struct vm_fault *), in out:
 * 0, or -1 if func, the parameter or a struct pointer is missing.
 */
int kernel_func_param_struct(const char *func, int index, char *out, size_t len);
/* The position (from 0) of func's parameter called name in the kernel's BTF, or -1. */
int kernel_func_param_index(const char *func, const char *name);
/*
 * Address of a text symbol in /proc/kallsyms (below proc_root), or 0
 * (also when kptr_restrict hides addresses).
 */
unsigned long long kernel_symbol_address(const char *proc_root, const char *name);
/* /proc/kallsyms shows this user no address (kptr_restrict), or cannot be read. */
bool kernel_addresses_hidden(const char *proc_root);
/*
 * The same for a data symbol (needs CONFIG_KALLSYMS_ALL), or 0; a text
 * symbol of that name when no data symbol has it (7.3's "T" for
 * sysctl_sched_features).
 */
unsigned long long kernel_data_address(const char *proc_root, const char *name);
/*
 * Value of the enumerator called name in the kernel's BTF (anonymous
 * enums too, which CO-RE cannot relocate): 0, or -1 if there is none.
 */
int kernel_enum_value(const char *name, long long *value);
/*
 * A numeric option of the running kernel's config (e.g. "CONFIG_HZ"),
 * from /boot/config-$(uname -r) or /proc/config.gz: 0, or -1 if neither
 * has it.
 */
int kernel_config_value(const char *name, long *value);
/* Mount point of tracefs, or NULL. */
const char *tracefs_path(void);

#endif
