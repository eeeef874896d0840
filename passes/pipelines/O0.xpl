// O0 — no optimization: verify the input and change nothing. A baseline for comparing
// pipelines and the pipeline to bisect against.

verify
