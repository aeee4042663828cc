/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kselftest_harness.h of 6.12 does not build with -Wextra -Werror: its
 * SIGALRM handler has an unused parameter, and the setjmp() in every
 * TEST_F() expansion triggers -Wclobbered on the harness's own locals.
 * Silence exactly those two; the tests themselves use no setjmp().
 */
#ifndef DESKSCHED_TT_HARNESS_H
#define DESKSCHED_TT_HARNESS_H

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#pragma GCC diagnostic ignored "-Wclobbered"

#endif
