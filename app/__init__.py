"""The command-line application: ``arena`` (cli.py, its sub-commands in commands.py,
cli_common.py), the browser page (serve.py, static/), a person's game (match.py), the benchmark
(bench.py), recordings (record.py), the quickstart and the ladder's command and page. It uses
the trainers and the evaluator (train/); nothing under train/, agents/ or envs/ imports it."""
