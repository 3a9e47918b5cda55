"""The harness: what turns a user's model into a submission and a scored result, for any registered benchmark.

``evaluate`` (an encoder or a built-in retriever on every ranking track), ``runs`` (a chat model under a
benchmark's own protocol: the plumbing every ``lemmata run NAME`` shares), ``baselines`` (the plumbing of the
offline baseline commands) and ``mteb_export`` (the ranking tracks as MTEB tasks). It sits below the benchmark
families, which build on it, and reaches them only through the registry (:mod:`lemmata.families`): nothing here
names a benchmark.
"""
