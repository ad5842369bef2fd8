/* json_doc_test.c - the --json writer (json_doc.c) writes each record
 * exactly as jansson's own dump would: the hand-picked corners (escapes,
 * UTF-8, the integer extremes, empty lists, reals) and a few thousand
 * random trees, each compared byte for byte with json_dumps. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "json/json.h"

/* The streamed document of one record, and the record's own line. */
static char *streamed (json_t *rec)
{
    struct json_stream *s = json_stream_create ("arbor.test", 1, "list");
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&text, &len);

    assert_non_null (s);
    assert_non_null (f);
    assert_int_equal (json_stream_add (s, json_incref (rec)), 0);
    assert_int_equal (json_stream_write (s, f), 0);
    json_stream_destroy (s);
    fclose (f);
    return text;
}

/* rec's line in the stream must be jansson's dump of it. */
static void same_as_jansson (json_t *rec)
{
    static const char head[] =
        "{\"schema\": \"arbor.test\", \"version\": 1, \"list\": [\n";
    char *want = json_dumps (rec, JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
    char *got = streamed (rec);
    size_t hl = strlen (head);

    assert_non_null (want);
    assert_memory_equal (got, head, hl);
    assert_true (strlen (got) == hl + strlen (want) + strlen ("\n]}\n"));
    if (memcmp (got + hl, want, strlen (want)) != 0)
        fail_msg ("wrote %s\njansson %s", got + hl, want);
    assert_string_equal (got + hl + strlen (want), "\n]}\n");
    free (want);
    free (got);
}

static void test_corners (void **state)
{
    (void)state;
    json_t *o = json_pack (
        "{s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:i, s:b, s:b, s:n,"
        " s:f, s:[], s:{}, s:[i,s,{s:[]}], s:{s:{s:n}}}",
        "plain", "node[1-4] RUNNING (x)", "quote", "a \"b\" \\c/", "control",
        "tab\there\nnl\x01\x1f\x7f", "utf8", "caf\xc3\xa9 \xe2\x82\xac",
        "empty", "", "max", (json_int_t)INT64_MAX, "min", (json_int_t)INT64_MIN,
        "neg", (json_int_t)-42, "zero", 0, "t", 1, "f", 0, "null", "real", 2.5,
        "list0", "obj0", "mixed", 7, "x", "k", "deep", "a", "b");

    assert_non_null (o);
    /* a key that needs escaping, and a string with a NUL in it */
    assert_int_equal (json_object_set_new (o, "k\"ey\\", json_true ()), 0);
    assert_int_equal (json_object_set_new (o, "nul", json_stringn ("a\0b", 3)),
                      0);
    same_as_jansson (o);
    json_decref (o);
}

/* ---- random trees ------------------------------------------------------ */

static const char *const words[] = {
    "",
    "x",
    "node7",
    "a b",
    "\"",
    "\\",
    "\t\n",
    "\x01",
    "\xc3\xa9t\xc3\xa9",
    "\xe2\x82\xac",
    "\xf0\x9f\x98\x80",
    "/tmp/o",
    "}{][",
    "%s%n",
    "\x7f",
};
#define NWORDS (sizeof (words) / sizeof (words[0]))

static json_t *random_value (unsigned *seed, int depth)
{
    int kind = rand_r (seed) % (depth > 3 ? 6 : 8);
    json_int_t big = ((json_int_t)rand_r (seed) << 32) ^ rand_r (seed);

    switch (kind) {
    case 0: return json_string (words[rand_r (seed) % NWORDS]);
    case 1: return json_integer (rand_r (seed) % 2 ? big : -big);
    case 2: return json_integer (rand_r (seed) % 1000 - 500);
    case 3: return json_boolean (rand_r (seed) % 2);
    case 4: return json_null ();
    case 5: return json_real ((double)rand_r (seed) / 7.0);
    case 6: {
        json_t *a = json_array ();
        for (int i = rand_r (seed) % 4; i > 0; i--)
            json_array_append_new (a, random_value (seed, depth + 1));
        return a;
    }
    default: {
        json_t *o = json_object ();
        for (int i = rand_r (seed) % 5; i > 0; i--)
            json_object_set_new (o, words[rand_r (seed) % NWORDS],
                                 random_value (seed, depth + 1));
        return o;
    }
    }
}

static void test_random_trees (void **state)
{
    (void)state;
    unsigned seed = 20261123;

    for (int i = 0; i < 3000; i++) {
        json_t *v = random_value (&seed, 0);
        assert_non_null (v);
        same_as_jansson (v);
        json_decref (v);
    }
}

/* json_doc_write: each record of the list on a line of its own. */
static void test_document_layout (void **state)
{
    (void)state;
    json_t *list, *doc = json_doc_create ("arbor.test", 2, "jobs", &list);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&text, &len);

    assert_non_null (doc);
    json_array_append_new (list, json_pack ("{s:i,s:s}", "id", 1, "n", "a"));
    json_array_append_new (list, json_pack ("{s:i,s:[]}", "id", 2, "l"));
    assert_int_equal (json_doc_write (doc, f), 0);
    fclose (f);
    assert_string_equal (text, "{\"schema\": \"arbor.test\", \"version\": 2, "
                               "\"jobs\": [\n{\"id\": 1, \"n\": \"a\"},\n"
                               "{\"id\": 2, \"l\": []}\n]}\n");
    free (text);
    json_decref (doc);
}

