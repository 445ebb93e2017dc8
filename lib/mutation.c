// SPDX-License-Identifier: GPL-2.0
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "bpf/mutation.h"
#include "mutation.h"
#include "util.h"

#ifdef SCHEDSCAN_TEST_BUILD
/* Where the object's .rodata holds the variable schedscan_mutation. */
static void *rodata_variable(struct bpf_object *obj, const char *var)
{
	const struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *map;

	if (!btf)
		return NULL;
	bpf_object__for_each_map(map, obj) {
		const char *name = bpf_map__name(map);
		size_t len = strlen(name), size;
		const struct btf_var_secinfo *vs;
		const struct btf_type *sec;
		char *data;
		int id;

		if (!bpf_map__is_internal(map) || len < 7 ||
		    strcmp(name + len - 7, ".rodata"))
			continue;
		id = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC);
		/* The skeleton writes .rodata through the same memory before load. */
		data = (char *)(uintptr_t)bpf_map__initial_value(map, &size);
		if (id < 0 || !data)
			return NULL;
		sec = btf__type_by_id(btf, id);
		vs = btf_var_secinfos(sec);
		for (int i = 0; i < btf_vlen(sec); i++, vs++) {
			const struct btf_type *v = btf__type_by_id(btf, vs->type);

			if (!strcmp(btf__name_by_offset(btf, v->name_off), var) &&
			    vs->offset + sizeof(struct schedscan_mutation) <= size)
				return data + vs->offset;
		}
	}
	return NULL;
}

int mutation_apply(struct bpf_object *obj,
		   int (*lookup)(const char *name, void *ctx), void *ctx,
		   char *err, size_t errlen)
{
	const char *spec = getenv("SCHEDSCAN_MUTATION");
	struct schedscan_mutation m = { 0 };
	char from[64], to[64];
	void *where;

	if (!spec || !*spec)
		return 0;
	if (!strcmp(spec, "drop")) {
		m.kind = MUTATION_DROP;
	} else if (!strcmp(spec, "shift-hist")) {
		m.kind = MUTATION_SHIFT_HIST;
	} else if (!strcmp(spec, "freeze-filters")) {
		m.kind = MUTATION_FREEZE_FILTERS;
	} else if (!strcmp(spec, "stretch-durations")) {
		m.kind = MUTATION_STRETCH_DURATIONS;
	} else if (sscanf(spec, "count-as:%63[^:]:%63s", from, to) == 2) {
		int a = lookup(from, ctx), b = lookup(to, ctx);

		/* Another tool's metrics: this one runs as built. */
		if (a < 0 || b < 0) {
			fprintf(stderr, "TEST BUILD: SCHEDSCAN_MUTATION=%s: no counter %s here, not applied\n",
				spec, a < 0 ? from : to);
			return 0;
		}
		m.kind = MUTATION_COUNT_AS;
		m.from = a;
		m.to = b;
	} else {
		return errmsg(err, errlen, "SCHEDSCAN_MUTATION=%s: unknown mutation", spec);
	}
	where = rodata_variable(obj, "schedscan_mutation");
	if (!where)
		return errmsg(err, errlen, "SCHEDSCAN_MUTATION: no schedscan_mutation in .rodata");
	memcpy(where, &m, sizeof(m));
	fprintf(stderr, "TEST BUILD: SCHEDSCAN_MUTATION=%s: this run miscounts on purpose\n", spec);
	return 0;
}
#else
int mutation_apply(struct bpf_object *obj,
		   int (*lookup)(const char *name, void *ctx), void *ctx,
		   char *err, size_t errlen)
{
	return 0;
}
#endif
