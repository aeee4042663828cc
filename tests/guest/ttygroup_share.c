// SPDX-License-Identifier: GPL-2.0
/*
 * CPU shares between terminals, measured with ttyshare: all hogs on one
 * CPU, 1 hog in terminal 0 against 10 in terminal 1. Meant for a boot with
 * noautogroup, where plain CFS is the baseline.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "tt_harness.h"
#include "ttytest.h"

TT_FIXTURE(share);

#define SECONDS		"3"

/*
 * Run ttyshare with @args (NULL-terminated, after --cpu C --seconds S),
 * check it worked and the hogs really used the CPU, return the output.
 */
static int ttyshare(struct __test_metadata *_metadata, const char *seconds,
		    const char **args, char *out, size_t outlen)
{
	char cpu[16], *argv[16];
	double total = 0, share, ms;
	int i = 0, k, status;

	snprintf(cpu, sizeof(cpu), "%d", tt_first_cpu());
	argv[i++] = "/usr/local/bin/ttyshare";
	argv[i++] = "--cpu";
	argv[i++] = cpu;
	argv[i++] = "--seconds";
	argv[i++] = (char *)seconds;
	while (*args && i < 15)
		argv[i++] = (char *)*args++;
	argv[i] = NULL;

	status = tt_run(argv, out, outlen, 60);
	for (k = 0; !tt_terminal_share(out, k, &share, &ms); k++) {
		ksft_print_msg("terminal %d share %.4f cpu_ms %.1f\n", k,
			       share, ms);
		total += ms;
	}
	if (status != 0) {
		TH_LOG("ttyshare failed (wait status %#x), output:\n%s",
		       status, out);
		return -1;
	}
	if (k < 2 || tt_field(out, "first_hog_share") < 0) {
		TH_LOG("unexpected ttyshare output:\n%s", out);
		return -1;
	}
	/* The hogs must have kept the CPU busy, else the shares mean nothing. */
	if (total < 300 * strtod(seconds, NULL)) {
		TH_LOG("hogs used only %.1f ms of CPU in %s s", total, seconds);
		return -1;
	}
	return 0;
}

/* Two terminals, one CPU: each terminal gets half, not each hog 1/11. */
TEST_F(share, share_sysctl_on)
{
	const char *args[] = { "--hogs", "1,10", NULL };
	char out[4096];
	double share;

	ASSERT_EQ(0, tt_sysctl_set(1));
	ASSERT_EQ(0, ttyshare(_metadata, SECONDS, args, out, sizeof(out)));
	share = tt_field(out, "first_hog_share");
	ksft_print_msg("sysctl 1: first_hog_share %.4f (ideal 0.50)\n", share);
	EXPECT_GE(share, 0.30);
	EXPECT_LE(share, 0.70);
}

/* With the sysctl off, plain CFS: the single hog gets 1/11. */
TEST_F(share, share_sysctl_off)
{
	const char *args[] = { "--hogs", "1,10", NULL };
	char out[4096];
	double share;

	ASSERT_EQ(0, tt_sysctl_set(0));
	ASSERT_EQ(0, ttyshare(_metadata, SECONDS, args, out, sizeof(out)));
	share = tt_field(out, "first_hog_share");
	ksft_print_msg("sysctl 0: first_hog_share %.4f (ideal 0.09)\n", share);
	EXPECT_LT(share, 0.20);
	EXPECT_GT(share, 0.01);
}

/* Sessions without a controlling tty get no tty group. */
TEST_F(share, share_no_ctty)
{
	const char *args[] = { "--hogs", "1,10", "--no-ctty", NULL };
	char out[4096];
	double share;

	if (tt_autogroup_enabled())
		SKIP(return, "autogroup is enabled: tty-less sessions get an autogroup each");
	ASSERT_EQ(0, tt_sysctl_set(1));
	ASSERT_EQ(0, ttyshare(_metadata, SECONDS, args, out, sizeof(out)));
	share = tt_field(out, "first_hog_share");
	ksft_print_msg("--no-ctty: first_hog_share %.4f (ideal 0.09)\n", share);
	EXPECT_LT(share, 0.20);
	EXPECT_GT(share, 0.01);
}

/*
 * Renicing a terminal group to 19 through /proc/self/ttygroup shrinks the
 * terminal's share to 15/(15+1024); without it, 1 vs 1 hog is even.
 */
TEST_F(share, share_renice_19)
{
	const char *nice[] = { "--hogs", "1,1", "--nice", "19", NULL };
	const char *plain[] = { "--hogs", "1,1", NULL };
	double share, ms;
	char out[4096];

	ASSERT_EQ(0, tt_sysctl_set(1));
	ASSERT_EQ(0, ttyshare(_metadata, "2", nice, out, sizeof(out)));
	ASSERT_EQ(0, tt_terminal_share(out, 0, &share, &ms));
	ksft_print_msg("--nice 19: terminal 0 share %.4f (ideal 0.014)\n",
		       share);
	EXPECT_LT(share, 0.15);

	/* A new tty (maybe with the same number) starts at nice 0 again. */
	ASSERT_EQ(0, ttyshare(_metadata, "2", plain, out, sizeof(out)));
	ASSERT_EQ(0, tt_terminal_share(out, 0, &share, &ms));
	ksft_print_msg("no --nice: terminal 0 share %.4f (ideal 0.50)\n",
		       share);
	EXPECT_GE(share, 0.30);
	EXPECT_LE(share, 0.70);
}

TEST_HARNESS_MAIN
