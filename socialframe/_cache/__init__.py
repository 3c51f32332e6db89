"""Where paid pages live: what is stored and under which key, the data-only format,
the SQLite file and the team's Redis, page locks, the warm read, and the report of
what a cache holds."""
