"""One call to the service: the transport that sends it (with its deadline and size
cap), the session that runs it through the cache, the pace, and the caller that
retries it and turns a status into an error."""
