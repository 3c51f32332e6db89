"""The command line: ``socialframe comments|ads|cache|demo|sandbox``."""
