/* utf8.h - UTF-8 validation shared by the JSON reader and the writers. */
#ifndef DFS_UTF8_H
#define DFS_UTF8_H
#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (n bytes available), or 0 when it is invalid:
 * overlong forms, surrogates and code points above U+10FFFF are invalid. ASCII is 1. */
static inline size_t dfs_utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, min = 0x10000;
    else
        return 0;
    if (n < len)
        return 0;
    unsigned cp = c & (0x7Fu >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}
#endif
