"""Training, evaluation, benchmarks and the ``arena`` command line."""
