"""What people see and keep: charts, HTML (one table, one PNG helper), the report,
and files written out."""
