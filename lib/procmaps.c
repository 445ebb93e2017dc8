// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "procmaps.h"
#include "util.h"

static void process_clear(struct procmaps_process *p)
{
	for (size_t i = 0; i < p->nr; i++)
		free(p->maps[i].name);
	free(p->maps);
	p->maps = NULL;
	p->nr = 0;
}

/*
 * One line: "start-end perms offset dev inode[ name]"; the name is the
 * rest of the line after the inode's padding (a path may hold spaces).
 */
static int parse_line(const char *line, size_t len, struct procmaps_mapping *m)
{
	unsigned long long start, end;
	char buf[4352];
	int name_at = -1;

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, line, len);
	buf[len] = '\0';
	if (sscanf(buf, "%llx-%llx %*s %*s %*s %*s %n", &start, &end, &name_at) < 2 ||
	    name_at < 0 || end <= start)
		return -EINVAL;
	m->start = start;
	m->end = end;
	m->name = strdup(buf[name_at] ? buf + name_at : "[anon]");
	return m->name ? 0 : -ENOMEM;
}

int procmaps_parse(const char *text, struct procmaps_process *p)
{
	size_t cap = 0;

	process_clear(p);
	while (*text) {
		size_t len = strcspn(text, "\n");
		struct procmaps_mapping m;
		int ret;

		if (len) {
			ret = parse_line(text, len, &m);
			if (ret) {
				process_clear(p);
				return ret;
			}
			if (p->nr == cap) {
				size_t ncap = cap ? 2 * cap : 64;
				struct procmaps_mapping *n = realloc(p->maps, ncap * sizeof(*n));

				if (!n) {
					free(m.name);
					process_clear(p);
					return -ENOMEM;
				}
				p->maps = n;
				cap = ncap;
			}
			p->maps[p->nr++] = m;
		}
		text += len + (text[len] == '\n');
	}
	return 0;
}

void procmaps_cache_init(struct procmaps_cache *c, const char *proc_root)
{
	memset(c, 0, sizeof(*c));
	c->proc_root = proc_root ? proc_root : "/proc";
}

void procmaps_cache_free(struct procmaps_cache *c)
{
	for (size_t i = 0; i < c->nr; i++)
		process_clear(&c->procs[i]);
	free(c->procs);
	memset(c, 0, sizeof(*c));
}

static struct procmaps_process *cached(struct procmaps_cache *c, unsigned int tgid)
{
	for (size_t i = 0; i < c->nr; i++)
		if (c->procs[i].tgid == tgid)
			return &c->procs[i];
	if (c->nr == c->cap) {
		size_t ncap = c->cap ? 2 * c->cap : 16;
		struct procmaps_process *n = realloc(c->procs, ncap * sizeof(*n));

		if (!n)
			return NULL;
		c->procs = n;
		c->cap = ncap;
	}
	memset(&c->procs[c->nr], 0, sizeof(c->procs[c->nr]));
	c->procs[c->nr].tgid = tgid;
	c->procs[c->nr].error = -EAGAIN;	/* never read */
	return &c->procs[c->nr++];
}

static int reread(struct procmaps_cache *c, struct procmaps_process *p)
{
	struct procmaps_process fresh = { .tgid = p->tgid };
	char path[300], *text = NULL;
	int ret;

	snprintf(path, sizeof(path), "%s/%u/maps", c->proc_root, p->tgid);
	ret = read_text_file(path, &text, NULL, 0);
	if (ret) {
		/* Gone: keep what an earlier read found, for its rows. */
		p->error = ret == -ENOENT ? -ESRCH : ret;
		return p->error;
	}
	ret = procmaps_parse(text, &fresh);
	free(text);
	/*
	 * A process that is exiting (its memory gone, not yet reaped) reads
	 * as no mapping at all: keep what an earlier read found, as for one
	 * that is gone.
	 */
	if (!ret && !fresh.nr && p->nr) {
		process_clear(&fresh);
		p->error = -ESRCH;
		return p->error;
	}
	process_clear(p);
	p->maps = fresh.maps;
	p->nr = fresh.nr;
	p->error = ret;
	return ret;
}

static const struct procmaps_mapping *holding(const struct procmaps_process *p,
					      unsigned long long addr)
{
	for (size_t i = 0; i < p->nr; i++)
		if (p->maps[i].start <= addr && addr < p->maps[i].end)
			return &p->maps[i];
	return NULL;
}

int procmaps_name(struct procmaps_cache *c, unsigned int tgid,
		  unsigned long long addr, char *out, size_t len)
{
	struct procmaps_process *p = cached(c, tgid);
	const struct procmaps_mapping *m;
	int ret = 0;

	if (!p) {
		snprintf(out, len, "?");
		return -ENOMEM;
	}
	m = holding(p, addr);
	if (!m && p->error != -ESRCH) {
		ret = reread(c, p);
		m = holding(p, addr);
	}
	if (m) {
		snprintf(out, len, "%s", m->name);
		return 0;
	}
	if (p->error == -ESRCH) {
		snprintf(out, len, "(exited)");
		return -ESRCH;
	}
	snprintf(out, len, "?");
	return ret ? ret : -ENOENT;
}
