"""Pure: frames -> frames, one module per subject (comments, audience, terms, ads)."""
