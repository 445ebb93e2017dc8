/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDSCAN_FILTER_USER_H
#define SCHEDSCAN_FILTER_USER_H

#include <linux/types.h>
#include "bpf/filter.h"
#include "options.h"

/* Copies -p/--comm/-c/-C into the BPF object's .rodata before load. */
void filter_from_opts(volatile struct schedscan_filter *filter,
		      const struct common_opts *opts);

#endif
