"""One call to the service: the call as a frozen value (call), the caller that sends it
and counts it (caller), what the cache does for it (actions), which failures are tried
again and for how long (retry), what an answer means (answers), and below them the
session that runs it through the cache, the transport that sends it (with its deadline
and size cap), the key (auth), the pace and what the service charged (charges)."""
