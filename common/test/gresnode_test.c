/* gresnode_test.c - a node's generic resources (gresnode.c): gres.conf
 * lines by NodeName=, count-only and device items, Gres= leftovers,
 * AutoDetect scopes, detected GPUs replacing gpu lines, the text for
 * logs, and what is refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "conf.h"
#include "gresconf.h"
#include "gresnode.h"

#define CONF_HEAD             \
    "GresTypes=gpu,nic,mps\n" \
    "PartitionName=p Nodes=ALL\n"

/* Parsed arbor.conf and gres.conf (gres NULL: none), for one test. */
struct fixture {
    struct conf *c;
    struct gresconf gc;
    bool has_gc;
    struct gresnode out;
};

static void fixture_load (struct fixture *f, const char *conf, const char *gres)
{
    arbor_error_t err = { "" };

    memset (f, 0, sizeof (*f));
    if (!(f->c = conf_parse (conf, "arbor.conf", &err)))
        fail_msg ("arbor.conf: %s", err.text);
    if (gres) {
        if (gresconf_parse (gres, &f->gc, &err) < 0)
            fail_msg ("gres.conf: %s", err.text);
        f->has_gc = true;
    }
}

static void fixture_free (struct fixture *f)
{
    gresnode_clear (&f->out);
    gresconf_clear (&f->gc);
    conf_destroy (f->c);
}

/* Build for 'node' and return gresnode_text of the result (static). */
static const char *build_text (struct fixture *f, const char *node,
                               const struct gresnode *detected)
{
    static char text[512];
    arbor_error_t err = { "" };
    char *s;

    gresnode_clear (&f->out);
    if (gresnode_build (f->c, node, f->has_gc ? &f->gc : NULL, detected,
                        &f->out, &err)
        < 0)
        fail_msg ("build %s: %s", node, err.text);
    assert_non_null (s = gresnode_text (&f->out));
    snprintf (text, sizeof (text), "%s", s);
    free (s);
    return text;
}

