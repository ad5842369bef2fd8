/* gresspec_test.c - --gres and --gpus* requests (gresspec.c): what
 * parses, what is refused and why, and the text back.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "gresspec.h"

/* --gres=s (gpus: --gpus=s) as text, or "ERR: ..." when refused. */
static const char *parsed (const char *s, int gpus)
{
    static char buf[512];
    struct gresspec g;
    arbor_error_t err = { "" };
    int rc = gpus ? gresspec_parse_gpus ("--gpus", s, &g, &err)
                  : gresspec_parse (s, &g, &err);

    if (rc < 0) {
        assert_int_equal (errno, EINVAL);
        assert_int_equal (g.n, 0);
        snprintf (buf, sizeof (buf), "ERR: %s", err.text);
        return buf;
    }
    return gresspec_text (&g, buf, sizeof (buf));
}

static void test_gres (void **state)
{
    (void)state;
    assert_string_equal (parsed ("gpu", 0), "gpu:1");
    assert_string_equal (parsed ("gpu:2", 0), "gpu:2");
    assert_string_equal (parsed ("gpu:a100:2,nic:1", 0), "gpu:a100:2,nic:1");
    assert_string_equal (parsed ("gpu:a100", 0), "gpu:a100:1");
    assert_string_equal (parsed ("gpu:3g.20gb", 0), "gpu:3g.20gb:1");
    assert_string_equal (parsed ("mps:100k", 0), "mps:102400");
    assert_string_equal (parsed ("gpu:tesla:2,gpu:kepler:1", 0),
                         "gpu:tesla:2,gpu:kepler:1");
    assert_string_equal (parsed ("none", 0), "");
}

static void test_gres_refused (void **state)
{
    (void)state;
    assert_string_equal (parsed ("gpu:0", 0),
                         "ERR: invalid --gres \"gpu:0\": a count of at "
                         "least 1 expected");
    assert_non_null (strstr (parsed ("gpu:a:b:c", 0), "name[:type][:count]"));
    assert_non_null (strstr (parsed ("g/pu:1", 0), "resource name"));
    assert_non_null (strstr (parsed ("gpu:a100:x", 0), "a count"));
    assert_non_null (strstr (parsed ("gpu:1,gpu:2", 0), "given twice"));
    assert_non_null (strstr (parsed ("gpu,", 0), "an empty part"));
    assert_non_null (strstr (parsed ("", 0), "empty"));
    assert_non_null (strstr (parsed ("gpu:99999999999999", 0), "a count"));
    char many[256] = "";
    for (int i = 0; i < 17; i++)
        snprintf (many + strlen (many), sizeof (many) - strlen (many), "%sr%d",
                  i ? "," : "", i);
    assert_non_null (strstr (parsed (many, 0), "too many resources"));
}

static void test_gpus (void **state)
{
    (void)state;
    assert_string_equal (parsed ("2", 1), "gpu:2");
    assert_string_equal (parsed ("a100:1", 1), "gpu:a100:1");
    assert_string_equal (parsed ("a100:1,v100:2", 1), "gpu:a100:1,gpu:v100:2");
    assert_string_equal (parsed ("0", 1),
                         "ERR: invalid --gpus \"0\": a count of at least 1 "
                         "expected");
    assert_non_null (strstr (parsed ("gpu:a100:1", 1), "[type:]count"));
    assert_non_null (strstr (parsed ("none", 1), "a count"));
}

/* The options that take one [type:]count. */
static void test_gpu_one (void **state)
{
    struct gres_req r;
    arbor_error_t err;

    (void)state;
    assert_int_equal (gresspec_parse_gpu ("--gpus", "a100:2", &r, &err), 0);
    assert_string_equal (r.name, "gpu");
    assert_string_equal (r.type, "a100");
    assert_int_equal (r.count, 2);
    assert_int_equal (gresspec_parse_gpu ("--gpus", "1,a100:2", &r, &err), -1);
    assert_string_equal (err.text,
                         "invalid --gpus \"1,a100:2\": one [type:]count");
    assert_int_equal (r.count, 0);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_gres),
        cmocka_unit_test (test_gres_refused),
        cmocka_unit_test (test_gpus),
        cmocka_unit_test (test_gpu_one),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
