/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz-control.c - the deb822 control parser (zd_control_parse) */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/dpkg-control.h"
#include "tests/fuzz/fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_control ctl;
	/* A copy without slack, so that reads past size are caught. */
	char *buf = malloc(size ? size : 1);

	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	if (zd_control_parse(buf, size, "fuzz", &ctl, &err) == 0) {
		for (size_t i = 0; i < ctl.n; i++)
			if (zd_control_get(&ctl, ctl.fields[i].name) == NULL)
				abort();
		(void)zd_control_get(&ctl, "Package");
		zd_control_free(&ctl);
	}
	free(buf);
	return 0;
}
