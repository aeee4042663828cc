# SPDX-License-Identifier: GPL-2.0
# Sourced by the suites that run as a user with a delegated cgroup, as a
# systemd user manager's is: delegate_user DIR makes DIR (user1's) with
# the cpu controller for its children and DIR/session for the user's
# terminal; undelegate_user DIR moves what is left out and removes both.
delegate_user() {
	echo +cpu > /sys/fs/cgroup/cgroup.subtree_control &&
	mkdir $1 && echo +cpu > $1/cgroup.subtree_control &&
	chown 1000:1000 $1 $1/cgroup.procs $1/cgroup.threads \
		$1/cgroup.subtree_control &&
	mkdir $1/session && chown -R 1000:1000 $1/session
}

undelegate_user() {
	for p in $(cat $1/session/cgroup.procs); do
		echo $p > /sys/fs/cgroup/cgroup.procs
	done
	rmdir $1/session $1
}
