/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Task and CPU selection shared by user space and the BPF programs.
 * User space fills one struct schedscan_filter in each tool's .rodata
 * before load, so a filter that is not in use costs one predictable
 * branch and nothing else.
 */
#ifndef SCHEDSCAN_SELECTION_H
#define SCHEDSCAN_SELECTION_H

#define SCHEDSCAN_COMM_LEN 16
#define SCHEDSCAN_MAX_CPUS 8192
#define SCHEDSCAN_CGROUP_MAX_DEPTH 16

struct schedscan_filter {
	__u32 tgid;		/* 0: any process */
	__u8 use_comm;
	__u8 use_cgroup;
	__u8 use_cpus;
	__u8 pad;
	__u64 cgroup_id;	/* cgroup v2 id (kernfs node id) */
	char comm[SCHEDSCAN_COMM_LEN];
	__u64 cpus[SCHEDSCAN_MAX_CPUS / 64];
};

#endif
