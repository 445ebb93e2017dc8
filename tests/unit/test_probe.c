/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tests for lib/probe.c's BTF lookups, against the running kernel's BTF
 * (/sys/kernel/btf/vmlinux, which every tier of the tools needs anyway).
 * try_to_wake_up(struct task_struct *p, unsigned int state, int wake_flags)
 * has had that signature since 2.6.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe.h"
#include "unit.h"

const char *unit_suite_name = "probe";

static void test_param_index(void)
{
	CHECK_INT(kernel_func_param_index("try_to_wake_up", "p"), 0);
	CHECK_INT(kernel_func_param_index("try_to_wake_up", "state"), 1);
	CHECK_INT(kernel_func_param_index("try_to_wake_up", "wake_flags"), 2);
	CHECK_INT(kernel_func_param_index("try_to_wake_up", "flags"), -1);
	CHECK_INT(kernel_func_param_index("no_such_function_in_any_kernel", "p"), -1);
}

static void test_param_struct(void)
{
	char name[64] = "";

	CHECK_INT(kernel_func_param_struct("try_to_wake_up", 0, name, sizeof(name)), 0);
	CHECK_STR(name, "task_struct");
	/* unsigned int state: not a struct pointer */
	CHECK_INT(kernel_func_param_struct("try_to_wake_up", 1, name, sizeof(name)), -1);
	CHECK_INT(kernel_func_param_struct("try_to_wake_up", 3, name, sizeof(name)), -1);
	CHECK_INT(kernel_func_param_struct("try_to_wake_up", -1, name, sizeof(name)), -1);
}

static void test_member_offset(void)
{
	/* pid follows other members in every kernel: never at offset 0 */
	CHECK(kernel_struct_member_offset("task_struct", "pid") > 0);
	CHECK_INT(kernel_struct_member_offset("task_struct", "no_such_member"), -1);
	CHECK_INT(kernel_struct_member_offset("no_such_struct_anywhere", "pid"), -1);
}

static void test_released(void)
{
	probe_release();
	/* the cache is rebuilt on the next lookup */
	CHECK_INT(kernel_func_param_index("try_to_wake_up", "wake_flags"), 2);
	probe_release();
}

/*
 * kallsyms lookups by name and type, on a written file: a prefix of the
 * name, a module's symbol and a last line without a newline.
 */
static void test_symbol_addresses(void)
{
	char dir[] = "/tmp/schedscan-kallsyms.XXXXXX", path[64];
	FILE *f;

	if (!mkdtemp(dir)) {
		UNIT_FAIL("mkdtemp failed");
		return;
	}
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	f = fopen(path, "w");
	if (!f) {
		UNIT_FAIL("cannot write %s", path);
		return;
	}
	fputs("ffffffff81000000 T _stext\n"
	      "ffffffff81001000 t tick_sched_timer_dequeue\n"
	      "ffffffff81002000 d tick_sched_timer\n"
	      "ffffffff81003000 t tick_sched_timer\n"
	      "ffffffffc0001000 t nohz_csd_func\t[some_module]\n"
	      "ffffffff82000000 D sysctl_sched_features", f);
	fclose(f);
	/* the text symbol, not the data one of the same name nor the prefix */
	CHECK(kernel_symbol_address(dir, "tick_sched_timer") == 0xffffffff81003000ULL);
	CHECK(kernel_data_address(dir, "tick_sched_timer") == 0xffffffff81002000ULL);
	CHECK(kernel_symbol_address(dir, "nohz_csd_func") == 0xffffffffc0001000ULL);
	CHECK(kernel_data_address(dir, "sysctl_sched_features") == 0xffffffff82000000ULL);
	CHECK(kernel_symbol_address(dir, "sysctl_sched_features") == 0);
	CHECK(kernel_symbol_address(dir, "tick_sched") == 0);
	CHECK(kernel_symbol_address("/nonexistent", "_stext") == 0);
	/* 7.3's kallsyms types sysctl_sched_features "T" */
	f = fopen(path, "w");
	if (!f) {
		UNIT_FAIL("cannot write %s", path);
		return;
	}
	fputs("ffffffff81000000 T _stext\n"
	      "ffffffffa474edc0 T sysctl_sched_features\n", f);
	fclose(f);
	CHECK(kernel_data_address(dir, "sysctl_sched_features") == 0xffffffffa474edc0ULL);
	unlink(path);
	rmdir(dir);
}

UNIT_MAIN(UNIT_TEST(test_param_index),
	  UNIT_TEST(test_symbol_addresses),
	  UNIT_TEST(test_param_struct),
	  UNIT_TEST(test_member_offset),
	  UNIT_TEST(test_released))
