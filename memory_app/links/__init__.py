"""Links between memories (seeds 000, 003 and 004): related, depends-on, contradicts,
supersedes, and part-of an episode; discovered offline and editable by hand."""
