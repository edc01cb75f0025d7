// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * procfs probes: files under /proc/systemtap/MODULE/ (the module's
 * table of struct stp_procfs_probe, procfs.h).
 *
 * A file has at most one read probe (pass 2 checks), and its write
 * probes run in turn on each write (input.char and input.line are both
 * write probes of __stdin). Each
 * open gets its own buffer (bufsize bytes, allocated in process
 * context at open, never in a probe): the first read of that open runs
 * the read probe, whose `$value = s` / `$value .= s` fill the buffer, and
 * later reads page through it. A write copies at most bufsize - 1 (and
 * MAXSTRINGLEN - 1) bytes from the user before running the write probe,
 * which reads them as $value; the count consumed is returned, so a longer
 * write runs the probe once per piece, as in SystemTap.
 *
 * The probe runs in the opener's process context with preemption
 * disabled; its data is found through a per-CPU pointer set around the
 * run (stp_procfs_data()). The directory /proc/systemtap is shared by
 * every module and left in place; this module's own directory goes (with
 * everything under it, after in-flight file operations end) on disarm.
 */

struct stp_procfs_file {
	const char *path;		/* relative to stp_procfs_dir */
	const struct stp_probe *read_probe;
	const struct stp_probe **write_probes;	/* nwrite of them */
	size_t nwrite;
	u32 bufsize;
	umode_t mode;			/* 0444 with a read probe, | 0222
					 * with a write probe */
	umode_t umask;			/* the probes' masks, joined */
};

/* A directory of a path with slashes, "a" and "a/b" for "a/b/file". */
struct stp_procfs_subdir {
	const char *path;		/* not NUL-terminated: len bytes */
	size_t len;
	struct proc_dir_entry *pde;
};

static DEFINE_PER_CPU(struct stp_procfs_data *, stp_procfs_cur);
static const struct stp_probe **stp_procfs_writers;	/* the files' slices */
static struct proc_dir_entry *stp_procfs_dir;	/* systemtap/MODULE */
static struct stp_procfs_file *stp_procfs_files;
static size_t stp_nprocfs_files;
static struct stp_procfs_subdir *stp_procfs_subdirs;
static size_t stp_nprocfs_subdirs;

struct stp_procfs_data *
stp_procfs_data(struct stp_context *c)
{
	return this_cpu_read(stp_procfs_cur);
}

/* $value = s (append false) or $value .= s in a read probe. */
void stp_procfs_set(struct stp_context *c, const char *s, bool append)
{
	struct stp_procfs_data *d = stp_procfs_data(c);

	if (!d)
		return;
	if (!append)
		d->len = 0;
	d->len += strscpy(d->buf + d->len, s, d->size - d->len) < 0 ?
		  d->size - 1 - d->len : strlen(d->buf + d->len);
}

static void stp_procfs_run(const struct stp_probe *p,
			   struct stp_procfs_data *d)
{
	preempt_disable();
	this_cpu_write(stp_procfs_cur, d);
	stp_probe_run(p);
	this_cpu_write(stp_procfs_cur, NULL);
	preempt_enable();
}

struct stp_procfs_open {
	bool filled;
	struct stp_procfs_data d;
};

static int stp_procfs_fop_open(struct inode *inode, struct file *f)
{
	struct stp_procfs_file *pf = pde_data(inode);
	struct stp_procfs_open *o;

	/* several write probes: a copy of the bytes written after the
	 * buffer, for each probe to see them */
	o = kzalloc(sizeof(*o) + pf->bufsize * (pf->nwrite > 1 ? 2 : 1),
		    GFP_KERNEL);
	if (!o)
		return -ENOMEM;
	o->d.buf = (char *)(o + 1);
	o->d.size = pf->bufsize;
	f->private_data = o;
	return 0;
}

static int stp_procfs_fop_release(struct inode *inode, struct file *f)
{
	kfree(f->private_data);
	return 0;
}

