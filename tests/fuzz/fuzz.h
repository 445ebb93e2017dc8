/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libFuzzer harnesses of the parsers that read what users and kernels
 * hand the tools (tests/fuzz/README.md). Each harness turns the input into
 * a NUL-terminated string, calls the parser, and checks the invariants a
 * correct parser keeps; a broken invariant aborts, which libFuzzer reports
 * as a crash with the input that caused it.
 */
#ifndef SCHEDSCAN_FUZZ_H
#define SCHEDSCAN_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy (the parsers take C strings); free() it. */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = 0;
	return s;
}

#define FUZZ_ASSERT(cond)                                                      \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: invariant broken: %s\n",       \
				__FILE__, __LINE__, #cond);                    \
			abort();                                               \
		}                                                              \
	} while (0)

/* An error message is one non-empty line (it ends up on a user's terminal). */
#define FUZZ_ASSERT_SENTENCE(err)                                              \
	FUZZ_ASSERT((err)[0] && !strchr((err), '\n'))

#endif
