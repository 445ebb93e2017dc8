/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDSCAN_SELECTION_USER_H
#define SCHEDSCAN_SELECTION_USER_H

#include <linux/types.h>
#include "bpf/selection.h"
#include "bpf/mutation.h"	/* in every .rodata, next to the selection */
#include "options.h"

/* Copies -p/--comm/-c/-C into the BPF object's .rodata before load. */
void selection_from_opts(volatile struct schedscan_filter *filter,
		      const struct common_opts *opts);

#endif
