"""Studies: posts and ad searches watched over time (see :class:`socialframe.Study`)."""
