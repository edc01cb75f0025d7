// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The procfs files of abi/transport.h: /proc/stap_<MODULE>/ctl (commands
 * and the status line) and /proc/stap_<MODULE>/data (records).
 */

static struct proc_dir_entry *stp_proc_dir;
int64_t stp_loader_tgid;		/* strings.h */
int64_t stp_loader_uid;			/* strings.h */

static ssize_t stp_ctl_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char buf[160];
	int len = stp_status_line(buf, sizeof(buf));

	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t stp_ctl_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[64];
	char *cmd;
	s64 pid;
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	cmd = strim(buf);

	if (!strcmp(cmd, "start")) {
		WRITE_ONCE(stp_loader_tgid, task_tgid_nr(current));
		/* the real user of a setuid loader is who ran stap */
		WRITE_ONCE(stp_loader_uid,
			   from_kuid_munged(&init_user_ns, current_uid()));
		ret = stp_session_start();
	} else if (!strcmp(cmd, "stop")) {
		ret = stp_session_stop();
	} else if (!strncmp(cmd, "target=", 7)) {
		ret = kstrtos64(cmd + 7, 10, &pid);
		if (!ret)
			stp_session_set_target(pid);
	} else {
		ret = -EINVAL;
	}
	return ret ? ret : count;
}

static int stp_data_open(struct inode *inode, struct file *file)
{
	return nonseekable_open(inode, file);
}

static ssize_t stp_data_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	return stp_rings_read(ubuf, count);
}

/*
 * POLLIN: a record to read; POLLPRI: the status changed (exit requested,
 * failed, done).  See ring.c for when a sleeping reader is woken.
 */
static __poll_t stp_data_poll(struct file *file, poll_table *wait)
{
	__poll_t mask = 0;

	if (stp_rings_poll(file, wait))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (stp_session_news())
		mask |= EPOLLPRI;
	return mask;
}

static const struct proc_ops stp_ctl_ops = {
	.proc_read = stp_ctl_read,
	.proc_write = stp_ctl_write,
	.proc_lseek = default_llseek,
};

static const struct proc_ops stp_data_ops = {
	.proc_open = stp_data_open,
	.proc_read = stp_data_read,
	.proc_poll = stp_data_poll,
};

static int stp_transport_init(void)
{
	char dir[sizeof(STP_PROC_PREFIX) + MODULE_NAME_LEN];

	snprintf(dir, sizeof(dir), STP_PROC_PREFIX "%s", STP_MODULE_NAME);
	stp_proc_dir = proc_mkdir(dir, NULL);
	if (!stp_proc_dir)
		return -ENOMEM;
	if (!proc_create("ctl", 0600, stp_proc_dir, &stp_ctl_ops) ||
	    !proc_create("data", 0400, stp_proc_dir, &stp_data_ops)) {
		proc_remove(stp_proc_dir);
		stp_proc_dir = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void stp_transport_exit(void)
{
	proc_remove(stp_proc_dir);
	stp_proc_dir = NULL;
}
