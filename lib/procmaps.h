/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names of a process's memory mappings from /proc/PID/maps, as pmap and
 * /proc show them: the file's path, "[heap]", "[stack]", "[vdso]"..., or
 * "[anon]" for an anonymous mapping. Each process's maps are read once
 * and read again only when an address is not in them (a mapping made
 * since), so a table with thousands of VMA rows costs one read per
 * process.
 */
#ifndef SCHEDSCAN_PROCMAPS_H
#define SCHEDSCAN_PROCMAPS_H

#include <stddef.h>

struct procmaps_mapping {
	unsigned long long start, end;
	char *name;
};

struct procmaps_process {
	unsigned int tgid;
	struct procmaps_mapping *maps;
	size_t nr;
	int error;		/* errno of the last read, 0 if it worked */
};

struct procmaps_cache {
	const char *proc_root;	/* "/proc" unless a test says otherwise */
	struct procmaps_process *procs;
	size_t nr, cap;
};

/* Parses one maps file's text into *p (replacing what it held). 0 or -errno. */
int procmaps_parse(const char *text, struct procmaps_process *p);
void procmaps_cache_init(struct procmaps_cache *c, const char *proc_root);
void procmaps_cache_free(struct procmaps_cache *c);
/*
 * The name of the mapping of tgid that holds addr, in out: 0; -ESRCH
 * when the process is gone (out: "(exited)"), -ENOENT when no mapping
 * holds it (out: "?"), another -errno when maps cannot be read.
 */
int procmaps_name(struct procmaps_cache *c, unsigned int tgid,
		  unsigned long long addr, char *out, size_t len);

#endif
