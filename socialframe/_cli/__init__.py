"""The command line: ``socialframe comments|ads|cache|demo|sandbox``.

Its modules, top to bottom (each imports only from those below it):

- :mod:`.main`: ``main()``: parse, run the command, every outcome an exit code; signals
- :mod:`.collect`: the ``comments`` and ``ads`` commands
- :mod:`.cache`: the ``cache`` command
- :mod:`.sandbox`: the ``demo`` and ``sandbox`` commands (:mod:`.demo`: the demo itself)
- :mod:`.parser`: the argparse parser, its help, and the arguments refused before it
- :mod:`.exits`: the exit codes and the exceptions that end a command with one
- :mod:`.messages`: how every line on standard error is said, keys hidden
"""
