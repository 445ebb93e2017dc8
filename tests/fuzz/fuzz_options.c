// SPDX-License-Identifier: GPL-2.0
/* The value checks behind the options: seconds, counts, sizes, modes, names. */
#include <math.h>
#include "options.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size), err[512], comm[16];
	unsigned long long bytes;
	enum probe_mode mode;
	double seconds;
	long count;

	if (!parse_seconds("interval", text, &seconds, err, sizeof(err)))
		FUZZ_ASSERT(isfinite(seconds) && seconds >= 0.001 && seconds <= 7 * 24 * 3600.0);
	else
		FUZZ_ASSERT_SENTENCE(err);
	if (!parse_count(text, &count, err, sizeof(err)))
		FUZZ_ASSERT(count > 0);
	else
		FUZZ_ASSERT_SENTENCE(err);
	if (parse_size("--events-max", text, &bytes, err, sizeof(err)))
		FUZZ_ASSERT_SENTENCE(err);
	if (parse_mode(text, &mode, err, sizeof(err)))
		FUZZ_ASSERT_SENTENCE(err);
	if (!parse_comm(text, comm, sizeof(comm), err, sizeof(err)))
		FUZZ_ASSERT(strlen(comm) < sizeof(comm) && !strcmp(comm, text));
	else
		FUZZ_ASSERT_SENTENCE(err);
	free(text);
	return 0;
}
