"""Claude Code hooks: recall into the assistant's context, capture of its sessions.

Kept light on purpose: a hook runs as its own process before each prompt, so this
package imports only the standard library and the pure ranking code, never SQLModel,
pydantic, anthropic or Qt (see `recall.py`).
"""
