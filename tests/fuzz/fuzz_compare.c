// SPDX-License-Identifier: GPL-2.0
/*
 * --compare's reader: the files of runs recorded with --json, as a user
 * (or anyone who can write where the user keeps them) hands them over.
 * The input is the A file, and the B file after a line "--" (else B is A
 * again), read from a memfd through its /proc/self/fd path, as a path on
 * the command line is.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "compare.h"
#include "jsonparse.h"
#include "fuzz.h"

/* One memfd per side, reused: its path is what compare_load() opens. */
static int side_fd[2] = { -1, -1 };
static char side_path[2][64];

static const char *side_file(int side, const uint8_t *data, size_t size)
{
	if (side_fd[side] < 0) {
		side_fd[side] = memfd_create(side ? "b.jsonl" : "a.jsonl", MFD_CLOEXEC);
		FUZZ_ASSERT(side_fd[side] >= 0);
		snprintf(side_path[side], sizeof(side_path[side]), "/proc/self/fd/%d", side_fd[side]);
	}
	FUZZ_ASSERT(!ftruncate(side_fd[side], 0));
	FUZZ_ASSERT(pwrite(side_fd[side], data, size, 0) == (ssize_t)size);
	return side_path[side];
}

/* Lines handed out by compare_read_lines() must be the file, in order. */
struct replay {
	const uint8_t *data;
	size_t size, offset, lines, max_line;
};

static int same_as_input(const char *line, size_t len, size_t line_no, void *ctx, char *err,
			 size_t errlen)
{
	struct replay *r = ctx;

	(void)err;
	(void)errlen;
	FUZZ_ASSERT(line_no == ++r->lines);
	FUZZ_ASSERT(len <= r->max_line);
	FUZZ_ASSERT(r->offset + len <= r->size);
	FUZZ_ASSERT(!memcmp(line, r->data + r->offset, len));
	FUZZ_ASSERT(!memchr(line, '\n', len));
	r->offset += len;
	/* Every line but the last ends with its '\n'. */
	if (r->offset < r->size) {
		FUZZ_ASSERT(r->data[r->offset] == '\n');
		r->offset++;
	}
	return 0;
}

/* The reader with small bounds: whole lines, or a refusal past a bound. */
static void check_lines(const char *path, const uint8_t *data, size_t size)
{
	struct replay r = { .data = data, .size = size, .max_line = 64 };
	char err[512] = "";

	if (compare_read_lines(path, 1024, r.max_line, same_as_input, &r, err, sizeof(err))) {
		FUZZ_ASSERT_SENTENCE(err);
		FUZZ_ASSERT(strstr(err, "is larger than") || strstr(err, "is longer than"));
	} else {
		FUZZ_ASSERT(size <= 1024);
		FUZZ_ASSERT(r.offset == size);
	}
}

static const char *tool_of(const uint8_t *data, size_t size)
{
	static const char *const tools[] = { "sisscan", "idlebal", "numascan" };
	const char *first = tools[0];
	const void *at = NULL;

	for (size_t i = 0; i < 3; i++) {
		const void *p = memmem(data, size, tools[i], strlen(tools[i]));

		if (p && (!at || p < at)) {
			at = p;
			first = tools[i];
		}
	}
	return first;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *split = memmem(data, size, "\n--\n", 4);
	size_t a_size = split ? (size_t)(split - data) + 1 : size;
	const char *a_path = side_file(0, data, a_size);
	const char *b_path = split ? side_file(1, split + 4, size - a_size - 3) : a_path;
	struct compare_side a = { &a_path, 1 }, b = { &b_path, 1 };
	char err[512] = "", *out = NULL;
	size_t out_len = 0;
	struct compare c;

	check_lines(a_path, data, a_size);
	if (compare_load(&c, tool_of(data, size), &a, &b, err, sizeof(err))) {
		FUZZ_ASSERT_SENTENCE(err);
		compare_free(&c);
		return 0;
	}
	/* What was loaded compares, into one JSON record that parses. */
	FILE *mem = open_memstream(&out, &out_len);

	FUZZ_ASSERT(mem);
	FUZZ_ASSERT(!compare_json(&c, mem, 0));
	FUZZ_ASSERT(!fclose(mem));
	struct jv record;

	FUZZ_ASSERT(out_len && out[out_len - 1] == '\n');
	FUZZ_ASSERT(!jv_parse(out, out_len - 1, &record, err, sizeof(err)));
	FUZZ_ASSERT(jv_string(jv_get(&record, "type")) &&
		    !strcmp(jv_string(jv_get(&record, "type")), "compare"));
	jv_free(&record);
	free(out);
	mem = open_memstream(&out, &out_len);
	FUZZ_ASSERT(mem);
	FUZZ_ASSERT(!compare_text(&c, mem, 0));
	FUZZ_ASSERT(!fclose(mem));
	free(out);
	compare_free(&c);
	return 0;
}