/* json_put_*: the same text as the tree of the same record, also for
 * text that is not UTF-8 (its bytes become '?', as json_doc_text's). */
static void test_put_equals_tree (void **state)
{
    (void)state;
    json_t *tree = json_pack (
        "{s:i, s:n, s:s, s:s, s:s, s:b, s:n, s:I, s:{s:i,s:i}, s:[], "
        "s:[{s:s},{s:o}], s:[]}",
        "id", 7, "none", "name", "a\"b", "bytes", "x?y", "empty", "", "ok", 1,
        "time", "when", (json_int_t)1700000000, "exit", "status", 3, "signal",
        9, "events", "steps", "t", "\t", "u", json_string ("\xc3\xa9"), "more");
    struct json_stream *s = json_stream_create ("arbor.test", 1, "list");
    char *text = NULL, *got;
    size_t len = 0;
    FILE *f = open_memstream (&text, &len);

    json_put_object (s, NULL);
    json_put_int (s, "id", 7);
    json_put_time (s, "none", 0);
    json_put_text (s, "name", "a\"b");
    json_put_text (s, "bytes", "x\xffy");
    json_put_text (s, "empty", NULL);
    json_put_bool (s, "ok", true);
    json_put_null (s, "time");
    json_put_time (s, "when", 1700000000);
    json_put_object (s, "exit");
    json_put_int (s, "status", 3);
    json_put_int (s, "signal", 9);
    json_put_object_end (s);
    json_put_list (s, "events");
    json_put_list_end (s);
    json_put_list (s, "steps");
    json_put_object (s, NULL);
    json_put_text (s, "t", "\t");
    json_put_object_end (s);
    json_put_object (s, NULL);
    json_put_text (s, "u", "\xc3\xa9");
    json_put_object_end (s);
    json_put_list_end (s);
    json_put_list (s, "more");
    json_put_list_end (s);
    json_put_object_end (s);
    assert_int_equal (json_stream_write (s, f), 0);
    fclose (f);
    got = streamed (tree);
    assert_string_equal (text, got);
    free (got);
    free (text);
    json_decref (tree);

    /* an end without its start fails the document */
    json_put_object_end (s);
    f = open_memstream (&text, &len);
    assert_int_equal (json_stream_write (s, f), -1);
    fclose (f);
    free (text);
    json_stream_destroy (s);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_corners),
        cmocka_unit_test (test_random_trees),
        cmocka_unit_test (test_document_layout),
        cmocka_unit_test (test_put_equals_tree),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
