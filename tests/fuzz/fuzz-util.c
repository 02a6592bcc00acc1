/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz-util.c - memfd helper for the fuzz harnesses */
#include "config.h"

#include <sys/mman.h>
#include <unistd.h>

#include "tests/fuzz/fuzz.h"

int
zd_fuzz_memfd(const uint8_t *data, size_t size)
{
	int fd = memfd_create("zdeb-fuzz", MFD_CLOEXEC);
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	if (lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}