static ssize_t stp_procfs_fop_read(struct file *f, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct stp_procfs_file *pf = pde_data(file_inode(f));
	struct stp_procfs_open *o = f->private_data;

	if (!pf->read_probe)
		return -EINVAL;
	if (!o->filled) {
		o->d.len = 0;
		o->d.buf[0] = '\0';
		stp_procfs_run(pf->read_probe, &o->d);
		o->filled = true;
	}
	return simple_read_from_buffer(ubuf, count, ppos, o->d.buf, o->d.len);
}

static ssize_t stp_procfs_fop_write(struct file *f, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	struct stp_procfs_file *pf = pde_data(file_inode(f));
	struct stp_procfs_open *o = f->private_data;
	size_t n = count, i;

	if (!pf->nwrite)
		return -EINVAL;
	if (n > o->d.size - 1)
		n = o->d.size - 1;
	if (n > MAXSTRINGLEN - 1)
		n = MAXSTRINGLEN - 1;
	if (copy_from_user(o->d.buf, ubuf, n))
		return -EFAULT;
	o->d.buf[n] = '\0';
	o->d.len = n;
	if (pf->nwrite > 1)
		memcpy(o->d.buf + o->d.size, o->d.buf, n + 1);
	for (i = 0; i < pf->nwrite; i++) {
		/* each probe sees the bytes written */
		if (i) {
			memcpy(o->d.buf, o->d.buf + o->d.size, n + 1);
			o->d.len = n;
		}
		stp_procfs_run(pf->write_probes[i], &o->d);
	}
	return n;
}

static const struct proc_ops stp_procfs_ops = {
	.proc_open = stp_procfs_fop_open,
	.proc_release = stp_procfs_fop_release,
	.proc_read = stp_procfs_fop_read,
	.proc_write = stp_procfs_fop_write,
	.proc_lseek = default_llseek,
};

/* The directory of the first len bytes of path, made with its parents. */
static struct proc_dir_entry *stp_procfs_dir_of(const char *path, size_t len)
{
	struct proc_dir_entry *dir = stp_procfs_dir;
	size_t end = 0, i;
	char name[NAME_MAX + 1];

	while (end < len) {
		size_t start = end;
		struct proc_dir_entry *found = NULL;

		while (end < len && path[end] != '/')
			end++;
		for (i = 0; i < stp_nprocfs_subdirs && !found; i++)
			if (stp_procfs_subdirs[i].len == end &&
			    !memcmp(stp_procfs_subdirs[i].path, path, end))
				found = stp_procfs_subdirs[i].pde;
		if (!found) {
			if (end - start > NAME_MAX)
				return NULL;
			memcpy(name, path + start, end - start);
			name[end - start] = '\0';
			found = proc_mkdir(name, dir);
			if (!found)
				return NULL;
			stp_procfs_subdirs[stp_nprocfs_subdirs++] =
				(struct stp_procfs_subdir){ path, end, found };
		}
		dir = found;
		end++;			/* past the '/' */
	}
	return dir;
}

static void stp_procfs_disarm(void)
{
	/* removes the whole subtree once its open files are idle */
	if (stp_procfs_dir)
		proc_remove(stp_procfs_dir);
	stp_procfs_dir = NULL;
	kfree(stp_procfs_files);
	stp_procfs_files = NULL;
	kfree(stp_procfs_writers);
	stp_procfs_writers = NULL;
	stp_nprocfs_files = 0;
	kfree(stp_procfs_subdirs);
	stp_procfs_subdirs = NULL;
	stp_nprocfs_subdirs = 0;
}

