/* fuzz_chrome.c - Chrome JSON (array form and {"traceEvents": [...]} object form) through the
 * framer in structural mode: no crash, no read past the bytes given, and the same counts whether
 * the stream comes whole or in pieces. */
#include "fuzz_common.h"
#include "parse/framer.h"
#include "parse/json.h"

static size_t feed_framer(void *parser, fz_parser *z, const char *buf, size_t len,
                          uint64_t offset, int flags)
{
    return dfs_framer_feed(parser, &z->p, buf, len, offset, flags);
}

static fz_summary read_structural(const uint8_t *data, size_t len, dfs_format format,
                                  size_t piece, bool all_args)
{
    fz_parser z;
    dfs_framer fr;
    fz_summary s;
    fz_parser_init(&z, all_args);
    dfs_framer_init(&fr, format, true);
    fz_drive(&z, feed_framer, &fr, data, len, piece);
    dfs_framer_finish(&fr, &z.p);
    fz_summarize(&z, &s);
    fz_parser_free(&z);
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    /* As the sniffer decides: an object at the start is the object form, else an array. */
    const char *s = (const char *)data;
    const char *first = dfs_json_ws(s, s + len);
    dfs_format format =
        first < s + len && *first == '{' ? DFS_FMT_JSON_OBJECT : DFS_FMT_JSON_ARRAY;
    size_t piece = fz_piece_size(data, len);
    bool all_args = fz_all_args(data, len);
    fz_summary whole = read_structural(data, len, format, 0, all_args);
    fz_summary pieces = read_structural(data, len, format, piece, all_args);
    fz_expect_same("chrome", piece, &whole, &pieces);
    return 0;
}
