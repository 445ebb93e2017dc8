/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal unit-test harness. Each test binary prints TAP-style lines
 * ("ok N - name" / "not ok N - name") so tests/run-suites.sh can add up
 * every suite into one "N passed, N failed" line.
 */
#ifndef SCHEDSCAN_UNIT_H
#define SCHEDSCAN_UNIT_H

#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <glob.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
};

extern int unit_failures_in_test;
extern const char *unit_suite_name;

#define UNIT_FAIL(fmt, ...)                                                    \
	do {                                                                   \
		fprintf(stdout, "#   %s:%d: " fmt "\n", __FILE__, __LINE__,        \
			##__VA_ARGS__);                                        \
		unit_failures_in_test++;                                       \
	} while (0)

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond))                                                   \
			UNIT_FAIL("check failed: %s", #cond);                  \
	} while (0)

#define CHECK_INT(got, want)                                                   \
	do {                                                                   \
		long long g_ = (long long)(got), w_ = (long long)(want);       \
		if (g_ != w_)                                                  \
			UNIT_FAIL("%s = %lld, want %lld", #got, g_, w_);       \
	} while (0)

#define CHECK_U64(got, want)                                                   \
	do {                                                                   \
		unsigned long long g_ = (got), w_ = (want);                    \
		if (g_ != w_)                                                  \
			UNIT_FAIL("%s = %llu, want %llu", #got, g_, w_);       \
	} while (0)

#define CHECK_DBL(got, want, tol)                                              \
	do {                                                                   \
		double g_ = (got), w_ = (want);                                \
		if (!(g_ >= w_ - (tol) && g_ <= w_ + (tol)))                   \
			UNIT_FAIL("%s = %g, want %g +- %g", #got, g_, w_,      \
				  (double)(tol));                              \
	} while (0)

#define CHECK_STR(got, want)                                                   \
	do {                                                                   \
		const char *g_ = (got), *w_ = (want);                          \
		if (!g_ || strcmp(g_, w_) != 0)                                \
			UNIT_FAIL("%s = \"%s\", want \"%s\"", #got,            \
				  g_ ? g_ : "(null)", w_);                     \
	} while (0)

/* Substring check, for error messages. */
#define CHECK_CONTAINS(hay, needle)                                            \
	do {                                                                   \
		const char *h_ = (hay), *n_ = (needle);                        \
		if (!h_ || !strstr(h_, n_))                                    \
			UNIT_FAIL("%s = \"%s\" lacks \"%s\"", #hay,            \
				  h_ ? h_ : "(null)", n_);                     \
	} while (0)

#define UNIT_MAIN(...)                                                         \
	int unit_failures_in_test;                                             \
	int main(void)                                                         \
	{                                                                      \
		static const struct unit_test tests_[] = { __VA_ARGS__ };     \
		int n_ = sizeof(tests_) / sizeof(tests_[0]), failed_ = 0;     \
		for (int i_ = 0; i_ < n_; i_++) {                              \
			unit_failures_in_test = 0;                             \
			tests_[i_].fn();                                       \
			printf("%sok %d - %s\n",                               \
			       unit_failures_in_test ? "not " : "", i_ + 1,    \
			       tests_[i_].name);                               \
			failed_ += unit_failures_in_test != 0;                 \
		}                                                              \
		printf("1..%d\n", n_);                                         \
		return failed_ ? 1 : 0;                                        \
	}

#define UNIT_TEST(fn) { #fn, fn }

/* The fixtures directory: $SCHEDSCAN_FIXTURES, else tests/fixtures. */
static inline const char *unit_fixtures_dir(void)
{
	const char *dir = getenv("SCHEDSCAN_FIXTURES");

	return dir && *dir ? dir : "tests/fixtures";
}

static inline void unit_fixture_path(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", unit_fixtures_dir(), rel);
}

/* Calls fn on every fixture matching pattern (relative); none is a failure. */
static inline void unit_for_each_fixture(const char *pattern,
					 void (*fn)(const char *path))
{
	char full[4096];
	glob_t g;
	int ret;

	unit_fixture_path(full, sizeof(full), pattern);
	ret = glob(full, 0, NULL, &g);
	if (ret == GLOB_NOMATCH)
		UNIT_FAIL("no fixture matches %s", full);
	else if (ret)
		UNIT_FAIL("glob(%s) failed: %d", full, ret);
	else
		for (size_t i = 0; i < g.gl_pathc; i++)
			fn(g.gl_pathv[i]);
	if (!ret || ret == GLOB_NOMATCH)
		globfree(&g);
}

#endif
