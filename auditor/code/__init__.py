"""Reading the user's pipeline code: scripts and notebooks, their def-use chains, and a dataflow of rows from
their sources through splits, fits and evaluations (the static pass), and the trace of a run (``--run``)."""
