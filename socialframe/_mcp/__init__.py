"""The MCP server (``socialframe mcp``): the library's operations as tools for an AI
agent, behind a spend cap the server keeps, whatever the model asks.

::

    run.py     its clients, its sandbox and its transport, from the command line's options
    server.py  the tools (the official ``mcp`` SDK), their results, the confirmation
    calls.py   a paid call's checks, worst case and fetch, in plain threads
    cap.py     the cap: a call's worst case held against the ledger before it is sent
    text.py    service text as data: escaped, fenced, marked untrusted

The SDK is imported by ``server.py`` only: ``import socialframe`` never loads it.
"""
