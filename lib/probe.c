// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <zlib.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "probe.h"
#include "util.h"

static const struct bpf_insn return_zero[] = {
	{ .code = 0xb7, .dst_reg = 0, .imm = 0 },	/* r0 = 0 */
	{ .code = 0x95 },				/* exit */
};

/*
 * The kernel's own BTF, loaded once: what fentry and tp_btf attach to.
 * Type lookups (members, enumerators) use --btf FILE instead when given:
 * on a kernel built without BTF it describes the kernel's types.
 */
static struct btf *cached_btf, *cached_types;
static bool btf_tried, types_tried;
static const char *types_path;

static struct btf *vmlinux_btf(void)
{
	if (!btf_tried) {
		btf_tried = true;
		/*
		 * Without /sys/kernel/btf/vmlinux the kernel has no BTF of its own,
		 * so nothing attaches by BTF id whatever file libbpf would find
		 * elsewhere (and it would warn that it found none).
		 */
		if (access("/sys/kernel/btf/vmlinux", R_OK))
			return NULL;
		cached_btf = btf__load_vmlinux_btf();
		if (libbpf_get_error(cached_btf))
			cached_btf = NULL;
	}
	return cached_btf;
}

static struct btf *types_btf(void)
{
	if (!types_path)
		return vmlinux_btf();
	if (!types_tried) {
		types_tried = true;
		cached_types = btf__parse(types_path, NULL);
		if (libbpf_get_error(cached_types))
			cached_types = NULL;
	}
	return cached_types;
}

void probe_use_btf(const char *path)
{
	types_path = path;
}

void probe_release(void)
{
	btf__free(cached_btf);
	btf__free(cached_types);
	cached_btf = cached_types = NULL;
	btf_tried = types_tried = false;
}

/*
 * The sentence for a test program the kernel would not load: EPERM is
 * a policy (lockdown, an LSM, unprivileged BPF off), not a missing name.
 */
static enum probe_result refused(const char *step, const char *what, int error, char *why,
				 size_t whylen)
{
	if (error == EPERM || error == EACCES)
		errmsg(why, whylen,
		       "the kernel refuses %s programs (%s: lockdown, an LSM policy or missing capabilities)",
		       what, error == EPERM ? "EPERM" : "EACCES");
	else
		errmsg(why, whylen, "%s a test %s program failed: %s", step, what,
		       strerror(error));
	return PROBE_REFUSED;
}

/*
 * Loads return_zero with opts and, if asked, opens a raw tracepoint or
 * link on it. Detaching a tracing program waits for an RCU-tasks grace
 * period (about 0.25 s here), so only checks that need it attach.
 */
static enum probe_result load_and_open(enum bpf_prog_type type,
				       const struct bpf_prog_load_opts *opts, bool attach,
				       const char *raw_tp_name, const char *what,
				       char *why, size_t whylen)
{
	int prog_fd, link_fd, error;

	prog_fd = bpf_prog_load(type, NULL, "GPL", return_zero, 2, opts);
	if (prog_fd < 0)
		return refused("loading", what, errno, why, whylen);
	if (!attach) {
		close(prog_fd);
		return PROBE_OK;
	}
	link_fd = bpf_raw_tracepoint_open(raw_tp_name, prog_fd);
	if (link_fd < 0) {
		error = errno;
		close(prog_fd);
		/* raw_tp: the kernel has no tracepoint of that name. */
		if (raw_tp_name && error == ENOENT) {
			errmsg(why, whylen, "tracepoint %s does not exist", raw_tp_name);
			return PROBE_ABSENT;
		}
		return refused("attaching", what, error, why, whylen);
	}
	close(link_fd);
	close(prog_fd);
	return PROBE_OK;
}

enum probe_result probe_fentry(const char *func, char *why, size_t whylen)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = BPF_TRACE_FENTRY);
	struct btf *btf = vmlinux_btf();
	int id;

	if (!btf) {
		errmsg(why, whylen, "the kernel BTF could not be loaded");
		return PROBE_REFUSED;
	}
	id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	if (id <= 0) {
		errmsg(why, whylen, "%s() is not in the kernel BTF (inlined, renamed or absent)",
		       func);
		return PROBE_ABSENT;
	}
	opts.attach_btf_id = id;
	/* Some kernels load fentry programs they cannot attach (no trampoline). */
	return load_and_open(BPF_PROG_TYPE_TRACING, &opts, true, NULL, "fentry",
			     why, whylen);
}