/* Building must fail with EINVAL and exactly 'want'. */
static void build_refused (struct fixture *f, const char *node,
                           const struct gresnode *detected, const char *want)
{
    arbor_error_t err = { "" };

    errno = 0;
    assert_int_equal (gresnode_build (f->c, node, f->has_gc ? &f->gc : NULL,
                                      detected, &f->out, &err),
                      -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (f->out.n, 0);
    assert_string_equal (err.text, want);
}

static void test_count_only (void **state)
{
    struct fixture f;

    (void)state;
    fixture_load (&f,
                  CONF_HEAD "NodeName=n1 Gres=gpu:a100:4,nic:1\n"
                            "NodeName=n2\n",
                  NULL);
    assert_string_equal (build_text (&f, "n1", NULL), "gpu:a100:4,nic:1");
    assert_int_equal (f.out.n, 2);
    assert_string_equal (f.out.v[0].name, "gpu");
    assert_string_equal (f.out.v[0].type, "a100");
    assert_int_equal (f.out.v[0].count, 4);
    assert_null (f.out.v[0].files);
    assert_null (f.out.v[1].type);
    assert_string_equal (build_text (&f, "n2", NULL), "");
    assert_int_equal (f.out.n, 0);
    fixture_free (&f);
}

static void test_files_types (void **state)
{
    struct fixture f;

    (void)state;
    fixture_load (&f, CONF_HEAD "NodeName=n[1-2] Gres=gpu:4,nic:2\n",
                  "Name=gpu Type=a100 File=/dev/nvidia[0-1] Cores=0-7\n"
                  "Name=gpu Type=v100 File=/dev/nvidia[2-3] Cores=8-15 "
                  "Flags=nvidia_gpu_env\n"
                  "Name=nic Count=2\n");
    assert_string_equal (build_text (&f, "n1", NULL),
                         "gpu:a100:2(/dev/nvidia[0-1]),"
                         "gpu:v100:2(/dev/nvidia[2-3]),nic:2");
    assert_int_equal (f.out.n, 3);
    assert_int_equal (f.out.v[0].nfiles, 2);
    assert_string_equal (f.out.v[0].files[1], "/dev/nvidia1");
    assert_string_equal (f.out.v[0].cores, "0-7");
    assert_null (f.out.v[0].flags);
    assert_string_equal (f.out.v[1].flags, "nvidia_gpu_env");
    assert_int_equal (f.out.v[2].count, 2);
    fixture_free (&f);
}

static void test_nodename (void **state)
{
    struct fixture f;

    (void)state;
    fixture_load (&f, CONF_HEAD "NodeName=n[1-4]\n",
                  "NodeName=n[1-2] Name=gpu File=/dev/nvidia[0-1]\n"
                  "NodeName=n3,n4 Name=gpu Type=h100 File=/dev/nvidia0\n"
                  "Name=nic Count=1  # every node\n");
    assert_string_equal (build_text (&f, "n2", NULL),
                         "gpu:2(/dev/nvidia[0-1]),nic:1");
    assert_string_equal (build_text (&f, "n4", NULL),
                         "gpu:h100:1(/dev/nvidia0),nic:1");
    fixture_free (&f);
}

/* A resource gres.conf describes is the node's truth; one it does not
 * comes from Gres=, each entry with its type and count. */
static void test_leftovers (void **state)
{
    struct fixture f;

    (void)state;
    fixture_load (&f,
                  CONF_HEAD "NodeName=n1 Gres=gpu:a100:4,nic:1,mps:200\n"
                            "NodeName=n2 Gres=gpu:a100:1,gpu:v100:2\n",
                  "NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia[0-1]\n");
    /* gpu is described (2 files, fewer than the 4 of Gres=: the node
     * reports what it has); nic and mps are not */
    assert_string_equal (build_text (&f, "n1", NULL),
                         "gpu:a100:2(/dev/nvidia[0-1]),nic:1,mps:200");
    assert_string_equal (build_text (&f, "n2", NULL), "gpu:a100:1,gpu:v100:2");
    fixture_free (&f);
}

static void test_autodetect_scope (void **state)
{
    struct fixture f;
    arbor_error_t err = { "" };
    const char *mech;

    (void)state;
    fixture_load (&f, CONF_HEAD "NodeName=n[1-3]\n",
                  "AutoDetect=nvml\n"
                  "NodeName=n2 AutoDetect=off\n"
                  "NodeName=n3 Name=gpu AutoDetect=rsmi\n");
    assert_int_equal (gresnode_autodetect (&f.gc, "n1", &mech, &err), 0);
    assert_string_equal (mech, "nvml");
    assert_int_equal (gresnode_autodetect (&f.gc, "n2", &mech, &err), 0);
    assert_null (mech);
    assert_int_equal (gresnode_autodetect (&f.gc, "n3", &mech, &err), 0);
    assert_string_equal (mech, "rsmi");
    assert_int_equal (gresnode_autodetect (NULL, "n1", &mech, &err), 0);
    assert_null (mech);
    fixture_free (&f);

    fixture_load (&f, CONF_HEAD "NodeName=n[1-3]\n",
                  "NodeName=n[1-2] AutoDetect=nvml\n"
                  "NodeName=n2 AutoDetect=off\n");
    assert_int_equal (gresnode_autodetect (&f.gc, "n1", &mech, &err), 0);
    assert_string_equal (mech, "nvml");
    assert_int_equal (gresnode_autodetect (&f.gc, "n3", &mech, &err), 0);
    assert_null (mech);
    errno = 0;
    assert_int_equal (gresnode_autodetect (&f.gc, "n2", &mech, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_string_equal (err.text, "gres.conf line 2: AutoDetect=off "
                                   "disagrees with line 1 (AutoDetect=nvml)");
    fixture_free (&f);
}

/* Two detected A100s, as nvml_detect reports them. */
static void detected_two (struct gresnode *d, const char *type)
{
    char *f0[] = { "/dev/nvidia0" }, *f1[] = { "/dev/nvidia1" };
    struct gres_item a = { .name = "gpu",
                           .type = (char *)type,
                           .count = 1,
                           .files = f0,
                           .nfiles = 1,
                           .cores = "0-3" };
    struct gres_item b = a;

    b.files = f1;
    b.cores = "4-7";
    memset (d, 0, sizeof (*d));
    assert_int_equal (gresnode_add (d, &a), 0);
    assert_int_equal (gresnode_add (d, &b), 0);
}

static void test_autodetect_replaces (void **state)
{
    struct fixture f;
    struct gresnode d;

    (void)state;
    detected_two (&d, "nvidia_a100-sxm4-40gb");
    /* n1: the gpu line (4 files, wrong cores) is replaced; its Type= is
     * part of the detected type, so it names them and lends its Flags=.
     * n2: no gpu line; Gres= names the type. n3: detection is off. */
    fixture_load (&f,
                  CONF_HEAD "NodeName=n[1-2] Gres=gpu:a100:2,nic:1\n"
                            "NodeName=n3 Gres=gpu:2\n",
                  "AutoDetect=nvml\n"
                  "NodeName=n1 Name=gpu Type=A100 File=/dev/nvidia[0-3] "
                  "Cores=0-63 Flags=nvidia_gpu_env\n"
                  "NodeName=n3 AutoDetect=off\n"
                  "NodeName=n3 Name=gpu File=/dev/nvidia[0-1]\n"
                  "Name=nic Count=1\n");
    assert_string_equal (build_text (&f, "n1", &d),
                         "nic:1,gpu:A100:2(/dev/nvidia[0-1])");
    assert_int_equal (f.out.n, 3);
    assert_string_equal (f.out.v[1].cores, "0-3");
    assert_string_equal (f.out.v[2].cores, "4-7");
    assert_string_equal (f.out.v[2].flags, "nvidia_gpu_env");
    assert_int_equal (f.out.v[2].count, 1);
    assert_string_equal (build_text (&f, "n2", &d),
                         "nic:1,gpu:a100:2(/dev/nvidia[0-1])");
    assert_null (f.out.v[1].flags);
    assert_string_equal (build_text (&f, "n3", &d),
                         "gpu:2(/dev/nvidia[0-1]),nic:1");
    /* no library (detected NULL): the configuration stands */
    assert_string_equal (build_text (&f, "n1", NULL),
                         "gpu:A100:4(/dev/nvidia[0-3]),nic:1");
    gresnode_clear (&d);

    /* a type no configuration names stays as detected */
    detected_two (&d, "tesla_v100-sxm2-16gb");
    assert_string_equal (build_text (&f, "n2", &d),
                         "nic:1,gpu:tesla_v100-sxm2-16gb:2(/dev/nvidia[0-1])");
    gresnode_clear (&d);
    fixture_free (&f);
}

/* Detection found nothing: the gpu lines are still replaced, and Gres=
 * then gives the count-only gpus, as with no gres.conf line. */
static void test_autodetect_none_found (void **state)
{
    struct fixture f;
    struct gresnode none = { NULL, 0 };

    (void)state;
    fixture_load (&f, CONF_HEAD "NodeName=n1 Gres=gpu:a100:2\n",
                  "AutoDetect=nvml\n"
                  "Name=gpu Type=a100 File=/dev/nvidia[0-1]\n");
    assert_string_equal (build_text (&f, "n1", &none), "gpu:a100:2");
    fixture_free (&f);
}

static void test_refused (void **state)
{
    struct fixture f;
    struct gresnode d;

    (void)state;
    fixture_load (&f, "GresTypes=nic\nNodeName=n1 Gres=nic:1\n",
                  "Name=nic Count=1\n"
                  "NodeName=n9 Name=fpga Count=2\n");
    /* every line is checked, not only the node's */
    build_refused (&f, "n1", NULL,
                   "gres.conf line 2: Name=fpga is not in GresTypes (add "
                   "GresTypes=fpga)");
    build_refused (&f, "n7", NULL, "node n7 is not in arbor.conf");
    fixture_free (&f);

    /* gpu too must be listed */
    fixture_load (&f, "GresTypes=nic\nNodeName=n1\n",
                  "Name=gpu File=/dev/nvidia0\n");
    build_refused (&f, "n1", NULL,
                   "gres.conf line 1: Name=gpu is not in GresTypes (add "
                   "GresTypes=gpu)");
    fixture_free (&f);

    fixture_load (&f, "GresTypes=nic\nNodeName=n1\n", "AutoDetect=nvml\n");
    detected_two (&d, "nvidia_a100-sxm4-40gb");
    build_refused (&f, "n1", &d,
                   "AutoDetect=nvml found GPUs but gpu is not in GresTypes "
                   "(add GresTypes=gpu)");
    gresnode_clear (&d);
    fixture_free (&f);

    fixture_load (&f, CONF_HEAD "NodeName=n1\n",
                  "NodeName=n[1- Name=nic Count=1\n");
    errno = 0;
    assert_int_equal (gresnode_build (f.c, "n1", &f.gc, NULL, &f.out, NULL),
                      -1);
    assert_int_equal (errno, EINVAL);
    fixture_free (&f);
}

/* More lines for a node than a node may have items. */
static void test_too_many (void **state)
{
    struct fixture f;
    char *text = malloc (32 * (GRESNODE_ITEMS_MAX + 1) + 1), *p = text;
    arbor_error_t err = { "" };

    (void)state;
    assert_non_null (text);
    for (int i = 0; i <= GRESNODE_ITEMS_MAX; i++)
        p += sprintf (p, "Name=nic Type=t%d\n", i);
    fixture_load (&f, CONF_HEAD "NodeName=n1\n", text);
    free (text);
    errno = 0;
    assert_int_equal (gresnode_build (f.c, "n1", &f.gc, NULL, &f.out, &err),
                      -1);
    assert_int_equal (errno, E2BIG);
    assert_int_equal (f.out.n, 0);
    assert_string_equal (err.text, "gres.conf: more than 256 resource items");
    fixture_free (&f);
}

static void test_add_limits (void **state)
{
    struct gresnode g = { NULL, 0 };
    struct gres_item it = { .name = "nic", .count = 1 };
    char *s;

    (void)state;
    for (int i = 0; i < GRESNODE_ITEMS_MAX; i++)
        assert_int_equal (gresnode_add (&g, &it), 0);
    errno = 0;
    assert_int_equal (gresnode_add (&g, &it), -1);
    assert_int_equal (errno, E2BIG);
    assert_int_equal (g.n, GRESNODE_ITEMS_MAX);
    gresnode_clear (&g);
    gresnode_clear (NULL);
    assert_non_null (s = gresnode_text (&g));
    assert_string_equal (s, "");
    free (s);
}

/* Files that do not read as a host list are listed as they are. */
static void test_text_files (void **state)
{
    char *files[] = { "/dev/a,b", "/dev/c" };
    struct gres_item it = {
        .name = "x", .count = 2, .files = files, .nfiles = 2
    };
    struct gresnode g = { NULL, 0 };
    char *s;

    (void)state;
    assert_int_equal (gresnode_add (&g, &it), 0);
    assert_non_null (s = gresnode_text (&g));
    assert_string_equal (s, "x:2(/dev/a,b,/dev/c)");
    free (s);
    gresnode_clear (&g);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_count_only),
        cmocka_unit_test (test_files_types),
        cmocka_unit_test (test_nodename),
        cmocka_unit_test (test_leftovers),
        cmocka_unit_test (test_autodetect_scope),
        cmocka_unit_test (test_autodetect_replaces),
        cmocka_unit_test (test_autodetect_none_found),
        cmocka_unit_test (test_refused),
        cmocka_unit_test (test_too_many),
        cmocka_unit_test (test_add_limits),
        cmocka_unit_test (test_text_files),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
