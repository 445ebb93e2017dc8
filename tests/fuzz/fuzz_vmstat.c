// SPDX-License-Identifier: GPL-2.0
/* /proc/vmstat as the tests' ground truth reads it. */
#include "vmstat.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size), err[256];
	struct vmstat s, delta;
	struct vmstat_numa numa;

	if (!vmstat_parse(text, &s, err, sizeof(err))) {
		/* Every entry is found by its name. */
		for (size_t i = 0; i < s.nr; i++)
			FUZZ_ASSERT(vmstat_has(&s, s.entries[i].name));
		FUZZ_ASSERT(!vmstat_delta(&s, &s, &delta, err, sizeof(err)));
		for (size_t i = 0; i < delta.nr; i++)
			FUZZ_ASSERT(delta.entries[i].value == 0);
		vmstat_numa_fill(&s, &numa);
		vmstat_free(&delta);
	} else {
		FUZZ_ASSERT_SENTENCE(err);
	}
	vmstat_free(&s);
	free(text);
	return 0;
}
