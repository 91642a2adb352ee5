"""memgate's orchestration: the gate, the fuzz driver and the reports.

Standard library only. Components talk through JSON Lines records
(docs/records.md); nothing here parses a human message to learn a verdict.
"""
