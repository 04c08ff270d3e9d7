/* shortest.h - the fewest decimal digits that read back as the same double: the digits of Python's
 * repr(float), which the Python-compatible outputs (merge, tasks) and the rules table print. One
 * digit generator, shared, so that no two outputs can disagree on a number's digits. */
#ifndef DFS_SHORTEST_H
#define DFS_SHORTEST_H
#include <stddef.h>

/* Room for any text of dfs_py_repr_finite or dfs_shortest_g_finite, NUL included
 * ("-1.7976931348623157e+308" needs 25). */
#define DFS_PY_REPR_MAX 32

/* The fewest significant digits that read back as a (finite, a > 0), and of those the nearest to
 * a's exact binary value - the correctly rounded ones whenever they read back, as Python's repr
 * has them: digits gets them NUL-terminated (no trailing zeros), *decpt the position of the decimal
 * point (a = 0.digits x 10^decpt). Returns the digit count, 1 to 17. Not always the correctly
 * rounded ones: at 46 powers of two (2^-24 = 5.9604644775390625e-08 among them) the correctly
 * rounded 16 digits (...062) do not read back, the next 16 up (...063) do, and Python prints those. */
int dfs_shortest_digits(double a, char digits[18], int *decpt);

/* Python 3's repr() of a finite v ("5.0", "1e-05", "-0.0", "0.0003413333333333333") into buf of
 * at least DFS_PY_REPR_MAX bytes; returns the length. NaN and infinities are left to the callers:
 * their spelling differs between outputs ("nan" as Python prints it, "NaN" as json.dumps does). */
size_t dfs_py_repr_finite(double v, char *buf);
/* Python 3's repr() of any v: as above, NaN and infinities as "nan", "inf" and "-inf". */
size_t dfs_py_repr(double v, char *buf);

/* printf's "%.*g" of a finite v at the digit count of dfs_shortest_digits ("1e+02", "0.0001",
 * "-0") into buf of at least DFS_PY_REPR_MAX bytes, but made from those digits, so that it prints
 * them where they are not the correctly rounded ones; returns the length. */
size_t dfs_shortest_g_finite(double v, char *buf);

/* The shortest JSON number that reads back as a finite v, laid out as JavaScript prints numbers:
 * plain from 1e-6 to 1e21 ("0.022468", "1500", "-0"), else with a bare exponent ("1e-7",
 * "1.5e21"); into buf of at least DFS_PY_REPR_MAX bytes; returns the length. */
size_t dfs_shortest_json_finite(double v, char *buf);
#endif
