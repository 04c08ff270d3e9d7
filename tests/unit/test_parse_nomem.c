/* test_parse_nomem.c - a record the parser cannot read for want of memory is not a bad record:
 * the parser says so (dfs_pctx.nomem), and a run that met it ends with exit 4 (out of memory),
 * never with the record counted as a bad line and exit 1.
 *
 * The allocation is made to fail for real: a child process lowers its address-space limit
 * (RLIMIT_AS) just above what it uses, then parses records whose escaped strings need a buffer
 * larger than what is left. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "testutil.h"

#include "parse/record.h"


enum { BIG = 64 << 20 }; /* an escaped string of 64 MiB: its unescaped copy cannot be had */

/* {"name":"\u0041aaaa...","ph":"X","ts":1,"dur":1} with a name of BIG bytes, or a key of them. */
static char *record_with_big(bool in_key, size_t *len)
{
    const char *head = in_key ? "{\"" : "{\"name\":\"", *tail = in_key ? "\":1,\"ph\":\"X\"}" : "\",\"ph\":\"X\"}";
    size_t n = strlen(head) + 6 + BIG + strlen(tail);
    char *s = malloc(n + 1);
    assert_non_null(s);
    char *p = s;
    p += sprintf(p, "%s\\u0041", head);
    memset(p, 'a', BIG);
    p += BIG;
    strcpy(p, tail);
    *len = n;
    return s;
}

/* In a child: parse the record under a limit a few MiB above what is mapped; 0 when the parser
 * said that memory ran out, 1 when it did not, 77 when the limit could not be set. */
static int parse_without_memory(bool in_key)
{
    size_t len;
    char *text = record_with_big(in_key, &len);
    tu_parser t;
    tu_parser_init(&t, 7);
    t.want.all = true;
    struct rlimit rl;
    rl.rlim_cur = rl.rlim_max = (rlim_t)(tu_mapped_bytes() + (16u << 20));
    if (setrlimit(RLIMIT_AS, &rl) != 0)
        return 77;
    dfs_rec_status s = dfs_parse_record_ex(&t.p, text, len, len, 0, 0, NULL);
    (void)s; /* read with the escapes left in, or not at all: either way not to be trusted */
    return t.p.nomem ? 0 : 1;
}

static int value_without_memory(void) { return parse_without_memory(false); }
static int key_without_memory(void) { return parse_without_memory(true); }

static void test_escaped_value_without_memory(void **state)
{
    (void)state;
    tu_in_child(value_without_memory);
}

static void test_escaped_key_without_memory(void **state)
{
    (void)state;
    tu_in_child(key_without_memory);
}

/* With memory, the same record parses and nomem stays false: the flag means memory, not size. */
static void test_with_memory(void **state)
{
    (void)state;
    size_t len;
    char *text = record_with_big(false, &len);
    tu_parser t;
    tu_parser_init(&t, 7);
    t.want.all = true;
    assert_int_equal(dfs_parse_record_ex(&t.p, text, len, len, 0, 0, NULL), DFS_REC_EVENT);
    assert_false(t.p.nomem);
    tu_parser_free(&t);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escaped_value_without_memory),
        cmocka_unit_test(test_escaped_key_without_memory),
        cmocka_unit_test(test_with_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