static int stp_procfs_arm(const void *table, size_t n)
{
	const struct stp_procfs_probe *tab = table;
	size_t i, j, nprobes = n, nslashes = 0;
	struct path top;

	for (i = 0; i < n; i++) {
		const char *p;

		for (p = tab[i].path; *p; p++)
			nslashes += *p == '/';
	}
	if (!nprobes)
		return 0;
	stp_procfs_files = kcalloc(nprobes, sizeof(*stp_procfs_files),
				   GFP_KERNEL);
	stp_procfs_subdirs = kcalloc(nslashes + 1, sizeof(*stp_procfs_subdirs),
				     GFP_KERNEL);
	stp_procfs_writers = kcalloc(nprobes, sizeof(*stp_procfs_writers),
				     GFP_KERNEL);
	if (!stp_procfs_files || !stp_procfs_subdirs || !stp_procfs_writers)
		goto fail;
	/* proc_mkdir warns both on an existing name and on a path whose
	 * parent is missing: ask the VFS whether /proc/systemtap exists */
	if (!kern_path("/proc/systemtap", LOOKUP_DIRECTORY, &top)) {
		path_put(&top);
		char name[sizeof("systemtap/") + MODULE_NAME_LEN];

		snprintf(name, sizeof(name), "systemtap/%s", STP_MODULE_NAME);
		stp_procfs_dir = proc_mkdir(name, NULL);
	} else {
		/* the first module to make it: it stays after us */
		struct proc_dir_entry *dir = proc_mkdir("systemtap", NULL);

		if (dir)
			stp_procfs_dir = proc_mkdir(STP_MODULE_NAME, dir);
	}
	if (!stp_procfs_dir)
		goto fail;

	/* one file per path, with its read and write probes */
	for (i = 0; i < n; i++) {
		const struct stp_procfs_probe *p = &tab[i];
		struct stp_procfs_file *f = NULL;

		for (j = 0; j < stp_nprocfs_files && !f; j++)
			if (!strcmp(stp_procfs_files[j].path, p->path))
				f = &stp_procfs_files[j];
		if (!f) {
			f = &stp_procfs_files[stp_nprocfs_files++];
			f->path = p->path;
			f->bufsize = MAXSTRINGLEN;
		}
		if (p->write) {
			f->nwrite++;
			f->mode |= 0222;
		} else {
			f->read_probe = p->probe;
			f->mode |= 0444;
			if (p->bufsize)
				f->bufsize = p->bufsize;
		}
		/* SystemTap's rule: each probe's mask (by default 0044 for
		 * a read probe, 0022 for a write probe) applies to the
		 * whole file: 0400, 0200, 0600 without .umask */
		f->umask |= p->umask;
	}
	/* each file's write probes, in the table's order, as a slice */
	for (i = 0, j = 0; i < stp_nprocfs_files; i++) {
		struct stp_procfs_file *f = &stp_procfs_files[i];
		size_t k;

		f->write_probes = &stp_procfs_writers[j];
		for (k = 0; k < n; k++)
			if (tab[k].write && !strcmp(tab[k].path, f->path))
				stp_procfs_writers[j++] = tab[k].probe;
	}
	for (i = 0; i < stp_nprocfs_files; i++) {
		struct stp_procfs_file *f = &stp_procfs_files[i];
		const char *leaf = strrchr(f->path, '/');
		struct proc_dir_entry *dir;

		dir = stp_procfs_dir_of(f->path, leaf ? leaf - f->path : 0);
		if (!dir || !proc_create_data(leaf ? leaf + 1 : f->path,
					      S_IFREG | (f->mode & ~f->umask),
					      dir,
					      &stp_procfs_ops, f))
			goto fail;
	}
	return 0;
fail:
	stp_ctl_stderr("ERROR: cannot create the procfs files under "
		       "/proc/systemtap/", STP_MODULE_NAME, "\n", NULL);
	stp_procfs_disarm();
	return -ENOMEM;
}

const struct stp_kind_ops stp_procfs_kind = {
	.name = "procfs",
	.entry_size = sizeof(struct stp_procfs_probe),
	.arm = stp_procfs_arm,
	.disarm = stp_procfs_disarm,
};
