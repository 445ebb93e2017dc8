// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "options.h"
#include "preflight.h"
#include "probe.h"
#include "runloop.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static bool verbose_libbpf;

/*
 * The verifier's reason for refusing a program: the last lines before its
 * "processed N insns" statistics (or before the end of a truncated log).
 */
void verifier_log_reason(const char *log, char *out, size_t outlen)
{
	const char *end = strstr(log, "\nprocessed ");
	const char *line_end, *start;
	int lines = 0;

	if (outlen)
		out[0] = 0;
	if (!end)
		end = log + strlen(log);
	while (end > log && end[-1] == '\n')
		end--;
	line_end = end;
	start = end;
	/* Two lines: "invalid access to map value ..." and "R4 max value is ...". */
	while (start > log && lines < 2) {
		start--;
		if (*start == '\n' && start + 1 < line_end)
			lines++;
	}
	if (*start == '\n')
		start++;
	for (size_t n = 0; outlen && start < line_end; start++) {
		const char *piece = *start == '\n' ? "; " : (char[2]){ *start, 0 };
		size_t len = strlen(piece);

		if (n + len >= outlen)
			break;
		memcpy(out + n, piece, len);
		n += len;
		out[n] = 0;
	}
}

/*
 * Without -v: libbpf's warnings, but a verifier log (hundreds of lines,
 * printed at warning level) shrinks to the verifier's reason.
 */
static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	static const char begin[] = "-- BEGIN PROG LOAD LOG --\n";
	char *text = NULL, reason[512], *log, *log_end;
	int ret;

	if (verbose_libbpf)
		return vfprintf(stderr, fmt, args);
	if (level == LIBBPF_DEBUG)
		return 0;
	if (vasprintf(&text, fmt, args) < 0)
		return 0;
	log = strstr(text, begin);
	if (!log) {
		ret = fputs(text, stderr);
		free(text);
		return ret;
	}
	/* "libbpf: prog 'NAME': " precedes the log. */
	log_end = strstr(log, "-- END PROG LOAD LOG --");
	if (log_end)
		*log_end = 0;
	verifier_log_reason(log + sizeof(begin) - 1, reason, sizeof(reason));
	ret = fprintf(stderr, "%.*sthe verifier refused it: %s\n", (int)(log - text), text,
		      reason);
	free(text);
	return ret;
}

static bool cap_effective(const struct __user_cap_data_struct data[2], int cap)
{
	return data[cap / 32].effective & (1U << (cap % 32));
}

bool has_bpf_privileges(void)
{
	struct __user_cap_header_struct header = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &header, data))
		return geteuid() == 0;
	if (cap_effective(data, CAP_SYS_ADMIN))
		return true;
	return cap_effective(data, CAP_BPF) && cap_effective(data, CAP_PERFMON);
}

const char *kernel_release(void)
{
	static struct utsname uts;

	if (!uts.release[0] && uname(&uts))
		return "unknown";
	return uts.release;
}

int preflight(const char *tool, const struct common_opts *opts)
{
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };

	/*
	 * First of all: a SIGINT during a slow load then ends the run as soon
	 * as it starts, with its summary. (A script's background job starts
	 * with SIGINT ignored, and one sent before the handler was in place
	 * was lost: the tool ran until killed.)
	 */
	run_install_signals();
	verbose_libbpf = opts->verbose;
	libbpf_set_print(libbpf_print);
	if (!has_bpf_privileges()) {
		fprintf(stderr,
			"%s: needs root or the CAP_BPF and CAP_PERFMON capabilities\n",
			tool);
		return -1;
	}
	if (opts->btf_path)
		probe_use_btf(opts->btf_path);	/* checked with the options */
	else if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr,
			"%s: this kernel has no BTF (/sys/kernel/btf/vmlinux is missing); it needs Linux 5.8 or later built with CONFIG_DEBUG_INFO_BTF=y, or its BTF in a file given with --btf (e.g. from btfhub)\n",
			tool);
		return -1;
	}
	if (setrlimit(RLIMIT_MEMLOCK, &unlimited) && opts->verbose)
		fprintf(stderr,
			"%s: RLIMIT_MEMLOCK stays as it is (%s); fine on kernels with memcg-accounted BPF memory\n",
			tool, strerror(errno));
	return 0;
}
