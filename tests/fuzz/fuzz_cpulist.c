// SPDX-License-Identifier: GPL-2.0
/* cpulist_parse() (-C, sysfs lists) and cpumask_parse_hex() (sysfs masks). */
#include "cpumask.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size), err[256], list[65536];
	struct cpumask mask, again;

	if (!cpulist_parse(text, &mask, err, sizeof(err))) {
		/* What parses formats back to a list that parses to the same mask. */
		if (cpulist_format(&mask, list, sizeof(list)) >= 0) {
			FUZZ_ASSERT(!cpulist_parse(list, &again, err, sizeof(err)));
			FUZZ_ASSERT(cpumask_equal(&mask, &again));
		}
	} else {
		FUZZ_ASSERT_SENTENCE(err);
	}
	if (cpumask_parse_hex(text, &mask, err, sizeof(err)))
		FUZZ_ASSERT_SENTENCE(err);
	free(text);
	return 0;
}