enum probe_result probe_tp_btf(const char *tp, char *why, size_t whylen)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = BPF_TRACE_RAW_TP);
	struct btf *btf = vmlinux_btf();
	char name[128];
	int id = -1;

	if (!btf) {
		errmsg(why, whylen, "the kernel BTF could not be loaded");
		return PROBE_REFUSED;
	}
	/*
	 * A tp_btf program attaches to the "btf_trace_<tp>" typedef; looked up
	 * in the BTF already parsed here rather than by
	 * libbpf_find_vmlinux_btf_id(), which parses vmlinux BTF on every call.
	 */
	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id <= 0) {
		errmsg(why, whylen, "tracepoint %s is not in the kernel BTF", tp);
		return PROBE_ABSENT;
	}
	opts.attach_btf_id = id;
	return load_and_open(BPF_PROG_TYPE_TRACING, &opts, false, NULL,
			     "tp_btf", why, whylen);
}

enum probe_result probe_raw_tp(const char *tp, char *why, size_t whylen)
{
	return load_and_open(BPF_PROG_TYPE_RAW_TRACEPOINT, NULL, true, tp,
			     "raw_tp", why, whylen);
}

static int read_int_file(const char *path, int *value)
{
	char *text = NULL;
	int ret = -1;

	if (!read_text_file(path, &text, NULL, 0) && sscanf(text, "%d", value) == 1)
		ret = 0;
	free(text);
	return ret;
}

/*
 * Opens a kprobe perf event on func through the kprobe PMU, the same
 * path libbpf takes, and closes it again.
 */
enum probe_result probe_kprobe(const char *func, char *why, size_t whylen)
{
	struct perf_event_attr attr = {};
	int type, fd;

	if (read_int_file("/sys/bus/event_source/devices/kprobe/type", &type)) {
		errmsg(why, whylen, "this kernel has no kprobe PMU (CONFIG_KPROBES off or kprobes disabled)");
		return PROBE_REFUSED;
	}
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config1 = (uint64_t)(uintptr_t)func;	/* kprobe_func */
	attr.config2 = 0;				/* probe_offset */
	fd = syscall(__NR_perf_event_open, &attr, -1, 0, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		int error = errno;

		/* register_kprobe()'s answer for a symbol kallsyms does not have. */
		if (error == ENOENT) {
			errmsg(why, whylen, "%s() is not a kernel symbol (inlined, renamed or absent)",
			       func);
			return PROBE_ABSENT;
		}
		errmsg(why, whylen, "a kprobe on %s() could not be created: %s",
		       func, strerror(error));
		return PROBE_REFUSED;
	}
	close(fd);
	return PROBE_OK;
}

const char *tracefs_path(void)
{
	static const char *const candidates[] = {
		"/sys/kernel/tracing",
		"/sys/kernel/debug/tracing",
	};
	char path[256];

	for (size_t i = 0; i < ARRAY_SIZE(candidates); i++) {
		snprintf(path, sizeof(path), "%s/events", candidates[i]);
		if (!access(path, R_OK))
			return candidates[i];
	}
	return NULL;
}

enum probe_result probe_tracepoint(const char *category, const char *tp, char *why,
				   size_t whylen)
{
	const char *tracefs = tracefs_path();
	char path[512];

	if (!tracefs) {
		errmsg(why, whylen, "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
		return PROBE_REFUSED;
	}
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs, category, tp);
	if (access(path, R_OK)) {
		errmsg(why, whylen, "tracepoint %s:%s does not exist", category, tp);
		return PROBE_ABSENT;
	}
	return PROBE_OK;
}

int kernel_struct_member_offset(const char *struct_name, const char *member_name)
{
	struct btf *btf = types_btf();
	const struct btf_type *t;
	const struct btf_member *m;
	int id;

	if (!btf)
		return -1;
	id = btf__find_by_name_kind(btf, struct_name, BTF_KIND_STRUCT);
	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), member_name))
			return btf_member_bit_offset(t, i) / 8;
	return -1;
}

int kernel_func_param_struct(const char *func, int index, char *out, size_t len)
{
	struct btf *btf = types_btf();
	const struct btf_type *t;
	const struct btf_param *params;
	int id;

	if (!btf || index < 0)
		return -1;
	id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	if (id <= 0)
		return -1;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	if (!t || !btf_is_func_proto(t) || index >= btf_vlen(t))
		return -1;
	params = btf_params(t);
	t = btf__type_by_id(btf, params[index].type);
	while (t && (btf_is_mod(t) || btf_is_typedef(t)))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_ptr(t))
		return -1;
	t = btf__type_by_id(btf, t->type);
	while (t && (btf_is_mod(t) || btf_is_typedef(t)))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_struct(t))
		return -1;
	snprintf(out, len, "%s", btf__name_by_offset(btf, t->name_off));
	return 0;
}

