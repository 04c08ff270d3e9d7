/* fuzz_dasf.c - DASF length-prefixed msgpack records: no crash, no read past the bytes given,
 * and the same counts whether the stream comes whole or in pieces, with every arg wanted or
 * none. */
#include "fuzz_common.h"
#include "parse/dasf.h"

static size_t feed_dasf(void *parser, fz_parser *z, const char *buf, size_t len, uint64_t offset,
                        int flags)
{
    (void)parser;
    return dfs_dasf_feed(&z->p, (const unsigned char *)buf, len, offset, flags);
}

static fz_summary read_dasf(const uint8_t *data, size_t len, size_t piece, bool all_args)
{
    fz_parser z;
    fz_summary s;
    fz_parser_init(&z, all_args);
    fz_drive(&z, feed_dasf, NULL, data, len, piece);
    fz_summarize(&z, &s);
    fz_parser_free(&z);
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    size_t piece = fz_piece_size(data, len);
    bool all_args = fz_all_args(data, len);
    fz_summary whole = read_dasf(data, len, 0, all_args);
    fz_summary pieces = read_dasf(data, len, piece, all_args);
    fz_expect_same("dasf", piece, &whole, &pieces);
    return 0;
}
