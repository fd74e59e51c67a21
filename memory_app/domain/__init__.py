"""Pure domain logic: no Qt, no SQL, no network. Everything here is easy to test."""
