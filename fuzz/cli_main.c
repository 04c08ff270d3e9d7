/* cli_main.c - the CLI's main() under another name, so that the CLI fuzz target can call it
 * in-process (libFuzzer owns main). */
#define main dfs_fuzz_cli_main
int dfs_fuzz_cli_main(int argc, char **argv);
#include "../src/cli/main.c"
