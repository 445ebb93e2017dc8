// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "options.h"
#include "preflight.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static bool verbose_libbpf;

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	if (level == LIBBPF_DEBUG && !verbose_libbpf)
		return 0;
	return vfprintf(stderr, fmt, args);
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

	verbose_libbpf = opts->verbose;
	libbpf_set_print(libbpf_print);
	if (!has_bpf_privileges()) {
		fprintf(stderr,
			"%s: needs root or the CAP_BPF and CAP_PERFMON capabilities\n",
			tool);
		return -1;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr,
			"%s: this kernel has no BTF (/sys/kernel/btf/vmlinux is missing); it needs Linux 5.8 or later built with CONFIG_DEBUG_INFO_BTF=y\n",
			tool);
		return -1;
	}
	if (setrlimit(RLIMIT_MEMLOCK, &unlimited) && opts->verbose)
		fprintf(stderr,
			"%s: RLIMIT_MEMLOCK stays as it is (%s); fine on kernels with memcg-accounted BPF memory\n",
			tool, strerror(errno));
	return 0;
}