int kernel_func_param_index(const char *func, const char *name)
{
	struct btf *btf = types_btf();
	const struct btf_type *t;
	const struct btf_param *params;
	int id;

	if (!btf)
		return -1;
	id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	if (id <= 0)
		return -1;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	if (!t || !btf_is_func_proto(t))
		return -1;
	params = btf_params(t);
	for (int i = 0; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, params[i].name_off), name))
			return i;
	return -1;
}

/*
 * The first symbol called name whose kallsyms type is in types. The
 * file has 200000 lines and more ("ADDR T NAME [module]"): read in 1 MiB
 * blocks and matched by name before anything is converted, not parsed
 * with fscanf() in 4 KiB reads (sisscan's start-up: 66 ms of read()s).
 */
/*
 * The address of name in kallsyms with a type letter of types, else (in
 * the same read) of fallback_types (NULL: none), else 0.
 */
static unsigned long long symbol_address(const char *proc_root, const char *name,
					 const char *types, const char *fallback_types)
{
	unsigned long long found = 0, fallback = 0;
	size_t len = strlen(name), cap = 0;
	char path[4096], *line = NULL;
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kallsyms", proc_root);
	f = fopen(path, "r");
	if (!f)
		return 0;
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	while (!found && (n = getline(&line, &cap, f)) > 0) {
		char *space = memchr(line, ' ', (size_t)n), *sym;

		if (!space || space + 3 > line + n || space[2] != ' ')
			continue;
		sym = space + 3;
		if ((size_t)(line + n - sym) < len || memcmp(sym, name, len) ||
		    !strchr(" \t\n", sym[len]))
			continue;
		if (strchr(types, space[1]))
			found = strtoull(line, NULL, 16);
		else if (fallback_types && !fallback && strchr(fallback_types, space[1]))
			fallback = strtoull(line, NULL, 16);
	}
	free(line);
	fclose(f);
	return found ? found : fallback;
}

unsigned long long kernel_symbol_address(const char *proc_root, const char *name)
{
	return symbol_address(proc_root, name, "tT", NULL);
}

bool kernel_addresses_hidden(const char *proc_root)
{
	char path[4096], line[256] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/kallsyms", proc_root);
	f = fopen(path, "r");
	if (!f)
		return true;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	/* kptr_restrict shows every address as zeros to a reader without CAP_SYSLOG. */
	return !line[0] || strspn(line, "0") == strcspn(line, " ");
}

unsigned long long kernel_data_address(const char *proc_root, const char *name)
{
	/*
	 * Debian's 7.3 lists sysctl_sched_features as "T": a data symbol by
	 * any type letter is still the one of that name (missing it made
	 * sisscan take SIS_UTIL as on when it was off).
	 */
	return symbol_address(proc_root, name, "dDbBrR", "tT");
}

int kernel_enum_value(const char *name, long long *value)
{
	struct btf *btf = types_btf();
	int n;

	if (!btf)
		return -1;
	n = (int)btf__type_cnt(btf);
	for (int id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		bool wide = btf_is_enum64(t);

		if (!wide && !btf_is_enum(t))
			continue;
		for (int i = 0; i < btf_vlen(t); i++) {
			__u32 name_off = wide ? btf_enum64(t)[i].name_off : btf_enum(t)[i].name_off;

			if (strcmp(btf__name_by_offset(btf, name_off), name))
				continue;
			*value = wide ? (long long)btf_enum64_value(&btf_enum64(t)[i])
				      : btf_enum(t)[i].val;
			return 0;
		}
	}
	return -1;
}

/* "NAME=value" in one line of a kernel config: 0 with *value, else -1. */
static int config_line(const char *line, const char *name, long *value)
{
	size_t len = strlen(name);
	char *end;

	if (strncmp(line, name, len) || line[len] != '=')
		return -1;
	*value = strtol(line + len + 1, &end, 0);
	return end == line + len + 1 ? -1 : 0;
}

int kernel_config_value(const char *name, long *value)
{
	char paths[2][300], line[512];
	struct utsname u;

	snprintf(paths[0], sizeof(paths[0]), "/boot/config-%s", uname(&u) ? "" : u.release);
	snprintf(paths[1], sizeof(paths[1]), "/proc/config.gz");
	/* gzopen() reads a file that is not gzip as it is: one loop for both. */
	for (int p = 0; p < 2; p++) {
		gzFile gz = gzopen(paths[p], "r");
		int found = -1;

		if (!gz)
			continue;
		while (found && gzgets(gz, line, sizeof(line)))
			found = config_line(line, name, value);
		gzclose(gz);
		if (!found)
			return 0;
	}
	return -1;
}
