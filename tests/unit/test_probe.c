/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tests for lib/probe.c's BTF lookups, against the running kernel's BTF
 * (/sys/kernel/btf/vmlinux, which every tier of the tools needs anyway).
 * try_to_wake_up(struct task_struct *p, unsigned int state, int wake_flags)
 * has had that signature since 2.6.
 */
#include <stdio.h>
#include <string.h>

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

UNIT_MAIN(UNIT_TEST(test_param_index),
	  UNIT_TEST(test_param_struct),
	  UNIT_TEST(test_member_offset),
	  UNIT_TEST(test_released))
