/* bcast_test.c - sbcast's and sgather's pure parts: sizes, options from
 * SBCAST_* variables, DEST as the nodes write it, ldd's output and the
 * --exclude rule. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bcast_libs.h"
#include "bcast_opt.h"

static void test_size (void **state)
{
    uint32_t b;

    assert_int_equal (bcast_parse_size ("4096", &b), 0);
    assert_int_equal (b, 4096);
    assert_int_equal (bcast_parse_size ("512k", &b), 0);
    assert_int_equal (b, 512 * 1024);
    assert_int_equal (bcast_parse_size ("2M", &b), 0);
    assert_int_equal (b, 2 << 20);
    assert_int_equal (bcast_parse_size ("100m", &b), 0);
    assert_int_equal (b, BCAST_SIZE_MAX);
    assert_int_equal (bcast_parse_size ("1", &b), 0);
    assert_int_equal (b, BCAST_SIZE_MIN);
    assert_int_equal (bcast_parse_size ("4g", &b), -1);
    assert_int_equal (bcast_parse_size ("", &b), -1);
    assert_int_equal (bcast_parse_size ("-1", &b), -1);
}

static void test_words (void **state)
{
    const char *lib;
    bool yes = false;
    uint32_t n;

    assert_int_equal (bcast_parse_compress (NULL, &lib), 0);
    assert_string_equal (lib, "lz4");
    assert_int_equal (bcast_parse_compress ("ZLIB", &lib), 0);
    assert_string_equal (lib, "zlib");
    assert_int_equal (bcast_parse_compress ("gzip", &lib), -1);
    assert_int_equal (bcast_parse_yes_no (NULL, &yes), 0);
    assert_true (yes);
    assert_int_equal (bcast_parse_yes_no ("no", &yes), 0);
    assert_false (yes);
    assert_int_equal (bcast_parse_yes_no ("maybe", &yes), -1);
    assert_int_equal (bcast_parse_count ("8", BCAST_FANOUT_MAX, &n), 0);
    assert_int_equal (bcast_parse_count ("9", BCAST_FANOUT_MAX, &n), -1);
    assert_int_equal (bcast_parse_count ("0", 0, &n), -1);
}

static void test_env (void **state)
{
    struct bcast_opts o = { 0 };
    char why[128];

    setenv ("SBCAST_FORCE", "1", 1);
    setenv ("SBCAST_SIZE", "64k", 1);
    setenv ("SBCAST_SEND_LIBS", "yes", 1);
    setenv ("SBCAST_PRESERVE", "no", 1);
    assert_int_equal (bcast_opts_from_env (&o, why, sizeof (why)), 0);
    assert_true (o.force);
    assert_false (o.preserve);
    assert_true (o.send_libs);
    assert_int_equal (o.size, 64 * 1024);
    setenv ("SBCAST_FANOUT", "lots", 1);
    assert_int_equal (bcast_opts_from_env (&o, why, sizeof (why)), -1);
    assert_non_null (strstr (why, "lots"));
    unsetenv ("SBCAST_FANOUT");
    unsetenv ("SBCAST_FORCE");
    unsetenv ("SBCAST_SIZE");
    unsetenv ("SBCAST_SEND_LIBS");
    unsetenv ("SBCAST_PRESERVE");
}

static void check_dest (const char *src, const char *dest, const char *want)
{
    char *got = bcast_dest_path (src, dest, "/home/u/run");

    if (!want) {
        assert_null (got);
        return;
    }
    assert_non_null (got);
    assert_string_equal (got, want);
    free (got);
}

static void test_dest (void **state)
{
    check_dest ("a.out", "/tmp/prog", "/tmp/prog");
    check_dest ("bin/a.out", "/tmp/", "/tmp/a.out");
    check_dest ("a.out", "prog", "/home/u/run/prog");
    check_dest ("/x/a.out", "sub/", "/home/u/run/sub/a.out");
    check_dest ("a.out", "", NULL);
    check_dest ("dir/", "/tmp/", NULL);
}

static const char ldd_out[] =
    "\tlinux-vdso.so.1 (0x00007ffc8d5e6000)\n"
    "\tlibfoo.so.1 => /opt/foo/lib/libfoo.so.1 (0x00007f1c2a000000)\n"
    "\tlibm.so.6 => /lib/x86_64-linux-gnu/libm.so.6 (0x00007f1c29f00000)\n"
    "\tlibgone.so.2 => not found\n"
    "\tlibc.so.6 => /usr/lib64/libc.so.6 (0x00007f1c29d00000)\n"
    "\t/lib64/ld-linux-x86-64.so.2 (0x00007f1c2a100000)\n";

static void test_ldd (void **state)
{
    struct bcast_libs libs = { 0 };

    assert_int_equal (bcast_libs_parse (ldd_out, &libs), 0);
    assert_int_equal (libs.n, 3);
    assert_string_equal (libs.v[0].name, "libfoo.so.1");
    assert_string_equal (libs.v[0].path, "/opt/foo/lib/libfoo.so.1");
    assert_string_equal (libs.v[1].name, "libm.so.6");
    bcast_libs_filter (&libs, NULL); /* the default: system directories */
    assert_int_equal (libs.n, 1);
    assert_string_equal (libs.v[0].name, "libfoo.so.1");
    bcast_libs_clear (&libs);
    assert_int_equal (bcast_libs_parse (ldd_out, &libs), 0);
    bcast_libs_filter (&libs, "NONE");
    assert_int_equal (libs.n, 3);
    bcast_libs_filter (&libs, "/opt/foo/,/usr");
    assert_int_equal (libs.n, 1);
    assert_string_equal (libs.v[0].name, "libm.so.6");
    bcast_libs_clear (&libs);
    assert_int_equal (bcast_libs_parse ("", &libs), 0);
    assert_int_equal (libs.n, 0);
}

static void test_excluded (void **state)
{
    assert_true (bcast_libs_excluded ("/lib/x/libc.so.6", "/lib"));
    assert_false (bcast_libs_excluded ("/library/libc.so.6", "/lib"));
    assert_false (bcast_libs_excluded ("/opt/l.so", "/lib,/usr/lib"));
    assert_true (bcast_libs_excluded ("/usr/lib/l.so", "/lib,/usr/lib/"));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_size), cmocka_unit_test (test_words),
        cmocka_unit_test (test_env),  cmocka_unit_test (test_dest),
        cmocka_unit_test (test_ldd),  cmocka_unit_test (test_excluded),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
