/* cli.h - the subcommands of the dfscope CLI. Each takes argv after the subcommand name
 * (argv[0] is the subcommand) and returns a process exit code (enum dfs_exit). */
#ifndef DFS_CLI_H
#define DFS_CLI_H

int dfs_cmd_stats(int argc, char **argv);
int dfs_cmd_analyze(int argc, char **argv);
int dfs_cmd_gen(int argc, char **argv);
int dfs_cmd_tasks(int argc, char **argv);
int dfs_cmd_overlap(int argc, char **argv);
int dfs_cmd_dataloader(int argc, char **argv);
int dfs_cmd_timeline(int argc, char **argv);
int dfs_cmd_merge(int argc, char **argv);
int dfs_cmd_rules(int argc, char **argv);
int dfs_cmd_steps(int argc, char **argv);

/* Shared option parsing helpers */
int dfs_cli_parse_jobs(const char *s, int *jobs);  /* 0 on success */
#endif
