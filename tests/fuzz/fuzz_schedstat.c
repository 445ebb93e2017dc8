// SPDX-License-Identifier: GPL-2.0
/* /proc/schedstat (versions 15-17) as the tests' ground truth reads it. */
#include "schedstat.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size), err[256];
	struct schedstat s, delta;

	if (!schedstat_parse(text, &s, err, sizeof(err))) {
		/* A file minus itself: every counter 0, never an error. */
		FUZZ_ASSERT(!schedstat_delta(&s, &s, &delta, err, sizeof(err)));
		FUZZ_ASSERT(delta.nr_cpus == s.nr_cpus);
		for (int level = 0; level < schedstat_nr_levels(&delta); level++)
			FUZZ_ASSERT(schedstat_sum_lb_all_types(&delta, level, SS_LB_COUNT) == 0);
		schedstat_free(&delta);
	} else {
		FUZZ_ASSERT_SENTENCE(err);
	}
	schedstat_free(&s);
	free(text);
	return 0;
}
