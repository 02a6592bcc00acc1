/* SPDX-License-Identifier: GPL-2.0-or-later */
/* inoset.c - a set of inodes with optional names (see inoset.h) */
#include "config.h"

#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "lib/inoset.h"

struct inode {
	dev_t dev;
	ino_t ino;
	char *name;
};

static int
inode_cmp(const void *a, const void *b)
{
	const struct inode *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return 0;
}

bool
zd_inoset_find(const struct zd_inoset *s, dev_t dev, ino_t ino,
               const char **name)
{
	const struct inode key = { .dev = dev, .ino = ino };
	void *const *node = tfind(&key, &s->root, inode_cmp);

	if (node == NULL)
		return false;
	if (name != NULL)
		*name = (*(const struct inode *const *)node)->name;
	return true;
}

int
zd_inoset_add(struct zd_inoset *s, dev_t dev, ino_t ino, const char *name,
              struct zd_error *err)
{
	struct inode *i;
	void *node;

	if (zd_inoset_find(s, dev, ino, NULL))
		return 0;
	i = calloc(1, sizeof(*i));
	if (i == NULL)
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	i->dev = dev;
	i->ino = ino;
	if (name != NULL)
		i->name = strdup(name);
	node = (name == NULL || i->name != NULL) ?
	       tsearch(i, &s->root, inode_cmp) : NULL;
	if (node == NULL) {
		free(i->name);
		free(i);
		return zd_err(err, ZD_E_NOMEM, "out of memory");
	}
	return 0;
}

static void
inode_free(void *p)
{
	struct inode *i = p;

	free(i->name);
	free(i);
}

void
zd_inoset_free(struct zd_inoset *s)
{
	tdestroy(s->root, inode_free);
	s->root = NULL;
}
