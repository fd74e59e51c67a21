"""The team store (issue 20): a team's shared memories on PostgreSQL, and this store's
link to it (tenancy, credentials, sync)."""
