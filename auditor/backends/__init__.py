"""The same manifest kernels on other engines: out of core (DuckDB) and, beside it, the engine choice."""
